// SPDX-License-Identifier: MIT
/*
 * vgpu - command-line tool of the vgpu virtual GPU.
 *
 *   vgpu run NAME [--size small|default|large|N] [--seed S]
 *                                         run a workload, check it, print figures
 *   vgpu run --all [--size ...] [--seed S] every workload, one line each
 *   vgpu run ... --virtual-tb[=MODE]        kernels in virtual thread blocks
 *   vgpu run ... --local [--gpu NAME] [--config FILE] [--threads N] [--stats]
 *                                         on the GPU model in this process (no
 *                                         vgpu.ko, no vgpud); --stats prints the
 *                                         model's stall breakdown and counters,
 *                                         --counters every counter as an integer
 *   vgpu bench model-speed [...]          how fast the model simulates (bench.c)
 *   vgpu list                             the workload suite and its metadata
 *   vgpu list --limits [--check [--size S]] [NAME...]  which limit binds each
 *                                         kernel's TBs per SM on each preset; --check
 *                                         runs each workload on each preset and
 *                                         compares (exit 1 on a difference)
 *   vgpu info                             the device's parameters
 *   vgpu compile FILE.ptx [--virtual-tb[=MODE]] [-o OUT]  compile PTX; print the
 *                                         disassembly; --virtual-tb: virtual thread
 *                                         blocks, MODE same|lowest|slowest
 *   vgpu ptx [--gpu PRESET] FILE.ptx      resources and analyses per entry; with
 *                                         --gpu, whether it fits the preset
 *   vgpu top [--interval MS] [--once] [--count N]  live view of the device (top.c)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "compiler/vgpu_compile.h"
#include "ptx_cmd.h"
#include "top.h"
#include "vgpu.h"
#include "workloads/workload.h"

static int usage(FILE *f, int status)
{
	fprintf(f,
"usage: vgpu run NAME [--size small|default|large|N] [--seed S] [--virtual-tb[=MODE]]"
		" [LOCAL]\n"
		"       vgpu run --all [--size small|default|large|N] [--seed S] [--virtual-tb[=MODE]]"
		" [LOCAL]\n"
		"         --virtual-tb: kernels compiled into virtual thread blocks (a kernel\n"
		"                       refused runs as it is; its line gives the reason);\n"
		"                       MODE, the thread-index assignment: same (default),\n"
		"                       lowest or slowest\n"
		"         LOCAL: --local [--gpu NAME] [--config FILE] [--threads N]\n"
		"                [--stats | --counters] [--set KEY=VALUE]... [--vram-mb N] [-j N]\n"
		"           --local: run on vgpu's command processor and the GPU model in this\n"
		"                    process, not the vgpu device (the same cycles)\n"
		"           --set: a device attribute (its sysfs name) of each local device\n"
		"           -j: workloads in N worker processes (default: the host's cores)\n"
		"           --stats: the model's stall breakdown and counters per workload\n"
		"           --counters: every counter of the model, as integers\n"
		"       vgpu bench model-speed [--gpu NAME] [--config FILE]"
		" [--size small|default|large|N] [--threads N]\n"
		"       vgpu list\n"
		"       vgpu list --limits [--check [--size S]] [NAME...]   what binds each kernel's\n"
		"                            TBs per SM on each preset; --check measures it (small size)\n"
		"       vgpu info\n"
		"       vgpu compile FILE.ptx [--virtual-tb[=same|lowest|slowest]] [-o IMAGE]\n"
		"       vgpu ptx [--gpu PRESET] FILE.ptx   resources and analyses per entry (like ptxas -v);\n"
		"                            --gpu: compiled for the preset, exit 1 if it does not fit\n"
		"       vgpu top [--interval MS] [--once] [--count N]   live view of the device\n");
	return status;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *s == '\0' || *end != '\0' || *s == '-' ? -EINVAL : 0;
}

static int open_device(struct vgpu_device **dev)
{
	int ret = vgpu_device_open(NULL, dev);

	if (ret)
		fprintf(stderr, "vgpu: no vgpu device: %s\n", strerror(-ret));
	return ret;
}

/* "small", "medium", "default", "large" or a number; 0 in *v means the default. */
int tool_parse_size(const char *s, uint64_t *v, int *which)
{
	*v = 0;
	*which = 0;
	if (strcmp(s, "small") == 0)
		*which = 1;
	else if (strcmp(s, "default") == 0)
		*which = 2;
	else if (strcmp(s, "large") == 0)
		*which = 3;
	else if (strcmp(s, "medium") == 0)
		*which = 4;
	else if (parse_u64(s, v) || *v == 0)
		return -EINVAL;
	return 0;
}

