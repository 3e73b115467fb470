/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu thread-block scheduler.
 *
 * The command processor half of the device (Documentation/design.rst,
 * "The flow of one launch"): it keeps the KCB and the SMST, lets a partition policy pick
 * the TBs to run, and turns the decisions into commands for the daemon.
 */
#ifndef _VGPU_SCHED_H_
#define _VGPU_SCHED_H_

#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/vgpu_backend.h>

#include "vgpu_kcb.h"
#include "vgpu_preempt.h"
#include "vgpu_smst.h"
#include "vgpu_tlp.h"

struct device;
struct vgpu_knob;
struct vgpu_sched;

/**
 * struct vgpu_cmd_sink_ops - where the scheduler's commands go.
 * @space: free entries in the command ring.
 * @emit: append one command; only called when @space was non-zero. Not yet
 *	visible to the daemon.
 * @ctx_alloc: allocate a context save area of @bytes in device memory;
 *	returns a handle for @ctx_free (NULL when there is no room) and the
 *	area's device address in @addr. Optional: without it the scheduler
 *	cannot context-switch. Device lock held, process context.
 * @ctx_free: give a save area back.
 * @publish: make every command appended so far visible to the daemon at
 *	once. Called at the end of each scheduling pass, so that the daemon
 *	applies a pass's commands together, at one cycle, however its loop
 *	and the pass interleave in wall-clock time.
 *
 * vgpu_backend.c writes the command ring; the KUnit mock hardware records
 * the commands and plays the daemon.
 */
struct vgpu_cmd_sink_ops {
	u32 (*space)(void *ctx);
	void (*emit)(void *ctx, const struct vgpu_cmd *cmd);
	void (*publish)(void *ctx);
	void *(*ctx_alloc)(void *ctx, u64 bytes, u64 *addr);
	void (*ctx_free)(void *ctx, void *handle);
};

/**
 * struct vgpu_policy_conf - what partition policies keep per device for the
 *	device's whole life, whether they are active or not: the values of
 *	their knobs and their statistics (what the active policy keeps only
 *	while it is active is &vgpu_sched.policy_data).
 * @name: its name; the debugfs file of @show.
 * @knobs: its knobs (&struct vgpu_knob, vgpu_knob.h): attributes of the
 *	device in sysfs, set by name with vgpu_knob_store(). Each is a u32
 *	(a bool for %VGPU_KNOB_BOOL) at its &vgpu_knob.offset in the area,
 *	set to its default when the scheduler is initialised (the rest of
 *	the area is zeroed).
 * @nr_knobs: entries of @knobs.
 * @show: optional: print the area (@conf) for debugfs into @buf, PAGE_SIZE
 *	bytes, with sysfs_emit_at(); returns the length. Device lock held.
 *
 * The area (vgpu_sched_policy_conf()) is %VGPU_POLICY_CONF_SIZE bytes,
 * 8-byte aligned; the policy's file checks with static_assert() that its
 * structure fits. Policies that share knobs point to the same
 * &struct vgpu_policy_conf and so share the area (smk_quota_min of the SMK
 * policies).
 */
struct vgpu_policy_conf {
	const char *name;
	const struct vgpu_knob *knobs;
	unsigned int nr_knobs;
	int (*show)(const void *conf, char *buf);
};

/** Bytes of the per-device area of one &struct vgpu_policy_conf. */
#define VGPU_POLICY_CONF_SIZE	96

/** Most entries of vgpu_partition_policies[]. */
#define VGPU_PARTITION_MAX	16

