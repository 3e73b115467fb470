// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu TLP policy: DYNCORE, DYNCTA with core gating (Kayiran et al.,
 * "Neither More Nor Less", seed 001, §4.2).
 *
 * Each SM's limit follows DYNCTA. After every sampling period the active
 * cycles of the SMs that are on are summed (G_act) and compared with t_act,
 * t_act_pct percent of all SMs' cycles of a period (the paper's 40,960 is
 * 66 % of 30 SMs x 2,048 cycles): below it the device behaves as a
 * memory-bound application and gate_sms SMs, the highest-numbered, are
 * turned off - no TB starts there and the resident ones run to their end;
 * at or above it every SM is on again, those still draining included.
 * G_act leaves out the SMs that are off, so once they are off the others
 * must be busier than t_act to turn them back on: the hysteresis comes
 * from the measure itself, as in the paper.
 */

#include <linux/kernel.h>
#include <linux/math64.h>

#include <kunit/visibility.h>

#include "vgpu_sched.h"
#include "vgpu_trace.h"
#include "vgpu_tlp.h"

/**
 * vgpu_dyncore_gate() - whether SMs are to be off after a period.
 * @t: the thresholds (&vgpu_tlp.t_act_pct).
 * @num_sms: the SMs of the device.
 * @g_act: active cycles of the period summed over the SMs that were on.
 *
 * Return: true when G_act < t_act.
 */
bool vgpu_dyncore_gate(const struct vgpu_tlp *t, u32 num_sms, u64 g_act)
{
	u64 t_act = div_u64((u64)num_sms * VGPU_TLP_PERIOD * t->t_act_pct, 100);

	return g_act < t_act;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_dyncore_gate);

static void vgpu_dyncore_period_end(struct vgpu_sched *s)
{
	struct vgpu_tlp *t = &s->tlp;
	u32 n = s->smst.num_sms, off = 0, cur = 0, sm;

	/* at least one SM stays on */
	if (vgpu_dyncore_gate(t, n, t->period_act))
		off = min(t->gate_sms, n - 1);
	for (sm = 0; sm < n; sm++)
		cur += t->sms[sm].gated;
	if (cur == off)
		return;
	for (sm = 0; sm < n; sm++)
		t->sms[sm].gated = sm >= n - off;
	t->stats.gate_changes++;
	trace_vgpu_tlp_gate(off, t->period_act, s->cycle);
}

const struct vgpu_tlp_ops vgpu_tlp_dyncore = {
	.name = "dyncore",
	.first_limit = vgpu_dyncta_first_limit,
	.sample = vgpu_dyncta_sample,
	.period_end = vgpu_dyncore_period_end,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_dyncore);
