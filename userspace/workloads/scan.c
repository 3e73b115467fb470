// SPDX-License-Identifier: MIT
/*
 * scan: inclusive prefix sum of n uint32 (scan.cu). scan_block scans 512
 * elements per block and leaves the block totals in a second buffer, which
 * is scanned the same way (recursively, one buffer per level) before
 * scan_add adds the previous blocks' totals back: 2 L - 1 launches for L
 * levels. Bit-exact (wrapping uint32 sums).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define PER_BLOCK 512
#define MAX_LEVELS 6

static int scan_level(struct workload_ctx *w, vgpu_deviceptr *lv, uint32_t *len, int level,
		      int levels)
{
	uint32_t n = len[level], grid = (n + PER_BLOCK - 1) / PER_BLOCK;
	int ret;

	ret = workload_go(w, "scan_block", grid, 1, 256, 1, 0,
			  WORKLOAD_ARGS(&lv[level], &lv[level + 1], &n));
	if (ret || grid == 1)
		return ret;
	ret = scan_level(w, lv, len, level + 1, levels);
	if (ret)
		return ret;
	/* Block b > 0 adds the inclusive sum of blocks 0 ... b-1. */
	return workload_go(w, "scan_add", grid - 1, 1, 256, 1, 0,
			   WORKLOAD_ARGS(&lv[level], &lv[level + 1], &n));
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_scan;

static int scan_run(struct vgpu_device *dev, const struct workload_args *args,
		    struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, len[MAX_LEVELS + 1];
	uint64_t seed = args->seed, sizes[MAX_LEVELS + 1];
	struct workload_ctx w;
	vgpu_deviceptr lv[MAX_LEVELS + 1];
	uint32_t *want, *in, sum = 0;
	int levels = 0, ret;

	ret = workload_size_check(&workload_scan, args->size, msg, msglen);
	if (ret)
		return ret;
	/* len[0] = n; len[l + 1] = blocks of level l; the last level is 1 block. */
	len[0] = n;
	for (;;) {
		len[levels + 1] = (len[levels] + PER_BLOCK - 1) / PER_BLOCK;
		sizes[levels] = (uint64_t)len[levels] * 4;
		levels++;
		if (len[levels] == 1)
			break;
	}
	sizes[levels] = 4;
	in = malloc((size_t)n * 4);
	want = malloc((size_t)n * 4);
	if (!in || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "scan", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, lv, sizes, levels + 1);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		in[i] = (uint32_t)workload_rand(&seed) >> 8;
		want[i] = sum += in[i];
	}
	ret = workload_htod(&w, lv[0], in, (size_t)n * 4);
	if (!ret)
		ret = scan_level(&w, lv, len, 0, levels);
	if (!ret)
		ret = workload_check_u32(&w, "prefix", lv[0], want, n);
out:
	workload_close(&w);
out_host:
	free(in);
	free(want);
	return ret;
}

const struct vgpu_workload workload_scan = {
	.name = "scan",
	.paper = "CUDA SDK scan (work-efficient prefix sum)",
	.cls = "MEM",
	.kernels = "scan_block scan_add",
	.small_size = 20000,
	.medium_size = 262144,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.max_size = 1u << 28,
	.limits = (const struct vgpu_workload_limit[]){
		{ "scan_block", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "scan_add", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = scan_run,
};
