/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One scenario, two hosts: a long pseudo-random run of drm_mm and XArray
 * calls, and of preemption selections, whose results fold into checksums.
 * vgpu_kcompat_test.c runs it on the kernel's drm_mm, XArray and sort(),
 * userspace/tests/test_kcompat.c on kcompat's (userspace/kcompat), and
 * both compare against the same literals, so kcompat places every range,
 * hands out every id and orders every preemption plan exactly as the
 * kernel does.
 *
 * Pure C: the includer provides u32/u64, <drm/drm_mm.h>, <linux/xarray.h>
 * (the kernel's or kcompat's) and vgpu_preempt.h, and nothing else is
 * used.
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
 *
 * The sort() run is Algorithm 3's (vgpu_preempt_plan_sms()), the command
 * processor's one sort: the kernel's is an unstable heapsort, kcompat's
 * qsort(), and they agree only because cmp_sm_plan() is a total order.
 * Pseudo-random preemption inputs with ties on purpose - SMs with the
 * same TBs or none, TBs in step, a few contexts and instruction counts,
 * unknown statistics, budgets of 0 and of U64_MAX - go through every
 * registered policy's select, and the order of the SMs, the techniques,
 * the costs and whether the budget was met fold into the checksum.
 */
#ifndef _VGPU_KCOMPAT_CASES_H_
#define _VGPU_KCOMPAT_CASES_H_

/* What the kernel's drm_mm, XArray and sort() give (vgpu_kcompat_test.c). */
#define VGPU_KCOMPAT_MM_EXPECT		0xbb086bdc1a784110ULL
#define VGPU_KCOMPAT_XA_EXPECT		0x35118b556b5d8ed7ULL
#define VGPU_KCOMPAT_SORT_EXPECT	0x367a64e3ee02ff21ULL

#define VGPU_KCOMPAT_MM_START		4096ULL
#define VGPU_KCOMPAT_MM_SIZE		((256ULL << 20) - 4096)
#define VGPU_KCOMPAT_MM_ARENAS		8
#define VGPU_KCOMPAT_MM_NODES		512
#define VGPU_KCOMPAT_MM_OPS		6000
#define VGPU_KCOMPAT_XA_OPS		6000
#define VGPU_KCOMPAT_SORT_CASES		2000
#define VGPU_KCOMPAT_SORT_SMS		15
#define VGPU_KCOMPAT_SORT_TBS		8

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

/**
 * struct vgpu_kcompat_sort_buf - the sort scenario's storage, too big for
 *	a kernel stack.
 * @tbs: per SM, its TBs.
 * @sms: the SMs of one input.
 * @plan: one policy's plan of them.
 */
struct vgpu_kcompat_sort_buf {
	struct vgpu_preempt_tb tbs[VGPU_KCOMPAT_SORT_SMS][VGPU_KCOMPAT_SORT_TBS];
	struct vgpu_preempt_sm sms[VGPU_KCOMPAT_SORT_SMS];
	struct vgpu_preempt_sm_plan plan[VGPU_KCOMPAT_SORT_SMS];
};

/**
 * struct vgpu_kcompat_sort_stats - what the sort run did.
 * @selects: selections asked for: inputs times policies.
 * @plans: those that succeeded (all of them).
 * @met: plans whose chosen SMs all meet the budget.
 * @unmet: plans that could not meet it.
 * @tied: neighbours in a sorted plan that only the input index orders
 *	(same budget verdict, overhead and latency).
 * @tech: TBs given each &enum vgpu_preempt_tech.
 */
struct vgpu_kcompat_sort_stats {
	u32 selects;
	u32 plans;
	u32 met;
	u32 unmet;
	u32 tied;
	u32 tech[VGPU_TECH_NR];
};

/*
 * One TB of a kernel whose whole TBs run @avg warp instructions: from a
 * few instruction counts, CPIs and context sizes, so that TBs come out
 * equal, in step or past the average; sometimes unknown, sometimes past
 * its idempotence boundary, of a kernel that is not idempotent when
 * @nonidem is set (one TB in 16 says the opposite).
 */
