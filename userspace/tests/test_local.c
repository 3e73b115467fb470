// SPDX-License-Identifier: MIT
/*
 * test_local.c - host tests of libvgpu's local device (vgpu_local.c): the
 * whole workload suite at the small size against its CPU references, twice
 * with identical figures, and the device's answers to bad input (unknown
 * buffers and programs, bad launches, faulting kernels, garbage images).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "chain.h"
#include "compiler/vgpu_compile.h"
#include "spin_ptx.h"
#include "tap.h"
#include "vgpu.h"
#include "vgpu_sim.h"
#include "workloads/workload.h"

#define MAX_WORKLOADS	64

static struct vgpu_sim_config cfg;

static int open_local(struct vgpu_device **dev)
{
	return vgpu_device_open_local(&cfg, dev);
}

/* Each workload stores 32-bit words at out + tid * stride. */
static const char store_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry store(.param .u64 out, .param .u32 stride)\n{\n"
	"	.reg .b32 %r<4>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	ld.param.u32 %r2, [stride];\n"
	"	mov.u32 %r1, %tid.x;\n"
	"	mul.wide.u32 %rd2, %r1, %r2;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r1;\n"
	"	ret;\n}\n";

/* A device, one page-sized buffer, the store kernel and its launch. */
struct fixture {
	struct vgpu_device *dev;
	struct vgpu_bo *bo;
	struct vgpu_program *prog;
	struct vgpu_params params;
	struct vgpu_launch launch;
};

static int fixture_init(struct fixture *f, uint32_t threads, uint32_t stride)
{
	char err[256] = "";

	memset(f, 0, sizeof(*f));
	CHECK(open_local(&f->dev) == 0, "open_local");
	CHECK(vgpu_bo_create(f->dev, 4096, &f->bo) == 0, "bo_create");
	CHECK(vgpu_program_create_ptx(f->dev, store_ptx, strlen(store_ptx), &f->prog, err,
				      sizeof(err)) == 0, "compile: %s", err);
	vgpu_params_init(&f->params);
	vgpu_params_ptr(&f->params, f->bo);
	vgpu_params_u32(&f->params, stride);
	f->launch = (struct vgpu_launch){
		.grid = { 1, 1, 1 }, .block = { threads, 1, 1 }, .params = &f->params,
		.bos = &f->bo, .num_bos = 1,
	};
	CHECK(vgpu_program_find_entry(f->prog, "store", &f->launch.entry) == 0, "entry");
	return 0;
}

static void fixture_fini(struct fixture *f)
{
	vgpu_program_destroy(f->prog);
	vgpu_bo_destroy(f->bo);
	vgpu_device_close(f->dev);
}

/* ------------------------------------------------------------------ */
/* the suite */

struct suite_run {
	int ret[MAX_WORKLOADS];
	struct workload_result res[MAX_WORKLOADS];
	char msg[MAX_WORKLOADS][256];
};

/* Attributes (name, value, ..., NULL) run_suite() sets on each device. */
static const char *const *suite_attrs;

/* Every workload at its small size, each on a fresh device. */
static int run_suite(struct suite_run *s)
{
	int i = 0;

	memset(s, 0, sizeof(*s));
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		struct workload_args args = { .size = (*w)->small_size, .seed = 1 };
		struct vgpu_device *dev;

		CHECK(i < MAX_WORKLOADS, "more than %d workloads", MAX_WORKLOADS);
		CHECK(open_local(&dev) == 0, "open_local");
		for (const char *const *a = suite_attrs; a && *a; a += 2)
			CHECK(vgpu_local_attr_store(dev, a[0], a[1]) == 0, "%s = %s", a[0], a[1]);
		s->ret[i] = (*w)->run(dev, &args, &s->res[i], s->msg[i], sizeof(s->msg[i]));
		vgpu_device_close(dev);
	}
	return 0;
}

static struct suite_run first, second;

static void t_suite(void)
{
	int i = 0;

	if (run_suite(&first)) {
		report("the suite runs on a local device", -1);
		return;
	}
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		char name[128];

		if (first.ret[i])
			printf("#   %s: %s\n", (*w)->name, first.msg[i]);
		snprintf(name, sizeof(name), "local fermi-gtx480: %s --size small matches its"
			 " CPU reference", (*w)->name);
		report(name, first.ret[i]);
	}
}

static int t_suite_deterministic(void)
{
	int i = 0;

	CHECK(run_suite(&second) == 0, "second run");
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		CHECK(first.res[i].cycles == second.res[i].cycles &&
		      first.res[i].warp_insts == second.res[i].warp_insts &&
		      first.res[i].tbs == second.res[i].tbs,
		      "%s: %" PRIu64 "/%" PRIu64 " cycles, %" PRIu64 "/%" PRIu64 " warp_insts",
		      (*w)->name, first.res[i].cycles, second.res[i].cycles,
		      first.res[i].warp_insts, second.res[i].warp_insts);
		CHECK(first.ret[i] || first.res[i].cycles > 0, "%s: no cycles", (*w)->name);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the device */

/* Runs of the suite under some setting, and of the same setting again. */
static struct suite_run sched_a, sched_b;

/*
 * sched_a (and, with @twice, sched_b) ran the suite: every workload matched
 * its CPU reference, and the two runs took the same cycles.
 */
static int suite_runs_agree(bool twice)
{
	int i = 0;

	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		CHECK(!sched_a.ret[i], "%s: %s", (*w)->name, sched_a.msg[i]);
		if (!twice)
			continue;
		CHECK(!sched_b.ret[i], "%s (second run): %s", (*w)->name, sched_b.msg[i]);
		CHECK(sched_a.res[i].cycles == sched_b.res[i].cycles &&
		      sched_a.res[i].warp_insts == sched_b.res[i].warp_insts,
		      "%s: %" PRIu64 "/%" PRIu64 " cycles", (*w)->name, sched_a.res[i].cycles,
		      sched_b.res[i].cycles);
	}
	return 0;
}

/*
 * The suite under another warp scheduler or sub-core assignment (@kv: key,
 * value, ..., NULL over @preset): every workload matches its CPU reference
 * and a second run takes the same cycles. *@total: the cycles summed.
 */
static int t_suite_sched(const char *preset, const char *const *kv, uint64_t *total)
{
	struct vgpu_sim_config saved = cfg;
	int i = 0, ret = 0;

	CHECK(vgpu_sim_preset(preset, &cfg) == 0, "preset %s", preset);
	for (; *kv; kv += 2)
		CHECK(vgpu_sim_config_set(&cfg, kv[0], kv[1]) == 0, "%s = %s", kv[0], kv[1]);
	if (run_suite(&sched_a) || run_suite(&sched_b))
		ret = -1;
	cfg = saved;
	CHECK(!ret, "the suite runs");
	*total = 0;
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++)
		*total += sched_a.res[i].cycles;
	return suite_runs_agree(true);
}

static void t_suite_scheds(void)
{
	static const struct {
		const char *preset;
		const char *kv[12];
	} c[] = {
		{ "fermi-gtx480", { "scheduler", "gto", NULL } },
		{ "fermi-gtx480", { "scheduler", "lrr", NULL } },
		{ "fermi-gtx480", { "scheduler", "two-level", NULL } },
		{ "fermi-gtx480", { "scheduler", "elf", NULL } },
		{ "fermi-gtx480", { "scheduler", "elf", "newcar", "1", NULL } },
		{ "fermi-gtx480", { "scheduler", "elf", "newcar", "1", "l1i_prefetch", "1", NULL } },
		{ "volta-v100", { "scheduler", "gto", NULL } },
		{ "volta-v100", { "scheduler", "rba", NULL } },
		{ "volta-v100", { "scheduler", "rba", "subcore_assign", "srr", NULL } },
		{ "volta-v100", { "scheduler", "rba", "subcore_assign", "shuffle", NULL } },
		{ "volta-v100", { "scheduler", "gto", "fully_connected", "1", NULL } },
		{ "volta-v100", { "scheduler", "rba", "fully_connected", "1", NULL } },
		{ "fermi-gtx480", { "scheduler", "elf", "newcar", "1", "l1i_prefetch", "1",
				    "l2_calendar", "1", "dram_calendar", "1", NULL } },
		{ "volta-v100", { "scheduler", "rba", "collector_stall", "1", NULL } },
	};
	uint64_t total[sizeof(c) / sizeof(c[0])];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char name[256];
		int n = snprintf(name, sizeof(name), "local %s", c[i].preset);

		for (const char *const *kv = c[i].kv; *kv; kv += 2)
			n += snprintf(name + n, sizeof(name) - (size_t)n, " %s=%s", kv[0], kv[1]);
		snprintf(name + n, sizeof(name) - (size_t)n,
			 ": the suite matches its CPU references, the same cycles twice");
		report(name, t_suite_sched(c[i].preset, c[i].kv, &total[i]));
		printf("#   %" PRIu64 " cycles in all\n", total[i]);
	}
	/* the schedulers are not all the same one */
	report("ELF++ and RBA with Shuffle change the suite's cycles",
	       total[5] != total[0] && total[9] != total[6] ? 0 : -1);
	report("the fully connected SM changes the suite's cycles",
	       total[10] != total[6] && total[11] != total[7] ? 0 : -1);
	report("the L2 and DRAM calendars change ELF++'s cycles", total[12] != total[5] ? 0 : -1);
	report("collector_stall changes RBA's cycles", total[13] != total[7] ? 0 : -1);
}

