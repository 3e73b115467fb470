// SPDX-License-Identifier: MIT
/*
 * stencil3d: 2 Jacobi sweeps of the 7-point stencil over a size x size x
 * 16 float grid (stencil3d.cu), ping-ponging two grids. The reference sums
 * the neighbours in the kernel's order and finishes with the same fmaf:
 * bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define STEPS 2
#define NZ 16

static void ref_step(const float *in, float *out, uint32_t nx, uint32_t ny, uint32_t nz,
		     float c0, float c1)
{
	uint32_t plane = nx * ny;

	for (uint32_t z = 0; z < nz; z++)
		for (uint32_t y = 0; y < ny; y++)
			for (uint32_t x = 0; x < nx; x++) {
				uint32_t i = z * plane + y * nx + x;
				float s;

				if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 ||
				    z == nz - 1) {
					out[i] = in[i];
					continue;
				}
				s = in[i - 1] + in[i + 1];
				s = s + in[i - nx];
				s = s + in[i + nx];
				s = s + in[i - plane];
				s = s + in[i + plane];
				out[i] = fmaf(s, c1, -c0 * in[i]);
			}
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_stencil3d;

static int stencil3d_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t nx = (uint32_t)args->size, ny = nx, nz = NZ;
	uint64_t cells = (uint64_t)nx * ny * NZ, b = cells * 4;
	uint64_t sizes[2] = { b, b };
	uint64_t seed = args->seed;
	float c0 = 0.5f, c1 = 1.0f / 12.0f;
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	float *ref;
	int ret, cur = 0;

	ret = workload_size_check(&workload_stencil3d, args->size, msg, msglen);
	if (ret)
		return ret;
	ref = malloc(b * 2);
	if (!ref) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "stencil3d", res, msg, msglen);
	if (ret)
		goto out_ref;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	for (uint64_t i = 0; i < cells; i++)
		ref[i] = workload_randf(&seed);
	ret = workload_htod(&w, d[0], ref, b);
	for (int s = 0; s < STEPS && !ret; s++, cur ^= 1) {
		ret = workload_go(&w, "stencil3d", (nx + 31) / 32, (ny + 3) / 4, 32, 4, 0,
				  WORKLOAD_ARGS(&d[cur], &d[cur ^ 1], &nx, &ny, &nz, &c0, &c1));
		if (!ret)
			ref_step(ref + cur * cells, ref + (cur ^ 1) * cells, nx, ny, NZ, c0, c1);
	}
	if (!ret)
		ret = workload_check_f32(&w, "grid", d[cur], ref + cur * cells, cells);
out:
	workload_close(&w);
out_ref:
	free(ref);
	return ret;
}

const struct vgpu_workload workload_stencil3d = {
	.name = "stencil3d",
	.paper = "Parboil stencil (ST)",
	.cls = "MEM",
	.kernels = "stencil3d (x2 sweeps)",
	.small_size = 24,
	.medium_size = 128,
	.default_size = 256,
	.large_size = 512,
	.size_unit = "grid side (16 planes)",
	.max_size = 2048,
	.limits = (const struct vgpu_workload_limit[]){
		{ "stencil3d", { LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = stencil3d_run,
};
