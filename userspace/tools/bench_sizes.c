// SPDX-License-Identifier: MIT
/*
 * bench_sizes.c - problem sizes chosen per workload for experiments at the
 * papers' scale: "vgpu bench sizes" finds, for each workload, a size at
 * which it runs at least --min-us alone on a preset, and the other benches
 * take the result as --sizes NAME=N,... (Documentation/experiments.rst,
 * "Sizes by run time").
 *
 * The thesis' Chimera experiments run every benchmark for milliseconds
 * (Ch. IV §4.4.1: a real-time task every 1 ms), its Maestro experiments for
 * tens of 50,000-cycle epochs (Ch. V §5.5); the suite's named sizes are
 * uneven (at "large", sgemm runs 250 million cycles and blackscholes under
 * one million), so one size for all cannot give every workload the same
 * time. The search runs the workload alone on a fresh local device, as
 * the benches measure T_alone, and grows the size until the sum of its
 * launches' cycles reaches the target; each step after the first assumes
 * cycles grow as a power of the size, the exponent taken from the last two
 * runs. Everything is in simulated cycles, so the same command finds the
 * same sizes on any host.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Runs one search may take before it gives up. */
#define SIZES_MAX_PROBES	12
/* Aim this much past the target, so that rounding to a step still reaches it. */
#define SIZES_AIM		1.03
/* A size whose run is at most this much past the target is taken. */
#define SIZES_TOLERANCE		1.3
/* The most one step multiplies the size by, when the exponent is unknown or small. */
#define SIZES_FIRST_GROWTH	2.0
#define SIZES_MAX_GROWTH	16.0
/* Below a size that does not fit in memory, the search stops this close to it. */
#define SIZES_CAP_CLOSE		1.05

/* Why a size found is short of the target. */
enum sizes_short {
	SIZES_REACHED,
	SIZES_SHORT_MAX,	/* the workload's largest size */
	SIZES_SHORT_MEMORY,	/* the largest that fits in memory */
};

/**
 * struct sizes_found - one workload's search, in memory the workers share.
 * @size: the size found (0: none).
 * @cycles: its cycles alone.
 * @start: the size the search began at.
 * @start_cycles: the cycles there.
 * @probes: runs it took.
 * @short_of: whether @size reaches the target, or why not (&enum sizes_short).
 */
struct sizes_found {
	uint64_t size, cycles, start, start_cycles;
	unsigned int probes;
	enum sizes_short short_of;
};

/**
 * struct sizes_bench - the search, for its tasks (bench_run_tasks()).
 * @o: the common options.
 * @w: the workloads; @nw: how many.
 * @target: cycles to reach (--min-us at the preset's clock).
 * @min_us: --min-us; @clock_khz: the preset's clock.
 * @vram_size: --vram-mb in bytes, 0 for the local device's default.
 * @found: per workload, shared with the workers.
 */
struct sizes_bench {
	struct bench_wl_opts o;
	uint64_t vram_size;
	const struct vgpu_workload **w;
	unsigned int nw;
	uint64_t target;
	double min_us;
	unsigned int clock_khz;
	struct sizes_found *found;
};

static double sizes_us(const struct sizes_bench *b, uint64_t cycles)
{
	return (double)cycles * 1000.0 / b->clock_khz;
}

/*
 * @w alone at size @n on a fresh local device of @b's preset, memory and
 * --set options; 0 when it passed its check against the CPU reference.
 * A run that ran out of memory (device memory above all, at sizes the
 * workload takes but --vram-mb does not hold) returns -ENOSPC, with the
 * reason in @out->msg, for the search to stay below that size.
 */
static int sizes_run(const struct sizes_bench *b, const struct vgpu_workload *w, uint64_t n,
		     struct local_run *out)
{
	struct workload_args args = { .seed = 1, .size = n };
	struct vgpu_sim_config cfg;
	struct bench_target t;
	unsigned int threads;
	int ret;

	ret = local_config(b->o.gpu, NULL, 0, &cfg, &threads);
	if (ret)
		return ret;
	local_target(&t, &cfg);
	t.vram_size = b->vram_size;
	ret = bench_target_apply_sets(&t, b->o.sets, b->o.nset);
	if (!ret)
		ret = local_run_workload(&t, w, &args, out);
	if (!ret && (out->ret == -E2BIG || out->ret == -ENOMEM || out->ret == -ENOSPC))
		return -ENOSPC;
	if (!ret && out->ret) {
		fprintf(stderr, "vgpu bench sizes: %s (size %" PRIu64 "): %s\n", w->name, n,
			out->msg);
		ret = out->ret;
	}
	return ret;
}

/*
 * @s rounded up to the next size @w takes, and not past its largest: the
 * search looks for a size that runs at least the target, and rounding up
 * keeps the sizes it found before the registry described every workload's
 * limits (those recorded in Documentation/results).
 */
