// SPDX-License-Identifier: MIT
/*
 * compact: keeps the uint32 whose low 2 bits are zero (about a quarter),
 * with one global atomicAdd per kept element (compact_global) and with
 * per-block shared counters and one global atomicAdd per block
 * (compact_block) (compact.cu). The order of out[] depends on the schedule,
 * so the check sorts it: the count and the multiset must match exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_compact;

static int compact_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, kept = 0;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)n * 4, 4 };
	uint64_t seed = args->seed;
	static const char *const entries[2] = { "compact_global", "compact_block" };
	uint32_t mask = 3;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	uint32_t *in, *out, *want;
	int ret;

	ret = workload_size_check(&workload_compact, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc((size_t)n * 4);
	out = malloc((size_t)n * 4);
	want = malloc((size_t)n * 4);
	if (!in || !out || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "compact", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		in[i] = (uint32_t)workload_rand(&seed);
		if ((in[i] & mask) == 0)
			want[kept++] = in[i];
	}
	qsort(want, kept, 4, cmp_u32);
	ret = workload_htod(&w, d[0], in, (size_t)n * 4);
	for (int k = 0; k < 2 && !ret; k++) {
		uint32_t got;

		ret = workload_memset(&w, d[1], 0xff, (size_t)n * 4);
		if (!ret)
			ret = workload_memset(&w, d[2], 0, 4);
		if (!ret)
			ret = workload_go(&w, entries[k], (n + 255) / 256, 1, 256, 1, 0,
					  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n, &mask));
		if (!ret)
			ret = workload_dtoh(&w, &got, d[2], 4);
		if (ret)
			break;
		if (got != kept) {
			snprintf(msg, msglen, "%s: count %u, expected %u", entries[k], got, kept);
			ret = -EBADMSG;
			break;
		}
		ret = workload_dtoh(&w, out, d[1], (size_t)kept * 4);
		if (ret)
			break;
		qsort(out, kept, 4, cmp_u32);
		ret = workload_cmp_u32(entries[k], out, want, kept, msg, msglen);
	}
out:
	workload_close(&w);
out_host:
	free(in);
	free(out);
	free(want);
	return ret;
}

const struct vgpu_workload workload_compact = {
	.name = "compact",
	.paper = "atomic output index (B+ Tree/MUMmer result lists, Table 4.2 non-idempotent)",
	.cls = "MEM",
	.kernels = "compact_global compact_block",
	.small_size = 8192,
	.medium_size = 262144,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.max_size = 1u << 28,
	.limits = (const struct vgpu_workload_limit[]){
		{ "compact_global", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "compact_block", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = compact_run,
};
