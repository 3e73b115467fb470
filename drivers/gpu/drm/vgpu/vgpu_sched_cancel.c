// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu scheduler: ending jobs early - cancellation, time limits and the
 * sync quantum.
 *
 * A job fails when one of its thread blocks faults, when its time limit
 * passes (-ETIMEDOUT, a "guilty" job as drm_sched's timedout_job has one),
 * when its file is closed (-ECANCELED) or when the device goes away. A
 * failed job dispatches nothing more, and its blocks still on the SMs are
 * flushed off them (VGPU_CMD_PREEMPT with VGPU_PREEMPT_FLUSH, the cheapest
 * preemption of Park, dissertation, Ch. IV §4.2: the block is dropped, what
 * it wrote stays). When the last one is off, the next pass ends the job:
 * JOB_END, its fence signalled with the error. The other jobs are not
 * touched; their SMs are not preempted and their cycles are what they
 * would be with the failed job's blocks finishing at that moment.
 *
 * Time limits and the sync quantum are simulated time, never wall-clock
 * time, so that a run is repeatable: the scheduler asks the hardware to
 * come back at each deadline and, while blocks run, at least every
 * sync_quantum_cycles (VGPU_CMD_WAKE_AT), so that it acts even when no block
 * ends for a long time - a launch of another process is placed, a
 * preemption begins, a limit fires.
 */

#include <linux/lockdep.h>
#include <linux/minmax.h>

#include <kunit/visibility.h>

#include "vgpu_sched.h"
#include "vgpu_trace.h"

/**
 * vgpu_cycle_add() - a cycle some cycles later, saturating.
 * @cycle: a cycle.
 * @delta: cycles to add.
 *
 * Every deadline the scheduler computes goes through here, so that no value
 * of the device clock makes one wrap to the past.
 *
 * Return: @cycle + @delta, or U64_MAX when that does not fit.
 */
u64 vgpu_cycle_add(u64 cycle, u64 delta)
{
	return cycle > U64_MAX - delta ? U64_MAX : cycle + delta;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_cycle_add);

/**
 * vgpu_sched_cancel() - fail a job that has not ended.
 * @s: the scheduler.
 * @e: an active job.
 * @error: the negative errno it ends with (-ETIMEDOUT, -ECANCELED, ...),
 *	unless it failed already.
 *
 * Its blocks that have not started never will; those on the SMs are
 * flushed by the next vgpu_sched_run(), which the caller runs. Caller holds
 * the device lock.
 */
void vgpu_sched_cancel(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
		       int error)
{
	lockdep_assert_held(s->lock);
	if (!e->active || e->state == VGPU_KCB_DONE)
		return;
	if (!e->error)
		e->error = error;
	trace_vgpu_job_cancel(e->id, error, e->tbs_running, e->start_cycle,
			      s->cycle);
	dev_dbg(s->dev, "job %u cancelled at cycle %llu (%d): %u TBs on the SMs\n",
		e->id, s->cycle, error, e->tbs_running);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_cancel);

/**
 * vgpu_sched_flush_failed() - take the blocks of failed jobs off the SMs.
 * @s: the scheduler.
 *
 * A flush per running block of every job that failed and was not flushed
 * yet; a block already being preempted keeps that preemption, whose answer
 * frees it too. Caller holds the device lock.
 *
 * Return: false when the command ring filled up first (the next pass goes
 * on).
 */
bool vgpu_sched_flush_failed(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;
	u32 sm, slot;

	lockdep_assert_held(s->lock);
	list_for_each_entry(e, &s->kcb.active, link) {
		if (!e->error || !e->tbs_running)
			continue;
		for (sm = 0; sm < s->smst.num_sms; sm++) {
			for (slot = 0; slot < s->smst.max_tbs; slot++) {
				const struct vgpu_smst_slot *sl =
					vgpu_smst_slot(&s->smst, sm, slot);

				if (!sl || sl->job != e ||
				    vgpu_sched_slot_of(s, sm, slot)->preempting)
					continue;
				if (vgpu_sched_preempt_tb(s, sm, slot,
							  VGPU_TECH_FLUSH) == -ENOSPC)
					return false;
			}
		}
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_flush_failed);

/**
 * vgpu_sched_deadline() - the cycle at which a job's time limit passes.
 * @s: the scheduler.
 * @e: an active job.
 *
 * The limit is the lower of the launch's (&vgpu_kcb_entry.timeout_us) and
 * the device's (&vgpu_sched.job_timeout_us), 0 meaning none, in simulated
 * microseconds at the device's core clock, counted from the dispatch of the
 * job's first block (as drm_sched counts from a job's start on the
 * hardware: waiting for SMs does not count).
 *
 * Return: the cycle, or U64_MAX when the job has no limit or has not
 * started.
 */
u64 vgpu_sched_deadline(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e)
{
	u32 us = s->job_timeout_us;

	if (e->timeout_us && (!us || e->timeout_us < us))
		us = e->timeout_us;
	if (!us || !e->begun)
		return U64_MAX;
	return vgpu_cycle_add(e->start_cycle,
			      div_u64((u64)us * s->desc.core_clock_khz, 1000));
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_deadline);

/**
 * vgpu_sched_check_timeouts() - fail the jobs past their time limit.
 * @s: the scheduler.
 *
 * Caller holds the device lock.
 *
 * Return: the earliest deadline still to come, U64_MAX when none.
 */
u64 vgpu_sched_check_timeouts(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;
	u64 next = U64_MAX;

	lockdep_assert_held(s->lock);
	list_for_each_entry(e, &s->kcb.active, link) {
		u64 deadline;

		if (e->error)
			continue;
		deadline = vgpu_sched_deadline(s, e);
		if (deadline == U64_MAX)
			continue;
		if (s->cycle < deadline) {
			next = min(next, deadline);
			continue;
		}
		dev_dbg(s->dev, "job %u: time limit passed (started at cycle %llu, now %llu)\n",
			e->id, e->start_cycle, s->cycle);
		vgpu_sched_cancel(s, e, -ETIMEDOUT);
	}
	return next;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_check_timeouts);

/**
 * vgpu_sched_next_wake() - when the hardware must come back at the latest.
 * @s: the scheduler.
 * @deadline: the earliest time limit to come (vgpu_sched_check_timeouts()).
 *
 * While blocks run, the cycle one sync quantum from now
 * (&vgpu_sched.sync_quantum), or the deadline when it is earlier; with
 * nothing running, the deadline alone does not matter (a job that has not
 * started has none).
 *
 * Return: the cycle, U64_MAX when none.
 */
u64 vgpu_sched_next_wake(const struct vgpu_sched *s, u64 deadline)
{
	const struct vgpu_kcb_entry *e;

	list_for_each_entry(e, &s->kcb.active, link)
		if (e->tbs_running)
			return min(deadline, vgpu_cycle_add(s->cycle,
							    s->sync_quantum));
	return U64_MAX;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_next_wake);