static inline void vgpu_kcompat_sort_tb(struct vgpu_preempt_tb *tb, u64 avg,
					u32 nonidem, u64 *rs)
{
	static const u64 ctx[] = { 2048, 4096, 4096, 8192, 12000 };
	u64 r = vgpu_kcompat_rand(rs);
	u64 insts;

	switch (r % 8) {
	case 0:
		insts = 0;
		break;
	case 1:
	case 2:
		insts = avg / 2;
		break;
	case 3:
		insts = avg / 4;
		break;
	case 4:
		insts = avg;
		break;
	case 5:
		insts = avg + 100;
		break;
	default:
		insts = (r >> 32) % (avg + 1);
		break;
	}
	tb->insts = insts;
	tb->cycles = insts * (1 + (r >> 8) % 3);
	tb->ctx_bytes = ctx[(r >> 12) % 5];
	tb->known = (r >> 16) % 8 != 0;
	tb->crossed = (r >> 20) % 4 == 0;
	tb->kernel_nonidem = nonidem ^ ((r >> 24) % 16 == 0);
}

/*
 * A preemption input of 1..%VGPU_KCOMPAT_SORT_SMS SMs of 0..8 TBs in
 * @buf, and a request: half the TBs are one of two per-input templates and
 * a third of the SMs copy an earlier SM's TBs, so that SMs tie.
 */
static inline void vgpu_kcompat_sort_input(struct vgpu_kcompat_sort_buf *buf,
					   struct vgpu_preempt_input *in,
					   struct vgpu_preempt_request *req,
					   u64 *rs)
{
	static const u64 bw[] = { 4325, 1024, 16384 };
	static const u64 avg[] = { 200, 1000, 4000 };
	static const u64 cpi[] = { 1024, 1536, 4096 };
	static const u64 ipc[] = { 256, 1024, 2048 };
	static const u32 scale[] = { 0, 0, 1024, 1536 };
	static const u64 budget[] = {
		0, 16, 300, 1000, 2000, 5000, 20000, ~0ULL
	};
	struct vgpu_preempt_kernel *k = &in->kernel;
	struct vgpu_preempt_tb tmpl[2];
	u64 r = vgpu_kcompat_rand(rs);
	u32 nonidem = (r >> 36) % 2;
	u32 i, j;

	in->nr_sms = 1 + r % VGPU_KCOMPAT_SORT_SMS;
	in->sms = buf->sms;
	in->params.sm_bw_fp = bw[(r >> 8) % 3];
	in->params.idem = (r >> 12) % 2 ? VGPU_PREEMPT_IDEM_STRICT :
					  VGPU_PREEMPT_IDEM_RELAXED;
	k->known = (r >> 16) % 6 != 0;
	k->avg_tb_insts = avg[(r >> 20) % 3];
	k->max_tb_insts = (r >> 24) % 2 ? 0 : k->avg_tb_insts * 3 / 2;
	k->tb_cpi_fp = cpi[(r >> 26) % 3];
	k->sm_ipc_fp = ipc[(r >> 30) % 3];
	k->latency_scale_fp = scale[(r >> 34) % 4];
	r = vgpu_kcompat_rand(rs);
	req->nr_sms = 1 + r % in->nr_sms;
	req->budget = budget[(r >> 8) % 8];

	for (j = 0; j < 2; j++)
		vgpu_kcompat_sort_tb(&tmpl[j], k->avg_tb_insts, nonidem, rs);
	for (i = 0; i < in->nr_sms; i++) {
		struct vgpu_preempt_sm *sm = &buf->sms[i];
		struct vgpu_preempt_tb *tbs = buf->tbs[i];

		r = vgpu_kcompat_rand(rs);
		sm->sm = 100 + (r >> 40) % 32;
		sm->tbs = tbs;
		if (i && r % 3 == 0) {
			const struct vgpu_preempt_sm *src = &buf->sms[(r >> 8) % i];

			sm->nr_tbs = src->nr_tbs;
			for (j = 0; j < sm->nr_tbs; j++)
				tbs[j] = src->tbs[j];
			continue;
		}
		sm->nr_tbs = (r >> 16) % (VGPU_KCOMPAT_SORT_TBS + 1);
		for (j = 0; j < sm->nr_tbs; j++) {
			r = vgpu_kcompat_rand(rs);
			if (r % 2)
				tbs[j] = tmpl[(r >> 8) % 2];
			else
				vgpu_kcompat_sort_tb(&tbs[j], k->avg_tb_insts,
						     nonidem, rs);
		}
	}
}

