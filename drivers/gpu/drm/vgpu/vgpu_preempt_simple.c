// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu preemption selection: one technique for every TB.
 *
 * The baselines of Park, dissertation, Ch. IV (§4.4, Fig. 4.5 to 4.7):
 * context switch, drain and flush used alone. Only the per-TB choice
 * differs from Chimera (vgpu_preempt_chimera.c): the costs are estimated
 * the same way (§4.3.2) and the SMs are taken the same way (Algorithm 3,
 * lines 19-28: those that meet the budget, cheapest first), both by the
 * preemption core (vgpu_preempt.c), so that a comparison measures the
 * techniques and not the choice of SMs.
 */

#include <linux/export.h>

#include <kunit/visibility.h>

#include "vgpu_preempt.h"

static enum vgpu_preempt_tech pick_switch(const struct vgpu_preempt_cost *cost,
					  u64 budget)
{
	return VGPU_TECH_SWITCH;
}

static enum vgpu_preempt_tech pick_drain(const struct vgpu_preempt_cost *cost,
					 u64 budget)
{
	return VGPU_TECH_DRAIN;
}

/*
 * A TB that may not be flushed (not idempotent) is drained, as in the
 * thesis' evaluation: there flushing misses deadlines on kernels with
 * short idempotent regions (§4.4.1, BT and FWT), and with the strict
 * condition its violations "will be the same regardless of the preemption
 * latency constraint" (§4.4.3), so the SM waited for such TBs to finish.
 * A context-switch fallback would have met the larger constraints.
 */
static enum vgpu_preempt_tech pick_flush(const struct vgpu_preempt_cost *cost,
					 u64 budget)
{
	return cost[VGPU_TECH_FLUSH].allowed ? VGPU_TECH_FLUSH :
						  VGPU_TECH_DRAIN;
}

static int switch_select(const struct vgpu_preempt_input *in,
			 const struct vgpu_preempt_request *req,
			 struct vgpu_preempt_plan *plan)
{
	return vgpu_preempt_plan_sms(in, req, plan, pick_switch);
}

static int drain_select(const struct vgpu_preempt_input *in,
			const struct vgpu_preempt_request *req,
			struct vgpu_preempt_plan *plan)
{
	return vgpu_preempt_plan_sms(in, req, plan, pick_drain);
}

static int flush_select(const struct vgpu_preempt_input *in,
			const struct vgpu_preempt_request *req,
			struct vgpu_preempt_plan *plan)
{
	return vgpu_preempt_plan_sms(in, req, plan, pick_flush);
}

const struct vgpu_preempt_ops vgpu_preempt_switch = {
	.name = "switch",
	.select = switch_select,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_switch);

const struct vgpu_preempt_ops vgpu_preempt_drain = {
	.name = "drain",
	.select = drain_select,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_drain);

const struct vgpu_preempt_ops vgpu_preempt_flush = {
	.name = "flush",
	.select = flush_select,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_flush);

/*
 * Every TB context-switched at no cost: not a technique but the yardstick
 * of the throughput overhead in vgpu bench chimera (the thesis' effective
 * throughput, §4.4.1, needs a run whose preemptions lose nothing).
 */
const struct vgpu_preempt_ops vgpu_preempt_ideal = {
	.name = "ideal",
	.ideal_switch = true,
	.select = switch_select,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_ideal);
