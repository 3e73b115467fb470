/* SPDX-License-Identifier: MIT */
/*
 * bench.h - "vgpu bench SUBCOMMAND" (bench.c), running workloads on a
 * local device, the GPU model in-process (bench_model.c), and the problem
 * sizes of the tool (vgpu.c).
 */
#ifndef VGPU_TOOL_BENCH_H
#define VGPU_TOOL_BENCH_H

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

/*
 * bench_sysfs.c: the device's sysfs directory (of the render node behind
 * @dev); writing an attribute; reading one (for a choice "a [b] c", the
 * active "b"); the path of a debugfs file of the driver. 0 or -errno.
 */
int bench_sysfs_dir(struct vgpu_device *dev, char *buf, size_t len);
int bench_sysfs_write(const char *dir, const char *attr, const char *value);
int bench_sysfs_read(const char *dir, const char *attr, char *buf, size_t len);
int bench_debugfs_file(const char *name, char *buf, size_t len);

/**
 * struct bench_saved_attr - a device attribute as it was before an
 * experiment, to be put back after it.
 * @name: the attribute.
 * @value: its value then.
 */
struct bench_saved_attr {
	char name[48];
	char value[64];
};

/*
 * bench_save_attr() notes attribute @name's value in @sv[*@n] (once per
 * name; 0, -ENAMETOOLONG or -ENOENT); bench_restore_attrs() writes the @n
 * noted values back, the last noted first.
 */
int bench_save_attr(const char *dir, const char *name, struct bench_saved_attr *sv,
		    unsigned int *n);
void bench_restore_attrs(const char *dir, const struct bench_saved_attr *sv, unsigned int n);
/*
 * bench_apply_sets() carries out the @nset "KEY=VALUE" options of --set:
 * each attribute is saved with bench_save_attr(), then written. A bad
 * option, key or value is printed and fails (-EINVAL or -errno).
 */
int bench_apply_sets(const char *dir, const char *const *sets, unsigned int nset,
		     struct bench_saved_attr *sv, unsigned int *n);
/* The most --set options one experiment takes. */
#define BENCH_MAX_SETS	8
/* Notes one --set option in @sets[*@n]; -EINVAL, said, past BENCH_MAX_SETS. */
int bench_add_set(const char **sets, unsigned int *n, const char *arg);
/*
 * The "KEY VALUE" lines of debugfs file @name: the value of each of the
 * @n (at most 31) @keys into @out; -EPROTO when one is missing.
 */
int bench_debugfs_counters(const char *name, const char *const *keys, unsigned int n,
			   uint64_t *out);

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
 * @ret: the workload's result (0 passed).
 * @msg: what went wrong, when @ret is not 0.
 */
struct local_run {
	struct workload_result res;
	struct vgpu_sim_stats st;
	double model_s;
	uint32_t core_clock_khz;
	int ret;
	char msg[512];
};

/*
 * Runs @w with @args on a new local device built from @cfg. Returns 0 when
 * the device could be opened (the workload's own outcome is in @out->ret),
 * else a negative errno.
 */
int local_run_workload(const struct vgpu_sim_config *cfg, const struct vgpu_workload *w,
		       const struct workload_args *args, struct local_run *out);

/* vgpu.c: "small", "default", "large" or a number N > 0; -EINVAL otherwise. */
int tool_parse_size(const char *s, uint64_t *n, int *which);
/* vgpu.c: the problem size of @w for what tool_parse_size() gave. */
uint64_t tool_size_of(const struct vgpu_workload *w, uint64_t n, int which);

#endif /* VGPU_TOOL_BENCH_H */
