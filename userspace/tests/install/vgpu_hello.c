// SPDX-License-Identifier: MIT
/*
 * vgpu_hello.c - an application of the installed libvgpu, built by
 * tools/test-install with `pkg-config --cflags --libs vgpu` alone (shared,
 * then static): the local device by preset name, a module from a PTX file
 * (argv[1]: userspace/tests/ptx/runtime.ptx), a __constant__ table set by
 * name, a struct by value, and two streams: the polynomial over x on one,
 * and over its result on the other, which waits for the first's event.
 * Prints "vgpu_hello: ok" and exits 0 when the results match the CPU's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <vgpu_runtime.h>

struct affine {
	float scale;
	float offset;
	int n;
	double bias;
};

#define FAIL(...) do { fprintf(stderr, "vgpu_hello: " __VA_ARGS__); \
	fprintf(stderr, ": %s\n", vgpu_last_error()); goto out; } while (0)

int main(int argc, char **argv)
{
	enum { N = 256 };
	float x[N], y[N], z[N], coef[8] = { 0.5f, 1.0f, 0.0f, -0.25f };
	struct affine a = { .scale = 3.0f, .offset = 1.0f, .n = N, .bias = 0.0 };
	struct vgpu_device *dev = NULL;
	struct vgpu_context *ctx = NULL;
	struct vgpu_module *mod;
	struct vgpu_function *poly;
	struct vgpu_stream *s1, *s2;
	struct vgpu_event *done;
	vgpu_deviceptr dx, dy, dz;
	int status = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: vgpu_hello runtime.ptx\n");
		return 2;
	}
	if (vgpu_device_open_local_preset("no-such-gpu", 0, &dev) != -EINVAL ||
	    !strstr(vgpu_last_error(), "fermi-gtx480"))
		FAIL("an unknown preset was not refused with the known ones");
	if (vgpu_device_open_local_preset("fermi-gtx480", 16u << 20, &dev))
		FAIL("open");
	if (vgpu_ctx_create(dev, &ctx) || vgpu_module_load(ctx, argv[1], &mod) ||
	    vgpu_module_get_function(mod, "poly", &poly))
		FAIL("module");
	for (int i = 0; i < N; i++)
		x[i] = (float)i / N;
	if (vgpu_stream_create(ctx, &s1) || vgpu_stream_create(ctx, &s2) ||
	    vgpu_event_create(ctx, &done))
		FAIL("streams");
	if (vgpu_mem_alloc(ctx, sizeof(x), &dx) || vgpu_mem_alloc(ctx, sizeof(y), &dy) ||
	    vgpu_mem_alloc(ctx, sizeof(z), &dz) ||
	    vgpu_memcpy_to_symbol(mod, "coef", coef, sizeof(coef), 0) ||
	    vgpu_memcpy_htod_async(ctx, dx, x, sizeof(x), s1))
		FAIL("memory");
	if (vgpu_launch_kernel(poly, N / 64, 1, 1, 64, 1, 1, 0, s1,
			       (void *[]){ &a, &dx, &dy }, 3) ||
	    vgpu_event_record(done, s1) || vgpu_stream_wait_event(s2, done) ||
	    vgpu_launch_kernel(poly, N / 64, 1, 1, 64, 1, 1, 0, s2,
			       (void *[]){ &a, &dy, &dz }, 3))
		FAIL("launch");
	if (vgpu_memcpy_dtoh_async(ctx, z, dz, sizeof(z), s2) ||
	    vgpu_memcpy_dtoh_async(ctx, y, dy, sizeof(y), s1))
		FAIL("copy back");
	for (int i = 0; i < N; i++) {
		float v = x[i], want = (((-0.25f * v + 0.0f) * v + 1.0f) * v + 0.5f) * 3.0f + 1.0f;
		float w = want, want2 = (((-0.25f * w + 0.0f) * w + 1.0f) * w + 0.5f) * 3.0f + 1.0f;

		if (fabsf(y[i] - want) > 1e-4f || fabsf(z[i] - want2) > 1e-3f) {
			fprintf(stderr, "vgpu_hello: y[%d] = %g, want %g; z[%d] = %g, want %g\n",
				i, y[i], want, i, z[i], want2);
			goto out;
		}
	}
	printf("vgpu_hello: ok\n");
	status = 0;
out:
	vgpu_ctx_destroy(ctx);	/* and its streams and event */
	vgpu_device_close(dev);
	return status;
}
