/* SPDX-License-Identifier: MIT */
/*
 * workload_rt.h - the one run regbank and ifetch share, on the workload
 * helpers over the runtime API (workload.h).
 */
#ifndef VGPU_WORKLOAD_RT_H
#define VGPU_WORKLOAD_RT_H

#include "workload.h"

/*
 * The whole run of a workload whose kernel @name(in, out, n, param) maps
 * @in (@in_bytes) to @n 32-bit words of out, one thread each, in blocks
 * of @block: a context, copies, the launch, out compared with @want.
 */
int wrt_run_inout(struct vgpu_device *dev, const char *name, const void *in,
		  size_t in_bytes, uint32_t n, int32_t param, uint32_t block,
		  const uint32_t *want, struct workload_result *res, char *msg, size_t msglen);

#endif /* VGPU_WORKLOAD_RT_H */
