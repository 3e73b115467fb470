// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the warped-slicer partition policy (vgpu_policy_warped_slicer.c).
 *
 * The pure parts against hand-computed values (profiling assignment, curve
 * building, the water-filling solver), then the policy on the mock
 * hardware of vgpu_mock.c: the profiling layout, curves from synthetic
 * TB_DONE events, quotas carried out end to end (the mock checks every
 * DISPATCH against the plan in effect), and the per-kernel state freed as
 * kernels end.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"
#include "vgpu_policy_warped_slicer.h"
#include "vgpu_test.h"

/* ---- pure functions ------------------------------------------------------ */

static void ws_profile_quota(struct kunit *test)
{
	static const u32 spread[] = { 2, 4, 6, 8 };
	u32 j;

	/* At least as many SMs as counts: 1 + j mod max. */
	for (j = 0; j < 8; j++)
		KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(j, 8, 4), 1 + j % 4);
	for (j = 0; j < 5; j++)
		KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(j, 5, 4), 1 + j % 4);
	/* Fewer: spread evenly, the last SM at the maximum. */
	for (j = 0; j < 4; j++)
		KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(j, 4, 8), spread[j]);
	KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(0, 3, 8), 3);
	KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(1, 3, 8), 6);
	KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(2, 3, 8), 8);
	KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(0, 1, 32), 32);
	KUNIT_EXPECT_EQ(test, vgpu_ws_profile_quota(3, 4, 1), 1);
}

static void add_sample(struct vgpu_ws_samples *smp, u32 q, u32 tbs,
		       u64 insts, u64 cycles)
{
	smp->tbs[q] += tbs;
	smp->insts[q] += tbs * insts;
	smp->cycles[q] += tbs * cycles;
}

static void ws_build_curve(struct kunit *test)
{
	struct vgpu_ws_samples *smp;
	struct vgpu_ws_curve *c;
	u32 t;

	smp = kunit_kzalloc(test, sizeof(*smp), GFP_KERNEL);
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, smp);
	KUNIT_ASSERT_NOT_NULL(test, c);

	/* Nothing measured (a sample without cycles does not count). */
	smp->tbs[3] = 1;
	smp->insts[3] = 100;
	KUNIT_EXPECT_EQ(test, vgpu_ws_build_curve(smp, 8, c), -ENODATA);
	KUNIT_EXPECT_EQ(test, c->perf[3], 0);

	/*
	 * Saturating at 2: TBs at 1 instruction per cycle at q = 2, half that
	 * at 4, a quarter at 8: 2 * 1024 at every measured count.
	 */
	memset(smp, 0, sizeof(*smp));
	add_sample(smp, 2, 2, 100, 100);
	add_sample(smp, 4, 4, 100, 200);
	add_sample(smp, 8, 8, 100, 400);
	KUNIT_ASSERT_EQ(test, vgpu_ws_build_curve(smp, 8, c), 0);
	KUNIT_EXPECT_EQ(test, c->max_tbs, 8);
	KUNIT_EXPECT_EQ(test, c->perf[0], 0);
	KUNIT_EXPECT_EQ(test, c->perf[1], 1024);	/* proportional below */
	for (t = 2; t <= 8; t++)
		KUNIT_EXPECT_EQ_MSG(test, c->perf[t], 2048, "t = %u", t);

	/* Interpolated between 2 (2048) and 6 (1024), flat above. */
	memset(smp, 0, sizeof(*smp));
	add_sample(smp, 2, 3, 100, 100);
	add_sample(smp, 6, 6, 100, 600);
	KUNIT_ASSERT_EQ(test, vgpu_ws_build_curve(smp, 8, c), 0);
	KUNIT_EXPECT_EQ(test, c->perf[2], 2048);
	KUNIT_EXPECT_EQ(test, c->perf[3], 1792);
	KUNIT_EXPECT_EQ(test, c->perf[4], 1536);
	KUNIT_EXPECT_EQ(test, c->perf[5], 1280);
	KUNIT_EXPECT_EQ(test, c->perf[6], 1024);
	KUNIT_EXPECT_EQ(test, c->perf[7], 1024);
	KUNIT_EXPECT_EQ(test, c->perf[8], 1024);

	/* Samples beyond what fits on an SM are not part of the curve. */
	memset(smp, 0, sizeof(*smp));
	add_sample(smp, 1, 1, 50, 100);
	add_sample(smp, 5, 5, 100, 100);
	KUNIT_ASSERT_EQ(test, vgpu_ws_build_curve(smp, 4, c), 0);
	KUNIT_EXPECT_EQ(test, c->max_tbs, 4);
	for (t = 1; t <= 4; t++)
		KUNIT_EXPECT_EQ(test, c->perf[t], 512);
	KUNIT_EXPECT_EQ(test, c->perf[5], 0);
}

