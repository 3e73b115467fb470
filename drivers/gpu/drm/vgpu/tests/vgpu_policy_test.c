// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the two-level scheduler's partition policies (spatial, smk-even,
 * smk-drf) against the mock hardware of vgpu_mock.c, the KCB's preempted-TB
 * queue, and the SMST's 2-way range allocator on the fragmentation cases of
 * Park, dissertation, Ch. V, Fig. 5.4.
 *
 * The mock checks every DISPATCH independently of the SMST (slots, threads,
 * overlapping ranges) and against the plan in effect (per-SM quota, SM
 * owner); these tests check what each policy decides.
 */

#include <linux/mutex.h>
#include <linux/slab.h>

#include <kunit/test.h>

#include "vgpu_mock.h"
#include "vgpu_test.h"

static struct mock_hw *policy_hw(struct kunit *test, u32 num_sms,
				 u32 max_tbs, const struct vgpu_partition_ops *ops)
{
	struct vgpu_device_desc d;
	struct mock_hw *hw;

	mock_desc(&d);
	d.num_sms = num_sms;
	d.max_tbs_per_sm = max_tbs;
	hw = mock_new_desc(test, MOCK_RING_MAX, &d);
	hw->check_fcfs = false;
	mutex_lock(&hw->lock);
	vgpu_sched_set_policy(&hw->s, ops);
	mutex_unlock(&hw->lock);
	return hw;
}

/* Queue jobs that arrive together, then one scheduling pass. */
static void submit_all(struct mock_hw *hw, struct mock_job **j, u32 n)
{
	u32 i;

	mutex_lock(&hw->lock);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(hw->test,
				vgpu_kcb_add(&hw->s.kcb, &j[i]->e, hw->s.cycle),
				0);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
}

/* Resource totals of every SM within capacity (never "negative"). */
static void expect_sane(struct mock_hw *hw)
{
	const struct vgpu_smst *st = &hw->s.smst;
	u32 sm;

	for (sm = 0; sm < st->num_sms; sm++) {
		const struct vgpu_sm *s = &st->sms[sm];

		KUNIT_EXPECT_LE(hw->test, s->free_slots, st->max_tbs);
		KUNIT_EXPECT_LE(hw->test, s->free_threads, st->max_threads);
		KUNIT_EXPECT_LE(hw->test, s->free_regs,
				st->reg_units * st->reg_granule);
		KUNIT_EXPECT_LE(hw->test, s->free_shared,
				st->shared_units * st->shared_unit);
		KUNIT_EXPECT_EQ(hw->test, hweight64(s->slot_map),
				st->max_tbs - s->free_slots);
	}
}

/* Run to the end, checking the accounting after every kick. */
static void run_checked(struct mock_hw *hw)
{
	u32 steps = 0;

	mock_apply(hw);
	while (mock_step(hw)) {
		mutex_lock(&hw->lock);
		expect_sane(hw);
		mutex_unlock(&hw->lock);
		mock_apply(hw);
		KUNIT_ASSERT_LT(hw->test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_EQ(hw->test, hw->nr_run, 0);
}

static u32 owned_sms(struct mock_hw *hw, struct mock_job *j)
{
	u32 sm, n = 0;

	for (sm = 0; sm < hw->desc.num_sms; sm++)
		n += hw->s.sm_owner[sm] == &j->e;
	return n;
}

/* Two large kernels: the SMs split evenly, no SM shared. */
static void spatial_even_split(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 8, 4, &vgpu_policy_spatial);
	struct mock_job *a, *b;

	a = mock_job_new(hw, 64, 128, 16, 0, 100);
	b = mock_job_new(hw, 64, 128, 16, 0, 100);
	submit_all(hw, (struct mock_job *[]){ a, b }, 2);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, a), 4);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, b), 4);
	KUNIT_EXPECT_EQ(test, a->e.plan_sms, 4);
	KUNIT_EXPECT_EQ(test, b->e.plan_sms, 4);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * Smart Even: a size-bound kernel (8 TBs, 4 per SM: 2 SMs) gets only what
 * it needs, the others share the rest evenly; Rounds: the SM an even split
 * leaves over goes to the earlier arrival.
 */
