/* SPDX-License-Identifier: MIT */
/*
 * workload.h - the workload suite: real CUDA kernels (the .cu and the PTX
 * nvcc made of it, both in this directory) with input generators and CPU
 * references, run through libvgpu.
 */
#ifndef VGPU_WORKLOAD_H
#define VGPU_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vgpu.h"
#include "vgpu_runtime.h"

/**
 * struct vgpu_embedded_ptx - a workload's PTX, built into the binary.
 * @name: file name without .ptx.
 * @text: the PTX.
 * @len: bytes of @text.
 */
struct vgpu_embedded_ptx {
	const char *name;
	const char *text;
	size_t len;
};

/* Generated from userspace/workloads/ *.ptx by tools/embed-ptx. */
extern const struct vgpu_embedded_ptx vgpu_workload_ptx[];

/**
 * struct workload_args - how to run a workload.
 * @size: problem size (elements); 0 for the workload's default.
 * @seed: seed of the input generator.
 */
struct workload_args {
	uint64_t size;
	uint64_t seed;
};

/**
 * struct workload_result - what a run measured, over all its launches.
 * @launches: kernel launches.
 * @cycles: sum of the launches' cycles (first dispatch to last completion).
 * @warp_insts: warp instructions.
 * @tbs: thread blocks.
 */
struct workload_result {
	unsigned int launches;
	uint64_t cycles;
	uint64_t warp_insts;
	uint64_t tbs;
};

/* The presets a workload's kernel limits are declared for, in column order. */
#define WORKLOAD_LIMIT_PRESETS	5
extern const char *const vgpu_workload_limit_presets[WORKLOAD_LIMIT_PRESETS];

/* &enum vgpu_limit, short, for the registry's tables. */
#define LIM_TBS		VGPU_LIMIT_TBS
#define LIM_THREADS	VGPU_LIMIT_THREADS
#define LIM_REGS	VGPU_LIMIT_REGS
#define LIM_SHARED	VGPU_LIMIT_SHARED

/**
 * struct vgpu_workload_limit - which limit binds one kernel's blocks per SM
 * on each preset when its grid is larger than the GPU holds at once (Yoon
 * et al. §II: TB slots and threads are scheduling limits, registers and
 * shared memory capacity limits): where Virtual Thread can add blocks and
 * where DYNCTA has blocks to take away.
 * @kernel: the entry point.
 * @on: its limit on each of vgpu_workload_limit_presets[] (&enum
 *	vgpu_limit, never VGPU_LIMIT_GRID). test_local checks every entry
 *	against the driver's occupancy of a run (workload_limits_check()).
 */
struct vgpu_workload_limit {
	const char *kernel;
	enum vgpu_limit on[WORKLOAD_LIMIT_PRESETS];
};

/**
 * struct vgpu_workload - one workload of the suite.
 * @name: short name, also its .cu/.ptx file name.
 * @paper: the paper benchmark it stands for (suite and name).
 * @cls: "COM" (compute-bound) or "MEM" (memory-bound), as the thesis'
 *	Table 5.3 classifies the benchmark (or, where the table has none,
 *	what the kernel is).
 * @kernels: entry points the workload launches.
 * @small_size: problem size of the tests (vgpu run --size small): small
 *	enough that the whole suite runs in seconds under QEMU/TCG.
 * @medium_size: problem size of multi-programmed experiments (vgpu bench
 *	pairs --size medium): about 100 to 300 thousand cycles alone on
 *	fermi-gtx480, so that every pair of a suite runs in minutes under
 *	QEMU/TCG while the kernels still fill the GPU.
 * @default_size: problem size when none is given.
 * @large_size: problem size for experiments (--size large).
 * @size_unit: what a size counts ("elements", "nodes", "matrix order" ...).
 * @min_size: the smallest size it takes (0: 1; size 0 is never a size, it
 *	asks for @default_size).
 * @max_size: the largest size it takes (0: no limit of its own). Limits
 *	that depend on the device (its memory) are not here: the run reports
 *	them when an allocation fails.
 * @size_step: sizes it takes are multiples of this (0: any size).
 * @size_pow2: sizes it takes are powers of two.
 * @limits: what binds each kernel's blocks per SM on each preset, one
 *	entry per kernel it launches, ended by one with a NULL @kernel.
 * @run: generates the input, runs it on @dev, compares with the CPU
 *	reference. Returns 0 when the result is correct, -EBADMSG when it
 *	differs, another negative errno on a device error; @msg says what.
 */
