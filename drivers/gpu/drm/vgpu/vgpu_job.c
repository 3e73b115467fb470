// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu jobs: SUBMIT and JOB_INFO, job fences and job records.
 *
 * SUBMIT validates a launch (handles here; dimensions and the entry's
 * resource needs against the device limits in vgpu_launch.c), creates a
 * job - a KCB entry plus the references it holds on its program and
 * buffers -, lays its struct vgpu_job_desc out in device memory for the
 * daemon, installs its fence in the out-syncobj and lets the scheduler act
 * (Documentation/design.rst, "The flow of one launch", step 2).
 *
 * A job lives while anything references it: the KCB until it ends, the
 * submitting file's job record until JOB_INFO releases it or the file is
 * closed. When it ends its fence is signalled and its program, buffers and
 * descriptor are released; only the record's statistics remain.
 */

#include <linux/dma-fence.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "vgpu_drv.h"

static inline struct vgpu_job *to_vgpu_job(struct vgpu_kcb_entry *e)
{
	return container_of(e, struct vgpu_job, kcb);
}

static const char *vgpu_fence_get_driver_name(struct dma_fence *fence)
{
	return VGPU_DRIVER_NAME;
}

static const char *vgpu_fence_get_timeline_name(struct dma_fence *fence)
{
	return "vgpu-jobs";
}

static const struct dma_fence_ops vgpu_fence_ops = {
	.get_driver_name = vgpu_fence_get_driver_name,
	.get_timeline_name = vgpu_fence_get_timeline_name,
};

/*
 * Disarm the in-fences' callbacks and drop the fences. Once
 * dma_fence_remove_callback() has returned, the callback has either run
 * or never will, so the job may go.
 */
static void vgpu_job_deps_fini(struct vgpu_job *job)
{
	u32 i;

	for (i = 0; i < job->num_deps; i++) {
		struct vgpu_job_dep *d = &job->deps[i];

		if (!d->fence)
			continue;
		dma_fence_remove_callback(d->fence, &d->cb);
		dma_fence_put(d->fence);
		d->fence = NULL;
	}
	job->num_deps = 0;
	kfree(job->deps);
	job->deps = NULL;
}

/* Drop what the job holds; idempotent. */
static void vgpu_job_cleanup(struct vgpu_job *job)
{
	u32 i;

	vgpu_job_deps_fini(job);

	for (i = 0; i < job->num_bos; i++)
		drm_gem_object_put(job->bos[i]);
	job->num_bos = 0;
	kvfree(job->bos);
	job->bos = NULL;
	vgpu_program_put(job->prog);
	job->prog = NULL;
	vgpu_vram_free(&job->vdev->vram, &job->desc_node);
	if (job->fence) {
		dma_fence_put(job->fence);
		job->fence = NULL;
	}
}

/* KCB callback, device lock held: the job ended. */
static void vgpu_job_done(struct vgpu_kcb_entry *e)
{
	struct vgpu_job *job = to_vgpu_job(e);

	if (job->fence) {
		if (e->error)
			dma_fence_set_error(job->fence, e->error);
		dma_fence_signal(job->fence);
	}
	vgpu_clock_job_done(&job->vdev->clock, e);
	vgpu_job_cleanup(job);
}

static void vgpu_job_release(struct vgpu_kcb_entry *e)
{
	struct vgpu_job *job = to_vgpu_job(e);

	vgpu_job_cleanup(job);
	kfree(job);
}

static const struct vgpu_kcb_entry_ops vgpu_job_kcb_ops = {
	.done = vgpu_job_done,
	.release = vgpu_job_release,
};

/**
 * vgpu_job_deps_work() - the scheduling pass after an in-fence from
 *	elsewhere signalled.
 * @work: &vgpu_device.deps_work.
 *
 * Runs a pass only when a job is ready to be let in: the fences of this
 * device's jobs signal inside the pass that ends them, which lets their
 * dependents in itself (vgpu_sched_deps.c).
 */
void vgpu_job_deps_work(struct work_struct *work)
{
	struct vgpu_device *vdev = container_of(work, struct vgpu_device,
						deps_work);
	struct vgpu_sched *s = &vdev->sched;

	mutex_lock(&vdev->lock);
	if (vgpu_sched_deps_ready(s)) {
		s->emitted = 0;
		vgpu_sched_run(s);
		if (s->emitted)
			vgpu_backend_notify(vdev);
	}
	mutex_unlock(&vdev->lock);
}

