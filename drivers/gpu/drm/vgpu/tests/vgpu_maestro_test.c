// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the maestro partition policy (vgpu_policy_maestro.c, GPU Maestro,
 * Park, dissertation, Ch. V §5.4).
 *
 * The pure parts against hand-computed values (the other kernel's fill,
 * the trial kernel, the trial partitions, ANTT and STP, the best-partition
 * choice, stability), the roles of a pair's SMs and their reassignment
 * with the fewest changes, then the epoch decision driven by a synthetic
 * hardware whose best partition is known (convergence, spatial one SM per
 * kernel per epoch, retirement and return of the dedicated SMs), and the
 * policy through the real scheduler on the mock hardware of vgpu_mock.c.
 */

#include <linux/mutex.h>
#include <linux/string.h>

#include <kunit/test.h>

#include "vgpu_knob.h"
#include "vgpu_mock.h"
#include "vgpu_policy_maestro.h"
#include "vgpu_test.h"

/*
 * One SM as vgpu_test_desc()'s (8 TB slots, 1536 threads, 32768 registers,
 * 48 KiB shared memory).
 */
static const u64 mt_cap[VGPU_SMK_NR_RES] = { 8, 1536, 32768, 49152 };

/* ---- pure functions ------------------------------------------------------ */

static void maestro_fill_and_trial_kernel(struct kunit *test)
{
	/* A: register-bound, 4 TBs on an SM; B: slot-bound, 8. */
	static const u64 a[VGPU_SMK_NR_RES] = { 1, 256, 8192, 0 };
	static const u64 b[VGPU_SMK_NR_RES] = { 1, 128, 2048, 0 };

	KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(mt_cap, a, 0, b), 8);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(mt_cap, a, 1, b), 7);
	/* 6 slots, 1024 threads (8), 16384 registers (8) left. */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(mt_cap, a, 2, b), 6);
	/* 5 slots, 768 threads (6), 8192 registers (4). */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(mt_cap, a, 3, b), 4);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(mt_cap, a, 4, b), 0);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(mt_cap, a, 5, b), 0);
	/* The trial kernel fits fewer TBs on a whole SM; the first on a tie. */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_trial_kernel(4, 8), 0);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_trial_kernel(8, 4), 1);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_trial_kernel(4, 4), 0);
}

/*
 * The pair of most cases: two kernels of 8 TBs per SM each; the trial
 * kernel (0) needs 4096 registers a TB, the other 1024, so beside t TBs of
 * the trial kernel the other fits 8 - t (slots bind). SMK-even: 4 and 4.
 */
static struct vgpu_maestro_pair *mt_pair(struct kunit *test, u32 nr_sms)
{
	static const u64 a[VGPU_SMK_NR_RES] = { 1, 128, 4096, 0 };
	static const u64 b[VGPU_SMK_NR_RES] = { 1, 64, 1024, 0 };
	struct vgpu_maestro_pair *p = kunit_kzalloc(test, sizeof(*p),
						    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->sms = kunit_kcalloc(test, nr_sms, sizeof(*p->sms), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p->sms);
	memcpy(p->cap, mt_cap, sizeof(p->cap));
	memcpy(p->need[0], a, sizeof(a));
	memcpy(p->need[1], b, sizeof(b));
	p->max[0] = 8;
	p->max[1] = 8;
	p->nr_sms = nr_sms;
	return p;
}

static void maestro_trial_partitions(struct kunit *test)
{
	struct vgpu_maestro_pair *p = mt_pair(test, 8);
	u32 up, down, t;

	for (t = 2; t <= 6; t++) {
		p->fol_t = t;
		vgpu_maestro_trials(p, &up, &down);
		/* One TB more and one fewer for the trial kernel... */
		KUNIT_EXPECT_EQ(test, up, t + 1);
		KUNIT_EXPECT_EQ(test, down, t - 1);
		/* ...and the other kernel fills the rest. */
		KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(p->cap, p->need[0], up,
							p->need[1]), 8 - up);
		KUNIT_EXPECT_EQ(test, vgpu_maestro_fill(p->cap, p->need[0],
							down, p->need[1]),
				8 - down);
	}
	/* At the ends: the other kernel keeps one TB, the trial kernel one. */
	p->fol_t = 7;
	vgpu_maestro_trials(p, &up, &down);
	KUNIT_EXPECT_EQ(test, up, 7);
	KUNIT_EXPECT_EQ(test, down, 6);
	p->fol_t = 1;
	vgpu_maestro_trials(p, &up, &down);
	KUNIT_EXPECT_EQ(test, up, 2);
	KUNIT_EXPECT_EQ(test, down, 1);
}

static void maestro_objective_from_counters(struct kunit *test)
{
	static const u64 sk1[] = { 1024, 1024 }, mk1[] = { 512, 256 };
	static const u64 sk2[] = { 2048, 512 }, mk2[] = { 1024, 1024 };
	static const u64 zero[] = { 0, 1024 };
	struct vgpu_maestro_cand c[4] = {};

	/* STP = 512/1024 + 256/1024 = 0.75; ANTT = (2 + 4) / 2 = 3. */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_STP, mk1, sk1,
						     2), 768);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_ANTT, mk1,
						     sk1, 2), 3072);
	/* STP = 0.5 + 2 = 2.5; ANTT = (2 + 0.5) / 2 = 1.25. */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_STP, mk2, sk2,
						     2), 2560);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_ANTT, mk2,
						     sk2, 2), 1280);
	/* Counts from instructions over an epoch: 40000 and 10000 of 80000. */
	{
		static const u64 sk[] = { 80000, 80000 }, mk[] = { 40000, 10000 };

		KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_STP,
							     mk, sk, 2), 640);
		KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_ANTT,
							     mk, sk, 2), 5120);
	}
	/* Not measurable; a kernel that made no progress. */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_STP, mk1, zero,
						     2), 0);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_objective(VGPU_MAESTRO_ANTT, zero,
						     sk1, 2), U64_MAX);

	/* Best: STP highest, ANTT lowest, ties to the lower index. */
	KUNIT_EXPECT_EQ(test, vgpu_maestro_best(VGPU_MAESTRO_STP, c, 4),
			-ENODATA);
	c[0] = (struct vgpu_maestro_cand){ true, 1500 };
	c[1] = (struct vgpu_maestro_cand){ true, 1600 };
	c[2] = (struct vgpu_maestro_cand){ false, 9999 };
	c[3] = (struct vgpu_maestro_cand){ true, 1600 };
	KUNIT_EXPECT_EQ(test, vgpu_maestro_best(VGPU_MAESTRO_STP, c, 4), 1);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_best(VGPU_MAESTRO_ANTT, c, 4), 0);
	c[1].value = 1500;
	c[3].value = 1500;
	KUNIT_EXPECT_EQ(test, vgpu_maestro_best(VGPU_MAESTRO_STP, c, 4), 0);

	/* Stability within 5 percent; nothing measured is not stable. */
	KUNIT_EXPECT_TRUE(test, vgpu_maestro_stable(1000, 1050));
	KUNIT_EXPECT_TRUE(test, vgpu_maestro_stable(1000, 950));
	KUNIT_EXPECT_FALSE(test, vgpu_maestro_stable(1000, 1051));
	KUNIT_EXPECT_FALSE(test, vgpu_maestro_stable(0, 0));
	KUNIT_EXPECT_FALSE(test, vgpu_maestro_stable(1000, 0));
}

