// SPDX-License-Identifier: MIT
/*
 * transpose: out = in^T for an n x (n + 17) matrix of uint32 (the odd
 * column count exercises partial tiles), once with the naive kernel and
 * once with the shared-memory tiled kernel (transpose.cu). Bit-exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static int transpose_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t rows = (uint32_t)args->size, cols = rows + 17;
	uint64_t bytes = (uint64_t)rows * cols * 4;
	uint64_t sizes[2] = { bytes, bytes };
	uint64_t seed = args->seed;
	static const char *const entries[2] = { "transpose_naive", "transpose_tiled" };
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	struct vgpu_params p;
	uint32_t *in, *want, entry;
	int ret;

	if (args->size == 0 || args->size > 8192) {
		snprintf(msg, msglen, "size (rows) must be 1 ... 8192");
		return -EINVAL;
	}
	ret = workload_load(dev, "transpose", entries[0], &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc(bytes);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	in = bo[0]->map;
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++)
			in[r * cols + c] = (uint32_t)workload_rand(&seed);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++)
			want[c * rows + r] = in[r * cols + c];
	for (int k = 0; k < 2 && !ret; k++) {
		memset(bo[1]->map, 0, bytes);
		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_u32(&p, rows);
		vgpu_params_u32(&p, cols);
		ret = workload_go(dev, prog, entries[k], (cols + 31) / 32, (rows + 31) / 32,
				  32, 8, 0, &p, bo, 2, res, msg, msglen);
		if (!ret)
			ret = workload_cmp_u32(entries[k], bo[1]->map, want,
					       (size_t)rows * cols, msg, msglen);
	}
	free(want);
out_bo:
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_transpose = {
	.name = "transpose",
	.paper = "CUDA SDK transpose (naive and shared-memory tiled)",
	.cls = "MEM",
	.kernels = "transpose_naive transpose_tiled",
	.small_size = 64,
	.medium_size = 512,
	.default_size = 1024,
	.large_size = 4096,
	.size_unit = "rows (columns = rows + 17)",
	.run = transpose_run,
};
