/* SPDX-License-Identifier: MIT */
/*
 * workload_rt.h - what the workloads written on the runtime API
 * (vgpu_runtime.h) share: a context on the device with the workload's PTX
 * as its module, launches on the default stream whose cycles, warp
 * instructions and blocks go to the run's result.
 */
#ifndef VGPU_WORKLOAD_RT_H
#define VGPU_WORKLOAD_RT_H

#include "vgpu_runtime.h"
#include "workload.h"

/**
 * struct wrt - one run of a workload on the runtime API.
 * @ctx: its context; destroying it frees its memory and module.
 * @mod: the workload's PTX.
 * @res: where its launches are summed.
 * @msg: the run's message, where an error is said.
 * @msglen: bytes of @msg.
 */
struct wrt {
	struct vgpu_context *ctx;
	struct vgpu_module *mod;
	struct workload_result *res;
	char *msg;
	size_t msglen;
};

/* A context on @dev with workload @name's PTX loaded; reports in @msg. */
int wrt_open(struct wrt *w, struct vgpu_device *dev, const char *name,
	     struct workload_result *res, char *msg, size_t msglen);
/* Destroys the context, with its memory and module. */
void wrt_close(struct wrt *w);
/* Allocates @bytes at *@d and copies @src (NULL: leaves it) there; reports. */
int wrt_buffer(struct wrt *w, vgpu_deviceptr *d, const void *src, size_t bytes);
/*
 * Launches kernel @kernel on @gx blocks of @bx threads with the arguments
 * @args (vgpu_launch_kernel()'s), waits, and adds it to the result.
 */
int wrt_go(struct wrt *w, const char *kernel, uint32_t gx, uint32_t bx, void **args,
	   unsigned int nargs);
/* Copies @n 32-bit results from @got and compares them with @want, bit for bit. */
int wrt_check_u32(struct wrt *w, const char *what, vgpu_deviceptr got, const uint32_t *want,
		  size_t n);

/*
 * The whole run of a workload whose kernel @name(in, out, n, param) maps
 * @in (@in_bytes) to @n 32-bit words of out, one thread each, in blocks
 * of @block: loads, copies, launches, compares out with @want.
 */
int wrt_run_inout(struct vgpu_device *dev, const char *name, const void *in,
		  size_t in_bytes, uint32_t n, int32_t param, uint32_t block,
		  const uint32_t *want, struct workload_result *res, char *msg, size_t msglen);

#endif /* VGPU_WORKLOAD_RT_H */