/* Folds one policy's plan of @in: the order of all SMs and their choices. */
static inline u64 vgpu_kcompat_sort_fold(const struct vgpu_preempt_input *in,
					 const struct vgpu_preempt_plan *plan,
					 u64 sum,
					 struct vgpu_kcompat_sort_stats *st)
{
	u32 i, j;

	sum = vgpu_kcompat_fold(sum, plan->nr_sms);
	sum = vgpu_kcompat_fold(sum, plan->latency);
	sum = vgpu_kcompat_fold(sum, plan->overhead);
	sum = vgpu_kcompat_fold(sum, plan->budget_met);
	st->plans++;
	if (plan->budget_met)
		st->met++;
	else
		st->unmet++;
	for (i = 0; i < in->nr_sms; i++) {
		const struct vgpu_preempt_sm_plan *p = &plan->sms[i];
		const struct vgpu_preempt_sm_plan *q = &plan->sms[i ? i - 1 : 0];
		u64 techs = 0;

		for (j = 0; j < p->nr_tbs; j++) {
			techs = techs << 2 | p->tech[j];
			if (p->tech[j] < VGPU_TECH_NR)
				st->tech[p->tech[j]]++;
		}
		sum = vgpu_kcompat_fold(sum, (u64)p->idx << 32 | p->sm);
		sum = vgpu_kcompat_fold(sum, (u64)p->nr_tbs << 1 | p->meets);
		sum = vgpu_kcompat_fold(sum, p->latency);
		sum = vgpu_kcompat_fold(sum, p->overhead);
		sum = vgpu_kcompat_fold(sum, techs);
		if (q != p && p->meets == q->meets &&
		    p->overhead == q->overhead && p->latency == q->latency)
			st->tied++;
	}
	return sum;
}

/**
 * vgpu_kcompat_sort_run() - the sort() scenario.
 * @buf: storage for the inputs and plans; need not be zeroed.
 * @st: zeroed; receives the counts.
 *
 * Every input goes through every policy of vgpu_preempt_policies[] with
 * the same request.
 *
 * Return: the checksum of every plan.
 */
static inline u64 vgpu_kcompat_sort_run(struct vgpu_kcompat_sort_buf *buf,
					struct vgpu_kcompat_sort_stats *st)
{
	const struct vgpu_preempt_ops *const *ops;
	u64 rs = 0x5eed0003, sum = 0;
	u32 c;

	for (c = 0; c < VGPU_KCOMPAT_SORT_CASES; c++) {
		struct vgpu_preempt_input in = {};
		struct vgpu_preempt_request req = {};

		vgpu_kcompat_sort_input(buf, &in, &req, &rs);
		for (ops = vgpu_preempt_policies; *ops; ops++) {
			struct vgpu_preempt_plan plan = {
				.sms = buf->plan,
				.max_sms = VGPU_KCOMPAT_SORT_SMS,
			};
			int ret = (*ops)->select(&in, &req, &plan);

			st->selects++;
			sum = vgpu_kcompat_fold(sum, (u64)ret);
			if (!ret)
				sum = vgpu_kcompat_sort_fold(&in, &plan, sum, st);
		}
	}
	return sum;
}

#endif /* _VGPU_KCOMPAT_CASES_H_ */
