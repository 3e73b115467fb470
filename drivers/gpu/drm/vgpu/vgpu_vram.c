// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu device memory.
 *
 * One vmalloc_user() region is the whole device memory (Documentation/design.rst,
 * "Device memory and isolation"). A device address is a byte offset in it.
 * Buffer objects, program images, data segments and job descriptors are
 * ranges handed out by a drm_mm allocator under its own mutex. The first
 * page is never handed out, so device address 0 means "none".
 */

#include <linux/align.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "vgpu_vram.h"

/**
 * vgpu_vram_init() - allocate the device memory.
 * @vram: the device memory to set up.
 * @size: bytes, a multiple of the page size, at least two pages.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int vgpu_vram_init(struct vgpu_vram *vram, u64 size)
{
	if (size < 2 * PAGE_SIZE || !PAGE_ALIGNED(size))
		return -EINVAL;
	vram->vaddr = vmalloc_user(size);
	if (!vram->vaddr)
		return -ENOMEM;
	vram->size = size;
	mutex_init(&vram->lock);
	drm_mm_init(&vram->mm, PAGE_SIZE, size - PAGE_SIZE);
	return 0;
}

/**
 * vgpu_vram_fini() - free the device memory; every range must be free.
 * @vram: the device memory.
 */
void vgpu_vram_fini(struct vgpu_vram *vram)
{
	if (!vram->vaddr)
		return;
	mutex_lock(&vram->lock);
	drm_mm_takedown(&vram->mm);	/* warns about leaked ranges */
	mutex_unlock(&vram->lock);
	mutex_destroy(&vram->lock);
	vfree(vram->vaddr);
	vram->vaddr = NULL;
}

/**
 * vgpu_vram_alloc() - allocate a range.
 * @vram: the device memory.
 * @node: zeroed node that receives the range.
 * @size: bytes, non-zero.
 * @align: alignment in bytes (0 for none).
 * @arena: 0 for anywhere; 1 to %VGPU_VRAM_ARENAS - 1 for the lowest free
 *	range in that eighth of the device memory if there is one (the
 *	synchronised clock's files, see vgpu_file_arena()), else anywhere.
 *
 * The range's contents are not cleared.
 *
 * Return: 0, -EINVAL for size 0, -E2BIG when @size exceeds the device
 * memory, -ENOSPC when no free range is large enough.
 */
int vgpu_vram_alloc(struct vgpu_vram *vram, struct drm_mm_node *node,
		    u64 size, u64 align, u32 arena)
{
	u64 slice = vram->size / VGPU_VRAM_ARENAS;
	int ret = -ENOSPC;

	if (!size)
		return -EINVAL;
	if (size > vram->size)
		return -E2BIG;
	mutex_lock(&vram->lock);
	if (arena && arena < VGPU_VRAM_ARENAS)
		ret = drm_mm_insert_node_in_range(&vram->mm, node, size, align, 0,
						  arena * slice,
						  (arena + 1) * slice,
						  DRM_MM_INSERT_LOW);
	if (ret)
		ret = drm_mm_insert_node_generic(&vram->mm, node, size, align,
						 0, DRM_MM_INSERT_BEST);
	mutex_unlock(&vram->lock);
	return ret ? -ENOSPC : 0;
}

/**
 * vgpu_vram_free() - return a range; a node never allocated is ignored.
 * @vram: the device memory.
 * @node: the range.
 */
void vgpu_vram_free(struct vgpu_vram *vram, struct drm_mm_node *node)
{
	if (!drm_mm_node_allocated(node))
		return;
	mutex_lock(&vram->lock);
	drm_mm_remove_node(node);
	mutex_unlock(&vram->lock);
}

/**
 * vgpu_vram_account_new() - an empty account for a new file.
 *
 * Return: the account with the file's reference, or NULL.
 */
struct vgpu_vram_account *vgpu_vram_account_new(void)
{
	struct vgpu_vram_account *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (a)
		kref_init(&a->ref);
	return a;
}

static void vgpu_vram_account_release(struct kref *ref)
{
	kfree(container_of(ref, struct vgpu_vram_account, ref));
}