/* Count the SMs of each role (and, for alone, of each kernel). */
static void mt_roles(const struct vgpu_maestro_pair *p, u32 *role, u32 *alone)
{
	u32 i;

	memset(role, 0, 4 * sizeof(*role));
	memset(alone, 0, 2 * sizeof(*alone));
	for (i = 0; i < p->nr_sms; i++) {
		role[p->sms[i].role]++;
		if (p->sms[i].alone != VGPU_MAESTRO_SHARED)
			alone[p->sms[i].alone]++;
	}
}

static void maestro_role_assignment(struct kunit *test)
{
	struct vgpu_maestro_pair *p = mt_pair(test, 8);
	struct vgpu_maestro_sm before[8];
	u32 role[4], alone[2], i, changed = 0, q[2];
	int ded[2] = { -1, -1 }, up_sm = -1;

	vgpu_maestro_pair_init(p, 4, 0);
	mt_roles(p, role, alone);
	/* One dedicated SM per kernel, two trials, the rest followers. */
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_DEDICATED], 2);
	KUNIT_EXPECT_EQ(test, alone[0], 1);
	KUNIT_EXPECT_EQ(test, alone[1], 1);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_TRIAL_UP], 1);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_TRIAL_DOWN], 1);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_FOLLOWER], 4);
	KUNIT_EXPECT_TRUE(test, p->dedicated);
	for (i = 0; i < 8; i++) {
		const struct vgpu_maestro_sm *m = &p->sms[i];

		vgpu_maestro_sm_quota2(p, i, q);
		switch (m->role) {
		case VGPU_MAESTRO_DEDICATED:
			ded[m->alone] = i;
			KUNIT_EXPECT_EQ(test, q[m->alone], VGPU_SCHED_NO_QUOTA);
			KUNIT_EXPECT_EQ(test, q[!m->alone], 0);
			break;
		case VGPU_MAESTRO_TRIAL_UP:
			up_sm = i;
			KUNIT_EXPECT_EQ(test, q[0], 5);
			KUNIT_EXPECT_EQ(test, q[1], 3);
			break;
		case VGPU_MAESTRO_TRIAL_DOWN:
			KUNIT_EXPECT_EQ(test, q[0], 3);
			KUNIT_EXPECT_EQ(test, q[1], 5);
			break;
		default:
			KUNIT_EXPECT_EQ(test, m->alone, VGPU_MAESTRO_SHARED);
			KUNIT_EXPECT_EQ(test, q[0], 4);
			KUNIT_EXPECT_EQ(test, q[1], 4);
		}
	}
	KUNIT_ASSERT_GE(test, up_sm, 0);

	/*
	 * The "one more" trial won (Fig. 5.8, epoch N to N+1): followers go
	 * to 5. Its SM becomes a follower as it is, a follower at 4 becomes
	 * the "one fewer" trial as it is; the dedicated SMs stay.
	 */
	memcpy(before, p->sms, sizeof(before));
	p->fol_t = 5;
	vgpu_maestro_layout(p);
	KUNIT_EXPECT_EQ(test, p->sms[up_sm].role, VGPU_MAESTRO_FOLLOWER);
	KUNIT_EXPECT_EQ(test, p->sms[up_sm].t, 5);
	KUNIT_EXPECT_EQ(test, p->sms[ded[0]].role, VGPU_MAESTRO_DEDICATED);
	KUNIT_EXPECT_EQ(test, p->sms[ded[1]].role, VGPU_MAESTRO_DEDICATED);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_TRIAL_UP], 1);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_TRIAL_DOWN], 1);
	for (i = 0; i < 8; i++) {
		if (p->sms[i].role == VGPU_MAESTRO_TRIAL_UP)
			KUNIT_EXPECT_EQ(test, p->sms[i].t, 6);
		if (p->sms[i].role == VGPU_MAESTRO_TRIAL_DOWN) {
			KUNIT_EXPECT_EQ(test, p->sms[i].t, 4);
			KUNIT_EXPECT_EQ(test, before[i].role,
					VGPU_MAESTRO_FOLLOWER);
		}
		changed += p->sms[i].alone != before[i].alone ||
			   p->sms[i].t != before[i].t;
	}
	/* 4 of the 6 SMK SMs change (all 6 would without matching). */
	KUNIT_EXPECT_EQ(test, changed, 4);
	/* Laid out again unchanged: nothing moves. */
	memcpy(before, p->sms, sizeof(before));
	vgpu_maestro_layout(p);
	KUNIT_EXPECT_EQ(test, memcmp(before, p->sms, sizeof(before)), 0);

	/* Too few SMs for dedicated and trial SMs: SMK-even everywhere. */
	p = mt_pair(test, 3);
	vgpu_maestro_pair_init(p, 4, 0);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_FOLLOWER], 3);
	KUNIT_EXPECT_FALSE(test, p->dedicated);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP),
			-ENODATA);
	/* History-based start: a kernel that had 2 TBs comes back at 2. */
	p = mt_pair(test, 8);
	vgpu_maestro_pair_init(p, 4, 2);
	KUNIT_EXPECT_EQ(test, p->fol_t, 2);
}