/**
 * struct vgpu_partition_ops - an SM partitioning policy (in the style of
 * the block layer's &struct elevator_type); an entry of
 * vgpu_partition_policies[].
 * @name: policy name, as sysfs shows it.
 * @plan: the kernel scheduler of Chimera's two-level scheduler (Park,
 *	dissertation, Ch. IV, Fig. 4.4): decide the SM-to-kernel mapping
 *	(&vgpu_sched.sm_owner) and the per-SM TB quota of every kernel
 *	(&vgpu_kcb_entry.quota). Runs at every scheduling decision, before
 *	@dispatch; optional. A mapping that takes an SM from a kernel
 *	takes effect once the preemption policy has taken all its TBs off
 *	(vgpu_sched_sm_owned_by()).
 * @dispatch: the TB scheduler: hand out TBs of the active jobs with
 *	vgpu_sched_dispatch() until nothing more fits or vgpu_sched_room()
 *	says the command ring is full. NULL for vgpu_sched_tb_dispatch(),
 *	which carries out @plan. Called with the device lock held, after
 *	finished jobs have been retired.
 * @tb_done: a TB of @e finished (@evt: its TB_DONE; the SMST slot is
 *	already free); optional. For policies that measure (per-SM, per-kernel
 *	throughput); decisions belong in @plan. Device lock held.
 * @sm_quota: optional per-SM TB quota: the most TBs of @e that may run on
 *	@sm (%VGPU_SCHED_NO_QUOTA: no limit but room; 0: none start there).
 *	When set, it replaces &vgpu_kcb_entry.quota in the generic TB
 *	scheduler, for policies whose SMs are partitioned differently from
 *	each other (maestro). Device lock held.
 * @release: optional; free the policy's per-device state
 *	(&vgpu_sched.policy_data). Called when the policy is switched away
 *	from, when the backend detaches and at vgpu_sched_fini(). Device lock
 *	held, except at vgpu_sched_fini() (nothing else runs then).
 * @two_way: while the policy is active the SMST allocates with
 *	%VGPU_SMST_TWO_WAY whatever &vgpu_sched.alloc_mode says (maestro,
 *	Ch. V §5.4.2).
 * @conf: optional: its knobs, statistics and debugfs file, kept per device
 *	whether it is active or not (&struct vgpu_policy_conf).
 *
 * Policies, one file each: vgpu_policy_fcfs.c (non-preemptive baseline),
 * vgpu_policy_spatial.c (Smart Even + Rounds), vgpu_policy_smk_even.c,
 * vgpu_policy_smk_drf.c, vgpu_policy_warped_slicer.c and
 * vgpu_policy_maestro.c (per-SM quotas through @sm_quota); each is one
 * line of vgpu_partition_policies[] (vgpu_sched.c).
 */
struct vgpu_partition_ops {
	const char *name;
	void (*plan)(struct vgpu_sched *s);
	void (*dispatch)(struct vgpu_sched *s);
	void (*tb_done)(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			const struct vgpu_evt *evt);
	u32 (*sm_quota)(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e, u32 sm);
	void (*release)(struct vgpu_sched *s);
	bool two_way;
	const struct vgpu_policy_conf *conf;
};

/*
 * Entries of the command ring (vgpu_backend.c). libvgpu's local device
 * queues as many, so that a full ring ends a pass at the same point.
 */
#define VGPU_CMD_RING_ENTRIES	4096

/*
 * Command-ring entries kept free for the WAKE_AT that asks the daemon to
 * come back when a pass stops because the ring is full.
 */
#define VGPU_SCHED_RING_RESERVE	1

/** Default of &vgpu_sched.budget_us: Chimera's middle budget (§4.4). */
#define VGPU_BUDGET_US_DEFAULT		15

/*
 * Default and largest &vgpu_sched.budget_margin_pct. 25 %: under the
 * cycle model's memory contention drains and switches of the suite run up
 * to a quarter longer than §4.3.2 estimates (Documentation/experiments.rst).
 */
#define VGPU_BUDGET_MARGIN_PCT_DEFAULT	25
#define VGPU_BUDGET_MARGIN_PCT_MAX	90

/*
 * Default &vgpu_sched.job_timeout_us: two seconds of simulated time, beyond
 * any launch of the papers' experiments (a billion instructions run in well
 * under a simulated second) and short of a runaway loop's.
 */
#define VGPU_JOB_TIMEOUT_US_DEFAULT	2000000

