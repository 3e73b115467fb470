// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: Chimera's preemption selection (vgpu_preempt.c,
 * vgpu_preempt_chimera.c, vgpu_preempt_simple.c; Park, dissertation,
 * Ch. IV §4.3.2-§4.3.3).
 *
 * Hand-computed cases on a device with round numbers: each SM gets 4 bytes
 * per cycle of memory bandwidth, the kernel's TBs average 10000 warp
 * instructions at a CPI of 4 per TB and the SM runs 1 warp instruction per
 * cycle; a TB's context is 2048 bytes. Then the cost formulas one by one,
 * saturation, unknown statistics, the single-technique policies, invalid
 * requests, and 80 SMs of 32 TBs checked for order and per-SM invariants.
 */

#include <linux/string.h>

#include <kunit/test.h>

#include "vgpu_preempt.h"

#define FP		VGPU_PREEMPT_FP_ONE
#define CTX		2048		/* bytes of one TB's context */
#define AVG_INSTS	10000		/* warp instructions of a whole TB */

static void input_init(struct vgpu_preempt_input *in,
		       const struct vgpu_preempt_sm *sms, u32 nr_sms)
{
	memset(in, 0, sizeof(*in));
	in->params.sm_bw_fp = 4 * FP;
	in->params.idem = VGPU_PREEMPT_IDEM_RELAXED;
	in->kernel.avg_tb_insts = AVG_INSTS;
	in->kernel.tb_cpi_fp = 4 * FP;
	in->kernel.sm_ipc_fp = FP;
	in->kernel.known = true;
	in->sms = sms;
	in->nr_sms = nr_sms;
}

/* A known TB that has executed @insts warp instructions. */
static struct vgpu_preempt_tb tb_at(u64 insts)
{
	struct vgpu_preempt_tb tb = {
		.insts = insts,
		.cycles = insts * 4,
		.ctx_bytes = CTX,
		.known = true,
	};

	return tb;
}

static struct vgpu_preempt_sm_plan *plan_init(struct kunit *test,
					      struct vgpu_preempt_plan *plan,
					      u32 n)
{
	memset(plan, 0, sizeof(*plan));
	plan->sms = kunit_kcalloc(test, n, sizeof(*plan->sms), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plan->sms);
	plan->max_sms = n;
	return plan->sms;
}

/* Context switch latency: context / the SM's bandwidth share (§4.2.4). */
static void chimera_switch_latency(struct kunit *test)
{
	/* 8192 bytes at 4 bytes per cycle: 2048 cycles. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(8192, 4 * FP),
			2048ull);
	/*
	 * Table 4.1/4.2, KM: 6 TBs of 10 kB at 177.4 GB/s / 30 SMs / 1.4 GHz
	 * = 4.2238 bytes per cycle = 4325 / 1024. 61440 × 1024 / 4325 =
	 * 14546.7 -> 14546 cycles = 10.4 µs at 1.4 GHz, the table's value.
	 */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(61440, 4325),
			14546ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(0, 4 * FP), 0ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(1, 0), U64_MAX);
}

