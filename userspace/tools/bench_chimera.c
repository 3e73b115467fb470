// SPDX-License-Identifier: MIT
/*
 * bench_chimera.c - "vgpu bench chimera": the periodic real-time task
 * experiment of Chimera (Park, dissertation, Ch. IV §4.4.1 to §4.4.3).
 *
 * Each workload of the suite runs (the background, once, to completion)
 * while a synthetic real-time task (userspace/workloads/rt_task.cu) is
 * launched every period: it needs half the SMs (one block filling each),
 * runs for a fixed time once it has them, and its deadline is that time
 * plus the preemption latency budget. The device's partition policy is
 * spatial (Smart Even + Rounds, as in the thesis' evaluation), so every
 * launch of the task takes half the SMs from the background, and the
 * preemption policy under test (switch, drain, flush, chimera) frees them.
 *
 *  - A request violates its deadline when the task ends later than its
 *    release + run time + budget; the excess over the run time is the
 *    preemption latency (the task spins on arithmetic alone, so nothing
 *    else lengthens it).
 *  - Throughput overhead (§4.4.1, effective throughput): the background's
 *    extra cycles to completion over the same run under the "ideal" policy,
 *    whose context switches cost nothing; 1 - T_ideal / T_eff. A request
 *    that misses its deadline left the background running on the task's
 *    SMs past release + budget; the thesis ignores the throughput gained
 *    so, and so does T_eff: it is the background's cycles plus, per missed
 *    deadline, the excess latency times the task's share of the SMs. The
 *    task's own throughput is left out, as in the thesis.
 *  - The technique distribution counts the blocks each technique took off
 *    (debugfs "preempt").
 *
 * Both processes join the synchronised clock, so host time takes no
 * simulated time and the same command gives the same table. Only requests
 * whose release is before the background's end, and whose previous task
 * ended before it, count: they are exactly the ones the task's process
 * submits whatever the host's timing.
 *
 * Time scale: the thesis' task comes every 1 ms for 200 us, on benchmarks
 * run to a billion instructions. The suite's programs run 0.1 to 2 ms of
 * simulated time, so the default period is 50 us and the run 10 us (the
 * same 20 % duty on half the SMs); the budgets, compared with the blocks'
 * drain and switch times, are not scaled. --period-us 1000 --rt-us 200
 * runs the thesis' task.
 *
 * --set KEY=VALUE sets a device attribute for the whole experiment
 * (latency_margin_pct, say); it is restored at the end with the policies.
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

#define MAX_WORKLOADS	64
#define MAX_BUDGETS	8
#define MAX_REQ		4096

/*
 * Releases of the task at most, as a multiple of those under the ideal
 * policy (plus a few): a policy that keeps the background from finishing
 * (flushing blocks longer than the period, again and again) ends with the
 * background running alone, its run marked as capped.
 */
#define CAP_FACTOR	4

/*
 * What a run is measured under: the policy, and for flush and chimera the
 * idempotence condition. Those with @named run only when --policies names
 * them in full (flush-buffers), so that a recorded command keeps its
 * table.
 */
struct config {
	const char *policy;
	const char *idem;
	bool named;
};

static const struct config all_configs[] = {
	{ "switch", "relaxed", false }, { "drain", "relaxed", false },
	{ "flush", "relaxed", false }, { "chimera", "relaxed", false },
	{ "flush", "strict", false }, { "chimera", "strict", false },
	{ "flush", "buffers", true }, { "chimera", "buffers", true },
};
#define NCONFIG	(sizeof(all_configs) / sizeof(all_configs[0]))

/*
 * The suite's workloads the experiment runs by default, a mix as in the
 * thesis' Table 4.2: blocks long (cp, sgemm) and short, contexts large
 * (sgemm's shared tiles) and small, kernels idempotent (blackscholes,
 * sgemm) and not (histogram and compact with atomics, cp's accumulation).
 */
static const char default_workloads[] =
	"cp,sgemm,stencil3d,blackscholes,histogram,compact";

/**
 * struct rt_task - the synthetic real-time task, as calibrated.
 * @prog: its program; @entry: rt_spin.
 * @grid: blocks, one per SM taken (half the SMs, times the blocks that
 *	fit on one if more than one does).
 * @shared: dynamic shared memory per block.
 * @spin: cycles each block spins on its SM's clock (the run time).
 * @cycles: its run time alone on an idle device.
 * @period: cycles between releases; @first: first release after the start.
 * @share: the fraction of the SMs it takes.
 * @khz: the simulated clock, for the budgets in cycles.
 */
struct rt_task {
	double share;
	uint64_t khz;
	uint32_t grid, shared, spin;
	uint64_t cycles, period, first;
};

/**
 * struct run_share - what the two processes of one run report, in memory
 * shared with the parent.
 * @start: the common start cycle.
 * @bg_end: cycle at which the background's run ended.
 * @bg_done: the background has ended (set after @bg_end).
 * @nreq: releases of the task.
 * @release, @end: per release, its cycle and the task's end.
 * @status: 0 or the negative errno of [0] the task, [1] the background.
 * @msg: what went wrong.
 */
