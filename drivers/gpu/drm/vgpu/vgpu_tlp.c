// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu thread-level parallelism (TLP) policies: the common part.
 *
 * Kayiran et al. (seed 001) modulate the TBs an SM holds. Each SM keeps a
 * limit n on the TBs it runs (DYNCTA, §4.1); a TB starts on an SM only
 * while fewer than n are there, and when n falls below the TBs already
 * there the newest are paused: they stay resident but issue only when no
 * other block on the SM can ("CTA pausing"). DYNCORE (§4.2) also turns
 * SMs off: no TB starts there, the resident ones run to their end.
 *
 * The daemon reports each SM's counters every %VGPU_TLP_PERIOD cycles
 * (%VGPU_EVT_SM_SAMPLE) once the policy asks for them
 * (%VGPU_CMD_SET_SAMPLING): with the policy "none" it is never asked, so
 * the cycles of every run stay those without TLP policies. The partition
 * policies keep their say: vgpu_tlp_may_start() is checked beside their
 * quotas wherever a TB is placed.
 */

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>

#include "vgpu_sched.h"
#include "vgpu_trace.h"
#include "vgpu_tlp.h"

const struct vgpu_tlp_ops vgpu_tlp_none = {
	.name = "none",
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_none);

/* NULL-terminated; the default first. */
const struct vgpu_tlp_ops *const vgpu_tlp_policies[] = {
	&vgpu_tlp_none,
	&vgpu_tlp_dyncta,
	&vgpu_tlp_dyncore,
	&vgpu_tlp_static,
	NULL
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_policies);

/**
 * vgpu_tlp_init() - policy "none" and every threshold at its default.
 * @s: the scheduler, being initialised.
 */
void vgpu_tlp_init(struct vgpu_sched *s)
{
	struct vgpu_tlp *t = &s->tlp;

	memset(t, 0, sizeof(*t));
	t->ops = &vgpu_tlp_none;
	t->t_idle = VGPU_DYNCTA_T_IDLE_DEFAULT;
	t->t_mem_l = VGPU_DYNCTA_T_MEM_L_DEFAULT;
	t->t_mem_h = VGPU_DYNCTA_T_MEM_H_DEFAULT;
	t->gate_sms = VGPU_DYNCORE_GATE_SMS_DEFAULT;
	t->t_act_pct = VGPU_DYNCORE_T_ACT_PCT_DEFAULT;
	t->static_tbs = VGPU_TLP_STATIC_TBS_DEFAULT;
}

/**
 * vgpu_tlp_attach() - size the per-SM state for the attached hardware.
 * @s: the scheduler; &vgpu_sched.smst is built.
 *
 * The daemon is new: it samples nothing until told.
 *
 * Return: 0 or -ENOMEM.
 */
int vgpu_tlp_attach(struct vgpu_sched *s)
{
	struct vgpu_tlp *t = &s->tlp;

	t->sms = kcalloc(s->smst.num_sms, sizeof(*t->sms), GFP_KERNEL);
	if (!t->sms)
		return -ENOMEM;
	t->sampling = 0;
	t->seq = 0;
	t->period_act = 0;
	return 0;
}

/**
 * vgpu_tlp_detach() - free the per-SM state.
 * @s: the scheduler.
 */
void vgpu_tlp_detach(struct vgpu_sched *s)
{
	kfree(s->tlp.sms);
	s->tlp.sms = NULL;
}

/**
 * vgpu_tlp_set_policy() - switch the TLP policy.
 * @s: the scheduler.
 * @ops: an entry of vgpu_tlp_policies[].
 *
 * Every SM starts again: no limit until its next TB, every SM on. The next
 * scheduling pass tells the daemon (sampling, paused TBs). Device lock
 * held.
 */
