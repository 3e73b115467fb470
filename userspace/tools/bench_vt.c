// SPDX-License-Identifier: MIT
/*
 * bench_vt.c - "vgpu bench vt": Virtual Thread (Yoon et al., seed 000,
 * §V) on the in-process model. Each workload runs
 *
 *   base     warp_sched lrr, virtual_thread off: the paper's baseline,
 *            whose warp scheduler is loose round robin (§V-A)
 *   vt       lrr, virtual_thread on (Fig. 8)
 *   max      lrr, virtual_thread max: scheduling limits raised to the
 *            capacity limit at no cost (MAX, Fig. 8)
 *   gto      warp_sched gto, virtual_thread off (Fig. 9's GTO baseline)
 *   gto+vt   gto, virtual_thread on (Fig. 9's GTO+VT)
 *
 * and the table gives VT, MAX and GTO's IPC over base, and GTO+VT's over
 * gto, as the paper compares them. The base run also tells which limit
 * binds the workload's launches (vgpu_local_limits(): the driver's
 * occupancy); with --workloads sched-limited (the default) only the
 * workloads whose TBs are mostly bound by a scheduling limit (TB slots or
 * threads) go on to the other runs, as the paper's 18 Type-S
 * applications (§V-A). Every run checks its result against the CPU
 * reference; one that fails fails the bench. The paper reports "average"
 * improvements without naming the mean; both the arithmetic and the
 * geometric mean are printed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { RUN_BASE, RUN_VT, RUN_MAX, RUN_GTO, RUN_GTO_VT, RUN_N };

/* Each run's warp_sched and virtual_thread. */
static const char *const vt_runs[RUN_N][3] = {
	[RUN_BASE] = { "base", "lrr", "off" },
	[RUN_VT] = { "vt", "lrr", "on" },
	[RUN_MAX] = { "max", "lrr", "max" },
	[RUN_GTO] = { "gto", "gto", "off" },
	[RUN_GTO_VT] = { "gto+vt", "gto", "on" },
};

/**
 * struct vt_bench - the experiment, for its tasks (bench_run_tasks()).
 * @o: the common options (--set: applied to every run before its own).
 * @w: the workloads.
 * @nw: how many.
 * @kept: indices into @w of those that run past base.
 * @nkept: how many.
 * @runs: per workload, RUN_N results (shared with the workers).
 */
struct vt_bench {
	struct bench_wl_opts o;
	const struct vgpu_workload **w;
	unsigned int nw;
	unsigned int *kept;
	unsigned int nkept;
	struct local_run (*runs)[RUN_N];
};

static int vt_run(struct vt_bench *b, unsigned int i, unsigned int r)
{
	const char *attrs[4] = { "warp_sched", vt_runs[r][1], "virtual_thread", vt_runs[r][2] };

	return local_bench_run("vt", vt_runs[r][0], b->o.gpu, b->o.sets, b->o.nset, attrs, 2,
			       b->w[i], b->o.size, b->o.which, &b->runs[i][r]);
}

/* Phase 1, task @k: workload @k's base run. */
static int vt_base_task(unsigned int k, void *arg)
{
	return vt_run(arg, k, RUN_BASE);
}

/* Phase 2, task @k: run 1 + @k % (RUN_N - 1) of the kept workload @k / (RUN_N - 1). */
static int vt_task(unsigned int k, void *arg)
{
	struct vt_bench *b = arg;

	return vt_run(b, b->kept[k / (RUN_N - 1)], 1 + k % (RUN_N - 1));
}

/* The limit that binds most of a run's TBs; *@pct: their share. */
static enum vgpu_limit vt_limit(const struct local_run *r, double *pct)
{
	uint64_t all = 0;
	int best = 0;

	for (int l = 0; l < VGPU_LIMIT_COUNT; l++) {
		all += r->limit_tbs[l];
		if (r->limit_tbs[l] > r->limit_tbs[best])
			best = l;
	}
	*pct = all ? 100.0 * (double)r->limit_tbs[best] / (double)all : 0;
	return (enum vgpu_limit)best;
}