/* ---- a synthetic hardware for the epoch decision ------------------------- */

/*
 * Synthetic hardware: perf(k, t, o) is the warp instructions one SM runs
 * in an epoch of kernel k (0: the trial kernel) with t TBs of the trial
 * kernel beside o of the other. Alone, each runs at its full occupancy
 * (8 TBs).
 */

/* The trial kernel saturates at 2 TBs, the other is linear: best t = 2. */
static u64 mt_sat_linear(u32 k, u32 t, u32 o)
{
	return k == 0 ? 1000ull * min(t, 2u) : 200ull * o;
}

/* Heavy interference: SMK halves both; spatial wins. */
static u64 mt_interfere(u32 k, u32 t, u32 o)
{
	if (!o)
		return k == 0 ? 2000 : 0;
	if (!t)
		return k == 1 ? 1600 : 0;
	return k == 0 ? 100ull * t : 100ull * o;
}

/* Feed one epoch of counts according to the SMs' roles. */
static void mt_epoch(struct vgpu_maestro_pair *p,
		     u64 (*perf)(u32 k, u32 t, u32 o))
{
	u32 i, q[2];

	for (i = 0; i < p->nr_sms; i++) {
		struct vgpu_maestro_sm *m = &p->sms[i];
		u32 t, o;

		vgpu_maestro_sm_quota2(p, i, q);
		if (m->alone == 0) {
			t = p->max[0];
			o = 0;
		} else if (m->alone == 1) {
			t = 0;
			o = p->max[1];
		} else {
			t = q[0];
			o = q[1];
		}
		m->insts[0] = t ? perf(0, t, o) : 0;
		m->insts[1] = o ? perf(1, t, o) : 0;
	}
}

static void mt_converge(struct kunit *test, u32 objective)
{
	struct vgpu_maestro_pair *p = mt_pair(test, 8);
	u32 e, reached = 0;

	vgpu_maestro_pair_init(p, 4, 0);
	for (e = 1; e <= 20; e++) {
		mt_epoch(p, mt_sat_linear);
		vgpu_maestro_epoch_end(p, objective);
		KUNIT_EXPECT_EQ(test, p->spatial, 0);
		if (p->fol_t == 2 && !reached)
			reached = e;
		if (reached)
			KUNIT_EXPECT_EQ_MSG(test, p->fol_t, 2, "epoch %u", e);
	}
	/* From 4 to 2, one TB per epoch: 2 epochs (bound: 4). */
	KUNIT_EXPECT_GT(test, reached, 0);
	KUNIT_EXPECT_LE(test, reached, 4);
}

static void maestro_converges_stp(struct kunit *test)
{
	mt_converge(test, VGPU_MAESTRO_STP);
}

static void maestro_converges_antt(struct kunit *test)
{
	mt_converge(test, VGPU_MAESTRO_ANTT);
}

/* From the other side too, and with more SMs. */
static void maestro_converges_from_below(struct kunit *test)
{
	struct vgpu_maestro_pair *p = mt_pair(test, 16);
	u32 e;

	vgpu_maestro_pair_init(p, 4, 1);
	KUNIT_EXPECT_EQ(test, p->fol_t, 1);
	for (e = 0; e < 3; e++) {
		mt_epoch(p, mt_sat_linear);
		vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	}
	KUNIT_EXPECT_EQ(test, p->fol_t, 2);
}

static void maestro_spatial_one_per_epoch(struct kunit *test)
{
	struct vgpu_maestro_pair *p = mt_pair(test, 10);
	u32 role[4], alone[2];

	vgpu_maestro_pair_init(p, 4, 0);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, alone[0], 1);
	/* Each epoch spatial wins: one more SM per kernel, not all at once. */
	mt_epoch(p, mt_interfere);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP),
			VGPU_MAESTRO_CAND_SPATIAL);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, p->spatial, 1);
	KUNIT_EXPECT_EQ(test, alone[0], 2);
	KUNIT_EXPECT_EQ(test, alone[1], 2);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_DEDICATED], 2);
	/* The trials keep measuring SMK. */
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_TRIAL_UP], 1);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_TRIAL_DOWN], 1);
	mt_epoch(p, mt_interfere);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_epoch_end(p, VGPU_MAESTRO_ANTT),
			VGPU_MAESTRO_CAND_SPATIAL);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, p->spatial, 2);
	KUNIT_EXPECT_EQ(test, alone[0], 3);
	KUNIT_EXPECT_EQ(test, alone[1], 3);
	/* 10 SMs: 2 dedicated + 2 trials leave room for 3 per kernel. */
	mt_epoch(p, mt_interfere);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_EQ(test, p->spatial, 3);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_FOLLOWER], 6);
	KUNIT_EXPECT_EQ(test, alone[0] + alone[1], 8);
	/* SMK wins again: one SM per kernel back per epoch. */
	mt_epoch(p, mt_sat_linear);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_EQ(test, p->spatial, 2);
}

