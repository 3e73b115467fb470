// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a mock hardware for the thread-block scheduler, shared by the
 * policy suites (vgpu_fcfs_test.c, vgpu_policy_test.c).
 *
 * The mock plays vgpud: it takes the commands the scheduler emits (through
 * a command sink of limited capacity, like the ring), keeps its own
 * accounting of what runs where and checks every DISPATCH against the
 * device limits independently of the SMST (slots, threads, overlapping
 * register and shared-memory ranges), checks the FCFS order (when asked)
 * and the not-before cycles, lets each TB run for a per-job number of
 * cycles, and feeds TB_DONE (and WAKE) events back in lock-step, as the
 * daemon does with KICK.
 */

#include <linux/slab.h>

#include "vgpu_mock.h"
#include "vgpu_test.h"

/* ---- command sink ------------------------------------------------------ */

static u32 mock_space(void *ctx)
{
	struct mock_hw *hw = ctx;

	return hw->ring_cap - hw->nr_cmds;
}

static struct mock_job *mock_find(struct mock_hw *hw, u32 id);

/*
 * A DISPATCH as it is issued: it must follow the kernel scheduler's plan in
 * effect (per-SM quota, vgpu_sched_sm_quota(); SM owner, whose SM holds no
 * other kernel's TB: an SM is preempted whole). The SMST already counts
 * the TB.
 */
static void mock_check_plan(struct mock_hw *hw, const struct vgpu_cmd *cmd)
{
	struct mock_job *j = mock_find(hw, cmd->job);
	struct vgpu_kcb_entry *o;
	u32 q, i;

	if (!j || cmd->sm >= hw->desc.num_sms)
		return;
	q = vgpu_sched_sm_quota(&hw->s, &j->e, cmd->sm);
	if (q != VGPU_SCHED_NO_QUOTA)
		KUNIT_EXPECT_LE_MSG(hw->test,
				    vgpu_smst_kernel_tbs(&hw->s.smst, cmd->sm,
							 &j->e),
				    q, "job %u over its quota on SM %u",
				    j->order, cmd->sm);
	o = hw->s.sm_owner[cmd->sm];
	if (!o)
		return;
	KUNIT_EXPECT_PTR_EQ_MSG(hw->test, o, &j->e,
				"job %u on SM %u of another job",
				j->order, cmd->sm);
	for (i = 0; i < hw->nr_run; i++)
		KUNIT_EXPECT_FALSE_MSG(hw->test,
				       hw->run[i].sm == cmd->sm &&
				       hw->run[i].job != j,
				       "job %u on SM %u beside job %u",
				       j->order, cmd->sm, hw->run[i].job->order);
}

