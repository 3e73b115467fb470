// SPDX-License-Identifier: MIT
/*
 * test_runtime.c - libvgpu's runtime (vgpu_runtime.h) on the local device:
 * the CUDA program userspace/tests/ptx/runtime.cu ported to it, checked
 * against CPU references (a struct passed by value, a __constant__ table
 * and __device__ variables by name, 8- and 16-bit parameters, a fault),
 * streams and events (a dependency between two streams through an event,
 * a chain on one stream, errors at synchronise, simulated elapsed time),
 * and the errors of bad input, each naming what was wrong.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler/vgpu_compile.h"
#include "compiler/vgpu_compile_meta.h"
#include "tap.h"
#include "vgpu_runtime.h"
#include "vgpu_runtime_int.h"

#define PTX_PATH	"userspace/tests/ptx/runtime.ptx"

/*
 * --device PATH: the render node at PATH instead of the local device (the
 * guest runs it so, tools/check's e2e stage); the ported program and its
 * streams the same, checked against the same CPU references.
 */
static const char *device_path;

/* struct Affine of runtime.cu, as the host compiler lays it out too. */
struct affine {
	float scale;
	float offset;
	int32_t n;
	double bias;
};

struct fixture {
	struct vgpu_device *dev;
	struct vgpu_context *ctx;
	struct vgpu_module *mod;
	char *ptx;
	size_t ptx_len;
};

/*
 * The fixture: the local device, a context, runtime.ptx. With @kernel_copy
 * the module's variables are reached as on the render node, through the
 * runtime's copy kernel (vgpu_runtime_int.h).
 */
static int setup_mode(struct fixture *f, bool kernel_copy)
{
	memset(f, 0, sizeof(*f));
	f->ptx = read_src(PTX_PATH, &f->ptx_len);
	CHECK(f->ptx, "cannot read %s", PTX_PATH);
	if (device_path)
		CHECK(vgpu_device_open(device_path, &f->dev) == 0, "open %s: %s", device_path,
		      vgpu_last_error());
	else
		CHECK(vgpu_device_open_local_preset(NULL, 64ull << 20, &f->dev) == 0, "open: %s",
		      vgpu_last_error());
	CHECK(vgpu_ctx_create(f->dev, &f->ctx) == 0, "ctx: %s", vgpu_last_error());
	vgpu_ctx_set_kernel_copy(f->ctx, kernel_copy);
	CHECK(vgpu_module_load_data(f->ctx, f->ptx, 0, &f->mod) == 0, "module: %s",
	      vgpu_last_error());
	return 0;
}

static int setup(struct fixture *f)
{
	return setup_mode(f, false);
}

static void teardown(struct fixture *f)
{
	vgpu_ctx_destroy(f->ctx);	/* unloads f->mod and frees the memory */
	vgpu_device_close(f->dev);
	free(f->ptx);
}

/* Does the thread's last error message contain every one of @parts? */
static int says(const char *const *parts)
{
	for (; *parts; parts++) {
		if (!strstr(vgpu_last_error(), *parts)) {
			printf("#   message \"%s\" lacks \"%s\"\n", vgpu_last_error(), *parts);
			return 0;
		}
	}
	return 1;
}
#define SAYS(...)	says((const char *const[]){ __VA_ARGS__, NULL })

static int test_open_preset(void)
{
	struct vgpu_device *dev = NULL;
	uint64_t vram = 0;
	int ret;

	ret = vgpu_device_open_local_preset("voodoo2", 0, &dev);
	CHECK(ret == -EINVAL, "unknown preset: %d", ret);
	CHECK(SAYS("unknown GPU preset 'voodoo2'", "fermi-gtx480", "maxwell-gtx980"),
	      "message");
	CHECK(vgpu_local_presets()[0] != NULL, "presets listed");
	ret = vgpu_device_open_local_preset("maxwell-gtx980", 32ull << 20, &dev);
	CHECK(ret == 0, "maxwell-gtx980: %s", vgpu_last_error());
	ret = vgpu_get_param(dev, DRM_VGPU_PARAM_VRAM_SIZE, &vram);
	vgpu_device_close(dev);
	CHECK(ret == 0 && vram == 32ull << 20, "vram %llu", (unsigned long long)vram);
	return 0;
}

static float poly_ref(const float coef[8], const struct affine *a, float x)
{
	float r = 0.0f;

	for (int k = 7; k >= 0; k--)
		r = fmaf(r, x, coef[k]);
	return r * a->scale + a->offset + (float)a->bias;
}

/* The struct by value and the __constant__ table, set by name and by address. */
static int test_poly(bool kernel_copy)
{
	enum { N = 1000 };
	static float x[N], out[N];
	float coef[8] = { 1.0f, -0.5f, 0.25f, 0.125f, -0.0625f, 0.03125f, 0.0f, 0.001f };
	struct affine a = { .scale = 2.0f, .offset = -1.0f, .n = N - 3, .bias = 0.5 };
	struct vgpu_function *fn;
	vgpu_deviceptr dx, dout, dcoef;
	struct fixture f;
	size_t bytes = 0, off = 0, size = 0;
	int value = 0, r = -1;

	if (setup_mode(&f, kernel_copy))
		goto out;
	for (int i = 0; i < N; i++)
		x[i] = (float)(i % 37) / 17.0f - 1.0f;
	MCHECK(vgpu_module_get_function(f.mod, "poly", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(strcmp(vgpu_func_name(fn), "_Z4poly6AffinePKfPf") == 0, "%s", vgpu_func_name(fn));
	MCHECK(vgpu_func_get_attribute(fn, VGPU_FUNC_ATTRIBUTE_NUM_PARAMS, &value) == 0 &&
	       value == 3, "params %d", value);
	MCHECK(vgpu_func_get_attribute(fn, VGPU_FUNC_ATTRIBUTE_PARAM_SIZE_BYTES, &value) == 0 &&
	       value == 40, "param bytes %d", value);
	MCHECK(vgpu_func_get_param_info(fn, 0, &off, &size) == 0 && off == 0 && size == 24,
	       "struct param at %zu, %zu bytes", off, size);
	MCHECK(vgpu_func_get_param_info(fn, 2, &off, &size) == 0 && off == 32 && size == 8,
	       "out at %zu, %zu bytes", off, size);
	MCHECK(vgpu_mem_alloc(f.ctx, sizeof(x), &dx) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, sizeof(out), &dout) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod(f.ctx, dx, x, sizeof(x)) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memset_d32(f.ctx, dout, 0x7fc00000u, N) == 0, "%s", vgpu_last_error());

	/* cudaMemcpyToSymbol */
	MCHECK(vgpu_memcpy_to_symbol(f.mod, "coef", coef, sizeof(coef), 0) == 0, "%s",
	       vgpu_last_error());
	{
		void *args[] = { &a, &dx, &dout };

		MCHECK(vgpu_launch_kernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args,
					  3) == 0, "launch: %s", vgpu_last_error());
	}
	MCHECK(vgpu_memcpy_dtoh(f.ctx, out, dout, sizeof(out)) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++) {
		float want = poly_ref(coef, &a, x[i]);

		if (i >= a.n)
			MCHECK(isnan(out[i]), "out[%d] = %g written past n", i, out[i]);
		else
			MCHECK(fabsf(out[i] - want) <= 1e-5f * fmaxf(1.0f, fabsf(want)),
			       "out[%d] = %.9g, want %.9g", i, out[i], want);
	}

	/* cuModuleGetGlobal + cuMemcpyHtoD: another table at its address */
	MCHECK(vgpu_module_get_global(f.mod, "coef", &dcoef, &bytes) == 0, "%s",
	       vgpu_last_error());
	MCHECK(bytes == sizeof(coef), "coef is %zu bytes", bytes);
	for (int k = 0; k < 8; k++)
		coef[k] = (float)(k + 1) * 0.1f;
	MCHECK(vgpu_memcpy_htod(f.ctx, dcoef + 16, coef + 4, 16) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod(f.ctx, dcoef, coef, 16) == 0, "%s", vgpu_last_error());
	a.n = N;
	a.bias = -0.25;
	MCHECK(vgpu_launch_kernel_args(fn, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL,
				       (struct vgpu_arg[]){ VGPU_ARG(a), VGPU_ARG(dx),
							    VGPU_ARG(dout) }, 3) == 0,
	       "launch: %s", vgpu_last_error());
	MCHECK(vgpu_memcpy_dtoh(f.ctx, out, dout, sizeof(out)) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++) {
		float want = poly_ref(coef, &a, x[i]);

		MCHECK(fabsf(out[i] - want) <= 1e-5f * fmaxf(1.0f, fabsf(want)),
		       "second table: out[%d] = %.9g, want %.9g", i, out[i], want);
	}
	{
		struct vgpu_job_result res;

		MCHECK(vgpu_ctx_last_result(f.ctx, &res) == 0 && res.cycles > 0 &&
		       res.tbs_done == (N + 63) / 64, "result: %llu cycles, %llu blocks",
		       (unsigned long long)res.cycles, (unsigned long long)res.tbs_done);
	}
	r = 0;
out:
	teardown(&f);
	return r;
}

