// SPDX-License-Identifier: MIT
/*
 * test_ptx.c - host tests of the PTX instruction classes the front end
 * lowers into several vGPU instructions (carry chains, .sat, mul24/mad24/
 * sad, bfind, bfi with a register length, prmt modes, copysign, testp,
 * 16-bit shifts by a register, bar.red, the shfl/vote member mask, .func
 * calls, f16) and of the model's idempotence-boundary report: each a tiny kernel
 * run on the model against a CPU reference.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_program.h>

#include "compiler/vgpu_compile.h"
#include "sim/vgpu_sim.h"
#include "tap.h"

#define VRAM	(8u << 20)
#define OUT	16384		/* output buffer bytes */

/* One kernel run: grid x block threads, one u64 parameter (the output). */
struct krun {
	int status;		/* first non-zero block status */
	uint32_t crossed;	/* blocks whose TB_DONE had the boundary flag */
	uint32_t crossed_mask;	/* ... by block index (first 32) */
	uint32_t out[OUT / 4];
};

static int run_ptx(const char *ptx, uint32_t grid, uint32_t block, const uint32_t *in,
		   uint32_t in_words, struct krun *k)
{
	struct vgpu_sim_config cfg;
	struct vgpu_sim *sim;
	uint8_t *vram = calloc(1, VRAM);
	char err[256] = "";
	void *img = NULL;
	size_t isize;
	uint64_t prog = 4096, out = 1u << 20, desc = 2u << 20;
	struct vgpu_job_desc d = { 0 };
	struct vgpu_mem_range rg = { out, OUT };
	uint32_t done = 0, next = 0;
	int r;

	memset(k, 0, sizeof(*k));
	if (!vram)
		return -ENOMEM;
	r = vgpu_compile_ptx(ptx, strlen(ptx), &img, &isize, err, sizeof(err));
	if (r) {
		printf("# compile: %s\n", err);
		free(vram);
		return r;
	}
	memcpy(vram + prog, img, isize);
	if (in)
		memcpy(vram + out, in, in_words * 4);
	d.abi_version = VGPU_BACKEND_ABI_VERSION;
	d.job = 1;
	d.program_addr = prog;
	d.program_size = (uint32_t)isize;
	d.grid[0] = grid;
	d.grid[1] = d.grid[2] = 1;
	d.block[0] = block;
	d.block[1] = d.block[2] = 1;
	d.shared_bytes = ((const struct vgpu_program_entry *)((uint8_t *)img +
			  ((struct vgpu_program_header *)img)->entries_offset))->shared_static;
	d.ranges_offset = sizeof(d);
	d.num_ranges = 1;
	d.params_offset = sizeof(d) + sizeof(rg);
	d.params_size = 8;
	memcpy(vram + desc, &d, sizeof(d));
	memcpy(vram + desc + d.ranges_offset, &rg, sizeof(rg));
	memcpy(vram + desc + d.params_offset, &out, 8);
	free(img);
	r = vgpu_sim_preset(vgpu_sim_preset_names()[0], &cfg);
	sim = r ? NULL : vgpu_sim_create(&cfg, vram, VRAM);
	if (!sim) {
		free(vram);
		return -1;
	}
	r = vgpu_sim_job_begin(sim, 1, desc);
	while (!r && done < grid) {
		struct vgpu_evt ev[8];
		int n;

		if (next == done) {
			struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 1, .tb = next++ };

			r = vgpu_sim_dispatch(sim, &c);
			if (r)
				break;
		}
		n = vgpu_sim_step(sim, UINT64_MAX, ev, 8);
		if (n <= 0) {
			r = -1;
			break;
		}
		for (int i = 0; i < n; i++) {
			done++;
			if (ev[i].status && !k->status)
				k->status = ev[i].status;
			if (ev[i].flags & VGPU_EVT_F_CROSSED_BOUNDARY) {
				k->crossed++;
				if (ev[i].tb < 32)
					k->crossed_mask |= 1u << ev[i].tb;
			}
		}
	}
	memcpy(k->out, vram + out, OUT);
	vgpu_sim_job_end(sim, 1);
	vgpu_sim_destroy(sim);
	free(vram);
	return r;
}

#define HEAD ".version 7.0\n.target sm_75\n.address_size 64\n"
/* Kernel prologue: %rd1 = out, %r0 = tid.x, %rd2 = &out[tid] (4-byte slots). */
#define PRO(name) \
	HEAD ".visible .entry " name "(.param .u64 out)\n{\n" \
	"\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<20>;\n" \
	"\t.reg .b16 %h<8>;\n\t.reg .f32 %f<8>;\n\t.reg .f64 %fd<8>;\n" \
	"\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n" \
	"\tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd2, %r0, 4;\n" \
	"\tadd.s64 %rd2, %rd1, %rd2;\n"

