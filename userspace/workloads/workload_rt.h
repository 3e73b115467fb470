/* SPDX-License-Identifier: MIT */
/*
 * workload_rt.h - the one run regbank and ifetch share, on the workload
 * helpers over the runtime API (workload.h).
 */
#ifndef VGPU_WORKLOAD_RT_H
#define VGPU_WORKLOAD_RT_H

#include "workload.h"

/* The largest size (threads) of a workload run by wrt_run_inout(). */
#define WRT_MAX_THREADS	(1u << 24)

/*
 * The whole run of workload @wl, whose kernel of the same name (in, out, n,
 * param) maps @in_words 32-bit words per thread of in to one word of out,
 * n = the run's size threads in blocks of @block: @fill(in, want, n, seed) makes the
 * input and the reference's output; then a context, copies, the launch,
 * out compared with want.
 */
int wrt_run_inout(struct vgpu_device *dev, const struct workload_args *args,
		  const struct vgpu_workload *wl, uint32_t in_words, int32_t param, uint32_t block,
		  void (*fill)(uint32_t *in, uint32_t *want, uint32_t n, uint64_t seed),
		  struct workload_result *res, char *msg, size_t msglen);

#endif /* VGPU_WORKLOAD_RT_H */