struct run_share {
	uint64_t start[2];
	uint64_t bg_end;
	int bg_done;
	uint32_t nreq;
	uint64_t release[MAX_REQ];
	uint64_t end[MAX_REQ];
	int status[2];
	char msg[2][200];
};

/**
 * struct run_result - one workload under one configuration.
 * @bg_cycles: the background's cycles from the start to its end.
 * @requests: requests that count; @violations: of those, deadline misses.
 * @lat_sum, @lat_max: their preemption latencies (cycles).
 * @late_gpu: over the missed deadlines, the latency past the budget times
 *	the task's share of the SMs: GPU time the background gained by them.
 * @tbs: blocks preempted per technique (switch, drain, flush).
 * @lost_insts: warp instructions flushes threw away.
 * @capped: the task stopped being released before the background ended
 *	(CAP_FACTOR).
 */
struct run_result {
	bool capped;
	uint64_t bg_cycles;
	uint32_t requests, violations;
	uint64_t lat_sum, lat_max;
	double late_gpu;
	uint64_t tbs[3];
	uint64_t lost_insts;
};

struct chimera_opts {
	const struct vgpu_workload *w[MAX_WORKLOADS];
	unsigned int nw;
	uint32_t budget[MAX_BUDGETS];
	unsigned int nb;
	const struct config *cfg[NCONFIG];
	unsigned int nc;
	uint32_t period_us, rt_us;
	uint64_t size;
	int size_which;
	struct bench_sizes sizes;
	const char *csv, *svg;
	const char *set[BENCH_MAX_SETS];	/* KEY=VALUE */
	unsigned int nset;
	struct bench_target_opts target;
};

/* The preemption counters of debugfs "preempt": switch, drain, flush, lost. */
static const char *const preempt_keys[4] = { "switch", "drain", "flush", "lost_insts" };

/*
 * Loads the task's program and an output buffer on @dev. The task stays on
 * vgpu.h's launches, below the runtime: it needs their real-time priority,
 * latency budget and release cycle, which vgpu_launch_kernel() does not take.
 */
static int rt_load(struct vgpu_device *dev, const struct rt_task *rt, struct vgpu_program **prog,
		   uint32_t *entry, struct vgpu_bo **out, char *msg, size_t len)
{
	const struct vgpu_embedded_ptx *ptx = workload_ptx("rt_task");
	char err[256] = "";
	int ret;

	if (!ptx) {
		snprintf(msg, len, "no PTX for rt_task");
		return -ENOENT;
	}
	ret = vgpu_program_create_ptx(dev, ptx->text, ptx->len, prog, err, sizeof(err));
	if (ret) {
		snprintf(msg, len, "loading rt_task.ptx: %s", err[0] ? err : strerror(-ret));
		return ret;
	}
	ret = vgpu_program_find_entry(*prog, "rt_spin", entry);
	if (ret) {
		snprintf(msg, len, "rt_task.ptx has no entry 'rt_spin'");
		vgpu_program_destroy(*prog);
		return ret;
	}
	ret = vgpu_bo_create(dev, (uint64_t)rt->grid * 32 * 4, out);
	if (ret) {
		snprintf(msg, len, "output buffer: %s", strerror(-ret));
		vgpu_program_destroy(*prog);
	}
	return ret;
}

/* One launch of the task: blocks spin @spin cycles, released at @release (0: now). */
static int rt_launch(struct vgpu_device *dev, const struct vgpu_program *prog, uint32_t entry,
		     struct vgpu_bo *out, const struct rt_task *rt, uint32_t spin,
		     uint32_t budget_us, uint64_t release, struct vgpu_job_result *res)
{
	struct vgpu_params p;
	struct vgpu_launch l = {
		.entry = entry,
		.grid = { rt->grid, 1, 1 },
		.block = { 32, 1, 1 },
		.dynamic_shared = rt->shared,
		.params = &p,
		.bos = &out,
		.num_bos = 1,
		.priority = DRM_VGPU_PRIORITY_REALTIME,
		.latency_budget_us = budget_us,
		.not_before = release != 0,
		.not_before_cycle = release,
	};
	int ret;

	vgpu_params_init(&p);
	vgpu_params_u32(&p, spin);
	vgpu_params_ptr(&p, out);
	ret = vgpu_run(dev, prog, &l, res);
	return ret ? ret : res->error;
}

/*
 * Sizes the task for this device: a block of one warp that fills an SM
 * with shared memory, as many blocks as half the SMs hold, and the
 * spin that makes it run @o->rt_us alone.
 */
