// SPDX-License-Identifier: MIT
/*
 * test_kcompat.c - host tests of kcompat's drm_mm, XArray and sort()
 * (userspace/kcompat): the scenario of
 * drivers/gpu/drm/vgpu/tests/vgpu_kcompat_cases.h gives the checksums the
 * kernel gives (the KUnit suite vgpu_kcompat checks the same literals
 * against the kernel), the sort() part through the command
 * processor's preemption policies (libvgpu_cp.a), and a few cases spelled
 * out: equal holes, alignment, ranges, reservations, id wrap-around,
 * reserved entries and the lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kconfig.h>	/* IS_ENABLED() in the driver's headers */
#include <drm/drm_mm.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "../../drivers/gpu/drm/vgpu/vgpu_preempt.h"
#include "../../drivers/gpu/drm/vgpu/tests/vgpu_kcompat_cases.h"
#include "tap.h"

static int t_mm_scenario(void)
{
	struct vgpu_kcompat_stats st = { 0 };
	struct drm_mm_node *nodes = calloc(VGPU_KCOMPAT_MM_NODES, sizeof(*nodes));
	u64 sum;

	CHECK(nodes, "out of memory");
	sum = vgpu_kcompat_mm_run(nodes, &st);
	free(nodes);
	printf("#   drm_mm: %u placed, %u refused, %u removed\n", st.ok, st.full, st.removed);
	CHECK(sum == VGPU_KCOMPAT_MM_EXPECT, "checksum %#llx, the kernel's %#llx",
	      (unsigned long long)sum, (unsigned long long)VGPU_KCOMPAT_MM_EXPECT);
	CHECK(st.ok > 1000 && st.full > 10 && st.removed > 1000, "the scenario lost its cases");
	return 0;
}

static int t_xa_scenario(void)
{
	struct vgpu_kcompat_stats st = { 0 };
	u64 sum = vgpu_kcompat_xa_run(&st);

	printf("#   xarray: %u allocated (%u wrapped), %u refused, %u erased\n",
	       st.ok, st.wrapped, st.full, st.removed);
	CHECK(sum == VGPU_KCOMPAT_XA_EXPECT, "checksum %#llx, the kernel's %#llx",
	      (unsigned long long)sum, (unsigned long long)VGPU_KCOMPAT_XA_EXPECT);
	CHECK(st.full > 10 && st.wrapped > 10 && st.removed > 100, "the scenario lost its cases");
	return 0;
}

static int t_sort_scenario(void)
{
	struct vgpu_kcompat_sort_stats st = { 0 };
	struct vgpu_kcompat_sort_buf *buf = calloc(1, sizeof(*buf));
	u64 sum;

	CHECK(buf, "out of memory");
	sum = vgpu_kcompat_sort_run(buf, &st);
	free(buf);
	printf("#   sort: %u plans (%u met, %u not), %u ties by index; %u switch, %u drain, %u flush\n",
	       st.plans, st.met, st.unmet, st.tied, st.tech[VGPU_TECH_SWITCH],
	       st.tech[VGPU_TECH_DRAIN], st.tech[VGPU_TECH_FLUSH]);
	CHECK(sum == VGPU_KCOMPAT_SORT_EXPECT, "checksum %#llx, the kernel's %#llx",
	      (unsigned long long)sum, (unsigned long long)VGPU_KCOMPAT_SORT_EXPECT);
	CHECK(st.plans == st.selects && st.selects >= 5 * VGPU_KCOMPAT_SORT_CASES,
	      "%u of %u selections planned", st.plans, st.selects);
	CHECK(st.met > 1000 && st.unmet > 1000 && st.tied > 10000 &&
	      st.tech[VGPU_TECH_SWITCH] > 1000 && st.tech[VGPU_TECH_DRAIN] > 1000 &&
	      st.tech[VGPU_TECH_FLUSH] > 1000, "the scenario lost its cases");
	return 0;
}

/* Five pages back to back from 0, then B and D freed: B's hole is older. */
static void five_pages(struct drm_mm *mm, struct drm_mm_node *n)
{
	memset(mm, 0, sizeof(*mm));
	memset(n, 0, 5 * sizeof(*n));
	drm_mm_init(mm, 0, 10 * 4096);
	for (int i = 0; i < 5; i++)
		drm_mm_insert_node(mm, &n[i], 4096);
	drm_mm_remove_node(&n[1]);
	drm_mm_remove_node(&n[3]);
}

static void mm_fini(struct drm_mm *mm, struct drm_mm_node *n, int count)
{
	for (int i = 0; i < count; i++)
		if (drm_mm_node_allocated(&n[i]))
			drm_mm_remove_node(&n[i]);
	drm_mm_takedown(mm);
}

