// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu partition policy warped-slicer: intra-SM slicing from single-kernel
 * performance profiles.
 *
 * Warped-Slicer (Xu et al., ISCA 2016, reference [93] of Park,
 * dissertation; Ch. V §5.5.4 and §5.6.2) shares every SM between the
 * running kernels like SMK, but "uses single kernel execution profiles to
 * partition resources within an SM" and so considers uneven partitioning;
 * it does not see the interference between kernels (§5.5.4: pairs with BFS
 * suffer from it; §5.1: profiles miss what co-running changes). The
 * thesis names the inputs and the goal, not the steps; the steps below
 * are the paper's profiling and water-filling as this driver applies them:
 *
 * 1. Profiling, online. While a kernel has no curve, the SMs are split into
 *    one contiguous group per kernel that takes part in the decision (job
 *    order; &vgpu_sched.sm_owner): one with TBs to issue, or one profiled
 *    whose TBs still run (vgpu_ws_member()). Each kernel runs alone on its
 *    group, and SM j of a group of m SMs gets a different TB count for the
 *    kernel (vgpu_ws_profile_quota(): 1 + j mod max, or spread over 1 ...
 *    max when the group has fewer SMs than the kernel fits TBs per SM).
 *    A kernel that already has a curve runs on its group without limit.
 *    Every TB_DONE of a profiled kernel adds its warp instructions and its
 *    cycles to the TB count of its SM; the throughput of q TBs is q times
 *    the TBs' mean instructions per cycle (vgpu_ws_build_curve()).
 * 2. The curve is built when every TB count in use has seen a full round
 *    (q TBs done at count q), or after %VGPU_WS_PROFILE_CYCLES with at
 *    least one sample; a kernel that completes no TB in
 *    %VGPU_WS_PROFILE_GIVE_UP windows gets no curve.
 * 3. Partition. With a curve for every kernel, the per-SM TB counts
 *    (t_1 ... t_k) maximise the sum of normalised performance
 *    perf_i(t_i) / perf_i(best) (each kernel's share of its single-kernel
 *    best: STP, Eq. 5.2 of §5.2.1, on one SM) subject to one SM's TB slots,
 *    threads, registers and shared memory, by water-filling: each kernel
 *    first gets &vgpu_smk_conf.quota_min TBs, then TBs go, step by step,
 *    to the kernel whose next TBs add the most normalised performance per
 *    TB (vgpu_ws_solve()). The counts become &vgpu_kcb_entry.quota on
 *    every SM and the generic TB scheduler vgpu_sched_tb_dispatch()
 *    carries them out. More than two kernels are filled together by the
 *    same greedy rule (up to %VGPU_WS_MAX_KERNELS).
 *
 * A kernel alone gets no quota (the whole device, as smk-even); a kernel
 * without a curve after profiling, more kernels than SMs to profile on, or
 * more than %VGPU_WS_MAX_KERNELS kernels fall back to smk-even's quotas.
 * Everything is integer arithmetic on simulated cycles; ties go to the
 * kernel lower on its curve, then by job order, so the same inputs give
 * the same partition.
 *
 * State: one &struct vgpu_ws_kernel per profiled kernel, on the device's
 * list (&struct vgpu_ws, the policy's &vgpu_sched.policy_data), found by
 * KCB entry and job id. Allocated in plan(); freed by the first plan()
 * after its kernel left the KCB (so with the KCB empty, no kernel's state
 * is left), and all of it by release() when another policy is selected or
 * the daemon detaches: a kernel profiled before a switch away is profiled
 * afresh after a switch back.
 *
 * Locking: plan, dispatch, tb_done and release run under the device lock,
 * which guards the list and every state's fields.
 */

#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include <drm/vgpu_drm.h>

#include "vgpu_policy_warped_slicer.h"

/*
 * Profiling window in cycles: GPU Maestro's epoch (Ch. V §5.4.1), so that
 * both learn over the same span.
 */
#define VGPU_WS_PROFILE_CYCLES	50000

/* Windows after which a kernel that completed no TB gets no curve. */
#define VGPU_WS_PROFILE_GIVE_UP	4

/**
 * struct vgpu_ws - the policy's state of one device (&vgpu_sched.policy_data
 *	while warped-slicer is active); device lock.
 * @kernels: the &struct vgpu_ws_kernel of its kernels.
 */
struct vgpu_ws {
	struct list_head kernels;
};

/**
 * vgpu_ws_profile_quota() - TB count of one SM of a profiling group.
 * @j: the SM's index in the group.
 * @m: SMs in the group (at least 1).
 * @max_tbs: TBs of the kernel that fit on an empty SM (at least 1).
 *
 * With at least as many SMs as counts, SM j runs 1 + j mod @max_tbs TBs;
 * with fewer, the counts are spread evenly up to @max_tbs, so that the
 * curve's end is always measured and the points between are interpolated.
 *
 * Return: the count, 1 ... @max_tbs.
 */
VISIBLE_IF_KUNIT u32 vgpu_ws_profile_quota(u32 j, u32 m, u32 max_tbs)
{
	if (!m || !max_tbs)
		return 1;
	if (m >= max_tbs)
		return 1 + j % max_tbs;
	return min_t(u32, DIV_ROUND_UP((u64)(j % m + 1) * max_tbs, m),
		     max_tbs);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_ws_profile_quota);

/**
 * vgpu_ws_build_curve() - a kernel's curve from its profiling samples.
 * @smp: the samples.
 * @max_tbs: TBs of the kernel that fit on an empty SM (clamped to 1 ...
 *	%VGPU_WS_MAX_TBS).
 * @c: the curve.
 *
 * A measured count q gives perf(q) = q * insts(q) / cycles(q): q TBs at
 * the measured mean rate of one. Counts not measured are interpolated
 * linearly between their measured neighbours; below the first measured
 * count throughput is taken as proportional to the TBs (from 0), above the
 * last as flat (nothing says more TBs help).
 *
 * Return: 0, or -ENODATA when no count was measured (@c then all 0).
 */
VISIBLE_IF_KUNIT int vgpu_ws_build_curve(const struct vgpu_ws_samples *smp,
					 u32 max_tbs, struct vgpu_ws_curve *c)
{
	u32 q, lo = 0, first = 0;

	max_tbs = clamp_t(u32, max_tbs, 1, VGPU_WS_MAX_TBS);
	memset(c, 0, sizeof(*c));
	c->max_tbs = max_tbs;
	for (q = 1; q <= max_tbs; q++) {
		u64 p;
		u32 t;

		if (!smp->tbs[q] || !smp->cycles[q])
			continue;
		p = div64_u64((smp->insts[q] * q) << VGPU_WS_PERF_SHIFT,
			      smp->cycles[q]);
		c->perf[q] = p;
		if (!first) {
			first = q;
			for (t = 1; t < q; t++)
				c->perf[t] = div_u64(p * t, q);
		} else {
			/* Linear between lo and q, in integers. */
			for (t = lo + 1; t < q; t++) {
				u64 a = c->perf[lo], d = q - lo, x = t - lo;

				c->perf[t] = p >= a ?
					a + div64_u64((p - a) * x, d) :
					a - div64_u64((a - p) * x, d);
			}
		}
		lo = q;
	}
	if (!first)
		return -ENODATA;
	for (q = lo + 1; q <= max_tbs; q++)
		c->perf[q] = c->perf[lo];
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_ws_build_curve);

/* Whether @d more TBs of @need fit beside @used. */
static bool vgpu_ws_fits(const u64 *cap, const u64 *used, const u64 *need,
			 u32 d)
{
	u32 r;

	for (r = 0; r < VGPU_SMK_NR_RES; r++)
		if (used[r] + (u64)d * need[r] > cap[r])
			return false;
	return true;
}

static void vgpu_ws_take(u64 *used, struct vgpu_ws_part *p, u32 d)
{
	u32 r;

	for (r = 0; r < VGPU_SMK_NR_RES; r++)
		used[r] += (u64)d * p->need[r];
	p->tbs += d;
}

/* perf(t) / perf(best) in units of %VGPU_WS_ONE. */
static u64 vgpu_ws_norm(const struct vgpu_ws_curve *c, u64 best, u32 t)
{
	return best ? div64_u64(c->perf[t] * VGPU_WS_ONE, best) : 0;
}

/**
 * vgpu_ws_solve() - the per-SM TB counts of Warped-Slicer.
 * @cap: one SM's capacity (vgpu_smk_caps()).
 * @parts: the kernels, in job order; @parts[i].tbs is the result.
 * @k: number of kernels (at most %VGPU_WS_MAX_KERNELS).
 *
 * Maximises the sum over kernels of perf_i(t_i) / perf_i(best), where
 * perf_i(best) is the best point of kernel i's curve, with sum_i t_i
 * need_i within @cap. Each kernel first gets its @min TBs (job order,
 * where they fit); then, one step at a time, the kernel and step d whose
 * d more TBs add the most normalised performance per TB get them (the
 * step looks ahead to the curve's next higher point, so a flat stretch
 * before a rise does not stop the filling). Ties go to the kernel whose
 * normalised performance is lower (the water level), then to job order,
 * then to the smaller step. Stops when no step that fits adds anything.
 * For concave curves and one binding resource this greedy marginal-gain
 * filling is the optimum.
 */
VISIBLE_IF_KUNIT void vgpu_ws_solve(const u64 *cap, struct vgpu_ws_part *parts,
				    u32 k)
{
	u64 used[VGPU_SMK_NR_RES] = {};
	u64 best[VGPU_WS_MAX_KERNELS];
	u32 i, t;

	if (WARN_ON(k > VGPU_WS_MAX_KERNELS))
		k = VGPU_WS_MAX_KERNELS;
	for (i = 0; i < k; i++) {
		struct vgpu_ws_part *p = &parts[i];

		p->limit = min(p->limit, p->curve->max_tbs);
		p->tbs = 0;
		best[i] = 0;
		for (t = 1; t <= p->curve->max_tbs; t++)
			best[i] = max(best[i], p->curve->perf[t]);
		while (p->tbs < min(p->min, p->limit) &&
		       vgpu_ws_fits(cap, used, p->need, 1))
			vgpu_ws_take(used, p, 1);
	}
	for (;;) {
		u64 bgain = 0, blevel = 0;
		u32 bi = k, bd = 0, d;

		for (i = 0; i < k; i++) {
			const struct vgpu_ws_part *p = &parts[i];
			u64 level = vgpu_ws_norm(p->curve, best[i], p->tbs);

			for (d = 1; p->tbs + d <= p->limit; d++) {
				u64 next, gain;

				if (!vgpu_ws_fits(cap, used, p->need, d))
					break;
				next = vgpu_ws_norm(p->curve, best[i],
						    p->tbs + d);
				if (next <= level)
					continue;
				gain = next - level;
				/* gain / d against bgain / bd */
				if (bi == k || gain * bd > bgain * d ||
				    (gain * bd == bgain * d && level < blevel)) {
					bi = i;
					bd = d;
					bgain = gain;
					blevel = level;
				}
			}
		}
		if (bi == k)
			break;
		vgpu_ws_take(used, &parts[bi], bd);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_ws_solve);

/* ---- per-kernel state ---------------------------------------------------- */

static struct vgpu_ws_kernel *vgpu_ws_find(const struct vgpu_ws *ws,
					   const struct vgpu_kcb_entry *e)
{
	struct vgpu_ws_kernel *k;

	if (!ws)
		return NULL;
	list_for_each_entry(k, &ws->kernels, link)
		if (k->e == e && k->id == e->id)
			return k;
	return NULL;
}

static struct vgpu_ws_kernel *vgpu_ws_new(struct vgpu_sched *s,
					  const struct vgpu_kcb_entry *e)
{
	u32 n = s->smst.num_sms;
	size_t size = struct_size_t(struct vgpu_ws_kernel, sm_quota, n);
	struct vgpu_ws *ws = s->policy_data;
	struct vgpu_ws_kernel *k;

	/* Under the device lock, as the KCB's requeue allocation. */
	if (!ws) {
		ws = kzalloc(sizeof(*ws), GFP_NOWAIT | __GFP_NOWARN);
		if (!ws)
			return NULL;
		INIT_LIST_HEAD(&ws->kernels);
		s->policy_data = ws;
	}
	k = kzalloc(size, GFP_NOWAIT | __GFP_NOWARN);
	if (!k)
		return NULL;
	k->num_sms = n;
	k->e = e;
	k->id = e->id;
	k->phase = VGPU_WS_PROFILING;
	k->curve.max_tbs = clamp_t(u32, vgpu_smst_occupancy(&s->smst, &e->res),
				   1, VGPU_WS_MAX_TBS);
	list_add_tail(&k->link, &ws->kernels);
	return k;
}

static void vgpu_ws_free(struct vgpu_ws_kernel *k)
{
	list_del(&k->link);
	kfree(k);
}

/* Whether @k's kernel is still in @s's KCB. */
static bool vgpu_ws_alive(const struct vgpu_sched *s,
			  const struct vgpu_ws_kernel *k)
{
	const struct vgpu_kcb_entry *e;

	list_for_each_entry(e, &s->kcb.active, link)
		if (e == k->e && e->id == k->id)
			return true;
	return false;
}

/* Free the state of @s's kernels that ended; forget the last layout. */
static void vgpu_ws_collect(struct vgpu_sched *s, struct vgpu_ws *ws)
{
	struct vgpu_ws_kernel *k, *tmp;

	list_for_each_entry_safe(k, tmp, &ws->kernels, link) {
		if (!vgpu_ws_alive(s, k))
			vgpu_ws_free(k);
		else
			k->seen = false;
	}
}

/* &vgpu_partition_ops.release: another policy, or the daemon detached. */
static void vgpu_ws_release(struct vgpu_sched *s)
{
	struct vgpu_ws *ws = s->policy_data;
	struct vgpu_ws_kernel *k, *tmp;

	if (!ws)
		return;
	list_for_each_entry_safe(k, tmp, &ws->kernels, link)
		vgpu_ws_free(k);
	kfree(ws);
	s->policy_data = NULL;
}

/* ---- profiling ----------------------------------------------------------- */

/* Is @k's profiling over at @now? Builds the curve when it is. */
static void vgpu_ws_check(struct vgpu_ws_kernel *k, u64 now)
{
	bool full = true, any = false;
	u32 sm, q;

	if (k->phase != VGPU_WS_PROFILING || !k->started)
		return;
	for (q = 1; q <= k->curve.max_tbs; q++)
		any |= k->smp.tbs[q] > 0;
	for (sm = 0; sm < k->num_sms; sm++) {
		q = k->sm_quota[sm];
		if (q && k->smp.tbs[q] < q)
			full = false;
	}
	if (!(any && (full || now - k->start >= VGPU_WS_PROFILE_CYCLES))) {
		if (now - k->start >=
		    (u64)VGPU_WS_PROFILE_GIVE_UP * VGPU_WS_PROFILE_CYCLES)
			k->phase = VGPU_WS_NO_CURVE;
		return;
	}
	k->phase = vgpu_ws_build_curve(&k->smp, k->curve.max_tbs, &k->curve) ?
		   VGPU_WS_NO_CURVE : VGPU_WS_READY;
	k->laid_out = false;
}

/*
 * One group of SMs per kernel (job order): the profiled ones with a count
 * per SM, the others without limit.
 */
static void vgpu_ws_layout(struct vgpu_sched *s, struct vgpu_kcb_entry **c,
			   struct vgpu_ws_kernel **ks, u32 nr)
{
	u32 n = s->smst.num_sms, i, sm;

	for (i = 0; i < nr; i++) {
		struct vgpu_ws_kernel *k = ks[i];
		u32 lo = i * n / nr, hi = (i + 1) * n / nr;
		bool changed = false;

		for (sm = lo; sm < hi; sm++)
			s->sm_owner[sm] = c[i];
		if (k->phase != VGPU_WS_PROFILING)
			continue;
		for (sm = 0; sm < n; sm++) {
			u8 q = 0;

			if (sm >= lo && sm < hi)
				q = vgpu_ws_profile_quota(sm - lo, hi - lo,
							  k->curve.max_tbs);
			changed |= k->sm_quota[sm] != q;
			k->sm_quota[sm] = q;
		}
		if (!k->laid_out || changed)
			k->layout_cycle = s->cycle;
		if (!k->started) {
			k->started = true;
			k->start = s->cycle;
		}
		k->laid_out = true;
		k->seen = true;
	}
}

/*
 * Whether @e takes part in the layout: it has TBs to issue, or it was
 * profiled and its TBs still run. Those TBs keep their kernel's group of
 * SMs until they end. Laid out over the candidates alone, a group moved
 * whenever a kernel issued its last TB, the move preempted that kernel's
 * TBs (a flush is answered in the same cycle), which made it a candidate
 * again and moved the groups back: SMs changed hands at one cycle for good
 * and simulated time stood still.
 */
static bool vgpu_ws_member(const struct vgpu_sched *s,
			   const struct vgpu_kcb_entry *e)
{
	return vgpu_sched_candidate(s, e) ||
	       (e->tbs_running && vgpu_ws_find(s->policy_data, e));
}

static void vgpu_ws_plan(struct vgpu_sched *s)
{
	struct vgpu_ws_part parts[VGPU_WS_MAX_KERNELS];
	struct vgpu_kcb_entry *c[VGPU_WS_MAX_KERNELS], *e;
	struct vgpu_ws_kernel *ks[VGPU_WS_MAX_KERNELS], *k;
	u32 nr = vgpu_smk_count(s), n = s->smst.num_sms, qmin, i, m = 0;
	bool profile = false, even = false;
	u64 cap[VGPU_SMK_NR_RES];
	struct vgpu_ws *ws;

	lockdep_assert_held(s->lock);
	memset(s->sm_owner, 0, n * sizeof(*s->sm_owner));
	if (s->policy_data)
		vgpu_ws_collect(s, s->policy_data);
	if (nr < 2)
		goto out;	/* alone: the whole device */
	if (nr > VGPU_WS_MAX_KERNELS) {
		even = true;
		goto out;
	}
	list_for_each_entry(e, &s->kcb.active, link) {
		bool cand = vgpu_sched_candidate(s, e);

		if (!vgpu_ws_member(s, e))
			continue;
		if (m == VGPU_WS_MAX_KERNELS) {
			even = true;
			goto out;
		}
		k = vgpu_ws_find(s->policy_data, e);
		/* A new kernel is profiled only where each gets an SM. */
		if (!k && n >= nr)
			k = vgpu_ws_new(s, e);
		if (!k) {
			even = true;
			goto out;
		}
		vgpu_ws_check(k, s->cycle);
		/* Only the kernels with TBs to issue choose how to share. */
		if (cand) {
			profile |= k->phase == VGPU_WS_PROFILING;
			even |= k->phase == VGPU_WS_NO_CURVE;
		}
		c[m] = e;
		ks[m++] = k;
	}
	if (profile && n >= m) {
		vgpu_ws_layout(s, c, ks, m);
		goto out;
	}
	if (profile || even) {
		even = true;
		goto out;
	}
	/* The quotas are for the kernels that issue TBs. */
	for (i = 0, nr = 0; i < m; i++) {
		if (!vgpu_sched_candidate(s, c[i]))
			continue;
		c[nr] = c[i];
		ks[nr++] = ks[i];
	}
	vgpu_smk_caps(&s->smst, cap);
	qmin = vgpu_smk_quota_min(s);
	for (i = 0; i < nr; i++) {
		parts[i].curve = &ks[i]->curve;
		vgpu_smk_need(c[i], parts[i].need);
		parts[i].min = qmin;
		/* No more than its remaining TBs spread over all SMs. */
		parts[i].limit = DIV_ROUND_UP(vgpu_kcb_entry_tbs_left(c[i]), n);
	}
	vgpu_ws_solve(cap, parts, nr);
	for (i = 0; i < nr; i++)
		c[i]->quota = clamp(parts[i].tbs, qmin,
				    (u32)VGPU_SMST_MAX_SLOTS);
out:
	ws = s->policy_data;
	if (ws)
		list_for_each_entry(k, &ws->kernels, link)
			if (!k->seen)
				k->laid_out = false;
	if (even)
		vgpu_policy_smk_even.plan(s);
}

/*
 * A TB of a profiled kernel finished on an SM of its group: count it for
 * the SM's TB count, unless it started before the current layout.
 */
static void vgpu_ws_tb_done(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			    const struct vgpu_evt *evt)
{
	u64 now = evt->cycle && evt->cycle < s->cycle ? evt->cycle : s->cycle;
	struct vgpu_ws_kernel *k;
	u32 q;

	lockdep_assert_held(s->lock);
	if (evt->status || !evt->tb_cycles || evt->tb_cycles > now)
		return;
	k = vgpu_ws_find(s->policy_data, e);
	if (!k || k->phase != VGPU_WS_PROFILING || !k->laid_out ||
	    evt->sm >= k->num_sms)
		return;
	q = k->sm_quota[evt->sm];
	if (!q || now - evt->tb_cycles < k->layout_cycle)
		return;
	k->smp.insts[q] += evt->warp_insts;
	k->smp.cycles[q] += evt->tb_cycles;
	k->smp.tbs[q]++;
}

/* Start @e's TBs on the SMs its group gives it, up to each SM's count. */
static bool vgpu_ws_fill(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			 const struct vgpu_ws_kernel *k)
{
	u32 n = s->smst.num_sms, start = s->rr_next, i;

	for (i = 0; i < n && vgpu_kcb_entry_may_start(e); i++) {
		u32 sm = (start + i) % n, limit = e->quota;

		if (!vgpu_sched_sm_owned_by(s, sm, e))
			continue;
		if (k) {
			limit = k->sm_quota[sm];
			if (!limit)
				continue;
		}
		while (vgpu_kcb_entry_may_start(e) &&
		       (!limit || vgpu_smst_kernel_tbs(&s->smst, sm, e) < limit) &&
		       vgpu_tlp_may_start(s, e, sm)) {
			if (!vgpu_smst_can_fit_job(&s->smst, sm, &e->res, e)) {
				vgpu_smst_note_refusal(&s->smst, sm, &e->res);
				break;
			}
			if (!vgpu_sched_room(s, e)) {
				s->ring_full = true;
				return false;
			}
			if (WARN_ON(vgpu_sched_dispatch(s, e, sm)))
				return false;
		}
	}
	return true;
}

/*
 * The TB scheduler: the generic one once the partition is in quotas;
 * while kernels are profiled, the same order (priority class, preempted
 * TBs first, arrival) with a TB count per SM.
 */
static void vgpu_ws_dispatch(struct vgpu_sched *s)
{
	struct vgpu_ws *ws = s->policy_data;
	struct vgpu_kcb_entry *e;
	struct vgpu_ws_kernel *k;
	bool profiling = false;
	int prio, requeued;

	lockdep_assert_held(s->lock);
	if (ws)
		list_for_each_entry(k, &ws->kernels, link)
			profiling |= k->laid_out;
	if (!profiling) {
		vgpu_sched_tb_dispatch(s);
		return;
	}
	for (prio = DRM_VGPU_PRIORITY_REALTIME; prio >= 0; prio--) {
		for (requeued = 1; requeued >= 0; requeued--) {
			list_for_each_entry(e, &s->kcb.active, link) {
				if (e->priority != prio ||
				    (requeued && !e->nr_requeued) ||
				    !vgpu_sched_candidate(s, e) || e->barred)
					continue;
				k = vgpu_ws_find(ws, e);
				if (k && !k->laid_out)
					k = NULL;
				if (!vgpu_ws_fill(s, e, k))
					return;
			}
		}
	}
}

/* The policy's state of @s, NULL when another policy is active. */
static const struct vgpu_ws *vgpu_ws_of(const struct vgpu_sched *s)
{
	return s->policy == &vgpu_policy_warped_slicer ? s->policy_data : NULL;
}

/**
 * vgpu_ws_state() - the policy's state of a kernel (KUnit).
 * @s: the scheduler.
 * @e: the kernel.
 *
 * Caller holds the device lock.
 *
 * Return: the state, or NULL when the kernel has none (or warped-slicer
 * is not the active policy).
 */
VISIBLE_IF_KUNIT const struct vgpu_ws_kernel *
vgpu_ws_state(const struct vgpu_sched *s, const struct vgpu_kcb_entry *e)
{
	lockdep_assert_held(s->lock);
	return vgpu_ws_find(vgpu_ws_of(s), e);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_ws_state);

/**
 * vgpu_ws_nr_states() - kernels of a scheduler the policy holds state for
 * (KUnit: nothing may be left once the KCB is empty).
 * @s: the scheduler.
 *
 * Caller holds the device lock.
 *
 * Return: the number of states (0 when warped-slicer is not active).
 */
VISIBLE_IF_KUNIT u32 vgpu_ws_nr_states(const struct vgpu_sched *s)
{
	const struct vgpu_ws *ws = vgpu_ws_of(s);
	const struct vgpu_ws_kernel *k;
	u32 n = 0;

	lockdep_assert_held(s->lock);
	if (ws)
		list_for_each_entry(k, &ws->kernels, link)
			n++;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_ws_nr_states);

const struct vgpu_partition_ops vgpu_policy_warped_slicer = {
	.name = "warped-slicer",
	.plan = vgpu_ws_plan,
	.dispatch = vgpu_ws_dispatch,
	.tb_done = vgpu_ws_tb_done,
	.release = vgpu_ws_release,
	.conf = &vgpu_smk_policy_conf,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_warped_slicer);