static int rt_calibrate(const struct chimera_opts *o, const struct bench_target *t,
			struct rt_task *rt)
{
	struct vgpu_device *dev;
	struct vgpu_program *prog = NULL;
	struct vgpu_bo *out = NULL;
	struct vgpu_job_result r;
	uint64_t sms, shared_sm, shared_tb, khz, want;
	uint32_t entry, fit;
	char msg[200] = "";
	int ret;

	ret = bench_target_device(t, &dev);
	if (ret)
		return ret;
	ret = vgpu_get_param(dev, DRM_VGPU_PARAM_NUM_SMS, &sms);
	if (!ret)
		ret = vgpu_get_param(dev, DRM_VGPU_PARAM_SHARED_PER_SM, &shared_sm);
	if (!ret)
		ret = vgpu_get_param(dev, DRM_VGPU_PARAM_MAX_SHARED_PER_TB, &shared_tb);
	if (!ret)
		ret = vgpu_get_param(dev, DRM_VGPU_PARAM_CORE_CLOCK_KHZ, &khz);
	if (ret)
		goto out;
	if (sms < 2 || !shared_tb || !khz) {
		ret = -ENODEV;
		goto out;
	}
	rt->shared = (uint32_t)(shared_tb < shared_sm ? shared_tb : shared_sm);
	fit = (uint32_t)(shared_sm / rt->shared);
	rt->grid = (uint32_t)(sms / 2) * fit;
	rt->share = (double)(sms / 2) / (double)sms;
	rt->khz = khz;
	rt->period = (uint64_t)o->period_us * khz / 1000;
	rt->first = rt->period / 2;
	want = (uint64_t)o->rt_us * khz / 1000;
	ret = rt_load(dev, rt, &prog, &entry, &out, msg, sizeof(msg));
	if (ret)
		goto out;
	/*
	 * A first launch warms the instruction caches (not measured); then
	 * the spin is scaled by want / measured until the run time is within
	 * 1 % (the blocks spin on the clock, after a fixed start).
	 */
	rt->spin = 256;
	ret = rt_launch(dev, prog, entry, out, rt, rt->spin, 0, 0, &r);
	for (int round = 0; !ret && round < 8; round++) {
		ret = rt_launch(dev, prog, entry, out, rt, rt->spin, 0, 0, &r);
		if (ret || (r.cycles * 100 >= want * 99 && r.cycles * 100 <= want * 101))
			break;
		rt->spin = (uint32_t)((uint64_t)rt->spin * want / (r.cycles ? r.cycles : 1));
		if (!rt->spin) {
			snprintf(msg, sizeof(msg), "the task cannot run as short as %u us "
				 "(%" PRIu64 " cycles with a spin of 1)", o->rt_us, r.cycles);
			ret = -ERANGE;
		}
	}
	rt->cycles = r.cycles;
out:
	if (ret)
		fprintf(stderr, "vgpu bench: calibrating the real-time task: %s\n",
			msg[0] ? msg : strerror(-ret));
	vgpu_bo_destroy(out);
	vgpu_program_destroy(prog);
	vgpu_device_close(dev);
	return ret;
}

/**
 * struct run_arg - what the two programs of one run do.
 * @sh: where they report (shared with the parent on the render node).
 * @rt: the task.
 * @budget_us: its latency budget.
 * @max_req: its releases at most.
 * @w: the background.
 * @args: its arguments.
 */
struct run_arg {
	struct run_share *sh;
	const struct rt_task *rt;
	uint32_t budget_us;
	uint32_t max_req;
	const struct vgpu_workload *w;
	struct workload_args args;
};

/* The real-time task: a release every period while the background runs. */
static int rt_member(struct vgpu_device *dev, struct run_arg *ra)
{
	struct run_share *sh = ra->sh;
	const struct rt_task *rt = ra->rt;
	struct vgpu_program *prog = NULL;
	struct vgpu_bo *out = NULL;
	uint32_t entry;
	int ret;

	ret = rt_load(dev, rt, &prog, &entry, &out, sh->msg[0], sizeof(sh->msg[0]));
	if (ret) {
		sh->status[0] = ret;
		return ret;
	}
	ret = vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &sh->start[0]);
	for (uint32_t k = 0; !ret && k < ra->max_req; k++) {
		struct vgpu_job_result r;

		/* read while this program holds the clock (see the top) */
		if (__atomic_load_n(&sh->bg_done, __ATOMIC_ACQUIRE))
			break;
		sh->release[k] = sh->start[0] + rt->first + k * rt->period;
		ret = rt_launch(dev, prog, entry, out, rt, rt->spin, ra->budget_us, sh->release[k],
				&r);
		if (ret) {
			snprintf(sh->msg[0], sizeof(sh->msg[0]), "task %u: %s", k, strerror(-ret));
			break;
		}
		sh->end[k] = r.end_cycle;
		sh->nreq = k + 1;
	}
	sh->status[0] = ret;
	vgpu_bo_destroy(out);
	vgpu_program_destroy(prog);
	return ret;
}

