// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu buffer objects: GEM objects backed by a range of device memory.
 *
 * The object has no shmem file; its pages are the device memory's
 * vmalloc_user() pages, mapped into the application by
 * remap_vmalloc_range() when it mmaps the fake offset on the DRM fd. The
 * mapping holds a GEM reference, so the range is not reused while mapped.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include "vgpu_drv.h"

static void vgpu_bo_free(struct drm_gem_object *obj)
{
	struct vgpu_device *vdev = to_vgpu_device(obj->dev);
	struct vgpu_bo *bo = to_vgpu_bo(obj);

	vgpu_vram_bo_free(&vdev->vram, &bo->node, bo->account);
	drm_gem_object_release(obj);
	kfree(bo);
}

static int vgpu_bo_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct vgpu_device *vdev = to_vgpu_device(obj->dev);
	struct vgpu_bo *bo = to_vgpu_bo(obj);
	unsigned long pgoff;

	/* The mapping may start inside the object (the fake offset range). */
	pgoff = vma->vm_pgoff - drm_vma_node_start(&obj->vma_node);
	if (pgoff + vma_pages(vma) > obj->size >> PAGE_SHIFT)
		return -EINVAL;
	/* Sets VM_DONTEXPAND | VM_DONTDUMP. */
	return remap_vmalloc_range(vma, vdev->vram.vaddr,
				   (bo->node.start >> PAGE_SHIFT) + pgoff);
}

static const struct vm_operations_struct vgpu_bo_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs vgpu_bo_funcs = {
	.free = vgpu_bo_free,
	.mmap = vgpu_bo_mmap,
	.vm_ops = &vgpu_bo_vm_ops,
};

/**
 * vgpu_bo_create_ioctl() - DRM_IOCTL_VGPU_BO_CREATE.
 * @drm: the device.
 * @data: &struct drm_vgpu_bo_create.
 * @file: the caller's file.
 *
 * Return: 0, -EINVAL (size 0, flags), -E2BIG (larger than device memory),
 * -ENOSPC (no free range), -ENOMEM.
 */
int vgpu_bo_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct drm_vgpu_bo_create *args = data;
	struct vgpu_file *vf = file->driver_priv;
	struct vgpu_bo *bo;
	u64 size, limit;
	int ret;

	if (args->flags) {
		drm_dbg(drm, "BO_CREATE: flags %#x set\n", args->flags);
		return -EINVAL;
	}
	if (!args->size) {
		drm_dbg(drm, "BO_CREATE: size 0\n");
		return -EINVAL;
	}
	if (args->size > vdev->vram.size) {
		drm_dbg(drm, "BO_CREATE: size %llu exceeds device memory %llu\n",
			args->size, vdev->vram.size);
		return -E2BIG;
	}
	size = PAGE_ALIGN(args->size);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	bo->base.funcs = &vgpu_bo_funcs;
	drm_gem_private_object_init(drm, &bo->base, size);

	limit = div_u64(vdev->vram.size * READ_ONCE(vdev->sched.file_vram_pct),
			100);
	ret = vgpu_vram_bo_alloc(&vdev->vram, &bo->node, size,
				 vgpu_file_arena(vf), vf->vram, limit);
	if (ret == -EDQUOT) {
		drm_dbg(drm, "BO_CREATE: the file holds %llu bytes of device memory; %llu more would pass its limit of %llu (file_vram_pct)\n",
			vf->vram->bytes, size, limit);
		ret = -ENOSPC;
		goto err_put;
	}
	if (ret) {
		drm_dbg(drm, "BO_CREATE: no free range of %llu bytes\n", size);
		goto err_put;
	}
	bo->account = vf->vram;

	ret = drm_gem_create_mmap_offset(&bo->base);
	if (ret) {
		drm_dbg(drm, "BO_CREATE: no mmap offset (%d)\n", ret);
		goto err_put;
	}
	ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (ret) {
		drm_dbg(drm, "BO_CREATE: no handle (%d)\n", ret);
		goto err_put;
	}
	args->device_address = bo->node.start;
	drm_gem_object_put(&bo->base);	/* the handle holds it now */
	return 0;

err_put:
	drm_gem_object_put(&bo->base);	/* frees the range, if any */
	return ret;
}

/**
 * vgpu_bo_mmap_offset_ioctl() - DRM_IOCTL_VGPU_BO_MMAP_OFFSET.
 * @drm: the device.
 * @data: &struct drm_vgpu_bo_mmap_offset.
 * @file: the caller's file.
 *
 * Return: 0, -EINVAL (pad), -ENOENT (unknown handle).
 */
int vgpu_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct drm_vgpu_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;

	if (args->pad) {
		drm_dbg(drm, "BO_MMAP_OFFSET: pad set\n");
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(drm, "BO_MMAP_OFFSET: unknown handle %u\n",
			args->handle);
		return -ENOENT;
	}
	args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return 0;
}