static void maestro_dedicated_retire_return(struct kunit *test)
{
	struct vgpu_maestro_pair *p = mt_pair(test, 8);
	u32 role[4], alone[2], e;

	KUNIT_EXPECT_TRUE(test, vgpu_maestro_dedicated_back(0, false, true));
	KUNIT_EXPECT_TRUE(test, vgpu_maestro_dedicated_back(0, true, false));
	KUNIT_EXPECT_TRUE(test, vgpu_maestro_dedicated_back(100, false, false));
	KUNIT_EXPECT_FALSE(test, vgpu_maestro_dedicated_back(99, false, false));

	/* Start at the best partition: stable from the first epoch on. */
	vgpu_maestro_pair_init(p, 2, 0);
	mt_epoch(p, mt_sat_linear);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_TRUE(test, p->dedicated);	/* nothing to compare yet */
	mt_epoch(p, mt_sat_linear);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	/* Stable and no repartition: retired, the rates stored. */
	KUNIT_EXPECT_FALSE(test, p->dedicated);
	KUNIT_EXPECT_EQ(test, p->single[0], 2000);
	KUNIT_EXPECT_EQ(test, p->single[1], 1600);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_DEDICATED], 0);
	KUNIT_EXPECT_EQ(test, alone[0] + alone[1], 0);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_FOLLOWER], 6);
	/* Decisions go on from the stored rates; back after 100 epochs. */
	for (e = 1; e < VGPU_MAESTRO_RETURN_EPOCHS; e++) {
		mt_epoch(p, mt_sat_linear);
		vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
		KUNIT_EXPECT_FALSE_MSG(test, p->dedicated, "epoch %u", e);
		KUNIT_EXPECT_EQ(test, p->fol_t, 2);
	}
	mt_epoch(p, mt_sat_linear);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_TRUE(test, p->dedicated);
	mt_roles(p, role, alone);
	KUNIT_EXPECT_EQ(test, role[VGPU_MAESTRO_DEDICATED], 2);

	/* Retire again (two stable epochs), then a repartition: back. */
	mt_epoch(p, mt_sat_linear);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_TRUE(test, p->dedicated);
	mt_epoch(p, mt_sat_linear);
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_FALSE(test, p->dedicated);
	mt_epoch(p, mt_interfere);	/* the kernels' behaviour changed */
	vgpu_maestro_epoch_end(p, VGPU_MAESTRO_STP);
	KUNIT_EXPECT_TRUE(test, p->changed);
	KUNIT_EXPECT_TRUE(test, p->dedicated);

	/* A new kernel: a new pair starts with its dedicated SMs. */
	vgpu_maestro_pair_init(p, 4, 0);
	KUNIT_EXPECT_TRUE(test, p->dedicated);
	KUNIT_EXPECT_EQ(test, p->epochs, 0);
}

/* ---- through the real scheduler on the mock ------------------------------ */

static struct mock_hw *mt_hw(struct kunit *test, u32 num_sms,
			     const struct vgpu_preempt_ops *pre)
{
	struct vgpu_device_desc d;
	struct mock_hw *hw;

	mock_desc(&d);
	d.num_sms = num_sms;
	d.max_tbs_per_sm = 8;
	hw = mock_new_desc(test, MOCK_RING_MAX, &d);
	hw->check_fcfs = false;
	mutex_lock(&hw->lock);
	vgpu_sched_set_policy(&hw->s, &vgpu_policy_maestro);
	KUNIT_EXPECT_EQ(test, hw->s.smst.mode, VGPU_SMST_TWO_WAY);
	KUNIT_EXPECT_EQ(test, hw->s.alloc_mode, VGPU_SMST_FIRST_FIT);
	KUNIT_EXPECT_EQ(test, vgpu_knob_store(&hw->s, "maestro_epoch_cycles",
					      "300"), 0);
	hw->s.preempt_ops = pre;
	mutex_unlock(&hw->lock);
	return hw;
}

static void mt_submit_all(struct mock_hw *hw, struct mock_job **j, u32 n)
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

/* Run to the end; the most epochs any pair decided. */
static u32 mt_run(struct mock_hw *hw)
{
	const struct vgpu_maestro_pair *p;
	u32 steps = 0, epochs = 0;

	mock_apply(hw);
	while (mock_step(hw)) {
		mock_apply(hw);
		mutex_lock(&hw->lock);
		p = vgpu_maestro_state_pair(&hw->s, 0);
		if (p)
			epochs = max(epochs, p->epochs);
		mutex_unlock(&hw->lock);
		KUNIT_ASSERT_LT(hw->test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_EQ(hw->test, hw->nr_run, 0);
	return epochs;
}

static void mt_done(struct mock_hw *hw, struct mock_job **j, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		expect_complete(hw, j[i]);
	expect_idle(hw);
	KUNIT_EXPECT_EQ(hw->test, hw->ctx_live, 0);
	/* Switching away frees the state and gives first fit back. */
	mutex_lock(&hw->lock);
	vgpu_sched_set_policy(&hw->s, &vgpu_policy_fcfs);
	KUNIT_EXPECT_NULL(hw->test, hw->s.policy_data);
	KUNIT_EXPECT_EQ(hw->test, hw->s.smst.mode, VGPU_SMST_FIRST_FIT);
	mutex_unlock(&hw->lock);
	mock_finish(hw);
}

/*
 * Two kernels on 8 SMs under maestro with each preemption policy: the
 * pair's roles are laid out at once (dedicated SMs run one kernel alone),
 * epochs are decided, and every TB of both runs exactly once (the mock
 * checks every DISPATCH against the per-SM quotas and the ranges).
 */
static void maestro_mock_two_kernels(struct kunit *test)
{
	static const char * const pre[] = { "drain", "switch", "flush",
					    "chimera" };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pre); i++) {
		struct mock_hw *hw = mt_hw(test, 8, vgpu_preempt_find(pre[i]));
		const struct vgpu_maestro_stats *st;
		const struct vgpu_maestro_pair *p;
		struct mock_job *j[2];
		u32 sm, q, epochs, ded = 0;

		/* 256 threads: 4 TBs per SM; 128 threads: 8 (slots). */
		j[0] = mock_job_new(hw, 400, 128, 16, 0, 100);
		j[1] = mock_job_new(hw, 300, 256, 16, 0, 130);
		mt_submit_all(hw, j, 2);
		mutex_lock(&hw->lock);
		p = vgpu_maestro_state_pair(&hw->s, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, p->nr_sms, 8);
		KUNIT_EXPECT_EQ(test, p->max[0], 4);	/* j[1] is the trial */
		for (sm = 0; sm < 8; sm++) {
			if (p->sms[sm].role != VGPU_MAESTRO_DEDICATED)
				continue;
			ded++;
			q = vgpu_sched_sm_quota(&hw->s,
						&j[p->sms[sm].alone ? 0 : 1]->e,
						sm);
			KUNIT_EXPECT_EQ(test, q, VGPU_SCHED_NO_QUOTA);
			q = vgpu_sched_sm_quota(&hw->s,
						&j[p->sms[sm].alone ? 1 : 0]->e,
						sm);
			KUNIT_EXPECT_EQ(test, q, 0);
		}
		KUNIT_EXPECT_EQ(test, ded, 2);
		mutex_unlock(&hw->lock);
		epochs = mt_run(hw);
		KUNIT_EXPECT_GT_MSG(test, epochs, 0, "%s", pre[i]);
		/* The debugfs counters saw every epoch, each decided one way. */
		st = &vgpu_maestro_conf_of(&hw->s)->stats;
		KUNIT_EXPECT_EQ(test, st->epochs, epochs);
		KUNIT_EXPECT_EQ(test, st->spatial + st->smk_even + st->smk_other,
				st->epochs);
		KUNIT_EXPECT_LE(test, st->repartitions, st->epochs);
		mt_done(hw, j, 2);
	}
}

