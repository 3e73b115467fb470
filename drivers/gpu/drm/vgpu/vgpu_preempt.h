/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu preemption selection: which SMs to take from a kernel and how to
 * preempt each of their thread blocks.
 *
 * Park, dissertation, Ch. IV (Chimera): three techniques (§4.2), their
 * costs estimated per TB from hardware statistics (§4.3.2), and the
 * selection of SMs and per-TB techniques under a latency budget
 * (§4.3.3, Algorithm 3). The policies here are pure functions over a plain
 * description of the SMs; the scheduler fills that description from the
 * SMST and the daemon's statistics and carries the plan out
 * (vgpu_sched_preempt.c). The estimates and Algorithm 3 are the core,
 * vgpu_preempt.c, with the registry of policies; each policy is its per-TB
 * choice (vgpu_preempt_chimera.c, vgpu_preempt_simple.c).
 */
#ifndef _VGPU_PREEMPT_H_
#define _VGPU_PREEMPT_H_

#include <linux/bits.h>
#include <linux/types.h>

#include "vgpu_smst.h"

/** Fixed-point shift of the rates below: 1.0 is 1 << 10. */
#define VGPU_PREEMPT_FP_SHIFT		10
/** Fixed-point 1.0. */
#define VGPU_PREEMPT_FP_ONE		BIT(VGPU_PREEMPT_FP_SHIFT)
/** Most thread blocks of one SM in a request (the SMST's slot count). */
#define VGPU_PREEMPT_MAX_TBS		VGPU_SMST_MAX_SLOTS
/**
 * VGPU_PREEMPT_FLUSH_LATENCY - estimated cycles of a flush. The thesis
 * takes it to be zero (§4.2.4, §4.3.2): the SM resets itself; a small
 * constant keeps a zero budget unmeetable.
 */
#define VGPU_PREEMPT_FLUSH_LATENCY	16

/**
 * enum vgpu_preempt_tech - how one thread block is preempted (§4.2).
 * @VGPU_TECH_SWITCH: context switch: save the TB's context (registers,
 *	shared memory, SIMT stacks) and restore it later on some SM.
 * @VGPU_TECH_DRAIN: stop issuing to the SM and let the TB finish.
 * @VGPU_TECH_FLUSH: drop the TB and run it again from its beginning;
 *	only correct while the TB is idempotent (§4.3.4).
 * @VGPU_TECH_NR: number of techniques.
 */
enum vgpu_preempt_tech {
	VGPU_TECH_SWITCH = 0,
	VGPU_TECH_DRAIN = 1,
	VGPU_TECH_FLUSH = 2,
	VGPU_TECH_NR,
};

/**
 * enum vgpu_preempt_idem - which idempotence condition allows a flush.
 * @VGPU_PREEMPT_IDEM_RELAXED: §4.3.4: a TB is idempotent at a given time
 *	if it has neither executed an atomic nor overwritten a global
 *	location it read (&vgpu_preempt_tb.crossed clear). The thesis' choice.
 * @VGPU_PREEMPT_IDEM_STRICT: the original condition, the baseline of
 *	§4.4.3 (Fig. 4.8): "the kernel idempotence decides whether an SM can
 *	be preempted with flushing or not" (&vgpu_preempt_tb.kernel_nonidem
 *	clear).
 * @VGPU_PREEMPT_IDEM_BUFFERS: relaxed, with the overwrite decided per
 *	buffer while the kernel runs: a store the compiler could not prove
 *	harmless (two pointer parameters may name one buffer) crosses only
 *	when it writes into a buffer a load of the launch has read
 *	(%VGPU_JOB_BUFFER_BOUNDARIES, set at submission). A flush is then
 *	allowed as under relaxed.
 */
enum vgpu_preempt_idem {
	VGPU_PREEMPT_IDEM_RELAXED = 0,
	VGPU_PREEMPT_IDEM_STRICT = 1,
	VGPU_PREEMPT_IDEM_BUFFERS = 2,
};

/**
 * struct vgpu_preempt_tb - statistics of one resident thread block (§4.3.2).
 * @insts: warp instructions executed since dispatch (warp granularity, so
 *	that divergence does not distort progress).
 * @cycles: cycles since dispatch. With @insts it gives the TB's CPI, which
 *	the scheduler averages into &vgpu_preempt_kernel.tb_cpi_fp; the drain
 *	estimate uses that average (§4.3.2), or the TB's own CPI when higher.
 * @ctx_bytes: context size: registers, shared memory and SIMT stack state.
 *	Known from the kernel's resources before launch, so always valid.
 * @known: @insts and @cycles have been reported. When clear, drain and
 *	flush of this TB cost the maximum (§4.3.2).
 * @crossed: the TB passed its relaxed-idempotence boundary: it executed a
 *	global atomic or overwrote a global location it read (the daemon
 *	reports the crossing as it happens, §4.3.4).
 * @kernel_nonidem: the TB's kernel is not idempotent as a whole (it has
 *	atomics or global overwrites), so strict idempotence never flushes it.
 *
 * The idempotence flags come with the events that report them and are
 * valid whether or not @known is set.
 */
