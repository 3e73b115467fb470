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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_spmv;

static int spmv_run(struct vgpu_device *dev, const struct workload_args *args,
		    struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nnz = 0;
	uint64_t seed = args->seed, sizes[NBO];
	struct workload_ctx w;
	vgpu_deviceptr d[NBO];
	uint32_t *rowptr = NULL, *cols = NULL;
	float *vals = NULL, *x = NULL, *want = NULL;
	uint8_t *len;
	int ret;

	ret = workload_size_check(&workload_spmv, args->size, msg, msglen);
	if (ret)
		return ret;
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
	rowptr = malloc(sizes[ROWPTR]);
	cols = malloc(sizes[COLS]);
	vals = malloc(sizes[VALS]);
	x = malloc(sizes[X]);
	want = malloc((size_t)n * 4);
	if (!rowptr || !cols || !vals || !x || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "spmv", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, NBO);
	if (ret)
		goto out;
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
	ret = workload_htod(&w, d[ROWPTR], rowptr, sizes[ROWPTR]);
	if (!ret)
		ret = workload_htod(&w, d[COLS], cols, sizes[COLS]);
	if (!ret)
		ret = workload_htod(&w, d[VALS], vals, sizes[VALS]);
	if (!ret)
		ret = workload_htod(&w, d[X], x, sizes[X]);
	if (!ret)
		ret = workload_memset(&w, d[Y], 0, (size_t)n * 4);
	if (!ret)
		ret = workload_go(&w, "spmv_scalar", (n + 127) / 128, 1, 128, 1, 0,
				  WORKLOAD_ARGS(&d[ROWPTR], &d[COLS], &d[VALS], &d[X], &d[Y], &n));
	if (ret)
		goto out;
	for (uint32_t r = 0; r < n; r++) {
		float acc = 0.0f;

		for (uint32_t e = rowptr[r]; e < rowptr[r + 1]; e++)
			acc = fmaf(vals[e], x[cols[e]], acc);
		want[r] = acc;
	}
	ret = workload_check_f32(&w, "spmv_scalar y", d[Y], want, n);
	if (ret)
		goto out;

	ret = workload_memset(&w, d[Y], 0, (size_t)n * 4);
	/* 4 warps (rows) per block of 128 threads. */
	if (!ret)
		ret = workload_go(&w, "spmv_vector", (n + 3) / 4, 1, 128, 1, 0,
				  WORKLOAD_ARGS(&d[ROWPTR], &d[COLS], &d[VALS], &d[X], &d[Y], &n));
	if (ret)
		goto out;
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
	ret = workload_check_f32(&w, "spmv_vector y", d[Y], want, n);
out:
	workload_close(&w);
out_host:
	free(rowptr);
	free(cols);
	free(vals);
	free(x);
	free(want);
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
	.max_size = 1u << 22,
	.limits = (const struct vgpu_workload_limit[]){
		{ "spmv_scalar", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_THREADS, LIM_THREADS } },
		{ "spmv_vector", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = spmv_run,
};
