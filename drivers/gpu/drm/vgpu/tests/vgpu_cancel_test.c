// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ending jobs early (vgpu_sched_cancel.c) - time limits with a
 * guilty job, cancellation, the sync quantum - and the cycle arithmetic at
 * the edges of the 64-bit range, against the mock hardware of vgpu_mock.c.
 */

#include <linux/limits.h>
#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"

/* mock_desc(): 1.4 GHz, so a microsecond is 1400 cycles. */
#define CYCLES_PER_US	1400

/*
 * A kernel that never ends on one SM, with a time limit, beside a job that
 * does: the runaway is flushed at its deadline and fails with -ETIMEDOUT,
 * the other completes as if it were alone on the other SM.
 */
static void cancel_timeout_guilty_job(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *hog, *good;

	hog = mock_job_new(hw, 1, 1024, 8, 0, U32_MAX);
	hog->e.timeout_us = 100;
	good = mock_job_new(hw, 6, 1024, 8, 0, 30000);
	mock_submit(hw, hog);
	mock_submit(hw, good);
	mock_run_all(hw);

	KUNIT_EXPECT_TRUE(test, hog->ended);
	KUNIT_EXPECT_EQ(test, hog->done_error, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, hog->e.tbs_done, 0);
	/* Flushed at the deadline, off the SM one mock cycle later. */
	KUNIT_EXPECT_EQ(test, hog->done_cycle, 100 * CYCLES_PER_US + 1);
	KUNIT_EXPECT_EQ(test, hw->flushes, 1);
	/* A flush that ends a job is not a preemption. */
	KUNIT_EXPECT_EQ(test, hw->s.preempt_stats.tbs[VGPU_TECH_FLUSH], 0);
	KUNIT_EXPECT_EQ(test, hog->e.preempted, 0);
	/*
	 * The other job ran its blocks one after another on SM 1 until SM 0
	 * was handed back: its sixth started there at once, before the
	 * fifth ended on SM 1.
	 */
	expect_complete(hw, good);
	KUNIT_EXPECT_GT(test, good->done_cycle, 100 * CYCLES_PER_US + 30000);
	KUNIT_EXPECT_LT(test, good->done_cycle, 5 * 30000 + 30000);
	expect_idle(hw);
	mock_finish(hw);
}

/* The device's limit applies when the launch names none; the lower wins. */
static void cancel_timeout_device_limit(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;

	hw->s.job_timeout_us = 50;
	a = mock_job_new(hw, 1, 1024, 8, 0, U32_MAX);
	b = mock_job_new(hw, 1, 1024, 8, 0, U32_MAX);
	b->e.timeout_us = 20;
	mock_submit(hw, a);
	mock_submit(hw, b);
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &a->e), 50 * CYCLES_PER_US);
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &b->e), 20 * CYCLES_PER_US);
	mock_run_all(hw);
	KUNIT_EXPECT_EQ(test, a->done_error, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, b->done_error, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, b->done_cycle, 20 * CYCLES_PER_US + 1);
	KUNIT_EXPECT_EQ(test, a->done_cycle, 50 * CYCLES_PER_US + 1);
	expect_idle(hw);
	mock_finish(hw);
}

/* A job that has not started has no deadline; 0 everywhere means none. */
static void cancel_deadline_rules(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j = mock_job_new(hw, 1, 64, 8, 0, 10);

	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &j->e), U64_MAX);
	j->e.begun = true;
	j->e.start_cycle = 1000;
	hw->s.job_timeout_us = 0;
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &j->e), U64_MAX);
	j->e.timeout_us = 1;
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &j->e), 1000 + CYCLES_PER_US);
	/* Near the end of the range the deadline saturates, never wraps. */
	j->e.start_cycle = U64_MAX - 10;
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &j->e), U64_MAX);
	j->e.begun = false;
	mock_finish(hw);
}

/*
 * Cancellation (the owner's file closed): queued blocks never start,
 * running ones are flushed, the job ends with -ECANCELED and another job
 * queued behind it starts on the SMs it held.
 */