struct vgpu_workload {
	const char *name;
	const char *paper;
	const char *cls;
	const char *kernels;
	uint64_t small_size;
	uint64_t medium_size;
	uint64_t default_size;
	uint64_t large_size;
	const char *size_unit;
	uint64_t min_size;
	uint64_t max_size;
	uint64_t size_step;
	bool size_pow2;
	const struct vgpu_workload_limit *limits;
	int (*run)(struct vgpu_device *dev, const struct workload_args *args,
		   struct workload_result *res, char *msg, size_t msglen);
};

extern const struct vgpu_workload *const vgpu_workloads[];
const struct vgpu_workload *vgpu_workload_find(const char *name);
/*
 * The sizes @w takes, as its registry entry describes them (@min_size,
 * @max_size, @size_step, @size_pow2). Every run function checks its size
 * with workload_size_check() before it does anything else.
 */
bool workload_size_takes(const struct vgpu_workload *w, uint64_t n);
/* The smallest and the largest size @w takes; 0 when it takes none. */
uint64_t workload_size_lowest(const struct vgpu_workload *w);
uint64_t workload_size_highest(const struct vgpu_workload *w);
/* The next size @w takes above @n; 0 when there is none. */
uint64_t workload_size_above(const struct vgpu_workload *w, uint64_t n);
/*
 * The smallest size @w takes from @n up, or its largest when @n is past it
 * (a search for a size that runs long enough rounds up); 0 when it takes
 * none.
 */
uint64_t workload_size_round_up(const struct vgpu_workload *w, uint64_t n);
/* What workload_size_takes() accepts, as "powers of two from 1024 to 67108864". */
void workload_size_describe(const struct vgpu_workload *w, char *buf, size_t len);
/*
 * Whether @w takes problem size @n: 0, or -EINVAL with @msg naming the
 * workload, the size and what it takes.
 */
int workload_size_check(const struct vgpu_workload *w, uint64_t n, char *msg, size_t msglen);

/*
 * VGPU_COMPILE_* options workload_open() compiles with (vgpu run
 * --virtual-tb[=MODE]). A program the option refuses is compiled without it, and
 * the refusal is left in the workload's message (a successful run returns
 * with it).
 */
extern unsigned int workload_compile_opts;

/*
 * Helpers shared by the workloads (workload.c). A run is a program of the
 * runtime (vgpu_runtime.h), as a CUDA driver API program is: a context on
 * the device, the workload's PTX as its module, device memory filled and
 * read back with copies, and kernels found by name and launched with their
 * arguments on the default stream.
 */
const struct vgpu_embedded_ptx *workload_ptx(const char *name);

/**
 * struct workload_ctx - one run of a workload.
 * @ctx: its context; destroying it frees its memory and its module.
 * @mod: the workload's PTX, loaded with workload_compile_opts.
 * @res: where its launches are summed.
 * @msg: where an error is said (the run's message).
 * @msglen: bytes of @msg.
 */
struct workload_ctx {
	struct vgpu_context *ctx;
	struct vgpu_module *mod;
	struct workload_result *res;
	char *msg;
	size_t msglen;
};

/* A context on @dev with the PTX of workload @name loaded; reports in @msg. */
int workload_open(struct workload_ctx *w, struct vgpu_device *dev, const char *name,
		  struct workload_result *res, char *msg, size_t msglen);