uint64_t tool_size_of(const struct vgpu_workload *w, uint64_t n, int which)
{
	switch (which) {
	case 1:
		return w->small_size ? w->small_size : w->default_size;
	case 3:
		return w->large_size ? w->large_size : w->default_size;
	case 4:
		return w->medium_size ? w->medium_size : w->default_size;
	case 2:
		return w->default_size;
	default:
		return n ? n : w->default_size;
	}
}

/* Runs one workload; prints "NAME: ok ..." or "NAME: FAILED: ...". */
static int run_one(struct vgpu_device *dev, const struct vgpu_workload *w,
		   const struct workload_args *args)
{
	struct workload_result res = { 0 };
	char msg[512] = "";
	int ret = w->run(dev, args, &res, msg, sizeof(msg));

	if (ret) {
		printf("%s: FAILED: %s\n", w->name, msg[0] ? msg : strerror(-ret));
		fflush(stdout);
		return 1;
	}
	printf("%s: ok cycles=%" PRIu64 " warp_insts=%" PRIu64 " launches=%u tbs=%" PRIu64
	       " size=%" PRIu64 "%s%s\n", w->name, res.cycles, res.warp_insts, res.launches,
	       res.tbs, args->size, msg[0] ? " note: " : "", msg);
	fflush(stdout);
	return 0;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Thesis Fig. 3.2 style: where the SM cycles went, and the memory system. */
static void print_stats_header(void)
{
	printf("# stalls in %% of SM cycles with a block resident (ISSUE + MCONF + MDEP +"
	       " FETCH + OTHER = 100);\n"
	       "# MEMSTL = MCONF + MDEP; CIDLE in %% of all SM cycles; CMEM: every warp waits"
	       " for memory; IPC: warp-insts per GPU cycle;\n"
	       "# MSHR: MSHRs busy per L1D miss (mean); DRAM: GB/s at the simulated clock;"
	       " VTSWAP: Virtual Thread swaps;\n"
	       "# RBANK: cycles operand reads waited for a register bank, per warp-inst\n");
	printf("%-12s %-3s %10s %11s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %5s %7s %7s"
	       " %6s\n",
	       "NAME", "CLS", "CYCLES", "WARP-INSTS", "IPC", "ISSUE", "MCONF", "MDEP", "FETCH",
	       "OTHER", "MEMSTL", "CIDLE", "CMEM", "L1D%", "L2%", "MSHR", "DRAM", "VTSWAP",
	       "RBANK");
}

static void print_stats_row(const struct vgpu_workload *w, const struct local_run *r)
{
	const struct vgpu_sim_stats *st = &r->st;
	uint64_t misses = st->l1d_accesses - st->l1d_hits;
	double secs = r->core_clock_khz ? (double)r->res.cycles / (r->core_clock_khz * 1e3) : 0;

	printf("%-12s %-3s %10" PRIu64 " %11" PRIu64 " %6.2f %6.1f %6.1f %6.1f %6.1f %6.1f"
	       " %6.1f %6.1f %6.1f %6.1f %6.1f %5.1f %7.1f %7" PRIu64 " %6.2f\n",
	       w->name, w->cls ? w->cls : "-", r->res.cycles, r->res.warp_insts,
	       r->res.cycles ? (double)r->res.warp_insts / (double)r->res.cycles : 0.0,
	       pct(st->issue_cycles, st->cycles), pct(st->stall_mem_conflict, st->cycles),
	       pct(st->stall_mem_dep, st->cycles), pct(st->stall_fetch, st->cycles),
	       pct(st->stall_other, st->cycles),
	       pct(st->stall_mem_conflict + st->stall_mem_dep, st->cycles),
	       pct(st->c_idle, st->cycles + st->c_idle), pct(st->c_mem, st->cycles),
	       pct(st->l1d_hits, st->l1d_accesses), pct(st->l2_hits, st->l2_accesses),
	       misses ? (double)st->mshr_busy / (double)misses : 0.0,
	       secs > 0 ? (double)(st->dram_read_bytes + st->dram_write_bytes) / secs / 1e9 : 0.0,
	       st->vt_swaps,
	       st->warp_insts ? (double)st->reg_bank_conflicts / (double)st->warp_insts : 0.0);
}

/*
 * --counters: every counter of the model as an integer, so that two builds
 * of the model can be compared exactly (tools/check compares the suite's
 * counters with userspace/tests/model-counters/).
 */
static void print_counters_header(void)
{
	printf("# name cycles warp_insts launches tbs | model: warp_insts thread_insts tbs_done"
	       " cycles issue_cycles c_idle c_mem stall_mem_conflict stall_mem_dep stall_fetch"
	       " stall_other l1d_accesses l1d_hits l2_accesses l2_hits dram_read_bytes"
	       " dram_write_bytes shared_accesses shared_conflicts mshr_fails mshr_busy"
	       " gated_cycles vt_swaps\n");
}

static void print_counters_row(const struct vgpu_workload *w, const struct local_run *r)
{
	const struct vgpu_sim_stats *st = &r->st;
	const uint64_t v[] = {
		st->warp_insts, st->thread_insts, st->tbs_done, st->cycles, st->issue_cycles,
		st->c_idle, st->c_mem, st->stall_mem_conflict, st->stall_mem_dep,
		st->stall_fetch, st->stall_other, st->l1d_accesses, st->l1d_hits,
		st->l2_accesses, st->l2_hits, st->dram_read_bytes, st->dram_write_bytes,
		st->shared_accesses, st->shared_conflicts, st->mshr_fails, st->mshr_busy,
		st->gated_cycles, st->vt_swaps,
	};

	printf("%s %" PRIu64 " %" PRIu64 " %u %" PRIu64 " |", w->name, r->res.cycles,
	       r->res.warp_insts, r->res.launches, r->res.tbs);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		printf(" %" PRIu64, v[i]);
	printf("\n");
}

/* What a --local run prints per workload. */
enum local_print { PRINT_LINE, PRINT_STATS, PRINT_COUNTERS };

/* One workload's result on the local device: the usual line, or a --stats row. */
static int print_local(const struct vgpu_workload *w, const struct workload_args *args,
		       const struct local_run *r, enum local_print stats)
{
	if (r->ret) {
		printf("%s: FAILED: %s\n", w->name, r->msg);
	} else if (stats == PRINT_COUNTERS) {
		print_counters_row(w, r);
	} else if (stats == PRINT_STATS) {
		print_stats_row(w, r);
	} else {
		printf("%s: ok cycles=%" PRIu64 " warp_insts=%" PRIu64 " launches=%u tbs=%"
		       PRIu64 " size=%" PRIu64 "%s%s\n", w->name, r->res.cycles,
		       r->res.warp_insts, r->res.launches, r->res.tbs, args->size,
		       r->msg[0] ? " note: " : "", r->msg);
	}
	fflush(stdout);
	return r->ret ? 1 : 0;
}

/**
 * struct local_suite - workloads on local devices, one task each
 *	(bench_run_tasks()).
 * @t: the target: hardware and attributes of each new device.
 * @w: the workloads.
 * @args: their arguments.
 * @runs: their results (shared with the workers).
 * @stats: what to print of each workload.
 * @print: print each result as its task ends (one worker: in order).
 */
struct local_suite {
	const struct bench_target *t;
	const struct vgpu_workload **w;
	struct workload_args *args;
	struct local_run *runs;
	enum local_print stats;
	bool print;
};

static int local_task(unsigned int k, void *arg)
{
	struct local_suite *ls = arg;
	int ret = local_run_workload(ls->t, ls->w[k], &ls->args[k], &ls->runs[k]);

	if (!ret && ls->print)
		print_local(ls->w[k], &ls->args[k], &ls->runs[k], ls->stats);
	return ret;
}

/* The workloads @w on fresh local devices of @t, spread over @jobs workers. */
static int run_local(const struct bench_target *t, const struct vgpu_workload **w,
		     struct workload_args *args, unsigned int n, unsigned int jobs,
		     enum local_print stats, int *failed)
{
	size_t size = sizeof(struct local_run) * n;
	struct local_suite ls = {
		.t = t, .w = w, .args = args, .stats = stats, .print = jobs <= 1,
	};
	int ret;

	ls.runs = bench_shared_alloc(size);
	if (!ls.runs)
		return -ENOMEM;
	ret = bench_run_tasks(n, jobs, local_task, &ls);
	for (unsigned int k = 0; !ret && k < n; k++) {
		if (ls.print)
			*failed += ls.runs[k].ret ? 1 : 0;
		else
			*failed += print_local(w[k], &args[k], &ls.runs[k], stats);
	}
	bench_shared_free(ls.runs, size);
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "local", no_argument, NULL, 'l' },
		{ "gpu", required_argument, NULL, 'g' },
		{ "config", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "stats", no_argument, NULL, 'S' },
		{ "counters", no_argument, NULL, 'K' },
		{ "set", required_argument, NULL, 'E' },
		{ "vram-mb", required_argument, NULL, 'V' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "virtual-tb", optional_argument, NULL, 'v' },
		{ 0 },
	};
	struct workload_args args = { .seed = 1 }, largs[64];
	const struct vgpu_workload *w = NULL, *lw[64];
	const char *gpu = NULL, *config = NULL, *sets[BENCH_MAX_SETS];
	struct bench_target_opts to = { 0 };
	struct vgpu_sim_config cfg;
	struct vgpu_device *dev = NULL;
	struct bench_target t;
	uint64_t size = 0, threads = 0;
	unsigned int threads_used, nset = 0, jobs = 0, nl = 0;
	int opt, which = 0, all = 0, failed = 0, ran = 0, local = 0;
	enum local_print stats = PRINT_LINE;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:s:aj:", opts, NULL)) != -1) {
		switch (opt) {
		case 'E':
			if (bench_add_set(sets, &nset, optarg))
				return 2;
			break;
		case 'V':
		case 'j':
			if (bench_target_opt(opt, optarg, &to) < 0)
				return 2;
			jobs = to.jobs;
			break;
		case 'n':
			if (tool_parse_size(optarg, &size, &which)) {
				fprintf(stderr, "vgpu: bad --size '%s' (small, default, large or N)\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_u64(optarg, &args.seed)) {
				fprintf(stderr, "vgpu: bad --seed '%s'\n", optarg);
				return 2;
			}
			break;
		case 'a':
			all = 1;
			break;
		case 'l':
			local = 1;
			break;
		case 'g':
			gpu = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 't':
			if (parse_u64(optarg, &threads) || !threads || threads > 4096) {
				fprintf(stderr, "vgpu: bad --threads '%s' (1 ... 4096)\n", optarg);
				return 2;
			}
			break;
		case 'S':
			stats = PRINT_STATS;
			break;
		case 'K':
			stats = PRINT_COUNTERS;
			break;
		case 'v':
			if (vgpu_compile_vtb_mode(optarg, &workload_compile_opts)) {
				fprintf(stderr, "vgpu: bad --virtual-tb mode '%s' (same, lowest or"
					" slowest)\n", optarg);
				return 2;
			}
			break;
		default:
			return usage(stderr, 2);
		}
	}
	if (all ? optind != argc : optind != argc - 1)
		return usage(stderr, 2);
	if (!local && (stats || gpu || config || threads || nset || to.vram_size || jobs)) {
		fprintf(stderr, "vgpu: %s needs --local: the model's counters and settings are"
			" only available when it runs in this process (on the render node, set"
			" the device's attributes in sysfs)\n",
			stats == PRINT_STATS ? "--stats" : stats ? "--counters" : gpu ? "--gpu" :
			config ? "--config" : threads ?
			"--threads" : nset ? "--set" : to.vram_size ? "--vram-mb" : "-j");
		return 2;
	}
	if (!all) {
		w = vgpu_workload_find(argv[optind]);
		if (!w) {
			fprintf(stderr, "vgpu: unknown workload '%s' (vgpu list)\n",
				argv[optind]);
			return 2;
		}
	}
	if (local) {
		if (local_config(gpu ? gpu : "fermi-gtx480", config, (unsigned int)threads,
				 &cfg, &threads_used))
			return 1;
		local_target(&t, &cfg);
		t.vram_size = to.vram_size;
		if (bench_target_apply_sets(&t, sets, nset))
			return 2;
		if (stats == PRINT_STATS)
			print_stats_header();
		else if (stats == PRINT_COUNTERS)
			print_counters_header();
	}
	for (const struct vgpu_workload *const *x = vgpu_workloads; *x; x++) {
		if (w && *x != w)
			continue;
		args.size = tool_size_of(*x, size, which);
		if (local) {
			if (nl < sizeof(lw) / sizeof(lw[0])) {
				lw[nl] = *x;
				largs[nl++] = args;
			}
		} else {
			/*
			 * Each workload on its own open of the device: with no
			 * file open in between, the device starts afresh, and a
			 * workload takes the cycles it takes when run alone.
			 */
			if (open_device(&dev))
				return 1;
			failed += run_one(dev, *x, &args);
			vgpu_device_close(dev);
		}
		ran++;
	}
	if (local && run_local(&t, lw, largs, nl, jobs ? jobs : bench_default_jobs(),
			       stats, &failed))
		return 1;
	if (all)
		printf("%d workloads, %d ok, %d failed\n", ran, ran - failed, failed);
	return failed ? 1 : 0;
}

