// SPDX-License-Identifier: MIT
/*
 * lockstep.c - the hardware's half of the lock-step protocol (lockstep.h),
 * shared by vgpud and libvgpu's local device.
 */
#include "lockstep.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define LOCKSTEP_EVT_BATCH	256

void vgpu_lockstep_init(struct vgpu_lockstep *ls, struct vgpu_sim *sim,
			const struct vgpu_lockstep_ops *ops, void *ctx)
{
	memset(ls, 0, sizeof(*ls));
	ls->sim = sim;
	ls->ops = ops;
	ls->ctx = ctx;
	ls->wake_at = UINT64_MAX;
}

#define lockstep_log(ls, ...) \
	do { if ((ls)->ops->log) (ls)->ops->log((ls)->ctx, __VA_ARGS__); } while (0)

/* Queues an event; the queue only fills up if the command processor stops consuming. */
static int post_event(struct vgpu_lockstep *ls, const struct vgpu_evt *evt)
{
	if (!ls->ops->evt_space(ls->ctx)) {
		int ret = ls->ops->kick(ls->ctx, vgpu_sim_cycle(ls->sim));

		if (ret)
			return ret;
		if (!ls->ops->evt_space(ls->ctx))
			return -ENOSPC;
	}
	ls->ops->evt_push(ls->ctx, evt);
	ls->posted++;
	return 0;
}

/* A DISPATCH the model refused still owes the command processor a completion. */
static int refuse_dispatch(struct vgpu_lockstep *ls, const struct vgpu_cmd *cmd, int err)
{
	struct vgpu_evt evt = {
		.type = VGPU_EVT_TB_DONE,
		.job = cmd->job,
		.cycle = vgpu_sim_cycle(ls->sim),
		.tb = cmd->tb,
		.sm = cmd->sm,
		.slot = cmd->slot,
		.status = err,
	};

	lockstep_log(ls, "dispatch of job %u tb %u to sm %u slot %u refused: %s",
		     cmd->job, cmd->tb, cmd->sm, cmd->slot, strerror(-err));
	return post_event(ls, &evt);
}

/* One command at the current cycle; 0 or -errno of the transport. */
static int apply_one(struct vgpu_lockstep *ls, const struct vgpu_cmd *c)
{
	int ret;

	switch (c->op) {
	case VGPU_CMD_NOP:
		return 0;
	case VGPU_CMD_JOB_BEGIN:
		ret = vgpu_sim_job_begin(ls->sim, c->job, c->addr);
		if (ret)
			lockstep_log(ls, "job %u: begin failed: %s", c->job, strerror(-ret));
		return 0;
	case VGPU_CMD_DISPATCH:
		ret = vgpu_sim_dispatch(ls->sim, c);
		return ret ? refuse_dispatch(ls, c, ret) : 0;
	case VGPU_CMD_PREEMPT:
		/*
		 * The model answers every PREEMPT with a PREEMPTED event, a
		 * refusal too (negative status); only when it could not queue
		 * that is it posted here.
		 */
		ret = vgpu_sim_preempt(ls->sim, c);
		if (ret == -ENOMEM) {
			struct vgpu_evt evt = {
				.type = VGPU_EVT_PREEMPTED, .flags = c->flags,
				.job = c->job, .cycle = vgpu_sim_cycle(ls->sim),
				.tb = c->tb, .sm = c->sm, .slot = c->slot, .status = ret,
			};

			return post_event(ls, &evt);
		}
		if (ret)
			lockstep_log(ls, "preempt of job %u tb %u on sm %u slot %u refused: %s",
				     c->job, c->tb, c->sm, c->slot, strerror(-ret));
		return 0;
	case VGPU_CMD_JOB_END:
		vgpu_sim_job_end(ls->sim, c->job);
		return 0;
	case VGPU_CMD_RESET:
		vgpu_sim_reset(ls->sim);
		return 0;
	case VGPU_CMD_SET_KERNEL_SCHED:
		/* kernel-aware warp scheduling (model.rst) from this cycle on */
		if (vgpu_sim_set_kernel_sched(ls->sim, c->flags))
			lockstep_log(ls, "kernel-aware scheduling mode %u refused", c->flags);
		else if (ls->verbose)
			lockstep_log(ls, "kernel-aware scheduling mode %u at cycle %" PRIu64,
				     c->flags, vgpu_sim_cycle(ls->sim));
		return 0;
	case VGPU_CMD_SET_WARP_SCHED:
		/* the warp scheduler (model.rst) from this cycle on */
		if (vgpu_sim_warp_sched_cmd(ls->sim, c->flags))
			lockstep_log(ls, "warp scheduler %u refused", c->flags);
		else if (ls->verbose)
			lockstep_log(ls, "warp scheduler %u at cycle %" PRIu64, c->flags,
				     vgpu_sim_cycle(ls->sim));
		return 0;
	case VGPU_CMD_SET_SUBCORE_ASSIGN:
		/* sub-core assignment of the warps dispatched from this cycle on */
		if (vgpu_sim_subcore_assign_cmd(ls->sim, c->flags))
			lockstep_log(ls, "sub-core assignment %u refused", c->flags);
		else if (ls->verbose)
			lockstep_log(ls, "sub-core assignment %u at cycle %" PRIu64, c->flags,
				     vgpu_sim_cycle(ls->sim));
		return 0;
	case VGPU_CMD_SET_VIRTUAL_THREAD:
		/* Virtual Thread (model.rst): sent while no block is resident */
		if (vgpu_sim_set_virtual_thread(ls->sim, c->flags))
			lockstep_log(ls, "virtual thread mode %u refused", c->flags);
		else if (ls->verbose)
			lockstep_log(ls, "virtual thread mode %u at cycle %" PRIu64, c->flags,
				     vgpu_sim_cycle(ls->sim));
		return 0;
	case VGPU_CMD_SET_TB_PRIORITY:
		/* a block another kernel waits for (model.rst) issues first */
		if (vgpu_sim_tb_priority_cmd(ls->sim, c) && ls->verbose)
			lockstep_log(ls, "priority for job %u tb %u on sm %u slot %u: no such block",
				     c->job, c->tb, c->sm, c->slot);
		return 0;
	case VGPU_CMD_SET_TB_PAUSED:
		/* DYNCTA's CTA pausing (model.rst) */
		if (vgpu_sim_tb_paused_cmd(ls->sim, c) && ls->verbose)
			lockstep_log(ls, "pause %u for job %u tb %u on sm %u slot %u: no such block",
				     c->flags, c->job, c->tb, c->sm, c->slot);
		return 0;
	case VGPU_CMD_SET_SM_GATED:
		/* DYNCORE turned an SM off or on (model.rst, power) */
		if (vgpu_sim_set_sm_gated(ls->sim, c->sm, c->flags))
			lockstep_log(ls, "gating of sm %u refused", c->sm);
		return 0;
	case VGPU_CMD_SET_SAMPLING:
		/* per-SM counters every period (DYNCTA, DYNCORE) */
		vgpu_sim_set_sampling(ls->sim, c->addr);
		if (ls->verbose)
			lockstep_log(ls, "sampling every %" PRIu64 " cycles from cycle %" PRIu64,
				     (uint64_t)c->addr, vgpu_sim_cycle(ls->sim));
		return 0;
	case VGPU_CMD_WAKE_AT:
		if (!c->addr) {
			ls->wake_at = UINT64_MAX;	/* none needed any more */
		} else if (c->addr <= vgpu_sim_cycle(ls->sim)) {
			/*
			 * Asked for during the last turn, for a cycle that
			 * turn passed: its kick gave the command processor
			 * its pass at or after it, which is what the wake-up
			 * was for. Kept, this earliest one would hide the
			 * wake-up that pass asked for (queued behind it), fire
			 * at once, and leave none: blocks that never end
			 * would run on without a kick.
			 */
		} else if (c->addr < ls->wake_at) {
			ls->wake_at = c->addr;
		}
		return 0;
	default:
		lockstep_log(ls, "unknown command %u ignored", c->op);
		return 0;
	}
}

