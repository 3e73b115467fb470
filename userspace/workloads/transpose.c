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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_transpose;

static int transpose_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t rows = (uint32_t)args->size, cols = rows + 17;
	uint64_t bytes = (uint64_t)rows * cols * 4;
	uint64_t sizes[2] = { bytes, bytes };
	uint64_t seed = args->seed;
	static const char *const entries[2] = { "transpose_naive", "transpose_tiled" };
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	uint32_t *in, *want;
	int ret;

	ret = workload_size_check(&workload_transpose, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc(bytes);
	want = malloc(bytes);
	if (!in || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "transpose", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++)
			in[r * cols + c] = (uint32_t)workload_rand(&seed);
	for (uint32_t r = 0; r < rows; r++)
		for (uint32_t c = 0; c < cols; c++)
			want[c * rows + r] = in[r * cols + c];
	ret = workload_htod(&w, d[0], in, bytes);
	for (int k = 0; k < 2 && !ret; k++) {
		ret = workload_memset(&w, d[1], 0, bytes);
		if (!ret)
			ret = workload_go(&w, entries[k], (cols + 31) / 32, (rows + 31) / 32, 32, 8,
					  0, WORKLOAD_ARGS(&d[0], &d[1], &rows, &cols));
		if (!ret)
			ret = workload_check_u32(&w, entries[k], d[1], want, (size_t)rows * cols);
	}
out:
	workload_close(&w);
out_host:
	free(in);
	free(want);
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
	.max_size = 8192,
	.limits = (const struct vgpu_workload_limit[]){
		{ "transpose_naive", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "transpose_tiled", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = transpose_run,
};
