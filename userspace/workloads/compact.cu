/*
 * compact.cu - stream compaction: copies the elements that satisfy a
 * predicate to the front of out[], in no particular order, taking each
 * output slot with atomicAdd on a global counter.
 *
 * Stands for the non-idempotent, atomic-heavy kernels of Table 4.2 (the
 * output index of B+ Tree's and MUMmer's result lists, Parboil histo's
 * bins): running a block twice would append its elements twice, so a
 * flushed (Chimera) block must not have crossed its first atomic. Class MEM.
 * compact_global: one global atomicAdd per selected element.
 * compact_block: a block counts its elements with shared-memory atomics,
 * reserves its range with one global atomicAdd, then scatters.
 */
__device__ __forceinline__ bool keep(unsigned int v, unsigned int mask)
{
	return (v & mask) == 0;
}

extern "C" __global__ void compact_global(const unsigned int *in,
					  unsigned int *out,
					  unsigned int *count,
					  unsigned int n, unsigned int mask)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n && keep(in[i], mask))
		out[atomicAdd(count, 1u)] = in[i];
}

extern "C" __global__ void compact_block(const unsigned int *in,
					 unsigned int *out,
					 unsigned int *count,
					 unsigned int n, unsigned int mask)
{
	__shared__ unsigned int local;
	__shared__ unsigned int base;
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int v = 0, slot = 0;
	bool k = false;

	if (threadIdx.x == 0)
		local = 0;
	__syncthreads();
	if (i < n) {
		v = in[i];
		k = keep(v, mask);
		if (k)
			slot = atomicAdd(&local, 1u);
	}
	__syncthreads();
	if (threadIdx.x == 0)
		base = atomicAdd(count, local);
	__syncthreads();
	if (k)
		out[base + slot] = v;
}
