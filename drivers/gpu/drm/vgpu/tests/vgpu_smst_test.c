// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: SM Status Table accounting (vgpu_smst.c).
 *
 * Fills an SM to each of its limits (TB slots, threads, registers, shared
 * memory) and checks that can_fit refuses; frees in several orders and
 * checks the SM returns to full capacity; checks first-fit placement of the
 * register and shared-memory ranges and that a double free is caught.
 */

#include <kunit/test.h>

#include "vgpu_smst.h"
#include "vgpu_test.h"

struct smst_ctx {
	struct vgpu_device_desc desc;
	struct vgpu_smst st;
	/* Stand-ins for KCB entries: the SMST only compares the pointers. */
	struct vgpu_kcb_entry *job_a;
	struct vgpu_kcb_entry *job_b;
	char dummy[2];
};

static int smst_init(struct kunit *test)
{
	struct smst_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	vgpu_test_desc(&c->desc);
	KUNIT_ASSERT_EQ(test, vgpu_smst_init(&c->st, &c->desc), 0);
	c->job_a = (struct vgpu_kcb_entry *)&c->dummy[0];
	c->job_b = (struct vgpu_kcb_entry *)&c->dummy[1];
	test->priv = c;
	return 0;
}

static void smst_exit(struct kunit *test)
{
	struct smst_ctx *c = test->priv;

	vgpu_smst_fini(&c->st);
}

static struct vgpu_tb_res res_of(struct kunit *test, u32 threads, u32 regs,
				 u32 shared)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r;

	KUNIT_ASSERT_EQ(test, vgpu_tb_res_compute(&c->desc, threads, regs,
						  shared, &r), 0);
	return r;
}

static void smst_tb_res(struct kunit *test)
{
	struct vgpu_tb_res r = res_of(test, 33, 21, 100);

	KUNIT_EXPECT_EQ(test, r.warps, 2);
	KUNIT_EXPECT_EQ(test, r.threads, 64);
	/* 2 warps x 32 threads x round_up(21, 2) registers */
	KUNIT_EXPECT_EQ(test, r.regs, 2 * 32 * 22);
	KUNIT_EXPECT_EQ(test, r.shared, 128);

	r = res_of(test, 1024, 0, 0);
	KUNIT_EXPECT_EQ(test, r.warps, 32);
	KUNIT_EXPECT_EQ(test, r.regs, 0);
	KUNIT_EXPECT_EQ(test, r.shared, 0);
}

static void smst_tb_res_odd_unit(struct kunit *test)
{
	struct vgpu_device_desc d;
	struct vgpu_tb_res r;

	/* The register unit need not be a power of two: 7 -> 9 with 3. */
	vgpu_test_desc(&d);
	d.reg_alloc_unit = 3;
	KUNIT_ASSERT_EQ(test, vgpu_tb_res_compute(&d, 32, 7, 0, &r), 0);
	KUNIT_EXPECT_EQ(test, r.regs, 32 * 9);
	KUNIT_ASSERT_EQ(test, vgpu_tb_res_compute(&d, 64, 9, 0, &r), 0);
	KUNIT_EXPECT_EQ(test, r.regs, 64 * 9);
	/* Totals beyond 32 bits are refused. */
	KUNIT_EXPECT_EQ(test, vgpu_tb_res_compute(&d, 1024, U32_MAX, 0, &r),
			-E2BIG);
}

static void smst_fresh_is_empty(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_sm *sm = &c->st.sms[1];

	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 0));
	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 1));
	KUNIT_EXPECT_EQ(test, sm->free_slots, 8);
	KUNIT_EXPECT_EQ(test, sm->free_threads, 1536);
	KUNIT_EXPECT_EQ(test, sm->free_regs, 32768);
	KUNIT_EXPECT_EQ(test, sm->free_shared, 49152);
}

/* Allocate @res on SM 0 until it is refused; returns how many fit. */
static u32 fill(struct kunit *test, const struct vgpu_tb_res *res)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_smst_place p;
	u32 n = 0;

	while (vgpu_smst_can_fit(&c->st, 0, res)) {
		KUNIT_ASSERT_EQ(test, vgpu_smst_alloc(&c->st, 0, res, c->job_a,
						      n, &p), (int)p.slot);
		n++;
		KUNIT_ASSERT_LE(test, n, 64u);
	}
	KUNIT_EXPECT_EQ(test, vgpu_smst_alloc(&c->st, 0, res, c->job_a, n, &p),
			-ENOSPC);
	return n;
}

static void smst_fill_slots(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 32, 1, 0);
	u32 i;

	KUNIT_EXPECT_EQ(test, fill(test, &r), 8u);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_slots, 0);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].slot_map, 0xffull);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, vgpu_smst_slot(&c->st, 0, i)->tb, i);
	/* The other SM is untouched. */
	KUNIT_EXPECT_TRUE(test, vgpu_smst_can_fit(&c->st, 1, &r));
	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 1));
}

