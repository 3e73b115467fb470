// SPDX-License-Identifier: MIT
/*
 * local_cp.c - vgpu.ko's command processor in this process (local_cp.h).
 *
 * What the driver's ioctl glue does around its command processor is done
 * here around the same files: buffers and programs are ranges of device
 * memory placed by vgpu_vram.c, programs are checked and loaded by
 * vgpu_program_image.c, launches checked, described and entered into the
 * KCB by vgpu_launch.c, and the scheduler (vgpu_sched*.c and the policies)
 * decides. Its commands go into a queue as large as the driver's command
 * ring; the model (userspace/sim) runs them with vgpud's lock-step loop
 * (lockstep.c), and each turn ends in vgpu_sched_kick() as the daemon's
 * KICK does. The same calls therefore give the same cycles as the guest.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/device.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "local_cp.h"
#include "lockstep.h"
#include "vgpu_desc.h"
#include "vgpu_kcb.h"
#include "vgpu_launch.h"
#include "vgpu_program_image.h"
#include "vgpu_sched.h"
#include "vgpu_sim.h"
#include "vgpu_vram.h"

#define QUEUE_MASK	(VGPU_CMD_RING_ENTRIES - 1)

/**
 * struct local_bo - a buffer object.
 * @ref: the handle's reference and one per job that names it.
 * @cp: the device.
 * @node: its range.
 */
struct local_bo {
	struct kref ref;
	struct local_cp *cp;
	struct drm_mm_node node;
};

/**
 * struct local_job - a submitted launch (vgpu_job.c's struct vgpu_job).
 * @kcb: its KCB entry; holds the reference count.
 * @cp: the device.
 * @prog: the program (a reference) until the job ends.
 * @bos: the buffers it names (references) until it ends.
 * @num_bos: entries of @bos.
 * @desc: its descriptor's range until it ends.
 */
struct local_job {
	struct vgpu_kcb_entry kcb;
	struct local_cp *cp;
	struct vgpu_program *prog;
	struct local_bo **bos;
	u32 num_bos;
	struct drm_mm_node desc;
};

/**
 * struct local_cp - the device.
 * @lock: the device lock (&vgpu_sched.lock).
 * @dev: the name in the scheduler's messages.
 * @vram: device memory.
 * @sched: the command processor.
 * @status: the thread-block status table's range.
 * @cfg: the model's configuration.
 * @sim: the model.
 * @ls: the model's lock-step loop.
 * @bos: handle -> &struct local_bo (the handle's reference).
 * @programs: handle -> &struct vgpu_program (the handle's reference).
 * @jobs: id -> &struct local_job (the job record's reference).
 * @cmds: the command queue, a ring like the driver's.
 * @cmd_tail: commands emitted.
 * @cmd_published: commands the model may see.
 * @cmd_head: commands the model applied.
 * @evts: the event queue.
 * @evt_head: events the command processor consumed.
 * @evt_tail: events the model posted.
 */
struct local_cp {
	struct mutex lock;
	struct device dev;
	struct vgpu_vram vram;
	struct vgpu_sched sched;
	struct drm_mm_node status;
	struct vgpu_sim_config cfg;
	struct vgpu_sim *sim;
	struct vgpu_lockstep ls;
	struct xarray bos;
	struct xarray programs;
	struct xarray jobs;
	struct vgpu_cmd cmds[VGPU_CMD_RING_ENTRIES];
	u32 cmd_tail;
	u32 cmd_published;
	u32 cmd_head;
	struct vgpu_evt evts[VGPU_CMD_RING_ENTRIES];
	u32 evt_head;
	u32 evt_tail;
};

/* ------------------------------------------------------------------ */
/* the scheduler's command sink (vgpu_backend.c's ring) */

static u32 sink_space(void *ctx)
{
	struct local_cp *cp = ctx;

	return VGPU_CMD_RING_ENTRIES - (cp->cmd_tail - cp->cmd_head);
}

static void sink_emit(void *ctx, const struct vgpu_cmd *cmd)
{
	struct local_cp *cp = ctx;

	cp->cmds[cp->cmd_tail++ & QUEUE_MASK] = *cmd;
}