/*
 * Default, smallest and largest &vgpu_sched.sync_quantum. 10,000 cycles:
 * about 2 ms of the model's time on one host core, so the scheduler answers
 * promptly, and a scheduling pass per quantum costs the model little
 * (Documentation/experiments.rst, "The sync quantum").
 */
#define VGPU_SYNC_QUANTUM_DEFAULT	10000
#define VGPU_SYNC_QUANTUM_MIN		1000
#define VGPU_SYNC_QUANTUM_MAX		100000000

/*
 * Default and largest &vgpu_sched.clock_hold_ms: a program of the
 * synchronised clock compiles and allocates between its waits, which takes
 * seconds in a slow guest; thirty of them without a wait is a program that
 * does not wait at all.
 */
#define VGPU_CLOCK_HOLD_MS_DEFAULT	30000
#define VGPU_CLOCK_HOLD_MS_MAX		3600000

/*
 * Default, smallest and largest &vgpu_sched.daemon_timeout_ms. A daemon
 * comes back at least every sync quantum, a fraction of a second even under
 * TCG; a minute of silence is a daemon that is stopped or stuck.
 */
#define VGPU_DAEMON_TIMEOUT_MS_DEFAULT	60000
#define VGPU_DAEMON_TIMEOUT_MS_MIN	100
#define VGPU_DAEMON_TIMEOUT_MS_MAX	3600000

/*
 * Default &vgpu_sched.fair_slice_us: a millisecond of simulated time, an
 * operating system's time slice; longer than any of the papers' launches
 * waits behind another in their multi-program runs at the recorded sizes,
 * so those runs are unchanged.
 */
#define VGPU_FAIR_SLICE_US_DEFAULT	1000
#define VGPU_FAIR_SLICE_US_MAX		10000000

/*
 * Default &vgpu_sched.file_max_jobs: far more launches than a program keeps
 * in flight, few enough that the scheduler's passes, which walk the active
 * jobs, stay short.
 */
#define VGPU_FILE_MAX_JOBS_DEFAULT	1024
#define VGPU_FILE_MAX_JOBS_MAX		65536

/*
 * Default &vgpu_sched.file_vram_pct: a program alone may use three quarters
 * of the device memory, and another always finds a quarter.
 */
#define VGPU_FILE_VRAM_PCT_DEFAULT	75

/** &vgpu_partition_ops.sm_quota: no limit but room. */
#define VGPU_SCHED_NO_QUOTA		U32_MAX

/**
 * struct vgpu_sched_slot - the scheduler's own state of one TB slot
 *	(vgpu_sched_preempt.c).
 * @pending: save area of a context switch sent to the daemon and not yet
 *	answered, or NULL.
 * @restored: save area the TB in the slot was resumed from, freed when it
 *	leaves the slot, or NULL.
 * @job: job of the preemption under way.
 * @tb: TB of the preemption under way.
 * @preempting: a PREEMPT was sent for the slot's TB and not yet answered.
 * @drain_job: job of the TB in the slot that a preemption chose to drain
 *	(0: none): it runs to its end and is not chosen again
 *	(vgpu_sched_slot_draining()).
 * @drain_tb: that TB.
 * @prio: the daemon was told that the TB in the slot issues first
 *	(%VGPU_CMD_SET_TB_PRIORITY); cleared when it leaves.
 * @reissued: the TB in the slot was preempted before and issued again;
 *	the stress mode switches it rather than flush it a second time
 *	(vgpu_sched_stress()). Cleared when it leaves.
 * @tlp_seq: when the TB in the slot was assigned (&vgpu_tlp.seq): CTA
 *	pausing takes the newest TBs first (vgpu_tlp.c).
 * @paused: the daemon was told that the TB in the slot is paused
 *	(%VGPU_CMD_SET_TB_PAUSED); cleared when it leaves.
 */
struct vgpu_sched_slot {
	void *pending;
	void *restored;
	u32 job;
	u32 tb;
	bool preempting;
	u32 drain_job;
	u32 drain_tb;
	bool prio;
	bool reissued;
	u64 tlp_seq;
	bool paused;
};

