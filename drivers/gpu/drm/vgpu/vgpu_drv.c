// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu - DRM driver of a virtual GPU.
 *
 * The kernel half of the device (Documentation/design.rst): the command processor
 * and thread-block scheduler. Applications use the render node (GEM buffer
 * objects in device memory, programs, launches, sync objects); the vgpud
 * daemon attaches through /dev/vgpu-backend and models the SMs. This file
 * registers the platform driver and device, creates the DRM device when it
 * binds and unplugs it when it unbinds, and implements the per-file state
 * and GET_PARAM. See Documentation/driver.rst.
 */

#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "vgpu_drv.h"

static unsigned int vram_size_mb = 256;
module_param(vram_size_mb, uint, 0444);
MODULE_PARM_DESC(vram_size_mb, "Device memory in MiB (1..16384, default 256)");

static struct platform_device *vgpu_pdev;

static int vgpu_get_param_ioctl(struct drm_device *drm, void *data,
				struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct drm_vgpu_get_param *args = data;
	const struct vgpu_device_desc *d = &vdev->sched.desc;
	int ret = 0;

	if (args->pad) {
		drm_dbg(drm, "GET_PARAM: pad set\n");
		return -EINVAL;
	}
	if (args->param >= DRM_VGPU_PARAM_COUNT) {
		drm_dbg(drm, "GET_PARAM: unknown parameter %u\n", args->param);
		return -EINVAL;
	}
	if (args->param == DRM_VGPU_PARAM_VRAM_SIZE) {
		args->value = vdev->vram.size;
		return 0;
	}

	mutex_lock(&vdev->lock);
	if (args->param == DRM_VGPU_PARAM_BACKEND_ATTACHED) {
		args->value = vdev->sched.attached;
		goto out;
	}
	if (!vdev->sched.attached) {
		drm_dbg(drm, "GET_PARAM: parameter %u needs a backend\n",
			args->param);
		ret = -ENODEV;
		goto out;
	}
	if (args->param == DRM_VGPU_PARAM_CURRENT_CYCLE) {
		args->value = vdev->sched.cycle;
		goto out;
	}
	if (vgpu_desc_param(d, args->param, &args->value)) {
		drm_dbg(drm, "GET_PARAM: unknown parameter %u\n", args->param);
		ret = -EINVAL;
	}
out:
	mutex_unlock(&vdev->lock);
	return ret;
}

static int vgpu_open(struct drm_device *drm, struct drm_file *file)
{
	struct vgpu_file *vf;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL);
	if (!vf)
		return -ENOMEM;
	vf->vram = vgpu_vram_account_new();
	if (!vf->vram) {
		kfree(vf);
		return -ENOMEM;
	}
	vf->vdev = to_vgpu_device(drm);
	vf->pid = task_tgid_nr(current);
	xa_init_flags(&vf->programs, XA_FLAGS_ALLOC1);
	xa_init(&vf->jobs);
	atomic_set(&vf->num_jobs, 0);
	vgpu_clock_file_init(&vf->clock);
	file->driver_priv = vf;
	mutex_lock(&vf->vdev->lock);
	vf->vdev->sched.users++;
	mutex_unlock(&vf->vdev->lock);
	return 0;
}

static void vgpu_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct vgpu_file *vf = file->driver_priv;
	struct vgpu_device *vdev = vf->vdev;

	vgpu_clock_file_fini(vf);
	vgpu_file_jobs_fini(vf);
	vgpu_file_programs_fini(vf);
	vgpu_vram_account_put(vf->vram);
	kfree(vf);

	mutex_lock(&vdev->lock);
	vdev->sched.users--;
	vdev->sched.emitted = 0;
	vgpu_sched_fresh_start(&vdev->sched, true);
	if (vdev->sched.emitted) {
		vdev->sched.sink->publish(vdev->sched.sink_ctx);
		vgpu_backend_notify(vdev);
	}
	mutex_unlock(&vdev->lock);
}

static const struct drm_ioctl_desc vgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VGPU_GET_PARAM, vgpu_get_param_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_BO_CREATE, vgpu_bo_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_BO_MMAP_OFFSET, vgpu_bo_mmap_offset_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_PROGRAM_CREATE, vgpu_program_create_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_PROGRAM_DESTROY, vgpu_program_destroy_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_SUBMIT, vgpu_submit_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_JOB_INFO, vgpu_job_info_ioctl,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_WAIT, vgpu_wait_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VGPU_CLOCK_SYNC, vgpu_clock_sync_ioctl,
			  DRM_RENDER_ALLOW),
};

DEFINE_DRM_GEM_FOPS(vgpu_fops);

static const struct drm_driver vgpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ,
	.open = vgpu_open,
	.postclose = vgpu_postclose,
	.ioctls = vgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(vgpu_ioctls),
	.fops = &vgpu_fops,
	.name = VGPU_DRIVER_NAME,
	.desc = "Virtual GPU with a user-space hardware model",
	.date = "20250101",
	.major = 1,
	.minor = 0,
};

