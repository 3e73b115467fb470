// SPDX-License-Identifier: MIT
/*
 * sched.c - warp scheduling policies behind an ops table. Each SM has
 * schedulers_per_sm schedulers; warp slot i belongs to scheduler
 * i % schedulers_per_sm (statically, as sub-cores assign warps; sub-core
 * paper Sec. II). Every cycle each scheduler issues at most one instruction,
 * from a warp that sim_can_issue() allows. A fully connected SM
 * (fully_connected; sub-core paper Sec. I, VI-B1) has one warp pool that
 * every scheduler picks from, in scheduler order (sim_pool()): the policies'
 * per-pool state (ages, run masks) is shared, their per-scheduler state
 * (GTO's greedy warp, round robin's position) stays per scheduler.
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
 *   elf        earliest load first (thesis Ch. III): the issuable warp with
 *              the fewest instructions to its next global/local load, from
 *              the compiler's program points the image carries (Algorithms
 *              1-2: 32 points, 8-bit scores; job_elf_prio()); ties go to the
 *              oldest warp. Fetch follows the same priority (mem.c,
 *              mem_fetch_resolve()).
 *   rba        register-bank-aware (sub-core paper Sec. IV-A): score = the
 *              sum over the source operands of the requests queued at the
 *              operand's register bank (bank (reg + warp slot) % reg_banks
 *              of the scheduler's sub-core; a bank reads one register a
 *              cycle, so the queue is its busy time beyond now); the
 *              lowest score issues, ties to the oldest warp.
 *
 *   progress   progress-aware (seed 003 §4.3.2; sched_progress.c): Barrier
 *              blocks, lagging warps of blocks whose warps are in two
 *              iterations of the virtual-block loop, the other blocks by
 *              progress, then the leading warps.
 *
 * A new policy adds an ops table here and an enum value in vgpu_sim.h.
 *
 * Kernel-aware warp scheduling (thesis Ch. V §5.4.3, §5.5.2; config key
 * kernel_sched, VGPU_CMD_SET_KERNEL_SCHED) sits on top of the policy: when
 * thread blocks of two or more kernels (jobs) share an SM, each scheduler
 * first chooses the kernel, then the policy picks among that kernel's warps
 * only (pick_in), as "each kernel can utilize GTO". With one kernel on the
 * SM, and in mode none, the policy's own pick runs: the same cycles.
 *
 *   lrr   loose round robin between kernels: priority goes to the kernel
 *         after the one that issued last (in the order the kernels came to
 *         the SM); if it has no issuable warp, the next one that has issues.
 *         So priority flips whenever a lower-priority kernel has a ready
 *         instruction (§5.4.3).
 *   ipr   per scheduler and kernel, IPR = issued / ready warps, both summed
 *         over the cycles the kernels share the SM (Eq. 5.3; "ready": can
 *         issue at that cycle). The kernel with the lowest IPR has
 *         priority, ties in arrival order; IPR is 0 before any ready warp.
 *         The decision uses the sums up to the cycle before.
 *   fair  Eq. 5.4: C_k = x% * S_k / T_k, Quota_k = C_k / sum C_k, with
 *         S_k the kernel's blocks on the SM, T_k its blocks that fit an
 *         empty SM, x% the share of SM cycles that issued while it was the
 *         only kernel on an SM (1 before any). Priority to the kernel with
 *         the smallest issued_k / C_k, issued_k counted on the scheduler
 *         since the SM's set of kernels last changed: the one furthest
 *         below its quota, so that issued_k / sum issued tracks Quota_k.
 *
 * Blocks given priority (vgpu_sim_set_tb_priority(); §5.4.3: draining and
 * 2-way boundary blocks) have their warps picked first in these modes.
 * All of it is per SM and per scheduler: the parallel phase stays exact.
 *
 * DYNCTA's paused blocks (Kayiran et al. §4.1, vgpu_sim_set_tb_paused()):
 * on an SM with one kernel, or in mode none, the policy picks among the
 * warps of unpaused blocks first and only when none can issue among the
 * paused ones (pause_pick): "deprioritized", not stopped. Where the
 * kernel-aware order applies, it decides alone.
 */