/**
 * struct vgpu_sched_rank - what taking an SM would cost (vgpu_sched_rank_sms()).
 * @ranked: the SM was a candidate of the last ranking.
 * @meets: every TB there can be off it within the budget.
 * @latency: estimated cycles until the SM is free.
 * @overhead: estimated warp instructions lost.
 */
struct vgpu_sched_rank {
	bool ranked;
	bool meets;
	u64 latency;
	u64 overhead;
};

/**
 * struct vgpu_sched_preempt - a preemption under way on one SM.
 * @job: the kernel the SM is being taken for, 0 when none.
 * @since: cycle of the request.
 * @fresh: requested in the current pass (not yet reported).
 * @rank: scratch of the kernel scheduler's choice of SMs.
 * @estimate: the longest latency the preemption policy planned for the
 *	kernels preempted there (0: no plan).
 * @victim_key: &vgpu_kcb_entry.kernel_key of the kernel of @estimate.
 */
struct vgpu_sched_preempt {
	u32 job;
	bool fresh;
	u64 since;
	struct vgpu_sched_rank rank;
	u64 estimate;
	u64 victim_key;
};

/**
 * struct vgpu_sched_latency_scale - how much longer than estimated the
 * preemptions of one kernel's TBs have taken (vgpu_sched_learn_latency()).
 * @key: &vgpu_kcb_entry.kernel_key, 0 when the entry is unused.
 * @scale_fp: actual over estimated latency, fixed point
 *	(%VGPU_PREEMPT_FP_ONE is 1.0), from 1.0 to %VGPU_LATENCY_SCALE_MAX.
 */
struct vgpu_sched_latency_scale {
	u64 key;
	u32 scale_fp;
};

/** Kernels whose latency scale the scheduler remembers (oldest replaced). */
#define VGPU_SCHED_LATENCY_SCALES	16
/** Largest &vgpu_sched_latency_scale.scale_fp: 8.0. */
#define VGPU_LATENCY_SCALE_MAX		(8 * VGPU_PREEMPT_FP_ONE)
/** Estimates shorter than this many cycles (flushes) teach nothing. */
#define VGPU_LATENCY_LEARN_MIN		1000

/**
 * struct vgpu_sched_preempt_stats - what preemption did, since the module
 *	was loaded (debugfs "preempt"; readers take differences).
 * @requests: SMs the kernel scheduler asked to be preempted.
 * @tbs: TBs preempted with each &enum vgpu_preempt_tech (a switch or flush
 *	counted when its command is sent, a drain when it is chosen, once).
 * @lost_insts: warp instructions that flushes threw away.
 */
struct vgpu_sched_preempt_stats {
	u64 requests;
	u64 tbs[VGPU_TECH_NR];
	u64 lost_insts;
};

