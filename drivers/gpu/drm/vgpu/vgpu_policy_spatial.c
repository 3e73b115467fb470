// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu partition policy: spatial multitasking, Smart Even + Rounds.
 *
 * Park, dissertation, Ch. IV §4.4 (after Adriaens et al., "The case for
 * GPGPU spatial multitasking"): SMs are distributed evenly across the
 * kernels except when a kernel requires fewer SMs than the even split,
 * either because its grid cannot fill its share (size-bound) or because
 * its remaining TBs cannot near the end of its execution; what such a
 * kernel leaves is split evenly among the others (Smart Even), and the
 * SMs an even split cannot divide go one each to the kernels in arrival
 * order (Rounds). An SM belongs to one kernel at a time; a kernel keeps the
 * SMs it already holds where it can, so that a repartition moves as few
 * SMs as possible, and takes idle SMs before busy ones. Among busy SMs it
 * takes those cheapest to preempt (Chimera, Algorithm 3: within the latency
 * budget first, then by estimated overhead), and the preemption policy
 * takes the other kernels' TBs off them (vgpu_sched_preempt_sm()).
 *
 * Priorities (Ch. IV: a real-time or high-priority launch gets SMs within
 * its latency budget): kernels of a higher class than normal get the SMs
 * they can use first, real-time before high, and the normal kernels split
 * what is left by Smart Even + Rounds; higher classes also pick their SMs
 * first. An SM handed over while the old kernel's TBs still run there is
 * the new kernel's once the preemption policy has taken them all off
 * (vgpu_sched_sm_owned_by()); each such hand-over is traced
 * (vgpu_repartition).
 *
 * The kernel scheduler below only maps SMs (&vgpu_sched.sm_owner); the
 * generic TB scheduler vgpu_sched_tb_dispatch() carries the map out.
 */

#include <linux/minmax.h>

#include <kunit/visibility.h>

#include <drm/vgpu_drm.h>

#include "vgpu_sched.h"
#include "vgpu_trace.h"

/*
 * A kernel takes part in the split while it has TBs to start or TBs
 * running: near its end it asks for the SMs its TBs still run on (§4.4:
 * "the remaining number of thread blocks is insufficient to fully occupy
 * the given number of SMs near the end of execution"), not for none, so
 * that another kernel does not take those SMs and preempt its last TBs -
 * which, switched or flushed, would make it a candidate again, take an SM
 * back and preempt in turn. An SM goes to the others once its last TB
 * there has finished.
 */
static bool vgpu_spatial_active(const struct vgpu_sched *s,
				const struct vgpu_kcb_entry *e)
{
	return vgpu_sched_candidate(s, e) || vgpu_sched_resident(s, e);
}

/*
 * SMs a kernel can use: enough to hold every TB it has left at once, and
 * at least those its TBs run on.
 */
static u32 vgpu_spatial_want(const struct vgpu_sched *s,
			     const struct vgpu_kcb_entry *e)
{
	u32 occ = vgpu_smst_occupancy(&s->smst, &e->res);
	u32 want = DIV_ROUND_UP(vgpu_kcb_entry_tbs_left(e), max(occ, 1u));
	u32 sm, running = 0;

	for (sm = 0; sm < s->smst.num_sms && e->tbs_running; sm++)
		running += !!vgpu_smst_kernel_tbs(&s->smst, sm, e);
	want = max(want, running);

	return clamp(want, 1u, s->smst.num_sms);
}

/* Smart Even + Rounds: each candidate's SM target in e->plan_sms. */
static void vgpu_spatial_targets(struct vgpu_sched *s)
{
	u32 left = s->smst.num_sms, rem = 0, share, extra;
	struct vgpu_kcb_entry *e;
	bool changed;

	int prio;

	list_for_each_entry(e, &s->kcb.active, link) {
		e->plan_sms = 0;
		e->plan_want = 0;
		e->quota = 0;
		if (!vgpu_spatial_active(s, e))
			continue;
		e->plan_want = vgpu_spatial_want(s, e);
		if (e->priority == DRM_VGPU_PRIORITY_NORMAL)
			rem++;
	}
	/* Higher classes first: what they can use, while SMs are left. */
	for (prio = DRM_VGPU_PRIORITY_REALTIME;
	     prio > DRM_VGPU_PRIORITY_NORMAL; prio--) {
		list_for_each_entry(e, &s->kcb.active, link) {
			if (!e->plan_want || e->priority != prio)
				continue;
			e->plan_sms = min(e->plan_want, left);
			left -= e->plan_sms;
			if (!e->plan_sms)
				e->plan_want = 0;	/* waits for SMs */
		}
	}
	/* Smart Even: satisfy the kernels that need less than a share. */
	do {
		changed = false;
		if (!rem)
			return;
		share = left / rem;
		list_for_each_entry(e, &s->kcb.active, link) {
			if (!e->plan_want || e->plan_sms ||
			    e->plan_want > share)
				continue;
			e->plan_sms = e->plan_want;
			left -= e->plan_sms;
			rem--;
			changed = true;
		}
	} while (changed);
	/* Even split of the rest; Rounds: the remainder in arrival order. */
	share = left / rem;
	extra = left % rem;
	list_for_each_entry(e, &s->kcb.active, link) {
		if (!e->plan_want || e->plan_sms)
			continue;
		e->plan_sms = share + (extra ? 1 : 0);
		if (extra)
			extra--;
	}
}

static void vgpu_spatial_give(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			      u32 sm)
{
	const struct vgpu_sm *st = &s->smst.sms[sm];
	u32 k;

	s->sm_owner[sm] = e;
	e->plan_have++;
	/* Other kernels still run here: they are preempted. */
	for (k = 0; k < st->nr_kernels; k++)
		if (st->kernels[k].job != e)
			trace_vgpu_repartition(sm, st->kernels[k].job->id,
					       e->id, s->cycle);
}

/*
 * Give kernel @e free SMs up to its target; @pass 0 takes SMs where it
 * still runs TBs, 1 empty SMs, 2 busy SMs, cheapest to preempt first
 * (Chimera's Algorithm 3, lines 19-28, under the preemption policy).
 */
static void vgpu_spatial_take(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			      int pass)
{
	u32 sm;
	int best;

	if (pass == 2) {
		vgpu_sched_rank_sms(s, e);
		while (e->plan_have < e->plan_sms) {
			best = vgpu_sched_cheapest_sm(s);
			if (best < 0)
				break;
			vgpu_spatial_give(s, e, best);
		}
		return;
	}
	for (sm = 0; sm < s->smst.num_sms && e->plan_have < e->plan_sms;
	     sm++) {
		if (s->sm_owner[sm])
			continue;
		if (pass == 0 && !vgpu_smst_kernel_tbs(&s->smst, sm, e))
			continue;
		if (pass == 1 && s->smst.sms[sm].slot_map)
			continue;
		vgpu_spatial_give(s, e, sm);
	}
}

static void vgpu_spatial_plan(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;
	int pass, prio;
	u32 sm;

	vgpu_spatial_targets(s);
	list_for_each_entry(e, &s->kcb.active, link)
		e->plan_have = 0;
	for (sm = 0; sm < s->smst.num_sms; sm++) {
		const struct vgpu_sm *st = &s->smst.sms[sm];
		u32 k;

		/*
		 * A kernel also holds an SM that no kernel owns where its TBs
		 * run (the TB scheduler may start TBs on free SMs), so that
		 * nobody takes it and preempts them.
		 */
		for (k = 0; k < st->nr_kernels && !s->sm_owner[sm]; k++) {
			e = st->kernels[k].job;
			if (vgpu_spatial_active(s, e))
				s->sm_owner[sm] = e;
		}
		if (s->sm_owner[sm])
			s->sm_owner[sm]->plan_have++;
	}
	/*
	 * Keep what each kernel holds up to its target; past it, release
	 * the SMs where it runs the fewest TBs (the last first), so that as
	 * few of its TBs as possible are preempted.
	 */
	list_for_each_entry(e, &s->kcb.active, link) {
		while (e->plan_have > e->plan_sms) {
			u32 fewest = U32_MAX, victim = 0, n;

			for (sm = 0; sm < s->smst.num_sms; sm++) {
				if (s->sm_owner[sm] != e)
					continue;
				n = vgpu_smst_kernel_tbs(&s->smst, sm, e);
				if (n <= fewest) {
					fewest = n;
					victim = sm;
				}
			}
			s->sm_owner[victim] = NULL;
			e->plan_have--;
		}
	}
	for (pass = 0; pass < 3; pass++)
		for (prio = DRM_VGPU_PRIORITY_REALTIME; prio >= 0; prio--)
			list_for_each_entry(e, &s->kcb.active, link)
				if (e->priority == prio &&
				    e->plan_have < e->plan_sms)
					vgpu_spatial_take(s, e, pass);
}

const struct vgpu_partition_ops vgpu_policy_spatial = {
	.name = "spatial",
	.plan = vgpu_spatial_plan,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_spatial);