/* The last reference to the DRM device is gone: no file, mapping or job. */
static void vgpu_device_release(struct drm_device *drm, void *arg)
{
	struct vgpu_device *vdev = arg;

	cancel_work_sync(&vdev->deps_work);
	vgpu_sched_fini(&vdev->sched);
	vgpu_vram_fini(&vdev->vram);
}

static int vgpu_device_init(struct vgpu_device *vdev)
{
	int ret;

	ret = drmm_mutex_init(&vdev->drm, &vdev->lock);
	if (ret)
		return ret;
	spin_lock_init(&vdev->fence_lock);
	init_waitqueue_head(&vdev->cmd_wq);
	INIT_WORK(&vdev->deps_work, vgpu_job_deps_work);
	vdev->fence_context = dma_fence_context_alloc(1);
	vgpu_sched_init(&vdev->sched, &vdev->lock, vdev->drm.dev);
	vgpu_clock_dev_init(vdev);
	dev_set_drvdata(vdev->drm.dev, vdev);

	ret = vgpu_vram_init(&vdev->vram, (u64)vram_size_mb << 20);
	if (ret) {
		vgpu_sched_fini(&vdev->sched);
		return ret;
	}
	/*
	 * Device memory, the KCB and the job records outlive an unplug:
	 * processes may still map buffers and hold job records. They go with
	 * the DRM device's last reference.
	 */
	ret = drmm_add_action_or_reset(&vdev->drm, vgpu_device_release, vdev);
	if (ret)
		return ret;
	ret = vgpu_backend_register(vdev);
	if (ret)
		return ret;
	vgpu_debugfs_init(vdev);
	ret = drm_dev_register(&vdev->drm, 0);
	if (ret)
		goto err_backend;
	ret = vgpu_sysfs_init(vdev);
	if (ret)
		goto err_drm;
	return 0;

err_drm:
	drm_dev_unregister(&vdev->drm);
err_backend:
	vgpu_backend_unregister(vdev);
	return ret;
}

static int vgpu_probe(struct platform_device *pdev)
{
	struct vgpu_device *vdev;
	int ret;

	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	vdev = devm_drm_dev_alloc(&pdev->dev, &vgpu_drm_driver,
				  struct vgpu_device, drm);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	ret = vgpu_device_init(vdev);
	if (ret)
		return ret;
	drm_info(&vdev->drm, "%u MiB of device memory, render node ready\n",
		 vram_size_mb);
	return 0;
}

/*
 * Hot unplug (unbind, or the module's removal): as DRM drivers do, the
 * device is unplugged at once - every ioctl of a file still open returns
 * -ENODEV (drm_ioctl()), a new mmap() too - the backend is detached and
 * every job that has not ended fails with -ENODEV, so its waiters return.
 * What processes still hold - files, mappings of buffers, job records -
 * stays valid until they let go (vgpu_device_release()).
 */
static void vgpu_remove(struct platform_device *pdev)
{
	struct vgpu_device *vdev = platform_get_drvdata(pdev);

	vgpu_sysfs_fini(vdev);
	drm_dev_unplug(&vdev->drm);
	vgpu_backend_unplug(vdev);
	/* Every job has ended: no in-fence callback is left to queue it. */
	cancel_work_sync(&vdev->deps_work);
	vgpu_clock_dev_fini(vdev);
	vgpu_backend_unregister(vdev);
	drm_info(&vdev->drm, "unplugged\n");
}

static struct platform_driver vgpu_platform_driver = {
	.probe = vgpu_probe,
	.remove = vgpu_remove,
	.driver = {
		.name = VGPU_DRIVER_NAME,
	},
};

static int __init vgpu_module_init(void)
{
	int ret;

	if (!vram_size_mb || vram_size_mb > 16384) {
		pr_err("vgpu: vram_size_mb must be 1..16384\n");
		return -EINVAL;
	}
	ret = platform_driver_register(&vgpu_platform_driver);
	if (ret)
		return ret;
	vgpu_pdev = platform_device_register_simple(VGPU_DRIVER_NAME, -1,
						    NULL, 0);
	if (IS_ERR(vgpu_pdev)) {
		platform_driver_unregister(&vgpu_platform_driver);
		return PTR_ERR(vgpu_pdev);
	}
	return 0;
}

static void __exit vgpu_module_exit(void)
{
	platform_device_unregister(vgpu_pdev);
	platform_driver_unregister(&vgpu_platform_driver);
}

module_init(vgpu_module_init);
module_exit(vgpu_module_exit);

MODULE_DESCRIPTION("vgpu: virtual GPU command processor and TB scheduler");
MODULE_LICENSE("GPL");
