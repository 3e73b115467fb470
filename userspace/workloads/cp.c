// SPDX-License-Identifier: MIT
/*
 * cp: Coulombic potential of natoms = min(4 size, 256) atoms on a
 * size x size lattice slice, accumulated into energy[] which starts at a non-zero
 * value (cp.cu). The reference repeats the kernel's operations
 * (sqrt.rn, div.rn, fma.rn, add.rn in the same order): bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

static int cp_run(struct vgpu_device *dev, const struct workload_args *args,
		  struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t w = (uint32_t)args->size, natoms = w < 64 ? 4 * w : 256;
	uint64_t sizes[2] = { (uint64_t)natoms * 16, (uint64_t)w * w * 4 };
	uint64_t seed = args->seed;
	const float h = 0.5f;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	struct vgpu_params p;
	float *atoms, *e, *want;
	uint32_t entry;
	int ret;

	if (w == 0 || w > 4096) {
		snprintf(msg, msglen, "size (lattice side) must be 1 ... 4096");
		return -EINVAL;
	}
	ret = workload_load(dev, "cp", "cenergy", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc(sizes[1]);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	atoms = bo[0]->map;
	e = bo[1]->map;
	for (uint32_t a = 0; a < natoms; a++) {
		float ext = (float)w * h * 0.5f;

		atoms[4 * a] = ext + ext * workload_randf(&seed);
		atoms[4 * a + 1] = ext + ext * workload_randf(&seed);
		atoms[4 * a + 2] = 1.0f + workload_randf(&seed) * 0.5f;	/* off the slice */
		atoms[4 * a + 3] = workload_randf(&seed);		/* charge */
	}
	for (uint32_t i = 0; i < w * w; i++)
		e[i] = workload_randf(&seed);
	for (uint32_t y = 0; y < w; y++)
		for (uint32_t x = 0; x < w; x++) {
			float px = (float)x * h, py = (float)y * h, s = 0.0f;

			for (uint32_t a = 0; a < natoms; a++) {
				float dx = px - atoms[4 * a], dy = py - atoms[4 * a + 1];
				float z = atoms[4 * a + 2];
				float r2 = fmaf(dx, dx, fmaf(dy, dy, z * z));

				s = s + atoms[4 * a + 3] / sqrtf(r2);
			}
			want[y * w + x] = e[y * w + x] + s;
		}
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_u32(&p, natoms);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_u32(&p, w);
	vgpu_params_u32(&p, w);
	vgpu_params_f32(&p, h);
	ret = workload_go(dev, prog, "cenergy", (w + 15) / 16, (w + 15) / 16, 16, 16, 0,
			  &p, bo, 2, res, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("energy", e, want, (size_t)w * w, msg, msglen);
	free(want);
out_bo:
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_cp = {
	.name = "cp",
	.paper = "Parboil cp (Coulombic Potential, CP)",
	.cls = "COM",
	.kernels = "cenergy",
	.small_size = 48,
	.medium_size = 64,
	.default_size = 256,
	.large_size = 1024,
	.size_unit = "lattice side (<= 256 atoms)",
	.run = cp_run,
};