/*
 * The TLP policies (DYNCTA, DYNCORE; seed 001), alone and under the
 * preemption stress: every workload of the suite matches its CPU reference;
 * @twice: a second run takes the same cycles.
 */
static int t_suite_tlp(const char *const *attrs, bool twice)
{
	int ret = 0;

	suite_attrs = attrs;
	if (run_suite(&sched_a) || (twice && run_suite(&sched_b)))
		ret = -1;
	suite_attrs = NULL;
	CHECK(!ret, "the suite runs");
	return suite_runs_agree(twice);
}

/*
 * Virtual Thread with the preemption stress, at sizes where blocks are
 * held beyond the scheduling limit long enough to store: such a block is
 * beyond the daemon's status table, so the scheduler cannot see that it
 * crossed its idempotence boundary and must never flush it (flushed, it
 * ran again from its start on its own output: saxpy, compact, scan and
 * fdtd2d gave wrong results). Every run must match its CPU reference.
 */
static int t_vt_stress(void)
{
	static const char *const names[] = { "saxpy", "compact", "scan", "fdtd2d" };
	static const char *const modes[] = { "on", "max" };

	for (size_t m = 0; m < 2; m++) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			const struct vgpu_workload *w = vgpu_workload_find(names[i]);
			struct workload_args args = { .size = w ? w->medium_size : 0, .seed = 1 };
			struct workload_result res = { 0 };
			struct vgpu_device *dev;
			char msg[256] = "";
			int ret;

			CHECK(w, "%s", names[i]);
			CHECK(open_local(&dev) == 0, "open_local");
			CHECK(vgpu_local_attr_store(dev, "virtual_thread", modes[m]) == 0 &&
			      vgpu_local_attr_store(dev, "preempt_stress", "2000") == 0, "attributes");
			ret = w->run(dev, &args, &res, msg, sizeof(msg));
			vgpu_device_close(dev);
			CHECK(ret == 0, "virtual_thread=%s %s: %s", modes[m], names[i], msg);
		}
	}
	return 0;
}

/* A counter "KEY N" of the local debugfs file @file. */
static int debugfs_counter(struct vgpu_device *dev, const char *file, const char *key,
			   uint64_t *v)
{
	char buf[8192], *p;
	size_t n = strlen(key);

	CHECK(vgpu_local_debugfs(dev, file, buf, sizeof(buf)) == 0, "debugfs %s", file);
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, n) && p[n] == ' ') {
			*v = strtoull(p + n + 1, NULL, 10);
			return 0;
		}
	}
	CHECK(0, "%s: no %s", file, key);
}

/*
 * backprop (128 blocks of 256 threads a launch) at 16,384: DYNCTA lowers
 * limits and pauses blocks, DYNCORE turns SMs off and the model counts
 * their cycles; the result matches the CPU reference either way.
 */
static int tlp_run(const char *policy, uint64_t *lowered, uint64_t *pauses,
		   uint64_t *gates, uint64_t *gated_cycles)
{
	const struct vgpu_workload *w = vgpu_workload_find("backprop");
	struct workload_args args = { .size = 16384, .seed = 1 };
	struct workload_result res = { 0 };
	struct vgpu_sim_stats st;
	struct vgpu_device *dev;
	char msg[256] = "";

	CHECK(w, "backprop");
	CHECK(open_local(&dev) == 0, "open_local");
	CHECK(vgpu_local_attr_store(dev, "tlp_policy", policy) == 0, "tlp_policy %s", policy);
	CHECK(w->run(dev, &args, &res, msg, sizeof(msg)) == 0, "%s: %s", policy, msg);
	CHECK(debugfs_counter(dev, "tlp", "lowered", lowered) == 0, "lowered");
	CHECK(debugfs_counter(dev, "tlp", "pauses", pauses) == 0, "pauses");
	CHECK(debugfs_counter(dev, "tlp", "gate_changes", gates) == 0, "gate_changes");
	CHECK(vgpu_local_stats(dev, &st) == 0, "stats");
	*gated_cycles = st.gated_cycles;
	vgpu_device_close(dev);
	return 0;
}

/*
 * The limit that binds each launch (vgpu_local_limits()): @wl at @size
 * with virtual_thread @vt; *@tbs: the run's TBs.
 */
static int limits_run(const char *wl, uint64_t size, const char *vt,
		      uint64_t lim[VGPU_LIMIT_COUNT], uint64_t *tbs)
{
	const struct vgpu_workload *w = vgpu_workload_find(wl);
	struct workload_args args = { .size = size, .seed = 1 };
	struct workload_result res = { 0 };
	struct vgpu_device *dev;
	char msg[256] = "";

	CHECK(w, "%s", wl);
	CHECK(open_local(&dev) == 0, "open_local");
	CHECK(vgpu_local_attr_store(dev, "virtual_thread", vt) == 0, "virtual_thread %s", vt);
	CHECK(w->run(dev, &args, &res, msg, sizeof(msg)) == 0, "%s: %s", wl, msg);
	CHECK(vgpu_local_limits(dev, lim) == 0, "limits");
	*tbs = res.tbs;
	vgpu_device_close(dev);
	return 0;
}

/*
 * On fermi-gtx480 (15 SMs; 8 blocks, 1,536 threads, 32K registers per
 * SM): backprop's blocks of 256 threads stop at 6 per SM by threads, a
 * scheduling limit, and 128 of them (16,384) exceed the 90 that fit at
 * once; at 1,024 the grid fits; under virtual_thread=max the thread limit
 * goes and a capacity limit binds (Yoon et al. §II).
 */
static int t_limits(void)
{
	uint64_t lim[VGPU_LIMIT_COUNT], tbs;

	CHECK(limits_run("backprop", 16384, "off", lim, &tbs) == 0, "backprop 16384");
	CHECK(tbs > 0 && lim[VGPU_LIMIT_THREADS] == tbs, "threads: %" PRIu64 " of %" PRIu64,
	      lim[VGPU_LIMIT_THREADS], tbs);
	CHECK(limits_run("backprop", 1024, "off", lim, &tbs) == 0, "backprop 1024");
	CHECK(tbs > 0 && lim[VGPU_LIMIT_GRID] == tbs, "grid: %" PRIu64 " of %" PRIu64,
	      lim[VGPU_LIMIT_GRID], tbs);
	CHECK(limits_run("backprop", 16384, "max", lim, &tbs) == 0, "backprop 16384 max");
	CHECK(lim[VGPU_LIMIT_TBS] == 0 && lim[VGPU_LIMIT_THREADS] == 0 &&
	      lim[VGPU_LIMIT_REGS] + lim[VGPU_LIMIT_SHARED] + lim[VGPU_LIMIT_GRID] == tbs,
	      "max: no scheduling limit binds");
	return 0;
}

/*
 * The registry's limits (struct vgpu_workload_limit) are what the driver's
 * occupancy finds: every workload on every preset of the table, at its
 * small size (the kernels' block sizes do not change with the size).
 */
static int t_registry_limits(void)
{
	struct vgpu_kernel_limit got[64];

	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++) {
		for (unsigned int c = 0; c < WORKLOAD_LIMIT_PRESETS; c++) {
			unsigned int n = 0;
			char msg[512] = "";

			CHECK(workload_limits_measure(*w, vgpu_workload_limit_presets[c],
						      (*w)->small_size, got, 64, &n, msg,
						      sizeof(msg)) == 0, "%s", msg);
			CHECK(n <= 64, "%s: %u kernel limits", (*w)->name, n);
			CHECK(workload_limits_check(*w, c, got, n, msg, sizeof(msg)) == 0, "%s", msg);
		}
	}
	return 0;
}

/*
 * @n refused by @w's registry entry and by its run function, before the
 * run launches anything, each with a message naming the workload and the
 * size.
 */
static int size_refused(const struct vgpu_workload *w, struct vgpu_device *dev, uint64_t n)
{
	struct workload_args args = { .size = n, .seed = 1 };
	struct workload_result res = { 0 };
	char msg[256] = "", size[48];
	int ret;

	snprintf(size, sizeof(size), "size %" PRIu64 " ", n);
	CHECK(!workload_size_takes(w, n), "%s takes %" PRIu64, w->name, n);
	CHECK(workload_size_check(w, n, msg, sizeof(msg)) == -EINVAL && strstr(msg, size) &&
	      strstr(msg, w->name), "%s: %" PRIu64 " refused by the check: %s", w->name, n, msg);
	msg[0] = 0;
	ret = w->run(dev, &args, &res, msg, sizeof(msg));
	CHECK(ret == -EINVAL && strstr(msg, size) && strstr(msg, w->name) && res.launches == 0,
	      "%s: %" PRIu64 " refused by the run: %d, %u launches, %s", w->name, n, ret,
	      res.launches, msg);
	return 0;
}

/*
 * The rounding helpers on constructed limits: a step with a minimum off
 * it, powers of two, no limits, and limits no size meets.
 */
