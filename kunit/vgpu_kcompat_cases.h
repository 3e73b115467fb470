/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One scenario, two hosts: a long pseudo-random run of drm_mm and XArray
 * calls whose results fold into a checksum. vgpu_kcompat_test.c runs it on
 * the kernel's drm_mm and XArray, userspace/tests/test_kcompat.c on
 * kcompat's (userspace/kcompat), and both compare against the same
 * literals, so kcompat places every range and hands out every id exactly
 * as the kernel does.
 *
 * Pure C: the includer provides u32/u64, <drm/drm_mm.h> and
 * <linux/xarray.h> (the kernel's or kcompat's) and nothing else is used.
 *
 * The drm_mm run mirrors vgpu_vram.c: 256 MiB of device memory less its
 * first page, BEST placement anywhere or LOW placement in one eighth with
 * BEST as the fallback, alignments 0, 64 and 4096 (and the odd 12288), page
 * multiples, odd sizes and a few sizes that recur so that equal holes
 * compete; plus HIGH, EVICT and reserved nodes. About 290 ranges are live
 * at a time, enough to fill the memory and be refused.
 *
 * The XArray run mirrors the KCB and program-handle tables: an
 * XA_FLAGS_ALLOC1 array with XA_LIMIT(1, 63) so that xa_alloc_cyclic()
 * wraps and fills up, an XA_FLAGS_ALLOC array that hands out index 0, and
 * ids at the top of the u32 range so that *next wraps past zero; reserved
 * (NULL) entries, erases, stores, inserts, cmpxchg, loads and walks.
 */
#ifndef _VGPU_KCOMPAT_CASES_H_
#define _VGPU_KCOMPAT_CASES_H_

/* What the kernel's drm_mm and XArray give (vgpu_kcompat_test.c). */
#define VGPU_KCOMPAT_MM_EXPECT		0xbb086bdc1a784110ULL
#define VGPU_KCOMPAT_XA_EXPECT		0x35118b556b5d8ed7ULL

#define VGPU_KCOMPAT_MM_START		4096ULL
#define VGPU_KCOMPAT_MM_SIZE		((256ULL << 20) - 4096)
#define VGPU_KCOMPAT_MM_ARENAS		8
#define VGPU_KCOMPAT_MM_NODES		512
#define VGPU_KCOMPAT_MM_OPS		6000
#define VGPU_KCOMPAT_XA_OPS		6000

/**
 * struct vgpu_kcompat_stats - what a run did, to show it covers the cases.
 * @ok: insertions or allocations that succeeded.
 * @full: refused ones (-ENOSPC, -EBUSY).
 * @removed: nodes removed, entries erased.
 * @wrapped: xa_alloc_cyclic() calls that returned 1.
 */
struct vgpu_kcompat_stats {
	u32 ok;
	u32 full;
	u32 removed;
	u32 wrapped;
};

/* splitmix64: the scenario's only source of choices. */
static inline u64 vgpu_kcompat_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Folds @v into @sum so that order and every bit count. */
static inline u64 vgpu_kcompat_fold(u64 sum, u64 v)
{
	u64 z = (sum ^ v) * 0xff51afd7ed558ccdULL;

	return z ^ (z >> 32) ^ (sum << 7);
}

static inline u64 vgpu_kcompat_mm_size(u64 *rs)
{
	static const u64 recurring[] = { 4096, 8192, 16384, 65536 };
	u64 r = vgpu_kcompat_rand(rs);

	switch (vgpu_kcompat_rand(rs) % 8) {
	case 0:
	case 1:
		return 4096 * (1 + r % 16);
	case 2:
		return recurring[r % 4];
	case 3:
		return 1 + r % 5000;
	case 4:
		return 64 * (1 + r % 64);
	case 5:
		return 1 + r % (1 << 20);
	case 6:
		return (1 + r % 4) << 20;
	default:
		return 1 + r % (8 << 20);
	}
}

static inline u64 vgpu_kcompat_mm_align(u64 *rs)
{
	u64 r = vgpu_kcompat_rand(rs) % 16;

	if (r < 5)
		return 0;
	if (r < 10)
		return 64;
	return r < 15 ? 4096 : 12288;
}

