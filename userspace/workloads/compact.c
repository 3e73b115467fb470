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

static int compact_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, kept = 0;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)n * 4, 4 };
	uint64_t seed = args->seed;
	static const char *const entries[2] = { "compact_global", "compact_block" };
	const uint32_t mask = 3;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];
	struct vgpu_params p;
	uint32_t *in, *want, entry;
	int ret;

	if (args->size == 0 || args->size > (1u << 28)) {
		snprintf(msg, msglen, "size must be 1 ... %u", 1u << 28);
		return -EINVAL;
	}
	ret = workload_load(dev, "compact", entries[0], &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 3, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc((size_t)n * 4);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	in = bo[0]->map;
	for (uint32_t i = 0; i < n; i++) {
		in[i] = (uint32_t)workload_rand(&seed);
		if ((in[i] & mask) == 0)
			want[kept++] = in[i];
	}
	qsort(want, kept, 4, cmp_u32);
	for (int k = 0; k < 2 && !ret; k++) {
		uint32_t *out = bo[1]->map, got;

		memset(out, 0xff, (size_t)n * 4);
		*(uint32_t *)bo[2]->map = 0;
		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_ptr(&p, bo[2]);
		vgpu_params_u32(&p, n);
		vgpu_params_u32(&p, mask);
		ret = workload_go(dev, prog, entries[k], (n + 255) / 256, 1, 256, 1, 0,
				  &p, bo, 3, res, msg, msglen);
		if (ret)
			break;
		got = *(uint32_t *)bo[2]->map;
		if (got != kept) {
			snprintf(msg, msglen, "%s: count %u, expected %u", entries[k], got, kept);
			ret = -EBADMSG;
			break;
		}
		qsort(out, kept, 4, cmp_u32);
		ret = workload_cmp_u32(entries[k], out, want, kept, msg, msglen);
	}
	free(want);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = compact_run,
};
