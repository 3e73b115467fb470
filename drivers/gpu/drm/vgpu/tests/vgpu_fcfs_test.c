// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the thread-block scheduler with the FCFS policy against the mock
 * hardware of vgpu_mock.c.
 */

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_mock.h"

/* ---- the tests ---------------------------------------------------------- */

static void fcfs_every_tb_once(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *j[3];
	u32 i;

	/* 128 threads, 16 registers (2048), 1 KiB shared: slot-limited. */
	for (i = 0; i < 3; i++) {
		j[i] = mock_job_new(hw, 13 + i, 128, 16, 1024, 50 + 20 * i);
		mock_submit(hw, j[i]);
	}
	mock_run_all(hw);
	for (i = 0; i < 3; i++) {
		expect_complete(hw, j[i]);
		KUNIT_EXPECT_GE(test, j[i]->e.end_cycle, j[i]->e.start_cycle);
	}
	/* Arrival order: each job starts no earlier than the one before. */
	KUNIT_EXPECT_LT(test, j[0]->first_seq, j[1]->first_seq);
	KUNIT_EXPECT_LT(test, j[1]->first_seq, j[2]->first_seq);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_waits_for_earlier_job(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;

	/*
	 * A's TBs need 8 KiB of shared memory: two per SM, so A cannot
	 * dispatch all 10 at once although TB slots stay free. B needs no
	 * shared memory and would fit; FCFS holds it back until A has
	 * dispatched its last TB, then B takes the leftover room at once.
	 */
	a = mock_job_new(hw, 10, 64, 8, 8192, 100);
	b = mock_job_new(hw, 4, 32, 8, 0, 100);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 4);
	KUNIT_EXPECT_EQ(test, b->dispatched, 0);
	KUNIT_EXPECT_FALSE(test, b->begun);

	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	KUNIT_EXPECT_GT(test, b->first_seq, a->last_seq);
	KUNIT_EXPECT_EQ(test, b->first_cycle, a->last_cycle);
	KUNIT_EXPECT_LT(test, b->first_cycle, a->e.end_cycle);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_leftover_room(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b, *c;

	/* A: one 512-thread TB per SM. B: four 256-thread TBs use the rest. */
	a = mock_job_new(hw, 2, 512, 8, 0, 1000);
	b = mock_job_new(hw, 4, 256, 8, 0, 10);
	/* C: needs a whole SM's threads; must wait for room. */
	c = mock_job_new(hw, 1, 1024, 8, 0, 10);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_submit(hw, c);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, a->dispatched, 2);
	KUNIT_EXPECT_EQ(test, b->dispatched, 4);
	KUNIT_EXPECT_EQ(test, c->dispatched, 0);
	/* Round robin: A's two TBs went to different SMs. */
	KUNIT_EXPECT_NE(test, hw->run[0].sm, hw->run[1].sm);

	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_complete(hw, c);
	KUNIT_EXPECT_EQ(test, b->first_cycle, 0);
	/*
	 * A's first TB ends at 1000 (its second at 1006): C takes the SM
	 * that became free while A still runs on the other.
	 */
	KUNIT_EXPECT_EQ(test, c->first_cycle, 1000);
	KUNIT_EXPECT_LT(test, c->first_cycle, a->e.end_cycle);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_not_before(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *late, *now, *mid;

	late = mock_job_new(hw, 3, 64, 8, 0, 10);
	late->e.not_before = 1000;
	mock_submit(hw, late);
	/* Nothing to run yet: a single WAKE_AT for cycle 1000. */
	KUNIT_ASSERT_EQ(test, hw->nr_cmds, 1);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].op, VGPU_CMD_WAKE_AT);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].addr, 1000);

	/* A job without a not-before cycle is not held up by it. */
	now = mock_job_new(hw, 2, 64, 8, 0, 10);
	mock_submit(hw, now);
	/* An earlier not-before cycle asks for an earlier wake-up. */
	mid = mock_job_new(hw, 2, 64, 8, 0, 10);
	mid->e.not_before = 500;
	mock_submit(hw, mid);
	KUNIT_EXPECT_EQ(test, hw->cmds[hw->nr_cmds - 1].op, VGPU_CMD_WAKE_AT);
	KUNIT_EXPECT_EQ(test, hw->cmds[hw->nr_cmds - 1].addr, 500);

	mock_run_all(hw);
	expect_complete(hw, late);
	expect_complete(hw, now);
	expect_complete(hw, mid);
	KUNIT_EXPECT_EQ(test, now->first_cycle, 0);
	KUNIT_EXPECT_EQ(test, mid->e.start_cycle, 500);
	KUNIT_EXPECT_EQ(test, late->e.start_cycle, 1000);
	KUNIT_EXPECT_EQ(test, late->e.arrival, 1000);
	KUNIT_EXPECT_GT(test, late->first_seq, mid->first_seq);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_fault_fails_job(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;
	u32 tb, ran = 0;

	a = mock_job_new(hw, 24, 128, 8, 0, 40);
	a->fault_tb = 5;
	a->fault_status = -EFAULT;
	b = mock_job_new(hw, 8, 128, 8, 0, 40);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_run_all(hw);

	KUNIT_EXPECT_EQ(test, a->done_calls, 1);
	KUNIT_EXPECT_EQ(test, a->done_error, -EFAULT);
	KUNIT_EXPECT_EQ(test, a->e.error, -EFAULT);
	KUNIT_EXPECT_TRUE(test, a->ended);
	for (tb = 0; tb < a->e.num_tbs; tb++) {
		KUNIT_EXPECT_LE(test, a->runs[tb], 1);
		ran += a->runs[tb];
	}
	/* Its remaining TBs were never dispatched. */
	KUNIT_EXPECT_LT(test, ran, a->e.num_tbs);
	KUNIT_EXPECT_EQ(test, a->e.tbs_done, ran - 1);
	/* The other job is not affected. */
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_ring_full(struct kunit *test)
{
	/* A ring of 6 commands for 40 TBs: passes stop and continue. */
	struct mock_hw *hw = mock_new(test, 6);
	struct mock_job *a = mock_job_new(hw, 40, 32, 8, 0, 30);
	struct mock_job *b = mock_job_new(hw, 9, 32, 8, 0, 30);

	mock_submit(hw, a);
	mock_submit(hw, b);
	KUNIT_EXPECT_LE(test, hw->nr_cmds, 6);
	KUNIT_EXPECT_TRUE(test, hw->s.ring_full);
	mock_run_all(hw);
	KUNIT_EXPECT_EQ(test, hw->overflows, 0);
	KUNIT_EXPECT_GT(test, hw->wake_cmds, 0);
	expect_complete(hw, a);
	expect_complete(hw, b);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_bad_events(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a = mock_job_new(hw, 2, 64, 8, 0, 10);
	struct vgpu_evt evt = { .type = VGPU_EVT_TB_DONE };
	struct mock_run r;

	mock_submit(hw, a);
	mock_apply(hw);
	KUNIT_ASSERT_EQ(test, hw->nr_run, 2);
	r = hw->run[0];

	mutex_lock(&hw->lock);
	evt.job = a->e.id + 100;
	evt.sm = r.sm;
	evt.slot = r.slot;
	evt.tb = r.tb;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -ENOENT);
	evt.job = a->e.id;
	evt.sm = hw->desc.num_sms;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	evt.sm = r.sm;
	evt.slot = hw->desc.max_tbs_per_sm;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	evt.slot = r.slot + 1;	/* free slot on that SM */
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	evt.slot = r.slot;
	evt.tb = r.tb ^ 1;	/* slot runs another TB */
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	evt.type = 99;
	KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), -EINVAL);
	/* Nothing changed. */
	KUNIT_EXPECT_EQ(test, a->e.tbs_running, 2);
	KUNIT_EXPECT_EQ(test, a->e.tbs_done, 0);
	KUNIT_EXPECT_EQ(test, a->e.error, 0);
	KUNIT_EXPECT_NOT_NULL(test, vgpu_smst_slot(&hw->s.smst, r.sm, r.slot));
	/* A kick at cycle 5 without events; time does not go backwards. */
	vgpu_sched_applied(&hw->s, hw->consumed, hw->s.cycle);
	KUNIT_EXPECT_EQ(test, vgpu_sched_set_cycle(&hw->s, 5), 0);
	KUNIT_EXPECT_EQ(test, vgpu_sched_set_cycle(&hw->s, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, hw->s.cycle, 5);
	mutex_unlock(&hw->lock);
	hw->cycle = 5;

	mock_run_all(hw);
	expect_complete(hw, a);
	expect_idle(hw);
	mock_finish(hw);
}

