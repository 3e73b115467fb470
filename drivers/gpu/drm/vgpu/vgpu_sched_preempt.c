// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu scheduler: carrying preemptions out (Park, dissertation, Ch. IV).
 *
 * The kernel scheduler's requests (vgpu_sched.c, vgpu_sched_track_preemption)
 * name SMs to be taken for a kernel. With the drain policy nothing else is
 * needed: the TB scheduler starts nothing else there. With the switch,
 * flush or chimera policies (vgpu_preempt_*.c) each foreign TB on such an
 * SM gets a technique chosen from the TBs' progress (the daemon's status
 * table) and the kernels' statistics, and the daemon is told with
 * VGPU_CMD_PREEMPT: a switch saves the TB's context into a save area this
 * file allocates in device memory, a flush drops the TB. When the daemon
 * reports VGPU_EVT_PREEMPTED the slot is free, and the TB goes back on its
 * kernel's preempted-TB queue, which the TB scheduler serves first; a
 * switched TB is resumed from its save area (VGPU_DISPATCH_RESTORE) on
 * whatever SM has room, a flushed one starts again.
 *
 * A stress mode preempts running TBs at pseudo-random cycles with every
 * technique the TB allows, to show that programs stay correct whatever is
 * preempted and how.
 */

#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>

#include "vgpu_preempt.h"
#include "vgpu_sched.h"
#include "vgpu_trace.h"

/**
 * struct vgpu_sched_ctx - a thread block's context save area.
 * @addr: its device address.
 * @cookie: the command sink's handle of the allocation.
 * @insts: warp instructions the TB had executed when it was saved.
 */
struct vgpu_sched_ctx {
	u64 addr;
	void *cookie;
	u64 insts;
};

/**
 * vgpu_sched_ctx_addr() - device address of a save area.
 * @ctx: the area.
 *
 * Return: its address.
 */
u64 vgpu_sched_ctx_addr(const void *ctx)
{
	return ((const struct vgpu_sched_ctx *)ctx)->addr;
}

/**
 * vgpu_sched_ctx_free() - give a save area back.
 * @s: the scheduler.
 * @ctx: the area, or NULL.
 */
void vgpu_sched_ctx_free(struct vgpu_sched *s, void *ctx)
{
	struct vgpu_sched_ctx *c = ctx;

	if (!c)
		return;
	if (s->sink && s->sink->ctx_free)
		s->sink->ctx_free(s->sink_ctx, c->cookie);
	kfree(c);
}

static struct vgpu_sched_ctx *vgpu_sched_ctx_alloc(struct vgpu_sched *s,
						   u64 bytes)
{
	struct vgpu_sched_ctx *c;

	if (!s->sink || !s->sink->ctx_alloc)
		return NULL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->cookie = s->sink->ctx_alloc(s->sink_ctx, bytes, &c->addr);
	if (!c->cookie) {
		kfree(c);
		return NULL;
	}
	return c;
}

/**
 * vgpu_sched_slot_done() - a slot's TB left it (finished or preempted).
 * @s: the scheduler.
 * @sm: SM.
 * @slot: slot.
 *
 * Frees the save area the TB was resumed from. A preemption still on its
 * way to the daemon when the TB finished crossed its end: the daemon
 * refuses it (-ENOENT, the block is gone) and writes no context, so its
 * record and save area go now rather than with that answer - which may
 * never come: the job ends in the same pass, and the daemon drops a job's
 * unreturned events with it at JOB_END. A record left waiting kept every
 * later block of the slot from being preempted or flushed: a failed job's
 * block ran on for good.
 */
void vgpu_sched_slot_done(struct vgpu_sched *s, u32 sm, u32 slot)
{
	struct vgpu_sched_slot *ss;

	if (!s->slots)
		return;
	ss = vgpu_sched_slot_of(s, sm, slot);
	vgpu_sched_ctx_free(s, ss->restored);
	ss->restored = NULL;
	vgpu_sched_ctx_free(s, ss->pending);
	ss->pending = NULL;
	ss->preempting = false;
	ss->prio = false;
	ss->reissued = false;
	ss->tlp_seq = 0;
	ss->paused = false;
}

/**
 * vgpu_sched_slot_restored() - a TB resumed from a save area was dispatched.
 * @s: the scheduler.
 * @sm: SM.
 * @slot: slot.
 * @ctx: the save area; the slot owns it until the TB leaves.
 */