#include <string.h>

#include "sim_int.h"

/* warp slots of pool @p */
static inline uint32_t nslots(const struct sm *sm, uint32_t p)
{
	return (sm->nws - p + sm->npool - 1) / sm->npool;
}

static struct warp *lrr_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	uint32_t p = sim_pool(sm, k), np = sm->npool, cnt = nslots(sm, p);
	uint32_t start = sm->rr[k] == UINT32_MAX ? 0 : (sm->rr[k] - p) / np + 1;

	(void)s;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t j = start + i, slot;

		if (j >= cnt)
			j -= cnt;
		slot = p + j * np;
		if (sim_can_issue(sm, p, slot, now))
			return sm->ws[slot];
	}
	return NULL;
}

static struct warp *lrr_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
				const uint8_t *tag, uint8_t want, const uint32_t *last)
{
	uint32_t p = sim_pool(sm, k), np = sm->npool, cnt = nslots(sm, p);
	uint32_t start = *last == UINT32_MAX ? 0 : (*last - p) / np + 1;

	(void)s;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t j = start + i, slot;

		if (j >= cnt)
			j -= cnt;
		slot = p + j * np;
		if (tag[slot] == want && sim_can_issue(sm, p, slot, now))
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
	uint32_t p = sim_pool(sm, k);
	const uint32_t *o = sm->ord + (size_t)p * sm->ordcap;

	(void)s;
	if (sm->last[k] != UINT32_MAX && sim_can_issue(sm, p, sm->last[k], now))
		return sm->ws[sm->last[k]];
	/* the pool's warps in dispatch order: the oldest issuable one */
	for (uint32_t i = 0; i < sm->nord[p]; i++)
		if (sim_can_issue(sm, p, o[i], now))
			return sm->ws[o[i]];
	return NULL;
}

static struct warp *gto_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
				const uint8_t *tag, uint8_t want, const uint32_t *last)
{
	uint32_t p = sim_pool(sm, k);
	const uint32_t *o = sm->ord + (size_t)p * sm->ordcap;
	uint32_t l = *last;

	(void)s;
	if (l != UINT32_MAX && tag[l] == want && sim_can_issue(sm, p, l, now))
		return sm->ws[l];
	for (uint32_t i = 0; i < sm->nord[p]; i++)
		if (tag[o[i]] == want && sim_can_issue(sm, p, o[i], now))
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

/*
 * Two-level: fills the active set of scheduler @k's pool from the pending
 * pool (a fully connected SM's one pool has every scheduler's places).
 */
static void tl_refill(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	uint32_t p = sim_pool(sm, k), ns = sm->npool, nact = 0;
	uint32_t cap = s->cfg.two_level_active * (sm->nsched / sm->npool);
	struct warp *w;

	for (uint32_t slot = p; slot < sm->nws; slot += ns) {
		w = sm->ws[slot];
		/* warps at a barrier give up their place (or it could never fill) */
		if (w && w->active && w->state == W_RUN)
			nact++;
	}
	/* refill the active set from the pending pool, in slot order */
	for (uint32_t slot = p; slot < sm->nws && nact < cap; slot += ns) {
		w = sm->ws[slot];
		if (w && !w->active && w->state == W_RUN &&
		    (w->ready <= now || w->why != WHY_MEM)) {
			w->active = 1;
			nact++;
		}
	}
}

static struct warp *tl_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	uint32_t p = sim_pool(sm, k), ns = sm->npool, cnt = nslots(sm, p);
	uint32_t start = sm->rr[k] == UINT32_MAX ? 0 : (sm->rr[k] - p) / ns + 1;
	struct warp *w;

	tl_refill(s, sm, k, now);
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t j = start + i;

		if (j >= cnt)
			j -= cnt;
		w = sm->ws[p + j * ns];
		if (w && w->active && sim_can_issue(sm, p, p + j * ns, now))
			return w;
	}
	return NULL;
}