/* An in-fence signalled: any context, the fence's lock held. */
static void vgpu_job_dep_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct vgpu_job_dep *d = container_of(cb, struct vgpu_job_dep, cb);
	struct vgpu_job *job = d->job;

	if (vgpu_kcb_dep_signal(&job->kcb, fence->error))
		schedule_work(&job->vdev->deps_work);
}

/*
 * Take the current fence of each syncobj of &drm_vgpu_submit.in_syncobjs.
 * The callbacks are armed by vgpu_job_deps_arm() once everything else
 * about the job is known to be good.
 */
static int vgpu_job_lookup_deps(struct drm_device *drm, struct drm_file *file,
				struct vgpu_job *job,
				const struct drm_vgpu_submit *args)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	if (!args->num_in_syncobjs)
		return 0;
	job->deps = kcalloc(args->num_in_syncobjs, sizeof(*job->deps),
			    GFP_KERNEL);
	if (!job->deps)
		return -ENOMEM;
	job->num_deps = args->num_in_syncobjs;
	for (i = 0; i < job->num_deps; i++) {
		INIT_LIST_HEAD(&job->deps[i].cb.node);
		job->deps[i].job = job;
	}
	handles = vmemdup_array_user(u64_to_user_ptr(args->in_syncobjs),
				     args->num_in_syncobjs, sizeof(*handles));
	if (IS_ERR(handles)) {
		drm_dbg(drm, "SUBMIT: in-syncobj array of %u handles at %#llx unreadable (%ld)\n",
			args->num_in_syncobjs, args->in_syncobjs,
			PTR_ERR(handles));
		return PTR_ERR(handles);
	}
	for (i = 0; i < job->num_deps; i++) {
		ret = drm_syncobj_find_fence(file, handles[i], 0, 0,
					     &job->deps[i].fence);
		if (ret == -ENOENT) {
			drm_dbg(drm, "SUBMIT: unknown in-syncobj handle %u (entry %u of %u)\n",
				handles[i], i, job->num_deps);
			goto out;
		}
		if (ret) {
			drm_dbg(drm, "SUBMIT: in-syncobj %u (entry %u of %u) holds no fence (%d)\n",
				handles[i], i, job->num_deps, ret);
			ret = -EINVAL;
			goto out;
		}
	}
out:
	kvfree(handles);
	return ret;
}

/*
 * Arm the in-fences' callbacks; a fence that has signalled already counts
 * at once. The job's count keeps its extra one (vgpu_kcb_deps_init())
 * until vgpu_kcb_deps_arm().
 */
static void vgpu_job_deps_arm(struct vgpu_job *job)
{
	u32 i;

	for (i = 0; i < job->num_deps; i++) {
		struct vgpu_job_dep *d = &job->deps[i];

		if (dma_fence_add_callback(d->fence, &d->cb, vgpu_job_dep_cb))
			vgpu_kcb_dep_signal(&job->kcb,
					    min(dma_fence_get_status(d->fence), 0));
	}
}

/*
 * &drm_vgpu_submit.num_bos == 0: every buffer object the file has a handle
 * for, each referenced for the job's life. The handle table is walked under
 * its spinlock, so the array is sized first and the walk done again when
 * the file made buffers meanwhile.
 */
static int vgpu_job_snapshot_bos(struct drm_device *drm, struct drm_file *file,
				 struct vgpu_job *job)
{
	struct drm_gem_object *obj;
	u32 n, cap = 0, i;
	int id;

	for (;;) {
		n = 0;
		spin_lock(&file->table_lock);
		idr_for_each_entry(&file->object_idr, obj, id) {
			if (n < cap) {
				drm_gem_object_get(obj);
				job->bos[n] = obj;
			}
			n++;
		}
		spin_unlock(&file->table_lock);
		if (n <= cap)
			break;
		for (i = 0; i < cap; i++)
			drm_gem_object_put(job->bos[i]);
		kvfree(job->bos);
		job->bos = NULL;
		if (n > VGPU_LAUNCH_MAX_FILE_BOS) {
			drm_dbg(drm, "SUBMIT: no buffer list, and the file has %u buffers, at most %u\n",
				n, VGPU_LAUNCH_MAX_FILE_BOS);
			return -E2BIG;
		}
		cap = n + 16;
		job->bos = kvcalloc(cap, sizeof(*job->bos), GFP_KERNEL);
		if (!job->bos)
			return -ENOMEM;
	}
	job->num_bos = n;
	return 0;
}