static void spatial_smart_even_rounds(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 9, 4, &vgpu_policy_spatial);
	struct mock_job *a, *b, *c;

	a = mock_job_new(hw, 8, 128, 16, 0, 500);
	b = mock_job_new(hw, 100, 128, 16, 0, 100);
	c = mock_job_new(hw, 100, 128, 16, 0, 100);
	submit_all(hw, (struct mock_job *[]){ a, b, c }, 3);
	KUNIT_EXPECT_EQ(test, a->e.plan_sms, 2);
	KUNIT_EXPECT_EQ(test, b->e.plan_sms, 4);
	KUNIT_EXPECT_EQ(test, c->e.plan_sms, 3);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, a), 2);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, b), 4);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, c), 3);
	/* A's 8 TBs all start at once on its 2 SMs. */
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 8);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_complete(hw, c);
	expect_idle(hw);
	mock_finish(hw);
}

/* More kernels than SMs: one SM each in arrival order, the rest wait. */
static void spatial_more_kernels_than_sms(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 2, 4, &vgpu_policy_spatial);
	struct mock_job *j[3];
	u32 i;

	for (i = 0; i < 3; i++)
		j[i] = mock_job_new(hw, 20, 128, 16, 0, 50);
	submit_all(hw, j, 3);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, j[0]), 1);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, j[1]), 1);
	KUNIT_EXPECT_EQ(test, owned_sms(hw, j[2]), 0);
	run_checked(hw);
	for (i = 0; i < 3; i++)
		expect_complete(hw, j[i]);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A high-priority kernel gets the SMs it can use before the normal ones
 * split the rest: 12 TBs at 4 per SM take 3 of 4 SMs, not the even 2.
 */
static void spatial_priority_first(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 4, 4, &vgpu_policy_spatial);
	struct mock_job *a, *h;

	a = mock_job_new(hw, 100, 128, 16, 0, 100);
	h = mock_job_new(hw, 12, 128, 16, 0, 100);
	h->e.priority = DRM_VGPU_PRIORITY_HIGH;
	submit_all(hw, (struct mock_job *[]){ a, h }, 2);
	KUNIT_EXPECT_EQ(test, h->e.plan_sms, 3);
	KUNIT_EXPECT_EQ(test, a->e.plan_sms, 1);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, h->dispatched, 12);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, h);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * A high-priority kernel arriving while a normal one fills every SM: the
 * plan maps SMs to it, each becomes a preemption under way (drain) and
 * completes once the old kernel's TBs there have finished; the new kernel
 * starts only on SMs that have drained.
 */
static void spatial_priority_preempts(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 4, 4, &vgpu_policy_spatial);
	struct mock_job *a, *h;
	u32 sm, pending = 0, steps = 0;

	a = mock_job_new(hw, 100, 128, 16, 0, 100);
	submit_all(hw, (struct mock_job *[]){ a }, 1);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 16);
	h = mock_job_new(hw, 8, 128, 16, 0, 100);
	h->e.priority = DRM_VGPU_PRIORITY_HIGH;
	submit_all(hw, (struct mock_job *[]){ h }, 1);
	mutex_lock(&hw->lock);
	for (sm = 0; sm < 4; sm++) {
		if (hw->s.sm_owner[sm] != &h->e)
			continue;
		KUNIT_EXPECT_EQ(test, hw->s.preempt[sm].job, h->e.id);
		KUNIT_EXPECT_EQ(test, hw->s.preempt[sm].since, hw->s.cycle);
		pending++;
	}
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, pending, 2);
	KUNIT_EXPECT_EQ(test, h->dispatched, 0);	/* nothing has drained yet */

	/* Drain: the high-priority kernel starts as the SMs empty. */
	mock_apply(hw);
	while (h->dispatched < 8 && mock_step(hw)) {
		mock_apply(hw);
		KUNIT_ASSERT_LT(test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_EQ(test, h->dispatched, 8);
	mutex_lock(&hw->lock);
	for (sm = 0; sm < 4; sm++)
		KUNIT_EXPECT_EQ(test, hw->s.preempt[sm].job, 0);
	mutex_unlock(&hw->lock);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, h);
	expect_idle(hw);
	mock_finish(hw);
}