int vgpu_lockstep_apply(struct vgpu_lockstep *ls)
{
	const struct vgpu_cmd *cmd;

	ls->posted = 0;
	while ((cmd = ls->ops->cmd_peek(ls->ctx))) {
		struct vgpu_cmd c = *cmd;
		int ret;

		ls->ops->cmd_pop(ls->ctx);
		ret = apply_one(ls, &c);
		if (ret)
			return ret;
	}
	/*
	 * A refusal is an event the command processor must see now. Its turn
	 * may publish commands - the wake-up that bounds the next turn among
	 * them - and may hold the clock: simulating before those are applied
	 * could run a block that never ends past every time limit, without
	 * another kick.
	 */
	if (ls->posted) {
		int ret = ls->ops->kick(ls->ctx, vgpu_sim_cycle(ls->sim));

		return ret ? ret : 1;
	}
	return 0;
}

bool vgpu_lockstep_busy(const struct vgpu_lockstep *ls)
{
	return vgpu_sim_busy(ls->sim) || ls->wake_at != UINT64_MAX;
}

int vgpu_lockstep_turn(struct vgpu_lockstep *ls)
{
	struct vgpu_evt evts[LOCKSTEP_EVT_BATCH];
	uint64_t cycle;
	int n, ret;

	n = vgpu_sim_step(ls->sim, ls->wake_at, evts, LOCKSTEP_EVT_BATCH);
	if (n < 0)
		return n;
	ls->events = (unsigned int)n;
	cycle = vgpu_sim_cycle(ls->sim);
	if (n == 0 && ls->wake_at != UINT64_MAX && cycle < ls->wake_at) {
		/* Nothing happened before the wake-up: time jumps there. */
		vgpu_sim_set_cycle(ls->sim, ls->wake_at);
		cycle = ls->wake_at;
	}
	for (int i = 0; i < n; i++) {
		ret = post_event(ls, &evts[i]);
		if (ret)
			return ret;
	}
	if (ls->wake_at != UINT64_MAX && cycle >= ls->wake_at) {
		struct vgpu_evt wake = { .type = VGPU_EVT_WAKE, .cycle = cycle };

		ls->wake_at = UINT64_MAX;
		ret = post_event(ls, &wake);
		if (ret)
			return ret;
	}
	if (ls->verbose > 1)
		lockstep_log(ls, "cycle %" PRIu64 ": %d events", cycle, n);
	/* What the command processor may read of running blocks while it has the turn. */
	if (ls->status)
		vgpu_sim_tb_status(ls->sim, ls->status, ls->slots_per_sm);
	return ls->ops->kick(ls->ctx, cycle);
}
