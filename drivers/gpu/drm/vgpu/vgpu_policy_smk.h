/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SMK partition policies (vgpu_policy_smk_even.c,
 * vgpu_policy_smk_drf.c): the four per-SM resources of Park, dissertation,
 * Ch. II, Fig. 2.3 (TB slots, threads, registers, shared memory).
 */
#ifndef _VGPU_POLICY_SMK_H_
#define _VGPU_POLICY_SMK_H_

#include "vgpu_sched.h"

#define VGPU_SMK_NR_RES	4

/* Per-SM capacity of slots, threads, registers, shared memory. */
static inline void vgpu_smk_caps(const struct vgpu_smst *st, u64 *cap)
{
	cap[0] = st->max_tbs;
	cap[1] = st->max_threads;
	cap[2] = (u64)st->reg_units * st->reg_granule;
	cap[3] = (u64)st->shared_units * st->shared_unit;
}

static inline void vgpu_smk_need(const struct vgpu_kcb_entry *e, u64 *need)
{
	need[0] = 1;
	need[1] = e->res.threads;
	need[2] = e->res.regs;
	need[3] = e->res.shared;
}

/* Candidates of this decision; zero the quotas of everyone else. */
static inline u32 vgpu_smk_count(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;
	u32 k = 0;

	list_for_each_entry(e, &s->kcb.active, link) {
		e->quota = 0;
		e->plan_sms = 0;
		if (vgpu_sched_candidate(s, e))
			k++;
	}
	return k;
}

#endif /* _VGPU_POLICY_SMK_H_ */