static int vgpu_job_lookup_bos(struct drm_device *drm, struct drm_file *file,
			       struct vgpu_job *job,
			       const struct drm_vgpu_submit *args)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	if (!args->num_bos)
		return vgpu_job_snapshot_bos(drm, file, job);
	job->bos = kvcalloc(args->num_bos, sizeof(*job->bos), GFP_KERNEL);
	if (!job->bos)
		return -ENOMEM;
	handles = vmemdup_array_user(u64_to_user_ptr(args->bo_handles),
				     args->num_bos, sizeof(*handles));
	if (IS_ERR(handles)) {
		drm_dbg(drm, "SUBMIT: BO handle array of %u handles at %#llx unreadable (%ld)\n",
			args->num_bos, args->bo_handles, PTR_ERR(handles));
		return PTR_ERR(handles);
	}
	for (i = 0; i < args->num_bos; i++) {
		job->bos[i] = drm_gem_object_lookup(file, handles[i]);
		if (!job->bos[i]) {
			drm_dbg(drm, "SUBMIT: unknown BO handle %u (index %u)\n",
				handles[i], i);
			ret = -ENOENT;
			goto out;
		}
		job->num_bos = i + 1;
	}
out:
	kvfree(handles);
	return ret;
}

/* Lay the job descriptor, ranges and parameters out in device memory. */
static void vgpu_job_write_desc(struct vgpu_device *vdev, struct vgpu_job *job,
				const struct drm_vgpu_submit *args,
				const void *params)
{
	struct vgpu_mem_range *r;
	u32 i;

	r = vgpu_job_desc_init(vgpu_vram_ptr(&vdev->vram, job->desc_node.start),
			       job->desc_node.size, job->kcb.id, job->prog, args,
			       job->num_bos, params, READ_ONCE(vdev->sched.idem));
	for (i = 0; i < job->num_bos; i++) {
		r[i].start = to_vgpu_bo(job->bos[i])->node.start;
		r[i].size = job->bos[i]->size;
	}
}

/**
 * vgpu_submit_ioctl() - DRM_IOCTL_VGPU_SUBMIT.
 * @drm: the device.
 * @data: &struct drm_vgpu_submit.
 * @file: the caller's file.
 *
 * Return: 0 with &drm_vgpu_submit.job_id set; -ENODEV, -ENOENT, -EINVAL,
 * -E2BIG (see vgpu_submit_validate(); more in-syncobjs than
 * %DRM_VGPU_MAX_IN_SYNCOBJS, or no buffer list and more buffers than
 * %VGPU_LAUNCH_MAX_FILE_BOS), -EFAULT, -ENOSPC (device memory or job
 * records exhausted), -ENOMEM.
 */