static uint32_t hash(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* Inputs: in[i] = hash(i), with a few edge values in front. */
static void inputs(uint32_t *in, uint32_t n)
{
	static const uint32_t edge[] = { 0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu,
					 0xfffffffeu, 0x00ffffffu, 0x00800000u };

	for (uint32_t i = 0; i < n; i++)
		in[i] = i < 8 ? edge[i] : hash(i);
}

/*
 * Carry chains: 64-bit add and sub from 32-bit halves with add.cc/addc and
 * sub.cc/subc, and a 64x32 -> 96-bit product with mad.lo.cc/madc.hi.
 * Thread t reads in[t], in[t+64], in[t+128]; writes 8 words at out[256+8t].
 */
static const char carry_ptx[] = PRO("carry")
	"\tld.global.u32 %r1, [%rd2];\n\tld.global.u32 %r2, [%rd2+256];\n"
	"\tld.global.u32 %r3, [%rd2+512];\n"
	"\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tadd.cc.u32 %r10, %r1, %r2;\n\taddc.cc.u32 %r11, %r2, %r3;\n"
	"\taddc.u32 %r12, 0, 0;\n"
	"\tsub.cc.u32 %r13, %r1, %r2;\n\tsubc.cc.u32 %r14, %r2, %r3;\n"
	"\tsubc.u32 %r15, 0, 0;\n"
	/* (r2:r1) * r3 = r18:r17:r16 */
	"\tmul.lo.u32 %r16, %r1, %r3;\n\tmul.hi.u32 %r17, %r1, %r3;\n"
	"\tmad.lo.cc.u32 %r17, %r2, %r3, %r17;\n\tmadc.hi.u32 %r18, %r2, %r3, 0;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.v4.u32 [%rd3+1040], {%r14, %r15, %r16, %r17};\n"
	"\tst.global.u32 [%rd2+3072], %r18;\n"
	"\tret;\n}\n";

static int t_carry(void)
{
	static struct krun k;
	uint32_t in[192];

	inputs(in, 192);
	CHECK(run_ptx(carry_ptx, 1, 64, in, 192, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		uint64_t a = (uint64_t)in[t + 64] << 32 | in[t], b = (uint64_t)in[t + 128] << 32 |
			     in[t + 64];
		unsigned __int128 s = (unsigned __int128)a + b;
		unsigned __int128 p = (unsigned __int128)a * in[t + 128];
		uint64_t dif = a - b;
		uint32_t borrow = a < b;
		const uint32_t *o = &k.out[256 + 8 * t];

		CHECK(o[0] == (uint32_t)s && o[1] == (uint32_t)(s >> 32) &&
		      o[2] == (uint32_t)(s >> 64), "t%u add %08x %08x %08x", t, o[0], o[1], o[2]);
		CHECK(o[3] == (uint32_t)dif && o[4] == (uint32_t)(dif >> 32) &&
		      o[5] == (borrow ? 0xffffffffu : 0), "t%u sub %08x %08x %08x", t, o[3], o[4],
		      o[5]);
		CHECK(o[6] == (uint32_t)p && o[7] == (uint32_t)(p >> 32) &&
		      k.out[768 + t] == (uint32_t)(p >> 64), "t%u mul96", t);
	}
	return 0;
}

/* add.sat/sub.sat.s32, mul24.lo/hi, mad24, sad: out[256+8t...] */
static const char isat_ptx[] = PRO("isat")
	"\tld.global.u32 %r1, [%rd2];\n\tld.global.u32 %r2, [%rd2+256];\n"
	"\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tadd.sat.s32 %r10, %r1, %r2;\n\tsub.sat.s32 %r11, %r1, %r2;\n"
	"\tmul24.lo.s32 %r12, %r1, %r2;\n\tmul24.hi.u32 %r13, %r1, %r2;\n"
	"\tmad24.lo.u32 %r14, %r1, %r2, %r0;\n\tmul24.hi.s32 %r15, %r1, %r2;\n"
	"\tsad.s32 %r16, %r1, %r2, %r0;\n\tsad.u32 %r17, %r1, %r2, 7;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.v4.u32 [%rd3+1040], {%r14, %r15, %r16, %r17};\n"
	"\tret;\n}\n";

static int32_t sat32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int t_isat(void)
{
	static struct krun k;
	uint32_t in[128];

	inputs(in, 128);
	for (int i = 0; i < 8; i++)
		in[64 + i] = in[7 - i];
	CHECK(run_ptx(isat_ptx, 1, 64, in, 128, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		int32_t a = (int32_t)in[t], b = (int32_t)in[t + 64];
		int64_t sa = (int32_t)((uint32_t)a << 8) >> 8, sb = (int32_t)((uint32_t)b << 8) >> 8;
		uint64_t ua = in[t] & 0xffffff, ub = in[t + 64] & 0xffffff;
		const uint32_t *o = &k.out[256 + 8 * t];
		uint32_t want[8] = {
			(uint32_t)sat32((int64_t)a + b), (uint32_t)sat32((int64_t)a - b),
			(uint32_t)(sa * sb), (uint32_t)((ua * ub) >> 16),
			(uint32_t)(ua * ub) + t, (uint32_t)((uint64_t)(sa * sb) >> 16),
			(uint32_t)(a > b ? (int64_t)a - b : (int64_t)b - a) + t,
			(in[t] > in[t + 64] ? in[t] - in[t + 64] : in[t + 64] - in[t]) + 7,
		};

		for (int i = 0; i < 8; i++)
			CHECK(o[i] == want[i], "t%u word %d: %08x, expected %08x (a %08x b %08x)",
			      t, i, o[i], want[i], (uint32_t)a, (uint32_t)b);
	}
	return 0;
}

/* bfind, bfi with a register length, prmt modes, 16-bit shift by register. */
static const char bits_ptx[] = PRO("bits")
	"\tld.global.u32 %r1, [%rd2];\n\tld.global.u32 %r2, [%rd2+256];\n"
	"\tmul.wide.u32 %rd3, %r0, 64;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tbfind.u32 %r10, %r1;\n\tbfind.s32 %r11, %r1;\n\tbfind.shiftamt.u32 %r12, %r1;\n"
	"\tmov.b64 %rd4, {%r1, %r2};\n\tbfind.s64 %r13, %rd4;\n"
	"\tand.b32 %r3, %r2, 31;\n\tshr.u32 %r4, %r2, 8;\n\tand.b32 %r4, %r4, 63;\n"
	"\tbfi.b32 %r14, %r1, %r2, %r3, %r4;\n"
	"\tprmt.b32.f4e %r15, %r1, %r2, %r0;\n\tprmt.b32.b4e %r16, %r1, %r2, %r0;\n"
	"\tprmt.b32.rc8 %r17, %r1, %r2, %r0;\n\tprmt.b32.ecl %r18, %r1, %r2, %r0;\n"
	"\tprmt.b32.ecr %r19, %r1, %r2, %r0;\n\tprmt.b32.rc16 %r20, %r1, %r2, %r0;\n"
	"\tprmt.b32.b4e %r21, %r1, %r2, 2;\n"
	"\tcvt.u16.u32 %h1, %r1;\n\tand.b32 %r5, %r0, 31;\n"
	"\tshl.b16 %h2, %h1, %r5;\n\tshr.u16 %h3, %h1, %r5;\n\tshr.s16 %h4, %h1, %r5;\n"
	"\tcvt.u32.u16 %r22, %h2;\n\tcvt.u32.u16 %r23, %h3;\n\tcvt.u32.u16 %r24, %h4;\n"
	"\tmov.b64 %rd5, {%r2, %r1};\n\tcvt.u64.u32 %rd6, %r4;\n"
	"\tbfi.b64 %rd7, %rd4, %rd5, %r3, %r4;\n\tmov.b64 {%r25, %r26}, %rd7;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.v4.u32 [%rd3+1040], {%r14, %r15, %r16, %r17};\n"
	"\tst.global.v4.u32 [%rd3+1056], {%r18, %r19, %r20, %r21};\n"
	"\tst.global.v4.u32 [%rd3+1072], {%r22, %r23, %r24, %r25};\n"
	"\tst.global.u32 [%rd2+512], %r26;\n"
	"\tret;\n}\n";

static uint32_t c_bfind(uint64_t x, int bits, bool sgn, bool sa)
{
	if (sgn && (x >> (bits - 1) & 1))
		x = ~x & (bits == 64 ? ~0ull : 0xffffffffull);
	for (int i = bits - 1; i >= 0; i--)
		if (x >> i & 1)
			return sa ? (uint32_t)(bits - 1 - i) : (uint32_t)i;
	return 0xffffffffu;
}

static uint64_t c_bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int bits)
{
	pos &= 0xff;
	len &= 0xff;
	for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++) {
		b &= ~(1ull << (pos + i));
		b |= ((a >> i) & 1) << (pos + i);
	}
	return b;
}

/* The PTX ISA's prmt mode table: d.b3 d.b2 d.b1 d.b0 for c[1:0] = 0..3. */
static uint32_t c_prmt(uint32_t a, uint32_t b, int mode, uint32_t c)
{
	static const char *const tab[6][4] = {
		{ "3210", "4321", "5432", "6543" },	/* f4e */
		{ "5670", "6701", "7012", "0123" },	/* b4e */
		{ "0000", "1111", "2222", "3333" },	/* rc8 */
		{ "3210", "3211", "3222", "3333" },	/* ecl */
		{ "0000", "1110", "2210", "3210" },	/* ecr */
		{ "1010", "3232", "1010", "3232" },	/* rc16 */
	};
	uint64_t x = (uint64_t)b << 32 | a;
	uint32_t r = 0;

	for (int i = 0; i < 4; i++) {
		int sel = tab[mode][c & 3][3 - i] - '0';

		r |= (uint32_t)((x >> (8 * sel)) & 0xff) << (8 * i);
	}
	return r;
}

static int t_bits(void)
{
	static struct krun k;
	uint32_t in[128];

	inputs(in, 128);
	CHECK(run_ptx(bits_ptx, 1, 64, in, 128, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		uint32_t a = in[t], b = in[t + 64], pos = b & 31, len = (b >> 8) & 63, sh = t & 31;
		uint64_t a64 = (uint64_t)b << 32 | a, b64 = (uint64_t)a << 32 | b;
		uint16_t h = (uint16_t)a;
		uint64_t bf64 = c_bfi(a64, b64, pos, len, 64);
		const uint32_t *o = &k.out[256 + 16 * t];
		uint32_t want[16] = {
			c_bfind(a, 32, false, false), c_bfind(a, 32, true, false),
			c_bfind(a, 32, false, true), c_bfind(a64, 64, true, false),
			(uint32_t)c_bfi(a, b, pos, len, 32), c_prmt(a, b, 0, t), c_prmt(a, b, 1, t),
			c_prmt(a, b, 2, t), c_prmt(a, b, 3, t), c_prmt(a, b, 4, t),
			c_prmt(a, b, 5, t), c_prmt(a, b, 1, 2),
			sh >= 16 ? 0 : (uint16_t)(h << sh), sh >= 16 ? 0 : (uint16_t)(h >> sh),
			(uint16_t)((int16_t)h >> (sh >= 16 ? 15 : sh)), (uint32_t)bf64,
		};

		for (int i = 0; i < 16; i++)
			CHECK(o[i] == want[i], "t%u word %d: %08x, expected %08x (a %08x b %08x)",
			      t, i, o[i], want[i], a, b);
		CHECK(k.out[128 + t] == (uint32_t)(bf64 >> 32), "t%u bfi.b64 high", t);
	}
	return 0;
}

/* copysign, testp (f32 and f64). */
static const char fcls_ptx[] = PRO("fcls")
	"\tld.global.f32 %f1, [%rd2];\n\tld.global.f32 %f2, [%rd2+256];\n"
	"\tcopysign.f32 %f3, %f1, %f2;\n\tst.global.f32 [%rd2+1024], %f3;\n"
	"\tcvt.f64.f32 %fd1, %f1;\n\tcvt.f64.f32 %fd2, %f2;\n"
	"\tcopysign.f64 %fd3, %fd1, %fd2;\n\tcvt.rn.f32.f64 %f4, %fd3;\n"
	"\tst.global.f32 [%rd2+1280], %f4;\n"
	"\tmov.u32 %r10, 0;\n"
	"\ttestp.finite.f32 %p1, %f2;\n\tselp.u32 %r11, 1, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.infinite.f32 %p1, %f2;\n\tselp.u32 %r11, 2, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.number.f32 %p1, %f2;\n\tselp.u32 %r11, 4, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.notanumber.f32 %p1, %f2;\n\tselp.u32 %r11, 8, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.normal.f32 %p1, %f2;\n\tselp.u32 %r11, 16, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.subnormal.f32 %p1, %f2;\n\tselp.u32 %r11, 32, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.normal.f64 %p1, %fd2;\n\tselp.u32 %r11, 64, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\ttestp.subnormal.f64 %p1, %fd2;\n\tselp.u32 %r11, 128, 0, %p1;\n\tor.b32 %r10, %r10, %r11;\n"
	"\tst.global.u32 [%rd2+1536], %r10;\n"
	"\tret;\n}\n";

static int t_fcls(void)
{
	static struct krun k;
	uint32_t in[128];
	float x[] = { 0.0f, -0.0f, 1.5f, -2.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-41f,
		      1.17549435e-38f, 3.4e38f, -7.25f };

	inputs(in, 128);
	for (unsigned i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		memcpy(&in[64 + i], &x[i], 4);
	CHECK(run_ptx(fcls_ptx, 1, 64, in, 128, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		float a, b;
		uint32_t cs = (in[t] & 0x80000000u) | (in[64 + t] & 0x7fffffffu), cls = 0;
		int c;

		memcpy(&a, &in[t], 4);
		memcpy(&b, &in[64 + t], 4);
		c = fpclassify(b);
		cls |= isfinite(b) ? 1 : 0;
		cls |= isinf(b) ? 2 : 0;
		cls |= !isnan(b) ? 4 : 0;
		cls |= isnan(b) ? 8 : 0;
		cls |= c == FP_NORMAL ? 16 : 0;
		cls |= c == FP_SUBNORMAL ? 32 : 0;
		cls |= fpclassify((double)b) == FP_NORMAL ? 64 : 0;
		cls |= fpclassify((double)b) == FP_SUBNORMAL ? 128 : 0;
		if (!isnan(b))
			CHECK(k.out[256 + t] == cs && k.out[320 + t] == cs,
			      "t%u copysign %08x %08x, expected %08x", t, k.out[256 + t],
			      k.out[320 + t], cs);
		CHECK(k.out[384 + t] == cls, "t%u testp %02x, expected %02x (%g)", t,
		      k.out[384 + t], cls, b);
	}
	return 0;
}

/* bar.red.popc / and / or over a block of 96 threads (3 warps). */
static const char barred_ptx[] = PRO("barred")
	"\tld.global.u32 %r1, [%rd2];\n"
	"\tand.b32 %r2, %r1, 1;\n\tsetp.ne.u32 %p1, %r2, 0;\n"
	"\tbar.red.popc.u32 %r10, 0, %p1;\n"
	"\tbar.red.and.pred %p2, 0, %p1;\n\tselp.u32 %r11, 1, 0, %p2;\n"
	"\tsetp.lt.u32 %p3, %r0, 200;\n"
	"\tbar.red.and.pred %p4, 0, %p3;\n\tselp.u32 %r12, 1, 0, %p4;\n"
	"\tbar.red.or.pred %p5, 0, !%p3;\n\tselp.u32 %r13, 1, 0, %p5;\n"
	"\tbarrier.red.popc.u32 %r14, 0, !%p1;\n"
	"\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.u32 [%rd3+1040], %r14;\n"
	"\tret;\n}\n";

static int t_barred(void)
{
	static struct krun k;
	uint32_t in[96], odd = 0;

	inputs(in, 96);
	for (int i = 0; i < 96; i++)
		odd += in[i] & 1;
	CHECK(run_ptx(barred_ptx, 2, 96, in, 96, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 96; t++) {
		const uint32_t *o = &k.out[256 + 8 * t];

		CHECK(o[0] == odd && o[1] == (odd == 96) && o[2] == 1 && o[3] == 0 &&
		      o[4] == 96 - odd, "t%u: %u %u %u %u %u (odd %u)", t, o[0], o[1], o[2],
		      o[3], o[4], odd);
	}
	return 0;
}

/* The member mask: a full mask works; one leaving out active lanes traps. */
static const char mask_ptx[] = PRO("mask")
	"\tld.global.u32 %r1, [%rd2];\n"
	"\tshfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;\n"
	"\tmov.u32 %r9, 0xffffffff;\n"
	"\tsetp.ne.u32 %p1, %r0, 99;\n"
	"\tvote.sync.ballot.b32 %r3, %p1, %r9;\n"
	"\tst.global.u32 [%rd2+1024], %r2;\n\tst.global.u32 [%rd2+2048], %r3;\n"
	"\tret;\n}\n";

static const char badmask_ptx[] = PRO("badmask")
	"\tld.global.u32 %r1, [%rd2];\n"
	"\tshfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffff;\n"
	"\tst.global.u32 [%rd2+1024], %r2;\n"
	"\tret;\n}\n";

/* In a divergent branch, the mask of the branch's lanes is right. */
static const char divmask_ptx[] = PRO("divmask")
	"\tld.global.u32 %r1, [%rd2];\n"
	"\tsetp.lt.u32 %p1, %r0, 16;\n"
	"\t@!%p1 bra $skip;\n"
	"\tshfl.sync.bfly.b32 %r2, %r1, 1, 31, 0xffff;\n"
	"\tst.global.u32 [%rd2+1024], %r2;\n"
	"$skip:\n"
	"\tret;\n}\n";

static int t_mask(void)
{
	static struct krun k;
	uint32_t in[64];

	inputs(in, 64);
	CHECK(run_ptx(mask_ptx, 1, 64, in, 64, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++)
		CHECK(k.out[256 + t] == in[t ^ 1] && k.out[512 + t] == 0xffffffffu,
		      "t%u: %08x %08x", t, k.out[256 + t], k.out[512 + t]);
	CHECK(run_ptx(badmask_ptx, 1, 32, in, 64, &k) == 0, "run");
	CHECK(k.status == -EILSEQ, "a mask without active lanes: status %d", k.status);
	CHECK(k.out[256] == 0, "nothing stored");
	CHECK(run_ptx(divmask_ptx, 1, 32, in, 64, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 16; t++)
		CHECK(k.out[256 + t] == in[t ^ 1], "divergent t%u", t);
	return 0;
}

/*
 * .func calls: a function with two parameters and a return value, called
 * twice (once under a guard), calling another function; labels and
 * registers of the two inlined copies do not clash.
 */
static const char call_ptx[] = HEAD
	".func (.param .b32 r) twice(.param .b32 x);\n"
	".func (.param .b32 r) poly(.param .b32 a, .param .b32 b)\n{\n"
	"\t.reg .b32 %r<6>;\n\t.reg .pred %p<2>;\n"
	"\tld.param.b32 %r1, [a];\n\tld.param.b32 %r2, [b];\n"
	"\tsetp.gt.u32 %p1, %r1, %r2;\n\t@%p1 bra $big;\n"
	"\tmad.lo.s32 %r3, %r1, %r2, 7;\n\tst.param.b32 [r], %r3;\n\tret;\n"
	"$big:\n"
	"\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0], %r1;\n\t.param .b32 q0;\n"
	"\tcall.uni (q0), twice, (p0);\n\tld.param.b32 %r4, [q0];\n\t}\n"
	"\tsub.s32 %r3, %r4, %r2;\n\tst.param.b32 [r], %r3;\n\tret;\n}\n"
	".func (.param .b32 r) twice(.param .b32 x)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [x];\n\tshl.b32 %r2, %r1, 1;\n"
	"\tst.param.b32 [r], %r2;\n\tret;\n}\n"
	".visible .entry calls(.param .u64 out)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd2, %r0, 4;\n\tadd.s64 %rd2, %rd1, %rd2;\n"
	"\tand.b32 %r1, %r0, 15;\n\tshr.u32 %r2, %r0, 2;\n\tmov.u32 %r5, 1000;\n"
	"\t{\n\t.param .b32 a0;\n\tst.param.b32 [a0], %r1;\n\t.param .b32 a1;\n"
	"\tst.param.b32 [a1], %r2;\n\t.param .b32 ret0;\n"
	"\tcall.uni (ret0), poly, (a0, a1);\n\tld.param.b32 %r3, [ret0];\n\t}\n"
	"\tsetp.lt.u32 %p1, %r0, 8;\n"
	"\t{\n\t.param .b32 a0;\n\tst.param.b32 [a0], %r0;\n\t.param .b32 a1;\n"
	"\tst.param.b32 [a1], %r3;\n\t.param .b32 ret0;\n"
	"\t@%p1 call (ret0), poly, (a0, a1);\n\t@%p1 ld.param.b32 %r5, [ret0];\n\t}\n"
	"\tst.global.u32 [%rd2+1024], %r3;\n\tst.global.u32 [%rd2+2048], %r5;\n"
	"\tret;\n}\n";

static uint32_t c_poly(uint32_t a, uint32_t b)
{
	return a > b ? 2 * a - b : a * b + 7;
}

static int t_calls(void)
{
	static struct krun k;
	char err[256];
	void *img;
	size_t size;
	static const char rec[] = HEAD ".func f()\n{\n\tcall.uni f, ();\n\tret;\n}\n"
		".visible .entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n";

	CHECK(run_ptx(call_ptx, 1, 64, NULL, 0, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		uint32_t r3 = c_poly(t & 15, t >> 2), r5 = t < 8 ? c_poly(t, r3) : 1000;

		CHECK(k.out[256 + t] == r3 && k.out[512 + t] == r5, "t%u: %u %u, expected %u %u",
		      t, k.out[256 + t], k.out[512 + t], r3, r5);
	}
	/* recursion is refused with the line of the call */
	CHECK(vgpu_compile_ptx(rec, strlen(rec), &img, &size, err, sizeof(err)) == -EINVAL,
	      "recursion");
	CHECK(strstr(err, "ptx:6: recursive call of 'f'"), "error '%s'", err);
	return 0;
}

/*
 * Idempotence boundaries: the model flags TB_DONE of a block that executed
 * one (an atomic here only in odd blocks; a store that overwrites its
 * input in every block); a kernel without boundaries never sets it.
 */
static const char bnd_ptx[] = PRO("bnd")
	"\tmov.u32 %r1, %ctaid.x;\n\tand.b32 %r2, %r1, 1;\n"
	"\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra $even;\n"
	"\tatom.global.add.u32 %r3, [%rd1], 1;\n"
	"$even:\n"
	"\tret;\n}\n";

static const char rmw_ptx[] = PRO("rmw")
	"\tld.global.u32 %r1, [%rd2];\n\tadd.s32 %r1, %r1, 1;\n\tst.global.u32 [%rd2], %r1;\n"
	"\tret;\n}\n";

static const char nobnd_ptx[] = PRO("nobnd")
	"\tst.global.u32 [%rd2], %r0;\n"
	"\tret;\n}\n";

static int t_boundary(void)
{
	static struct krun k;

	CHECK(run_ptx(bnd_ptx, 6, 32, NULL, 0, &k) == 0 && !k.status, "run %d", k.status);
	CHECK(k.crossed == 3 && k.crossed_mask == 0x2a && k.out[0] == 96,
	      "atomics in odd blocks: crossed %u mask %x count %u", k.crossed, k.crossed_mask,
	      k.out[0]);
	CHECK(run_ptx(rmw_ptx, 3, 32, NULL, 0, &k) == 0 && !k.status, "run %d", k.status);
	CHECK(k.crossed == 3 && k.out[5] == 3, "overwriting its input: crossed %u", k.crossed);
	CHECK(run_ptx(nobnd_ptx, 3, 32, NULL, 0, &k) == 0 && !k.status, "run %d", k.status);
	CHECK(k.crossed == 0 && k.out[5] == 5, "store only: crossed %u", k.crossed);
	return 0;
}

/*
 * f16: conversions from f32 in every rounding mode, f16 add/mul/fma/min/
 * neg/abs/setp/sub.sat against a CPU reference that rounds by search.
 */
static const char f16_ptx[] = PRO("half")
	"\tld.global.f32 %f1, [%rd2];\n\tld.global.f32 %f2, [%rd2+256];\n"
	"\tmul.wide.u32 %rd3, %r0, 64;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tcvt.rn.f16.f32 %h1, %f1;\n\tcvt.rz.f16.f32 %h2, %f1;\n"
	"\tcvt.rm.f16.f32 %h3, %f1;\n\tcvt.rp.f16.f32 %h4, %f1;\n"
	"\tcvt.rn.f16.f32 %h5, %f2;\n"
	"\tcvt.u32.u16 %r10, %h1;\n\tcvt.u32.u16 %r11, %h2;\n"
	"\tcvt.u32.u16 %r12, %h3;\n\tcvt.u32.u16 %r13, %h4;\n"
	"\tadd.f16 %h6, %h1, %h5;\n\tcvt.u32.u16 %r14, %h6;\n"
	"\tmul.rn.f16 %h6, %h1, %h5;\n\tcvt.u32.u16 %r15, %h6;\n"
	"\tfma.rn.f16 %h6, %h1, %h5, %h5;\n\tcvt.u32.u16 %r16, %h6;\n"
	"\tmin.f16 %h6, %h1, %h5;\n\tcvt.u32.u16 %r17, %h6;\n"
	"\tneg.f16 %h6, %h1;\n\tcvt.u32.u16 %r18, %h6;\n"
	"\tabs.f16 %h6, %h5;\n\tcvt.u32.u16 %r19, %h6;\n"
	"\tsetp.lt.f16 %p1, %h1, %h5;\n\tselp.u32 %r20, 1, 0, %p1;\n"
	"\tcvt.f32.f16 %f3, %h1;\n\tmov.b32 %r21, %f3;\n"
	"\tsub.sat.f16 %h6, %h1, %h5;\n\tcvt.u32.u16 %r22, %h6;\n"
	"\tcvt.rzi.s32.f16 %r23, %h1;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.v4.u32 [%rd3+1040], {%r14, %r15, %r16, %r17};\n"
	"\tst.global.v4.u32 [%rd3+1056], {%r18, %r19, %r20, %r21};\n"
	"\tst.global.v2.u32 [%rd3+1072], {%r22, %r23};\n"
	"\tret;\n}\n";

static double c_h2d(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(m | 1024, e - 25) : ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

/* Rounds @x to f16 by @rnd (0 rn, 1 rz, 2 rm, 3 rp) by search: exact. */
static uint16_t c_d2h(double x, int rnd)
{
	uint16_t sg = signbit(x) ? 0x8000 : 0, lo = 0;
	double ax = fabs(x), vl, vh;

	if (isnan(x))
		return 0x7fff;
	if (isinf(x))
		return sg | 0x7c00;
	while (lo < 0x7bff && c_h2d((uint16_t)(lo + 1)) <= ax)
		lo++;
	vl = c_h2d(lo);
	if (vl == ax)
		return sg | lo;
	/* ax lies between lo and lo + 1 (65504 .. 65536 for the top: ulp 32) */
	vh = lo == 0x7bff ? 65536.0 : c_h2d((uint16_t)(lo + 1));
	if (rnd == 1 || (rnd == 2 && !sg) || (rnd == 3 && sg))
		return sg | lo;
	if (rnd == 2 || rnd == 3)
		return sg | (uint16_t)(lo + 1);
	if (ax - vl < vh - ax || (ax - vl == vh - ax && !(lo & 1)))
		return sg | lo;
	return sg | (uint16_t)(lo + 1);
}

static int t_f16(void)
{
	static struct krun k;
	uint32_t in[128];
	float x[] = { 1.0f, 1.00048828125f, 1.000732421875f, -1.000732421875f, 65504.0f,
		      65519.0f, 65520.0f, -70000.0f, 5.96e-8f, 2.9e-8f, -3.0e-8f, 1e-10f,
		      0.333333f, -0.0f, INFINITY, NAN, 6.103515625e-05f, 6.1e-05f };

	for (uint32_t i = 0; i < 128; i++) {
		float v = (float)((int32_t)hash(i) % 20000) / 37.0f;

		memcpy(&in[i], &v, 4);
	}
	for (unsigned i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		memcpy(&in[i], &x[i], 4);
	memcpy(&in[64 + 3], &x[2], 4);
	CHECK(run_ptx(f16_ptx, 1, 64, in, 128, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		float a, b, fa;
		uint16_t ha, hb;
		double va, vb, sd;
		const uint32_t *o = &k.out[256 + 16 * t];
		uint32_t want[14];

		memcpy(&a, &in[t], 4);
		memcpy(&b, &in[t + 64], 4);
		ha = c_d2h(a, 0);
		hb = c_d2h(b, 0);
		va = c_h2d(ha);
		vb = c_h2d(hb);
		fa = (float)va;
		sd = va - vb;
		sd = isnan(sd) ? 0 : sd < 0 ? 0 : sd > 1 ? 1 : sd;
		want[0] = ha;
		want[1] = c_d2h(a, 1);
		want[2] = c_d2h(a, 2);
		want[3] = c_d2h(a, 3);
		want[4] = c_d2h(va + vb, 0);
		want[5] = c_d2h(va * vb, 0);
		want[6] = c_d2h(fma(va, vb, vb), 0);
		want[7] = isnan(va) ? hb : isnan(vb) ? ha : va <= vb ? ha : hb;
		want[8] = ha ^ 0x8000u;
		want[9] = hb & 0x7fffu;
		want[10] = va < vb;
		memcpy(&want[11], &fa, 4);
		want[12] = c_d2h(sd, 0);
		want[13] = isnan(va) ? 0 : va >= 2147483648.0 ? 0x7fffffffu :
			   va <= -2147483648.0 ? 0x80000000u : (uint32_t)(int32_t)trunc(va);
		for (int i = 0; i < 14; i++) {
			if (i == 7 && va == 0 && vb == 0)
				continue;	/* min(+0, -0): either */
			if (i >= 4 && i <= 6 && (isnan(va) || isnan(vb) || isinf(va) || isinf(vb)))
				continue;	/* NaN payloads, inf - inf */
			CHECK(o[i] == want[i], "t%u word %d: %04x, expected %04x (a %g b %g)", t, i,
			      o[i], want[i], a, b);
		}
	}
	return 0;
}


/* match.any / match.all (b32 and b64) in a warp and in a divergent branch. */
static const char match_ptx[] = PRO("match")
	"\tld.global.u32 %r1, [%rd2];\n\tand.b32 %r2, %r1, 3;\n"
	"\tmatch.any.sync.b32 %r10, %r2, -1;\n"
	"\tcvt.u64.u32 %rd4, %r2;\n\tmatch.any.sync.b64 %r11, %rd4, -1;\n"
	"\tmatch.all.sync.b32 %r12|%p1, %r2, -1;\n\tselp.u32 %r13, 1, 0, %p1;\n"
	"\tmov.u32 %r14, 0;\n\tmov.u32 %r15, 0;\n"
	"\tsetp.lt.u32 %p2, %r0, 8;\n\t@!%p2 bra $out;\n"
	"\tmatch.all.sync.b32 %r14|%p3, 5, 0xff;\n\tselp.u32 %r15, 1, 0, %p3;\n"
	"$out:\n"
	"\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.v2.u32 [%rd3+1040], {%r14, %r15};\n"
	"\tret;\n}\n";

static int t_match(void)
{
	static struct krun k;
	uint32_t in[32];

	inputs(in, 32);
	CHECK(run_ptx(match_ptx, 1, 32, in, 32, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 32; t++) {
		uint32_t any = 0;
		const uint32_t *o = &k.out[256 + 8 * t];

		for (uint32_t l = 0; l < 32; l++)
			any |= (uint32_t)((in[l] & 3) == (in[t] & 3)) << l;
		CHECK(o[0] == any && o[1] == any && o[2] == 0 && o[3] == 0,
		      "t%u: any %08x %08x all %08x %u, expected %08x", t, o[0], o[1], o[2], o[3], any);
		CHECK(o[4] == (t < 8 ? 0xffu : 0) && o[5] == (t < 8), "t%u: divergent all %08x %u",
		      t, o[4], o[5]);
	}
	return 0;
}

/* f64 div/rcp/sqrt in every rounding mode, 64-bit div/rem/add/sub, mul.wide.s32, 64-bit bit ops. */
static const char f64_ptx[] = PRO("dbl")
	"\tmul.wide.u32 %rd3, %r0, 8;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
	"\tld.global.f64 %fd1, [%rd4];\n\tld.global.f64 %fd2, [%rd4+512];\n"
	"\tmul.wide.u32 %rd3, %r0, 128;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tdiv.rn.f64 %fd3, %fd1, %fd2;\n\tst.global.f64 [%rd3+2048], %fd3;\n"
	"\tdiv.rz.f64 %fd3, %fd1, %fd2;\n\tst.global.f64 [%rd3+2056], %fd3;\n"
	"\tdiv.rm.f64 %fd3, %fd1, %fd2;\n\tst.global.f64 [%rd3+2064], %fd3;\n"
	"\tdiv.rp.f64 %fd3, %fd1, %fd2;\n\tst.global.f64 [%rd3+2072], %fd3;\n"
	"\trcp.rn.f64 %fd3, %fd2;\n\tst.global.f64 [%rd3+2080], %fd3;\n"
	"\trcp.rz.f64 %fd3, %fd2;\n\tst.global.f64 [%rd3+2088], %fd3;\n"
	"\tabs.f64 %fd5, %fd1;\n"
	"\tsqrt.rm.f64 %fd3, %fd5;\n\tst.global.f64 [%rd3+2096], %fd3;\n"
	"\tsqrt.rp.f64 %fd3, %fd5;\n\tst.global.f64 [%rd3+2104], %fd3;\n"
	"\tmov.b64 %rd5, %fd1;\n\tmov.b64 %rd6, %fd2;\n\tor.b64 %rd6, %rd6, 1;\n"
	"\tdiv.s64 %rd7, %rd5, %rd6;\n\tst.global.u64 [%rd3+2112], %rd7;\n"
	"\trem.u64 %rd7, %rd5, %rd6;\n\tst.global.u64 [%rd3+2120], %rd7;\n"
	"\tpopc.b64 %r1, %rd5;\n\tclz.b64 %r2, %rd6;\n"
	"\tst.global.v2.u32 [%rd3+2128], {%r1, %r2};\n"
	"\tbrev.b64 %rd7, %rd5;\n\tst.global.u64 [%rd3+2136], %rd7;\n"
	/* 64-bit add and sub, carries and borrows between the halves; odd threads only too */
	"\tadd.s64 %rd7, %rd5, %rd6;\n\tst.global.u64 [%rd3+2144], %rd7;\n"
	"\tsub.s64 %rd7, %rd5, %rd6;\n\tst.global.u64 [%rd3+2152], %rd7;\n"
	"\tand.b32 %r3, %r0, 1;\n\tsetp.ne.u32 %p1, %r3, 0;\n\tmov.u64 %rd8, 0;\n"
	"\t@%p1 add.s64 %rd8, %rd5, 4294967295;\n\t@%p1 sub.s64 %rd8, %rd8, %rd6;\n"
	"\tst.global.u64 [%rd3+2160], %rd8;\n"
	/* a signed widening product of the low words (negative half the time) */
	"\tcvt.u32.u64 %r4, %rd5;\n\tcvt.u32.u64 %r5, %rd6;\n\tmul.wide.s32 %rd9, %r4, %r5;\n"
	"\tst.global.u64 [%rd3+2168], %rd9;\n"
	"\tret;\n}\n";

static double c_fround(int mode, int op, double a, double b)
{
	static const int m[4] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };
	int old = fegetround();
	volatile double x = a, y = b, r;

	fesetround(m[mode]);
	r = op == 0 ? x / y : op == 1 ? 1.0 / y : sqrt(x);
	fesetround(old);
	return r;
}

static int t_f64(void)
{
	static struct krun k;
	static uint32_t in[256];

	for (uint32_t i = 0; i < 128; i++) {
		double v = (double)(int32_t)hash(i) / (double)(hash(i + 1000) | 1) * 3.7;

		if (i == 64 + 5)
			v = 0.0;
		memcpy(&in[2 * i], &v, 8);
	}
	CHECK(run_ptx(f64_ptx, 1, 64, in, 256, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 64; t++) {
		double a, b, want[8];
		uint64_t ua, ub, o[16], rev = 0;

		memcpy(&a, &in[2 * t], 8);
		memcpy(&b, &in[2 * (t + 64)], 8);
		memcpy(o, &k.out[512 + 32 * t], sizeof(o));
		for (int mde = 0; mde < 4; mde++)
			want[mde] = c_fround(mde, 0, a, b);
		want[4] = c_fround(0, 1, a, b);
		want[5] = c_fround(1, 1, a, b);
		want[6] = c_fround(2, 2, fabs(a), 0);
		want[7] = c_fround(3, 2, fabs(a), 0);
		for (int i = 0; i < 8; i++)
			CHECK(memcmp(&o[i], &want[i], 8) == 0, "t%u f64 result %d: %a, expected %a",
			      t, i, *(double *)&o[i], want[i]);
		memcpy(&ua, &a, 8);
		memcpy(&ub, &b, 8);
		ub |= 1;
		for (int i = 0; i < 64; i++)
			rev |= ((ua >> i) & 1) << (63 - i);
		CHECK(o[8] == (uint64_t)((int64_t)ua / (int64_t)ub) && o[9] == ua % ub,
		      "t%u div/rem 64", t);
		CHECK((uint32_t)o[10] == (uint32_t)__builtin_popcountll(ua) &&
		      (uint32_t)(o[10] >> 32) == (uint32_t)__builtin_clzll(ub) && o[11] == rev,
		      "t%u popc/clz/brev 64", t);
		CHECK(o[12] == ua + ub && o[13] == ua - ub &&
		      o[14] == (t & 1 ? ua + 0xffffffffull - ub : 0),
		      "t%u add/sub 64: %016llx %016llx %016llx (%016llx, %016llx)", t,
		      (unsigned long long)o[12], (unsigned long long)o[13],
		      (unsigned long long)o[14], (unsigned long long)ua, (unsigned long long)ub);
		CHECK(o[15] == (uint64_t)((int64_t)(int32_t)ua * (int32_t)ub),
		      "t%u mul.wide.s32 %08x %08x: %016llx", t, (uint32_t)ua, (uint32_t)ub,
		      (unsigned long long)o[15]);
	}
	return 0;
}


/* redux.sync (sm_80 PTX) in a full warp and in a divergent branch. */
static const char redux_ptx[] = HEAD ".visible .entry redux(.param .u64 out)\n{\n"
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r0, %tid.x;\n\tmul.wide.u32 %rd2, %r0, 4;\n\tadd.s64 %rd2, %rd1, %rd2;\n"
	"\tld.global.u32 %r1, [%rd2];\n"
	"\tredux.sync.add.u32 %r10, %r1, -1;\n\tredux.sync.min.s32 %r11, %r1, -1;\n"
	"\tredux.sync.max.u32 %r12, %r1, -1;\n\tredux.sync.xor.b32 %r13, %r1, -1;\n"
	"\tmov.u32 %r14, 0;\n\tsetp.lt.u32 %p1, %r0, 5;\n\t@!%p1 bra $o;\n"
	"\tredux.sync.max.s32 %r14, %r1, 31;\n"
	"$o:\n"
	"\tmul.wide.u32 %rd3, %r0, 32;\n\tadd.s64 %rd3, %rd1, %rd3;\n"
	"\tst.global.v4.u32 [%rd3+1024], {%r10, %r11, %r12, %r13};\n"
	"\tst.global.u32 [%rd3+1040], %r14;\n"
	"\tret;\n}\n";

static int t_redux(void)
{
	static struct krun k;
	uint32_t in[32], add = 0, umax = 0, x = 0, smax5 = 0;
	int32_t smin = INT32_MAX, sm5 = INT32_MIN;

	inputs(in, 32);
	for (int i = 0; i < 32; i++) {
		add += in[i];
		smin = (int32_t)in[i] < smin ? (int32_t)in[i] : smin;
		umax = in[i] > umax ? in[i] : umax;
		x ^= in[i];
		if (i < 5)
			sm5 = (int32_t)in[i] > sm5 ? (int32_t)in[i] : sm5;
	}
	smax5 = (uint32_t)sm5;
	CHECK(run_ptx(redux_ptx, 1, 32, in, 32, &k) == 0 && !k.status, "run %d", k.status);
	for (uint32_t t = 0; t < 32; t++) {
		const uint32_t *o = &k.out[256 + 8 * t];

		CHECK(o[0] == add && o[1] == (uint32_t)smin && o[2] == umax && o[3] == x &&
		      o[4] == (t < 5 ? smax5 : 0), "t%u: %08x %08x %08x %08x %08x", t, o[0], o[1],
		      o[2], o[3], o[4]);
	}
	return 0;
}


/* ld.param through a register holding an entry parameter's address. */
static const char pareg_ptx[] = HEAD ".visible .entry pareg(.param .u64 out)\n{\n"
	"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [out];\n\tmov.u64 %rd2, out;\n"
	"\tld.param.u64 %rd3, [%rd2];\n\tld.param.u32 %r1, [%rd2+4];\n"
	"\tcvta.to.global.u64 %rd4, %rd3;\n"
	"\tst.global.u64 [%rd4+1024], %rd1;\n\tst.global.u32 [%rd4+1032], %r1;\n"
	"\tst.global.u64 [%rd4+1040], %rd2;\n"
	"\tret;\n}\n";

static int t_param_reg(void)
{
	static struct krun k;
	char err[256];
	void *img;
	size_t size;
	static const char bad[] = HEAD ".func f(.param .b32 x)\n{\n\t.reg .b64 %rd<2>;\n"
		"\t.reg .b32 %r<2>;\n\tmov.u64 %rd1, x;\n\tld.param.u32 %r1, [%rd1];\n\tret;\n}\n"
		".visible .entry k()\n{\n\t.param .b32 a;\n\tcall.uni f, (a);\n\tret;\n}\n";

	CHECK(run_ptx(pareg_ptx, 1, 1, NULL, 0, &k) == 0 && !k.status, "run %d", k.status);
	CHECK(k.out[256] == (1u << 20) && k.out[257] == 0 && k.out[258] == 0 &&
	      k.out[260] == 0 && k.out[261] == 0, "ld.param via register: %08x %08x %08x %08x",
	      k.out[256], k.out[257], k.out[258], k.out[260]);
	CHECK(vgpu_compile_ptx(bad, strlen(bad), &img, &size, err, sizeof(err)) == -EINVAL,
	      "the address of a call parameter");
	CHECK(strstr(err, "ptx:8: the address of call parameter 'x'"), "error '%s'", err);
	return 0;
}

int main(void)
{
	report("carry chains: add.cc/addc/sub.cc/subc/mad.cc/madc", t_carry());
	report("add.sat/sub.sat, mul24/mad24, sad", t_isat());
	report("bfind, bfi with a register length, prmt modes, 16-bit shifts by register",
	       t_bits());
	report("copysign and testp", t_fcls());
	report("bar.red.popc/and/or", t_barred());
	report("shfl/vote member mask: honoured when full, traps when it leaves lanes out",
	       t_mask());
	report(".func calls inlined: params, return values, guards, nesting; recursion refused",
	       t_calls());
	report("idempotence boundary: TB_DONE flags blocks that crossed it", t_boundary());
	report("f64 div/rcp/sqrt in every rounding mode, 64-bit div/rem/add/sub/popc/clz/brev, mul.wide.s32", t_f64());
	report("ld.param through a register; a call parameter's address refused", t_param_reg());
	report("redux.sync add/min/max/xor, full and divergent", t_redux());
	report("match.any/match.all, b32 and b64, in a divergent branch", t_match());
	report("f16: cvt in every rounding mode, add/mul/fma/min/neg/abs/setp/sat", t_f16());
	return test_summary();
}