/* The background: the workload once; says when it ended. */
static int bg_member(struct vgpu_device *dev, struct run_arg *ra)
{
	struct workload_result res = { 0 };
	struct run_share *sh = ra->sh;
	int ret;

	ret = vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &sh->start[1]);
	if (!ret)
		ret = ra->w->run(dev, &ra->args, &res, sh->msg[1], sizeof(sh->msg[1]));
	if (!ret)
		ret = vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &sh->bg_end);
	__atomic_store_n(&sh->bg_done, 1, __ATOMIC_RELEASE);
	sh->status[1] = ret;
	return ret;
}

/* Member @i of a run: 0 the task (rank 1), 1 the background (rank 2). */
static int run_member(struct vgpu_device *dev, unsigned int i, void *arg)
{
	return i ? bg_member(dev, arg) : rt_member(dev, arg);
}

/*
 * One run: the background @w with the task, from a common start
 * (bench_group()); the target's policies are already set.
 */
static int run_one(const struct chimera_opts *o, const struct bench_target *t,
		   const struct rt_task *rt, const struct vgpu_workload *w, uint32_t budget_us,
		   uint32_t max_req, struct run_result *out)
{
	struct run_arg ra = {
		.rt = rt, .budget_us = budget_us, .max_req = max_req, .w = w,
		.args = { .size = bench_size_of(&o->sizes, w, o->size, o->size_which), .seed = 1 },
	};
	uint64_t counters[4], lat, deadline = (uint64_t)budget_us * rt->khz / 1000;
	struct bench_counted counted = {
		.file = "preempt", .keys = preempt_keys, .n = 4, .delta = counters,
	};
	struct run_share *sh;
	int status[2], ret;

	memset(out, 0, sizeof(*out));
	sh = ra.sh = bench_shared_alloc(sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	ret = bench_group(t, 2, run_member, &ra, &counted, status);
	for (unsigned int i = 0; !ret && i < 2; i++) {
		if (status[i]) {
			ret = status[i];
			fprintf(stderr, "vgpu bench: %s: %s\n", i ? w->name : "real-time task",
				sh->msg[i][0] ? sh->msg[i] : strerror(-ret));
		}
	}
	if (ret)
		goto out;
	if (sh->start[0] != sh->start[1]) {
		fprintf(stderr, "vgpu bench: the task and the background started apart\n");
		ret = -EPROTO;
		goto out;
	}
	out->bg_cycles = sh->bg_end - sh->start[1];
	out->capped = sh->nreq == max_req && sh->end[max_req - 1] < sh->bg_end;
	for (uint32_t k = 0; k < sh->nreq; k++) {
		if (sh->release[k] >= sh->bg_end || (k && sh->end[k - 1] >= sh->bg_end))
			break;
		lat = sh->end[k] - sh->release[k];
		lat = lat > rt->cycles ? lat - rt->cycles : 0;
		out->requests++;
		if (lat > deadline) {
			out->violations++;
			out->late_gpu += (double)(lat - deadline) * rt->share;
		}
		out->lat_sum += lat;
		if (lat > out->lat_max)
			out->lat_max = lat;
	}
	for (int i = 0; i < 3; i++)
		out->tbs[i] = counters[i];
	out->lost_insts = counters[3];
out:
	bench_shared_free(sh, sizeof(*sh));
	return ret;
}

/**
 * struct summary - one configuration at one budget over all workloads.
 * @viol_pct: violations over all requests (%).
 * @viol_mean: mean over workloads of their violation % (the thesis' average).
 * @ovh_mean: mean over workloads of the throughput overhead (%).
 * @tech_pct: share of preempted blocks per technique (%).
 */
struct summary {
	double viol_pct, viol_mean, ovh_mean, tech_pct[3];
};

static double overhead_pct(const struct run_result *r, const struct run_result *ideal)
{
	double eff = (double)r->bg_cycles + r->late_gpu;

	return eff > 0 ? 100.0 * (1.0 - (double)ideal->bg_cycles / eff) : 0;
}

static const char *config_name(const struct config *c, char *buf, size_t len)
{
	if (strcmp(c->idem, "relaxed"))
		snprintf(buf, len, "%s-%s", c->policy, c->idem);
	else
		snprintf(buf, len, "%s", c->policy);
	return buf;
}

/* Fig. 4.5 to 4.8 in one picture: violations, overhead, and chimera's
 * techniques, per budget. */
static int write_svg(const char *path, const struct chimera_opts *o, struct summary (*sum)[NCONFIG])
{
	static const char *const colors[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759",
					      "#76b7b2", "#edc948", "#b07aa1", "#9c755f" };
	static const char *const tech[3] = { "switch", "drain", "flush" };
	const int pw = 420, ph = 220, left = 60, top = 40, gap = 70;
	FILE *f = fopen(path, "w");
	char name[32];

	if (!f)
		return -errno;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n", 3 * (pw + gap) + left,
		ph + top + 110);
	for (int panel = 0; panel < 3; panel++) {
		int x0 = left + panel * (pw + gap), gw = pw / (int)o->nb;
		double max = 0;

		for (unsigned int b = 0; b < o->nb; b++)
			for (unsigned int c = 0; c < o->nc; c++)
				max = fmax(max, panel == 0 ? sum[b][c].viol_mean :
					   panel == 1 ? sum[b][c].ovh_mean : 100.0);
		max = max > 0 ? max * 1.1 : 1;
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\">%s</text>\n", x0, top - 15,
			panel == 0 ? "deadline violations (%)" : panel == 1 ?
			"throughput overhead (%)" : "chimera: techniques (% of blocks)");
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
			x0, top + ph, x0 + pw, top + ph);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
			x0, top, x0, top + ph);
		for (int t = 0; t <= 4; t++)
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f</text>\n",
				x0 - 5, top + ph - ph * t / 4 + 4, max * t / 4);
		for (unsigned int b = 0; b < o->nb; b++) {
			int gx = x0 + (int)b * gw + 5;

			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%u us</text>\n",
				gx + gw / 2 - 5, top + ph + 16, o->budget[b]);
			if (panel == 2) {
				double y = 0;
				unsigned int c;

				for (c = 0; c < o->nc; c++)
					if (!strcmp(o->cfg[c]->policy, "chimera") &&
					    strcmp(o->cfg[c]->idem, "strict"))
						break;
				if (c == o->nc)
					continue;
				for (int k = 0; k < 3; k++) {
					int h = (int)(ph * sum[b][c].tech_pct[k] / max);

					fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
						"fill=\"%s\"/>\n", gx + gw / 4, top + ph - (int)y - h,
						gw / 2, h, colors[k]);
					y += h;
				}
				continue;
			}
			for (unsigned int c = 0; c < o->nc; c++) {
				int bw = (gw - 10) / (int)o->nc;
				double v = panel == 0 ? sum[b][c].viol_mean : sum[b][c].ovh_mean;
				int h = (int)(ph * fmax(v, 0) / max);

				fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					"fill=\"%s\"/>\n", gx + (int)c * bw, top + ph - h, bw - 1, h,
					colors[c % 8]);
			}
		}
	}
	for (unsigned int c = 0; c < o->nc; c++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			left + (int)c * 120, top + ph + 40, colors[c % 8]);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", left + (int)c * 120 + 16,
			top + ph + 51, config_name(o->cfg[c], name, sizeof(name)));
	}
	for (int k = 0; k < 3; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			left + 2 * (pw + gap) + k * 100, top + ph + 70, colors[k]);
		fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n",
			left + 2 * (pw + gap) + k * 100 + 16, top + ph + 81, tech[k]);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}