void vgpu_sched_slot_restored(struct vgpu_sched *s, u32 sm, u32 slot, void *ctx)
{
	struct vgpu_sched_slot *ss = vgpu_sched_slot_of(s, sm, slot);

	vgpu_sched_ctx_free(s, ss->restored);
	ss->restored = ctx;
}

/**
 * vgpu_sched_preempt_tb() - preempt the TB in a slot.
 * @s: the scheduler.
 * @sm: SM.
 * @slot: an occupied slot.
 * @tech: %VGPU_TECH_SWITCH or %VGPU_TECH_FLUSH (drain needs no command).
 *
 * Caller holds the device lock and checked that a flush is allowed.
 *
 * Return: 0; -EBUSY when the TB is already being preempted, -ENOSPC when
 * the ring is full, -ENOMEM without a save area, -EINVAL otherwise.
 */
int vgpu_sched_preempt_tb(struct vgpu_sched *s, u32 sm, u32 slot,
			  enum vgpu_preempt_tech tech)
{
	const struct vgpu_smst_slot *sl = vgpu_smst_slot(&s->smst, sm, slot);
	struct vgpu_cmd cmd = { .op = VGPU_CMD_PREEMPT };
	struct vgpu_sched_ctx *c = NULL;
	struct vgpu_sched_slot *ss;

	lockdep_assert_held(s->lock);
	if (!s->slots || !sl || !sl->job)
		return -EINVAL;
	ss = vgpu_sched_slot_of(s, sm, slot);
	if (ss->preempting)
		return -EBUSY;
	if (s->sink->space(s->sink_ctx) < 1 + VGPU_SCHED_RING_RESERVE)
		return -ENOSPC;
	if (tech == VGPU_TECH_SWITCH) {
		c = vgpu_sched_ctx_alloc(s, sl->job->ctx_bytes);
		if (!c)
			return -ENOMEM;
		cmd.flags = s->preempt_ops && s->preempt_ops->ideal_switch ?
			    VGPU_PREEMPT_IDEAL : VGPU_PREEMPT_SWITCH;
		cmd.addr = c->addr;
	} else if (tech == VGPU_TECH_FLUSH) {
		cmd.flags = VGPU_PREEMPT_FLUSH;
	} else {
		return -EINVAL;
	}
	cmd.job = sl->job->id;
	cmd.tb = sl->tb;
	cmd.sm = sm;
	cmd.slot = slot;
	/* Room was checked above, before the save area was taken. */
	vgpu_sched_emit_reserved(s, &cmd);
	/* A failed job's blocks are flushed to end it, not preempted. */
	if (!sl->job->error)
		s->preempt_stats.tbs[tech]++;
	ss->preempting = true;
	ss->pending = c;
	ss->job = sl->job->id;
	ss->tb = sl->tb;
	trace_vgpu_preempt_tb(sl->job->id, sl->tb, sm, cmd.flags, s->cycle);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_preempt_tb);

/**
 * vgpu_sched_preempted() - the daemon's VGPU_EVT_PREEMPTED.
 * @s: the scheduler.
 * @evt: the event.
 *
 * Return: 0 when used, else why it was ignored.
 */