static void mock_emit(void *ctx, const struct vgpu_cmd *cmd)
{
	struct mock_hw *hw = ctx;

	if (cmd->op == VGPU_CMD_DISPATCH)
		mock_check_plan(hw, cmd);

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

/* Save areas: fake device addresses, counted so that leaks show. */
static void *mock_ctx_alloc(void *ctx, u64 bytes, u64 *addr)
{
	struct mock_hw *hw = ctx;
	u64 *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return NULL;
	hw->next_ctx_addr += round_up(bytes, 4096) + 4096;
	*a = hw->next_ctx_addr;
	*addr = *a;
	hw->ctx_live++;
	return a;
}

static void mock_ctx_free(void *ctx, void *handle)
{
	struct mock_hw *hw = ctx;

	KUNIT_EXPECT_NOT_NULL(hw->test, handle);
	kfree(handle);
	hw->ctx_live--;
}

const struct vgpu_cmd_sink_ops mock_sink_ops = {
	.space = mock_space,
	.emit = mock_emit,
	.publish = mock_publish,
	.ctx_alloc = mock_ctx_alloc,
	.ctx_free = mock_ctx_free,
};

/* ---- KCB entry owner callbacks --------------------------------------- */

static void mock_job_done(struct vgpu_kcb_entry *e)
{
	struct mock_job *j = container_of(e, struct mock_job, e);

	u32 i;

	j->done_calls++;
	j->done_error = e->error;
	j->done_cycle = j->hw->cycle;
	KUNIT_EXPECT_EQ(j->hw->test, e->state, VGPU_KCB_DONE);
	/* The job's fence signals: what vgpu_job_dep_cb() does per waiter. */
	for (i = 0; i < j->nr_waiters; i++)
		vgpu_kcb_dep_signal(&j->waiters[i]->e, e->error);
	j->nr_waiters = 0;
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

void mock_desc(struct vgpu_device_desc *d)
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

struct mock_hw *mock_new(struct kunit *test, u32 ring_cap)
{
	struct vgpu_device_desc desc;

	mock_desc(&desc);
	return mock_new_desc(test, ring_cap, &desc);
}

struct mock_hw *mock_new_desc(struct kunit *test, u32 ring_cap,
			      const struct vgpu_device_desc *desc)
{
	struct mock_hw *hw = kunit_kzalloc(test, sizeof(*hw), GFP_KERNEL);
	const char *why;

	KUNIT_ASSERT_NOT_NULL(test, hw);
	hw->test = test;
	hw->ring_cap = ring_cap;
	hw->hash = 14695981039346656037ull;
	hw->check_fcfs = true;
	mutex_init(&hw->lock);
	hw->desc = *desc;
	KUNIT_ASSERT_EQ(test, vgpu_desc_validate(&hw->desc, &why), 0);
	vgpu_sched_init(&hw->s, &hw->lock, NULL);
	mutex_lock(&hw->lock);
	KUNIT_EXPECT_EQ(test, vgpu_sched_attach(&hw->s, &hw->desc,
						&mock_sink_ops, hw), 0);
	mutex_unlock(&hw->lock);
	return hw;
}

struct mock_job *mock_job_new(struct mock_hw *hw, u32 num_tbs, u32 threads,
			      u32 regs, u32 shared, u32 dur)
{
	struct kunit *test = hw->test;
	struct mock_job *j = kunit_kzalloc(test, sizeof(*j), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, j);
	KUNIT_ASSERT_LT(test, hw->nr_jobs, MOCK_MAX_JOBS);
	j->runs = kunit_kzalloc(test, num_tbs, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, j->runs);
	j->saved = kunit_kzalloc(test, num_tbs, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, j->saved);
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
void mock_submit(struct mock_hw *hw, struct mock_job *j)
{
	mutex_lock(&hw->lock);
	KUNIT_ASSERT_EQ(hw->test, vgpu_kcb_add(&hw->s.kcb, &j->e, hw->s.cycle),
			0);
	vgpu_sched_run(&hw->s);
	mutex_unlock(&hw->lock);
}

/*
 * SUBMIT of a job with in-fences: the ends of @deps, and @nr_external
 * fences from elsewhere that the test signals itself with
 * vgpu_kcb_dep_signal(). A dependency that has ended counts at once, with
 * its error, as a signalled dma_fence does (vgpu_job_deps_arm()).
 */
void mock_submit_deps(struct mock_hw *hw, struct mock_job *j,
		      struct mock_job **deps, u32 nr_deps, u32 nr_external)
{
	u32 i;

	mutex_lock(&hw->lock);
	vgpu_kcb_deps_init(&j->e, nr_deps + nr_external);
	KUNIT_ASSERT_EQ(hw->test, vgpu_kcb_add(&hw->s.kcb, &j->e, hw->s.cycle),
			0);
	for (i = 0; i < nr_deps; i++) {
		struct mock_job *d = deps[i];

		if (d->e.state == VGPU_KCB_DONE) {
			vgpu_kcb_dep_signal(&j->e, d->e.error);
			continue;
		}
		KUNIT_ASSERT_LT(hw->test, d->nr_waiters, MOCK_MAX_WAITERS);
		d->waiters[d->nr_waiters++] = j;
	}
	vgpu_kcb_deps_arm(&j->e);
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

void mock_hash(u64 *hash, u64 v)
{
	u32 k;

	for (k = 0; k < 8; k++, v >>= 8)
		*hash = (*hash ^ (v & 0xff)) * 1099511628211ull;
}

static void mock_dispatch(struct mock_hw *hw, const struct vgpu_cmd *cmd)
{
	struct kunit *test = hw->test;
	struct mock_job *j = mock_find(hw, cmd->job);
	u32 threads = 0, tbs = 0, i, max_tbs, max_threads;
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
	/* Only a switched TB is resumed, and it always is. */
	KUNIT_EXPECT_EQ_MSG(test, !!(cmd->flags & VGPU_DISPATCH_RESTORE),
			    j->saved[cmd->tb], "job %u TB %u restore", j->order,
			    cmd->tb);
	if (cmd->flags & VGPU_DISPATCH_RESTORE) {
		KUNIT_EXPECT_NE(test, cmd->addr, 0);
		hw->restores++;
	}
	j->saved[cmd->tb] = 0;
	KUNIT_EXPECT_GE_MSG(test, hw->cycle, j->e.not_before,
			    "job %u started before its not-before cycle",
			    j->order);

	/* FCFS: every job ahead must have dispatched all of its TBs (or failed). */
	for (i = 0; hw->check_fcfs && i < hw->nr_jobs; i++) {
		struct mock_job *k = hw->jobs[i];

		if (k == j || !k->e.kcb || k->e.blocked)
			continue;	/* FCFS passes jobs waiting for in-fences */
		if (k->e.arrival < j->e.arrival ||
		    (k->e.arrival == j->e.arrival && k->order < j->order))
			KUNIT_EXPECT_TRUE_MSG(test, k->dispatched == k->e.num_tbs ||
					      k->fault_seen || k->e.error,
					      "job %u overtook job %u",
					      j->order, k->order);
	}

	/*
	 * Per-SM limits, checked against the mock's own accounting; under
	 * Virtual Thread the capacity limit (every TB runs, as under max).
	 */
	max_tbs = hw->vt ? VGPU_VT_MAX_TBS : hw->desc.max_tbs_per_sm;
	max_threads = hw->vt ? max_t(u32, hw->desc.max_threads_per_sm,
				     VGPU_VT_VIRTUAL_WARPS * 32) :
			       hw->desc.max_threads_per_sm;
	KUNIT_ASSERT_LT(test, cmd->sm, hw->desc.num_sms);
	KUNIT_ASSERT_LT(test, cmd->slot, max_tbs);
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
	KUNIT_EXPECT_LT(test, tbs, max_tbs);
	for (i = 0, tbs = 1; i < hw->nr_run; i++)
		if (hw->run[i].sm == cmd->sm && hw->run[i].job == j)
			tbs++;
	hw->max_on_sm[j->order] = max(hw->max_on_sm[j->order], tbs);

	KUNIT_EXPECT_LE(test, threads + j->e.res.threads, max_threads);

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
	r->start = hw->cycle;
	r->preempt = 0;
	r->prio = false;
	r->paused = false;
	r->order = hw->dispatches++;
	r->done_at = hw->cycle + mock_tb_dur(j, cmd->tb);
	if (j->sat && tbs > j->sat)
		r->done_at = hw->cycle +
			     div_u64((u64)mock_tb_dur(j, cmd->tb) * tbs, j->sat);

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

/* The running block a PREEMPT or SET_TB_PRIORITY names; a failure if none. */
static struct mock_run *mock_named_run(struct mock_hw *hw,
				       const struct vgpu_cmd *cmd)
{
	u32 k;

	for (k = 0; k < hw->nr_run; k++) {
		struct mock_run *r = &hw->run[k];

		if (r->job->e.id == cmd->job && r->tb == cmd->tb &&
		    r->sm == cmd->sm && r->slot == cmd->slot)
			return r;
	}
	KUNIT_FAIL(hw->test, "command %u for job %u TB %u, not running",
		   cmd->op, cmd->job, cmd->tb);
	return NULL;
}

/* Step 1 of the lock-step protocol: apply every command at this cycle. */
void mock_apply(struct mock_hw *hw)
{
	struct kunit *test = hw->test;
	u32 i, k;

	KUNIT_EXPECT_EQ(test, hw->overflows, 0);
	/* Every pass publishes all of its commands. */
	KUNIT_EXPECT_EQ(test, hw->visible, hw->nr_cmds);
	for (i = 0; i < hw->nr_cmds; i++) {
		const struct vgpu_cmd *cmd = &hw->cmds[i];
		struct mock_run *r;
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
		case VGPU_CMD_RESET:
			/* Only an unused device starts afresh: nothing runs. */
			KUNIT_EXPECT_EQ(test, hw->nr_run, 0);
			hw->resets++;
			break;
		case VGPU_CMD_PREEMPT:
			r = mock_named_run(hw, cmd);
			if (!r)
				break;
			KUNIT_EXPECT_EQ(test, r->preempt, 0);
			KUNIT_EXPECT_TRUE(test,
					  cmd->flags == VGPU_PREEMPT_FLUSH ||
					  ((cmd->flags == VGPU_PREEMPT_SWITCH ||
					    cmd->flags == VGPU_PREEMPT_IDEAL) &&
					   cmd->addr != 0));
			r->preempt = cmd->flags;
			/* A switch saves for a while, the others are quick. */
			r->done_at = hw->cycle +
				     (cmd->flags == VGPU_PREEMPT_SWITCH ? 7 : 1);
			break;
		case VGPU_CMD_SET_KERNEL_SCHED:
			KUNIT_EXPECT_LT(test, cmd->flags, VGPU_KSCHED_COUNT);
			hw->ksched = cmd->flags;
			hw->ksched_cmds++;
			break;
		case VGPU_CMD_SET_WARP_SCHED:
			KUNIT_EXPECT_LT(test, cmd->flags, VGPU_WARP_SCHED_COUNT);
			hw->wsched = cmd->flags;
			hw->wsched_cmds++;
			break;
		case VGPU_CMD_SET_SUBCORE_ASSIGN:
			KUNIT_EXPECT_LT(test, cmd->flags,
					VGPU_SUBCORE_ASSIGN_COUNT);
			hw->subcore = cmd->flags;
			break;
		case VGPU_CMD_SET_VIRTUAL_THREAD:
			KUNIT_EXPECT_LT(test, cmd->flags, VGPU_VT_COUNT);
			hw->vt = cmd->flags;
			hw->vt_cmds++;
			break;
		case VGPU_CMD_SET_TB_PRIORITY:
			/* Once per block, and only for one that runs there. */
			hw->prio_cmds++;
			r = mock_named_run(hw, cmd);
			if (!r)
				break;
			KUNIT_EXPECT_FALSE(test, r->prio);
			KUNIT_EXPECT_EQ(test, r->preempt, 0);
			r->prio = true;
			break;
		case VGPU_CMD_SET_SAMPLING:
			hw->sampling = cmd->addr;
			break;
		case VGPU_CMD_SET_SM_GATED:
			/* Only a change. */
			KUNIT_ASSERT_LT(test, cmd->sm, hw->desc.num_sms);
			KUNIT_EXPECT_LE(test, cmd->flags, 1);
			KUNIT_EXPECT_NE(test, hw->gated[cmd->sm], !!cmd->flags);
			hw->gated[cmd->sm] = cmd->flags;
			break;
		case VGPU_CMD_SET_TB_PAUSED:
			/* Only a change, and only for a block that runs there. */
			hw->pause_cmds++;
			r = mock_named_run(hw, cmd);
			if (!r)
				break;
			KUNIT_EXPECT_LE(test, cmd->flags, 1);
			KUNIT_EXPECT_NE(test, r->paused, !!cmd->flags);
			r->paused = cmd->flags;
			break;
		case VGPU_CMD_WAKE_AT:
			if (!cmd->addr) {
				/* forget them all */
				hw->nr_wakes = 0;
				break;
			}
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
bool mock_advance(struct mock_hw *hw)
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
void mock_kick(struct mock_hw *hw)
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
		evt.tb_cycles = next - r->start;
		if (r->preempt) {
			/* Half way through: a switch keeps it, a flush loses it. */
			evt.type = VGPU_EVT_PREEMPTED;
			evt.flags = r->preempt;
			evt.warp_insts = 50;
			r->job->runs[r->tb]--;
			if (r->preempt != VGPU_PREEMPT_FLUSH) {
				r->job->saved[r->tb] = 1;
				hw->switches++;
			} else {
				hw->flushes++;
			}
			*r = hw->run[--hw->nr_run];
			KUNIT_EXPECT_EQ(test, vgpu_sched_event(&hw->s, &evt), 0);
			continue;
		}
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
	/* The daemon waits in this kick: its progress reports are current. */
	hw->s.fresh_status = true;
	vgpu_sched_run(&hw->s);
	hw->s.fresh_status = false;
	mutex_unlock(&hw->lock);
}

bool mock_step(struct mock_hw *hw)
{
	if (!mock_advance(hw))
		return false;
	mock_kick(hw);
	return true;
}

void mock_run_all(struct mock_hw *hw)
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
void expect_idle(struct mock_hw *hw)
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

void expect_complete(struct mock_hw *hw, struct mock_job *j)
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
void mock_finish(struct mock_hw *hw)
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
