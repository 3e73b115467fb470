// SPDX-License-Identifier: MIT
/*
 * blackscholes: call and put prices of n European options
 * (blackscholes.cu). The reference below is the kernel's arithmetic
 * operation for operation: the same polynomial exp / log / CND, fmaf
 * where the kernel has fma.rn, plain float * + - / and sqrtf where it has
 * mul.rn / add.rn / sub.rn / div.rn / sqrt.rn, rintf for cvt.rni. This file
 * is C11 (GCC does not contract a * b + c there), so results are bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define LN2 0.693147182f
#define LOG2E 1.44269502f

static float as_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint32_t as_u32(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static float bs_exp(float x)
{
	float k, r, p;

	x = fminf(fmaxf(x, -80.0f), 80.0f);
	k = rintf(x * LOG2E);
	r = fmaf(-k, LN2, x);
	p = fmaf(r, 1.0f / 720.0f, 1.0f / 120.0f);
	p = fmaf(p, r, 1.0f / 24.0f);
	p = fmaf(p, r, 1.0f / 6.0f);
	p = fmaf(p, r, 0.5f);
	p = fmaf(p, r, 1.0f);
	p = fmaf(p, r, 1.0f);
	return p * as_float((uint32_t)((int)k + 127) << 23);
}

static float bs_log(float x)
{
	uint32_t bits = as_u32(x);
	int e = (int)((bits >> 23) & 0xff) - 127;
	float m = as_float((bits & 0x7fffff) | 0x3f800000);
	float f, s, s2, p;

	if (m > 1.41421356f) {
		m = m * 0.5f;
		e++;
	}
	f = m - 1.0f;
	s = f / (f + 2.0f);
	s2 = s * s;
	p = fmaf(s2, 1.0f / 9.0f, 1.0f / 7.0f);
	p = fmaf(p, s2, 1.0f / 5.0f);
	p = fmaf(p, s2, 1.0f / 3.0f);
	p = fmaf(p, s2, 1.0f);
	return fmaf((float)e, LN2, (2.0f * s) * p);
}

static float bs_cnd(float d)
{
	float k = 1.0f / fmaf(0.2316419f, fabsf(d), 1.0f);
	float p = fmaf(k, 1.330274429f, -1.821255978f);
	float c;

	p = fmaf(p, k, 1.781477937f);
	p = fmaf(p, k, -0.356563782f);
	p = fmaf(p, k, 0.31938153f);
	p = p * k;
	c = (0.39894228f * bs_exp(-0.5f * (d * d))) * p;
	return d > 0.0f ? 1.0f - c : c;
}

static void bs_ref(float s, float x, float t, float r, float v, float *call, float *put)
{
	float sqrt_t = sqrtf(t);
	float d1 = fmaf(fmaf(0.5f * v, v, r), t, bs_log(s / x)) / (v * sqrt_t);
	float d2 = d1 - v * sqrt_t;
	float cnd1 = bs_cnd(d1), cnd2 = bs_cnd(d2);
	float disc = x * bs_exp(-r * t);

	*call = s * cnd1 - disc * cnd2;
	*put = disc * (1.0f - cnd2) - s * (1.0f - cnd1);
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_blackscholes;

static int blackscholes_run(struct vgpu_device *dev, const struct workload_args *args,
			    struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size;
	uint64_t b = (uint64_t)n * 4;
	uint64_t sizes[5] = { b, b, b, b, b };
	uint64_t seed = args->seed;
	float r = 0.02f, v = 0.30f;
	struct workload_ctx w;
	vgpu_deviceptr d[5];
	float *in, *want;
	int ret;

	ret = workload_size_check(&workload_blackscholes, args->size, msg, msglen);
	if (ret)
		return ret;
	in = malloc(b * 3);
	want = malloc(b * 2);
	if (!in || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "blackscholes", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 5);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		float *s = &in[i], *x = &in[n + i], *t = &in[2 * (size_t)n + i];

		/* As the SDK sample: price 5-30, strike 1-100, 0.25-10 years. */
		*s = 17.5f + 12.5f * workload_randf(&seed);
		*x = 50.5f + 49.5f * workload_randf(&seed);
		*t = 5.125f + 4.875f * workload_randf(&seed);
		bs_ref(*s, *x, *t, r, v, &want[i], &want[n + i]);
	}
	for (int k = 0; k < 3 && !ret; k++)
		ret = workload_htod(&w, d[k], in + (size_t)k * n, b);
	if (!ret)
		ret = workload_go(&w, "blackscholes", (n + 127) / 128, 1, 128, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &d[3], &d[4], &r, &v, &n));
	if (!ret)
		ret = workload_check_f32(&w, "call", d[3], want, n);
	if (!ret)
		ret = workload_check_f32(&w, "put", d[4], want + n, n);
out:
	workload_close(&w);
out_host:
	free(in);
	free(want);
	return ret;
}

const struct vgpu_workload workload_blackscholes = {
	.name = "blackscholes",
	.paper = "CUDA SDK BlackScholes (BS)",
	.cls = "MEM",
	.kernels = "blackscholes",
	.small_size = 4096,
	.medium_size = 262144,
	.default_size = 1 << 20,
	.large_size = 1 << 22,
	.size_unit = "options",
	.max_size = 1u << 26,
	.limits = (const struct vgpu_workload_limit[]){
		{ "blackscholes", { LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = blackscholes_run,
};
