// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the thread-block scheduler with the FCFS policy against a mock
 * hardware.
 *
 * The mock plays vgpud: it takes the commands the scheduler emits (through
 * a command sink of limited capacity, like the ring), keeps its own
 * accounting of what runs where and checks every DISPATCH against the
 * device limits independently of the SMST (slots, threads, overlapping
 * register and shared-memory ranges), checks the FCFS order and the
 * not-before cycles, lets each TB run for a per-job number of cycles,
 * and feeds TB_DONE (and WAKE) events back in lock-step, as the daemon does
 * with KICK.
 */

#include <linux/mutex.h>
#include <linux/slab.h>

#include <kunit/test.h>

#include "vgpu_drv.h"
#include "vgpu_test.h"

#define MOCK_RING_MAX	512
#define MOCK_MAX_JOBS	8
#define MOCK_MAX_RUN	(4 * VGPU_SMST_MAX_SLOTS)
#define MOCK_MAX_WAKES	64
#define MOCK_MAX_STEPS	100000

struct mock_hw;

struct mock_job {
	struct vgpu_kcb_entry e;
	struct mock_hw *hw;
	u32 order;
	/* behaviour */
	u32 dur;
	s32 fault_tb;
	int fault_status;
	/* observations */
	u8 *runs;
	u32 dispatched;
	bool begun;
	bool ended;
	bool fault_seen;
	u64 first_seq, last_seq;
	u64 first_cycle, last_cycle;
	u32 done_calls;
	int done_error;
	u64 done_cycle;
	bool released;
};

struct mock_run {
	struct mock_job *job;
	u32 tb, sm, slot;
	u32 reg_base, regs, shared_base, shared, threads;
	u64 done_at;
};

struct mock_hw {
	struct kunit *test;
	struct mutex lock;	/* plays the device lock */
	struct vgpu_sched s;
	struct vgpu_device_desc desc;
	u32 ring_cap;
	u32 nr_cmds;
	u32 visible;
	u32 consumed;
	struct vgpu_cmd cmds[MOCK_RING_MAX];
	u32 overflows;
	struct mock_job *jobs[MOCK_MAX_JOBS];
	u32 nr_jobs;
	struct mock_run run[MOCK_MAX_RUN];
	u32 nr_run;
	u64 wakes[MOCK_MAX_WAKES];
	u32 nr_wakes;
	u32 wake_cmds;
	u64 cycle;
	u64 seq;
	u64 hash;
	/* placements relative to the start of a run (see fcfs_idle_repeats) */
	u64 epoch;
	u32 first_order;
	u64 place_hash;
};

/* ---- command sink ------------------------------------------------------ */

static u32 mock_space(void *ctx)
{
	struct mock_hw *hw = ctx;

	return hw->ring_cap - hw->nr_cmds;
}

static void mock_emit(void *ctx, const struct vgpu_cmd *cmd)
{
	struct mock_hw *hw = ctx;

	if (hw->nr_cmds >= hw->ring_cap) {
		hw->overflows++;
		return;
	}
	hw->cmds[hw->nr_cmds++] = *cmd;
}

static void mock_publish(void *ctx)
{
	struct mock_hw *hw = ctx;

	hw->visible = hw->nr_cmds;
}

static const struct vgpu_cmd_sink_ops mock_sink_ops = {
	.space = mock_space,
	.emit = mock_emit,
	.publish = mock_publish,
};

/* ---- KCB entry owner callbacks --------------------------------------- */

static void mock_job_done(struct vgpu_kcb_entry *e)
{
	struct mock_job *j = container_of(e, struct mock_job, e);

	j->done_calls++;
	j->done_error = e->error;
	j->done_cycle = j->hw->cycle;
	KUNIT_EXPECT_EQ(j->hw->test, e->state, VGPU_KCB_DONE);
}

static void mock_job_release(struct vgpu_kcb_entry *e)
{
	struct mock_job *j = container_of(e, struct mock_job, e);

	j->released = true;	/* memory belongs to the test */
}

