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
 * device). A quota is never below &vgpu_sched.smk_quota_min, so no kernel
 * starves; room decides in the end (vgpu_smst_can_fit_job()).
 */

#include <linux/math64.h>
#include <linux/minmax.h>

#include <kunit/visibility.h>

#include "vgpu_policy_smk.h"

static void vgpu_smk_even_plan(struct vgpu_sched *s)
{
	u64 cap[VGPU_SMK_NR_RES], need[VGPU_SMK_NR_RES];
	struct vgpu_kcb_entry *e;
	u32 k = vgpu_smk_count(s), r;

	if (k < 2)
		return;
	vgpu_smk_caps(&s->smst, cap);
	list_for_each_entry(e, &s->kcb.active, link) {
		u64 q = U64_MAX;

		if (!vgpu_sched_candidate(s, e))
			continue;
		vgpu_smk_need(e, need);
		for (r = 0; r < VGPU_SMK_NR_RES; r++)
			if (need[r])
				q = min(q, div64_u64(cap[r], (u64)k * need[r]));
		e->quota = clamp_t(u64, q, s->smk_quota_min,
				   VGPU_SMST_MAX_SLOTS);
	}
}

struct vgpu_partition_ops vgpu_policy_smk_even = {
	.name = "smk-even",
	.plan = vgpu_smk_even_plan,
	.list = LIST_HEAD_INIT(vgpu_policy_smk_even.list),
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_smk_even);
