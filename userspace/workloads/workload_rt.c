// SPDX-License-Identifier: MIT
/*
 * workload_rt.c - the runtime API side of the workloads written on it
 * (workload_rt.h): a CUDA driver API program's shape.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_rt.h"

/* Says in the run's message what failed, with the runtime's last error. */
static int wrt_fail(struct wrt *w, int ret, const char *what)
{
	snprintf(w->msg, w->msglen, "%s: %s (%s)", what, strerror(-ret), vgpu_last_error());
	return ret;
}

int wrt_open(struct wrt *w, struct vgpu_device *dev, const char *name,
	     struct workload_result *res, char *msg, size_t msglen)
{
	const struct vgpu_embedded_ptx *ptx = workload_ptx(name);
	int ret;

	memset(w, 0, sizeof(*w));
	w->res = res;
	w->msg = msg;
	w->msglen = msglen;
	if (!ptx) {
		snprintf(msg, msglen, "no PTX for workload '%s'", name);
		return -ENOENT;
	}
	ret = vgpu_ctx_create(dev, &w->ctx);
	if (ret)
		return wrt_fail(w, ret, "context");
	ret = vgpu_module_load_data(w->ctx, ptx->text, ptx->len, &w->mod);
	if (ret) {
		wrt_fail(w, ret, name);
		wrt_close(w);
	}
	return ret;
}

void wrt_close(struct wrt *w)
{
	vgpu_ctx_destroy(w->ctx);
	w->ctx = NULL;
	w->mod = NULL;
}

int wrt_buffer(struct wrt *w, vgpu_deviceptr *d, const void *src, size_t bytes)
{
	int ret = vgpu_mem_alloc(w->ctx, bytes, d);

	if (ret)
		return wrt_fail(w, ret, "allocation");
	ret = src ? vgpu_memcpy_htod(w->ctx, *d, src, bytes) : 0;
	return ret ? wrt_fail(w, ret, "copy to the device") : 0;
}

int wrt_go(struct wrt *w, const char *kernel, uint32_t gx, uint32_t bx, void **args,
	   unsigned int nargs)
{
	struct vgpu_function *f;
	struct vgpu_job_result jr;
	int ret = vgpu_module_get_function(w->mod, kernel, &f);

	if (!ret)
		ret = vgpu_launch_kernel(f, gx, 1, 1, bx, 1, 1, 0, NULL, args, nargs);
	if (!ret)
		ret = vgpu_ctx_last_result(w->ctx, &jr);
	if (ret)
		return wrt_fail(w, ret, kernel);
	w->res->launches++;
	w->res->cycles += jr.cycles;
	w->res->warp_insts += jr.warp_insts;
	w->res->tbs += jr.tbs_done;
	return 0;
}

int wrt_check_u32(struct wrt *w, const char *what, vgpu_deviceptr got, const uint32_t *want,
		  size_t n)
{
	uint32_t *buf = malloc(n ? n * 4 : 1);
	int ret;

	if (!buf) {
		snprintf(w->msg, w->msglen, "out of memory");
		return -ENOMEM;
	}
	ret = vgpu_memcpy_dtoh(w->ctx, buf, got, n * 4);
	if (ret)
		ret = wrt_fail(w, ret, "copy from the device");
	else
		ret = workload_cmp_u32(what, buf, want, n, w->msg, w->msglen);
	free(buf);
	return ret;
}

int wrt_run_inout(struct vgpu_device *dev, const char *name, const void *in,
		  size_t in_bytes, uint32_t n, int32_t param, uint32_t block,
		  const uint32_t *want, struct workload_result *res, char *msg, size_t msglen)
{
	int32_t nn = (int32_t)n;
	vgpu_deviceptr din, dout;
	struct wrt w;
	int ret = wrt_open(&w, dev, name, res, msg, msglen);

	if (ret)
		return ret;
	ret = wrt_buffer(&w, &din, in, in_bytes);
	if (!ret)
		ret = wrt_buffer(&w, &dout, NULL, (size_t)n * 4);
	if (!ret)
		ret = wrt_go(&w, name, (n + block - 1) / block, block,
			     (void *[]){ &din, &dout, &nn, &param }, 4);
	if (!ret)
		ret = wrt_check_u32(&w, "out", dout, want, n);
	wrt_close(&w);
	return ret;
}
