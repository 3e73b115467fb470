// SPDX-License-Identifier: MIT
/*
 * nbody: 2 time steps of n bodies (n a multiple of 64), all pairs, tiles
 * of 64 bodies in dynamic shared memory (nbody.cu). The reference repeats
 * the kernel's operations in its order (fmaf, IEEE sqrt and division):
 * positions and velocities are bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define STEPS 2
#define TB 64

static void ref_step(const float *pos, const float *vel, float *npos, float *nvel,
		     uint32_t n, float dt, float eps2)
{
	for (uint32_t i = 0; i < n; i++) {
		const float *p = &pos[4 * i];
		float ax = 0.0f, ay = 0.0f, az = 0.0f;

		for (uint32_t j = 0; j < n; j++) {
			const float *q = &pos[4 * j];
			float dx = q[0] - p[0], dy = q[1] - p[1], dz = q[2] - p[2];
			float d2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
			float inv = q[3] / (d2 * sqrtf(d2));

			ax = fmaf(dx, inv, ax);
			ay = fmaf(dy, inv, ay);
			az = fmaf(dz, inv, az);
		}
		float vx = fmaf(ax, dt, vel[4 * i]);
		float vy = fmaf(ay, dt, vel[4 * i + 1]);
		float vz = fmaf(az, dt, vel[4 * i + 2]);

		nvel[4 * i] = vx;
		nvel[4 * i + 1] = vy;
		nvel[4 * i + 2] = vz;
		nvel[4 * i + 3] = vel[4 * i + 3];
		npos[4 * i] = fmaf(vx, dt, p[0]);
		npos[4 * i + 1] = fmaf(vy, dt, p[1]);
		npos[4 * i + 2] = fmaf(vz, dt, p[2]);
		npos[4 * i + 3] = p[3];
	}
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_nbody;

static int nbody_run(struct vgpu_device *dev, const struct workload_args *args,
		     struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t b = (uint64_t)n * 16;
	uint64_t sizes[4] = { b, b, b, b };
	uint64_t seed = args->seed;
	float dt = 0.01f, eps2 = 0.01f;
	struct workload_ctx w;
	vgpu_deviceptr d[4];
	float *ref[4];
	int ret, cur = 0;

	ret = workload_size_check(&workload_nbody, args->size, msg, msglen);
	if (ret)
		return ret;
	ref[0] = malloc(b * 4);
	if (!ref[0]) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 1; i < 4; i++)
		ref[i] = ref[0] + (size_t)i * n * 4;
	ret = workload_open(&w, dev, "nbody", res, msg, msglen);
	if (ret)
		goto out_ref;
	ret = workload_alloc(&w, d, sizes, 4);
	if (ret)
		goto out;
	/* d/ref 0: pos, 1: vel (current); 2, 3: next. */
	for (uint32_t i = 0; i < n; i++) {
		float *ps = ref[0] + 4 * i, *vl = ref[1] + 4 * i;

		for (int c = 0; c < 3; c++) {
			ps[c] = 10.0f * workload_randf(&seed);
			vl[c] = workload_randf(&seed);
		}
		ps[3] = 1.0f + 0.5f * workload_randf(&seed);	/* mass */
		vl[3] = 0.0f;
	}
	ret = workload_htod(&w, d[0], ref[0], b);
	if (!ret)
		ret = workload_htod(&w, d[1], ref[1], b);
	for (int s = 0; s < STEPS && !ret; s++, cur ^= 2) {
		ret = workload_go(&w, "nbody_step", n / TB, 1, TB, 1, TB * 16,
				  WORKLOAD_ARGS(&d[cur], &d[cur + 1], &d[cur ^ 2],
						&d[(cur ^ 2) + 1], &n, &dt, &eps2));
		if (!ret)
			ref_step(ref[cur], ref[cur + 1], ref[cur ^ 2], ref[(cur ^ 2) + 1], n, dt,
				 eps2);
	}
	if (!ret)
		ret = workload_check_f32(&w, "pos", d[cur], ref[cur], (size_t)n * 4);
	if (!ret)
		ret = workload_check_f32(&w, "vel", d[cur + 1], ref[cur + 1], (size_t)n * 4);
out:
	workload_close(&w);
out_ref:
	free(ref[0]);
	return ret;
}

const struct vgpu_workload workload_nbody = {
	.name = "nbody",
	.paper = "CUDA SDK nbody",
	.cls = "COM",
	.kernels = "nbody_step (x2 steps)",
	.small_size = 128,
	.medium_size = 256,
	.default_size = 4096,
	.large_size = 16384,
	.size_unit = "bodies (x64)",
	.size_step = TB,
	.max_size = 1u << 20,
	.limits = (const struct vgpu_workload_limit[]){
		{ "nbody_step", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = nbody_run,
};
