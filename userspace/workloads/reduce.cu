/*
 * reduce.cu - per-block sum of 32-bit unsigned integers.
 *
 * Stands for the CUDA SDK "reduction" sample (Nvidia Computing SDK, used in
 * the papers' benchmark sets): each block loads two elements per thread,
 * reduces them in shared memory with a __syncthreads() tree, finishes the
 * last 64 values with warp shuffles and writes one partial sum per block to
 * out[blockIdx.x]. Unsigned integers keep the result bit-exact.
 * The block size must be a power of two, at least 64 and at most 1024.
 */
extern "C" __global__ void reduce(const unsigned int *in, unsigned int *out,
				  unsigned int n)
{
	extern __shared__ unsigned int sdata[];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
	unsigned int sum = 0;

	if (i < n)
		sum = in[i];
	if (i + blockDim.x < n)
		sum += in[i + blockDim.x];
	sdata[tid] = sum;
	__syncthreads();

	for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
		if (tid < s)
			sdata[tid] = sum = sum + sdata[tid + s];
		__syncthreads();
	}

	if (tid < 32) {
		sum += sdata[tid + 32];
		for (int offset = 16; offset > 0; offset >>= 1)
			sum += __shfl_down_sync(0xffffffffu, sum, offset);
	}
	if (tid == 0)
		out[blockIdx.x] = sum;
}

/* Static shared memory, pure tree (the SDK's "reduce1" shape), 256 threads. */
extern "C" __global__ void reduce_static(const unsigned int *in,
					 unsigned int *out, unsigned int n)
{
	__shared__ unsigned int sdata[256];
	unsigned int tid = threadIdx.x;
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	sdata[tid] = i < n ? in[i] : 0;
	__syncthreads();
	for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		out[blockIdx.x] = sdata[0];
}
