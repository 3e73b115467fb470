/*
 * scan.cu - inclusive prefix sum of uint32.
 *
 * Stands for the CUDA SDK "scan" sample (work-efficient scan in shared
 * memory): scan_block scans 512 elements per block of 256 threads with the
 * up-sweep / down-sweep tree in shared memory and writes each block's total
 * to sums[]; the host scans sums[] the same way (recursively) and
 * scan_add adds the scanned totals of the previous blocks. Heavy on shared
 * memory and barriers. Class MEM.
 */
#define THREADS 256
#define PER_BLOCK (2 * THREADS)

extern "C" __global__ void scan_block(unsigned int *data, unsigned int *sums,
				      unsigned int n)
{
	__shared__ unsigned int s[PER_BLOCK];
	unsigned int t = threadIdx.x, base = blockIdx.x * PER_BLOCK;
	unsigned int i0 = base + t, i1 = base + t + THREADS;
	unsigned int offset = 1;

	s[t] = i0 < n ? data[i0] : 0;
	s[t + THREADS] = i1 < n ? data[i1] : 0;
	/* Not unrolled: unrolled, nvcc keeps one predicate per level live. */
#pragma unroll 1
	for (unsigned int d = PER_BLOCK / 2; d > 0; d >>= 1) {
		__syncthreads();
		if (t < d) {
			unsigned int ai = offset * (2 * t + 1) - 1;
			unsigned int bi = offset * (2 * t + 2) - 1;

			s[bi] += s[ai];
		}
		offset <<= 1;
	}
	__syncthreads();
	if (t == 0) {
		sums[blockIdx.x] = s[PER_BLOCK - 1];
		s[PER_BLOCK - 1] = 0;
	}
#pragma unroll 1
	for (unsigned int d = 1; d < PER_BLOCK; d <<= 1) {
		offset >>= 1;
		__syncthreads();
		if (t < d) {
			unsigned int ai = offset * (2 * t + 1) - 1;
			unsigned int bi = offset * (2 * t + 2) - 1;
			unsigned int v = s[ai];

			s[ai] = s[bi];
			s[bi] += v;
		}
	}
	__syncthreads();
	/* Exclusive in shared memory; inclusive in the output. */
	if (i0 < n)
		data[i0] += s[t];
	if (i1 < n)
		data[i1] += s[t + THREADS];
}

extern "C" __global__ void scan_add(unsigned int *data, const unsigned int *sums,
				    unsigned int n)
{
	unsigned int i = (blockIdx.x + 1) * PER_BLOCK + threadIdx.x;
	unsigned int add = sums[blockIdx.x];

	if (i < n)
		data[i] += add;
	if (i + THREADS < n)
		data[i + THREADS] += add;
}
