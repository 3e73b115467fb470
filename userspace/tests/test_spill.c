// SPDX-License-Identifier: MIT
/*
 * test_spill.c - host tests of the compiler's gaps of issue 19: cvt with an
 * operand wider than its type (PTX "operand size exceeding instruction-type
 * size"), programs that do not fit a device (the error names the entry, the
 * resource, the need and the limit), predicate spilling and register
 * spilling to local memory. Kernels run on the local device (fermi-gtx480)
 * and their results are compared bit for bit with a CPU reference; the
 * workload suite runs against its CPU references on devices of 16 and 8
 * registers per thread, where most of its kernels spill.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "compiler/vgpu_compile.h"
#include "tap.h"
#include "vgpu.h"
#include "vgpu_runtime.h"
#include "vgpu_sim.h"
#include "workloads/workload.h"

#define HEAD ".version 7.0\n.target sm_75\n.address_size 64\n"

static struct vgpu_sim_config cfg;

/* vgpu_ptx_cmd() (`vgpu ptx`), compiled in; its read_file() reads spill.ptx */
#include "../tools/ptx_cmd.c"

/*
 * Runs entry @name of @ptx on a fresh local device of the test's preset: one
 * block of @threads threads, parameters (in, out, u32 n) with @in_bytes of
 * @in copied in; @out_bytes of the output buffer are copied to @out, the
 * loaded entry's description to *@pe (when not NULL).
 */
static int run_kernel(const char *ptx, const char *name, uint32_t threads, const void *in,
		      size_t in_bytes, void *out, size_t out_bytes, uint32_t n,
		      struct vgpu_program_entry *pe)
{
	struct vgpu_device *dev = NULL;
	struct vgpu_bo *bo[2] = { NULL, NULL };
	struct vgpu_program *prog = NULL;
	struct vgpu_params params;
	struct vgpu_launch launch;
	struct vgpu_job_result res;
	char err[512] = "";
	int r = -1;

	if (vgpu_device_open_local(&cfg, &dev)) {
		printf("#   open_local failed\n");
		return -1;
	}
	if (vgpu_bo_create(dev, in_bytes ? in_bytes : 8, &bo[0]) ||
	    vgpu_bo_create(dev, out_bytes, &bo[1])) {
		printf("#   bo_create failed\n");
		goto out;
	}
	memcpy(bo[0]->map, in, in_bytes);
	if (vgpu_program_create_ptx(dev, ptx, strlen(ptx), &prog, err, sizeof(err))) {
		printf("#   create: %s\n", err);
		goto out;
	}
	vgpu_params_init(&params);
	vgpu_params_ptr(&params, bo[0]);
	vgpu_params_ptr(&params, bo[1]);
	vgpu_params_u32(&params, n);
	launch = (struct vgpu_launch){
		.grid = { 1, 1, 1 }, .block = { threads, 1, 1 }, .params = &params,
		.bos = bo, .num_bos = 2,
	};
	if (vgpu_program_find_entry(prog, name, &launch.entry)) {
		printf("#   no entry %s\n", name);
		goto out;
	}
	if (pe)
		*pe = *vgpu_program_entry(prog, launch.entry);
	if (vgpu_run(dev, prog, &launch, &res) || res.error) {
		printf("#   run failed: error %d\n", res.error);
		goto out;
	}
	memcpy(out, bo[1]->map, out_bytes);
	r = 0;
out:
	vgpu_program_destroy(prog);
	vgpu_bo_destroy(bo[0]);
	vgpu_bo_destroy(bo[1]);
	vgpu_device_close(dev);
	return r;
}

/* ------------------------------------------------------------------ */
/* cvt with operands wider than its types */

