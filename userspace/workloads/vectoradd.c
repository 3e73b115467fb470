// SPDX-License-Identifier: MIT
/*
 * vectoradd: c = a + b over n floats (vectoradd.cu); add.rn.f32 is exact
 * IEEE, so the CPU sum matches bit for bit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_vectoradd;

static int vectoradd_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)n * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	float *a, *b, *want;
	int ret;

	ret = workload_size_check(&workload_vectoradd, args->size, msg, msglen);
	if (ret)
		return ret;
	a = malloc((size_t)n * 4);
	b = malloc((size_t)n * 4);
	want = malloc((size_t)n * 4);
	if (!a || !b || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "vectoradd", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		a[i] = workload_randf(&seed);
		b[i] = workload_randf(&seed);
		want[i] = a[i] + b[i];
	}
	ret = workload_htod(&w, d[0], a, (size_t)n * 4);
	if (!ret)
		ret = workload_htod(&w, d[1], b, (size_t)n * 4);
	if (!ret)
		ret = workload_go(&w, "vectoradd", (n + 255) / 256, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n));
	if (!ret)
		ret = workload_check_f32(&w, "c", d[2], want, n);
out:
	workload_close(&w);
out_host:
	free(a);
	free(b);
	free(want);
	return ret;
}

const struct vgpu_workload workload_vectoradd = {
	.name = "vectoradd",
	.paper = "CUDA SDK vectorAdd",
	.cls = "MEM",
	.kernels = "vectoradd",
	.small_size = 4096,
	.medium_size = 1048576,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.max_size = 1u << 28,
	.limits = (const struct vgpu_workload_limit[]){
		{ "vectoradd", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = vectoradd_run,
};
