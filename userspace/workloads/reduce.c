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

/* The per-block sums at @d, copied back and checked as check_partials() does. */
static int check_device_partials(struct workload_ctx *w, const uint32_t *in, uint32_t n,
				 vgpu_deviceptr d, uint32_t per_block, const char *what)
{
	uint32_t blocks = (n + per_block - 1) / per_block;
	uint32_t *out = malloc((size_t)blocks * 4);
	int ret;

	if (!out) {
		snprintf(w->msg, w->msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_dtoh(w, out, d, (size_t)blocks * 4);
	if (!ret)
		ret = check_partials(in, n, out, per_block, what, w->msg, w->msglen);
	free(out);
	return ret;
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_reduce;

static int reduce_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint32_t blocks = (n + 511) / 512;
	uint64_t sizes[3] = { (uint64_t)n * 4, (uint64_t)blocks * 4, (uint64_t)blocks * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	uint32_t *in, total = 0;
	int ret;

	ret = workload_size_check(&workload_reduce, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc((size_t)n * 4);
	if (!in) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "reduce", res, msg, msglen);
	if (ret)
		goto out_in;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		in[i] = (uint32_t)workload_rand(&seed);
		total += in[i];
	}
	ret = workload_htod(&w, d[0], in, (size_t)n * 4);
	if (ret)
		goto out;

	/* Level after level: in -> partials, then partials -> partials. */
	for (uint32_t len = n, level = 0, src = 0, dst = 1; ; level++) {
		uint32_t grid = (len + 511) / 512;

		ret = workload_go(&w, "reduce", grid, 1, 256, 1, 256 * 4,
				  WORKLOAD_ARGS(&d[src], &d[dst], &len));
		if (ret)
			goto out;
		if (level == 0) {
			ret = check_device_partials(&w, in, n, d[1], 512, "reduce");
			if (ret)
				goto out;
		}
		if (grid == 1) {
			uint32_t got;

			ret = workload_dtoh(&w, &got, d[dst], sizeof(got));
			if (ret)
				goto out;
			if (got != total) {
				snprintf(msg, msglen, "reduce: total %u, expected %u", got, total);
				ret = -EBADMSG;
				goto out;
			}
			break;
		}
		len = grid;
		src = dst;
		dst = dst == 1 ? 2 : 1;
	}

	/* The static-shared tree, one level. */
	if ((uint64_t)((n + 255) / 256) * 4 > sizes[1]) {
		/* Partials of the 256-wide tree need twice the room. */
		ret = vgpu_mem_free(w.ctx, d[1]);
		if (ret) {
			snprintf(msg, msglen, "freeing the partial sums: %s", vgpu_last_error());
			goto out;
		}
		sizes[1] = (uint64_t)((n + 255) / 256) * 4;
		ret = workload_alloc(&w, &d[1], &sizes[1], 1);
		if (ret)
			goto out;
	}
	ret = workload_go(&w, "reduce_static", (n + 255) / 256, 1, 256, 1, 0,
			  WORKLOAD_ARGS(&d[0], &d[1], &n));
	if (!ret)
		ret = check_device_partials(&w, in, n, d[1], 256, "reduce_static");
out:
	workload_close(&w);
out_in:
	free(in);
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
	.max_size = UINT32_MAX / 4,
	.limits = (const struct vgpu_workload_limit[]){
		{ "reduce", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "reduce_static", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = reduce_run,
};