static int parse_u32_list(char *s, uint32_t *out, unsigned int max, unsigned int *n)
{
	*n = 0;
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(t, &end, 10);
		if (errno || *end || !v || v > 1000000 || *n == max)
			return -EINVAL;
		out[(*n)++] = (uint32_t)v;
	}
	return *n ? 0 : -EINVAL;
}

static int parse_opts(int argc, char **argv, struct chimera_opts *o)
{
	static const struct option opts[] = {
		{ "workloads", required_argument, NULL, 'w' },
		{ "budget-us", required_argument, NULL, 'b' },
		{ "policies", required_argument, NULL, 'p' },
		{ "period-us", required_argument, NULL, 'P' },
		{ "rt-us", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 'n' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "csv", required_argument, NULL, 'c' },
		{ "svg", required_argument, NULL, 'g' },
		{ "set", required_argument, NULL, 'S' },
		BENCH_TARGET_LONGOPTS,
		{ 0 },
	};
	static char wl_default[sizeof(default_workloads)];
	char budgets[] = "5,10,15,20", *wl = NULL, *bl = budgets, *pl = NULL;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "w:b:p:P:r:n:z:c:g:S:" BENCH_TARGET_SHORTOPTS, opts,
				  NULL)) != -1) {
		char *end;
		unsigned long v;
		int taken = bench_target_opt(opt, optarg, &o->target);

		if (taken < 0)
			return -EINVAL;
		if (taken)
			continue;
		switch (opt) {
		case 'w':
			wl = optarg;
			break;
		case 'b':
			bl = optarg;
			break;
		case 'p':
			pl = optarg;
			break;
		case 'P':
		case 'r':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !v || v > 100000) {
				fprintf(stderr, "vgpu bench: bad --%s '%s'\n",
					opt == 'P' ? "period-us" : "rt-us", optarg);
				return -EINVAL;
			}
			*(opt == 'P' ? &o->period_us : &o->rt_us) = (uint32_t)v;
			break;
		case 'n':
			if (tool_parse_size(optarg, &o->size, &o->size_which)) {
				fprintf(stderr, "vgpu bench: bad --size '%s'\n", optarg);
				return -EINVAL;
			}
			break;
		case 'z':
			if (bench_parse_sizes("chimera", optarg, &o->sizes))
				return -EINVAL;
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'g':
			o->svg = optarg;
			break;
		case 'S':
			if (bench_add_set(o->set, &o->nset, optarg))
				return -EINVAL;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if (o->rt_us >= o->period_us) {
		fprintf(stderr, "vgpu bench: --rt-us must be shorter than --period-us\n");
		return -EINVAL;
	}
	if (parse_u32_list(bl, o->budget, MAX_BUDGETS, &o->nb)) {
		fprintf(stderr, "vgpu bench: --budget-us takes 1 to %d budgets in us, 1 ... 1000000\n",
			MAX_BUDGETS);
		return -EINVAL;
	}
	if (!wl || !strcmp(wl, "default")) {
		memcpy(wl_default, default_workloads, sizeof(wl_default));
		wl = wl_default;
	}
	if (!strcmp(wl, "all")) {
		for (size_t i = 0; vgpu_workloads[i]; i++) {
			if (o->nw == MAX_WORKLOADS) {
				fprintf(stderr, "vgpu bench: at most %d workloads\n", MAX_WORKLOADS);
				return -EINVAL;
			}
			o->w[o->nw++] = vgpu_workloads[i];
		}
	} else {
		for (char *t = strtok(wl, ","); t; t = strtok(NULL, ",")) {
			if (o->nw == MAX_WORKLOADS) {
				fprintf(stderr, "vgpu bench: at most %d workloads\n", MAX_WORKLOADS);
				return -EINVAL;
			}
			o->w[o->nw] = vgpu_workload_find(t);
			if (!o->w[o->nw]) {
				fprintf(stderr, "vgpu bench: unknown workload '%s' (vgpu list)\n", t);
				return -EINVAL;
			}
			o->nw++;
		}
	}
	/* configurations: every one whose policy is listed (all by default) */
	for (size_t c = 0; c < NCONFIG; c++) {
		bool want = !pl && !all_configs[c].named;

		if (pl) {
			char buf[128], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", pl);
			for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				char name[32];

				want |= (!all_configs[c].named &&
					 !strcmp(t, all_configs[c].policy)) ||
					!strcmp(t, config_name(&all_configs[c], name, sizeof(name)));
			}
		}
		if (want)
			o->cfg[o->nc++] = &all_configs[c];
	}
	if (!o->nw || !o->nc) {
		fprintf(stderr, "vgpu bench: no workloads or no policies (switch, drain, flush, "
			"chimera, flush-strict, chimera-strict, flush-buffers, chimera-buffers)\n");
		return -EINVAL;
	}
	return 0;
