/* SPDX-License-Identifier: MIT */
/*
 * preempt_cost.h - what preempting each kernel of a workload costs, Park's
 * Table 4.2 (dissertation, Ch. IV §4.4), measured on a local device
 * (preempt_cost.c); "vgpu bench preempt-cost" (bench_preempt_cost.c)
 * prints it, test_preempt_cost checks it.
 */
#ifndef VGPU_TOOL_PREEMPT_COST_H
#define VGPU_TOOL_PREEMPT_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "vgpu.h"
#include "workloads/workload.h"

/* The most kernel rows of one workload; launches beyond are counted apart. */
#define PC_MAX_KERNELS		16

/**
 * struct pc_kernel - one row: a kernel's launches that have the same
 *	context and occupancy (a kernel launched with other block sizes has
 *	a row each), and what their blocks did.
 * @kernel: the entry point.
 * @launches: launches.
 * @tbs: blocks of their grids.
 * @threads: threads of one block.
 * @regs_per_thread: registers per thread.
 * @shared: shared-memory bytes of one block.
 * @local_per_thread: .local bytes per thread.
 * @tbs_per_sm: blocks that fit an empty SM (the driver's occupancy).
 * @ctx_bytes: one block's context as the driver counts it (uapi
 *	vgpu_ctx_bytes()).
 * @idempotent: the kernel as a whole is idempotent (strict idempotence).
 * @done: blocks that ended.
 * @tb_cycles: their cycles from dispatch to end, summed.
 * @warp_insts: their warp instructions, summed.
 * @crossed: blocks that crossed their idempotence boundary.
 * @idem_frac: over the ended blocks, the share of each one's cycles before
 *	it crossed (1 for one that never did), summed.
 * @idem_frac_insts: the same in warp instructions.
 * @sm_bw_fp: the scheduler's share of DRAM bandwidth of one SM, bytes per
 *	cycle in 1/1024 (vgpu_preempt_sm_bw_fp()).
 * @drain_cycles: estimated drain time: the driver's drain latency
 *	(vgpu_preempt_drain_latency()) of a block halfway through, half the
 *	mean block's warp instructions at the kernel's mean CPI.
 * @switch_cycles: estimated switch time: the driver's save latency
 *	(vgpu_preempt_switch_latency()) of @tbs_per_sm contexts through
 *	@sm_bw_fp.
 */
struct pc_kernel {
	char kernel[VGPU_PROGRAM_NAME_LEN];
	uint32_t launches;
	uint64_t tbs;
	uint32_t threads;
	uint32_t regs_per_thread;
	uint32_t shared;
	uint32_t local_per_thread;
	uint32_t tbs_per_sm;
	uint64_t ctx_bytes;
	bool idempotent;
	uint64_t done;
	uint64_t tb_cycles;
	uint64_t warp_insts;
	uint64_t crossed;
	double idem_frac;
	double idem_frac_insts;
	uint64_t sm_bw_fp;
	uint64_t drain_cycles;
	uint64_t switch_cycles;
};

/**
 * struct pc_workload - one workload's rows; fixed size, so that worker
 *	processes can fill it in shared memory.
 * @res: what the workload measured.
 * @nk: rows in @k.
 * @k: the rows, in the order their first launch came.
 * @lost_launches: launches beyond %PC_MAX_KERNELS rows, not in @k.
 * @unknown_tbs: blocks that ended of a job no launch was seen of (0).
 * @ret: the workload's result (0 passed).
 * @msg: what went wrong, when @ret is not 0.
 */
struct pc_workload {
	struct workload_result res;
	unsigned int nk;
	struct pc_kernel k[PC_MAX_KERNELS];
	uint32_t lost_launches;
	uint64_t unknown_tbs;
	int ret;
	char msg[256];
};

/*
 * Runs @w with @args on @dev, a fresh local device, and fills @out: every
 * launch and every block that ended (vgpu_local_set_launch_hook(),
 * vgpu_sim_set_tb_hook()), then each row's estimates by the driver's code
 * (vgpu_local_preempt_estimate()). Returns 0 when it ran (the workload's
 * own outcome is in @out->ret), else a negative errno.
 */
int pc_measure(struct vgpu_device *dev, const struct vgpu_workload *w,
	       const struct workload_args *args, struct pc_workload *out);

/* Mean cycles of a block of @k (0 when none ended). */
double pc_tb_cycles(const struct pc_kernel *k);
/* Relaxed idempotence: no block of @k crossed its boundary. */
bool pc_idempotent(const struct pc_kernel *k);
/* The mean share of a block's cycles before it crossed, in % (100: never). */
double pc_idem_pct(const struct pc_kernel *k);

#endif /* VGPU_TOOL_PREEMPT_COST_H */