static void smst_fill_threads(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 512, 1, 0);
	struct vgpu_tb_res one_warp = res_of(test, 1, 1, 0);

	KUNIT_EXPECT_EQ(test, fill(test, &r), 3u);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_threads, 0);
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit(&c->st, 0, &one_warp));
	/* Slots, registers and shared memory are still there. */
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_slots, 5);
}

static void smst_fill_regs(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	/* 256 threads x 32 registers = 8192: four fill the register file. */
	struct vgpu_tb_res r = res_of(test, 256, 32, 0);
	struct vgpu_tb_res small = res_of(test, 32, 2, 0);
	struct vgpu_tb_res noregs = res_of(test, 32, 0, 0);

	KUNIT_EXPECT_EQ(test, fill(test, &r), 4u);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_regs, 0);
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit(&c->st, 0, &small));
	KUNIT_EXPECT_TRUE(test, vgpu_smst_can_fit(&c->st, 0, &noregs));
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_threads, 1536 - 1024);
}

static void smst_fill_shared(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 32, 1, 16384);
	struct vgpu_tb_res little = res_of(test, 32, 1, 1);

	KUNIT_EXPECT_EQ(test, fill(test, &r), 3u);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_shared, 0);
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit(&c->st, 0, &little));
}

static void alloc_set(struct kunit *test, const struct vgpu_tb_res *res,
		      u32 n, u32 *slots)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_smst_place p;
	u32 i;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &res[i],
						      c->job_a, i, &p), 0);
		slots[i] = p.slot;
	}
}

static void smst_free_orders(struct kunit *test)
{
	static const u32 orders[3][6] = {
		{ 0, 1, 2, 3, 4, 5 },
		{ 5, 4, 3, 2, 1, 0 },
		{ 2, 5, 0, 3, 1, 4 },
	};
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res res[6];
	u32 slots[6], o, i;

	res[0] = res_of(test, 128, 20, 1000);
	res[1] = res_of(test, 64, 63, 0);
	res[2] = res_of(test, 256, 8, 4096);
	res[3] = res_of(test, 33, 1, 129);
	res[4] = res_of(test, 512, 16, 20000);
	res[5] = res_of(test, 32, 0, 0);

	for (o = 0; o < ARRAY_SIZE(orders); o++) {
		alloc_set(test, res, 6, slots);
		KUNIT_EXPECT_FALSE(test, vgpu_smst_sm_empty(&c->st, 0));
		for (i = 0; i < 6; i++)
			KUNIT_EXPECT_EQ(test, vgpu_smst_free(&c->st, 0,
							     slots[orders[o][i]]),
					0);
		KUNIT_EXPECT_TRUE_MSG(test, vgpu_smst_sm_empty(&c->st, 0),
				      "order %u", o);
	}
}

static void smst_first_fit(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res big = res_of(test, 128, 32, 8192);	/* 4096 regs */
	struct vgpu_tb_res half = res_of(test, 64, 32, 4096);	/* 2048 regs */
	struct vgpu_smst_place a, b, cc, d, e;

	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &big, c->job_a, 0, &a), 0);
	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &big, c->job_a, 1, &b), 0);
	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &big, c->job_a, 2, &cc), 0);
	KUNIT_EXPECT_EQ(test, a.reg_base, 0);
	KUNIT_EXPECT_EQ(test, b.reg_base, 4096);
	KUNIT_EXPECT_EQ(test, cc.reg_base, 8192);
	KUNIT_EXPECT_EQ(test, a.shared_base, 0);
	KUNIT_EXPECT_EQ(test, b.shared_base, 8192);
	KUNIT_EXPECT_EQ(test, cc.shared_base, 16384);
	KUNIT_EXPECT_EQ(test, a.slot, 0);
	KUNIT_EXPECT_EQ(test, b.slot, 1);

	/* A hole at B: the smaller TB takes its start and its slot. */
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&c->st, 0, b.slot), 0);
	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &half, c->job_b, 3, &d), 0);
	KUNIT_EXPECT_EQ(test, d.slot, 1);
	KUNIT_EXPECT_EQ(test, d.reg_base, 4096);
	KUNIT_EXPECT_EQ(test, d.shared_base, 8192);
	/* What is left of the hole is too small for a big one. */
	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &big, c->job_b, 4, &e), 0);
	KUNIT_EXPECT_EQ(test, e.reg_base, 12288);
	KUNIT_EXPECT_EQ(test, e.shared_base, 24576);

	KUNIT_EXPECT_EQ(test, vgpu_smst_kernel_tbs(&c->st, 0, c->job_a), 2);
	KUNIT_EXPECT_EQ(test, vgpu_smst_kernel_tbs(&c->st, 0, c->job_b), 2);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].nr_kernels, 2);
}