int vgpu_sched_preempted(struct vgpu_sched *s, const struct vgpu_evt *evt)
{
	const struct vgpu_smst_slot *sl;
	struct vgpu_sched_slot *ss;
	struct vgpu_kcb_entry *e;
	void *ctx;

	if (!s->slots || evt->sm >= s->smst.num_sms ||
	    evt->slot >= s->smst.max_tbs) {
		dev_dbg(s->dev, "PREEMPTED: SM %u slot %u out of range, ignored\n",
			evt->sm, evt->slot);
		return -EINVAL;
	}
	ss = vgpu_sched_slot_of(s, evt->sm, evt->slot);
	/*
	 * -EBUSY refuses a second PREEMPT of a block already being switched:
	 * the first one's answer is still to come and keeps the record.
	 */
	if (evt->status == -EBUSY)
		return 0;
	if (!ss->preempting || ss->job != evt->job || ss->tb != evt->tb) {
		dev_dbg(s->dev, "PREEMPTED job %u TB %u: no such preemption, ignored\n",
			evt->job, evt->tb);
		return -EINVAL;
	}
	ctx = ss->pending;
	ss->pending = NULL;
	ss->preempting = false;
	sl = vgpu_smst_slot(&s->smst, evt->sm, evt->slot);
	e = vgpu_kcb_find_active(&s->kcb, evt->job);
	if (evt->status || !e || !sl || sl->job != e || sl->tb != evt->tb) {
		/* The TB finished before the command reached it. */
		vgpu_sched_ctx_free(s, ctx);
		return 0;
	}
	if (vgpu_smst_free(&s->smst, evt->sm, evt->slot)) {
		vgpu_sched_ctx_free(s, ctx);
		return -EINVAL;
	}
	vgpu_sched_slot_done(s, evt->sm, evt->slot);
	e->tbs_running--;
	if (e->error) {
		/* Flushed to end it (vgpu_sched_cancel.c): it will not run again. */
		vgpu_sched_ctx_free(s, ctx);
		trace_vgpu_preempt_tb_done(e->id, evt->tb, evt->sm, evt->flags,
					   evt->tb_cycles, evt->warp_insts);
		return 0;
	}
	e->preempted++;
	if (evt->flags == VGPU_PREEMPT_FLUSH) {
		e->lost_insts += evt->warp_insts;
		s->preempt_stats.lost_insts += evt->warp_insts;
	}
	trace_vgpu_preempt_tb_done(e->id, evt->tb, evt->sm, evt->flags,
				   evt->tb_cycles, evt->warp_insts);
	if (ctx)
		((struct vgpu_sched_ctx *)ctx)->insts = evt->warp_insts;
	if (vgpu_kcb_requeue_tb_ctx(e, evt->tb, ctx)) {
		/* Without a record the TB cannot run again: fail its job. */
		vgpu_sched_ctx_free(s, ctx);
		if (!e->error)
			e->error = -ENOMEM;
	}
	return 0;
}

/* Per-TB statistics of one slot for the cost estimates (§4.3.2). */
static void vgpu_sched_tb_stats(struct vgpu_sched *s, u32 sm, u32 slot,
				struct vgpu_preempt_tb *t)
{
	const struct vgpu_smst_slot *sl = vgpu_smst_slot(&s->smst, sm, slot);
	u64 insts, start;
	u32 flags;
	int ret;

	memset(t, 0, sizeof(*t));
	t->ctx_bytes = sl->job->ctx_bytes;
	t->kernel_nonidem = !sl->job->idempotent;
	if (!s->fresh_status && !READ_ONCE(s->held)) {
		/*
		 * The daemon is simulating: the table may be behind. Progress
		 * unknown, and the TB may have crossed its boundary since.
		 */
		t->crossed = true;
		return;
	}
	ret = vgpu_sched_tb_progress(s, sm, slot, &insts, &flags, &start);
	if (ret == -ERANGE) {
		/* Beyond the table (Virtual Thread): it may have crossed. */
		t->crossed = true;
		return;
	}
	if (ret) {
		/* Dispatched since the daemon's last report: just started. */
		t->known = true;
		return;
	}
	t->known = true;
	t->insts = insts;
	/* Its own CPI so far (§4.3.2 per-TB cycles), from its dispatch. */
	t->cycles = s->cycle > start ? s->cycle - start : 0;
	t->crossed = flags & VGPU_TB_STATUS_CROSSED_BOUNDARY;
}

/**
 * vgpu_sched_latency_scale() - how much longer than estimated a kernel's
 * preemptions have taken.
 * @s: the scheduler.
 * @key: the kernel's &vgpu_kcb_entry.kernel_key.
 *
 * Return: the scale, fixed point, or 0 (as estimated) when none was
 * learned or &vgpu_sched.latency_feedback is off.
 */
u32 vgpu_sched_latency_scale(const struct vgpu_sched *s, u64 key)
{
	u32 i;

	if (!s->latency_feedback || !key)
		return 0;
	for (i = 0; i < VGPU_SCHED_LATENCY_SCALES; i++)
		if (s->latency_scales[i].key == key)
			return s->latency_scales[i].scale_fp;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_latency_scale);

