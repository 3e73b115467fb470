// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu thread-block scheduler: the mechanism shared by every policy.
 *
 * This is the thread block scheduler of Park, dissertation, Ch. II,
 * Fig. 2.3, sitting between the KCB (vgpu_kcb.c) and the SMST
 * (vgpu_smst.c), split in two levels as in Chimera (Ch. IV, Fig. 4.4): a
 * partition policy's kernel scheduler (&vgpu_partition_ops.plan) decides
 * the SM-to-kernel mapping and per-SM TB quotas, and the TB scheduler
 * (vgpu_sched_tb_dispatch(), or a policy's own dispatch) carries them out,
 * re-issuing preempted TBs first. This file turns the decisions into
 * commands (JOB_BEGIN before a job's first DISPATCH, DISPATCH, JOB_END,
 * WAKE_AT), consumes the daemon's events and ends jobs.
 *
 * Everything here runs under the device lock (&vgpu_sched.lock); the
 * command sink is called under it too. No function sleeps except for the
 * allocations in vgpu_sched_attach().
 */

#include <linux/device.h>
#include <linux/err.h>
#include <linux/lockdep.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include <drm/vgpu_drm.h>

#include "vgpu_knob.h"
#include "vgpu_sched.h"
#include "vgpu_trace.h"

/*
 * Every partition policy, in the order sysfs lists them (partition_policy);
 * the first is the default. NULL-terminated. A new policy is a file of its
 * own with its &struct vgpu_partition_ops, declared in vgpu_sched.h, and
 * one line here (Documentation/driver.rst, "Writing a policy").
 */
const struct vgpu_partition_ops *const vgpu_partition_policies[] = {
	&vgpu_policy_fcfs,
	&vgpu_policy_spatial,
	&vgpu_policy_smk_even,
	&vgpu_policy_smk_drf,
	&vgpu_policy_warped_slicer,
	&vgpu_policy_maestro,
	NULL
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_partition_policies);

/* One &vgpu_sched.policy_conf row per entry. */
static_assert(ARRAY_SIZE(vgpu_partition_policies) <= VGPU_PARTITION_MAX + 1);

/**
 * vgpu_partition_find() - a partition policy by name.
 * @name: the name of one of vgpu_partition_policies[]; a trailing newline
 *	is ignored (sysfs_streq()).
 *
 * Return: the policy, or NULL.
 */
const struct vgpu_partition_ops *vgpu_partition_find(const char *name)
{
	const struct vgpu_partition_ops *const *ops;

	for (ops = vgpu_partition_policies; *ops; ops++)
		if (sysfs_streq(name, (*ops)->name))
			return *ops;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_partition_find);

/**
 * vgpu_partition_conf() - the policy conf whose area is row @i of
 *	&vgpu_sched.policy_conf.
 * @i: an index of vgpu_partition_policies[], or any number.
 *
 * Return: the &vgpu_partition_ops.conf of policy @i, or NULL when it has
 * none, an earlier policy has the same (the conf's area is then that
 * policy's row) or @i is past the last policy. Iterating @i from 0 to
 * %VGPU_PARTITION_MAX visits each conf once.
 */
const struct vgpu_policy_conf *vgpu_partition_conf(unsigned int i)
{
	const struct vgpu_policy_conf *conf;
	unsigned int j;

	for (j = 0; j < i; j++)
		if (!vgpu_partition_policies[j])
			return NULL;
	conf = vgpu_partition_policies[i] ? vgpu_partition_policies[i]->conf :
					    NULL;
	for (j = 0; conf && j < i; j++)
		if (vgpu_partition_policies[j]->conf == conf)
			return NULL;
	return conf;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_partition_conf);

/**
 * vgpu_sched_policy_conf() - a policy conf's per-device area.
 * @s: the scheduler.
 * @conf: the &vgpu_partition_ops.conf of a policy of the registry.
 *
 * Under the device lock, except while nothing else can use @s (the
 * scheduler being initialised).
 *
 * Return: the area, %VGPU_POLICY_CONF_SIZE bytes; NULL (and a warning) for
 * a conf no registered policy has.
 */
void *vgpu_sched_policy_conf(struct vgpu_sched *s,
			     const struct vgpu_policy_conf *conf)
{
	unsigned int i;

	for (i = 0; vgpu_partition_policies[i]; i++)
		if (vgpu_partition_policies[i]->conf == conf)
			return s->policy_conf[i];
	WARN_ON(1);
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_policy_conf);

/**
 * vgpu_sched_init() - initialise a detached scheduler with the default
 *	policies (the first of each registry) and every knob at its default.
 * @s: the scheduler.
 * @lock: the device lock that protects it.
 * @dev: device for debug messages, or NULL (KUnit).
 */
void vgpu_sched_init(struct vgpu_sched *s, struct mutex *lock,
		     struct device *dev)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->lock = lock;
	s->dev = dev;
	s->policy = vgpu_partition_policies[0];
	s->alloc_mode = VGPU_SMST_FIRST_FIT;
	s->preempt_ops = vgpu_preempt_policies[0];
	s->idem = VGPU_PREEMPT_IDEM_RELAXED;
	s->budget_us = VGPU_BUDGET_US_DEFAULT;
	s->budget_margin_pct = VGPU_BUDGET_MARGIN_PCT_DEFAULT;
	s->latency_feedback = false;
	s->job_timeout_us = VGPU_JOB_TIMEOUT_US_DEFAULT;
	s->sync_quantum = VGPU_SYNC_QUANTUM_DEFAULT;
	s->clock_hold_ms = VGPU_CLOCK_HOLD_MS_DEFAULT;
	s->daemon_timeout_ms = VGPU_DAEMON_TIMEOUT_MS_DEFAULT;
	s->fair_slice_us = VGPU_FAIR_SLICE_US_DEFAULT;
	s->file_max_jobs = VGPU_FILE_MAX_JOBS_DEFAULT;
	s->file_vram_pct = VGPU_FILE_VRAM_PCT_DEFAULT;
	vgpu_tlp_init(s);
	for (i = 0; vgpu_partition_policies[i]; i++) {
		const struct vgpu_policy_conf *conf = vgpu_partition_conf(i);

		if (conf)
			vgpu_knob_conf_init(conf, s->policy_conf[i]);
	}
	vgpu_kcb_init(&s->kcb);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_init);

