// SPDX-License-Identifier: MIT
/*
 * reduce: sum of n uint32 (reduce.cu). The dynamic-shared kernel reduces
 * 512 elements per block and is relaunched on its partial sums until one
 * value is left, as the CUDA SDK sample does; the static-shared tree kernel
 * then reduces the same input once more, 256 elements per block.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

static int check_partials(const uint32_t *in, uint32_t n, const uint32_t *out,
			  uint32_t per_block, const char *what, char *msg, size_t msglen)
{
	uint32_t blocks = (n + per_block - 1) / per_block;

	for (uint32_t b = 0; b < blocks; b++) {
		uint32_t want = 0;

		for (uint32_t i = b * per_block; i < n && i < (b + 1) * per_block; i++)
			want += in[i];
		if (out[b] != want) {
			snprintf(msg, msglen, "%s: block %u sum %u, expected %u",
				 what, b, out[b], want);
			return -EBADMSG;
		}
	}
	return 0;
}

static int reduce_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint32_t blocks = (n + 511) / 512;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)blocks * 4, (uint64_t)blocks * 4 };
	uint64_t seed = args->seed;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[3];
	uint32_t *in, *copy = NULL, entry, total = 0;
	struct vgpu_params p;
	struct vgpu_launch l = { .block = { 256, 1, 1 }, .params = &p, .num_bos = 2 };
	struct vgpu_bo *pair[2];
	int ret;

	if (args->size == 0 || args->size > UINT32_MAX / 4) {
		snprintf(msg, msglen, "size must be 1 ... %u", UINT32_MAX / 4);
		return -EINVAL;
	}
	ret = workload_load(dev, "reduce", "reduce", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 3, msg, msglen);
	if (ret)
		goto out_prog;
	copy = malloc((size_t)n * 4);
	if (!copy) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	in = bo[0]->map;
	for (uint32_t i = 0; i < n; i++) {
		in[i] = (uint32_t)workload_rand(&seed);
		copy[i] = in[i];
		total += in[i];
	}

	/* Level after level: in -> partials, then partials -> partials. */
	l.bos = pair;
	l.entry = entry;
	l.dynamic_shared = 256 * 4;
	for (uint32_t len = n, level = 0, src = 0, dst = 1; ; level++) {
		uint32_t grid = (len + 511) / 512;

		pair[0] = bo[src];
		pair[1] = bo[dst];
		l.grid[0] = grid;
		l.grid[1] = l.grid[2] = 1;
		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[src]);
		vgpu_params_ptr(&p, bo[dst]);
		vgpu_params_u32(&p, len);
		ret = workload_launch(dev, prog, &l, res, msg, msglen);
		if (ret)
			goto out_copy;
		if (level == 0) {
			ret = check_partials(copy, n, bo[1]->map, 512, "reduce", msg, msglen);
			if (ret)
				goto out_copy;
		}
		if (grid == 1) {
			uint32_t got = *(uint32_t *)bo[dst]->map;

			if (got != total) {
				snprintf(msg, msglen, "reduce: total %u, expected %u", got, total);
				ret = -EBADMSG;
				goto out_copy;
			}
			break;
		}
		len = grid;
		src = dst;
		dst = dst == 1 ? 2 : 1;
	}

	/* The static-shared tree, one level. */
	ret = vgpu_program_find_entry(prog, "reduce_static", &l.entry);
	if (ret) {
		snprintf(msg, msglen, "reduce.ptx has no entry 'reduce_static'");
		goto out_copy;
	}
	if ((uint64_t)((n + 255) / 256) * 4 > bo[1]->size) {
		/* Partials of the 256-wide tree need twice the room. */
		vgpu_bo_destroy(bo[1]);
		bo[1] = NULL;
		ret = vgpu_bo_create(dev, (uint64_t)((n + 255) / 256) * 4, &bo[1]);
		if (ret) {
			snprintf(msg, msglen, "allocating partial sums: %d", ret);
			goto out_copy;
		}
	}
	pair[0] = bo[0];
	pair[1] = bo[1];
	l.grid[0] = (n + 255) / 256;
	l.dynamic_shared = 0;
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_u32(&p, n);
	ret = workload_launch(dev, prog, &l, res, msg, msglen);
	if (!ret)
		ret = check_partials(copy, n, bo[1]->map, 256, "reduce_static", msg, msglen);
out_copy:
	free(copy);
out_bo:
	workload_free(bo, 3);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_reduce = {
	.name = "reduce",
	.paper = "CUDA SDK reduction",
	.cls = "MEM",
	.kernels = "reduce reduce_static",
	.small_size = 8192,
	.medium_size = 524288,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "elements",
	.run = reduce_run,
};