/* smk-even: each of two kernels gets half of every SM; both start at once. */
static void smk_even_quota(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 2, 4, &vgpu_policy_smk_even);
	struct mock_job *a, *b;

	a = mock_job_new(hw, 40, 128, 16, 0, 100);
	b = mock_job_new(hw, 8, 128, 16, 0, 100);
	submit_all(hw, (struct mock_job *[]){ a, b }, 2);
	/* 4 slots / 2 kernels: 2 TBs per SM each. */
	KUNIT_EXPECT_EQ(test, a->e.quota, 2);
	KUNIT_EXPECT_EQ(test, b->e.quota, 2);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 4);
	KUNIT_EXPECT_EQ(test, b->dispatched, 4);
	run_checked(hw);
	/* Once B has issued its last TB, A has the SMs to itself. */
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[a->order], 4);
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[b->order], 2);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

/* smk-even splits the scarcest resource: threads here. */
static void smk_even_threads(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 2, 8, &vgpu_policy_smk_even);
	struct mock_job *a, *b;

	a = mock_job_new(hw, 30, 256, 8, 0, 100);	/* 512/256: 2 */
	b = mock_job_new(hw, 30, 64, 8, 0, 100);	/* 8/2 slots: 4 */
	submit_all(hw, (struct mock_job *[]){ a, b }, 2);
	KUNIT_EXPECT_EQ(test, a->e.quota, 2);
	KUNIT_EXPECT_EQ(test, b->e.quota, 4);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * smk-drf: A is register-bound (dominant share 1/4 per TB), B slot-bound
 * (1/8): progressive filling equalises dominant shares until registers
 * run out: A 3 TBs (3/4), B 4 TBs (1/2, the fifth no longer fits).
 */
static void smk_drf_quota(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 2, 8, &vgpu_policy_smk_drf);
	struct mock_job *a, *b;

	a = mock_job_new(hw, 20, 64, 64, 0, 100);	/* 4096 regs */
	b = mock_job_new(hw, 40, 128, 8, 0, 100);	/* 1024 regs */
	submit_all(hw, (struct mock_job *[]){ a, b }, 2);
	KUNIT_EXPECT_EQ(test, a->e.quota, 3);
	KUNIT_EXPECT_EQ(test, b->e.quota, 4);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

/* smk-drf gives what a small kernel does not need to the other. */
static void smk_drf_small_kernel(struct kunit *test)
{
	struct mock_hw *hw = policy_hw(test, 2, 8, &vgpu_policy_smk_drf);
	struct mock_job *a, *b;

	a = mock_job_new(hw, 2, 128, 8, 0, 300);	/* 1 TB per SM */
	b = mock_job_new(hw, 40, 128, 8, 0, 100);
	mock_submit(hw, a);
	mock_submit(hw, b);
	KUNIT_EXPECT_EQ(test, a->e.quota, 0);	/* all dispatched already */
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 2);
	KUNIT_EXPECT_EQ(test, b->dispatched, 14);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

/* At least 32 kernels in flight at once (Hyper-Q-like). */
static void many_kernels_in_flight(struct kunit *test)
{
	const struct vgpu_partition_ops *pols[] = {
		&vgpu_policy_fcfs, &vgpu_policy_smk_even, &vgpu_policy_smk_drf,
	};
	u32 p, i, running;

	for (p = 0; p < ARRAY_SIZE(pols); p++) {
		struct mock_hw *hw = policy_hw(test, 8, 8, pols[p]);
		struct mock_job *j[40];

		for (i = 0; i < 40; i++) {
			j[i] = mock_job_new(hw, 1, 64, 8, 0, 1000 + i);
			mock_submit(hw, j[i]);
		}
		mock_apply(hw);
		running = 0;
		for (i = 0; i < 40; i++)
			running += j[i]->dispatched;
		KUNIT_EXPECT_GE_MSG(test, running, 32, "policy %s",
				    pols[p]->name);
		KUNIT_EXPECT_EQ(test, hw->s.kcb.num_active, 40);
		run_checked(hw);
		for (i = 0; i < 40; i++)
			expect_complete(hw, j[i]);
		expect_idle(hw);
		mock_finish(hw);
	}
}