static int registry_size_round(void)
{
	struct vgpu_workload step = { .name = "stepped", .size_unit = "things", .min_size = 10,
				      .max_size = 100, .size_step = 8 };
	struct vgpu_workload pow2 = { .name = "pow2", .min_size = 1000, .max_size = 1u << 20,
				      .size_pow2 = true };
	struct vgpu_workload free_size = { .name = "free" };
	struct vgpu_workload none = { .name = "none", .min_size = 50, .max_size = 40 };
	struct vgpu_workload odd_pow2 = { .name = "odd", .size_step = 3, .size_pow2 = true };
	char msg[256] = "";

	CHECK(workload_size_lowest(&step) == 16 && workload_size_highest(&step) == 96,
	      "stepped: %" PRIu64 " ... %" PRIu64, workload_size_lowest(&step),
	      workload_size_highest(&step));
	CHECK(workload_size_takes(&step, 24) && !workload_size_takes(&step, 25) &&
	      !workload_size_takes(&step, 8) && !workload_size_takes(&step, 104) &&
	      !workload_size_takes(&step, 0), "stepped: takes");
	CHECK(workload_size_round_up(&step, 0) == 16 && workload_size_round_up(&step, 5) == 16 &&
	      workload_size_round_up(&step, 17) == 24 && workload_size_round_up(&step, 23) == 24 &&
	      workload_size_round_up(&step, 24) == 24 && workload_size_round_up(&step, 89) == 96 &&
	      workload_size_round_up(&step, 96) == 96 && workload_size_round_up(&step, 1000) == 96,
	      "stepped: rounding up");
	CHECK(workload_size_above(&step, 0) == 16 && workload_size_above(&step, 16) == 24 &&
	      workload_size_above(&step, 17) == 24 && workload_size_above(&step, 96) == 0,
	      "stepped: the next size");
	CHECK(workload_size_check(&step, 20, msg, sizeof(msg)) == -EINVAL &&
	      !strcmp(msg, "size 20 (things) refused: stepped takes multiples of 8 from 16 to 96"),
	      "stepped: %s", msg);
	CHECK(workload_size_check(&step, 88, msg, sizeof(msg)) == 0, "stepped: 88");

	CHECK(workload_size_lowest(&pow2) == 1024 && workload_size_highest(&pow2) == 1u << 20,
	      "pow2: %" PRIu64 " ... %" PRIu64, workload_size_lowest(&pow2),
	      workload_size_highest(&pow2));
	CHECK(workload_size_takes(&pow2, 2048) && !workload_size_takes(&pow2, 1536) &&
	      !workload_size_takes(&pow2, 512) && !workload_size_takes(&pow2, 1u << 21),
	      "pow2: takes");
	CHECK(workload_size_round_up(&pow2, 1) == 1024 &&
	      workload_size_round_up(&pow2, 1024) == 1024 &&
	      workload_size_round_up(&pow2, 1025) == 2048 &&
	      workload_size_round_up(&pow2, 3000) == 4096 &&
	      workload_size_round_up(&pow2, UINT64_MAX) == 1u << 20, "pow2: rounding up");
	CHECK(workload_size_above(&pow2, 1024) == 2048 &&
	      workload_size_above(&pow2, 1u << 20) == 0, "pow2: the next size");
	CHECK(workload_size_check(&pow2, 1536, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "(elements)") &&
	      strstr(msg, "pow2 takes powers of two from 1024 to 1048576"), "pow2: %s", msg);

	CHECK(workload_size_lowest(&free_size) == 1 &&
	      workload_size_highest(&free_size) == UINT64_MAX &&
	      workload_size_round_up(&free_size, 0) == 1 &&
	      workload_size_round_up(&free_size, 12345) == 12345 &&
	      workload_size_above(&free_size, UINT64_MAX) == 0, "no limits");
	CHECK(workload_size_check(&free_size, 0, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "free takes sizes from 1 up"), "no limits: %s", msg);

	CHECK(workload_size_lowest(&none) == 0 && workload_size_highest(&none) == 0 &&
	      workload_size_round_up(&none, 45) == 0 && workload_size_above(&none, 0) == 0,
	      "min above max: no size");
	CHECK(workload_size_lowest(&odd_pow2) == 0 && workload_size_round_up(&odd_pow2, 64) == 0,
	      "powers of two that are multiples of 3: no size");
	CHECK(workload_size_check(&none, 45, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "takes no size"), "no size: %s", msg);
	return 0;
}

/*
 * Every workload declares its sizes in the registry: its named sizes are
 * ones it takes, and a size just outside each of its limits (below the
 * smallest, above the largest, between two steps or powers of two) is
 * refused by workload_size_check() and by its run function alike; the
 * rounding helpers map sizes onto taken ones.
 */
static int t_registry_sizes(void)
{
	const struct vgpu_workload *sgemm = vgpu_workload_find("sgemm");
	const struct vgpu_workload *sortnet = vgpu_workload_find("sortnet");
	struct vgpu_device *dev;
	char msg[256] = "";
	int ret = 0;

	CHECK(registry_size_round() == 0, "the rounding helpers");
	CHECK(sgemm && sgemm->size_step == 16 && sgemm->max_size == 4096, "sgemm's size step");
	CHECK(workload_size_check(sgemm, 40, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "size 40") && strstr(msg, "multiples of 16 from 16 to 4096"),
	      "40 refused: %s", msg);
	CHECK(workload_size_check(sgemm, 48, msg, sizeof(msg)) == 0, "48 taken");
	CHECK(sortnet && sortnet->size_pow2 && workload_size_lowest(sortnet) == 1024 &&
	      workload_size_highest(sortnet) == 1u << 26, "sortnet: powers of two, 1024 ... 2^26");
	CHECK(open_local(&dev) == 0, "open_local");
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w && !ret; w++) {
		const uint64_t named[4] = { (*w)->small_size, (*w)->medium_size,
					    (*w)->default_size, (*w)->large_size };
		uint64_t lo = workload_size_lowest(*w), hi = workload_size_highest(*w);

		for (int k = 0; k < 4; k++) {
			if (named[k] && workload_size_check(*w, named[k], msg, sizeof(msg))) {
				printf("#   %s: named size %" PRIu64 ": %s\n", (*w)->name, named[k],
				       msg);
				ret = -1;
			}
			if (named[k] && workload_size_round_up(*w, named[k]) != named[k]) {
				printf("#   %s: named size %" PRIu64 " rounds to %" PRIu64 "\n",
				       (*w)->name, named[k], workload_size_round_up(*w, named[k]));
				ret = -1;
			}
		}
		/* a limit of its own on every workload, so that a search ends */
		if (!(*w)->max_size || !lo || !hi) {
			printf("#   %s: sizes %" PRIu64 " ... %" PRIu64 ", max_size %" PRIu64 "\n",
			       (*w)->name, lo, hi, (*w)->max_size);
			ret = -1;
			break;
		}
		ret = size_refused(*w, dev, 0);
		if (!ret && lo > 1)
			ret = size_refused(*w, dev, lo - 1);
		if (!ret)
			ret = size_refused(*w, dev, hi + 1);
		if (!ret && (workload_size_above(*w, lo) != lo + 1))
			ret = size_refused(*w, dev, lo + 1);
		if (!ret && (workload_size_round_up(*w, 0) != lo ||
			     workload_size_round_up(*w, hi + 1) != hi ||
			     !workload_size_takes(*w, workload_size_round_up(*w, (lo + hi) / 3)))) {
			printf("#   %s: rounding\n", (*w)->name);
			ret = -1;
		}
	}
	vgpu_device_close(dev);
	return ret;
}

/*
 * The check itself finds a wrong declaration, an undeclared kernel and a
 * declared kernel that never ran.
 */
static int t_registry_limits_check(void)
{
	const struct vgpu_workload *saxpy = vgpu_workload_find("saxpy");
	struct vgpu_workload_limit wrong[] = {
		{ "saxpy", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS } },
		{ "saxpy_stride", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS,
				    LIM_THREADS } },
		{ NULL },
	};
	struct vgpu_workload_limit extra[4] = { { NULL } };
	struct vgpu_workload w;
	struct vgpu_kernel_limit got[8];
	unsigned int n;
	char msg[512] = "";

	CHECK(saxpy, "saxpy");
	w = *saxpy;
	extra[0] = saxpy->limits[0];
	extra[1] = saxpy->limits[1];
	extra[2] = wrong[1];
	extra[2].kernel = "saxpy_other";
	CHECK(workload_limits_measure(&w, "fermi-gtx480", w.small_size, got, 8, &n, msg,
				      sizeof(msg)) == 0, "%s", msg);
	CHECK(n == 2, "saxpy: %u kernel limits", n);
	CHECK(workload_limits_check(&w, 0, got, n, msg, sizeof(msg)) == 0, "%s", msg);
	w.limits = wrong;
	CHECK(workload_limits_check(&w, 0, got, n, msg, sizeof(msg)) == -EBADMSG &&
	      strstr(msg, "kernel saxpy is bound by threads") && strstr(msg, "declared tbs"),
	      "wrong limit: %s", msg);
	wrong[0] = wrong[1];
	wrong[1].kernel = "saxpy_other";
	CHECK(workload_limits_check(&w, 0, got, n, msg, sizeof(msg)) == -EBADMSG &&
	      strstr(msg, "kernel saxpy (threads") && strstr(msg, "not declared"),
	      "undeclared: %s", msg);
	w.limits = extra;
	CHECK(workload_limits_check(&w, 0, got, n, msg, sizeof(msg)) == -EBADMSG &&
	      strstr(msg, "declared kernel saxpy_other was not launched"), "not run: %s", msg);
	return 0;
}

static int t_tlp_acts(void)
{
	uint64_t lo, pa, ga, gc;

	CHECK(tlp_run("none", &lo, &pa, &ga, &gc) == 0, "none");
	CHECK(lo == 0 && pa == 0 && ga == 0 && gc == 0, "none: %" PRIu64 " %" PRIu64 " %"
	      PRIu64 " %" PRIu64, lo, pa, ga, gc);
	CHECK(tlp_run("dyncta", &lo, &pa, &ga, &gc) == 0, "dyncta");
	printf("#   dyncta: %" PRIu64 " limits lowered, %" PRIu64 " pauses\n", lo, pa);
	CHECK(lo > 0 && pa > 0 && ga == 0 && gc == 0, "dyncta acts, gates nothing");
	CHECK(tlp_run("dyncore", &lo, &pa, &ga, &gc) == 0, "dyncore");
	printf("#   dyncore: %" PRIu64 " gate changes, %" PRIu64 " SM cycles off\n", ga, gc);
	CHECK(lo > 0 && ga > 0 && gc > 0, "dyncore turns SMs off");
	return 0;
}