/* An SM's bandwidth share and a kernel's CPI, as the scheduler takes them. */
static void chimera_sm_bw_cpi(struct kunit *test)
{
	/* Table 4.1: 177.4 GB/s over 30 SMs at 1.4 GHz, 4.2238 bytes/cycle. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_sm_bw_fp(177400, 1400000, 30),
			4325ull);
	/* 100 GB/s, 1 GHz, 25 SMs: 4 bytes per cycle. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_sm_bw_fp(100000, 1000000, 25),
			4ull * FP);
	/* A device that does not say: Table 4.1's; never zero. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_sm_bw_fp(0, 1400000, 30), 4325ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_sm_bw_fp(177400, 1400000, 0),
			4325ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_sm_bw_fp(1, 1000000, 80), 1ull);
	/* 3000 cycles over 1000 instructions: CPI 3.0; none: 0. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_cpi_fp(3000, 1000), 3ull * FP);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_cpi_fp(1, 3), 341ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_cpi_fp(3000, 0), 0ull);
}

/* Context switch overhead: 2 × latency × the SM's IPC (§4.3.2). */
static void chimera_switch_overhead(struct kunit *test)
{
	/* 2 × 2048 cycles × 1.0 = 4096 instructions. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_overhead(2048, FP), 4096ull);
	/* 2 × 2048 × 0.5 = 2048; 2 × 512 × 2.25 = 2304. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_overhead(2048, FP / 2),
			2048ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_overhead(512, 9 * FP / 4),
			2304ull);
}

/* Drain latency: remaining instructions × CPI (§4.3.2). */
static void chimera_drain_latency(struct kunit *test)
{
	/* 9000 × 4.0 = 36000 cycles; 500 × 1.5 = 750. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain_latency(9000, 4 * FP),
			36000ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain_latency(500, 3 * FP / 2),
			750ull);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain_latency(0, 4 * FP), 0ull);
}

/*
 * Flush: relaxed (and buffers, whose TBs cross by the daemon's rule) allows
 * it until the TB's boundary, strict only in a kernel idempotent as a whole
 * (§4.4.3).
 */
static void chimera_flush_allowed(struct kunit *test)
{
	const enum vgpu_preempt_idem relaxed = VGPU_PREEMPT_IDEM_RELAXED;
	const enum vgpu_preempt_idem strict = VGPU_PREEMPT_IDEM_STRICT;
	const enum vgpu_preempt_idem buffers = VGPU_PREEMPT_IDEM_BUFFERS;
	struct vgpu_preempt_tb tb = tb_at(100);

	KUNIT_EXPECT_TRUE(test, vgpu_preempt_flush_allowed(&tb, relaxed));
	KUNIT_EXPECT_TRUE(test, vgpu_preempt_flush_allowed(&tb, strict));
	KUNIT_EXPECT_TRUE(test, vgpu_preempt_flush_allowed(&tb, buffers));
	/* A kernel with atomics, but this TB has not reached one yet. */
	tb.kernel_nonidem = true;
	KUNIT_EXPECT_TRUE(test, vgpu_preempt_flush_allowed(&tb, relaxed));
	KUNIT_EXPECT_FALSE(test, vgpu_preempt_flush_allowed(&tb, strict));
	KUNIT_EXPECT_TRUE(test, vgpu_preempt_flush_allowed(&tb, buffers));
	tb.crossed = true;
	KUNIT_EXPECT_FALSE(test, vgpu_preempt_flush_allowed(&tb, relaxed));
	KUNIT_EXPECT_FALSE(test, vgpu_preempt_flush_allowed(&tb, strict));
	KUNIT_EXPECT_FALSE(test, vgpu_preempt_flush_allowed(&tb, buffers));
}

/*
 * One SM with three TBs at 500 (early), 5000 (middle) and 9500 (late)
 * instructions; the most executed is 9500.
 *
 * switch: latency = the SM's 3 × 2048 bytes / 4 = 1536 cycles (every TB);
 *	   overhead = 2 × (2048 / 4 = 512) × 1.0 = 1024 each.
 * drain:  latency = (10000 - executed) × 4: 38000, 20000, 2000;
 *	   overhead = 9500 - executed: 9000, 4500, 0.
 * flush:  latency = 16; overhead = executed: 500, 5000, 9500.
 */
static const u64 progress[3] = { 500, 5000, 9500 };

static void three_tbs(struct vgpu_preempt_tb *tbs, struct vgpu_preempt_sm *sm)
{
	u32 i;

	for (i = 0; i < 3; i++)
		tbs[i] = tb_at(progress[i]);
	sm->sm = 7;
	sm->nr_tbs = 3;
	sm->tbs = tbs;
}

static void chimera_estimate(struct kunit *test)
{
	static const u64 drain_lat[3] = { 38000, 20000, 2000 };
	static const u64 drain_ovh[3] = { 9000, 4500, 0 };
	struct vgpu_preempt_cost c[VGPU_TECH_NR];
	struct vgpu_preempt_input in;
	struct vgpu_preempt_tb tbs[3];
	struct vgpu_preempt_sm sm;
	u32 i;

	three_tbs(tbs, &sm);
	input_init(&in, &sm, 1);
	for (i = 0; i < 3; i++) {
		vgpu_preempt_estimate(&in, &sm, i, c);
		KUNIT_EXPECT_TRUE(test, c[VGPU_TECH_SWITCH].allowed);
		KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].latency, 1536ull);
		KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].overhead, 1024ull);
		KUNIT_EXPECT_TRUE(test, c[VGPU_TECH_DRAIN].allowed);
		KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency,
				drain_lat[i]);
		KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].overhead,
				drain_ovh[i]);
		KUNIT_EXPECT_TRUE(test, c[VGPU_TECH_FLUSH].allowed);
		KUNIT_EXPECT_EQ(test, c[VGPU_TECH_FLUSH].latency,
				(u64)VGPU_PREEMPT_FLUSH_LATENCY);
		KUNIT_EXPECT_EQ(test, c[VGPU_TECH_FLUSH].overhead,
				progress[i]);
	}

	/* A TB past the kernel's average is taken to be finishing. */
	tbs[2].insts = 12000;
	vgpu_preempt_estimate(&in, &sm, 2, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 0ull);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].overhead, 0ull);
	vgpu_preempt_estimate(&in, &sm, 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].overhead, 11500ull);

	/*
	 * Unless a finished TB ran longer: up to the longest, 15000 here,
	 * 3000 instructions left at CPI 4. Below the average the longest
	 * counts too: (15000 - 500) x 4.
	 */
	in.kernel.max_tb_insts = 15000;
	vgpu_preempt_estimate(&in, &sm, 2, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 12000ull);
	vgpu_preempt_estimate(&in, &sm, 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 58000ull);
	/* A maximum below the average (not possible, but) is the average. */
	in.kernel.max_tb_insts = 1;
	vgpu_preempt_estimate(&in, &sm, 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 38000ull);

	/* A TB slower than the kernel's average CPI (8, not 4) keeps it. */
	tbs[0].cycles = tbs[0].insts * 8;
	vgpu_preempt_estimate(&in, &sm, 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 76000ull);
	/* A faster one does not lower the estimate. */
	tbs[0].cycles = tbs[0].insts * 2;
	vgpu_preempt_estimate(&in, &sm, 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 38000ull);

	/*
	 * A kernel whose preemptions took 1.5 times their estimates: drain
	 * and switch latencies scale, a flush's does not, overheads neither.
	 */
	in.kernel.latency_scale_fp = FP * 3 / 2;
	vgpu_preempt_estimate(&in, &sm, 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, 57000ull);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].overhead, 11500ull);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].latency, 2304ull);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].overhead, 1024ull);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_FLUSH].latency,
			(u64)VGPU_PREEMPT_FLUSH_LATENCY);
}

