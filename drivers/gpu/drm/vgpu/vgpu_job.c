// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu jobs: SUBMIT and JOB_INFO, job fences and job records.
 *
 * SUBMIT validates a launch (handles, dimensions, the entry's resource
 * needs against the device limits), creates a job - a KCB entry plus the
 * references it holds on its program and buffers -, lays its
 * struct vgpu_job_desc out in device memory for the daemon, installs its
 * fence in the out-syncobj and lets the scheduler act (ARCHITECTURE.md,
 * "The flow of one launch", step 2).
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

#include <kunit/visibility.h>

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

/**
 * vgpu_submit_validate() - check a launch against its entry and the device.
 * @args: the SUBMIT arguments.
 * @desc: the attached device.
 * @entries: the program's entries.
 * @num_entries: how many.
 * @res: out, the resources one TB occupies on an SM.
 * @num_tbs: out, thread blocks of the grid.
 * @why: out, a static string saying what is wrong when the result is not 0.
 *
 * A pure function of its arguments (KUnit tests it). Handles are checked
 * by the caller.
 *
 * Return: 0; -EINVAL for unknown flags, non-zero pad, a bad priority, a
 * zero grid or block dimension, a bad entry index or a parameter size other
 * than the entry's; -E2BIG for a block above the device's or the entry's
 * thread limit, a grid of more than 2^32-1 blocks, registers or shared
 * memory of a block beyond the device, more than
 * %DRM_VGPU_MAX_PARAM_BYTES parameter bytes or %DRM_VGPU_MAX_SUBMIT_BOS
 * buffers.
 */
int vgpu_submit_validate(const struct drm_vgpu_submit *args,
			 const struct vgpu_device_desc *desc,
			 const struct vgpu_program_entry *entries,
			 u32 num_entries, struct vgpu_tb_res *res,
			 u32 *num_tbs, const char **why)
{
	const struct vgpu_program_entry *e;
	u64 threads, tbs, shared;
	int i;

	*why = NULL;
	if (args->flags & ~DRM_VGPU_SUBMIT_FLAGS) {
		*why = "unknown flags";
		return -EINVAL;
	}
	if (args->pad) {
		*why = "pad set";
		return -EINVAL;
	}
	if (args->priority > DRM_VGPU_PRIORITY_REALTIME) {
		*why = "unknown priority";
		return -EINVAL;
	}
	for (i = 0; i < 3; i++) {
		if (!args->grid[i] || !args->block[i]) {
			*why = "zero grid or block dimension";
			return -EINVAL;
		}
	}
	if (args->params_size > DRM_VGPU_MAX_PARAM_BYTES) {
		*why = "parameter block larger than DRM_VGPU_MAX_PARAM_BYTES";
		return -E2BIG;
	}
	if (args->num_bos > DRM_VGPU_MAX_SUBMIT_BOS) {
		*why = "more buffers than DRM_VGPU_MAX_SUBMIT_BOS";
		return -E2BIG;
	}
	if (args->entry >= num_entries) {
		*why = "no such entry point";
		return -EINVAL;
	}
	e = &entries[args->entry];
	if (args->params_size != e->param_size) {
		*why = "parameter size differs from the entry's";
		return -EINVAL;
	}

	threads = (u64)args->block[0] * args->block[1];
	if (threads <= desc->max_threads_per_tb)
		threads *= args->block[2];
	if (threads > desc->max_threads_per_tb) {
		*why = "block larger than the device's block limit";
		return -E2BIG;
	}
	if (e->max_threads_per_tb && threads > e->max_threads_per_tb) {
		*why = "block larger than the entry's .maxntid";
		return -E2BIG;
	}
	tbs = (u64)args->grid[0] * args->grid[1];
	if (tbs <= U32_MAX)
		tbs *= args->grid[2];
	if (tbs > U32_MAX) {
		*why = "grid of more than 2^32-1 blocks";
		return -E2BIG;
	}
	if (e->regs_per_thread > desc->max_regs_per_thread) {
		*why = "entry needs more registers per thread than the device has";
		return -E2BIG;
	}
	shared = (u64)e->shared_static + args->dynamic_shared;
	if (shared > desc->max_shared_per_tb ||
	    round_up(shared, (u64)desc->shared_alloc_unit) >
			desc->max_shared_per_tb) {
		*why = "shared memory of a block beyond the device's limit";
		return -E2BIG;
	}
	if (vgpu_tb_res_compute(desc, threads, e->regs_per_thread, shared,
				res) ||
	    res->regs > desc->regs_per_sm) {
		*why = "registers of a block beyond an SM's register file";
		return -E2BIG;
	}
	if (res->threads > desc->max_threads_per_sm) {
		*why = "block larger than an SM's thread slots";
		return -E2BIG;
	}
	*num_tbs = tbs;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_submit_validate);