static void fcfs_detach_fails_jobs(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a = mock_job_new(hw, 20, 256, 8, 0, 10);
	struct mock_job *b = mock_job_new(hw, 2, 64, 8, 0, 10);

	b->e.not_before = 5000;
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_apply(hw);
	KUNIT_EXPECT_GT(test, a->dispatched, 0);

	mutex_lock(&hw->lock);
	vgpu_sched_detach(&hw->s, -EIO);
	KUNIT_EXPECT_FALSE(test, hw->s.attached);
	KUNIT_EXPECT_TRUE(test, list_empty(&hw->s.kcb.active));
	/* Without a backend a pass does nothing. */
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, hw->nr_cmds, 0);

	KUNIT_EXPECT_EQ(test, a->done_calls, 1);
	KUNIT_EXPECT_EQ(test, a->done_error, -EIO);
	KUNIT_EXPECT_EQ(test, b->done_calls, 1);
	KUNIT_EXPECT_EQ(test, b->done_error, -EIO);
	KUNIT_EXPECT_EQ(test, a->e.state, VGPU_KCB_DONE);

	/* A new backend starts from an empty SMST at the same cycle. */
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_attach(&hw->s, &hw->desc,
						&mock_sink_ops, hw), 0);
	mutex_unlock(&hw->lock);
	hw->nr_run = 0;
	expect_idle(hw);
	mock_finish(hw);
}