/*
 * Budget 4000 cycles (the three TBs of three_tbs()):
 *	early (500):   drain 38000 > 4000 out; flush 500 < switch 1024: flush.
 *	middle (5000): drain 20000 out; switch 1024 < flush 5000: switch.
 *	late (9500):   drain 2000 meets with overhead 0: drain.
 * SM latency = max(save of the one switched context 2048 / 4 = 512,
 * drain 2000, flush 16) = 2000; overhead = 500 + 1024 + 0 = 1524.
 */
static void chimera_by_progress(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 1, .budget = 4000 };
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 1);
	struct vgpu_preempt_input in;
	struct vgpu_preempt_tb tbs[3];
	struct vgpu_preempt_sm sm;

	three_tbs(tbs, &sm);
	input_init(&in, &sm, 1);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.nr_sms, 1u);
	KUNIT_EXPECT_EQ(test, p->sm, 7u);
	KUNIT_EXPECT_EQ(test, p->nr_tbs, 3u);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->tech[1], (u8)VGPU_TECH_SWITCH);
	KUNIT_EXPECT_EQ(test, p->tech[2], (u8)VGPU_TECH_DRAIN);
	KUNIT_EXPECT_EQ(test, p->latency, 2000ull);
	KUNIT_EXPECT_EQ(test, p->overhead, 1524ull);
	KUNIT_EXPECT_TRUE(test, p->meets);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);
	KUNIT_EXPECT_EQ(test, plan.latency, 2000ull);
	KUNIT_EXPECT_EQ(test, plan.overhead, 1524ull);

	/*
	 * Budget 40000: drain meets for every TB. early: drain 9000 vs
	 * switch 1024 vs flush 500: flush; middle: drain 4500, switch 1024,
	 * flush 5000: switch; late: drain 0. Same choice, same costs.
	 */
	req.budget = 40000;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->tech[1], (u8)VGPU_TECH_SWITCH);
	KUNIT_EXPECT_EQ(test, p->tech[2], (u8)VGPU_TECH_DRAIN);

	/*
	 * Budget 1000: the switch of the SM (1536) and the drain of the late
	 * TB (2000) are out; flush is all that meets: 16 cycles, overhead
	 * 500 + 5000 + 9500 = 15000.
	 */
	req.budget = 1000;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->tech[1], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->tech[2], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->latency, (u64)VGPU_PREEMPT_FLUSH_LATENCY);
	KUNIT_EXPECT_EQ(test, p->overhead, 15000ull);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);
}

/*
 * A TB that is not idempotent is never flushed. With budget 4000 the
 * early TB, once it may not be flushed, has only switch (1024) left.
 * With budget 1000 flush is the only technique that meets it; with no TB
 * idempotent, all fall back to context switch and the budget is missed.
 */
static void chimera_not_idempotent(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 1, .budget = 4000 };
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 1);
	struct vgpu_preempt_input in;
	struct vgpu_preempt_tb tbs[3];
	struct vgpu_preempt_sm sm;
	u32 i;

	three_tbs(tbs, &sm);
	input_init(&in, &sm, 1);

	/* Relaxed: crossed the boundary. */
	tbs[0].kernel_nonidem = true;
	tbs[0].crossed = true;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_SWITCH);
	/* max(two saves sharing the bandwidth 4096 / 4, drain 2000) */
	KUNIT_EXPECT_EQ(test, p->latency, 2000ull);
	KUNIT_EXPECT_EQ(test, p->overhead, 1024ull + 1024 + 0);

	/* Relaxed: not idempotent, but not past the boundary: flush. */
	tbs[0].crossed = false;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_FLUSH);

	/* Strict: the kernel is not idempotent, so no flush. */
	in.params.idem = VGPU_PREEMPT_IDEM_STRICT;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_SWITCH);

	/*
	 * Budget 1000, strict, no TB idempotent: only flush would meet it
	 * and none may flush, so all three switch: 3 × 2048 / 4 = 1536 >
	 * 1000, budget missed; overhead 3 × 1024.
	 */
	for (i = 0; i < 3; i++)
		tbs[i].kernel_nonidem = true;
	req.budget = 1000;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, p->tech[i], (u8)VGPU_TECH_SWITCH);
	KUNIT_EXPECT_EQ(test, p->latency, 1536ull);
	KUNIT_EXPECT_EQ(test, p->overhead, 3072ull);
	KUNIT_EXPECT_FALSE(test, p->meets);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);
}