/**
 * vgpu_vram_account_put() - drop a reference to an account.
 * @a: the account, or NULL.
 */
void vgpu_vram_account_put(struct vgpu_vram_account *a)
{
	if (a)
		kref_put(&a->ref, vgpu_vram_account_release);
}

/**
 * vgpu_vram_bo_alloc() - allocate a buffer object's range.
 * @vram: the device memory.
 * @node: zeroed node that receives the range.
 * @size: bytes asked for; rounded up to whole pages, so that no other
 *	owner's data shares a page the buffer's owner maps.
 * @arena: as for vgpu_vram_alloc().
 * @account: the creating file's account; charged the buffer's size, and
 *	referenced, on success.
 * @limit: the most bytes @account may hold.
 *
 * The range is cleared: a new buffer never shows an earlier owner's data.
 *
 * Return: 0, -EINVAL for size 0, -E2BIG when @size exceeds the device
 * memory, -EDQUOT when the account would pass @limit, -ENOSPC when no free
 * range is large enough.
 */
int vgpu_vram_bo_alloc(struct vgpu_vram *vram, struct drm_mm_node *node,
		       u64 size, u32 arena, struct vgpu_vram_account *account,
		       u64 limit)
{
	int ret;

	if (!size)
		return -EINVAL;
	if (size > vram->size)
		return -E2BIG;
	size = PAGE_ALIGN(size);
	mutex_lock(&vram->lock);
	if (account->bytes + size > limit) {
		mutex_unlock(&vram->lock);
		return -EDQUOT;
	}
	account->bytes += size;
	mutex_unlock(&vram->lock);
	ret = vgpu_vram_alloc(vram, node, size, PAGE_SIZE, arena);
	if (ret) {
		mutex_lock(&vram->lock);
		account->bytes -= size;
		mutex_unlock(&vram->lock);
		return ret;
	}
	kref_get(&account->ref);
	memset(vgpu_vram_ptr(vram, node->start), 0, size);
	return 0;
}

/**
 * vgpu_vram_bo_free() - give a buffer object's range back.
 * @vram: the device memory.
 * @node: the range, or an unallocated node.
 * @account: the account it was charged to (its reference is dropped).
 */
void vgpu_vram_bo_free(struct vgpu_vram *vram, struct drm_mm_node *node,
		       struct vgpu_vram_account *account)
{
	if (!drm_mm_node_allocated(node))
		return;
	mutex_lock(&vram->lock);
	account->bytes -= node->size;
	drm_mm_remove_node(node);
	mutex_unlock(&vram->lock);
	vgpu_vram_account_put(account);
}

/**
 * vgpu_vram_ctx_alloc() - allocate a context save area.
 * @vram: the device memory.
 * @bytes: its size.
 * @addr: out, its device address.
 *
 * The &vgpu_cmd_sink_ops.ctx_alloc of both command sinks (the backend's
 * ring and libvgpu's local device): a 64-byte aligned range anywhere.
 *
 * Return: the area's handle for vgpu_vram_ctx_free(), or NULL when there is
 * no room (or no memory for the handle).
 */
void *vgpu_vram_ctx_alloc(struct vgpu_vram *vram, u64 bytes, u64 *addr)
{
	struct drm_mm_node *node = kzalloc(sizeof(*node), GFP_KERNEL);

	if (!node)
		return NULL;
	if (vgpu_vram_alloc(vram, node, bytes, 64, 0)) {
		kfree(node);
		return NULL;
	}
	*addr = node->start;
	return node;
}

/**
 * vgpu_vram_ctx_free() - give a context save area back.
 * @vram: the device memory.
 * @handle: what vgpu_vram_ctx_alloc() returned.
 */
void vgpu_vram_ctx_free(struct vgpu_vram *vram, void *handle)
{
	vgpu_vram_free(vram, handle);
	kfree(handle);
}

/**
 * vgpu_vram_ptr() - kernel address of a device address.
 * @vram: the device memory.
 * @addr: device address inside an allocated range.
 *
 * Return: the kernel virtual address.
 */
void *vgpu_vram_ptr(struct vgpu_vram *vram, u64 addr)
{
	return vram->vaddr + addr;
}