/* A TB slot, 128 threads and 2048 registers per TB. */
static void small_tb(struct vgpu_ws_part *p, const struct vgpu_ws_curve *c,
		     u32 min, u32 limit)
{
	memset(p, 0, sizeof(*p));
	p->curve = c;
	p->need[0] = 1;
	p->need[1] = 128;
	p->need[2] = 2048;
	p->min = min;
	p->limit = limit;
}

static void curve_fn(struct vgpu_ws_curve *c, u32 max, u32 sat, u32 slope)
{
	u32 t;

	memset(c, 0, sizeof(*c));
	c->max_tbs = max;
	for (t = 1; t <= max; t++)
		c->perf[t] = (u64)slope * (sat ? min(t, sat) : t);
}

/* Curves are large: off the stack. */
static struct vgpu_ws_curve *ws_curves(struct kunit *test, u32 n)
{
	struct vgpu_ws_curve *c = kunit_kcalloc(test, n, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	return c;
}

/* cap: 8 slots, 1024 threads, 32768 registers, 48 KiB. */
static const u64 ws_cap[VGPU_SMK_NR_RES] = { 8, 1024, 32768, 49152 };

/*
 * The example: A saturates at 2 TBs, B scales linearly. Each gets
 * one; A's second adds 1/2 of its best, B's TBs 1/8 each: A gets 2, B the
 * rest (6).
 */
static void ws_solve_saturating_linear(struct kunit *test)
{
	struct vgpu_ws_curve *c = ws_curves(test, 2), *a = &c[0], *b = &c[1];
	struct vgpu_ws_part p[2];

	curve_fn(a, 8, 2, 100);
	curve_fn(b, 8, 0, 10);
	small_tb(&p[0], a, 1, 8);
	small_tb(&p[1], b, 1, 8);
	vgpu_ws_solve(ws_cap, p, 2);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 2);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 6);

	/* In the other job order, the same split. */
	small_tb(&p[0], b, 1, 8);
	small_tb(&p[1], a, 1, 8);
	vgpu_ws_solve(ws_cap, p, 2);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 6);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 2);

	/* B may use only 3 per SM: the rest stays free, A gains nothing. */
	small_tb(&p[0], a, 1, 8);
	small_tb(&p[1], b, 1, 3);
	vgpu_ws_solve(ws_cap, p, 2);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 2);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 3);
}

/*
 * Registers bind: A needs 8192 per TB (4 fit), B 2048. Both linear: A's
 * TBs add 1/4 each, B's 1/8. A=1, B=1 (10240); A to 3 (26624); A's 4th
 * no longer fits; B to 4 (32768, every register). 7 of 8 slots.
 */
static void ws_solve_resources(struct kunit *test)
{
	struct vgpu_ws_curve *c = ws_curves(test, 2), *a = &c[0], *b = &c[1];
	struct vgpu_ws_part p[2];
	u64 regs;

	curve_fn(a, 4, 0, 100);
	curve_fn(b, 8, 0, 100);
	small_tb(&p[0], a, 1, 4);
	p[0].need[2] = 8192;
	small_tb(&p[1], b, 1, 8);
	vgpu_ws_solve(ws_cap, p, 2);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 3);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 4);
	regs = p[0].tbs * p[0].need[2] + p[1].tbs * p[1].need[2];
	KUNIT_EXPECT_EQ(test, regs, 32768);

	/* Threads bind: 512-thread TBs of A leave room for 4 of B. */
	small_tb(&p[0], a, 1, 4);
	p[0].need[1] = 512;
	small_tb(&p[1], b, 1, 8);
	vgpu_ws_solve(ws_cap, p, 2);
	KUNIT_EXPECT_LE(test, p[0].tbs * 512 + p[1].tbs * 128, 1024);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 1);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 4);
}