static void sink_publish(void *ctx)
{
	struct local_cp *cp = ctx;

	cp->cmd_published = cp->cmd_tail;
}

static void *sink_ctx_alloc(void *ctx, u64 bytes, u64 *addr)
{
	struct local_cp *cp = ctx;
	struct drm_mm_node *node = kzalloc(sizeof(*node), GFP_KERNEL);

	if (!node)
		return NULL;
	if (vgpu_vram_alloc(&cp->vram, node, bytes, 64, 0)) {
		kfree(node);
		return NULL;
	}
	*addr = node->start;
	return node;
}

static void sink_ctx_free(void *ctx, void *handle)
{
	struct local_cp *cp = ctx;

	vgpu_vram_free(&cp->vram, handle);
	kfree(handle);
}

static const struct vgpu_cmd_sink_ops local_sink_ops = {
	.space = sink_space,
	.emit = sink_emit,
	.publish = sink_publish,
	.ctx_alloc = sink_ctx_alloc,
	.ctx_free = sink_ctx_free,
};

/* ------------------------------------------------------------------ */
/* the model's transport (vgpud's backend rings) */

static const struct vgpu_cmd *ls_cmd_peek(void *ctx)
{
	struct local_cp *cp = ctx;

	if (cp->cmd_head == cp->cmd_published)
		return NULL;
	return &cp->cmds[cp->cmd_head & QUEUE_MASK];
}

static void ls_cmd_pop(void *ctx)
{
	struct local_cp *cp = ctx;

	cp->cmd_head++;
}

static uint32_t ls_evt_space(void *ctx)
{
	struct local_cp *cp = ctx;

	return VGPU_CMD_RING_ENTRIES - (cp->evt_tail - cp->evt_head);
}

static void ls_evt_push(void *ctx, const struct vgpu_evt *evt)
{
	struct local_cp *cp = ctx;

	cp->evts[cp->evt_tail++ & QUEUE_MASK] = *evt;
}

static bool next_evt(void *ctx, struct vgpu_evt *evt)
{
	struct local_cp *cp = ctx;

	if (cp->evt_head == cp->evt_tail)
		return false;
	*evt = cp->evts[cp->evt_head++ & QUEUE_MASK];
	return true;
}

static int ls_kick(void *ctx, uint64_t cycle)
{
	struct local_cp *cp = ctx;
	int ret;

	mutex_lock(&cp->lock);
	ret = vgpu_sched_kick(&cp->sched, cycle, cp->cmd_head, next_evt, cp);
	mutex_unlock(&cp->lock);
	return ret;
}

static void ls_log(void *ctx, const char *fmt, ...)
{
	struct local_cp *cp = ctx;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dev_warn(&cp->dev, "model: %s\n", msg);
}

static const struct vgpu_lockstep_ops local_ls_ops = {
	.cmd_peek = ls_cmd_peek,
	.cmd_pop = ls_cmd_pop,
	.evt_space = ls_evt_space,
	.evt_push = ls_evt_push,
	.kick = ls_kick,
	.log = ls_log,
};

/* ------------------------------------------------------------------ */
/* the device */

int local_cp_create(const struct vgpu_sim_config *cfg, uint64_t vram_size,
		    struct local_cp **out)
{
	struct vgpu_device_desc desc = cfg->desc;
	struct local_cp *cp;
	const char *why;
	u64 status_size;
	int ret;