/*
 * A pair whose second kernel fits in its SMK-even share at once (10 TBs of
 * 256 threads, 2 per SM on 8 SMs) has nothing to learn: both run at their
 * SMK-even quotas on every SM, no SM is dedicated, no epoch is decided.
 */
static void maestro_mock_small_partner_even(struct kunit *test)
{
	struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_drain);
	struct mock_job *j[2];
	u32 sm;

	j[0] = mock_job_new(hw, 400, 128, 16, 0, 100);
	j[1] = mock_job_new(hw, 10, 256, 16, 0, 130);
	mt_submit_all(hw, j, 2);
	mutex_lock(&hw->lock);
	for (sm = 0; sm < 8; sm++) {
		KUNIT_EXPECT_EQ(test, vgpu_sched_sm_quota(&hw->s, &j[0]->e, sm), 4);
		KUNIT_EXPECT_EQ(test, vgpu_sched_sm_quota(&hw->s, &j[1]->e, sm), 2);
		KUNIT_EXPECT_LE(test, vgpu_smst_kernel_tbs(&hw->s.smst, sm, &j[0]->e), 4);
		KUNIT_EXPECT_LE(test, vgpu_smst_kernel_tbs(&hw->s.smst, sm, &j[1]->e), 2);
	}
	mutex_unlock(&hw->lock);
	mt_run(hw);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_conf_of(&hw->s)->stats.epochs, 0);
	mt_done(hw, j, 2);
}

/*
 * Kernels that come back (the same kernel_key, a new launch) are not new
 * under maestro_relaunch=known: after a first pair has measured them, a
 * second pair of the same two kernels starts with the stored single-kernel
 * rates and no dedicated SM. A pair with a kernel never seen has its
 * dedicated SMs, and so has a pair of known kernels once the device was
 * left unused in between. Under maestro_relaunch=new every pair starts
 * with its dedicated SMs (§5.4.1: reassigned when a new kernel is
 * launched).
 */
static void mt_kernels_return(struct kunit *test, const char *relaunch)
{
	struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_drain);
	bool known = !strcmp(relaunch, "known");
	const struct vgpu_maestro_pair *p;
	struct mock_job *j[8];
	u32 round, sm, ded;

	/* A program keeps the device open between its launches. */
	mutex_lock(&hw->lock);
	hw->s.users = 1;
	KUNIT_EXPECT_EQ(test, vgpu_knob_store(&hw->s, "maestro_relaunch",
					      relaunch), 0);
	mutex_unlock(&hw->lock);
	for (round = 0; round < 4; round++) {
		if (round == 3) {
			/*
			 * The device is left unused: it forgets what it learnt,
			 * so the same kernels are new again.
			 */
			mutex_lock(&hw->lock);
			hw->s.users = 0;
			vgpu_sched_fresh_start(&hw->s, true);
			mutex_unlock(&hw->lock);
		}
		j[2 * round] = mock_job_new(hw, 400, 128, 16, 0, 100);
		j[2 * round + 1] = mock_job_new(hw, 300, 256, 16, 0, 130);
		j[2 * round]->e.kernel_key = 0x1234;
		j[2 * round + 1]->e.kernel_key = round == 2 ? 0x9abc : 0x5678;
		mt_submit_all(hw, &j[2 * round], 2);
		mutex_lock(&hw->lock);
		p = vgpu_maestro_state_pair(&hw->s, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		for (sm = 0, ded = 0; sm < 8; sm++)
			ded += p->sms[sm].role == VGPU_MAESTRO_DEDICATED;
		if (round == 1 && known) {
			KUNIT_EXPECT_FALSE(test, p->dedicated);
			KUNIT_EXPECT_EQ(test, ded, 0);
			KUNIT_EXPECT_NE(test, p->single[0], 0);
			KUNIT_EXPECT_NE(test, p->single[1], 0);
		} else {
			KUNIT_EXPECT_TRUE_MSG(test, p->dedicated, "%s, round %u",
					      relaunch, round);
			KUNIT_EXPECT_EQ_MSG(test, ded, 2, "%s, round %u",
					    relaunch, round);
		}
		mutex_unlock(&hw->lock);
		KUNIT_EXPECT_GT(test, mt_run(hw), 0);
	}
	mt_done(hw, j, 8);
}

static void maestro_mock_kernels_return(struct kunit *test)
{
	mt_kernels_return(test, "known");
}

static void maestro_mock_kernels_relaunch_new(struct kunit *test)
{
	mt_kernels_return(test, "new");
}

/* SMs of @p that run kernel @k alone (dedicated or spatial). */
static u32 mt_alone_sms(const struct vgpu_maestro_pair *p, u32 k)
{
	u32 sm, n = 0;

	for (sm = 0; sm < p->nr_sms; sm++)
		n += p->sms[sm].alone == k;
	return n;
}

