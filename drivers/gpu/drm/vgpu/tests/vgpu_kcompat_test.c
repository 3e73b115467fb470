// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the kernel's side of the kcompat scenario (vgpu_kcompat_cases.h).
 *
 * Runs the drm_mm, XArray and sort() scenario on the kernel's own
 * implementations - the last through the preemption policies of vgpu.ko,
 * whose Algorithm 3 sorts with the kernel's heapsort - and checks the
 * checksums against the literals that the host test
 * (userspace/tests/test_kcompat.c) checks kcompat against, so the command
 * processor built into userspace places ranges, hands out ids and orders
 * preemption plans as the driver does. On a mismatch the checksum computed
 * here is printed: it is the kernel's answer, the literal to write into
 * the header.
 */

#include <kunit/test.h>
#include <linux/xarray.h>
#include <drm/drm_mm.h>

#include "vgpu_preempt.h"
#include "vgpu_kcompat_cases.h"

static void kcompat_drm_mm(struct kunit *test)
{
	struct vgpu_kcompat_stats st = {};
	struct drm_mm_node *nodes;
	u64 sum;

	nodes = kunit_kcalloc(test, VGPU_KCOMPAT_MM_NODES, sizeof(*nodes),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nodes);
	sum = vgpu_kcompat_mm_run(nodes, &st);
	KUNIT_EXPECT_EQ_MSG(test, sum, VGPU_KCOMPAT_MM_EXPECT,
			    "drm_mm checksum %#llx", sum);
	/* The scenario fills the memory, so refusals must happen. */
	KUNIT_EXPECT_GT(test, st.ok, 1000);
	KUNIT_EXPECT_GT(test, st.full, 10);
	KUNIT_EXPECT_GT(test, st.removed, 1000);
}

static void kcompat_xarray(struct kunit *test)
{
	struct vgpu_kcompat_stats st = {};
	u64 sum;

	sum = vgpu_kcompat_xa_run(&st);
	KUNIT_EXPECT_EQ_MSG(test, sum, VGPU_KCOMPAT_XA_EXPECT,
			    "xarray checksum %#llx", sum);
	/* Ids run out and the cyclic allocator wraps. */
	KUNIT_EXPECT_GT(test, st.full, 10);
	KUNIT_EXPECT_GT(test, st.wrapped, 10);
	KUNIT_EXPECT_GT(test, st.removed, 100);
}

static void kcompat_sort(struct kunit *test)
{
	struct vgpu_kcompat_sort_stats st = {};
	struct vgpu_kcompat_sort_buf *buf;
	u64 sum;

	buf = kunit_kzalloc(test, sizeof(*buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sum = vgpu_kcompat_sort_run(buf, &st);
	KUNIT_EXPECT_EQ_MSG(test, sum, VGPU_KCOMPAT_SORT_EXPECT,
			    "sort checksum %#llx", sum);
	/* Every policy planned every input, with ties only the index breaks. */
	KUNIT_EXPECT_EQ(test, st.plans, st.selects);
	KUNIT_EXPECT_GE(test, st.selects, 5 * VGPU_KCOMPAT_SORT_CASES);
	KUNIT_EXPECT_GT(test, st.met, 1000);
	KUNIT_EXPECT_GT(test, st.unmet, 1000);
	KUNIT_EXPECT_GT(test, st.tied, 10000);
	KUNIT_EXPECT_GT(test, st.tech[VGPU_TECH_SWITCH], 1000);
	KUNIT_EXPECT_GT(test, st.tech[VGPU_TECH_DRAIN], 1000);
	KUNIT_EXPECT_GT(test, st.tech[VGPU_TECH_FLUSH], 1000);
}

static struct kunit_case vgpu_kcompat_cases[] = {
	KUNIT_CASE(kcompat_drm_mm),
	KUNIT_CASE(kcompat_xarray),
	KUNIT_CASE(kcompat_sort),
	{}
};

static struct kunit_suite vgpu_kcompat_suite = {
	.name = "vgpu_kcompat",
	.test_cases = vgpu_kcompat_cases,
};

kunit_test_suite(vgpu_kcompat_suite);
