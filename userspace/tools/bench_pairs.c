// SPDX-License-Identifier: MIT
/*
 * bench_pairs.c - "vgpu bench pairs": multi-programmed workloads under the
 * kernel's partition policies, measured as the thesis measures them (Park,
 * dissertation, Ch. IV §4.4 and Ch. V §5.5):
 *
 *  - every program of a group runs in its own process, all joined to the
 *    device's synchronised clock (DRM_IOCTL_VGPU_CLOCK_SYNC), so that they
 *    start at the same cycle and their host work takes no simulated time;
 *  - a program that finishes early starts again, so the others keep
 *    sharing the GPU with it, until every program has finished once; only
 *    the first run of each counts;
 *  - a program's turnaround is the cycles from the common start to the end
 *    of its first run; alone, it is the same program's turnaround on an
 *    idle GPU (measured once per workload and kept);
 *  - NTT_i = T_shared_i / T_alone_i; ANTT = mean NTT (Eq. 4.1, lower is
 *    better); STP = sum of 1 / NTT_i (Eq. 4.2, higher is better).
 *
 * A configuration is a partition policy, optionally with the preemption
 * policy it runs under ("spatial/chimera": Chimera's case study of §4.4.4
 * compares preemption techniques under spatial multitasking) and the
 * kernel-aware warp scheduling ("maestro/chimera:lrr": Maestro runs with
 * LRR, §5.4.3; Fig. 5.11 compares none, lrr, ipr and fair); --with W
 * keeps only the pairs with W (§4.4.4 pairs LUD with every benchmark);
 * --set KEY=VALUE sets a device attribute for the whole experiment. Every
 * attribute touched is restored at the end.
 *
 * Everything is in simulated cycles, so the same command gives the same
 * table every time.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "vgpu.h"
#include "workloads/workload.h"

#define MAX_WORKLOADS	32
#define MAX_POLICIES	8
#define GROUP_MAX	4

/**
 * struct group_share - what the processes of one group report, in memory
 * shared with the parent.
 * @start: cycle at which the group started (every member reads the same).
 * @end: cycle at which each member's first run ended.
 * @first_done: members whose first run is over.
 * @status: 0, or the negative errno of a member that failed.
 * @msg: what went wrong.
 */
struct group_share {
	uint64_t start[GROUP_MAX];
	uint64_t end[GROUP_MAX];
	int first_done[GROUP_MAX];
	int status[GROUP_MAX];
	char msg[GROUP_MAX][160];
};

struct bench_opts {
	const struct vgpu_workload *w[MAX_WORKLOADS];
	const char *cls[MAX_WORKLOADS];	/* COM or MEM */
	unsigned int nw;
	const char *policy[MAX_POLICIES];	/* as given: PARTITION[/PREEMPT][:KSCHED] */
	char partition[MAX_POLICIES][32];
	char preempt[MAX_POLICIES][32];	/* "" for the device's */
	char ksched[MAX_POLICIES][16];	/* "" for the device's */
	unsigned int np;
	const char *with;		/* only pairs with this workload */
	const char *set[BENCH_MAX_SETS];	/* KEY=VALUE */
	unsigned int nset;
	uint64_t size;
	int size_which;		/* as tool_parse_size() gives */
	struct bench_sizes sizes;	/* --sizes: per workload, over size */
	uint64_t seed;
	const char *csv, *svg, *classes;
	struct bench_target_opts target;
};

/**
 * struct group_arg - what the members of one group run.
 * @sh: where they report (shared with the parent on the render node).
 * @n: members.
 * @w: each one's workload.
 * @args: and its arguments.
 */
struct group_arg {
	struct group_share *sh;
	unsigned int n;
	const struct vgpu_workload *w[GROUP_MAX];
	struct workload_args args[GROUP_MAX];
};