static uint64_t sizes_round(const struct vgpu_workload *w, double s)
{
	return workload_size_round_up(w, s >= 1e18 ? (uint64_t)1e18 : s > 0 ? (uint64_t)ceil(s) : 0);
}

/*
 * The next size to try after (@s, @c), the run before it (@ps, @pc) or
 * none; 0 when @w takes no larger size.
 */
static uint64_t sizes_next(const struct vgpu_workload *w, uint64_t target, uint64_t s, uint64_t c,
			   uint64_t ps, uint64_t pc)
{
	double want = SIZES_AIM * (double)target / (double)(c ? c : 1);
	double growth = want < SIZES_FIRST_GROWTH ? want : SIZES_FIRST_GROWTH;
	uint64_t n;

	if (ps && pc && c > pc && s > ps) {
		/* c ~ s^e: e from the last two runs, within reason */
		double e = log((double)c / (double)pc) / log((double)s / (double)ps);

		if (e < 0.25)
			e = 0.25;
		if (e > 4)
			e = 4;
		growth = pow(want, 1 / e);
		if (growth > SIZES_MAX_GROWTH)
			growth = SIZES_MAX_GROWTH;
	}
	n = sizes_round(w, (double)s * growth);
	/* always grow by at least one size, or the search would stand still */
	if (n <= s)
		n = workload_size_above(w, s);
	return n;
}

/*
 * Between @lo (short of the target, @clo cycles) and @hi (past it, @chi):
 * where a power law through the two reaches the target, or their geometric
 * middle when that falls outside; 0 when no size lies between them.
 */
static uint64_t sizes_between(const struct vgpu_workload *w, uint64_t target, uint64_t lo,
			      uint64_t clo, uint64_t hi, uint64_t chi)
{
	uint64_t next = workload_size_above(w, lo);
	double e, s;
	uint64_t n;

	if (!next || next >= hi)
		return 0;
	e = chi > clo ? log((double)chi / (double)clo) / log((double)hi / (double)lo) : 0;
	s = e > 0 ? (double)lo * pow(SIZES_AIM * (double)target / (double)clo, 1 / e) : 0;
	n = sizes_round(w, s);
	if (!(s > 0) || n <= lo || n >= hi)
		n = sizes_round(w, sqrt((double)lo * (double)hi));
	if (n <= lo || n >= hi)
		n = next;
	return n;
}

/*
 * A size below @cap, one that did not fit in memory, after @lo, the
 * largest that ran: their geometric middle, or 0 when none lies between
 * or @lo is within SIZES_CAP_CLOSE of @cap (the largest size that fits
 * matters no closer).
 */
static uint64_t sizes_below_cap(const struct vgpu_workload *w, uint64_t lo, uint64_t cap)
{
	uint64_t next = workload_size_above(w, lo), n;

	if (!next || next >= cap || (double)cap <= SIZES_CAP_CLOSE * (double)lo)
		return 0;
	n = sizes_round(w, sqrt((double)lo * (double)cap));
	return n > lo && n < cap ? n : next;
}

/*
 * The search for @w ends short of the target at @lo (@clo cycles), the
 * largest size it could run: its largest size, or (@cap, a size that did
 * not fit, and @why) the largest that fits in memory.
 */
static void sizes_stop_short(const struct sizes_bench *b, const struct vgpu_workload *w,
			     struct sizes_found *f, uint64_t lo, uint64_t clo, uint64_t cap,
			     const char *why)
{
	f->size = lo;
	f->cycles = clo;
	f->short_of = cap ? SIZES_SHORT_MEMORY : SIZES_SHORT_MAX;
	fprintf(stderr, "vgpu bench sizes: %s: reached %s, %" PRIu64 ", at %.1f us (%" PRIu64
		" cycles), short of %g us", w->name, cap ? "the largest size that fits in memory" :
		"its largest size", lo, sizes_us(b, clo), clo, b->min_us);
	if (cap)
		fprintf(stderr, "; size %" PRIu64 ": %s", cap, why);
	fprintf(stderr, "\n");
}

/*
 * Task @i: the search for workload @i. Upwards until a run reaches the
 * target; then, while that run is more than SIZES_TOLERANCE past it (small
 * sizes, where latency rather than work sets the time, make cycles grow
 * more slowly than they will), between the last short run and the first
 * long one. Every size tried is one the workload takes (its registry
 * entry); a workload whose largest size, or the largest that fits in
 * memory, is still short is reported at that size, and the others go on.
 */
