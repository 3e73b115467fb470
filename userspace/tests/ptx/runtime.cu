/*
 * runtime.cu - a small CUDA program ported to libvgpu's runtime
 * (vgpu_runtime.h) by userspace/tests/test_runtime.c: several kernels, a
 * struct passed by value, a __constant__ table and a __device__ array set
 * and read by name, 8- and 16-bit parameters, and a kernel that faults.
 * Each is checked against a CPU reference. Not a workload.
 *
 * Regenerate: nvcc -O3 -ptx -arch=sm_75 runtime.cu -o runtime.ptx
 */
#include <stdint.h>

/* Passed by value: .param .align 8 .b8 [24]. */
struct Affine {
	float scale;
	float offset;
	int n;
	double bias;
};

__constant__ float coef[8];
__device__ unsigned int counts[16];
__device__ int calls = 7;

/* out[i] = (coef[0] + coef[1] x + ... + coef[7] x^7) * scale + offset + bias */
__global__ void poly(Affine a, const float *x, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= a.n)
		return;
	float v = x[i], r = 0.0f;

	for (int k = 7; k >= 0; k--)
		r = r * v + coef[k];
	out[i] = r * a.scale + a.offset + (float)a.bias;
}

/* 8- and 16-bit parameters between wider ones. */
__global__ void mix8(const uint8_t *in, uint8_t *out, uint8_t add, short mul, char flip,
		     int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = (uint8_t)(((in[i] + add) * mul) ^ flip);
}

/* counts[v & 15]++ for every v of in; calls++ once per launch. */
__global__ void histo16(const unsigned int *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		atomicAdd(&counts[in[i] & 15], 1u);
	if (i == 0)
		atomicAdd(&calls, 1);
}

/* Stores through @p: a stray pointer makes the launch fault. */
__global__ void poke(int *p, int v)
{
	if (blockIdx.x == 2 && threadIdx.x == 0)
		*p = v;
}