static int cmd_list(void)
{
	printf("%-12s %-3s %9s %9s %9s %9s  %-28s %s\n", "NAME", "CLS", "SMALL", "MEDIUM",
	       "DEFAULT", "LARGE", "SIZE COUNTS", "STANDS FOR / KERNELS");
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++) {
		printf("%-12s %-3s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 "  %-28s %s\n",
		       (*w)->name, (*w)->cls ? (*w)->cls : "-", (*w)->small_size,
		       (*w)->medium_size, (*w)->default_size, (*w)->large_size,
		       (*w)->size_unit ? (*w)->size_unit : "elements", (*w)->paper);
		printf("%-12s %-3s %9s %9s %9s %9s  %-28s kernels: %s\n", "", "", "", "", "", "",
		       "", (*w)->kernels ? (*w)->kernels : (*w)->name);
	}
	return 0;
}

/* vgpu list --limits [--check [--size S]] [NAME...] */
static int cmd_list_limits(int argc, char **argv)
{
	struct vgpu_kernel_limit got[64];
	bool check = false, named = false, picked[64] = { false };
	uint64_t size = 0;
	int which = 1, bad = 0;	/* small unless --size */
	size_t k;

	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--check")) {
			check = true;
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (tool_parse_size(argv[++i], &size, &which)) {
				fprintf(stderr, "vgpu: bad --size '%s'\n", argv[i]);
				return 2;
			}
		} else if (argv[i][0] == '-') {
			return usage(stderr, 2);
		} else {
			for (k = 0; vgpu_workloads[k] && strcmp(vgpu_workloads[k]->name, argv[i]); k++)
				;
			if (!vgpu_workloads[k] || k >= sizeof(picked)) {
				fprintf(stderr, "vgpu: unknown workload '%s'\n", argv[i]);
				return 2;
			}
			picked[k] = named = true;
		}
	}
	printf("%-12s %-22s", "NAME", "KERNEL");
	for (int c = 0; c < WORKLOAD_LIMIT_PRESETS; c++)
		printf(c + 1 < WORKLOAD_LIMIT_PRESETS ? " %-14s" : " %s\n",
		       vgpu_workload_limit_presets[c]);
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++) {
		k = (size_t)(w - vgpu_workloads);
		if (named && (k >= sizeof(picked) || !picked[k]))
			continue;
		for (const struct vgpu_workload_limit *l = (*w)->limits; l && l->kernel; l++) {
			printf("%-12s %-22s", (*w)->name, l->kernel);
			for (int c = 0; c < WORKLOAD_LIMIT_PRESETS; c++)
				printf(c + 1 < WORKLOAD_LIMIT_PRESETS ? " %-14s" : " %s\n",
				       workload_limit_name(l->on[c]));
		}
		for (int c = 0; check && c < WORKLOAD_LIMIT_PRESETS; c++) {
			const char *gpu = vgpu_workload_limit_presets[c];
			unsigned int n = 0;
			char msg[512] = "";
			int ret;

			ret = workload_limits_measure(*w, gpu, tool_size_of(*w, size, which), got,
						      64, &n, msg, sizeof(msg));
			if (!ret)
				ret = workload_limits_check(*w, c, got, n < 64 ? n : 64, msg,
							    sizeof(msg));
			if (ret) {
				printf("  differs: %s\n", msg);
				bad++;
			}
		}
	}
	if (check)
		printf("%s\n", bad ? "limits differ from the registry" : "limits as declared");
	return bad ? 1 : 0;
}