static struct warp *tl_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
			       const uint8_t *tag, uint8_t want, const uint32_t *last)
{
	uint32_t p = sim_pool(sm, k), ns = sm->npool, cnt = nslots(sm, p);
	uint32_t start = *last == UINT32_MAX ? 0 : (*last - p) / ns + 1;
	struct warp *w;

	tl_refill(s, sm, k, now);
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t j = start + i;

		if (j >= cnt)
			j -= cnt;
		w = sm->ws[p + j * ns];
		if (w && w->active && tag[p + j * ns] == want &&
		    sim_can_issue(sm, p, p + j * ns, now))
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

/*
 * ELF's priority of instruction @pc (decoded index) from the program points
 * of @j (thesis Sec. 3.3.2): the first point at or after @pc, d
 * instructions away, gives d plus its score for a branch; a load whose
 * score s > 0 stands for a merged earlier point s before it, so d - s
 * while d > s; no point ahead gives VGPU_ELF_MAX_SCORE. Lower issues first.
 */
uint8_t job_elf_prio(const struct elf_pt *pt, uint32_t n, uint32_t pc)
{
	uint32_t d;

	for (uint32_t i = 0; i < n; i++) {
		if (pt[i].idx < pc)
			continue;
		d = pt[i].idx - pc;
		if (pt[i].branch)
			d += pt[i].score;
		else if (pt[i].score && d > pt[i].score)
			d -= pt[i].score;
		return (uint8_t)(d < VGPU_ELF_MAX_SCORE ? d : VGPU_ELF_MAX_SCORE);
	}
	return VGPU_ELF_MAX_SCORE;
}

/* ELF: the lowest priority value among the issuable warps, oldest first. */
static struct warp *elf_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
				const uint8_t *tag, uint8_t want, const uint32_t *last)
{
	uint32_t p = sim_pool(sm, k);
	const uint32_t *o = sm->ord + (size_t)p * sm->ordcap;
	uint32_t best = UINT32_MAX, bp = UINT32_MAX;

	(void)s;
	(void)last;
	for (uint32_t i = 0; i < sm->nord[p] && bp; i++) {
		uint32_t slot = o[i];

		if ((tag && tag[slot] != want) || !sim_can_issue(sm, p, slot, now))
			continue;
		if (sm->sum[slot].prio < bp) {
			bp = sm->sum[slot].prio;
			best = slot;
		}
	}
	return best == UINT32_MAX ? NULL : sm->ws[best];
}

static struct warp *elf_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	return elf_pick_in(s, sm, k, now, NULL, 0, NULL);
}

static void nop_issued(struct vgpu_sim *s, struct sm *sm, uint32_t k, struct warp *w,
		       bool long_lat)
{
	(void)s;
	(void)sm;
	(void)k;
	(void)w;
	(void)long_lat;
}

/*
 * RBA's score of the warp in @slot on scheduler @k at @now: over the source
 * operands of its next instruction, the reads queued at each one's bank
 * (of the scheduler's sub-core, or of the whole fully connected SM).
 */
uint32_t rba_score(const struct vgpu_sim *s, const struct sm *sm, uint32_t k, uint32_t slot,
		   uint64_t now)
{
	uint32_t nb = s->cfg.reg_banks, score = 0;
	const uint64_t *bank = sm->t.bank_free + (sm->fc ? 0 : (size_t)k * (nb + 1));
	const struct warp *w = sm->ws[slot];
	const struct job *j = w->tb->job;
	uint32_t pc = w->stack[w->sp - 1].pc;
	const struct itime *ti;

	if (!nb || !s->cfg.collectors || pc >= j->ncode)
		return 0;
	if (sm->fc)
		nb *= sm->nsched;
	ti = &j->tim[pc];
	for (unsigned int i = 0; i < ti->nsrc; i++) {
		uint64_t b = bank[(ti->src[i] + slot) % nb];

		if (b > now)
			score += (uint32_t)(b - now < 1024 ? b - now : 1024);
	}
	return score;
}

