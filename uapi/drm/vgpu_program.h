/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * vgpu_program.h - the header of a compiled vgpu program image.
 *
 * libvgpu compiles PTX into a program image: this header, an array of
 * entry-point descriptors, the code (vGPU ISA, see Documentation/isa.rst)
 * and an optional initialised data segment for module-scope .global and
 * .const variables. vgpu.ko reads and validates only this header and the
 * entry descriptors; the code is for vgpud. All fields are little-endian,
 * all offsets are bytes from the start of the image.
 */
#ifndef _UAPI_VGPU_PROGRAM_H_
#define _UAPI_VGPU_PROGRAM_H_

#include <linux/const.h>
#include <linux/types.h>

#define VGPU_PROGRAM_MAGIC		0x55504756u	/* "VGPU" */
#define VGPU_PROGRAM_VERSION_MAJOR	1
#define VGPU_PROGRAM_VERSION_MINOR	0
/** Largest program image accepted by DRM_IOCTL_VGPU_PROGRAM_CREATE. */
#define VGPU_PROGRAM_MAX_SIZE		(16u << 20)
#define VGPU_PROGRAM_MAX_ENTRIES	256
#define VGPU_PROGRAM_NAME_LEN		64

/**
 * struct vgpu_program_header - start of a program image.
 * @magic: %VGPU_PROGRAM_MAGIC.
 * @version_major: %VGPU_PROGRAM_VERSION_MAJOR; another major is rejected.
 * @version_minor: additions that older readers may ignore.
 * @header_size: sizeof(struct vgpu_program_header) as written.
 * @image_size: bytes of the whole image.
 * @num_entries: entry points, 1 ... %VGPU_PROGRAM_MAX_ENTRIES.
 * @entry_size: sizeof(struct vgpu_program_entry) as written.
 * @entries_offset: where the entry descriptors start (8-byte aligned).
 * @code_offset: where the code starts (8-byte aligned).
 * @code_size: bytes of code, a multiple of 8.
 * @data_offset: where the initialised data starts.
 * @data_init_size: bytes of initialised data in the image.
 * @data_size: bytes of the data segment in device memory (at least
 *	@data_init_size; the rest is zeroed).
 * @reserved: must be zero.
 */
struct vgpu_program_header {
	__u32 magic;
	__u16 version_major;
	__u16 version_minor;
	__u32 header_size;
	__u32 image_size;
	__u32 num_entries;
	__u32 entry_size;
	__u32 entries_offset;
	__u32 code_offset;
	__u32 code_size;
	__u32 data_offset;
	__u32 data_init_size;
	__u32 data_size;
	__u32 reserved[4];
};

/* &vgpu_program_entry.flags */
/** The entry contains atomic instructions (global or shared). */
#define VGPU_ENTRY_HAS_ATOMICS		_BITUL(0)
/** The entry may store to global memory it also reads. */
#define VGPU_ENTRY_HAS_GLOBAL_RMW	_BITUL(1)

/**
 * struct vgpu_program_entry - one kernel entry point (.entry in PTX).
 * @name: NUL-terminated name as in the PTX source.
 * @code_start: first instruction, byte offset into the code.
 * @code_end: end of the entry's code (exclusive), byte offset.
 * @regs_per_thread: 32-bit registers each thread needs.
 * @shared_static: bytes of statically declared shared memory per block.
 * @param_size: bytes of the .param space; a launch must pass exactly this.
 * @local_per_thread: bytes of .local memory (stack) per thread.
 * @max_threads_per_tb: .maxntid limit (product), 0 when none.
 * @flags: %VGPU_ENTRY_* bits.
 * @reserved: must be zero.
 */
struct vgpu_program_entry {
	char name[VGPU_PROGRAM_NAME_LEN];
	__u32 code_start;
	__u32 code_end;
	__u32 regs_per_thread;
	__u32 shared_static;
	__u32 param_size;
	__u32 local_per_thread;
	__u32 max_threads_per_tb;
	__u32 flags;
	__u32 reserved[8];
};

#endif /* _UAPI_VGPU_PROGRAM_H_ */
