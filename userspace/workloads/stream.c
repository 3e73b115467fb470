// SPDX-License-Identifier: MIT
/*
 * stream: the STREAM sequence copy (c = a), scale (b = s c), add
 * (c = a + b), triad (a = b + s c) over n floats (stream.cu), each kernel
 * launched once on a grid of at most 120 blocks (grid-stride loops). The
 * reference performs the same IEEE operations; triad is fma.rn in the PTX,
 * fmaf here.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

static int stream_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint32_t grid = (n + 255) / 256 < 120 ? (n + 255) / 256 : 120;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)n * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	const float s = 3.0f;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3], *x[3];
	struct vgpu_params p;
	float *ref;
	uint32_t entry;
	int ret;

	if (args->size == 0 || args->size > (1u << 28)) {
		snprintf(msg, msglen, "size must be 1 ... %u", 1u << 28);
		return -EINVAL;
	}
	ret = workload_load(dev, "stream", "stream_copy", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 3, msg, msglen);
	if (ret)
		goto out_prog;
	ref = malloc((size_t)n * 12);
	if (!ref) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	/* ref: a, b, c */
	for (uint32_t i = 0; i < n; i++) {
		ref[i] = ((float *)bo[0]->map)[i] = workload_randf(&seed);
		ref[n + i] = ((float *)bo[1]->map)[i] = workload_randf(&seed);
		ref[2 * n + i] = ((float *)bo[2]->map)[i] = 0.0f;
	}
	/* copy: c = a */
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[2]);
	vgpu_params_u32(&p, n);
	x[0] = bo[0], x[1] = bo[2];
	ret = workload_go(dev, prog, "stream_copy", grid, 1, 256, 1, 0, &p, x, 2, res, msg, msglen);
	if (ret)
		goto out_ref;
	/* scale: b = s c */
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[2]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_f32(&p, s);
	vgpu_params_u32(&p, n);
	x[0] = bo[2], x[1] = bo[1];
	ret = workload_go(dev, prog, "stream_scale", grid, 1, 256, 1, 0, &p, x, 2, res, msg, msglen);
	if (ret)
		goto out_ref;
	/* add: c = a + b */
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_ptr(&p, bo[2]);
	vgpu_params_u32(&p, n);
	ret = workload_go(dev, prog, "stream_add", grid, 1, 256, 1, 0, &p, bo, 3, res, msg, msglen);
	if (ret)
		goto out_ref;
	/* triad: a = b + s c */
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_ptr(&p, bo[2]);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_f32(&p, s);
	vgpu_params_u32(&p, n);
	x[0] = bo[1], x[1] = bo[2], x[2] = bo[0];
	ret = workload_go(dev, prog, "stream_triad", grid, 1, 256, 1, 0, &p, x, 3, res, msg, msglen);
	if (ret)
		goto out_ref;
	for (uint32_t i = 0; i < n; i++) {
		float *a = &ref[i], *b = &ref[n + i], *c = &ref[2 * n + i];

		*c = *a;
		*b = s * *c;
		*c = *a + *b;
		*a = fmaf(s, *c, *b);
	}
	ret = workload_cmp_f32("a", bo[0]->map, ref, n, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("b", bo[1]->map, ref + n, n, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("c", bo[2]->map, ref + 2 * (size_t)n, n, msg, msglen);
out_ref:
	free(ref);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_stream = {
	.name = "stream",
	.paper = "STREAM copy/scale/add/triad (CUDA SDK bandwidthTest kind)",
	.cls = "MEM",
	.kernels = "stream_copy stream_scale stream_add stream_triad",
	.small_size = 8192,
	.medium_size = 262144,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.run = stream_run,
};