static struct warp *rba_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
				const uint8_t *tag, uint8_t want, const uint32_t *last)
{
	uint32_t p = sim_pool(sm, k);
	const uint32_t *o = sm->ord + (size_t)p * sm->ordcap;
	uint32_t best = UINT32_MAX, bs = UINT32_MAX;

	(void)last;
	for (uint32_t i = 0; i < sm->nord[p] && bs; i++) {
		uint32_t slot = o[i], sc;

		if ((tag && tag[slot] != want) || !sim_can_issue(sm, p, slot, now))
			continue;
		sc = rba_score(s, sm, k, slot, now);
		if (sc < bs) {
			bs = sc;
			best = slot;
		}
	}
	return best == UINT32_MAX ? NULL : sm->ws[best];
}

static struct warp *rba_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	return rba_pick_in(s, sm, k, now, NULL, 0, NULL);
}

static const struct sched_ops ops[VGPU_SCHED_COUNT_] = {
	[VGPU_SCHED_LRR] = { "lrr", lrr_pick, lrr_issued, false, lrr_pick_in },
	[VGPU_SCHED_GTO] = { "gto", gto_pick, gto_issued, true, gto_pick_in },
	[VGPU_SCHED_TWO_LEVEL] = { "two-level", tl_pick, tl_issued, false, tl_pick_in },
	[VGPU_SCHED_ELF] = { "elf", elf_pick, nop_issued, false, elf_pick_in },
	[VGPU_SCHED_RBA] = { "rba", rba_pick, nop_issued, false, rba_pick_in },
	[VGPU_SCHED_PROGRESS] = { "progress", progress_pick, nop_issued, false, progress_pick_in },
};

/* The sub-core of warp id @w (sub-core paper Sec. IV-B). */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint32_t vgpu_sim_subcore_of(uint32_t mode, uint32_t seed, uint32_t sm, uint32_t w, uint32_t n)
{
	uint32_t perm[64], g = w / n;
	uint64_t r;

	if (n <= 1)
		return 0;
	switch (mode) {
	case VGPU_SUBCORE_SRR:
		return (w + w / n) % n;
	case VGPU_SUBCORE_SHUFFLE:
		/*
		 * Each group of n consecutive warp ids takes a permutation of
		 * the sub-cores (balanced), drawn from (seed, SM, group) alone:
		 * the same every run.
		 */
		r = mix64((uint64_t)seed << 32 ^ (uint64_t)sm << 20 ^ g);
		for (uint32_t i = 0; i < n && i < 64; i++)
			perm[i] = i;
		for (uint32_t i = n - 1; i > 0 && n <= 64; i--) {
			uint32_t x = (uint32_t)(r % (i + 1)), t;

			r = mix64(r);
			t = perm[i];
			perm[i] = perm[x];
			perm[x] = t;
		}
		return n <= 64 ? perm[w % n] : w % n;
	default:
		return w % n;
	}
}

const struct sched_ops *sched_get(uint32_t policy)
{
	return policy < VGPU_SCHED_COUNT_ ? &ops[policy] : NULL;
}

/*
 * Scheduler @k of @sm with paused blocks: the policy's pick among the warps
 * of running blocks, else among the paused ones. The policy's own state
 * (GTO's greedy warp, round robin's position) carries over: GTO keeps it in
 * sm->last, the round-robin policies in sm->rr, the others none.
 */
