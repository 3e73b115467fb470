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
#define VGPU_COMPILE_OPTS	VGPU_COMPILE_VIRTUAL_TB

/* vgpu_compile_ptx() with @opts (VGPU_COMPILE_*; unknown bits: -EINVAL). */
int vgpu_compile_ptx_opts(const char *src, size_t len, unsigned int opts, void **image,
			  size_t *image_size, char *err, size_t errlen);

/*
 * Writes a listing of a program image to @out: header, entries with their
 * resources, and the code. Returns 0, or -EINVAL for a malformed image
 * (the listing then stops at the first problem, which it names).
 */
int vgpu_disasm(const void *image, size_t size, FILE *out);

#endif /* VGPU_COMPILE_H */