static const struct vgpu_kcb_entry_ops mock_job_ops = {
	.done = mock_job_done,
	.release = mock_job_release,
};

/* ---- setup ------------------------------------------------------------ */

static void mock_desc(struct vgpu_device_desc *d)
{
	vgpu_test_desc(d);
	d->num_sms = 2;
	d->max_tbs_per_sm = 4;
	d->max_threads_per_sm = 1024;
	d->regs_per_sm = 16384;
	d->shared_per_sm = 16384;
	d->max_shared_per_tb = 16384;
	d->reg_alloc_unit = 1;
	d->shared_alloc_unit = 256;
}

static struct mock_hw *mock_new(struct kunit *test, u32 ring_cap)
{
	struct mock_hw *hw = kunit_kzalloc(test, sizeof(*hw), GFP_KERNEL);
	const char *why;

	KUNIT_ASSERT_NOT_NULL(test, hw);
	hw->test = test;
	hw->ring_cap = ring_cap;
	hw->hash = 14695981039346656037ull;
	mutex_init(&hw->lock);
	mock_desc(&hw->desc);
	KUNIT_ASSERT_EQ(test, vgpu_backend_validate_desc(&hw->desc, &why), 0);
	vgpu_sched_init(&hw->s, &hw->lock, NULL);
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_attach(&hw->s, &hw->desc,
						&mock_sink_ops, hw), 0);
	mutex_unlock(&hw->lock);
	return hw;
}

static struct mock_job *mock_job_new(struct mock_hw *hw, u32 num_tbs,
				     u32 threads, u32 regs, u32 shared,
				     u32 dur)
{
	struct kunit *test = hw->test;
	struct mock_job *j = kunit_kzalloc(test, sizeof(*j), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, j);
	KUNIT_ASSERT_LT(test, hw->nr_jobs, MOCK_MAX_JOBS);
	j->runs = kunit_kzalloc(test, num_tbs, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, j->runs);
	vgpu_kcb_entry_init(&j->e, &mock_job_ops);
	j->hw = hw;
	j->order = hw->nr_jobs;
	j->dur = dur;
	j->fault_tb = -1;
	j->e.num_tbs = num_tbs;
	j->e.grid[0] = num_tbs;
	j->e.grid[1] = 1;
	j->e.grid[2] = 1;
	j->e.desc_addr = 0x10000 * (j->order + 1);
	KUNIT_ASSERT_EQ(test, vgpu_tb_res_compute(&hw->desc, threads, regs,
						  shared, &j->e.res), 0);
	hw->jobs[hw->nr_jobs++] = j;
	return j;
}

/* What SUBMIT does under the device lock: queue, then one pass. */
static void mock_submit(struct mock_hw *hw, struct mock_job *j)
{
	mutex_lock(&hw->lock);
	KUNIT_ASSERT_EQ(hw->test, vgpu_kcb_add(&hw->s.kcb, &j->e, hw->s.cycle),
			0);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
}

static struct mock_job *mock_find(struct mock_hw *hw, u32 id)
{
	u32 i;

	for (i = 0; i < hw->nr_jobs; i++)
		if (hw->jobs[i]->e.kcb && hw->jobs[i]->e.id == id)
			return hw->jobs[i];
	return NULL;
}

/* ---- the daemon's side ------------------------------------------------- */

