/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu partition policy maestro (vgpu_policy_maestro.c): its knobs and
 * statistics (&struct vgpu_maestro_conf), the pure parts (splits,
 * objectives, best-partition choice, role assignment, retirement of the
 * dedicated SMs, the epoch decision of one pair of kernels) and the
 * per-pair state, visible to KUnit.
 */
#ifndef _VGPU_POLICY_MAESTRO_H_
#define _VGPU_POLICY_MAESTRO_H_

#include <linux/bits.h>
#include <linux/types.h>

#include "vgpu_policy_smk.h"

/* Rates and objectives in fixed point: 1.0 = %VGPU_MAESTRO_ONE. */
#define VGPU_MAESTRO_SHIFT	10
#define VGPU_MAESTRO_ONE	BIT(VGPU_MAESTRO_SHIFT)

/* SMs of one pair's group (one per SM at most). */
#define VGPU_MAESTRO_MAX_SMS	1024

/* Fewest SMs a pair needs for dedicated and trial SMs (§5.4.1). */
#define VGPU_MAESTRO_MIN_SMS	4

/* Dedicated SMs come back after this many epochs retired (§5.4.1). */
#define VGPU_MAESTRO_RETURN_EPOCHS	100

/*
 * A dedicated SM's rate is stable when it moved by at most this many
 * percent since the previous epoch (§5.4.1 names no threshold).
 */
#define VGPU_MAESTRO_STABLE_PCT	5

/* Default and range of &vgpu_maestro_conf.epoch_cycles (§5.4.1: 50k). */
#define VGPU_MAESTRO_EPOCH_DEFAULT	50000
#define VGPU_MAESTRO_EPOCH_MIN		100
#define VGPU_MAESTRO_EPOCH_MAX		100000000

/**
 * enum vgpu_maestro_objective - what maestro maximises (Ch. V §5.2.1).
 * @VGPU_MAESTRO_STP: system throughput, Eq. 5.2 (higher is better).
 * @VGPU_MAESTRO_ANTT: average normalised turnaround time, Eq. 5.1
 *	(lower is better).
 */
enum vgpu_maestro_objective {
	VGPU_MAESTRO_STP = 0,
	VGPU_MAESTRO_ANTT = 1,
};

/**
 * enum vgpu_maestro_history - what a pair of kernels that comes back starts
 *	from (Ch. V §5.4.1, history-based partition prediction).
 * @VGPU_MAESTRO_HIST_COUNT: the SMK count of its kernels' last pairs (when
 *	below even); spatial SMs start at none and return one per kernel per
 *	epoch.
 * @VGPU_MAESTRO_HIST_PARTITION: also the spatial SMs, when each kernel's
 *	last pair with roles was with the other: a kernel that relaunches
 *	beside the same partner resumes the partition its last launch ended
 *	with.
 */
enum vgpu_maestro_history {
	VGPU_MAESTRO_HIST_COUNT = 0,
	VGPU_MAESTRO_HIST_PARTITION = 1,
};

/**
 * enum vgpu_maestro_pairing - which kernels make up Maestro's pairs.
 * @VGPU_MAESTRO_PAIR_DISPATCH: kernels with TBs to dispatch; a kernel whose
 *	TBs are all dispatched leaves its pair (the other then has the whole
 *	device), and a pair in which one kernel's unfinished TBs fit its
 *	SMK-even share runs SMK-even with no epochs.
 * @VGPU_MAESTRO_PAIR_RESIDENT: also a kernel of a pair that still has TBs
 *	running, until its last TB finishes; its TBs above a new partition
 *	are preempted like any other, so every pair runs epochs.
 */
enum vgpu_maestro_pairing {
	VGPU_MAESTRO_PAIR_DISPATCH = 0,
	VGPU_MAESTRO_PAIR_RESIDENT = 1,
};