/* Scheduling-limited (Type-S, §II): a scheduling limit binds most TBs. */
static bool vt_sched_limited(const struct local_run *base)
{
	double pct;
	enum vgpu_limit l = vt_limit(base, &pct);

	return l == VGPU_LIMIT_TBS || l == VGPU_LIMIT_THREADS;
}

static double ipc(const struct local_run *r)
{
	return r->res.cycles ? (double)r->res.warp_insts / (double)r->res.cycles : 0;
}

static double ipc_up(const struct local_run *x, const struct local_run *over)
{
	return ipc(over) > 0 ? ipc(x) / ipc(over) : 0;
}

/* --workloads sched-limited: all of them, filtered by their base run. */
static bool vt_every(const struct vgpu_workload *w)
{
	(void)w;
	return true;
}

static int vt_usage(FILE *f, int status)
{
	fprintf(f, "usage: vgpu bench vt [--local] [--workloads A,B,...|sched-limited|all]"
		" [--gpu NAME] [--size small|medium|default|large|N] [--set KEY=VALUE]..."
		" [--csv FILE] [-j N | " BENCH_SLURM_USAGE "]\n"
		"  Virtual Thread (Yoon et al. Sec. V): per workload, IPC under the LRR baseline,\n"
		"  VT, MAX, GTO and GTO+VT; sched-limited (the default) runs past the baseline\n"
		"  only the workloads a scheduling limit (TB slots, threads) binds;\n"
		"  defaults: --gpu fermi-gtx480 --size medium\n");
	return status;
}

static int vt_csv(const struct vt_bench *b, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "gpu,workload,limit,limit_pct,run,warp_sched,virtual_thread,cycles,warp_insts,"
		"ipc,speedup,vt_swaps,vt_lq_queued,vt_lq_inactive\n");
	for (unsigned int i = 0; i < b->nw; i++) {
		const struct local_run *r = b->runs[i];
		double pct;
		enum vgpu_limit l = vt_limit(&r[RUN_BASE], &pct);

		for (int k = 0; k < RUN_N; k++) {
			if (!r[k].res.cycles)
				continue;	/* not run */
			fprintf(f, "%s,%s,%s,%.1f,%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%.4f,%.4f,%"
				PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", b->o.gpu, b->w[i]->name,
				workload_limit_name(l), pct, vt_runs[k][0], vt_runs[k][1],
				vt_runs[k][2], r[k].res.cycles, r[k].res.warp_insts, ipc(&r[k]),
				ipc_up(&r[k], &r[k == RUN_GTO_VT ? RUN_GTO : RUN_BASE]),
				r[k].st.vt_swaps, r[k].st.vt_lq_queued, r[k].st.vt_lq_inactive);
		}
	}
	return fclose(f) ? -errno : 0;
}