static int t_mm_best_ties(void)
{
	struct drm_mm mm;
	struct drm_mm_node n[8];

	five_pages(&mm, n);
	memset(&n[5], 0, 3 * sizeof(n[5]));
	/* Equal holes: the newest first, then the older, then bigger ones. */
	CHECK(drm_mm_insert_node(&mm, &n[5], 4096) == 0 && n[5].start == 3 * 4096,
	      "newest equal hole: got %#llx", (unsigned long long)n[5].start);
	CHECK(drm_mm_insert_node(&mm, &n[6], 4096) == 0 && n[6].start == 4096,
	      "older equal hole: got %#llx", (unsigned long long)n[6].start);
	CHECK(drm_mm_insert_node(&mm, &n[7], 4096) == 0 && n[7].start == 5 * 4096,
	      "the big hole last: got %#llx", (unsigned long long)n[7].start);
	mm_fini(&mm, n, 8);
	return 0;
}

static int t_mm_align_and_ranges(void)
{
	struct drm_mm mm;
	struct drm_mm_node n[8];

	five_pages(&mm, n);
	memset(&n[5], 0, 3 * sizeof(n[5]));
	/* Aligned to 5000, the newest page hole is too small: the older one. */
	CHECK(drm_mm_insert_node_generic(&mm, &n[5], 3000, 5000, 0, DRM_MM_INSERT_BEST) == 0 &&
	      n[5].start == 5000, "odd alignment: got %#llx", (unsigned long long)n[5].start);
	/* LOW clamps to the range and rounds up; HIGH takes the top. */
	CHECK(drm_mm_insert_node_in_range(&mm, &n[6], 64, 64, 0, 13000, 40960,
					  DRM_MM_INSERT_LOW) == 0 && n[6].start == 13056,
	      "LOW: got %#llx", (unsigned long long)n[6].start);
	CHECK(drm_mm_insert_node_in_range(&mm, &n[7], 100, 64, 0, 0, 40000,
					  DRM_MM_INSERT_HIGH) == 0 && n[7].start == 39872,
	      "HIGH: got %#llx", (unsigned long long)n[7].start);
	mm_fini(&mm, n, 8);
	return 0;
}

static int t_mm_reserve_and_full(void)
{
	struct drm_mm mm;
	struct drm_mm_node n[8];
	const struct drm_mm_node *e;
	int count = 0;

	five_pages(&mm, n);
	memset(&n[5], 0, 3 * sizeof(n[5]));
	n[5].start = 4096;
	n[5].size = 4096;
	CHECK(drm_mm_reserve_node(&mm, &n[5]) == 0, "reserve a free page");
	n[6].start = 4096 + 2048;
	n[6].size = 4096;
	CHECK(drm_mm_reserve_node(&mm, &n[6]) == -ENOSPC, "reserve over a node");
	CHECK(drm_mm_insert_node(&mm, &n[6], 6 * 4096) == -ENOSPC, "no hole that big");
	CHECK(drm_mm_insert_node(&mm, &n[6], 0) == -ENOSPC, "size 0");
	drm_mm_for_each_node(e, &mm)
		count++;
	CHECK(count == 4 && !drm_mm_clean(&mm) && drm_mm_initialized(&mm), "4 nodes");
	mm_fini(&mm, n, 8);
	CHECK(drm_mm_clean(&mm), "clean after removing all");
	return 0;
}

static int t_xa_cyclic(void)
{
	struct xarray xa;
	u32 id = 0, next = 1;

	xa_init_flags(&xa, XA_FLAGS_ALLOC1);
	for (u32 i = 1; i <= 3; i++)
		CHECK(xa_alloc_cyclic(&xa, &id, xa_mk_value(i), XA_LIMIT(1, 3), &next,
				      GFP_KERNEL) == 0 && id == i && next == i + 1, "id %u", i);
	CHECK(xa_alloc_cyclic(&xa, &id, xa_mk_value(9), XA_LIMIT(1, 3), &next,
			      GFP_KERNEL) == -EBUSY && next == 4, "full: -EBUSY, next kept");
	CHECK(xa_to_value(xa_erase(&xa, 2)) == 2, "erase 2");
	CHECK(xa_alloc_cyclic(&xa, &id, xa_mk_value(9), XA_LIMIT(1, 3), &next,
			      GFP_KERNEL) == 1 && id == 2 && next == 3, "wrapped to 2: returns 1");
	xa_destroy(&xa);

	/* *next wraps past U32_MAX: the next id counts as wrapped. */
	next = U32_MAX;
	CHECK(xa_alloc_cyclic(&xa, &id, xa_mk_value(1), xa_limit_32b, &next,
			      GFP_KERNEL) == 0 && id == U32_MAX && next == 0, "id U32_MAX");
	CHECK(xa_alloc_cyclic(&xa, &id, xa_mk_value(2), xa_limit_32b, &next,
			      GFP_KERNEL) == 1 && id == 1 && next == 2, "then 1, wrapped");
	CHECK(xa_alloc_cyclic(&xa, &id, xa_mk_value(3), xa_limit_32b, &next,
			      GFP_KERNEL) == 0 && id == 2, "then 2");
	xa_destroy(&xa);
	return 0;
}