/* Bad values of the TLP attributes are refused and change nothing. */
static int t_tlp_attrs(void)
{
	static const char *const bad[] = {
		"tlp_policy", "dyncta2", "dyncta_t_idle", "0", "dyncta_t_idle", "2049",
		"dyncta_t_mem_l", "2049", "dyncta_t_mem_h", "0", "dyncta_t_mem_h", "x",
		"dyncore_gate_sms", "1024", "dyncore_t_act_pct", "0", "dyncore_t_act_pct", "101",
		"tlp_static_tbs", "0", "tlp_static_tbs", "65", NULL
	};
	static const char *const def[] = {
		"tlp_policy", "[none] dyncta dyncore static\n", "dyncta_t_idle", "16\n",
		"dyncta_t_mem_l", "128\n", "dyncta_t_mem_h", "384\n", "dyncore_gate_sms", "8\n",
		"dyncore_t_act_pct", "66\n", "tlp_static_tbs", "8\n", NULL
	};
	struct vgpu_device *dev;
	char buf[256];

	CHECK(open_local(&dev) == 0, "open_local");
	for (const char *const *a = bad; *a; a += 2)
		CHECK(vgpu_local_attr_store(dev, a[0], a[1]) == -EINVAL, "%s = %s refused", a[0],
		      a[1]);
	for (const char *const *a = def; *a; a += 2) {
		CHECK(vgpu_local_attr_show(dev, a[0], buf, sizeof(buf)) == 0, "%s", a[0]);
		CHECK(!strcmp(buf, a[1]), "%s: %s", a[0], buf);
	}
	CHECK(vgpu_local_attr_store(dev, "dyncta_t_mem_l", "0") == 0, "t_mem_l 0");
	CHECK(vgpu_local_attr_store(dev, "dyncta_t_idle", "2048") == 0, "t_idle 2048");
	CHECK(vgpu_local_attr_store(dev, "tlp_policy", "dyncore") == 0, "dyncore");
	CHECK(vgpu_local_attr_show(dev, "tlp_policy", buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, "none dyncta [dyncore] static\n"), "%s", buf);
	vgpu_device_close(dev);
	return 0;
}

/*
 * The device attributes warp_sched and subcore_assign reach the model as
 * its configuration keys do: a workload takes the same cycles either way,
 * and "config" gives the configured scheduler back.
 */
static int attr_run(const char *wl, const char *const *attrs, const char *const *kv,
		    uint64_t *cycles)
{
	const struct vgpu_workload *w = vgpu_workload_find(wl);
	struct vgpu_sim_config saved = cfg;
	struct workload_args args = { .seed = 1 };
	struct workload_result res = { 0 };
	struct vgpu_device *dev;
	char msg[256] = "";
	int ret;

	CHECK(w, "%s", wl);
	args.size = w->small_size;
	for (; kv && *kv; kv += 2)
		CHECK(vgpu_sim_config_set(&cfg, kv[0], kv[1]) == 0, "%s", kv[0]);
	ret = open_local(&dev);
	cfg = saved;
	CHECK(ret == 0, "open_local");
	for (; attrs && *attrs; attrs += 2)
		CHECK(vgpu_local_attr_store(dev, attrs[0], attrs[1]) == 0, "%s = %s", attrs[0],
		      attrs[1]);
	ret = w->run(dev, &args, &res, msg, sizeof(msg));
	vgpu_device_close(dev);
	CHECK(ret == 0, "%s: %s", wl, msg);
	*cycles = res.cycles;
	return 0;
}

static int t_sched_attrs(void)
{
	static const char *const pp_a[] = { "warp_sched", "elf++", NULL };
	static const char *const pp_k[] = { "scheduler", "elf", "newcar", "1", "l1i_prefetch", "1",
					    NULL };
	static const char *const back_a[] = { "warp_sched", "elf", "warp_sched", "config", NULL };
	static const char *const srr_a[] = { "subcore_assign", "srr", NULL };
	static const char *const srr_k[] = { "subcore_assign", "srr", NULL };
	static const char *const bad_a[] = { "warp_sched", "fastest", NULL };
	uint64_t a, b, c;
	struct vgpu_device *dev;

	CHECK(attr_run("fdtd2d", NULL, NULL, &c) == 0, "configured");

	CHECK(attr_run("fdtd2d", pp_a, NULL, &a) == 0, "warp_sched=elf++");
	CHECK(attr_run("fdtd2d", NULL, pp_k, &b) == 0, "elf, newcar, l1i_prefetch");
	CHECK(a == b && a != c, "elf++: %" PRIu64 " cycles by attribute, %" PRIu64
	      " by configuration, %" PRIu64 " configured", a, b, c);
	CHECK(attr_run("fdtd2d", back_a, NULL, &a) == 0, "back to config");
	CHECK(a == c, "config: %" PRIu64 " cycles, %" PRIu64 " before", a, c);
	CHECK(attr_run("hotspot", srr_a, NULL, &a) == 0, "subcore_assign=srr");
	CHECK(attr_run("hotspot", NULL, srr_k, &b) == 0, "subcore_assign = srr");
	CHECK(a == b, "srr: %" PRIu64 " cycles by attribute, %" PRIu64 " by configuration", a, b);
	CHECK(open_local(&dev) == 0, "open_local");
	CHECK(vgpu_local_attr_store(dev, bad_a[0], bad_a[1]) == -EINVAL, "a bad value refused");
	vgpu_device_close(dev);
	return 0;
}

static int t_params(void)
{
	struct vgpu_device *dev;
	uint64_t v;

	CHECK(open_local(&dev) == 0, "open_local");
	CHECK(vgpu_device_fd(dev) == -1, "no file descriptor");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_NUM_SMS, &v) == 0 && v == cfg.desc.num_sms,
	      "num_sms");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_VRAM_SIZE, &v) == 0 &&
	      v == 256ull << 20, "vram_size: vgpu.ko's default, 256 MiB");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_BACKEND_ATTACHED, &v) == 0 && v == 1,
	      "attached");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_SHARED_PER_SM, &v) == 0 &&
	      v == cfg.desc.shared_per_sm, "shared_per_sm");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &v) == 0 && v == 0, "cycle 0");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_COUNT, &v) == -EINVAL, "unknown parameter");
	vgpu_device_close(dev);
	return 0;
}

static int t_bo_alloc(void)
{
	struct vgpu_device *dev;
	struct vgpu_bo *a, *b, *c, *d, *big;
	uint64_t vram;

	CHECK(open_local(&dev) == 0, "open_local");
	/* the allocator alone: one file may take it all */
	CHECK(vgpu_local_attr_store(dev, "file_vram_pct", "100") == 0, "file_vram_pct");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_VRAM_SIZE, &vram) == 0, "vram size");
	CHECK(vgpu_bo_create(dev, 0, &a) == -EINVAL, "size 0");
	CHECK(vgpu_bo_create(dev, vram + 1, &a) == -E2BIG, "beyond vram");
	CHECK(vgpu_bo_create(dev, vram, &a) == -ENOSPC,
	      "all of vram: the first page is never handed out");
	CHECK(vgpu_bo_create(dev, 100, &a) == 0, "a");
	CHECK(vgpu_bo_create(dev, 5000, &b) == 0, "b");
	CHECK(vgpu_bo_create(dev, 4096, &c) == 0, "c");
	CHECK(a->addr >= 4096, "address 0 stays unused (a at 0x%" PRIx64 ")", a->addr);
	CHECK(a->size == 100 && b->size == 5000, "sizes as asked, as the render node's");
	CHECK(a->addr % 4096 == 0 && b->addr % 4096 == 0 && c->addr % 4096 == 0,
	      "page aligned");
	CHECK(a->addr + 4096 <= b->addr && b->addr + 8192 <= c->addr,
	      "no overlap: whole pages each");
	CHECK(((uint8_t *)b->map)[0] == 0 && ((uint8_t *)b->map)[8191] == 0, "zeroed");
	memset(b->map, 0xab, 8192);
	vgpu_bo_destroy(b);
	/* best fit, as vgpu_vram.c asks drm_mm: b's hole is the smallest that fits */
	CHECK(vgpu_bo_create(dev, 4096, &d) == 0, "d");
	CHECK(d->addr == a->addr + 4096, "best fit reuses the hole (d at 0x%" PRIx64 ")",
	      d->addr);
	CHECK(((uint8_t *)d->map)[0] == 0, "reused memory zeroed");
	CHECK(vgpu_bo_create(dev, vram - 8192, &big) == -ENOSPC,
	      "no room for a buffer of nearly all vram");
	vgpu_bo_destroy(a);
	vgpu_bo_destroy(c);
	vgpu_bo_destroy(d);
	/* the first page is never used, the thread-block status table is in the second */
	CHECK(vgpu_bo_create(dev, vram - 8192, &big) == 0, "all but two pages, once free");
	vgpu_bo_destroy(big);
	vgpu_device_close(dev);
	return 0;
}

