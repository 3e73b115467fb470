/* SPDX-License-Identifier: MIT */
/*
 * bench.h - "vgpu bench SUBCOMMAND" (bench.c), running workloads on a
 * local device, the GPU model in-process (bench_model.c), and the problem
 * sizes of the tool (vgpu.c).
 */
#ifndef VGPU_TOOL_BENCH_H
#define VGPU_TOOL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vgpu.h"
#include "vgpu_sim.h"
#include "workloads/workload.h"

/* vgpu bench SUBCOMMAND ...: argv[0] is "bench". Returns the exit status. */
int cmd_bench(int argc, char **argv);
/* vgpu bench model-speed ...: argv[0] is "model-speed". */
int bench_model_speed(int argc, char **argv);
/* vgpu bench pairs ...: argv[0] is "pairs" (bench_pairs.c). */
int bench_pairs(int argc, char **argv);
/* vgpu bench classify ...: argv[0] is "classify" (bench_classify.c). */
int bench_classify(int argc, char **argv);
/* vgpu bench chimera ...: argv[0] is "chimera" (bench_chimera.c). */
int bench_chimera(int argc, char **argv);
/* vgpu bench tlp ...: argv[0] is "tlp" (bench_tlp.c). */
int bench_tlp(int argc, char **argv);
/* vgpu bench vt ...: argv[0] is "vt" (bench_vt.c). */
int bench_vt(int argc, char **argv);
/* vgpu bench preempt-cost ...: argv[0] is "preempt-cost" (bench_preempt_cost.c). */
int bench_preempt_cost(int argc, char **argv);
/* vgpu bench sizes ...: argv[0] is "sizes" (bench_sizes.c). */
int bench_sizes(int argc, char **argv);

/* The most workloads one --sizes option names. */
#define BENCH_MAX_SIZES		64

/**
 * struct bench_sizes - --sizes NAME=N,...: a problem size per workload,
 *	over the bench's --size (bench_sizes.c).
 * @w: the workloads named.
 * @size: the size of each.
 * @n: how many.
 */
struct bench_sizes {
	const struct vgpu_workload *w[BENCH_MAX_SIZES];
	uint64_t size[BENCH_MAX_SIZES];
	unsigned int n;
};

/*
 * --sizes @spec for "vgpu bench @bench" into @s: each entry names a known
 * workload once, with a size it takes; otherwise said, -EINVAL.
 */
int bench_parse_sizes(const char *bench, const char *spec, struct bench_sizes *s);
/* @w's size: the one --sizes gave (@s may be NULL), else tool_size_of(@n, @which). */
uint64_t bench_size_of(const struct bench_sizes *s, const struct vgpu_workload *w, uint64_t n,
		       int which);
/* When --sizes named any, one line with the size of each of the @nw workloads @w. */
void bench_print_sizes(const struct bench_sizes *s, const struct vgpu_workload *const *w,
		       unsigned int nw, uint64_t n, int which);

/**
 * struct bench_saved_attr - a device attribute: on the render node the value
 * it had before the experiment (put back at the end), on the local device
 * the value the experiment set (applied to each new device).
 * @name: the attribute.
 * @value: its value.
 */
struct bench_saved_attr {
	char name[48];
	char value[64];
};

/* The most --set options one experiment takes. */
#define BENCH_MAX_SETS		8
/* The most attributes an experiment sets (--set and its own). */
#define BENCH_MAX_ATTRS		(BENCH_MAX_SETS + 8)
/* The most programs of one group. */
#define BENCH_GROUP_MAX		4
/* The most counters read from one debugfs file. */
#define BENCH_MAX_COUNTERS	16

/**
 * struct bench_target_opts - what the benches' common options chose.
 * @local: --local: libvgpu's local device, not the render node.
 * @gpu: --gpu NAME (local), or NULL.
 * @config: --config FILE (local), or NULL.
 * @vram_size: --vram-mb in bytes (local), 0 for the default.
 * @jobs: -j N (local), 0 for the host's cores.
 */
struct bench_target_opts {
	bool local;
	const char *gpu;
	const char *config;
	uint64_t vram_size;
	unsigned int jobs;
};