int vgpu_submit_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct vgpu_sched *s = &vdev->sched;
	struct drm_vgpu_submit *args = data;
	struct vgpu_file *vf = file->driver_priv;
	struct dma_fence *fence = NULL, *out_fence;
	struct drm_syncobj *syncobj = NULL;
	struct vgpu_device_desc desc;
	struct vgpu_program *prog;
	struct vgpu_job *job;
	struct vgpu_tb_res res;
	bool counted = false;
	void *params = NULL;
	u32 num_tbs, id;
	const char *why;
	size_t desc_size;
	int ret;

	ret = vgpu_backend_get_desc(vdev, &desc);
	if (ret) {
		drm_dbg(drm, "SUBMIT: no backend attached\n");
		return ret;
	}
	if (args->num_in_syncobjs > DRM_VGPU_MAX_IN_SYNCOBJS) {
		drm_dbg(drm, "SUBMIT: %u in-syncobjs, at most %u\n",
			args->num_in_syncobjs, DRM_VGPU_MAX_IN_SYNCOBJS);
		return -E2BIG;
	}
	prog = vgpu_program_lookup(vf, args->program);
	if (!prog) {
		drm_dbg(drm, "SUBMIT: unknown program handle %u\n",
			args->program);
		return -ENOENT;
	}
	ret = vgpu_submit_validate(args, &desc, prog->entries,
				   prog->num_entries, &res, &num_tbs, &why);
	if (ret) {
		drm_dbg(drm, "SUBMIT: rejected: %s\n", why);
		vgpu_program_put(prog);
		return ret;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		vgpu_program_put(prog);
		return -ENOMEM;
	}
	vgpu_kcb_entry_init(&job->kcb, &vgpu_job_kcb_ops);
	job->vdev = vdev;
	job->prog = prog;	/* from here on the job owns the reference */

	if (args->params_size) {
		params = memdup_user(u64_to_user_ptr(args->params),
				     args->params_size);
		if (IS_ERR(params)) {
			ret = PTR_ERR(params);
			params = NULL;
			drm_dbg(drm, "SUBMIT: parameters unreadable (%d)\n", ret);
			goto err;
		}
	}
	ret = vgpu_job_lookup_bos(drm, file, job, args);
	if (ret)
		goto err;
	ret = vgpu_job_lookup_deps(drm, file, job, args);
	if (ret)
		goto err;
	if (args->out_syncobj) {
		syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!syncobj) {
			drm_dbg(drm, "SUBMIT: unknown syncobj %u\n",
				args->out_syncobj);
			ret = -ENOENT;
			goto err;
		}
	}
	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence) {
		ret = -ENOMEM;
		goto err;
	}

	desc_size = vgpu_job_desc_size(job->num_bos, prog, args->params_size);
	ret = vgpu_vram_alloc(&vdev->vram, &job->desc_node, desc_size, 64,
			      vgpu_file_arena(vf));
	if (ret) {
		drm_dbg(drm, "SUBMIT: no device memory for the job descriptor\n");
		goto err;
	}

	vgpu_launch_kcb_init(&job->kcb, args, prog, &res, num_tbs);
	vgpu_kcb_deps_init(&job->kcb, job->num_deps);
	job->kcb.owner = file;
	job->kcb.pid = task_tgid_nr(current);
	job->kcb.kernel_key = vgpu_kernel_key(prog->hash, args->entry);

	counted = true;
	if (atomic_inc_return(&vf->num_jobs) > VGPU_MAX_JOBS_PER_FILE) {
		drm_dbg(drm, "SUBMIT: too many unreleased job records\n");
		ret = -ENOSPC;
		goto err;
	}

	mutex_lock(&vdev->lock);
	if (!s->attached) {
		drm_dbg(drm, "SUBMIT: backend detached\n");
		ret = -ENODEV;
		goto err_unlock;
	}
	if (memcmp(&desc, &s->desc, sizeof(desc))) {
		/* A new backend attached meanwhile: check again. */
		ret = vgpu_submit_validate(args, &s->desc, prog->entries,
					   prog->num_entries, &job->kcb.res,
					   &num_tbs, &why);
		if (ret) {
			drm_dbg(drm, "SUBMIT: rejected: %s\n", why);
			goto err_unlock;
		}
		job->kcb.num_tbs = num_tbs;
	}
	if (vgpu_launch_check_arrival(&job->kcb, s->cycle)) {
		drm_dbg(drm, "SUBMIT: not-before cycle %llu is more than %llu cycles after the device's cycle %llu\n",
			job->kcb.not_before, DRM_VGPU_NOT_BEFORE_AHEAD,
			s->cycle);
		ret = -EINVAL;
		goto err_unlock;
	}
	if (vgpu_sched_owner_jobs(s, file) >= s->file_max_jobs) {
		drm_dbg(drm, "SUBMIT: the file has %u jobs queued or running, at most %u (file_max_jobs)\n",
			vgpu_sched_owner_jobs(s, file), s->file_max_jobs);
		ret = -ENOSPC;
		goto err_unlock;
	}
	job->kcb.rank = vf->clock.rank;
	ret = vgpu_kcb_add(&s->kcb, &job->kcb, s->cycle);
	if (ret) {
		drm_dbg(drm, "SUBMIT: no job id (%d)\n", ret);
		goto err_unlock;
	}
	id = job->kcb.id;
	ret = xa_insert(&vf->jobs, id, job, GFP_KERNEL);
	if (ret) {
		drm_dbg(drm, "SUBMIT: no job record (%d)\n", ret);
		vgpu_kcb_retire(&s->kcb, &job->kcb);
		goto err_unlock;
	}
	/* The job record owns the initial reference from here on. */

	vgpu_job_write_desc(vdev, job, args, params);
	job->kcb.desc_addr = job->desc_node.start;
	dma_fence_init(fence, &vgpu_fence_ops, &vdev->fence_lock,
		       vdev->fence_context, ++vdev->fence_seqno);
	job->fence = fence;
	out_fence = dma_fence_get(fence);
	/*
	 * A fence that signals from here on finds the job in the KCB; the
	 * pass below sees those that have already.
	 */
	vgpu_job_deps_arm(job);
	vgpu_kcb_deps_arm(&job->kcb);

	s->emitted = 0;
	/* The job is complete: a foreign one may end a hold and run now. */
	vgpu_clock_job_added(&vdev->clock, &vf->clock, &job->kcb);
	vgpu_sched_run(s);
	if (s->emitted)
		vgpu_backend_notify(vdev);
	mutex_unlock(&vdev->lock);

	if (syncobj) {
		drm_syncobj_replace_fence(syncobj, out_fence);
		drm_syncobj_put(syncobj);
	}
	dma_fence_put(out_fence);
	kfree(params);
	args->job_id = id;
	return 0;