/*
 * Four SMs, budget 4000, each with TBs that make its cost easy to see;
 * the two cheapest are taken, and the whole list comes back sorted.
 *	SM 10: early (500) + late (9500): flush 500 + drain 0 = 500.
 *	SM 11: middle (5000) + late (9500): switch 1024 + drain 0 = 1024,
 *	       latency max(save 2048 / 4 = 512, drain 2000) = 2000.
 *	SM 12: two late TBs (9500, 9000): drain 0 + drain 500 = 500, latency
 *	       4000 (the 9000 one: 1000 × 4); ties SM 10 on overhead, has
 *	       the larger latency (SM 10: max(16, 2000) = 2000), so comes
 *	       after it.
 *	SM 13: no TB of the kernel: nothing to preempt, cost 0.
 */
static void chimera_sorted(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 2, .budget = 4000 };
	struct vgpu_preempt_tb t10[2] = { tb_at(500), tb_at(9500) };
	struct vgpu_preempt_tb t11[2] = { tb_at(5000), tb_at(9500) };
	struct vgpu_preempt_tb t12[2] = { tb_at(9500), tb_at(9000) };
	struct vgpu_preempt_sm sms[4] = {
		{ .sm = 11, .nr_tbs = 2, .tbs = t11 },
		{ .sm = 12, .nr_tbs = 2, .tbs = t12 },
		{ .sm = 10, .nr_tbs = 2, .tbs = t10 },
		{ .sm = 13, .nr_tbs = 0, .tbs = NULL },
	};
	static const u32 order[4] = { 13, 10, 12, 11 };
	static const u64 ovh[4] = { 0, 500, 500, 1024 };
	static const u64 lat[4] = { 0, 2000, 4000, 2000 };
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 4);
	struct vgpu_preempt_input in;
	u32 i;

	input_init(&in, sms, 4);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, p[i].sm, order[i]);
		KUNIT_EXPECT_EQ(test, p[i].overhead, ovh[i]);
		KUNIT_EXPECT_EQ(test, p[i].latency, lat[i]);
		KUNIT_EXPECT_TRUE(test, p[i].meets);
		KUNIT_EXPECT_EQ(test, in.sms[p[i].idx].sm, p[i].sm);
	}
	KUNIT_EXPECT_EQ(test, plan.nr_sms, 2u);
	KUNIT_EXPECT_EQ(test, plan.overhead, 500ull);
	KUNIT_EXPECT_EQ(test, plan.latency, 2000ull);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);
}

/*
 * No technique meets a budget of 10 cycles (flush takes 16): every TB is
 * context switched and the plan says the budget is missed.
 */
static void chimera_budget_missed(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 2, .budget = 10 };
	struct vgpu_preempt_tb t0[3], t1[3];
	struct vgpu_preempt_sm sms[2];
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 2);
	struct vgpu_preempt_input in;
	u32 i, j;

	three_tbs(t0, &sms[0]);
	three_tbs(t1, &sms[1]);
	sms[1].sm = 8;
	input_init(&in, sms, 2);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 3; j++)
			KUNIT_EXPECT_EQ(test, p[i].tech[j],
					(u8)VGPU_TECH_SWITCH);
		KUNIT_EXPECT_FALSE(test, p[i].meets);
		KUNIT_EXPECT_EQ(test, p[i].latency, 1536ull);
		KUNIT_EXPECT_EQ(test, p[i].overhead, 3072ull);
	}
	/* Equal costs: input order. */
	KUNIT_EXPECT_EQ(test, p[0].sm, 7u);
	KUNIT_EXPECT_EQ(test, p[1].sm, 8u);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);
	KUNIT_EXPECT_EQ(test, plan.latency, 1536ull);
	KUNIT_EXPECT_EQ(test, plan.overhead, 6144ull);
}

/*
 * Fewer SMs meet the budget than requested: those that do come first,
 * then the cheapest of the rest. Budget 1000:
 *	SM 0: three middle TBs (5000): flush 3 × 5000 = 15000, meets.
 *	SM 1: one middle TB, not idempotent: switch 512 cycles, meets,
 *	      overhead 1024.
 *	SM 2: two middle TBs, not idempotent: switch 2 × 2048 / 4 = 1024
 *	      cycles > 1000, overhead 2048: misses.
 *	SM 3: four middle TBs, not idempotent: 2048 cycles, 4096: misses.
 * Three requested: SM 1, SM 0 (meet, cheapest first), then SM 2.
 */