static const char cvt_ptx[] = HEAD
	".visible .entry cvtw(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
	"	.reg .b32 %r<4>;\n	.reg .b64 %rd<50>;\n	.reg .s64 %sd<2>;\n"
	"	.reg .f64 %fd<2>;\n"
	"	ld.param.u64 %rd1, [in];\n	ld.param.u64 %rd2, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mul.wide.u32 %rd3, %r1, 8;\n"
	"	add.s64 %rd4, %rd1, %rd3;\n	ld.global.u64 %rd11, [%rd4];\n"
	"	mul.wide.u32 %rd5, %r1, 48;\n	add.s64 %rd6, %rd2, %rd5;\n"
	"	cvt.s64.s32 %rd42, %rd11;\n"		/* the form of issue 19 */
	"	st.global.u64 [%rd6], %rd42;\n"
	"	cvt.u32.u16 %rd43, %rd11;\n"		/* both wider: zero-extended */
	"	st.global.u64 [%rd6+8], %rd43;\n"
	"	cvt.s16.s8 %rd44, %rd11;\n"		/* sign-extended to 64 bits */
	"	st.global.u64 [%rd6+16], %rd44;\n"
	"	cvt.u32.s8 %sd1, %rd11;\n"		/* unsigned type: zero-extended */
	"	st.global.u64 [%rd6+24], %sd1;\n"
	"	cvt.f64.f32 %fd1, %rd11;\n"		/* a .b64 source with a float type */
	"	st.global.f64 [%rd6+32], %fd1;\n"
	"	cvt.rn.f32.s32 %rd45, %rd11;\n"	/* a float result in a .b64 */
	"	st.global.u64 [%rd6+40], %rd45;\n"
	"	ret;\n}\n";

static int t_cvt_wide(void)
{
	static const uint64_t in[4] = {
		0x123456789abcdef0ull, 0xffffffff80000001ull, 0x000000010000ff80ull,
		0x800000003fc00000ull,
	};
	uint64_t out[4 * 6], want[4 * 6];

	for (int i = 0; i < 4; i++) {
		uint32_t lo = (uint32_t)in[i];
		float f;
		double d;

		want[6 * i] = (uint64_t)(int64_t)(int32_t)lo;
		want[6 * i + 1] = (uint16_t)lo;
		want[6 * i + 2] = (uint64_t)(int64_t)(int8_t)lo;
		want[6 * i + 3] = (uint32_t)(int32_t)(int8_t)lo;
		memcpy(&f, &lo, 4);
		d = f;
		memcpy(&want[6 * i + 4], &d, 8);
		f = (float)(int32_t)lo;
		memcpy(&lo, &f, 4);
		want[6 * i + 5] = lo;
	}
	CHECK(run_kernel(cvt_ptx, "cvtw", 4, in, sizeof(in), out, sizeof(out), 4, NULL) == 0, "run");
	for (int i = 0; i < 4 * 6; i++)
		CHECK(out[i] == want[i], "thread %d value %d: %#" PRIx64 ", expected %#" PRIx64,
		      i / 6, i % 6, out[i], want[i]);
	return 0;
}

