// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu TLP policy: DYNCTA, dynamic CTA scheduling (Kayiran et al., "Neither
 * More Nor Less", seed 001, §4.1, Algorithm 1).
 *
 * Per SM, every sampling period, from the period's C_idle (cycles with no
 * TB while other SMs had some) and C_mem (cycles in which every warp waited
 * for memory):
 *
 *   C_idle >= t_idle, or else C_mem < t_mem_l  ->  n + 1
 *   otherwise C_mem >= t_mem_h                 ->  n - 1
 *
 * with 1 <= n <= N (N: the kernel's TBs that fit the SM). n starts at
 * ⌊N/2⌋ (vgpu_tlp.c). Raising n while TBs are paused lets the oldest paused
 * TB run again instead of starting a new one (§4.1, "CTA pausing"; the
 * pseudo-code's "unpause least recently assigned CTA"); lowering it pauses
 * the newest: vgpu_tlp_sync() keeps the TBs beyond n, the newest, paused.
 */

#include <linux/bitops.h>

#include <kunit/visibility.h>

#include "vgpu_sched.h"
#include "vgpu_trace.h"
#include "vgpu_tlp.h"

/**
 * vgpu_dyncta_first_limit() - DYNCTA's initial n.
 * @s: the scheduler.
 * @max: N.
 *
 * Return: ⌊N/2⌋, at least 1 (§4.1; N = 1 starts at 1).
 */
u32 vgpu_dyncta_first_limit(const struct vgpu_sched *s, u32 max)
{
	return max(max / 2, 1U);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_dyncta_first_limit);

/**
 * vgpu_dyncta_next_limit() - Algorithm 1 for one SM and one period.
 * @t: the thresholds.
 * @n: the SM's limit.
 * @max: N, the kernel's TBs that fit the SM.
 * @ncta: the TBs on the SM, paused ones included.
 * @smp: the SM's counters of the period.
 *
 * Comparisons as Algorithm 1 writes them (>= t_idle, < t_mem_l,
 * >= t_mem_h). n grows while a paused TB is there (n < nCTA) or n < N; it
 * never falls below 1.
 *
 * Return: the SM's new limit.
 */
u32 vgpu_dyncta_next_limit(const struct vgpu_tlp *t, u32 n, u32 max,
			   u32 ncta, const struct vgpu_evt_sample *smp)
{
	if (smp->c_idle >= t->t_idle || smp->c_mem < t->t_mem_l) {
		if (ncta > n || n < max)
			return n + 1;
		return n;
	}
	if (smp->c_mem >= t->t_mem_h && n > 1)
		return n - 1;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_dyncta_next_limit);

/**
 * vgpu_dyncta_sample() - DYNCTA's decision for @sm after a period.
 * @s: the scheduler.
 * @sm: the SM.
 * @smp: its counters of the period.
 *
 * An SM that has not yet held a TB keeps no limit. Each change of n is
 * traced (vgpu_tlp_limit). DYNCORE uses it too. Device lock held.
 */
void vgpu_dyncta_sample(struct vgpu_sched *s, u32 sm,
			const struct vgpu_evt_sample *smp)
{
	struct vgpu_tlp *t = &s->tlp;
	struct vgpu_tlp_sm *ts = &t->sms[sm];
	u32 n;

	if (!ts->job)
		return;
	n = vgpu_dyncta_next_limit(t, ts->limit, ts->max,
				   hweight64(s->smst.sms[sm].slot_map), smp);
	if (n == ts->limit)
		return;
	if (n > ts->limit)
		t->stats.raised++;
	else
		t->stats.lowered++;
	trace_vgpu_tlp_limit(sm, ts->limit, n, ts->max, smp->c_idle,
			     smp->c_mem, s->cycle);
	ts->limit = n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_dyncta_sample);

const struct vgpu_tlp_ops vgpu_tlp_dyncta = {
	.name = "dyncta",
	.first_limit = vgpu_dyncta_first_limit,
	.sample = vgpu_dyncta_sample,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_dyncta);
