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

static int conv1d_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[3] = { (uint64_t)n * 4, (2 * R + 1) * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];
	struct vgpu_params p;
	float *in, *w, *want;
	uint32_t entry;
	int ret;

	if (args->size == 0 || args->size > (1u << 28)) {
		snprintf(msg, msglen, "size must be 1 ... %u", 1u << 28);
		return -EINVAL;
	}
	ret = workload_load(dev, "conv1d", "conv1d", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 3, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc((size_t)n * 4);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	in = bo[0]->map;
	w = bo[1]->map;
	for (int k = 0; k <= 2 * R; k++)
		w[k] = workload_randf(&seed);
	for (uint32_t i = 0; i < n; i++)
		in[i] = workload_randf(&seed);
	for (uint32_t i = 0; i < n; i++) {
		float acc = 0.0f;

		for (int k = 0; k <= 2 * R; k++) {
			int64_t j = (int64_t)i + k - R;

			acc = fmaf(w[k], j >= 0 && j < n ? in[j] : 0.0f, acc);
		}
		want[i] = acc;
	}
	vgpu_params_init(&p);
	for (int i = 0; i < 3; i++)
		vgpu_params_ptr(&p, bo[i]);
	vgpu_params_u32(&p, n);
	ret = workload_go(dev, prog, "conv1d", (n + 255) / 256, 1, 256, 1, 0, &p, bo, 3,
			  res, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("out", bo[2]->map, want, n, msg, msglen);
	free(want);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = conv1d_run,
};
