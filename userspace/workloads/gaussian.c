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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_gaussian;

static int gaussian_run(struct vgpu_device *dev, const struct workload_args *args,
			struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, side = n + 1;
	uint64_t sizes[2] = { (uint64_t)n * side * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	float *ref, *m;
	int ret;

	ret = workload_size_check(&workload_gaussian, args->size, msg, msglen);
	if (ret)
		return ret;
	ref = malloc(sizes[0] + sizes[1]);
	if (!ref) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "gaussian", res, msg, msglen);
	if (ret)
		goto out_ref;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	m = ref + (size_t)n * side;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < side; j++)
			ref[i * side + j] = workload_randf(&seed) + (i == j ? (float)n : 0.0f);
	memset(m, 0, sizes[1]);
	ret = workload_htod(&w, d[0], ref, sizes[0]);
	if (!ret)
		ret = workload_htod(&w, d[1], m, sizes[1]);
	for (uint32_t t = 0; t + 1 < n && !ret; t++) {
		uint32_t rows = n - t - 1;

		ret = workload_go(&w, "gauss_fan1", (rows + 127) / 128, 1, 128, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &n, &t));
		if (!ret)
			ret = workload_go(&w, "gauss_fan2", (side - t + 15) / 16, (rows + 15) / 16,
					  16, 16, 0, WORKLOAD_ARGS(&d[0], &d[1], &n, &t));
		for (uint32_t i = t + 1; i < n; i++)
			m[i] = ref[i * side + t] / ref[t * side + t];
		for (uint32_t i = t + 1; i < n; i++) {
			ref[i * side + t] = 0.0f;
			for (uint32_t j = t + 1; j < side; j++)
				ref[i * side + j] = fmaf(-m[i], ref[t * side + j], ref[i * side + j]);
		}
	}
	if (!ret)
		ret = workload_check_f32(&w, "a", d[0], ref, (size_t)n * side);
	if (!ret)
		ret = workload_check_f32(&w, "m", d[1], m, n);
out:
	workload_close(&w);
out_ref:
	free(ref);
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
	.min_size = 2,
	.max_size = 4096,
	.limits = (const struct vgpu_workload_limit[]){
		{ "gauss_fan1", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_THREADS, LIM_THREADS } },
		{ "gauss_fan2", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = gaussian_run,
};