/**
 * vgpu_sched_learn_latency() - an SM preempted for another kernel is free.
 * @s: the scheduler.
 * @key: &vgpu_kcb_entry.kernel_key of the kernel whose plan there was
 *	the longest.
 * @estimate: that plan's latency, in cycles, as it was planned.
 * @actual: the cycles from the request to the free SM.
 *
 * §4.4.1 traces Chimera's misses to drains that take longer than
 * estimated; in the cycle model the TBs' in-flight memory operations and
 * the DRAM traffic of the other SMs' preemptions lengthen switches and
 * drains alike, by an amount that depends on the kernel. So the ratio
 * actual / estimate is remembered per kernel: a longer one replaces the
 * scale at once (a deadline is hard), a shorter one pulls it down by an
 * eighth of the difference; it stays between 1.0 and
 * %VGPU_LATENCY_SCALE_MAX. Estimates under %VGPU_LATENCY_LEARN_MIN
 * cycles (flushes) teach nothing. Caller holds the device lock.
 */
void vgpu_sched_learn_latency(struct vgpu_sched *s, u64 key, u64 estimate,
			      u64 actual)
{
	struct vgpu_sched_latency_scale *ls = NULL;
	u64 obs;
	u32 i;

	if (!key || estimate < VGPU_LATENCY_LEARN_MIN || estimate >> 40)
		return;
	obs = div64_u64(min(actual, estimate * 8) << VGPU_PREEMPT_FP_SHIFT,
			estimate);
	obs = clamp_t(u64, obs, VGPU_PREEMPT_FP_ONE, VGPU_LATENCY_SCALE_MAX);
	for (i = 0; i < VGPU_SCHED_LATENCY_SCALES && !ls; i++)
		if (s->latency_scales[i].key == key)
			ls = &s->latency_scales[i];
	if (!ls) {
		ls = &s->latency_scales[s->latency_scale_next];
		s->latency_scale_next = (s->latency_scale_next + 1) %
					VGPU_SCHED_LATENCY_SCALES;
		ls->key = key;
		ls->scale_fp = obs;
		return;
	}
	if (obs >= ls->scale_fp)
		ls->scale_fp = obs;
	else
		ls->scale_fp -= (ls->scale_fp - obs) / 8;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_learn_latency);

/* The kernel's statistics (§4.3.2), from its finished TBs. */
static void vgpu_sched_kernel_stats(const struct vgpu_sched *s,
				    const struct vgpu_kcb_entry *e,
				    struct vgpu_preempt_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->latency_scale_fp = vgpu_sched_latency_scale(s, e->kernel_key);
	if (!e->tbs_done || !e->warp_insts || !e->tb_cycles)
		return;
	k->avg_tb_insts = div_u64(e->warp_insts, e->tbs_done);
	k->max_tb_insts = e->max_tb_insts;
	k->tb_cpi_fp = vgpu_preempt_cpi_fp(e->tb_cycles, e->warp_insts);
	/* An SM runs occupancy-many TBs at once, each at 1 / CPI. */
	k->sm_ipc_fp = div64_u64((e->warp_insts << VGPU_PREEMPT_FP_SHIFT) *
				 max(vgpu_smst_occupancy(&s->smst, &e->res), 1u),
				 e->tb_cycles);
	k->known = k->avg_tb_insts && k->tb_cpi_fp && k->sm_ipc_fp;
}

static u64 vgpu_sched_sm_bw_fp(const struct vgpu_sched *s)
{
	return vgpu_preempt_sm_bw_fp(s->desc.mem_bandwidth_mbs,
				     s->desc.core_clock_khz, s->smst.num_sms);
}

/* @v's TBs on @sm not already being preempted, into @slots; their number. */
static u32 vgpu_sched_kernel_slots(struct vgpu_sched *s, u32 sm,
				   const struct vgpu_kcb_entry *v, u32 *slots)
{
	u32 slot, nr = 0;

	for (slot = 0; slot < s->smst.max_tbs; slot++) {
		const struct vgpu_smst_slot *sl = vgpu_smst_slot(&s->smst, sm, slot);

		if (!sl || sl->job != v ||
		    vgpu_sched_slot_of(s, sm, slot)->preempting)
			continue;
		slots[nr++] = slot;
	}
	return nr;
}

/*
 * The cycles Algorithm 3 may plan for under a budget of @budget_us; with
 * a @deadline, the budget less &vgpu_sched.budget_margin_pct. Chimera's
 * misses come from drains that last longer than estimated; §4.4.1
 * proposes "a margin to preemption latency constraint against the
 * deadline".
 */