struct warp *pause_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	const uint32_t *last = sm->last[k] != UINT32_MAX ? &sm->last[k] : &sm->rr[k];
	struct warp *w = s->sched->pick_in(s, sm, k, now, sm->wpause, 0, last);

	return w ? w : s->sched->pick_in(s, sm, k, now, sm->wpause, 1, last);
}

/* ------------------------------------------------------------------ */
/* kernel-aware warp scheduling (thesis §5.4.3, §5.5.2) */

/* Whether scheduler @k of @sm picks with ka_pick(). */
void ka_update(const struct vgpu_sim *s, struct sm *sm)
{
	sm->kon = s->kmode != VGPU_KSCHED_NONE;
	sm->ka = sm->kon && sm->nk >= 2;
}

/* fair: the issue counts start again when the SM's kernels change */
static void fair_restart(const struct vgpu_sim *s, struct sm *sm)
{
	uint32_t cap = s->nslots;

	for (uint32_t q = 0; q < sm->nsched; q++)
		for (uint32_t i = 0; i < sm->nk; i++)
			sm->ks[(size_t)q * cap + sm->klist[i]].fiss = 0;
}

/* Every scheduler's kernel-aware state starts afresh (a new mode, an idle SM). */
void ka_restart(struct vgpu_sim *s, struct sm *sm)
{
	uint32_t cap = s->nslots;

	for (uint32_t q = 0; q < sm->nsched; q++) {
		sm->klast[q] = sm->plast[q] = UINT32_MAX;
		for (uint32_t i = 0; i < cap; i++)
			sm->ks[(size_t)q * cap + i] = (struct kstate){ .last = UINT32_MAX };
	}
	ka_update(s, sm);
}

/* A block of @j comes to @sm: its kernel's index there (a new one if first). */
uint8_t ka_join(struct vgpu_sim *s, struct sm *sm, struct job *j)
{
	uint32_t cap = s->nslots, f = 0;

	for (uint32_t i = 0; i < sm->nk; i++) {
		if (sm->kern[sm->klist[i]].job == j) {
			sm->kern[sm->klist[i]].ntbs++;
			return (uint8_t)sm->klist[i];
		}
	}
	/* a free index exists: each kernel on the SM holds a block slot */
	while (sm->kern[f].job)
		f++;
	sm->kern[f] = (struct kern){ .job = j, .ntbs = 1 };
	for (uint32_t q = 0; q < sm->nsched; q++)
		sm->ks[(size_t)q * cap + f] = (struct kstate){ .last = UINT32_MAX };
	sm->klist[sm->nk++] = f;
	fair_restart(s, sm);
	ka_update(s, sm);
	return (uint8_t)f;
}

/*
 * A block of kernel @kidx leaves @sm; with its last block the kernel's x%
 * measurement goes to its job (the serial phase: other SMs read it).
 */
void ka_leave(struct vgpu_sim *s, struct sm *sm, uint8_t kidx)
{
	struct kern *kn = &sm->kern[kidx];

	if (--kn->ntbs)
		return;
	kn->job->alone_cycles += kn->alone_cycles;
	kn->job->alone_issue += kn->alone_issue;
	kn->job = NULL;
	for (uint32_t i = 0; i < sm->nk; i++) {
		if (sm->klist[i] == kidx) {
			memmove(sm->klist + i, sm->klist + i + 1,
				(sm->nk - i - 1) * sizeof(*sm->klist));
			sm->nk--;
			break;
		}
	}
	fair_restart(s, sm);
	ka_update(s, sm);
}

/*
 * Fair's C_k = x% * S_k / T_k (Eq. 5.4) in fixed point (x% in 1/65536,
 * times 256): never 0, so that every kernel keeps some share.
 */
