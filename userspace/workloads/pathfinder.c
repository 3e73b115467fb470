// SPDX-License-Identifier: MIT
/*
 * pathfinder: cheapest top-to-bottom path costs over a 32-row grid of
 * size columns with weights 0-9 (pathfinder.cu): 31 launches, one per
 * row, ping-ponging two cost rows. Bit-exact against the CPU's DP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define ROWS 32

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_pathfinder;

static int pathfinder_run(struct vgpu_device *dev, const struct workload_args *args,
			  struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t cols = (uint32_t)args->size;
	uint64_t sizes[3] = { (uint64_t)ROWS * cols * 4, (uint64_t)cols * 4, (uint64_t)cols * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	int32_t *wall, *want;
	int ret, cur = 1;

	ret = workload_size_check(&workload_pathfinder, args->size, msg, msglen);
	if (ret)
		return ret;
	wall = malloc(sizes[0]);
	want = malloc((size_t)cols * 8);
	if (!wall || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "pathfinder", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	for (uint64_t i = 0; i < (uint64_t)ROWS * cols; i++)
		wall[i] = (int32_t)workload_randn(&seed, 10);
	ret = workload_htod(&w, d[0], wall, sizes[0]);
	if (!ret)
		ret = workload_htod(&w, d[1], wall, (size_t)cols * 4);
	for (uint32_t r = 1; r < ROWS && !ret; r++, cur ^= 3)
		ret = workload_go(&w, "pathfinder_row", (cols + 255) / 256, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[cur], &d[cur ^ 3], &cols, &r));
	if (!ret) {
		int32_t *a = want, *b = want + cols, *t;

		memcpy(a, wall, (size_t)cols * 4);
		for (uint32_t r = 1; r < ROWS; r++) {
			for (uint32_t j = 0; j < cols; j++) {
				int32_t m = a[j];

				if (j > 0 && a[j - 1] < m)
					m = a[j - 1];
				if (j + 1 < cols && a[j + 1] < m)
					m = a[j + 1];
				b[j] = m + wall[(size_t)r * cols + j];
			}
			t = a, a = b, b = t;
		}
		ret = workload_check_u32(&w, "cost", d[cur], (uint32_t *)a, cols);
	}
out:
	workload_close(&w);
out_host:
	free(wall);
	free(want);
	return ret;
}

const struct vgpu_workload workload_pathfinder = {
	.name = "pathfinder",
	.paper = "Rodinia pathfinder (PF)",
	.cls = "MEM",
	.kernels = "pathfinder_row (one launch per row, 31)",
	.small_size = 2000,
	.medium_size = 32768,
	.default_size = 1 << 18,
	.large_size = 1 << 21,
	.size_unit = "columns (32 rows)",
	.max_size = 1u << 24,
	.limits = (const struct vgpu_workload_limit[]){
		{ "pathfinder_row", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = pathfinder_run,
};
