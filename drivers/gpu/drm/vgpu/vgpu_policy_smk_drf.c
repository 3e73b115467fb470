// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu partition policy smk-drf: simultaneous multikernel with dominant
 * resource fairness.
 *
 * Park, dissertation, Ch. V (related work: SMK-(P+W) of Wang et al.
 * partitions TBs by DRF, Ghodsi et al.): every SM is shared; the per-SM TB
 * quotas come from progressive filling of one SM, one TB at a time to the
 * kernel with the smallest dominant share (its largest fraction of any of
 * TB slots, threads, registers and shared memory) whose next TB still fits
 * and that can use more TBs per SM (its remaining TBs spread over all SMs),
 * so what a kernel does not need goes to the others. The generic TB
 * scheduler vgpu_sched_tb_dispatch() carries the quotas out. With one
 * kernel left to issue TBs, it gets no quota; a quota is never below
 * &vgpu_smk_conf.quota_min (sysfs smk_quota_min, shared with smk-even).
 */

#include <linux/math64.h>
#include <linux/minmax.h>

#include <kunit/visibility.h>

#include "vgpu_policy_smk.h"

/* Dominant share of @tbs TBs, in 2^-20ths. */
static u64 vgpu_smk_dominant(const u64 *cap, const u64 *need, u32 tbs)
{
	u64 d = 0;
	u32 r;

	for (r = 0; r < VGPU_SMK_NR_RES; r++)
		if (cap[r])
			d = max(d, div64_u64(((u64)tbs * need[r]) << 20,
					     cap[r]));
	return d;
}

static void vgpu_smk_drf_plan(struct vgpu_sched *s)
{
	u64 cap[VGPU_SMK_NR_RES], used[VGPU_SMK_NR_RES] = {};
	u64 need[VGPU_SMK_NR_RES];
	u32 k = vgpu_smk_count(s), n = s->smst.num_sms, qmin, r;
	struct vgpu_kcb_entry *e, *best;

	if (k < 2)
		return;
	qmin = vgpu_smk_quota_min(s);
	vgpu_smk_caps(&s->smst, cap);
	list_for_each_entry(e, &s->kcb.active, link) {
		e->plan_have = 0;
		e->plan_want = 0;
		if (vgpu_sched_candidate(s, e))
			e->plan_want = DIV_ROUND_UP(vgpu_kcb_entry_tbs_left(e),
						    n);
	}
	/* Progressive filling of one SM (at most max_tbs rounds). */
	for (;;) {
		u64 best_d = U64_MAX;

		best = NULL;
		list_for_each_entry(e, &s->kcb.active, link) {
			u64 d;
			bool fits = true;

			if (e->plan_have >= e->plan_want)
				continue;
			vgpu_smk_need(e, need);
			for (r = 0; r < VGPU_SMK_NR_RES; r++)
				if (used[r] + need[r] > cap[r])
					fits = false;
			if (!fits)
				continue;
			d = vgpu_smk_dominant(cap, need, e->plan_have);
			if (d < best_d) {
				best_d = d;
				best = e;
			}
		}
		if (!best)
			break;
		vgpu_smk_need(best, need);
		for (r = 0; r < VGPU_SMK_NR_RES; r++)
			used[r] += need[r];
		best->plan_have++;
	}
	list_for_each_entry(e, &s->kcb.active, link)
		if (e->plan_want)
			e->quota = clamp(e->plan_have, qmin,
					 (u32)VGPU_SMST_MAX_SLOTS);
}

const struct vgpu_partition_ops vgpu_policy_smk_drf = {
	.name = "smk-drf",
	.plan = vgpu_smk_drf_plan,
	.conf = &vgpu_smk_policy_conf,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_smk_drf);