/* A float register wider than the type, an integer one with a float type. */
static int t_cvt_wide_refused(void)
{
	static const char *const bad[] = {
		"	.reg .f64 %fd<2>;\n	.reg .f32 %f<2>;\n	cvt.rn.f32.f32 %f1, %fd1;\n",
		"	.reg .u64 %rd<2>;\n	.reg .f64 %fd<2>;\n	cvt.f64.f32 %fd1, %rd1;\n",
		"	.reg .s64 %rd<2>;\n	.reg .f32 %f<2>;\n	cvt.rn.f32.f32 %rd1, %f1;\n",
	};
	static const char *const what[] = { "a .f64 register", "a .u64 register",
					    "a .s64 register" };

	for (int i = 0; i < 3; i++) {
		char src[512], err[256] = "";
		void *img = NULL;
		size_t size = 0;
		int ret;

		snprintf(src, sizeof(src), HEAD ".visible .entry k()\n{\n%s\tret;\n}\n", bad[i]);
		ret = vgpu_compile_ptx(src, strlen(src), &img, &size, err, sizeof(err));
		CHECK(ret == -EINVAL && !img, "case %d compiled", i);
		CHECK(!strncmp(err, "ptx:8: cvt: ", 12) && strstr(err, what[i]) &&
		      strstr(err, i == 2 ? "destination" : "source"),
		      "case %d: '%s'", i, err);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* kernels that do not fit: nvcc -O3 output of userspace/tests/ptx/spill.cu */

static char *spill_ptx;
static size_t spill_len;

struct spills {
	int ld, st;		/* LD/ST local */
	int selp, setp;		/* SELP d, RZ, 1, !P and SETP.ne d, r, 0 */
	uint32_t regs, local;
};

/* Compiles spill.ptx with a register limit (0: none); what entry @name has. */
static int count_spills(const char *name, unsigned int regs, struct spills *s)
{
	struct vgpu_compile_limits lim = { .regs_per_thread = regs };
	const struct vgpu_program_header *h;
	const struct vgpu_program_entry *e = NULL;
	const uint64_t *c;
	char err[256] = "";
	void *img = NULL;
	size_t size;

	memset(s, 0, sizeof(*s));
	CHECK(vgpu_compile_ptx_limits(spill_ptx, spill_len, 0, &lim, &img, &size, err,
				      sizeof(err)) == 0, "compile: %s", err);
	h = img;
	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *x = (const void *)((const uint8_t *)img +
			h->entries_offset + (size_t)i * h->entry_size);

		if (!strcmp(x->name, name))
			e = x;
	}
	if (!e) {
		free(img);
		CHECK(0, "no entry %s", name);
	}
	s->regs = e->regs_per_thread;
	s->local = e->local_per_thread;
	c = (const uint64_t *)((const uint8_t *)img + h->code_offset + e->code_start);
	for (uint32_t i = 0; i < (e->code_end - e->code_start) / 8; i++) {
		unsigned int op = VGPU_I_OP(c[i]), mod = VGPU_I_MOD(c[i]);

		if ((op == VGPU_OP_LD || op == VGPU_OP_ST) &&
		    VGPU_M_MEM_SP(mod) == VGPU_SP_LOCAL)
			*(op == VGPU_OP_LD ? &s->ld : &s->st) += 1;
		if (op == VGPU_OP_SELP && VGPU_I_A(c[i]) == VGPU_RZ && (c[i] & VGPU_I_BI) &&
		    VGPU_I_B(c[i]) == 1)
			s->selp++;
		if (op == VGPU_OP_SETP && VGPU_M_SETP_CMP(mod) == VGPU_CMP_NE &&
		    (c[i] & VGPU_I_BI) && VGPU_I_B(c[i]) == 0 && VGPU_I_TYPE(c[i]) == VGPU_T_U32)
			s->setp++;
		i += !!(c[i] & VGPU_I_X);
	}
	free(img);
	return 0;
}

static uint32_t pred_ref(const int32_t *in, uint32_t n, uint32_t t)
{
	int32_t v = in[t];
	bool c[16];
	uint32_t acc = (uint32_t)v;

	for (int i = 0; i < 16; i++)
		c[i] = v > in[n + i];
	for (int i = 0; i < 16; i++)
		acc = c[15 - i] ? acc * 3u + (uint32_t)i : acc ^ (uint32_t)(i << 4);
	return acc;
}

/* 16 comparisons live at once: 8 predicates, the others in registers. */
static int t_pred_spill(void)
{
	enum { N = 128 };
	int32_t in[N + 16];
	uint32_t out[N];
	struct spills s;
	uint32_t x = 12345;

	for (int i = 0; i < N + 16; i++) {
		x = x * 1103515245u + 12345u;
		in[i] = (int32_t)(x >> 8) % 1000 - 500;
	}
	CHECK(count_spills("pred_many", 0, &s) == 0, "compile");
	printf("#   pred_many: %u registers, %d predicate spills (SELP), %d re-creations "
	       "(SETP), %d/%d local loads/stores\n", s.regs, s.selp, s.setp, s.ld, s.st);
	CHECK(s.selp >= 8 && s.setp >= 8, "the predicate spill path was not taken");
	CHECK(!s.ld && !s.st && !s.local, "predicates spilled to memory");
	CHECK(run_kernel(spill_ptx, "pred_many", N, in, sizeof(in), out, sizeof(out), N,
			 NULL) == 0, "run");
	for (uint32_t t = 0; t < N; t++)
		CHECK(out[t] == pred_ref(in, N, t), "thread %u: %#x, expected %#x", t, out[t],
		      pred_ref(in, N, t));
	return 0;
}

#define NACC	96

static void acc_ref(const uint32_t *in, uint32_t n, uint32_t t, uint32_t *a)
{
	for (int k = 0; k < NACC; k++)
		a[k] = in[t] + (uint32_t)k * 0x9e3779b9u;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = in[(t + i) & 255];

		for (int k = 0; k < NACC; k++)
			a[k] = (a[k] ^ x) * 2654435761u + (a[(k + 1) % NACC] >> 3);
	}
}

