// SPDX-License-Identifier: MIT
/*
 * gaussian: forward elimination of an n x (n + 1) diagonally dominant
 * augmented float matrix (gaussian.cu): gauss_fan1 and gauss_fan2 for each
 * pivot, 2 (n - 1) launches. The reduced matrix (upper triangle, zeros
 * below) and the last multipliers must equal the CPU's, bit for bit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static int gaussian_run(struct vgpu_device *dev, const struct workload_args *args,
			struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, w = n + 1;
	uint64_t sizes[2] = { (uint64_t)n * w * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	struct vgpu_params p;
	float *a, *ref, *m;
	uint32_t entry;
	int ret;

	if (n < 2 || n > 4096) {
		snprintf(msg, msglen, "size (matrix order) must be 2 ... 4096");
		return -EINVAL;
	}
	ret = workload_load(dev, "gaussian", "gauss_fan1", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	ref = malloc(sizes[0] + sizes[1]);
	if (!ref) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	m = ref + (size_t)n * w;
	a = bo[0]->map;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < w; j++)
			a[i * w + j] = workload_randf(&seed) + (i == j ? (float)n : 0.0f);
	memcpy(ref, a, sizes[0]);
	memset(m, 0, sizes[1]);
	for (uint32_t t = 0; t + 1 < n && !ret; t++) {
		uint32_t rows = n - t - 1;

		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_u32(&p, n);
		vgpu_params_u32(&p, t);
		ret = workload_go(dev, prog, "gauss_fan1", (rows + 127) / 128, 1, 128, 1, 0, &p,
				  bo, 2, res, msg, msglen);
		if (!ret)
			ret = workload_go(dev, prog, "gauss_fan2", (w - t + 15) / 16,
					  (rows + 15) / 16, 16, 16, 0, &p, bo, 2, res, msg, msglen);
		for (uint32_t i = t + 1; i < n; i++)
			m[i] = ref[i * w + t] / ref[t * w + t];
		for (uint32_t i = t + 1; i < n; i++) {
			ref[i * w + t] = 0.0f;
			for (uint32_t j = t + 1; j < w; j++)
				ref[i * w + j] = fmaf(-m[i], ref[t * w + j], ref[i * w + j]);
		}
	}
	if (!ret)
		ret = workload_cmp_f32("a", a, ref, (size_t)n * w, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("m", bo[1]->map, m, n, msg, msglen);
	free(ref);
out_bo:
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_gaussian = {
	.name = "gaussian",
	.paper = "Rodinia gaussian (GA)",
	.cls = "MEM",
	.kernels = "gauss_fan1 gauss_fan2 (per pivot)",
	.small_size = 24,
	.medium_size = 64,
	.default_size = 256,
	.large_size = 1024,
	.size_unit = "matrix order",
	.run = gaussian_run,
};
