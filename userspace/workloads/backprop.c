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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_backprop;

static int backprop_run(struct vgpu_device *dev, const struct workload_args *args,
			struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, blocks = (n + H - 1) / H;
	uint64_t wb = (uint64_t)n * H * 4;
	/* in, w, partial, delta, olddw */
	uint64_t sizes[5] = { (uint64_t)n * 4, wb, (uint64_t)blocks * H * 4, H * 4, wb };
	uint64_t seed = args->seed;
	float eta = 0.3f, momentum = 0.3f;
	struct workload_ctx w;
	vgpu_deviceptr d[5];
	float *in, delta[H], *ref, *part;
	int ret;

	ret = workload_size_check(&workload_backprop, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc((size_t)n * 4);
	ref = malloc(wb * 2 + (size_t)blocks * H * 4);
	if (!in || !ref) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	part = ref + 2 * (size_t)n * H;
	ret = workload_open(&w, dev, "backprop", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 5);
	if (ret)
		goto out;
	/* ref: the weights, then the previous changes (olddw) */
	for (uint32_t i = 0; i < n; i++)
		in[i] = 0.5f + 0.5f * workload_randf(&seed);
	for (uint64_t i = 0; i < (uint64_t)n * H; i++) {
		ref[i] = 0.1f * workload_randf(&seed);
		ref[(size_t)n * H + i] = 0.01f * workload_randf(&seed);
	}
	ret = workload_htod(&w, d[0], in, (size_t)n * 4);
	if (!ret)
		ret = workload_htod(&w, d[1], ref, wb);
	if (!ret)
		ret = workload_htod(&w, d[4], ref + (size_t)n * H, wb);
	if (!ret)
		ret = workload_go(&w, "bp_forward", blocks, 1, H, H, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n));
	if (ret)
		goto out;
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
	ret = workload_check_f32(&w, "partial", d[2], part, (size_t)blocks * H);
	if (ret)
		goto out;
	/* Hidden outputs, and deltas against a fixed target of 0.25. */
	for (int j = 0; j < H; j++) {
		float sum = 0.0f, o;

		for (uint32_t b = 0; b < blocks; b++)
			sum += part[b * H + j];
		o = sum / (1.0f + fabsf(sum));
		delta[j] = (0.25f - o) * (1.0f - fabsf(o)) * (1.0f - fabsf(o));
	}
	ret = workload_htod(&w, d[3], delta, sizeof(delta));
	/* 16 x 16 threads: 16 inputs by 16 hidden units per block. */
	if (!ret)
		ret = workload_go(&w, "bp_adjust", blocks, 1, H, H, 0,
				  WORKLOAD_ARGS(&d[0], &d[3], &d[1], &d[4], &n, &eta, &momentum));
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		for (int j = 0; j < H; j++) {
			size_t idx = (size_t)i * H + j;
			float dw = fmaf(eta * delta[j], in[i], momentum * ref[(size_t)n * H + idx]);

			ref[idx] = ref[idx] + dw;
			ref[(size_t)n * H + idx] = dw;
		}
	ret = workload_check_f32(&w, "w", d[1], ref, (size_t)n * H);
	if (!ret)
		ret = workload_check_f32(&w, "olddw", d[4], ref + (size_t)n * H, (size_t)n * H);
out:
	workload_close(&w);
out_host:
	free(in);
	free(ref);
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
	.max_size = 1u << 22,
	.limits = (const struct vgpu_workload_limit[]){
		{ "bp_forward", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "bp_adjust", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = backprop_run,
};