err_unlock:
	mutex_unlock(&vdev->lock);
err:
	if (counted)
		atomic_dec(&vf->num_jobs);
	kfree(fence);
	if (syncobj)
		drm_syncobj_put(syncobj);
	kfree(params);
	vgpu_kcb_put(&job->kcb);	/* releases program, BOs, descriptor */
	return ret;
}

/**
 * vgpu_job_info_ioctl() - DRM_IOCTL_VGPU_JOB_INFO.
 * @drm: the device.
 * @data: &struct drm_vgpu_job_info.
 * @file: the caller's file.
 *
 * Return: 0; -EINVAL (unknown flags, pad), -ENOENT (no such job record in
 * this file), -EBUSY (RELEASE of a job that has not finished).
 */
int vgpu_job_info_ioctl(struct drm_device *drm, void *data,
			struct drm_file *file)
{
	struct vgpu_device *vdev = to_vgpu_device(drm);
	struct drm_vgpu_job_info *args = data;
	struct vgpu_file *vf = file->driver_priv;
	struct vgpu_job *job;
	int ret = 0;

	if (args->flags & ~DRM_VGPU_JOB_INFO_RELEASE) {
		drm_dbg(drm, "JOB_INFO: unknown flags %#x\n", args->flags);
		return -EINVAL;
	}
	if (args->pad) {
		drm_dbg(drm, "JOB_INFO: pad set\n");
		return -EINVAL;
	}
	if (!args->job_id || args->job_id > U32_MAX) {
		drm_dbg(drm, "JOB_INFO: no job %llu\n", args->job_id);
		return -ENOENT;
	}
	xa_lock(&vf->jobs);
	job = xa_load(&vf->jobs, args->job_id);
	if (job)
		vgpu_kcb_get(&job->kcb);
	xa_unlock(&vf->jobs);
	if (!job) {
		drm_dbg(drm, "JOB_INFO: no job %llu in this file\n",
			args->job_id);
		return -ENOENT;
	}

	mutex_lock(&vdev->lock);
	vgpu_launch_info(&job->kcb, args);
	mutex_unlock(&vdev->lock);

	if (args->flags & DRM_VGPU_JOB_INFO_RELEASE) {
		if (args->state != DRM_VGPU_JOB_DONE) {
			drm_dbg(drm, "JOB_INFO: job %llu not finished, not released\n",
				args->job_id);
			ret = -EBUSY;
		} else if (xa_cmpxchg(&vf->jobs, args->job_id, job, NULL,
				      GFP_KERNEL) == job) {
			atomic_dec(&vf->num_jobs);
			vgpu_kcb_put(&job->kcb);	/* the record's */
		}
	}
	vgpu_kcb_put(&job->kcb);
	return ret;
}

/**
 * vgpu_file_jobs_fini() - cancel the jobs of a closing file and drop its
 *	job records.
 * @vf: the file.
 *
 * Nobody is left to wait for them: jobs still queued or running fail with
 * -ECANCELED, their blocks are flushed off the SMs (vgpu_sched_cancel()),
 * and each frees itself when the daemon has confirmed that the last of its
 * blocks is off.
 */
void vgpu_file_jobs_fini(struct vgpu_file *vf)
{
	struct vgpu_device *vdev = vf->vdev;
	struct vgpu_sched *s = &vdev->sched;
	struct vgpu_job *job;
	unsigned long id;

	mutex_lock(&vdev->lock);
	xa_for_each(&vf->jobs, id, job)
		vgpu_sched_cancel(s, &job->kcb, -ECANCELED);
	s->emitted = 0;
	vgpu_sched_run(s);
	if (s->emitted)
		vgpu_backend_notify(vdev);
	mutex_unlock(&vdev->lock);

	xa_for_each(&vf->jobs, id, job)
		vgpu_kcb_put(&job->kcb);
	xa_destroy(&vf->jobs);
}
