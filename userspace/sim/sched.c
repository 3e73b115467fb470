// SPDX-License-Identifier: MIT
/*
 * sched.c - warp scheduling policies behind an ops table. Each SM has
 * schedulers_per_sm schedulers; warp slot i belongs to scheduler
 * i % schedulers_per_sm (statically, as sub-cores assign warps; sub-core
 * paper Sec. II). Every cycle each scheduler issues at most one instruction,
 * from a warp that sim_can_issue() allows.
 *
 *   lrr        loose round robin: the first issuable warp after the one
 *              issued last (thesis Sec. 5.4.2 uses LRR between kernels).
 *   gto        greedy then oldest: the warp issued last while it can issue,
 *              else the oldest (first dispatched) issuable warp; the
 *              thesis's baseline (Sec. 3.4) and the sub-core paper's.
 *   two-level  Narasiman et al. (MICRO 2011): a small active set of warps
 *              scheduled round robin; a warp that issues a long-latency
 *              (global/local memory) instruction leaves the set for the
 *              pending pool, and pending warps fill free places in slot order.
 *
 * A new policy adds an ops table here and an enum value in vgpu_sim.h.
 */
#include "sim_int.h"

static inline uint32_t nslots(const struct sm *sm, uint32_t k, uint32_t ns)
{
	return (sm->nws - k + ns - 1) / ns;
}

static struct warp *lrr_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	uint32_t ns = s->cfg.schedulers_per_sm, cnt = nslots(sm, k, ns);
	uint32_t start = sm->rr[k] == UINT32_MAX ? 0 : (sm->rr[k] - k) / ns + 1;

	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t j = start + i, slot;

		if (j >= cnt)
			j -= cnt;
		slot = k + j * ns;
		if (sim_can_issue(sm, k, slot, now))
			return sm->ws[slot];
	}
	return NULL;
}

static void lrr_issued(struct vgpu_sim *s, struct sm *sm, uint32_t k, struct warp *w,
		       bool long_lat)
{
	(void)s;
	(void)long_lat;
	sm->rr[k] = w->slot;
}

static struct warp *gto_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	const uint32_t *o = sm->ord + (size_t)k * sm->ordcap;

	(void)s;
	if (sm->last[k] != UINT32_MAX && sim_can_issue(sm, k, sm->last[k], now))
		return sm->ws[sm->last[k]];
	/* the scheduler's warps in dispatch order: the oldest issuable one */
	for (uint32_t i = 0; i < sm->nord[k]; i++)
		if (sim_can_issue(sm, k, o[i], now))
			return sm->ws[o[i]];
	return NULL;
}

static void gto_issued(struct vgpu_sim *s, struct sm *sm, uint32_t k, struct warp *w,
		       bool long_lat)
{
	(void)s;
	(void)long_lat;
	sm->last[k] = w->slot;
}

static struct warp *tl_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	uint32_t ns = s->cfg.schedulers_per_sm, cnt = nslots(sm, k, ns), nact = 0;
	uint32_t start = sm->rr[k] == UINT32_MAX ? 0 : (sm->rr[k] - k) / ns + 1;
	struct warp *w;

	for (uint32_t slot = k; slot < sm->nws; slot += ns) {
		w = sm->ws[slot];
		/* warps at a barrier give up their place (or it could never fill) */
		if (w && w->active && w->state == W_RUN)
			nact++;
	}
	/* refill the active set from the pending pool, in slot order */
	for (uint32_t slot = k; slot < sm->nws && nact < s->cfg.two_level_active; slot += ns) {
		w = sm->ws[slot];
		if (w && !w->active && w->state == W_RUN &&
		    (w->ready <= now || w->why != WHY_MEM)) {
			w->active = 1;
			nact++;
		}
	}
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t j = start + i;

		if (j >= cnt)
			j -= cnt;
		w = sm->ws[k + j * ns];
		if (w && w->active && sim_can_issue(sm, k, k + j * ns, now))
			return w;
	}
	return NULL;
}

static void tl_issued(struct vgpu_sim *s, struct sm *sm, uint32_t k, struct warp *w,
		      bool long_lat)
{
	(void)s;
	sm->rr[k] = w->slot;
	if (long_lat)
		w->active = 0;
}

static const struct sched_ops ops[VGPU_SCHED_COUNT_] = {
	[VGPU_SCHED_LRR] = { "lrr", lrr_pick, lrr_issued },
	[VGPU_SCHED_GTO] = { "gto", gto_pick, gto_issued },
	[VGPU_SCHED_TWO_LEVEL] = { "two-level", tl_pick, tl_issued },
};

const struct sched_ops *sched_get(uint32_t policy)
{
	return policy < VGPU_SCHED_COUNT_ ? &ops[policy] : NULL;
}