struct vgpu_preempt_tb {
	u64 insts;
	u64 cycles;
	u64 ctx_bytes;
	bool known;
	bool crossed;
	bool kernel_nonidem;
};

/**
 * struct vgpu_preempt_kernel - statistics of the kernel to preempt.
 * @avg_tb_insts: average warp instructions of one whole TB (over the
 *	kernel's finished TBs).
 * @max_tb_insts: the most warp instructions a finished TB executed (0:
 *	taken as @avg_tb_insts): a TB's remaining instructions are this
 *	minus &vgpu_preempt_tb.insts, for the drain latency.
 * @tb_cpi_fp: average cycles per warp instruction of one TB, fixed point
 *	(%VGPU_PREEMPT_FP_ONE is 1.0): the drain latency's CPI.
 * @sm_ipc_fp: warp instructions per cycle of one SM running the kernel,
 *	fixed point: what a context switch keeps the SM from executing.
 * @known: the fields above are valid (all non-zero). When clear, every
 *	estimate that needs them costs the maximum.
 * @latency_scale_fp: how much longer than estimated this kernel's
 *	preemptions have taken, fixed point (0 or %VGPU_PREEMPT_FP_ONE: as
 *	estimated): drain and switch latencies are multiplied by it
 *	(vgpu_sched_learn_latency()). Independent of @known.
 */
struct vgpu_preempt_kernel {
	u64 avg_tb_insts;
	u64 max_tb_insts;
	u64 tb_cpi_fp;
	u64 sm_ipc_fp;
	bool known;
	u32 latency_scale_fp;
};

/**
 * struct vgpu_preempt_params - device parameters.
 * @sm_bw_fp: one SM's share of the device memory bandwidth in bytes per
 *	cycle, fixed point; non-zero. Table 4.1: 177.4 GB/s over 30 SMs at
 *	1400 MHz is 4.22 bytes per cycle (4325).
 * @idem: the idempotence condition that allows a flush.
 */
struct vgpu_preempt_params {
	u64 sm_bw_fp;
	enum vgpu_preempt_idem idem;
};

/**
 * struct vgpu_preempt_sm - one SM that runs the kernel to preempt.
 * @sm: the SM's number; copied to the plan, not interpreted.
 * @nr_tbs: resident TBs of the kernel, at most %VGPU_PREEMPT_MAX_TBS.
 * @tbs: their statistics (@nr_tbs entries; may be NULL when zero).
 */
struct vgpu_preempt_sm {
	u32 sm;
	u32 nr_tbs;
	const struct vgpu_preempt_tb *tbs;
};

/**
 * struct vgpu_preempt_input - what a policy decides over.
 * @params: the device.
 * @kernel: the kernel to preempt.
 * @sms: the SMs it occupies (Algorithm 3's candidates).
 * @nr_sms: entries of @sms, at least one.
 */
struct vgpu_preempt_input {
	struct vgpu_preempt_params params;
	struct vgpu_preempt_kernel kernel;
	const struct vgpu_preempt_sm *sms;
	u32 nr_sms;
};

/**
 * struct vgpu_preempt_request - what the SM partitioning policy asks for
 * (Algorithm 3's inputs NumPreempts and LatLimit).
 * @nr_sms: SMs to preempt: 1 ... &vgpu_preempt_input.nr_sms.
 * @budget: latency limit in cycles; an estimate meets it when it is not
 *	above it.
 */
struct vgpu_preempt_request {
	u32 nr_sms;
	u64 budget;
};

/**
 * struct vgpu_preempt_sm_plan - the decision and its cost for one SM.
 * @idx: index of the SM in &vgpu_preempt_input.sms.
 * @sm: &vgpu_preempt_sm.sm.
 * @nr_tbs: &vgpu_preempt_sm.nr_tbs.
 * @meets: @latency is within the budget.
 * @latency: estimated cycles until the SM is free: the longest of its TBs
 *	(drains and the flush run concurrently), where the contexts being
 *	saved share the SM's bandwidth and so add up.
 * @overhead: estimated warp instructions lost, the sum over the TBs.
 * @tech: per TB, in input order, the &enum vgpu_preempt_tech chosen.
 */
struct vgpu_preempt_sm_plan {
	u32 idx;
	u32 sm;
	u32 nr_tbs;
	bool meets;
	u64 latency;
	u64 overhead;
	u8 tech[VGPU_PREEMPT_MAX_TBS];
};

