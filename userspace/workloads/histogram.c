// SPDX-License-Identifier: MIT
/*
 * histogram: 256-bin histogram of n bytes (histogram.cu), once with atomics
 * on the global bins and once with per-block shared-memory bins merged
 * atomically at the end. Both must match the CPU count exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static int histogram_pass(struct workload_ctx *w, const char *entry, vgpu_deviceptr *d,
			  uint32_t n, const uint32_t *want)
{
	/* A grid smaller than the input: the kernel strides. */
	uint32_t grid = (n + 1023) / 1024 < 120 ? (n + 1023) / 1024 : 120;
	uint32_t bins[256];
	int ret = workload_memset(w, d[1], 0, sizeof(bins));

	if (!ret)
		ret = workload_go(w, entry, grid, 1, 256, 1, 0, WORKLOAD_ARGS(&d[0], &d[1], &n));
	if (!ret)
		ret = workload_dtoh(w, bins, d[1], sizeof(bins));
	if (ret)
		return ret;
	for (int b = 0; b < 256; b++) {
		if (bins[b] != want[b]) {
			snprintf(w->msg, w->msglen, "%s: bin %d holds %u, expected %u",
				 entry, b, bins[b], want[b]);
			return -EBADMSG;
		}
	}
	return 0;
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_histogram;

static int histogram_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[2] = { n, 256 * 4 };
	uint64_t seed = args->seed;
	uint32_t want[256] = { 0 };
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	uint8_t *in;
	int ret;

	ret = workload_size_check(&workload_histogram, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc(n);
	if (!in) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_open(&w, dev, "histogram", res, msg, msglen);
	if (ret)
		goto out_in;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		/* Skewed towards low values, as image data is: bins collide. */
		uint64_t r = workload_rand(&seed);

		in[i] = (uint8_t)((r & 0xff) & (r >> 8));
		want[in[i]]++;
	}
	ret = workload_htod(&w, d[0], in, n);
	if (!ret)
		ret = histogram_pass(&w, "histogram", d, n, want);
	if (!ret)
		ret = histogram_pass(&w, "histogram_shared", d, n, want);
out:
	workload_close(&w);
out_in:
	free(in);
	return ret;
}

const struct vgpu_workload workload_histogram = {
	.name = "histogram",
	.paper = "Parboil histo",
	.cls = "MEM",
	.kernels = "histogram histogram_shared",
	.small_size = 8192,
	.medium_size = 524288,
	.default_size = 1 << 20,
	.large_size = 1 << 24,
	.size_unit = "bytes",
	.max_size = UINT32_MAX / 2,
	.limits = (const struct vgpu_workload_limit[]){
		{ "histogram", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "histogram_shared", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = histogram_run,
};