static void cancel_running_job(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;
	u32 i;

	a = mock_job_new(hw, 20, 256, 8, 0, 100000);
	b = mock_job_new(hw, 2, 256, 8, 0, 100);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_apply(hw);
	KUNIT_ASSERT_EQ(test, a->dispatched, 8);
	KUNIT_EXPECT_EQ(test, b->dispatched, 0);
	for (i = 0; i < 3; i++) {
		mock_step(hw);
		mock_apply(hw);
	}
	mutex_lock(&hw->lock);
	vgpu_sched_cancel(&hw->s, &a->e, -ECANCELED);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	KUNIT_EXPECT_EQ(test, a->done_error, -ECANCELED);
	KUNIT_EXPECT_EQ(test, hw->flushes, 8);
	KUNIT_EXPECT_EQ(test, a->dispatched, 8);
	KUNIT_EXPECT_LT(test, a->done_cycle, 100000);
	expect_complete(hw, b);
	KUNIT_EXPECT_LT(test, b->done_cycle, 100000);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A PREEMPT that crosses its block's end - the block finished before the
 * daemon saw the command - leaves no record behind: the TB_DONE frees the
 * save area and clears the slot's preemption, and the daemon's refusal,
 * when it comes, is ignored. (The record used to wait for that answer;
 * when it never came, no later block of the slot could be flushed, and a
 * failed job's block there ran on for good.)
 */
static void cancel_crossed_preempt(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a = mock_job_new(hw, 1, 256, 8, 0, 1000);
	struct vgpu_evt evt = { .type = VGPU_EVT_TB_DONE };
	struct vgpu_sched_slot *ss;
	struct mock_run r;

	mock_submit(hw, a);
	mock_apply(hw);
	KUNIT_ASSERT_EQ(test, hw->nr_run, 1);
	r = hw->run[0];
	mutex_lock(&hw->lock);
	KUNIT_ASSERT_EQ(test, vgpu_sched_preempt_tb(&hw->s, r.sm, r.slot,
						    VGPU_TECH_SWITCH), 0);
	ss = vgpu_sched_slot_of(&hw->s, r.sm, r.slot);
	KUNIT_EXPECT_TRUE(test, ss->preempting);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 1);
	/* The block ends before the daemon takes the command. */
	evt.job = a->e.id;
	evt.tb = r.tb;
	evt.sm = r.sm;
	evt.slot = r.slot;
	evt.cycle = hw->s.cycle;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), 0);
	KUNIT_EXPECT_FALSE(test, ss->preempting);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 0);
	/* The daemon's refusal of the PREEMPT: nothing is waiting for it. */
	evt.type = VGPU_EVT_PREEMPTED;
	evt.flags = VGPU_PREEMPT_SWITCH;
	evt.status = -ENOENT;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	KUNIT_EXPECT_FALSE(test, ss->preempting);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, a->e.tbs_done, 1);
	mock_finish(hw);
}

/*
 * The sync quantum: while a block runs for a long time without an event,
 * the hardware is asked back every sync_quantum cycles, never when nothing
 * runs.
 */
static void cancel_sync_quantum(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j = mock_job_new(hw, 1, 64, 8, 0, 95000);

	hw->s.sync_quantum = 10000;
	mock_submit(hw, j);
	mock_run_all(hw);
	expect_complete(hw, j);
	KUNIT_EXPECT_EQ(test, j->done_cycle, 95000);
	/* 10000 ... 100000: one per quantum, the last asked at 90000. */
	KUNIT_EXPECT_EQ(test, hw->wake_cmds, 10);
	expect_idle(hw);
	mock_finish(hw);
}

/* Saturating cycle arithmetic and the not-before bound, at the edges. */
static void cancel_cycle_edges(struct kunit *test)
{
	const u64 far = U64_MAX - DRM_VGPU_NOT_BEFORE_AHEAD;
	struct vgpu_kcb_entry e = {};

	KUNIT_EXPECT_EQ(test, vgpu_cycle_add(0, 0), 0);
	KUNIT_EXPECT_EQ(test, vgpu_cycle_add(U64_MAX - 5, 5), U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_cycle_add(U64_MAX - 5, 6), U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_cycle_add(1, U64_MAX), U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_cycle_add(U64_MAX, U64_MAX), U64_MAX);

	e.not_before = DRM_VGPU_NOT_BEFORE_AHEAD;
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, 0), 0);
	e.not_before = DRM_VGPU_NOT_BEFORE_AHEAD + 1;
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, 1), 0);
	e.not_before = U64_MAX;
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, U64_MAX), 0);
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, far), 0);
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, far - 1), -EINVAL);
	/* In the past is always fine. */
	e.not_before = 0;
	KUNIT_EXPECT_EQ(test, vgpu_launch_check_arrival(&e, U64_MAX), 0);
}

/*
 * The device clock just short of the end of its range: jobs still run and
 * end, and the quantum's wake-up that would lie past the end is not asked
 * for instead of wrapping to the past (the mock fails a WAKE_AT that is
 * not after its cycle).
 */
static void cancel_clock_at_the_end(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	u64 start = U64_MAX - 15000;
	struct mock_job *a, *b;

	hw->cycle = start;
	mutex_lock(&hw->lock);
	KUNIT_ASSERT_EQ(test, vgpu_sched_set_cycle(&hw->s, start), 0);
	mutex_unlock(&hw->lock);
	hw->s.sync_quantum = 10000;
	a = mock_job_new(hw, 1, 1024, 8, 0, 12000);
	b = mock_job_new(hw, 1, 1024, 8, 0, 1000);
	b->e.timeout_us = 1;	/* 1400 cycles: its 1000 fit */
	mock_submit(hw, a);
	mock_submit(hw, b);
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &a->e), U64_MAX);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	KUNIT_EXPECT_EQ(test, b->done_cycle, start + 1000);
	KUNIT_EXPECT_EQ(test, a->done_cycle, U64_MAX - 3000);
	expect_idle(hw);
	mock_finish(hw);
}

static struct kunit_case vgpu_cancel_cases[] = {
	KUNIT_CASE(cancel_timeout_guilty_job),
	KUNIT_CASE(cancel_timeout_device_limit),
	KUNIT_CASE(cancel_deadline_rules),
	KUNIT_CASE(cancel_running_job),
	KUNIT_CASE(cancel_crossed_preempt),
	KUNIT_CASE(cancel_sync_quantum),
	KUNIT_CASE(cancel_cycle_edges),
	KUNIT_CASE(cancel_clock_at_the_end),
	{}
};

static struct kunit_suite vgpu_cancel_suite = {
	.name = "vgpu_cancel",
	.test_cases = vgpu_cancel_cases,
};

kunit_test_suite(vgpu_cancel_suite);