/**
 * struct vgpu_sched - scheduler state of one device.
 * @lock: the device lock; every field below and the KCB active list and
 *	SMST are protected by it.
 * @dev: device for debug output (NULL in KUnit).
 * @desc: the attached device's description (valid while @attached).
 * @attached: a backend is attached and @smst is built.
 * @kcb: the KCB table.
 * @smst: the SM Status Table (valid while @attached).
 * @policy: the partition policy.
 * @sink: command sink ops (NULL while detached).
 * @sink_ctx: argument of the @sink ops.
 * @cycle: the device's current simulated cycle; kept across re-attach.
 * @wake_at: cycle of the last WAKE_AT issued and not yet reached, or 0.
 * @rr_next: SM at which the next search for room starts (round robin);
 *	back to 0 when the device is unused (vgpu_sched_fresh_start()), so
 *	that the same launches on an unused device are placed the same way.
 * @ring_full: the last pass stopped because the command ring was full.
 * @emitted: commands issued since the counter was last cleared.
 * @cmd_seq: commands issued since the backend attached (the command
 *	ring's producer index).
 * @sm_owner: the kernel scheduler's SM-to-kernel map, @smst.num_sms
 *	entries (valid while @attached): the only kernel that may start TBs
 *	on the SM, or NULL when any may. Not counted references: an entry is
 *	cleared when its kernel ends.
 * @preempt: per SM, the preemption under way (valid while @attached).
 * @slots: per TB slot (sm * max_tbs + slot), the preemption state (valid
 *	while @attached).
 * @preempt_ops: the preemption policy: how TBs on an SM taken for another
 *	kernel are preempted (drain, switch, flush or chimera).
 * @idem: which idempotence condition allows a flush.
 * @budget_us: latency budget of launches that name none.
 * @latency_feedback: scale each kernel's drain and switch estimates by
 *	how much longer its past preemptions took than estimated
 *	(vgpu_sched_learn_latency(); sysfs, default off).
 * @latency_scales: those scales, per kernel identity.
 * @latency_scale_next: the entry of @latency_scales replaced next.
 * @budget_margin_pct: share of a latency budget kept back from Algorithm 3
 *	(0 ... %VGPU_BUDGET_MARGIN_PCT_MAX): it plans against the budget less
 *	this many percent, so that an estimate a little short still meets
 *	the deadline (the margin of Ch. IV §4.4.1).
 * @preempt_stats: what preemption did.
 * @stress_period: preemption stress mode: on average every this many
 *	cycles one running TB is preempted; 0 off.
 * @stress_next: cycle of the next stress preemption.
 * @stress_rng: its pseudo-random state.
 * @fresh_status: the daemon waits in a kick, so @tb_status is current.
 * @preempt_tbs: scratch of vgpu_sched_preempt_sm().
 * @preempt_plan: scratch of vgpu_sched_preempt_sm().
 * @tb_status: the daemon's thread-block status table in device memory,
 *	entry sm * max_tbs + slot (NULL when there is none, as in KUnit);
 *	read through vgpu_sched_tb_progress().
 * @alloc_mode: &enum vgpu_smst_alloc_mode chosen for the SMST; kept across
 *	re-attach.
 * @policy_data: the active policy's per-device state, freed by its
 *	&vgpu_partition_ops.release (NULL when it keeps none).
 * @policy_conf: the areas of the policies' &struct vgpu_policy_conf: row i
 *	is that of vgpu_partition_policies[i]'s conf where no earlier entry
 *	has the same (vgpu_sched_policy_conf()); kept for the scheduler's
 *	life, across policy switches and re-attach.
 * @policy_changes: times the partition policy was switched.
 * @users: render-node files open (vgpu_sched_fresh_start()).
 * @held: the device clock is held (vgpu_clock.c): vgpu_sched_run() ends
 *	jobs but takes no dispatch decision. Written under the device lock;
 *	the daemon's wait for its end reads it without.
 * @kernel_sched: the kernel-aware warp scheduling mode of the SMs
 *	(&enum vgpu_kernel_sched; Park, dissertation, Ch. V §5.4.3), sent to
 *	the daemon with %VGPU_CMD_SET_KERNEL_SCHED when it attaches and
 *	whenever it changes; kept across re-attach.
 * @kernel_sched_pending: @kernel_sched still has to be sent (the command
 *	ring was full); the next scheduling pass sends it.
 * @warp_sched: the warp scheduler of the SMs (&enum vgpu_warp_sched; Park,
 *	dissertation, Ch. III; Barnes et al.), sent to the daemon with
 *	%VGPU_CMD_SET_WARP_SCHED whenever it changes, and when a daemon
 *	attaches unless it is %VGPU_WARP_SCHED_CONFIG (the daemon's own
 *	configuration); kept across re-attach.
 * @warp_sched_pending: @warp_sched still has to be sent.
 * @subcore_assign: the assignment of warps to sub-cores (&enum
 *	vgpu_subcore_assign_mode), sent as @warp_sched is with
 *	%VGPU_CMD_SET_SUBCORE_ASSIGN.
 * @subcore_assign_pending: @subcore_assign still has to be sent.
 * @virtual_thread: Virtual Thread (&enum vgpu_virtual_thread; Yoon et
 *	al.): whether SMs take TBs up to their capacity limit; kept across
 *	re-attach.
 * @virtual_thread_pending: @virtual_thread still has to be sent with
 *	%VGPU_CMD_SET_VIRTUAL_THREAD and applied to the SMST; that waits
 *	until no TB is placed (vgpu_sched_emit_virtual_thread()).
 * @job_timeout_us: the device's time limit of a job, in simulated
 *	microseconds from its first dispatch; 0 none (vgpu_sched_deadline()).
 * @sync_quantum: while blocks run, the hardware comes back to the
 *	scheduler at least every this many cycles (vgpu_sched_next_wake()).
 * @clock_hold_ms: the longest a file of the synchronised clock may run on
 *	the host without waiting (host milliseconds; vgpu.ko's clock glue
 *	applies it, vgpu_clock.c); 0 no limit.
 * @daemon_timeout_ms: the longest vgpu.ko waits for an attached daemon
 *	that has work to answer (host milliseconds, vgpu_backend.c) before
 *	it takes it for dead.
 * @fair_slice_us: simulated microseconds a file may wait with nothing on
 *	the SMs before it is owed its share (vgpu_sched_fair()); 0 off.
 * @file_max_tbs: the most blocks of one file on the SMs; 0 no limit.
 * @file_max_jobs: the most jobs of one file queued or running.
 * @file_vram_pct: the share of device memory one file's buffers may take.
 * @fair_waiter: the file that waits with nothing on the SMs (an opaque
 *	&vgpu_kcb_entry.owner, compared only), NULL when none.
 * @fair_since: since when it waits.
 * @fair_owner: the file owed its share, NULL when none.
 * @tlp: the thread-level parallelism policy (DYNCTA, DYNCORE; vgpu_tlp.h)
 *	and its state.
 */
