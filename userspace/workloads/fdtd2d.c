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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_fdtd2d;

static int fdtd2d_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t nx = (uint32_t)args->size, ny = nx + 5;
	uint64_t cells = (uint64_t)nx * ny, b = cells * 4;
	uint64_t sizes[3] = { b, b, b };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[3];	/* ex, ey, hz */
	float *ref, *ex, *ey, *hz;
	uint32_t gx = (ny + 31) / 32, gy = (nx + 7) / 8;
	int ret;

	ret = workload_size_check(&workload_fdtd2d, args->size, msg, msglen);
	if (ret)
		return ret;
	ref = malloc(b * 3);
	if (!ref) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "fdtd2d", res, msg, msglen);
	if (ret)
		goto out_ref;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	ex = ref;
	ey = ref + cells;
	hz = ref + 2 * cells;
	for (int f = 0; f < 3; f++)
		for (uint64_t i = 0; i < cells; i++)
			ref[f * cells + i] = workload_randf(&seed);
	for (int f = 0; f < 3 && !ret; f++)
		ret = workload_htod(&w, d[f], ref + f * cells, b);
	for (int t = 0; t < STEPS && !ret; t++) {
		float src = (float)t;

		ret = workload_go(&w, "fdtd_ey", gx, gy, 32, 8, 0,
				  WORKLOAD_ARGS(&d[1], &d[2], &nx, &ny, &src));
		if (!ret)
			ret = workload_go(&w, "fdtd_ex", gx, gy, 32, 8, 0,
					  WORKLOAD_ARGS(&d[0], &d[2], &nx, &ny));
		if (!ret)
			ret = workload_go(&w, "fdtd_hz", gx, gy, 32, 8, 0,
					  WORKLOAD_ARGS(&d[2], &d[0], &d[1], &nx, &ny));
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
				float dz = ex[i * ny + j + 1] - ex[i * ny + j];

				dz = dz + ey[(i + 1) * ny + j];
				dz = dz - ey[i * ny + j];
				hz[i * ny + j] = fmaf(-0.7f, dz, hz[i * ny + j]);
			}
	}
	if (!ret)
		ret = workload_check_f32(&w, "ex", d[0], ex, cells);
	if (!ret)
		ret = workload_check_f32(&w, "ey", d[1], ey, cells);
	if (!ret)
		ret = workload_check_f32(&w, "hz", d[2], hz, cells);
out:
	workload_close(&w);
out_ref:
	free(ref);
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
	.min_size = 2,
	.max_size = 8192,
	.limits = (const struct vgpu_workload_limit[]){
		{ "fdtd_ey", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "fdtd_ex", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "fdtd_hz", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = fdtd2d_run,
};
