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

static int stencil3d_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t nx = (uint32_t)args->size, ny = nx;
	uint64_t cells = (uint64_t)nx * ny * NZ, b = cells * 4;
	uint64_t sizes[2] = { b, b };
	uint64_t seed = args->seed;
	const float c0 = 0.5f, c1 = 1.0f / 12.0f;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	struct vgpu_params p;
	float *ref;
	uint32_t entry;
	int ret, cur = 0;

	if (nx == 0 || nx > 2048) {
		snprintf(msg, msglen, "size (grid side, 16 planes) must be 1 ... 2048");
		return -EINVAL;
	}
	ret = workload_load(dev, "stencil3d", "stencil3d", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	ref = malloc(b * 2);
	if (!ref) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	for (uint64_t i = 0; i < cells; i++)
		ref[i] = ((float *)bo[0]->map)[i] = workload_randf(&seed);
	for (int s = 0; s < STEPS; s++, cur ^= 1) {
		struct vgpu_bo *x[2] = { bo[cur], bo[cur ^ 1] };

		vgpu_params_init(&p);
		vgpu_params_ptr(&p, x[0]);
		vgpu_params_ptr(&p, x[1]);
		vgpu_params_u32(&p, nx);
		vgpu_params_u32(&p, ny);
		vgpu_params_u32(&p, NZ);
		vgpu_params_f32(&p, c0);
		vgpu_params_f32(&p, c1);
		ret = workload_go(dev, prog, "stencil3d", (nx + 31) / 32, (ny + 3) / 4, 32, 4,
				  0, &p, x, 2, res, msg, msglen);
		if (ret)
			goto out_ref;
		ref_step(ref + cur * cells, ref + (cur ^ 1) * cells, nx, ny, NZ, c0, c1);
	}
	ret = workload_cmp_f32("grid", bo[cur]->map, ref + cur * cells, cells, msg, msglen);
out_ref:
	free(ref);
out_bo:
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = stencil3d_run,
};