/* Inserts @n (zeroed) somewhere; folds where it went. */
static inline u64 vgpu_kcompat_mm_insert(struct drm_mm *mm, struct drm_mm_node *n,
					 u64 *rs, u64 sum,
					 struct vgpu_kcompat_stats *st)
{
	const u64 slice = (VGPU_KCOMPAT_MM_START + VGPU_KCOMPAT_MM_SIZE) /
			  VGPU_KCOMPAT_MM_ARENAS;
	u64 size = vgpu_kcompat_mm_size(rs);
	u64 align = vgpu_kcompat_mm_align(rs);
	u64 how = vgpu_kcompat_rand(rs) % 10;
	u64 a = 1 + vgpu_kcompat_rand(rs) % (VGPU_KCOMPAT_MM_ARENAS - 1);
	int ret = -1;

	if (how >= 5 && how < 8) {
		/* vgpu_vram_alloc() with an arena: LOW there, else BEST. */
		ret = drm_mm_insert_node_in_range(mm, n, size, align, 0,
						  a * slice, (a + 1) * slice,
						  DRM_MM_INSERT_LOW);
		sum = vgpu_kcompat_fold(sum, (u64)ret);
	} else if (how == 8) {
		ret = drm_mm_insert_node_in_range(mm, n, size, align, 0,
						  slice / 2, (a + 1) * slice,
						  DRM_MM_INSERT_HIGH);
	} else if (how == 9) {
		ret = drm_mm_insert_node_generic(mm, n, size, align, 0,
						 DRM_MM_INSERT_EVICT);
	}
	if (ret)
		ret = drm_mm_insert_node_generic(mm, n, size, align, 0,
						 DRM_MM_INSERT_BEST);
	sum = vgpu_kcompat_fold(sum, (u64)ret);
	if (ret) {
		st->full++;
		return sum;
	}
	st->ok++;
	return vgpu_kcompat_fold(sum, n->start);
}

/**
 * vgpu_kcompat_mm_run() - the drm_mm scenario.
 * @nodes: %VGPU_KCOMPAT_MM_NODES zeroed nodes.
 * @st: zeroed; receives the counts.
 *
 * Return: the checksum of every result and of the final layout.
 */
static inline u64 vgpu_kcompat_mm_run(struct drm_mm_node *nodes,
				      struct vgpu_kcompat_stats *st)
{
	struct drm_mm mm = {};
	struct drm_mm_node *n;
	u64 rs = 0x5eed0001, sum = 0;
	int op, i;

	drm_mm_init(&mm, VGPU_KCOMPAT_MM_START, VGPU_KCOMPAT_MM_SIZE);
	for (op = 0; op < VGPU_KCOMPAT_MM_OPS; op++) {
		u64 r = vgpu_kcompat_rand(&rs);

		n = &nodes[r % VGPU_KCOMPAT_MM_NODES];
		r >>= 16;
		if (drm_mm_node_allocated(n)) {
			if (r % 4) {
				drm_mm_remove_node(n);
				st->removed++;
			}
			continue;
		}
		*n = (struct drm_mm_node){};
		if (r % 32 == 0) {
			/* A reserved range: page aligned, wherever it falls. */
			n->start = VGPU_KCOMPAT_MM_START +
				   vgpu_kcompat_rand(&rs) % VGPU_KCOMPAT_MM_SIZE / 4096 * 4096;
			n->size = 4096 * (1 + vgpu_kcompat_rand(&rs) % 8);
			sum = vgpu_kcompat_fold(sum, (u64)drm_mm_reserve_node(&mm, n));
			continue;
		}
		sum = vgpu_kcompat_mm_insert(&mm, n, &rs, sum, st);
	}
	drm_mm_for_each_node(n, &mm) {
		sum = vgpu_kcompat_fold(sum, n->start);
		sum = vgpu_kcompat_fold(sum, n->size);
	}
	for (i = 0; i < VGPU_KCOMPAT_MM_NODES; i++)
		if (drm_mm_node_allocated(&nodes[i]))
			drm_mm_remove_node(&nodes[i]);
	drm_mm_takedown(&mm);
	return sum;
}

/* An entry as a number: its value, or all ones for NULL. */
static inline u64 vgpu_kcompat_xa_val(void *entry)
{
	return entry ? (u64)xa_to_value(entry) : ~0ULL;
}

/* Folds every present entry of @xa and whether it is empty. */
static inline u64 vgpu_kcompat_xa_walk(struct xarray *xa, u64 sum)
{
	unsigned long index;
	void *entry;

	xa_for_each(xa, index, entry) {
		sum = vgpu_kcompat_fold(sum, index);
		sum = vgpu_kcompat_fold(sum, vgpu_kcompat_xa_val(entry));
	}
	return vgpu_kcompat_fold(sum, xa_empty(xa));
}