static void chimera_fill(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 3, .budget = 1000 };
	struct vgpu_preempt_tb ok[3], bad[4];
	struct vgpu_preempt_sm sms[4] = {
		{ .sm = 0, .nr_tbs = 3, .tbs = ok },
		{ .sm = 1, .nr_tbs = 1, .tbs = bad },
		{ .sm = 2, .nr_tbs = 2, .tbs = bad },
		{ .sm = 3, .nr_tbs = 4, .tbs = bad },
	};
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 4);
	struct vgpu_preempt_input in;
	u32 i;

	for (i = 0; i < 3; i++)
		ok[i] = tb_at(5000);
	for (i = 0; i < 4; i++) {
		bad[i] = tb_at(5000);
		bad[i].kernel_nonidem = true;
		bad[i].crossed = true;
	}
	input_init(&in, sms, 4);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p[0].sm, 1u);
	KUNIT_EXPECT_EQ(test, p[0].overhead, 1024ull);
	KUNIT_EXPECT_TRUE(test, p[0].meets);
	KUNIT_EXPECT_EQ(test, p[1].sm, 0u);
	KUNIT_EXPECT_EQ(test, p[1].overhead, 15000ull);
	KUNIT_EXPECT_TRUE(test, p[1].meets);
	KUNIT_EXPECT_EQ(test, p[2].sm, 2u);
	KUNIT_EXPECT_EQ(test, p[2].latency, 1024ull);
	KUNIT_EXPECT_FALSE(test, p[2].meets);
	KUNIT_EXPECT_EQ(test, p[3].sm, 3u);
	KUNIT_EXPECT_FALSE(test, p[3].meets);
	KUNIT_EXPECT_EQ(test, plan.nr_sms, 3u);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);
	KUNIT_EXPECT_EQ(test, plan.latency, 1024ull);
	KUNIT_EXPECT_EQ(test, plan.overhead, 1024ull + 15000 + 2048);

	/* Two requested: both meet. */
	req.nr_sms = 2;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);
	KUNIT_EXPECT_EQ(test, plan.overhead, 16024ull);
}

/* Unknown statistics cost the maximum (§4.3.2). */
static void chimera_unknown(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 1, .budget = U64_MAX };
	struct vgpu_preempt_cost c[VGPU_TECH_NR];
	struct vgpu_preempt_tb t0[1] = { tb_at(500) };
	struct vgpu_preempt_tb t1[1] = { tb_at(500) };
	struct vgpu_preempt_sm sms[2] = {
		{ .sm = 0, .nr_tbs = 1, .tbs = t0 },
		{ .sm = 1, .nr_tbs = 1, .tbs = t1 },
	};
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 2);
	struct vgpu_preempt_input in;

	input_init(&in, sms, 2);

	/*
	 * A TB without statistics: drain and flush are unknown, so cost
	 * U64_MAX in both; the switch needs none of its statistics.
	 */
	t0[0].known = false;
	vgpu_preempt_estimate(&in, &sms[0], 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, U64_MAX);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].overhead, U64_MAX);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_FLUSH].latency, U64_MAX);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_FLUSH].overhead, U64_MAX);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].latency, 512ull);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].overhead, 1024ull);

	/*
	 * Even with an unlimited budget, which every estimate meets, the
	 * unknown TB gets the known switch (1024). The known TB, alone on
	 * its SM, is its SM's most advanced: drain costs 500 - 500 = 0. The
	 * known SM is the cheaper one.
	 */
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p[0].sm, 1u);
	KUNIT_EXPECT_EQ(test, p[0].tech[0], (u8)VGPU_TECH_DRAIN);
	KUNIT_EXPECT_EQ(test, p[0].overhead, 0ull);
	KUNIT_EXPECT_EQ(test, p[1].sm, 0u);
	KUNIT_EXPECT_EQ(test, p[1].tech[0], (u8)VGPU_TECH_SWITCH);
	KUNIT_EXPECT_EQ(test, p[1].overhead, 1024ull);

	/*
	 * The kernel's statistics unknown: switch overhead and drain are
	 * unknown. Budget 4000: the known TB flushes (500, 16 cycles); the
	 * unknown one falls back to switch with an unknown overhead, so its
	 * SM sorts last.
	 */
	in.kernel.known = false;
	req.budget = 4000;
	vgpu_preempt_estimate(&in, &sms[1], 0, c);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_SWITCH].overhead, U64_MAX);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_DRAIN].latency, U64_MAX);
	KUNIT_EXPECT_EQ(test, c[VGPU_TECH_FLUSH].overhead, 500ull);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p[0].sm, 1u);
	KUNIT_EXPECT_EQ(test, p[0].tech[0], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p[0].overhead, 500ull);
	KUNIT_EXPECT_EQ(test, p[1].sm, 0u);
	KUNIT_EXPECT_EQ(test, p[1].tech[0], (u8)VGPU_TECH_SWITCH);
	KUNIT_EXPECT_EQ(test, p[1].overhead, U64_MAX);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);
}