/**
 * enum vgpu_maestro_relaunch - whether a kernel launched again is known.
 * @VGPU_MAESTRO_RELAUNCH_KNOWN: a pair of two kernels whose single-kernel
 *	rates are stored (same &vgpu_kcb_entry.kernel_key, same epoch length)
 *	starts with its dedicated SMs retired and those rates.
 * @VGPU_MAESTRO_RELAUNCH_NEW: every launch is a new kernel and its pair
 *	starts with dedicated SMs measuring, as §5.4.1 has it ("Dedicated SMs
 *	are reassigned when either a new kernel is launched, thread blocks are
 *	repartitioned, or once every hundred epochs"); the history-based start
 *	of the followers (and of the spatial SMs) still applies.
 */
enum vgpu_maestro_relaunch {
	VGPU_MAESTRO_RELAUNCH_KNOWN = 0,
	VGPU_MAESTRO_RELAUNCH_NEW = 1,
};

/**
 * struct vgpu_maestro_stats - maestro's epoch decisions since the device
 *	was created (debugfs "maestro"; readers take differences; Park,
 *	Ch. V, Fig. 5.12).
 * @epochs: epochs decided, over all pairs.
 * @spatial: epochs whose winner was spatial multitasking.
 * @smk_even: epochs whose winning SMK partition was the even one.
 * @smk_other: epochs whose winning SMK partition was another.
 * @repartitions: epochs whose decision changed the followers' partition.
 * @preempted_tbs: TBs preempted to reach a new partition.
 */
struct vgpu_maestro_stats {
	u64 epochs;
	u64 spatial;
	u64 smk_even;
	u64 smk_other;
	u64 repartitions;
	u64 preempted_tbs;
};

/**
 * struct vgpu_maestro_conf - maestro's knobs and statistics, per device,
 *	whether maestro is active or not (the area of
 *	&vgpu_maestro_policy_conf); device lock.
 * @epoch_cycles: the epoch in cycles (sysfs maestro_epoch_cycles).
 * @objective: &enum vgpu_maestro_objective (sysfs maestro_objective).
 * @history: &enum vgpu_maestro_history (sysfs maestro_history).
 * @pairing: &enum vgpu_maestro_pairing (sysfs maestro_pairing).
 * @relaunch: &enum vgpu_maestro_relaunch (sysfs maestro_relaunch).
 * @stats: its decisions.
 */
struct vgpu_maestro_conf {
	u32 epoch_cycles;
	u32 objective;
	u32 history;
	u32 pairing;
	u32 relaunch;
	struct vgpu_maestro_stats stats;
};

/* vgpu_policy_maestro.c */
extern const struct vgpu_policy_conf vgpu_maestro_policy_conf;

/* @s's &struct vgpu_maestro_conf. Device lock held. */
static inline struct vgpu_maestro_conf *
vgpu_maestro_conf_of(struct vgpu_sched *s)
{
	return vgpu_sched_policy_conf(s, &vgpu_maestro_policy_conf);
}

/**
 * enum vgpu_maestro_role - what an SM of a pair's group does (§5.4.1: two
 * bits per SM: dedicated, trial, follower).
 * @VGPU_MAESTRO_FOLLOWER: runs the best partition of the last epoch: SMK
 *	with @t TBs of the trial kernel, or (&vgpu_maestro_sm.alone) one
 *	kernel when spatial multitasking was chosen.
 * @VGPU_MAESTRO_TRIAL_UP: SMK with one TB more of the trial kernel than
 *	the followers.
 * @VGPU_MAESTRO_TRIAL_DOWN: SMK with one TB fewer.
 * @VGPU_MAESTRO_DEDICATED: one kernel alone: its single-kernel CPI and the
 *	performance of spatial multitasking.
 */
enum vgpu_maestro_role {
	VGPU_MAESTRO_FOLLOWER,
	VGPU_MAESTRO_TRIAL_UP,
	VGPU_MAESTRO_TRIAL_DOWN,
	VGPU_MAESTRO_DEDICATED,
};

/* &vgpu_maestro_sm.alone: SMK, both kernels share the SM. */
#define VGPU_MAESTRO_SHARED	0xff

