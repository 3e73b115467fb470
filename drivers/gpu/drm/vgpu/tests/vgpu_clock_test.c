// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the synchronised clock's bookkeeping (vgpu_clock_hold.c) - which
 * joined files run, when the clock holds and when a hold is released - with
 * several threads of one file waiting at once, waits that end by a timeout,
 * and a file that leaves while its threads wait.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_clock_hold.h"
#include "vgpu_kcb.h"
#include "vgpu_mock.h"

static int released;

static void count_release(struct vgpu_clock *clock)
{
	released++;
}

/* The clock, three files, their threads' waits and two ended jobs. */
struct clock_case {
	struct vgpu_clock clock;
	struct vgpu_clock_file a, b, c;
	struct vgpu_clock_wait w1, w2, w3, wb, wc;
	struct vgpu_kcb_entry e5, e6;
};

static struct clock_case *clock_case_new(struct kunit *test,
					 struct mock_hw *hw)
{
	struct clock_case *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	released = 0;
	t->e5.id = 5;
	t->e6.id = 6;
	vgpu_clock_init(&t->clock, &hw->s, count_release);
	vgpu_clock_file_init(&t->a);
	vgpu_clock_file_init(&t->b);
	vgpu_clock_file_init(&t->c);
	return t;
}

/*
 * Two threads of file A wait for jobs 5 and 6, file B for nothing: A stops
 * running once (not twice), runs again only when its last wait is over,
 * whether that ends by its job's end or by a timeout, and a job's end
 * releases every wait for it.
 */
static void clock_concurrent_waits(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct clock_case *t = clock_case_new(test, hw);
	struct vgpu_clock *clock = &t->clock;

	mutex_lock(&hw->lock);
	vgpu_clock_join(clock, &t->a, 1);
	vgpu_clock_join(clock, &t->b, 2);
	KUNIT_EXPECT_EQ(test, clock->running, 2);
	KUNIT_EXPECT_TRUE(test, hw->s.held);

	vgpu_clock_wait_begin(clock, &t->a, &t->w1, 5);
	vgpu_clock_wait_begin(clock, &t->a, &t->w2, 6);
	vgpu_clock_wait_begin(clock, &t->a, &t->w3, 6);
	KUNIT_EXPECT_EQ(test, clock->running, 1);
	KUNIT_EXPECT_EQ(test, released, 0);

	/* Job 5 ends: A still has two threads waiting for job 6. */
	vgpu_clock_job_done(clock, &t->e5);
	KUNIT_EXPECT_EQ(test, clock->running, 1);
	vgpu_clock_wait_end(clock, &t->a, &t->w1);
	KUNIT_EXPECT_EQ(test, clock->running, 1);

	/* B waits too: nobody runs, the hold is released once. */
	vgpu_clock_wait_begin(clock, &t->b, &t->wb, 7);
	KUNIT_EXPECT_EQ(test, clock->running, 0);
	KUNIT_EXPECT_FALSE(test, hw->s.held);
	KUNIT_EXPECT_EQ(test, released, 1);

	/* One of A's waits for job 6 times out: A still waits. */
	vgpu_clock_wait_end(clock, &t->a, &t->w2);
	KUNIT_EXPECT_EQ(test, clock->running, 0);
	KUNIT_EXPECT_FALSE(test, hw->s.held);

	/* Job 6 ends: A runs, the clock holds again, within the turn. */
	vgpu_clock_job_done(clock, &t->e6);
	KUNIT_EXPECT_EQ(test, clock->running, 1);
	KUNIT_EXPECT_TRUE(test, hw->s.held);
	vgpu_clock_wait_end(clock, &t->a, &t->w3);
	KUNIT_EXPECT_EQ(test, clock->running, 1);

	/* B's wait times out: both run. */
	vgpu_clock_wait_end(clock, &t->b, &t->wb);
	KUNIT_EXPECT_EQ(test, clock->running, 2);

	vgpu_clock_leave(clock, &t->a);
	vgpu_clock_leave(clock, &t->b);
	KUNIT_EXPECT_EQ(test, clock->running, 0);
	KUNIT_EXPECT_EQ(test, released, 2);
	mutex_unlock(&hw->lock);
	mock_finish(hw);
}

/*
 * A file leaves (or is made to leave) while two of its threads wait: the
 * count of running files stays right, and the waits, ending later, change
 * nothing; a thread of a file that has not joined does not count at all.
 */
static void clock_leave_while_waiting(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct clock_case *t = clock_case_new(test, hw);
	struct vgpu_clock *clock = &t->clock;

	mutex_lock(&hw->lock);
	vgpu_clock_join(clock, &t->a, 1);
	vgpu_clock_join(clock, &t->b, 2);
	vgpu_clock_wait_begin(clock, &t->a, &t->w1, 5);
	vgpu_clock_wait_begin(clock, &t->a, &t->w2, 5);
	vgpu_clock_wait_begin(clock, &t->c, &t->wc, 5);
	KUNIT_EXPECT_EQ(test, clock->running, 1);

	vgpu_clock_leave(clock, &t->a);
	KUNIT_EXPECT_EQ(test, clock->running, 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&t->a.waits));
	vgpu_clock_job_done(clock, &t->e5);
	vgpu_clock_wait_end(clock, &t->a, &t->w1);
	vgpu_clock_wait_end(clock, &t->a, &t->w2);
	vgpu_clock_wait_end(clock, &t->c, &t->wc);
	KUNIT_EXPECT_EQ(test, clock->running, 1);
	KUNIT_EXPECT_TRUE(test, hw->s.held);

	vgpu_clock_leave(clock, &t->b);
	KUNIT_EXPECT_EQ(test, clock->running, 0);
	KUNIT_EXPECT_FALSE(test, hw->s.held);
	KUNIT_EXPECT_EQ(test, released, 1);
	mutex_unlock(&hw->lock);
	mock_finish(hw);
}

static struct kunit_case vgpu_clock_cases[] = {
	KUNIT_CASE(clock_concurrent_waits),
	KUNIT_CASE(clock_leave_while_waiting),
	{}
};

static struct kunit_suite vgpu_clock_suite = {
	.name = "vgpu_clock",
	.test_cases = vgpu_clock_cases,
};

kunit_test_suite(vgpu_clock_suite);