/**
 * struct bench_target - where a benchmark runs (bench_target.c).
 * @local: on libvgpu's local device, a fresh one per group.
 * @dir: the render node's sysfs directory (not @local).
 * @cfg: the local device's hardware.
 * @vram_size: its device memory in bytes, 0 for the default.
 * @jobs: worker processes for independent groups (1 on the render node).
 * @attr: the attributes the experiment set (struct bench_saved_attr).
 * @nattr: entries of @attr.
 */
struct bench_target {
	bool local;
	char dir[256];
	struct vgpu_sim_config cfg;
	uint64_t vram_size;
	unsigned int jobs;
	struct bench_saved_attr attr[BENCH_MAX_ATTRS];
	unsigned int nattr;
};

/* Option codes of the Slurm options (bench_slurm.c), beyond any letter. */
enum {
	BENCH_OPT_SLURM = 0x100,
	BENCH_OPT_SLURM_DIR,
	BENCH_OPT_PARTITION,
	BENCH_OPT_TIME,
	BENCH_OPT_ACCOUNT,
	BENCH_OPT_SLURM_TASK,
	BENCH_OPT_SLURM_SET,
};

/* getopt_long() entries of the Slurm options (bench_slurm_opt()) and their usage. */
#define BENCH_SLURM_LONGOPTS \
	{ "slurm", no_argument, NULL, BENCH_OPT_SLURM }, \
	{ "slurm-dir", required_argument, NULL, BENCH_OPT_SLURM_DIR }, \
	{ "partition", required_argument, NULL, BENCH_OPT_PARTITION }, \
	{ "time", required_argument, NULL, BENCH_OPT_TIME }, \
	{ "account", required_argument, NULL, BENCH_OPT_ACCOUNT }, \
	{ "slurm-task", required_argument, NULL, BENCH_OPT_SLURM_TASK }, \
	{ "slurm-set", required_argument, NULL, BENCH_OPT_SLURM_SET }
#define BENCH_SLURM_USAGE \
	"--slurm --slurm-dir DIR [--partition P] [--time T] [--account A]"

/* getopt_long() entries of the target options, their short letters and usage. */
#define BENCH_TARGET_LONGOPTS \
	{ "local", no_argument, NULL, 'L' }, \
	{ "gpu", required_argument, NULL, 'G' }, \
	{ "config", required_argument, NULL, 'C' }, \
	{ "vram-mb", required_argument, NULL, 'V' }, \
	{ "jobs", required_argument, NULL, 'j' }, \
	BENCH_SLURM_LONGOPTS
#define BENCH_TARGET_SHORTOPTS	"j:"
#define BENCH_TARGET_USAGE \
	"[--local [--gpu NAME] [--config FILE] [--vram-mb N] [-j N | " BENCH_SLURM_USAGE "]]"
/*
 * Option @opt (one of those) with @arg into @o: 1 when taken, 0 when it is
 * not a target option, -EINVAL (said) for a bad value.
 */
int bench_target_opt(int opt, const char *arg, struct bench_target_opts *o);
int bench_target_open(struct bench_target *t, const struct bench_target_opts *o);
/* Puts the render node's attributes back as they were. */
void bench_target_close(struct bench_target *t);
/* An attribute's value (for a choice "a [b] c", the active "b"); 0 or -errno. */
int bench_target_get(struct bench_target *t, const char *name, char *buf, size_t len);
/* Sets an attribute for the rest of the experiment; 0 or -errno (nothing changed). */
int bench_target_set(struct bench_target *t, const char *name, const char *value);
/*
 * Carries out the @nset "KEY=VALUE" options of --set with
 * bench_target_set(); a bad option, key or value is printed and fails.
 */
int bench_target_apply_sets(struct bench_target *t, const char *const *sets, unsigned int nset);
/* A file of the target's device: the render node, or a new local device with @t's attributes. */
int bench_target_device(const struct bench_target *t, struct vgpu_device **out);
/*
 * The "KEY VALUE" lines of the driver's debugfs file @name (on the local
 * device, @dev's): the value of each of the @n keys into @out; -EPROTO
 * when one is missing.
 */