static u64 scenario_hash(struct kunit *test, u64 *end)
{
	struct mock_hw *hw = mock_new(test, 16);
	struct mock_job *j[4];
	u64 hash;
	u32 i;

	for (i = 0; i < 4; i++) {
		j[i] = mock_job_new(hw, 11 + 3 * i, 32 * (i + 1), 4 + i,
				    512 * i, 20 + i);
		if (i == 2)
			j[i]->e.not_before = 77;
		mock_submit(hw, j[i]);
	}
	mock_run_all(hw);
	*end = j[3]->e.end_cycle;
	hash = hw->hash;
	for (i = 0; i < 4; i++)
		expect_complete(hw, j[i]);
	expect_idle(hw);
	mock_finish(hw);
	return hash;
}

static void fcfs_start_cycle_when_applied(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a = mock_job_new(hw, 1, 64, 8, 0, 100);
	struct mock_job *b = mock_job_new(hw, 2, 64, 8, 0, 10);

	mock_submit(hw, a);
	mock_apply(hw);
	/*
	 * The daemon is simulating towards cycle 100 when B is submitted: the
	 * driver is still at cycle 0, but the daemon applies B's commands at
	 * its next turn, at cycle 100. B's start cycle must say 100.
	 */
	KUNIT_ASSERT_TRUE(test, mock_advance(hw));
	KUNIT_ASSERT_EQ(test, hw->cycle, 100);
	mock_submit(hw, b);
	KUNIT_EXPECT_EQ(test, b->e.start_cycle, 0);	/* provisional */
	KUNIT_EXPECT_FALSE(test, b->e.started);
	mock_kick(hw);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	KUNIT_EXPECT_EQ(test, a->e.start_cycle, 0);
	KUNIT_EXPECT_EQ(test, b->first_cycle, 100);
	KUNIT_EXPECT_EQ(test, b->e.start_cycle, 100);
	KUNIT_EXPECT_TRUE(test, b->e.started);
	expect_idle(hw);
	mock_finish(hw);
}

/* Three jobs on an idle device; returns the placement hash of the run. */
static u64 idle_run(struct mock_hw *hw)
{
	struct mock_job *j[3];
	u32 i;

	hw->epoch = hw->cycle;
	hw->first_order = hw->nr_jobs;
	hw->place_hash = 14695981039346656037ull;
	/* An odd number of TBs, so the round robin ends off SM 0. */
	j[0] = mock_job_new(hw, 3, 64, 8, 0, 25);
	j[1] = mock_job_new(hw, 5, 128, 16, 2048, 31);
	j[2] = mock_job_new(hw, 1, 32, 8, 0, 7);
	for (i = 0; i < 3; i++)
		mock_submit(hw, j[i]);
	mock_run_all(hw);
	for (i = 0; i < 3; i++)
		expect_complete(hw, j[i]);
	expect_idle(hw);
	return hw->place_hash;
}

static void fcfs_idle_repeats(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	u64 h1, h2;

	/*
	 * The same launches on the same, idle device are placed the same
	 * way, at the same cycles relative to their submission.
	 */
	h1 = idle_run(hw);
	KUNIT_EXPECT_GT(test, hw->cycle, 0);
	h2 = idle_run(hw);
	KUNIT_EXPECT_EQ(test, h1, h2);
	KUNIT_EXPECT_EQ(test, hw->s.rr_next, 0);
	/* No file has the device open: it was told to start afresh. */
	KUNIT_EXPECT_GE(test, hw->resets, 2);

	/*
	 * While a program keeps the device open, its state carries over
	 * between launches: no reset, and the round robin stays where the
	 * last launch left it.
	 */
	mutex_lock(&hw->lock);
	hw->s.users = 1;
	mutex_unlock(&hw->lock);
	h1 = hw->resets;
	idle_run(hw);
	KUNIT_EXPECT_EQ(test, hw->resets, h1);
	KUNIT_EXPECT_NE(test, hw->s.rr_next, 0);
	mutex_lock(&hw->lock);
	hw->s.users = 0;
	mutex_unlock(&hw->lock);
	mock_finish(hw);
}

