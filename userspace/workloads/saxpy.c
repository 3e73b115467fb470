// SPDX-License-Identifier: MIT
/*
 * saxpy: y = a * x + y over n floats (saxpy.cu). Both entries run: the
 * one-thread-per-element kernel and the grid-stride kernel on a grid that
 * covers a quarter of the elements per pass.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workload.h"

static float rand_float(uint64_t *s)
{
	/* Uniform in [-1, 1) on a 2^-23 grid: exactly representable. */
	return (float)((int32_t)(workload_rand(s) >> 40) - (1 << 23)) / (float)(1 << 23);
}

static int saxpy_pass(struct vgpu_device *dev, struct vgpu_program *prog,
		      const char *entry, uint32_t grid, struct vgpu_bo **bo,
		      uint32_t n, float a, struct workload_result *res,
		      char *msg, size_t msglen)
{
	struct vgpu_params p;
	struct vgpu_launch l = {
		.grid = { grid, 1, 1 },
		.block = { 256, 1, 1 },
		.params = &p,
		.bos = bo,
		.num_bos = 2,
	};
	int ret = vgpu_program_find_entry(prog, entry, &l.entry);

	if (ret) {
		snprintf(msg, msglen, "saxpy.ptx has no entry '%s'", entry);
		return ret;
	}
	vgpu_params_init(&p);
	vgpu_params_u32(&p, n);
	vgpu_params_f32(&p, a);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[1]);
	return workload_launch(dev, prog, &l, res, msg, msglen);
}

static int saxpy_run(struct vgpu_device *dev, const struct workload_args *args,
		     struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[2] = { (uint64_t)n * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	const float a = 1.5f, b = -0.75f;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	float *x, *y;
	uint32_t entry;
	int ret;

	if (args->size == 0 || args->size > UINT32_MAX / 4) {
		snprintf(msg, msglen, "size must be 1 ... %u", UINT32_MAX / 4);
		return -EINVAL;
	}
	ret = workload_load(dev, "saxpy", "saxpy", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	x = bo[0]->map;
	y = bo[1]->map;
	for (uint32_t i = 0; i < n; i++) {
		x[i] = rand_float(&seed);
		y[i] = rand_float(&seed);
	}
	ret = saxpy_pass(dev, prog, "saxpy", (n + 255) / 256, bo, n, a, res, msg, msglen);
	if (ret)
		goto out_bo;
	ret = saxpy_pass(dev, prog, "saxpy_stride", (n + 1023) / 1024, bo, n, b,
			 res, msg, msglen);
	if (ret)
		goto out_bo;

	/* The reference does what fma.rn.f32 does, so results are bit-exact. */
	seed = args->seed;
	for (uint32_t i = 0; i < n; i++) {
		float xi = rand_float(&seed);
		float yi = rand_float(&seed);
		float want = fmaf(b, xi, fmaf(a, xi, yi));

		if (memcmp(&want, &y[i], sizeof(want)) != 0) {
			snprintf(msg, msglen, "y[%u] = %a, expected %a", i,
				 (double)y[i], (double)want);
			ret = -EBADMSG;
			break;
		}
	}
out_bo:
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = saxpy_run,
};