/*
 * Equal gains go to the kernel lower on its curve, then by job order:
 * two equal linear kernels split 4/4, three split 3/3/2, every time.
 */
static void ws_solve_ties(struct kunit *test)
{
	struct vgpu_ws_curve *a = ws_curves(test, 1);
	struct vgpu_ws_part p[3];
	u32 round, i;

	curve_fn(a, 8, 0, 10);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 3; i++)
			small_tb(&p[i], a, 1, 8);
		vgpu_ws_solve(ws_cap, p, 2);
		KUNIT_EXPECT_EQ(test, p[0].tbs, 4);
		KUNIT_EXPECT_EQ(test, p[1].tbs, 4);
		vgpu_ws_solve(ws_cap, p, 3);
		KUNIT_EXPECT_EQ(test, p[0].tbs, 3);
		KUNIT_EXPECT_EQ(test, p[1].tbs, 3);
		KUNIT_EXPECT_EQ(test, p[2].tbs, 2);
	}
}

/*
 * Look-ahead: A is flat from 1 to 3 TBs and jumps at 4 (1/8 to 1: 7/24
 * per TB over three steps), B linear (1/8 per TB). On 6 slots A gets 4,
 * B 2; a one-step rule would stop A at 1.
 */
static void ws_solve_lookahead(struct kunit *test)
{
	struct vgpu_ws_curve *c = ws_curves(test, 2), *a = &c[0], *b = &c[1];
	struct vgpu_ws_part p[2];
	static const u64 cap6[VGPU_SMK_NR_RES] = { 6, 1024, 32768, 49152 };

	a->max_tbs = 4;
	a->perf[1] = 10;
	a->perf[2] = 10;
	a->perf[3] = 10;
	a->perf[4] = 80;
	curve_fn(b, 8, 0, 10);
	small_tb(&p[0], a, 1, 4);
	small_tb(&p[1], b, 1, 8);
	vgpu_ws_solve(cap6, p, 2);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 4);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 2);
}

/* The minimum comes first, in job order, where it fits; flat curves. */
static void ws_solve_minimum(struct kunit *test)
{
	static const u64 cap2[VGPU_SMK_NR_RES] = { 2, 1024, 32768, 49152 };
	struct vgpu_ws_curve *c = ws_curves(test, 2), *a = &c[0], *flat = &c[1];
	struct vgpu_ws_part p[3];

	curve_fn(a, 8, 0, 10);
	curve_fn(flat, 8, 1, 10);
	small_tb(&p[0], a, 1, 8);
	small_tb(&p[1], a, 1, 8);
	small_tb(&p[2], a, 1, 8);
	vgpu_ws_solve(cap2, p, 3);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 1);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 1);
	KUNIT_EXPECT_EQ(test, p[2].tbs, 0);

	/* Flat curves gain nothing beyond the minimum. */
	small_tb(&p[0], flat, 2, 8);
	small_tb(&p[1], flat, 1, 8);
	vgpu_ws_solve(ws_cap, p, 2);
	KUNIT_EXPECT_EQ(test, p[0].tbs, 2);
	KUNIT_EXPECT_EQ(test, p[1].tbs, 1);
}

/* ---- the policy on the mock hardware ------------------------------------- */

static struct mock_hw *ws_hw(struct kunit *test, u32 num_sms, u32 max_tbs)
{
	struct vgpu_device_desc d;
	struct mock_hw *hw;

	mock_desc(&d);
	d.num_sms = num_sms;
	d.max_tbs_per_sm = max_tbs;
	hw = mock_new_desc(test, MOCK_RING_MAX, &d);
	hw->check_fcfs = false;
	mutex_lock(&hw->lock);
	vgpu_sched_set_policy(&hw->s, &vgpu_policy_warped_slicer);
	mutex_unlock(&hw->lock);
	return hw;
}