/* Let the active policy free its per-device state. */
static void vgpu_sched_release_policy(struct vgpu_sched *s)
{
	if (s->policy && s->policy->release)
		s->policy->release(s);
	WARN_ON(s->policy_data);
	s->policy_data = NULL;
}

/**
 * vgpu_sched_alloc_mode() - the SMST allocator in effect.
 * @s: the scheduler.
 *
 * Return: %VGPU_SMST_TWO_WAY while a policy that requires it is active
 * (&vgpu_partition_ops.two_way), else &vgpu_sched.alloc_mode.
 */
enum vgpu_smst_alloc_mode vgpu_sched_alloc_mode(const struct vgpu_sched *s)
{
	if (s->policy && s->policy->two_way)
		return VGPU_SMST_TWO_WAY;
	return s->alloc_mode;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_alloc_mode);

/**
 * vgpu_sched_fini() - tear down a detached scheduler.
 * @s: the scheduler; no job may be active.
 */
void vgpu_sched_fini(struct vgpu_sched *s)
{
	WARN_ON(s->attached);
	vgpu_sched_release_policy(s);
	vgpu_kcb_fini(&s->kcb);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_fini);

/**
 * vgpu_sched_attach() - a backend arrived: build the SMST for its hardware.
 * @s: the scheduler, detached.
 * @desc: the validated hardware description.
 * @sink: where commands go.
 * @sink_ctx: argument of the @sink ops.
 *
 * Caller holds the device lock.
 *
 * Return: 0, -EBUSY when already attached, or an error of vgpu_smst_init().
 */
int vgpu_sched_attach(struct vgpu_sched *s,
		      const struct vgpu_device_desc *desc,
		      const struct vgpu_cmd_sink_ops *sink, void *sink_ctx)
{
	int ret;

	lockdep_assert_held(s->lock);
	if (s->attached)
		return -EBUSY;
	ret = vgpu_smst_init(&s->smst, desc);
	if (ret)
		return ret;
	s->sm_owner = kcalloc(desc->num_sms, sizeof(*s->sm_owner), GFP_KERNEL);
	s->preempt = kcalloc(desc->num_sms, sizeof(*s->preempt), GFP_KERNEL);
	/* Slots beyond max_tbs_per_sm hold blocks under Virtual Thread. */
	s->slots = kcalloc(desc->num_sms * VGPU_SMST_MAX_SLOTS,
			   sizeof(*s->slots), GFP_KERNEL);
	if (!s->sm_owner || !s->preempt || !s->slots || vgpu_tlp_attach(s)) {
		vgpu_tlp_detach(s);
		kfree(s->sm_owner);
		kfree(s->preempt);
		kfree(s->slots);
		s->sm_owner = NULL;
		s->preempt = NULL;
		s->slots = NULL;
		vgpu_smst_fini(&s->smst);
		return -ENOMEM;
	}
	s->smst.mode = vgpu_sched_alloc_mode(s);
	/* A new daemon and SMST start without Virtual Thread. */
	s->virtual_thread_pending = s->virtual_thread != VGPU_VT_OFF;
	s->desc = *desc;
	s->sink = sink;
	s->sink_ctx = sink_ctx;
	s->wake_at = 0;
	s->rr_next = 0;
	s->ring_full = false;
	s->cmd_seq = 0;
	s->stress_next = 0;
	s->stress_rng = 0x9e3779b97f4a7c15ull;	/* same seed every attach */
	s->attached = true;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_attach);

static bool vgpu_sched_emit(struct vgpu_sched *s, const struct vgpu_cmd *cmd)
{
	if (!s->sink || !s->sink->space(s->sink_ctx))
		return false;
	s->sink->emit(s->sink_ctx, cmd);
	s->emitted++;
	s->cmd_seq++;
	return true;
}

static u32 vgpu_sched_space(struct vgpu_sched *s)
{
	return s->sink ? s->sink->space(s->sink_ctx) : 0;
}

/**
 * vgpu_sched_emit_reserved() - queue a command, keeping the ring's reserve.
 * @s: the scheduler.
 * @cmd: the command.
 *
 * For commands a pass may leave to the next one: the last
 * %VGPU_SCHED_RING_RESERVE entries stay free for the WAKE_AT that brings
 * the daemon back. Caller holds the device lock.
 *
 * Return: false, queuing nothing, when the ring has no room beyond them.
 */
bool vgpu_sched_emit_reserved(struct vgpu_sched *s, const struct vgpu_cmd *cmd)
{
	if (vgpu_sched_space(s) < 1 + VGPU_SCHED_RING_RESERVE)
		return false;
	return vgpu_sched_emit(s, cmd);
}

/*
 * End an active job: issue JOB_END when the daemon knows the job (and
 * @emit), mark it done, let its owner signal the fence and drop resources,
 * and retire it from the KCB. Returns false, changing nothing, when the
 * command ring has no room for the JOB_END.
 */
static bool vgpu_sched_end(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			   bool emit)
{
	if (emit && e->begun) {
		struct vgpu_cmd cmd = { .op = VGPU_CMD_JOB_END, .job = e->id };

		if (vgpu_sched_space(s) < 1 + VGPU_SCHED_RING_RESERVE)
			return false;
		vgpu_sched_emit(s, &cmd);
	}
	e->state = VGPU_KCB_DONE;
	e->end_cycle = s->cycle;
	/* Contexts of TBs that will not run again (the job failed). */
	if (e->nr_requeued) {
		struct vgpu_kcb_tb *t;

		list_for_each_entry(t, &e->requeue, link) {
			vgpu_sched_ctx_free(s, t->ctx);
			t->ctx = NULL;
		}
	}
	if (s->sm_owner) {
		u32 sm;

		for (sm = 0; sm < s->smst.num_sms; sm++)
			if (s->sm_owner[sm] == e)
				s->sm_owner[sm] = NULL;
	}
	trace_vgpu_job_end(e->id, e->error, e->tbs_done, e->start_cycle,
			   e->end_cycle);
	dev_dbg(s->dev, "job %u ended at cycle %llu, error %d, %u/%u TBs\n",
		e->id, s->cycle, e->error, e->tbs_done, e->num_tbs);
	e->ops->done(e);
	vgpu_kcb_retire(&s->kcb, e);
	vgpu_sched_fresh_start(s, emit);
	return true;
}