static u64 vgpu_sched_plan_budget(const struct vgpu_sched *s, u32 budget_us,
				  bool deadline)
{
	u64 cycles = div_u64((u64)budget_us * s->desc.core_clock_khz, 1000);

	if (!deadline)
		return cycles;
	return div_u64(cycles * (100 - s->budget_margin_pct), 100);
}

/*
 * One Algorithm 3 decision (§4.3.3) over the TBs of kernel @v in @slots of
 * @sm, for @owner's latency budget (the device's when @owner is NULL or
 * names none), into &vgpu_sched.preempt_plan: every TB gets the cheapest
 * technique that meets the budget, a switch if none does. Return: whether
 * there is a plan.
 *
 * An owner with a deadline (a latency budget of its own, or the real-time
 * class) is planned for conservatively: against the budget less the
 * margin, with @v's latencies scaled by what its past preemptions took
 * (vgpu_sched_learn_latency()). Other requests (a partition policy
 * repartitioning, a kernel of a higher class without a budget) trade
 * latency for overhead at the plain budget and estimates.
 */
static bool vgpu_sched_plan_slots(struct vgpu_sched *s, u32 sm,
				  const struct vgpu_kcb_entry *owner,
				  const struct vgpu_kcb_entry *v,
				  const u32 *slots, u32 nr)
{
	struct vgpu_preempt_tb *tbs = s->preempt_tbs;
	bool deadline = owner && (owner->latency_budget_us ||
				  owner->priority == DRM_VGPU_PRIORITY_REALTIME);
	u32 budget_us = owner && owner->latency_budget_us ?
			owner->latency_budget_us : s->budget_us;
	struct vgpu_preempt_sm in_sm = { .sm = sm, .tbs = tbs, .nr_tbs = nr };
	struct vgpu_preempt_input in = {
		.params = {
			.sm_bw_fp = vgpu_sched_sm_bw_fp(s),
			.idem = s->idem,
		},
		.sms = &in_sm,
		.nr_sms = 1,
	};
	struct vgpu_preempt_request req = {
		.nr_sms = 1,
		.budget = vgpu_sched_plan_budget(s, budget_us, deadline),
	};
	struct vgpu_preempt_plan plan = { .sms = s->preempt_plan, .max_sms = 1 };
	u32 i;

	if (!s->preempt_ops || !nr)
		return false;
	for (i = 0; i < nr; i++)
		vgpu_sched_tb_stats(s, sm, slots[i], &tbs[i]);
	vgpu_sched_kernel_stats(s, v, &in.kernel);
	if (!deadline)
		in.kernel.latency_scale_fp = 0;
	return !s->preempt_ops->select(&in, &req, &plan);
}

/**
 * vgpu_sched_slot_draining() - whether the TB now in a slot was chosen to
 * drain: it runs to its end there.
 * @s: the scheduler.
 * @sm: SM.
 * @slot: slot.
 *
 * Return: true when a preemption left that TB to finish.
 */
bool vgpu_sched_slot_draining(struct vgpu_sched *s, u32 sm, u32 slot)
{
	const struct vgpu_smst_slot *sl = vgpu_smst_slot(&s->smst, sm, slot);
	const struct vgpu_sched_slot *ss = vgpu_sched_slot_of(s, sm, slot);

	return sl && sl->job && ss->drain_job == sl->job->id &&
	       ss->drain_tb == sl->tb;
}

/*
 * Plans the TBs in @slots (vgpu_sched_plan_slots()) and carries it out.
 * Return: whether there was a plan (in &vgpu_sched.preempt_plan).
 */
static bool vgpu_sched_preempt_slots(struct vgpu_sched *s, u32 sm,
				     const struct vgpu_kcb_entry *owner,
				     const struct vgpu_kcb_entry *v,
				     const u32 *slots, u32 nr)
{
	const struct vgpu_preempt_sm_plan *pl = s->preempt_plan;
	u32 i, drains = 0;

	if (!vgpu_sched_plan_slots(s, sm, owner, v, slots, nr))
		return false;
	for (i = 0; i < nr; i++)
		drains += pl->tech[i] == VGPU_TECH_DRAIN;
	trace_vgpu_preempt_plan(sm, v->id, nr, drains, pl->latency,
				pl->overhead, pl->meets, s->cycle);
	for (i = 0; i < nr; i++) {
		const struct vgpu_smst_slot *sl;
		struct vgpu_sched_slot *ss;

		if (pl->tech[i] != VGPU_TECH_DRAIN) {
			vgpu_sched_preempt_tb(s, sm, slots[i], pl->tech[i]);
			continue;
		}
		/* Decided once: it finishes where it is. */
		sl = vgpu_smst_slot(&s->smst, sm, slots[i]);
		ss = vgpu_sched_slot_of(s, sm, slots[i]);
		ss->drain_job = sl->job->id;
		ss->drain_tb = sl->tb;
		s->preempt_stats.tbs[VGPU_TECH_DRAIN]++;
	}
	return true;
}

