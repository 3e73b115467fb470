// SPDX-License-Identifier: MIT
/*
 * bench_tlp.c - "vgpu bench tlp": DYNCTA and DYNCORE (Kayiran et al., seed
 * 001, §5.1 and §5.2) against the default TB scheduler on the in-process
 * model. Each workload runs
 *
 *   base     tlp_policy none: every SM holds as many TBs as fit
 *   static   tlp_policy static with tlp_static_tbs 1 ... --max-static (the
 *            limit never exceeds what fits): the best one is the
 *            workload's "optimal TLP" (the paper's n = opt)
 *   dyncta   tlp_policy dyncta
 *   dyncore  tlp_policy dyncore
 *
 * and the table gives each one's speed-up over base (base cycles / its
 * cycles) and DYNCORE's relative power, energy and instructions per joule
 * by the paper's estimate (§5.2; Documentation/model.rst, "Power"): half
 * of the baseline's energy is idle power, the other half the instructions'
 * (the same in every run); an SM consumes idle power every cycle of the
 * run unless it is turned off and empty, and then nothing with per-core
 * power gating (PCPG) and idle power without. Averages are arithmetic
 * means over the workloads, as the paper's.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The paper's workloads hold at most 8 TBs per SM (§2). */
#define TLP_MAX_STATIC	8

/* Runs of one workload: base, static 1 ... TLP_MAX_STATIC, dyncta, dyncore. */
enum { RUN_BASE, RUN_STATIC, RUN_DYNCTA = RUN_STATIC + TLP_MAX_STATIC, RUN_DYNCORE, RUN_N };

/**
 * struct tlp_bench - the experiment, for its tasks (bench_run_tasks()).
 * @o: the common options (--set: thresholds).
 * @max_static: the largest static limit tried.
 * @w: the workloads.
 * @nw: how many.
 * @runs: per workload, RUN_N results (shared with the workers).
 */
struct tlp_bench {
	struct bench_wl_opts o;
	unsigned int max_static;
	const struct vgpu_workload **w;
	unsigned int nw;
	struct local_run (*runs)[RUN_N];
};

/* Task @k: run @k % RUN_N of workload @k / RUN_N. */
static int tlp_task(unsigned int k, void *arg)
{
	struct tlp_bench *b = arg;
	unsigned int r = k % RUN_N, nattr = 0;
	const char *attrs[4];
	char n[16], label[16];

	if (r >= RUN_STATIC && r < RUN_DYNCTA && r - RUN_STATIC + 1 > b->max_static)
		return 0;	/* not tried */
	if (r == RUN_DYNCTA) {
		attrs[0] = "tlp_policy", attrs[1] = "dyncta", nattr = 1;
	} else if (r == RUN_DYNCORE) {
		attrs[0] = "tlp_policy", attrs[1] = "dyncore", nattr = 1;
	} else if (r != RUN_BASE) {
		snprintf(n, sizeof(n), "%u", r - RUN_STATIC + 1);
		attrs[0] = "tlp_policy", attrs[1] = "static";
		attrs[2] = "tlp_static_tbs", attrs[3] = n, nattr = 2;
	}
	snprintf(label, sizeof(label), "run %u", r);
	return local_bench_run("tlp", label, b->o.gpu, b->o.sets, b->o.nset, attrs, nattr,
			       b->w[k / RUN_N], b->o.size, b->o.which, &b->runs[k / RUN_N][r]);
}

/*
 * Energy of a run relative to the baseline's (§5.2): idle energy, one unit
 * per SM-cycle of the run that is on (off and empty SM-cycles cost nothing
 * with @pcpg), plus the instructions' energy, which is the baseline's idle
 * energy (half of its total).
 */
static double tlp_energy(const struct local_run *x, const struct local_run *base,
			 unsigned int sms, bool pcpg)
{
	double idle_base = (double)sms * (double)base->res.cycles;
	double on = (double)sms * (double)x->res.cycles;

	if (pcpg)
		on -= (double)x->st.gated_cycles;
	return (on + idle_base) / (2 * idle_base);
}

static double speedup(const struct local_run *x, const struct local_run *base)
{
	return x->res.cycles ? (double)base->res.cycles / (double)x->res.cycles : 0;
}

static int tlp_usage(void)
{
	fprintf(stderr, "usage: vgpu bench tlp [--local] [--workloads A,B,...|mem|all] [--gpu NAME]"
		" [--size small|medium|default|large|N] [--max-static N] [--set KEY=VALUE]...\n"
		"       [-j N | " BENCH_SLURM_USAGE "]\n");
	return 2;
}

/* --workloads mem: the MEM class. */
static bool tlp_mem(const struct vgpu_workload *w)
{
	return w->cls && !strcmp(w->cls, "MEM");
}

