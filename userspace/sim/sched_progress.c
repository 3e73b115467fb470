// SPDX-License-Identifier: MIT
/*
 * sched_progress.c - the progress-aware warp scheduler of virtual thread
 * blocks (Anantpur and Govindarajan, "Taming Warp Divergence", seed 003,
 * §4.3.2, Algorithm 1), config key "scheduler = progress".
 *
 * A block is in the Barrier state while warps of it wait at a barrier; else
 * in DiffIter while its live warps are in two iterations of the wrapper
 * loop (some took the next logical block already, NEXTTB), else SameIter.
 * The issuable warps are ordered
 *
 *   1. warps of Barrier blocks: the block with more warps at the barrier
 *      first, ties to the block with more progress; in a block, less
 *      progress first (sortBarTbs, sortBarTbWarps);
 *   2. lagging warps (the lower iteration) of DiffIter blocks: the block
 *      with fewer lagging warps first; less progress first
 *      (sortDiffIterTbs, sortDiffIterTbWarps);
 *   3. warps of SameIter blocks by progress: more progress first, block and
 *      warp (sortSameIterTbs, sortSameIterTbWarps); in the slow phase, once
 *      the kernel's last logical block was handed out, less progress first;
 *   4. leading warps of DiffIter blocks: the block with more leading warps
 *      first; less progress first (sortDiffIterTbs2; the paper leaves the
 *      warp order open: the laggard's, less progress first).
 *
 * Ties go to the lower block slot, then the oldest warp. Progress is
 * instructions issued: a warp's since it took its current logical block
 * (its whole run outside virtual blocks), a block's the sum over its warps.
 * Blocks of a kernel that is not virtualised are always SameIter or
 * Barrier, in the fast phase (nothing tells the SM that the grid's last
 * block was dispatched).
 */
#include <string.h>

#include "sim_int.h"

/* What the order needs of a block, worked out once per pick. */
struct tb_prog {
	const struct tb *tb;
	uint64_t progress;
	uint32_t lag, lead;	/* live warps in the lower / the higher iteration */
};

/* A warp's place in the order: compared field by field, lower first. */
struct prog_key {
	uint32_t cls;
	uint64_t tb_key, slot, w_key, age;
};

static uint64_t warp_progress(const struct warp *w)
{
	return w->insts - w->it_start;
}

static const struct tb_prog *tb_prog_of(struct tb_prog *c, uint32_t *n, const struct tb *tb)
{
	struct tb_prog *p;

	for (uint32_t i = 0; i < *n; i++)
		if (c[i].tb == tb)
			return &c[i];
	p = &c[(*n)++];
	memset(p, 0, sizeof(*p));
	p->tb = tb;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		p->progress += warp_progress(w);
		if (w->state == W_DONE || !w->sp)
			continue;
		if (w->vt_iter == tb->vt_min)
			p->lag++;
		else
			p->lead++;
	}
	return p;
}

static void progress_key(const struct tb_prog *p, const struct warp *w, bool slow,
		  struct prog_key *k)
{
	const struct tb *tb = p->tb;
	uint64_t wp = warp_progress(w);

	k->slot = tb->slot;
	k->age = w->age;
	k->w_key = wp;
	if (tb->at_bar) {
		k->cls = 0;
		k->tb_key = (uint64_t)(UINT32_MAX - tb->at_bar) << 32 |
			    (UINT32_MAX - (p->progress > UINT32_MAX ? UINT32_MAX :
					   (uint32_t)p->progress));
	} else if (p->lead && w->vt_iter == tb->vt_min) {
		k->cls = 1;
		k->tb_key = p->lag;
	} else if (!p->lead || !p->lag) {
		k->cls = 2;
		k->tb_key = slow ? p->progress : UINT64_MAX - p->progress;
		k->w_key = slow ? wp : UINT64_MAX - wp;
	} else {
		k->cls = 3;
		k->tb_key = UINT32_MAX - p->lead;
	}
}

static bool key_less(const struct prog_key *a, const struct prog_key *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls;
	if (a->tb_key != b->tb_key)
		return a->tb_key < b->tb_key;
	if (a->slot != b->slot)
		return a->slot < b->slot;
	if (a->w_key != b->w_key)
		return a->w_key < b->w_key;
	return a->age < b->age;
}

struct warp *progress_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
			      const uint8_t *tag, uint8_t want, const uint32_t *last)
{
	uint32_t p = sim_pool(sm, k);
	const uint32_t *o = sm->ord + (size_t)p * sm->ordcap;
	struct tb_prog cache[64];	/* max_tbs_per_sm <= 64 (config_check()) */
	struct prog_key best = { 0 }, key;
	struct warp *pick = NULL;
	uint32_t n = 0;

	(void)s;
	(void)last;
	for (uint32_t i = 0; i < sm->nord[p]; i++) {
		uint32_t slot = o[i];
		const struct warp *w;
		const struct job *j;

		if ((tag && tag[slot] != want) || !sim_can_issue(sm, p, slot, now))
			continue;
		w = sm->ws[slot];
		j = w->tb->job;
		/* the job's counter changes in the serial phase only: no race */
		progress_key(tb_prog_of(cache, &n, w->tb), w,
			     j->virt && j->vt_next >= j->vt_total, &key);
		if (!pick || key_less(&key, &best)) {
			best = key;
			pick = sm->ws[slot];
		}
	}
	return pick;
}

struct warp *progress_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	return progress_pick_in(s, sm, k, now, NULL, 0, NULL);
}