/* 96 live accumulators on fermi-gtx480 (63 registers per thread). */
static int t_reg_spill(void)
{
	enum { T = 64, ITERS = 5 };
	static uint32_t in[256], out[T * NACC];
	struct vgpu_program_entry pe;
	struct spills free_, lim;
	uint32_t x = 777, a[NACC];

	for (int i = 0; i < 256; i++) {
		x = x * 1664525u + 1013904223u;
		in[i] = x;
	}
	CHECK(count_spills("acc_many", 0, &free_) == 0 &&
	      count_spills("acc_many", cfg.desc.max_regs_per_thread, &lim) == 0, "compile");
	printf("#   acc_many: %u registers unlimited; for %u: %u registers, %u bytes of "
	       "local memory, %d spill loads, %d spill stores\n", free_.regs,
	       cfg.desc.max_regs_per_thread, lim.regs, lim.local, lim.ld, lim.st);
	CHECK(free_.regs > cfg.desc.max_regs_per_thread && !free_.ld && !free_.st,
	      "acc_many needs %u registers unspilled", free_.regs);
	CHECK(lim.regs <= cfg.desc.max_regs_per_thread && lim.ld > 0 && lim.st > 0 &&
	      lim.local > 0, "no spill code");
	CHECK(run_kernel(spill_ptx, "acc_many", T, in, sizeof(in), out, sizeof(out), ITERS,
			 &pe) == 0, "run");
	CHECK(pe.regs_per_thread == lim.regs && pe.local_per_thread == lim.local,
	      "loaded: %u registers, %u bytes local", pe.regs_per_thread, pe.local_per_thread);
	for (uint32_t t = 0; t < T; t++) {
		acc_ref(in, ITERS, t, a);
		for (int k = 0; k < NACC; k++)
			CHECK(out[t * NACC + k] == a[k], "thread %u accumulator %d: %#x, expected %#x",
			      t, k, out[t * NACC + k], a[k]);
	}
	return 0;
}

/*
 * The workload suite on a device with @regs registers per thread: every
 * kernel above it spills, and every result still matches its CPU reference.
 */
static int t_suite_spilled(uint32_t regs, int *spilled)
{
	struct vgpu_sim_config few = cfg;

	few.desc.max_regs_per_thread = regs;
	*spilled = 0;
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++) {
		struct workload_args args = { .size = (*w)->small_size, .seed = 1 };
		struct workload_result res;
		struct vgpu_device *dev;
		char msg[256] = "";
		int ret;

		CHECK(vgpu_device_open_local(&few, &dev) == 0, "open_local");
		ret = (*w)->run(dev, &args, &res, msg, sizeof(msg));
		vgpu_device_close(dev);
		CHECK(ret == 0, "%s with %u registers: %s", (*w)->name, regs, msg);
	}
	/* how many of the suite's entries needed the spill */
	for (const struct vgpu_embedded_ptx *p = vgpu_workload_ptx; p->name; p++) {
		struct vgpu_compile_limits lim = { .regs_per_thread = regs };
		const struct vgpu_program_header *h;
		void *img = NULL, *free_img = NULL;
		bool bad = false;
		size_t size;
		char err[256] = "";

		CHECK(vgpu_compile_ptx(p->text, p->len, &free_img, &size, err,
				       sizeof(err)) == 0 &&
		      vgpu_compile_ptx_limits(p->text, p->len, 0, &lim, &img, &size, err,
					      sizeof(err)) == 0, "%s: %s", p->name, err);
		h = free_img;
		for (uint32_t i = 0; i < h->num_entries; i++) {
			const struct vgpu_program_entry *a = (const void *)((const uint8_t *)free_img +
				h->entries_offset + (size_t)i * h->entry_size);
			const struct vgpu_program_entry *b = (const void *)((const uint8_t *)img +
				h->entries_offset + (size_t)i * h->entry_size);

			if (a->regs_per_thread > regs) {
				(*spilled)++;
				bad |= b->regs_per_thread > regs ||
				       b->local_per_thread <= a->local_per_thread;
				if (b->regs_per_thread > regs ||
				    b->local_per_thread <= a->local_per_thread)
					printf("#   %s: %u registers, %u bytes local for %u\n", a->name,
					       b->regs_per_thread, b->local_per_thread, regs);
			}
		}
		free(img);
		free(free_img);
		CHECK(!bad, "%s: spilled entries over the limit", p->name);
	}
	printf("#   %u registers per thread: %d of the suite's entries spilled\n", regs, *spilled);
	CHECK(*spilled > 0, "nothing spilled");
	return 0;
}

