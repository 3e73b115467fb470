/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu partition policy warped-slicer (vgpu_policy_warped_slicer.c): the
 * pure parts (profiling assignment, curve building, the partition solver)
 * and the per-kernel state, visible to KUnit.
 */
#ifndef _VGPU_POLICY_WARPED_SLICER_H_
#define _VGPU_POLICY_WARPED_SLICER_H_

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/types.h>

#include "vgpu_policy_smk.h"

/** Most TBs of one kernel on one SM that a curve describes. */
#define VGPU_WS_MAX_TBS		VGPU_SMST_MAX_SLOTS

/*
 * Most kernels partitioned together; with more candidates the policy falls
 * back to smk-even (a per-SM slice per kernel is then one or two TBs, and
 * profiling needs an SM per kernel).
 */
#define VGPU_WS_MAX_KERNELS	8

/* Normalised performance 1.0 (perf_i(t) / perf_i(best)) in fixed point. */
#define VGPU_WS_ONE		BIT(16)

/* Curve points are warp instructions per cycle in 1/1024ths. */
#define VGPU_WS_PERF_SHIFT	10

/**
 * struct vgpu_ws_samples - what profiling measured for one kernel, per
 * per-SM TB count q (index 1 ... %VGPU_WS_MAX_TBS; 0 unused).
 * @insts: warp instructions of the TBs that ran on SMs with quota q.
 * @cycles: the same TBs' cycles from dispatch to completion.
 * @tbs: how many TBs.
 */
struct vgpu_ws_samples {
	u64 insts[VGPU_WS_MAX_TBS + 1];
	u64 cycles[VGPU_WS_MAX_TBS + 1];
	u32 tbs[VGPU_WS_MAX_TBS + 1];
};

/**
 * struct vgpu_ws_curve - a kernel's performance-vs-TBs curve on one SM.
 * @max_tbs: TBs of the kernel that fit on an empty SM (1 ...
 *	%VGPU_WS_MAX_TBS).
 * @perf: @perf[t], the SM's throughput of the kernel running t TBs alone
 *	(units of %VGPU_WS_PERF_SHIFT); @perf[0] is 0.
 */
struct vgpu_ws_curve {
	u32 max_tbs;
	u64 perf[VGPU_WS_MAX_TBS + 1];
};

/**
 * struct vgpu_ws_part - one kernel in the partition solver.
 * @curve: its curve.
 * @need: resources of one of its TBs (TB slot, threads, registers, shared
 *	memory; vgpu_smk_need()).
 * @min: TBs it gets first, before any marginal gain counts (so that no
 *	kernel starves), where they fit.
 * @limit: most TBs it may get (at most @curve->max_tbs).
 * @tbs: the result, TBs per SM.
 */
struct vgpu_ws_part {
	const struct vgpu_ws_curve *curve;
	u64 need[VGPU_SMK_NR_RES];
	u32 min;
	u32 limit;
	u32 tbs;
};

/**
 * enum vgpu_ws_phase - where a kernel stands.
 * @VGPU_WS_PROFILING: no curve yet.
 * @VGPU_WS_READY: the curve is built.
 * @VGPU_WS_NO_CURVE: profiling measured nothing in time; the kernel is
 *	partitioned as smk-even would.
 */
enum vgpu_ws_phase {
	VGPU_WS_PROFILING,
	VGPU_WS_READY,
	VGPU_WS_NO_CURVE,
};

/**
 * struct vgpu_ws_kernel - the policy's state of one kernel on one device.
 * @link: entry in the device's list of states (the policy's
 *	&vgpu_sched.policy_data).
 * @e: the KCB entry; compared, never dereferenced once the kernel ended.
 * @id: its job id (with @e, tells a new kernel at a reused address apart).
 * @phase: &enum vgpu_ws_phase.
 * @started: profiling has begun (@start is valid).
 * @laid_out: @sm_quota is the layout of the current plan.
 * @seen: scratch of one plan.
 * @start: cycle at which profiling began.
 * @layout_cycle: cycle at which @sm_quota last changed; TBs dispatched
 *	earlier are not counted.
 * @smp: the measurements.
 * @curve: the curve, once @phase is %VGPU_WS_READY.
 * @num_sms: entries of @sm_quota.
 * @sm_quota: while profiling, the kernel's TB count on each SM of its
 *	group, 0 on SMs outside it.
 *
 * Written with the device lock held.
 */
struct vgpu_ws_kernel {
	struct list_head link;
	const struct vgpu_kcb_entry *e;
	u32 id;
	enum vgpu_ws_phase phase;
	bool started;
	bool laid_out;
	bool seen;
	u64 start;
	u64 layout_cycle;
	struct vgpu_ws_samples smp;
	struct vgpu_ws_curve curve;
	u32 num_sms;
	u8 sm_quota[] __counted_by(num_sms);
};

#if IS_ENABLED(CONFIG_KUNIT)
u32 vgpu_ws_profile_quota(u32 j, u32 m, u32 max_tbs);
int vgpu_ws_build_curve(const struct vgpu_ws_samples *smp, u32 max_tbs,
			struct vgpu_ws_curve *c);
void vgpu_ws_solve(const u64 *cap, struct vgpu_ws_part *parts, u32 k);
const struct vgpu_ws_kernel *vgpu_ws_state(const struct vgpu_sched *s,
					   const struct vgpu_kcb_entry *e);
u32 vgpu_ws_nr_states(const struct vgpu_sched *s);
#endif

#endif /* _VGPU_POLICY_WARPED_SLICER_H_ */
