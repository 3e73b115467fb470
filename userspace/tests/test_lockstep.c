// SPDX-License-Identifier: MIT
/*
 * test_lockstep - the hardware's half of the lock-step protocol
 * (userspace/sim/lockstep.c) over a transport of plain arrays, with the
 * real model: what the command processor is told, and when.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/vgpu_backend.h>

#include "sim/lockstep.h"
#include "sim/vgpu_sim.h"
#include "tap.h"

#define QUEUE	16

struct transport {
	struct vgpu_cmd cmds[QUEUE];
	unsigned int ncmds, next_cmd;
	struct vgpu_evt evts[QUEUE];
	unsigned int nevts;
	/* events published at each kick, and the kicks' cycles */
	unsigned int kicks, evts_at_kick[QUEUE];
	uint64_t kick_cycle[QUEUE];
	/* what the command processor publishes in its turn at the first kick */
	struct vgpu_cmd at_first_kick;
};

static const struct vgpu_cmd *t_peek(void *ctx)
{
	struct transport *t = ctx;

	return t->next_cmd < t->ncmds ? &t->cmds[t->next_cmd] : NULL;
}

static void t_pop(void *ctx)
{
	((struct transport *)ctx)->next_cmd++;
}

static uint32_t t_space(void *ctx)
{
	return QUEUE - ((struct transport *)ctx)->nevts;
}

static void t_push(void *ctx, const struct vgpu_evt *evt)
{
	struct transport *t = ctx;

	t->evts[t->nevts++] = *evt;
}

static int t_kick(void *ctx, uint64_t cycle)
{
	struct transport *t = ctx;

	if (t->kicks < QUEUE) {
		t->evts_at_kick[t->kicks] = t->nevts;
		t->kick_cycle[t->kicks] = cycle;
	}
	if (!t->kicks && t->at_first_kick.op && t->ncmds < QUEUE)
		t->cmds[t->ncmds++] = t->at_first_kick;
	t->kicks++;
	return 0;
}

static const struct vgpu_lockstep_ops t_ops = {
	.cmd_peek = t_peek,
	.cmd_pop = t_pop,
	.evt_space = t_space,
	.evt_push = t_push,
	.kick = t_kick,
};

/* The real model at @cycle behind the lock-step over @t; 0 or -1. */
static int rig(struct transport *t, struct vgpu_lockstep *ls, struct vgpu_sim **sim,
	       uint64_t cycle)
{
	static uint8_t vram[1 << 16];
	struct vgpu_sim_config cfg;

	memset(t, 0, sizeof(*t));
	if (vgpu_sim_preset("fermi-gtx480", &cfg))
		return -1;
	*sim = vgpu_sim_create(&cfg, vram, sizeof(vram));
	if (!*sim)
		return -1;
	vgpu_sim_set_cycle(*sim, cycle);
	vgpu_lockstep_init(ls, *sim, &t_ops, t);
	return 0;
}

/*
 * A DISPATCH the model refuses, on an idle device: the refusal (a TB_DONE
 * with the error) reaches the command processor at once, in a kick, and is
 * not left in the event queue while the daemon sleeps with nothing to
 * simulate - the job would hang until an unrelated one woke the daemon.
 */
static int refused_dispatch_is_kicked(void)
{
	struct transport t;
	struct vgpu_lockstep ls;
	struct vgpu_sim *sim;
	int ret;

	CHECK(!rig(&t, &ls, &sim, 1234), "the model behind the lock-step");
	/* job 7 never began: the model refuses its block */
	t.cmds[t.ncmds++] = (struct vgpu_cmd){
		.op = VGPU_CMD_DISPATCH, .job = 7, .tb = 3, .sm = 1, .slot = 2,
	};
	ret = vgpu_lockstep_apply(&ls);
	CHECK(ret == 1, "apply: %d, want 1 (it kicked)", ret);
	CHECK(!vgpu_lockstep_busy(&ls), "nothing to simulate");
	CHECK(t.nevts == 1 && t.evts[0].type == VGPU_EVT_TB_DONE &&
	      t.evts[0].job == 7 && t.evts[0].tb == 3 && t.evts[0].sm == 1 &&
	      t.evts[0].slot == 2 && t.evts[0].status == -ENOENT,
	      "one TB_DONE(-ENOENT) for job 7 block 3 (%u events, status %d)",
	      t.nevts, t.nevts ? t.evts[0].status : 0);
	CHECK(t.kicks == 1, "the refusal was kicked %u times, want 1", t.kicks);
	CHECK(t.evts_at_kick[0] == 1 && t.kick_cycle[0] == 1234,
	      "kicked with the event, at the current cycle (%u events, cycle %llu)",
	      t.evts_at_kick[0], (unsigned long long)t.kick_cycle[0]);

	/* Commands that post nothing do not kick. */
	t.cmds[t.ncmds++] = (struct vgpu_cmd){ .op = VGPU_CMD_NOP };
	t.cmds[t.ncmds++] = (struct vgpu_cmd){ .op = VGPU_CMD_WAKE_AT, .addr = 5000 };
	ret = vgpu_lockstep_apply(&ls);
	CHECK(ret == 0 && t.kicks == 1, "no kick without an event (%d, %u kicks)", ret,
	      t.kicks);
	vgpu_sim_destroy(sim);
	return 0;
}