/* The runtime's modules are compiled for their device too. */
static int t_runtime_module(void)
{
	struct vgpu_sim_config small = cfg;
	struct vgpu_device *dev;
	struct vgpu_context *ctx;
	struct vgpu_module *mod = NULL;
	struct vgpu_function *f;
	int regs = 0, local = 0, ret;

	CHECK(vgpu_device_open_local(&cfg, &dev) == 0 && vgpu_ctx_create(dev, &ctx) == 0,
	      "context");
	ret = vgpu_module_load_data(ctx, spill_ptx, spill_len, &mod);
	if (!ret)
		ret = vgpu_module_get_function(mod, "acc_many", &f);
	if (!ret)
		ret = vgpu_func_get_attribute(f, VGPU_FUNC_ATTRIBUTE_NUM_REGS, &regs) ||
		      vgpu_func_get_attribute(f, VGPU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local);
	vgpu_module_unload(mod);
	vgpu_ctx_destroy(ctx);
	vgpu_device_close(dev);
	CHECK(ret == 0, "module: %d (%s)", ret, vgpu_last_error());
	CHECK(regs == (int)cfg.desc.max_regs_per_thread && local == 168,
	      "acc_many: %d registers, %d bytes local", regs, local);
	/* a device with less local memory: the load names the kernel */
	small.desc.max_local_per_thread = 64;
	mod = NULL;
	CHECK(vgpu_device_open_local(&small, &dev) == 0 && vgpu_ctx_create(dev, &ctx) == 0,
	      "context");
	ret = vgpu_module_load_data(ctx, spill_ptx, spill_len, &mod);
	vgpu_module_unload(mod);
	vgpu_ctx_destroy(ctx);
	vgpu_device_close(dev);
	CHECK(ret == -E2BIG && strstr(vgpu_last_error(), "entry 'acc_many' needs 168 bytes of "
				      "local memory per thread"), "%d '%s'", ret,
	      vgpu_last_error());
	return 0;
}

/* ------------------------------------------------------------------ */
/* programs that do not fit a device */

/* One resource each over a limit (line 4: the .entry line). */
static const char fit_ptx[] = HEAD
	".visible .entry big(.param .u64 out, .param .align 8 .b8 blob[48])\n"
	".maxntid 512, 1, 1\n{\n"
	"	.reg .b32 %r<4>;\n	.reg .b64 %rd<2>;\n"
	"	.shared .align 4 .b8 buf[2048];\n"
	"	.local .align 4 .b8 priv[256];\n"
	"	ld.param.u64 %rd1, [out];\n	mov.u32 %r1, %tid.x;\n"
	"	st.shared.u32 [buf], %r1;\n	st.local.u32 [priv], %r1;\n"
	"	ld.local.u32 %r2, [priv];\n	st.global.u32 [%rd1], %r2;\n"
	"	ret;\n}\n";

static int expect_misfit(const struct vgpu_compile_limits *lim, const char *what)
{
	char err[256] = "", want[160];
	void *img = NULL;
	size_t size = 0;
	int ret = vgpu_compile_ptx_limits(fit_ptx, strlen(fit_ptx), 0, lim, &img, &size, err,
					  sizeof(err));

	free(img);
	CHECK(ret == -E2BIG && !img, "%s: returned %d", what, ret);
	snprintf(want, sizeof(want), "ptx:4: entry 'big' needs %s", what);
	CHECK(!strncmp(err, want, strlen(want)) && strstr(err, "the device allows"),
	      "'%s' does not start with '%s'", err, want);
	return 0;
}

