/* SPDX-License-Identifier: MIT */
/*
 * lockstep.h - the hardware's half of the lock-step protocol
 * (uapi/drm/vgpu_backend.h): apply the command processor's commands at the
 * current cycle, simulate to the next cycle at which something happens,
 * post that cycle's events and hand the turn back. vgpud runs it over the
 * backend's rings, libvgpu's local device over queues in its own memory:
 * one loop, so that both hosts give the same cycles.
 */
#ifndef VGPU_LOCKSTEP_H
#define VGPU_LOCKSTEP_H

#include <stdbool.h>
#include <stdint.h>

#include <drm/vgpu_backend.h>

#include "vgpu_sim.h"

/**
 * struct vgpu_lockstep_ops - how commands arrive and events leave.
 * @cmd_peek: the next published command, or NULL when there is none.
 * @cmd_pop: consume it.
 * @evt_space: free event slots.
 * @evt_push: queue one event (only when @evt_space was not 0).
 * @kick: publish the queued events and hand the turn to the command
 *	processor at @cycle; returns when it has answered (0 or -errno).
 * @log: a message for the operator (optional; printf-style).
 */
struct vgpu_lockstep_ops {
	const struct vgpu_cmd *(*cmd_peek)(void *ctx);
	void (*cmd_pop)(void *ctx);
	uint32_t (*evt_space)(void *ctx);
	void (*evt_push)(void *ctx, const struct vgpu_evt *evt);
	int (*kick)(void *ctx, uint64_t cycle);
	void (*log)(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

/**
 * struct vgpu_lockstep - the loop's state.
 * @sim: the model.
 * @ops: the transport.
 * @ctx: argument of @ops.
 * @status: the thread-block status table the command processor reads, or
 *	NULL.
 * @slots_per_sm: entries of @status per SM.
 * @wake_at: earliest WAKE_AT cycle requested, UINT64_MAX for none.
 * @events: events the model produced in the last turn (the wake-up's not
 *	counted).
 * @verbose: log applied settings (1) and every turn (2).
 */
struct vgpu_lockstep {
	struct vgpu_sim *sim;
	const struct vgpu_lockstep_ops *ops;
	void *ctx;
	struct vgpu_tb_status *status;
	uint32_t slots_per_sm;
	uint64_t wake_at;
	unsigned int events;
	unsigned int posted;
	int verbose;
};

void vgpu_lockstep_init(struct vgpu_lockstep *ls, struct vgpu_sim *sim,
			const struct vgpu_lockstep_ops *ops, void *ctx);
/*
 * Applies every published command at the current cycle; 0 or -errno. When
 * that posted events itself (a refused DISPATCH or PREEMPT), it kicks at
 * once, so that the command processor learns of them even when nothing is
 * left to simulate, and returns 1: the command processor has had a turn,
 * whose commands (a wake-up, dispatches) or hold of the clock come before
 * any simulation - the caller checks the hold and applies again.
 */
int vgpu_lockstep_apply(struct vgpu_lockstep *ls);
/* Whether a turn has anything to simulate (blocks resident or a wake-up due). */
bool vgpu_lockstep_busy(const struct vgpu_lockstep *ls);
/*
 * One turn: simulate to the next event cycle (or the wake-up), post the
 * events, fill the status table and kick; 0 or -errno.
 */
int vgpu_lockstep_turn(struct vgpu_lockstep *ls);

#endif /* VGPU_LOCKSTEP_H */
