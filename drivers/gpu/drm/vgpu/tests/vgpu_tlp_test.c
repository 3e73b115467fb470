// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the thread-level parallelism policies (vgpu_tlp*.c; Kayiran et al.,
 * seed 001). DYNCTA's Algorithm 1 on hand-computed counters, every branch;
 * its first limit, N = 1 included; CTA pausing against the mock hardware
 * (the newest TBs paused, the oldest resumed first, no TB started while
 * paused ones wait); DYNCORE's threshold and its hysteresis; the static
 * limit.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"

/* The defaults: t_idle 16, t_mem_l 128, t_mem_h 384. */
static void tlp_defaults(struct vgpu_tlp *t)
{
	memset(t, 0, sizeof(*t));
	t->t_idle = VGPU_DYNCTA_T_IDLE_DEFAULT;
	t->t_mem_l = VGPU_DYNCTA_T_MEM_L_DEFAULT;
	t->t_mem_h = VGPU_DYNCTA_T_MEM_H_DEFAULT;
	t->t_act_pct = VGPU_DYNCORE_T_ACT_PCT_DEFAULT;
}

static u32 next_limit(const struct vgpu_tlp *t, u32 n, u32 max, u32 ncta,
		      u32 c_idle, u32 c_mem)
{
	struct vgpu_evt_sample smp = { .c_idle = c_idle, .c_mem = c_mem };

	return vgpu_dyncta_next_limit(t, n, max, ncta, &smp);
}

/* Algorithm 1, branch by branch, at and beside each threshold. */
static void dyncta_branches(struct kunit *test)
{
	struct vgpu_tlp t;

	tlp_defaults(&t);
	/* C_idle >= t_idle: one more, whatever C_mem says */
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 16, 2000), 3);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 2048, 0), 3);
	/* ... but not beyond N, unless TBs are paused (n < nCTA) */
	KUNIT_EXPECT_EQ(test, next_limit(&t, 4, 4, 4, 16, 0), 4);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 2, 3, 16, 0), 3);
	/* C_idle low, C_mem < t_mem_l: one more */
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 15, 127), 3);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 4, 4, 4, 15, 127), 4);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 1, 4, 3, 0, 0), 2);
	/* t_mem_l <= C_mem < t_mem_h: unchanged */
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 15, 128), 2);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 15, 383), 2);
	/* C_mem >= t_mem_h: one fewer, never below 1 */
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 15, 384), 1);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 3, 4, 3, 0, 2048), 2);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 1, 4, 3, 0, 2048), 1);
	/* other thresholds are honoured */
	t.t_idle = 100;
	t.t_mem_l = 0;
	t.t_mem_h = 1000;
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 99, 0), 2);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 100, 999), 3);
	KUNIT_EXPECT_EQ(test, next_limit(&t, 2, 4, 2, 99, 1000), 1);
}

/* n starts at ⌊N/2⌋, at least 1. */
static void dyncta_first_limit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_dyncta_first_limit(NULL, 1), 1);
	KUNIT_EXPECT_EQ(test, vgpu_dyncta_first_limit(NULL, 2), 1);
	KUNIT_EXPECT_EQ(test, vgpu_dyncta_first_limit(NULL, 3), 1);
	KUNIT_EXPECT_EQ(test, vgpu_dyncta_first_limit(NULL, 7), 3);
	KUNIT_EXPECT_EQ(test, vgpu_dyncta_first_limit(NULL, 8), 4);
}

/* Hands the scheduler a sample of @sm, then one scheduling pass. */
static void tlp_sample(struct mock_hw *hw, u32 sm, u32 c_idle, u32 c_mem,
		       u32 active)
{
	struct vgpu_evt evt = {
		.type = VGPU_EVT_SM_SAMPLE,
		.cycle = hw->s.cycle,
		.sm = sm,
	};

	evt.sample.c_idle = c_idle;
	evt.sample.c_mem = c_mem;
	evt.sample.active = active;
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(hw->test, vgpu_sched_event(&hw->s, &evt), 0);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_apply(hw);
}

/* TBs on @sm, and how many of them are paused. */
static u32 tbs_on(struct mock_hw *hw, u32 sm, u32 *paused)
{
	u32 i, n = 0;

	*paused = 0;
	for (i = 0; i < hw->nr_run; i++) {
		if (hw->run[i].sm != sm)
			continue;
		n++;
		*paused += hw->run[i].paused;
	}
	return n;
}