static void fcfs_deterministic(struct kunit *test)
{
	u64 end1, end2;
	u64 h1 = scenario_hash(test, &end1);
	u64 h2 = scenario_hash(test, &end2);

	KUNIT_EXPECT_EQ(test, h1, h2);
	KUNIT_EXPECT_EQ(test, end1, end2);
	KUNIT_EXPECT_GT(test, end1, 0);
}

/*
 * The kernel-aware warp scheduling mode reaches the hardware at once when
 * it changes, once; the same mode again sends nothing; the jobs still run.
 */
static void fcfs_kernel_sched(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;
	u32 n;

	mutex_lock(&hw->lock);
	vgpu_sched_set_kernel_sched(&hw->s, VGPU_KSCHED_LRR);
	mutex_unlock(&hw->lock);
	KUNIT_ASSERT_EQ(test, hw->nr_cmds, 1);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].op, VGPU_CMD_SET_KERNEL_SCHED);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].flags, VGPU_KSCHED_LRR);
	KUNIT_EXPECT_EQ(test, hw->visible, 1);
	mutex_lock(&hw->lock);
	vgpu_sched_set_kernel_sched(&hw->s, VGPU_KSCHED_LRR);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, hw->nr_cmds, 1);

	a = mock_job_new(hw, 4, 64, 8, 0, 10);
	b = mock_job_new(hw, 4, 64, 8, 0, 10);
	mock_submit(hw, a);
	mock_submit(hw, b);
	mock_run_all(hw);
	expect_complete(hw, a);
	expect_complete(hw, b);
	KUNIT_EXPECT_EQ(test, hw->ksched_cmds, 1);
	KUNIT_EXPECT_EQ(test, hw->ksched, VGPU_KSCHED_LRR);
	n = hw->nr_cmds;
	mutex_lock(&hw->lock);
	vgpu_sched_set_kernel_sched(&hw->s, VGPU_KSCHED_NONE);
	mutex_unlock(&hw->lock);
	KUNIT_ASSERT_EQ(test, hw->nr_cmds, n + 1);
	KUNIT_EXPECT_EQ(test, hw->cmds[n].op, VGPU_CMD_SET_KERNEL_SCHED);
	KUNIT_EXPECT_EQ(test, hw->cmds[n].flags, VGPU_KSCHED_NONE);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * The warp scheduler and the sub-core assignment reach the hardware at once
 * when they change, once each; the jobs still run; back to the daemon's
 * configured ones is a command too.
 */
static void fcfs_warp_sched(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a;
	u32 n;

	mutex_lock(&hw->lock);
	vgpu_sched_set_warp_sched(&hw->s, VGPU_WARP_SCHED_ELF_PP);
	vgpu_sched_set_warp_sched(&hw->s, VGPU_WARP_SCHED_ELF_PP);
	vgpu_sched_set_subcore_assign(&hw->s, VGPU_SUBCORE_ASSIGN_SHUFFLE);
	mutex_unlock(&hw->lock);
	KUNIT_ASSERT_EQ(test, hw->nr_cmds, 2);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].op, VGPU_CMD_SET_WARP_SCHED);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].flags, VGPU_WARP_SCHED_ELF_PP);
	KUNIT_EXPECT_EQ(test, hw->cmds[1].op, VGPU_CMD_SET_SUBCORE_ASSIGN);
	KUNIT_EXPECT_EQ(test, hw->cmds[1].flags, VGPU_SUBCORE_ASSIGN_SHUFFLE);

	a = mock_job_new(hw, 4, 64, 8, 0, 10);
	mock_submit(hw, a);
	mock_run_all(hw);
	expect_complete(hw, a);
	KUNIT_EXPECT_EQ(test, hw->wsched_cmds, 1);
	KUNIT_EXPECT_EQ(test, hw->wsched, VGPU_WARP_SCHED_ELF_PP);
	KUNIT_EXPECT_EQ(test, hw->subcore, VGPU_SUBCORE_ASSIGN_SHUFFLE);
	n = hw->nr_cmds;
	mutex_lock(&hw->lock);
	vgpu_sched_set_warp_sched(&hw->s, VGPU_WARP_SCHED_CONFIG);
	mutex_unlock(&hw->lock);
	KUNIT_ASSERT_EQ(test, hw->nr_cmds, n + 1);
	KUNIT_EXPECT_EQ(test, hw->cmds[n].op, VGPU_CMD_SET_WARP_SCHED);
	KUNIT_EXPECT_EQ(test, hw->cmds[n].flags, VGPU_WARP_SCHED_CONFIG);
	expect_idle(hw);
	mock_finish(hw);
}

