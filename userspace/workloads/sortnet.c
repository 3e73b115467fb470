// SPDX-License-Identifier: MIT
/*
 * sortnet: bitonic sort of size keys (a power of two, at least 1024)
 * (sortnet.cu): sortnet_shared once, then for each merge size k = 2048 ...
 * size the global steps of stride k/2 ... 1024 and one sortnet_merge. The
 * result must equal the keys sorted on the CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define CHUNK 1024

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_sortnet;

static int sortnet_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t bytes = (uint64_t)n * 4;
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d;
	uint32_t *keys, *want;
	int ret;

	ret = workload_size_check(&workload_sortnet, args->size, msg, msglen);
	if (ret)
		return ret;
	keys = malloc(bytes);
	want = malloc(bytes);
	if (!keys || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "sortnet", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, &d, &bytes, 1);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		want[i] = keys[i] = (uint32_t)workload_rand(&seed);
	qsort(want, n, 4, cmp_u32);
	ret = workload_htod(&w, d, keys, bytes);
	if (!ret)
		ret = workload_go(&w, "sortnet_shared", n / CHUNK, 1, CHUNK / 2, 1, 0,
				  WORKLOAD_ARGS(&d));
	for (uint32_t k = 2 * CHUNK; k <= n && !ret; k <<= 1) {
		for (uint32_t j = k / 2; j >= CHUNK && !ret; j >>= 1)
			ret = workload_go(&w, "sortnet_global", n / 512, 1, 256, 1, 0,
					  WORKLOAD_ARGS(&d, &k, &j));
		if (!ret)
			ret = workload_go(&w, "sortnet_merge", n / CHUNK, 1, CHUNK / 2, 1, 0,
					  WORKLOAD_ARGS(&d, &k));
	}
	if (!ret)
		ret = workload_check_u32(&w, "keys", d, want, n);
out:
	workload_close(&w);
out_host:
	free(keys);
	free(want);
	return ret;
}

const struct vgpu_workload workload_sortnet = {
	.name = "sortnet",
	.paper = "CUDA SDK sortingNetworks (bitonic, SN)",
	.cls = "MEM",
	.kernels = "sortnet_shared sortnet_global sortnet_merge",
	.small_size = 4096,
	.medium_size = 32768,
	.default_size = 1 << 18,
	.large_size = 1 << 22,
	.size_unit = "keys (power of two)",
	/* sortnet_shared sorts whole chunks of CHUNK keys */
	.min_size = CHUNK,
	.max_size = 1u << 26,
	.size_pow2 = true,
	.limits = (const struct vgpu_workload_limit[]){
		{ "sortnet_shared", { LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS } },
		{ "sortnet_global", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "sortnet_merge", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = sortnet_run,
};
