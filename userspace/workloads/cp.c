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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_cp;

static int cp_run(struct vgpu_device *dev, const struct workload_args *args,
		  struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t side = (uint32_t)args->size, natoms = side < 64 ? 4 * side : 256;
	uint64_t sizes[2] = { (uint64_t)natoms * 16, (uint64_t)side * side * 4 };
	uint64_t seed = args->seed;
	float h = 0.5f;
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	float *atoms, *e, *want;
	int ret;

	ret = workload_size_check(&workload_cp, args->size, msg, msglen);
	if (ret)
		return ret;
	atoms = malloc(sizes[0]);
	e = malloc(sizes[1]);
	want = malloc(sizes[1]);
	if (!atoms || !e || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "cp", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	for (uint32_t a = 0; a < natoms; a++) {
		float ext = (float)side * h * 0.5f;

		atoms[4 * a] = ext + ext * workload_randf(&seed);
		atoms[4 * a + 1] = ext + ext * workload_randf(&seed);
		atoms[4 * a + 2] = 1.0f + workload_randf(&seed) * 0.5f;	/* off the slice */
		atoms[4 * a + 3] = workload_randf(&seed);		/* charge */
	}
	for (uint32_t i = 0; i < side * side; i++)
		e[i] = workload_randf(&seed);
	for (uint32_t y = 0; y < side; y++)
		for (uint32_t x = 0; x < side; x++) {
			float px = (float)x * h, py = (float)y * h, s = 0.0f;

			for (uint32_t a = 0; a < natoms; a++) {
				float dx = px - atoms[4 * a], dy = py - atoms[4 * a + 1];
				float z = atoms[4 * a + 2];
				float r2 = fmaf(dx, dx, fmaf(dy, dy, z * z));

				s = s + atoms[4 * a + 3] / sqrtf(r2);
			}
			want[y * side + x] = e[y * side + x] + s;
		}
	ret = workload_htod(&w, d[0], atoms, sizes[0]);
	if (!ret)
		ret = workload_htod(&w, d[1], e, sizes[1]);
	if (!ret)
		ret = workload_go(&w, "cenergy", (side + 15) / 16, (side + 15) / 16, 16, 16, 0,
				  WORKLOAD_ARGS(&d[0], &natoms, &d[1], &side, &side, &h));
	if (!ret)
		ret = workload_check_f32(&w, "energy", d[1], want, (size_t)side * side);
out:
	workload_close(&w);
out_host:
	free(atoms);
	free(e);
	free(want);
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
	.max_size = 4096,
	.limits = (const struct vgpu_workload_limit[]){
		{ "cenergy", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = cp_run,
};