static int t_run_and_cycle(void)
{
	struct vgpu_job_result res;
	struct vgpu_sim_stats st;
	struct fixture f;
	uint32_t *out;
	uint64_t cycle;

	CHECK(fixture_init(&f, 64, 4) == 0, "fixture");
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0, "run");
	CHECK(res.error == 0 && res.tbs_done == 1 && res.warp_insts > 0, "result: error %d",
	      res.error);
	CHECK(res.end_cycle > res.start_cycle && res.cycles == res.end_cycle - res.start_cycle,
	      "cycles");
	out = f.bo->map;
	for (uint32_t t = 0; t < 64; t++)
		CHECK(out[t] == t, "word %u: %u", t, out[t]);
	CHECK(vgpu_get_param(f.dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &cycle) == 0 &&
	      cycle == res.end_cycle, "current cycle %" PRIu64, cycle);
	CHECK(vgpu_local_stats(f.dev, &st) == 0, "stats");
	CHECK(st.warp_insts == res.warp_insts && st.tbs_done == 1, "stats match the job");
	/* the next launch starts where the last one ended */
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0 && !res.error, "second run");
	CHECK(res.start_cycle == cycle, "starts at %" PRIu64 ", not %" PRIu64,
	      res.start_cycle, cycle);
	fixture_fini(&f);
	return 0;
}

/* The word index in the code of store_ptx's one global store. */
static uint32_t store_pc(void)
{
	const struct vgpu_program_header *h;
	const struct vgpu_program_entry *e;
	uint32_t pc = UINT32_MAX;
	size_t size;
	void *img;

	if (vgpu_compile_ptx(store_ptx, strlen(store_ptx), &img, &size, NULL, 0))
		return pc;
	h = img;
	e = (const void *)((const uint8_t *)img + h->entries_offset);
	for (uint32_t off = e->code_start; off < e->code_end; off += 8) {
		uint64_t w;

		memcpy(&w, (const uint8_t *)img + h->code_offset + off, 8);
		if (VGPU_I_OP(w) == VGPU_OP_ST) {
			pc = off / 8;
			break;
		}
		if (w & VGPU_I_X)
			off += 8;
	}
	free(img);
	return pc;
}

static int t_fault(void)
{
	struct vgpu_job_result res;
	struct fixture f;

	/* thread 1 stores one page past the start: outside the job's buffer */
	CHECK(fixture_init(&f, 32, 4096) == 0, "fixture");
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0, "run");
	CHECK(res.error == -EFAULT, "error %d, expected -EFAULT", res.error);
	CHECK(res.tbs_done == 0, "a faulted block is not done");
	/* where: block 0, the store, lane 1's address (lane 0's is inside) */
	CHECK(res.fault_flags == (DRM_VGPU_FAULT_TB | DRM_VGPU_FAULT_PC | DRM_VGPU_FAULT_ADDR),
	      "fault flags %#x", res.fault_flags);
	CHECK(res.fault_tb == 0, "fault in block %u", res.fault_tb);
	CHECK(res.fault_addr == f.bo->addr + 4096, "fault address %#" PRIx64 ", want %#" PRIx64,
	      res.fault_addr, f.bo->addr + 4096);
	CHECK(res.fault_pc == store_pc(), "fault pc %u, want the store at %u", res.fault_pc,
	      store_pc());
	{
		char why[160];

		vgpu_job_describe(&res, f.prog, f.launch.entry, why, sizeof(why));
		CHECK(strstr(why, "in kernel store, block 0, instruction ") && strstr(why, "address 0x"),
		      "described as '%s'", why);
	}
	/* the device goes on */
	vgpu_params_init(&f.params);
	vgpu_params_ptr(&f.params, f.bo);
	vgpu_params_u32(&f.params, 4);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0 && res.error == 0,
	      "a good launch after the fault: %d", res.error);
	fixture_fini(&f);
	return 0;
}

static int t_bad_submit(void)
{
	struct vgpu_bo bogus = { 0 }, *bos[2];
	struct vgpu_program fake = { 0 };
	struct vgpu_params big;
	struct vgpu_device *other;
	struct vgpu_bo *foreign;
	struct vgpu_launch l;
	struct vgpu_job job;
	struct fixture f;

	CHECK(fixture_init(&f, 32, 4) == 0, "fixture");
	/* a buffer the device never made */
	bogus = *f.bo;
	bogus.handle = 12345;
	bos[0] = f.bo;
	bos[1] = &bogus;
	l = f.launch;
	l.bos = bos;
	l.num_bos = 2;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -ENOENT, "bogus BO");
	/* a buffer of another device */
	CHECK(open_local(&other) == 0, "other device");
	CHECK(vgpu_bo_create(other, 4096, &foreign) == 0, "foreign bo");
	bos[1] = foreign;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -ENOENT, "BO of another device");
	vgpu_bo_destroy(foreign);
	vgpu_device_close(other);
	/* an unknown program */
	fake = *f.prog;
	fake.handle = 999;
	CHECK(vgpu_submit(f.dev, &fake, &f.launch, &job) == -ENOENT, "unknown program");
	/* launches the kernel would refuse */
	l = f.launch;
	l.grid[1] = 0;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "zero grid dimension");
	l = f.launch;
	l.block[0] = cfg.desc.max_threads_per_tb + 1;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -E2BIG, "block too large");
	l = f.launch;
	l.entry = 7;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "no such entry");
	l = f.launch;
	l.dynamic_shared = cfg.desc.max_shared_per_tb + 1;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -E2BIG, "too much shared memory");
	l = f.launch;
	l.priority = 99;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "unknown priority");
	vgpu_params_init(&big);
	vgpu_params_u64(&big, f.bo->addr);
	l = f.launch;
	l.params = &big;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "parameter size differs");
	for (int i = 0; i < DRM_VGPU_MAX_PARAM_BYTES / 8 + 1; i++)
		vgpu_params_u64(&big, 0);
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -E2BIG, "parameter overflow");
	/* a job id that does not exist */
	job = (struct vgpu_job){ .dev = f.dev, .id = 4242 };
	{
		struct vgpu_job_result res;

		CHECK(vgpu_job_wait(&job, -1, &res) == -ENOENT, "unknown job");
	}
	fixture_fini(&f);
	return 0;
}

static int t_bad_program(void)
{
	struct vgpu_job_result res;
	struct vgpu_program *prog;
	struct fixture f;
	uint8_t junk[256];
	uint8_t *image;
	const struct vgpu_program_header *h;

	CHECK(fixture_init(&f, 32, 4) == 0, "fixture");
	memset(junk, 0x5a, sizeof(junk));
	CHECK(vgpu_program_create_image(f.dev, junk, sizeof(junk), &prog) == -EINVAL,
	      "garbage image");
	CHECK(vgpu_program_create_image(f.dev, junk, 8, &prog) == -EINVAL, "truncated image");
	image = malloc(f.prog->image_size);
	CHECK(image, "malloc");
	memcpy(image, f.prog->image, f.prog->image_size);
	h = (const void *)image;
	CHECK(vgpu_program_create_image(f.dev, image, f.prog->image_size - 8, &prog) == -EINVAL,
	      "image_size differs");
	{
		struct vgpu_program_entry *e = (void *)(image + h->entries_offset);
		uint32_t regs = e->regs_per_thread;

		e->regs_per_thread = cfg.desc.max_regs_per_thread + 1;
		CHECK(vgpu_program_create_image(f.dev, image, f.prog->image_size, &prog) ==
		      -E2BIG, "too many registers");
		e->regs_per_thread = regs;
	}
	/* a header the device accepts, code the model refuses: the job fails */
	{
		uint64_t bad = 0x7f;	/* opcode 127 */

		memcpy(image + h->code_offset + 8, &bad, sizeof(bad));
	}
	CHECK(vgpu_program_create_image(f.dev, image, f.prog->image_size, &prog) == 0,
	      "valid header");
	free(image);
	CHECK(vgpu_run(f.dev, prog, &f.launch, &res) == 0, "run");
	CHECK(res.error == -EILSEQ, "error %d, expected -EILSEQ", res.error);
	vgpu_program_destroy(prog);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0 && res.error == 0,
	      "the device goes on: %d", res.error);
	fixture_fini(&f);
	return 0;
}

static int t_queue(void)
{
	struct vgpu_job_result ra, rb;
	struct vgpu_job a, b;
	struct fixture f;
	uint32_t *out;

	CHECK(fixture_init(&f, 64, 4) == 0, "fixture");
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &a) == 0, "submit a");
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &b) == 0, "submit b");
	CHECK(a.id != b.id, "job ids differ");
	/* nothing has run yet: a zero timeout expires, the job stays */
	CHECK(vgpu_job_wait(&a, 0, &ra) == -ETIME, "zero timeout");
	/* the program and buffer handles go; queued jobs keep what they use */
	out = malloc(f.bo->size);
	if (!out)
		return -1;
	vgpu_program_destroy(f.prog);
	f.prog = NULL;
	/* waiting for b runs a too: FCFS (the driver's policy) starts a's block first */
	CHECK(vgpu_job_wait(&b, -1, &rb) == 0 && rb.error == 0, "wait b: %d", rb.error);
	CHECK(vgpu_job_wait(&a, 0, &ra) == 0 && ra.error == 0, "a is over too: %d", ra.error);
	CHECK(ra.start_cycle <= rb.start_cycle, "a (%" PRIu64 "-%" PRIu64 ") starts before b (%"
	      PRIu64 "-)", ra.start_cycle, ra.end_cycle, rb.start_cycle);
	CHECK(ra.warp_insts == rb.warp_insts, "same work");
	CHECK(vgpu_job_wait(&a, -1, &ra) == -ENOENT, "a job is reported once");
	memcpy(out, f.bo->map, f.bo->size);
	for (uint32_t t = 0; t < 64; t++)
		CHECK(out[t] == t, "word %u", t);
	free(out);
	fixture_fini(&f);
	return 0;
}

