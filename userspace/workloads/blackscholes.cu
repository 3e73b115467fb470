/*
 * blackscholes.cu - European call and put prices by the Black-Scholes
 * formula, one option per thread.
 *
 * Stands for the CUDA SDK "BlackScholes" sample (BS in Tables 4.2 and 5.3;
 * Table 5.3 classes it MEM: 3 loads and 2 stores per option against ~100
 * flops). It is idempotent. Logarithm, exponential and the cumulative
 * normal distribution are our own polynomial approximations built from
 * fmaf and exact bit manipulation only, instead of the device's expf/logf
 * whose approximations differ from libm: so the CPU reference in
 * blackscholes.c, doing the same IEEE operations, matches bit for bit.
 * Every product that feeds a sum is written as fmaf or __fmul_rn (nvcc
 * never contracts __fmul_rn), so no contraction is left to the compiler.
 */
#define LN2 0.693147182f
#define LOG2E 1.44269502f

__device__ __forceinline__ float bs_exp(float x)
{
	float k, r, p;

	x = fminf(fmaxf(x, -80.0f), 80.0f);
	k = rintf(__fmul_rn(x, LOG2E));
	r = fmaf(-k, LN2, x);
	p = fmaf(r, 1.0f / 720.0f, 1.0f / 120.0f);
	p = fmaf(p, r, 1.0f / 24.0f);
	p = fmaf(p, r, 1.0f / 6.0f);
	p = fmaf(p, r, 0.5f);
	p = fmaf(p, r, 1.0f);
	p = fmaf(p, r, 1.0f);
	return __fmul_rn(p, __int_as_float(((int)k + 127) << 23));
}

/* x > 0 */
__device__ __forceinline__ float bs_log(float x)
{
	int bits = __float_as_int(x);
	int e = ((bits >> 23) & 0xff) - 127;
	float m = __int_as_float((bits & 0x7fffff) | 0x3f800000);
	float f, s, s2, p;

	if (m > 1.41421356f) {
		m = __fmul_rn(m, 0.5f);
		e++;
	}
	f = __fsub_rn(m, 1.0f);
	s = __fdiv_rn(f, __fadd_rn(f, 2.0f));	/* log(m) = 2 atanh(s) */
	s2 = __fmul_rn(s, s);
	p = fmaf(s2, 1.0f / 9.0f, 1.0f / 7.0f);
	p = fmaf(p, s2, 1.0f / 5.0f);
	p = fmaf(p, s2, 1.0f / 3.0f);
	p = fmaf(p, s2, 1.0f);
	return fmaf((float)e, LN2, __fmul_rn(__fmul_rn(2.0f, s), p));
}

/* Cumulative normal distribution, Abramowitz-Stegun 26.2.17. */
__device__ __forceinline__ float bs_cnd(float d)
{
	float k = __fdiv_rn(1.0f, fmaf(0.2316419f, fabsf(d), 1.0f));
	float p = fmaf(k, 1.330274429f, -1.821255978f);
	float c;

	p = fmaf(p, k, 1.781477937f);
	p = fmaf(p, k, -0.356563782f);
	p = fmaf(p, k, 0.31938153f);
	p = __fmul_rn(p, k);
	c = __fmul_rn(__fmul_rn(0.39894228f, bs_exp(__fmul_rn(-0.5f, __fmul_rn(d, d)))), p);
	return d > 0.0f ? __fsub_rn(1.0f, c) : c;
}

extern "C" __global__ void blackscholes(const float *price, const float *strike,
					const float *years, float *call,
					float *put, float r, float v,
					unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s, x, t, sqrt_t, d1, d2, cnd1, cnd2, disc;

	if (i >= n)
		return;
	s = price[i];
	x = strike[i];
	t = years[i];
	sqrt_t = __fsqrt_rn(t);
	d1 = __fdiv_rn(fmaf(fmaf(__fmul_rn(0.5f, v), v, r), t, bs_log(__fdiv_rn(s, x))),
		       __fmul_rn(v, sqrt_t));
	d2 = __fsub_rn(d1, __fmul_rn(v, sqrt_t));
	cnd1 = bs_cnd(d1);
	cnd2 = bs_cnd(d2);
	disc = __fmul_rn(x, bs_exp(__fmul_rn(-r, t)));
	call[i] = __fsub_rn(__fmul_rn(s, cnd1), __fmul_rn(disc, cnd2));
	put[i] = __fsub_rn(__fmul_rn(disc, __fsub_rn(1.0f, cnd2)),
			   __fmul_rn(s, __fsub_rn(1.0f, cnd1)));
}