static void vt_table(const struct vt_bench *b)
{
	double sum[4] = { 0 }, logs[4] = { 0 };
	unsigned int n = 0;
	char count[16];

	printf("# vgpu bench vt --gpu %s --size %s: Virtual Thread (Yoon et al. Sec. V);"
	       " IPC: warp-insts per GPU cycle;\n"
	       "# BASE: warp_sched=lrr virtual_thread=off (the paper's LRR baseline); VT, MAX:"
	       " lrr with virtual_thread=on, max;\n"
	       "# GTO: warp_sched=gto; VT, MAX, GTO: IPC over BASE; GTO+VT: IPC over GTO (Fig. 9);"
	       " VTSWAP: swaps in the VT run;\n"
	       "# LIMIT: what binds most of the TBs in BASE (tbs, threads: scheduling limits;"
	       " regs, shared: capacity limits;\n"
	       "# grid: every TB fits at once), %%: their share; means over the rows a scheduling"
	       " limit binds (the paper's Type-S)\n", b->o.gpu, b->o.size_name);
	printf("%-12s %-7s %5s %10s %6s %6s %6s %6s %6s %8s\n", "NAME", "LIMIT", "%", "BASE",
	       "IPC", "VT", "MAX", "GTO", "GTO+VT", "VTSWAP");
	for (unsigned int i = 0; i < b->nw; i++) {
		const struct local_run *r = b->runs[i];
		bool sched = vt_sched_limited(&r[RUN_BASE]);
		double pct, v[4];
		enum vgpu_limit l = vt_limit(&r[RUN_BASE], &pct);

		printf("%-12s %-7s %5.1f %10" PRIu64 " %6.2f", b->w[i]->name, workload_limit_name(l), pct,
		       r[RUN_BASE].res.cycles, ipc(&r[RUN_BASE]));
		if (!r[RUN_VT].res.cycles) {
			printf(" %6s %6s %6s %6s %8s\n", "-", "-", "-", "-", "-");
			continue;
		}
		v[0] = ipc_up(&r[RUN_VT], &r[RUN_BASE]);
		v[1] = ipc_up(&r[RUN_MAX], &r[RUN_BASE]);
		v[2] = ipc_up(&r[RUN_GTO], &r[RUN_BASE]);
		v[3] = ipc_up(&r[RUN_GTO_VT], &r[RUN_GTO]);
		for (int k = 0; sched && k < 4; k++) {
			sum[k] += v[k];
			logs[k] += log(v[k]);
		}
		n += sched;
		printf(" %6.3f %6.3f %6.3f %6.3f %8" PRIu64 "\n", v[0], v[1], v[2], v[3],
		       r[RUN_VT].st.vt_swaps);
	}
	/* The paper's means are over its Type-S applications (§V-A). */
	if (!n)
		return;
	snprintf(count, sizeof(count), "n=%u", n);
	printf("%-12s %-7s %5s %10s %6s", "AMEAN", "sched", "", count, "");
	for (int k = 0; k < 4; k++)
		printf(" %6.3f", sum[k] / n);
	printf("\n%-12s %-7s %5s %10s %6s", "GMEAN", "sched", "", count, "");
	for (int k = 0; k < 4; k++)
		printf(" %6.3f", exp(logs[k] / n));
	printf("\n");
}

int bench_vt(int argc, char **argv)
{
	static const struct option opts[] = {
		BENCH_WL_LONGOPTS,
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct vt_bench b = { 0 };
	const char *csv = NULL;
	struct vgpu_sim_config cfg;
	size_t runs_size = 0;
	bool filter;
	int opt, ret;

	bench_wl_init(&b.o, "fermi-gtx480", "sched-limited", "medium");
	optind = 1;
	while ((opt = getopt_long(argc, argv, BENCH_WL_SHORTOPTS "c:h", opts, NULL)) != -1) {
		ret = bench_wl_opt("vt", opt, optarg, &b.o);
		if (ret < 0)
			return 2;
		if (ret)
			continue;
		if (opt == 'h')
			return vt_usage(stdout, 0);
		if (opt != 'c')
			return vt_usage(stderr, 2);
		csv = optarg;
	}
	if (optind != argc)
		return vt_usage(stderr, 2);
	if (bench_wl_config("vt", &b.o, &cfg))
		return 2;
	filter = !strcmp(b.o.workloads, "sched-limited");
	if (bench_workloads("vt", b.o.workloads, "sched-limited", vt_every, &b.w, &b.nw)) {
		free(b.w);
		return 2;
	}
	b.kept = calloc(b.nw, sizeof(*b.kept));
	runs_size = sizeof(*b.runs) * b.nw;
	b.runs = b.kept ? bench_shared_alloc(runs_size) : NULL;
	if (!b.runs) {
		ret = -ENOMEM;
		goto out;
	}
	ret = bench_run_tasks(b.nw, b.o.jobs, vt_base_task, &b);
	if (ret)
		goto out;
	for (unsigned int i = 0; i < b.nw; i++)
		if (!filter || vt_sched_limited(&b.runs[i][RUN_BASE]))
			b.kept[b.nkept++] = i;
	ret = bench_run_tasks((RUN_N - 1) * b.nkept, b.o.jobs, vt_task, &b);
	if (ret)
		goto out;
	vt_table(&b);
	if (csv) {
		ret = vt_csv(&b, csv);
		if (ret)
			fprintf(stderr, "vgpu bench vt: %s: %s\n", csv, strerror(-ret));
		else
			printf("csv: %s\n", csv);
	}
out:
	if (ret)
		fprintf(stderr, "vgpu bench vt: failed: %s\n", strerror(-ret));
	if (b.runs)
		bench_shared_free(b.runs, runs_size);
	free(b.kept);
	free(b.w);
	return ret ? 1 : 0;
}