/* 8- and 16-bit parameters between 64- and 32-bit ones. */
static int test_mix8(void)
{
	enum { N = 300 };
	uint8_t in[N], out[N];
	uint8_t add = 200;
	int16_t mul = -3;
	char flip = 0x5a;
	int32_t n = N;
	struct vgpu_function *fn;
	vgpu_deviceptr din, dout;
	struct fixture f;
	size_t off = 0, size = 0;
	int r = -1;

	if (setup(&f))
		goto out;
	for (int i = 0; i < N; i++)
		in[i] = (uint8_t)(i * 7 + 3);
	MCHECK(vgpu_module_get_function(f.mod, "mix8", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_func_get_param_info(fn, 3, &off, &size) == 0 && off == 18 && size == 2,
	       "short at %zu, %zu bytes", off, size);
	MCHECK(vgpu_func_get_param_info(fn, 4, &off, &size) == 0 && off == 20 && size == 1,
	       "char at %zu, %zu bytes", off, size);
	MCHECK(vgpu_mem_alloc(f.ctx, N, &din) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, N, &dout) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod(f.ctx, din, in, N) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memset_d8(f.ctx, dout, 0, N) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_launch_kernel_args(fn, 3, 1, 1, 128, 1, 1, 0, NULL,
				       (struct vgpu_arg[]){ VGPU_ARG(din), VGPU_ARG(dout),
							    VGPU_ARG(add), VGPU_ARG(mul),
							    VGPU_ARG(flip), VGPU_ARG(n) }, 6) == 0,
	       "launch: %s", vgpu_last_error());
	MCHECK(vgpu_memcpy_dtoh(f.ctx, out, dout, N) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++) {
		uint8_t want = (uint8_t)(((in[i] + add) * mul) ^ flip);

		MCHECK(out[i] == want, "out[%d] = %u, want %u", i, out[i], want);
	}
	r = 0;
out:
	teardown(&f);
	return r;
}

/*
 * The layer below packs the same block by hand: vgpu_params_u8/u16 and a
 * struct's raw bytes (vgpu_params_bytes) at the offsets the PTX declares.
 */
static int test_params_by_hand(void)
{
	struct affine a = { .scale = 1.0f, .offset = 0.0f, .n = 1, .bias = 0.0 };
	struct vgpu_function *poly, *mix8;
	uint8_t in[128], out[128];
	vgpu_deviceptr din, dout;
	struct vgpu_params p;
	struct fixture f;
	size_t off = 0;
	int r = -1;

	if (setup(&f))
		goto out;
	MCHECK(vgpu_module_get_function(f.mod, "mix8", &mix8) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_module_get_function(f.mod, "poly", &poly) == 0, "%s", vgpu_last_error());
	vgpu_params_init(&p);
	vgpu_params_u64(&p, 0x1111);
	vgpu_params_u64(&p, 0x2222);
	vgpu_params_u8(&p, 0xab);
	vgpu_params_u16(&p, 0xcdef);
	vgpu_params_u8(&p, 0x5a);
	vgpu_params_u32(&p, 77);
	MCHECK(!p.overflow && p.size == 28, "mix8 block: %u bytes", p.size);
	MCHECK(vgpu_func_get_param_info(mix8, 3, &off, NULL) == 0 && off == 18 &&
	       p.bytes[16] == 0xab && p.bytes[18] == 0xef && p.bytes[19] == 0xcd &&
	       p.bytes[20] == 0x5a && p.bytes[24] == 77, "mix8 layout");
	/* the hand-made block launched, on real buffers */
	MCHECK(vgpu_mem_alloc(f.ctx, 128, &din) == 0 && vgpu_mem_alloc(f.ctx, 128, &dout) == 0,
	       "%s", vgpu_last_error());
	for (int i = 0; i < 128; i++)
		in[i] = (uint8_t)(i * 5);
	MCHECK(vgpu_memcpy_htod(f.ctx, din, in, 128) == 0, "%s", vgpu_last_error());
	vgpu_params_init(&p);
	vgpu_params_u64(&p, din);
	vgpu_params_u64(&p, dout);
	vgpu_params_u8(&p, 0xab);
	vgpu_params_u16(&p, 0xcdef);
	vgpu_params_u8(&p, 0x5a);
	vgpu_params_u32(&p, 100);
	MCHECK(vgpu_launch_kernel_packed(mix8, 1, 1, 1, 128, 1, 1, 0, NULL, p.bytes, p.size) == 0,
	       "packed: %s", vgpu_last_error());
	MCHECK(vgpu_memcpy_dtoh(f.ctx, out, dout, 128) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < 128; i++) {
		uint8_t want = i < 100 ? (uint8_t)(((in[i] + 0xab) * (int16_t)0xcdef) ^ 0x5a) : 0;

		MCHECK(out[i] == want, "out[%d] = %u, want %u", i, out[i], want);
	}
	vgpu_params_init(&p);
	vgpu_params_bytes(&p, &a, sizeof(a), 8);
	vgpu_params_u64(&p, 0);
	vgpu_params_u64(&p, 0);
	MCHECK(!p.overflow && p.size == 40, "poly block: %u bytes", p.size);
	vgpu_params_init(&p);
	vgpu_params_u8(&p, 1);
	vgpu_params_bytes(&p, &a, sizeof(a), 8);
	MCHECK(!p.overflow && p.size == 32 && memcmp(p.bytes + 8, &a, sizeof(a)) == 0,
	       "struct after a byte: aligned to 8");
	vgpu_params_bytes(&p, &a, sizeof(a), 3);
	MCHECK(p.overflow, "an alignment not a power of two overflows");
	vgpu_params_init(&p);
	for (int i = 0; i < DRM_VGPU_MAX_PARAM_BYTES / 16; i++)
		vgpu_params_bytes(&p, p.bytes, 16, 16);
	MCHECK(!p.overflow && p.size == DRM_VGPU_MAX_PARAM_BYTES, "full block");
	vgpu_params_u8(&p, 0);
	MCHECK(p.overflow, "one byte past the block overflows");
	r = 0;
out:
	teardown(&f);
	return r;
}