	/* What vgpud tells the driver: Chimera's switch estimates use it. */
	desc.mem_bandwidth_mbs = cfg->dram_bandwidth_mbs;
	ret = vgpu_desc_validate(&desc, &why);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: the hardware '%.*s' is not usable: %s\n",
			VGPU_DEVICE_NAME_LEN, desc.name, why);
		return ret;
	}
	cp = kzalloc(sizeof(*cp), GFP_KERNEL);
	if (!cp)
		return -ENOMEM;
	mutex_init(&cp->lock);
	cp->dev.name = "vgpu-local";
	cp->cfg = *cfg;
	xa_init_flags(&cp->bos, XA_FLAGS_ALLOC1);
	xa_init_flags(&cp->programs, XA_FLAGS_ALLOC1);
	xa_init(&cp->jobs);
	/* module load (vgpu_drv.c) */
	vgpu_sched_init(&cp->sched, &cp->lock, &cp->dev);
	ret = vgpu_vram_init(&cp->vram, vram_size ? vram_size : LOCAL_CP_VRAM_DEFAULT);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: device memory of %llu bytes: %s\n",
			(unsigned long long)vram_size, strerror(-ret));
		goto err;
	}
	/* vgpud attaches (vgpu_backend.c) */
	mutex_lock(&cp->lock);
	status_size = (u64)desc.num_sms * desc.max_tbs_per_sm * sizeof(struct vgpu_tb_status);
	ret = vgpu_vram_alloc(&cp->vram, &cp->status, status_size, 64, 0);
	if (!ret)
		ret = vgpu_sched_attach(&cp->sched, &desc, &local_sink_ops, cp);
	if (!ret) {
		cp->sched.tb_status = vgpu_vram_ptr(&cp->vram, cp->status.start);
		vgpu_sched_send_kernel_sched(&cp->sched);
		/* a process opens the render node (vgpu_open()) */
		cp->sched.users++;
	}
	mutex_unlock(&cp->lock);
	if (ret)
		goto err;
	cp->sim = vgpu_sim_create(&cp->cfg, cp->vram.vaddr, cp->vram.size);
	if (!cp->sim) {
		ret = -ENOMEM;
		goto err;
	}
	vgpu_sim_set_cycle(cp->sim, cp->sched.cycle);
	vgpu_lockstep_init(&cp->ls, cp->sim, &local_ls_ops, cp);
	cp->ls.status = cp->sched.tb_status;
	cp->ls.slots_per_sm = desc.max_tbs_per_sm;
	*out = cp;
	return 0;
err:
	local_cp_destroy(cp);
	return ret;
}

static void bo_release(struct kref *ref)
{
	struct local_bo *bo = container_of(ref, struct local_bo, ref);

	vgpu_vram_free(&bo->cp->vram, &bo->node);
	kfree(bo);
}

void local_cp_destroy(struct local_cp *cp)
{
	struct vgpu_program *prog;
	struct local_job *job;
	struct local_bo *bo;
	unsigned long i;

	if (!cp)
		return;
	/* the file closes (vgpu_postclose()), then the daemon detaches */
	xa_for_each(&cp->jobs, i, job)
		vgpu_kcb_put(&job->kcb);
	xa_destroy(&cp->jobs);
	xa_for_each(&cp->programs, i, prog)
		vgpu_program_put(prog);
	xa_destroy(&cp->programs);
	xa_for_each(&cp->bos, i, bo)
		kref_put(&bo->ref, bo_release);
	xa_destroy(&cp->bos);
	mutex_lock(&cp->lock);
	if (cp->sched.users)
		cp->sched.users--;
	vgpu_sched_detach(&cp->sched, -EIO);
	cp->sched.tb_status = NULL;
	vgpu_vram_free(&cp->vram, &cp->status);
	mutex_unlock(&cp->lock);
	vgpu_sched_fini(&cp->sched);
	if (cp->sim)
		vgpu_sim_destroy(cp->sim);
	vgpu_vram_fini(&cp->vram);
	mutex_destroy(&cp->lock);
	kfree(cp);
}

uint8_t *local_cp_vram(struct local_cp *cp)
{
	return cp->vram.vaddr;
}

struct vgpu_sim *local_cp_sim(struct local_cp *cp)
{
	return cp->sim;
}

int local_cp_get_param(struct local_cp *cp, uint32_t param, uint64_t *value)
{
	switch (param) {
	case DRM_VGPU_PARAM_VRAM_SIZE:
		*value = cp->vram.size;
		return 0;
	case DRM_VGPU_PARAM_BACKEND_ATTACHED:
		*value = 1;
		return 0;
	case DRM_VGPU_PARAM_CURRENT_CYCLE:
		*value = cp->sched.cycle;
		return 0;
	default: {
		u64 v;

		if (vgpu_desc_param(&cp->sched.desc, param, &v))
			return -EINVAL;
		*value = v;
		return 0;
	}
	}
}

/* ------------------------------------------------------------------ */
/* buffers and programs */