/**
 * struct vgpu_preempt_plan - a policy's answer, in storage the caller owns
 *	(the select path does not allocate).
 * @sms: caller's array of at least &vgpu_preempt_input.nr_sms entries.
 *	On return every candidate SM is there once: first the
 *	&vgpu_preempt_request.nr_sms chosen ones, in the order chosen, then
 *	the others in the same order.
 * @max_sms: entries of @sms.
 * @nr_sms: out: SMs chosen (the request's count).
 * @latency: out: the longest latency of the chosen SMs.
 * @overhead: out: the summed overhead of the chosen SMs (saturating).
 * @budget_met: out: every chosen SM meets the budget. When clear, fewer
 *	SMs than requested could meet it and the rest were filled with the
 *	cheapest that do not.
 */
struct vgpu_preempt_plan {
	struct vgpu_preempt_sm_plan *sms;
	u32 max_sms;
	u32 nr_sms;
	u64 latency;
	u64 overhead;
	bool budget_met;
};

/**
 * struct vgpu_preempt_cost - estimated cost of one technique for one TB.
 * @latency: cycles until the TB no longer occupies the SM.
 * @overhead: warp instructions of throughput lost.
 * @allowed: the technique is correct for this TB now (a flush of a TB
 *	that is not idempotent is not); an unknown cost is allowed but
 *	maximal.
 */
struct vgpu_preempt_cost {
	u64 latency;
	u64 overhead;
	bool allowed;
};

/**
 * struct vgpu_preempt_ops - a preemption selection policy.
 * @name: policy name (the value sysfs will take).
 * @ideal_switch: its context switches cost nothing (%VGPU_PREEMPT_IDEAL):
 *	the reference policy "ideal", against which the others' overhead is
 *	measured. No hardware can do it.
 * @select: choose the SMs and per-TB techniques for @req; 0, or -EINVAL
 *	for inputs that make no sense (nothing changed in @plan but its
 *	outputs cleared). Pure: no locks, no allocation, no side effects.
 */
struct vgpu_preempt_ops {
	const char *name;
	bool ideal_switch;
	int (*select)(const struct vgpu_preempt_input *in,
		      const struct vgpu_preempt_request *req,
		      struct vgpu_preempt_plan *plan);
};

/* The policies (vgpu_preempt_chimera.c, vgpu_preempt_simple.c). */
extern const struct vgpu_preempt_ops vgpu_preempt_chimera;
extern const struct vgpu_preempt_ops vgpu_preempt_switch;
extern const struct vgpu_preempt_ops vgpu_preempt_drain;
extern const struct vgpu_preempt_ops vgpu_preempt_flush;
extern const struct vgpu_preempt_ops vgpu_preempt_ideal;

/* vgpu_preempt.c: the registry, NULL-terminated, the default first. */
extern const struct vgpu_preempt_ops *const vgpu_preempt_policies[];
const struct vgpu_preempt_ops *vgpu_preempt_find(const char *name);
extern const char *const vgpu_preempt_idem_names[];
int vgpu_preempt_idem_parse(const char *name);
const char *vgpu_preempt_idem_name(enum vgpu_preempt_idem idem);
const char *vgpu_preempt_tech_name(enum vgpu_preempt_tech tech);

/* §4.3.2 estimates (vgpu_preempt.c), saturating at U64_MAX. */
u64 vgpu_preempt_switch_latency(u64 ctx_bytes, u64 sm_bw_fp);
u64 vgpu_preempt_switch_overhead(u64 save_cycles, u64 sm_ipc_fp);
u64 vgpu_preempt_drain_latency(u64 remaining_insts, u64 tb_cpi_fp);
u64 vgpu_preempt_sm_bw_fp(u64 mem_bandwidth_mbs, u64 core_clock_khz,
			  u32 num_sms);
u64 vgpu_preempt_cpi_fp(u64 cycles, u64 insts);
bool vgpu_preempt_flush_allowed(const struct vgpu_preempt_tb *tb,
				enum vgpu_preempt_idem idem);
void vgpu_preempt_estimate(const struct vgpu_preempt_input *in,
			   const struct vgpu_preempt_sm *sm, u32 tb,
			   struct vgpu_preempt_cost cost[VGPU_TECH_NR]);

/*
 * For the policies: Algorithm 3 with the per-TB choice left to @pick,
 * which gets the TB's costs and the budget and returns a technique.
 */
int vgpu_preempt_plan_sms(const struct vgpu_preempt_input *in,
			  const struct vgpu_preempt_request *req,
			  struct vgpu_preempt_plan *plan,
			  enum vgpu_preempt_tech (*pick)
				(const struct vgpu_preempt_cost *cost,
				 u64 budget));

#endif /* _VGPU_PREEMPT_H_ */