static bool ranges_overlap(u32 a, u32 alen, u32 b, u32 blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

static u32 mock_tb_dur(const struct mock_job *j, u32 tb)
{
	/* Varying lengths, so TBs finish out of dispatch order. */
	return j->dur + (tb * 7919u) % 13u * 3u;
}

static void mock_hash(u64 *hash, u64 v)
{
	u32 k;

	for (k = 0; k < 8; k++, v >>= 8)
		*hash = (*hash ^ (v & 0xff)) * 1099511628211ull;
}

static void mock_dispatch(struct mock_hw *hw, const struct vgpu_cmd *cmd)
{
	struct kunit *test = hw->test;
	struct mock_job *j = mock_find(hw, cmd->job);
	u32 threads = 0, tbs = 0, i;
	struct mock_run *r;

	KUNIT_ASSERT_NOT_NULL(test, j);
	KUNIT_EXPECT_TRUE(test, j->begun);
	KUNIT_EXPECT_FALSE(test, j->ended);
	KUNIT_EXPECT_FALSE_MSG(test, j->fault_seen,
			       "job %u dispatched after its fault", j->order);
	KUNIT_ASSERT_LT(test, cmd->tb, j->e.num_tbs);
	KUNIT_EXPECT_EQ_MSG(test, j->runs[cmd->tb], 0,
			    "job %u TB %u dispatched twice", j->order, cmd->tb);
	j->runs[cmd->tb]++;
	KUNIT_EXPECT_GE_MSG(test, hw->cycle, j->e.not_before,
			    "job %u started before its not-before cycle",
			    j->order);

	/* FCFS: every job ahead must have dispatched all of its TBs. */
	for (i = 0; i < hw->nr_jobs; i++) {
		struct mock_job *k = hw->jobs[i];

		if (k == j || !k->e.kcb)
			continue;
		if (k->e.arrival < j->e.arrival ||
		    (k->e.arrival == j->e.arrival && k->order < j->order))
			KUNIT_EXPECT_TRUE_MSG(test, k->dispatched == k->e.num_tbs ||
					      k->fault_seen,
					      "job %u overtook job %u",
					      j->order, k->order);
	}

	/* Per-SM limits, checked against the mock's own accounting. */
	KUNIT_ASSERT_LT(test, cmd->sm, hw->desc.num_sms);
	KUNIT_ASSERT_LT(test, cmd->slot, hw->desc.max_tbs_per_sm);
	KUNIT_EXPECT_LE(test, (u64)cmd->reg_base + j->e.res.regs,
			(u64)hw->desc.regs_per_sm);
	KUNIT_EXPECT_LE(test, (u64)cmd->shared_base + j->e.res.shared,
			(u64)hw->desc.shared_per_sm);
	for (i = 0; i < hw->nr_run; i++) {
		struct mock_run *o = &hw->run[i];

		if (o->sm != cmd->sm)
			continue;
		tbs++;
		threads += o->threads;
		KUNIT_EXPECT_NE(test, o->slot, cmd->slot);
		KUNIT_EXPECT_FALSE(test, ranges_overlap(o->reg_base, o->regs,
							cmd->reg_base,
							j->e.res.regs));
		KUNIT_EXPECT_FALSE(test, ranges_overlap(o->shared_base,
							o->shared,
							cmd->shared_base,
							j->e.res.shared));
	}
	KUNIT_EXPECT_LT(test, tbs, hw->desc.max_tbs_per_sm);
	KUNIT_EXPECT_LE(test, threads + j->e.res.threads,
			hw->desc.max_threads_per_sm);

	KUNIT_ASSERT_LT(test, hw->nr_run, MOCK_MAX_RUN);
	r = &hw->run[hw->nr_run++];
	r->job = j;
	r->tb = cmd->tb;
	r->sm = cmd->sm;
	r->slot = cmd->slot;
	r->reg_base = cmd->reg_base;
	r->regs = j->e.res.regs;
	r->shared_base = cmd->shared_base;
	r->shared = j->e.res.shared;
	r->threads = j->e.res.threads;
	r->done_at = hw->cycle + mock_tb_dur(j, cmd->tb);

	mock_hash(&hw->place_hash, j->order - hw->first_order);
	mock_hash(&hw->place_hash, hw->cycle - hw->epoch);
	mock_hash(&hw->place_hash, cmd->tb);
	mock_hash(&hw->place_hash, cmd->sm);
	mock_hash(&hw->place_hash, cmd->slot);
	mock_hash(&hw->place_hash, cmd->reg_base);
	mock_hash(&hw->place_hash, cmd->shared_base);

	if (!j->dispatched) {
		j->first_seq = hw->seq;
		j->first_cycle = hw->cycle;
	}
	j->last_seq = hw->seq;
	j->last_cycle = hw->cycle;
	j->dispatched++;
}

/* Step 1 of the lock-step protocol: apply every command at this cycle. */
static void mock_apply(struct mock_hw *hw)
{
	struct kunit *test = hw->test;
	u32 i, k;

	KUNIT_EXPECT_EQ(test, hw->overflows, 0);
	/* Every pass publishes all of its commands. */
	KUNIT_EXPECT_EQ(test, hw->visible, hw->nr_cmds);
	for (i = 0; i < hw->nr_cmds; i++) {
		const struct vgpu_cmd *cmd = &hw->cmds[i];
		struct mock_job *j;

		for (k = 0; k < sizeof(*cmd); k++)
			hw->hash = (hw->hash ^ ((const u8 *)cmd)[k]) *
				   1099511628211ull;
		hw->seq++;
		switch (cmd->op) {
		case VGPU_CMD_JOB_BEGIN:
			j = mock_find(hw, cmd->job);
			KUNIT_ASSERT_NOT_NULL(test, j);
			KUNIT_EXPECT_FALSE(test, j->begun);
			KUNIT_EXPECT_EQ(test, cmd->addr, j->e.desc_addr);
			j->begun = true;
			break;
		case VGPU_CMD_DISPATCH:
			mock_dispatch(hw, cmd);
			break;
		case VGPU_CMD_JOB_END:
			j = mock_find(hw, cmd->job);
			KUNIT_ASSERT_NOT_NULL(test, j);
			KUNIT_EXPECT_TRUE(test, j->begun);
			KUNIT_EXPECT_FALSE(test, j->ended);
			for (k = 0; k < hw->nr_run; k++)
				KUNIT_EXPECT_PTR_NE_MSG(test, hw->run[k].job, j,
							"JOB_END with a TB running");
			j->ended = true;
			break;
		case VGPU_CMD_WAKE_AT:
			KUNIT_EXPECT_GT(test, cmd->addr, hw->cycle);
			KUNIT_ASSERT_LT(test, hw->nr_wakes, MOCK_MAX_WAKES);
			hw->wakes[hw->nr_wakes++] = cmd->addr;
			hw->wake_cmds++;
			break;
		default:
			KUNIT_FAIL(test, "unknown command %u", cmd->op);
		}
	}
	hw->consumed += hw->nr_cmds;
	hw->nr_cmds = 0;
	hw->visible = 0;
}

/*
 * Step 2a: simulate to the next cycle at which something happens. Returns
 * false when there is nothing left to simulate.
 */
static bool mock_advance(struct mock_hw *hw)
{
	u64 next = U64_MAX;
	u32 i;

	for (i = 0; i < hw->nr_run; i++)
		next = min(next, hw->run[i].done_at);
	for (i = 0; i < hw->nr_wakes; i++)
		next = min(next, hw->wakes[i]);
	if (next == U64_MAX)
		return false;
	hw->cycle = next;
	return true;
}

/* Step 2b: post the events of this cycle and KICK. */
static void mock_kick(struct mock_hw *hw)
{
	struct kunit *test = hw->test;
	u64 next = hw->cycle, prev;
	struct vgpu_evt evt;
	u32 i;

	mutex_lock(&hw->lock);
	prev = hw->s.cycle;
	KUNIT_EXPECT_EQ(test, vgpu_sched_set_cycle(&hw->s, next), 0);
	vgpu_sched_applied(&hw->s, hw->consumed, prev);
	/* Completions of this cycle, last dispatched first. */
	for (i = hw->nr_run; i-- > 0;) {
		struct mock_run *r = &hw->run[i];

		if (r->done_at != next)
			continue;
		memset(&evt, 0, sizeof(evt));
		evt.type = VGPU_EVT_TB_DONE;
		evt.job = r->job->e.id;
		evt.cycle = next;
		evt.tb = r->tb;
		evt.sm = r->sm;
		evt.slot = r->slot;
		evt.warp_insts = 100;
		if ((s32)r->tb == r->job->fault_tb) {
			evt.status = r->job->fault_status;
			r->job->fault_seen = true;
		}
		*r = hw->run[--hw->nr_run];
		KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), 0);
	}
	for (i = hw->nr_wakes; i-- > 0;) {
		if (hw->wakes[i] != next)
			continue;
		hw->wakes[i] = hw->wakes[--hw->nr_wakes];
		memset(&evt, 0, sizeof(evt));
		evt.type = VGPU_EVT_WAKE;
		evt.cycle = next;
		KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), 0);
	}
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
}

