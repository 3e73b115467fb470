/*
 * histogram.cu - 256-bin histogram of bytes.
 *
 * Stands for Parboil "histo" (saturating histogram of an image, used in the
 * papers' benchmark sets): atomics on global bins (histogram), and the
 * shared-memory privatised form (histogram_shared) that merges per-block
 * sub-histograms into the global bins at the end.
 */
extern "C" __global__ void histogram(const unsigned char *in,
				     unsigned int *bins, unsigned int n)
{
	unsigned int stride = blockDim.x * gridDim.x;

	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		atomicAdd(&bins[in[i]], 1u);
}

extern "C" __global__ void histogram_shared(const unsigned char *in,
					    unsigned int *bins,
					    unsigned int n)
{
	__shared__ unsigned int sbins[256];
	unsigned int stride = blockDim.x * gridDim.x;

	for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x)
		sbins[b] = 0;
	__syncthreads();
	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		atomicAdd(&sbins[in[i]], 1u);
	__syncthreads();
	for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
		unsigned int v = sbins[b];

		if (v)
			atomicAdd(&bins[b], v);
	}
}
