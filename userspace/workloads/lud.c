// SPDX-License-Identifier: MIT
/*
 * lud: blocked LU decomposition of an n x n diagonally dominant float
 * matrix (n a multiple of 16), Rodinia style (lud.cu): for each block step
 * k, lud_diagonal, then lud_perimeter and lud_internal on the shrinking
 * trailing matrix: 3 n/16 - 2 launches. The CPU reference runs the same
 * blocked algorithm with the same operations in the same order per
 * element (fmaf, IEEE division, subtraction): bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define BS 16

static void ref_step(float *a, uint32_t n, uint32_t k)
{
	uint32_t nb = n / BS, base = k * BS;
	float t[BS][BS];

#define A(r, c) a[(size_t)(r) * n + (c)]
	/* diagonal */
	for (int r = 0; r < BS; r++)
		for (int c = 0; c < BS; c++)
			t[r][c] = A(base + r, base + c);
	for (int i = 0; i < BS - 1; i++) {
		for (int r = i + 1; r < BS; r++)
			t[r][i] = t[r][i] / t[i][i];
		for (int c = i + 1; c < BS; c++)
			for (int r = i + 1; r < BS; r++)
				t[r][c] = fmaf(-t[r][i], t[i][c], t[r][c]);
	}
	for (int r = 0; r < BS; r++)
		for (int c = 0; c < BS; c++)
			A(base + r, base + c) = t[r][c];
	/* perimeter */
	for (uint32_t b = k + 1; b < nb; b++) {
		uint32_t other = b * BS;

		for (int c = 0; c < BS; c++)
			for (int i = 0; i < BS; i++)
				for (int r = i + 1; r < BS; r++)
					A(base + r, other + c) = fmaf(-t[r][i], A(base + i, other + c),
								      A(base + r, other + c));
		for (int r = 0; r < BS; r++)
			for (int i = 0; i < BS; i++) {
				A(other + r, base + i) = A(other + r, base + i) / t[i][i];
				for (int c = i + 1; c < BS; c++)
					A(other + r, base + c) = fmaf(-A(other + r, base + i), t[i][c],
								      A(other + r, base + c));
			}
	}
	/* internal */
	for (uint32_t row = base + BS; row < n; row++)
		for (uint32_t col = base + BS; col < n; col++) {
			float acc = 0.0f;

			for (int i = 0; i < BS; i++)
				acc = fmaf(A(row, base + i), A(base + i, col), acc);
			A(row, col) = A(row, col) - acc;
		}
#undef A
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_lud;

static int lud_run(struct vgpu_device *dev, const struct workload_args *args,
		   struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nb = n / BS;
	uint64_t bytes = (uint64_t)n * n * 4;
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d;
	float *a, *want;
	int ret;

	ret = workload_size_check(&workload_lud, args->size, msg, msglen);
	if (ret)
		return ret;
	a = malloc(bytes);
	want = malloc(bytes);
	if (!a || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "lud", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, &d, &bytes, 1);
	if (ret)
		goto out;
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t c = 0; c < n; c++)
			a[(size_t)r * n + c] = workload_randf(&seed) + (r == c ? (float)n : 0.0f);
	memcpy(want, a, bytes);
	ret = workload_htod(&w, d, a, bytes);
	for (uint32_t k = 0; k < nb && !ret; k++) {
		ret = workload_go(&w, "lud_diagonal", 1, 1, BS, 1, 0,
				  WORKLOAD_ARGS(&d, &n, &k));
		if (ret || k == nb - 1)
			break;
		ret = workload_go(&w, "lud_perimeter", nb - k - 1, 1, 2 * BS, 1, 0,
				  WORKLOAD_ARGS(&d, &n, &k));
		if (!ret)
			ret = workload_go(&w, "lud_internal", nb - k - 1, nb - k - 1, BS, BS, 0,
					  WORKLOAD_ARGS(&d, &n, &k));
	}
	if (!ret) {
		for (uint32_t k = 0; k < nb; k++)
			ref_step(want, n, k);
		ret = workload_check_f32(&w, "lu", d, want, (size_t)n * n);
	}
out:
	workload_close(&w);
out_host:
	free(a);
	free(want);
	return ret;
}

const struct vgpu_workload workload_lud = {
	.name = "lud",
	.paper = "Rodinia lud (LUD)",
	.cls = "MEM",
	.kernels = "lud_diagonal lud_perimeter lud_internal",
	.small_size = 64,
	.medium_size = 32,
	.default_size = 256,
	.large_size = 1024,
	.size_unit = "matrix order (x16)",
	.size_step = BS,
	.max_size = 4096,
	.limits = (const struct vgpu_workload_limit[]){
		{ "lud_diagonal", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS } },
		{ "lud_perimeter", { LIM_TBS, LIM_TBS, LIM_SHARED, LIM_SHARED, LIM_SHARED } },
		{ "lud_internal", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = lud_run,
};
