// SPDX-License-Identifier: MIT
/*
 * local_cp.c - vgpu.ko's command processor in this process (local_cp.h).
 *
 * What the driver's ioctl glue does around its command processor is done
 * here around the same files: buffers and programs are ranges of device
 * memory placed by vgpu_vram.c, programs are checked and loaded by
 * vgpu_program_image.c, launches checked, described and entered into the
 * KCB by vgpu_launch.c, the synchronised clock decides by
 * vgpu_clock_hold.c, and the scheduler (vgpu_sched*.c and the policies)
 * decides. Its commands go into a queue as large as the driver's command
 * ring; the model (userspace/sim) runs them with vgpud's lock-step loop
 * (lockstep.c), and each turn ends in vgpu_sched_kick() as the daemon's
 * KICK does. The same calls therefore give the same cycles as the guest.
 *
 * The model has no thread of its own: a thread waiting for a job runs it
 * ("drives"), one at a time, while the clock lets time run - which is when
 * vgpud would simulate, since simulated time only matters while someone
 * waits for it.
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
#include "vgpu_clock_hold.h"
#include "vgpu_desc.h"
#include "vgpu_kcb.h"
#include "vgpu_knob.h"
#include "vgpu_launch.h"
#include "vgpu_preempt.h"
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
	struct vgpu_vram_account *account;
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
	struct list_head waiters;
	struct local_dep *deps;
	u32 num_deps;
};

/**
 * struct local_dep - one in-fence of a job: the end of another job (what
 *	the dma_fence of vgpu.ko's struct vgpu_job_dep stands for).
 * @link: on the producer's &local_job.waiters while armed (device lock).
 * @waiter: the job that waits.
 * @producer: the job whose end it waits for (a KCB reference), until the
 *	waiter ends.
 * @armed: on @link, waiting (device lock).
 */
struct local_dep {
	struct list_head link;
	struct local_job *waiter;
	struct local_job *producer;
	bool armed;
};

/**
 * struct local_syncobj - a syncobj of a file (drm_syncobj): the job whose
 *	end is its fence.
 * @job: that job (a KCB reference), or NULL before one was given.
 */
struct local_syncobj {
	struct local_job *job;
};

/**
 * struct local_file - an open file of the device.
 * @cp: the device.
 * @clock: its part in the synchronised clock (device lock).
 * @bos: handle -> &struct local_bo (the handle's reference).
 * @programs: handle -> &struct vgpu_program (the handle's reference).
 * @jobs: id -> &struct local_job (the job record's reference).
 * @syncobjs: handle -> &struct local_syncobj.
 * @in_wait: the file's thread is in local_cp_wait() (device lock).
 */
struct local_file {
	struct local_cp *cp;
	struct vgpu_vram_account *vram;
	struct vgpu_clock_file clock;
	struct xarray bos;
	struct xarray programs;
	struct xarray jobs;
	struct xarray syncobjs;
	bool in_wait;
};

/**
 * struct local_cp - the device.
 * @lock: the device lock (&vgpu_sched.lock); protects what the scheduler's
 *	lock protects, @clock, @refs, @files, @waiting and @driving.
 * @turn: broadcast when the model may have moved on or a turn may be
 *	taken: a turn ended, the clock's hold ended, a file submitted, waited
 *	or closed.
 * @refs: the creator's reference plus one per open file.
 * @files: open files.
 * @waiting: files in local_cp_wait().
 * @driving: a thread runs the model (it alone touches @ls, @sim and the
 *	event queue; the command queue's indices below are atomics).
 * @dev: the name in the scheduler's messages.
 * @vram: device memory.
 * @sched: the command processor.
 * @clock: the synchronised clock.
 * @status: the thread-block status table's range.
 * @cfg: the model's configuration.
 * @sim: the model.
 * @ls: the model's lock-step loop.
 * @cmds: the command queue, a ring like the driver's.
 * @cmd_tail: commands emitted (device lock).
 * @cmd_published: commands the model may apply (release store).
 * @cmd_head: commands the model applied (release store).
 * @evts: the event queue.
 * @evt_head: events the command processor consumed.
 * @evt_tail: events the model posted.
 * @evt_hook: called with every event the model posts (the driving thread),
 *	or NULL; local_cp_set_evt_hook().
 * @evt_hook_ctx: its argument.
 * @launch_hook: called with every launch accepted (device lock held), or
 *	NULL; local_cp_set_launch_hook().
 * @launch_hook_ctx: its argument.
 */
struct local_cp {
	struct mutex lock;
	pthread_cond_t turn;
	u32 refs;
	u32 files;
	u32 waiting;
	bool driving;
	struct device dev;
	struct vgpu_vram vram;
	struct vgpu_sched sched;
	struct vgpu_clock clock;
	struct drm_mm_node status;
	struct vgpu_sim_config cfg;
	struct vgpu_sim *sim;
	struct vgpu_lockstep ls;
	struct vgpu_cmd cmds[VGPU_CMD_RING_ENTRIES];
	u32 cmd_tail;
	u32 cmd_published;
	u32 cmd_head;
	struct vgpu_evt evts[VGPU_CMD_RING_ENTRIES];
	u32 evt_head;
	u32 evt_tail;
	void (*evt_hook)(void *ctx, const struct vgpu_evt *evt);
	void *evt_hook_ctx;
	void (*launch_hook)(void *ctx, const struct vgpu_local_launch *l);
	void *launch_hook_ctx;
	u64 limit_tbs[LOCAL_CP_LIMITS];
	struct local_cp_kernel_limit kernel_limits[LOCAL_CP_KERNEL_LIMITS];
	u32 num_kernel_limits;
};

