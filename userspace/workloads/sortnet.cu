/*
 * sortnet.cu - bitonic sort of 2^k uint32 keys.
 *
 * Stands for the CUDA SDK "sortingNetworks" sample (SN in the Virtual
 * Thread paper's Table II; class MEM): heavy on shared memory and
 * barriers.
 *   sortnet_shared  sorts each chunk of 1024 keys in shared memory, 512
 *                   threads, every stage of the network up to size 1024;
 *   sortnet_global  one compare-exchange step of stride j >= 1024 over the
 *                   whole array (one thread per pair);
 *   sortnet_merge   the remaining strides 512 ... 1 of a merge of size k,
 *                   chunk by chunk in shared memory.
 * The direction of a pair follows the global index (ascending where
 * i & k == 0), so the host only sequences the launches. Bit-exact.
 */
#define CHUNK 1024

__device__ __forceinline__ void cmpx(unsigned int *a, unsigned int *b, bool asc)
{
	unsigned int x = *a, y = *b;

	if ((x > y) == asc) {
		*a = y;
		*b = x;
	}
}

extern "C" __global__ void sortnet_shared(unsigned int *keys)
{
	__shared__ unsigned int s[CHUNK];
	unsigned int t = threadIdx.x, base = blockIdx.x * CHUNK;

	s[t] = keys[base + t];
	s[t + CHUNK / 2] = keys[base + t + CHUNK / 2];
	for (unsigned int k = 2; k <= CHUNK; k <<= 1) {
		for (unsigned int j = k >> 1; j > 0; j >>= 1) {
			unsigned int i = 2 * j * (t / j) + t % j;

			__syncthreads();
			cmpx(&s[i], &s[i + j], ((base + i) & k) == 0);
		}
	}
	__syncthreads();
	keys[base + t] = s[t];
	keys[base + t + CHUNK / 2] = s[t + CHUNK / 2];
}

extern "C" __global__ void sortnet_global(unsigned int *keys, unsigned int k,
					  unsigned int j)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int i = 2 * j * (t / j) + t % j;

	cmpx(&keys[i], &keys[i + j], (i & k) == 0);
}

extern "C" __global__ void sortnet_merge(unsigned int *keys, unsigned int k)
{
	__shared__ unsigned int s[CHUNK];
	unsigned int t = threadIdx.x, base = blockIdx.x * CHUNK;

	s[t] = keys[base + t];
	s[t + CHUNK / 2] = keys[base + t + CHUNK / 2];
	for (unsigned int j = CHUNK / 2; j > 0; j >>= 1) {
		unsigned int i = 2 * j * (t / j) + t % j;

		__syncthreads();
		cmpx(&s[i], &s[i + j], ((base + i) & k) == 0);
	}
	__syncthreads();
	keys[base + t] = s[t];
	keys[base + t + CHUNK / 2] = s[t + CHUNK / 2];
}
