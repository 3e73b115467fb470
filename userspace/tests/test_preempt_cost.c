// SPDX-License-Identifier: MIT
/*
 * test_preempt_cost.c - host tests of Park's Table 4.2 as "vgpu bench
 * preempt-cost" measures it (userspace/tools/preempt_cost.c) on the local
 * device, fermi-30sm (Table 4.1) at the small size: idempotence under the
 * relaxed condition (a kernel without boundary stays Yes, one with global
 * atomics crosses before its end), the context and switch time as the
 * driver's formulas give them, the drain time as half the mean block, the
 * blocks and launches all counted, and no cycle changed by the hooks.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <drm/vgpu_backend.h>

#include "tap.h"
#include "tools/preempt_cost.h"
#include "vgpu.h"
#include "vgpu_sim.h"
#include "workloads/workload.h"

static struct vgpu_sim_config cfg;

/* Workload @name at its small size on a fresh fermi-30sm device. */
static int measure(const char *name, struct pc_workload *out)
{
	const struct vgpu_workload *w = vgpu_workload_find(name);
	struct workload_args args = { .seed = 1 };
	struct vgpu_device *dev;
	int ret;

	CHECK(w, "workload %s", name);
	args.size = w->small_size;
	CHECK(vgpu_device_open_local(&cfg, &dev) == 0, "open_local");
	ret = pc_measure(dev, w, &args, out);
	vgpu_device_close(dev);
	CHECK(ret == 0, "pc_measure %s: %d", name, ret);
	CHECK(out->ret == 0, "%s: %s", name, out->msg);
	return 0;
}

static const struct pc_kernel *row(const struct pc_workload *r, const char *kernel)
{
	for (unsigned int i = 0; i < r->nk; i++)
		if (!strcmp(r->k[i].kernel, kernel))
			return &r->k[i];
	return NULL;
}

/* Every launch has its row, every block of it ended once and was counted. */
static int counts_match(const char *name, const struct pc_workload *r)
{
	uint64_t tbs = 0;
	unsigned int launches = 0;

	CHECK(r->nk > 0, "%s: no row", name);
	CHECK(!r->lost_launches && !r->unknown_tbs, "%s: %u launches lost, %" PRIu64
	      " blocks of unknown jobs", name, r->lost_launches, r->unknown_tbs);
	for (unsigned int i = 0; i < r->nk; i++) {
		const struct pc_kernel *k = &r->k[i];

		CHECK(k->launches > 0 && k->done == k->tbs, "%s %s: %u launches, %" PRIu64
		      " blocks, %" PRIu64 " ended", name, k->kernel, k->launches, k->tbs, k->done);
		CHECK(k->crossed <= k->done, "%s %s: %" PRIu64 " crossed of %" PRIu64, name,
		      k->kernel, k->crossed, k->done);
		tbs += k->tbs;
		launches += k->launches;
	}
	CHECK(tbs == r->res.tbs && launches == r->res.launches, "%s: rows %u launches %" PRIu64
	      " blocks, the workload %u and %" PRIu64, name, launches, tbs, r->res.launches,
	      r->res.tbs);
	return 0;
}

static int t_idempotent(void)
{
	struct pc_workload r;
	const struct pc_kernel *k;

	if (measure("mandel", &r) || counts_match("mandel", &r))
		return -1;
	k = row(&r, "mandel");
	CHECK(k, "no mandel row");
	CHECK(k->idempotent, "mandel: the compiler found atomics or overwrites");
	CHECK(pc_idempotent(k) && !k->crossed, "mandel: %" PRIu64 " blocks crossed", k->crossed);
	CHECK(pc_idem_pct(k) == 100.0, "mandel: idempotent region %.2f %%", pc_idem_pct(k));
	return 0;
}

static int t_atomics(void)
{
	struct pc_workload r;
	const struct pc_kernel *k;
	double pct;

	if (measure("histogram", &r) || counts_match("histogram", &r))
		return -1;
	k = row(&r, "histogram");
	CHECK(k, "no histogram row");
	CHECK(!k->idempotent, "histogram: its global atomics make it idempotent?");
	/* every block adds its counts to the global bins */
	CHECK(k->crossed == k->done && !pc_idempotent(k), "histogram: %" PRIu64 " of %" PRIu64
	      " blocks crossed", k->crossed, k->done);
	pct = pc_idem_pct(k);
	CHECK(pct > 0.0 && pct < 100.0, "histogram: idempotent region %.2f %%", pct);
	CHECK(k->idem_frac_insts > 0.0 && k->idem_frac_insts < (double)k->done,
	      "histogram: region in instructions %.2f of %" PRIu64, k->idem_frac_insts, k->done);
	return 0;
}