/* A switch in the middle of a run takes effect; every job completes. */
static void policy_switch_mid_run(struct kunit *test)
{
	const struct vgpu_partition_ops *pols[] = {
		&vgpu_policy_spatial, &vgpu_policy_smk_even,
		&vgpu_policy_smk_drf, &vgpu_policy_fcfs,
	};
	struct mock_hw *hw = policy_hw(test, 4, 4, &vgpu_policy_fcfs);
	struct mock_job *a, *b, *c;
	u32 i;

	a = mock_job_new(hw, 30, 128, 16, 1024, 40);
	b = mock_job_new(hw, 30, 256, 8, 0, 60);
	c = mock_job_new(hw, 10, 64, 32, 2048, 30);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_submit(hw, c);
	mock_apply(hw);
	for (i = 0; i < ARRAY_SIZE(pols) && mock_step(hw); i++) {
		mutex_lock(&hw->lock);
		vgpu_sched_set_policy(&hw->s, pols[i]);
		mutex_unlock(&hw->lock);
		mock_apply(hw);
	}
	KUNIT_EXPECT_EQ(test, hw->s.policy_changes, 4);
	run_checked(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_complete(hw, c);
	expect_idle(hw);
	mock_finish(hw);
}

/* Policies with every allocator, a mix of shapes: all done, all freed. */
static void policies_mixed_2way(struct kunit *test)
{
	const struct vgpu_partition_ops *pols[] = {
		&vgpu_policy_fcfs, &vgpu_policy_spatial,
		&vgpu_policy_smk_even, &vgpu_policy_smk_drf,
	};
	u32 p, i;

	for (p = 0; p < ARRAY_SIZE(pols) * 2; p++) {
		struct mock_hw *hw = policy_hw(test, 3, 4, pols[p / 2]);
		struct mock_job *j[4];

		mutex_lock(&hw->lock);
		vgpu_sched_set_alloc_mode(&hw->s, p % 2);
		mutex_unlock(&hw->lock);
		for (i = 0; i < 4; i++) {
			j[i] = mock_job_new(hw, 9 + 4 * i, 32 * (i + 1), 4 + 8 * i,
					    1024 * i, 20 + 7 * i);
			mock_submit(hw, j[i]);
		}
		run_checked(hw);
		for (i = 0; i < 4; i++)
			expect_complete(hw, j[i]);
		expect_idle(hw);
		mock_finish(hw);
	}
}

static void vgpu_kcb_test_release(struct vgpu_kcb_entry *e)
{
}

static void vgpu_kcb_test_done(struct vgpu_kcb_entry *e)
{
}

static const struct vgpu_kcb_entry_ops vgpu_kcb_test_ops = {
	.done = vgpu_kcb_test_done,
	.release = vgpu_kcb_test_release,
};

/* Preempted TBs are issued again before new ones, oldest first. */
static void kcb_requeue_first(struct kunit *test)
{
	struct vgpu_kcb_entry e = {};

	vgpu_kcb_entry_init(&e, &vgpu_kcb_test_ops);
	e.num_tbs = 10;
	e.next_tb = 6;
	KUNIT_EXPECT_EQ(test, vgpu_kcb_requeue_tb(&e, 10), -EINVAL);
	KUNIT_ASSERT_EQ(test, vgpu_kcb_requeue_tb(&e, 4), 0);
	KUNIT_ASSERT_EQ(test, vgpu_kcb_requeue_tb(&e, 2), 0);
	KUNIT_EXPECT_EQ(test, vgpu_kcb_next_tb(&e), 4);
	vgpu_kcb_take_tb(&e);
	KUNIT_EXPECT_EQ(test, vgpu_kcb_next_tb(&e), 2);
	vgpu_kcb_take_tb(&e);
	KUNIT_EXPECT_EQ(test, vgpu_kcb_next_tb(&e), 6);
	vgpu_kcb_take_tb(&e);
	KUNIT_EXPECT_EQ(test, e.next_tb, 7);
	e.next_tb = 10;
	KUNIT_EXPECT_FALSE(test, vgpu_kcb_entry_wants_tbs(&e));
	KUNIT_ASSERT_EQ(test, vgpu_kcb_requeue_tb(&e, 9), 0);
	KUNIT_EXPECT_TRUE(test, vgpu_kcb_entry_wants_tbs(&e));
	KUNIT_EXPECT_FALSE(test, vgpu_kcb_entry_can_end(&e));
	vgpu_kcb_put(&e);	/* frees the queued TB */
}

static struct kunit_case vgpu_policy_cases[] = {
	KUNIT_CASE(spatial_even_split),
	KUNIT_CASE(spatial_smart_even_rounds),
	KUNIT_CASE(spatial_more_kernels_than_sms),
	KUNIT_CASE(spatial_priority_first),
	KUNIT_CASE(spatial_priority_preempts),
	KUNIT_CASE(smk_even_quota),
	KUNIT_CASE(smk_even_threads),
	KUNIT_CASE(smk_drf_quota),
	KUNIT_CASE(smk_drf_small_kernel),
	KUNIT_CASE(many_kernels_in_flight),
	KUNIT_CASE(policy_switch_mid_run),
	KUNIT_CASE(policies_mixed_2way),
	KUNIT_CASE(kcb_requeue_first),
	{}
};

static struct kunit_suite vgpu_policy_suite = {
	.name = "vgpu_policy",
	.test_cases = vgpu_policy_cases,
};

/* ---- 2-way allocation, Ch. V §5.4.2 and Fig. 5.4 ------------------------ */

/* One SM with 10 kB of shared memory in 512-byte units, as in Fig. 5.4. */
static void frag_table(struct kunit *test, struct vgpu_smst *st,
		       enum vgpu_smst_alloc_mode mode)
{
	struct vgpu_device_desc d;

	vgpu_test_desc(&d);
	d.num_sms = 1;
	d.shared_per_sm = 10240;
	d.shared_alloc_unit = 512;
	d.max_shared_per_tb = 10240;
	KUNIT_ASSERT_EQ(test, vgpu_smst_init(st, &d), 0);
	st->mode = mode;
}

/* Kernel 0: 2.5 kB per TB; kernel 1: 3 kB per TB (Fig. 5.4). */
static void frag_res(struct vgpu_smst *st, struct vgpu_tb_res *r0,
		     struct vgpu_tb_res *r1)
{
	*r0 = (struct vgpu_tb_res){ .threads = 64, .warps = 2,
				    .regs = 64 * 8, .shared = 2560 };
	*r1 = (struct vgpu_tb_res){ .threads = 64, .warps = 2,
				    .regs = 64 * 8, .shared = 3072 };
}

/* Three kernels; only their addresses matter to the SMST. */
static struct vgpu_kcb_entry *frag_kernels(struct kunit *test)
{
	struct vgpu_kcb_entry *k = kunit_kcalloc(test, 3, sizeof(*k),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	return k;
}

static int frag_alloc(struct vgpu_smst *st, const struct vgpu_tb_res *r,
		      struct vgpu_kcb_entry *k, u32 tb, u32 *base)
{
	struct vgpu_smst_place p;
	int slot = vgpu_smst_alloc(st, 0, r, k, tb, &p);

	if (slot >= 0 && base)
		*base = p.shared_base;
	return slot;
}

/*
 * Fig. 5.4 (a), a kernel terminates: with first fit, kernel 0's TB between
 * two of kernel 1's leaves 2.5 kB + 1.5 kB when it ends, and kernel 1's
 * 3 kB TB does not fit although 4 kB are free. With 2-way, kernel 0 sits at
 * the top and its 2.5 kB adjoin the free space: kernel 1's TB fits.
 */
static void frag_kernel_ends(struct kunit *test)
{
	struct vgpu_kcb_entry *k = frag_kernels(test);
	struct vgpu_kcb_entry *k0 = &k[0], *k1 = &k[1];
	struct vgpu_tb_res r0, r1;
	struct vgpu_smst st;
	u32 base;
	int s0;

	frag_res(&st, &r0, &r1);
	frag_table(test, &st, VGPU_SMST_FIRST_FIT);
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r1, k1, 0, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0);
	s0 = frag_alloc(&st, &r0, k0, 0, &base);
	KUNIT_ASSERT_GE(test, s0, 0);
	KUNIT_EXPECT_EQ(test, base, 3072);
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r1, k1, 1, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 5632);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&st, 0, s0), 0);
	KUNIT_EXPECT_EQ(test, st.sms[0].free_shared, 4096);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_totals_fit(&st, 0, &r1));
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit_job(&st, 0, &r1, k1));
	vgpu_smst_note_refusal(&st, 0, &r1);
	KUNIT_EXPECT_EQ(test, st.sms[0].frag_refusals, 1);
	KUNIT_EXPECT_EQ(test, st.frag_refusals, 1);
	vgpu_smst_fini(&st);

	frag_table(test, &st, VGPU_SMST_TWO_WAY);
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r1, k1, 0, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0);
	s0 = frag_alloc(&st, &r0, k0, 0, &base);
	KUNIT_ASSERT_GE(test, s0, 0);
	KUNIT_EXPECT_EQ(test, base, 10240 - 2560);
	KUNIT_EXPECT_PTR_EQ(test, st.sms[0].bottom, k1);
	KUNIT_EXPECT_PTR_EQ(test, st.sms[0].top, k0);
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r1, k1, 1, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 3072);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&st, 0, s0), 0);
	KUNIT_EXPECT_PTR_EQ(test, st.sms[0].top, NULL);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_can_fit_job(&st, 0, &r1, k1));
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r1, k1, 2, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 6144);
	KUNIT_EXPECT_EQ(test, st.frag_refusals, 0);
	vgpu_smst_fini(&st);
}