/* __device__ variables: an array zeroed at load, a counter initialised to 7. */
static int test_device_globals(bool kernel_copy)
{
	enum { N = 2000 };
	static uint32_t in[N];
	uint32_t counts[16], want[16] = { 0 };
	int32_t calls = 0, n = N;
	struct vgpu_function *fn;
	vgpu_deviceptr din;
	struct fixture f;
	int r = -1, ret;

	if (setup_mode(&f, kernel_copy))
		goto out;
	for (int i = 0; i < N; i++) {
		in[i] = (uint32_t)i * 2654435761u;
		want[in[i] & 15] += 2;
	}
	MCHECK(vgpu_memcpy_from_symbol(f.mod, "calls", &calls, 4, 0) == 0 && calls == 7,
	       "calls %d: %s", calls, vgpu_last_error());
	MCHECK(vgpu_module_get_function(f.mod, "histo16", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, sizeof(in), &din) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod(f.ctx, din, in, sizeof(in)) == 0, "%s", vgpu_last_error());
	for (int k = 0; k < 2; k++) {
		void *args[] = { &din, &n };

		MCHECK(vgpu_launch_kernel(fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args,
					  2) == 0, "launch: %s", vgpu_last_error());
	}
	MCHECK(vgpu_memcpy_from_symbol(f.mod, "counts", counts, sizeof(counts), 0) == 0, "%s",
	       vgpu_last_error());
	for (int b = 0; b < 16; b++)
		MCHECK(counts[b] == want[b], "counts[%d] = %u, want %u", b, counts[b], want[b]);
	MCHECK(vgpu_memcpy_from_symbol(f.mod, "calls", &calls, 4, 0) == 0 && calls == 9,
	       "calls %d after two launches", calls);
	/* by address: device to device, memset, and past the end */
	{
		vgpu_deviceptr dcounts, dcalls;
		uint32_t back[16];

		MCHECK(vgpu_module_get_global(f.mod, "counts", &dcounts, NULL) == 0 &&
		       vgpu_module_get_global(f.mod, "calls", &dcalls, NULL) == 0, "%s",
		       vgpu_last_error());
		MCHECK(vgpu_memcpy_dtod(f.ctx, din, dcounts, sizeof(counts)) == 0, "%s",
		       vgpu_last_error());
		MCHECK(vgpu_memcpy_dtoh(f.ctx, back, din, sizeof(back)) == 0 &&
		       memcmp(back, counts, sizeof(back)) == 0, "dtod from a variable");
		MCHECK(vgpu_memset_d32(f.ctx, dcounts + 8, 0xabcdu, 2) == 0, "%s",
		       vgpu_last_error());
		MCHECK(vgpu_memcpy_dtod(f.ctx, dcalls, din + 12, 4) == 0, "%s", vgpu_last_error());
		MCHECK(vgpu_memcpy_dtoh(f.ctx, back, dcounts, sizeof(back)) == 0 &&
		       back[1] == counts[1] && back[2] == 0xabcd && back[3] == 0xabcd &&
		       back[4] == counts[4], "memset of a variable");
		MCHECK(vgpu_memcpy_from_symbol(f.mod, "calls", &calls, 4, 0) == 0 &&
		       (uint32_t)calls == counts[3], "dtod into a variable: %d", calls);
		ret = vgpu_memcpy_dtoh(f.ctx, back, dcounts + 4, sizeof(back));
		MCHECK(ret == -EFAULT && SAYS("past the end of variable 'counts' (64 bytes)"),
		       "past a variable: %d", ret);
	}
	if (kernel_copy) {
		struct vgpu_function *own;

		ret = vgpu_module_get_function(f.mod, "__vgpu_rt_copy", &own);
		MCHECK(ret == -ENOENT && SAYS("(kernels: _Z4poly6AffinePKfPf, _Z4mix8PKhPhhsci, "
					      "_Z7histo16PKji, _Z4pokePii)"),
		       "the runtime's own kernel is hidden");
		ret = vgpu_module_get_global(f.mod, "__vgpu_rt_anchor", NULL, NULL);
		MCHECK(ret == -ENOENT && SAYS("(variables: coef, counts, calls)"),
		       "the runtime's own variable is hidden");
	}
	r = 0;
out:
	teardown(&f);
	return r;
}

/* Bad input: each error names what was wrong. */
static int test_errors(void)
{
	struct vgpu_function *fn = NULL, *poly = NULL;
	int32_t n = 1, big[4] = { 0 };
	vgpu_deviceptr d, dcoef;
	struct fixture f;
	int r = -1, ret;

	if (setup(&f))
		goto out;
	ret = vgpu_module_get_function(f.mod, "nosuch", &fn);
	MCHECK(ret == -ENOENT && SAYS("no kernel 'nosuch'", "_Z4poly6AffinePKfPf",
				      "_Z4pokePii"), "unknown function: %d", ret);
	MCHECK(vgpu_module_get_function(f.mod, "histo16", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_module_get_function(f.mod, "poly", &poly) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, 256, &d) == 0, "%s", vgpu_last_error());
	{
		void *args[] = { &d };

		ret = vgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, 1);
		MCHECK(ret == -EINVAL && SAYS("kernel _Z7histo16PKji takes 2 parameters",
					      "param_0, param_1", "1 given"),
		       "wrong count: %d", ret);
	}
	ret = vgpu_launch_kernel_args(fn, 1, 1, 1, 32, 1, 1, 0, NULL,
				      (struct vgpu_arg[]){ VGPU_ARG(n), VGPU_ARG(n) }, 2);
	MCHECK(ret == -EINVAL && SAYS("parameter 0 (param_0)", "is 8 bytes, 4 given"),
	       "wrong size: %d", ret);
	ret = vgpu_launch_kernel_args(poly, 1, 1, 1, 32, 1, 1, 0, NULL,
				      (struct vgpu_arg[]){ VGPU_ARG(big), VGPU_ARG(d),
							   VGPU_ARG(d) }, 3);
	MCHECK(ret == -EINVAL && SAYS("parameter 0", "is 24 bytes, 16 given"),
	       "struct of the wrong size: %d", ret);
	ret = vgpu_launch_kernel_packed(fn, 1, 1, 1, 32, 1, 1, 0, NULL, big, 8);
	MCHECK(ret == -EINVAL && SAYS("parameter block of 12 bytes, 8 given"),
	       "packed size: %d", ret);
	{
		void *args[] = { &d, &n };

		ret = vgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0,
					 (struct vgpu_stream *)&n, args, 2);
		MCHECK(ret == -EINVAL && SAYS("launch of kernel _Z7histo16PKji: stream",
					      "does not exist"), "stray stream: %d", ret);
		ret = vgpu_launch_kernel(fn, 1, 1, 1, 100000, 1, 1, 0, NULL, args, 2);
		MCHECK(ret < 0 && SAYS("launch of kernel _Z7histo16PKji", "block 100000x1x1"),
		       "huge block: %d", ret);
	}
	ret = vgpu_module_get_global(f.mod, "nosuch", NULL, NULL);
	MCHECK(ret == -ENOENT && SAYS("no variable 'nosuch'", "coef, counts, calls"),
	       "unknown global: %d", ret);
	ret = vgpu_memcpy_to_symbol(f.mod, "coef", big, 8, 28);
	MCHECK(ret == -EFAULT && SAYS("offset 28 of variable 'coef'", "(32 bytes)"),
	       "past a global by name: %d", ret);
	MCHECK(vgpu_module_get_global(f.mod, "coef", &dcoef, NULL) == 0, "%s", vgpu_last_error());
	ret = vgpu_memcpy_htod(f.ctx, dcoef + 24, big, 16);
	MCHECK(ret == -EFAULT && SAYS("runs past the end of variable 'coef' (32 bytes)"),
	       "past a global by address: %d", ret);
	ret = vgpu_memcpy_htod(f.ctx, d + 200, big, 64);
	MCHECK(ret == -EFAULT && SAYS("runs past the end of its allocation"),
	       "past an allocation: %d", ret);
	ret = vgpu_memcpy_dtoh(f.ctx, big, 0x10, 4);
	MCHECK(ret == -EFAULT && SAYS("at 0x10", "no allocation"), "stray address: %d", ret);
	ret = vgpu_mem_free(f.ctx, d + 4);
	MCHECK(ret == -EINVAL && SAYS("no allocation starts at"), "bad free: %d", ret);
	MCHECK(vgpu_mem_free(f.ctx, d) == 0, "%s", vgpu_last_error());
	r = 0;