/* The driver's formulas: uapi vgpu_ctx_bytes(), the SM's bandwidth share. */
static int t_context_switch(void)
{
	uint64_t warps, ctx, bw;
	struct pc_workload r;
	const struct pc_kernel *k;
	double half;

	if (measure("blackscholes", &r) || counts_match("blackscholes", &r))
		return -1;
	k = row(&r, "blackscholes");
	CHECK(k, "no blackscholes row");
	/* blackscholes.c: blocks of 128 threads, no shared memory */
	CHECK(k->threads == 128 && k->shared == 0, "blackscholes: %u threads, %u shared",
	      k->threads, k->shared);
	CHECK(k->regs_per_thread > 0, "blackscholes: no registers");
	warps = (k->threads + 31) / 32;
	ctx = (uint64_t)k->regs_per_thread * k->threads * 4 + k->shared +
	      (uint64_t)k->local_per_thread * warps * 32 + VGPU_CTX_HEADER_BYTES +
	      warps * VGPU_CTX_WARP_BYTES;
	CHECK(k->ctx_bytes == ctx, "blackscholes: context %" PRIu64 ", registers x threads x 4"
	      " + shared + local + state %" PRIu64, k->ctx_bytes, ctx);
	/* fermi-30sm: 32 K registers, at most 8 blocks and 1,536 threads */
	CHECK(k->tbs_per_sm >= 1 && k->tbs_per_sm <= 8 && k->tbs_per_sm * 128 <= 1536 &&
	      (uint64_t)k->tbs_per_sm * k->regs_per_thread * 128 <= 32768,
	      "blackscholes: %u blocks per SM", k->tbs_per_sm);
	/* §4.2.4: DRAM bandwidth over SMs at the core clock, bytes per cycle */
	bw = cfg.dram_bandwidth_mbs ?
	     (uint64_t)cfg.dram_bandwidth_mbs * 1000 * 1024 /
	     ((uint64_t)cfg.desc.core_clock_khz * cfg.desc.num_sms) : 4325;
	CHECK(k->sm_bw_fp == bw, "share of bandwidth %" PRIu64 ", want %" PRIu64, k->sm_bw_fp, bw);
	CHECK(k->switch_cycles == k->ctx_bytes * k->tbs_per_sm * 1024 / bw,
	      "switch %" PRIu64 " cycles for %u x %" PRIu64 " bytes at %" PRIu64, k->switch_cycles,
	      k->tbs_per_sm, k->ctx_bytes, bw);
	/* the preemption point uniformly over a block: half of it remains */
	half = pc_tb_cycles(k) / 2;
	CHECK(half > 0 && fabs((double)k->drain_cycles - half) <= 0.01 * half + 1,
	      "drain %" PRIu64 " cycles, half the mean block %.1f", k->drain_cycles, half);
	return 0;
}

/* Several launches of one kernel make one row; the counts still add up. */
static int t_launches(void)
{
	struct pc_workload r;
	const struct pc_kernel *k;

	if (measure("lud", &r) || counts_match("lud", &r))
		return -1;
	k = row(&r, "lud_diagonal");
	CHECK(k && k->launches > 1, "lud_diagonal: %u launches", k ? k->launches : 0);
	return 0;
}

/* The hooks watch: the same launches take the same cycles without them. */
static int t_no_cycle_changed(void)
{
	const struct vgpu_workload *w = vgpu_workload_find("histogram");
	struct workload_args args = { .seed = 1 };
	struct workload_result plain = { 0 };
	struct vgpu_device *dev;
	struct pc_workload r;
	char msg[256] = "";
	int ret;

	CHECK(w, "histogram");
	args.size = w->small_size;
	if (measure("histogram", &r))
		return -1;
	CHECK(vgpu_device_open_local(&cfg, &dev) == 0, "open_local");
	ret = w->run(dev, &args, &plain, msg, sizeof(msg));
	vgpu_device_close(dev);
	CHECK(ret == 0, "histogram: %s", msg);
	CHECK(plain.cycles == r.res.cycles && plain.warp_insts == r.res.warp_insts,
	      "histogram: %" PRIu64 " cycles, %" PRIu64 " warp-insts watched; %" PRIu64 ", %"
	      PRIu64 " not", r.res.cycles, r.res.warp_insts, plain.cycles, plain.warp_insts);
	return 0;
}

int main(void)
{
	if (vgpu_sim_preset("fermi-30sm", &cfg)) {
		printf("not ok - the fermi-30sm preset exists\n");
		return 1;
	}
	report("preempt-cost: a kernel without atomics or overwrites (mandel) is idempotent:"
	       " Yes, 100 %", t_idempotent());
	report("preempt-cost: a kernel with global atomics (histogram) crosses: No, its"
	       " idempotent region below 100 %", t_atomics());
	report("preempt-cost: context per TB, the SM's bandwidth share, switch and drain time"
	       " as the driver's formulas give them (blackscholes)", t_context_switch());
	report("preempt-cost: launches of a kernel share its row; blocks and launches add up"
	       " to the workload's (lud)", t_launches());
	report("preempt-cost: the hooks change no cycle (histogram)", t_no_cycle_changed());
	return test_summary();
}
