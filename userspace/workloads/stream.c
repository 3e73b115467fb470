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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_stream;

static int stream_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint32_t grid = (n + 255) / 256 < 120 ? (n + 255) / 256 : 120;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)n * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	float s = 3.0f;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	float *ref;
	int ret;

	ret = workload_size_check(&workload_stream, args->size, msg, msglen);
	if (ret)
		return ret;
	ref = malloc((size_t)n * 12);
	if (!ref) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "stream", res, msg, msglen);
	if (ret)
		goto out_ref;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	/* ref: a, b, c, as the device's arrays start */
	for (uint32_t i = 0; i < n; i++) {
		ref[i] = workload_randf(&seed);
		ref[n + i] = workload_randf(&seed);
		ref[2 * n + i] = 0.0f;
	}
	for (int k = 0; k < 3 && !ret; k++)
		ret = workload_htod(&w, d[k], ref + (size_t)k * n, (size_t)n * 4);
	/* copy: c = a */
	if (!ret)
		ret = workload_go(&w, "stream_copy", grid, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[2], &n));
	/* scale: b = s c */
	if (!ret)
		ret = workload_go(&w, "stream_scale", grid, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[2], &d[1], &s, &n));
	/* add: c = a + b */
	if (!ret)
		ret = workload_go(&w, "stream_add", grid, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n));
	/* triad: a = b + s c */
	if (!ret)
		ret = workload_go(&w, "stream_triad", grid, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[1], &d[2], &d[0], &s, &n));
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		float *a = &ref[i], *b = &ref[n + i], *c = &ref[2 * n + i];

		*c = *a;
		*b = s * *c;
		*c = *a + *b;
		*a = fmaf(s, *c, *b);
	}
	ret = workload_check_f32(&w, "a", d[0], ref, n);
	if (!ret)
		ret = workload_check_f32(&w, "b", d[1], ref + n, n);
	if (!ret)
		ret = workload_check_f32(&w, "c", d[2], ref + 2 * (size_t)n, n);
out:
	workload_close(&w);
out_ref:
	free(ref);
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
	.max_size = 1u << 28,
	.limits = (const struct vgpu_workload_limit[]){
		{ "stream_copy", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "stream_scale", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "stream_add", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "stream_triad", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = stream_run,
};