static int t_bo_kept_by_job(void)
{
	struct vgpu_job_result res;
	struct vgpu_bo *other;
	struct vgpu_job job;
	struct fixture f;
	uint64_t addr;

	CHECK(fixture_init(&f, 64, 4) == 0, "fixture");
	addr = f.bo->addr;
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &job) == 0, "submit");
	vgpu_bo_destroy(f.bo);
	f.bo = NULL;
	/* the memory is still the queued job's: a new buffer goes elsewhere */
	CHECK(vgpu_bo_create(f.dev, 4096, &other) == 0, "bo");
	CHECK(other->addr != addr, "the job's buffer was handed out again");
	CHECK(vgpu_job_wait(&job, -1, &res) == 0 && res.error == 0, "wait: %d", res.error);
	vgpu_bo_destroy(other);
	fixture_fini(&f);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * A kernel that never ends: a wait with a host-time timeout returns -ETIME
 * about then, whatever the kernel does (the sync quantum hands the waiting
 * thread the turn back every 10,000 cycles); closing the device cancels
 * the job. Then the same kernel with a time limit fails with -ETIMEDOUT.
 */
static int t_wait_timeout(void)
{
	struct vgpu_device *dev;
	struct vgpu_program *prog;
	struct vgpu_bo *bo;
	struct vgpu_params params;
	struct vgpu_launch l = { .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
	struct vgpu_job job;
	struct vgpu_job_result res;
	char err[128];
	double t0, waited;
	int ret;

	CHECK(open_local(&dev) == 0, "device");
	CHECK(vgpu_program_create_ptx(dev, spin_ptx, sizeof(spin_ptx) - 1, &prog, err,
				      sizeof(err)) == 0, "spin: %s", err);
	CHECK(vgpu_program_find_entry(prog, "spin", &l.entry) == 0, "entry");
	CHECK(vgpu_bo_create(dev, 4096, &bo) == 0, "buffer");
	vgpu_params_init(&params);
	vgpu_params_u64(&params, 1000000000ull);
	vgpu_params_ptr(&params, bo);
	vgpu_params_u32(&params, 32);
	l.params = &params;
	l.bos = &bo;
	l.num_bos = 1;
	CHECK(vgpu_submit(dev, prog, &l, &job) == 0, "submit");
	t0 = now_s();
	ret = vgpu_job_wait(&job, 300 * 1000 * 1000, &res);
	waited = now_s() - t0;
	CHECK(ret == -ETIME, "wait: %d, want -ETIME", ret);
	/* generous: a busy host, AddressSanitizer */
	CHECK(waited >= 0.3 && waited < 30, "returned after %.2f s for a 0.3 s timeout",
	      waited);

	/* A time limit of 50 simulated us: the job fails at its deadline. */
	l.timeout_us = 50;
	CHECK(vgpu_run(dev, prog, &l, &res) == 0, "run");
	CHECK(res.error == -ETIMEDOUT, "error %d, want -ETIMEDOUT", res.error);
	CHECK(res.end_cycle - res.start_cycle == 50ull * cfg.desc.core_clock_khz / 1000,
	      "ended %" PRIu64 " cycles after its start, want %" PRIu64,
	      res.end_cycle - res.start_cycle, (uint64_t)50 * cfg.desc.core_clock_khz / 1000);
	vgpu_bo_destroy(bo);
	vgpu_program_destroy(prog);
	vgpu_device_close(dev);	/* the first job still runs: cancelled */
	return 0;
}

/* spin on @dev: @blocks blocks of 32 threads, @loops loops, 32 results stored. */
struct spin {
	struct vgpu_program *prog;
	struct vgpu_bo *bo;
	struct vgpu_params params;
	struct vgpu_launch l;
};

static int spin_init(struct spin *sp, struct vgpu_device *dev, uint32_t blocks,
		     uint64_t loops)
{
	char err[128];

	memset(sp, 0, sizeof(*sp));
	if (vgpu_program_create_ptx(dev, spin_ptx, sizeof(spin_ptx) - 1, &sp->prog, err,
				    sizeof(err)) ||
	    vgpu_program_find_entry(sp->prog, "spin", &sp->l.entry) ||
	    vgpu_bo_create(dev, 4096, &sp->bo))
		return -1;
	vgpu_params_init(&sp->params);
	vgpu_params_u64(&sp->params, loops);
	vgpu_params_ptr(&sp->params, sp->bo);
	vgpu_params_u32(&sp->params, 32);
	sp->l.grid[0] = blocks;
	sp->l.grid[1] = sp->l.grid[2] = 1;
	sp->l.block[0] = 32;
	sp->l.block[1] = sp->l.block[2] = 1;
	sp->l.params = &sp->params;
	sp->l.bos = &sp->bo;
	sp->l.num_bos = 1;
	return 0;
}

static void spin_fini(struct spin *sp)
{
	vgpu_bo_destroy(sp->bo);
	vgpu_program_destroy(sp->prog);
}

/*
 * Fair shares: beside a launch of 2^32-1 blocks of another file, a small
 * job of 4 blocks ends within a fair slice (1 ms, 1,400,000 cycles here) and
 * what its blocks take, under every partition policy; under FCFS it waits
 * that slice, since FCFS alone would make it wait for all 2^32-1.
 */
static int t_fair_share(void)
{
	static const char *const policies[] = {
		"fcfs", "spatial", "smk-even", "smk-drf", "warped-slicer", "maestro",
	};
	const uint64_t slice = 1400000;

	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		struct vgpu_device *hog_dev, *dev;
		struct spin hog, small;
		struct vgpu_job hog_job;
		struct vgpu_job_result res;
		uint64_t submitted, waited;
		const uint32_t *o;

		CHECK(open_local(&hog_dev) == 0, "device");
		CHECK(vgpu_local_attr_store(hog_dev, "partition_policy", policies[p]) == 0,
		      "%s", policies[p]);
		CHECK(vgpu_device_open_local_peer(hog_dev, &dev) == 0, "second file");
		CHECK(spin_init(&hog, hog_dev, UINT32_MAX, 20) == 0, "hog");
		CHECK(spin_init(&small, dev, 4, 20) == 0, "small");
		CHECK(vgpu_submit(hog_dev, hog.prog, &hog.l, &hog_job) == 0, "hog submit");
		CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &submitted) == 0, "cycle");
		CHECK(vgpu_run(dev, small.prog, &small.l, &res) == 0, "small run");
		CHECK(res.error == 0 && res.tbs_done == 4, "%s: small job: error %d, %" PRIu64
		      " blocks", policies[p], res.error, res.tbs_done);
		o = small.bo->map;
		for (uint32_t i = 0; i < 32; i++)
			CHECK(o[i] == spin_ref(i, 20), "%s: thread %u stored %#x", policies[p], i,
			      o[i]);
		waited = res.end_cycle - submitted;
		printf("#   %s: the small job ended %" PRIu64 " cycles after it was submitted\n",
		       policies[p], waited);
		CHECK(waited < slice + slice / 2, "%s: waited %" PRIu64 " cycles, more than a "
		      "fair slice and a half", policies[p], waited);
		if (!strcmp(policies[p], "fcfs"))
			CHECK(waited >= slice, "fcfs: waited %" PRIu64 " cycles, less than the slice",
			      waited);
		spin_fini(&small);
		vgpu_device_close(dev);
		spin_fini(&hog);
		vgpu_device_close(hog_dev);	/* cancels the 2^32-1 blocks */
	}
	return 0;
}

/*
 * Per-file limits: device memory (file_vram_pct), jobs in flight
 * (file_max_jobs), blocks on the SMs (file_max_tbs); each refusal leaves the
 * file and the device working.
 */
