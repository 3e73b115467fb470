// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu programs: PROGRAM_CREATE and PROGRAM_DESTROY, and a file's program
 * handles. Validation and loading are in vgpu_program_image.c. Programs are
 * reference counted: the file's handle and every job that runs the program
 * hold a reference.
 */

#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "vgpu_drv.h"

/**
 * vgpu_program_lookup() - find a program by handle and take a reference.
 * @vf: the file.
 * @handle: program handle.
 *
 * Return: the program or NULL.
 */
struct vgpu_program *vgpu_program_lookup(struct vgpu_file *vf, u32 handle)
{
	struct vgpu_program *prog;

	xa_lock(&vf->programs);
	prog = xa_load(&vf->programs, handle);
	if (prog)
		kref_get(&prog->ref);
	xa_unlock(&vf->programs);
	return prog;
}

/**
 * vgpu_program_create_ioctl() - DRM_IOCTL_VGPU_PROGRAM_CREATE.
 * @drm: the device.
 * @data: &struct drm_vgpu_program_create.
 * @file: the caller's file.
 *
 * Return: 0; -ENODEV (no backend), -EINVAL (malformed image), -E2BIG
 * (beyond a limit), -EFAULT, -ENOSPC (device memory or handle table full),
 * -ENOMEM.
 */
int vgpu_program_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct drm_vgpu_program_create *args = data;
	struct vgpu_file *vf = file->driver_priv;
	struct vgpu_device_desc desc;
	struct vgpu_program *prog;
	const char *why;
	void *image;
	u32 handle;
	int ret;

	ret = vgpu_backend_get_desc(vdev, &desc);
	if (ret) {
		drm_dbg(drm, "PROGRAM_CREATE: no backend attached\n");
		return ret;
	}
	if (args->size > VGPU_PROGRAM_MAX_SIZE) {
		drm_dbg(drm, "PROGRAM_CREATE: image of %u bytes too large\n",
			args->size);
		return -E2BIG;
	}
	if (args->size < sizeof(struct vgpu_program_header)) {
		drm_dbg(drm, "PROGRAM_CREATE: image of %u bytes is truncated\n",
			args->size);
		return -EINVAL;
	}

	image = kvmalloc(args->size, GFP_KERNEL);
	if (!image)
		return -ENOMEM;
	if (copy_from_user(image, u64_to_user_ptr(args->data), args->size)) {
		drm_dbg(drm, "PROGRAM_CREATE: image unreadable\n");
		ret = -EFAULT;
		goto out;
	}
	ret = vgpu_program_validate(image, args->size, &desc, &why);
	if (ret) {
		drm_dbg(drm, "PROGRAM_CREATE: rejected: %s\n", why);
		goto out;
	}
	prog = vgpu_program_load(&vdev->vram, vgpu_file_arena(file->driver_priv), image,
				 args->size);
	if (IS_ERR(prog)) {
		ret = PTR_ERR(prog);
		drm_dbg(drm, "PROGRAM_CREATE: no device memory (%d)\n", ret);
		goto out;
	}
	ret = xa_alloc(&vf->programs, &handle, prog,
		       XA_LIMIT(1, VGPU_MAX_PROGRAMS_PER_FILE), GFP_KERNEL);
	if (ret) {
		if (ret == -EBUSY)
			ret = -ENOSPC;
		drm_dbg(drm, "PROGRAM_CREATE: no program handle (%d)\n", ret);
		vgpu_program_put(prog);
		goto out;
	}
	args->handle = handle;
out:
	kvfree(image);
	return ret;
}

/**
 * vgpu_program_destroy_ioctl() - DRM_IOCTL_VGPU_PROGRAM_DESTROY.
 * @drm: the device.
 * @data: &struct drm_vgpu_program_destroy.
 * @file: the caller's file.
 *
 * Jobs that use the program keep it alive until they end.
 *
 * Return: 0, -EINVAL (pad), -ENOENT (unknown handle).
 */
int vgpu_program_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct drm_vgpu_program_destroy *args = data;
	struct vgpu_file *vf = file->driver_priv;
	struct vgpu_program *prog;

	if (args->pad) {
		drm_dbg(drm, "PROGRAM_DESTROY: pad set\n");
		return -EINVAL;
	}
	prog = xa_erase(&vf->programs, args->handle);
	if (!prog) {
		drm_dbg(drm, "PROGRAM_DESTROY: unknown handle %u\n",
			args->handle);
		return -ENOENT;
	}
	vgpu_program_put(prog);
	return 0;
}

/**
 * vgpu_file_programs_fini() - drop every program handle of a closing file.
 * @vf: the file.
 */
void vgpu_file_programs_fini(struct vgpu_file *vf)
{
	struct vgpu_program *prog;
	unsigned long handle;

	xa_for_each(&vf->programs, handle, prog)
		vgpu_program_put(prog);
	xa_destroy(&vf->programs);
}
