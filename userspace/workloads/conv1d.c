// SPDX-License-Identifier: MIT
/*
 * conv1d: 17-tap 1D convolution of n floats (conv1d.cu), zero outside the
 * signal. The reference accumulates fmaf(w[k], in[i + k - 8], acc) for
 * k = 0 ... 16, as the kernel does: bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define R 8

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_conv1d;

static int conv1d_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[3] = { (uint64_t)n * 4, (2 * R + 1) * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	float in_w[2 * R + 1];
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	float *in, *want;
	int ret;

	ret = workload_size_check(&workload_conv1d, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc((size_t)n * 4);
	want = malloc((size_t)n * 4);
	if (!in || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "conv1d", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	for (int k = 0; k <= 2 * R; k++)
		in_w[k] = workload_randf(&seed);
	for (uint32_t i = 0; i < n; i++)
		in[i] = workload_randf(&seed);
	for (uint32_t i = 0; i < n; i++) {
		float acc = 0.0f;

		for (int k = 0; k <= 2 * R; k++) {
			int64_t j = (int64_t)i + k - R;

			acc = fmaf(in_w[k], j >= 0 && j < n ? in[j] : 0.0f, acc);
		}
		want[i] = acc;
	}
	ret = workload_htod(&w, d[0], in, (size_t)n * 4);
	if (!ret)
		ret = workload_htod(&w, d[1], in_w, sizeof(in_w));
	if (!ret)
		ret = workload_go(&w, "conv1d", (n + 255) / 256, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n));
	if (!ret)
		ret = workload_check_f32(&w, "out", d[2], want, n);
out:
	workload_close(&w);
out_host:
	free(in);
	free(want);
	return ret;
}

const struct vgpu_workload workload_conv1d = {
	.name = "conv1d",
	.paper = "CUDA SDK convolutionSeparable row pass (1D stencil)",
	.cls = "MEM",
	.kernels = "conv1d",
	.small_size = 5000,
	.medium_size = 524288,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.max_size = 1u << 28,
	.limits = (const struct vgpu_workload_limit[]){
		{ "conv1d", { LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = conv1d_run,
};
