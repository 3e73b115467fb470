/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu device memory (vgpu_vram.c): the region and its range allocator.
 *
 * Part of the command processor that also runs in libvgpu's local device
 * (Documentation/design.rst, "One command processor, two hosts"): where
 * ranges land decides cache sets, memory partitions and DRAM rows, so both
 * hosts place them with this code.
 */
#ifndef _VGPU_VRAM_H_
#define _VGPU_VRAM_H_

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_mm.h>

/** Parts of the device memory the synchronised clock's files allocate in. */
#define VGPU_VRAM_ARENAS		8

/**
 * struct vgpu_vram - the device memory.
 * @vaddr: the region, from vmalloc_user() so that it can be mapped into
 *	user space page by page.
 * @size: bytes.
 * @lock: protects @mm. Taken inside &vgpu_device.lock, never around it.
 * @mm: range allocator over [PAGE_SIZE, @size): device address 0 is never
 *	handed out, so 0 can mean "none".
 */
struct vgpu_vram {
	void *vaddr;
	u64 size;
	struct mutex lock;	/* protects @mm */
	struct drm_mm mm;
};

/**
 * struct vgpu_vram_account - the device memory one file's buffers hold
 *	(the per-file limit, sysfs file_vram_pct).
 * @ref: the file's reference and one per buffer it created: a buffer may
 *	outlive its file (a job, a mapping, another file's handle).
 * @bytes: bytes its buffers hold; under &vgpu_vram.lock.
 */
struct vgpu_vram_account {
	struct kref ref;
	u64 bytes;
};

struct vgpu_vram_account *vgpu_vram_account_new(void);
void vgpu_vram_account_put(struct vgpu_vram_account *a);

int vgpu_vram_init(struct vgpu_vram *vram, u64 size);
void vgpu_vram_fini(struct vgpu_vram *vram);
int vgpu_vram_alloc(struct vgpu_vram *vram, struct drm_mm_node *node,
		    u64 size, u64 align, u32 arena);
int vgpu_vram_bo_alloc(struct vgpu_vram *vram, struct drm_mm_node *node,
		       u64 size, u32 arena, struct vgpu_vram_account *account,
		       u64 limit);
void vgpu_vram_bo_free(struct vgpu_vram *vram, struct drm_mm_node *node,
		       struct vgpu_vram_account *account);
void *vgpu_vram_ctx_alloc(struct vgpu_vram *vram, u64 bytes, u64 *addr);
void vgpu_vram_ctx_free(struct vgpu_vram *vram, void *handle);
void vgpu_vram_free(struct vgpu_vram *vram, struct drm_mm_node *node);
void *vgpu_vram_ptr(struct vgpu_vram *vram, u64 addr);

#endif /* _VGPU_VRAM_H_ */