/* Huge values saturate at U64_MAX and never wrap or trap. */
static void chimera_saturation(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 2, .budget = 100 };
	struct vgpu_preempt_tb *tbs;
	struct vgpu_preempt_sm sms[2];
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 2);
	struct vgpu_preempt_input in;
	u32 i;

	tbs = kunit_kcalloc(test, VGPU_PREEMPT_MAX_TBS, sizeof(*tbs),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tbs);
	for (i = 0; i < 2; i++) {
		sms[i].sm = i;
		sms[i].nr_tbs = VGPU_PREEMPT_MAX_TBS;
		sms[i].tbs = tbs;
	}

	/* Exact below the limit: U64_MAX × 1024 / 1024 = U64_MAX. */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(U64_MAX, FP),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(U64_MAX, 2 * FP),
			U64_MAX / 2);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(U64_MAX, 1),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_latency(1ull << 60, 1),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_overhead(U64_MAX / 2 + 1,
							   FP), U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch_overhead(1ull << 62,
							   U64_MAX), U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain_latency(U64_MAX, U64_MAX),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain_latency(U64_MAX, FP),
			U64_MAX);

	/*
	 * Full SMs of TBs whose every cost saturates, except TB 0's drain:
	 * it executed the kernel's average (remaining 0) and is the most
	 * advanced (overhead 0). The others cannot be flushed (crossed) and
	 * meet 100 cycles with nothing: switch, U64_MAX each.
	 */
	for (i = 0; i < VGPU_PREEMPT_MAX_TBS; i++) {
		tbs[i] = tb_at(U64_MAX - i);
		tbs[i].ctx_bytes = U64_MAX;
		tbs[i].crossed = true;
	}
	input_init(&in, sms, 2);
	in.params.sm_bw_fp = 1;
	in.kernel.avg_tb_insts = U64_MAX;
	in.kernel.tb_cpi_fp = U64_MAX;
	in.kernel.sm_ipc_fp = U64_MAX;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, p[i].latency, U64_MAX);
		KUNIT_EXPECT_EQ(test, p[i].overhead, U64_MAX);
		KUNIT_EXPECT_FALSE(test, p[i].meets);
	}
	KUNIT_EXPECT_EQ(test, plan.overhead, U64_MAX);
	KUNIT_EXPECT_EQ(test, plan.latency, U64_MAX);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);

	/*
	 * An unlimited budget is met even by saturated estimates; every TB
	 * drains then, TB i at an overhead of i.
	 */
	req.budget = U64_MAX;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);
	for (i = 0; i < VGPU_PREEMPT_MAX_TBS; i++)
		KUNIT_EXPECT_EQ(test, p[0].tech[i], (u8)VGPU_TECH_DRAIN);
	KUNIT_EXPECT_EQ(test, p[0].overhead, 63ull * 64 / 2);
}

/* The single-technique policies: one technique for every TB. */
static void chimera_single_technique(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 1, .budget = 4000 };
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, 1);
	struct vgpu_preempt_input in;
	struct vgpu_preempt_tb tbs[3];
	struct vgpu_preempt_sm sm;
	u32 i;

	three_tbs(tbs, &sm);
	input_init(&in, &sm, 1);

	/* switch: 3 × 2048 / 4 = 1536 cycles, 3 × 1024 instructions. */
	KUNIT_ASSERT_EQ(test, vgpu_preempt_switch.select(&in, &req, &plan), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, p->tech[i], (u8)VGPU_TECH_SWITCH);
	KUNIT_EXPECT_EQ(test, p->latency, 1536ull);
	KUNIT_EXPECT_EQ(test, p->overhead, 3072ull);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);

	/* drain: the early TB's 38000 cycles; 9000 + 4500 + 0. */
	KUNIT_ASSERT_EQ(test, vgpu_preempt_drain.select(&in, &req, &plan), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, p->tech[i], (u8)VGPU_TECH_DRAIN);
	KUNIT_EXPECT_EQ(test, p->latency, 38000ull);
	KUNIT_EXPECT_EQ(test, p->overhead, 13500ull);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);

	/* flush: 16 cycles; 500 + 5000 + 9500. */
	KUNIT_ASSERT_EQ(test, vgpu_preempt_flush.select(&in, &req, &plan), 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, p->tech[i], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->latency, (u64)VGPU_PREEMPT_FLUSH_LATENCY);
	KUNIT_EXPECT_EQ(test, p->overhead, 15000ull);
	KUNIT_EXPECT_TRUE(test, plan.budget_met);

	/*
	 * flush with the middle TB past its boundary: it is drained
	 * (20000 cycles, 4500), the others flushed: budget missed.
	 */
	tbs[1].crossed = true;
	KUNIT_ASSERT_EQ(test, vgpu_preempt_flush.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, p->tech[0], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->tech[1], (u8)VGPU_TECH_DRAIN);
	KUNIT_EXPECT_EQ(test, p->tech[2], (u8)VGPU_TECH_FLUSH);
	KUNIT_EXPECT_EQ(test, p->latency, 20000ull);
	KUNIT_EXPECT_EQ(test, p->overhead, 500ull + 4500 + 9500);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);

	/* Names. */
	KUNIT_EXPECT_PTR_EQ(test, vgpu_preempt_find("chimera"),
			    &vgpu_preempt_chimera);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_preempt_find("switch\n"),
			    &vgpu_preempt_switch);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_preempt_find("drain"),
			    &vgpu_preempt_drain);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_preempt_find("flush"),
			    &vgpu_preempt_flush);
	KUNIT_EXPECT_NULL(test, vgpu_preempt_find("flushing"));
	KUNIT_EXPECT_NULL(test, vgpu_preempt_find(""));
	KUNIT_EXPECT_EQ(test, vgpu_preempt_idem_parse("relaxed\n"),
			(int)VGPU_PREEMPT_IDEM_RELAXED);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_idem_parse("strict"),
			(int)VGPU_PREEMPT_IDEM_STRICT);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_idem_parse("buffers\n"),
			(int)VGPU_PREEMPT_IDEM_BUFFERS);
	KUNIT_EXPECT_EQ(test, vgpu_preempt_idem_parse("loose"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, vgpu_preempt_idem_name(VGPU_PREEMPT_IDEM_STRICT),
			   "strict");
	KUNIT_EXPECT_STREQ(test, vgpu_preempt_idem_name(VGPU_PREEMPT_IDEM_BUFFERS),
			   "buffers");
	KUNIT_EXPECT_STREQ(test, vgpu_preempt_idem_name(VGPU_PREEMPT_IDEM_BUFFERS + 1),
			   "?");
	KUNIT_EXPECT_STREQ(test, vgpu_preempt_tech_name(VGPU_TECH_DRAIN),
			   "drain");
	KUNIT_EXPECT_STREQ(test, vgpu_preempt_tech_name(VGPU_TECH_NR),
			   "?");
}

