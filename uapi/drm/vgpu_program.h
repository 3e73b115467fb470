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
#define VGPU_PROGRAM_VERSION_MINOR	2
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
 * @analysis_offset: (minor >= 1) where the compiler's analyses start: one
 *	&struct vgpu_program_analysis per entry, in entry order (8-byte
 *	aligned); 0 with @analysis_size 0 when the image has none. Readers
 *	may ignore it; nothing in it changes how the code executes.
 * @analysis_size: bytes of the analysis section (num_entries times
 *	&vgpu_program_analysis.size).
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
	__u32 analysis_offset;
	__u32 analysis_size;
	__u32 reserved[2];
};

/* &vgpu_program_entry.flags */
/** The entry contains atomic instructions (global or shared). */
#define VGPU_ENTRY_HAS_ATOMICS		_BITUL(0)
/** The entry may store to global memory it also reads. */
#define VGPU_ENTRY_HAS_GLOBAL_RMW	_BITUL(1)
/*
 * The entry is virtualised (virtual thread blocks): a persistent-thread
 * loop that takes logical block indices with NEXTTB until the grid is
 * done, so a launch runs only as many blocks as fill the device.
 */
#define VGPU_ENTRY_VIRTUAL_TB		_BITUL(2)
/*
 * Thread-index assignment of a virtualised entry (seed 003 §4.2.2): none
 * of the two is SameLane (a warp keeps its own thread indices); with
 * %VGPU_ENTRY_VTB_LOWEST (LowestToHighestLane) the k-th warp of a block to
 * start an iteration takes the k-th warp's thread indices of its logical
 * block, with %VGPU_ENTRY_VTB_SLOWEST (SlowestLane) those the k-th slowest
 * warp of the previous iteration had. The entry reads them with NEXTTB.TID.
 * At most one of the two, only with %VGPU_ENTRY_VIRTUAL_TB.
 */
#define VGPU_ENTRY_VTB_LOWEST		_BITUL(3)
#define VGPU_ENTRY_VTB_SLOWEST		_BITUL(4)

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

/** Program point slots of ELF (thesis Ch. III: 32 slots, 8-bit scores). */
#define VGPU_ELF_SLOTS			32
#define VGPU_ELF_MAX_SCORE		255
/* &vgpu_elf_point.flags */
#define VGPU_ELF_BRANCH			_BITUL(0)	/* else a memory load */
/** &vgpu_program_analysis.first_boundary when the entry has none. */
#define VGPU_NO_BOUNDARY		0xffffffffu

/**
 * struct vgpu_elf_point - one ELF program point (Earliest Load First).
 * @pc: word index of the instruction, relative to the entry's code start.
 * @score: branch: least instructions from it to the next global/local
 *	load over both paths; load: the distance of a merged earlier point
 *	(0 when none was merged into it).
 * @flags: %VGPU_ELF_BRANCH for a branch.
 * @reserved: zero.
 */
struct vgpu_elf_point {
	__u32 pc;
	__u8 score;
	__u8 flags;
	__u16 reserved;
};

/**
 * struct vgpu_program_analysis - what the compiler found out about one entry
 * (the analysis section, &vgpu_program_header.analysis_offset).
 * @size: sizeof(struct vgpu_program_analysis) as written.
 * @insts: instructions of the entry (static count, extension words not
 *	counted).
 * @idem_insts: instructions no path from an idempotence boundary reaches
 *	(Chimera's relaxed idempotence: a block re-executed from its start
 *	gives the same result while it has not executed a boundary).
 * @num_boundaries: boundary instructions (marked %VGPU_I_BOUNDARY in the
 *	code, see Documentation/isa.rst): global atomics, and global stores
 *	that may overwrite memory the entry reads.
 * @first_boundary: word index (entry-relative) of the first boundary in
 *	code order, %VGPU_NO_BOUNDARY when none.
 * @num_branches: conditional branches (each carries its reconvergence
 *	point in its extension word).
 * @num_reconv: of those, the ones whose paths meet before the exit.
 * @num_elf_points: valid entries of @elf, at most %VGPU_ELF_SLOTS.
 * @elf_points_before_merge: program points before Algorithm 2 merged them.
 * @reserved: zero.
 * @elf: the program points, ordered by pc.
 */
struct vgpu_program_analysis {
	__u32 size;
	__u32 insts;
	__u32 idem_insts;
	__u32 num_boundaries;
	__u32 first_boundary;
	__u32 num_branches;
	__u32 num_reconv;
	__u32 num_elf_points;
	__u32 elf_points_before_merge;
	__u32 reserved[3];
	struct vgpu_elf_point elf[VGPU_ELF_SLOTS];
};

#endif /* _UAPI_VGPU_PROGRAM_H_ */