/*
 * On @sm exactly the TBs beyond @limit are paused, and they are the newest:
 * every paused TB was assigned after every running one.
 */
static void expect_paused_newest(struct mock_hw *hw, u32 sm, u32 limit)
{
	struct kunit *test = hw->test;
	u32 i, k, paused, n = tbs_on(hw, sm, &paused);

	KUNIT_EXPECT_EQ_MSG(test, paused, n > limit ? n - limit : 0,
			    "SM %u: %u TBs, limit %u", sm, n, limit);
	for (i = 0; i < hw->nr_run; i++) {
		if (hw->run[i].sm != sm || !hw->run[i].paused)
			continue;
		for (k = 0; k < hw->nr_run; k++)
			if (hw->run[k].sm == sm && !hw->run[k].paused)
				KUNIT_EXPECT_GT(test, hw->run[i].order,
						hw->run[k].order);
	}
}

static u32 limit_of(struct mock_hw *hw, u32 sm)
{
	return hw->s.tlp.sms[sm].limit;
}

/*
 * The mock's 2 SMs of 4 slots and a kernel of which 4 TBs fit: n starts at
 * 2; C_mem high pauses the newest, C_idle high resumes it before any new TB
 * starts, C_mem low starts one more, and lowering n twice pauses the two
 * newest. The other SM is left alone.
 */
static void dyncta_pausing(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j = mock_job_new(hw, 40, 256, 8, 0, 1000000);
	u32 paused, cmds;

	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_dyncta);
	mutex_unlock(&hw->lock);
	mock_submit(hw, j);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->sampling, VGPU_TLP_PERIOD);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 2);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 1, &paused), 2);
	KUNIT_EXPECT_EQ(test, hw->s.tlp.sms[0].max, 4);
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 2);

	tlp_sample(hw, 0, 0, 384, 0);		/* n 2 -> 1 */
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 1);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 2);
	KUNIT_EXPECT_EQ(test, paused, 1);
	expect_paused_newest(hw, 0, 1);
	KUNIT_EXPECT_EQ(test, hw->pause_cmds, 1);

	tlp_sample(hw, 0, 0, 2000, 0);		/* n stays 1 */
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 1);
	KUNIT_EXPECT_EQ(test, hw->pause_cmds, 1);

	tlp_sample(hw, 0, 16, 2000, 0);		/* n 1 -> 2: resume, no new TB */
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 2);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 2);
	KUNIT_EXPECT_EQ(test, paused, 0);
	KUNIT_EXPECT_EQ(test, hw->pause_cmds, 2);

	tlp_sample(hw, 0, 0, 127, 0);		/* n 2 -> 3: one more TB */
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 3);
	KUNIT_EXPECT_EQ(test, paused, 0);

	tlp_sample(hw, 0, 0, 383, 0);		/* medium: unchanged */
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 3);
	cmds = hw->pause_cmds;
	tlp_sample(hw, 0, 0, 384, 0);		/* 3 -> 2 */
	tlp_sample(hw, 0, 0, 384, 0);		/* 2 -> 1 */
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 1);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 3);
	KUNIT_EXPECT_EQ(test, paused, 2);
	KUNIT_EXPECT_EQ(test, hw->pause_cmds, cmds + 2);
	expect_paused_newest(hw, 0, 1);

	tlp_sample(hw, 0, 0, 0, 0);		/* 1 -> 2: the older paused one */
	expect_paused_newest(hw, 0, 2);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 3);

	/* up to N = 4 and no further */
	tlp_sample(hw, 0, 100, 0, 0);
	tlp_sample(hw, 0, 100, 0, 0);
	tlp_sample(hw, 0, 100, 0, 0);
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 4);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 4);
	KUNIT_EXPECT_EQ(test, paused, 0);

	KUNIT_EXPECT_EQ(test, limit_of(hw, 1), 2);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 1, &paused), 2);
	KUNIT_EXPECT_EQ(test, paused, 0);

	/* to the end: as TBs end, the paused ones stay the newest */
	tlp_sample(hw, 1, 0, 1000, 0);
	tlp_sample(hw, 0, 0, 1000, 0);
	tlp_sample(hw, 0, 0, 1000, 0);
	while (mock_step(hw)) {
		mock_apply(hw);
		expect_paused_newest(hw, 0, limit_of(hw, 0));
		expect_paused_newest(hw, 1, limit_of(hw, 1));
		KUNIT_EXPECT_LE(test, tbs_on(hw, 0, &paused), 4);
	}
	expect_complete(hw, j);
	mock_finish(hw);
}

