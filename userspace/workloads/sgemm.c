// SPDX-License-Identifier: MIT
/*
 * sgemm: C = A B for n x n float matrices (n a multiple of 16), with the
 * shared-memory tiled kernel and the naive kernel (sgemm.cu). Both, and the
 * reference, accumulate fmaf(a[r][p], b[p][c], acc) for p = 0 ... n-1:
 * bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_sgemm;

static int sgemm_run(struct vgpu_device *dev, const struct workload_args *args,
		     struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t bytes = (uint64_t)n * n * 4;
	uint64_t sizes[3] = { bytes, bytes, bytes };
	uint64_t seed = args->seed;
	static const char *const entries[2] = { "sgemm_tiled", "sgemm_naive" };
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	float *a, *b, *want;
	int ret;

	ret = workload_size_check(&workload_sgemm, args->size, msg, msglen);
	if (ret)
		return ret;
	a = malloc(bytes);
	b = malloc(bytes);
	want = malloc(bytes);
	if (!a || !b || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "sgemm", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	for (uint64_t i = 0; i < (uint64_t)n * n; i++) {
		a[i] = workload_randf(&seed);
		b[i] = workload_randf(&seed);
	}
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++) {
			float acc = 0.0f;

			for (uint32_t k = 0; k < n; k++)
				acc = fmaf(a[r * n + k], b[k * n + c], acc);
			want[r * n + c] = acc;
		}
	ret = workload_htod(&w, d[0], a, bytes);
	if (!ret)
		ret = workload_htod(&w, d[1], b, bytes);
	for (int k = 0; k < 2 && !ret; k++) {
		ret = workload_memset(&w, d[2], 0, bytes);
		if (!ret)
			ret = workload_go(&w, entries[k], n / 16, n / 16, 16, 16, 0,
					  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n, &n, &n));
		if (!ret)
			ret = workload_check_f32(&w, entries[k], d[2], want, (size_t)n * n);
	}
out:
	workload_close(&w);
out_host:
	free(a);
	free(b);
	free(want);
	return ret;
}

const struct vgpu_workload workload_sgemm = {
	.name = "sgemm",
	.paper = "Parboil sgemm / CUDA SDK matrixMul (MM)",
	.cls = "COM",
	.kernels = "sgemm_tiled sgemm_naive",
	.small_size = 32,
	.medium_size = 128,
	.default_size = 256,
	.large_size = 1024,
	.size_unit = "matrix order (x16)",
	.size_step = 16,
	.max_size = 4096,
	.limits = (const struct vgpu_workload_limit[]){
		{ "sgemm_tiled", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "sgemm_naive", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = sgemm_run,
};