/* Requests that make no sense are refused and the outputs cleared. */
static void chimera_invalid(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 1, .budget = 4000 };
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_input in;
	struct vgpu_preempt_tb tbs[3];
	struct vgpu_preempt_sm sm;

	plan_init(test, &plan, 1);
	three_tbs(tbs, &sm);
	input_init(&in, &sm, 1);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
	KUNIT_EXPECT_EQ(test, plan.nr_sms, 1u);

	req.nr_sms = 0;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, plan.nr_sms, 0u);
	KUNIT_EXPECT_EQ(test, plan.overhead, 0ull);
	KUNIT_EXPECT_FALSE(test, plan.budget_met);
	req.nr_sms = 2;		/* more than given */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan),
			-EINVAL);
	req.nr_sms = 1;

	in.nr_sms = 0;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_switch.select(&in, &req, &plan),
			-EINVAL);
	in.nr_sms = 1;
	plan.max_sms = 0;	/* no room for the candidates */
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan),
			-EINVAL);
	plan.max_sms = 1;
	in.params.sm_bw_fp = 0;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan),
			-EINVAL);
	in.params.sm_bw_fp = 4 * FP;
	in.params.idem = VGPU_PREEMPT_IDEM_BUFFERS + 1;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan),
			-EINVAL);
	in.params.idem = VGPU_PREEMPT_IDEM_STRICT;
	in.kernel.tb_cpi_fp = 0;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain.select(&in, &req, &plan),
			-EINVAL);
	/* Unknown statistics may be anything. */
	in.kernel.known = false;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_drain.select(&in, &req, &plan), 0);
	in.kernel.known = true;
	in.kernel.tb_cpi_fp = 4 * FP;
	sm.nr_tbs = VGPU_PREEMPT_MAX_TBS + 1;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_flush.select(&in, &req, &plan),
			-EINVAL);
	sm.nr_tbs = 3;
	sm.tbs = NULL;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan),
			-EINVAL);
	sm.tbs = tbs;
	KUNIT_EXPECT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);
}

/*
 * 80 SMs of 32 TBs with pseudo-random progress, contexts and idempotence:
 * every SM comes back once, the list is sorted (those that meet first,
 * then by overhead), and on every SM each TB has the cheapest technique
 * that meets the budget (or switch when none does), the SM's overhead is
 * the sum over its TBs, and its latency is at least each drained or
 * flushed TB's.
 */
#define SCALE_SMS	80
#define SCALE_TBS	32

static u32 lcg(u32 *s)
{
	*s = *s * 1664525 + 1013904223;
	return *s >> 8;
}