static bool mock_step(struct mock_hw *hw)
{
	if (!mock_advance(hw))
		return false;
	mock_kick(hw);
	return true;
}

static void mock_run_all(struct mock_hw *hw)
{
	u32 steps = 0;

	mock_apply(hw);
	while (mock_step(hw)) {
		mock_apply(hw);
		KUNIT_ASSERT_LT(hw->test, ++steps, MOCK_MAX_STEPS);
	}
	KUNIT_EXPECT_EQ(hw->test, hw->nr_cmds, 0);
	KUNIT_EXPECT_EQ(hw->test, hw->nr_run, 0);
}

/* Every SM at full capacity, no job left in the KCB. */
static void expect_idle(struct mock_hw *hw)
{
	u32 sm;

	mutex_lock(&hw->lock);
	for (sm = 0; sm < hw->desc.num_sms; sm++)
		KUNIT_EXPECT_TRUE_MSG(hw->test, vgpu_smst_sm_empty(&hw->s.smst, sm),
				      "SM %u not back to full capacity", sm);
	KUNIT_EXPECT_TRUE(hw->test, list_empty(&hw->s.kcb.active));
	KUNIT_EXPECT_EQ(hw->test, hw->s.kcb.num_active, 0);
	mutex_unlock(&hw->lock);
}