/* ------------------------------------------------------------------ */
/* the scheduler's command sink (vgpu_backend.c's ring); device lock held */

static u32 sink_space(void *ctx)
{
	struct local_cp *cp = ctx;

	return VGPU_CMD_RING_ENTRIES -
	       (cp->cmd_tail - __atomic_load_n(&cp->cmd_head, __ATOMIC_ACQUIRE));
}

static void sink_emit(void *ctx, const struct vgpu_cmd *cmd)
{
	struct local_cp *cp = ctx;

	cp->cmds[cp->cmd_tail++ & QUEUE_MASK] = *cmd;
}

static void sink_publish(void *ctx)
{
	struct local_cp *cp = ctx;

	/* the entries before the index (the driving thread loads it acquiring) */
	__atomic_store_n(&cp->cmd_published, cp->cmd_tail, __ATOMIC_RELEASE);
}

static void *sink_ctx_alloc(void *ctx, u64 bytes, u64 *addr)
{
	struct local_cp *cp = ctx;

	return vgpu_vram_ctx_alloc(&cp->vram, bytes, addr);
}

static void sink_ctx_free(void *ctx, void *handle)
{
	struct local_cp *cp = ctx;

	vgpu_vram_ctx_free(&cp->vram, handle);
}

static const struct vgpu_cmd_sink_ops local_sink_ops = {
	.space = sink_space,
	.emit = sink_emit,
	.publish = sink_publish,
	.ctx_alloc = sink_ctx_alloc,
	.ctx_free = sink_ctx_free,
};

/* ------------------------------------------------------------------ */
/* the model's transport (vgpud's backend rings); the driving thread */

static const struct vgpu_cmd *ls_cmd_peek(void *ctx)
{
	struct local_cp *cp = ctx;
	u32 head = cp->cmd_head;

	if (head == __atomic_load_n(&cp->cmd_published, __ATOMIC_ACQUIRE))
		return NULL;
	return &cp->cmds[head & QUEUE_MASK];
}

static void ls_cmd_pop(void *ctx)
{
	struct local_cp *cp = ctx;

	__atomic_store_n(&cp->cmd_head, cp->cmd_head + 1, __ATOMIC_RELEASE);
}

static uint32_t ls_evt_space(void *ctx)
{
	struct local_cp *cp = ctx;

	return VGPU_CMD_RING_ENTRIES - (cp->evt_tail - cp->evt_head);
}