static int sizes_task(unsigned int i, void *arg)
{
	struct sizes_bench *b = arg;
	const struct vgpu_workload *w = b->w[i];
	struct sizes_found *f = &b->found[i];
	uint64_t s = sizes_round(w, (double)tool_size_of(w, b->o.size, b->o.which));
	uint64_t lo = 0, clo = 0, plo = 0, pclo = 0, hi = 0, chi = 0, cap = 0;
	struct local_run *run;
	char why[sizeof(run->msg)] = "";
	int ret = 0;

	run = malloc(sizeof(*run));
	if (!run)
		return -ENOMEM;
	f->start = s;
	for (;;) {
		ret = sizes_run(b, w, s, run);
		if (ret == -ENOSPC && lo) {
			/* this size and larger ones do not fit: search below */
			cap = s;
			snprintf(why, sizeof(why), "%s", run->msg);
			s = sizes_below_cap(w, lo, cap);
			if (s)
				continue;
			sizes_stop_short(b, w, f, lo, clo, cap, why);
			ret = 0;
			break;
		}
		if (ret == -ENOSPC)
			fprintf(stderr, "vgpu bench sizes: %s (size %" PRIu64 "): %s\n", w->name, s,
				run->msg);
		if (ret)
			break;
		if (!f->probes++)
			f->start_cycles = run->res.cycles;
		if (run->res.cycles >= b->target) {
			hi = s;
			chi = run->res.cycles;
		} else {
			plo = lo;
			pclo = clo;
			lo = s;
			clo = run->res.cycles;
		}
		if (hi && (!lo || (double)chi <= SIZES_TOLERANCE * (double)b->target ||
			   f->probes == SIZES_MAX_PROBES ||
			   !(s = sizes_between(w, b->target, lo, clo, hi, chi)))) {
			f->size = hi;
			f->cycles = chi;
			break;
		}
		if (hi)
			continue;
		if (!workload_size_above(w, lo)) {
			sizes_stop_short(b, w, f, lo, clo, 0, NULL);
			break;
		}
		if (f->probes == SIZES_MAX_PROBES) {
			fprintf(stderr, "vgpu bench sizes: %s: %" PRIu64 " cycles at size %" PRIu64
				" after %u runs, short of %" PRIu64 "\n", w->name, clo, lo,
				f->probes, b->target);
			ret = -ERANGE;
			break;
		}
		s = sizes_next(w, b->target, lo, clo, plo, pclo);
		if (cap && s >= cap)
			s = sizes_below_cap(w, lo, cap);
		if (!s) {
			sizes_stop_short(b, w, f, lo, clo, cap, why);
			break;
		}
	}
	free(run);
	return ret;
}

static int sizes_usage(FILE *f, int status)
{
	fprintf(f, "usage: vgpu bench sizes --min-us US [--local] [--workloads A,B,...|all]"
		" [--gpu NAME] [--size small|medium|default|large|N] [--vram-mb N]"
		" [--set KEY=VALUE]... [-j N | " BENCH_SLURM_USAGE "]\n"
		"  per workload, a problem size at which it runs at least US microseconds alone\n"
		"  (its launches' cycles at the preset's clock), searched upwards from --size;\n"
		"  prints a table and the --sizes option of bench pairs and bench chimera;\n"
		"  defaults: --gpu fermi-30sm --size default --workloads all\n");
	return status;
}

