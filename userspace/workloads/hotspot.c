// SPDX-License-Identifier: MIT
/*
 * hotspot: 4 time steps of the thermal model on a size x size grid
 * (hotspot.cu), ping-ponging two temperature buffers. The reference
 * repeats the kernel's operations (clamped neighbours, fmaf chain):
 * bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define STEPS 4

static void ref_step(const float *t, const float *pw, float *out, uint32_t w, uint32_t h,
		     float cap, float rx, float ry, float rz, float amb)
{
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			float c = t[y * w + x];
			float tn = y > 0 ? t[(y - 1) * w + x] : c;
			float ts = y < h - 1 ? t[(y + 1) * w + x] : c;
			float tw = x > 0 ? t[y * w + x - 1] : c;
			float te = x < w - 1 ? t[y * w + x + 1] : c;
			float c2 = c + c;
			float d = fmaf(amb - c, rz, pw[y * w + x]);

			d = fmaf((te + tw) - c2, rx, d);
			d = fmaf((tn + ts) - c2, ry, d);
			out[y * w + x] = fmaf(cap, d, c);
		}
}

static int hotspot_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t w = (uint32_t)args->size;
	uint64_t b = (uint64_t)w * w * 4;
	uint64_t sizes[3] = { b, b, b };
	uint64_t seed = args->seed;
	const float cap = 0.5f, rx = 0.1f, ry = 0.1f, rz = 0.0125f, amb = 80.0f;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];
	struct vgpu_params p;
	float *ref;
	uint32_t entry;
	int ret, cur = 0;

	if (w == 0 || w > 8192) {
		snprintf(msg, msglen, "size (grid side) must be 1 ... 8192");
		return -EINVAL;
	}
	ret = workload_load(dev, "hotspot", "hotspot", &prog, &entry, msg, msglen);
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
	/* bo 0, 1: temperature (ping-pong), 2: power. */
	for (uint32_t i = 0; i < w * w; i++) {
		((float *)bo[0]->map)[i] = 80.0f + 10.0f * workload_randf(&seed);
		((float *)bo[2]->map)[i] = 0.5f + 0.5f * workload_randf(&seed);
	}
	memcpy(ref, bo[0]->map, b);
	memcpy(ref + 2 * (size_t)w * w, bo[2]->map, b);
	for (int s = 0; s < STEPS; s++, cur ^= 1) {
		struct vgpu_bo *x[3] = { bo[cur], bo[2], bo[cur ^ 1] };

		vgpu_params_init(&p);
		for (int i = 0; i < 3; i++)
			vgpu_params_ptr(&p, x[i]);
		vgpu_params_u32(&p, w);
		vgpu_params_u32(&p, w);
		vgpu_params_f32(&p, cap);
		vgpu_params_f32(&p, rx);
		vgpu_params_f32(&p, ry);
		vgpu_params_f32(&p, rz);
		vgpu_params_f32(&p, amb);
		ret = workload_go(dev, prog, "hotspot", (w + 15) / 16, (w + 15) / 16, 16, 16,
				  0, &p, x, 3, res, msg, msglen);
		if (ret)
			goto out_ref;
		ref_step(ref + (size_t)cur * w * w, ref + 2 * (size_t)w * w,
			 ref + (size_t)(cur ^ 1) * w * w, w, w, cap, rx, ry, rz, amb);
	}
	ret = workload_cmp_f32("temp", bo[cur]->map, ref + (size_t)cur * w * w,
			       (size_t)w * w, msg, msglen);
out_ref:
	free(ref);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_hotspot = {
	.name = "hotspot",
	.paper = "Rodinia hotspot (HS)",
	.cls = "COM",
	.kernels = "hotspot (x4 steps)",
	.small_size = 40,
	.medium_size = 256,
	.default_size = 512,
	.large_size = 2048,
	.size_unit = "grid side",
	.run = hotspot_run,
};