static int t_file_limits(void)
{
	struct vgpu_device *dev, *peer;
	struct vgpu_bo *a, *b, *c;
	struct spin sp;
	struct vgpu_job jobs[3];
	struct vgpu_job_result res;
	uint64_t vram;

	CHECK(open_local(&dev) == 0, "device");
	CHECK(vgpu_device_open_local_peer(dev, &peer) == 0, "peer");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_VRAM_SIZE, &vram) == 0, "vram");
	/* 75 % by default: 60 % fits, 20 % more does not; another file gets it */
	CHECK(vgpu_bo_create(dev, vram * 60 / 100, &a) == 0, "60 %% of the memory");
	CHECK(vgpu_bo_create(dev, vram * 20 / 100, &b) == -ENOSPC, "20 %% more: -ENOSPC");
	CHECK(vgpu_bo_create(peer, vram * 20 / 100, &b) == 0, "another file takes the 20 %%");
	vgpu_bo_destroy(a);
	CHECK(vgpu_bo_create(dev, vram * 50 / 100, &c) == 0, "freed memory counts again");
	vgpu_bo_destroy(c);
	vgpu_bo_destroy(b);
	CHECK(vgpu_local_attr_store(dev, "file_vram_pct", "0") == -EINVAL, "pct 0 refused");

	/* two jobs in flight at most: a third SUBMIT is refused, a peer's is not */
	CHECK(vgpu_local_attr_store(dev, "file_max_jobs", "2") == 0, "file_max_jobs");
	CHECK(spin_init(&sp, dev, 2, 100) == 0, "spin");
	CHECK(vgpu_submit(dev, sp.prog, &sp.l, &jobs[0]) == 0, "job 1");
	CHECK(vgpu_submit(dev, sp.prog, &sp.l, &jobs[1]) == 0, "job 2");
	CHECK(vgpu_submit(dev, sp.prog, &sp.l, &jobs[2]) == -ENOSPC, "job 3: -ENOSPC");
	CHECK(vgpu_job_wait(&jobs[0], -1, &res) == 0 && !res.error, "job 1 ends");
	CHECK(vgpu_job_wait(&jobs[1], -1, &res) == 0 && !res.error, "job 2 ends");
	CHECK(vgpu_submit(dev, sp.prog, &sp.l, &jobs[2]) == 0, "after they ended, job 3");
	CHECK(vgpu_job_wait(&jobs[2], -1, &res) == 0 && !res.error, "job 3 ends");
	spin_fini(&sp);

	/* one block on the SMs at a time: 6 blocks run one after another */
	CHECK(vgpu_local_attr_store(dev, "file_max_tbs", "1") == 0, "file_max_tbs");
	CHECK(spin_init(&sp, dev, 6, 1000) == 0, "spin");
	CHECK(vgpu_run(dev, sp.prog, &sp.l, &res) == 0 && !res.error && res.tbs_done == 6,
	      "6 blocks");
	{
		uint64_t one = res.cycles;

		CHECK(vgpu_local_attr_store(dev, "file_max_tbs", "0") == 0, "no limit");
		CHECK(vgpu_run(dev, sp.prog, &sp.l, &res) == 0 && !res.error, "6 blocks again");
		CHECK(one > 4 * res.cycles, "one at a time took %" PRIu64 " cycles, all at once %"
		      PRIu64, one, res.cycles);
	}
	spin_fini(&sp);
	vgpu_device_close(peer);
	vgpu_device_close(dev);
	return 0;
}

/*
 * What the guest's vgpu_chain prints for the chain on a fresh fermi-gtx480
 * render node (e2e; tools/check compares the two whole outputs): the local
 * device must take the same cycles.
 */
static const char chain_guest[] =
	"chain A: error 0 start +0 end +2682 warp_insts 1732 tbs 24\n"
	"chain B: error 0 start +2682 end +4591 warp_insts 1380 tbs 8\n"
	"chain C: error 0 start +4591 end +5050 warp_insts 756 tbs 16\n";

/*
 * Launch dependencies on the local device: the chain of chain.h starts
 * each link at the cycle the previous one ended, the cycles the guest
 * takes; a failure is carried down the chain without running; bad
 * in-syncobj arrays are refused; a file closed with a job waiting for a
 * kernel that never ends frees everything (AddressSanitizer) and leaves
 * the device to its peers.
 */
static int t_deps(void)
{
	struct vgpu_job_result res[CHAIN_LEN], r;
	struct vgpu_device *peer;
	struct vgpu_job hang, w;
	const char *why;
	char out[1024];
	struct fixture f;
	struct spin sp;
	uint32_t bogus = 4242;

	/* on a fresh device, as vgpu_chain on the guest's */
	CHECK(open_local(&peer) == 0, "open_local");
	CHECK(chain_run(peer, false, res, &why) == 0, "chain: %s", why);
	why = chain_check(false, res);
	CHECK(!why, "chain: %s", why);
	CHECK(chain_print(out, sizeof(out), "chain", res) == 0, "print");
	CHECK(!strcmp(out, chain_guest), "the guest's cycles:\n%s, here:\n%s", chain_guest, out);
	CHECK(chain_run(peer, true, res, &why) == 0, "failing chain: %s", why);
	why = chain_check(true, res);
	CHECK(!why, "failing chain: %s", why);
	vgpu_device_close(peer);

	CHECK(fixture_init(&f, 32, 4) == 0, "fixture");

	/* bad arrays: too long, unreadable, an unknown handle */
	f.launch.wait_syncobjs = &bogus;
	f.launch.num_wait_syncobjs = DRM_VGPU_MAX_IN_SYNCOBJS + 1;
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &w) == -E2BIG, "65 in-syncobjs");
	f.launch.num_wait_syncobjs = 1;
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &w) == -ENOENT, "unknown in-syncobj");
	f.launch.wait_syncobjs = NULL;
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &w) == -EFAULT, "no array");
	f.launch.num_wait_syncobjs = 0;

	/* a syncobj kept past vgpu_job_wait() (set to 0 first) is still waited for */
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &w) == 0, "submit");
	{
		uint32_t kept = w.syncobj;

		w.syncobj = 0;
		CHECK(vgpu_job_wait(&w, -1, &r) == 0 && r.error == 0, "wait");
		f.launch.wait_syncobjs = &kept;
		f.launch.num_wait_syncobjs = 1;
		CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &w) == 0, "submit after a kept one");
		CHECK(vgpu_job_wait(&w, -1, &r) == 0 && r.error == 0, "it runs: %d", r.error);
		vgpu_syncobj_destroy(f.dev, kept);
		f.launch.num_wait_syncobjs = 0;
	}

	/* a file closed with a job waiting for a kernel that never ends */
	CHECK(vgpu_device_open_local_peer(f.dev, &peer) == 0, "peer");
	CHECK(spin_init(&sp, f.dev, 1, UINT64_C(1) << 40) == 0, "spin");
	CHECK(vgpu_submit(f.dev, sp.prog, &sp.l, &hang) == 0, "submit the hang");
	f.launch.wait_syncobjs = &hang.syncobj;
	f.launch.num_wait_syncobjs = 1;
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &w) == 0, "submit the waiter");
	spin_fini(&sp);
	fixture_fini(&f);	/* closes the file: both are cancelled */
	memset(&f, 0, sizeof(f));
	f.dev = peer;
	CHECK(vgpu_bo_create(f.dev, 4096, &f.bo) == 0 &&
	      vgpu_program_create_ptx(f.dev, store_ptx, strlen(store_ptx), &f.prog, out,
				      sizeof(out)) == 0, "the peer's buffer and program");
	vgpu_params_init(&f.params);
	vgpu_params_ptr(&f.params, f.bo);
	vgpu_params_u32(&f.params, 4);
	f.launch = (struct vgpu_launch){
		.grid = { 1, 1, 1 }, .block = { 32, 1, 1 }, .params = &f.params,
		.bos = &f.bo, .num_bos = 1,
	};
	CHECK(vgpu_program_find_entry(f.prog, "store", &f.launch.entry) == 0, "entry");
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &r) == 0 && r.error == 0,
	      "the peer runs on: %d", r.error);
	fixture_fini(&f);
	return 0;
}

/*
 * A launch without a buffer list stores into any buffer of its file, and
 * still faults outside them and on another file's buffer; one with a list
 * is confined to it.
 */
static int t_no_bo_list(void)
{
	struct vgpu_job_result r;
	struct vgpu_device *peer;
	struct vgpu_bo *second, *foreign;
	uint32_t *out;
	struct fixture f;

	CHECK(fixture_init(&f, 32, 4) == 0, "fixture");
	CHECK(vgpu_bo_create(f.dev, 4096, &second) == 0, "second buffer");
	vgpu_params_init(&f.params);
	vgpu_params_ptr(&f.params, second);
	vgpu_params_u32(&f.params, 4);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &r) == 0 && r.error == -EFAULT,
	      "with a list, an unnamed buffer of the file faults: %d", r.error);
	f.launch.num_bos = 0;
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &r) == 0 && r.error == 0,
	      "without a list it is the job's: %d", r.error);
	out = second->map;
	for (uint32_t t = 0; t < 32; t++)
		CHECK(out[t] == t, "word %u", t);
	vgpu_params_init(&f.params);
	vgpu_params_ptr(&f.params, second);
	vgpu_params_u32(&f.params, 4096);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &r) == 0 && r.error == -EFAULT &&
	      r.fault_addr == second->addr + 4096 && second->addr + 4096 != f.bo->addr,
	      "outside every buffer of the file: %d at %#" PRIx64, r.error, r.fault_addr);
	CHECK(vgpu_device_open_local_peer(f.dev, &peer) == 0, "peer");
	CHECK(vgpu_bo_create(peer, 4096, &foreign) == 0, "the peer's buffer");
	vgpu_params_init(&f.params);
	vgpu_params_ptr(&f.params, foreign);
	vgpu_params_u32(&f.params, 4);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &r) == 0 && r.error == -EFAULT &&
	      ((uint32_t *)foreign->map)[1] == 0,
	      "another file's buffer faults and stays untouched: %d", r.error);
	vgpu_bo_destroy(foreign);
	vgpu_device_close(peer);
	vgpu_bo_destroy(second);
	fixture_fini(&f);
	return 0;
}

/*
 * A fuzzing campaign's mix of small launches under warped-slicer and a
 * preemption policy: spin kernels of 32 to 256 threads per block and 1 to
 * 57 blocks, some with a latency budget or of the high class, one with a
 * block of 800 threads and shared memory, from four files, submitted while
 * earlier ones are waited for. Under warped-slicer's profiling layout SMs
 * once changed hands at one cycle for good (a kernel that issued its last
 * block lost its group, its blocks were flushed, it came back): the
 * device's cycle stood still. No wall clock bounds this: the model's
 * events are counted per cycle, and far more events at one cycle than
 * slots on the device ends the child that runs the mix.
 */
#define MIX_FILES		4
#define MIX_JOBS		64
#define MIX_CYCLE_EVENTS	10000	/* 120 slots on the GTX 480 */
#define MIX_STALLED		3

static uint64_t mix_rng;