static int t_limits(void)
{
	const struct vgpu_compile_limits fits = {
		.regs_per_thread = 63, .shared_per_tb = 2048, .local_per_thread = 256,
		.threads_per_tb = 512, .param_bytes = 56,
	};
	struct vgpu_compile_limits l;
	char err[256] = "";
	void *img = NULL;
	size_t size = 0;

	CHECK(vgpu_compile_ptx_limits(fit_ptx, strlen(fit_ptx), 0, &fits, &img, &size, err,
				      sizeof(err)) == 0, "fits: %s", err);
	CHECK(vgpu_compile_check_limits(img, size, &fits, err, sizeof(err)) == 0 && !err[0],
	      "check: %s", err);
	l = fits;
	l.shared_per_tb = 1024;
	CHECK(vgpu_compile_check_limits(img, size, &l, err, sizeof(err)) == -E2BIG &&
	      !strcmp(err, "entry 'big' needs 2048 bytes of static shared memory per block; "
		      "the device allows 1024"), "image check: '%s'", err);
	CHECK(vgpu_compile_check_limits(img, 16, &l, err, sizeof(err)) == -EINVAL,
	      "a truncated image");
	free(img);
	CHECK(expect_misfit(&l, "2048 bytes of static shared memory per block; the device "
			    "allows 1024") == 0, "shared");
	l = fits;
	l.local_per_thread = 128;
	CHECK(expect_misfit(&l, "256 bytes of local memory per thread; the device allows 128")
	      == 0, "local");
	l = fits;
	l.threads_per_tb = 256;
	CHECK(expect_misfit(&l, "512 threads per block (.maxntid/.reqntid); the device allows "
			    "256") == 0, "threads");
	l = fits;
	l.param_bytes = 32;
	CHECK(expect_misfit(&l, "56 bytes of parameters; the device allows 32") == 0, "params");
	/* registers: spilled until a single instruction needs more than there are */
	l = fits;
	l.regs_per_thread = 2;
	img = NULL;
	CHECK(vgpu_compile_ptx_limits(fit_ptx, strlen(fit_ptx), 0, &l, &img, &size, err,
				      sizeof(err)) == -EINVAL && !img &&
	      strstr(err, "more than 2 registers live at once in one instruction"), "'%s'", err);
	return 0;
}

/* Through libvgpu: the device's limits reach the compiler. */
static int t_limits_device(void)
{
	struct vgpu_sim_config small = cfg;
	struct vgpu_device *dev;
	struct vgpu_program *prog = NULL;
	char err[256] = "";
	int ret;

	small.desc.max_shared_per_tb = 1024;
	CHECK(vgpu_device_open_local(&small, &dev) == 0, "open_local");
	ret = vgpu_program_create_ptx(dev, fit_ptx, strlen(fit_ptx), &prog, err, sizeof(err));
	vgpu_program_destroy(prog);
	vgpu_device_close(dev);
	CHECK(ret == -E2BIG, "create: %d (%s)", ret, err);
	CHECK(!strcmp(err, "ptx:4: entry 'big' needs 2048 bytes of static shared memory per "
		      "block; the device allows 1024"), "'%s'", err);
	/* acc_many spills 168 bytes under 63 registers: allow less */
	small = cfg;
	small.desc.max_local_per_thread = 64;
	CHECK(vgpu_device_open_local(&small, &dev) == 0, "open_local");
	ret = vgpu_program_create_ptx(dev, spill_ptx, spill_len, &prog, err, sizeof(err));
	vgpu_program_destroy(prog);
	vgpu_device_close(dev);
	CHECK(ret == -E2BIG, "create: %d (%s)", ret, err);
	CHECK(strstr(err, "entry 'acc_many' needs 168 bytes of local memory per thread") &&
	      strstr(err, "registers spilled") && strstr(err, "the device allows 64"),
	      "'%s'", err);
	return 0;
}

/* `vgpu ptx --gpu PRESET FILE`, its output and exit status. */
static int ptx_cmd_run(char **argv, int argc, char *out, size_t len)
{
	FILE *f = tmpfile();
	int saved_out = dup(1), saved_err = dup(2), ret;
	size_t n;

	if (!f || saved_out < 0 || saved_err < 0)
		return -1000;
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(f), 1);
	dup2(fileno(f), 2);
	ret = vgpu_ptx_cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	rewind(f);
	n = fread(out, 1, len - 1, f);
	out[n] = 0;
	fclose(f);
	return ret;
}

