// SPDX-License-Identifier: MIT
/*
 * vectoradd: c = a + b over n floats (vectoradd.cu); add.rn.f32 is exact
 * IEEE, so the CPU sum matches bit for bit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

static int vectoradd_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)n * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];
	struct vgpu_params p;
	float *a, *b, *want;
	uint32_t entry;
	int ret;

	if (args->size == 0 || args->size > (1u << 28)) {
		snprintf(msg, msglen, "size must be 1 ... %u", 1u << 28);
		return -EINVAL;
	}
	ret = workload_load(dev, "vectoradd", "vectoradd", &prog, &entry, msg, msglen);
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
	a = bo[0]->map;
	b = bo[1]->map;
	for (uint32_t i = 0; i < n; i++) {
		a[i] = workload_randf(&seed);
		b[i] = workload_randf(&seed);
		want[i] = a[i] + b[i];
	}
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_ptr(&p, bo[2]);
	vgpu_params_u32(&p, n);
	ret = workload_go(dev, prog, "vectoradd", (n + 255) / 256, 1, 256, 1, 0, &p,
			  bo, 3, res, msg, msglen);
	if (!ret)
		ret = workload_cmp_f32("c", bo[2]->map, want, n, msg, msglen);
	free(want);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = vectoradd_run,
};
