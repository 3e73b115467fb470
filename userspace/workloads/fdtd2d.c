// SPDX-License-Identifier: MIT
/*
 * fdtd2d: 4 time steps of 2D FDTD on a size x size grid (fdtd2d.cu),
 * fdtd_ey, fdtd_ex, fdtd_hz per step (12 launches). The reference repeats
 * the kernels' operations: ex, ey and hz are bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define STEPS 4

static int fdtd2d_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t nx = (uint32_t)args->size, ny = nx + 5;
	uint64_t cells = (uint64_t)nx * ny, b = cells * 4;
	uint64_t sizes[3] = { b, b, b };
	uint64_t seed = args->seed;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];	/* ex, ey, hz */
	struct vgpu_params p;
	float *ref, *ex, *ey, *hz;
	uint32_t entry, gx = (ny + 31) / 32, gy = (nx + 7) / 8;
	int ret;

	if (nx < 2 || nx > 8192) {
		snprintf(msg, msglen, "size (rows; columns = rows + 5) must be 2 ... 8192");
		return -EINVAL;
	}
	ret = workload_load(dev, "fdtd2d", "fdtd_ey", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 3, msg, msglen);
	if (ret)
		goto out_prog;
	ref = malloc(b * 3);
	if (!ref) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	ex = ref;
	ey = ref + cells;
	hz = ref + 2 * cells;
	for (int f = 0; f < 3; f++)
		for (uint64_t i = 0; i < cells; i++)
			ref[f * cells + i] = ((float *)bo[f]->map)[i] = workload_randf(&seed);
	for (int t = 0; t < STEPS && !ret; t++) {
		float src = (float)t;
		struct vgpu_bo *x[3] = { bo[1], bo[2] };

		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_ptr(&p, bo[2]);
		vgpu_params_u32(&p, nx);
		vgpu_params_u32(&p, ny);
		vgpu_params_f32(&p, src);
		ret = workload_go(dev, prog, "fdtd_ey", gx, gy, 32, 8, 0, &p, x, 2, res, msg, msglen);
		if (ret)
			break;
		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[2]);
		vgpu_params_u32(&p, nx);
		vgpu_params_u32(&p, ny);
		x[0] = bo[0];
		ret = workload_go(dev, prog, "fdtd_ex", gx, gy, 32, 8, 0, &p, x, 2, res, msg, msglen);
		if (ret)
			break;
		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[2]);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_u32(&p, nx);
		vgpu_params_u32(&p, ny);
		ret = workload_go(dev, prog, "fdtd_hz", gx, gy, 32, 8, 0, &p, bo, 3, res, msg, msglen);
		if (ret)
			break;
		for (uint32_t j = 0; j < ny; j++)
			ey[j] = src;
		for (uint32_t i = 1; i < nx; i++)
			for (uint32_t j = 0; j < ny; j++)
				ey[i * ny + j] = fmaf(-0.5f, hz[i * ny + j] - hz[(i - 1) * ny + j],
						      ey[i * ny + j]);
		for (uint32_t i = 0; i < nx; i++)
			for (uint32_t j = 1; j < ny; j++)
				ex[i * ny + j] = fmaf(-0.5f, hz[i * ny + j] - hz[i * ny + j - 1],
						      ex[i * ny + j]);
		for (uint32_t i = 0; i + 1 < nx; i++)
			for (uint32_t j = 0; j + 1 < ny; j++) {
				float d = ex[i * ny + j + 1] - ex[i * ny + j];

				d = d + ey[(i + 1) * ny + j];
				d = d - ey[i * ny + j];
				hz[i * ny + j] = fmaf(-0.7f, d, hz[i * ny + j]);
			}
	}
	if (!ret)
		ret = workload_cmp_f32("ex", bo[0]->map, ex, cells, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("ey", bo[1]->map, ey, cells, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("hz", bo[2]->map, hz, cells, msg, msglen);
	free(ref);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_fdtd2d = {
	.name = "fdtd2d",
	.paper = "FDTD (CUDA SDK FDTD3d; PolyBench fdtd-2d, FD)",
	.cls = "MEM",
	.kernels = "fdtd_ey fdtd_ex fdtd_hz (x4 steps)",
	.small_size = 40,
	.medium_size = 256,
	.default_size = 512,
	.large_size = 2048,
	.size_unit = "rows (columns = rows + 5)",
	.run = fdtd2d_run,
};
