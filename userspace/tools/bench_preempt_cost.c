// SPDX-License-Identifier: MIT
/*
 * bench_preempt_cost.c - "vgpu bench preempt-cost": Park's Table 4.2
 * (dissertation, Ch. IV §4.4), what preempting each kernel costs, on the
 * in-process model. Each workload runs once, alone, on a fresh local
 * device (preempt_cost.c measures it); per kernel the table gives
 *
 *   TB/SM      blocks that fit an empty SM (the driver's occupancy; the
 *              thesis' "TBs/SM")
 *   TB-CYC/US  the mean block's execution time, dispatch to end
 *   DRAIN-US   the estimated drain time: the driver's drain latency of a
 *              block preempted halfway, half the mean block's warp
 *              instructions at the kernel's CPI - the thesis' estimate for
 *              a preemption point uniformly distributed over the block
 *              (§4.2.4)
 *   CTX        one block's context as the driver saves and counts it
 *              (uapi vgpu_ctx_bytes(): registers x threads x 4, shared and
 *              local memory, and the warps' state)
 *   SWITCH-US  the estimated switch time: the driver's save latency of the
 *              context of TB/SM blocks over the SM's share of the DRAM
 *              bandwidth (§4.2.4, as Chimera's scheduler estimates it)
 *   IDPT       Yes when no block crossed its idempotence boundary (an
 *              atomic, a global overwrite: relaxed idempotence, §4.3.4),
 *              else No with the mean share of a block's execution before
 *              it crossed (the thesis' "idempotent region"; blocks that
 *              never crossed count 100 %)
 *
 * and STRICT whether the kernel as a whole is idempotent (the strict
 * condition). Every run checks its result against the CPU reference; one
 * that fails fails the bench.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "preempt_cost.h"

/**
 * struct pc_bench - the experiment, for its tasks (bench_run_tasks()).
 * @o: the common options.
 * @cfg: the preset's configuration (its clock turns cycles into time).
 * @t: the local target of @cfg with the --set options, each checked once.
 * @w: the workloads.
 * @nw: how many.
 * @runs: per workload, its rows (shared with the workers).
 */
struct pc_bench {
	struct bench_wl_opts o;
	struct vgpu_sim_config cfg;
	struct bench_target t;
	const struct vgpu_workload **w;
	unsigned int nw;
	struct pc_workload *runs;
};

/* Task @i: workload @i on a fresh local device with the --set options. */
static int pc_task(unsigned int i, void *arg)
{
	struct pc_bench *b = arg;
	const struct vgpu_workload *w = b->w[i];
	struct workload_args args = { .seed = 1, .size = tool_size_of(w, b->o.size, b->o.which) };
	struct pc_workload *r = &b->runs[i];
	struct vgpu_device *dev;
	int ret;

	ret = bench_target_device(&b->t, &dev);
	if (ret)
		return ret;
	ret = pc_measure(dev, w, &args, r);
	vgpu_device_close(dev);
	if (ret) {
		fprintf(stderr, "vgpu bench preempt-cost: %s: %s\n", w->name, strerror(-ret));
		return ret;
	}
	if (r->ret) {
		fprintf(stderr, "vgpu bench preempt-cost: %s: %s\n", w->name, r->msg);
		return r->ret;
	}
	if (r->lost_launches)
		fprintf(stderr, "vgpu bench preempt-cost: %s: %u launches beyond %d kernel rows"
			" left out\n", w->name, r->lost_launches, PC_MAX_KERNELS);
	return 0;
}

static double us(const struct pc_bench *b, double cycles)
{
	return cycles * 1e3 / (double)b->cfg.desc.core_clock_khz;
}

static int pc_usage(FILE *f, int status)
{
	fprintf(f, "usage: vgpu bench preempt-cost [--local] [--workloads A,B,...|all]"
		" [--gpu NAME] [--size small|medium|default|large|N] [--set KEY=VALUE]..."
		" [--csv FILE] [-j N | " BENCH_SLURM_USAGE "]\n"
		"  Park's Table 4.2: per kernel of each workload, blocks per SM, mean block time,\n"
		"  estimated drain time, context per block, estimated switch time (Chimera's\n"
		"  estimates, by the driver's code) and idempotence under the relaxed condition;\n"
		"  defaults: --gpu fermi-30sm (Table 4.1) --workloads all --size default\n");
	return status;
}

/* "Yes", or "No (x %)": the idempotent region of a block. */
static void idpt(const struct pc_kernel *k, char *buf, size_t len)
{
	double pct = pc_idem_pct(k);

	if (pc_idempotent(k))
		snprintf(buf, len, "Yes");
	else if (pct >= 99.95)	/* crossed in the last instructions: not 100 % */
		snprintf(buf, len, "No (>99.9 %%)");
	else
		snprintf(buf, len, "No (%.1f %%)", pct);
}