/* N = 1: n starts at 1 and stays there; one TB per SM, never paused. */
static void dyncta_one_fits(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j = mock_job_new(hw, 8, 1024, 8, 0, 1000000);
	u32 paused;

	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_dyncta);
	mutex_unlock(&hw->lock);
	mock_submit(hw, j);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->s.tlp.sms[0].max, 1);
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 1);
	tlp_sample(hw, 0, 0, 2048, 0);
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 1);
	tlp_sample(hw, 0, 2048, 0, 0);
	KUNIT_EXPECT_EQ(test, limit_of(hw, 0), 1);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 1);
	KUNIT_EXPECT_EQ(test, paused, 0);
	KUNIT_EXPECT_EQ(test, hw->pause_cmds, 0);
	mock_run_all(hw);
	expect_complete(hw, j);
	mock_finish(hw);
}

/*
 * Policy "none" asks for no samples and limits nothing; back to "none"
 * from DYNCTA the sampling stops and every paused TB runs again.
 */
static void tlp_none_and_back(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j = mock_job_new(hw, 40, 256, 8, 0, 1000000);
	u32 paused;

	mock_submit(hw, j);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->sampling, 0);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 4);
	mock_run_all(hw);
	expect_complete(hw, j);

	j = mock_job_new(hw, 40, 256, 8, 0, 1000000);
	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_dyncta);
	mutex_unlock(&hw->lock);
	mock_submit(hw, j);
	mock_apply(hw);
	tlp_sample(hw, 0, 0, 1000, 0);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 2);
	KUNIT_EXPECT_EQ(test, paused, 1);
	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_none);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->sampling, 0);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 4);
	KUNIT_EXPECT_EQ(test, paused, 0);
	mock_run_all(hw);
	expect_complete(hw, j);
	mock_finish(hw);
}

/* The static limit: min(tlp_static_tbs, N) TBs per SM, no samples. */
static void tlp_static_limit(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j = mock_job_new(hw, 40, 256, 8, 0, 1000);
	struct mock_job *k = mock_job_new(hw, 40, 256, 8, 0, 1000);

	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_static);
	hw->s.tlp.static_tbs = 3;
	mutex_unlock(&hw->lock);
	mock_submit(hw, j);
	mock_run_all(hw);
	expect_complete(hw, j);
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[j->order], 3);
	KUNIT_EXPECT_EQ(test, hw->sampling, 0);
	mutex_lock(&hw->lock);
	hw->s.tlp.static_tbs = 60;
	mutex_unlock(&hw->lock);
	mock_submit(hw, k);
	mock_run_all(hw);
	expect_complete(hw, k);
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[k->order], 4);
	mock_finish(hw);
}

/* t_act: 66 % of 30 SMs x 2,048 cycles = 40,550 (rounded down). */
static void dyncore_threshold(struct kunit *test)
{
	struct vgpu_tlp t;

	tlp_defaults(&t);
	KUNIT_EXPECT_TRUE(test, vgpu_dyncore_gate(&t, 30, 40549));
	KUNIT_EXPECT_FALSE(test, vgpu_dyncore_gate(&t, 30, 40550));
	KUNIT_EXPECT_TRUE(test, vgpu_dyncore_gate(&t, 30, 0));
	t.t_act_pct = 100;
	KUNIT_EXPECT_TRUE(test, vgpu_dyncore_gate(&t, 2, 4095));
	KUNIT_EXPECT_FALSE(test, vgpu_dyncore_gate(&t, 2, 4096));
}

/* SMs turned off; the mock hardware was told the same. */
static u32 sms_off(struct mock_hw *hw)
{
	u32 sm, n = 0;

	for (sm = 0; sm < hw->desc.num_sms; sm++) {
		n += hw->s.tlp.sms[sm].gated;
		KUNIT_EXPECT_EQ(hw->test, hw->gated[sm], hw->s.tlp.sms[sm].gated);
	}
	return n;
}

/*
 * One period: every SM that is on reports @active cycles, the others 0;
 * C_mem 0, so that DYNCTA raises every SM's limit up to N.
 */
