// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: carrying preemptions out (vgpu_sched_preempt.c) on the mock
 * hardware of vgpu_mock.c: the stress mode preempts running TBs by context
 * switch and by flush, every TB still runs to completion exactly once, a
 * switched TB is resumed from its save area and no save area is left; the
 * chimera policy preempts what a high-priority kernel needs instead of
 * waiting for it to drain.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"
#include "vgpu_test.h"

static struct mock_hw *preempt_hw(struct kunit *test,
				  const struct vgpu_partition_ops *ops)
{
	struct vgpu_device_desc d;
	struct mock_hw *hw;

	mock_desc(&d);
	d.num_sms = 4;
	d.max_tbs_per_sm = 4;
	hw = mock_new_desc(test, MOCK_RING_MAX, &d);
	hw->check_fcfs = false;
	mutex_lock(&hw->lock);
	vgpu_sched_set_policy(&hw->s, ops);
	mutex_unlock(&hw->lock);
	return hw;
}

static void preempt_stress_completes(struct kunit *test)
{
	struct mock_hw *hw = preempt_hw(test, &vgpu_policy_fcfs);
	struct mock_job *a, *b;
	u32 steps = 0;

	mutex_lock(&hw->lock);
	hw->s.stress_period = 40;
	mutex_unlock(&hw->lock);
	a = mock_job_new(hw, 60, 128, 16, 0, 100);
	b = mock_job_new(hw, 40, 64, 8, 0, 70);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_apply(hw);
	while (mock_step(hw)) {
		mock_apply(hw);
		KUNIT_ASSERT_LT(test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_GT(test, hw->switches, 0);
	KUNIT_EXPECT_GT(test, hw->flushes, 0);
	KUNIT_EXPECT_EQ(test, hw->restores, hw->switches);
	KUNIT_EXPECT_EQ(test, a->e.preempted + b->e.preempted,
			hw->switches + hw->flushes);
	/* A flush loses the half a TB had done (the mock's 50). */
	KUNIT_EXPECT_EQ(test, a->e.lost_insts + b->e.lost_insts,
			50ull * hw->flushes);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 0);
	mock_finish(hw);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 0);
}

/* The same run twice: the same commands (the stress is seeded). */
static u64 stress_run(struct kunit *test)
{
	struct mock_hw *hw = preempt_hw(test, &vgpu_policy_fcfs);
	struct mock_job *a;
	u64 hash;

	mutex_lock(&hw->lock);
	hw->s.stress_period = 25;
	mutex_unlock(&hw->lock);
	a = mock_job_new(hw, 50, 128, 16, 0, 60);
	mock_submit(hw, a);
	mock_run_all(hw);
	expect_complete(hw, a);
	hash = hw->hash;
	mock_finish(hw);
	return hash;
}

static void preempt_stress_deterministic(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, stress_run(test), stress_run(test));
}

/*
 * The cycle at which the first SM given to @h is free of @a's TBs: when a
 * drain lets @h start (an SM is preempted whole, §4.2).
 */
static u64 drained_at(struct mock_hw *hw, struct mock_job *a,
		      struct mock_job *h)
{
	u64 first = U64_MAX;
	u32 sm, i;

	for (sm = 0; sm < hw->desc.num_sms; sm++) {
		u64 last = 0;

		if (hw->s.sm_owner[sm] != &h->e)
			continue;
		for (i = 0; i < hw->nr_run; i++)
			if (hw->run[i].job == a && hw->run[i].sm == sm)
				last = max(last, hw->run[i].done_at);
		first = min(first, last);
	}
	return first;
}

/*
 * A high-priority kernel arrives while a normal one fills the GPU. With
 * drain its TBs start on an SM once the last old TB there has finished
 * (the old ones run 100 cycles, started as the command ring let them);
 * with chimera the old TBs there, which have just started, are flushed at
 * once.
 */