int bench_tlp(int argc, char **argv)
{
	static const struct option opts[] = {
		BENCH_WL_LONGOPTS,
		{ "max-static", required_argument, NULL, 'm' },
		{ 0 },
	};
	struct tlp_bench b = { .max_static = TLP_MAX_STATIC };
	unsigned int sms;
	double sum[8] = { 0 };
	struct vgpu_sim_config cfg;
	size_t runs_size;
	int opt, ret;

	bench_wl_init(&b.o, "fermi-30sm", "mem", "medium");
	optind = 1;
	while ((opt = getopt_long(argc, argv, BENCH_WL_SHORTOPTS "m:", opts, NULL)) != -1) {
		ret = bench_wl_opt("tlp", opt, optarg, &b.o);
		if (ret < 0)
			return 2;
		if (ret)
			continue;
		if (opt != 'm')
			return tlp_usage();
		b.max_static = (unsigned int)strtoul(optarg, NULL, 10);
		if (b.max_static < 1 || b.max_static > TLP_MAX_STATIC) {
			fprintf(stderr, "vgpu bench tlp: --max-static is 1 to %d\n", TLP_MAX_STATIC);
			return 2;
		}
	}
	if (optind != argc)
		return tlp_usage();
	if (bench_wl_config("tlp", &b.o, &cfg))
		return 2;
	sms = cfg.desc.num_sms;
	if (bench_workloads("tlp", b.o.workloads, "mem", tlp_mem, &b.w, &b.nw)) {
		free(b.w);
		return 2;
	}
	runs_size = sizeof(*b.runs) * b.nw;
	b.runs = bench_shared_alloc(runs_size);
	if (!b.runs) {
		free(b.w);
		return 1;
	}
	ret = bench_run_tasks(RUN_N * b.nw, b.o.jobs, tlp_task, &b);
	if (ret) {
		fprintf(stderr, "vgpu bench tlp: failed: %s\n", strerror(-ret));
		goto out;
	}
	printf("# vgpu bench tlp --gpu %s: speed-up over the default TB scheduler (base);"
	       " OPT: the best static limit;\n# DYNCORE power, energy, instructions per joule"
	       " relative to base, with per-core power gating (PCPG) and without\n", b.o.gpu);
	printf("%-12s %10s %4s %7s %7s %7s %6s %6s %6s %6s %6s %6s\n", "NAME", "BASE", "OPT",
	       "STATIC", "DYNCTA", "DYNCORE", "PWR", "ENERGY", "IPJ", "PWR-NG", "EN-NG", "OFF%");
	for (unsigned int i = 0; i < b.nw; i++) {
		const struct local_run *r = b.runs[i], *base = &r[RUN_BASE];
		const struct local_run *dc = &r[RUN_DYNCORE];
		unsigned int opt_n = 1;
		double e = tlp_energy(dc, base, sms, true), eng = tlp_energy(dc, base, sms, false);
		double up_dc = speedup(dc, base), v[8];

		for (unsigned int n = 2; n <= b.max_static; n++)
			if (r[RUN_STATIC + n - 1].res.cycles < r[RUN_STATIC + opt_n - 1].res.cycles)
				opt_n = n;
		v[0] = speedup(&r[RUN_STATIC + opt_n - 1], base);
		v[1] = speedup(&r[RUN_DYNCTA], base);
		v[2] = up_dc;
		v[3] = e * up_dc;	/* power: energy over time */
		v[4] = e;
		v[5] = 1 / e;
		v[6] = eng * up_dc;
		v[7] = eng;
		for (int k = 0; k < 8; k++)
			sum[k] += v[k];
		printf("%-12s %10" PRIu64 " %4u %7.3f %7.3f %7.3f %6.3f %6.3f %6.3f %6.3f %6.3f"
		       " %6.1f\n", b.w[i]->name, base->res.cycles, opt_n, v[0], v[1], v[2], v[3],
		       v[4], v[5], v[6], v[7],
		       dc->res.cycles ? 100.0 * (double)dc->st.gated_cycles /
				(double)(sms * dc->res.cycles) : 0.0);
	}
	printf("%-12s %10s %4s %7.3f %7.3f %7.3f %6.3f %6.3f %6.3f %6.3f %6.3f\n", "MEAN", "", "",
	       sum[0] / b.nw, sum[1] / b.nw, sum[2] / b.nw, sum[3] / b.nw, sum[4] / b.nw,
	       sum[5] / b.nw, sum[6] / b.nw, sum[7] / b.nw);
out:
	bench_shared_free(b.runs, runs_size);
	free(b.w);
	return ret ? 1 : 0;
}
