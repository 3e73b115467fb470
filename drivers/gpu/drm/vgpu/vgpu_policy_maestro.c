// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu partition policy maestro: GPU Maestro's dynamic resource
 * partitioning (Park, dissertation, Ch. V §5.4).
 *
 * Two kernels share a group of SMs. Every epoch (&vgpu_maestro_conf.
 * epoch_cycles, 50,000 cycles in §5.4.1) each SM has a role
 * (§5.4.1, Fig. 5.8; two bits per SM in the thesis):
 *
 * - dedicated: one SM per kernel runs that kernel alone; its rate is the
 *   kernel's single-kernel CPI and the performance of spatial multitasking;
 * - trial: two SMs run SMK with the trial kernel (the one that fits fewer
 *   TBs on a whole SM) at one TB more, and one TB fewer, than the
 *   followers; the other kernel fills the rest of the SM;
 * - follower: the rest run last epoch's best partition: SMK-even at first
 *   (or, when a kernel comes back from a previous SMK with fewer TBs than
 *   even, that count: the history-based start), one kernel alone when
 *   spatial multitasking won.
 *
 * Measurement, per SM and kernel over the epoch (the SMs' performance
 * counters of §5.4.1): with the daemon's thread-block status table, the
 * warp instructions each resident TB executed since the epoch began
 * (vgpu_sched_tb_progress() at its start and end, and TB_DONE for those
 * that finish in between), so that TBs longer than an epoch count too;
 * epochs then begin and end only in passes where the table is current
 * (the daemon waits in a kick). Without the table (KUnit), every TB_DONE
 * adds the TB's instructions pro-rated to the part of its run inside the
 * epoch. At the end of an epoch (decided in plan(), once the device cycle
 * has passed it) the objective (&vgpu_maestro_conf.objective: STP,
 * Eq. 5.2, or ANTT, Eq. 5.1 of §5.2.1) is computed for the followers', the
 * two trials' and spatial multitasking's partition, each kernel's rate
 * normalised by its single-kernel rate from the dedicated SMs (stored
 * while they are retired); the best one wins (ties to the current one).
 * Spatial multitasking is computed from the dedicated SMs: kernel k on its
 * share of the SMs (1/2) at its dedicated rate, so per SM its normalised
 * rate is share x alone / single.
 *
 * - A trial wins: its count becomes the followers'; roles are reassigned
 *   with the fewest changes (an SM that already runs a wanted split keeps
 *   it: e.g. the winning trial SM becomes a follower and a follower a
 *   trial, Fig. 5.8), vgpu_maestro_layout().
 * - Spatial wins: one SM per kernel moves from the followers to running
 *   that kernel alone, per epoch, not all at once (§5.4.1); SMK winning
 *   again gives one back per kernel per epoch (the thesis does not say how
 *   spatial SMs return; this keeps the move symmetric).
 * - Dedicated SMs retire into followers when both their rates moved by at
 *   most %VGPU_MAESTRO_STABLE_PCT percent since the previous epoch and the
 *   partition did not change (their rates are stored); they come back on a
 *   new kernel, a repartition, or after %VGPU_MAESTRO_RETURN_EPOCHS epochs.
 * - A kernel is known by &vgpu_kcb_entry.kernel_key, so that its next
 *   launch (of the same entry of the same code) is not new: when a pair
 *   breaks up, each kernel's count (if below even) and single-kernel rate
 *   are remembered, and a pair of two known kernels starts from them, with
 *   its dedicated SMs retired (vgpu_maestro_pair_known()); with
 *   maestro_relaunch=new every launch is new, as §5.4.1 reassigns the
 *   dedicated SMs "when a new kernel is launched", and only the counts
 *   (and spatial SMs) are resumed. With
 *   maestro_history=partition the spatial SMs are remembered too, and the
 *   same pair coming back (a kernel relaunched beside the partner it had)
 *   starts with them, instead of returning to spatial one SM per kernel
 *   per epoch after every relaunch.
 * - The next epoch starts only once the new partition is reached (no
 *   kernel above its quota on any SM of the group, §5.4.1). Lowering a
 *   quota preempts the excess TBs with vgpu_sched_preempt_excess(): the
 *   boundary TB first, in the reverse direction of its kernel's 2-way
 *   allocation (§5.4.2, Fig. 5.9 (b)), each by the technique the
 *   preemption policy chooses (Chimera with preempt_policy=chimera, as the
 *   thesis evaluates; under drain they finish).
 * - The SMST allocates 2-way while maestro is active
 *   (&vgpu_partition_ops.two_way, §5.4.2).
 *
 * More than two kernels (§5.4.2: 2-way allocation runs at most two kernels
 * per SM; "spatial multitasking can be mixed with 2-way allocation SMK"):
 * the kernels taking part are paired in arrival order, (1, 2), (3, 4), ...,
 * and the SMs are split evenly into one contiguous group per pair (spatial
 * between pairs); each pair runs the algorithm above on its group, all
 * pairs at once. An odd last kernel has a group of its own; with more
 * groups than SMs the later kernels wait. The thesis' alternative, one pair
 * at a time across all SMs in several steps, is not done. A group of
 * fewer than %VGPU_MAESTRO_MIN_SMS SMs has no room for dedicated and trial
 * SMs: its pair runs SMK-even there and nothing is measured. A kernel
 * alone gets the whole device, with no quota.
 *
 * A pair in which one kernel's unfinished TBs all fit in its SMK-even
 * share of the group when the pair forms runs SMK-even instead, with no
 * roles and no epochs: nothing learnt could be applied to that kernel, and
 * its dedicated SM would only crowd its TBs onto fewer SMs
 * (vgpu_maestro_contend(); the thesis' runs share the GPU for thousands of
 * epochs and do not meet the case). That holds while a kernel leaves its
 * pair once its TBs are all dispatched (maestro_pairing=dispatch, the
 * default). With maestro_pairing=resident it stays until its last TB has
 * finished, its TBs above a new partition are preempted like the other's,
 * and every pair runs epochs (vgpu_maestro_member()).
 *
 * The per-SM quotas reach the generic TB scheduler through
 * &vgpu_partition_ops.sm_quota. The decision logic is in pure functions
 * over &struct vgpu_maestro_pair (vgpu_policy_maestro.h) for KUnit.
 *
 * Knobs and statistics: maestro_epoch_cycles, maestro_objective,
 * maestro_history, maestro_pairing and maestro_relaunch, and the counts of
 * debugfs "maestro", are in &struct vgpu_maestro_conf, kept per device
 * whether maestro is active or not (&vgpu_maestro_policy_conf).
 *
 * Locking: the state (&vgpu_sched.policy_data) is only touched by plan,
 * tb_done, sm_quota and release, which all run under the device lock; the
 * conf also by the knobs and debugfs, which take the device lock too.
 */

#include <linux/bitmap.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>

#include "vgpu_knob.h"
#include "vgpu_policy_maestro.h"
#include "vgpu_trace.h"

/* Pairs (SM groups) at most; kernels beyond 2x this wait. */
#define VGPU_MAESTRO_MAX_GROUPS	32

/* Kernels remembered for the history-based start (§5.4.1). */
#define VGPU_MAESTRO_HIST	16