/*
 * Fig. 5.4 (b), a kernel is preempted partially: with first fit, kernel 1's
 * bottom TB is preempted and kernel 0 takes its place; when kernel 1 ends,
 * 2.5 kB are free in total for a second TB of kernel 0 but in pieces. With
 * 2-way and the fixed preemption order (the reverse of the allocation
 * direction), the released ranges adjoin the free space: two TBs fit.
 */
static void frag_kernel_preempted(struct kunit *test)
{
	struct vgpu_kcb_entry *k = frag_kernels(test);
	struct vgpu_kcb_entry *k0 = &k[0], *k1 = &k[1], *k2 = &k[2];
	struct vgpu_tb_res r0, r1;
	struct vgpu_smst st;
	int a, b, v;
	u32 base;

	frag_res(&st, &r0, &r1);
	frag_table(test, &st, VGPU_SMST_FIRST_FIT);
	a = frag_alloc(&st, &r1, k1, 0, NULL);	/* [0, 3k) */
	b = frag_alloc(&st, &r1, k1, 1, NULL);	/* [3k, 6k) */
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&st, 0, a), 0);	/* preempted */
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 1, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 0);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&st, 0, b), 0);	/* k1 ends */
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 2, &base), 0);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_totals_fit(&st, 0, &r0));
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit_job(&st, 0, &r0, k0));
	vgpu_smst_fini(&st);

	frag_table(test, &st, VGPU_SMST_TWO_WAY);
	a = frag_alloc(&st, &r1, k1, 0, NULL);
	b = frag_alloc(&st, &r1, k1, 1, NULL);
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 0, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 10240 - 2560);
	/* A third kernel is refused: two per SM. */
	KUNIT_EXPECT_FALSE(test, vgpu_smst_can_fit_job(&st, 0, &r0, k2));
	/* The fixed order preempts kernel 1's highest TB first. */
	v = vgpu_smst_preempt_victim(&st, 0, k1);
	KUNIT_EXPECT_EQ(test, v, b);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&st, 0, v), 0);
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 1, &base), 0);
	KUNIT_EXPECT_EQ(test, base, 10240 - 2 * 2560);
	KUNIT_ASSERT_EQ(test, vgpu_smst_free(&st, 0, a), 0);	/* k1 ends */
	KUNIT_EXPECT_TRUE(test, vgpu_smst_can_fit_job(&st, 0, &r0, k0));
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 2, NULL), 0);
	KUNIT_EXPECT_TRUE(test, vgpu_smst_can_fit_job(&st, 0, &r0, k0));
	KUNIT_ASSERT_GE(test, frag_alloc(&st, &r0, k0, 3, NULL), 0);
	KUNIT_EXPECT_EQ(test, st.sms[0].free_shared, 0);
	vgpu_smst_fini(&st);
}

/* Occupancy: the tightest of the four per-SM limits. */
static void smst_occupancy(struct kunit *test)
{
	struct vgpu_tb_res r0, r1;
	struct vgpu_smst st;

	frag_res(&st, &r0, &r1);
	frag_table(test, &st, VGPU_SMST_FIRST_FIT);
	KUNIT_EXPECT_EQ(test, vgpu_smst_occupancy(&st, &r0), 4);
	KUNIT_EXPECT_EQ(test, vgpu_smst_occupancy(&st, &r1), 3);
	r0.shared = 0;
	KUNIT_EXPECT_EQ(test, vgpu_smst_occupancy(&st, &r0), 8);
	vgpu_smst_fini(&st);
}

static struct kunit_case vgpu_smst_2way_cases[] = {
	KUNIT_CASE(frag_kernel_ends),
	KUNIT_CASE(frag_kernel_preempted),
	KUNIT_CASE(smst_occupancy),
	{}
};

static struct kunit_suite vgpu_smst_2way_suite = {
	.name = "vgpu_smst_2way",
	.test_cases = vgpu_smst_2way_cases,
};

kunit_test_suites(&vgpu_policy_suite, &vgpu_smst_2way_suite);