static int t_xa_reserved(void)
{
	DEFINE_XARRAY_ALLOC(xa);
	unsigned long index;
	void *entry;
	u32 id = 7;
	int n = 0;

	CHECK(xa_alloc(&xa, &id, NULL, xa_limit_31b, GFP_KERNEL) == 0 && id == 0, "reserve 0");
	CHECK(xa_alloc(&xa, &id, xa_mk_value(5), xa_limit_31b, GFP_KERNEL) == 0 && id == 1, "1");
	CHECK(!xa_load(&xa, 0) && !xa_empty(&xa), "reserved: loads NULL, not empty");
	CHECK(xa_insert(&xa, 0, xa_mk_value(1), GFP_KERNEL) == -EBUSY, "reserved: taken");
	CHECK(xa_cmpxchg(&xa, 0, NULL, xa_mk_value(1), GFP_KERNEL) == NULL && !xa_load(&xa, 0),
	      "reserved is not NULL to cmpxchg");
	xa_for_each(&xa, index, entry)
		n++;
	CHECK(n == 1, "iteration skips the reserved entry");
	CHECK(xa_store(&xa, 1, NULL, GFP_KERNEL) == xa_mk_value(5) && !xa_empty(&xa),
	      "storing NULL in an allocating array reserves");
	CHECK(!xa_erase(&xa, 0) && !xa_erase(&xa, 1) && xa_empty(&xa), "erased: empty");
	CHECK(xa_err(xa_store(&xa, 3, (void *)(uintptr_t)2, GFP_KERNEL)) == -EINVAL,
	      "internal entries are refused");
	xa_destroy(&xa);
	return 0;
}

#define THREADS	4
#define ROUNDS	20000

static void *xa_worker(void *arg)
{
	struct xarray *xa = arg;

	for (unsigned long i = 1; i <= ROUNDS; i++) {
		u32 id;

		if (xa_alloc(xa, &id, xa_mk_value(i), xa_limit_31b, GFP_KERNEL) ||
		    xa_to_value(xa_load(xa, id)) != i || xa_to_value(xa_erase(xa, id)) != i)
			return xa;
	}
	return NULL;
}

static int t_xa_lock(void)
{
	DEFINE_XARRAY_ALLOC1(xa);
	pthread_t t[THREADS];
	void *bad = NULL;
	u32 id;

	/* The lock held, the readers still work (the kernel's use RCU). */
	CHECK(xa_alloc(&xa, &id, xa_mk_value(4), xa_limit_32b, GFP_KERNEL) == 0 && id == 1, "1");
	xa_lock(&xa);
	CHECK(xa_to_value(xa_load(&xa, 1)) == 4 && !xa_empty(&xa), "load under xa_lock");
	CHECK(__xa_store(&xa, 2, xa_mk_value(8), GFP_KERNEL) == NULL, "__xa_store");
	xa_unlock(&xa);
	CHECK(xa_to_value(xa_load(&xa, 2)) == 8, "stored under the lock");
	xa_destroy(&xa);

	for (int i = 0; i < THREADS; i++)
		CHECK(!pthread_create(&t[i], NULL, xa_worker, &xa), "pthread_create");
	for (int i = 0; i < THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad = bad ? bad : r;
	}
	CHECK(!bad && xa_empty(&xa), "%d threads allocating, loading, erasing", THREADS);
	return 0;
}

int main(void)
{
	report("drm_mm scenario: the kernel's placements", t_mm_scenario());
	report("xarray scenario: the kernel's ids", t_xa_scenario());
	report("sort scenario: the kernel's preemption plans", t_sort_scenario());
	report("drm_mm BEST: newest equal hole first", t_mm_best_ties());
	report("drm_mm alignment, LOW and HIGH ranges", t_mm_align_and_ranges());
	report("drm_mm reserve, -ENOSPC, walk", t_mm_reserve_and_full());
	report("xa_alloc_cyclic: next, -EBUSY, wrap returns 1", t_xa_cyclic());
	report("xarray reserved entries", t_xa_reserved());
	report("xa_lock: readers under the lock, threads", t_xa_lock());
	return test_summary();
}
