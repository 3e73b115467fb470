/*
 * conv1d.cu - 1D convolution (a 1D stencil of radius 8) over floats.
 *
 * Stands for the CUDA SDK "convolutionSeparable" row pass (1D stencil
 * with a shared-memory tile and halo): each block of 256 threads loads its
 * 256 inputs and 8 halo cells on each side into shared memory, then every
 * thread computes sum_k w[k] * in[i + k - 8] with fmaf, k = 0 ... 16.
 * Out-of-range inputs are zero. Class MEM. Weights are a kernel parameter
 * array in global memory.
 */
#define R 8
#define T 256

extern "C" __global__ void conv1d(const float *in, const float *wts, float *out,
				  unsigned int n)
{
	__shared__ float s[T + 2 * R];
	__shared__ float w[2 * R + 1];
	int i = blockIdx.x * T + threadIdx.x;
	float acc = 0.0f;

	s[threadIdx.x + R] = i < (int)n ? in[i] : 0.0f;
	if (threadIdx.x < R) {
		int l = i - R, r = i + T;

		s[threadIdx.x] = l >= 0 ? in[l] : 0.0f;
		s[threadIdx.x + T + R] = r < (int)n ? in[r] : 0.0f;
	}
	if (threadIdx.x < 2 * R + 1)
		w[threadIdx.x] = wts[threadIdx.x];
	__syncthreads();
	for (int k = 0; k <= 2 * R; k++)
		acc = fmaf(w[k], s[threadIdx.x + k], acc);
	if (i < (int)n)
		out[i] = acc;
}
