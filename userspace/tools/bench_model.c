// SPDX-License-Identifier: MIT
/*
 * bench_model.c - the workload suite on a local device (the GPU model
 * in-process, libvgpu's vgpu_device_open_local()), and "vgpu bench
 * model-speed": how fast the model simulates the suite mix on this host,
 * single-threaded and with all cores.
 *
 * Speeds count host time spent in the model only (libvgpu measures it
 * around job begin and wait), not the workloads' input generation and CPU
 * references. Simulated figures must not depend on the host thread count:
 * the benchmark fails when the two runs disagree on any workload's cycles
 * or warp instructions.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

int local_config(const char *gpu, const char *config_file, unsigned int threads,
		 struct vgpu_sim_config *cfg, unsigned int *threads_used)
{
	char err[256] = "";
	int ret;

	if (vgpu_sim_preset(gpu, cfg)) {
		fprintf(stderr, "vgpu: unknown GPU preset '%s'; presets:", gpu);
		for (const char *const *n = vgpu_sim_preset_names(); *n; n++)
			fprintf(stderr, " %s", *n);
		fprintf(stderr, "\n");
		return -ENOENT;
	}
	if (config_file) {
		ret = vgpu_sim_config_load(cfg, config_file, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "vgpu: %s\n", err[0] ? err : strerror(-ret));
			return ret;
		}
	}
	*threads_used = threads ? threads : 1;
	if (threads) {
		char v[16];

		snprintf(v, sizeof(v), "%u", threads);
		ret = vgpu_sim_config_set(cfg, "threads", v);
		if (ret == -ENOENT) {
			if (threads > 1)
				fprintf(stderr, "vgpu: this model has no 'threads' setting yet:"
					" simulating with 1 host thread, not %u\n", threads);
			*threads_used = 1;
		} else if (ret) {
			fprintf(stderr, "vgpu: threads = %u: %s\n", threads, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

void local_target(struct bench_target *t, const struct vgpu_sim_config *cfg)
{
	memset(t, 0, sizeof(*t));
	t->local = true;
	t->cfg = *cfg;
	t->jobs = 1;
}

int local_run_workload(const struct bench_target *t, const struct vgpu_workload *w,
		       const struct workload_args *args, struct local_run *out)
{
	struct vgpu_device *dev;
	uint64_t ns = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = bench_target_device(t, &dev);
	if (ret) {
		fprintf(stderr, "vgpu: cannot open a local device: %s\n", strerror(-ret));
		return ret;
	}
	out->core_clock_khz = t->cfg.desc.core_clock_khz;
	out->ret = w->run(dev, args, &out->res, out->msg, sizeof(out->msg));
	if (out->ret && !out->msg[0])
		snprintf(out->msg, sizeof(out->msg), "%s", strerror(-out->ret));
	vgpu_local_stats(dev, &out->st);
	vgpu_local_limits(dev, out->limit_tbs);
	vgpu_local_model_ns(dev, &ns);
	out->model_s = (double)ns * 1e-9;
	vgpu_device_close(dev);
	return 0;
}

int local_bench_run(const char *bench, const char *label, const char *gpu,
		    const char *const *sets, unsigned int nset, const char *const *attrs,
		    unsigned int nattr, const struct vgpu_workload *w, uint64_t size, int which,
		    struct local_run *out)
{
	struct workload_args args = { .seed = 1, .size = tool_size_of(w, size, which) };
	struct vgpu_sim_config cfg;
	struct bench_target t;
	unsigned int threads;
	int ret;

	ret = local_config(gpu, NULL, 0, &cfg, &threads);
	if (ret)
		return ret;
	local_target(&t, &cfg);
	ret = bench_target_apply_sets(&t, sets, nset);
	for (unsigned int i = 0; !ret && i < nattr; i++)
		ret = bench_target_set(&t, attrs[2 * i], attrs[2 * i + 1]);
	if (ret)
		return ret;
	ret = local_run_workload(&t, w, &args, out);
	if (ret)
		return ret;
	if (out->ret) {
		fprintf(stderr, "vgpu bench %s: %s (%s): %s\n", bench, w->name, label, out->msg);
		return out->ret;
	}
	return 0;
}

void bench_wl_init(struct bench_wl_opts *o, const char *gpu, const char *workloads,
		   const char *size)
{
	memset(o, 0, sizeof(*o));
	o->gpu = gpu;
	tool_parse_size(size, &o->size, &o->which);
	o->size_name = size;
	snprintf(o->workloads, sizeof(o->workloads), "%s", workloads);
	o->jobs = bench_default_jobs();
}

int bench_wl_opt(const char *bench, int opt, const char *arg, struct bench_wl_opts *o)
{
	switch (opt) {
	case 'L':
		return 1;	/* these benches always run on the local device */
	case 'j':
		return bench_parse_jobs(arg, &o->jobs) ? -EINVAL : 1;
	case 'w':
		snprintf(o->workloads, sizeof(o->workloads), "%s", arg);
		return 1;
	case 's':
		return bench_add_set(o->sets, &o->nset, arg) ? -EINVAL : 1;
	case 'g':
		o->gpu = arg;
		return 1;
	case 'n':
		if (tool_parse_size(arg, &o->size, &o->which)) {
			fprintf(stderr, "vgpu bench %s: bad --size '%s'\n", bench, arg);
			return -EINVAL;
		}
		o->size_name = arg;
		return 1;
	default:
		return bench_slurm_opt(opt, arg);
	}
}