int bench_counters(const struct bench_target *t, struct vgpu_device *dev, const char *name,
		   const char *const *keys, unsigned int n, uint64_t *out);
/* Notes one --set option in @sets[*@n]; -EINVAL, said, past BENCH_MAX_SETS. */
int bench_add_set(const char **sets, unsigned int *n, const char *arg);

/**
 * struct bench_counted - counters a group's run is measured by.
 * @file: the debugfs file ("maestro", "preempt").
 * @keys: the counters.
 * @n: how many (at most %BENCH_MAX_COUNTERS).
 * @delta: out: how much each grew over the group.
 */
struct bench_counted {
	const char *file;
	const char *const *keys;
	unsigned int n;
	uint64_t *delta;
};

/*
 * One program of a group: @dev is its own file, joined to the synchronised
 * clock at rank @i + 1. On the render node it runs in a process of its
 * own, so what it reports goes into memory from bench_shared_alloc().
 */
typedef int (*bench_member_fn)(struct vgpu_device *dev, unsigned int i, void *arg);
/*
 * Runs @n programs together from a common start: the group's first file
 * holds the clock until every member has joined, so none starts early, and
 * leaves; on the render node it closes first, so that the device, unused
 * between groups, starts each one afresh; a local group runs on a new
 * device. @status gets each member's result. 0, or -errno when the group
 * could not run.
 */
int bench_group(const struct bench_target *t, unsigned int n, bench_member_fn fn, void *arg,
		const struct bench_counted *counted, int *status);

/*
 * bench_jobs.c: @ntasks independent tasks over @jobs worker processes
 * (inline when 1). Task i runs as @fn(i, @arg) and reports into memory from
 * bench_shared_alloc(); 0, or the first task's failure in task order.
 */
typedef int (*bench_task_fn)(unsigned int i, void *arg);
int bench_run_tasks(unsigned int ntasks, unsigned int jobs, bench_task_fn fn, void *arg);
unsigned int bench_default_jobs(void);
int bench_parse_jobs(const char *s, unsigned int *jobs);
/* Zeroed memory the worker and member processes write into; NULL when none. */
void *bench_shared_alloc(size_t size);
void bench_shared_free(void *p, size_t size);

/*
 * Slurm (bench_slurm.c): with --slurm, bench_run_tasks() runs its tasks as
 * a Slurm job array and merges what they wrote into the memory of
 * bench_shared_alloc(), one array per call (a set of tasks) and after the
 * one before. bench_slurm_command() records the command line
 * (from "bench" on) that each array task runs again; bench_slurm_opt()
 * takes the options (1 taken, 0 not a Slurm option, -EINVAL);
 * bench_slurm_check() refuses them without --local.
 */
void bench_slurm_command(int argc, char **argv);
int bench_slurm_opt(int opt, const char *arg);
int bench_slurm_check(bool local);
bool bench_slurm_active(void);
int bench_slurm_run(unsigned int ntasks, bench_task_fn fn, void *arg);
void bench_slurm_region_add(void *p, size_t size);
void bench_slurm_region_remove(void *p);

/*
 * The model's configuration for a local device: preset @gpu, then the
 * settings of @config_file (may be NULL), then @threads host threads when
 * not 0. A model without the "threads" setting runs single-threaded; that
 * is said on stderr and *@threads_used is 1. Errors are printed; returns 0
 * or a negative errno.
 */
int local_config(const char *gpu, const char *config_file, unsigned int threads,
		 struct vgpu_sim_config *cfg, unsigned int *threads_used);

/**
 * struct local_run - one workload on a fresh local device.
 * @res: what the workload measured.
 * @st: the model's counters over the run.
 * @model_s: host seconds spent in the model.
 * @core_clock_khz: the simulated clock, for rates.
 * @limit_tbs: its launches' TBs by the limit that binds them
 *	(vgpu_local_limits(), &enum vgpu_limit).
 * @ret: the workload's result (0 passed).
 * @msg: what went wrong, when @ret is not 0.
 */
struct local_run {
	struct workload_result res;
	struct vgpu_sim_stats st;
	uint64_t limit_tbs[VGPU_LIMIT_COUNT];
	double model_s;
	uint32_t core_clock_khz;
	int ret;
	char msg[512];
};

