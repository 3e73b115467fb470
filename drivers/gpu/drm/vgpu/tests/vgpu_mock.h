/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit mock hardware of the vgpu thread-block scheduler (vgpu_mock.c):
 * plays vgpud against a &struct vgpu_sched.
 */
#ifndef _VGPU_MOCK_H_
#define _VGPU_MOCK_H_

#include <linux/mutex.h>

#include <kunit/test.h>

#include "vgpu_drv.h"

#define MOCK_RING_MAX	512
#define MOCK_MAX_JOBS	40
#define MOCK_MAX_RUN	(4 * VGPU_SMST_MAX_SLOTS)
#define MOCK_MAX_WAKES	64
#define MOCK_MAX_STEPS	100000
#define MOCK_MAX_WAITERS	4

struct mock_hw;

struct mock_job {
	struct vgpu_kcb_entry e;
	struct mock_hw *hw;
	u32 order;
	/* behaviour */
	u32 dur;
	/*
	 * 0, or the TBs on one SM beyond which the job stops scaling: a TB
	 * started as the job's n-th on its SM runs dur * n / sat cycles.
	 */
	u32 sat;
	s32 fault_tb;
	int fault_status;
	/* observations */
	u8 *runs;
	u8 *saved;	/* per TB: a switch saved its context */
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
	/* jobs whose in-fence is this job's end (mock_submit_deps()) */
	struct mock_job *waiters[MOCK_MAX_WAITERS];
	u32 nr_waiters;
};

struct mock_run {
	struct mock_job *job;
	u32 tb, sm, slot;
	u32 reg_base, regs, shared_base, shared, threads;
	u64 start;
	u64 done_at;
	/* a PREEMPT under way: VGPU_PREEMPT_SWITCH or _FLUSH, else 0 */
	u32 preempt;
	/* a SET_TB_PRIORITY named it */
	bool prio;
	/* the last SET_TB_PAUSED for it paused it */
	bool paused;
	/* dispatched as the mock's n-th TB: the order of assignment */
	u64 order;
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
	u32 resets;
	u32 ksched_cmds;
	u32 ksched;
	u32 wsched_cmds;
	u32 wsched;
	u32 subcore;
	u32 vt;
	u32 vt_cmds;
	u32 prio_cmds;
	/* SET_SAMPLING's period, SET_TB_PAUSED commands, TBs dispatched */
	u64 sampling;
	u32 pause_cmds;
	u64 dispatches;
	/* per SM, the last SET_SM_GATED */
	bool gated[64];
	/* preemptions carried out, save areas handed out and not yet freed */
	u32 switches, flushes, restores;
	s32 ctx_live;
	u64 next_ctx_addr;
	u64 cycle;
	u64 seq;
	u64 hash;
	/* placements relative to the start of a run (see fcfs_idle_repeats) */
	u64 epoch;
	u32 first_order;
	u64 place_hash;
	/* check that no job overtakes an earlier one (FCFS only) */
	bool check_fcfs;
	/* most TBs of one job seen on one SM at once, per job */
	u32 max_on_sm[MOCK_MAX_JOBS];
};

struct mock_hw *mock_new(struct kunit *test, u32 ring_cap);
struct mock_hw *mock_new_desc(struct kunit *test, u32 ring_cap,
			      const struct vgpu_device_desc *desc);
void mock_desc(struct vgpu_device_desc *d);
struct mock_job *mock_job_new(struct mock_hw *hw, u32 num_tbs, u32 threads,
			      u32 regs, u32 shared, u32 dur);
extern const struct vgpu_cmd_sink_ops mock_sink_ops;

bool mock_advance(struct mock_hw *hw);
void mock_kick(struct mock_hw *hw);
void mock_submit(struct mock_hw *hw, struct mock_job *j);
void mock_submit_deps(struct mock_hw *hw, struct mock_job *j,
		      struct mock_job **deps, u32 nr_deps, u32 nr_external);
void mock_apply(struct mock_hw *hw);
bool mock_step(struct mock_hw *hw);
void mock_run_all(struct mock_hw *hw);
void mock_hash(u64 *hash, u64 v);
void expect_idle(struct mock_hw *hw);
void expect_complete(struct mock_hw *hw, struct mock_job *j);
void mock_finish(struct mock_hw *hw);

#endif /* _VGPU_MOCK_H_ */