/**
 * vgpu_sched_preempt_sm() - preempt the TBs of other kernels on an SM the
 * plan gave to @owner, with the techniques the preemption policy picks.
 * @s: the scheduler.
 * @sm: the SM.
 * @owner: the kernel it is taken for.
 *
 * Each foreign kernel's TBs there are one Algorithm 3 decision over this
 * SM (§4.3.3; the partition policy has chosen the SMs, with
 * vgpu_sched_rank_sms() where it had to take busy ones): every TB gets the
 * cheapest technique that meets the latency budget, a switch if none does.
 * Drained TBs need nothing more. The longest plan is noted in
 * &vgpu_sched.preempt for vgpu_sched_learn_latency() when the SM is free.
 */
void vgpu_sched_preempt_sm(struct vgpu_sched *s, u32 sm,
			   const struct vgpu_kcb_entry *owner)
{
	const struct vgpu_sm *st = &s->smst.sms[sm];
	struct vgpu_sched_preempt *p = &s->preempt[sm];
	u32 slots[VGPU_PREEMPT_MAX_TBS];
	u32 k, nr;

	p->estimate = 0;
	p->victim_key = 0;
	if (!s->preempt_ops || !s->slots)
		return;
	for (k = 0; k < st->nr_kernels; k++) {
		const struct vgpu_kcb_entry *v = st->kernels[k].job;

		if (v == owner)
			continue;
		nr = vgpu_sched_kernel_slots(s, sm, v, slots);
		if (vgpu_sched_preempt_slots(s, sm, owner, v, slots, nr) &&
		    s->preempt_plan->latency >= p->estimate) {
			p->estimate = s->preempt_plan->latency;
			p->victim_key = v->kernel_key;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_preempt_sm);

/**
 * vgpu_sched_rank_sms() - estimate, for every SM no kernel owns, what
 * taking it for @owner would cost (Algorithm 3, §4.3.3): per foreign kernel
 * there, the policy's plan; the SM's latency is the longest, its overhead
 * the sum, and it meets the budget when every plan does. An SM running
 * nothing foreign costs nothing.
 * @s: the scheduler.
 * @owner: the kernel that needs SMs.
 *
 * Fills &vgpu_sched_preempt.rank of those SMs (and marks the others not
 * ranked), for vgpu_sched_cheapest_sm().
 */
void vgpu_sched_rank_sms(struct vgpu_sched *s,
			 const struct vgpu_kcb_entry *owner)
{
	const struct vgpu_preempt_sm_plan *pl = s->preempt_plan;
	u32 slots[VGPU_PREEMPT_MAX_TBS];
	u32 sm, k, nr;

	for (sm = 0; sm < s->smst.num_sms; sm++) {
		struct vgpu_sched_rank *r = &s->preempt[sm].rank;
		const struct vgpu_sm *st = &s->smst.sms[sm];

		memset(r, 0, sizeof(*r));
		if (s->sm_owner[sm])
			continue;
		r->ranked = true;
		r->meets = true;
		for (k = 0; k < st->nr_kernels && s->preempt_ops; k++) {
			const struct vgpu_kcb_entry *v = st->kernels[k].job;

			if (v == owner)
				continue;
			nr = vgpu_sched_kernel_slots(s, sm, v, slots);
			if (!vgpu_sched_plan_slots(s, sm, owner, v, slots, nr))
				continue;
			r->latency = max(r->latency, pl->latency);
			if (check_add_overflow(r->overhead, pl->overhead,
					       &r->overhead))
				r->overhead = U64_MAX;
			r->meets &= pl->meets;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_rank_sms);

/**
 * vgpu_sched_cheapest_sm() - the SM vgpu_sched_rank_sms() ranked first and
 * that is still free: Algorithm 3's order (lines 19-28), those that meet the
 * budget before those that do not, each by overhead, then latency, then
 * number. Taking it (giving it an owner) removes it from the ranking.
 * @s: the scheduler.
 *
 * Return: the SM, or -ENOENT when none is left.
 */
int vgpu_sched_cheapest_sm(struct vgpu_sched *s)
{
	const struct vgpu_sched_rank *b = NULL;
	int best = -ENOENT;
	u32 sm;

	for (sm = 0; sm < s->smst.num_sms; sm++) {
		const struct vgpu_sched_rank *r = &s->preempt[sm].rank;

		if (!r->ranked || s->sm_owner[sm])
			continue;
		if (b && (b->meets != r->meets ? b->meets :
			  b->overhead != r->overhead ? b->overhead < r->overhead :
			  b->latency <= r->latency))
			continue;
		b = r;
		best = sm;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_cheapest_sm);

/**
 * vgpu_sched_preempt_excess() - bring a kernel down to a quota on an SM.
 * @s: the scheduler.
 * @sm: the SM.
 * @e: the kernel.
 * @keep: how many of its TBs may stay on @sm.
 *
 * For partition policies whose plan lowers a kernel's per-SM quota
 * (maestro, Ch. V §5.4.1): of @e's TBs on @sm that are not already being
 * preempted, all but @keep are preempted, chosen in the fixed preemption
 * order of the 2-way allocation (§5.4.2, Fig. 5.9 (b)): the boundary TB
 * first, in the reverse of the kernel's allocation direction
 * (vgpu_smst_preempt_victim() order; under first fit, highest register
 * base first). How each goes is the preemption policy's Algorithm 3
 * choice, as for vgpu_sched_preempt_sm(); under drain nothing is sent and
 * the TBs finish (the quota keeps others from starting). A TB chosen to
 * drain is not chosen again: the next passes leave it to finish and count
 * only the others against @keep. Caller holds the device lock.
 *
 * Return: the number of TBs chosen (whatever the technique).
 */
u32 vgpu_sched_preempt_excess(struct vgpu_sched *s, u32 sm,
			      struct vgpu_kcb_entry *e, u32 keep)
{
	const struct vgpu_sm *st;
	u32 slots[VGPU_PREEMPT_MAX_TBS];
	u32 nr = 0, slot, i, j;
	bool top;

	lockdep_assert_held(s->lock);
	if (!s->slots || sm >= s->smst.num_sms)
		return 0;
	st = &s->smst.sms[sm];
	top = s->smst.mode == VGPU_SMST_TWO_WAY && st->top == e;
	for (slot = 0; slot < s->smst.max_tbs; slot++) {
		const struct vgpu_smst_slot *sl = vgpu_smst_slot(&s->smst, sm,
								 slot);

		if (!sl || sl->job != e ||
		    vgpu_sched_slot_of(s, sm, slot)->preempting)
			continue;
		/* Already leaving: at most @keep of the others stay. */
		if (vgpu_sched_slot_draining(s, sm, slot))
			continue;
		slots[nr++] = slot;
	}
	if (nr <= keep)
		return 0;
	/* Boundary first: insertion sort on the register base. */
	for (i = 1; i < nr; i++) {
		u32 x = slots[i];
		u32 bx = st->slots[x].reg_base;

		for (j = i; j > 0; j--) {
			u32 by = st->slots[slots[j - 1]].reg_base;

			if (top ? by <= bx : by >= bx)
				break;
			slots[j] = slots[j - 1];
		}
		slots[j] = x;
	}
	vgpu_sched_preempt_slots(s, sm, NULL, e, slots, nr - keep);
	return nr - keep;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_preempt_excess);

/*
 * Whether the TB in @slot of @sm was resumed from a save area and has not
 * issued an instruction since (the daemon's status table).
 */
static bool vgpu_sched_stress_unresumed(struct vgpu_sched *s, u32 sm, u32 slot)
{
	const struct vgpu_sched_ctx *c = vgpu_sched_slot_of(s, sm, slot)->restored;
	u64 insts;
	u32 flags;

	return c && !vgpu_sched_tb_progress(s, sm, slot, &insts, &flags, NULL) &&
	       insts <= c->insts;
}

/**
 * vgpu_sched_stress() - the preemption stress mode.
 * @s: the scheduler.
 *
 * Every &vgpu_sched.stress_period cycles on average (pseudo-random, from a
 * fixed seed, so a run is repeatable), one running TB is preempted, by
 * flush when it has not crossed its idempotence boundary and by context
 * switch otherwise, alternately where both are allowed. Caller holds the
 * device lock.
 */
void vgpu_sched_stress(struct vgpu_sched *s)
{
	u32 n = s->smst.num_sms * s->smst.max_tbs, start, i;

	if (!s->stress_period || !s->slots || s->cycle < s->stress_next)
		return;
	/* Only while the status table is current: flushes depend on it. */
	if (!s->fresh_status)
		return;
	/* xorshift64: repeatable, no wall clock. */
	s->stress_rng ^= s->stress_rng << 13;
	s->stress_rng ^= s->stress_rng >> 7;
	s->stress_rng ^= s->stress_rng << 17;
	start = s->stress_rng % n;
	for (i = 0; i < n; i++) {
		u32 idx = (start + i) % n, sm = idx / s->smst.max_tbs;
		u32 slot = idx % s->smst.max_tbs;
		const struct vgpu_smst_slot *sl =
			vgpu_smst_slot(&s->smst, sm, slot);
		enum vgpu_preempt_tech tech = VGPU_TECH_SWITCH;
		u64 insts, start;
		u32 flags;

		if (!sl || !sl->job || vgpu_sched_slot_of(s, sm, slot)->preempting)
			continue;
		/* a block runs a period on its SM before it is picked again */
		if (!vgpu_sched_tb_progress(s, sm, slot, &insts, &flags, &start) &&
		    s->cycle - start < s->stress_period)
			continue;
		/*
		 * ... and a resumed one must have issued since: loading its
		 * context can take longer than a period, and passes come as
		 * often as every DYNCTA sample (vgpu_tlp.c).
		 */
		if (vgpu_sched_stress_unresumed(s, sm, slot))
			continue;
		/*
		 * A block flushed once is switched from then on: it keeps its
		 * progress, so that the last blocks of a kernel finish however
		 * often the stress mode comes back (every sync quantum).
		 */
		if (((s->stress_rng >> 32) & 1) &&
		    !vgpu_sched_slot_of(s, sm, slot)->reissued) {
			/*
			 * Not reported: dispatched since the last kick, so
			 * not run (flushable), unless it is beyond the table,
			 * where it may have run for long (never flushed).
			 */
			switch (vgpu_sched_tb_progress(s, sm, slot, &insts,
						       &flags, NULL)) {
			case 0:
				break;
			case -ERANGE:
				flags = VGPU_TB_STATUS_CROSSED_BOUNDARY;
				break;
			default:
				flags = 0;
			}
			if (!(flags & VGPU_TB_STATUS_CROSSED_BOUNDARY))
				tech = VGPU_TECH_FLUSH;
		}
		if (vgpu_sched_preempt_tb(s, sm, slot, tech))
			return;
		s->stress_next = s->cycle + 1 + s->stress_period / 2 +
				 s->stress_rng % s->stress_period;
		return;
	}
}

/**
 * vgpu_sched_preempt_show() - the preemption policy, its settings and what it
 *	did since the device was set up (debugfs "preempt"; readers take
 *	differences).
 * @s: the scheduler; device lock held.
 * @buf: PAGE_SIZE bytes.
 *
 * Return: the length of the text.
 */
int vgpu_sched_preempt_show(const struct vgpu_sched *s, char *buf)
{
	const struct vgpu_sched_preempt_stats *st = &s->preempt_stats;
	int len;

	len = sysfs_emit_at(buf, 0, "policy %s\nidempotence %s\n",
			    s->preempt_ops->name, vgpu_preempt_idem_name(s->idem));
	len += sysfs_emit_at(buf, len, "budget_us %u\nmargin_pct %u\n",
			     s->budget_us, s->budget_margin_pct);
	len += sysfs_emit_at(buf, len, "latency_feedback %d\nrequests %llu\n",
			     s->latency_feedback, st->requests);
	len += sysfs_emit_at(buf, len, "switch %llu\ndrain %llu\nflush %llu\n",
			     st->tbs[VGPU_TECH_SWITCH], st->tbs[VGPU_TECH_DRAIN],
			     st->tbs[VGPU_TECH_FLUSH]);
	len += sysfs_emit_at(buf, len, "lost_insts %llu\n", st->lost_insts);
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_preempt_show);