/*
 * maestro_history (§5.4.1, history-based start): a pair that ended with
 * one spatial SM per kernel comes back as the same pair (both kernels
 * relaunched) and starts with it under "partition", with none under
 * "count"; a kernel back beside another partner starts with none either
 * way. No epoch ends (the longest epoch), so the spatial SMs the first
 * pair ended with are the ones set here.
 */
static void maestro_mock_history_partition(struct kunit *test)
{
	static const char * const hist[] = { "count", "partition" };
	static const u64 key[3][2] = {
		{ 0x1234, 0x5678 }, { 0x1234, 0x5678 }, { 0x1234, 0x9abc },
	};
	u32 h, round;

	for (h = 0; h < ARRAY_SIZE(hist); h++) {
		struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_drain);
		const struct vgpu_maestro_pair *p;
		struct mock_job *j[6];

		mutex_lock(&hw->lock);
		hw->s.users = 1;
		KUNIT_EXPECT_EQ(test, vgpu_knob_store(&hw->s, "maestro_history",
						      hist[h]), 0);
		KUNIT_EXPECT_EQ(test, vgpu_knob_store(&hw->s,
						      "maestro_epoch_cycles",
						      "100000000"), 0);
		mutex_unlock(&hw->lock);
		for (round = 0; round < 3; round++) {
			u32 want = round == 1 && h == 1 ? 1 : 0;

			j[2 * round] = mock_job_new(hw, 400, 128, 16, 0, 100);
			j[2 * round + 1] = mock_job_new(hw, 300, 256, 16, 0, 130);
			j[2 * round]->e.kernel_key = key[round][0];
			j[2 * round + 1]->e.kernel_key = key[round][1];
			mt_submit_all(hw, &j[2 * round], 2);
			mutex_lock(&hw->lock);
			p = vgpu_maestro_state_pair(&hw->s, 0);
			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_EXPECT_TRUE(test, p->dedicated);
			KUNIT_EXPECT_EQ_MSG(test, p->spatial, want,
					    "history %s, round %u", hist[h],
					    round);
			/* The dedicated SM, plus the spatial ones. */
			KUNIT_EXPECT_EQ(test, mt_alone_sms(p, 0), 1 + want);
			KUNIT_EXPECT_EQ(test, mt_alone_sms(p, 1), 1 + want);
			if (round == 0) {
				/* The first pair ends with one spatial SM. */
				struct vgpu_maestro_pair *wp =
					(struct vgpu_maestro_pair *)p;

				wp->spatial = 1;
				vgpu_maestro_layout(wp);
			}
			mutex_unlock(&hw->lock);
			mt_run(hw);
		}
		mt_done(hw, j, 6);
	}
}

/*
 * maestro_pairing: a partner whose 10 long TBs fit its SMK-even share and
 * are soon all dispatched. Under "dispatch" the pair runs SMK-even (no SM
 * dedicated) and, once the partner has no TB to start, there is no group
 * (the other kernel has the whole device); under "resident" the pair has
 * its dedicated SMs and stands while the partner's TBs run. Both complete
 * either way.
 */
static void maestro_mock_pairing_resident(struct kunit *test)
{
	static const char * const pairing[] = { "dispatch", "resident" };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pairing); i++) {
		struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_switch);
		u32 sm, ded = 0, steps = 0, placed = 0, paired = 0;
		struct mock_job *j[2];

		mutex_lock(&hw->lock);
		KUNIT_EXPECT_EQ(test, vgpu_knob_store(&hw->s, "maestro_pairing",
						      pairing[i]), 0);
		mutex_unlock(&hw->lock);
		j[0] = mock_job_new(hw, 400, 128, 16, 0, 100);
		j[1] = mock_job_new(hw, 10, 256, 16, 0, 3000);
		mt_submit_all(hw, j, 2);
		mutex_lock(&hw->lock);
		KUNIT_ASSERT_NOT_NULL(test, vgpu_maestro_state_pair(&hw->s, 0));
		/* A dedicated SM: the other kernel may run none there. */
		for (sm = 0; sm < 8; sm++)
			ded += !vgpu_sched_sm_quota(&hw->s, &j[0]->e, sm) ||
			       !vgpu_sched_sm_quota(&hw->s, &j[1]->e, sm);
		KUNIT_EXPECT_EQ_MSG(test, ded, i ? 2 : 0, "%s", pairing[i]);
		mutex_unlock(&hw->lock);
		mock_apply(hw);
		while (mock_step(hw)) {
			mock_apply(hw);
			mutex_lock(&hw->lock);
			/* j[1] all dispatched, running, beside j[0]. */
			if (!vgpu_sched_candidate(&hw->s, &j[1]->e) &&
			    j[1]->e.tbs_running &&
			    vgpu_sched_candidate(&hw->s, &j[0]->e)) {
				placed++;
				paired += !!vgpu_maestro_state_pair(&hw->s, 0);
			}
			mutex_unlock(&hw->lock);
			KUNIT_ASSERT_LT(test, ++steps, MOCK_MAX_STEPS);
		}
		KUNIT_EXPECT_EQ(test, hw->nr_run, 0);
		KUNIT_EXPECT_GT_MSG(test, placed, 0, "%s", pairing[i]);
		KUNIT_EXPECT_EQ_MSG(test, paired, i ? placed : 0, "%s",
				    pairing[i]);
		mt_done(hw, j, 2);
	}
}

/*
 * A kernel running alone on the whole device is cut down when a second
 * arrives: its TBs above the new quotas are preempted (switch), in the
 * fixed order, and both complete.
 */
static void maestro_mock_late_arrival(struct kunit *test)
{
	struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_switch);
	struct mock_job *j[2];

	j[0] = mock_job_new(hw, 200, 128, 16, 0, 400);
	j[1] = mock_job_new(hw, 100, 128, 16, 0, 200);
	mock_submit(hw, j[0]);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, j[0]->e.tbs_running, 64);
	mock_submit(hw, j[1]);
	mt_run(hw);
	KUNIT_EXPECT_GT(test, hw->switches, 0);
	mt_done(hw, j, 2);
}