static int cmd_info(void)
{
	static const char *const names[DRM_VGPU_PARAM_COUNT] = {
		[DRM_VGPU_PARAM_VRAM_SIZE] = "vram_size",
		[DRM_VGPU_PARAM_BACKEND_ATTACHED] = "backend_attached",
		[DRM_VGPU_PARAM_NUM_SMS] = "num_sms",
		[DRM_VGPU_PARAM_WARP_SIZE] = "warp_size",
		[DRM_VGPU_PARAM_MAX_THREADS_PER_SM] = "max_threads_per_sm",
		[DRM_VGPU_PARAM_MAX_TBS_PER_SM] = "max_tbs_per_sm",
		[DRM_VGPU_PARAM_REGS_PER_SM] = "regs_per_sm",
		[DRM_VGPU_PARAM_SHARED_PER_SM] = "shared_per_sm",
		[DRM_VGPU_PARAM_MAX_THREADS_PER_TB] = "max_threads_per_tb",
		[DRM_VGPU_PARAM_MAX_REGS_PER_THREAD] = "max_regs_per_thread",
		[DRM_VGPU_PARAM_MAX_SHARED_PER_TB] = "max_shared_per_tb",
		[DRM_VGPU_PARAM_CORE_CLOCK_KHZ] = "core_clock_khz",
		[DRM_VGPU_PARAM_CURRENT_CYCLE] = "current_cycle",
		[DRM_VGPU_PARAM_MAX_LOCAL_PER_THREAD] = "max_local_per_thread",
	};
	struct vgpu_device *dev;

	if (open_device(&dev))
		return 1;
	for (uint32_t p = 0; p < DRM_VGPU_PARAM_COUNT; p++) {
		uint64_t v;
		int ret = vgpu_get_param(dev, p, &v);

		if (ret)
			printf("%-20s (%s)\n", names[p], strerror(-ret));
		else
			printf("%-20s %" PRIu64 "\n", names[p], v);
	}
	vgpu_device_close(dev);
	return 0;
}