struct vgpu_sched {
	struct mutex *lock;	/* the device lock (not owned) */
	struct device *dev;
	struct vgpu_device_desc desc;
	bool attached;
	struct vgpu_kcb kcb;
	struct vgpu_smst smst;
	const struct vgpu_partition_ops *policy;
	const struct vgpu_cmd_sink_ops *sink;
	void *sink_ctx;
	u64 cycle;
	u64 wake_at;
	u32 rr_next;
	bool ring_full;
	u32 emitted;
	u32 cmd_seq;
	struct vgpu_kcb_entry **sm_owner;
	struct vgpu_sched_preempt *preempt;
	struct vgpu_sched_slot *slots;
	const struct vgpu_preempt_ops *preempt_ops;
	enum vgpu_preempt_idem idem;
	u32 budget_us;
	u32 budget_margin_pct;
	bool latency_feedback;
	struct vgpu_sched_latency_scale latency_scales[VGPU_SCHED_LATENCY_SCALES];
	u32 latency_scale_next;
	struct vgpu_sched_preempt_stats preempt_stats;
	u32 stress_period;
	u64 stress_next;
	u64 stress_rng;
	bool fresh_status;
	struct vgpu_preempt_tb preempt_tbs[VGPU_PREEMPT_MAX_TBS];
	struct vgpu_preempt_sm_plan preempt_plan[1];
	struct vgpu_tb_status *tb_status;
	enum vgpu_smst_alloc_mode alloc_mode;
	void *policy_data;
	u64 policy_conf[VGPU_PARTITION_MAX][VGPU_POLICY_CONF_SIZE / sizeof(u64)];
	u64 policy_changes;
	u32 users;
	bool held;
	enum vgpu_kernel_sched kernel_sched;
	bool kernel_sched_pending;
	enum vgpu_warp_sched warp_sched;
	bool warp_sched_pending;
	enum vgpu_subcore_assign_mode subcore_assign;
	bool subcore_assign_pending;
	enum vgpu_virtual_thread virtual_thread;
	bool virtual_thread_pending;
	u32 job_timeout_us;
	u32 sync_quantum;
	u32 clock_hold_ms;
	u32 daemon_timeout_ms;
	u32 fair_slice_us;
	u32 file_max_tbs;
	u32 file_max_jobs;
	u32 file_vram_pct;
	const void *fair_waiter;
	u64 fair_since;
	const void *fair_owner;
	struct vgpu_tlp tlp;
};