static void smst_fragmentation(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 128, 32, 0);	/* 4096 regs */
	struct vgpu_tb_res two = res_of(test, 256, 32, 0);	/* 8192 regs */
	struct vgpu_smst_place p;
	u32 i;

	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, vgpu_smst_alloc(&c->st, 0, &r, c->job_a, i,
						      &p), (int)i);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&c->st, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&c->st, 0, 3), 0);
	/* 8192 registers free in total, but not in one range. */
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_regs, 8192);
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit(&c->st, 0, &two));
	KUNIT_EXPECT_EQ(test, vgpu_smst_alloc(&c->st, 0, &two, c->job_a, 9, &p),
			-ENOSPC);
	/* Freeing the neighbour joins the ranges. */
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&c->st, 0, 2), 0);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_can_fit(&c->st, 0, &two));
	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &two, c->job_a, 9, &p), 0);
	KUNIT_EXPECT_EQ(test, p.reg_base, 4096);
}

static void smst_double_free(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 64, 10, 300);
	u32 slots, threads, regs, shared, bugs;
	struct vgpu_smst_place p;

	KUNIT_ASSERT_GE(test, vgpu_smst_alloc(&c->st, 0, &r, c->job_a, 0, &p), 0);
	KUNIT_EXPECT_EQ(test, vgpu_smst_free(&c->st, 0, p.slot), 0);
	slots = c->st.sms[0].free_slots;
	threads = c->st.sms[0].free_threads;
	regs = c->st.sms[0].free_regs;
	shared = c->st.sms[0].free_shared;
	/*
	 * A second free is caught and changes nothing. It would WARN; the
	 * test counts it instead so that the log stays clean.
	 */
	bugs = vgpu_smst_bugs;
	vgpu_smst_quiet = true;
	KUNIT_EXPECT_EQ(test, vgpu_smst_free(&c->st, 0, p.slot), -EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_smst_bugs, bugs + 1);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_slots, slots);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_threads, threads);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_regs, regs);
	KUNIT_EXPECT_EQ(test, c->st.sms[0].free_shared, shared);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 0));
	/* A slot never used, and indices out of range. */
	KUNIT_EXPECT_EQ(test, vgpu_smst_free(&c->st, 0, 5), -EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_smst_bugs, bugs + 2);
	vgpu_smst_quiet = false;
	KUNIT_EXPECT_EQ(test, vgpu_smst_free(&c->st, 0, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, vgpu_smst_free(&c->st, 2, 0), -EINVAL);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 0));
}

static void smst_bad_args(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 32, 1, 0);
	struct vgpu_tb_res odd = r;
	struct vgpu_smst_place p;

	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit(&c->st, 2, &r));
	KUNIT_EXPECT_EQ(test, vgpu_smst_alloc(&c->st, 2, &r, c->job_a, 0, &p),
			-EINVAL);
	odd.regs += 1;	/* not a whole number of granules */
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit(&c->st, 0, &odd));
	KUNIT_EXPECT_EQ(test, vgpu_smst_alloc(&c->st, 0, &odd, c->job_a, 0, &p),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, vgpu_smst_slot(&c->st, 0, 0));
	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 0));
}

static void smst_reset(struct kunit *test)
{
	struct smst_ctx *c = test->priv;
	struct vgpu_tb_res r = res_of(test, 256, 32, 4096);

	fill(test, &r);
	KUNIT_EXPECT_FALSE(test, vgpu_smst_sm_empty(&c->st, 0));
	vgpu_smst_reset(&c->st);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_sm_empty(&c->st, 0));
}

static struct kunit_case vgpu_smst_cases[] = {
	KUNIT_CASE(smst_tb_res),
	KUNIT_CASE(smst_tb_res_odd_unit),
	KUNIT_CASE(smst_fresh_is_empty),
	KUNIT_CASE(smst_fill_slots),
	KUNIT_CASE(smst_fill_threads),
	KUNIT_CASE(smst_fill_regs),
	KUNIT_CASE(smst_fill_shared),
	KUNIT_CASE(smst_free_orders),
	KUNIT_CASE(smst_first_fit),
	KUNIT_CASE(smst_fragmentation),
	KUNIT_CASE(smst_double_free),
	KUNIT_CASE(smst_bad_args),
	KUNIT_CASE(smst_reset),
	{}
};

static struct kunit_suite vgpu_smst_suite = {
	.name = "vgpu_smst",
	.init = smst_init,
	.exit = smst_exit,
	.test_cases = vgpu_smst_cases,
};

kunit_test_suite(vgpu_smst_suite);