static u64 priority_start(struct kunit *test, const struct vgpu_preempt_ops *pol)
{
	struct mock_hw *hw = preempt_hw(test, &vgpu_policy_spatial);
	struct mock_job *a, *h;
	u64 t0, start, drained;

	mutex_lock(&hw->lock);
	hw->s.preempt_ops = pol;
	mutex_unlock(&hw->lock);
	a = mock_job_new(hw, 64, 128, 16, 0, 100);
	mock_submit(hw, a);
	mock_apply(hw);
	t0 = hw->cycle;
	h = mock_job_new(hw, 8, 128, 16, 0, 50);
	h->e.priority = DRM_VGPU_PRIORITY_HIGH;
	mock_submit(hw, h);
	mutex_lock(&hw->lock);
	drained = drained_at(hw, a, h) - t0;
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, h);
	expect_idle(hw);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 0);
	start = h->first_cycle - t0;
	/*
	 * Once all its TBs run, the high-priority kernel keeps their SMs:
	 * the normal one never takes them back and preempts it.
	 */
	KUNIT_EXPECT_EQ(test, h->e.preempted, 0);
	if (pol == &vgpu_preempt_drain) {
		KUNIT_EXPECT_EQ(test, hw->switches + hw->flushes, 0);
		/* The SM's last old TB, not its first, frees it. */
		KUNIT_EXPECT_GT(test, drained, 100);
		KUNIT_EXPECT_EQ(test, start, drained);
	} else {
		KUNIT_EXPECT_GT(test, hw->switches + hw->flushes, 0);
	}
	mock_finish(hw);
	return start;
}

static void preempt_chimera_beats_drain(struct kunit *test)
{
	u64 drain = priority_start(test, &vgpu_preempt_drain);
	u64 chimera = priority_start(test, &vgpu_preempt_chimera);

	KUNIT_EXPECT_LT(test, chimera, drain);
	priority_start(test, &vgpu_preempt_switch);
	priority_start(test, &vgpu_preempt_ideal);
}

/*
 * Algorithm 3's choice of SMs (§4.3.3, lines 19-28), through the
 * scheduler's statistics: a normal kernel fills four SMs, each SM's TBs at
 * a different progress in the daemon's status table, and chimera ranks the
 * SMs for a real-time kernel. Flushing costs what the TBs have done, so
 * the least advanced SM comes first; an SM with a TB past its boundary
 * cannot be flushed; switching it meets the budget but costs the maximum
 * (the kernel's IPC is not known yet), so it comes last. The ideal policy switches at no
 * cost (VGPU_PREEMPT_IDEAL).
 */
static void preempt_rank_sms(struct kunit *test)
{
	static const u64 progress[4] = { 500, 100, 900, 50 };
	struct mock_hw *hw = preempt_hw(test, &vgpu_policy_spatial);
	struct vgpu_tb_status *table;
	struct mock_job *a, *h;
	u32 sm, slot, n = 0;
	int order[4];

	a = mock_job_new(hw, 16, 128, 16, 0, 1000);
	mock_submit(hw, a);
	mock_apply(hw);
	h = mock_job_new(hw, 2, 128, 16, 0, 50);
	h->e.priority = DRM_VGPU_PRIORITY_REALTIME;
	h->e.latency_budget_us = 15;
	table = kunit_kcalloc(test, 4 * 4, sizeof(*table), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, table);

	mutex_lock(&hw->lock);
	for (sm = 0; sm < 4; sm++) {
		for (slot = 0; slot < 4; slot++) {
			const struct vgpu_smst_slot *sl =
				vgpu_smst_slot(&hw->s.smst, sm, slot);
			struct vgpu_tb_status *ts = &table[sm * 4 + slot];

			KUNIT_ASSERT_TRUE(test, sl && sl->job == &a->e);
			ts->job = a->e.id;
			ts->tb = sl->tb;
			ts->warp_insts = progress[sm];
			/* One TB on SM 3 has executed an atomic. */
			if (sm == 3 && slot == 2)
				ts->flags = VGPU_TB_STATUS_CROSSED_BOUNDARY;
		}
		hw->s.sm_owner[sm] = NULL;
	}
	hw->s.tb_status = table;
	hw->s.fresh_status = true;
	hw->s.preempt_ops = &vgpu_preempt_chimera;
	vgpu_sched_rank_sms(&hw->s, &h->e);
	for (n = 0; n < 4; n++) {
		order[n] = vgpu_sched_cheapest_sm(&hw->s);
		KUNIT_ASSERT_GE(test, order[n], 0);
		hw->s.sm_owner[order[n]] = &h->e;
	}
	KUNIT_EXPECT_EQ(test, vgpu_sched_cheapest_sm(&hw->s), -ENOENT);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, order[1], 0);
	KUNIT_EXPECT_EQ(test, order[2], 2);
	KUNIT_EXPECT_EQ(test, order[3], 3);
	KUNIT_EXPECT_TRUE(test, hw->s.preempt[1].rank.meets);
	KUNIT_EXPECT_EQ(test, hw->s.preempt[1].rank.overhead, 4 * 100ull);
	KUNIT_EXPECT_GT(test, hw->s.preempt[3].rank.overhead,
			hw->s.preempt[2].rank.overhead);

	/* An SM the kernel already owns is no candidate. */
	hw->s.sm_owner[0] = NULL;
	hw->s.sm_owner[2] = NULL;
	vgpu_sched_rank_sms(&hw->s, &h->e);
	KUNIT_EXPECT_FALSE(test, hw->s.preempt[1].rank.ranked);
	KUNIT_EXPECT_EQ(test, vgpu_sched_cheapest_sm(&hw->s), 0);

	/* The ideal policy: every TB switched, at no cost. */
	hw->s.preempt_ops = &vgpu_preempt_ideal;
	vgpu_sched_preempt_sm(&hw->s, 0, &h->e);
	hw->s.sink->publish(hw->s.sink_ctx);
	hw->s.tb_status = NULL;
	hw->s.fresh_status = false;
	for (sm = 0; sm < 4; sm++)
		hw->s.sm_owner[sm] = NULL;
	mutex_unlock(&hw->lock);
	mock_apply(hw);
	for (n = 0, slot = 0; slot < hw->nr_run; slot++) {
		if (hw->run[slot].sm != 0)
			continue;
		KUNIT_EXPECT_EQ(test, hw->run[slot].preempt, VGPU_PREEMPT_IDEAL);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 4);
	mock_submit(hw, h);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, h);
	expect_idle(hw);
	KUNIT_EXPECT_GE(test, hw->switches, 4);
	KUNIT_EXPECT_EQ(test, hw->restores, hw->switches);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 0);
	mock_finish(hw);
}