static void ls_evt_push(void *ctx, const struct vgpu_evt *evt)
{
	struct local_cp *cp = ctx;

	if (cp->evt_hook)
		cp->evt_hook(cp->evt_hook_ctx, evt);
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

/* vgpu_backend_kick(): the command processor's half of the turn. */
static int ls_kick(void *ctx, uint64_t cycle)
{
	struct local_cp *cp = ctx;
	int ret;

	mutex_lock(&cp->lock);
	ret = vgpu_sched_kick(&cp->sched, cycle, __atomic_load_n(&cp->cmd_head, __ATOMIC_ACQUIRE),
			      next_evt, cp);
	/* told to hold: the model stops here, its status table stays current */
	if (!ret && cp->sched.held)
		cp->clock.daemon_stopped = true;
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

/* &vgpu_clock.released: whoever waits to drive may now. */
static void clock_released(struct vgpu_clock *clock)
{
	struct local_cp *cp = container_of(clock, struct local_cp, clock);

	pthread_cond_broadcast(&cp->turn);
}

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
	pthread_cond_init(&cp->turn, NULL);
	cp->refs = 1;
	cp->dev.name = "vgpu-local";
	cp->cfg = *cfg;
	/* module load (vgpu_drv.c) */
	vgpu_sched_init(&cp->sched, &cp->lock, &cp->dev);
	vgpu_clock_init(&cp->clock, &cp->sched, clock_released);
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
	local_cp_put(cp);
	return ret;
}

/* The last reference is gone: the daemon detaches, the module unloads. */
static void cp_free(struct local_cp *cp)
{
	mutex_lock(&cp->lock);
	vgpu_sched_detach(&cp->sched, -EIO);
	cp->sched.tb_status = NULL;
	vgpu_vram_free(&cp->vram, &cp->status);
	mutex_unlock(&cp->lock);
	kcompat_devres_release_all(&cp->dev);
	vgpu_sched_fini(&cp->sched);
	if (cp->sim)
		vgpu_sim_destroy(cp->sim);
	vgpu_vram_fini(&cp->vram);
	pthread_cond_destroy(&cp->turn);
	mutex_destroy(&cp->lock);
	kfree(cp);
}

void local_cp_get(struct local_cp *cp)
{
	mutex_lock(&cp->lock);
	cp->refs++;
	mutex_unlock(&cp->lock);
}

void local_cp_put(struct local_cp *cp)
{
	bool last;

	if (!cp)
		return;
	mutex_lock(&cp->lock);
	last = !--cp->refs;
	mutex_unlock(&cp->lock);
	if (last)
		cp_free(cp);
}

uint8_t *local_cp_vram(struct local_cp *cp)
{
	return cp->vram.vaddr;
}

uint64_t local_cp_vram_size(struct local_cp *cp)
{
	return cp->vram.size;
}

struct vgpu_sim *local_cp_sim(struct local_cp *cp)
{
	return cp->sim;
}

int local_cp_attr_show(struct local_cp *cp, const char *name, char *buf)
{
	int ret;

	mutex_lock(&cp->lock);
	ret = vgpu_knob_show(&cp->sched, name, buf);
	mutex_unlock(&cp->lock);
	return ret < 0 ? ret : 0;
}

int local_cp_attr_store(struct local_cp *cp, const char *name, const char *value)
{
	int ret;

	mutex_lock(&cp->lock);
	cp->sched.emitted = 0;
	ret = vgpu_knob_store(&cp->sched, name, value);
	/* kernel_sched queues its command: the model takes it at its next turn */
	if (cp->sched.emitted)
		cp->sched.sink->publish(cp->sched.sink_ctx);
	pthread_cond_broadcast(&cp->turn);
	mutex_unlock(&cp->lock);
	return ret;
}

int local_cp_debugfs(struct local_cp *cp, const char *name, char *buf)
{
	int ret = -ENOENT;

	mutex_lock(&cp->lock);
	if (!strcmp(name, "preempt")) {
		ret = vgpu_sched_preempt_show(&cp->sched, buf);
	} else if (!strcmp(name, "tlp")) {
		ret = vgpu_tlp_show(&cp->sched, buf);
	} else {
		for (unsigned int i = 0; ret == -ENOENT && i < VGPU_PARTITION_MAX; i++) {
			const struct vgpu_policy_conf *conf = vgpu_partition_conf(i);

			if (conf && conf->show && !strcmp(conf->name, name))
				ret = conf->show(vgpu_sched_policy_conf(&cp->sched, conf), buf);
		}
	}
	mutex_unlock(&cp->lock);
	return ret < 0 ? ret : 0;
}

/* ------------------------------------------------------------------ */
/* files */

int local_cp_open(struct local_cp *cp, struct local_file **out)
{
	struct local_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->vram = vgpu_vram_account_new();
	if (!f->vram) {
		kfree(f);
		return -ENOMEM;
	}
	f->cp = cp;
	vgpu_clock_file_init(&f->clock);
	xa_init_flags(&f->bos, XA_FLAGS_ALLOC1);
	xa_init_flags(&f->programs, XA_FLAGS_ALLOC1);
	xa_init(&f->jobs);
	xa_init_flags(&f->syncobjs, XA_FLAGS_ALLOC1);
	mutex_lock(&cp->lock);
	cp->refs++;
	cp->files++;
	cp->sched.users++;	/* vgpu_open() */
	mutex_unlock(&cp->lock);
	*out = f;
	return 0;
}

struct local_cp *local_file_cp(struct local_file *f)
{
	return f->cp;
}

static void bo_release(struct kref *ref)
{
	struct local_bo *bo = container_of(ref, struct local_bo, ref);

	vgpu_vram_bo_free(&bo->cp->vram, &bo->node, bo->account);
	kfree(bo);
}

/* vgpu_postclose(): records, programs and buffers go, the clock is left. */
void local_cp_close(struct local_file *f)
{
	struct local_cp *cp;
	struct vgpu_program *prog;
	struct local_syncobj *so;
	struct local_job *job;
	struct local_bo *bo;
	unsigned long i;

	if (!f)
		return;
	cp = f->cp;
	mutex_lock(&cp->lock);
	vgpu_clock_leave(&cp->clock, &f->clock);
	/* As vgpu.ko's vgpu_file_jobs_fini(): nobody waits for them any more. */
	xa_for_each(&f->jobs, i, job)
		vgpu_sched_cancel(&cp->sched, &job->kcb, -ECANCELED);
	vgpu_sched_run(&cp->sched);
	mutex_unlock(&cp->lock);
	xa_for_each(&f->jobs, i, job)
		vgpu_kcb_put(&job->kcb);
	xa_destroy(&f->jobs);
	xa_for_each(&f->syncobjs, i, so) {
		if (so->job)
			vgpu_kcb_put(&so->job->kcb);
		kfree(so);
	}
	xa_destroy(&f->syncobjs);
	xa_for_each(&f->programs, i, prog)
		vgpu_program_put(prog);
	xa_destroy(&f->programs);
	xa_for_each(&f->bos, i, bo)
		kref_put(&bo->ref, bo_release);
	xa_destroy(&f->bos);
	vgpu_vram_account_put(f->vram);
	kfree(f);

	mutex_lock(&cp->lock);
	cp->files--;
	cp->sched.users--;
	cp->sched.emitted = 0;
	vgpu_sched_fresh_start(&cp->sched, true);
	if (cp->sched.emitted)
		cp->sched.sink->publish(cp->sched.sink_ctx);
	pthread_cond_broadcast(&cp->turn);
	mutex_unlock(&cp->lock);
	local_cp_put(cp);
}

int local_cp_get_param(struct local_file *f, uint32_t param, uint64_t *value)
{
	struct local_cp *cp = f->cp;
	u64 v;
	int ret = 0;

	mutex_lock(&cp->lock);
	switch (param) {
	case DRM_VGPU_PARAM_VRAM_SIZE:
		v = cp->vram.size;
		break;
	case DRM_VGPU_PARAM_BACKEND_ATTACHED:
		v = 1;
		break;
	case DRM_VGPU_PARAM_CURRENT_CYCLE:
		v = cp->sched.cycle;
		break;
	default:
		ret = vgpu_desc_param(&cp->sched.desc, param, &v) ? -EINVAL : 0;
		break;
	}
	mutex_unlock(&cp->lock);
	if (!ret)
		*value = v;
	return ret;
}

int local_cp_clock_sync(struct local_file *f, bool join, uint32_t rank)
{
	struct local_cp *cp = f->cp;

	if (!join && rank)
		return -EINVAL;
	mutex_lock(&cp->lock);
	if (join)
		vgpu_clock_join(&cp->clock, &f->clock, rank);
	else
		vgpu_clock_leave(&cp->clock, &f->clock);
	mutex_unlock(&cp->lock);
	return 0;
}

/* ------------------------------------------------------------------ */
/* buffers and programs */

int local_cp_bo_create(struct local_file *f, uint64_t size, uint32_t *handle,
		       uint64_t *addr)
{
	struct local_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	u64 limit;
	u32 id;
	int ret;

	if (!bo)
		return -ENOMEM;
	kref_init(&bo->ref);
	bo->cp = f->cp;
	mutex_lock(&f->cp->lock);
	limit = f->cp->vram.size * f->cp->sched.file_vram_pct / 100;
	mutex_unlock(&f->cp->lock);
	ret = vgpu_vram_bo_alloc(&f->cp->vram, &bo->node, size, vgpu_clock_arena(&f->clock),
				 f->vram, limit);
	if (ret == -EDQUOT) {
		fprintf(stderr, "libvgpu: local device: the file holds %llu bytes of device memory; "
			"%llu more would pass its limit of %llu (file_vram_pct)\n",
			(unsigned long long)f->vram->bytes, (unsigned long long)size,
			(unsigned long long)limit);
		ret = -ENOSPC;
	} else if (!ret) {
		bo->account = f->vram;
		ret = xa_alloc(&f->bos, &id, bo, xa_limit_32b, GFP_KERNEL);
	}
	if (ret) {
		kref_put(&bo->ref, bo_release);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	*handle = id;
	*addr = bo->node.start;
	return 0;
}

int local_cp_bo_destroy(struct local_file *f, uint32_t handle)
{
	struct local_bo *bo = xa_erase(&f->bos, handle);

	if (!bo)
		return -ENOENT;
	kref_put(&bo->ref, bo_release);	/* a job that names it keeps it */
	return 0;
}

int local_cp_program_create(struct local_file *f, const void *image, size_t size,
			    uint32_t *handle)
{
	struct local_cp *cp = f->cp;
	struct vgpu_program *prog;
	const char *why;
	u32 id;
	int ret;

	ret = vgpu_program_validate(image, size, &cp->sched.desc, &why);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: program rejected: %s\n", why);
		return ret;
	}
	prog = vgpu_program_load(&cp->vram, vgpu_clock_arena(&f->clock), image, (u32)size);
	if (IS_ERR(prog))
		return (int)PTR_ERR(prog);
	ret = xa_alloc(&f->programs, &id, prog, XA_LIMIT(1, VGPU_MAX_PROGRAMS_PER_FILE),
		       GFP_KERNEL);
	if (ret) {
		vgpu_program_put(prog);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	*handle = id;
	return 0;
}

int local_cp_program_destroy(struct local_file *f, uint32_t handle)
{
	struct vgpu_program *prog = xa_erase(&f->programs, handle);

	if (!prog)
		return -ENOENT;
	vgpu_program_put(prog);	/* jobs that run it keep it */
	return 0;
}

int local_cp_program_data(struct local_file *f, uint32_t handle, uint64_t *addr,
			  uint32_t *size)
{
	struct vgpu_program *prog = xa_load(&f->programs, handle);

	if (!prog)
		return -ENOENT;
	*addr = prog->data_size ? prog->data.start : 0;
	*size = prog->data_size;
	return 0;
}

/* ------------------------------------------------------------------ */
/* jobs */

/*
 * The job's in-fences: disarmed (device lock held: it is in the KCB only
 * until job_done()) and the producers let go.
 */
static void job_deps_fini(struct local_job *job)
{
	for (u32 i = 0; i < job->num_deps; i++) {
		struct local_dep *d = &job->deps[i];

		if (d->armed) {
			list_del_init(&d->link);
			d->armed = false;
		}
		if (d->producer)
			vgpu_kcb_put(&d->producer->kcb);
		d->producer = NULL;
	}
	job->num_deps = 0;
	kfree(job->deps);
	job->deps = NULL;
}

/* What the job holds goes when it ends (vgpu_job_cleanup()); idempotent. */
static void job_cleanup(struct local_job *job)
{
	job_deps_fini(job);
	for (u32 i = 0; i < job->num_bos; i++)
		kref_put(&job->bos[i]->ref, bo_release);
	job->num_bos = 0;
	kfree(job->bos);
	job->bos = NULL;
	vgpu_program_put(job->prog);
	job->prog = NULL;
	vgpu_vram_free(&job->cp->vram, &job->desc);
}

/*
 * vgpu_job_done(): device lock held, inside the turn that ended the job.
 * Its end is its fence: the jobs that wait for it count it down now, in
 * the pass that ended it, as the dma_fence callbacks of vgpu.ko do.
 */
static void job_done(struct vgpu_kcb_entry *e)
{
	struct local_job *job = container_of(e, struct local_job, kcb);
	struct local_dep *d, *tmp;

	list_for_each_entry_safe(d, tmp, &job->waiters, link) {
		list_del_init(&d->link);
		d->armed = false;
		vgpu_kcb_dep_signal(&d->waiter->kcb, e->error);
	}
	vgpu_clock_job_done(&job->cp->clock, e);
	job_cleanup(job);
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

/*
 * The checks of a SUBMIT: its program *@prog, the resources of one of its
 * blocks in *@res and their number in *@num_tbs (vgpu_submit_validate()).
 */
static int submit_check(struct local_file *f, const struct drm_vgpu_submit *args,
			struct vgpu_program **prog, struct vgpu_tb_res *res, u32 *num_tbs)
{
	struct vgpu_device_desc desc;
	const char *why;
	int ret;

	*prog = xa_load(&f->programs, args->program);
	if (!*prog) {
		fprintf(stderr, "libvgpu: local device: unknown program handle %u\n",
			args->program);
		return -ENOENT;
	}
	mutex_lock(&f->cp->lock);
	desc = f->cp->sched.desc;
	mutex_unlock(&f->cp->lock);
	ret = vgpu_submit_validate(args, &desc, (*prog)->entries, (*prog)->num_entries, res,
				   num_tbs, &why);
	if (ret)
		fprintf(stderr, "libvgpu: local device: launch rejected: %s\n", why);
	return ret;
}

_Static_assert(LOCAL_CP_LIMITS == VGPU_OCC_COUNT + 1, "the driver's limits and the grid");

/*
 * The launch's TBs under the limit that binds it (local_cp_limits()); the
 * grid when every TB fits the GPU at once, so that no limit keeps one
 * waiting. Device lock held.
 */
static void note_limit(struct local_cp *cp, const char *kernel, const struct vgpu_tb_res *res,
		       u32 num_tbs)
{
	struct local_cp_kernel_limit *k = cp->kernel_limits;
	enum vgpu_occ_limit why;
	u32 n = vgpu_smst_occupancy_limit(&cp->sched.smst, res, &why), i;

	if ((u64)num_tbs <= (u64)n * cp->sched.smst.num_sms)
		cp->limit_tbs[VGPU_OCC_COUNT] += num_tbs;
	else
		cp->limit_tbs[why] += num_tbs;
	/* each kernel's limit on an empty SM, whatever its grid */
	for (i = 0; i < cp->num_kernel_limits; i++)
		if (k[i].limit == why && k[i].tbs_per_sm == n && !strcmp(k[i].kernel, kernel))
			return;
	if (i == LOCAL_CP_KERNEL_LIMITS)
		return;
	snprintf(k[i].kernel, sizeof(k[i].kernel), "%s", kernel);
	k[i].limit = why;
	k[i].tbs_per_sm = n;
	cp->num_kernel_limits++;
}

/* The launch hook's view of KCB entry @e of entry point @pe; device lock held. */
static void note_launch(struct local_cp *cp, const struct vgpu_kcb_entry *e,
			const struct vgpu_program_entry *pe)
{
	struct vgpu_local_launch l = {
		.job = e->id,
		.num_tbs = e->num_tbs,
		.threads = e->block[0] * e->block[1] * e->block[2],
		.regs_per_thread = pe->regs_per_thread,
		.shared = e->res.shared,
		.local_per_thread = pe->local_per_thread,
		.tbs_per_sm = vgpu_smst_occupancy(&cp->sched.smst, &e->res),
		.ctx_bytes = e->ctx_bytes,
		.idempotent = e->idempotent,
	};

	snprintf(l.kernel, sizeof(l.kernel), "%s", pe->name);
	cp->launch_hook(cp->launch_hook_ctx, &l);
}

void local_cp_limits(struct local_cp *cp, uint64_t tbs[LOCAL_CP_LIMITS])
{
	mutex_lock(&cp->lock);
	memcpy(tbs, cp->limit_tbs, sizeof(cp->limit_tbs));
	mutex_unlock(&cp->lock);
}

u32 local_cp_kernel_limits(struct local_cp *cp, struct local_cp_kernel_limit *out, u32 max)
{
	u32 n;

	mutex_lock(&cp->lock);
	n = cp->num_kernel_limits;
	memcpy(out, cp->kernel_limits, sizeof(*out) * (n < max ? n : max));
	mutex_unlock(&cp->lock);
	return n;
}

int local_cp_syncobj_create(struct local_file *f, uint32_t *handle)
{
	struct local_syncobj *so = kzalloc(sizeof(*so), GFP_KERNEL);
	u32 id;
	int ret;

	if (!so)
		return -ENOMEM;
	ret = xa_alloc(&f->syncobjs, &id, so, xa_limit_32b, GFP_KERNEL);
	if (ret) {
		kfree(so);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	*handle = id;
	return 0;
}

int local_cp_syncobj_destroy(struct local_file *f, uint32_t handle)
{
	struct local_syncobj *so = xa_erase(&f->syncobjs, handle);

	if (!so)
		return -ENOENT;
	if (so->job)
		vgpu_kcb_put(&so->job->kcb);	/* its waiters hold their own */
	kfree(so);
	return 0;
}

/*
 * &drm_vgpu_submit.num_bos == 0: every buffer of the file, each referenced
 * for the job's life (vgpu_job_snapshot_bos()).
 */
static int job_snapshot_bos(struct local_file *f, struct local_job *job)
{
	struct local_bo *bo;
	unsigned long i;
	u32 n = 0;

	xa_for_each(&f->bos, i, bo)
		n++;
	if (n > VGPU_LAUNCH_MAX_FILE_BOS) {
		fprintf(stderr, "libvgpu: local device: no buffer list, and the file has %u buffers, at most %u\n",
			n, VGPU_LAUNCH_MAX_FILE_BOS);
		return -E2BIG;
	}
	job->bos = kcalloc(n ? n : 1, sizeof(*job->bos), GFP_KERNEL);
	if (!job->bos)
		return -ENOMEM;
	xa_for_each(&f->bos, i, bo) {
		kref_get(&bo->ref);
		job->bos[job->num_bos++] = bo;
	}
	return 0;
}

/* The jobs whose syncobjs a launch waits for (vgpu_job_lookup_deps()). */
static int job_lookup_deps(struct local_file *f, struct local_job *job,
			   const struct drm_vgpu_submit *args, const uint32_t *handles)
{
	if (!args->num_in_syncobjs)
		return 0;
	if (!handles) {
		fprintf(stderr, "libvgpu: local device: %u in-syncobjs but no array\n",
			args->num_in_syncobjs);
		return -EFAULT;
	}
	job->deps = kcalloc(args->num_in_syncobjs, sizeof(*job->deps), GFP_KERNEL);
	if (!job->deps)
		return -ENOMEM;
	job->num_deps = args->num_in_syncobjs;
	for (u32 i = 0; i < job->num_deps; i++) {
		struct local_syncobj *so = xa_load(&f->syncobjs, handles[i]);
		struct local_dep *d = &job->deps[i];

		INIT_LIST_HEAD(&d->link);
		d->waiter = job;
		if (!so) {
			fprintf(stderr, "libvgpu: local device: unknown in-syncobj handle %u (entry %u of %u)\n",
				handles[i], i, job->num_deps);
			return -ENOENT;
		}
		if (!so->job) {
			fprintf(stderr, "libvgpu: local device: in-syncobj %u (entry %u of %u) holds no fence\n",
				handles[i], i, job->num_deps);
			return -EINVAL;
		}
		vgpu_kcb_get(&so->job->kcb);
		d->producer = so->job;
	}
	return 0;
}

/*
 * Wait for the producers that have not ended (vgpu_job_deps_arm()); one that
 * has counts at once, with its error. Device lock held.
 */
static void job_deps_arm(struct local_job *job)
{
	for (u32 i = 0; i < job->num_deps; i++) {
		struct local_dep *d = &job->deps[i];

		if (d->producer->kcb.state == VGPU_KCB_DONE) {
			vgpu_kcb_dep_signal(&job->kcb, d->producer->kcb.error);
			continue;
		}
		list_add_tail(&d->link, &d->producer->waiters);
		d->armed = true;
	}
}

int local_cp_submit(struct local_file *f, const struct drm_vgpu_submit *args,
		    const uint32_t *bo_handles, const uint32_t *in_syncobjs,
		    const void *params, uint32_t *id)
{
	struct local_cp *cp = f->cp;
	struct vgpu_sched *s = &cp->sched;
	struct local_syncobj *out = NULL;
	struct vgpu_mem_range *r;
	struct vgpu_program *prog;
	struct local_job *job;
	struct vgpu_tb_res res;
	u32 num_tbs;
	int ret;

	if (args->num_in_syncobjs > DRM_VGPU_MAX_IN_SYNCOBJS) {
		fprintf(stderr, "libvgpu: local device: %u in-syncobjs, at most %u\n",
			args->num_in_syncobjs, DRM_VGPU_MAX_IN_SYNCOBJS);
		return -E2BIG;
	}
	ret = submit_check(f, args, &prog, &res, &num_tbs);
	if (ret)
		return ret;
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	vgpu_kcb_entry_init(&job->kcb, &local_job_ops);
	INIT_LIST_HEAD(&job->waiters);
	job->cp = cp;
	kref_get(&prog->ref);
	job->prog = prog;
	if (!args->num_bos) {
		ret = job_snapshot_bos(f, job);
		if (ret)
			goto err;
	} else {
		job->bos = kcalloc(args->num_bos, sizeof(*job->bos), GFP_KERNEL);
		if (!job->bos) {
			ret = -ENOMEM;
			goto err;
		}
	}
	for (u32 i = 0; i < args->num_bos; i++) {
		struct local_bo *bo = xa_load(&f->bos, bo_handles[i]);

		if (!bo) {
			fprintf(stderr, "libvgpu: local device: unknown buffer handle %u (index %u)\n",
				bo_handles[i], i);
			ret = -ENOENT;
			goto err;
		}
		kref_get(&bo->ref);
		job->bos[job->num_bos++] = bo;
	}
	ret = job_lookup_deps(f, job, args, in_syncobjs);
	if (ret)
		goto err;
	if (args->out_syncobj) {
		out = xa_load(&f->syncobjs, args->out_syncobj);
		if (!out) {
			fprintf(stderr, "libvgpu: local device: unknown syncobj %u\n",
				args->out_syncobj);
			ret = -ENOENT;
			goto err;
		}
	}
	ret = vgpu_vram_alloc(&cp->vram, &job->desc,
			      vgpu_job_desc_size(job->num_bos, prog, args->params_size), 64,
			      vgpu_clock_arena(&f->clock));
	if (ret) {
		fprintf(stderr, "libvgpu: local device: no device memory for the job descriptor\n");
		goto err;
	}
	vgpu_launch_kcb_init(&job->kcb, args, prog, &res, num_tbs);
	vgpu_kcb_deps_init(&job->kcb, job->num_deps);
	job->kcb.owner = f;
	job->kcb.pid = getpid();

	mutex_lock(&cp->lock);
	if (vgpu_launch_check_arrival(&job->kcb, s->cycle)) {
		fprintf(stderr, "libvgpu: local device: not-before cycle %llu is more than %llu cycles after the device's cycle %llu\n",
			(unsigned long long)job->kcb.not_before,
			(unsigned long long)DRM_VGPU_NOT_BEFORE_AHEAD,
			(unsigned long long)s->cycle);
		mutex_unlock(&cp->lock);
		ret = -EINVAL;
		goto err;
	}
	if (vgpu_sched_owner_jobs(s, f) >= s->file_max_jobs) {
		fprintf(stderr, "libvgpu: local device: the file has %u jobs queued or running, at most %u (file_max_jobs)\n",
			vgpu_sched_owner_jobs(s, f), s->file_max_jobs);
		mutex_unlock(&cp->lock);
		ret = -ENOSPC;
		goto err;
	}
	job->kcb.rank = f->clock.rank;
	ret = vgpu_kcb_add(&s->kcb, &job->kcb, s->cycle);
	if (!ret) {
		ret = xa_insert(&f->jobs, job->kcb.id, job, GFP_KERNEL);
		if (ret)
			vgpu_kcb_retire(&s->kcb, &job->kcb);
	}
	if (ret) {
		mutex_unlock(&cp->lock);
		goto err;
	}
	/* the job record owns the first reference from here on */
	r = vgpu_job_desc_init(vgpu_vram_ptr(&cp->vram, job->desc.start), job->desc.size,
			       job->kcb.id, prog, args, job->num_bos, params, cp->sched.idem);
	for (u32 i = 0; i < job->num_bos; i++) {
		r[i].start = job->bos[i]->node.start;
		r[i].size = job->bos[i]->node.size;
	}
	job->kcb.desc_addr = job->desc.start;
	note_limit(cp, prog->entries[args->entry].name, &res, num_tbs);
	if (cp->launch_hook)
		note_launch(cp, &job->kcb, &prog->entries[args->entry]);
	job_deps_arm(job);
	vgpu_kcb_deps_arm(&job->kcb);
	if (out) {
		/* drm_syncobj_replace_fence() */
		if (out->job)
			vgpu_kcb_put(&out->job->kcb);
		out->job = job;
		vgpu_kcb_get(&job->kcb);
	}
	s->emitted = 0;
	vgpu_clock_job_added(&cp->clock, &f->clock, &job->kcb);
	vgpu_sched_run(s);
	*id = job->kcb.id;
	pthread_cond_broadcast(&cp->turn);
	mutex_unlock(&cp->lock);
	return 0;
err:
	vgpu_kcb_put(&job->kcb);
	return ret;
}

int local_cp_job_desc(struct local_file *f, const struct drm_vgpu_submit *args,
		      const uint32_t *bo_handles, const void *params, uint32_t job,
		      struct local_cp_layout *out)
{
	struct local_cp *cp = f->cp;
	struct vgpu_mem_range *r;
	struct vgpu_program *prog;
	struct local_bo *bo, *named;
	enum vgpu_preempt_idem idem;
	struct vgpu_tb_res res;
	u32 num_tbs, handle;
	uint64_t addr;
	size_t size;
	int ret;

	ret = submit_check(f, args, &prog, &res, &num_tbs);
	if (ret)
		return ret;
	mutex_lock(&cp->lock);
	out->tbs_per_sm = vgpu_smst_occupancy(&cp->sched.smst, &res);
	idem = cp->sched.idem;
	mutex_unlock(&cp->lock);
	for (u32 i = 0; i < args->num_bos; i++) {
		if (!xa_load(&f->bos, bo_handles[i])) {
			fprintf(stderr, "libvgpu: local device: unknown buffer handle %u (index %u)\n",
				bo_handles[i], i);
			return -ENOENT;
		}
	}
	/* the descriptor is a buffer of the file: it goes when the file closes */
	size = vgpu_job_desc_size(args->num_bos, prog, args->params_size);
	ret = local_cp_bo_create(f, size, &handle, &addr);
	if (ret)
		return ret;
	bo = xa_load(&f->bos, handle);
	r = vgpu_job_desc_init(vgpu_vram_ptr(&cp->vram, addr), bo->node.size, job, prog, args,
			       args->num_bos, params, idem);
	for (u32 i = 0; i < args->num_bos; i++) {
		named = xa_load(&f->bos, bo_handles[i]);
		r[i].start = named->node.start;
		r[i].size = named->node.size;
	}
	out->desc_addr = addr;
	out->num_tbs = num_tbs;
	out->regs_per_tb = res.regs;
	out->shared_per_tb = res.shared;
	return 0;
}

void local_cp_set_evt_hook(struct local_cp *cp,
			   void (*hook)(void *ctx, const struct vgpu_evt *evt), void *ctx)
{
	mutex_lock(&cp->lock);
	cp->evt_hook = hook;
	cp->evt_hook_ctx = ctx;
	mutex_unlock(&cp->lock);
}

void local_cp_set_launch_hook(struct local_cp *cp,
			      void (*hook)(void *ctx, const struct vgpu_local_launch *l),
			      void *ctx)
{
	mutex_lock(&cp->lock);
	cp->launch_hook = hook;
	cp->launch_hook_ctx = ctx;
	mutex_unlock(&cp->lock);
}

void local_cp_preempt_estimate(struct local_cp *cp, uint64_t ctx_bytes,
			       uint64_t remaining_insts, uint64_t tb_cycles,
			       uint64_t warp_insts, uint64_t *sm_bw_fp,
			       uint64_t *switch_cycles, uint64_t *drain_cycles)
{
	struct vgpu_sched *s = &cp->sched;
	u64 cpi = vgpu_preempt_cpi_fp(tb_cycles, warp_insts);

	mutex_lock(&cp->lock);
	/* the scheduler's share (vgpu_sched_sm_bw_fp()) */
	*sm_bw_fp = vgpu_preempt_sm_bw_fp(s->desc.mem_bandwidth_mbs, s->desc.core_clock_khz,
					  s->smst.num_sms);
	mutex_unlock(&cp->lock);
	*switch_cycles = vgpu_preempt_switch_latency(ctx_bytes, *sm_bw_fp);
	*drain_cycles = cpi ? vgpu_preempt_drain_latency(remaining_insts, cpi) : U64_MAX;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * One step of vgpud's loop (run()): apply the published commands, then, if
 * anything is resident or due, one turn. The driving thread, without the
 * device lock. Returns 0 after a turn, 1 when there was nothing to simulate,
 * -EDEADLK when blocks are resident but nothing can ever happen, or an
 * error of the loop.
 */
static int drive_step(struct local_cp *cp)
{
	int ret;

	ret = vgpu_lockstep_apply(&cp->ls);
	if (ret < 0)
		return ret;
	if (ret > 0)
		return 0;	/* it kicked: the turn's commands and hold first */
	if (!vgpu_lockstep_busy(&cp->ls))
		return 1;
	return vgpu_lockstep_turn(&cp->ls);
}

/* Sleeps on @cp->turn until woken or @deadline_ns (< 0: none); device lock held. */
static void wait_turn(struct local_cp *cp, int64_t deadline_ns)
{
	struct timespec ts;

	if (deadline_ns < 0) {
		kcompat_mutex_cond_wait(&cp->lock, &cp->turn);
		return;
	}
	/* a host-time limit on the wait only, never on simulated time */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 0;
	ts.tv_nsec += 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	__atomic_store_n(&cp->lock.held, false, __ATOMIC_RELEASE);
	pthread_cond_timedwait(&cp->turn, &cp->lock.lock, &ts);
	cp->lock.owner = pthread_self();
	__atomic_store_n(&cp->lock.held, true, __ATOMIC_RELEASE);
}

int local_cp_wait(struct local_file *f, uint32_t id, int64_t deadline_ns)
{
	struct local_cp *cp = f->cp;
	struct vgpu_clock_wait wait;
	struct local_job *job;
	int ret = 0;

	job = xa_load(&f->jobs, id);
	if (!job)
		return -ENOENT;
	mutex_lock(&cp->lock);
	f->in_wait = true;
	cp->waiting++;
	INIT_LIST_HEAD(&wait.link);
	if (job->kcb.state != VGPU_KCB_DONE)
		vgpu_clock_wait_begin(&cp->clock, &f->clock, &wait, job->kcb.id);
	pthread_cond_broadcast(&cp->turn);
	while (job->kcb.state != VGPU_KCB_DONE) {
		if (deadline_ns >= 0 && now_ns() >= deadline_ns) {
			ret = -ETIME;
			break;
		}
		/* the clock stands, or another thread runs the model */
		if (cp->sched.held || cp->driving) {
			wait_turn(cp, deadline_ns);
			continue;
		}
		cp->driving = true;
		cp->clock.daemon_stopped = false;	/* WAIT_CLOCK returned */
		mutex_unlock(&cp->lock);
		ret = drive_step(cp);
		mutex_lock(&cp->lock);
		cp->driving = false;
		pthread_cond_broadcast(&cp->turn);
		if (ret < 0)
			break;
		if (ret == 1) {
			ret = 0;
			/* nothing to simulate: only a file not waiting can change that */
			if (cp->waiting == cp->files) {
				ret = -EDEADLK;
				break;
			}
			wait_turn(cp, deadline_ns);
		}
	}
	vgpu_clock_wait_end(&cp->clock, &f->clock, &wait);
	cp->waiting--;
	f->in_wait = false;
	mutex_unlock(&cp->lock);
	if (ret == -EDEADLK)
		fprintf(stderr, "libvgpu: local device: job %u can make no progress\n", id);
	return ret;
}

int local_cp_job_info(struct local_file *f, struct drm_vgpu_job_info *info)
{
	struct local_cp *cp = f->cp;
	struct local_job *job;

	if (info->flags & ~DRM_VGPU_JOB_INFO_RELEASE || info->pad)
		return -EINVAL;
	job = info->job_id <= U32_MAX ? xa_load(&f->jobs, info->job_id) : NULL;
	if (!job)
		return -ENOENT;
	mutex_lock(&cp->lock);
	vgpu_launch_info(&job->kcb, info);
	mutex_unlock(&cp->lock);
	if (info->flags & DRM_VGPU_JOB_INFO_RELEASE) {
		if (info->state != DRM_VGPU_JOB_DONE)
			return -EBUSY;
		xa_erase(&f->jobs, info->job_id);
		vgpu_kcb_put(&job->kcb);
	}
	return 0;
}