/**
 * vgpu_kcompat_xa_run() - the XArray scenario.
 * @st: zeroed; receives the counts.
 *
 * Array 0 is XA_FLAGS_ALLOC1 with ids 1..63 (the KCB table's setup, with
 * a small limit), array 1 XA_FLAGS_ALLOC with ids 0..31, array 2
 * XA_FLAGS_ALLOC1 with ids at the top of the u32 range or anywhere.
 * Index 0 of the ALLOC1 arrays is only loaded and erased, never stored.
 *
 * Return: the checksum of every result and of the final contents.
 */
static inline u64 vgpu_kcompat_xa_run(struct vgpu_kcompat_stats *st)
{
	struct xarray xa[3];
	u32 next[3] = { 1, 0, 0 };
	u64 rs = 0x5eed0002, sum = 0;
	int op, a;

	xa_init_flags(&xa[0], XA_FLAGS_ALLOC1);
	xa_init_flags(&xa[1], XA_FLAGS_ALLOC);
	xa_init_flags(&xa[2], XA_FLAGS_ALLOC1);
	for (op = 0; op < VGPU_KCOMPAT_XA_OPS; op++) {
		u64 r = vgpu_kcompat_rand(&rs);
		u64 what = (r >> 8) % 100;
		void *entry = (r >> 16) % 8 ? xa_mk_value(op) : NULL;
		struct xa_limit lim = XA_LIMIT(1, 63);
		unsigned long index = (r >> 24) % 70;
		void *old;
		u32 id = 0;
		int ret;

		a = r % 3;
		if (a == 1) {
			lim = XA_LIMIT(0, 31);
		} else if (a == 2) {
			lim = (r >> 40) % 8 ? XA_LIMIT(U32_MAX - 15, U32_MAX) : xa_limit_32b;
			if ((r >> 32) % 2)
				index = U32_MAX - (r >> 48) % 20;
		}
		if (a != 1 && index == 0 && what >= 65 && what < 82)
			index = 1;	/* no store at index 0 of ALLOC1 */

		if (what < 35) {
			ret = xa_alloc_cyclic(&xa[a], &id, entry, lim, &next[a],
					      GFP_KERNEL);
			sum = vgpu_kcompat_fold(sum, next[a]);
		} else if (what < 45) {
			ret = xa_alloc(&xa[a], &id, entry, lim, GFP_KERNEL);
		} else if (what < 65) {
			old = xa_erase(&xa[a], index);
			if (old)
				st->removed++;
			sum = vgpu_kcompat_fold(sum, vgpu_kcompat_xa_val(old));
			continue;
		} else if (what < 70) {
			old = xa_store(&xa[a], index, entry, GFP_KERNEL);
			sum = vgpu_kcompat_fold(sum, vgpu_kcompat_xa_val(old));
			continue;
		} else if (what < 75) {
			ret = xa_insert(&xa[a], index, entry, GFP_KERNEL);
			sum = vgpu_kcompat_fold(sum, (u64)ret);
			continue;
		} else if (what < 82) {
			old = (r >> 56) % 2 ? xa_load(&xa[a], index) : NULL;
			old = xa_cmpxchg(&xa[a], index, old, entry, GFP_KERNEL);
			sum = vgpu_kcompat_fold(sum, vgpu_kcompat_xa_val(old));
			continue;
		} else if (what < 96) {
			old = xa_load(&xa[a], index);
			sum = vgpu_kcompat_fold(sum, vgpu_kcompat_xa_val(old));
			continue;
		} else {
			sum = vgpu_kcompat_xa_walk(&xa[a], sum);
			continue;
		}
		/* An allocation. */
		sum = vgpu_kcompat_fold(sum, (u64)ret);
		if (ret < 0) {
			st->full++;
			continue;
		}
		st->ok++;
		st->wrapped += ret == 1;
		sum = vgpu_kcompat_fold(sum, id);
	}
	for (a = 0; a < 3; a++) {
		sum = vgpu_kcompat_xa_walk(&xa[a], sum);
		xa_destroy(&xa[a]);
	}
	return sum;
}

#endif /* _VGPU_KCOMPAT_CASES_H_ */