/*
 * Virtual Thread: the mode reaches the hardware and the SMST together, only
 * while no TB is placed; under on an SM takes TBs up to its capacity limit
 * (here the registers: 16384 / (64 x 32) = 8 TBs, twice the scheduling
 * limit of 4), each with its Eq. 1 state area in shared memory, which then
 * limits a kernel that uses much of it: 3072 bytes fit 5 TBs in 16384, 3072
 * and a 256-byte area 4.
 */
static void fcfs_virtual_thread(struct kunit *test)
{
	struct mock_hw *hw = mock_new(test, MOCK_RING_MAX);
	struct mock_job *a, *b;

	mutex_lock(&hw->lock);
	vgpu_sched_set_virtual_thread(&hw->s, VGPU_VT_ON);
	mutex_unlock(&hw->lock);
	KUNIT_ASSERT_EQ(test, hw->nr_cmds, 1);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].op, VGPU_CMD_SET_VIRTUAL_THREAD);
	KUNIT_EXPECT_EQ(test, hw->cmds[0].flags, VGPU_VT_ON);
	KUNIT_EXPECT_EQ(test, hw->s.smst.max_tbs, VGPU_VT_MAX_TBS);

	a = mock_job_new(hw, 32, 64, 32, 0, 1000);
	mock_submit(hw, a);
	mock_apply(hw);
	KUNIT_EXPECT_EQ(test, hw->vt_cmds, 1);
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[a->order], 8);
	/* A change while TBs are placed waits for the device to empty. */
	mutex_lock(&hw->lock);
	vgpu_sched_set_virtual_thread(&hw->s, VGPU_VT_OFF);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, hw->nr_cmds, 0);
	KUNIT_EXPECT_EQ(test, hw->s.smst.vt, VGPU_VT_ON);
	mock_run_all(hw);
	expect_complete(hw, a);
	KUNIT_EXPECT_EQ(test, hw->vt_cmds, 2);
	KUNIT_EXPECT_EQ(test, hw->vt, VGPU_VT_OFF);
	KUNIT_EXPECT_EQ(test, hw->s.smst.max_tbs, 4);

	mutex_lock(&hw->lock);
	vgpu_sched_set_virtual_thread(&hw->s, VGPU_VT_ON);
	mutex_unlock(&hw->lock);
	KUNIT_EXPECT_EQ(test, round_up(vgpu_vt_ctx_bytes(1), 256), 256);
	b = mock_job_new(hw, 16, 32, 8, 3072, 1000);
	KUNIT_EXPECT_EQ(test, vgpu_smst_occupancy(&hw->s.smst, &b->e.res), 4);
	mock_submit(hw, b);
	mock_run_all(hw);
	expect_complete(hw, b);
	KUNIT_EXPECT_EQ(test, hw->max_on_sm[b->order], 4);
	expect_idle(hw);
	mock_finish(hw);
}

static struct kunit_case vgpu_fcfs_cases[] = {
	KUNIT_CASE(fcfs_every_tb_once),
	KUNIT_CASE(fcfs_waits_for_earlier_job),
	KUNIT_CASE(fcfs_leftover_room),
	KUNIT_CASE(fcfs_not_before),
	KUNIT_CASE(fcfs_fault_fails_job),
	KUNIT_CASE(fcfs_ring_full),
	KUNIT_CASE(fcfs_bad_events),
	KUNIT_CASE(fcfs_detach_fails_jobs),
	KUNIT_CASE(fcfs_deterministic),
	KUNIT_CASE(fcfs_idle_repeats),
	KUNIT_CASE(fcfs_start_cycle_when_applied),
	KUNIT_CASE(fcfs_kernel_sched),
	KUNIT_CASE(fcfs_warp_sched),
	KUNIT_CASE(fcfs_virtual_thread),
	{}
};

static struct kunit_suite vgpu_fcfs_suite = {
	.name = "vgpu_fcfs",
	.test_cases = vgpu_fcfs_cases,
};

kunit_test_suite(vgpu_fcfs_suite);
