// SPDX-License-Identifier: MIT
/*
 * saxpy: y = a * x + y over n floats (saxpy.cu). Both entries run: the
 * one-thread-per-element kernel and the grid-stride kernel on a grid that
 * covers a quarter of the elements per pass.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_saxpy;

static int saxpy_run(struct vgpu_device *dev, const struct workload_args *args,
		     struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[2] = { (uint64_t)n * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	float a = 1.5f, b = -0.75f;
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	float *x, *y;
	int ret;

	ret = workload_size_check(&workload_saxpy, args->size, msg, msglen);
	if (ret)
		return ret;
	x = malloc((size_t)n * 4);
	y = malloc((size_t)n * 4);
	if (!x || !y) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out_host;
	}
	ret = workload_open(&w, dev, "saxpy", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		x[i] = workload_randf(&seed);
		y[i] = workload_randf(&seed);
	}
	ret = workload_htod(&w, d[0], x, (size_t)n * 4);
	if (!ret)
		ret = workload_htod(&w, d[1], y, (size_t)n * 4);
	if (!ret)
		ret = workload_go(&w, "saxpy", (n + 255) / 256, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&n, &a, &d[0], &d[1]));
	/* the grid-stride kernel: a grid over a quarter of the elements */
	if (!ret)
		ret = workload_go(&w, "saxpy_stride", (n + 1023) / 1024, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&n, &b, &d[0], &d[1]));
	if (!ret)
		ret = workload_dtoh(&w, y, d[1], (size_t)n * 4);
	if (ret)
		goto out;

	/* The reference does what fma.rn.f32 does, so results are bit-exact. */
	seed = args->seed;
	for (uint32_t i = 0; i < n; i++) {
		float xi = workload_randf(&seed);
		float yi = workload_randf(&seed);
		float want = fmaf(b, xi, fmaf(a, xi, yi));

		if (memcmp(&want, &y[i], sizeof(want)) != 0) {
			snprintf(msg, msglen, "y[%u] = %a, expected %a", i,
				 (double)y[i], (double)want);
			ret = -EBADMSG;
			break;
		}
	}
out:
	workload_close(&w);
out_host:
	free(x);
	free(y);
	return ret;
}

const struct vgpu_workload workload_saxpy = {
	.name = "saxpy",
	.paper = "CUDA SDK / BLAS saxpy (streaming, as the papers' MEM kernels)",
	.cls = "MEM",
	.kernels = "saxpy saxpy_stride",
	.small_size = 4096,
	.medium_size = 524288,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.max_size = UINT32_MAX / 4,
	.limits = (const struct vgpu_workload_limit[]){
		{ "saxpy", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "saxpy_stride", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = saxpy_run,
};