/* Drop what the job holds; idempotent. */
static void vgpu_job_cleanup(struct vgpu_job *job)
{
	u32 i;

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
	vgpu_clock_job_done(&job->vdev->clock, e->id);
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

static int vgpu_job_lookup_bos(struct drm_device *drm, struct drm_file *file,
			       struct vgpu_job *job,
			       const struct drm_vgpu_submit *args)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	if (!args->num_bos)
		return 0;
	job->bos = kvcalloc(args->num_bos, sizeof(*job->bos), GFP_KERNEL);
	handles = kvmalloc_array(args->num_bos, sizeof(*handles), GFP_KERNEL);
	if (!job->bos || !handles) {
		ret = -ENOMEM;
		goto out;
	}
	if (copy_from_user(handles, u64_to_user_ptr(args->bo_handles),
			   array_size(args->num_bos, sizeof(*handles)))) {
		drm_dbg(drm, "SUBMIT: BO handle array unreadable\n");
		ret = -EFAULT;
		goto out;
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
	const struct vgpu_program *prog = job->prog;
	const struct vgpu_program_entry *e = &prog->entries[args->entry];
	struct vgpu_job_desc *d;
	struct vgpu_mem_range *r;
	u32 i, nr = 0;

	d = vgpu_vram_ptr(&vdev->vram, job->desc_node.start);
	memset(d, 0, job->desc_node.size);
	r = (void *)(d + 1);
	for (i = 0; i < job->num_bos; i++, nr++) {
		r[nr].start = to_vgpu_bo(job->bos[i])->node.start;
		r[nr].size = job->bos[i]->size;
	}
	if (prog->data_size) {
		r[nr].start = prog->data.start;
		r[nr].size = prog->data_size;
		nr++;
	}

	d->abi_version = VGPU_BACKEND_ABI_VERSION;
	d->job = job->kcb.id;
	d->program_addr = prog->image.start;
	d->program_size = prog->size;
	d->entry = args->entry;
	memcpy(d->grid, args->grid, sizeof(d->grid));
	memcpy(d->block, args->block, sizeof(d->block));
	d->shared_bytes = e->shared_static + args->dynamic_shared;
	d->dynamic_shared = args->dynamic_shared;
	d->ranges_offset = sizeof(*d);
	d->num_ranges = nr;
	d->params_offset = sizeof(*d) + nr * sizeof(*r);
	d->params_size = args->params_size;
	if (prog->data_size) {
		d->data_addr = prog->data.start;
		d->data_size = prog->data_size;
	}
	d->priority = args->priority;
	if (args->params_size)
		memcpy((void *)d + d->params_offset, params, args->params_size);
}

/**
 * vgpu_submit_ioctl() - DRM_IOCTL_VGPU_SUBMIT.
 * @drm: the device.
 * @data: &struct drm_vgpu_submit.
 * @file: the caller's file.
 *
 * Return: 0 with &drm_vgpu_submit.job_id set; -ENODEV, -ENOENT, -EINVAL,
 * -E2BIG (see vgpu_submit_validate()), -EFAULT, -ENOSPC (device memory or
 * job records exhausted), -ENOMEM.
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
	u32 num_tbs, nr_ranges, id;
	const char *why;
	size_t desc_size;
	int ret;

	ret = vgpu_backend_get_desc(vdev, &desc);
	if (ret) {
		drm_dbg(drm, "SUBMIT: no backend attached\n");
		return ret;
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

	nr_ranges = job->num_bos + (prog->data_size ? 1 : 0);
	desc_size = sizeof(struct vgpu_job_desc) +
		    nr_ranges * sizeof(struct vgpu_mem_range) + args->params_size;
	ret = vgpu_vram_alloc(&vdev->vram, &job->desc_node, desc_size, 64,
			      vgpu_file_arena(vf));
	if (ret) {
		drm_dbg(drm, "SUBMIT: no device memory for the job descriptor\n");
		goto err;
	}

	memcpy(job->kcb.grid, args->grid, sizeof(job->kcb.grid));
	memcpy(job->kcb.block, args->block, sizeof(job->kcb.block));
	job->kcb.num_tbs = num_tbs;
	job->kcb.res = res;
	job->kcb.ctx_bytes =
		vgpu_ctx_bytes(args->block[0] * args->block[1] * args->block[2],
			       prog->entries[args->entry].regs_per_thread,
			       res.shared,
			       prog->entries[args->entry].local_per_thread);
	job->kcb.idempotent = !(prog->entries[args->entry].flags &
				(VGPU_ENTRY_HAS_ATOMICS |
				 VGPU_ENTRY_HAS_GLOBAL_RMW));
	job->kcb.priority = args->priority;
	job->kcb.latency_budget_us = args->latency_budget_us;
	if (args->flags & DRM_VGPU_SUBMIT_NOT_BEFORE)
		job->kcb.not_before = args->not_before_cycle;
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

	s->emitted = 0;
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
	args->state = job->kcb.state;
	args->error = job->kcb.error;
	args->start_cycle = job->kcb.start_cycle;
	args->end_cycle = job->kcb.end_cycle;
	args->warp_insts = job->kcb.warp_insts;
	args->tbs_done = job->kcb.tbs_done;
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
 * vgpu_file_jobs_fini() - drop the job records of a closing file.
 * @vf: the file.
 *
 * Jobs still running keep running; they free themselves when they end.
 */
void vgpu_file_jobs_fini(struct vgpu_file *vf)
{
	struct vgpu_job *job;
	unsigned long id;

	xa_for_each(&vf->jobs, id, job)
		vgpu_kcb_put(&job->kcb);
	xa_destroy(&vf->jobs);
}
