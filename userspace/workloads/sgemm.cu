/*
 * sgemm.cu - C = A * B for row-major float matrices (A m x k, B k x n).
 *
 * Stands for Parboil "sgemm" / the CUDA SDK "matrixMul" (MM): the tiled
 * kernel stages 16x16 tiles of A and B in shared memory and each thread
 * accumulates one element of C, so every global value is reused 16 times:
 * compute-bound, heavy on shared memory. Class COM. The naive kernel reads
 * both operands from global memory. Both accumulate with fmaf in the order
 * p = 0 ... k-1, so they and the CPU reference agree bit for bit.
 * m, n and k must be multiples of 16; blocks are 16x16.
 */
#define T 16

extern "C" __global__ void sgemm_tiled(const float *a, const float *b, float *c,
				       unsigned int m, unsigned int n,
				       unsigned int k)
{
	__shared__ float as[T][T];
	__shared__ float bs[T][T];
	unsigned int tx = threadIdx.x, ty = threadIdx.y;
	unsigned int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
	float acc = 0.0f;

	for (unsigned int p0 = 0; p0 < k; p0 += T) {
		as[ty][tx] = a[row * k + p0 + tx];
		bs[ty][tx] = b[(p0 + ty) * n + col];
		__syncthreads();
		for (unsigned int p = 0; p < T; p++)
			acc = fmaf(as[ty][p], bs[p][tx], acc);
		__syncthreads();
	}
	if (row < m)
		c[row * n + col] = acc;
}

extern "C" __global__ void sgemm_naive(const float *a, const float *b, float *c,
				       unsigned int m, unsigned int n,
				       unsigned int k)
{
	unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
	unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
	float acc = 0.0f;

	if (row >= m || col >= n)
		return;
	for (unsigned int p = 0; p < k; p++)
		acc = fmaf(a[row * k + p], b[p * n + col], acc);
	c[row * n + col] = acc;
}