/* ---- pure parts ---------------------------------------------------------- */

/**
 * vgpu_maestro_fill() - TBs of the other kernel that fit beside the trial
 * kernel's on one SM ("the other kernel fills up the rest", §5.4.1).
 * @cap: the SM's capacity (vgpu_smk_caps()).
 * @need_t: one TB of the trial kernel (vgpu_smk_need()).
 * @t: TBs of the trial kernel.
 * @need_o: one TB of the other kernel.
 *
 * Return: the count (0 when @t alone does not fit), at most
 * %VGPU_SMST_MAX_SLOTS.
 */
VISIBLE_IF_KUNIT u32 vgpu_maestro_fill(const u64 *cap, const u64 *need_t,
				       u32 t, const u64 *need_o)
{
	u64 n = VGPU_SMST_MAX_SLOTS;
	u32 r;

	for (r = 0; r < VGPU_SMK_NR_RES; r++) {
		u64 used = (u64)t * need_t[r];

		if (used > cap[r])
			return 0;
		if (need_o[r])
			n = min(n, div64_u64(cap[r] - used, need_o[r]));
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_fill);

/**
 * vgpu_maestro_trial_kernel() - which of two kernels is the trial kernel.
 * @max_a: TBs of the first that fit on an empty SM.
 * @max_b: TBs of the second.
 *
 * §5.4.1: the kernel with the larger resource requirements, i.e. the one
 * that can launch fewer TBs when it has an SM entirely; the first on a tie.
 *
 * Return: 0 or 1.
 */
VISIBLE_IF_KUNIT u32 vgpu_maestro_trial_kernel(u32 max_a, u32 max_b)
{
	return max_b < max_a ? 1 : 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_trial_kernel);

/* Most TBs of the trial kernel that leave room for one of the other. */
static u32 vgpu_maestro_tmax(const struct vgpu_maestro_pair *p)
{
	u32 t;

	for (t = min_t(u32, p->max[0], VGPU_SMST_MAX_SLOTS); t > 1; t--)
		if (vgpu_maestro_fill(p->cap, p->need[0], t, p->need[1]))
			return t;
	return 1;
}

/**
 * vgpu_maestro_trials() - the trial SMs' partitions (§5.4.1).
 * @p: the pair.
 * @up: out, the trial kernel's TBs on the "one more" trial SM.
 * @down: out, on the "one fewer" one.
 *
 * One TB more and one fewer than the followers' &vgpu_maestro_pair.fol_t;
 * a trial that would leave the other kernel no TB, or the trial kernel
 * none, stays at the followers' count (and is then not measured apart).
 */
VISIBLE_IF_KUNIT void vgpu_maestro_trials(const struct vgpu_maestro_pair *p,
					  u32 *up, u32 *down)
{
	*up = p->fol_t + 1 <= vgpu_maestro_tmax(p) ? p->fol_t + 1 : p->fol_t;
	*down = p->fol_t > 1 ? p->fol_t - 1 : p->fol_t;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_trials);

/**
 * vgpu_maestro_objective() - ANTT or STP from per-kernel rates (§5.2.1).
 * @objective: &enum vgpu_maestro_objective.
 * @mk: each kernel's rate (warp instructions per SM and epoch, any fixed
 *	unit) in the partition measured: 1 / CPI^MK.
 * @sk: each kernel's single-kernel rate (from the dedicated SMs), same
 *	unit: 1 / CPI^SK; none may be 0.
 * @nr: kernels.
 *
 * STP = sum CPI^SK / CPI^MK = sum mk / sk (Eq. 5.2); ANTT = 1/N sum
 * CPI^MK / CPI^SK = 1/N sum sk / mk (Eq. 5.1). Fixed point, 1.0 =
 * %VGPU_MAESTRO_ONE.
 *
 * Return: the value; for ANTT %U64_MAX when a kernel made no progress, 0
 * when a single-kernel rate is 0 (not measurable).
 */
VISIBLE_IF_KUNIT u64 vgpu_maestro_objective(u32 objective, const u64 *mk,
					    const u64 *sk, u32 nr)
{
	u64 sum = 0;
	u32 k;

	if (!nr)
		return 0;
	for (k = 0; k < nr; k++) {
		if (!sk[k])
			return 0;
		if (objective == VGPU_MAESTRO_ANTT) {
			if (!mk[k])
				return U64_MAX;
			sum += div64_u64(sk[k] << VGPU_MAESTRO_SHIFT, mk[k]);
		} else {
			sum += div64_u64(mk[k] << VGPU_MAESTRO_SHIFT, sk[k]);
		}
	}
	return objective == VGPU_MAESTRO_ANTT ? div_u64(sum, nr) : sum;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_objective);

/**
 * vgpu_maestro_best() - the best measured partition (§5.4.1: "whichever
 * partition with the lowest ANTT will be selected").
 * @objective: &enum vgpu_maestro_objective (STP: highest; ANTT: lowest).
 * @c: the candidates; ties go to the lower index (the current partition
 *	first, so that a tie does not repartition).
 * @nr: how many.
 *
 * Return: the index, or -ENODATA when none is valid.
 */
VISIBLE_IF_KUNIT int vgpu_maestro_best(u32 objective,
				       const struct vgpu_maestro_cand *c,
				       u32 nr)
{
	int best = -ENODATA;
	u32 i;

	for (i = 0; i < nr; i++) {
		if (!c[i].valid)
			continue;
		if (best < 0 ||
		    (objective == VGPU_MAESTRO_ANTT ?
		     c[i].value < c[best].value : c[i].value > c[best].value))
			best = i;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_best);

/**
 * vgpu_maestro_stable() - whether a dedicated SM's rate is stable.
 * @prev: its rate in the previous epoch.
 * @cur: in this one.
 *
 * Return: true when both are non-zero and @cur is within
 * %VGPU_MAESTRO_STABLE_PCT percent of @prev.
 */
VISIBLE_IF_KUNIT bool vgpu_maestro_stable(u64 prev, u64 cur)
{
	u64 d = prev > cur ? prev - cur : cur - prev;

	return prev && cur && d * 100 <= prev * VGPU_MAESTRO_STABLE_PCT;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_stable);

/**
 * vgpu_maestro_dedicated_back() - whether retired dedicated SMs come back.
 * @retired_epochs: epochs since they retired.
 * @repartitioned: the last decision changed the partition.
 * @new_kernel: a new kernel joined.
 *
 * §5.4.1: "when either a new kernel is launched, thread blocks are
 * repartitioned, or once every hundred epochs".
 *
 * Return: true when they do.
 */
VISIBLE_IF_KUNIT bool vgpu_maestro_dedicated_back(u32 retired_epochs,
						  bool repartitioned,
						  bool new_kernel)
{
	return new_kernel || repartitioned ||
	       retired_epochs >= VGPU_MAESTRO_RETURN_EPOCHS;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_dedicated_back);

/* The trial kernel's TBs an SM runs now, for matching roles to SMs. */
static u32 vgpu_maestro_cur_t(const struct vgpu_maestro_pair *p,
			      const struct vgpu_maestro_sm *m)
{
	if (m->alone == 0)
		return p->max[0];
	if (m->alone == 1)
		return 0;
	return m->t;
}

/*
 * Of the SMs not yet @taken, the one to run the trial kernel at @want TBs
 * with the fewest TBs to preempt: one that already runs it so, else the
 * closest.
 */
static int vgpu_maestro_pick(const struct vgpu_maestro_pair *p,
			     const unsigned long *taken, u32 want)
{
	u32 i, best_d = U32_MAX;
	int best = -ENOENT;

	for (i = 0; i < p->nr_sms; i++) {
		u32 cur, d;

		if (test_bit(i, taken))
			continue;
		cur = vgpu_maestro_cur_t(p, &p->sms[i]);
		d = cur > want ? cur - want : want - cur;
		/* A follower already at the followers' count stays one. */
		if (d && p->sms[i].alone == VGPU_MAESTRO_SHARED &&
		    p->sms[i].t == p->fol_t)
			d = U32_MAX - 1;
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

/* SM @i of the group runs kernel @k alone (dedicated or spatial). */
static void vgpu_maestro_alone(struct vgpu_maestro_pair *p,
			       unsigned long *taken, u32 i, u32 k,
			       bool dedicated)
{
	set_bit(i, taken);
	p->sms[i].role = dedicated ? VGPU_MAESTRO_DEDICATED :
				     VGPU_MAESTRO_FOLLOWER;
	p->sms[i].alone = k;
}

/**
 * vgpu_maestro_layout() - assign the roles of a pair's SMs for the next
 * epoch, with the fewest changes (§5.4.1: "trial and follower SMs can
 * change to minimize the preemption overhead from repartitioning").
 * @p: the pair; &vgpu_maestro_pair.fol_t, .spatial and .dedicated say what
 *	is wanted, the SMs' current roles what runs.
 *
 * Each kernel first gets its SMs alone (a dedicated one while
 * &vgpu_maestro_pair.dedicated, plus .spatial spatial followers): SMs that
 * already run it alone first (the dedicated one stays dedicated), then
 * those with the fewest TBs of the other kernel. Then the two trial SMs:
 * one that already runs the wanted split, else the closest. The rest are
 * SMK followers at .fol_t. With fewer than %VGPU_MAESTRO_MIN_SMS SMs every
 * SM is an SMK follower.
 */
VISIBLE_IF_KUNIT void vgpu_maestro_layout(struct vgpu_maestro_pair *p)
{
	DECLARE_BITMAP(taken, VGPU_MAESTRO_MAX_SMS);
	u32 n = min_t(u32, p->nr_sms, VGPU_MAESTRO_MAX_SMS), i, k, up, down;
	u32 ded = p->dedicated ? 1 : 0, spmax;
	int sm;

	bitmap_zero(taken, VGPU_MAESTRO_MAX_SMS);
	if (n < VGPU_MAESTRO_MIN_SMS) {
		p->dedicated = false;
		p->spatial = 0;
		for (i = 0; i < n; i++) {
			p->sms[i].role = VGPU_MAESTRO_FOLLOWER;
			p->sms[i].alone = VGPU_MAESTRO_SHARED;
			p->sms[i].t = p->fol_t;
		}
		return;
	}
	spmax = (n - 2 - 2 * ded) / 2;
	p->spatial = min(p->spatial, spmax);
	for (k = 0; k < 2; k++) {
		u32 want = ded + p->spatial, got = 0, pass;

		/* Its dedicated SM stays; then SMs that run it alone. */
		for (pass = 0; pass < 2; pass++) {
			for (i = 0; i < n && got < want; i++) {
				if (test_bit(i, taken) || p->sms[i].alone != k ||
				    (!pass &&
				     p->sms[i].role != VGPU_MAESTRO_DEDICATED))
					continue;
				vgpu_maestro_alone(p, taken, i, k, got < ded);
				got++;
			}
		}
		/* Then the SMs nearest to running it alone. */
		while (got < want) {
			sm = vgpu_maestro_pick(p, taken, k ? 0 : p->max[0]);
			if (sm < 0)
				break;
			vgpu_maestro_alone(p, taken, sm, k, got < ded);
			got++;
		}
	}
	vgpu_maestro_trials(p, &up, &down);
	sm = vgpu_maestro_pick(p, taken, up);
	if (sm >= 0) {
		set_bit(sm, taken);
		p->sms[sm].role = VGPU_MAESTRO_TRIAL_UP;
		p->sms[sm].alone = VGPU_MAESTRO_SHARED;
		p->sms[sm].t = up;
	}
	sm = vgpu_maestro_pick(p, taken, down);
	if (sm >= 0) {
		set_bit(sm, taken);
		p->sms[sm].role = VGPU_MAESTRO_TRIAL_DOWN;
		p->sms[sm].alone = VGPU_MAESTRO_SHARED;
		p->sms[sm].t = down;
	}
	for (i = 0; i < n; i++) {
		if (test_bit(i, taken))
			continue;
		p->sms[i].role = VGPU_MAESTRO_FOLLOWER;
		p->sms[i].alone = VGPU_MAESTRO_SHARED;
		p->sms[i].t = p->fol_t;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_layout);

/**
 * vgpu_maestro_pair_init() - start a pair (a new kernel joined).
 * @p: the pair; &vgpu_maestro_pair.cap, .need, .max, .nr_sms and .sms set.
 * @even_t: the trial kernel's TBs under SMK-even.
 * @hist_t: 0, or the history-based start (§5.4.1): the trial kernel's
 *	count that gives a kernel back what it had in its previous SMK.
 *
 * Followers start at @hist_t or @even_t, the dedicated SMs are in place,
 * and the roles are laid out.
 */
VISIBLE_IF_KUNIT void vgpu_maestro_pair_init(struct vgpu_maestro_pair *p,
					     u32 even_t, u32 hist_t)
{
	u32 i;

	p->fol_t = clamp(hist_t ? hist_t : even_t, 1u, vgpu_maestro_tmax(p));
	p->spatial = 0;
	p->dedicated = true;
	p->have_prev = false;
	p->retired_epochs = 0;
	p->epochs = 0;
	p->changed = false;
	memset(p->prev_ded, 0, sizeof(p->prev_ded));
	memset(p->single, 0, sizeof(p->single));
	for (i = 0; i < p->nr_sms; i++) {
		p->sms[i].role = VGPU_MAESTRO_FOLLOWER;
		p->sms[i].alone = VGPU_MAESTRO_SHARED;
		p->sms[i].t = p->fol_t;
		p->sms[i].insts[0] = 0;
		p->sms[i].insts[1] = 0;
	}
	vgpu_maestro_layout(p);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_pair_init);

/**
 * vgpu_maestro_pair_known() - start a pair whose kernels came back with
 * known single-kernel rates (§5.4.1: the dedicated SMs' performance is
 * stored, and they return on a new kernel; these are not new).
 * @p: the pair, after vgpu_maestro_pair_init().
 * @single: each kernel's stored rate (trial kernel first), both non-zero.
 *
 * The dedicated SMs start retired, with @single as the single-kernel rates,
 * and the roles are laid out again.
 */
VISIBLE_IF_KUNIT void vgpu_maestro_pair_known(struct vgpu_maestro_pair *p,
					      const u64 *single)
{
	p->single[0] = single[0];
	p->single[1] = single[1];
	p->dedicated = false;
	p->have_prev = false;
	p->retired_epochs = 0;
	vgpu_maestro_layout(p);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_pair_known);

/* Mean instructions per SM of each kernel over the SMs that match. */
static bool vgpu_maestro_mean(const struct vgpu_maestro_pair *p, u32 role,
			      u32 alone, u64 *rate)
{
	u64 sum[2] = {};
	u32 i, nr = 0;

	for (i = 0; i < p->nr_sms; i++) {
		const struct vgpu_maestro_sm *m = &p->sms[i];

		if (m->role != role || m->alone != alone)
			continue;
		sum[0] += m->insts[0];
		sum[1] += m->insts[1];
		nr++;
	}
	if (!nr)
		return false;
	rate[0] = div_u64(sum[0], nr);
	rate[1] = div_u64(sum[1], nr);
	return true;
}

/**
 * vgpu_maestro_epoch_end() - the decision at the end of an epoch (§5.4.1).
 * @p: the pair, with the epoch's instructions per SM and kernel.
 * @objective: &enum vgpu_maestro_objective.
 *
 * Computes the objective of the followers', the trials' and spatial
 * multitasking's partitions (vgpu_maestro_objective(), normalised by the
 * dedicated SMs' rates or the stored ones), picks the best
 * (vgpu_maestro_best()), moves the followers to it (spatial: one SM per
 * kernel), retires or brings back the dedicated SMs, clears the counts and
 * lays the SMs out again (vgpu_maestro_layout()). With fewer than
 * %VGPU_MAESTRO_MIN_SMS SMs, or a single-kernel rate of 0 (nothing
 * measured), nothing changes but the counts.
 *
 * Return: the winning %VGPU_MAESTRO_CAND_*, or -ENODATA.
 */
VISIBLE_IF_KUNIT int vgpu_maestro_epoch_end(struct vgpu_maestro_pair *p,
					    u32 objective)
{
	struct vgpu_maestro_cand c[VGPU_MAESTRO_NR_CANDS] = {};
	u64 ded[2] = {}, single[2], alone[2], mk[2], sp[2];
	u32 up, down, old_t = p->fol_t, old_sp = p->spatial, i, k;
	bool repart;
	int best = -ENODATA;

	if (p->nr_sms < VGPU_MAESTRO_MIN_SMS)
		goto out;
	if (p->dedicated) {
		for (k = 0; k < 2; k++) {
			u64 r[2];

			if (vgpu_maestro_mean(p, VGPU_MAESTRO_DEDICATED, k, r))
				ded[k] = r[k];
		}
		single[0] = ded[0];
		single[1] = ded[1];
	} else {
		single[0] = p->single[0];
		single[1] = p->single[1];
	}
	if (!single[0] || !single[1])
		goto out;
	for (k = 0; k < 2; k++) {
		u64 r[2];

		alone[k] = single[k];
		if (p->dedicated)
			alone[k] = ded[k];
		else if (vgpu_maestro_mean(p, VGPU_MAESTRO_FOLLOWER, k, r))
			alone[k] = r[k];
	}
	vgpu_maestro_trials(p, &up, &down);
	if (vgpu_maestro_mean(p, VGPU_MAESTRO_FOLLOWER, VGPU_MAESTRO_SHARED,
			      mk)) {
		c[VGPU_MAESTRO_CAND_FOLLOWER].valid = true;
		c[VGPU_MAESTRO_CAND_FOLLOWER].value =
			vgpu_maestro_objective(objective, mk, single, 2);
	}
	if (up != p->fol_t &&
	    vgpu_maestro_mean(p, VGPU_MAESTRO_TRIAL_UP, VGPU_MAESTRO_SHARED,
			      mk)) {
		c[VGPU_MAESTRO_CAND_UP].valid = true;
		c[VGPU_MAESTRO_CAND_UP].value =
			vgpu_maestro_objective(objective, mk, single, 2);
	}
	if (down != p->fol_t &&
	    vgpu_maestro_mean(p, VGPU_MAESTRO_TRIAL_DOWN, VGPU_MAESTRO_SHARED,
			      mk)) {
		c[VGPU_MAESTRO_CAND_DOWN].valid = true;
		c[VGPU_MAESTRO_CAND_DOWN].value =
			vgpu_maestro_objective(objective, mk, single, 2);
	}
	/* Spatial: each kernel on half of the SMs at its rate alone. */
	sp[0] = alone[0] / 2;
	sp[1] = alone[1] / 2;
	c[VGPU_MAESTRO_CAND_SPATIAL].valid = true;
	c[VGPU_MAESTRO_CAND_SPATIAL].value =
		vgpu_maestro_objective(objective, sp, single, 2);
	best = vgpu_maestro_best(objective, c, VGPU_MAESTRO_NR_CANDS);
	switch (best) {
	case VGPU_MAESTRO_CAND_UP:
		p->fol_t = up;
		break;
	case VGPU_MAESTRO_CAND_DOWN:
		p->fol_t = down;
		break;
	default:
		break;
	}
	/*
	 * Spatial won: one more SM per kernel alone. SMK won while some SMs
	 * run spatially: one SM per kernel back to SMK (layout() clamps).
	 */
	if (best == VGPU_MAESTRO_CAND_SPATIAL)
		p->spatial++;
	else if (p->spatial)
		p->spatial--;
	p->spatial = min(p->spatial,
			 (p->nr_sms - 2 - 2 * (u32)p->dedicated) / 2);
	repart = p->fol_t != old_t || p->spatial != old_sp;

	if (p->dedicated) {
		if (!repart && p->have_prev &&
		    vgpu_maestro_stable(p->prev_ded[0], ded[0]) &&
		    vgpu_maestro_stable(p->prev_ded[1], ded[1])) {
			p->single[0] = ded[0];
			p->single[1] = ded[1];
			p->dedicated = false;
			p->retired_epochs = 0;
		} else {
			p->prev_ded[0] = ded[0];
			p->prev_ded[1] = ded[1];
			p->have_prev = true;
		}
	} else {
		p->retired_epochs++;
		if (vgpu_maestro_dedicated_back(p->retired_epochs, repart,
						false)) {
			p->dedicated = true;
			p->have_prev = false;
		}
	}
	p->changed = repart;
	p->epochs++;
	vgpu_maestro_layout(p);
out:
	for (i = 0; i < p->nr_sms; i++) {
		p->sms[i].insts[0] = 0;
		p->sms[i].insts[1] = 0;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_epoch_end);

/**
 * vgpu_maestro_sm_quota2() - the two kernels' TB quotas on an SM of a
 * pair's group.
 * @p: the pair.
 * @i: the SM's index in the group.
 * @q: out, the trial kernel's and the other's quota
 *	(%VGPU_SCHED_NO_QUOTA: alone, no limit).
 */
VISIBLE_IF_KUNIT void vgpu_maestro_sm_quota2(const struct vgpu_maestro_pair *p,
					     u32 i, u32 *q)
{
	const struct vgpu_maestro_sm *m = &p->sms[i];

	if (m->alone != VGPU_MAESTRO_SHARED) {
		q[m->alone] = VGPU_SCHED_NO_QUOTA;
		q[!m->alone] = 0;
		return;
	}
	q[0] = m->t;
	q[1] = vgpu_maestro_fill(p->cap, p->need[0], m->t, p->need[1]);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_sm_quota2);

/* ---- the policy ---------------------------------------------------------- */

/**
 * struct vgpu_maestro_group - a pair of kernels and its SMs.
 * @e: the trial kernel (0) and the other (1); @e[1] NULL for a kernel
 *	alone. Compared, never dereferenced after the plan that set them.
 * @id: their job ids (with @e, tell a new kernel at a reused address apart).
 * @key: their &vgpu_kcb_entry.kernel_key (the history's key).
 * @first_sm: the group's first SM; its SMs are consecutive.
 * @settling: a repartition is under way; the epoch starts when it is done.
 * @epoch_start: cycle at which the current epoch began.
 * @even: each kernel's SMK-even count (history-based start).
 * @even_only: when the pair formed, a kernel's unfinished TBs all fitted
 *	in its even share of the group: the pair runs SMK-even, with no roles
 *	and no epochs (vgpu_maestro_contend()).
 * @pair: the partitioning state; @pair.sms points into
 *	&vgpu_maestro.sms.
 */
struct vgpu_maestro_group {
	const struct vgpu_kcb_entry *e[2];
	u32 id[2];
	u64 key[2];
	u32 first_sm;
	bool settling;
	bool even_only;
	u64 epoch_start;
	u32 even[2];
	struct vgpu_maestro_pair pair;
};

/**
 * struct vgpu_maestro_hist - what a kernel's last pair learnt of it, for
 * when it comes back (§5.4.1: history-based partition prediction, and the
 * dedicated SMs' stored performance).
 * @key: &vgpu_kcb_entry.kernel_key, 0 for an unused entry.
 * @tbs: its TBs per SM in its last SMK when they were fewer than even,
 *	else 0.
 * @single: its last single-kernel rate (warp instructions per SM and
 *	epoch), 0 when none was measured.
 * @epoch_cycles: the epoch @single was measured over.
 * @partner: the &vgpu_kcb_entry.kernel_key of the other kernel of its last
 *	pair that had roles (not SMK-even only, nor too few SMs).
 * @spatial: the spatial SMs per kernel that pair ended with.
 */
struct vgpu_maestro_hist {
	u64 key;
	u32 tbs;
	u64 single;
	u32 epoch_cycles;
	u64 partner;
	u32 spatial;
};

/**
 * struct vgpu_maestro_base - a resident TB's progress when the epoch began.
 * @job: its job id, 0 when the slot had none (or none reported).
 * @tb: its TB index.
 * @insts: warp instructions it had executed.
 */
struct vgpu_maestro_base {
	u32 job;
	u32 tb;
	u64 insts;
};

/**
 * struct vgpu_maestro - the policy's state of one device
 *	(&vgpu_sched.policy_data); device lock.
 * @managed: kernels share the device: the quotas below apply.
 * @nr_groups: groups in use.
 * @hist_next: next entry of @hist to overwrite.
 * @hist: the history.
 * @groups: the groups.
 * @base: per TB slot (sm * max_tbs + slot), the progress of its TB at the
 *	start of its group's epoch (with the status table only).
 * @num_sms: entries of @sms.
 * @sms: per SM of the device, the pair state's SMs.
 */
struct vgpu_maestro {
	bool managed;
	u32 nr_groups;
	u32 hist_next;
	struct vgpu_maestro_hist hist[VGPU_MAESTRO_HIST];
	struct vgpu_maestro_group groups[VGPU_MAESTRO_MAX_GROUPS];
	struct vgpu_maestro_base *base;
	u32 num_sms;
	struct vgpu_maestro_sm sms[] __counted_by(num_sms);
};

static struct vgpu_maestro *vgpu_maestro_get(struct vgpu_sched *s)
{
	struct vgpu_maestro *m = s->policy_data;

	if (m)
		return m;
	/* Under the device lock, as the KCB's requeue allocation. */
	m = kzalloc(struct_size(m, sms, s->smst.num_sms),
		    GFP_NOWAIT | __GFP_NOWARN);
	if (!m)
		return NULL;
	m->base = kcalloc(s->smst.num_sms * VGPU_SMST_MAX_SLOTS, sizeof(*m->base),
			  GFP_NOWAIT | __GFP_NOWARN);
	if (!m->base) {
		kfree(m);
		return NULL;
	}
	m->num_sms = s->smst.num_sms;
	s->policy_data = m;
	return m;
}

static void vgpu_maestro_release(struct vgpu_sched *s)
{
	struct vgpu_maestro *m = s->policy_data;

	if (m)
		kfree(m->base);
	kfree(m);
	s->policy_data = NULL;
}

/* Which of the group's kernels @e is: 0, 1, or -1 for neither. */
static int vgpu_maestro_which(const struct vgpu_maestro_group *g,
			      const struct vgpu_kcb_entry *e)
{
	if (g->e[0] == e && g->id[0] == e->id)
		return 0;
	if (g->e[1] && g->e[1] == e && g->id[1] == e->id)
		return 1;
	return -1;
}

/*
 * The status table at an epoch's start (@end false: note each resident
 * TB's progress) or end (add what each resident TB of the pair executed
 * since, to its SM's count).
 */
static void vgpu_maestro_progress(struct vgpu_sched *s, struct vgpu_maestro *m,
				  struct vgpu_maestro_group *g, bool end)
{
	u32 sm, slot;

	for (sm = g->first_sm; sm < g->first_sm + g->pair.nr_sms; sm++) {
		for (slot = 0; slot < s->smst.max_tbs; slot++) {
			struct vgpu_maestro_base *b =
				&m->base[sm * VGPU_SMST_MAX_SLOTS + slot];
			const struct vgpu_smst_slot *sl;
			u64 insts;
			u32 flags;
			int k;

			sl = vgpu_smst_slot(&s->smst, sm, slot);
			if (!sl || !sl->job ||
			    vgpu_sched_tb_progress(s, sm, slot, &insts,
						   &flags, NULL)) {
				b->job = 0;
				continue;
			}
			if (!end) {
				b->job = sl->job->id;
				b->tb = sl->tb;
				b->insts = insts;
				continue;
			}
			k = vgpu_maestro_which(g, sl->job);
			if (k < 0)
				continue;
			if (b->job == sl->job->id && b->tb == sl->tb &&
			    b->insts <= insts)
				insts -= b->insts;
			g->pair.sms[sm - g->first_sm].insts[k] += insts;
		}
	}
}

/* The group whose SMs include @sm, or NULL. */
static const struct vgpu_maestro_group *
vgpu_maestro_group_of(const struct vgpu_maestro *m, u32 sm)
{
	u32 g;

	for (g = 0; g < m->nr_groups; g++) {
		const struct vgpu_maestro_group *gr = &m->groups[g];

		if (sm >= gr->first_sm &&
		    sm < gr->first_sm + gr->pair.nr_sms)
			return gr;
	}
	return NULL;
}

static u32 vgpu_maestro_sm_quota(const struct vgpu_sched *s,
				 const struct vgpu_kcb_entry *e, u32 sm)
{
	const struct vgpu_maestro *m = s->policy_data;
	const struct vgpu_maestro_group *g;
	u32 q[2];

	if (!m || !m->managed)
		return VGPU_SCHED_NO_QUOTA;
	g = vgpu_maestro_group_of(m, sm);
	if (!g || (g->e[0] != e && g->e[1] != e))
		return 0;
	if (!g->e[1])
		return VGPU_SCHED_NO_QUOTA;
	if (g->even_only)
		return g->even[g->e[0] == e ? 0 : 1];
	vgpu_maestro_sm_quota2(&g->pair, sm - g->first_sm, q);
	return q[g->e[0] == e ? 0 : 1];
}

/* @key's entry; with @make, a new one (the oldest replaced) if none. */
static struct vgpu_maestro_hist *vgpu_maestro_hist(struct vgpu_maestro *m,
						   u64 key, bool make)
{
	struct vgpu_maestro_hist *h;
	u32 i;

	if (!key)
		return NULL;
	for (i = 0; i < VGPU_MAESTRO_HIST; i++)
		if (m->hist[i].key == key)
			return &m->hist[i];
	if (!make)
		return NULL;
	h = &m->hist[m->hist_next];
	m->hist_next = (m->hist_next + 1) % VGPU_MAESTRO_HIST;
	memset(h, 0, sizeof(*h));
	h->key = key;
	return h;
}

/*
 * A pair breaks up: remember, per kernel, whether it had fewer TBs than
 * even, its single-kernel rate (stored, or last measured), its partner and
 * the spatial SMs.
 */
static void vgpu_maestro_dissolve(struct vgpu_sched *s, struct vgpu_maestro *m,
				  struct vgpu_maestro_group *g)
{
	const struct vgpu_maestro_pair *p = &g->pair;
	u32 tbs[2], k;

	if (!g->e[1] || g->even_only || p->nr_sms < VGPU_MAESTRO_MIN_SMS)
		return;
	tbs[0] = p->fol_t;
	tbs[1] = vgpu_maestro_fill(p->cap, p->need[0], p->fol_t, p->need[1]);
	for (k = 0; k < 2; k++) {
		struct vgpu_maestro_hist *h = vgpu_maestro_hist(m, g->key[k],
								true);
		u64 single = !p->dedicated ? p->single[k] :
			     p->have_prev ? p->prev_ded[k] : 0;

		if (!h)
			continue;
		h->tbs = tbs[k] < g->even[k] ? tbs[k] : 0;
		h->partner = g->key[!k];
		h->spatial = p->spatial;
		if (single) {
			h->single = single;
			h->epoch_cycles = vgpu_maestro_conf_of(s)->epoch_cycles;
		}
	}
}

/* SMK-even's count of one kernel beside one other (vgpu_policy_smk_even.c). */
static u32 vgpu_maestro_even(const u64 *cap, const u64 *need)
{
	u64 q = VGPU_SMST_MAX_SLOTS;
	u32 r;

	for (r = 0; r < VGPU_SMK_NR_RES; r++)
		if (need[r])
			q = min(q, div64_u64(cap[r], 2 * need[r]));
	return max_t(u32, q, 1);
}

/*
 * Whether a kernel has more unfinished TBs than its SMK-even share of @nr
 * SMs holds at once (@even per SM). One that has not will never start a TB
 * beyond what SMK-even already runs, so no partition learnt for it could be
 * applied, while dedicated and trial SMs would hold its TBs on fewer SMs
 * and keep the other kernel off those: Maestro's measurements assume both
 * kernels share the GPU for many epochs (§5.5: runs of a billion
 * instructions).
 */
static bool vgpu_maestro_contend(const struct vgpu_kcb_entry *e, u32 even,
				 u32 nr)
{
	return vgpu_kcb_entry_tbs_left(e) > (u64)even * nr;
}

/* Form group @g of kernels @a, @b (NULL: alone) on @nr SMs from @first. */
static void vgpu_maestro_group_init(struct vgpu_sched *s,
				    struct vgpu_maestro *m,
				    struct vgpu_maestro_group *g,
				    struct vgpu_kcb_entry *a,
				    struct vgpu_kcb_entry *b, u32 first,
				    u32 nr)
{
	struct vgpu_maestro_pair *p = &g->pair;
	const struct vgpu_maestro_hist *h[2];
	u32 hist_t = 0, t, k;
	u64 single[2];

	memset(g, 0, sizeof(*g));
	g->first_sm = first;
	p->nr_sms = nr;
	p->sms = &m->sms[first];
	g->settling = true;
	if (b && vgpu_maestro_trial_kernel(vgpu_smst_occupancy(&s->smst, &a->res),
					   vgpu_smst_occupancy(&s->smst, &b->res)))
		swap(a, b);
	g->e[0] = a;
	g->id[0] = a->id;
	g->key[0] = a->kernel_key;
	g->e[1] = b;
	g->id[1] = b ? b->id : 0;
	if (!b)
		return;
	g->key[1] = b->kernel_key;
	vgpu_smk_caps(&s->smst, p->cap);
	vgpu_smk_need(a, p->need[0]);
	vgpu_smk_need(b, p->need[1]);
	p->max[0] = vgpu_smst_occupancy(&s->smst, &a->res);
	p->max[1] = vgpu_smst_occupancy(&s->smst, &b->res);
	g->even[0] = vgpu_maestro_even(p->cap, p->need[0]);
	g->even[1] = vgpu_maestro_even(p->cap, p->need[1]);
	g->even_only = vgpu_maestro_conf_of(s)->pairing ==
			       VGPU_MAESTRO_PAIR_DISPATCH &&
		       (!vgpu_maestro_contend(a, g->even[0], nr) ||
			!vgpu_maestro_contend(b, g->even[1], nr));
	/* History-based start (§5.4.1), for kernels that come back. */
	h[0] = vgpu_maestro_hist(m, g->key[0], false);
	h[1] = vgpu_maestro_hist(m, g->key[1], false);
	if (h[0] && h[0]->tbs && h[0]->tbs < g->even[0])
		hist_t = h[0]->tbs;
	if (!hist_t && h[1] && h[1]->tbs && h[1]->tbs < g->even[1]) {
		for (t = p->max[0]; t > 1; t--)
			if (vgpu_maestro_fill(p->cap, p->need[0], t,
					      p->need[1]) >= h[1]->tbs)
				break;
		hist_t = t;
	}
	vgpu_maestro_pair_init(p, g->even[0], hist_t);
	if (g->even_only)
		return;
	/*
	 * Both single-kernel rates known: no dedicated SMs to begin with,
	 * unless every launch counts as new (maestro_relaunch=new, §5.4.1).
	 */
	for (k = 0; k < 2; k++) {
		if (!h[k] || !h[k]->single ||
		    h[k]->epoch_cycles != vgpu_maestro_conf_of(s)->epoch_cycles)
			break;
		single[k] = h[k]->single;
	}
	if (k == 2 &&
	    vgpu_maestro_conf_of(s)->relaunch == VGPU_MAESTRO_RELAUNCH_KNOWN)
		vgpu_maestro_pair_known(p, single);
	/* The same pair again: resume its spatial SMs (layout() clamps). */
	if (vgpu_maestro_conf_of(s)->history == VGPU_MAESTRO_HIST_PARTITION &&
	    h[0] && h[1] && h[0]->partner == g->key[1] &&
	    h[1]->partner == g->key[0] && h[0]->spatial && h[1]->spatial) {
		p->spatial = min(h[0]->spatial, h[1]->spatial);
		vgpu_maestro_layout(p);
	}
}

/*
 * Whether @e takes part in the pairing: a kernel with TBs to dispatch, and
 * under maestro_pairing=resident also one of a current pair whose TBs are
 * all dispatched but not all finished. Under "dispatch" such a kernel
 * leaves its pair and the other takes the whole device beside its resident
 * TBs, at any count: a kernel whose grid is placed at once (nbody, 79 TBs
 * on 16 SMs) is then never in a pair, and its TBs share their SMs with
 * whatever arrives until they end. Only members' TBs are preempted down to
 * a new partition, so that a resident member is repartitioned too.
 */
static bool vgpu_maestro_member(struct vgpu_sched *s,
				const struct vgpu_kcb_entry *e)
{
	const struct vgpu_maestro *m = s->policy_data;
	u32 g;

	if (vgpu_sched_candidate(s, e))
		return true;
	if (!m || vgpu_maestro_conf_of(s)->pairing != VGPU_MAESTRO_PAIR_RESIDENT ||
	    !vgpu_sched_resident(s, e))
		return false;
	for (g = 0; g < m->nr_groups; g++)
		if (vgpu_maestro_which(&m->groups[g], e) >= 0)
			return true;
	return false;
}

/* No kernel of the group's SMs runs above its quota (§5.4.1). */
static bool vgpu_maestro_reached(struct vgpu_sched *s,
				 const struct vgpu_maestro_group *g)
{
	u32 sm, k;

	for (sm = g->first_sm; sm < g->first_sm + g->pair.nr_sms; sm++) {
		const struct vgpu_sm *st = &s->smst.sms[sm];

		for (k = 0; k < st->nr_kernels; k++) {
			const struct vgpu_kcb_entry *e = st->kernels[k].job;
			u32 q;

			if (!vgpu_maestro_member(s, e))
				continue;
			q = vgpu_sched_sm_quota(s, e, sm);
			if (q != VGPU_SCHED_NO_QUOTA && st->kernels[k].tbs > q)
				return false;
		}
	}
	return true;
}

/* Fig. 5.12's distribution: what an epoch's decision chose. */
static void vgpu_maestro_count(struct vgpu_maestro_stats *st,
			       const struct vgpu_maestro_group *g, int best)
{
	if (best < 0)
		return;
	st->epochs++;
	if (best == VGPU_MAESTRO_CAND_SPATIAL)
		st->spatial++;
	else if (g->pair.fol_t == g->even[0])
		st->smk_even++;
	else
		st->smk_other++;
	st->repartitions += g->pair.changed;
}

/* The epoch clock of one pair. */
static void vgpu_maestro_step(struct vgpu_sched *s, struct vgpu_maestro *m,
			      struct vgpu_maestro_group *g)
{
	struct vgpu_maestro_conf *conf = vgpu_maestro_conf_of(s);
	int best;

	if (!g->e[1] || g->even_only)
		return;
	/* With a status table, only where it is current. */
	if (s->tb_status && !s->fresh_status && !READ_ONCE(s->held))
		return;
	if (!g->settling &&
	    s->cycle - g->epoch_start >= conf->epoch_cycles) {
		if (s->tb_status)
			vgpu_maestro_progress(s, m, g, true);
		best = vgpu_maestro_epoch_end(&g->pair, conf->objective);
		vgpu_maestro_count(&conf->stats, g, best);
		trace_vgpu_maestro_epoch(g->id[0], g->id[1], best,
					 g->pair.fol_t, g->pair.spatial,
					 g->pair.dedicated, s->cycle);
		dev_dbg(s->dev,
			"maestro: jobs %u/%u at cycle %llu: best %d, followers %u TBs, spatial %u, dedicated %d\n",
			g->id[0], g->id[1], s->cycle, best, g->pair.fol_t,
			g->pair.spatial, g->pair.dedicated);
		g->settling = true;
	}
	if (g->settling && vgpu_maestro_reached(s, g)) {
		u32 i;

		g->settling = false;
		g->epoch_start = s->cycle;
		for (i = 0; i < g->pair.nr_sms; i++) {
			g->pair.sms[i].insts[0] = 0;
			g->pair.sms[i].insts[1] = 0;
		}
		if (s->tb_status)
			vgpu_maestro_progress(s, m, g, false);
	}
}

/* Preempt what runs above the plan on @sm (§5.4.2's fixed order). */
static void vgpu_maestro_preempt(struct vgpu_sched *s, u32 sm)
{
	const struct vgpu_sm *st = &s->smst.sms[sm];
	struct vgpu_kcb_entry *v[VGPU_SMST_MAX_SLOTS];
	u32 q[VGPU_SMST_MAX_SLOTS], nr = 0, k;

	/* Collected first: preempting does not change the table, but be safe. */
	for (k = 0; k < st->nr_kernels; k++) {
		struct vgpu_kcb_entry *e = st->kernels[k].job;

		if (!vgpu_maestro_member(s, e))
			continue;
		q[nr] = vgpu_sched_sm_quota(s, e, sm);
		if (q[nr] != VGPU_SCHED_NO_QUOTA && st->kernels[k].tbs > q[nr])
			v[nr++] = e;
	}
	for (k = 0; k < nr; k++)
		vgpu_maestro_conf_of(s)->stats.preempted_tbs +=
			vgpu_sched_preempt_excess(s, sm, v[k], q[k]);
}

static bool vgpu_maestro_same(const struct vgpu_maestro_group *g,
			      const struct vgpu_kcb_entry *a,
			      const struct vgpu_kcb_entry *b, u32 first,
			      u32 nr)
{
	if (g->first_sm != first || g->pair.nr_sms != nr)
		return false;
	if (g->e[0] == a && g->id[0] == a->id)
		return b ? g->e[1] == b && g->id[1] == b->id : !g->e[1];
	return b && g->e[0] == b && g->id[0] == b->id && g->e[1] == a &&
	       g->id[1] == a->id;
}

static void vgpu_maestro_plan(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *c[2 * VGPU_MAESTRO_MAX_GROUPS], *e;
	u32 n = s->smst.num_sms, k = 0, nr_groups, g, sm;
	struct vgpu_maestro *m;

	m = vgpu_maestro_get(s);
	if (!m) {
		vgpu_policy_smk_even.plan(s);
		return;
	}
	/* Members by the groups as they stand, before they are re-formed. */
	list_for_each_entry(e, &s->kcb.active, link) {
		e->quota = 0;
		e->plan_sms = 0;
		if (vgpu_maestro_member(s, e) && k < ARRAY_SIZE(c))
			c[k++] = e;
	}
	nr_groups = k < 2 ? 0 : min(DIV_ROUND_UP(k, 2), n);
	for (g = 0; g < nr_groups; g++) {
		struct vgpu_kcb_entry *a = c[2 * g];
		struct vgpu_kcb_entry *b = 2 * g + 1 < k ? c[2 * g + 1] : NULL;
		u32 first = g * n / nr_groups;
		u32 nr = (g + 1) * n / nr_groups - first;

		if (g < m->nr_groups &&
		    vgpu_maestro_same(&m->groups[g], a, b, first, nr))
			continue;
		if (g < m->nr_groups)
			vgpu_maestro_dissolve(s, m, &m->groups[g]);
		vgpu_maestro_group_init(s, m, &m->groups[g], a, b, first, nr);
	}
	for (; g < m->nr_groups; g++)
		vgpu_maestro_dissolve(s, m, &m->groups[g]);
	m->nr_groups = nr_groups;
	m->managed = nr_groups > 0;
	if (!m->managed)
		return;	/* alone: the whole device */
	for (g = 0; g < nr_groups; g++)
		vgpu_maestro_step(s, m, &m->groups[g]);
	for (sm = 0; sm < n; sm++)
		vgpu_maestro_preempt(s, sm);
}

/*
 * The performance counters (§5.4.1): a finished TB's warp instructions in
 * this epoch, on its SM for its kernel: beyond its progress at the epoch's
 * start with the status table, else pro-rated to its run in the epoch.
 */
static void vgpu_maestro_tb_done(struct vgpu_sched *s,
				 struct vgpu_kcb_entry *e,
				 const struct vgpu_evt *evt)
{
	struct vgpu_maestro *m = s->policy_data;
	const struct vgpu_maestro_group *cg;
	struct vgpu_maestro_group *g;
	u64 in_epoch, insts = evt->warp_insts;
	struct vgpu_maestro_base *b;
	int k;

	if (!m || !m->managed || evt->status || !evt->tb_cycles ||
	    evt->sm >= m->num_sms || evt->slot >= s->smst.max_tbs)
		return;
	b = &m->base[evt->sm * VGPU_SMST_MAX_SLOTS + evt->slot];
	cg = vgpu_maestro_group_of(m, evt->sm);
	if (!cg || !cg->e[1] || cg->settling) {
		b->job = 0;
		return;
	}
	g = &m->groups[cg - m->groups];
	k = vgpu_maestro_which(g, e);
	if (k < 0) {
		b->job = 0;
		return;
	}
	if (s->tb_status) {
		if (b->job == e->id && b->tb == evt->tb && b->insts <= insts)
			insts -= b->insts;
		b->job = 0;
	} else {
		in_epoch = s->cycle - g->epoch_start;
		if (in_epoch < evt->tb_cycles)
			insts = div64_u64(insts * in_epoch, evt->tb_cycles);
	}
	g->pair.sms[evt->sm - g->first_sm].insts[k] += insts;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * vgpu_maestro_state_pair() - a group's pair state (KUnit).
 * @s: the scheduler, under maestro.
 * @g: group index.
 *
 * Caller holds the device lock.
 *
 * Return: the pair, or NULL when there is no such group.
 */
const struct vgpu_maestro_pair *
vgpu_maestro_state_pair(const struct vgpu_sched *s, u32 g)
{
	const struct vgpu_maestro *m = s->policy_data;

	if (!m || g >= m->nr_groups)
		return NULL;
	return &m->groups[g].pair;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_state_pair);
#endif

static_assert(sizeof(struct vgpu_maestro_conf) <= VGPU_POLICY_CONF_SIZE);

/* Which kernels make up the pairs (&enum vgpu_maestro_pairing). */
static const char * const vgpu_maestro_pairing_names[] = {
	[VGPU_MAESTRO_PAIR_DISPATCH] = "dispatch",
	[VGPU_MAESTRO_PAIR_RESIDENT] = "resident",
	NULL
};

/* Whether a relaunched kernel is known (&enum vgpu_maestro_relaunch). */
static const char * const vgpu_maestro_relaunch_names[] = {
	[VGPU_MAESTRO_RELAUNCH_KNOWN] = "known",
	[VGPU_MAESTRO_RELAUNCH_NEW] = "new",
	NULL
};

/* maestro's objectives (&enum vgpu_maestro_objective), the default first. */
static const char * const vgpu_maestro_objective_names[] = {
	[VGPU_MAESTRO_STP] = "stp",
	[VGPU_MAESTRO_ANTT] = "antt",
	NULL
};

/* What a returning pair starts from (&enum vgpu_maestro_history). */
static const char * const vgpu_maestro_history_names[] = {
	[VGPU_MAESTRO_HIST_COUNT] = "count",
	[VGPU_MAESTRO_HIST_PARTITION] = "partition",
	NULL
};

static const struct vgpu_knob vgpu_maestro_knobs[] = {
	{
		.name = "maestro_epoch_cycles",
		.kind = VGPU_KNOB_U32,
		.min = VGPU_MAESTRO_EPOCH_MIN,
		.max = VGPU_MAESTRO_EPOCH_MAX,
		.def = VGPU_MAESTRO_EPOCH_DEFAULT,
		.offset = offsetof(struct vgpu_maestro_conf, epoch_cycles),
	}, {
		.name = "maestro_objective",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_MAESTRO_STP,
		.choices = vgpu_maestro_objective_names,
		.offset = offsetof(struct vgpu_maestro_conf, objective),
	}, {
		.name = "maestro_history",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_MAESTRO_HIST_COUNT,
		.choices = vgpu_maestro_history_names,
		.offset = offsetof(struct vgpu_maestro_conf, history),
	}, {
		.name = "maestro_pairing",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_MAESTRO_PAIR_DISPATCH,
		.choices = vgpu_maestro_pairing_names,
		.offset = offsetof(struct vgpu_maestro_conf, pairing),
	}, {
		.name = "maestro_relaunch",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_MAESTRO_RELAUNCH_KNOWN,
		.choices = vgpu_maestro_relaunch_names,
		.offset = offsetof(struct vgpu_maestro_conf, relaunch),
	},
};

/* debugfs "maestro": the epoch, then the decisions' counts. */
static int vgpu_maestro_conf_show(const void *conf, char *buf)
{
	const struct vgpu_maestro_conf *c = conf;
	const struct vgpu_maestro_stats *st = &c->stats;

	return sysfs_emit(buf,
			  "epoch_cycles %u\nepochs %llu\nspatial %llu\nsmk_even %llu\nsmk_other %llu\nrepartitions %llu\npreempted_tbs %llu\n",
			  c->epoch_cycles, st->epochs, st->spatial,
			  st->smk_even, st->smk_other, st->repartitions,
			  st->preempted_tbs);
}

const struct vgpu_policy_conf vgpu_maestro_policy_conf = {
	.name = "maestro",
	.knobs = vgpu_maestro_knobs,
	.nr_knobs = ARRAY_SIZE(vgpu_maestro_knobs),
	.show = vgpu_maestro_conf_show,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_maestro_policy_conf);

const struct vgpu_partition_ops vgpu_policy_maestro = {
	.name = "maestro",
	.plan = vgpu_maestro_plan,
	.tb_done = vgpu_maestro_tb_done,
	.sm_quota = vgpu_maestro_sm_quota,
	.release = vgpu_maestro_release,
	.two_way = true,
	.conf = &vgpu_maestro_policy_conf,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_maestro);
