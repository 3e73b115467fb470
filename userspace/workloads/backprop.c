// SPDX-License-Identifier: MIT
/*
 * backprop: forward pass and weight adjustment of an n-input, 16-hidden
 * layer (backprop.cu). bp_forward leaves per-block partial sums, which the
 * host adds (in block order) and squashes with x / (1 + |x|); the output
 * error gives the hidden deltas; bp_adjust updates the weights with
 * momentum. The reference repeats the kernels' tree order and fmaf: the
 * partial sums, weights and previous changes are bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define H 16

static int backprop_run(struct vgpu_device *dev, const struct workload_args *args,
			struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, blocks = (n + H - 1) / H;
	uint64_t wb = (uint64_t)n * H * 4;
	/* in, w, partial, delta, olddw */
	uint64_t sizes[5] = { (uint64_t)n * 4, wb, (uint64_t)blocks * H * 4, H * 4, wb };
	uint64_t seed = args->seed;
	const float eta = 0.3f, momentum = 0.3f;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[5], *x[4];
	struct vgpu_params p;
	float *in, *w, *delta, *ref, *part;
	uint32_t entry;
	int ret;

	if (n == 0 || n > (1u << 22)) {
		snprintf(msg, msglen, "size (inputs) must be 1 ... %u", 1u << 22);
		return -EINVAL;
	}
	ret = workload_load(dev, "backprop", "bp_forward", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 5, msg, msglen);
	if (ret)
		goto out_prog;
	ref = malloc(wb * 2 + (size_t)blocks * H * 4);
	if (!ref) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	part = ref + 2 * (size_t)n * H;
	in = bo[0]->map;
	w = bo[1]->map;
	delta = bo[3]->map;
	for (uint32_t i = 0; i < n; i++)
		in[i] = 0.5f + 0.5f * workload_randf(&seed);
	for (uint64_t i = 0; i < (uint64_t)n * H; i++) {
		w[i] = 0.1f * workload_randf(&seed);
		((float *)bo[4]->map)[i] = 0.01f * workload_randf(&seed);
	}
	memcpy(ref, w, wb);
	memcpy(ref + (size_t)n * H, bo[4]->map, wb);

	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_ptr(&p, bo[2]);
	vgpu_params_u32(&p, n);
	ret = workload_go(dev, prog, "bp_forward", blocks, 1, H, H, 0, &p, bo, 3, res,
			  msg, msglen);
	if (ret)
		goto out_ref;
	for (uint32_t b = 0; b < blocks; b++)
		for (int j = 0; j < H; j++) {
			float s[H];

			for (int t = 0; t < H; t++) {
				uint32_t i = b * H + t;

				s[t] = i < n ? ref[(size_t)i * H + j] * in[i] : 0.0f;
			}
			for (int st = 1; st < H; st *= 2)
				for (int t = 0; t < H; t += 2 * st)
					s[t] = s[t] + s[t + st];
			part[b * H + j] = s[0];
		}
	ret = workload_cmp_f32("partial", bo[2]->map, part, (size_t)blocks * H, msg, msglen);
	if (ret)
		goto out_ref;
	/* Hidden outputs, and deltas against a fixed target of 0.25. */
	for (int j = 0; j < H; j++) {
		float sum = 0.0f, o;

		for (uint32_t b = 0; b < blocks; b++)
			sum += part[b * H + j];
		o = sum / (1.0f + fabsf(sum));
		delta[j] = (0.25f - o) * (1.0f - fabsf(o)) * (1.0f - fabsf(o));
	}

	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[3]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_ptr(&p, bo[4]);
	vgpu_params_u32(&p, n);
	vgpu_params_f32(&p, eta);
	vgpu_params_f32(&p, momentum);
	x[0] = bo[0], x[1] = bo[3], x[2] = bo[1], x[3] = bo[4];
	/* 16 x 16 threads: 16 inputs by 16 hidden units per block. */
	ret = workload_go(dev, prog, "bp_adjust", blocks, 1, H, H, 0, &p, x, 4, res,
			  msg, msglen);
	if (ret)
		goto out_ref;
	for (uint32_t i = 0; i < n; i++)
		for (int j = 0; j < H; j++) {
			size_t idx = (size_t)i * H + j;
			float dw = fmaf(eta * delta[j], in[i], momentum * ref[(size_t)n * H + idx]);

			ref[idx] = ref[idx] + dw;
			ref[(size_t)n * H + idx] = dw;
		}
	ret = workload_cmp_f32("w", w, ref, (size_t)n * H, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("olddw", bo[4]->map, ref + (size_t)n * H, (size_t)n * H,
				       msg, msglen);
out_ref:
	free(ref);
out_bo:
	workload_free(bo, 5);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_backprop = {
	.name = "backprop",
	.paper = "Rodinia backprop (BP)",
	.cls = "COM",
	.kernels = "bp_forward bp_adjust",
	.small_size = 1024,
	.medium_size = 32768,
	.default_size = 1 << 16,
	.large_size = 1 << 20,
	.size_unit = "inputs (16 hidden units)",
	.run = backprop_run,
};