out:
	teardown(&f);
	return r;
}

/* A fault's message names the kernel, the block, the instruction and the address. */
static int test_fault(void)
{
	struct vgpu_function *fn;
	struct vgpu_job_result res;
	vgpu_deviceptr bad = 0x10;
	struct fixture f;
	int32_t v = 5;
	char want[64];
	int r = -1, ret;

	if (setup(&f))
		goto out;
	MCHECK(vgpu_module_get_function(f.mod, "poke", &fn) == 0, "%s", vgpu_last_error());
	{
		void *args[] = { &bad, &v };

		ret = vgpu_launch_kernel(fn, 4, 1, 1, 32, 1, 1, 0, NULL, args, 2);
	}
	MCHECK(ret == -EFAULT, "fault: %d (%s)", ret, vgpu_last_error());
	MCHECK(vgpu_ctx_last_result(f.ctx, &res) == 0 && res.error == -EFAULT, "result");
	snprintf(want, sizeof(want), "instruction %u", res.fault_pc);
	MCHECK(SAYS("in kernel _Z4pokePii", "block 2", want, "address 0x10"), "message");
	r = 0;
out:
	teardown(&f);
	return r;
}

/* A module from a program image: kernels by name, but no parameter list. */
static int test_image_module(void)
{
	struct vgpu_module *img = NULL;
	struct vgpu_function *fn;
	void *image = NULL;
	size_t size = 0;
	struct {
		uint64_t in;
		int32_t n;
	} packed = { 0, 0 };
	struct fixture f;
	int value = 0, r = -1, ret;

	if (setup(&f))
		goto out;
	MCHECK(vgpu_compile_ptx(f.ptx, f.ptx_len, &image, &size, NULL, 0) == 0, "compile");
	MCHECK(vgpu_module_load_data(f.ctx, image, size, &img) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_module_get_function(img, "histo16", &fn) == 0, "%s", vgpu_last_error());
	ret = vgpu_launch_kernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, (void *[]){ &packed, &packed },
				 2);
	MCHECK(ret == -ENODATA && SAYS("loaded from a program image",
				       "vgpu_launch_kernel_packed()"), "void **: %d", ret);
	ret = vgpu_func_get_attribute(fn, VGPU_FUNC_ATTRIBUTE_NUM_PARAMS, &value);
	MCHECK(ret == -ENODATA, "num params of an image: %d", ret);
	ret = vgpu_module_get_global(img, "counts", NULL, NULL);
	MCHECK(ret == -ENODATA && SAYS("program image", "'counts'"), "global: %d", ret);
	/* n = 0: only the calls counter moves, the image's own copy of it */
	MCHECK(vgpu_launch_kernel_packed(fn, 1, 1, 1, 32, 1, 1, 0, NULL, &packed, 12) == 0,
	       "packed: %s", vgpu_last_error());
	vgpu_module_unload(img);
	r = 0;
out:
	free(image);
	teardown(&f);
	return r;
}

