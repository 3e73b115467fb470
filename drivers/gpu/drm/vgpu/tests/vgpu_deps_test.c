// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: launch dependencies (vgpu_sched_deps.c) against the mock hardware
 * of vgpu_mock.c - a chain whose jobs start at the cycle their dependency
 * ends, an error carried down a chain, a blocked job that holds nothing,
 * cancellation of a blocked job, fences from elsewhere, and time limits
 * counted from the first dispatch.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"

/* mock_desc(): 1.4 GHz, so a microsecond is 1400 cycles. */
#define CYCLES_PER_US	1400

/*
 * A -> B -> C, each of 8 blocks that fill both SMs: B's first block starts
 * at the cycle A ended, C's at the cycle B ended; none starts earlier.
 */
static void deps_chain(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b, *c;

	a = mock_job_new(hw, 8, 256, 8, 0, 2000);
	b = mock_job_new(hw, 8, 256, 8, 0, 3000);
	c = mock_job_new(hw, 8, 256, 8, 0, 1000);
	mock_submit(hw, a);
	mock_submit_deps(hw, b, &a, 1, 0);
	mock_submit_deps(hw, c, &b, 1, 0);
	KUNIT_EXPECT_TRUE(test, b->e.blocked);
	KUNIT_EXPECT_EQ(test, b->e.state, VGPU_KCB_QUEUED);
	mock_run_all(hw);

	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_complete(hw, c);
	KUNIT_EXPECT_EQ(test, b->e.start_cycle, a->e.end_cycle);
	KUNIT_EXPECT_EQ(test, b->first_cycle, a->done_cycle);
	KUNIT_EXPECT_EQ(test, c->e.start_cycle, b->e.end_cycle);
	KUNIT_EXPECT_EQ(test, c->first_cycle, b->done_cycle);
	KUNIT_EXPECT_GT(test, b->e.start_cycle, a->e.start_cycle);
	KUNIT_EXPECT_GE(test, a->e.end_cycle, 2000);
	KUNIT_EXPECT_FALSE(test, b->e.blocked);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A faults; B waits for A, C for B: both fail with -ECANCELED at the cycle
 * A ended, without a block dispatched or a JOB_BEGIN issued.
 */
static void deps_error_cancels_chain(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b, *c;

	a = mock_job_new(hw, 4, 256, 8, 0, 1000);
	a->fault_tb = 2;
	a->fault_status = -EFAULT;
	b = mock_job_new(hw, 4, 256, 8, 0, 1000);
	c = mock_job_new(hw, 4, 256, 8, 0, 1000);
	mock_submit(hw, a);
	mock_submit_deps(hw, b, &a, 1, 0);
	mock_submit_deps(hw, c, &b, 1, 0);
	mock_run_all(hw);

	KUNIT_EXPECT_EQ(test, a->done_error, -EFAULT);
	KUNIT_EXPECT_EQ(test, b->done_error, -ECANCELED);
	KUNIT_EXPECT_EQ(test, c->done_error, -ECANCELED);
	KUNIT_EXPECT_EQ(test, b->done_cycle, a->done_cycle);
	KUNIT_EXPECT_EQ(test, c->done_cycle, a->done_cycle);
	KUNIT_EXPECT_EQ(test, b->e.end_cycle, a->e.end_cycle);
	KUNIT_EXPECT_EQ(test, b->dispatched, 0);
	KUNIT_EXPECT_EQ(test, c->dispatched, 0);
	KUNIT_EXPECT_FALSE(test, b->begun);
	KUNIT_EXPECT_FALSE(test, c->begun);
	KUNIT_EXPECT_EQ(test, b->e.start_cycle, 0);
	KUNIT_EXPECT_EQ(test, b->done_calls, 1);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A job blocked on a fence from elsewhere holds no SM and keeps no job -
 * an earlier or a later one - from running under FCFS; once the fence
 * signals, the pass the glue runs (vgpu_sched_deps_ready()) lets it in at
 * that cycle.
 */
static void deps_blocked_holds_nothing(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *w, *d;
	u64 signal_cycle;

	w = mock_job_new(hw, 8, 256, 8, 0, 1000);
	d = mock_job_new(hw, 8, 256, 8, 0, 1500);
	mock_submit_deps(hw, w, NULL, 0, 1);
	mock_submit(hw, d);
	mock_run_all(hw);

	/* d ran alone on the whole device; w is still waiting. */
	expect_complete(hw, d);
	KUNIT_EXPECT_EQ(test, d->e.start_cycle, 0);
	KUNIT_EXPECT_EQ(test, w->dispatched, 0);
	KUNIT_EXPECT_EQ(test, w->done_calls, 0);
	KUNIT_EXPECT_EQ(test, w->e.state, VGPU_KCB_QUEUED);
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_FALSE(test, vgpu_sched_deps_ready(&hw->s));
	/* Blocked jobs count against file_max_jobs, but not as waiting. */
	KUNIT_EXPECT_EQ(test, vgpu_sched_owner_jobs(&hw->s, w->e.owner), 1);
	mutex_unlock(&hw->lock);

	/* The fence signals outside any pass, then the glue's pass runs. */
	signal_cycle = hw->s.cycle;
	KUNIT_EXPECT_TRUE(test, vgpu_kcb_dep_signal(&w->e, 0));
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_TRUE(test, vgpu_sched_deps_ready(&hw->s));
	vgpu_sched_run(&hw->s);
	KUNIT_EXPECT_FALSE(test, vgpu_sched_deps_ready(&hw->s));
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	expect_complete(hw, w);
	KUNIT_EXPECT_EQ(test, w->e.start_cycle, signal_cycle);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A blocked job cancelled (its file closed) ends in the next pass with
 * -ECANCELED and nothing dispatched; its fence signalling afterwards
 * changes nothing.
 */
static void deps_cancel_blocked(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *w;

	w = mock_job_new(hw, 4, 256, 8, 0, 1000);
	mock_submit_deps(hw, w, NULL, 0, 2);
	KUNIT_EXPECT_FALSE(test, vgpu_kcb_dep_signal(&w->e, 0));
	mutex_lock(&hw->lock);
	vgpu_sched_cancel(&hw->s, &w->e, -ECANCELED);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	KUNIT_EXPECT_EQ(test, w->done_calls, 1);
	KUNIT_EXPECT_EQ(test, w->done_error, -ECANCELED);
	KUNIT_EXPECT_EQ(test, w->dispatched, 0);
	KUNIT_EXPECT_FALSE(test, w->begun);
	expect_idle(hw);

	KUNIT_EXPECT_TRUE(test, vgpu_kcb_dep_signal(&w->e, 0));
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_FALSE(test, vgpu_sched_deps_ready(&hw->s));
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, w->done_calls, 1);
	mock_finish(hw);
}

/*
 * The count: fences that signal while the glue still arms the others do
 * not unblock the job early; a dependency that has ended already counts
 * at once, its error too; the first error is kept.
 */
static void deps_counting(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b, *c;
	struct vgpu_kcb_entry e = {};

	vgpu_kcb_deps_init(&e, 0);
	KUNIT_EXPECT_FALSE(test, e.blocked);
	KUNIT_EXPECT_FALSE(test, vgpu_kcb_deps_arm(&e));

	vgpu_kcb_deps_init(&e, 2);
	KUNIT_EXPECT_TRUE(test, e.blocked);
	KUNIT_EXPECT_FALSE(test, vgpu_kcb_dep_signal(&e, 0));
	KUNIT_EXPECT_FALSE(test, vgpu_kcb_dep_signal(&e, -EIO));
	/* both signalled, but not yet armed */
	KUNIT_EXPECT_EQ(test, atomic_read(&e.deps), 1);
	KUNIT_EXPECT_TRUE(test, vgpu_kcb_deps_arm(&e));
	KUNIT_EXPECT_EQ(test, atomic_read(&e.dep_error), -EIO);

	vgpu_kcb_deps_init(&e, 2);
	vgpu_kcb_dep_signal(&e, -ETIMEDOUT);
	vgpu_kcb_dep_signal(&e, -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.dep_error), -ETIMEDOUT);

	/* A ended before B and C were submitted: B runs, C (on a failure) not. */
	a = mock_job_new(hw, 2, 256, 8, 0, 500);
	mock_submit(hw, a);
	mock_run_all(hw);
	expect_complete(hw, a);
	b = mock_job_new(hw, 2, 256, 8, 0, 500);
	c = mock_job_new(hw, 2, 256, 8, 0, 500);
	mock_submit_deps(hw, b, &a, 1, 0);
	KUNIT_EXPECT_FALSE(test, b->e.blocked);
	mock_run_all(hw);
	expect_complete(hw, b);
	KUNIT_EXPECT_EQ(test, b->e.start_cycle, a->e.end_cycle);
	mock_submit_deps(hw, c, NULL, 0, 1);
	vgpu_kcb_dep_signal(&c->e, -ENODEV);
	mutex_lock(&hw->lock);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	KUNIT_EXPECT_EQ(test, c->done_error, -ECANCELED);
	KUNIT_EXPECT_EQ(test, c->dispatched, 0);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A job's time limit counts from its first dispatch, not from its
 * submission: B, with a limit of 10 us, waits 16 us for A, then runs 5 us
 * and completes, past the device's limit of 20 us from its submission.
 */
static void deps_timeout_from_dispatch(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;

	hw->s.job_timeout_us = 20;
	a = mock_job_new(hw, 1, 1024, 8, 0, 16 * CYCLES_PER_US);
	b = mock_job_new(hw, 1, 1024, 8, 0, 5 * CYCLES_PER_US);
	b->e.timeout_us = 10;
	mock_submit(hw, a);
	mock_submit_deps(hw, b, &a, 1, 0);
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_deadline(&hw->s, &b->e), U64_MAX);
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	KUNIT_EXPECT_EQ(test, b->e.start_cycle, a->e.end_cycle);
	KUNIT_EXPECT_GT(test, b->e.end_cycle, 20 * CYCLES_PER_US);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * The same chain twice on fresh devices gives the same command stream: the
 * dependent jobs start where they start whatever the host does.
 */
static void deps_repeatable(struct kunit *test)
{
	u64 hash[2];
	int round;

	for (round = 0; round < 2; round++) {
		struct mock_hw *hw = mock_new(test, 6);
		struct mock_job *a, *b, *c, *d;
		struct mock_job *ab[2];

		a = mock_job_new(hw, 5, 256, 8, 0, 700);
		b = mock_job_new(hw, 3, 512, 8, 0, 900);
		c = mock_job_new(hw, 6, 256, 8, 0, 400);
		d = mock_job_new(hw, 2, 128, 8, 0, 300);
		ab[0] = a;
		ab[1] = b;
		mock_submit(hw, a);
		mock_submit(hw, b);
		mock_submit_deps(hw, c, ab, 2, 0);
		mock_submit_deps(hw, d, &c, 1, 0);
		mock_run_all(hw);
		expect_complete(hw, c);
		expect_complete(hw, d);
		KUNIT_EXPECT_EQ(test, c->e.start_cycle,
				max(a->e.end_cycle, b->e.end_cycle));
		KUNIT_EXPECT_EQ(test, d->e.start_cycle, c->e.end_cycle);
		hash[round] = hw->hash;
		expect_idle(hw);
		mock_finish(hw);
	}
	KUNIT_EXPECT_EQ(test, hash[0], hash[1]);
}

static struct kunit_case vgpu_deps_cases[] = {
	KUNIT_CASE(deps_chain),
	KUNIT_CASE(deps_error_cancels_chain),
	KUNIT_CASE(deps_blocked_holds_nothing),
	KUNIT_CASE(deps_cancel_blocked),
	KUNIT_CASE(deps_counting),
	KUNIT_CASE(deps_timeout_from_dispatch),
	KUNIT_CASE(deps_repeatable),
	{}
};

static struct kunit_suite vgpu_deps_suite = {
	.name = "vgpu_deps",
	.test_cases = vgpu_deps_cases,
};

kunit_test_suite(vgpu_deps_suite);
