/*
 * kernels.cu - test kernels for the PTX front end and the model: every
 * kind of construct nvcc -O3 emits for ordinary kernels, each checked
 * against a CPU reference in test_sim.c. Not a workload.
 *
 * Regenerate: nvcc -O3 -ptx -arch=sm_75 kernels.cu -o kernels.ptx
 */
#include <stdint.h>

#define K_INT 24
extern "C" __global__ void intops(const int *a, const int *b, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	int x = a[i], y = b[i];
	unsigned ux = x, uy = y;
	long long lx = (long long)x * 1000003 + y;
	int *o = out + i * K_INT;

	o[0] = x / y;
	o[1] = x % y;
	o[2] = ux / uy;
	o[3] = ux % uy;
	o[4] = min(x, y);
	o[5] = max(ux, uy);
	o[6] = abs(x);
	o[7] = x >> (y & 31);
	o[8] = ux >> (uy & 31);
	o[9] = x << (y & 15);
	o[10] = __popc(ux);
	o[11] = __clz(x);
	o[12] = __brev(ux);
	o[13] = __mulhi(x, y);
	o[14] = __umulhi(ux, uy);
	o[15] = (ux >> 4) & 0xff;
	o[16] = __byte_perm(ux, uy, 0x5140);
	o[17] = (int)(lx / (y | 1));
	o[18] = (int)(lx % 977);
	o[19] = (int)((unsigned long long)lx >> 33);
	o[20] = x > y ? x - y : y * 3;
	o[21] = (x & 0xf0f0) | (y ^ 0x1234) | ~x;
	o[22] = (int)(short)(x * 3);
	o[23] = (int)(signed char)y + (int)(unsigned char)x;
}

#define K_FLT 14
extern "C" __global__ void floatops(const float *a, const float *b, float *out, int *iout,
				    int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	float x = a[i], y = b[i];
	float *o = out + i * K_FLT;
	int *io = iout + i * 6;

	o[0] = x + y;
	o[1] = x - y;
	o[2] = x * y;
	o[3] = x / y;
	o[4] = sqrtf(fabsf(x));
	o[5] = fmaf(x, y, 1.5f);
	o[6] = fminf(x, y);
	o[7] = fmaxf(x, y);
	o[8] = -fabsf(y);
	o[9] = (float)i * 0.25f;
	o[10] = (float)(unsigned)(i * 7919u);
	o[11] = rintf(x);
	o[12] = floorf(y) + truncf(x) + ceilf(x);
	o[13] = x > y ? x : 2.0f * y;
	io[0] = (int)x;
	io[1] = (unsigned)fabsf(y);
	io[2] = __float2int_rn(y);
	io[3] = x < y;
	io[4] = (long long)(x * 1000.0f) >> 3;
	io[5] = isnan(x / y) ? 1 : 0;
}

#define K_DBL 7
extern "C" __global__ void dblops(const double *a, const double *b, double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	double x = a[i], y = b[i];
	double *o = out + i * K_DBL;

	o[0] = x + y;
	o[1] = x * y - y;
	o[2] = x / y;
	o[3] = sqrt(fabs(x));
	o[4] = fma(x, y, 0.125);
	o[5] = (double)(float)x;
	o[6] = (double)(long long)(x * 16.0);
}

/* Warp-wide operations; one block of 64 threads. */
#define K_WARP 9
extern "C" __global__ void warpops(const int *in, int *out)
{
	int t = threadIdx.x;
	int v = in[t];
	int *o = out + t * K_WARP;

	o[0] = __shfl_down_sync(0xffffffff, v, 3);
	o[1] = __shfl_up_sync(0xffffffff, v, 5);
	o[2] = __shfl_xor_sync(0xffffffff, v, 9);
	o[3] = __shfl_sync(0xffffffff, v, (t * 7) & 31);
	o[4] = __shfl_down_sync(0xffffffff, v, 2, 8);
	o[5] = __ballot_sync(0xffffffff, v & 1);
	o[6] = __any_sync(0xffffffff, v == 77);
	o[7] = __all_sync(0xffffffff, v >= 0);
	if (v & 2)
		o[8] = __popc(__activemask());
	else
		o[8] = -1;
}

/* A per-thread array indexed dynamically lives in local memory. */
extern "C" __global__ void localarr(const int *in, int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int arr[24];

	if (t >= n)
		return;
	for (int k = 0; k < 24; k++)
		arr[k] = in[t] * k;
	for (int k = 0; k < 24; k++)
		arr[(k * 7 + in[t]) % 24] += k;
	out[t] = arr[in[t] % 24] + arr[(in[t] + 5) % 24];
}

/* Vector loads and stores. */
extern "C" __global__ void vec4(const float4 *in, float4 *out, const int2 *pi, int2 *po, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	if (t >= n)
		return;
	float4 v = in[t];
	int2 p = pi[t];

	out[t] = make_float4(v.w, v.z * 2.0f, v.y + 1.0f, v.x);
	po[t] = make_int2(p.y, p.x + p.y);
}

/* 2D grid of 2D blocks. */
extern "C" __global__ void grid2d(int *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w && y < h)
		out[y * w + x] = x * 1000 + y + gridDim.y * 1000000;
}

/* Module-scope variables: a constant table and a global counter. */
__constant__ int table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
__device__ unsigned int counter;
__device__ int gdata[4] = { 10, 20, 30, 40 };

extern "C" __global__ void modvars(int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	if (t >= n)
		return;
	unsigned int ticket = atomicAdd(&counter, 1);
	out[t] = table[t & 7] * 100 + gdata[t & 3] + (ticket < (unsigned)n ? 0 : 1000000);
}

/* More atomics: float add, signed max, 64-bit CAS loop. */
extern "C" __global__ void atomics2(const int *in, float *fsum, int *imax,
				   unsigned long long *u64, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	if (t >= n)
		return;
	atomicAdd(fsum, 0.5f);
	atomicMax(imax, in[t]);
	unsigned long long old = *u64, assumed;
	do {
		assumed = old;
		old = atomicCAS(u64, assumed, assumed + (unsigned long long)in[t]);
	} while (old != assumed);
}

/* 16-bit and 8-bit data. */
extern "C" __global__ void narrow(const unsigned short *a, const signed char *b, short *out,
				  int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	if (t >= n)
		return;
	unsigned short x = a[t];
	signed char y = b[t];

	out[2 * t] = (short)(x * 3 + y);
	out[2 * t + 1] = (short)((x >> 3) ^ (unsigned short)(y * y));
}