static void pc_table(const struct pc_bench *b)
{
	uint64_t bw = 0;

	for (unsigned int i = 0; i < b->nw && !bw; i++)
		if (b->runs[i].nk)
			bw = b->runs[i].k[0].sm_bw_fp;
	printf("# vgpu bench preempt-cost --gpu %s --size %s: Park's Table 4.2 per kernel;"
	       " %u SMs at %.0f MHz, an SM's share of DRAM\n"
	       "# bandwidth %.3f bytes/cycle; TB/SM: blocks an empty SM holds; TB-CYC, TB-US: the"
	       " mean block's time;\n"
	       "# DRAIN-US: half the mean block's warp-insts at the kernel's CPI (preempted"
	       " uniformly over a block);\n"
	       "# CTX: one block's context (registers x threads x 4 + shared + local + warp"
	       " state); SWITCH-US: TB/SM contexts\n"
	       "# over the SM's bandwidth share; STRICT: the kernel idempotent as a whole;"
	       " IDPT: Yes when no block crossed its\n"
	       "# idempotence boundary, else No with the mean share of a block's time before"
	       " it crossed\n", b->o.gpu, b->o.size_name, b->cfg.desc.num_sms,
	       (double)b->cfg.desc.core_clock_khz / 1e3, (double)bw / 1024.0);
	printf("%-12s %-26s %6s %8s %5s %10s %9s %9s %9s %9s %6s %s\n", "WORKLOAD", "KERNEL",
	       "LAUNCH", "TBS", "TB/SM", "TB-CYC", "TB-US", "DRAIN-US", "CTX-KB", "SWITCH-US",
	       "STRICT", "IDPT");
	for (unsigned int i = 0; i < b->nw; i++) {
		const struct pc_workload *r = &b->runs[i];

		for (unsigned int j = 0; j < r->nk; j++) {
			const struct pc_kernel *k = &r->k[j];
			char id[32];

			idpt(k, id, sizeof(id));
			printf("%-12s %-26s %6u %8" PRIu64 " %5u %10.0f %9.2f %9.2f %9.2f %9.2f %6s %s\n",
			       b->w[i]->name, k->kernel, k->launches, k->tbs, k->tbs_per_sm,
			       pc_tb_cycles(k), us(b, pc_tb_cycles(k)),
			       us(b, (double)k->drain_cycles), (double)k->ctx_bytes / 1024.0,
			       us(b, (double)k->switch_cycles), k->idempotent ? "Yes" : "No", id);
		}
	}
}

static int pc_csv(const struct pc_bench *b, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "gpu,workload,kernel,launches,tbs,tbs_done,threads,regs_per_thread,shared,"
		"local_per_thread,tbs_per_sm,tb_cycles_mean,tb_us_mean,drain_cycles,drain_us,"
		"ctx_bytes,sm_bw_bytes_per_cycle,switch_cycles,switch_us,strict_idempotent,"
		"relaxed_idempotent,tbs_crossed,idem_region_pct,idem_region_insts_pct\n");
	for (unsigned int i = 0; i < b->nw; i++) {
		const struct pc_workload *r = &b->runs[i];

		for (unsigned int j = 0; j < r->nk; j++) {
			const struct pc_kernel *k = &r->k[j];

			fprintf(f, "%s,%s,%s,%u,%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%u,%u,%.1f,%.3f,%"
				PRIu64 ",%.3f,%" PRIu64 ",%.4f,%" PRIu64 ",%.3f,%d,%d,%" PRIu64
				",%.2f,%.2f\n", b->o.gpu, b->w[i]->name, k->kernel, k->launches,
				k->tbs, k->done, k->threads, k->regs_per_thread, k->shared,
				k->local_per_thread, k->tbs_per_sm, pc_tb_cycles(k),
				us(b, pc_tb_cycles(k)), k->drain_cycles,
				us(b, (double)k->drain_cycles), k->ctx_bytes,
				(double)k->sm_bw_fp / 1024.0, k->switch_cycles,
				us(b, (double)k->switch_cycles), k->idempotent, pc_idempotent(k),
				k->crossed, pc_idem_pct(k),
				k->done ? 100.0 * k->idem_frac_insts / (double)k->done : 100.0);
		}
	}
	return fclose(f) ? -errno : 0;
}

int bench_preempt_cost(int argc, char **argv)
{
	static const struct option opts[] = {
		BENCH_WL_LONGOPTS,
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct pc_bench b = { 0 };
	const char *csv = NULL;
	size_t runs_size = 0;
	int opt, ret;

	bench_wl_init(&b.o, "fermi-30sm", "all", "default");
	optind = 1;
	while ((opt = getopt_long(argc, argv, BENCH_WL_SHORTOPTS "c:h", opts, NULL)) != -1) {
		ret = bench_wl_opt("preempt-cost", opt, optarg, &b.o);
		if (ret < 0)
			return 2;
		if (ret)
			continue;
		if (opt == 'h')
			return pc_usage(stdout, 0);
		if (opt != 'c')
			return pc_usage(stderr, 2);
		csv = optarg;
	}
	if (optind != argc) {
		fprintf(stderr, "vgpu bench preempt-cost: unexpected argument '%s'\n", argv[optind]);
		return pc_usage(stderr, 2);
	}
	if (bench_wl_config("preempt-cost", &b.o, &b.cfg))
		return 2;
	local_target(&b.t, &b.cfg);
	if (bench_target_apply_sets(&b.t, b.o.sets, b.o.nset))
		return 2;
	if (strspn(b.o.workloads, ",") == strlen(b.o.workloads)) {
		fprintf(stderr, "vgpu bench preempt-cost: --workloads '%s' names no workload\n",
			b.o.workloads);
		return 2;
	}
	if (bench_workloads("preempt-cost", b.o.workloads, NULL, NULL, &b.w, &b.nw)) {
		free(b.w);
		return 2;
	}
	runs_size = sizeof(*b.runs) * b.nw;
	b.runs = bench_shared_alloc(runs_size);
	if (!b.runs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = bench_run_tasks(b.nw, b.o.jobs, pc_task, &b);
	if (ret)
		goto out;
	pc_table(&b);
	if (csv) {
		ret = pc_csv(&b, csv);
		if (ret)
			fprintf(stderr, "vgpu bench preempt-cost: --csv %s: %s\n", csv,
				strerror(-ret));
		else
			printf("csv: %s\n", csv);
	}
out:
	if (ret)
		fprintf(stderr, "vgpu bench preempt-cost: failed: %s\n", strerror(-ret));
	if (b.runs)
		bench_shared_free(b.runs, runs_size);
	free(b.w);
	return ret ? 1 : 0;
}
