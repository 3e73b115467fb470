// SPDX-License-Identifier: MIT
/*
 * mandel: escape times of the Mandelbrot set on a size x size grid
 * (mandel.cu), Q4.28 fixed point, at most 256 iterations. Warp-level
 * divergence as seed 003 targets: each warp renders one 32-pixel row of a
 * 32 x 8 tile and takes as long as its slowest pixel; rows outside the
 * radius-2 disc exit at once. The reference does the same integer
 * arithmetic: bit-exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define Q		28
#define MAX_ITER	256

static uint32_t mandel_ref(int64_t x, int64_t y, int64_t w, int64_t h)
{
	int64_t cr = (x << (Q + 2)) / w - (5LL << (Q - 1));
	int64_t ci = (y << (Q + 2)) / h - (2LL << Q);
	int64_t zr = 0, zi = 0;
	uint32_t it = 0;

	/* >> of a negative value: arithmetic, as PTX shr.s64 */
	if (((cr * cr) >> Q) + ((ci * ci) >> Q) > (4LL << Q))
		return 0;
	while (it < MAX_ITER) {
		int64_t zr2 = (zr * zr) >> Q, zi2 = (zi * zi) >> Q, t;

		if (zr2 + zi2 > (4LL << Q))
			break;
		t = zr2 - zi2 + cr;
		zi = ((zr * zi) >> (Q - 1)) + ci;
		zr = t;
		it++;
	}
	return it;
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_mandel;

static int mandel_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, max_iter = MAX_ITER;
	uint64_t size = (uint64_t)n * n * 4;
	struct workload_ctx w;
	vgpu_deviceptr d;
	uint32_t *want;
	int ret;

	ret = workload_size_check(&workload_mandel, args->size, msg, msglen);
	if (ret)
		return ret;
	want = malloc(size);
	if (!want) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "mandel", res, msg, msglen);
	if (ret)
		goto out_want;
	ret = workload_alloc(&w, &d, &size, 1);
	if (ret)
		goto out;
	for (uint32_t y = 0; y < n; y++)
		for (uint32_t x = 0; x < n; x++)
			want[(size_t)y * n + x] = mandel_ref(x, y, n, n);
	ret = workload_go(&w, "mandel", (n + 31) / 32, (n + 7) / 8, 32, 8, 0,
			  WORKLOAD_ARGS(&d, &n, &n, &max_iter));
	if (!ret)
		ret = workload_check_u32(&w, "out", d, want, (size_t)n * n);
out:
	workload_close(&w);
out_want:
	free(want);
	return ret;
}

const struct vgpu_workload workload_mandel = {
	.name = "mandel",
	.paper = "seed 003 Set 1 (render, solve_nqueen): uneven per-warp work",
	.cls = "COM",
	.kernels = "mandel",
	.small_size = 48,
	.medium_size = 256,
	.default_size = 512,
	.large_size = 2048,
	.size_unit = "grid edge",
	.min_size = 8,
	.max_size = 8192,
	.limits = (const struct vgpu_workload_limit[]){
		{ "mandel", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = mandel_run,
};
