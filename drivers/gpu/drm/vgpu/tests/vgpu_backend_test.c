// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the command ring's head as the kernel accepts it from the daemon
 * (vgpu_ring_accept_head()): forward up to the tail, never back, never
 * past the tail, across the indices' wrap at 2^32.
 */

#include <kunit/test.h>

#include "vgpu_drv.h"

/* A head from the accepted one up to the tail is taken, the tail included. */
static void ring_head_forward(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(10, 10, 20), 10u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(15, 10, 20), 15u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(20, 10, 20), 20u);
}

/*
 * A rogue daemon's head behind what it said before is ignored: the room a
 * pass was promised stays (the fcfs WARN a fuzzed backend once caused).
 */
static void ring_head_back(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(9, 10, 20), 10u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(0, 10, 20), 10u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(U32_MAX, 10, 20), 10u);
}

/* A head beyond the tail would free commands never consumed: ignored. */
static void ring_head_beyond_tail(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(21, 10, 20), 10u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(1000, 10, 20), 10u);
	/* an empty ring: only the same head */
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(11, 10, 10), 10u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(10, 10, 10), 10u);
}

/* The indices wrap: order is by distance from the accepted head. */
static void ring_head_wraps(struct kunit *test)
{
	u32 consumed = U32_MAX - 2, local = 5;

	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(U32_MAX, consumed, local), U32_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(0, consumed, local), 0u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(5, consumed, local), 5u);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(6, consumed, local), consumed);
	KUNIT_EXPECT_EQ(test, vgpu_ring_accept_head(U32_MAX - 3, consumed, local), consumed);
}

static struct kunit_case vgpu_backend_cases[] = {
	KUNIT_CASE(ring_head_forward),
	KUNIT_CASE(ring_head_back),
	KUNIT_CASE(ring_head_beyond_tail),
	KUNIT_CASE(ring_head_wraps),
	{}
};

static struct kunit_suite vgpu_backend_suite = {
	.name = "vgpu_backend",
	.test_cases = vgpu_backend_cases,
};

kunit_test_suite(vgpu_backend_suite);
