/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu program images (vgpu_program_image.c): a validated program loaded
 * into device memory.
 */
#ifndef _VGPU_PROGRAM_IMAGE_H_
#define _VGPU_PROGRAM_IMAGE_H_

#include <linux/kref.h>
#include <linux/types.h>

#include <drm/drm_mm.h>
#include <drm/vgpu_backend.h>
#include <drm/vgpu_program.h>

#include "vgpu_vram.h"

/** Program handles one DRM file may hold. */
#define VGPU_MAX_PROGRAMS_PER_FILE	4096

/**
 * struct vgpu_program - a loaded, validated program.
 * @ref: references: the file's handle and every job that uses it.
 * @vram: the device memory it is loaded in.
 * @image: the image in device memory (vgpud fetches the code there).
 * @data: the data segment, allocated when @data_size is non-zero.
 * @size: bytes of the image.
 * @data_size: bytes of the data segment.
 * @num_entries: entry points.
 * @hash: xxh64 of the image: the same code loaded again, by any process,
 *	has the same hash, so that a kernel is recognised when it comes back
 *	(&vgpu_kcb_entry.kernel_key).
 * @entries: validated copies of the entry descriptors.
 */
struct vgpu_program {
	struct kref ref;
	struct vgpu_vram *vram;
	struct drm_mm_node image;
	struct drm_mm_node data;
	u64 hash;
	u32 size;
	u32 data_size;
	u32 num_entries;
	struct vgpu_program_entry entries[] __counted_by(num_entries);
};

int vgpu_program_validate(const void *image, size_t size,
			  const struct vgpu_device_desc *desc,
			  const char **why);
struct vgpu_program *vgpu_program_load(struct vgpu_vram *vram, u32 arena,
				       const void *image, u32 size);
void vgpu_program_put(struct vgpu_program *prog);

#endif /* _VGPU_PROGRAM_IMAGE_H_ */