/* One member of a group: runs its workload until every member ran once. */
static int member(struct vgpu_device *dev, unsigned int i, void *arg)
{
	struct group_arg *ga = arg;
	struct group_share *sh = ga->sh;
	int ret;

	/* The clock stands until every member waits for its first job. */
	ret = vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &sh->start[i]);
	for (unsigned int run = 0; !ret; run++) {
		struct workload_result res = { 0 };
		bool all = true;

		ret = ga->w[i]->run(dev, &ga->args[i], &res, sh->msg[i], sizeof(sh->msg[i]));
		if (ret)
			break;
		if (run == 0) {
			ret = vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &sh->end[i]);
			__atomic_store_n(&sh->first_done[i], 1, __ATOMIC_RELEASE);
		}
		/*
		 * Read while this program holds the clock: every member that
		 * ended earlier in simulated time has said so by now.
		 */
		for (unsigned int k = 0; k < ga->n; k++) {
			all &= __atomic_load_n(&sh->first_done[k], __ATOMIC_ACQUIRE);
			/* a member that failed never finishes its first run */
			if (__atomic_load_n(&sh->status[k], __ATOMIC_ACQUIRE))
				all = true;
		}
		if (all)
			break;
	}
	__atomic_store_n(&sh->status[i], ret, __ATOMIC_RELEASE);
	return ret;
}

/*
 * Runs @n workloads together from a common start (bench_group()); fills
 * @turnaround with each one's first-run cycles, and @counted when given.
 */
static int run_group(const struct bench_opts *o, const struct bench_target *t,
		     const struct vgpu_workload *const *w, unsigned int n, uint64_t *turnaround,
		     const struct bench_counted *counted)
{
	struct group_arg ga = { .n = n };
	int status[GROUP_MAX], ret;

	ga.sh = bench_shared_alloc(sizeof(*ga.sh));
	if (!ga.sh)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		ga.w[i] = w[i];
		ga.args[i] = (struct workload_args){
			.size = bench_size_of(&o->sizes, w[i], o->size, o->size_which),
			.seed = o->seed,
		};
	}
	ret = bench_group(t, n, member, &ga, counted, status);
	for (unsigned int i = 0; !ret && i < n; i++) {
		if (status[i]) {
			ret = status[i];
			fprintf(stderr, "vgpu bench: %s: %s\n", w[i]->name,
				ga.sh->msg[i][0] ? ga.sh->msg[i] : strerror(-ret));
		}
	}
	for (unsigned int i = 0; !ret && i < n; i++) {
		if (ga.sh->start[i] != ga.sh->start[0]) {
			fprintf(stderr, "vgpu bench: members started at different cycles\n");
			ret = -EPROTO;
		}
		turnaround[i] = ga.sh->end[i] - ga.sh->start[i];
	}
	bench_shared_free(ga.sh, sizeof(*ga.sh));
	return ret;
}

/*
 * Configuration @p: its partition policy, its preemption policy and its
 * kernel-aware warp scheduling, each of the last two the device's from
 * before the experiment (@dev0: preempt_policy, kernel_sched) when it
 * names none.
 */
static int set_config(struct bench_target *t, const struct bench_opts *o, unsigned int p,
		      const char *const dev0[2])
{
	const char *pre = o->preempt[p][0] ? o->preempt[p] : dev0[0];
	const char *ks = o->ksched[p][0] ? o->ksched[p] : dev0[1];
	int ret = bench_target_set(t, "partition_policy", o->partition[p]);

	if (ret) {
		fprintf(stderr, "vgpu bench: unknown partition policy '%s': %s\n",
			o->partition[p], strerror(-ret));
		return ret;
	}
	ret = bench_target_set(t, "preempt_policy", pre);
	if (ret) {
		fprintf(stderr, "vgpu bench: unknown preemption policy '%s': %s\n",
			pre, strerror(-ret));
		return ret;
	}
	ret = bench_target_set(t, "kernel_sched", ks);
	if (ret)
		fprintf(stderr, "vgpu bench: unknown kernel-aware scheduling '%s': %s\n",
			ks, strerror(-ret));
	return ret;
}

/* Copies @len bytes of @src into @dst of @size bytes; false when too long. */
static bool copy_part(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		return false;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return true;
}