static int cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	unsigned int opts = 0;
	char err[512] = "";
	void *image = NULL;
	size_t size = 0, len;
	char *src;
	FILE *f;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--virtual-tb") == 0 ||
			 strncmp(argv[i], "--virtual-tb=", 13) == 0) {
			if (vgpu_compile_vtb_mode(argv[i][12] ? argv[i] + 13 : NULL, &opts)) {
				fprintf(stderr, "vgpu: bad --virtual-tb mode '%s' (same, lowest or"
					" slowest)\n", argv[i] + 13);
				return 2;
			}
		}
		else if (!in)
			in = argv[i];
		else
			return usage(stderr, 2);
	}
	if (!in)
		return usage(stderr, 2);
	f = fopen(in, "rb");
	if (!f) {
		fprintf(stderr, "vgpu: %s: %s\n", in, strerror(errno));
		return 1;
	}
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	src = malloc(len + 1);
	if (!src || fread(src, 1, len, f) != len) {
		fprintf(stderr, "vgpu: %s: cannot read\n", in);
		fclose(f);
		free(src);
		return 1;
	}
	fclose(f);
	src[len] = '\0';
	ret = vgpu_compile_ptx_opts(src, len, opts, &image, &size, err, sizeof(err));
	free(src);
	if (ret) {
		fprintf(stderr, "%s: %s\n", in, err[0] ? err : strerror(-ret));
		return 1;
	}
	if (out) {
		f = fopen(out, "wb");
		if (!f || fwrite(image, 1, size, f) != size) {
			fprintf(stderr, "vgpu: %s: cannot write\n", out);
			if (f)
				fclose(f);
			free(image);
			return 1;
		}
		fclose(f);
	} else {
		vgpu_disasm(image, size, stdout);
	}
	free(image);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr, 2);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return argc > 2 && !strcmp(argv[2], "--limits") ? cmd_list_limits(argc, argv) :
		       argc > 2 ? usage(stderr, 2) : cmd_list();
	if (strcmp(argv[1], "info") == 0)
		return cmd_info();
	if (strcmp(argv[1], "compile") == 0)
		return cmd_compile(argc - 1, argv + 1);
	if (strcmp(argv[1], "ptx") == 0)
		return vgpu_ptx_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "bench") == 0)
		return cmd_bench(argc - 1, argv + 1);
	if (strcmp(argv[1], "top") == 0)
		return cmd_top(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return usage(stdout, 0);
	return usage(stderr, 2);
}