/* The partition policies, one file each (vgpu_policy_*.c). */
extern const struct vgpu_partition_ops vgpu_policy_fcfs;
extern const struct vgpu_partition_ops vgpu_policy_spatial;
extern const struct vgpu_partition_ops vgpu_policy_smk_even;
extern const struct vgpu_partition_ops vgpu_policy_smk_drf;
extern const struct vgpu_partition_ops vgpu_policy_warped_slicer;
extern const struct vgpu_partition_ops vgpu_policy_maestro;

/* The registry (vgpu_sched.c): NULL-terminated, the default first. */
extern const struct vgpu_partition_ops *const vgpu_partition_policies[];
const struct vgpu_partition_ops *vgpu_partition_find(const char *name);
const struct vgpu_policy_conf *vgpu_partition_conf(unsigned int i);
void *vgpu_sched_policy_conf(struct vgpu_sched *s,
			     const struct vgpu_policy_conf *conf);

void vgpu_sched_init(struct vgpu_sched *s, struct mutex *lock,
		     struct device *dev);
void vgpu_sched_fini(struct vgpu_sched *s);
int vgpu_sched_attach(struct vgpu_sched *s,
		      const struct vgpu_device_desc *desc,
		      const struct vgpu_cmd_sink_ops *sink, void *sink_ctx);
void vgpu_sched_detach(struct vgpu_sched *s, int error);
int vgpu_sched_set_cycle(struct vgpu_sched *s, u64 cycle);
void vgpu_sched_applied(struct vgpu_sched *s, u32 consumed, u64 cycle);
int vgpu_sched_kick(struct vgpu_sched *s, u64 cycle, u32 consumed,
		    bool (*next_evt)(void *ctx, struct vgpu_evt *evt),
		    void *ctx);
int vgpu_sched_event(struct vgpu_sched *s, const struct vgpu_evt *evt);
void vgpu_sched_run(struct vgpu_sched *s);
void vgpu_sched_fresh_start(struct vgpu_sched *s, bool tell_daemon);
void vgpu_sched_set_kernel_sched(struct vgpu_sched *s,
				 enum vgpu_kernel_sched mode);
void vgpu_sched_send_kernel_sched(struct vgpu_sched *s);
void vgpu_sched_set_warp_sched(struct vgpu_sched *s, enum vgpu_warp_sched mode);
void vgpu_sched_set_subcore_assign(struct vgpu_sched *s,
				   enum vgpu_subcore_assign_mode mode);
void vgpu_sched_set_virtual_thread(struct vgpu_sched *s,
				   enum vgpu_virtual_thread mode);

/* vgpu_sched_cancel.c */
u64 vgpu_cycle_add(u64 cycle, u64 delta);
void vgpu_sched_cancel(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
		       int error);
bool vgpu_sched_flush_failed(struct vgpu_sched *s);
u64 vgpu_sched_deadline(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e);
u64 vgpu_sched_check_timeouts(struct vgpu_sched *s);
u64 vgpu_sched_next_wake(const struct vgpu_sched *s, u64 deadline);

/* vgpu_sched_deps.c */
void vgpu_kcb_deps_init(struct vgpu_kcb_entry *e, u32 n);
bool vgpu_kcb_dep_signal(struct vgpu_kcb_entry *e, int error);
bool vgpu_kcb_deps_arm(struct vgpu_kcb_entry *e);
bool vgpu_sched_unblock(struct vgpu_sched *s, struct vgpu_kcb_entry *e);
bool vgpu_sched_deps_ready(const struct vgpu_sched *s);