usage:
	fprintf(stderr, "usage: vgpu bench chimera [--workloads A,B,...|default|all] "
		"[--budget-us 5,10,15,20] [--policies switch,drain,flush,chimera,...] "
		"[--period-us 50] [--rt-us 10] [--size small|medium|default|large|N] "
		"[--sizes NAME=N,...] [--set KEY=VALUE]... [--csv FILE] [--svg FILE] " BENCH_TARGET_USAGE "\n");
	return -EINVAL;
}

static int set_config(struct bench_target *t, const char *policy, const char *idem)
{
	int ret = bench_target_set(t, "partition_policy", "spatial");

	if (!ret)
		ret = bench_target_set(t, "preempt_policy", policy);
	if (!ret)
		ret = bench_target_set(t, "idempotence", idem);
	return ret;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static void print_run(const struct vgpu_workload *w, const char *cfg,
		      const struct run_result *r, double ovh)
{
	printf("%-13s %-15s %10" PRIu64 " %5u %5u %7.1f %9.1f %8.1f %7" PRIu64 " %7" PRIu64
	       " %7" PRIu64 " %10" PRIu64 "%s\n", w->name, cfg, r->bg_cycles, r->requests,
	       r->violations, r->requests ? 100.0 * r->violations / r->requests : 0.0,
	       r->requests ? (double)r->lat_sum / r->requests : 0.0, ovh, r->tbs[0], r->tbs[1],
	       r->tbs[2], r->lost_insts, r->capped ? " capped" : "");
	fflush(stdout);
}

/**
 * struct chimera_run - the experiment, for its tasks (bench_run_tasks()):
 *	one per budget and workload, its ideal run and then every
 *	configuration's (which the ideal run's releases cap).
 * @o: the options.
 * @t: the target, as the experiment set it up.
 * @rt: the calibrated task.
 * @ideal: per budget and workload, the ideal run (shared with the workers).
 * @res: per budget, workload and configuration (shared with the workers).
 * @print: print each task's rows as it ends (one worker: in order).
 * @sum: per budget and configuration, the summary.
 */
struct chimera_run {
	const struct chimera_opts *o;
	struct bench_target *t;
	struct rt_task rt;
	struct run_result *ideal;
	struct run_result *res;
	bool print;
	struct summary (*sum)[NCONFIG];
};

static struct run_result *result_of(const struct chimera_run *run, unsigned int b,
				    unsigned int i, unsigned int c)
{
	return &run->res[((size_t)b * run->o->nw + i) * NCONFIG + c];
}

static void print_budget_head(const struct chimera_opts *o, unsigned int b)
{
	printf("\nbudget %u us:\n%-13s %-15s %10s %5s %5s %7s %9s %8s %7s %7s %7s %10s\n",
	       o->budget[b], "workload", "policy", "bg cycles", "reqs", "viol", "viol%",
	       "mean lat", "ovh%", "switch", "drain", "flush", "lost insts");
}

/* Workload @i's rows at budget @b: its ideal run and every configuration's. */
static void print_task(const struct chimera_run *run, unsigned int b, unsigned int i)
{
	const struct chimera_opts *o = run->o;
	const struct run_result *ideal = &run->ideal[(size_t)b * o->nw + i];
	char name[32];

	print_run(o->w[i], "ideal", ideal, 0);
	for (unsigned int c = 0; c < o->nc; c++)
		print_run(o->w[i], config_name(o->cfg[c], name, sizeof(name)),
			  result_of(run, b, i, c), overhead_pct(result_of(run, b, i, c), ideal));
}

/* The totals of budget @b over the workloads, into @run->sum and printed. */
static void print_budget_totals(const struct chimera_run *run, unsigned int b)
{
	const struct chimera_opts *o = run->o;
	char name[32];

	printf("\nbudget %u us, over %u workloads:\n%-15s %8s %8s %8s %8s %8s %8s %8s\n",
	       o->budget[b], o->nw, "policy", "requests", "viol%", "mean", "ovh%", "switch%",
	       "drain%", "flush%");
	for (unsigned int c = 0; c < o->nc; c++) {
		struct summary *s = &run->sum[b][c];
		uint64_t reqs = 0, viol = 0, tbs[3] = { 0 }, all;

		memset(s, 0, sizeof(*s));
		for (unsigned int i = 0; i < o->nw; i++) {
			const struct run_result *r = result_of(run, b, i, c);

			reqs += r->requests;
			viol += r->violations;
			for (int k = 0; k < 3; k++)
				tbs[k] += r->tbs[k];
			/* the thesis' averages: per-workload percentages */
			s->viol_mean += r->requests ? 100.0 * r->violations / r->requests / o->nw : 0;
			s->ovh_mean += overhead_pct(r, &run->ideal[(size_t)b * o->nw + i]) / o->nw;
		}
		all = tbs[0] + tbs[1] + tbs[2];
		s->viol_pct = reqs ? 100.0 * viol / reqs : 0;
		for (int k = 0; k < 3; k++)
			s->tech_pct[k] = all ? 100.0 * tbs[k] / all : 0;
		printf("%-15s %8" PRIu64 " %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n",
		       config_name(o->cfg[c], name, sizeof(name)), reqs, s->viol_pct,
		       s->viol_mean, s->ovh_mean, s->tech_pct[0], s->tech_pct[1], s->tech_pct[2]);
	}
	fflush(stdout);
}

/* Task @k: budget @k / nw, workload @k % nw: the ideal run, then each configuration. */
static int chimera_task(unsigned int k, void *arg)
{
	struct chimera_run *run = arg;
	const struct chimera_opts *o = run->o;
	unsigned int b = k / o->nw, i = k % o->nw;
	struct run_result *ideal = &run->ideal[k];
	struct bench_target local = *run->t, *t = run->t->local ? &local : run->t;
	int ret;

	ret = set_config(t, "ideal", "relaxed");
	if (!ret)
		ret = run_one(o, t, &run->rt, o->w[i], o->budget[b], MAX_REQ, ideal);
	for (unsigned int c = 0; !ret && c < o->nc; c++) {
		ret = set_config(t, o->cfg[c]->policy, o->cfg[c]->idem);
		if (ret) {
			fprintf(stderr, "vgpu bench: setting %s/%s: %s\n", o->cfg[c]->policy,
				o->cfg[c]->idem, strerror(-ret));
			break;
		}
		ret = run_one(o, t, &run->rt, o->w[i], o->budget[b],
			      min_u32(MAX_REQ, CAP_FACTOR * ideal->requests + 4),
			      result_of(run, b, i, c));
	}
	if (ret || !run->print)
		return ret;
	if (i == 0)
		print_budget_head(o, b);
	print_task(run, b, i);
	if (i == o->nw - 1)
		print_budget_totals(run, b);
	return 0;
}

static int write_csv(const struct chimera_run *run)
{
	const struct chimera_opts *o = run->o;
	FILE *csv = fopen(o->csv, "w");

	if (!csv)
		return -errno;
	fprintf(csv, "budget_us,workload,policy,idempotence,bg_cycles,ideal_cycles,requests,"
		"violations,mean_latency,max_latency,overhead_pct,switch_tbs,drain_tbs,"
		"flush_tbs,lost_insts\n");
	for (unsigned int b = 0; b < o->nb; b++) {
		for (unsigned int i = 0; i < o->nw; i++) {
			const struct run_result *ideal = &run->ideal[(size_t)b * o->nw + i];

			for (unsigned int c = 0; c < o->nc; c++) {
				const struct run_result *r = result_of(run, b, i, c);

				fprintf(csv, "%u,%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%u,%u,%.1f,%"
					PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
					"\n", o->budget[b], o->w[i]->name, o->cfg[c]->policy,
					o->cfg[c]->idem, r->bg_cycles, ideal->bg_cycles, r->requests,
					r->violations, r->requests ? (double)r->lat_sum /
					r->requests : 0.0, r->lat_max, overhead_pct(r, ideal),
					r->tbs[0], r->tbs[1], r->tbs[2], r->lost_insts);
			}
		}
	}
	return fclose(csv) ? -errno : 0;
}

int bench_chimera(int argc, char **argv)
{
	struct chimera_opts o = { .period_us = 50, .rt_us = 10, .size_which = 2 };
	struct bench_target t;
	struct chimera_run run = { .o = &o, .t = &t };
	size_t ideal_size = 0, res_size = 0;
	uint64_t c0[4];
	int ret;

	if (parse_opts(argc, argv, &o))
		return 2;
	ret = bench_target_open(&t, &o.target);
	if (ret)
		return ret == -EINVAL ? 2 : 1;
	if (bench_target_apply_sets(&t, o.set, o.nset)) {
		bench_target_close(&t);
		return 2;
	}
	if (!t.local && bench_counters(&t, NULL, "preempt", preempt_keys, 4, c0)) {
		fprintf(stderr, "vgpu bench: cannot read the preemption counters (debugfs preempt; "
			"mount -t debugfs none /sys/kernel/debug)\n");
		bench_target_close(&t);
		return 1;
	}
	run.sum = calloc(o.nb, sizeof(*run.sum));
	ideal_size = sizeof(*run.ideal) * o.nb * o.nw;
	res_size = sizeof(*run.res) * o.nb * o.nw * NCONFIG;
	run.ideal = bench_shared_alloc(ideal_size);
	run.res = bench_shared_alloc(res_size);
	if (!run.sum || !run.ideal || !run.res) {
		ret = -ENOMEM;
		goto out;
	}
	ret = set_config(&t, "drain", "relaxed");
	if (!ret)
		ret = rt_calibrate(&o, &t, &run.rt);
	if (ret)
		goto out;
	printf("real-time task: %u blocks (one warp each, %u bytes of shared memory: each fills "
	       "an SM), spinning %u cycles, %" PRIu64 " cycles alone (%u us asked); released every %"
	       PRIu64 " cycles (%u us) from %" PRIu64 "; partition policy spatial\n",
	       run.rt.grid, run.rt.shared, run.rt.spin, run.rt.cycles, o.rt_us, run.rt.period,
	       o.period_us, run.rt.first);
	bench_print_sizes(&o.sizes, o.w, o.nw, o.size, o.size_which);
	fflush(stdout);
	run.print = t.jobs <= 1;
	ret = bench_run_tasks(o.nb * o.nw, t.jobs, chimera_task, &run);
	if (ret)
		goto out;
	for (unsigned int b = 0; !run.print && b < o.nb; b++) {
		print_budget_head(&o, b);
		for (unsigned int i = 0; i < o.nw; i++)
			print_task(&run, b, i);
		print_budget_totals(&run, b);
	}
	printf("\nviol%%: requests whose task ended after release + run time + budget, over "
	       "all requests; mean: the mean of the workloads' viol%% (the thesis' average); "
	       "ovh%%: the background's extra cycles over the same run under the ideal policy "
	       "(1 - T_ideal / T_eff, T_eff counting the time a missed deadline left the task's "
	       "SMs to the background as lost), mean over workloads; switch/drain/flush%%: "
	       "share of the preempted blocks; capped: the task was released %d times as often "
	       "as under the ideal policy (plus 4) and the background still had not ended, so it "
	       "finished alone.\n", CAP_FACTOR);
	if (o.csv) {
		ret = write_csv(&run);
		if (ret) {
			fprintf(stderr, "vgpu bench: %s: %s\n", o.csv, strerror(-ret));
			goto out;
		}
		printf("csv: %s\n", o.csv);
	}
	if (o.svg) {
		ret = write_svg(o.svg, &o, run.sum);
		if (ret) {
			fprintf(stderr, "vgpu bench: %s: %s\n", o.svg, strerror(-ret));
			goto out;
		}
		printf("svg: %s\n", o.svg);
	}
out:
	bench_target_close(&t);
	free(run.sum);
	bench_shared_free(run.ideal, ideal_size);
	bench_shared_free(run.res, res_size);
	if (ret)
		fprintf(stderr, "vgpu bench: failed: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}