/* "PARTITION[/PREEMPT][:KSCHED]" of each --policies entry, checked for length. */
static int split_configs(struct bench_opts *o)
{
	for (unsigned int p = 0; p < o->np; p++) {
		const char *s = o->policy[p], *colon = strchr(s, ':');
		const char *end = colon ? colon : s + strlen(s);
		const char *slash = memchr(s, '/', end - s);
		const char *pend = slash ? slash : end;
		bool ok = pend > s && copy_part(o->partition[p], sizeof(o->partition[p]), s,
						pend - s);

		o->preempt[p][0] = o->ksched[p][0] = '\0';
		if (ok && slash)
			ok = end > slash + 1 && copy_part(o->preempt[p], sizeof(o->preempt[p]),
							  slash + 1, end - slash - 1);
		if (ok && colon)
			ok = colon[1] && copy_part(o->ksched[p], sizeof(o->ksched[p]), colon + 1,
						   strlen(colon + 1));
		if (!ok) {
			fprintf(stderr, "vgpu bench: bad policy '%s' (PARTITION[/PREEMPT][:KSCHED])\n",
				o->policy[p]);
			return -EINVAL;
		}
	}
	return 0;
}

static const char *pair_class(const struct bench_opts *o, unsigned int a, unsigned int b)
{
	bool ma = !strcmp(o->cls[a], "MEM"), mb = !strcmp(o->cls[b], "MEM");

	return ma && mb ? "MEM/MEM" : ma || mb ? "COM/MEM" : "COM/COM";
}

static const char *const classes[] = { "COM/COM", "COM/MEM", "MEM/MEM", "ALL" };
#define NCLASS 4

/* Maestro's decisions (debugfs "maestro"; thesis Fig. 5.12). */
static const char *const maestro_keys[] = {
	"epochs", "spatial", "smk_even", "smk_other", "repartitions", "preempted_tbs",
};
#define NMAESTRO 6

/**
 * struct pair_result - one pair under one policy.
 * @a, @b: workload indices.
 * @shared: turnaround of each in the pair.
 * @antt, @stp: the pair's metrics.
 * @maestro: what maestro decided during the pair's run (maestro_keys; 0
 *	under other policies).
 */
struct pair_result {
	unsigned int a, b;
	uint64_t shared[2];
	double antt, stp;
	uint64_t maestro[NMAESTRO];
};

/*
 * The class of each workload: measured ("NAME CLASS" lines of vgpu bench
 * classify --out) when @o->classes names a file, else the registry's.
 */
static int load_classes(struct bench_opts *o)
{
	char line[256], name[64], c[8];
	FILE *f;

	for (unsigned int i = 0; i < o->nw; i++)
		o->cls[i] = o->w[i]->cls ? o->w[i]->cls : "COM";
	if (!o->classes)
		return 0;
	f = fopen(o->classes, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%63s %7s", name, c) != 2)
			continue;
		if (strcmp(c, "COM") && strcmp(c, "MEM"))
			continue;
		for (unsigned int i = 0; i < o->nw; i++) {
			if (!strcmp(o->w[i]->name, name))
				o->cls[i] = strcmp(c, "COM") ? "MEM" : "COM";
		}
	}
	fclose(f);
	return 0;
}

static int split_list(char *s, const char **out, unsigned int max, unsigned int *n)
{
	*n = 0;
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		if (*n == max)
			return -E2BIG;
		out[(*n)++] = t;
	}
	return *n ? 0 : -EINVAL;
}

/* An SVG bar chart of the geometric means per class, like Fig. 5.10. */
static int write_svg(const char *path, const struct bench_opts *o,
		     double gm[][2][NCLASS])
{
	static const char *const colors[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759",
					      "#76b7b2", "#edc948", "#b07aa1", "#9c755f" };
	const int pw = 480, ph = 260, left = 60, top = 40, gap = 40;
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n",
		2 * pw + 3 * left, ph + top + 80);
	for (int m = 0; m < 2; m++) {
		double max = 0;
		int x0 = left + m * (pw + left);

		for (unsigned int p = 0; p < o->np; p++)
			for (int c = 0; c < NCLASS; c++)
				if (gm[p][m][c] > max)
					max = gm[p][m][c];
		max = max > 0 ? max * 1.15 : 1;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\">%s (geometric mean, %s)</text>\n",
			x0, top - 15, m ? "ANTT" : "STP", m ? "lower is better" : "higher is better");
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
			x0, top + ph, x0 + pw, top + ph);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
			x0, top, x0, top + ph);
		for (int t = 0; t <= 4; t++) {
			double v = max * t / 4;
			int y = top + ph - (int)(ph * t / 4);

			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.2f</text>\n",
				x0 - 5, y + 4, v);
		}
		for (int c = 0; c < NCLASS; c++) {
			int gw = (pw - gap) / NCLASS, bw = (gw - 10) / (int)o->np;
			int gx = x0 + gap / 2 + c * gw;

			for (unsigned int p = 0; p < o->np; p++) {
				int h = (int)(ph * gm[p][m][c] / max);

				fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					"fill=\"%s\"/>\n", gx + (int)p * bw, top + ph - h, bw - 2, h,
					colors[p % 8]);
			}
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				gx + gw / 2 - 5, top + ph + 18, classes[c]);
		}
	}
	for (unsigned int p = 0; p < o->np; p++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			left + (int)p * 130, top + ph + 40, colors[p % 8]);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", left + (int)p * 130 + 16,
			top + ph + 51, o->policy[p]);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