static void ws_submit_all(struct mock_hw *hw, struct mock_job **j, u32 n)
{
	u32 i;

	mutex_lock(&hw->lock);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(hw->test,
				vgpu_kcb_add(&hw->s.kcb, &j[i]->e, hw->s.cycle),
				0);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
}

static void ws_run(struct mock_hw *hw)
{
	u32 steps = 0;

	mock_apply(hw);
	while (mock_step(hw)) {
		mock_apply(hw);
		KUNIT_ASSERT_LT(hw->test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_EQ(hw->test, hw->nr_run, 0);
}

/* Kernels the policy holds state for. */
static u32 ws_nr_states(struct mock_hw *hw)
{
	u32 n;

	mutex_lock(&hw->lock);
	n = vgpu_ws_nr_states(&hw->s);
	mutex_unlock(&hw->lock);
	return n;
}

static enum vgpu_ws_phase ws_phase(struct mock_hw *hw, struct mock_job *j)
{
	const struct vgpu_ws_kernel *k;
	enum vgpu_ws_phase p;

	mutex_lock(&hw->lock);
	k = vgpu_ws_state(&hw->s, &j->e);
	p = k ? k->phase : VGPU_WS_NO_CURVE;
	mutex_unlock(&hw->lock);
	return p;
}

/* Everything done, nothing of the policy left. */
static void ws_finish(struct mock_hw *hw, struct mock_job **j, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		expect_complete(hw, j[i]);
	expect_idle(hw);
	KUNIT_EXPECT_EQ(hw->test, ws_nr_states(hw), 0);
	mock_finish(hw);
}

/*
 * Two new kernels on 8 SMs of 8 slots (8 of their TBs fit on an SM): one
 * group of 4 SMs each, SM j of a group at 2 (j + 1) TBs.
 */
static void ws_profiling_layout(struct kunit *test)
{
	struct mock_hw *hw = ws_hw(test, 8, 8);
	struct mock_job *j[2];
	u32 sm;

	j[0] = mock_job_new(hw, 100, 128, 16, 0, 1000);
	j[1] = mock_job_new(hw, 100, 128, 16, 0, 1000);
	ws_submit_all(hw, j, 2);
	mutex_lock(&hw->lock);
	for (sm = 0; sm < 8; sm++) {
		const struct vgpu_ws_kernel *k;
		u32 i = sm / 4, q = 2 * (sm % 4 + 1);

		KUNIT_EXPECT_PTR_EQ(test, hw->s.sm_owner[sm], &j[i]->e);
		k = vgpu_ws_state(&hw->s, &j[i]->e);
		KUNIT_ASSERT_NOT_NULL(test, k);
		KUNIT_EXPECT_EQ(test, k->phase, VGPU_WS_PROFILING);
		KUNIT_EXPECT_EQ(test, k->curve.max_tbs, 8);
		KUNIT_EXPECT_EQ(test, k->sm_quota[sm], q);
		KUNIT_EXPECT_EQ(test, vgpu_smst_kernel_tbs(&hw->s.smst, sm,
							   &j[i]->e), q);
		k = vgpu_ws_state(&hw->s, &j[1 - i]->e);
		KUNIT_EXPECT_EQ(test, k->sm_quota[sm], 0);
	}
	KUNIT_EXPECT_EQ(test, j[0]->e.quota, 0);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, ws_nr_states(hw), 2);
	ws_run(hw);
	ws_finish(hw, j, 2);
}

static void ws_evt(struct mock_hw *hw, struct mock_job *j, u32 sm, u32 n,
		   u64 insts, u64 cycles, int status)
{
	struct vgpu_evt evt = {
		.type = VGPU_EVT_TB_DONE,
		.job = j->e.id,
		.cycle = hw->s.cycle,
		.sm = sm,
		.status = status,
		.warp_insts = insts,
		.tb_cycles = cycles,
	};

	while (n--)
		vgpu_policy_warped_slicer.tb_done(&hw->s, &j->e, &evt);
}

/*
 * Curves from TB_DONE events: A's TBs slow down as more share an SM (a
 * constant 2048 from 2 TBs on), B's do not (linear). The next pass builds
 * both curves and partitions: A 2 TBs per SM, B 6; then the quotas hold
 * on the mock to the end.
 */
static void ws_curves_from_events(struct kunit *test)
{
	struct mock_hw *hw = ws_hw(test, 8, 8);
	const struct vgpu_ws_kernel *ka, *kb;
	struct mock_job *j[2], *a, *b;
	u32 i, t, sm;

	j[0] = mock_job_new(hw, 400, 128, 16, 0, 5000);
	j[1] = mock_job_new(hw, 400, 128, 16, 0, 5000);
	a = j[0];
	b = j[1];
	ws_submit_all(hw, j, 2);
	mock_apply(hw);

	mutex_lock(&hw->lock);
	/*
	 * The daemon's next kick: the JOB_BEGINs were applied at cycle 0; the
	 * events come at cycle 3000 (before any TB of the mock ends).
	 */
	vgpu_sched_applied(&hw->s, hw->consumed, 0);
	KUNIT_ASSERT_EQ(test, vgpu_sched_set_cycle(&hw->s, 3000), 0);
	hw->cycle = 3000;
	for (i = 0; i < 4; i++) {
		u32 q = 2 * (i + 1);

		ws_evt(hw, a, i, q, 100, 50 * q, 0);
		ws_evt(hw, b, 4 + i, q, 100, 100, 0);
	}
	/* Not counted: a failed TB, an SM of the other group, no cycles. */
	ws_evt(hw, a, 0, 5, 100000, 1, -EIO);
	ws_evt(hw, a, 5, 5, 100000, 1, 0);
	ws_evt(hw, b, 4, 5, 100000, 0, 0);
	/* ... nor one that would have started before cycle 0. */
	ws_evt(hw, b, 4, 5, 100000, 3001, 0);
	ka = vgpu_ws_state(&hw->s, &a->e);
	kb = vgpu_ws_state(&hw->s, &b->e);
	KUNIT_ASSERT_NOT_NULL(test, ka);
	KUNIT_ASSERT_NOT_NULL(test, kb);
	KUNIT_EXPECT_EQ(test, ka->smp.tbs[2], 2);
	KUNIT_EXPECT_EQ(test, ka->smp.insts[2], 200);
	KUNIT_EXPECT_EQ(test, ka->smp.cycles[8], 8 * 400);
	KUNIT_EXPECT_EQ(test, kb->smp.tbs[2], 2);

	vgpu_sched_run(&hw->s);
	KUNIT_EXPECT_EQ(test, ka->phase, VGPU_WS_READY);
	KUNIT_EXPECT_EQ(test, kb->phase, VGPU_WS_READY);
	KUNIT_EXPECT_EQ(test, ka->curve.perf[1], 1024);
	for (t = 2; t <= 8; t++) {
		KUNIT_EXPECT_EQ(test, ka->curve.perf[t], 2048);
		KUNIT_EXPECT_EQ(test, kb->curve.perf[t], 1024 * t);
	}
	KUNIT_EXPECT_EQ(test, a->e.quota, 2);
	KUNIT_EXPECT_EQ(test, b->e.quota, 6);
	for (sm = 0; sm < 8; sm++)
		KUNIT_EXPECT_NULL(test, hw->s.sm_owner[sm]);
	mutex_unlock(&hw->lock);

	ws_run(hw);
	ws_finish(hw, j, 2);
}

/*
 * End to end on the mock: A stops scaling beyond 1 TB per SM (its n-th
 * TB on an SM runs n times as long), B scales. Profiling measures both;
 * the partition gives B most of each SM. The mock checks every dispatch
 * against the quotas; the same run twice gives the same commands.
 */
static void ws_end_to_end(struct kunit *test)
{
	u64 hash[2];
	u32 round;

	for (round = 0; round < 2; round++) {
		struct mock_hw *hw = ws_hw(test, 8, 8);
		struct mock_job *j[2], *a, *b;
		u32 steps = 0;

		j[0] = mock_job_new(hw, 300, 128, 16, 0, 1000);
		j[1] = mock_job_new(hw, 300, 128, 16, 0, 1000);
		a = j[0];
		b = j[1];
		a->sat = 1;
		ws_submit_all(hw, j, 2);
		mock_apply(hw);
		while ((ws_phase(hw, a) == VGPU_WS_PROFILING ||
			ws_phase(hw, b) == VGPU_WS_PROFILING) &&
		       mock_step(hw)) {
			mock_apply(hw);
			KUNIT_ASSERT_LT(test, ++steps, MOCK_MAX_STEPS);
		}
		KUNIT_EXPECT_EQ(test, ws_phase(hw, a), VGPU_WS_READY);
		KUNIT_EXPECT_EQ(test, ws_phase(hw, b), VGPU_WS_READY);
		KUNIT_EXPECT_GE(test, a->e.quota, 1);
		KUNIT_EXPECT_LE(test, a->e.quota, 2);
		KUNIT_EXPECT_GE(test, b->e.quota, 6);
		KUNIT_EXPECT_LE(test, a->e.quota + b->e.quota, 8);
		ws_run(hw);
		hash[round] = hw->hash;
		ws_finish(hw, j, 2);
	}
	KUNIT_EXPECT_EQ(test, hash[0], hash[1]);
}

/*
 * A kernel that ends first loses its state at the next pass; the one left
 * alone runs without a quota; at the end nothing is left.
 */
static void ws_state_freed(struct kunit *test)
{
	struct mock_hw *hw = ws_hw(test, 4, 8);
	struct mock_job *j[2], *a, *b;
	u32 steps = 0;

	j[0] = mock_job_new(hw, 12, 128, 16, 0, 300);
	j[1] = mock_job_new(hw, 200, 128, 16, 0, 1000);
	a = j[0];
	b = j[1];
	ws_submit_all(hw, j, 2);
	KUNIT_EXPECT_EQ(test, ws_nr_states(hw), 2);
	mock_apply(hw);
	while (!a->ended && mock_step(hw)) {
		mock_apply(hw);
		KUNIT_ASSERT_LT(test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_ASSERT_TRUE(test, a->ended);
	/* A's JOB_END was in the last pass, which also collected it. */
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_NULL(test, vgpu_ws_state(&hw->s, &a->e));
	KUNIT_EXPECT_EQ(test, b->e.quota, 0);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, ws_nr_states(hw), 1);
	ws_run(hw);
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[b->order], 8);
	ws_finish(hw, j, 2);
}

/*
 * Three kernels on 6 SMs, a group of 2 each, under the flush policy; C's 2
 * TBs are all issued in the first pass. C keeps its group while they run:
 * laid out over A and B alone, the groups moved, C's TBs were flushed, C
 * had TBs to issue again and the groups moved back, every pass.
 */
static void ws_group_kept_while_running(struct kunit *test)
{
	struct mock_hw *hw = ws_hw(test, 6, 8);
	struct mock_job *j[3], *c;
	u32 sm;

	mutex_lock(&hw->lock);
	hw->s.preempt_ops = &vgpu_preempt_flush;
	mutex_unlock(&hw->lock);
	j[0] = mock_job_new(hw, 200, 128, 16, 0, 1000);
	j[1] = mock_job_new(hw, 200, 128, 16, 0, 1000);
	j[2] = mock_job_new(hw, 2, 128, 16, 0, 1000);
	c = j[2];
	ws_submit_all(hw, j, 3);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, c->dispatched, 2);
	KUNIT_ASSERT_TRUE(test, mock_step(hw));
	mock_apply(hw);
	mutex_lock(&hw->lock);
	for (sm = 0; sm < 6; sm++)
		KUNIT_EXPECT_PTR_EQ(test, hw->s.sm_owner[sm], &j[sm / 2]->e);
	mutex_unlock(&hw->lock);
	ws_run(hw);
	/* Each of C's TBs ran once, where it was first placed. */
	KUNIT_EXPECT_EQ(test, c->dispatched, 2);
	ws_finish(hw, j, 3);
}