/* vgpu_sched_fair.c */
u32 vgpu_sched_owner_tbs(const struct vgpu_sched *s, const void *owner);
u32 vgpu_sched_owner_jobs(const struct vgpu_sched *s, const void *owner);
void vgpu_sched_tb_started(struct vgpu_sched *s, struct vgpu_kcb_entry *e);
void vgpu_sched_fair(struct vgpu_sched *s);

/* vgpu_sched_preempt.c */
void vgpu_sched_ctx_free(struct vgpu_sched *s, void *ctx);
u64 vgpu_sched_ctx_addr(const void *ctx);
/* The preemption state of TB slot @slot of @sm (&vgpu_sched.slots). */
static inline struct vgpu_sched_slot *vgpu_sched_slot_of(struct vgpu_sched *s,
							 u32 sm, u32 slot)
{
	return &s->slots[sm * VGPU_SMST_MAX_SLOTS + slot];
}

void vgpu_sched_slot_done(struct vgpu_sched *s, u32 sm, u32 slot);
bool vgpu_sched_emit_reserved(struct vgpu_sched *s, const struct vgpu_cmd *cmd);
bool vgpu_sched_slot_draining(struct vgpu_sched *s, u32 sm, u32 slot);
u32 vgpu_sched_latency_scale(const struct vgpu_sched *s, u64 key);
void vgpu_sched_learn_latency(struct vgpu_sched *s, u64 key, u64 estimate,
			      u64 actual);
void vgpu_sched_send_priorities(struct vgpu_sched *s);
void vgpu_sched_slot_restored(struct vgpu_sched *s, u32 sm, u32 slot, void *ctx);
int vgpu_sched_preempt_tb(struct vgpu_sched *s, u32 sm, u32 slot,
			  enum vgpu_preempt_tech tech);
int vgpu_sched_preempted(struct vgpu_sched *s, const struct vgpu_evt *evt);
void vgpu_sched_preempt_sm(struct vgpu_sched *s, u32 sm,
			   const struct vgpu_kcb_entry *owner);
void vgpu_sched_rank_sms(struct vgpu_sched *s,
			 const struct vgpu_kcb_entry *owner);
int vgpu_sched_cheapest_sm(struct vgpu_sched *s);
u32 vgpu_sched_preempt_excess(struct vgpu_sched *s, u32 sm,
			      struct vgpu_kcb_entry *e, u32 keep);
void vgpu_sched_stress(struct vgpu_sched *s);
int vgpu_sched_preempt_show(const struct vgpu_sched *s, char *buf);
int vgpu_sched_tb_progress(const struct vgpu_sched *s, u32 sm, u32 slot,
			   u64 *warp_insts, u32 *flags, u64 *start_cycle);

bool vgpu_sched_room(struct vgpu_sched *s, const struct vgpu_kcb_entry *e);
int vgpu_sched_find_sm(struct vgpu_sched *s, const struct vgpu_kcb_entry *e);
int vgpu_sched_dispatch(struct vgpu_sched *s, struct vgpu_kcb_entry *e,
			u32 sm);
void vgpu_sched_tb_dispatch(struct vgpu_sched *s);
bool vgpu_sched_candidate(const struct vgpu_sched *s,
			  const struct vgpu_kcb_entry *e);
bool vgpu_sched_resident(const struct vgpu_sched *s,
			 const struct vgpu_kcb_entry *e);
void vgpu_sched_set_policy(struct vgpu_sched *s,
			   const struct vgpu_partition_ops *ops);
void vgpu_sched_set_alloc_mode(struct vgpu_sched *s,
			       enum vgpu_smst_alloc_mode mode);
enum vgpu_smst_alloc_mode vgpu_sched_alloc_mode(const struct vgpu_sched *s);
u32 vgpu_sched_sm_quota(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e, u32 sm);
bool vgpu_sched_sm_owned_by(const struct vgpu_sched *s, u32 sm,
			    const struct vgpu_kcb_entry *e);

#endif /* _VGPU_SCHED_H_ */
