/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SMK partition policies (vgpu_policy_smk_even.c,
 * vgpu_policy_smk_drf.c, and vgpu_policy_warped_slicer.c): the four per-SM
 * resources of Park, dissertation, Ch. II, Fig. 2.3 (TB slots, threads,
 * registers, shared memory), and their knob smk_quota_min.
 */
#ifndef _VGPU_POLICY_SMK_H_
#define _VGPU_POLICY_SMK_H_

#include "vgpu_sched.h"

#define VGPU_SMK_NR_RES	4

/** Default of &vgpu_smk_conf.quota_min. */
#define VGPU_SMK_QUOTA_MIN_DEFAULT	1

/**
 * struct vgpu_smk_conf - the SMK policies' knobs, per device (the area of
 *	&vgpu_smk_policy_conf, which smk-even, smk-drf and warped-slicer
 *	share).
 * @quota_min: the smallest per-SM TB quota they give a kernel, so that none
 *	starves (sysfs smk_quota_min, 1 ... %VGPU_SMST_MAX_SLOTS).
 */
struct vgpu_smk_conf {
	u32 quota_min;
};

/* vgpu_policy_smk_even.c */
extern const struct vgpu_policy_conf vgpu_smk_policy_conf;

/* &vgpu_smk_conf.quota_min of @s. Device lock held. */
static inline u32 vgpu_smk_quota_min(struct vgpu_sched *s)
{
	const struct vgpu_smk_conf *c =
		vgpu_sched_policy_conf(s, &vgpu_smk_policy_conf);

	return c->quota_min;
}

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