/*
 * Three kernels: a pair on SMs 0-3, the third alone on 4-7 (spatial
 * between pairs, §5.4.2); then more kernels than fit in pairs on 2 SMs.
 */
static void maestro_mock_three_and_many(struct kunit *test)
{
	struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_chimera);
	struct mock_job *j[12];
	u32 sm, i;

	for (i = 0; i < 3; i++)
		j[i] = mock_job_new(hw, 90, 128, 16, 0, 100 + 10 * i);
	mt_submit_all(hw, j, 3);
	mutex_lock(&hw->lock);
	for (sm = 4; sm < 8; sm++) {
		KUNIT_EXPECT_EQ(test, vgpu_sched_sm_quota(&hw->s, &j[2]->e, sm),
				VGPU_SCHED_NO_QUOTA);
		KUNIT_EXPECT_EQ(test, vgpu_sched_sm_quota(&hw->s, &j[0]->e, sm),
				0);
	}
	for (sm = 0; sm < 4; sm++)
		KUNIT_EXPECT_EQ(test, vgpu_sched_sm_quota(&hw->s, &j[2]->e, sm),
				0);
	mutex_unlock(&hw->lock);
	mt_run(hw);
	mt_done(hw, j, 3);

	hw = mt_hw(test, 2, &vgpu_preempt_drain);
	for (i = 0; i < 12; i++)
		j[i] = mock_job_new(hw, 20 + i, 64 * (1 + i % 3), 16, 0,
				    50 + 7 * i);
	mt_submit_all(hw, j, 12);
	mt_run(hw);
	mt_done(hw, j, 12);
}

/* A device of one SM with 8 TB slots, 2-way allocation, preempting with @ops. */
static struct mock_hw *one_sm_two_way(struct kunit *test,
				      const struct vgpu_preempt_ops *ops)
{
	struct vgpu_device_desc d;
	struct mock_hw *hw;

	mock_desc(&d);
	d.num_sms = 1;
	d.max_tbs_per_sm = 8;
	hw = mock_new_desc(test, MOCK_RING_MAX, &d);
	mutex_lock(&hw->lock);
	vgpu_sched_set_alloc_mode(&hw->s, VGPU_SMST_TWO_WAY);
	hw->s.preempt_ops = ops;
	mutex_unlock(&hw->lock);
	return hw;
}

/*
 * The hook maestro preempts with: vgpu_sched_preempt_excess() takes the
 * boundary TBs first, in the reverse of each kernel's 2-way direction
 * (§5.4.2, Fig. 5.9 (b)): the bottom kernel's highest ranges, the top
 * kernel's lowest.
 */
static void maestro_preempt_excess_order(struct kunit *test)
{
	struct mock_hw *hw = one_sm_two_way(test, &vgpu_preempt_switch);
	struct mock_job *j[2];
	u32 i, slot, n, base[2][8], nb[2] = {}, got[2] = {};

	hw->check_fcfs = false;	/* preempted TBs of job 0 run again later */
	j[0] = mock_job_new(hw, 4, 128, 16, 0, 500);
	j[1] = mock_job_new(hw, 4, 128, 16, 0, 500);
	mock_submit(hw, j[0]);
	mock_submit(hw, j[1]);
	mock_apply(hw);
	mutex_lock(&hw->lock);
	KUNIT_ASSERT_PTR_EQ(test, hw->s.smst.sms[0].bottom, &j[0]->e);
	KUNIT_ASSERT_PTR_EQ(test, hw->s.smst.sms[0].top, &j[1]->e);
	for (slot = 0; slot < 8; slot++) {
		const struct vgpu_smst_slot *sl = vgpu_smst_slot(&hw->s.smst, 0,
								 slot);

		KUNIT_ASSERT_NOT_NULL(test, sl);
		i = sl->job == &j[0]->e ? 0 : 1;
		base[i][nb[i]++] = sl->reg_base;
	}
	KUNIT_EXPECT_EQ(test, vgpu_sched_preempt_excess(&hw->s, 0, &j[0]->e, 3),
			1);
	KUNIT_EXPECT_EQ(test, vgpu_sched_preempt_excess(&hw->s, 0, &j[1]->e, 2),
			2);
	/* Again: those already being preempted are not chosen twice. */
	KUNIT_EXPECT_EQ(test, vgpu_sched_preempt_excess(&hw->s, 0, &j[1]->e, 2),
			0);
	KUNIT_EXPECT_EQ(test, vgpu_sched_preempt_excess(&hw->s, 0, &j[1]->e, 9),
			0);
	for (n = 0; n < hw->nr_cmds; n++) {
		const struct vgpu_cmd *c = &hw->cmds[n];
		const struct vgpu_smst_slot *sl;
		u32 k, below = 0, above = 0;

		if (c->op != VGPU_CMD_PREEMPT)
			continue;
		sl = vgpu_smst_slot(&hw->s.smst, 0, c->slot);
		i = sl->job == &j[0]->e ? 0 : 1;
		got[i]++;
		for (k = 0; k < 4; k++) {
			below += base[i][k] < sl->reg_base;
			above += base[i][k] > sl->reg_base;
		}
		/* Bottom kernel: its highest; top kernel: its two lowest. */
		if (i == 0)
			KUNIT_EXPECT_EQ(test, above, 0);
		else
			KUNIT_EXPECT_LE(test, below, 1);
	}
	KUNIT_EXPECT_EQ(test, got[0], 1);
	KUNIT_EXPECT_EQ(test, got[1], 2);
	hw->s.sink->publish(hw->s.sink_ctx);	/* as a pass ends */
	mutex_unlock(&hw->lock);
	mock_run_all(hw);
	KUNIT_EXPECT_EQ(test, hw->switches, 3);
	expect_complete(hw, j[0]);
	expect_complete(hw, j[1]);
	expect_idle(hw);
	KUNIT_EXPECT_EQ(test, hw->ctx_live, 0);
	mock_finish(hw);
}

/*
 * Switching to and from maestro while two kernels run (and the allocator
 * between 2-way and first fit with TBs resident): every TB still runs
 * exactly once.
 */
