// SPDX-License-Identifier: MIT
/*
 * workload_rt.c - the one run regbank and ifetch share (workload_rt.h).
 */
#include "workload_rt.h"

int wrt_run_inout(struct vgpu_device *dev, const char *name, const void *in,
		  size_t in_bytes, uint32_t n, int32_t param, uint32_t block,
		  const uint32_t *want, struct workload_result *res, char *msg, size_t msglen)
{
	const uint64_t sizes[2] = { in_bytes, (uint64_t)n * 4 };
	int32_t nn = (int32_t)n;
	vgpu_deviceptr d[2];
	struct workload_ctx w;
	int ret = workload_open(&w, dev, name, res, msg, msglen);

	if (ret)
		return ret;
	ret = workload_alloc(&w, d, sizes, 2);
	if (!ret)
		ret = workload_htod(&w, d[0], in, in_bytes);
	if (!ret)
		ret = workload_go(&w, name, (n + block - 1) / block, 1, block, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &nn, &param));
	if (!ret)
		ret = workload_check_u32(&w, "out", d[1], want, n);
	workload_close(&w);
	return ret;
}