/*
 * What vgpu_sched_learn_latency() keeps per kernel: actual / estimate, a
 * longer ratio at once, a shorter one an eighth of the way, never below
 * 1.0 nor above 8.0; short (flush) estimates and unknown kernels teach
 * nothing; sixteen kernels, the oldest replaced; off, nothing is scaled.
 */
static void preempt_learn_latency(struct kunit *test)
{
	struct vgpu_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	const u32 one = VGPU_PREEMPT_FP_ONE;
	u64 k;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->latency_feedback = true;
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7), 0u);
	vgpu_sched_learn_latency(s, 7, 10000, 15000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7), one * 3 / 2);
	/* 1.5 - (1.5 - 1.0) / 8 */
	vgpu_sched_learn_latency(s, 7, 10000, 10000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7),
			one * 3 / 2 - one / 16);
	vgpu_sched_learn_latency(s, 7, 10000, 30000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7), one * 3);
	vgpu_sched_learn_latency(s, 7, 999, 100000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7), one * 3);
	vgpu_sched_learn_latency(s, 7, 10000, 1000000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7),
			(u32)VGPU_LATENCY_SCALE_MAX);
	vgpu_sched_learn_latency(s, 8, 10000, 2000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 8), one);
	vgpu_sched_learn_latency(s, 0, 10000, 20000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 0), 0u);
	/* 7 and 8 are the oldest: 16 more keys replace both. */
	for (k = 100; k < 100 + VGPU_SCHED_LATENCY_SCALES - 1; k++)
		vgpu_sched_learn_latency(s, k, 10000, 20000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 7), 0u);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 8), one);
	vgpu_sched_learn_latency(s, 99, 10000, 20000);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 8), 0u);
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 100), one * 2);
	s->latency_feedback = false;
	KUNIT_EXPECT_EQ(test, vgpu_sched_latency_scale(s, 100), 0u);
}

static struct kunit_case vgpu_preempt_cases[] = {
	KUNIT_CASE(preempt_stress_completes),
	KUNIT_CASE(preempt_stress_deterministic),
	KUNIT_CASE(preempt_chimera_beats_drain),
	KUNIT_CASE(preempt_rank_sms),
	KUNIT_CASE(preempt_learn_latency),
	{}
};

static struct kunit_suite vgpu_preempt_suite = {
	.name = "vgpu_preempt",
	.test_cases = vgpu_preempt_cases,
};

kunit_test_suite(vgpu_preempt_suite);