/**
 * struct vgpu_maestro_sm - one SM of a pair's group.
 * @role: &enum vgpu_maestro_role.
 * @alone: the kernel (0: trial kernel, 1: the other) that runs alone on
 *	a dedicated SM or a spatial follower, else %VGPU_MAESTRO_SHARED.
 * @t: TBs of the trial kernel on a shared SM (the other kernel fills the
 *	rest, vgpu_maestro_fill()).
 * @insts: this epoch's warp instructions of each kernel on the SM.
 */
struct vgpu_maestro_sm {
	u8 role;
	u8 alone;
	u8 t;
	u64 insts[2];
};

/**
 * struct vgpu_maestro_pair - the partitioning state of two kernels over a
 * group of SMs (§5.4.1; more kernels are paired, §5.4.2).
 * @cap: one SM's capacity (vgpu_smk_caps()).
 * @need: resources of one TB of the trial kernel (0) and the other (1).
 * @max: TBs of each that fit on an empty SM.
 * @fol_t: the followers' partition: TBs of the trial kernel per SM.
 * @spatial: spatial followers per kernel.
 * @dedicated: the dedicated SMs are in place (not retired).
 * @have_prev: @prev_ded holds last epoch's dedicated rates.
 * @prev_ded: dedicated rates of the previous epoch (stability).
 * @single: single-kernel rates stored when the dedicated SMs retired.
 * @retired_epochs: epochs since the dedicated SMs retired.
 * @epochs: epochs decided.
 * @changed: the last decision repartitioned.
 * @nr_sms: SMs of the group.
 * @sms: per SM of the group.
 */
struct vgpu_maestro_pair {
	u64 cap[VGPU_SMK_NR_RES];
	u64 need[2][VGPU_SMK_NR_RES];
	u32 max[2];
	u32 fol_t;
	u32 spatial;
	bool dedicated;
	bool have_prev;
	u64 prev_ded[2];
	u64 single[2];
	u32 retired_epochs;
	u32 epochs;
	bool changed;
	u32 nr_sms;
	struct vgpu_maestro_sm *sms;
};

/**
 * struct vgpu_maestro_cand - one partition measured in an epoch.
 * @valid: it was measured.
 * @value: its objective (fixed point).
 */
struct vgpu_maestro_cand {
	bool valid;
	u64 value;
};

/* Candidates in the order ties favour them (the current one first). */
enum {
	VGPU_MAESTRO_CAND_FOLLOWER,
	VGPU_MAESTRO_CAND_UP,
	VGPU_MAESTRO_CAND_DOWN,
	VGPU_MAESTRO_CAND_SPATIAL,
	VGPU_MAESTRO_NR_CANDS,
};

#if IS_ENABLED(CONFIG_KUNIT)
u32 vgpu_maestro_fill(const u64 *cap, const u64 *need_t, u32 t,
		      const u64 *need_o);
u32 vgpu_maestro_trial_kernel(u32 max_a, u32 max_b);
void vgpu_maestro_trials(const struct vgpu_maestro_pair *p, u32 *up,
			 u32 *down);
u64 vgpu_maestro_objective(u32 objective, const u64 *mk, const u64 *sk,
			   u32 nr);
int vgpu_maestro_best(u32 objective, const struct vgpu_maestro_cand *c,
		      u32 nr);
bool vgpu_maestro_stable(u64 prev, u64 cur);
bool vgpu_maestro_dedicated_back(u32 retired_epochs, bool repartitioned,
				 bool new_kernel);
void vgpu_maestro_pair_init(struct vgpu_maestro_pair *p, u32 even_t,
			    u32 hist_t);
void vgpu_maestro_pair_known(struct vgpu_maestro_pair *p, const u64 *single);
void vgpu_maestro_layout(struct vgpu_maestro_pair *p);
int vgpu_maestro_epoch_end(struct vgpu_maestro_pair *p, u32 objective);
void vgpu_maestro_sm_quota2(const struct vgpu_maestro_pair *p, u32 i,
			    u32 *q);
const struct vgpu_maestro_pair *
vgpu_maestro_state_pair(const struct vgpu_sched *s, u32 g);
#endif

#endif /* _VGPU_POLICY_MAESTRO_H_ */
