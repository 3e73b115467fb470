// SPDX-License-Identifier: MIT
/*
 * histogram: 256-bin histogram of n bytes (histogram.cu), once with atomics
 * on the global bins and once with per-block shared-memory bins merged
 * atomically at the end. Both must match the CPU count exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "workload.h"

static int histogram_pass(struct vgpu_device *dev, struct vgpu_program *prog,
			  const char *entry, struct vgpu_bo **bo, uint32_t n,
			  const uint32_t *want, struct workload_result *res,
			  char *msg, size_t msglen)
{
	uint32_t *bins = bo[1]->map;
	struct vgpu_params p;
	struct vgpu_launch l = {
		/* A grid smaller than the input: the kernel strides. */
		.grid = { (n + 1023) / 1024 < 120 ? (n + 1023) / 1024 : 120, 1, 1 },
		.block = { 256, 1, 1 },
		.params = &p,
		.bos = bo,
		.num_bos = 2,
	};
	int ret = vgpu_program_find_entry(prog, entry, &l.entry);

	if (ret) {
		snprintf(msg, msglen, "histogram.ptx has no entry '%s'", entry);
		return ret;
	}
	memset(bins, 0, 256 * sizeof(*bins));
	vgpu_params_init(&p);
	vgpu_params_ptr(&p, bo[0]);
	vgpu_params_ptr(&p, bo[1]);
	vgpu_params_u32(&p, n);
	ret = workload_launch(dev, prog, &l, res, msg, msglen);
	if (ret)
		return ret;
	for (int b = 0; b < 256; b++) {
		if (bins[b] != want[b]) {
			snprintf(msg, msglen, "%s: bin %d holds %u, expected %u",
				 entry, b, bins[b], want[b]);
			return -EBADMSG;
		}
	}
	return 0;
}

static int histogram_run(struct vgpu_device *dev, const struct workload_args *args,
			 struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t sizes[2] = { n, 256 * 4 };
	uint64_t seed = args->seed;
	uint32_t want[256] = { 0 };
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	uint8_t *in;
	uint32_t entry;
	int ret;

	if (args->size == 0 || args->size > UINT32_MAX / 2) {
		snprintf(msg, msglen, "size must be 1 ... %u", UINT32_MAX / 2);
		return -EINVAL;
	}
	ret = workload_load(dev, "histogram", "histogram", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	in = bo[0]->map;
	for (uint32_t i = 0; i < n; i++) {
		/* Skewed towards low values, as image data is: bins collide. */
		uint64_t r = workload_rand(&seed);

		in[i] = (uint8_t)((r & 0xff) & (r >> 8));
		want[in[i]]++;
	}
	ret = histogram_pass(dev, prog, "histogram", bo, n, want, res, msg, msglen);
	if (!ret)
		ret = histogram_pass(dev, prog, "histogram_shared", bo, n, want, res,
				     msg, msglen);
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
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
	.run = histogram_run,
};