int bench_wl_config(const char *bench, const struct bench_wl_opts *o, struct vgpu_sim_config *cfg)
{
	unsigned int threads;

	if (local_config(o->gpu, NULL, 0, cfg, &threads)) {
		fprintf(stderr, "vgpu bench %s: unknown --gpu '%s'\n", bench, o->gpu);
		return -EINVAL;
	}
	return bench_slurm_check(true);
}

int bench_workloads(const char *bench, char *spec, const char *set,
		    bool (*in_set)(const struct vgpu_workload *w),
		    const struct vgpu_workload ***out, unsigned int *n)
{
	const struct vgpu_workload **v;
	unsigned int all = 0;

	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++)
		all++;
	v = calloc(all, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*out = v;
	*n = 0;
	if (!strcmp(spec, "all") || (set && !strcmp(spec, set))) {
		bool every = !strcmp(spec, "all");

		for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++)
			if (every || in_set(*w))
				v[(*n)++] = *w;
		return 0;
	}
	for (char *t = strtok(spec, ","); t; t = strtok(NULL, ",")) {
		const struct vgpu_workload *w = vgpu_workload_find(t);

		if (!w) {
			fprintf(stderr, "vgpu bench %s: unknown workload '%s'\n", bench, t);
			return -EINVAL;
		}
		if (*n < all)
			v[(*n)++] = w;
	}
	return *n ? 0 : -EINVAL;
}

static int bench_usage(FILE *f, int status)
{
	fprintf(f,
		"usage: vgpu bench model-speed [--gpu NAME] [--config FILE]"
		" [--size small|default|large|N] [--threads N]\n"
		"  runs the workload suite on a local device with 1 host thread, then with\n"
		"  N (default: every online core); prints warp-insts/s and cycles/s\n");
	return status;
}

static double per_s(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0.0;
}

/* One side of a row: host seconds, K warp-insts/s, K cycles/s. */
static void print_speed(uint64_t warp_insts, uint64_t cycles, double s)
{
	printf("  %8.3f %10.0f %10.0f", s, per_s(warp_insts, s) / 1e3, per_s(cycles, s) / 1e3);
}