void vgpu_tlp_set_policy(struct vgpu_sched *s, const struct vgpu_tlp_ops *ops)
{
	struct vgpu_tlp *t = &s->tlp;
	u32 sm;

	lockdep_assert_held(s->lock);
	t->ops = ops;
	t->period_act = 0;
	for (sm = 0; t->sms && sm < s->smst.num_sms; sm++) {
		/* what the daemon was told stays true until it is told again */
		bool sent = t->sms[sm].gated_sent;

		t->sms[sm] = (struct vgpu_tlp_sm){ .gated_sent = sent };
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_set_policy);

static bool vgpu_tlp_off(const struct vgpu_sched *s)
{
	return s->tlp.ops == &vgpu_tlp_none || !s->tlp.sms;
}

/* TBs on @sm, paused ones included (Algorithm 1's nCTA). */
static u32 vgpu_tlp_tbs(const struct vgpu_sched *s, u32 sm)
{
	return hweight64(s->smst.sms[sm].slot_map);
}

/* DYNCTA's N for @e: its TBs that fit an empty SM, at least 1. */
static u32 vgpu_tlp_max(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e)
{
	return max(vgpu_smst_occupancy(&s->smst, &e->res), 1U);
}

/* The policy's limit for a kernel new to an SM, 1 ... @max. */
static u32 vgpu_tlp_first_limit(const struct vgpu_sched *s, u32 max)
{
	return clamp(s->tlp.ops->first_limit(s, max), 1U, max);
}

/**
 * vgpu_tlp_may_start() - whether the TLP policy lets a TB of @e start on
 *	@sm.
 * @s: the scheduler.
 * @e: the kernel.
 * @sm: the SM.
 *
 * An SM turned off takes none; otherwise the SM must hold fewer TBs than
 * its limit - the one sized for @e, or, where the SM's limit was sized for
 * another kernel, @e's first limit (its first TB there starts the SM
 * afresh, as a kernel launch does in §4.1). Device lock held.
 *
 * Return: true when the TB may start (always under policy "none").
 */
bool vgpu_tlp_may_start(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e, u32 sm)
{
	const struct vgpu_tlp_sm *t;
	u32 limit;

	if (vgpu_tlp_off(s) || sm >= s->smst.num_sms)
		return true;
	t = &s->tlp.sms[sm];
	if (t->gated)
		return false;
	limit = t->job == e->id ? t->limit :
		vgpu_tlp_first_limit(s, vgpu_tlp_max(s, e));
	return vgpu_tlp_tbs(s, sm) < limit;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_may_start);

/**
 * vgpu_tlp_dispatched() - a TB of @e was placed in @slot of @sm.
 * @s: the scheduler.
 * @e: its kernel.
 * @sm: the SM.
 * @slot: the slot.
 *
 * Records the order of assignment (pausing takes the newest TBs) and, for
 * the first TB of a kernel on the SM, sizes the SM's limit for it.
 */
void vgpu_tlp_dispatched(struct vgpu_sched *s, const struct vgpu_kcb_entry *e,
			 u32 sm, u32 slot)
{
	struct vgpu_tlp *t = &s->tlp;
	struct vgpu_tlp_sm *ts;

	if (vgpu_tlp_off(s) || !s->slots)
		return;
	ts = &t->sms[sm];
	if (ts->job != e->id) {
		u32 old = ts->limit;

		ts->job = e->id;
		ts->max = vgpu_tlp_max(s, e);
		ts->limit = vgpu_tlp_first_limit(s, ts->max);
		trace_vgpu_tlp_limit(sm, old, ts->limit, ts->max, 0, 0,
				     s->cycle);
	}
	vgpu_sched_slot_of(s, sm, slot)->tlp_seq = ++t->seq;
}

/**
 * vgpu_tlp_sample() - consume one %VGPU_EVT_SM_SAMPLE.
 * @s: the scheduler.
 * @evt: the event.
 *
 * The policy adjusts the SM's limit; after the last SM of a period it
 * takes its device-wide decisions. Device lock held.
 *
 * Return: 0, or -EINVAL for an SM out of range.
 */
int vgpu_tlp_sample(struct vgpu_sched *s, const struct vgpu_evt *evt)
{
	struct vgpu_tlp *t = &s->tlp;

	if (evt->sm >= s->smst.num_sms) {
		dev_dbg(s->dev, "SM_SAMPLE for SM %u out of range, ignored\n",
			evt->sm);
		return -EINVAL;
	}
	if (vgpu_tlp_off(s))
		return 0;	/* a sample already on its way when switched */
	t->stats.samples++;
	t->sms[evt->sm].active = evt->sample.active;
	if (!t->sms[evt->sm].gated)
		t->period_act += evt->sample.active;
	if (t->ops->sample)
		t->ops->sample(s, evt->sm, &evt->sample);
	if (evt->sm == s->smst.num_sms - 1) {
		if (t->ops->period_end)
			t->ops->period_end(s);
		t->period_act = 0;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_sample);

/* Tells the daemon that the TB in @slot of @sm is paused or not. */
static bool vgpu_tlp_send_pause(struct vgpu_sched *s, u32 sm, u32 slot,
				bool paused)
{
	const struct vgpu_smst_slot *sl = vgpu_smst_slot(&s->smst, sm, slot);
	struct vgpu_sched_slot *ss = vgpu_sched_slot_of(s, sm, slot);
	struct vgpu_cmd cmd = {
		.op = VGPU_CMD_SET_TB_PAUSED,
		.flags = paused,
		.job = sl->job->id,
		.tb = sl->tb,
		.sm = sm,
		.slot = slot,
	};

	if (!vgpu_sched_emit_reserved(s, &cmd))
		return false;
	ss->paused = paused;
	if (paused)
		s->tlp.stats.pauses++;
	else
		s->tlp.stats.resumes++;
	trace_vgpu_tlp_pause(sl->job->id, sl->tb, sm, paused, s->cycle);
	return true;
}

/*
 * Pauses the newest TBs of @sm beyond its limit and lets the others run
 * (the last loop of Algorithm 1: "pause most recently assigned CTA"
 * nCTA - n times; a paused TB runs again when n grows or an older TB
 * ends). False when the command ring is full.
 */
static bool vgpu_tlp_sync_sm(struct vgpu_sched *s, u32 sm)
{
	const struct vgpu_tlp_sm *ts = &s->tlp.sms[sm];
	u64 map = s->smst.sms[sm].slot_map;
	u32 ncta = hweight64(map), keep, slot, other;
	bool any = false;

	keep = ts->job && !vgpu_tlp_off(s) ? ts->limit : ncta;
	for (slot = 0; slot < s->smst.max_tbs; slot++)
		any |= (map & BIT_ULL(slot)) &&
		       vgpu_sched_slot_of(s, sm, slot)->paused;
	if (ncta <= keep && !any)
		return true;
	for (slot = 0; slot < s->smst.max_tbs; slot++) {
		u64 seq = vgpu_sched_slot_of(s, sm, slot)->tlp_seq;
		u32 newer = 0;
		bool pause;

		if (!(map & BIT_ULL(slot)))
			continue;
		for (other = 0; other < s->smst.max_tbs; other++)
			newer += (map & BIT_ULL(other)) &&
				 vgpu_sched_slot_of(s, sm, other)->tlp_seq > seq;
		/* paused: among the ncta - keep newest */
		pause = ncta > keep && newer < ncta - keep;
		if (pause != vgpu_sched_slot_of(s, sm, slot)->paused &&
		    !vgpu_tlp_send_pause(s, sm, slot, pause))
			return false;
	}
	return true;
}

/**
 * vgpu_tlp_ungate_idle() - every SM on again once no TB is on the device.
 * @s: the scheduler.
 *
 * DYNCORE's decision is about the kernels that ran; the next one starts
 * with every SM, as it starts with DYNCTA's first limit. Called before a
 * pass places TBs (a kernel that the partition policy maps only to SMs
 * that are off then starts) and after it. Device lock held.
 */
void vgpu_tlp_ungate_idle(struct vgpu_sched *s)
{
	struct vgpu_tlp *t = &s->tlp;
	bool gated = false;
	u32 sm;

	if (!t->sms)
		return;
	for (sm = 0; sm < s->smst.num_sms; sm++) {
		if (s->smst.sms[sm].slot_map)
			return;
		gated |= t->sms[sm].gated;
	}
	if (!gated)
		return;
	for (sm = 0; sm < s->smst.num_sms; sm++)
		t->sms[sm].gated = false;
	t->stats.gate_changes++;
	trace_vgpu_tlp_gate(0, 0, s->cycle);
}

/**
 * vgpu_tlp_sync() - bring the daemon up to date after a scheduling pass.
 * @s: the scheduler.
 *
 * Asks for samples while a policy is active (and for none once it is
 * "none" again), pauses and resumes TBs so that on every SM the TBs
 * beyond the limit, the newest, are the paused ones, and says which SMs
 * are off. Device lock held.
 *
 * Return: false when the command ring is full (the next pass goes on).
 */
bool vgpu_tlp_sync(struct vgpu_sched *s)
{
	struct vgpu_tlp *t = &s->tlp;
	u32 want = vgpu_tlp_off(s) || !t->ops->sample ? 0 : VGPU_TLP_PERIOD, sm;

	lockdep_assert_held(s->lock);
	if (!t->sms || !s->slots)
		return true;
	if (want != t->sampling) {
		struct vgpu_cmd cmd = {
			.op = VGPU_CMD_SET_SAMPLING,
			.addr = want,
		};

		if (!vgpu_sched_emit_reserved(s, &cmd))
			return false;
		t->sampling = want;
	}
	for (sm = 0; sm < s->smst.num_sms; sm++)
		if (!vgpu_tlp_sync_sm(s, sm))
			return false;
	vgpu_tlp_ungate_idle(s);
	for (sm = 0; sm < s->smst.num_sms; sm++) {
		struct vgpu_tlp_sm *ts = &t->sms[sm];
		struct vgpu_cmd cmd = {
			.op = VGPU_CMD_SET_SM_GATED,
			.flags = ts->gated,
			.sm = sm,
		};

		if (ts->gated == ts->gated_sent)
			continue;
		if (!vgpu_sched_emit_reserved(s, &cmd))
			return false;
		ts->gated_sent = ts->gated;
	}
	return true;
}

/**
 * vgpu_tlp_show() - the TLP state for debugfs: the policy, its statistics
 *	and per SM the limit, N and whether it is off.
 * @s: the scheduler.
 * @buf: PAGE_SIZE bytes.
 *
 * Return: the length written. Device lock held.
 */
int vgpu_tlp_show(const struct vgpu_sched *s, char *buf)
{
	const struct vgpu_tlp *t = &s->tlp;
	const struct vgpu_tlp_stats *st = &t->stats;
	int len;
	u32 sm;

	len = sysfs_emit_at(buf, 0,
			    "policy %s\nsamples %llu\nraised %llu\nlowered %llu\npauses %llu\nresumes %llu\ngate_changes %llu\n",
			    t->ops->name, st->samples, st->raised, st->lowered,
			    st->pauses, st->resumes, st->gate_changes);
	for (sm = 0; t->sms && sm < s->smst.num_sms; sm++)
		len += sysfs_emit_at(buf, len, "sm %u limit %u max %u%s\n", sm,
				     t->sms[sm].limit, t->sms[sm].max,
				     t->sms[sm].gated ? " off" : "");
	return len;
}
