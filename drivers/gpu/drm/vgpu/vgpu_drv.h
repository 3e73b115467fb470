/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu - a DRM driver for a virtual GPU whose hardware is modelled by the
 * vgpud daemon. See Documentation/driver.rst.
 */
#ifndef _VGPU_DRV_H_
#define _VGPU_DRV_H_

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_mm.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>

#include "vgpu_clock_hold.h"
#include "vgpu_desc.h"
#include "vgpu_kcb.h"
#include "vgpu_launch.h"
#include "vgpu_program_image.h"
#include "vgpu_sched.h"
#include "vgpu_vram.h"

#define VGPU_DRIVER_NAME	"vgpu"

/** Job records (unreleased jobs) one DRM file may hold. */
#define VGPU_MAX_JOBS_PER_FILE		65536

struct vgpu_backend;
struct vgpu_sysfs;

/**
 * struct vgpu_device - one vgpu device.
 * @drm: the DRM device.
 * @vram: device memory.
 * @lock: the device lock. Protects @sched (KCB active list, SMST, policy,
 *	cycle), @backend and the attached backend's ring state, and
 *	@fence_seqno. Lock order: @lock, then &vgpu_vram.lock; the fence lock
 *	and xarray locks nest inside.
 * @sched: the thread-block scheduler.
 * @backend: the attached backend file, or NULL.
 * @cmd_wq: the daemon's poll() waits here for commands.
 * @fence_lock: lock of every job fence of this device.
 * @fence_context: dma-fence context of the job fences.
 * @fence_seqno: last fence seqno handed out.
 * @misc: the backend character device /dev/vgpu-backend.
 * @sysfs: the scheduler knobs' attributes (vgpu_sysfs.c).
 * @clock: the synchronised clock; under @lock.
 * @clock_wq: the daemon waits here for the clock's hold to end.
 * @clock_watch: applies the clock's hold limit while files are joined
 *	(vgpu_clock.c).
 * @deps_work: runs a scheduling pass after an in-fence from elsewhere (not
 *	a job of this device, whose end runs one anyway) signalled the last
 *	fence a job waited for (vgpu_job.c).
 */
struct vgpu_device {
	struct drm_device drm;
	struct vgpu_vram vram;
	struct mutex lock;	/* the device lock, see above */
	struct vgpu_sched sched;
	struct vgpu_backend *backend;
	wait_queue_head_t cmd_wq;
	spinlock_t fence_lock;	/* of the job fences */
	u64 fence_context;
	u64 fence_seqno;
	struct miscdevice misc;
	struct vgpu_sysfs *sysfs;
	struct vgpu_clock clock;
	wait_queue_head_t clock_wq;
	struct delayed_work clock_watch;
	struct work_struct deps_work;
};

/**
 * struct vgpu_file - per-open-file state of the render node.
 * @vdev: the device.
 * @programs: program handle -> &struct vgpu_program (one reference each).
 * @jobs: job id -> &struct vgpu_job (one reference each): the job records
 *	JOB_INFO reports.
 * @num_jobs: records in @jobs.
 * @clock: its part in the synchronised clock.
 * @pid: thread-group id of the process that opened it (for messages).
 * @vram: the device memory its buffers hold (file_vram_pct).
 */
struct vgpu_file {
	struct vgpu_device *vdev;
	pid_t pid;
	struct vgpu_vram_account *vram;
	struct xarray programs;
	struct xarray jobs;
	atomic_t num_jobs;
	struct vgpu_clock_file clock;
};

/**
 * struct vgpu_bo - a buffer object: a range of device memory.
 * @base: the GEM object.
 * @node: its range; the device address is @node.start.
 * @account: the creating file's device-memory account, charged @node.
 */
struct vgpu_bo {
	struct drm_gem_object base;
	struct drm_mm_node node;
	struct vgpu_vram_account *account;
};

/**
 * struct vgpu_job_dep - one in-fence of a job.
 * @cb: its callback on @fence (dma_fence_add_callback()).
 * @fence: the fence (a reference), until the job ends.
 * @job: the job that waits for it.
 */
struct vgpu_job_dep {
	struct dma_fence_cb cb;
	struct dma_fence *fence;
	struct vgpu_job *job;
};

/**
 * struct vgpu_job - one submitted launch.
 * @kcb: its KCB entry (the scheduler's view); holds the reference count.
 * @vdev: the device.
 * @prog: the program (reference), until the job ends.
 * @bos: the buffer objects it may touch (references), until the job ends.
 * @num_bos: entries in @bos.
 * @desc_node: its &struct vgpu_job_desc in device memory, until it ends.
 * @fence: its fence (reference), signalled when it ends.
 * @deps: its in-fences (&drm_vgpu_submit.in_syncobjs), each with its
 *	callback armed until it has signalled or the job ends.
 * @num_deps: entries in @deps.
 */
struct vgpu_job {
	struct vgpu_kcb_entry kcb;
	struct vgpu_device *vdev;
	struct vgpu_program *prog;
	struct drm_gem_object **bos;
	u32 num_bos;
	struct drm_mm_node desc_node;
	struct dma_fence *fence;
	struct vgpu_job_dep *deps;
	u32 num_deps;
};

static inline struct vgpu_device *to_vgpu_device(struct drm_device *drm)
{
	return container_of(drm, struct vgpu_device, drm);
}

static inline struct vgpu_bo *to_vgpu_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct vgpu_bo, base);
}

/* vgpu_gem.c */
int vgpu_bo_create_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
int vgpu_bo_mmap_offset_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);

/* vgpu_program.c */
int vgpu_program_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int vgpu_program_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
struct vgpu_program *vgpu_program_lookup(struct vgpu_file *vf, u32 handle);
void vgpu_file_programs_fini(struct vgpu_file *vf);

/* vgpu_job.c */
int vgpu_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file);
int vgpu_job_info_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file);
void vgpu_file_jobs_fini(struct vgpu_file *vf);
void vgpu_job_deps_work(struct work_struct *work);

/* vgpu_clock.c */
void vgpu_clock_dev_init(struct vgpu_device *vdev);
void vgpu_clock_dev_fini(struct vgpu_device *vdev);
void vgpu_clock_file_fini(struct vgpu_file *vf);
u32 vgpu_file_arena(struct vgpu_file *vf);
int vgpu_clock_sync_ioctl(struct drm_device *drm, void *data,
			  struct drm_file *file);
int vgpu_wait_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

/* vgpu_backend.c */
int vgpu_backend_register(struct vgpu_device *vdev);
void vgpu_backend_unregister(struct vgpu_device *vdev);
void vgpu_backend_unplug(struct vgpu_device *vdev);
int vgpu_backend_get_desc(struct vgpu_device *vdev,
			  struct vgpu_device_desc *desc);
void vgpu_backend_notify(struct vgpu_device *vdev);

/* vgpu_sysfs.c */
int vgpu_sysfs_init(struct vgpu_device *vdev);
void vgpu_sysfs_fini(struct vgpu_device *vdev);

/* vgpu_debugfs.c */
void vgpu_debugfs_init(struct vgpu_device *vdev);

#if IS_ENABLED(CONFIG_KUNIT)
u32 vgpu_ring_accept_head(u32 head, u32 consumed, u32 local);
#endif

#endif /* _VGPU_DRV_H_ */