/**
 * vgpu_sched_fresh_start() - start afresh if nothing uses the device.
 * @s: the scheduler.
 * @tell_daemon: issue %VGPU_CMD_RESET (not while detaching).
 *
 * With no job in the KCB and no render-node file open, the device forgets
 * where its round robin stood and what its policies learnt of the kernels
 * (preemption latencies, the partition policy's state), and tells the
 * daemon to forget what its
 * caches, row buffers and pipelines hold (%VGPU_CMD_RESET), so that a
 * program run on an unused device takes the same cycles every time
 * (Documentation/design.rst, "Time and determinism"). Between the launches of
 * programs that keep the device open, that state carries over, as it does
 * on a real GPU. Caller holds the device lock; the caller publishes.
 */
void vgpu_sched_fresh_start(struct vgpu_sched *s, bool tell_daemon)
{
	struct vgpu_cmd cmd = { .op = VGPU_CMD_RESET };

	lockdep_assert_held(s->lock);
	if (!list_empty(&s->kcb.active) || s->users)
		return;
	s->rr_next = 0;
	/*
	 * What was learned of the kernels - their preemptions, the partition
	 * policy's history - goes with the caches, so that what an unused
	 * device does next does not depend on what it did before.
	 */
	memset(s->latency_scales, 0, sizeof(s->latency_scales));
	s->latency_scale_next = 0;
	vgpu_sched_release_policy(s);
	if (s->attached && tell_daemon)
		vgpu_sched_emit(s, &cmd);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_fresh_start);

/* Issues command @op with @flags if *@pending; false when the ring is full. */
static bool vgpu_sched_emit_setting(struct vgpu_sched *s, u16 op, u16 flags,
				    bool *pending)
{
	struct vgpu_cmd cmd = {
		.op = op,
		.flags = flags,
	};

	if (!*pending || !s->attached)
		return true;
	if (!vgpu_sched_emit(s, &cmd))
		return false;
	*pending = false;
	return true;
}

/*
 * vgpu_sched_emit_virtual_thread() - Issues %VGPU_CMD_SET_VIRTUAL_THREAD
 * if it is due and no TB is placed, and switches the SMST with it, so
 * that every TB runs under the mode it was dispatched in; false when the
 * ring is full.
 */
static bool vgpu_sched_emit_virtual_thread(struct vgpu_sched *s)
{
	struct vgpu_cmd cmd = {
		.op = VGPU_CMD_SET_VIRTUAL_THREAD,
		.flags = s->virtual_thread,
	};
	u32 sm;

	if (!s->virtual_thread_pending || !s->attached)
		return true;
	for (sm = 0; sm < s->smst.num_sms; sm++)
		if (!vgpu_smst_sm_empty(&s->smst, sm))
			return true;
	if (!vgpu_sched_emit(s, &cmd))
		return false;
	WARN_ON(vgpu_smst_set_vt(&s->smst, s->virtual_thread));
	s->virtual_thread_pending = false;
	return true;
}

/*
 * Issues %VGPU_CMD_SET_KERNEL_SCHED, %VGPU_CMD_SET_WARP_SCHED,
 * %VGPU_CMD_SET_SUBCORE_ASSIGN and %VGPU_CMD_SET_VIRTUAL_THREAD where due,
 * in that order; false when the ring is full.
 */
static bool vgpu_sched_emit_kernel_sched(struct vgpu_sched *s)
{
	return vgpu_sched_emit_virtual_thread(s) &&
	       vgpu_sched_emit_setting(s, VGPU_CMD_SET_KERNEL_SCHED,
				       s->kernel_sched,
				       &s->kernel_sched_pending) &&
	       vgpu_sched_emit_setting(s, VGPU_CMD_SET_WARP_SCHED,
				       s->warp_sched, &s->warp_sched_pending) &&
	       vgpu_sched_emit_setting(s, VGPU_CMD_SET_SUBCORE_ASSIGN,
				       s->subcore_assign,
				       &s->subcore_assign_pending);
}

/* Sends what is pending to an attached daemon and publishes it. */
static void vgpu_sched_send_settings(struct vgpu_sched *s)
{
	if (!s->attached)
		return;
	vgpu_sched_emit_kernel_sched(s);
	s->sink->publish(s->sink_ctx);
}

/**
 * vgpu_sched_send_kernel_sched() - tell the daemon the warp scheduling.
 * @s: the scheduler.
 *
 * Issues %VGPU_CMD_SET_KERNEL_SCHED with &vgpu_sched.kernel_sched, then
 * %VGPU_CMD_SET_WARP_SCHED and %VGPU_CMD_SET_SUBCORE_ASSIGN where those are
 * not the daemon's configured ones, and publishes them; the daemon's warp
 * schedulers use them from the cycle at which it applies the commands. The
 * backend calls it when a daemon attaches, so that a new daemon starts
 * with the settings sysfs shows. With the command ring full the next
 * scheduling pass sends them. Caller holds the device lock.
 */
