// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu partition policy smk-even: simultaneous multikernel, even split.
 *
 * Park, dissertation, Ch. V (related work: Wang et al., "Simultaneous
 * Multikernel GPU"): every SM is shared by the running kernels, and the
 * kernel scheduler gives each kernel a per-SM TB quota; the generic TB
 * scheduler vgpu_sched_tb_dispatch() starts a kernel's TBs on any SM until
 * its quota there is reached. Here each of the k kernels that have TBs to
 * issue gets 1/k of every resource of an SM (TB slots, threads, registers,
 * shared memory); its quota is the number of its TBs that fit in that
 * share. With one kernel left to issue TBs, it gets no quota (the whole
 * device). A quota is never below &vgpu_smk_conf.quota_min (sysfs
 * smk_quota_min), so no kernel starves; room decides in the end
 * (vgpu_smst_can_fit_job()).
 *
 * The SMK policies' knob, smk_quota_min, is declared here, in
 * &vgpu_smk_policy_conf, which smk-drf and warped-slicer share.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include <kunit/visibility.h>

#include "vgpu_knob.h"
#include "vgpu_policy_smk.h"

static_assert(sizeof(struct vgpu_smk_conf) <= VGPU_POLICY_CONF_SIZE);

static const struct vgpu_knob vgpu_smk_knobs[] = {
	{
		.name = "smk_quota_min",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = VGPU_SMST_MAX_SLOTS,
		.def = VGPU_SMK_QUOTA_MIN_DEFAULT,
		.offset = offsetof(struct vgpu_smk_conf, quota_min),
	},
};

const struct vgpu_policy_conf vgpu_smk_policy_conf = {
	.name = "smk",
	.knobs = vgpu_smk_knobs,
	.nr_knobs = ARRAY_SIZE(vgpu_smk_knobs),
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_smk_policy_conf);

static void vgpu_smk_even_plan(struct vgpu_sched *s)
{
	u64 cap[VGPU_SMK_NR_RES], need[VGPU_SMK_NR_RES];
	struct vgpu_kcb_entry *e;
	u32 k = vgpu_smk_count(s), qmin, r;

	if (k < 2)
		return;
	qmin = vgpu_smk_quota_min(s);
	vgpu_smk_caps(&s->smst, cap);
	list_for_each_entry(e, &s->kcb.active, link) {
		u64 q = U64_MAX;

		if (!vgpu_sched_candidate(s, e))
			continue;
		vgpu_smk_need(e, need);
		for (r = 0; r < VGPU_SMK_NR_RES; r++)
			if (need[r])
				q = min(q, div64_u64(cap[r], (u64)k * need[r]));
		e->quota = clamp_t(u64, q, qmin, VGPU_SMST_MAX_SLOTS);
	}
}

const struct vgpu_partition_ops vgpu_policy_smk_even = {
	.name = "smk-even",
	.plan = vgpu_smk_even_plan,
	.conf = &vgpu_smk_policy_conf,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_smk_even);
