// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu preemption policy chimera: Chimera's per-TB choice (Park,
 * dissertation, Ch. IV, Algorithm 3 of §4.3.3).
 *
 * For every resident TB of the kernel to preempt, the technique with the
 * least throughput overhead whose estimated latency meets the budget;
 * context switch when none does. The estimates (§4.3.2) and the choice of
 * SMs (Algorithm 3's lines 19-28: those that meet the budget, cheapest
 * first) are the preemption core's, vgpu_preempt.c, shared with the
 * single-technique baselines of vgpu_preempt_simple.c.
 */

#include <linux/export.h>

#include <kunit/visibility.h>

#include "vgpu_preempt.h"

/*
 * Lines 8-16: the technique with the least overhead among those allowed
 * that meet the budget; ties to the lower latency, then to the order of
 * &enum vgpu_preempt_tech. Context switch when none meets it.
 */
static enum vgpu_preempt_tech chimera_pick(const struct vgpu_preempt_cost *cost,
					   u64 budget)
{
	enum vgpu_preempt_tech best = VGPU_TECH_SWITCH;
	bool found = false;
	int t;

	for (t = 0; t < VGPU_TECH_NR; t++) {
		const struct vgpu_preempt_cost *c = &cost[t];

		if (!c->allowed || c->latency > budget)
			continue;
		if (found && (c->overhead > cost[best].overhead ||
			      (c->overhead == cost[best].overhead &&
			       c->latency >= cost[best].latency)))
			continue;
		best = t;
		found = true;
	}
	return best;
}

static int chimera_select(const struct vgpu_preempt_input *in,
			  const struct vgpu_preempt_request *req,
			  struct vgpu_preempt_plan *plan)
{
	return vgpu_preempt_plan_sms(in, req, plan, chimera_pick);
}

const struct vgpu_preempt_ops vgpu_preempt_chimera = {
	.name = "chimera",
	.select = chimera_select,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_chimera);