void vgpu_sched_send_kernel_sched(struct vgpu_sched *s)
{
	lockdep_assert_held(s->lock);
	s->kernel_sched_pending = true;
	if (s->warp_sched != VGPU_WARP_SCHED_CONFIG)
		s->warp_sched_pending = true;
	if (s->subcore_assign != VGPU_SUBCORE_ASSIGN_CONFIG)
		s->subcore_assign_pending = true;
	vgpu_sched_send_settings(s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_send_kernel_sched);

/**
 * vgpu_sched_set_kernel_sched() - choose the kernel-aware warp scheduling.
 * @s: the scheduler.
 * @mode: &enum vgpu_kernel_sched, below %VGPU_KSCHED_COUNT.
 *
 * Kept across re-attach; sent to an attached daemon at once when it
 * changes (vgpu_sched_send_kernel_sched()). Caller holds the device lock.
 */
void vgpu_sched_set_kernel_sched(struct vgpu_sched *s,
				 enum vgpu_kernel_sched mode)
{
	lockdep_assert_held(s->lock);
	if (s->kernel_sched == mode)
		return;
	s->kernel_sched = mode;
	s->kernel_sched_pending = true;
	vgpu_sched_send_settings(s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_kernel_sched);

/**
 * vgpu_sched_set_warp_sched() - choose the SMs' warp scheduler.
 * @s: the scheduler.
 * @mode: &enum vgpu_warp_sched, below %VGPU_WARP_SCHED_COUNT.
 *
 * Kept across re-attach; sent to an attached daemon at once when it
 * changes, which applies it from the cycle it takes the command at.
 * Caller holds the device lock.
 */
void vgpu_sched_set_warp_sched(struct vgpu_sched *s, enum vgpu_warp_sched mode)
{
	lockdep_assert_held(s->lock);
	if (s->warp_sched == mode)
		return;
	s->warp_sched = mode;
	s->warp_sched_pending = true;
	vgpu_sched_send_settings(s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_warp_sched);

/**
 * vgpu_sched_set_subcore_assign() - choose the sub-core assignment of warps.
 * @s: the scheduler.
 * @mode: &enum vgpu_subcore_assign_mode, below %VGPU_SUBCORE_ASSIGN_COUNT.
 *
 * As vgpu_sched_set_warp_sched(); the daemon assigns the warps it
 * dispatches from then on by @mode. Caller holds the device lock.
 */
void vgpu_sched_set_subcore_assign(struct vgpu_sched *s,
				   enum vgpu_subcore_assign_mode mode)
{
	lockdep_assert_held(s->lock);
	if (s->subcore_assign == mode)
		return;
	s->subcore_assign = mode;
	s->subcore_assign_pending = true;
	vgpu_sched_send_settings(s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_subcore_assign);

/**
 * vgpu_sched_set_virtual_thread() - choose the Virtual Thread mode.
 * @s: the scheduler.
 * @mode: &enum vgpu_virtual_thread, below %VGPU_VT_COUNT.
 *
 * Kept across re-attach. The daemon and the SMST take it together once no
 * TB is placed (at once on an idle device); TBs dispatched until then
 * run under the previous mode. Caller holds the device lock.
 */
void vgpu_sched_set_virtual_thread(struct vgpu_sched *s,
				   enum vgpu_virtual_thread mode)
{
	lockdep_assert_held(s->lock);
	if (s->virtual_thread == mode && !s->virtual_thread_pending)
		return;
	s->virtual_thread = mode;
	s->virtual_thread_pending = s->attached && s->smst.vt != mode;
	vgpu_sched_send_settings(s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_virtual_thread);

/**
 * vgpu_sched_detach() - the backend went away.
 * @s: the scheduler.
 * @error: error for every job that has not finished (-EIO).
 *
 * Jobs whose TBs all finished end successfully; all others fail with
 * @error. No command is issued. The SMST is dropped; the KCB is left empty.
 * Caller holds the device lock.
 */
void vgpu_sched_detach(struct vgpu_sched *s, int error)
{
	struct vgpu_kcb_entry *e, *tmp;

	lockdep_assert_held(s->lock);
	if (!s->attached)
		return;
	list_for_each_entry_safe(e, tmp, &s->kcb.active, link) {
		if (!e->error && !vgpu_kcb_entry_can_end(e))
			e->error = error;
		e->tbs_running = 0;
		vgpu_sched_end(s, e, false);
	}
	if (s->slots) {
		u32 i;

		for (i = 0; i < s->smst.num_sms * VGPU_SMST_MAX_SLOTS; i++) {
			vgpu_sched_ctx_free(s, s->slots[i].pending);
			vgpu_sched_ctx_free(s, s->slots[i].restored);
		}
	}
	kfree(s->slots);
	s->slots = NULL;
	/* Policy state is sized for this hardware. */
	vgpu_sched_release_policy(s);
	vgpu_tlp_detach(s);
	vgpu_smst_fini(&s->smst);
	kfree(s->sm_owner);
	s->sm_owner = NULL;
	kfree(s->preempt);
	s->preempt = NULL;
	s->attached = false;
	s->sink = NULL;
	s->sink_ctx = NULL;
	s->wake_at = 0;
	s->ring_full = false;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_detach);

/**
 * vgpu_sched_set_cycle() - the daemon reached a cycle.
 * @s: the scheduler.
 * @cycle: the new current cycle.
 *
 * Return: 0, or -EINVAL when @cycle is before the current cycle.
 */
int vgpu_sched_set_cycle(struct vgpu_sched *s, u64 cycle)
{
	lockdep_assert_held(s->lock);
	if (cycle < s->cycle)
		return -EINVAL;
	s->cycle = cycle;
	if (s->wake_at && cycle >= s->wake_at)
		s->wake_at = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_cycle);

/**
 * vgpu_sched_applied() - the daemon has consumed commands.
 * @s: the scheduler.
 * @consumed: the daemon's consumer index of the command ring (commands
 *	consumed since attach, free running).
 * @cycle: the cycle at which it applied them: the cycle of the previous
 *	kick (step 1 of the lock-step protocol in vgpu_backend.h).
 *
 * Fixes the start cycle of every job whose JOB_BEGIN is among them: a pass
 * that runs while the daemon simulates is applied at the daemon's next
 * turn, not at the cycle the driver was at. An index beyond what was issued
 * is clamped. Caller holds the device lock.
 */
void vgpu_sched_applied(struct vgpu_sched *s, u32 consumed, u64 cycle)
{
	struct vgpu_kcb_entry *e;

	lockdep_assert_held(s->lock);
	if ((s32)(consumed - s->cmd_seq) > 0)
		consumed = s->cmd_seq;
	list_for_each_entry(e, &s->kcb.active, link) {
		if (e->begun && !e->started &&
		    (s32)(consumed - e->begin_seq) >= 0) {
			e->start_cycle = cycle;
			e->started = true;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_applied);

/**
 * vgpu_sched_kick() - the command processor's half of a lock-step turn.
 * @s: the scheduler.
 * @cycle: the cycle the daemon has simulated to.
 * @consumed: the daemon's command consumer index (what it has applied).
 * @next_evt: hands over the turn's events one by one, in the daemon's
 *	order; false when there is none left.
 * @ctx: argument of @next_evt.
 *
 * Time moves to @cycle, the launches whose JOB_BEGIN the daemon has
 * applied get their start cycle, every event is handled, and the scheduler
 * takes the decisions of @cycle (uapi vgpu_backend.h, "lock-step"). The
 * daemon waits meanwhile, so its thread-block status table is current.
 * Device lock held.
 *
 * Return: 0, or -EINVAL when @cycle is before the current cycle (nothing
 * changes then).
 */
int vgpu_sched_kick(struct vgpu_sched *s, u64 cycle, u32 consumed,
		    bool (*next_evt)(void *ctx, struct vgpu_evt *evt),
		    void *ctx)
{
	u64 prev = s->cycle;
	struct vgpu_evt evt;
	int ret;

	ret = vgpu_sched_set_cycle(s, cycle);
	if (ret)
		return ret;
	/* The commands consumed since the last turn were applied at its cycle. */
	vgpu_sched_applied(s, consumed, prev);
	s->fresh_status = true;
	while (next_evt(ctx, &evt)) {
		if (evt.cycle > s->cycle)
			dev_dbg(s->dev, "event of cycle %llu after the turn's %llu\n",
				evt.cycle, s->cycle);
		vgpu_sched_event(s, &evt);
	}
	vgpu_sched_run(s);
	s->fresh_status = false;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_kick);

static int vgpu_sched_tb_done(struct vgpu_sched *s, const struct vgpu_evt *evt)
{
	const struct vgpu_smst_slot *sl;
	struct vgpu_kcb_entry *e;
	int status = evt->status;

	e = vgpu_kcb_find_active(&s->kcb, evt->job);
	if (!e) {
		dev_dbg(s->dev, "TB_DONE for unknown job %u ignored\n",
			evt->job);
		return -ENOENT;
	}
	if (evt->sm >= s->smst.num_sms || evt->slot >= s->smst.max_tbs) {
		dev_dbg(s->dev, "TB_DONE job %u: SM %u slot %u out of range, ignored\n",
			evt->job, evt->sm, evt->slot);
		return -EINVAL;
	}
	sl = vgpu_smst_slot(&s->smst, evt->sm, evt->slot);
	if (!sl || sl->job != e || sl->tb != evt->tb) {
		dev_dbg(s->dev, "TB_DONE job %u TB %u: SM %u slot %u does not run it, ignored\n",
			evt->job, evt->tb, evt->sm, evt->slot);
		return -EINVAL;
	}
	if (vgpu_smst_free(&s->smst, evt->sm, evt->slot))
		return -EINVAL;
	vgpu_sched_slot_done(s, evt->sm, evt->slot);

	e->tbs_running--;
	e->warp_insts += evt->warp_insts;
	e->tb_cycles += evt->tb_cycles;
	trace_vgpu_tb_done(e->id, evt->tb, evt->sm, status, evt->tb_cycles,
			   s->cycle);
	if (s->policy->tb_done)
		s->policy->tb_done(s, e, evt);
	if (!status) {
		e->tbs_done++;
		e->max_tb_insts = max(e->max_tb_insts, evt->warp_insts);
		return 0;
	}
	if (status > 0 || status < -MAX_ERRNO) {
		dev_dbg(s->dev, "TB_DONE job %u: bad status %d, taken as -EIO\n",
			evt->job, status);
		status = -EIO;
	}
	if (!e->error) {
		dev_dbg(s->dev, "job %u failed: TB %u on SM %u, error %d, instruction %u, fault address %#llx\n",
			e->id, evt->tb, evt->sm, status, evt->fault_pc,
			evt->fault_addr);
		e->error = status;
		e->fault.flags = DRM_VGPU_FAULT_TB;
		e->fault.tb = evt->tb;
		if (evt->flags & VGPU_EVT_F_FAULT_PC) {
			e->fault.flags |= DRM_VGPU_FAULT_PC;
			e->fault.pc = evt->fault_pc;
		}
		if (status == -EFAULT) {
			e->fault.flags |= DRM_VGPU_FAULT_ADDR;
			e->fault.addr = evt->fault_addr;
		}
	}
	return 0;
}

/**
 * vgpu_sched_event() - consume one event of the daemon.
 * @s: the scheduler.
 * @evt: the event, a private copy.
 *
 * A TB_DONE frees the TB's slot and ranges and accounts the TB to its job;
 * a negative status fails the job (its remaining TBs are not dispatched).
 * Events naming an unknown job, SM or slot, or a slot that does not run
 * that TB, are logged at debug level and ignored. Call vgpu_sched_run()
 * after the last event of a kick. Caller holds the device lock.
 *
 * Return: 0 when the event was used, else a negative errno saying why it
 * was ignored.
 */
int vgpu_sched_event(struct vgpu_sched *s, const struct vgpu_evt *evt)
{
	lockdep_assert_held(s->lock);
	if (!s->attached)
		return -ENODEV;
	switch (evt->type) {
	case VGPU_EVT_NOP:
	case VGPU_EVT_WAKE:
		return 0;
	case VGPU_EVT_TB_DONE:
		return vgpu_sched_tb_done(s, evt);
	case VGPU_EVT_PREEMPTED:
		return vgpu_sched_preempted(s, evt);
	case VGPU_EVT_SM_SAMPLE:
		return vgpu_tlp_sample(s, evt);
	default:
		dev_dbg(s->dev, "unknown event type %u ignored\n", evt->type);
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_event);

/**
 * vgpu_sched_room() - whether the command ring can take one more dispatch.
 * @s: the scheduler.
 * @e: the job whose TB would be dispatched (JOB_BEGIN may be needed).
 *
 * Return: true when a DISPATCH (plus JOB_BEGIN) fits and the reserve stays
 * free.
 */
bool vgpu_sched_room(struct vgpu_sched *s, const struct vgpu_kcb_entry *e)
{
	u32 need = (e->begun ? 1 : 2) + VGPU_SCHED_RING_RESERVE;

	return vgpu_sched_space(s) >= need;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_room);

/**
 * vgpu_sched_find_sm() - first SM, from the round-robin start, with room
 * for one TB of a job.
 * @s: the scheduler.
 * @e: the job.
 *
 * Return: the SM index, or -ENOSPC when no SM can take the TB now.
 */
int vgpu_sched_find_sm(struct vgpu_sched *s, const struct vgpu_kcb_entry *e)
{
	u32 n = s->smst.num_sms, i;

	for (i = 0; i < n; i++) {
		u32 sm = (s->rr_next + i) % n;

		if (!vgpu_tlp_may_start(s, e, sm))
			continue;
		if (vgpu_smst_can_fit_job(&s->smst, sm, &e->res, e))
			return sm;
		vgpu_smst_note_refusal(&s->smst, sm, &e->res);
	}
	return -ENOSPC;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_find_sm);

/**
 * vgpu_sched_dispatch() - run the next TB of a job on an SM.
 * @s: the scheduler.
 * @e: an active job with TBs left (vgpu_kcb_entry_wants_tbs()).
 * @sm: SM with room (vgpu_sched_find_sm()).
 *
 * Allocates the TB in the SMST, issues JOB_BEGIN first if this is the job's
 * first TB, then DISPATCH, and moves the round-robin start past @sm.
 *
 * Return: 0; -EAGAIN when the command ring is full, -ENOSPC when the TB
 * does not fit on @sm, -EINVAL when the job has nothing to dispatch.
 */
int vgpu_sched_dispatch(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			u32 sm)
{
	struct vgpu_smst_place place;
	struct vgpu_cmd cmd = {};
	void *ctx;
	u32 tb;
	int ret;

	lockdep_assert_held(s->lock);
	if (!e->active || !vgpu_kcb_entry_wants_tbs(e))
		return -EINVAL;
	if (!vgpu_sched_room(s, e))
		return -EAGAIN;
	tb = vgpu_kcb_next_tb(e);
	ctx = vgpu_kcb_next_ctx(e);
	ret = vgpu_smst_alloc(&s->smst, sm, &e->res, e, tb, &place);
	if (ret < 0)
		return ret;

	if (!e->begun) {
		struct vgpu_cmd begin = {
			.op = VGPU_CMD_JOB_BEGIN,
			.job = e->id,
			.addr = e->desc_addr,
		};

		vgpu_sched_emit(s, &begin);
		e->begun = true;
		e->begin_seq = s->cmd_seq;
		e->state = VGPU_KCB_RUNNING;
		e->start_cycle = s->cycle;	/* until vgpu_sched_applied() */
	}
	cmd.op = VGPU_CMD_DISPATCH;
	cmd.job = e->id;
	cmd.tb = tb;
	cmd.sm = sm;
	cmd.slot = place.slot;
	cmd.reg_base = place.reg_base;
	cmd.shared_base = place.shared_base;
	if (ctx) {
		/* A context switch saved it: resume where it stopped. */
		cmd.flags = VGPU_DISPATCH_RESTORE;
		cmd.addr = vgpu_sched_ctx_addr(ctx);
		vgpu_sched_slot_restored(s, sm, place.slot, ctx);
	}
	vgpu_sched_emit(s, &cmd);
	trace_vgpu_dispatch(e->id, tb, sm, place.slot, s->cycle);

	if (s->slots)
		vgpu_sched_slot_of(s, sm, place.slot)->reissued = e->nr_requeued;
	vgpu_tlp_dispatched(s, e, sm, place.slot);
	vgpu_kcb_take_tb(e);
	e->tbs_running++;
	s->rr_next = (sm + 1) % s->smst.num_sms;
	vgpu_sched_tb_started(s, e);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_dispatch);

/**
 * vgpu_sched_candidate() - whether a job takes part in a scheduling
 * decision.
 * @s: the scheduler.
 * @e: an active job.
 *
 * Return: true when it has arrived and has TBs to issue.
 */
bool vgpu_sched_candidate(const struct vgpu_sched *s,
			  const struct vgpu_kcb_entry *e)
{
	return vgpu_kcb_entry_wants_tbs(e) && e->arrival <= s->cycle;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_candidate);

/**
 * vgpu_sched_resident() - whether a job has arrived, has not failed and
 * has TBs running.
 * @s: the scheduler.
 * @e: an active job.
 *
 * Partitioning policies keep such a job in their split after its last TB
 * is dispatched, so that the SMs its TBs run on are not given away while
 * they end.
 *
 * Return: true when its TBs run and it has neither failed nor arrives
 * later.
 */
bool vgpu_sched_resident(const struct vgpu_sched *s,
			 const struct vgpu_kcb_entry *e)
{
	return e->tbs_running && e->arrival <= s->cycle && !e->error;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_resident);

/**
 * vgpu_sched_sm_quota() - the most TBs of a kernel the plan lets run on an
 * SM.
 * @s: the scheduler.
 * @e: the kernel.
 * @sm: the SM.
 *
 * The policy's &vgpu_partition_ops.sm_quota where it has one, else
 * &vgpu_kcb_entry.quota (0 there meaning no limit).
 *
 * Return: the quota, %VGPU_SCHED_NO_QUOTA for no limit but room.
 */
u32 vgpu_sched_sm_quota(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e, u32 sm)
{
	if (s->policy && s->policy->sm_quota)
		return s->policy->sm_quota(s, e, sm);
	return e->quota ? e->quota : VGPU_SCHED_NO_QUOTA;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_sm_quota);

/* Does @sm run TBs of a kernel other than @e? */
static bool vgpu_sched_sm_runs_others(const struct vgpu_sched *s, u32 sm,
				      const struct vgpu_kcb_entry *e)
{
	const struct vgpu_sm *st = &s->smst.sms[sm];
	u32 k;

	for (k = 0; k < st->nr_kernels; k++)
		if (st->kernels[k].job != e)
			return true;
	return false;
}

/**
 * vgpu_sched_sm_owned_by() - whether the plan gives @sm to @e alone and
 * the SM is @e's to use.
 * @s: the scheduler.
 * @sm: the SM.
 * @e: the kernel.
 *
 * An SM the plan maps to a kernel is that kernel's only once the other
 * kernels' TBs have left it: an SM is preempted whole before the new kernel
 * starts there (Chimera, Ch. IV §4.2: "when the SM finishes all the running
 * thread blocks, the SM is preempted and can be assigned to another kernel"),
 * so a drain keeps the SM's freed slots empty until its last TB ends and a
 * preemption's latency is that of its slowest TB. Unmapped SMs are shared.
 *
 * Return: true when @sm is unmapped, or mapped to @e with no TB of another
 * kernel left on it.
 */
bool vgpu_sched_sm_owned_by(const struct vgpu_sched *s, u32 sm,
			    const struct vgpu_kcb_entry *e)
{
	const struct vgpu_kcb_entry *o = s->sm_owner[sm];

	if (!o)
		return true;
	return o == e && !vgpu_sched_sm_runs_others(s, sm, e);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_sm_owned_by);

/* Whether the kernel scheduler's plan lets @e start a TB on @sm. */
static bool vgpu_sched_may_use(const struct vgpu_sched *s,
			       const struct vgpu_kcb_entry *e, u32 sm)
{
	u32 q;

	if (!vgpu_sched_sm_owned_by(s, sm, e) || !vgpu_tlp_may_start(s, e, sm))
		return false;
	q = vgpu_sched_sm_quota(s, e, sm);
	return q == VGPU_SCHED_NO_QUOTA ||
	       vgpu_smst_kernel_tbs(&s->smst, sm, e) < q;
}

/* Fill every SM the plan gives @e, from the round-robin start. */
static bool vgpu_sched_fill(struct vgpu_sched *s, struct vgpu_kcb_entry *e)
{
	u32 n = s->smst.num_sms, start = s->rr_next, i;

	for (i = 0; i < n && vgpu_kcb_entry_may_start(e); i++) {
		u32 sm = (start + i) % n;

		while (vgpu_kcb_entry_may_start(e) &&
		       vgpu_sched_may_use(s, e, sm)) {
			if (!vgpu_smst_can_fit_job(&s->smst, sm, &e->res, e)) {
				vgpu_smst_note_refusal(&s->smst, sm, &e->res);
				break;
			}
			if (!vgpu_sched_room(s, e)) {
				s->ring_full = true;
				return false;
			}
			if (WARN_ON(vgpu_sched_dispatch(s, e, sm)))
				return false;
		}
	}
	return true;
}

/**
 * vgpu_sched_tb_dispatch() - the TB scheduler of the two-level scheduler.
 * @s: the scheduler.
 *
 * Carries out the kernel scheduler's plan (Chimera, Ch. IV, Fig. 4.4): a
 * kernel starts TBs only on SMs mapped to it or to no kernel, and no more
 * than its per-SM quota on one SM. Kernels go by priority class (real-time,
 * high, normal), within a class those with preempted TBs first, then in
 * arrival order; within a kernel, preempted TBs are re-issued before new
 * ones (vgpu_kcb_next_tb()). Unlike FCFS a kernel that cannot place a TB
 * does not hold back the kernels behind it. Stops when the command ring is
 * full. Caller holds the device lock.
 */
void vgpu_sched_tb_dispatch(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;
	int prio, requeued;

	lockdep_assert_held(s->lock);
	for (prio = DRM_VGPU_PRIORITY_REALTIME; prio >= 0; prio--) {
		for (requeued = 1; requeued >= 0; requeued--) {
			list_for_each_entry(e, &s->kcb.active, link) {
				if (e->priority != prio ||
				    (requeued && !e->nr_requeued) ||
				    !vgpu_sched_candidate(s, e) || e->barred)
					continue;
				if (!vgpu_sched_fill(s, e))
					return;
			}
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_tb_dispatch);

/* Forget the previous policy's plan. */
static void vgpu_sched_clear_plan(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;

	if (s->sm_owner)
		memset(s->sm_owner, 0, s->smst.num_sms * sizeof(*s->sm_owner));
	list_for_each_entry(e, &s->kcb.active, link) {
		e->quota = 0;
		e->plan_sms = 0;
	}
}

/**
 * vgpu_sched_set_policy() - switch the partition policy.
 * @s: the scheduler.
 * @ops: a policy of vgpu_partition_policies[].
 *
 * Drops the old policy's SM mapping, quotas and state; the allocator
 * becomes 2-way while a policy that requires it is active (maestro). The
 * new policy decides at
 * the next scheduling pass (the next submission or daemon event). TBs that
 * run keep running (drain). Caller holds the device lock.
 */
void vgpu_sched_set_policy(struct vgpu_sched *s,
			   const struct vgpu_partition_ops *ops)
{
	lockdep_assert_held(s->lock);
	if (ops == s->policy)
		return;
	vgpu_sched_clear_plan(s);
	vgpu_sched_release_policy(s);
	s->policy = ops;
	if (s->attached)
		s->smst.mode = vgpu_sched_alloc_mode(s);
	s->policy_changes++;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_policy);

/**
 * vgpu_sched_set_alloc_mode() - choose the SMST range allocator.
 * @s: the scheduler.
 * @mode: &enum vgpu_smst_alloc_mode.
 *
 * Applies to ranges allocated from now on; kept across re-attach. While a
 * policy that requires 2-way allocation is active, the choice waits until
 * another policy is selected. Caller holds the device lock.
 */
void vgpu_sched_set_alloc_mode(struct vgpu_sched *s,
			       enum vgpu_smst_alloc_mode mode)
{
	lockdep_assert_held(s->lock);
	s->alloc_mode = mode;
	if (s->attached)
		s->smst.mode = vgpu_sched_alloc_mode(s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_set_alloc_mode);

/**
 * vgpu_sched_tb_progress() - how far the TB in a slot has got.
 * @s: the scheduler.
 * @sm: SM index.
 * @slot: slot on it.
 * @warp_insts: out, warp instructions it has executed.
 * @flags: out, %VGPU_TB_STATUS_* flags.
 * @start_cycle: out, the cycle it was dispatched at (may be NULL).
 *
 * From the daemon's status table as of its last KICK (exact while the
 * daemon waits in one; a dump taken meanwhile may see it mid-update).
 * Caller holds the device lock.
 *
 * Return: 0; -ENODATA when there is no table, the slot is free or the
 * daemon has not yet reported the TB now in it (with a current table: it
 * has not run); -ERANGE for a TB in a slot the table does not have (one
 * Virtual Thread holds beyond max_tbs_per_sm), which may have run for long
 * and crossed its idempotence boundary.
 */
int vgpu_sched_tb_progress(const struct vgpu_sched *s, u32 sm, u32 slot,
			   u64 *warp_insts, u32 *flags, u64 *start_cycle)
{
	const struct vgpu_smst_slot *sl;
	const struct vgpu_tb_status *ts;

	lockdep_assert_held(s->lock);
	sl = vgpu_smst_slot(&s->smst, sm, slot);
	if (!s->tb_status || !sl || !sl->job)
		return -ENODATA;
	/*
	 * The table has max_tbs_per_sm slots per SM: the blocks Virtual
	 * Thread holds beyond them are not reported.
	 */
	if (slot >= s->desc.max_tbs_per_sm)
		return -ERANGE;
	ts = &s->tb_status[sm * s->desc.max_tbs_per_sm + slot];
	if (READ_ONCE(ts->job) != sl->job->id || READ_ONCE(ts->tb) != sl->tb)
		return -ENODATA;
	*warp_insts = READ_ONCE(ts->warp_insts);
	*flags = READ_ONCE(ts->flags);
	if (start_cycle)
		*start_cycle = READ_ONCE(ts->start_cycle);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_tb_progress);

/*
 * The kernel scheduler's preemption requests (Chimera, Fig. 4.4): an SM the
 * plan maps to a kernel while other kernels' TBs still run there must be
 * preempted for it. Each pass turns the new such SMs of a kernel into one
 * request (kernel, number of SMs, latency budget) and notes, per SM, when
 * it completes - the last foreign TB has gone - or is called off. With
 * drain as the only mechanism, the TB scheduler carries a request out by
 * starting nothing else there (vgpu_sched_may_use()).
 */
static void vgpu_sched_track_preemption(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;
	u32 sm;

	for (sm = 0; sm < s->smst.num_sms; sm++) {
		struct vgpu_sched_preempt *p = &s->preempt[sm];
		const struct vgpu_kcb_entry *o = s->sm_owner[sm];
		bool others = o && vgpu_sched_sm_runs_others(s, sm, o);

		if (p->job && (!o || o->id != p->job || !others)) {
			trace_vgpu_preempt_done(sm, p->job, s->cycle - p->since,
						o && o->id == p->job);
			if (o && o->id == p->job && p->estimate != U64_MAX)
				vgpu_sched_learn_latency(s, p->victim_key,
							 p->estimate,
							 s->cycle - p->since);
			p->job = 0;
		}
		if (others && !p->job) {
			s->preempt_stats.requests++;
			p->job = o->id;
			p->since = s->cycle;
			p->fresh = true;
			vgpu_sched_preempt_sm(s, sm, o);
		}
	}
	list_for_each_entry(e, &s->kcb.active, link) {
		u32 n = 0;

		for (sm = 0; sm < s->smst.num_sms; sm++) {
			if (s->preempt[sm].fresh && s->preempt[sm].job == e->id) {
				s->preempt[sm].fresh = false;
				n++;
			}
		}
		if (n)
			trace_vgpu_preempt_request(e->id, n, e->latency_budget_us,
						   s->cycle);
	}
}

/**
 * vgpu_sched_run() - one scheduling pass.
 * @s: the scheduler.
 *
 * Fails the jobs past their time limit and flushes the blocks of failed
 * jobs off the SMs (vgpu_sched_cancel.c), ends the jobs that are over
 * (JOB_END, fence) and lets in the jobs whose in-fences have signalled
 * (vgpu_sched_deps.c) until no more end, lets the policy's kernel
 * scheduler plan and its TB scheduler dispatch (two-level, Ch. IV
 * Fig. 4.4), gives issue priority to the TBs another kernel waits for
 * (vgpu_sched_send_priorities()), then asks for a wake-up: at the earliest
 * arrival cycle of a job that is waiting for its not-before cycle, at
 * the next cycle when the pass stopped on a full command ring (the next
 * kick continues), and, while blocks run, at the next time limit or one
 * sync quantum later, whichever comes first. Finally
 * publishes the pass's commands to the daemon in one go. Caller holds the
 * device lock. Does nothing while detached.
 */
void vgpu_sched_run(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e, *tmp;
	u64 want = 0, deadline, wake;
	bool ended;

	lockdep_assert_held(s->lock);
	if (!s->attached)
		return;

	s->ring_full = false;
	if (!vgpu_sched_emit_kernel_sched(s))
		s->ring_full = true;
	deadline = vgpu_sched_check_timeouts(s);
	if (!vgpu_sched_flush_failed(s))
		s->ring_full = true;
	/*
	 * A job's end signals its fence, which may unblock (or fail) a job
	 * that waits for it, anywhere in the list: go round again until no
	 * job ends, so that a dependent job starts, or fails, at the cycle
	 * its dependency ended (vgpu_sched_deps.c).
	 */
	do {
		ended = false;
		list_for_each_entry_safe(e, tmp, &s->kcb.active, link) {
			vgpu_sched_unblock(s, e);
			if (!vgpu_kcb_entry_can_end(e))
				continue;
			if (!vgpu_sched_end(s, e, true)) {
				s->ring_full = true;
				break;
			}
			ended = true;
		}
	} while (ended && !s->ring_full);
	/*
	 * A held clock (possibly just held by a job's end above) defers every
	 * decision to the cycle's release, when all its arrivals are known.
	 */
	if (READ_ONCE(s->held)) {
		s->sink->publish(s->sink_ctx);
		return;
	}
	vgpu_sched_stress(s);
	vgpu_sched_fair(s);
	if (!s->ring_full) {
		vgpu_tlp_ungate_idle(s);
		if (s->policy->plan) {
			s->policy->plan(s);
			vgpu_sched_track_preemption(s);
		}
		if (s->policy->dispatch)
			s->policy->dispatch(s);
		else
			vgpu_sched_tb_dispatch(s);
		if (!s->ring_full)
			vgpu_sched_send_priorities(s);
		if (!s->ring_full && !vgpu_tlp_sync(s))
			s->ring_full = true;
	}

	if (s->ring_full) {
		want = vgpu_cycle_add(s->cycle, 1);
	} else {
		/* The active list is in arrival order: the first future one. */
		list_for_each_entry(e, &s->kcb.active, link) {
			if (e->arrival > s->cycle &&
			    vgpu_kcb_entry_wants_tbs(e)) {
				want = e->arrival;
				break;
			}
		}
	}
	/* The next deadline, and the sync quantum while blocks run. */
	wake = vgpu_sched_next_wake(s, deadline);
	if (wake != U64_MAX && (!want || wake < want))
		want = wake;
	if (want && (!s->wake_at || want < s->wake_at)) {
		struct vgpu_cmd cmd = { .op = VGPU_CMD_WAKE_AT, .addr = want };

		if (vgpu_sched_emit(s, &cmd))
			s->wake_at = want;
	} else if (!want && s->wake_at) {
		/*
		 * The last block ended before the quantum's wake-up: without
		 * the cancel an idle device would jump to it, and the gap
		 * before the next launch - whose length depends on when the
		 * host submits - would drain the memory system.
		 */
		struct vgpu_cmd cmd = { .op = VGPU_CMD_WAKE_AT, .addr = 0 };

		if (vgpu_sched_emit(s, &cmd))
			s->wake_at = 0;
	}
	s->sink->publish(s->sink_ctx);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_run);
