// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu synchronised clock: DRM_IOCTL_VGPU_CLOCK_SYNC and DRM_IOCTL_VGPU_WAIT.
 *
 * The device clock is simulated: it advances when vgpud simulates, which it
 * does whenever the GPU has work. The processes that feed the GPU run on
 * the host meanwhile, so the cycle at which a program's next launch arrives
 * would depend on host scheduling, and two programs started "together"
 * would start a few thousand cycles apart, differently every time.
 *
 * A file that joins the synchronised clock makes its host time take no
 * simulated time: while any joined file is running (not blocked in
 * DRM_IOCTL_VGPU_WAIT), the scheduler takes no decision and vgpud, told by
 * KICK, stops at the current cycle (VGPU_BACKEND_IOC_WAIT_CLOCK). When the
 * last running file waits, the hold is released: the jobs submitted
 * meanwhile arrive together, in rank order (vgpu_kcb_add()), the scheduler
 * runs and time moves on until a job that a joined file waits for ends.
 * Its end is handled inside the KICK of that cycle, which marks the waiter
 * running again before the daemon learns whether it may go on - so no
 * cycle passes between a job's end and its program's reaction.
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>
#include <linux/sched.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "vgpu_drv.h"

/**
 * vgpu_clock_init() - set up the synchronised clock of a device.
 * @clock: the device's clock state.
 */
void vgpu_clock_init(struct vgpu_clock *clock)
{
	INIT_LIST_HEAD(&clock->joined);
	clock->running = 0;
	init_waitqueue_head(&clock->wq);
}

static struct vgpu_device *vgpu_clock_dev(struct vgpu_clock *clock)
{
	return container_of(clock, struct vgpu_device, clock);
}

/* The last running file waits: take the deferred decisions, let time run. */
static void vgpu_clock_release(struct vgpu_device *vdev)
{
	struct vgpu_sched *s = &vdev->sched;

	lockdep_assert_held(&vdev->lock);
	/*
	 * A daemon told to hold has not simulated since: its status table is
	 * current, and it stays in WAIT_CLOCK until the decisions are taken,
	 * so they are the same however the host interleaves this ioctl and
	 * the daemon.
	 */
	WRITE_ONCE(vdev->clock.releasing, true);
	WRITE_ONCE(s->held, false);
	s->emitted = 0;
	s->fresh_status = READ_ONCE(vdev->clock.daemon_stopped);
	vgpu_sched_run(s);
	s->fresh_status = false;
	WRITE_ONCE(vdev->clock.releasing, false);
	if (s->emitted)
		vgpu_backend_notify(vdev);
	wake_up_interruptible_all(&vdev->clock.wq);
}

static void vgpu_clock_hold(struct vgpu_device *vdev)
{
	lockdep_assert_held(&vdev->lock);
	vdev->clock.running++;
	WRITE_ONCE(vdev->sched.held, true);
}

static void vgpu_clock_stop_running(struct vgpu_device *vdev)
{
	lockdep_assert_held(&vdev->lock);
	if (!WARN_ON(!vdev->clock.running) && !--vdev->clock.running)
		vgpu_clock_release(vdev);
}

/**
 * vgpu_file_arena() - where a file's device memory is allocated.
 * @vf: the file.
 *
 * Addresses decide cache sets, memory partitions and DRAM rows, so a run
 * is only repeatable if its buffers land at the same addresses. Files of
 * the synchronised clock allocate concurrently, in whatever order the host
 * runs them; each gets its own part of the device memory, chosen by its
 * rank, so that its addresses depend on its own allocations only (while
 * they fit there).
 *
 * Return: 0 (anywhere) or the arena index, 1 to %VGPU_VRAM_ARENAS - 1.
 */
u32 vgpu_file_arena(struct vgpu_file *vf)
{
	return READ_ONCE(vf->clock.arena);
}

/* Device lock held. */
static void vgpu_clock_leave(struct vgpu_device *vdev, struct vgpu_file *vf)
{
	if (list_empty(&vf->clock.link))
		return;
	WRITE_ONCE(vf->clock.arena, 0);
	list_del_init(&vf->clock.link);
	if (!vf->clock.waiting)
		vgpu_clock_stop_running(vdev);
	vf->clock.waiting = false;
}

/**
 * vgpu_clock_file_init() - a new file is not joined.
 * @vf: the file.
 */
void vgpu_clock_file_init(struct vgpu_file *vf)
{
	INIT_LIST_HEAD(&vf->clock.link);
	vf->clock.waiting = false;
}

/**
 * vgpu_clock_file_fini() - a closing file leaves the synchronised clock.
 * @vf: the file.
 */
void vgpu_clock_file_fini(struct vgpu_file *vf)
{
	struct vgpu_device *vdev = vf->vdev;

	mutex_lock(&vdev->lock);
	vgpu_clock_leave(vdev, vf);
	mutex_unlock(&vdev->lock);
}

/**
 * vgpu_clock_job_done() - a job ended; its waiting program runs again.
 * @clock: the device's clock state.
 * @job_id: the job.
 *
 * Called with the device lock held where the job's fence is signalled,
 * which is inside the KICK (or detach) that ended it: the hold is in place
 * before the daemon may simulate on.
 */
void vgpu_clock_job_done(struct vgpu_clock *clock, u32 job_id)
{
	struct vgpu_device *vdev = vgpu_clock_dev(clock);
	struct vgpu_file *vf;

	lockdep_assert_held(&vdev->lock);
	list_for_each_entry(vf, &clock->joined, clock.link) {
		if (vf->clock.waiting && vf->clock.wait_job == job_id) {
			vf->clock.waiting = false;
			vgpu_clock_hold(vdev);
		}
	}
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
	if (args->flags & DRM_VGPU_CLOCK_SYNC_JOIN) {
		vf->clock.rank = args->rank;
		WRITE_ONCE(vf->clock.arena, args->rank ?
			   1 + (args->rank - 1) % (VGPU_VRAM_ARENAS - 1) : 0);
		if (list_empty(&vf->clock.link)) {
			list_add_tail(&vf->clock.link, &vdev->clock.joined);
			vgpu_clock_hold(vdev);
		}
	} else {
		vgpu_clock_leave(vdev, vf);
		vf->clock.rank = 0;
	}
	mutex_unlock(&vdev->lock);
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
	struct vgpu_job *job;
	long timeout, left;
	bool joined;

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
	if (job->kcb.state != VGPU_KCB_DONE && job->fence)
		fence = dma_fence_get(job->fence);
	joined = !list_empty(&vf->clock.link);
	if (fence && joined) {
		vf->clock.waiting = true;
		vf->clock.wait_job = job->kcb.id;
		vgpu_clock_stop_running(vdev);
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

	if (joined) {
		mutex_lock(&vdev->lock);
		/* Woken by a timeout or a signal, not by the job's end. */
		if (vf->clock.waiting) {
			vf->clock.waiting = false;
			if (!list_empty(&vf->clock.link))
				vgpu_clock_hold(vdev);
		}
		mutex_unlock(&vdev->lock);
	}
	if (left < 0)
		return left;
	if (!left) {
		drm_dbg(drm, "WAIT: job %llu: timed out\n", args->job_id);
		return -ETIME;
	}
	return 0;
}
