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

static int sgemm_run(struct vgpu_device *dev, const struct workload_args *args,
		     struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t bytes = (uint64_t)n * n * 4;
	uint64_t sizes[3] = { bytes, bytes, bytes };
	uint64_t seed = args->seed;
	static const char *const entries[2] = { "sgemm_tiled", "sgemm_naive" };
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];
	struct vgpu_params p;
	float *a, *b, *want;
	uint32_t entry;
	int ret;

	if (n == 0 || n % 16 || n > 4096) {
		snprintf(msg, msglen, "size (matrix order) must be a multiple of 16, at most 4096");
		return -EINVAL;
	}
	ret = workload_load(dev, "sgemm", entries[0], &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 3, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc(bytes);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	a = bo[0]->map;
	b = bo[1]->map;
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
	for (int k = 0; k < 2 && !ret; k++) {
		memset(bo[2]->map, 0, bytes);
		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_ptr(&p, bo[2]);
		vgpu_params_u32(&p, n);
		vgpu_params_u32(&p, n);
		vgpu_params_u32(&p, n);
		ret = workload_go(dev, prog, entries[k], n / 16, n / 16, 16, 16, 0, &p,
				  bo, 3, res, msg, msglen);
		if (!ret)
			ret = workload_cmp_f32(entries[k], bo[2]->map, want,
					       (size_t)n * n, msg, msglen);
	}
	free(want);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = sgemm_run,
};
