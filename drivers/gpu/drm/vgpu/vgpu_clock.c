// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu synchronised clock: DRM_IOCTL_VGPU_CLOCK_SYNC and DRM_IOCTL_VGPU_WAIT.
 *
 * What the clock decides - when time stands, when it runs, where a file's
 * memory goes - is in vgpu_clock_hold.c; this file is its ioctl glue: the
 * daemon is woken when a hold ends (it waits in WAIT_CLOCK, vgpu_backend.c),
 * and a wait sleeps on the job's fence.
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "vgpu_drv.h"

/* &vgpu_clock.released: the decisions of the hold's end are taken. */
static void vgpu_clock_released(struct vgpu_clock *clock)
{
	struct vgpu_device *vdev = container_of(clock, struct vgpu_device, clock);

	if (vdev->sched.emitted)
		vgpu_backend_notify(vdev);
	wake_up_interruptible_all(&vdev->clock_wq);
}

static u64 vgpu_clock_host_ms(void)
{
	return jiffies64_to_msecs(get_jiffies_64());
}

/*
 * The hold limit (sysfs clock_hold_ms): every second while files are
 * joined, those that have run on the host longer than the limit without
 * waiting leave the clock, so that the others' time runs again.
 */
static void vgpu_clock_watch(struct work_struct *work)
{
	struct vgpu_device *vdev = container_of(to_delayed_work(work),
						struct vgpu_device,
						clock_watch);
	struct vgpu_clock_file *cf;
	bool again;
	u32 limit;

	mutex_lock(&vdev->lock);
	limit = vdev->sched.clock_hold_ms;
	while (limit && (cf = vgpu_clock_overdue(&vdev->clock,
						 vgpu_clock_host_ms(), limit))) {
		struct vgpu_file *vf = container_of(cf, struct vgpu_file, clock);

		drm_warn(&vdev->drm,
			 "process %d ran %u ms on the synchronised clock without waiting; it leaves the clock\n",
			 vf->pid, limit);
		vgpu_clock_leave(&vdev->clock, cf);
	}
	again = !list_empty(&vdev->clock.joined);
	mutex_unlock(&vdev->lock);
	if (again)
		schedule_delayed_work(&vdev->clock_watch, HZ);
}

/**
 * vgpu_clock_dev_init() - set up the synchronised clock of a device.
 * @vdev: the device; its scheduler is initialised.
 */
void vgpu_clock_dev_init(struct vgpu_device *vdev)
{
	vgpu_clock_init(&vdev->clock, &vdev->sched, vgpu_clock_released);
	vdev->clock.host_ms = vgpu_clock_host_ms;
	init_waitqueue_head(&vdev->clock_wq);
	INIT_DELAYED_WORK(&vdev->clock_watch, vgpu_clock_watch);
}

/**
 * vgpu_clock_dev_fini() - stop the hold limit's watch.
 * @vdev: the device; no file is open.
 */
void vgpu_clock_dev_fini(struct vgpu_device *vdev)
{
	cancel_delayed_work_sync(&vdev->clock_watch);
}

/**
 * vgpu_file_arena() - where a file's device memory is allocated.
 * @vf: the file.
 *
 * Return: vgpu_clock_arena() of its part in the clock.
 */
u32 vgpu_file_arena(struct vgpu_file *vf)
{
	return vgpu_clock_arena(&vf->clock);
}

/**
 * vgpu_clock_file_fini() - a closing file leaves the synchronised clock.
 * @vf: the file.
 */
void vgpu_clock_file_fini(struct vgpu_file *vf)
{
	struct vgpu_device *vdev = vf->vdev;

	mutex_lock(&vdev->lock);
	vgpu_clock_leave(&vdev->clock, &vf->clock);
	mutex_unlock(&vdev->lock);
}

/**
 * vgpu_clock_sync_ioctl() - DRM_IOCTL_VGPU_CLOCK_SYNC.
 * @drm: the device.
 * @data: &struct drm_vgpu_clock_sync.
 * @file: the caller's file.
 *
 * Return: 0, or -EINVAL for unknown flags or a rank given when leaving.
 */
int vgpu_clock_sync_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct drm_vgpu_clock_sync *args = data;
	struct vgpu_file *vf = file->driver_priv;

	if (args->flags & ~DRM_VGPU_CLOCK_SYNC_FLAGS) {
		drm_dbg(drm, "CLOCK_SYNC: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	if (!(args->flags & DRM_VGPU_CLOCK_SYNC_JOIN) && args->rank) {
		drm_dbg(drm, "CLOCK_SYNC: rank %u given when leaving\n",
			args->rank);
		return -EINVAL;
	}

	mutex_lock(&vdev->lock);
	if (args->flags & DRM_VGPU_CLOCK_SYNC_JOIN)
		vgpu_clock_join(&vdev->clock, &vf->clock, args->rank);
	else
		vgpu_clock_leave(&vdev->clock, &vf->clock);
	mutex_unlock(&vdev->lock);
	if (args->flags & DRM_VGPU_CLOCK_SYNC_JOIN)
		schedule_delayed_work(&vdev->clock_watch, HZ);
	return 0;
}

/**
 * vgpu_wait_ioctl() - DRM_IOCTL_VGPU_WAIT.
 * @drm: the device.
 * @data: &struct drm_vgpu_wait.
 * @file: the caller's file.
 *
 * Return: 0 once the job has ended; -EINVAL (flags, pad), -ENOENT (no such
 * job record in this file), -ETIME (timeout), -ERESTARTSYS (signal).
 */
int vgpu_wait_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct drm_vgpu_wait *args = data;
	struct vgpu_file *vf = file->driver_priv;
	struct dma_fence *fence = NULL;
	struct vgpu_clock_wait wait;
	struct vgpu_job *job;
	long timeout, left;

	if (args->flags || args->pad) {
		drm_dbg(drm, "WAIT: flags %#x or pad set\n", args->flags);
		return -EINVAL;
	}
	if (!args->job_id || args->job_id > U32_MAX) {
		drm_dbg(drm, "WAIT: no job %llu\n", args->job_id);
		return -ENOENT;
	}
	xa_lock(&vf->jobs);
	job = xa_load(&vf->jobs, args->job_id);
	if (job)
		vgpu_kcb_get(&job->kcb);
	xa_unlock(&vf->jobs);
	if (!job) {
		drm_dbg(drm, "WAIT: no job %llu in this file\n", args->job_id);
		return -ENOENT;
	}

	mutex_lock(&vdev->lock);
	if (job->kcb.state != VGPU_KCB_DONE && job->fence) {
		fence = dma_fence_get(job->fence);
		vgpu_clock_wait_begin(&vdev->clock, &vf->clock, &wait,
				      job->kcb.id);
	}
	mutex_unlock(&vdev->lock);
	vgpu_kcb_put(&job->kcb);
	if (!fence)
		return 0;

	if (args->timeout_ns < 0)
		timeout = MAX_SCHEDULE_TIMEOUT;
	else
		timeout = min_t(u64, nsecs_to_jiffies64(args->timeout_ns),
				MAX_SCHEDULE_TIMEOUT - 1);
	left = dma_fence_wait_timeout(fence, true, timeout);
	dma_fence_put(fence);

	/* Woken by a timeout or a signal, not by the job's end? */
	mutex_lock(&vdev->lock);
	vgpu_clock_wait_end(&vdev->clock, &vf->clock, &wait);
	mutex_unlock(&vdev->lock);
	if (left < 0)
		return left;
	if (!left) {
		drm_dbg(drm, "WAIT: job %llu: timed out\n", args->job_id);
		return -ETIME;
	}
	return 0;
}