/*
 * One kernel: the whole device, no state. Three: a group each, then a
 * partition for three. More kernels than SMs: smk-even's quotas.
 */
static void ws_one_three_many(struct kunit *test)
{
	struct mock_hw *hw = ws_hw(test, 6, 8);
	struct mock_job *j[4];
	u32 i, sm;

	j[0] = mock_job_new(hw, 60, 128, 16, 0, 100);
	ws_submit_all(hw, j, 1);
	KUNIT_EXPECT_EQ(test, j[0]->e.quota, 0);
	KUNIT_EXPECT_EQ(test, ws_nr_states(hw), 0);
	ws_run(hw);
	ws_finish(hw, j, 1);

	hw = ws_hw(test, 6, 8);
	for (i = 0; i < 3; i++) {
		j[i] = mock_job_new(hw, 150, 128, 16, 0, 500 + 100 * i);
		j[i]->sat = i;
	}
	ws_submit_all(hw, j, 3);
	mutex_lock(&hw->lock);
	for (sm = 0; sm < 6; sm++)
		KUNIT_EXPECT_PTR_EQ(test, hw->s.sm_owner[sm], &j[sm / 2]->e);
	mutex_unlock(&hw->lock);
	ws_run(hw);
	ws_finish(hw, j, 3);

	hw = ws_hw(test, 2, 8);
	for (i = 0; i < 3; i++)
		j[i] = mock_job_new(hw, 30, 128, 16, 0, 100);
	ws_submit_all(hw, j, 3);
	/* smk-even: 8 slots / 3 kernels. */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, j[i]->e.quota, 2);
	KUNIT_EXPECT_EQ(test, ws_nr_states(hw), 0);
	ws_run(hw);
	ws_finish(hw, j, 3);
}