static void check_sm(struct kunit *test, const struct vgpu_preempt_input *in,
		     const struct vgpu_preempt_sm_plan *p, u64 budget)
{
	const struct vgpu_preempt_sm *sm = &in->sms[p->idx];
	struct vgpu_preempt_cost c[VGPU_TECH_NR];
	u64 sum = 0;
	u32 i;
	int t;

	KUNIT_EXPECT_EQ(test, p->sm, sm->sm);
	KUNIT_EXPECT_EQ(test, p->nr_tbs, sm->nr_tbs);
	KUNIT_EXPECT_EQ(test, p->meets, p->latency <= budget);
	for (i = 0; i < sm->nr_tbs; i++) {
		u8 chosen = p->tech[i];
		bool any = false;

		KUNIT_ASSERT_LT(test, chosen, (u8)VGPU_TECH_NR);
		vgpu_preempt_estimate(in, sm, i, c);
		for (t = 0; t < VGPU_TECH_NR; t++) {
			if (!c[t].allowed || c[t].latency > budget)
				continue;
			any = true;
			KUNIT_EXPECT_LE(test, c[chosen].overhead,
					c[t].overhead);
		}
		if (any) {
			KUNIT_EXPECT_TRUE(test, c[chosen].allowed);
			KUNIT_EXPECT_LE(test, c[chosen].latency, budget);
		} else {
			KUNIT_EXPECT_EQ(test, chosen, (u8)VGPU_TECH_SWITCH);
		}
		if (chosen != VGPU_TECH_SWITCH)
			KUNIT_EXPECT_GE(test, p->latency, c[chosen].latency);
		sum += c[chosen].overhead;
	}
	KUNIT_EXPECT_EQ(test, p->overhead, sum);
}

static void chimera_scale(struct kunit *test)
{
	struct vgpu_preempt_request req = { .nr_sms = 40, .budget = 6000 };
	struct vgpu_preempt_sm *sms;
	struct vgpu_preempt_tb *tbs;
	struct vgpu_preempt_plan plan;
	struct vgpu_preempt_sm_plan *p = plan_init(test, &plan, SCALE_SMS);
	struct vgpu_preempt_input in;
	bool seen[SCALE_SMS] = { };
	u64 sum = 0;
	u32 s = 1, i, j;

	sms = kunit_kcalloc(test, SCALE_SMS, sizeof(*sms), GFP_KERNEL);
	tbs = kunit_kcalloc(test, SCALE_SMS * SCALE_TBS, sizeof(*tbs),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sms);
	KUNIT_ASSERT_NOT_NULL(test, tbs);
	for (i = 0; i < SCALE_SMS; i++) {
		sms[i].sm = i;
		sms[i].nr_tbs = SCALE_TBS;
		sms[i].tbs = &tbs[i * SCALE_TBS];
		for (j = 0; j < SCALE_TBS; j++) {
			struct vgpu_preempt_tb *tb = &tbs[i * SCALE_TBS + j];

			*tb = tb_at(lcg(&s) % (AVG_INSTS + 1000));
			tb->ctx_bytes = 256 + lcg(&s) % 1024;
			tb->known = lcg(&s) % 16 != 0;
			tb->crossed = lcg(&s) % 4 == 0;
			tb->kernel_nonidem = tb->crossed || lcg(&s) % 2;
		}
	}
	input_init(&in, sms, SCALE_SMS);
	KUNIT_ASSERT_EQ(test, vgpu_preempt_chimera.select(&in, &req, &plan), 0);

	for (i = 0; i < SCALE_SMS; i++) {
		KUNIT_ASSERT_LT(test, p[i].idx, (u32)SCALE_SMS);
		KUNIT_EXPECT_FALSE(test, seen[p[i].idx]);
		seen[p[i].idx] = true;
		check_sm(test, &in, &p[i], req.budget);
		if (i && p[i].meets == p[i - 1].meets)
			KUNIT_EXPECT_LE(test, p[i - 1].overhead, p[i].overhead);
		if (i)
			KUNIT_EXPECT_TRUE(test, p[i - 1].meets || !p[i].meets);
		if (i < req.nr_sms)
			sum += p[i].overhead;
	}
	KUNIT_EXPECT_EQ(test, plan.overhead, sum);
	KUNIT_EXPECT_EQ(test, plan.budget_met, p[req.nr_sms - 1].meets);
}

static struct kunit_case vgpu_chimera_cases[] = {
	KUNIT_CASE(chimera_switch_latency),
	KUNIT_CASE(chimera_sm_bw_cpi),
	KUNIT_CASE(chimera_switch_overhead),
	KUNIT_CASE(chimera_drain_latency),
	KUNIT_CASE(chimera_flush_allowed),
	KUNIT_CASE(chimera_estimate),
	KUNIT_CASE(chimera_by_progress),
	KUNIT_CASE(chimera_not_idempotent),
	KUNIT_CASE(chimera_sorted),
	KUNIT_CASE(chimera_budget_missed),
	KUNIT_CASE(chimera_fill),
	KUNIT_CASE(chimera_unknown),
	KUNIT_CASE(chimera_saturation),
	KUNIT_CASE(chimera_single_technique),
	KUNIT_CASE(chimera_invalid),
	KUNIT_CASE(chimera_scale),
	{}
};

static struct kunit_suite vgpu_chimera_suite = {
	.name = "vgpu_chimera",
	.test_cases = vgpu_chimera_cases,
};

kunit_test_suite(vgpu_chimera_suite);