static int parse_opts(int argc, char **argv, struct bench_opts *o, char **wl, char **pl)
{
	static const struct option opts[] = {
		{ "workloads", required_argument, NULL, 'w' },
		{ "policies", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 'n' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "seed", required_argument, NULL, 's' },
		{ "csv", required_argument, NULL, 'c' },
		{ "svg", required_argument, NULL, 'g' },
		{ "classes", required_argument, NULL, 'k' },
		{ "with", required_argument, NULL, 'W' },
		{ "set", required_argument, NULL, 'S' },
		BENCH_TARGET_LONGOPTS,
		{ 0 },
	};
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "w:p:n:z:s:c:g:k:W:S:" BENCH_TARGET_SHORTOPTS, opts,
				  NULL)) != -1) {
		char *end;
		int taken = bench_target_opt(opt, optarg, &o->target);

		if (taken < 0)
			return -EINVAL;
		if (taken)
			continue;
		switch (opt) {
		case 'w':
			*wl = optarg;
			break;
		case 'p':
			*pl = optarg;
			break;
		case 'n':
			if (tool_parse_size(optarg, &o->size, &o->size_which)) {
				fprintf(stderr, "vgpu bench: bad --size '%s' (small, default, large or N)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'z':
			if (bench_parse_sizes("pairs", optarg, &o->sizes))
				return -EINVAL;
			break;
		case 's':
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || *end) {
				fprintf(stderr, "vgpu bench: bad --seed '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'g':
			o->svg = optarg;
			break;
		case 'k':
			o->classes = optarg;
			break;
		case 'W':
			o->with = optarg;
			break;
		case 'S':
			if (bench_add_set(o->set, &o->nset, optarg))
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
	}
	if (optind != argc || !*wl) {
		fprintf(stderr, "usage: vgpu bench pairs --workloads A,B[,...] "
			"[--policies PARTITION[/PREEMPT][:KSCHED],...] [--with W] [--set KEY=VALUE]... "
			"[--size small|medium|default|large|N] [--sizes NAME=N,...] [--seed S] "
			"[--csv FILE] [--svg FILE] [--classes FILE] " BENCH_TARGET_USAGE "\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * Runs pair @g under configuration @p into @r; under maestro also counts
 * its decisions (the counters' difference over the run).
 */
static int run_maestro_counted(const struct bench_opts *o, const struct bench_target *t,
			       unsigned int p, const struct vgpu_workload *const *g,
			       struct pair_result *r)
{
	struct bench_counted counted = {
		.file = "maestro", .keys = maestro_keys, .n = NMAESTRO, .delta = r->maestro,
	};
	bool maestro = !strcmp(o->partition[p], "maestro");

	return run_group(o, t, g, 2, r->shared, maestro ? &counted : NULL);
}

/* Over all pairs, maestro's decisions per configuration (Fig. 5.12). */
static void print_maestro(const struct bench_opts *o, const struct pair_result *res,
			  unsigned int npairs)
{
	for (unsigned int p = 0; p < o->np; p++) {
		uint64_t t[NMAESTRO] = { 0 };

		if (strcmp(o->partition[p], "maestro"))
			continue;
		for (unsigned int i = p * npairs; i < (p + 1) * npairs; i++)
			for (int k = 0; k < NMAESTRO; k++)
				t[k] += res[i].maestro[k];
		printf("\n%s decisions: %" PRIu64 " epochs", o->policy[p], t[0]);
		if (t[0])
			printf(": spatial %.1f %%, smk-even %.1f %%, smk-other %.1f %%; "
			       "%" PRIu64 " repartitions (%.1f %%)",
			       100.0 * t[1] / t[0], 100.0 * t[2] / t[0], 100.0 * t[3] / t[0],
			       t[4], 100.0 * t[4] / t[0]);
		printf(", %" PRIu64 " blocks preempted\n", t[5]);
	}
}

/* The pairs to run, (a, b) with a < b; only those with workload @with if >= 0. */
static unsigned int make_pairs(unsigned int nw, int with, unsigned int (*pairs)[2])
{
	unsigned int n = 0;

	for (unsigned int a = 0; a < nw; a++) {
		for (unsigned int b = a + 1; b < nw; b++) {
			if (with >= 0 && (int)a != with && (int)b != with)
				continue;
			pairs[n][0] = a;
			pairs[n][1] = b;
			n++;
		}
	}
	return n;
}

/* Geometric means of ANTT and STP per class, printed and kept in @gm. */
static void print_means(const struct bench_opts *o, const struct pair_result *res,
			unsigned int npairs, double gm[][2][NCLASS])
{
	printf("\ngeometric means:\n%-16s", "policy");
	for (int c = 0; c < NCLASS; c++)
		printf(" %8s-ANTT %8s-STP", classes[c], classes[c]);
	printf("\n");
	for (unsigned int p = 0; p < o->np; p++) {
		printf("%-16s", o->policy[p]);
		for (int c = 0; c < NCLASS; c++) {
			double la = 0, ls = 0;
			unsigned int k = 0;

			for (unsigned int i = p * npairs; i < (p + 1) * npairs; i++) {
				const char *cl = pair_class(o, res[i].a, res[i].b);

				if (c != NCLASS - 1 && strcmp(cl, classes[c]))
					continue;
				la += log(res[i].antt);
				ls += log(res[i].stp);
				k++;
			}
			gm[p][1][c] = k ? exp(la / k) : 0;
			gm[p][0][c] = k ? exp(ls / k) : 0;
			if (k)
				printf(" %13.3f %12.3f", gm[p][1][c], gm[p][0][c]);
			else
				printf(" %13s %12s", "-", "-");
		}
		printf("\n");
	}
}

static int write_csv(const struct bench_opts *o, const struct pair_result *res,
		     unsigned int nr, unsigned int npairs, const uint64_t *alone)
{
	FILE *csv = fopen(o->csv, "w");

	if (!csv)
		return -errno;
	fprintf(csv, "policy,workload_a,workload_b,class,alone_a,alone_b,shared_a,shared_b,"
		"antt,stp");
	for (int k = 0; k < NMAESTRO; k++)
		fprintf(csv, ",maestro_%s", maestro_keys[k]);
	fputc('\n', csv);
	for (unsigned int i = 0; i < nr; i++) {
		const struct pair_result *r = &res[i];

		fprintf(csv, "%s,%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%.6f,%.6f", o->policy[i / npairs], o->w[r->a]->name,
			o->w[r->b]->name, pair_class(o, r->a, r->b), alone[r->a],
			alone[r->b], r->shared[0], r->shared[1], r->antt, r->stp);
		for (int k = 0; k < NMAESTRO; k++)
			fprintf(csv, ",%" PRIu64, r->maestro[k]);
		fputc('\n', csv);
	}
	return fclose(csv) ? -errno : 0;
}

/* The workloads of --workloads, their classes, and --with's index in @with. */
static int find_workloads(struct bench_opts *o, char *wl, int *with)
{
	const char *names[MAX_WORKLOADS];
	int ret;

	if (split_list(wl, names, MAX_WORKLOADS, &o->nw) || o->nw < 2) {
		fprintf(stderr, "vgpu bench: --workloads needs 2 to %d names\n", MAX_WORKLOADS);
		return -EINVAL;
	}
	*with = -1;
	for (unsigned int i = 0; i < o->nw; i++) {
		o->w[i] = vgpu_workload_find(names[i]);
		if (!o->w[i]) {
			fprintf(stderr, "vgpu bench: unknown workload '%s' (vgpu list)\n", names[i]);
			return -EINVAL;
		}
		if (o->with && !strcmp(o->with, names[i]))
			*with = (int)i;
	}
	if (o->with && *with < 0) {
		fprintf(stderr, "vgpu bench: --with %s is not one of --workloads\n", o->with);
		return -EINVAL;
	}
	ret = load_classes(o);
	if (ret)
		fprintf(stderr, "vgpu bench: --classes %s: %s\n", o->classes, strerror(-ret));
	return ret;
}

/**
 * struct pairs_run - the experiment, for its tasks (bench_run_tasks()):
 *	first each workload alone, then every pair under every configuration.
 * @o: the options.
 * @t: the target, as the experiment set it up.
 * @dev0: the device's preemption policy and kernel-aware scheduling from
 *	before, for configurations that name none.
 * @pairs: the pairs, @npairs of them.
 * @npairs: how many.
 * @alone: each workload's turnaround alone (shared with the workers).
 * @res: one result per configuration and pair (shared with the workers).
 * @applied: the configuration the render node is set to (-1: alone's).
 * @print: print each result as its task ends (one worker: they come in order).
 */
struct pairs_run {
	const struct bench_opts *o;
	struct bench_target *t;
	const char *const *dev0;
	unsigned int (*pairs)[2];
	unsigned int npairs;
	uint64_t *alone;
	struct pair_result *res;
	int applied;
	bool print;
};

static void print_alone(const struct bench_opts *o, unsigned int i, const uint64_t *alone)
{
	printf("  %-12s %-3s %12" PRIu64 "\n", o->w[i]->name, o->cls[i], alone[i]);
	fflush(stdout);
}

static void print_header(void)
{
	printf("\n%-16s %-26s %-7s %12s %12s %8s %8s\n", "policy", "pair", "class",
	       "shared A", "shared B", "ANTT", "STP");
}

static void print_pair(const struct bench_opts *o, unsigned int p, const struct pair_result *r)
{
	char pair[64];

	snprintf(pair, sizeof(pair), "%s+%s", o->w[r->a]->name, o->w[r->b]->name);
	printf("%-16s %-26s %-7s %12" PRIu64 " %12" PRIu64 " %8.3f %8.3f\n",
	       o->policy[p], pair, pair_class(o, r->a, r->b), r->shared[0], r->shared[1],
	       r->antt, r->stp);
	fflush(stdout);
}

/* Task @k: workload @k alone under fcfs, or pair @k - nw under its configuration. */
static int pairs_task(unsigned int k, void *arg)
{
	struct pairs_run *run = arg;
	const struct bench_opts *o = run->o;
	struct bench_target local, *t = run->t;
	int config = k < o->nw ? -1 : (int)((k - o->nw) / run->npairs);
	int ret = 0;

	if (t->local) {
		/* each task on devices of its own, set as the render node would be */
		local = *run->t;
		t = &local;
	}
	if (t->local || run->applied != config) {
		ret = config < 0 ? bench_target_set(t, "partition_policy", "fcfs") :
				   set_config(t, o, (unsigned int)config, run->dev0);
		if (!t->local)
			run->applied = config;
	}
	if (ret)
		return ret;
	if (config < 0) {
		ret = run_group(o, t, &o->w[k], 1, &run->alone[k], NULL);
		if (!ret && !run->alone[k])
			ret = -EPROTO;
		if (!ret && run->print)
			print_alone(o, k, run->alone);
	} else {
		unsigned int i = (k - o->nw) % run->npairs;
		unsigned int a = run->pairs[i][0], b = run->pairs[i][1];
		const struct vgpu_workload *g[2] = { o->w[a], o->w[b] };
		struct pair_result *r = &run->res[k - o->nw];
		double ntt0, ntt1;

		ret = run_maestro_counted(o, t, (unsigned int)config, g, r);
		if (ret)
			return ret;
		r->a = a;
		r->b = b;
		/* the alone tasks come first: with one worker they are done */
		if (run->print) {
			if (k == o->nw)
				print_header();
			ntt0 = (double)r->shared[0] / (double)run->alone[a];
			ntt1 = (double)r->shared[1] / (double)run->alone[b];
			r->antt = (ntt0 + ntt1) / 2;
			r->stp = 1 / ntt0 + 1 / ntt1;
			print_pair(o, (unsigned int)config, r);
		}
	}
	return 0;
}

int bench_pairs(int argc, char **argv)
{
	struct bench_opts o = { .seed = 1 };
	char *wl = NULL, *pl = NULL;
	char defpol[] = "fcfs,spatial,smk-even";
	char pre0[64], ks0[64];
	const char *const dev0[2] = { pre0, ks0 };
	struct bench_target t;
	struct pairs_run run = { .o = &o, .t = &t, .dev0 = dev0, .applied = -2 };
	double gm[MAX_POLICIES][2][NCLASS];
	unsigned int nr;
	size_t res_size = 0, alone_size = sizeof(uint64_t) * MAX_WORKLOADS;
	int ret, with;

	if (parse_opts(argc, argv, &o, &wl, &pl) || find_workloads(&o, wl, &with))
		return 2;
	if (split_list(pl ? pl : defpol, o.policy, MAX_POLICIES, &o.np)) {
		fprintf(stderr, "vgpu bench: --policies needs 1 to %d names\n", MAX_POLICIES);
		return 2;
	}
	if (split_configs(&o))
		return 2;
	run.pairs = calloc((size_t)o.nw * o.nw, sizeof(*run.pairs));
	if (!run.pairs)
		return 1;
	run.npairs = make_pairs(o.nw, with, run.pairs);
	ret = bench_target_open(&t, &o.target);
	if (ret) {
		free(run.pairs);
		return ret == -EINVAL ? 2 : 1;
	}
	/* A configuration that names none runs under these, --set included. */
	ret = bench_target_apply_sets(&t, o.set, o.nset);
	if (!ret)
		ret = bench_target_get(&t, "preempt_policy", pre0, sizeof(pre0));
	if (!ret)
		ret = bench_target_get(&t, "kernel_sched", ks0, sizeof(ks0));
	/* every configuration is checked before anything runs */
	for (unsigned int p = 0; !ret && p < o.np; p++)
		ret = set_config(&t, &o, p, dev0);
	if (ret)
		goto out;
	nr = run.npairs * o.np;
	res_size = sizeof(*run.res) * (nr ? nr : 1);
	run.res = bench_shared_alloc(res_size);
	run.alone = bench_shared_alloc(alone_size);
	if (!run.res || !run.alone) {
		ret = -ENOMEM;
		goto out;
	}
	run.print = t.jobs <= 1;

	/* Alone: each workload on an idle GPU, all SMs its own (fcfs). */
	printf("classes: %s\n", o.classes ? o.classes : "the registry's (thesis Table 5.3)");
	bench_print_sizes(&o.sizes, o.w, o.nw, o.size, o.size_which);
	printf("alone (fcfs, cycles):\n");
	fflush(stdout);
	ret = bench_run_tasks(o.nw + nr, t.jobs, pairs_task, &run);
	if (ret)
		goto out;
	for (unsigned int i = 0; i < nr; i++) {
		struct pair_result *r = &run.res[i];
		double ntt0 = (double)r->shared[0] / (double)run.alone[r->a];
		double ntt1 = (double)r->shared[1] / (double)run.alone[r->b];

		r->antt = (ntt0 + ntt1) / 2;
		r->stp = 1 / ntt0 + 1 / ntt1;
	}
	if (!run.print) {
		for (unsigned int i = 0; i < o.nw; i++)
			print_alone(&o, i, run.alone);
		print_header();
		for (unsigned int i = 0; i < nr; i++)
			print_pair(&o, i / run.npairs, &run.res[i]);
	}

	/* Geometric means per class (thesis Fig. 5.10). */
	print_means(&o, run.res, run.npairs, gm);
	print_maestro(&o, run.res, run.npairs);
	if (o.csv) {
		ret = write_csv(&o, run.res, nr, run.npairs, run.alone);
		if (ret) {
			fprintf(stderr, "vgpu bench: %s: %s\n", o.csv, strerror(-ret));
			goto out;
		}
		printf("csv: %s\n", o.csv);
	}
	if (o.svg) {
		ret = write_svg(o.svg, &o, gm);
		if (ret) {
			fprintf(stderr, "vgpu bench: %s: %s\n", o.svg, strerror(-ret));
			goto out;
		}
		printf("svg: %s\n", o.svg);
	}
out:
	bench_target_close(&t);
	bench_shared_free(run.res, res_size);
	bench_shared_free(run.alone, alone_size);
	free(run.pairs);
	if (ret)
		fprintf(stderr, "vgpu bench: failed: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}