/* A kernel as nvcc writes one: out[i] = 2 in[i] for i < n. */
static const char twice_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry twice(.param .u64 twice_param_0, .param .u64 twice_param_1,\n"
	"\t.param .u32 twice_param_2)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [twice_param_0];\n"
	"\tld.param.u64 %rd2, [twice_param_1];\n"
	"\tld.param.u32 %r2, [twice_param_2];\n"
	"\tmov.u32 %r3, %ctaid.x;\n\tmov.u32 %r4, %ntid.x;\n\tmov.u32 %r5, %tid.x;\n"
	"\tmad.lo.s32 %r1, %r3, %r4, %r5;\n"
	"\tsetp.ge.u32 %p1, %r1, %r2;\n"
	"\t@%p1 bra $done;\n"
	"\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n"
	"\tmul.wide.u32 %rd5, %r1, 4;\n"
	"\tadd.s64 %rd6, %rd3, %rd5;\n\tld.global.u32 %r3, [%rd6];\n"
	"\tshl.b32 %r3, %r3, 1;\n"
	"\tadd.s64 %rd7, %rd4, %rd5;\n\tst.global.u32 [%rd7], %r3;\n"
	"$done:\n\tret;\n}\n";

/* One that reads what a global atomic returned: no virtual thread blocks. */
static const char ticket_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry ticket(.param .u64 ticket_param_0)\n"
	"{\n"
	"\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [ticket_param_0];\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n"
	"\tatom.global.add.u32 %r1, [%rd2], 1;\n"
	"\tst.global.u32 [%rd2+4], %r1;\n"
	"\tret;\n}\n";

/*
 * Compile options at load (cuModuleLoadDataEx): virtual thread blocks,
 * the same results; PTX they refuse, unknown options and an image with
 * options are errors that say so.
 */
static int test_module_opts(void)
{
	enum { N = 300 };
	static uint32_t in[N], out[N];
	struct vgpu_module *mod = NULL, *img = NULL;
	struct vgpu_function *fn;
	vgpu_deviceptr din, dout;
	struct fixture f;
	void *image = NULL;
	size_t size = 0;
	uint32_t n = N;
	int r = -1, ret;

	if (setup(&f))
		goto out;
	for (int i = 0; i < N; i++)
		in[i] = (uint32_t)i * 7u + 1u;
	MCHECK(vgpu_module_load_data_opts(f.ctx, twice_ptx, 0, VGPU_COMPILE_VIRTUAL_TB,
					  &mod) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_module_get_function(mod, "twice", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_program_entry(vgpu_module_program(mod), 0)->flags & VGPU_ENTRY_VIRTUAL_TB,
	       "the entry is not in virtual thread blocks");
	MCHECK(vgpu_mem_alloc(f.ctx, sizeof(in), &din) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, sizeof(out), &dout) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod(f.ctx, din, in, sizeof(in)) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_launch_kernel(fn, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL,
				  (void *[]){ &din, &dout, &n }, 3) == 0, "launch: %s",
	       vgpu_last_error());
	MCHECK(vgpu_memcpy_dtoh(f.ctx, out, dout, sizeof(out)) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++)
		MCHECK(out[i] == 2 * in[i], "out[%d] = %u, want %u", i, out[i], 2 * in[i]);
	vgpu_module_unload(mod);
	mod = NULL;

	/* 0 is vgpu_module_load_data(): the entry as the PTX has it */
	MCHECK(vgpu_module_load_data_opts(f.ctx, twice_ptx, 0, 0, &mod) == 0, "%s",
	       vgpu_last_error());
	MCHECK(!(vgpu_program_entry(vgpu_module_program(mod), 0)->flags &
		 VGPU_ENTRY_VIRTUAL_TB), "virtual thread blocks without the option");
	vgpu_module_unload(mod);
	mod = NULL;

	ret = vgpu_module_load_data_opts(f.ctx, ticket_ptx, 0, VGPU_COMPILE_VIRTUAL_TB, &mod);
	MCHECK(ret == -EINVAL && SAYS("ptx:", "virtual thread blocks: 'ticket'",
				      "global atomic"), "refused: %d", ret);
	MCHECK(vgpu_module_load_data(f.ctx, ticket_ptx, 0, &mod) == 0, "%s", vgpu_last_error());
	vgpu_module_unload(mod);
	mod = NULL;
	ret = vgpu_module_load_data_opts(f.ctx, twice_ptx, 0, 0x100, &mod);
	MCHECK(ret == -EINVAL && SAYS("ptx: unknown compile options 0x100"), "unknown: %d", ret);
	MCHECK(vgpu_compile_ptx(twice_ptx, strlen(twice_ptx), &image, &size, NULL, 0) == 0,
	       "compile");
	ret = vgpu_module_load_data_opts(f.ctx, image, size, VGPU_COMPILE_VIRTUAL_TB, &img);
	MCHECK(ret == -EINVAL && SAYS("program image", "compiled already"), "image: %d", ret);
	r = 0;
out:
	vgpu_module_unload(mod);
	vgpu_module_unload(img);
	free(image);
	teardown(&f);
	return r;
}

/* Modules from files: PTX by path, and a compile error naming file and line. */
static int test_module_file(void)
{
	char path[] = "/tmp/vgpu-test-runtime-XXXXXX";
	struct vgpu_module *mod = NULL;
	struct vgpu_function *fn;
	struct fixture f;
	FILE *fp = NULL;
	int fd, r = -1, ret;

	if (setup(&f))
		goto out;
	fd = mkstemp(path);
	MCHECK(fd >= 0, "mkstemp");
	fp = fdopen(fd, "w");
	MCHECK(fp && fwrite(f.ptx, 1, f.ptx_len, fp) == f.ptx_len && fflush(fp) == 0, "write");
	MCHECK(vgpu_module_load(f.ctx, path, &mod) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_module_get_function(mod, "mix8", &fn) == 0, "%s", vgpu_last_error());
	vgpu_module_unload(mod);
	MCHECK(freopen(path, "w", fp) && fputs(".version 7.0\n.target sm_75\n"
					       ".address_size 64\n.visible .entry k()\n{\n"
					       "\tfrobnicate;\n}\n", fp) >= 0 &&
	       fflush(fp) == 0, "rewrite");
	ret = vgpu_module_load(f.ctx, path, &mod);
	MCHECK(ret == -EINVAL && SAYS(strrchr(path, '/') + 1, ":6:"), "compile error: %d", ret);
	ret = vgpu_module_load(f.ctx, "/nonexistent/k.ptx", &mod);
	MCHECK(ret == -ENOENT && SAYS("/nonexistent/k.ptx"), "missing file: %d", ret);
	r = 0;
out:
	if (fp)
		fclose(fp);
	unlink(path);
	teardown(&f);
	return r;
}

/* The compiler's metadata for declarations nvcc does not emit in runtime.ptx. */
static int test_compile_meta(void)
{
	static const char ptx[] =
		".version 7.0\n.target sm_75\n.address_size 64\n"
		".const .align 4 .u32 lut[4] = { 1, 2, 3, 4 };\n"
		".shared .align 4 .b8 tile[256];\n"
		".global .align 16 .b8 blob[40];\n"
		".visible .entry k(.param .u8 a, .param .align 16 .b8 v[32], .param .u16 b,\n"
		"\t.param .u32 c[3], .param .f64 d)\n{\n\tret;\n}\n"
		".visible .entry none()\n{\n\tret;\n}\n";
	static const struct { const char *name; uint32_t offset, size, align; } want[] = {
		{ "a", 0, 1, 1 }, { "v", 16, 32, 16 }, { "b", 48, 2, 2 }, { "c", 52, 12, 4 },
		{ "d", 64, 8, 8 },
	};
	struct vgpu_compile_meta *meta = NULL;
	const struct vgpu_compile_kernel *k;
	void *image = NULL;
	size_t size = 0;
	char err[128];
	int r = -1;

	MCHECK(vgpu_compile_ptx_meta(ptx, sizeof(ptx) - 1, 0, &image, &size, &meta, err,
				     sizeof(err)) == 0, "%s", err);
	MCHECK(meta->num_kernels == 2 && meta->kernels[1].num_params == 0 &&
	       strcmp(meta->kernels[1].name, "none") == 0, "kernels");
	k = &meta->kernels[0];
	MCHECK(strcmp(k->name, "k") == 0 && k->num_params == 5 && k->param_size == 72,
	       "k: %u params, %u bytes", k->num_params, k->param_size);
	for (uint32_t i = 0; i < 5; i++)
		MCHECK(strcmp(k->params[i].name, want[i].name) == 0 &&
		       k->params[i].offset == want[i].offset &&
		       k->params[i].size == want[i].size && k->params[i].align == want[i].align,
		       "param %u: %s at %u, %u bytes, align %u", i, k->params[i].name,
		       k->params[i].offset, k->params[i].size, k->params[i].align);
	MCHECK(meta->num_vars == 2, "%u variables (shared ones are not the data's)",
	       meta->num_vars);
	MCHECK(strcmp(meta->vars[0].name, "lut") == 0 &&
	       meta->vars[0].space == VGPU_COMPILE_VAR_CONST && meta->vars[0].offset == 0 &&
	       meta->vars[0].size == 16, "lut");
	MCHECK(strcmp(meta->vars[1].name, "blob") == 0 &&
	       meta->vars[1].space == VGPU_COMPILE_VAR_GLOBAL && meta->vars[1].offset == 16 &&
	       meta->vars[1].size == 40 && meta->data_size == 56, "blob at %u, data %u",
	       meta->vars[1].offset, meta->data_size);
	{
		/* the same image as without metadata */
		void *plain = NULL;
		size_t plain_size = 0;
		bool same;

		MCHECK(vgpu_compile_ptx(ptx, sizeof(ptx) - 1, &plain, &plain_size, NULL, 0) == 0,
		       "plain compile");
		same = plain_size == size && memcmp(plain, image, size) == 0;
		free(plain);
		MCHECK(same, "the image does not depend on the metadata");
	}
	r = 0;
out:
	vgpu_compile_meta_free(meta);
	free(image);
	return r;
}

/* ------------------------------------------------------------------ */
/* streams and events */

/* mix8's parameters of the stream tests, and its CPU reference. */
#define MIX_ADD		17
#define MIX_MUL		3
#define MIX_FLIP	0x35

static uint8_t mix_ref(uint8_t v)
{
	return (uint8_t)(((v + MIX_ADD) * MIX_MUL) ^ MIX_FLIP);
}

/* out[i] = mix_ref(in[i]) for @n bytes, launched on @stream. */
static int mix_on(struct vgpu_function *fn, struct vgpu_stream *stream, vgpu_deviceptr in,
		  vgpu_deviceptr out, int32_t n)
{
	uint8_t add = MIX_ADD;
	int16_t mul = MIX_MUL;
	char flip = MIX_FLIP;

	return vgpu_launch_kernel_args(fn, (unsigned int)(n + 127) / 128, 1, 1, 128, 1, 1, 0,
				       stream,
				       (struct vgpu_arg[]){ VGPU_ARG(in), VGPU_ARG(out),
							    VGPU_ARG(add), VGPU_ARG(mul),
							    VGPU_ARG(flip), VGPU_ARG(n) }, 6);
}

/*
 * A producer on stream A, a consumer on stream B that waits for A's event:
 * the result is the CPU's, the consumer starts when the producer ends
 * (simulated cycles from the events), and the elapsed time between the
 * events is the cycles between the launches' ends.
 */
static int test_stream_event_dependency(void)
{
	enum { N = 1000 };
	struct vgpu_stream *a = NULL, *b = NULL;
	struct vgpu_event *ea = NULL, *eb = NULL;
	struct vgpu_job_result ra, rb;
	struct vgpu_function *fn;
	vgpu_deviceptr din, dmid, dout;
	uint8_t in[N], out[N];
	uint64_t khz = 0;
	int64_t cycles = 0;
	double us = 0;
	struct fixture f;
	int r = -1, ret;

	if (setup(&f))
		goto out;
	for (int i = 0; i < N; i++)
		in[i] = (uint8_t)(i * 13 + 1);
	MCHECK(vgpu_module_get_function(f.mod, "mix8", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_stream_create(f.ctx, &a) == 0 && vgpu_stream_create(f.ctx, &b) == 0,
	       "%s", vgpu_last_error());
	MCHECK(vgpu_event_create(f.ctx, &ea) == 0 && vgpu_event_create(f.ctx, &eb) == 0,
	       "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, N, &din) == 0 && vgpu_mem_alloc(f.ctx, N, &dmid) == 0 &&
	       vgpu_mem_alloc(f.ctx, N, &dout) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod_async(f.ctx, din, in, N, a) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memset_d8_async(f.ctx, dout, 0, N, b) == 0, "%s", vgpu_last_error());
	MCHECK(mix_on(fn, a, din, dmid, N) == 0, "producer: %s", vgpu_last_error());
	MCHECK(vgpu_event_record(ea, a) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_stream_wait_event(b, ea) == 0, "%s", vgpu_last_error());
	MCHECK(mix_on(fn, b, dmid, dout, N) == 0, "consumer: %s", vgpu_last_error());
	MCHECK(vgpu_event_record(eb, b) == 0, "%s", vgpu_last_error());
	/* B's copy waits for B's consumer, which waits for A's producer */
	MCHECK(vgpu_memcpy_dtoh_async(f.ctx, out, dout, N, b) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++)
		MCHECK(out[i] == mix_ref(mix_ref(in[i])), "out[%d] = %u, want %u", i, out[i],
		       mix_ref(mix_ref(in[i])));
	MCHECK(vgpu_event_query(ea) == 0 && vgpu_event_synchronize(eb) == 0, "%s",
	       vgpu_last_error());
	MCHECK(vgpu_event_result(ea, &ra) == 0 && vgpu_event_result(eb, &rb) == 0, "%s",
	       vgpu_last_error());
	MCHECK(ra.error == 0 && rb.error == 0 && ra.end_cycle > ra.start_cycle, "results");
	MCHECK(rb.start_cycle >= ra.end_cycle, "consumer starts at %" PRIu64 ", before the "
	       "producer's end %" PRIu64, rb.start_cycle, ra.end_cycle);
	printf("#   producer cycles %" PRIu64 "-%" PRIu64 ", consumer %" PRIu64 "-%" PRIu64 "\n",
	       ra.start_cycle, ra.end_cycle, rb.start_cycle, rb.end_cycle);
	MCHECK(vgpu_event_elapsed_time(ea, eb, &cycles, &us) == 0, "%s", vgpu_last_error());
	MCHECK(cycles == (int64_t)(rb.end_cycle - ra.end_cycle) && cycles > 0,
	       "elapsed %" PRId64 " cycles, the jobs' ends %" PRIu64 " apart", cycles,
	       rb.end_cycle - ra.end_cycle);
	MCHECK(vgpu_get_param(f.dev, DRM_VGPU_PARAM_CORE_CLOCK_KHZ, &khz) == 0 && khz, "clock");
	MCHECK(fabs(us - (double)cycles * 1000.0 / (double)khz) < 1e-9, "%f us for %" PRId64
	       " cycles at %" PRIu64 " kHz", us, cycles, khz);
	MCHECK(vgpu_event_elapsed_time(eb, ea, &cycles, NULL) == 0 &&
	       cycles == -(int64_t)(rb.end_cycle - ra.end_cycle), "backwards: %" PRId64, cycles);
	MCHECK(vgpu_stream_synchronize(a) == 0 && vgpu_stream_query(b) == 0, "%s",
	       vgpu_last_error());
	/* pending work at destroy: waited for, then released */
	MCHECK(mix_on(fn, a, din, dmid, N) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_event_record(ea, a) == 0, "%s", vgpu_last_error());
	ret = vgpu_stream_destroy(a);
	a = NULL;
	MCHECK(ret == 0, "destroy with pending work: %d (%s)", ret, vgpu_last_error());
	MCHECK(vgpu_event_query(ea) == 0, "the event outlives its stream: %s", vgpu_last_error());
	/* what is left: B's last launch, and the launches ea and eb mark */
	MCHECK(vgpu_ctx_fences(f.ctx) == 2, "%u fences alive, want 2", vgpu_ctx_fences(f.ctx));
	MCHECK(vgpu_event_destroy(ea) == 0 && vgpu_event_destroy(eb) == 0 &&
	       vgpu_stream_destroy(b) == 0, "%s", vgpu_last_error());
	ea = eb = NULL;
	b = NULL;
	MCHECK(vgpu_ctx_fences(f.ctx) == 0, "%u fences alive after the destroys",
	       vgpu_ctx_fences(f.ctx));
	r = 0;
out:
	vgpu_event_destroy(ea);
	vgpu_event_destroy(eb);
	vgpu_stream_destroy(a);
	vgpu_stream_destroy(b);
	teardown(&f);
	return r;
}

/* Three launches on one stream, no host wait between them: in order on the device. */
static int test_stream_chain(void)
{
	enum { N = 700 };
	struct vgpu_event *ev[3] = { NULL, NULL, NULL };
	struct vgpu_job_result res[3];
	struct vgpu_stream *s = NULL;
	struct vgpu_function *fn;
	vgpu_deviceptr d[4];
	uint8_t in[N], out[N];
	int64_t c01, c12, c02;
	struct fixture f;
	int r = -1, ret, polls = 0;

	if (setup(&f))
		goto out;
	for (int i = 0; i < N; i++)
		in[i] = (uint8_t)(i * 5 + 9);
	MCHECK(vgpu_module_get_function(f.mod, "mix8", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_stream_create(f.ctx, &s) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < 4; i++)
		MCHECK(vgpu_mem_alloc(f.ctx, N, &d[i]) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_htod(f.ctx, d[0], in, N) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < 3; i++) {
		MCHECK(vgpu_event_create(f.ctx, &ev[i]) == 0, "%s", vgpu_last_error());
		MCHECK(mix_on(fn, s, d[i], d[i + 1], N) == 0, "launch %d: %s", i,
		       vgpu_last_error());
		MCHECK(vgpu_event_record(ev[i], s) == 0, "%s", vgpu_last_error());
		/* waiting for its own last launch: the in-fence it has anyway */
		MCHECK(vgpu_stream_wait_event(s, ev[i]) == 0, "%s", vgpu_last_error());
	}
	/* queries run the local device's model: a loop of them ends */
	while ((ret = vgpu_stream_query(s)) == -EBUSY && polls < 1000000)
		polls++;
	MCHECK(ret == 0, "query: %d after %d polls (%s)", ret, polls, vgpu_last_error());
	MCHECK(vgpu_stream_synchronize(s) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_dtoh_async(f.ctx, out, d[3], N, s) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++)
		MCHECK(out[i] == mix_ref(mix_ref(mix_ref(in[i]))), "out[%d] = %u", i, out[i]);
	for (int i = 0; i < 3; i++)
		MCHECK(vgpu_event_result(ev[i], &res[i]) == 0 && !res[i].error, "%s",
		       vgpu_last_error());
	for (int i = 1; i < 3; i++)
		MCHECK(res[i].start_cycle >= res[i - 1].end_cycle &&
		       res[i].start_cycle > res[i - 1].start_cycle,
		       "launch %d starts at %" PRIu64 ", launch %d ends at %" PRIu64, i,
		       res[i].start_cycle, i - 1, res[i - 1].end_cycle);
	printf("#   launches at cycles %" PRIu64 "-%" PRIu64 ", %" PRIu64 "-%" PRIu64 ", %" PRIu64
	       "-%" PRIu64 " after %d polls\n", res[0].start_cycle, res[0].end_cycle,
	       res[1].start_cycle, res[1].end_cycle, res[2].start_cycle, res[2].end_cycle, polls);
	MCHECK(vgpu_event_elapsed_time(ev[0], ev[1], &c01, NULL) == 0 &&
	       vgpu_event_elapsed_time(ev[1], ev[2], &c12, NULL) == 0 &&
	       vgpu_event_elapsed_time(ev[0], ev[2], &c02, NULL) == 0, "%s", vgpu_last_error());
	MCHECK(c02 == (int64_t)(res[2].end_cycle - res[0].end_cycle) && c01 + c12 == c02 &&
	       c01 >= (int64_t)res[1].cycles, "elapsed %" PRId64 " + %" PRId64 " vs %" PRId64,
	       c01, c12, c02);
	r = 0;
out:
	/* the stream and events left to the context, which releases them */
	teardown(&f);
	return r;
}

/*
 * A fault on stream A: reported at A's synchronise with the kernel, block
 * and address; A's next launch and B's launch that waits for A's event
 * are cancelled, B's reported as -ECANCELED. A is clean afterwards.
 */
static int test_stream_errors(void)
{
	enum { N = 256 };
	struct vgpu_stream *a = NULL, *b = NULL;
	struct vgpu_event *ea = NULL;
	struct vgpu_function *poke, *mix;
	vgpu_deviceptr bad = 0x10, d0, d1;
	struct vgpu_job_result res;
	int32_t v = 5;
	int64_t cycles;
	char want[64];
	struct fixture f;
	int r = -1, ret;

	if (setup(&f))
		goto out;
	MCHECK(vgpu_module_get_function(f.mod, "poke", &poke) == 0 &&
	       vgpu_module_get_function(f.mod, "mix8", &mix) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, N, &d0) == 0 && vgpu_mem_alloc(f.ctx, N, &d1) == 0, "%s",
	       vgpu_last_error());
	MCHECK(vgpu_stream_create(f.ctx, &a) == 0 && vgpu_stream_create(f.ctx, &b) == 0 &&
	       vgpu_event_create(f.ctx, &ea) == 0, "%s", vgpu_last_error());
	{
		void *args[] = { &bad, &v };

		ret = vgpu_launch_kernel(poke, 4, 1, 1, 32, 1, 1, 0, a, args, 2);
	}
	MCHECK(ret == 0, "an asynchronous launch returns before it faults: %d", ret);
	MCHECK(vgpu_event_record(ea, a) == 0, "%s", vgpu_last_error());
	MCHECK(mix_on(mix, a, d0, d1, N) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_stream_wait_event(b, ea) == 0, "%s", vgpu_last_error());
	MCHECK(mix_on(mix, b, d0, d1, N) == 0, "%s", vgpu_last_error());
	ret = vgpu_stream_synchronize(a);
	MCHECK(ret == -EFAULT, "A: %d (%s)", ret, vgpu_last_error());
	MCHECK(vgpu_event_result(ea, &res) == 0 && res.error == -EFAULT, "event result");
	snprintf(want, sizeof(want), "instruction %u", res.fault_pc);
	MCHECK(SAYS("in kernel _Z4pokePii", "block 2", want, "address 0x10"), "A's message");
	ret = vgpu_stream_synchronize(b);
	MCHECK(ret == -ECANCELED && SAYS("launch of kernel _Z4mix8PKhPhhsci cancelled"),
	       "B: %d (%s)", ret, vgpu_last_error());
	MCHECK(vgpu_stream_synchronize(b) == 0, "reported once");
	ret = vgpu_event_synchronize(ea);
	MCHECK(ret == -EFAULT && SAYS("_Z4pokePii"), "event: %d (%s)", ret, vgpu_last_error());
	ret = vgpu_event_elapsed_time(ea, ea, &cycles, NULL);
	MCHECK(ret == -EFAULT && SAYS("the start event marks a launch that failed"),
	       "elapsed: %d (%s)", ret, vgpu_last_error());
	/* a copy on a stream that waits for the failed event is cancelled */
	MCHECK(vgpu_stream_wait_event(b, ea) == 0, "%s", vgpu_last_error());
	ret = vgpu_memset_d8_async(f.ctx, d1, 0, N, b);
	MCHECK(ret == -ECANCELED && SAYS("memset cancelled", "_Z4pokePii"), "copy: %d (%s)", ret,
	       vgpu_last_error());
	/* reported: A is clean again */
	MCHECK(mix_on(mix, a, d0, d1, N) == 0 && vgpu_stream_synchronize(a) == 0, "%s",
	       vgpu_last_error());
	/* an error left pending is returned by the destroy */
	{
		void *args[] = { &bad, &v };

		MCHECK(vgpu_launch_kernel(poke, 4, 1, 1, 32, 1, 1, 0, a, args, 2) == 0, "%s",
		       vgpu_last_error());
	}
	ret = vgpu_stream_destroy(a);
	a = NULL;
	MCHECK(ret == -EFAULT && SAYS("_Z4pokePii"), "destroy: %d (%s)", ret, vgpu_last_error());
	r = 0;
out:
	vgpu_event_destroy(ea);
	vgpu_stream_destroy(a);
	vgpu_stream_destroy(b);
	teardown(&f);
	return r;
}

/* Bad input to the streams and events: each error names what was wrong. */
static int test_stream_bad_input(void)
{
	struct vgpu_stream *s = NULL, *gone = NULL;
	struct vgpu_event *ev = NULL, *empty = NULL, *egone = NULL;
	struct vgpu_context *other = NULL;
	struct vgpu_function *fn;
	struct vgpu_job_result res;
	vgpu_deviceptr d;
	int64_t cycles;
	struct fixture f;
	int r = -1, ret;

	if (setup(&f))
		goto out;
	MCHECK(vgpu_module_get_function(f.mod, "mix8", &fn) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_mem_alloc(f.ctx, 64, &d) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_stream_create(f.ctx, &s) == 0 && vgpu_event_create(f.ctx, &ev) == 0 &&
	       vgpu_event_create(f.ctx, &empty) == 0, "%s", vgpu_last_error());
	ret = vgpu_stream_create(NULL, &gone);
	MCHECK(ret == -EINVAL && SAYS("stream: the context is NULL"), "NULL ctx: %d", ret);
	ret = vgpu_event_create(f.ctx, NULL);
	MCHECK(ret == -EINVAL && SAYS("event: out is NULL"), "NULL out: %d", ret);
	/* an event never recorded */
	ret = vgpu_event_synchronize(ev);
	MCHECK(ret == -EINVAL && SAYS("event synchronize", "was never recorded"),
	       "unrecorded sync: %d (%s)", ret, vgpu_last_error());
	ret = vgpu_event_query(ev);
	MCHECK(ret == -EINVAL && SAYS("event query", "never recorded"), "query: %d", ret);
	ret = vgpu_stream_wait_event(s, ev);
	MCHECK(ret == -EINVAL && SAYS("stream wait for an event", "never recorded"),
	       "unrecorded wait: %d", ret);
	ret = vgpu_event_elapsed_time(ev, ev, &cycles, NULL);
	MCHECK(ret == -EINVAL && SAYS("event elapsed time", "never recorded"),
	       "unrecorded elapsed: %d", ret);
	ret = vgpu_event_record(NULL, s);
	MCHECK(ret == -EINVAL && SAYS("event record: the event is NULL"), "NULL event: %d", ret);
	/* an event of a stream that has launched nothing marks no launch */
	MCHECK(vgpu_event_record(empty, s) == 0 && vgpu_event_synchronize(empty) == 0 &&
	       vgpu_stream_wait_event(s, empty) == 0, "%s", vgpu_last_error());
	ret = vgpu_event_elapsed_time(empty, empty, &cycles, NULL);
	MCHECK(ret == -ENODATA && SAYS("marks no launch"), "empty elapsed: %d", ret);
	ret = vgpu_event_result(empty, &res);
	MCHECK(ret == -ENODATA && SAYS("event result", "marks no launch"), "empty result: %d",
	       ret);
	/* the default stream: synchronous, and events mark its launches too */
	MCHECK(mix_on(fn, NULL, d, d, 64) == 0 && vgpu_event_record(ev, NULL) == 0 &&
	       vgpu_event_query(ev) == 0 && vgpu_stream_synchronize(NULL) == 0 &&
	       vgpu_stream_query(NULL) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_stream_wait_event(s, ev) == 0 && mix_on(fn, s, d, d, 64) == 0 &&
	       vgpu_stream_synchronize(s) == 0, "%s", vgpu_last_error());
	/* a destroyed stream and event */
	MCHECK(vgpu_stream_create(f.ctx, &gone) == 0 && vgpu_stream_destroy(gone) == 0, "%s",
	       vgpu_last_error());
	ret = mix_on(fn, gone, d, d, 64);
	MCHECK(ret == -EINVAL && SAYS("launch of kernel _Z4mix8PKhPhhsci: stream",
				      "does not exist"), "launch: %d (%s)", ret,
	       vgpu_last_error());
	ret = vgpu_stream_synchronize(gone);
	MCHECK(ret == -EINVAL && SAYS("stream synchronize", "does not exist"), "sync: %d", ret);
	ret = vgpu_stream_query(gone);
	MCHECK(ret == -EINVAL && SAYS("stream query", "does not exist"), "query: %d", ret);
	ret = vgpu_stream_destroy(gone);
	MCHECK(ret == -EINVAL && SAYS("destroy of stream", "destroyed already"), "destroy: %d",
	       ret);
	ret = vgpu_event_record(ev, gone);
	MCHECK(ret == -EINVAL && SAYS("event record: stream", "does not exist"), "record: %d",
	       ret);
	ret = vgpu_memcpy_htod_async(f.ctx, d, &r, 4, gone);
	MCHECK(ret == -EINVAL && SAYS("copy to the device: stream", "does not exist"),
	       "copy: %d", ret);
	MCHECK(vgpu_event_create(f.ctx, &egone) == 0 && vgpu_event_destroy(egone) == 0, "%s",
	       vgpu_last_error());
	ret = vgpu_event_record(egone, s);
	MCHECK(ret == -EINVAL && SAYS("event record: event", "does not exist"), "event: %d",
	       ret);
	ret = vgpu_stream_wait_event(s, NULL);
	MCHECK(ret == -EINVAL && SAYS("the event is NULL"), "wait NULL: %d", ret);
	/* a launch waits for at most DRM_VGPU_MAX_IN_SYNCOBJS fences, its stream's own too */
	{
		enum { MAXW = DRM_VGPU_MAX_IN_SYNCOBJS - 1 };
		struct vgpu_event *evs[MAXW + 1];
		int made = 0;

		ret = mix_on(fn, s, d, d, 64);	/* pending: the next launch's in-fence */
		for (; !ret && made <= MAXW; made++) {
			if (vgpu_event_create(f.ctx, &evs[made]))
				break;
			if (mix_on(fn, NULL, d, d, 64) || vgpu_event_record(evs[made], NULL))
				break;
		}
		for (int i = 0; i < made && i < MAXW; i++)
			if ((ret = vgpu_stream_wait_event(s, evs[i])))
				break;
		if (made == MAXW + 1 && !ret)
			ret = vgpu_stream_wait_event(s, evs[MAXW]);
		for (int i = 0; i < made; i++)
			vgpu_event_destroy(evs[i]);
		MCHECK(made == MAXW + 1 && ret == -E2BIG && SAYS("waits for 63 events already"),
		       "%d events, the one too many: %d (%s)", made, ret, vgpu_last_error());
		MCHECK(mix_on(fn, s, d, d, 64) == 0 && vgpu_stream_synchronize(s) == 0,
		       "a launch with 63 events and its stream's own: %s", vgpu_last_error());
	}
	/* another context's stream */
	MCHECK(vgpu_ctx_create(f.dev, &other) == 0, "%s", vgpu_last_error());
	ret = vgpu_memset_d8_async(other, d, 0, 4, s);
	MCHECK(ret == -EINVAL && SAYS("memset: stream", "belongs to another context"),
	       "other ctx: %d (%s)", ret, vgpu_last_error());
	r = 0;
out:
	vgpu_ctx_destroy(other);
	vgpu_event_destroy(ev);
	vgpu_event_destroy(empty);
	vgpu_stream_destroy(s);
	teardown(&f);
	return r;
}

/*
 * Launches name no buffer list, so a context has more allocations than
 * DRM_VGPU_MAX_SUBMIT_BOS and a launch still reaches the last one.
 */
static int test_many_allocations(void)
{
	enum { COUNT = DRM_VGPU_MAX_SUBMIT_BOS + 44, N = 64 };
	vgpu_deviceptr d[COUNT];
	uint8_t in[N], out[N];
	struct vgpu_function *fn;
	struct fixture f;
	int r = -1;

	if (setup(&f))
		goto out;
	MCHECK(vgpu_module_get_function(f.mod, "mix8", &fn) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < COUNT; i++)
		MCHECK(vgpu_mem_alloc(f.ctx, N, &d[i]) == 0, "allocation %d: %s", i,
		       vgpu_last_error());
	for (int i = 0; i < N; i++)
		in[i] = (uint8_t)i;
	MCHECK(vgpu_memcpy_htod(f.ctx, d[COUNT - 2], in, N) == 0, "%s", vgpu_last_error());
	MCHECK(mix_on(fn, NULL, d[COUNT - 2], d[COUNT - 1], N) == 0, "%s", vgpu_last_error());
	MCHECK(vgpu_memcpy_dtoh(f.ctx, out, d[COUNT - 1], N) == 0, "%s", vgpu_last_error());
	for (int i = 0; i < N; i++)
		MCHECK(out[i] == mix_ref(in[i]), "out[%d] = %u", i, out[i]);
	r = 0;
out:
	teardown(&f);
	return r;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--device")) {
		device_path = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: test_runtime [--device /dev/dri/renderDN]\n");
		return 2;
	}
	report("compile_meta: parameter lists and the data segment's variables",
	       test_compile_meta());
	/*
	 * On the render node, module variables always take the copy kernel:
	 * the local device's presets and its direct path are the local run's.
	 */
	if (!device_path)
		report("open_local_preset: unknown preset named, memory size honoured",
		       test_open_preset());
	report("poly: struct by value, __constant__ table by name and by address",
	       test_poly(false));
	if (!device_path)
		report("poly: the same through the runtime's copy kernel (the render node's path)",
		       test_poly(true));
	report("mix8: 8- and 16-bit parameters", test_mix8());
	report("params_by_hand: vgpu_params_u8/u16/bytes at the PTX offsets",
	       test_params_by_hand());
	report("device_globals: __device__ array and initialised counter",
	       test_device_globals(false));
	if (!device_path)
		report("device_globals: the same through the runtime's copy kernel",
		       test_device_globals(true));
	report("errors: unknown names, wrong counts and sizes, copies out of bounds",
	       test_errors());
	report("fault: kernel, block, instruction and address in the message", test_fault());
	report("image_module: no parameter list, packed launch", test_image_module());
	report("module_file: PTX by path, compile error with file and line", test_module_file());
	report("module_opts: compile options at load, refusals and bad options named",
	       test_module_opts());
	report("stream_event_dependency: consumer on B waits for A's event, starts at its end",
	       test_stream_event_dependency());
	report("stream_chain: three launches on one stream, ordered on the device",
	       test_stream_chain());
	report("stream_errors: a fault at synchronise, -ECANCELED for its dependents",
	       test_stream_errors());
	report("stream_bad_input: unrecorded and destroyed events and streams, NULL",
	       test_stream_bad_input());
	report("many_allocations: more than DRM_VGPU_MAX_SUBMIT_BOS, no buffer list",
	       test_many_allocations());
	return test_summary();
}