int bench_sizes(int argc, char **argv)
{
	static const struct option opts[] = {
		BENCH_WL_LONGOPTS,
		{ "min-us", required_argument, NULL, 'm' },
		{ "vram-mb", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct sizes_bench b = { 0 };
	struct vgpu_sim_config cfg;
	size_t found_size = 0;
	double min_us = 0;
	char *end;
	int opt, ret;

	bench_wl_init(&b.o, "fermi-30sm", "all", "default");
	optind = 1;
	while ((opt = getopt_long(argc, argv, BENCH_WL_SHORTOPTS "m:V:h", opts, NULL)) != -1) {
		ret = bench_wl_opt("sizes", opt, optarg, &b.o);
		if (ret < 0)
			return 2;
		if (ret)
			continue;
		if (opt == 'h')
			return sizes_usage(stdout, 0);
		if (opt == 'V') {
			struct bench_target_opts t = { 0 };

			if (bench_target_opt(opt, optarg, &t) < 0)
				return 2;
			b.vram_size = t.vram_size;
			continue;
		}
		if (opt != 'm')
			return sizes_usage(stderr, 2);
		min_us = strtod(optarg, &end);
		if (*end || !(min_us > 0) || min_us > 1e7) {
			fprintf(stderr, "vgpu bench sizes: bad --min-us '%s' (microseconds, more "
				"than 0, at most 10 s)\n", optarg);
			return 2;
		}
	}
	if (optind != argc)
		return sizes_usage(stderr, 2);
	if (!(min_us > 0)) {
		fprintf(stderr, "vgpu bench sizes: --min-us is required\n");
		return sizes_usage(stderr, 2);
	}
	if (bench_wl_config("sizes", &b.o, &cfg))
		return 2;
	b.target = (uint64_t)ceil(min_us * cfg.desc.core_clock_khz / 1000.0);
	b.min_us = min_us;
	b.clock_khz = cfg.desc.core_clock_khz;
	if (bench_workloads("sizes", b.o.workloads, NULL, NULL, &b.w, &b.nw)) {
		free(b.w);
		return 2;
	}
	found_size = sizeof(*b.found) * b.nw;
	b.found = bench_shared_alloc(found_size);
	if (!b.found) {
		ret = -ENOMEM;
		goto out;
	}
	ret = bench_run_tasks(b.nw, b.o.jobs, sizes_task, &b);
	if (ret)
		goto out;
	printf("sizes at which each workload runs at least %g us alone on %s (%" PRIu64
	       " cycles at %u kHz), searched from --size %s\n", min_us, b.o.gpu, b.target,
	       cfg.desc.core_clock_khz, b.o.size_name);
	printf("%-12s %10s %12s %10s %12s %9s %6s\n", "NAME", "FROM", "CYCLES", "SIZE", "CYCLES",
	       "US", "RUNS");
	for (unsigned int i = 0; i < b.nw; i++) {
		const struct sizes_found *f = &b.found[i];

		printf("%-12s %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %9.1f %6u%s\n",
		       b.w[i]->name, f->start, f->start_cycles, f->size, f->cycles,
		       sizes_us(&b, f->cycles), f->probes,
		       f->short_of == SIZES_SHORT_MAX ? "  short: its largest size" :
		       f->short_of == SIZES_SHORT_MEMORY ? "  short: largest in memory" : "");
	}
	printf("--sizes ");
	for (unsigned int i = 0; i < b.nw; i++)
		printf("%s%s=%" PRIu64, i ? "," : "", b.w[i]->name, b.found[i].size);
	printf("\n");
out:
	if (ret)
		fprintf(stderr, "vgpu bench sizes: failed: %s\n", strerror(-ret));
	if (b.found)
		bench_shared_free(b.found, found_size);
	free(b.w);
	return ret ? 1 : 0;
}

int bench_parse_sizes(const char *bench, const char *spec, struct bench_sizes *s)
{
	char buf[2048], *save = NULL;

	memset(s, 0, sizeof(*s));
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf)) {
		fprintf(stderr, "vgpu bench %s: --sizes is longer than %zu characters\n", bench,
			sizeof(buf) - 1);
		return -EINVAL;
	}
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), msg[160];
		const struct vgpu_workload *w;
		uint64_t n;
		int which;

		if (!eq) {
			fprintf(stderr, "vgpu bench %s: --sizes entry '%s' is not NAME=SIZE\n", bench,
				t);
			return -EINVAL;
		}
		*eq = 0;
		w = vgpu_workload_find(t);
		if (!w) {
			fprintf(stderr, "vgpu bench %s: --sizes: unknown workload '%s'\n", bench, t);
			return -EINVAL;
		}
		if (tool_parse_size(eq + 1, &n, &which)) {
			fprintf(stderr, "vgpu bench %s: --sizes %s: bad size '%s' (small, medium, "
				"default, large or N)\n", bench, t, eq + 1);
			return -EINVAL;
		}
		n = tool_size_of(w, n, which);
		if (workload_size_check(w, n, msg, sizeof(msg))) {
			fprintf(stderr, "vgpu bench %s: --sizes %s: %s\n", bench, t, msg);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < s->n; i++) {
			if (s->w[i] == w) {
				fprintf(stderr, "vgpu bench %s: --sizes names %s twice\n", bench, t);
				return -EINVAL;
			}
		}
		if (s->n == BENCH_MAX_SIZES) {
			fprintf(stderr, "vgpu bench %s: --sizes names more than %d workloads\n", bench,
				BENCH_MAX_SIZES);
			return -EINVAL;
		}
		s->w[s->n] = w;
		s->size[s->n++] = n;
	}
	return 0;
}

uint64_t bench_size_of(const struct bench_sizes *s, const struct vgpu_workload *w, uint64_t n,
		       int which)
{
	for (unsigned int i = 0; s && i < s->n; i++)
		if (s->w[i] == w)
			return s->size[i];
	return tool_size_of(w, n, which);
}

void bench_print_sizes(const struct bench_sizes *s, const struct vgpu_workload *const *w,
		       unsigned int nw, uint64_t n, int which)
{
	if (!s->n)
		return;
	printf("sizes (--sizes, else --size):");
	for (unsigned int i = 0; i < nw; i++)
		printf(" %s=%" PRIu64, w[i]->name, bench_size_of(s, w[i], n, which));
	printf("\n");
}