int local_cp_bo_create(struct local_cp *cp, uint64_t size, uint32_t *handle,
		       uint64_t *addr)
{
	struct local_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	u32 id;
	int ret;

	if (!bo)
		return -ENOMEM;
	kref_init(&bo->ref);
	bo->cp = cp;
	ret = vgpu_vram_bo_alloc(&cp->vram, &bo->node, size, 0);
	if (!ret)
		ret = xa_alloc(&cp->bos, &id, bo, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		kref_put(&bo->ref, bo_release);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	*handle = id;
	*addr = bo->node.start;
	return 0;
}

int local_cp_bo_destroy(struct local_cp *cp, uint32_t handle)
{
	struct local_bo *bo = xa_erase(&cp->bos, handle);

	if (!bo)
		return -ENOENT;
	kref_put(&bo->ref, bo_release);	/* a job that names it keeps it */
	return 0;
}

int local_cp_program_create(struct local_cp *cp, const void *image, size_t size,
			    uint32_t *handle)
{
	struct vgpu_program *prog;
	const char *why;
	u32 id;
	int ret;

	ret = vgpu_program_validate(image, size, &cp->sched.desc, &why);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: program rejected: %s\n", why);
		return ret;
	}
	prog = vgpu_program_load(&cp->vram, 0, image, (u32)size);
	if (IS_ERR(prog))
		return (int)PTR_ERR(prog);
	ret = xa_alloc(&cp->programs, &id, prog, XA_LIMIT(1, VGPU_MAX_PROGRAMS_PER_FILE),
		       GFP_KERNEL);
	if (ret) {
		vgpu_program_put(prog);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	*handle = id;
	return 0;
}

int local_cp_program_destroy(struct local_cp *cp, uint32_t handle)
{
	struct vgpu_program *prog = xa_erase(&cp->programs, handle);

	if (!prog)
		return -ENOENT;
	vgpu_program_put(prog);	/* jobs that run it keep it */
	return 0;
}

/* ------------------------------------------------------------------ */
/* jobs */

/* What the job holds goes when it ends (vgpu_job_cleanup()); idempotent. */
static void job_cleanup(struct local_job *job)
{
	for (u32 i = 0; i < job->num_bos; i++)
		kref_put(&job->bos[i]->ref, bo_release);
	job->num_bos = 0;
	kfree(job->bos);
	job->bos = NULL;
	vgpu_program_put(job->prog);
	job->prog = NULL;
	vgpu_vram_free(&job->cp->vram, &job->desc);
}

static void job_done(struct vgpu_kcb_entry *e)
{
	job_cleanup(container_of(e, struct local_job, kcb));
}

static void job_release(struct vgpu_kcb_entry *e)
{
	struct local_job *job = container_of(e, struct local_job, kcb);

	job_cleanup(job);
	kfree(job);
}

static const struct vgpu_kcb_entry_ops local_job_ops = {
	.done = job_done,
	.release = job_release,
};

int local_cp_submit(struct local_cp *cp, const struct drm_vgpu_submit *args,
		    const uint32_t *bo_handles, const void *params, uint32_t *id)
{
	struct vgpu_sched *s = &cp->sched;
	struct vgpu_mem_range *r;
	struct vgpu_program *prog;
	struct local_job *job;
	struct vgpu_tb_res res;
	const char *why;
	u32 num_tbs;
	int ret;

	prog = xa_load(&cp->programs, args->program);
	if (!prog) {
		fprintf(stderr, "libvgpu: local device: unknown program handle %u\n",
			args->program);
		return -ENOENT;
	}
	ret = vgpu_submit_validate(args, &s->desc, prog->entries, prog->num_entries, &res,
				   &num_tbs, &why);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: launch rejected: %s\n", why);
		return ret;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	vgpu_kcb_entry_init(&job->kcb, &local_job_ops);
	job->cp = cp;
	kref_get(&prog->ref);
	job->prog = prog;
	job->bos = kcalloc(args->num_bos ? args->num_bos : 1, sizeof(*job->bos), GFP_KERNEL);
	if (!job->bos) {
		ret = -ENOMEM;
		goto err;
	}
	for (u32 i = 0; i < args->num_bos; i++) {
		struct local_bo *bo = xa_load(&cp->bos, bo_handles[i]);

		if (!bo) {
			fprintf(stderr, "libvgpu: local device: unknown buffer handle %u (index %u)\n",
				bo_handles[i], i);
			ret = -ENOENT;
			goto err;
		}
		kref_get(&bo->ref);
		job->bos[job->num_bos++] = bo;
	}
	ret = vgpu_vram_alloc(&cp->vram, &job->desc,
			      vgpu_job_desc_size(job->num_bos, prog, args->params_size), 64, 0);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: no device memory for the job descriptor\n");
		goto err;
	}
	vgpu_launch_kcb_init(&job->kcb, args, prog, &res, num_tbs);
	job->kcb.owner = cp;
	job->kcb.pid = getpid();

	mutex_lock(&cp->lock);
	ret = vgpu_kcb_add(&s->kcb, &job->kcb, s->cycle);
	if (!ret) {
		ret = xa_insert(&cp->jobs, job->kcb.id, job, GFP_KERNEL);
		if (ret)
			vgpu_kcb_retire(&s->kcb, &job->kcb);
	}
	if (ret) {
		mutex_unlock(&cp->lock);
		goto err;
	}
	/* the job record owns the first reference from here on */
	r = vgpu_job_desc_init(vgpu_vram_ptr(&cp->vram, job->desc.start), job->desc.size,
			       job->kcb.id, prog, args, job->num_bos, params);
	for (u32 i = 0; i < job->num_bos; i++) {
		r[i].start = job->bos[i]->node.start;
		r[i].size = job->bos[i]->node.size;
	}
	job->kcb.desc_addr = job->desc.start;
	vgpu_sched_run(s);
	*id = job->kcb.id;
	mutex_unlock(&cp->lock);
	return 0;
err:
	vgpu_kcb_put(&job->kcb);
	return ret;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int local_cp_wait(struct local_cp *cp, uint32_t id, int64_t deadline_ns)
{
	struct local_job *job = xa_load(&cp->jobs, id);
	int ret;

	if (!job)
		return -ENOENT;
	for (;;) {
		bool idle_turn;

		mutex_lock(&cp->lock);
		ret = job->kcb.state == VGPU_KCB_DONE;
		mutex_unlock(&cp->lock);
		if (ret)
			return 0;
		if (deadline_ns >= 0 && now_ns() >= deadline_ns)
			return -ETIME;
		ret = vgpu_lockstep_apply(&cp->ls);
		if (ret)
			return ret;
		if (!vgpu_lockstep_busy(&cp->ls))
			break;	/* nothing resident, nothing due: vgpud would sleep */
		idle_turn = cp->ls.wake_at == UINT64_MAX;
		ret = vgpu_lockstep_turn(&cp->ls);
		if (ret)
			return ret;
		/* blocks resident, yet nothing can ever happen */
		if (idle_turn && !cp->ls.events && cp->cmd_head == cp->cmd_published)
			break;
	}
	fprintf(stderr, "libvgpu: local device: job %u can make no progress\n", id);
	return -EDEADLK;
}

int local_cp_job_info(struct local_cp *cp, struct drm_vgpu_job_info *info)
{
	struct local_job *job;

	if (info->flags & ~DRM_VGPU_JOB_INFO_RELEASE || info->pad)
		return -EINVAL;
	job = info->job_id <= U32_MAX ? xa_load(&cp->jobs, info->job_id) : NULL;
	if (!job)
		return -ENOENT;
	mutex_lock(&cp->lock);
	info->state = job->kcb.state;
	info->error = job->kcb.error;
	info->start_cycle = job->kcb.start_cycle;
	info->end_cycle = job->kcb.end_cycle;
	info->warp_insts = job->kcb.warp_insts;
	info->tbs_done = job->kcb.tbs_done;
	mutex_unlock(&cp->lock);
	if (info->flags & DRM_VGPU_JOB_INFO_RELEASE) {
		if (info->state != DRM_VGPU_JOB_DONE)
			return -EBUSY;
		xa_erase(&cp->jobs, info->job_id);
		vgpu_kcb_put(&job->kcb);
	}
	return 0;
}
