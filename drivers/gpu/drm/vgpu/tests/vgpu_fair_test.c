// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: fair shares between files (vgpu_sched_fair.c) against the mock
 * hardware of vgpu_mock.c: the fair slice under FCFS, blocks in flight per
 * file, and jobs in flight per file.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"

/* mock_desc(): 1.4 GHz, so a 10 us slice is 14,000 cycles. */
#define SLICE_US	10
#define SLICE_CYCLES	(SLICE_US * 1400)

static int owner_a, owner_b;

/*
 * FCFS: file A's kernel of many blocks holds both SMs; file B's small job
 * behind it waits one fair slice, then A starts nothing until B has its
 * share, and B ends long before A. Without the slice B waits for all of A.
 */
static void fair_slice_under_fcfs(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;

	hw->check_fcfs = false;	/* B overtakes A by design */
	hw->s.fair_slice_us = SLICE_US;
	a = mock_job_new(hw, 400, 1024, 8, 0, 1000);
	b = mock_job_new(hw, 2, 1024, 8, 0, 1000);
	a->e.owner = &owner_a;
	b->e.owner = &owner_b;
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	/*
	 * B is starved from cycle 0; the pass that sees a whole slice gone bars
	 * A (at most a sync quantum late); A's blocks end within 1000 cycles.
	 */
	KUNIT_EXPECT_GE(test, b->first_cycle, SLICE_CYCLES);
	KUNIT_EXPECT_LE(test, b->first_cycle, SLICE_CYCLES + 1000 + 10000);
	KUNIT_EXPECT_LT(test, b->done_cycle, a->done_cycle / 4);
	expect_idle(hw);
	mock_finish(hw);
}

/* The same two files, the slice off: B waits for all of A (plain FCFS). */
static void fair_slice_off(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;

	hw->s.fair_slice_us = 0;
	a = mock_job_new(hw, 400, 1024, 8, 0, 1000);
	b = mock_job_new(hw, 2, 1024, 8, 0, 1000);
	a->e.owner = &owner_a;
	b->e.owner = &owner_b;
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	KUNIT_EXPECT_GT(test, b->first_cycle, a->last_cycle - 1);
	expect_idle(hw);
	mock_finish(hw);
}

/* file_max_tbs: one block of the file on the SMs at a time. */
static void fair_file_max_tbs(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a;

	hw->s.file_max_tbs = 1;
	a = mock_job_new(hw, 5, 64, 8, 0, 100);
	a->e.owner = &owner_a;
	mock_submit(hw, a);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 1);
	while (mock_step(hw)) {
		mock_apply(hw);
		KUNIT_EXPECT_LE(test, a->e.tbs_running, 1);
	}
	expect_complete(hw, a);
	/* one after another: five runs of at least 100 cycles each */
	KUNIT_EXPECT_GE(test, a->done_cycle, 5 * 100);
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_owner_tbs(&hw->s, &owner_a), 0);
	mutex_unlock(&hw->lock);
	expect_idle(hw);
	mock_finish(hw);
}

/* Jobs in flight are counted per file. */
static void fair_owner_jobs(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j[3];
	u32 i;

	for (i = 0; i < 3; i++) {
		j[i] = mock_job_new(hw, 1, 64, 8, 0, 100);
		j[i]->e.owner = i < 2 ? &owner_a : &owner_b;
		mock_submit(hw, j[i]);
	}
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_owner_jobs(&hw->s, &owner_a), 2);
	KUNIT_EXPECT_EQ(test, vgpu_sched_owner_jobs(&hw->s, &owner_b), 1);
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_owner_jobs(&hw->s, &owner_a), 0);
	mutex_unlock(&hw->lock);
	expect_idle(hw);
	mock_finish(hw);
}

static struct kunit_case vgpu_fair_cases[] = {
	KUNIT_CASE(fair_slice_under_fcfs),
	KUNIT_CASE(fair_slice_off),
	KUNIT_CASE(fair_file_max_tbs),
	KUNIT_CASE(fair_owner_jobs),
	{}
};

static struct kunit_suite vgpu_fair_suite = {
	.name = "vgpu_fair",
	.test_cases = vgpu_fair_cases,
};

kunit_test_suite(vgpu_fair_suite);