static void expect_complete(struct mock_hw *hw, struct mock_job *j)
{
	struct kunit *test = hw->test;
	u32 tb;

	KUNIT_EXPECT_EQ(test, j->done_calls, 1);
	KUNIT_EXPECT_EQ(test, j->done_error, 0);
	KUNIT_EXPECT_TRUE(test, j->ended);
	KUNIT_EXPECT_EQ(test, j->e.tbs_done, j->e.num_tbs);
	KUNIT_EXPECT_EQ(test, j->e.warp_insts, 100ull * j->e.num_tbs);
	KUNIT_EXPECT_EQ(test, j->e.state, VGPU_KCB_DONE);
	KUNIT_EXPECT_EQ(test, j->e.start_cycle, j->first_cycle);
	for (tb = 0; tb < j->e.num_tbs; tb++)
		KUNIT_EXPECT_EQ_MSG(test, j->runs[tb], 1, "job %u TB %u",
				    j->order, tb);
}

/* Drop the test's references (the "job records") and the scheduler. */
static void mock_finish(struct mock_hw *hw)
{
	u32 i;

	mutex_lock(&hw->lock);
	vgpu_sched_detach(&hw->s, -EIO);
	mutex_unlock(&hw->lock);
	for (i = 0; i < hw->nr_jobs; i++) {
		vgpu_kcb_put(&hw->jobs[i]->e);
		KUNIT_EXPECT_TRUE(hw->test, hw->jobs[i]->released);
	}
	vgpu_sched_fini(&hw->s);
}

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
	{}
};

static struct kunit_suite vgpu_fcfs_suite = {
	.name = "vgpu_fcfs",
	.test_cases = vgpu_fcfs_cases,
};

kunit_test_suite(vgpu_fcfs_suite);