static void maestro_mock_policy_switch(struct kunit *test)
{
	struct mock_hw *hw = mt_hw(test, 8, &vgpu_preempt_chimera);
	struct mock_job *j[2];
	u32 steps = 0, i = 0;

	j[0] = mock_job_new(hw, 500, 128, 16, 0, 90);
	j[1] = mock_job_new(hw, 400, 256, 16, 0, 120);
	mt_submit_all(hw, j, 2);
	mock_apply(hw);
	while (mock_step(hw)) {
		mock_apply(hw);
		if (++steps % 40 == 0) {
			static const struct vgpu_partition_ops *const ps[] = {
				&vgpu_policy_smk_even, &vgpu_policy_maestro,
				&vgpu_policy_fcfs, &vgpu_policy_maestro,
				&vgpu_policy_spatial, &vgpu_policy_maestro,
			};

			mutex_lock(&hw->lock);
			vgpu_sched_set_policy(&hw->s, ps[i++ % ARRAY_SIZE(ps)]);
			KUNIT_EXPECT_EQ(test, hw->s.smst.mode,
					hw->s.policy == &vgpu_policy_maestro ?
					VGPU_SMST_TWO_WAY : VGPU_SMST_FIRST_FIT);
			mutex_unlock(&hw->lock);
		}
		KUNIT_ASSERT_LT(test, steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_GT(test, i, 3);
	mt_done(hw, j, 2);
}

/* The running TB of @j with priority, its slot in *@slot; -1 when none. */
static int prio_count(struct mock_hw *hw, struct mock_job *j, u32 *slot)
{
	int n = 0;
	u32 i;

	for (i = 0; i < hw->nr_run; i++) {
		if (hw->run[i].job != j || !hw->run[i].prio)
			continue;
		*slot = hw->run[i].slot;
		n++;
	}
	return n;
}

/*
 * Issue priority for the TBs another kernel waits for (§5.4.3): under 2-way
 * allocation the boundary TB (the next in the fixed preemption order) of a
 * kernel with nothing more to dispatch, and every TB chosen to drain; sent
 * once per TB, and not at all with kernel-aware scheduling off.
 */
static void prio_drain_and_boundary(struct kunit *test, enum vgpu_kernel_sched mode)
{
	struct mock_hw *hw = one_sm_two_way(test, &vgpu_preempt_drain);
	struct mock_job *j[2];
	u32 slot = U32_MAX;

	mutex_lock(&hw->lock);
	vgpu_sched_set_kernel_sched(&hw->s, mode);
	mutex_unlock(&hw->lock);
	mock_apply(hw);
	j[0] = mock_job_new(hw, 4, 128, 16, 0, 500);
	j[1] = mock_job_new(hw, 8, 128, 16, 0, 500);
	mock_submit(hw, j[0]);
	mock_submit(hw, j[1]);
	mock_apply(hw);
	mutex_lock(&hw->lock);
	/* j0 has dispatched all: its highest TB; j1 still has TBs to start. */
	if (mode == VGPU_KSCHED_NONE) {
		KUNIT_EXPECT_EQ(test, prio_count(hw, j[0], &slot), 0);
	} else {
		KUNIT_EXPECT_EQ(test, prio_count(hw, j[0], &slot), 1);
		KUNIT_EXPECT_EQ(test, slot,
				vgpu_smst_preempt_victim(&hw->s.smst, 0, &j[0]->e));
	}
	KUNIT_EXPECT_EQ(test, prio_count(hw, j[1], &slot), 0);
	/* Two of j1's four drain: both get priority in the next pass. */
	KUNIT_EXPECT_EQ(test, vgpu_sched_preempt_excess(&hw->s, 0, &j[1]->e, 2),
			2);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, prio_count(hw, j[1], &slot),
			mode == VGPU_KSCHED_NONE ? 0 : 2);
	KUNIT_EXPECT_EQ(test, hw->prio_cmds, mode == VGPU_KSCHED_NONE ? 0 : 3);
	/* A pass with nothing new sends nothing again. */
	mutex_lock(&hw->lock);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->prio_cmds, mode == VGPU_KSCHED_NONE ? 0 : 3);
	mock_run_all(hw);
	expect_complete(hw, j[0]);
	expect_complete(hw, j[1]);
	expect_idle(hw);
	mock_finish(hw);
}

static void maestro_priority_drain_boundary(struct kunit *test)
{
	prio_drain_and_boundary(test, VGPU_KSCHED_LRR);
	prio_drain_and_boundary(test, VGPU_KSCHED_NONE);
}

static struct kunit_case vgpu_maestro_cases[] = {
	KUNIT_CASE(maestro_fill_and_trial_kernel),
	KUNIT_CASE(maestro_trial_partitions),
	KUNIT_CASE(maestro_objective_from_counters),
	KUNIT_CASE(maestro_role_assignment),
	KUNIT_CASE(maestro_converges_stp),
	KUNIT_CASE(maestro_converges_antt),
	KUNIT_CASE(maestro_converges_from_below),
	KUNIT_CASE(maestro_spatial_one_per_epoch),
	KUNIT_CASE(maestro_dedicated_retire_return),
	KUNIT_CASE(maestro_mock_two_kernels),
	KUNIT_CASE(maestro_mock_small_partner_even),
	KUNIT_CASE(maestro_mock_kernels_return),
	KUNIT_CASE(maestro_mock_kernels_relaunch_new),
	KUNIT_CASE(maestro_mock_history_partition),
	KUNIT_CASE(maestro_mock_pairing_resident),
	KUNIT_CASE(maestro_mock_late_arrival),
	KUNIT_CASE(maestro_mock_three_and_many),
	KUNIT_CASE(maestro_preempt_excess_order),
	KUNIT_CASE(maestro_priority_drain_boundary),
	KUNIT_CASE(maestro_mock_policy_switch),
	{}
};

static struct kunit_suite vgpu_maestro_suite = {
	.name = "vgpu_maestro",
	.test_cases = vgpu_maestro_cases,
};

kunit_test_suite(vgpu_maestro_suite);
