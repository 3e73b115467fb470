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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_hotspot;

static int hotspot_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t side = (uint32_t)args->size;
	uint64_t b = (uint64_t)side * side * 4;
	uint64_t sizes[3] = { b, b, b };
	uint64_t seed = args->seed;
	float cap = 0.5f, rx = 0.1f, ry = 0.1f, rz = 0.0125f, amb = 80.0f;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	float *ref;
	int ret, cur = 0;

	ret = workload_size_check(&workload_hotspot, args->size, msg, msglen);
	if (ret)
		return ret;
	ref = malloc(b * 3);
	if (!ref) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "hotspot", res, msg, msglen);
	if (ret)
		goto out_ref;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	/* d 0, 1: temperature (ping-pong), 2: power; ref alike. */
	for (uint32_t i = 0; i < side * side; i++) {
		ref[i] = 80.0f + 10.0f * workload_randf(&seed);
		ref[2 * (size_t)side * side + i] = 0.5f + 0.5f * workload_randf(&seed);
	}
	ret = workload_htod(&w, d[0], ref, b);
	if (!ret)
		ret = workload_htod(&w, d[2], ref + 2 * (size_t)side * side, b);
	for (int s = 0; s < STEPS && !ret; s++, cur ^= 1) {
		ret = workload_go(&w, "hotspot", (side + 15) / 16, (side + 15) / 16, 16, 16, 0,
				  WORKLOAD_ARGS(&d[cur], &d[2], &d[cur ^ 1], &side, &side, &cap,
						&rx, &ry, &rz, &amb));
		if (!ret)
			ref_step(ref + (size_t)cur * side * side, ref + 2 * (size_t)side * side,
				 ref + (size_t)(cur ^ 1) * side * side, side, side, cap, rx, ry,
				 rz, amb);
	}
	if (!ret)
		ret = workload_check_f32(&w, "temp", d[cur], ref + (size_t)cur * side * side,
					 (size_t)side * side);
out:
	workload_close(&w);
out_ref:
	free(ref);
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
	.max_size = 8192,
	.limits = (const struct vgpu_workload_limit[]){
		{ "hotspot", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = hotspot_run,
};
