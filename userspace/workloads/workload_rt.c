// SPDX-License-Identifier: MIT
/*
 * workload_rt.c - the one run regbank and ifetch share (workload_rt.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload_rt.h"

int wrt_run_inout(struct vgpu_device *dev, const struct workload_args *args,
		  const struct vgpu_workload *wl, uint32_t in_words, int32_t param, uint32_t block,
		  void (*fill)(uint32_t *in, uint32_t *want, uint32_t n, uint64_t seed),
		  struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, *in, *want;
	uint64_t sizes[2];
	int32_t nn = (int32_t)n;
	vgpu_deviceptr d[2];
	struct workload_ctx w;
	int ret;

	ret = workload_size_check(wl, args->size, msg, msglen);
	if (ret)
		return ret;
	sizes[0] = (uint64_t)n * in_words * 4;
	sizes[1] = (uint64_t)n * 4;
	in = malloc(sizes[0]);
	want = malloc(sizes[1]);
	if (!in || !want) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	fill(in, want, n, args->seed);
	ret = workload_open(&w, dev, wl->name, res, msg, msglen);
	if (ret)
		goto out;
	ret = workload_alloc(&w, d, sizes, 2);
	if (!ret)
		ret = workload_htod(&w, d[0], in, sizes[0]);
	if (!ret)
		ret = workload_go(&w, wl->name, (n + block - 1) / block, 1, block, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &nn, &param));
	if (!ret)
		ret = workload_check_u32(&w, "out", d[1], want, n);
	workload_close(&w);
out:
	free(in);
	free(want);
	return ret;
}