static int t_ptx_cmd(void)
{
	static char out[16384];
	char path[] = "/tmp/test_spill_XXXXXX";
	int fd = mkstemp(path), ret;
	char *a1[] = { "ptx", "--gpu", "fermi-gtx480", path };
	char *a2[] = { "ptx", "--gpu=fermi-gtx480", path };
	char *a3[] = { "ptx", "--gpu", "no-such-gpu", path };
	char *a4[] = { "ptx", "--gpu", "fermi-gtx480", "userspace/tests/ptx/spill.ptx" };

	CHECK(fd >= 0, "mkstemp");
	CHECK(write(fd, fit_ptx, strlen(fit_ptx)) == (ssize_t)strlen(fit_ptx), "write");
	close(fd);
	ret = ptx_cmd_run(a1, 4, out, sizeof(out));
	CHECK(ret == 0 && strstr(out, "entry big\n  Used ") &&
	      strstr(out, "fits fermi-gtx480"), "fits fermi: %d '%s'", ret, out);
	ret = ptx_cmd_run(a4, 4, out, sizeof(out));
	CHECK(ret == 0 && strstr(out, "entry acc_many\n  Used 63 registers") &&
	      strstr(out, "fits fermi-gtx480"), "spill.ptx on fermi: %d '%s'", ret, out);
	/* .maxntid 512 fits fermi's 1024; make it not fit: 2048 threads */
	{
		char *big = strdup(fit_ptx), *m = strstr(big, ".maxntid 512");

		memcpy(m, ".maxntid 2048", 13);
		m[13] = ',';
		fd = open(path, O_WRONLY | O_TRUNC);
		CHECK(fd >= 0 && write(fd, big, strlen(big)) == (ssize_t)strlen(big), "write");
		close(fd);
		free(big);
	}
	ret = ptx_cmd_run(a2, 3, out, sizeof(out));
	CHECK(ret == 1 && strstr(out, "ptx:4: entry 'big' needs 2048 threads per block "
				 "(.maxntid/.reqntid); the device allows 1024") &&
	      strstr(out, "does not fit fermi-gtx480") && !strstr(out, "Used"),
	      "too many threads: %d '%s'", ret, out);
	ret = ptx_cmd_run(a3, 4, out, sizeof(out));
	CHECK(ret == 2 && strstr(out, "unknown GPU preset 'no-such-gpu'"), "%d '%s'", ret, out);
	unlink(path);
	return 0;
}

int main(void)
{
	if (vgpu_sim_preset("fermi-gtx480", &cfg)) {
		printf("not ok - the fermi-gtx480 preset exists\n");
		return 1;
	}
	report("cvt.s64.s32 %rd, %rd and other wider cvt operands run bit-exact (low bits "
	       "in, sign/zero extension out)", t_cvt_wide());
	report("cvt refuses a wider float register and an integer register for a float type",
	       t_cvt_wide_refused());
	spill_ptx = read_file("userspace/tests/ptx/spill.ptx", &spill_len);
	if (!spill_ptx) {
		printf("not ok - userspace/tests/ptx/spill.ptx is readable\n");
		return 1;
	}
	report("nvcc -O3 PTX with 16 comparisons live: predicates spilled to registers, "
	       "results bit-exact on fermi-gtx480", t_pred_spill());
	report("nvcc -O3 PTX needing 105 registers: spilled to local memory under fermi-gtx480's "
	       "63, results bit-exact", t_reg_spill());
	for (uint32_t regs = 16; regs >= 8; regs -= 8) {
		char name[160];
		int spilled;

		snprintf(name, sizeof(name), "the workload suite with %u registers per thread: "
			 "spilled entries match their CPU references", regs);
		report(name, t_suite_spilled(regs, &spilled));
	}
	report("runtime modules are compiled for the context's device: spilled to fermi-gtx480's "
	       "63 registers; a kernel over its local memory refused by name", t_runtime_module());
	report("a program over a device's limit names the entry, the resource, the need and "
	       "the limit (-E2BIG)", t_limits());
	report("libvgpu compiles for the device: an entry over its shared memory, a spill over "
	       "its local memory are refused by name", t_limits_device());
	report("vgpu ptx --gpu PRESET: spills for the preset, names what does not fit, exit 1",
	       t_ptx_cmd());
	free(spill_ptx);
	return test_summary();
}