static uint64_t fair_c(const struct sm *sm, uint32_t kidx)
{
	const struct kern *kn = &sm->kern[kidx];
	const struct job *j = kn->job;
	uint64_t cyc = j->alone_cycles + kn->alone_cycles;
	uint64_t iss = j->alone_issue + kn->alone_issue;
	uint64_t x = cyc ? (iss << 16) / cyc : 1u << 16;
	uint64_t c = x * kn->ntbs * 256 / (j->tfit ? j->tfit : 1);

	return c ? c : 1;
}

typedef unsigned __int128 u128;

/* Kernel indices of @sm in the order scheduler @k tries them. */
static void ka_order(const struct vgpu_sim *s, const struct sm *sm, uint32_t k,
		     uint32_t *order)
{
	const struct kstate *ks = sm->ks + (size_t)k * s->nslots;
	uint32_t n = sm->nk, p = 0;
	uint64_t c[64];

	if (s->kmode == VGPU_KSCHED_LRR) {
		/* the kernel after the one that issued last has priority */
		for (uint32_t i = 0; i < n; i++)
			if (sm->klist[i] == sm->klast[k])
				p = i + 1;
		for (uint32_t i = 0; i < n; i++)
			order[i] = sm->klist[(p + i) % n];
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		order[i] = sm->klist[i];
		if (s->kmode == VGPU_KSCHED_FAIR)
			c[sm->klist[i]] = fair_c(sm, sm->klist[i]);
	}
	/* stable insertion sort, ascending IPR or issued / C */
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = order[i], y;
		uint32_t at = i;

		while (at > 0) {
			bool before;

			y = order[at - 1];
			if (s->kmode == VGPU_KSCHED_IPR) {
				/* iss_x / rdy_x < iss_y / rdy_y; 0 / 0 is 0 */
				before = (u128)ks[x].iss * (ks[y].rdy ? ks[y].rdy : 1) <
					 (u128)ks[y].iss * (ks[x].rdy ? ks[x].rdy : 1);
			} else {
				before = (u128)ks[x].fiss * c[y] < (u128)ks[y].fiss * c[x];
			}
			if (!before)
				break;
			order[at] = y;
			at--;
		}
		order[at] = x;
	}
}

/*
 * Scheduler @k of @sm with two or more kernels: priority blocks first, then
 * the kernels in the mode's order, each through the policy's pick_in.
 */
struct warp *ka_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now)
{
	const struct sched_ops *o = s->sched;
	uint32_t cap = s->nslots, ns = sm->npool, p = sim_pool(sm, k);
	struct kstate *ks = sm->ks + (size_t)k * cap;
	uint32_t order[64], rdy[64];
	bool ipr = s->kmode == VGPU_KSCHED_IPR;
	struct warp *w = NULL;
	uint8_t kidx;

	if (ipr) {
		/* this cycle's ready warps per kernel (Eq. 5.3) */
		for (uint32_t i = 0; i < sm->nk; i++)
			rdy[sm->klist[i]] = 0;
		for (uint32_t slot = p; slot < sm->nws; slot += ns)
			if (sim_can_issue(sm, p, slot, now))
				rdy[sm->wk[slot]]++;
	}
	if (sm->nprio)
		w = o->pick_in(s, sm, k, now, sm->wp, 1, &sm->plast[k]);
	if (w) {
		sm->plast[k] = w->slot;
	} else {
		ka_order(s, sm, k, order);
		for (uint32_t i = 0; i < sm->nk && !w; i++) {
			if (ipr && !rdy[order[i]])
				continue;
			w = o->pick_in(s, sm, k, now, sm->wk, (uint8_t)order[i],
				       &ks[order[i]].last);
		}
	}
	if (ipr)
		for (uint32_t i = 0; i < sm->nk; i++)
			ks[sm->klist[i]].rdy += rdy[sm->klist[i]];
	if (!w)
		return NULL;
	kidx = sm->wk[w->slot];
	ks[kidx].last = w->slot;
	ks[kidx].iss++;
	ks[kidx].fiss++;
	sm->klast[k] = kidx;
	return w;
}