/* Destroys the context, with its memory and module. */
void workload_close(struct workload_ctx *w);
/* Allocates @n buffers of @sizes bytes, in this order; reports a failure. */
int workload_alloc(struct workload_ctx *w, vgpu_deviceptr *d, const uint64_t *sizes,
		   unsigned int n);
/* Host to device and back; report a failure. */
int workload_htod(struct workload_ctx *w, vgpu_deviceptr dst, const void *src, size_t bytes);
int workload_dtoh(struct workload_ctx *w, void *dst, vgpu_deviceptr src, size_t bytes);
/* Sets @bytes at @dst to @value; reports a failure. */
int workload_memset(struct workload_ctx *w, vgpu_deviceptr dst, uint8_t value, size_t bytes);
/*
 * Launches kernel @kernel (its source name) on a grid of @gx x @gy blocks
 * of @bx x @by threads (z = 1) with @dyn bytes of dynamic shared memory,
 * on the default stream, and adds the launch to the run's result once it
 * is over. @args and @nargs are vgpu_launch_kernel()'s: WORKLOAD_ARGS(&n,
 * &x, &y) gives both.
 */
int workload_go(struct workload_ctx *w, const char *kernel, uint32_t gx, uint32_t gy,
		uint32_t bx, uint32_t by, uint32_t dyn, void **args, unsigned int nargs);
#define WORKLOAD_ARGS(...)						\
	(void *[]){ __VA_ARGS__ },					\
	(unsigned int)(sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
/*
 * Copies @n results at @got from the device and compares them with the
 * reference, bit for bit, as workload_cmp_u32() / _f32() below.
 */
int workload_check_u32(struct workload_ctx *w, const char *what, vgpu_deviceptr got,
		       const uint32_t *want, size_t n);
int workload_check_f32(struct workload_ctx *w, const char *what, vgpu_deviceptr got,
		       const float *want, size_t n);
/* Deterministic generator (splitmix64). */
uint64_t workload_rand(uint64_t *state);
/* Uniform float in [-1, 1) on a 2^-23 grid (exactly representable). */
float workload_randf(uint64_t *state);
/* Uniform integer in [0, n). */
uint32_t workload_randn(uint64_t *state, uint32_t n);
/*
 * The k-means reference: the first of @k centres (rows of @f floats at
 * @centres) nearest to point @p, by squared distance summed with fmaf()
 * in feature order, as kmeans.cu and kmrow.cu do.
 */
uint32_t workload_nearest(const float *p, const float *centres, uint32_t k, uint32_t f);
/* Compare @n results with the reference, bit for bit; report the first miss. */
int workload_cmp_u32(const char *what, const uint32_t *got, const uint32_t *want,
		     size_t n, char *msg, size_t msglen);
int workload_cmp_f32(const char *what, const float *got, const float *want,
		     size_t n, char *msg, size_t msglen);

/*
 * The limits of @w's kernels as the driver's occupancy finds them on a
 * fresh local device of preset @gpu, running @w at @size (seed 1): the
 * distinct (kernel, limit) of its launches into @out (at most @max), *@n
 * how many (vgpu_local_kernel_limits()). 0, or a negative errno with @msg.
 */
int workload_limits_measure(const struct vgpu_workload *w, const char *gpu, uint64_t size,
			    struct vgpu_kernel_limit *out, unsigned int max, unsigned int *n,
			    char *msg, size_t msglen);
/*
 * Compares the measured limits @got (@n of them) on preset column @col of
 * vgpu_workload_limit_presets[] with @w's declaration: every kernel
 * launched must be declared with the limit found, every kernel declared
 * must have been launched, and one kernel must not meet two limits.
 * 0, or -EBADMSG with @msg naming the first difference.
 */
int workload_limits_check(const struct vgpu_workload *w, unsigned int col,
			  const struct vgpu_kernel_limit *got, unsigned int n,
			  char *msg, size_t msglen);
/* "tbs", "threads", "regs", "shared", "grid". */
const char *workload_limit_name(enum vgpu_limit l);

#endif /* VGPU_WORKLOAD_H */
