// SPDX-License-Identifier: MIT
/*
 * spmv: y = A x, A a random n x n sparse float matrix in CSR with 1-63
 * entries per row (uneven, as Parboil's inputs are), run by the scalar
 * kernel (a thread per row) and the vector kernel (a warp per row, shuffle
 * reduction) (spmv.cu). The references repeat each kernel's order of fmaf
 * and additions, so both results are bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

enum { ROWPTR, COLS, VALS, X, Y, NBO };

static int spmv_run(struct vgpu_device *dev, const struct workload_args *args,
		    struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nnz = 0;
	uint64_t seed = args->seed, sizes[NBO];
	struct vgpu_program *prog;
	struct vgpu_bo *bo[NBO];
	struct vgpu_params p;
	uint32_t *rowptr, *cols, entry;
	float *vals, *x, *want;
	uint8_t *len;
	int ret;

	if (args->size == 0 || args->size > (1u << 22)) {
		snprintf(msg, msglen, "size (rows) must be 1 ... %u", 1u << 22);
		return -EINVAL;
	}
	len = malloc(n);
	if (!len)
		return -ENOMEM;
	for (uint32_t r = 0; r < n; r++) {
		/* Mostly short rows, some long ones. */
		uint32_t k = workload_randn(&seed, 16);

		len[r] = (uint8_t)(k == 0 ? 32 + workload_randn(&seed, 32) : 1 + workload_randn(&seed, 12));
		nnz += len[r];
	}
	sizes[ROWPTR] = ((uint64_t)n + 1) * 4;
	sizes[COLS] = sizes[VALS] = (uint64_t)nnz * 4;
	sizes[X] = sizes[Y] = (uint64_t)n * 4;
	ret = workload_load(dev, "spmv", "spmv_scalar", &prog, &entry, msg, msglen);
	if (ret)
		goto out_len;
	ret = workload_alloc(dev, bo, sizes, NBO, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc((size_t)n * 4);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	rowptr = bo[ROWPTR]->map;
	cols = bo[COLS]->map;
	vals = bo[VALS]->map;
	x = bo[X]->map;
	rowptr[0] = 0;
	for (uint32_t r = 0; r < n; r++) {
		rowptr[r + 1] = rowptr[r] + len[r];
		for (uint32_t e = rowptr[r]; e < rowptr[r + 1]; e++) {
			cols[e] = workload_randn(&seed, n);
			vals[e] = workload_randf(&seed);
		}
	}
	for (uint32_t i = 0; i < n; i++)
		x[i] = workload_randf(&seed);

	vgpu_params_init(&p);
	for (int i = ROWPTR; i <= Y; i++)
		vgpu_params_ptr(&p, bo[i]);
	vgpu_params_u32(&p, n);
	memset(bo[Y]->map, 0, (size_t)n * 4);
	ret = workload_go(dev, prog, "spmv_scalar", (n + 127) / 128, 1, 128, 1, 0, &p,
			  bo, NBO, res, msg, msglen);
	if (ret)
		goto out_want;
	for (uint32_t r = 0; r < n; r++) {
		float acc = 0.0f;

		for (uint32_t e = rowptr[r]; e < rowptr[r + 1]; e++)
			acc = fmaf(vals[e], x[cols[e]], acc);
		want[r] = acc;
	}
	ret = workload_cmp_f32("spmv_scalar y", bo[Y]->map, want, n, msg, msglen);
	if (ret)
		goto out_want;

	memset(bo[Y]->map, 0, (size_t)n * 4);
	/* 4 warps (rows) per block of 128 threads. */
	ret = workload_go(dev, prog, "spmv_vector", (n + 3) / 4, 1, 128, 1, 0, &p,
			  bo, NBO, res, msg, msglen);
	if (ret)
		goto out_want;
	for (uint32_t r = 0; r < n; r++) {
		float lane[32];

		for (int l = 0; l < 32; l++) {
			lane[l] = 0.0f;
			for (uint32_t e = rowptr[r] + l; e < rowptr[r + 1]; e += 32)
				lane[l] = fmaf(vals[e], x[cols[e]], lane[l]);
		}
		/* __shfl_down_sync: lanes past 31 read their own value. */
		for (int off = 16; off > 0; off >>= 1)
			for (int l = 0; l < 32; l++)
				lane[l] = lane[l] + (l + off < 32 ? lane[l + off] : lane[l]);
		want[r] = lane[0];
	}
	ret = workload_cmp_f32("spmv_vector y", bo[Y]->map, want, n, msg, msglen);
out_want:
	free(want);
out_bo:
	workload_free(bo, NBO);
out_prog:
	vgpu_program_destroy(prog);
out_len:
	free(len);
	return ret;
}

const struct vgpu_workload workload_spmv = {
	.name = "spmv",
	.paper = "Parboil spmv (CSR)",
	.cls = "MEM",
	.kernels = "spmv_scalar spmv_vector",
	.small_size = 1024,
	.medium_size = 4096,
	.default_size = 1 << 16,
	.large_size = 1 << 20,
	.size_unit = "rows",
	.run = spmv_run,
};
