/* SPDX-License-Identifier: MIT */
/*
 * vgpu_compile.h - the PTX front end of libvgpu: compiles the PTX that
 * nvcc -ptx emits into a vgpu program image (uapi/drm/vgpu_program.h, the
 * code in the vGPU ISA of Documentation/isa.rst).
 */
#ifndef VGPU_COMPILE_H
#define VGPU_COMPILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Compiles @len bytes of PTX at @src. On success returns 0 and stores a
 * malloc'd image (one entry per .entry, in source order) in *@image and its
 * size in *@image_size; the caller frees it. On failure returns -EINVAL
 * (bad or unsupported PTX; @err holds "ptx:LINE: message") or -ENOMEM.
 * @err may be NULL when @errlen is 0.
 */
int vgpu_compile_ptx(const char *src, size_t len, void **image, size_t *image_size,
		     char *err, size_t errlen);

/*
 * Options of vgpu_compile_ptx_opts().
 *
 * VGPU_COMPILE_VIRTUAL_TB: every entry becomes a persistent-thread loop over
 * logical blocks (virtual thread blocks and warps, Anantpur & Govindarajan,
 * "Taming Warp Divergence", §4.1; Documentation/isa.rst, "Virtual thread
 * blocks"). An entry whose semantics the loop would change fails with
 * "ptx:LINE: virtual thread blocks: REASON".
 */
#define VGPU_COMPILE_VIRTUAL_TB	1u
/*
 * With VGPU_COMPILE_VIRTUAL_TB, the thread-index assignment (§4.2.2); none
 * of the two is SameLane (a warp keeps its own thread indices).
 * VGPU_COMPILE_VTB_LOWEST: LowestToHighestLane, the k-th warp of a block to
 * start a logical block runs its k-th warp's threads.
 * VGPU_COMPILE_VTB_SLOWEST: SlowestLane, it runs the threads the k-th
 * slowest warp of the previous logical block ran. The entry derives %tid
 * from NEXTTB.TID and is flagged VGPU_ENTRY_VTB_LOWEST / _SLOWEST. Both,
 * or one without VGPU_COMPILE_VIRTUAL_TB: -EINVAL.
 */
#define VGPU_COMPILE_VTB_LOWEST	2u
#define VGPU_COMPILE_VTB_SLOWEST	4u
#define VGPU_COMPILE_OPTS	(VGPU_COMPILE_VIRTUAL_TB | VGPU_COMPILE_VTB_LOWEST | \
				 VGPU_COMPILE_VTB_SLOWEST)

/*
 * Adds to *@opts the VGPU_COMPILE_* bits of a virtual-thread-block mode
 * name: "same" (or NULL), "lowest" or "slowest" (SameLane,
 * LowestToHighestLane, SlowestLane). Returns 0, or -EINVAL for another name
 * (*@opts unchanged).
 */
int vgpu_compile_vtb_mode(const char *name, unsigned int *opts);

/* vgpu_compile_ptx() with @opts (VGPU_COMPILE_*; unknown bits: -EINVAL). */
int vgpu_compile_ptx_opts(const char *src, size_t len, unsigned int opts, void **image,
			  size_t *image_size, char *err, size_t errlen);

/*
 * What one device offers a program, for vgpu_compile_ptx_limits() and
 * vgpu_compile_check_limits(); a field of 0 sets no limit. libvgpu fills it
 * from the device's parameters (DRM_VGPU_PARAM_MAX_*), `vgpu ptx --gpu`
 * from the device description of a preset of the model.
 *
 * @regs_per_thread: registers per thread; the compiler spills values to
 *	local memory to stay within it (as ptxas -maxrregcount does).
 * @shared_per_tb: bytes of static shared memory per block.
 * @local_per_thread: bytes of local memory per thread, spill slots included.
 * @threads_per_tb: threads per block (an entry's .maxntid / .reqntid).
 * @param_bytes: bytes of parameters.
 */
struct vgpu_compile_limits {
	unsigned int regs_per_thread;
	unsigned int shared_per_tb;
	unsigned int local_per_thread;
	unsigned int threads_per_tb;
	unsigned int param_bytes;
};

/*
 * vgpu_compile_ptx_opts() for a device with limits @lim (NULL: none).
 * Registers beyond @lim->regs_per_thread are spilled to local memory; an
 * entry that still needs more of a resource than the device offers fails
 * with -E2BIG and "ptx:LINE: entry 'NAME' needs N RESOURCE; the device
 * allows M" (LINE: the entry's .entry line).
 */
int vgpu_compile_ptx_limits(const char *src, size_t len, unsigned int opts,
			    const struct vgpu_compile_limits *lim, void **image,
			    size_t *image_size, char *err, size_t errlen);

/*
 * Checks each entry of a program image against @lim. Returns 0, -E2BIG with
 * "entry 'NAME' needs N RESOURCE; the device allows M" in @err for the
 * first entry and resource that does not fit, or -EINVAL for an image too
 * short to hold its entries.
 */
int vgpu_compile_check_limits(const void *image, size_t size,
			      const struct vgpu_compile_limits *lim, char *err, size_t errlen);

/*
 * Writes a listing of a program image to @out: header, entries with their
 * resources, and the code. Returns 0, or -EINVAL for a malformed image
 * (the listing then stops at the first problem, which it names).
 */
int vgpu_disasm(const void *image, size_t size, FILE *out);

#endif /* VGPU_COMPILE_H */