static void dyncore_period(struct mock_hw *hw, u32 active)
{
	u32 sm;

	for (sm = 0; sm < hw->desc.num_sms; sm++)
		tlp_sample(hw, sm, 0, 0, hw->s.tlp.sms[sm].gated ? 0 : active);
}

/*
 * 30 SMs, 8 turned off below 66 %: G_act counts the SMs that are on, so
 * once 8 are off the other 22 must average 91 % to bring them back (the
 * hysteresis); off SMs take no TB and keep the ones they hold; with the
 * device empty every SM is on again.
 */
static void dyncore_hysteresis(struct kunit *test)
{
	struct vgpu_device_desc d;
	struct mock_hw *hw;
	struct mock_job *j;
	u32 sm, paused, held;

	mock_desc(&d);
	d.num_sms = 30;
	hw = mock_new_desc(test, MOCK_RING_MAX, &d);
	j = mock_job_new(hw, 400, 256, 8, 0, 1000000);
	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_dyncore);
	mutex_unlock(&hw->lock);
	mock_submit(hw, j);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->sampling, VGPU_TLP_PERIOD);

	dyncore_period(hw, 1352);		/* 30 x 1352 = 40560: on */
	KUNIT_EXPECT_EQ(test, sms_off(hw), 0);
	dyncore_period(hw, 1351);		/* 40530 < 40550: 8 off */
	KUNIT_EXPECT_EQ(test, sms_off(hw), 8);
	for (sm = 0; sm < 30; sm++)
		KUNIT_EXPECT_EQ(test, hw->s.tlp.sms[sm].gated, sm >= 22);
	held = tbs_on(hw, 29, &paused);
	KUNIT_EXPECT_GT(test, held, 0);

	dyncore_period(hw, 1800);		/* 22 x 1800 = 39600: still off */
	KUNIT_EXPECT_EQ(test, sms_off(hw), 8);
	/* DYNCTA raised n to N everywhere; the SMs that are off took nothing */
	KUNIT_EXPECT_EQ(test, limit_of(hw, 29), 4);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 29, &paused), held);
	KUNIT_EXPECT_EQ(test, tbs_on(hw, 0, &paused), 4);
	KUNIT_EXPECT_LT(test, held, 4);

	dyncore_period(hw, 1844);		/* 22 x 1844 = 40568: all on */
	KUNIT_EXPECT_EQ(test, sms_off(hw), 0);
	KUNIT_EXPECT_EQ(test, hw->s.tlp.stats.gate_changes, 2);

	dyncore_period(hw, 100);		/* off again, to the end */
	KUNIT_EXPECT_EQ(test, sms_off(hw), 8);
	while (mock_step(hw)) {
		mock_apply(hw);
		if (hw->nr_run)
			KUNIT_EXPECT_EQ(test, sms_off(hw), 8);
	}
	expect_complete(hw, j);
	KUNIT_EXPECT_EQ(test, sms_off(hw), 0);
	mock_finish(hw);
}

/* Samples naming an SM the device lacks are refused. */
static void tlp_bad_sample(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct vgpu_evt evt = { .type = VGPU_EVT_SM_SAMPLE, .sm = 2 };

	mutex_lock(&hw->lock);
	vgpu_tlp_set_policy(&hw->s, &vgpu_tlp_dyncta);
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	KUNIT_EXPECT_EQ(test, hw->s.tlp.stats.samples, 0);
	evt.sm = 1;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), 0);
	KUNIT_EXPECT_EQ(test, hw->s.tlp.stats.samples, 1);
	mutex_unlock(&hw->lock);
	mock_finish(hw);
}

static struct kunit_case vgpu_tlp_cases[] = {
	KUNIT_CASE(dyncta_branches),
	KUNIT_CASE(dyncta_first_limit),
	KUNIT_CASE(dyncta_pausing),
	KUNIT_CASE(dyncta_one_fits),
	KUNIT_CASE(tlp_none_and_back),
	KUNIT_CASE(tlp_static_limit),
	KUNIT_CASE(dyncore_threshold),
	KUNIT_CASE(dyncore_hysteresis),
	KUNIT_CASE(tlp_bad_sample),
	{}
};

static struct kunit_suite vgpu_tlp_suite = {
	.name = "vgpu_tlp",
	.test_cases = vgpu_tlp_cases,
};

kunit_test_suite(vgpu_tlp_suite);