/*
 * Runs @w with @args on a new local device of target @t. Returns 0 when
 * the device could be opened (the workload's own outcome is in @out->ret),
 * else a negative errno.
 */
int local_run_workload(const struct bench_target *t, const struct vgpu_workload *w,
		       const struct workload_args *args, struct local_run *out);
/* A local target of hardware @cfg, no attribute set, one worker. */
void local_target(struct bench_target *t, const struct vgpu_sim_config *cfg);
/*
 * One run of a per-workload bench ("vgpu bench @bench"): @w at problem size
 * @size (tool_parse_size()'s @which) on a new local device of preset @gpu,
 * with the @nset --set options, then the @nattr "KEY", "VALUE" pairs of
 * @attrs. 0 when the workload passed its check against the CPU reference;
 * otherwise what failed is printed (naming @label) and the run fails.
 */
int local_bench_run(const char *bench, const char *label, const char *gpu,
		    const char *const *sets, unsigned int nset, const char *const *attrs,
		    unsigned int nattr, const struct vgpu_workload *w, uint64_t size, int which,
		    struct local_run *out);
/**
 * struct bench_wl_opts - the options of the per-workload benches on the
 * local device (tlp, vt, sizes, preempt-cost), from bench_wl_opt(); the
 * Slurm options among them go to bench_slurm_opt().
 * @gpu: --gpu NAME, the preset.
 * @size: --size as tool_parse_size() gave it.
 * @which: and its kind.
 * @size_name: --size as given.
 * @workloads: --workloads, for bench_workloads().
 * @sets: --set KEY=VALUE options, applied to every run.
 * @nset: how many.
 * @jobs: -j N.
 */
struct bench_wl_opts {
	const char *gpu;
	uint64_t size;
	int which;
	const char *size_name;
	char workloads[512];
	const char *sets[BENCH_MAX_SETS];
	unsigned int nset;
	unsigned int jobs;
};

/* getopt_long() entries of those options and their short letters. */
#define BENCH_WL_LONGOPTS \
	{ "workloads", required_argument, NULL, 'w' }, \
	{ "gpu", required_argument, NULL, 'g' }, \
	{ "size", required_argument, NULL, 'n' }, \
	{ "set", required_argument, NULL, 's' }, \
	{ "local", no_argument, NULL, 'L' }, \
	{ "jobs", required_argument, NULL, 'j' }, \
	BENCH_SLURM_LONGOPTS
#define BENCH_WL_SHORTOPTS	"w:g:n:s:j:"
/* @o's defaults: preset @gpu, --workloads @workloads, --size @size. */
void bench_wl_init(struct bench_wl_opts *o, const char *gpu, const char *workloads,
		   const char *size);
/*
 * Option @opt with @arg into @o for "vgpu bench @bench": 1 when taken, 0
 * when it is not one of those, -EINVAL (said) for a bad value.
 */
int bench_wl_opt(const char *bench, int opt, const char *arg, struct bench_wl_opts *o);
/*
 * The model's configuration of @o's preset into @cfg, once the options are
 * read; -EINVAL (said) when the preset is unknown or the Slurm options do
 * not go together (bench_slurm_check()).
 */
int bench_wl_config(const char *bench, const struct bench_wl_opts *o, struct vgpu_sim_config *cfg);

/*
 * The workloads --workloads @spec names for "vgpu bench @bench" into a new
 * array *@out of *@n: "all", a comma-separated list, or @set (when not
 * NULL), the workloads @in_set() keeps. An unknown name is printed and
 * gives -EINVAL.
 */
int bench_workloads(const char *bench, char *spec, const char *set,
		    bool (*in_set)(const struct vgpu_workload *w),
		    const struct vgpu_workload ***out, unsigned int *n);

/* vgpu.c: "small", "default", "large" or a number N > 0; -EINVAL otherwise. */
int tool_parse_size(const char *s, uint64_t *n, int *which);
/* vgpu.c: the problem size of @w for what tool_parse_size() gave. */
uint64_t tool_size_of(const struct vgpu_workload *w, uint64_t n, int which);

#endif /* VGPU_TOOL_BENCH_H */