int bench_model_speed(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "config", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *gpu = "fermi-gtx480", *config = NULL, *size_name = "default";
	struct workload_args args = { .seed = 1 };
	struct vgpu_sim_config cfg1, cfgn;
	struct local_run one, many;
	struct bench_target t1, tn;
	uint64_t size = 0, wi_total = 0, cyc_total = 0;
	double s1_total = 0, sn_total = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int threads = cores > 0 ? (unsigned int)cores : 1, used1, usedn;
	int opt, which = 2, failed = 0, mismatched = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "g:c:n:t:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			gpu = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'n':
			if (tool_parse_size(optarg, &size, &which)) {
				fprintf(stderr, "vgpu: bad --size '%s' (small, default, large or N)\n",
					optarg);
				return 2;
			}
			size_name = optarg;
			break;
		case 't': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*optarg < '1' || *optarg > '9' || *end || v > 4096) {
				fprintf(stderr, "vgpu: bad --threads '%s' (1 ... 4096)\n", optarg);
				return 2;
			}
			threads = (unsigned int)v;
			break;
		}
		case 'h':
			return bench_usage(stdout, 0);
		default:
			return bench_usage(stderr, 2);
		}
	}
	if (optind != argc)
		return bench_usage(stderr, 2);
	if (local_config(gpu, config, 1, &cfg1, &used1) ||
	    local_config(gpu, config, threads, &cfgn, &usedn))
		return 1;

	printf("model-speed: %s, size %s, 1 host thread vs %u (%ld cores online);"
	       " host time in the model only\n", cfg1.desc.name, size_name, usedn, cores);
	printf("%-12s %12s %12s  %8s %10s %10s  %8s %10s %10s\n", "", "", "",
	       "1 thread", "", "", "", usedn == 1 ? "1 thread" : "N threads", "");
	printf("%-12s %12s %12s  %8s %10s %10s  %8s %10s %10s\n", "NAME", "WARP-INSTS",
	       "CYCLES", "s", "Kwinst/s", "Kcycle/s", "s", "Kwinst/s", "Kcycle/s");
	fflush(stdout);
	for (const struct vgpu_workload *const *x = vgpu_workloads; *x; x++) {
		const struct vgpu_workload *w = *x;

		args.size = tool_size_of(w, size, which);
		local_target(&t1, &cfg1);
		local_target(&tn, &cfgn);
		if (local_run_workload(&t1, w, &args, &one) ||
		    local_run_workload(&tn, w, &args, &many))
			return 1;
		if (one.ret || many.ret) {
			printf("%-12s FAILED: %s\n", w->name, one.ret ? one.msg : many.msg);
			failed++;
			continue;
		}
		printf("%-12s %12" PRIu64 " %12" PRIu64, w->name, one.res.warp_insts,
		       one.res.cycles);
		print_speed(one.res.warp_insts, one.res.cycles, one.model_s);
		print_speed(many.res.warp_insts, many.res.cycles, many.model_s);
		printf("\n");
		if (one.res.cycles != many.res.cycles ||
		    one.res.warp_insts != many.res.warp_insts) {
			printf("%-12s FAILED: %" PRIu64 " cycles, %" PRIu64 " warp-insts with 1"
			       " thread; %" PRIu64 " cycles, %" PRIu64 " warp-insts with %u\n",
			       w->name, one.res.cycles, one.res.warp_insts, many.res.cycles,
			       many.res.warp_insts, usedn);
			mismatched++;
		}
		fflush(stdout);
		wi_total += one.res.warp_insts;
		cyc_total += one.res.cycles;
		s1_total += one.model_s;
		sn_total += many.model_s;
	}
	printf("%-12s %12" PRIu64 " %12" PRIu64, "total", wi_total, cyc_total);
	print_speed(wi_total, cyc_total, s1_total);
	print_speed(wi_total, cyc_total, sn_total);
	printf("\n");
	if (failed || mismatched) {
		printf("model-speed: FAILED: %d workloads failed, %d gave different cycles"
		       " with %u threads than with 1\n", failed, mismatched, usedn);
		return 1;
	}
	printf("model-speed: %.0f K warp-insts/s with 1 thread, %.0f K with %u;"
	       " same cycles and warp-insts with both\n", per_s(wi_total, s1_total) / 1e3,
	       per_s(wi_total, sn_total) / 1e3, usedn);
	return 0;
}