/*
 * The command processor's turn at a refusal's kick publishes a wake-up:
 * it is applied before the next simulation, which stops there. (Simulated
 * first, a block that never ends ran on without a kick - past its time
 * limit, past every sync quantum - until the daemon watchdog took the
 * daemon for dead.)
 */
static int refusal_turn_commands_come_first(void)
{
	struct transport t;
	struct vgpu_lockstep ls;
	struct vgpu_sim *sim;
	int ret;

	CHECK(!rig(&t, &ls, &sim, 1000), "the model behind the lock-step");
	/* job 9 never began (a launch the model refused): its block is refused */
	t.cmds[t.ncmds++] = (struct vgpu_cmd){
		.op = VGPU_CMD_DISPATCH, .job = 9, .tb = 0, .sm = 0, .slot = 0,
	};
	t.at_first_kick = (struct vgpu_cmd){ .op = VGPU_CMD_WAKE_AT, .addr = 11000 };
	ret = vgpu_lockstep_apply(&ls);
	CHECK(ret == 1 && t.kicks == 1, "the refused DISPATCH is kicked: %d, %u kicks", ret,
	      t.kicks);
	CHECK(t.nevts == 1 && t.evts[0].type == VGPU_EVT_TB_DONE &&
	      t.evts[0].status == -ENOENT, "one TB_DONE(-ENOENT) (%u events, status %d)",
	      t.nevts, t.nevts ? t.evts[0].status : 0);
	CHECK(ls.wake_at == UINT64_MAX, "the turn's wake-up is not applied yet");
	ret = vgpu_lockstep_apply(&ls);
	CHECK(ret == 0 && ls.wake_at == 11000,
	      "applied again: the wake-up at 11000 (%d, wake-up %llu)", ret,
	      (unsigned long long)ls.wake_at);
	CHECK(vgpu_lockstep_busy(&ls), "a wake-up is due");
	ret = vgpu_lockstep_turn(&ls);
	CHECK(ret == 0 && t.kicks == 2 && t.kick_cycle[1] == 11000,
	      "the next turn ends at the wake-up (%d, %u kicks, cycle %llu)", ret, t.kicks,
	      (unsigned long long)t.kick_cycle[1]);
	CHECK(t.nevts == 2 && t.evts[1].type == VGPU_EVT_WAKE, "with a WAKE event");
	vgpu_sim_destroy(sim);
	return 0;
}

/*
 * A wake-up asked for during a turn, for a cycle that turn passed (a
 * launch's not-before cycle, its time limit, a full ring's next cycle),
 * reaches the daemon with the one the turn's kick asked for behind it. The
 * stale one is void; the daemon waits for the other. (Kept as the earlier
 * of the two, it fired at once, the command processor took its own, later
 * one for pending and asked for none: with blocks that never end, the
 * daemon simulated on without a kick until the watchdog detached it.)
 */
static int stale_wake_is_void(void)
{
	struct transport t;
	struct vgpu_lockstep ls;
	struct vgpu_sim *sim;
	int ret;

	CHECK(!rig(&t, &ls, &sim, 1000), "the model behind the lock-step");
	t.cmds[t.ncmds++] = (struct vgpu_cmd){ .op = VGPU_CMD_WAKE_AT, .addr = 11000 };
	ret = vgpu_lockstep_apply(&ls);
	CHECK(ret == 0 && ls.wake_at == 11000, "a wake-up at 11000 (%d)", ret);
	/* During the turn: a launch not before cycle 6000 asks for 6000. */
	t.cmds[t.ncmds++] = (struct vgpu_cmd){ .op = VGPU_CMD_WAKE_AT, .addr = 6000 };
	/* The turn's kick, at 11000: its pass asks for 21000. */
	t.at_first_kick = (struct vgpu_cmd){ .op = VGPU_CMD_WAKE_AT, .addr = 21000 };
	ret = vgpu_lockstep_turn(&ls);
	CHECK(ret == 0 && t.kicks == 1 && t.kick_cycle[0] == 11000, "kicked at 11000 (%d)",
	      ret);
	ret = vgpu_lockstep_apply(&ls);
	CHECK(ret == 0 && ls.wake_at == 21000,
	      "the wake-up for 6000, passed, is void; 21000 stands (%d, wake-up %llu)", ret,
	      (unsigned long long)ls.wake_at);
	ret = vgpu_lockstep_turn(&ls);
	CHECK(ret == 0 && t.kicks == 2 && t.kick_cycle[1] == 21000,
	      "the next kick is at 21000 (%d, cycle %llu)", ret,
	      (unsigned long long)t.kick_cycle[1]);
	vgpu_sim_destroy(sim);
	return 0;
}

int main(void)
{
	report("a DISPATCH refused on an idle device is kicked at once",
	       refused_dispatch_is_kicked());
	report("the commands of the refusal's turn are applied before simulating",
	       refusal_turn_commands_come_first());
	report("a wake-up for a cycle the last turn passed does not hide the next one",
	       stale_wake_is_void());
	return test_summary();
}