static uint64_t mix_below(uint64_t n)
{
	return workload_rand(&mix_rng) % n;
}

struct mix_watch {
	uint64_t cycle;
	uint64_t events;
};

static void mix_evt(void *ctx, const struct vgpu_evt *evt)
{
	struct mix_watch *w = ctx;

	if (evt->cycle != w->cycle) {
		w->cycle = evt->cycle;
		w->events = 0;
	}
	if (++w->events > MIX_CYCLE_EVENTS) {
		printf("#   %" PRIu64 " events at cycle %" PRIu64 ", the last a type %u of "
		       "job %u block %u on sm %u slot %u\n", w->events, w->cycle,
		       evt->type, evt->job, evt->tb, evt->sm, evt->slot);
		fflush(stdout);
		_exit(MIX_STALLED);
	}
}

/* The mix in this process; 0 when every job ended well. */
static int mix_run(const char *policy, const char *preempt, uint64_t seed)
{
	struct vgpu_device *dev[MIX_FILES] = { NULL };
	struct vgpu_program *prog[MIX_FILES] = { NULL };
	struct vgpu_bo *bo[MIX_FILES] = { NULL };
	struct vgpu_job jobs[MIX_JOBS];
	uint32_t grid[MIX_JOBS];
	struct mix_watch w = { UINT64_MAX, 0 };
	struct vgpu_job_result res;
	struct vgpu_params params;
	int nj = 0, nw = 0, ret = -1;
	uint32_t entry;
	char err[128];

	mix_rng = seed;
	MCHECK(open_local(&dev[0]) == 0, "device");
	MCHECK(vgpu_local_attr_store(dev[0], "partition_policy", policy) == 0, "%s", policy);
	MCHECK(vgpu_local_attr_store(dev[0], "preempt_policy", preempt) == 0, "%s", preempt);
	MCHECK(vgpu_local_set_evt_hook(dev[0], mix_evt, &w) == 0, "hook");
	for (int f = 0; f < MIX_FILES; f++) {
		MCHECK(!f || vgpu_device_open_local_peer(dev[0], &dev[f]) == 0, "file %d", f);
		MCHECK(vgpu_program_create_ptx(dev[f], spin_ptx, sizeof(spin_ptx) - 1, &prog[f],
					       err, sizeof(err)) == 0, "spin: %s", err);
		MCHECK(vgpu_bo_create(dev[f], 4096, &bo[f]) == 0, "buffer");
	}
	MCHECK(vgpu_program_find_entry(prog[0], "spin", &entry) == 0, "entry");
	for (int i = 0; i < MIX_JOBS; i++) {
		struct vgpu_launch l = { .entry = entry };
		int f = i % MIX_FILES;

		vgpu_params_init(&params);
		vgpu_params_u64(&params, mix_below(10) ? mix_below(400) : 2000 + mix_below(20000));
		vgpu_params_ptr(&params, bo[f]);
		vgpu_params_u32(&params, 0);	/* no stores */
		l.block[0] = 32u << mix_below(4);
		l.grid[0] = 1 + (uint32_t)(mix_below(3) ? mix_below(mix_below(8) ? 4 : 16) :
					   mix_below(57));
		l.grid[1] = l.grid[2] = l.block[1] = l.block[2] = 1;
		l.params = &params;
		l.bos = &bo[f];
		l.num_bos = 1;
		if (!mix_below(4))
			l.priority = (uint32_t)mix_below(2);
		if (!mix_below(3))
			l.latency_budget_us = 50 + (uint32_t)mix_below(150);
		if (i % 16 == 8) {
			/* a high-class job with a budget whose one block is big */
			l.block[0] = 800;
			l.grid[0] = 1;
			l.dynamic_shared = 256;
			l.priority = DRM_VGPU_PRIORITY_HIGH;
			l.latency_budget_us = 189;
		}
		MCHECK(vgpu_submit(dev[f], prog[f], &l, &jobs[nj]) == 0, "submit %d", i);
		grid[nj++] = l.grid[0];
		if (!mix_below(3)) {
			MCHECK(vgpu_job_wait(&jobs[nw], -1, &res) == 0, "wait %d", nw);
			MCHECK(res.error == 0 && res.tbs_done == grid[nw], "job %d: error %d, %"
			       PRIu64 " of %u blocks", nw, res.error, res.tbs_done, grid[nw]);
			nw++;
		}
	}
	for (; nw < nj; nw++) {
		MCHECK(vgpu_job_wait(&jobs[nw], -1, &res) == 0, "wait %d", nw);
		MCHECK(res.error == 0 && res.tbs_done == grid[nw], "job %d: error %d, %" PRIu64
		       " of %u blocks", nw, res.error, res.tbs_done, grid[nw]);
	}
	ret = 0;
out:
	for (int f = MIX_FILES - 1; f >= 0; f--) {
		if (bo[f])
			vgpu_bo_destroy(bo[f]);
		if (prog[f])
			vgpu_program_destroy(prog[f]);
		if (dev[f])
			vgpu_device_close(dev[f]);
	}
	return ret;
}

static int t_policy_mix(void)
{
	/* mixes 1 and 4 stalled warped-slicer under chimera and flush */
	static const struct {
		const char *policy, *preempt;
		uint64_t mix;
	} runs[] = {
		{ "warped-slicer", "chimera", 1 }, { "warped-slicer", "chimera", 4 },
		{ "warped-slicer", "flush", 1 }, { "warped-slicer", "flush", 4 },
		{ "warped-slicer", "switch", 1 }, { "warped-slicer", "drain", 1 },
		{ "spatial", "chimera", 1 }, { "maestro", "chimera", 1 },
	};

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		int status;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		CHECK(pid >= 0, "fork");
		if (!pid)
			_exit(mix_run(runs[r].policy, runs[r].preempt, runs[r].mix) ? 1 : 0);
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
		CHECK(!WIFEXITED(status) || WEXITSTATUS(status) != MIX_STALLED,
		      "%s with %s, mix %" PRIu64 ": the device's cycle stood still",
		      runs[r].policy, runs[r].preempt, runs[r].mix);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s with %s, mix %" PRIu64 ": status %#x", runs[r].policy,
		      runs[r].preempt, runs[r].mix, status);
	}
	return 0;
}

int main(void)
{
	if (vgpu_sim_preset("fermi-gtx480", &cfg)) {
		printf("not ok - the fermi-gtx480 preset exists\n");
		return 1;
	}
	t_suite();
	report("a second run of the suite gives identical cycles and warp_insts",
	       t_suite_deterministic());
	t_suite_scheds();
	report("warp_sched and subcore_assign set the model's scheduler as its configuration "
	       "does; config restores it", t_sched_attrs());
	{
		static const char *const modes[][5] = {
			{ "tlp_policy", "dyncta", NULL },
			{ "tlp_policy", "dyncore", NULL },
			{ "tlp_policy", "dyncta", "preempt_stress", "3000", NULL },
			{ "tlp_policy", "dyncore", "preempt_stress", "3000", NULL },
		};

		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			char name[160];

			snprintf(name, sizeof(name), "local tlp_policy=%s%s%s: the suite matches its"
				 " CPU references%s", modes[m][1], modes[m][2] ? " preempt_stress=" : "",
				 modes[m][2] ? modes[m][3] : "",
				 modes[m][2] ? "" : ", the same cycles twice");
			report(name, t_suite_tlp(modes[m], !modes[m][2]));
		}
	}
	report("virtual_thread on and max with preempt_stress: blocks beyond the status table are"
	       " never flushed (medium size, results as the CPU's)", t_vt_stress());
	report("DYNCTA lowers limits and pauses blocks, DYNCORE turns SMs off (backprop)",
	       t_tlp_acts());
	report("the registry's kernel limits are the driver's occupancy on every preset",
	       t_registry_limits());
	report("a kernel limit declared wrong, undeclared or never launched is found",
	       t_registry_limits_check());
	report("every workload's sizes are in the registry: its named sizes taken, one past each "
	       "limit refused by the check and the run; sizes round onto taken ones",
	       t_registry_sizes());
	report("the limit that binds a launch: threads, the grid, none under virtual_thread=max",
	       t_limits());
	report("bad values of the TLP attributes are refused; defaults read back",
	       t_tlp_attrs());
	report("get_param answers from the configuration and the model", t_params());
	report("buffer objects: best fit, page aligned, zeroed, address 0 unused",
	       t_bo_alloc());
	report("a launch runs, its result and the device cycle agree", t_run_and_cycle());
	report("an out-of-range store fails the job with -EFAULT", t_fault());
	report("bad BO lists, programs, launches and job ids are refused", t_bad_submit());
	report("bad images are refused; code the model rejects fails the job",
	       t_bad_program());
	report("queued jobs run by FCFS and keep their program", t_queue());
	report("a queued job keeps its buffer's memory", t_bo_kept_by_job());
	report("a wait's timeout holds under a kernel that never ends; a time limit ends it",
	       t_wait_timeout());
	report("beside 2^32-1 blocks of another file, a small job ends within a fair slice "
	       "under every policy", t_fair_share());
	report("per-file limits on device memory, jobs and blocks in flight", t_file_limits());
	report("launch dependencies: a chain at the guest's cycles, a failure carried down it, "
	       "bad in-syncobjs refused, a waiting job cancelled at close", t_deps());
	report("no buffer list: the file's buffers, and no other memory", t_no_bo_list());
	report("a fuzzing mix under warped-slicer with every preemption policy, spatial and "
	       "maestro: every job ends, the device's cycle moves on", t_policy_mix());
	return test_summary();
}