/*
 * A switch away in mid-profiling and back: every job completes. Switching
 * away frees the policy's state (&vgpu_sched.policy_data); back, the
 * kernels are profiled afresh.
 */
static void ws_policy_switch(struct kunit *test)
{
	struct mock_hw *hw = ws_hw(test, 4, 8);
	struct mock_job *j[3];
	u32 i;

	for (i = 0; i < 3; i++)
		j[i] = mock_job_new(hw, 40 + 10 * i, 64 * (i + 1), 8 + 8 * i,
				    1024 * i, 200 + 50 * i);
	ws_submit_all(hw, j, 3);
	KUNIT_EXPECT_EQ(test, ws_nr_states(hw), 3);
	mock_apply(hw);
	for (i = 0; i < 4 && mock_step(hw); i++) {
		mutex_lock(&hw->lock);
		vgpu_sched_set_policy(&hw->s, i % 2 ? &vgpu_policy_warped_slicer
						    : &vgpu_policy_smk_even);
		if (!(i % 2))
			KUNIT_EXPECT_NULL(test, hw->s.policy_data);
		mutex_unlock(&hw->lock);
		mock_apply(hw);
	}
	ws_run(hw);
	ws_finish(hw, j, 3);
}

static struct kunit_case vgpu_warped_slicer_cases[] = {
	KUNIT_CASE(ws_profile_quota),
	KUNIT_CASE(ws_build_curve),
	KUNIT_CASE(ws_solve_saturating_linear),
	KUNIT_CASE(ws_solve_resources),
	KUNIT_CASE(ws_solve_ties),
	KUNIT_CASE(ws_solve_lookahead),
	KUNIT_CASE(ws_solve_minimum),
	KUNIT_CASE(ws_profiling_layout),
	KUNIT_CASE(ws_curves_from_events),
	KUNIT_CASE(ws_end_to_end),
	KUNIT_CASE(ws_state_freed),
	KUNIT_CASE(ws_group_kept_while_running),
	KUNIT_CASE(ws_one_three_many),
	KUNIT_CASE(ws_policy_switch),
	{}
};

static struct kunit_suite vgpu_warped_slicer_suite = {
	.name = "vgpu_warped_slicer",
	.test_cases = vgpu_warped_slicer_cases,
};

kunit_test_suite(vgpu_warped_slicer_suite);
