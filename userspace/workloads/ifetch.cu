/*
 * ifetch.cu - instruction-fetch-bound code: four long straight-line hash
 * chains, one per warp of each group of four.
 *
 * Stands for the kernels ELF's instruction prefetch gains on (thesis
 * Sec. 3.3.5: the instruction cache misses of large kernels). Warp w of a
 * block runs section w mod 4, a fully unrolled chain of STEPS
 * multiply-add / shift / xor steps, each with its own constants, passes
 * times over; the four sections together are several times larger than a
 * 2 KB L1I (the thesis's machine), and the warps of a block run different
 * sections at once, so they share no fetched lines. Nothing but the first
 * load and the last store touches memory. Class COM. out[t] = the chain of
 * section (t / 32) mod 4 applied passes times to in[t], step k (global
 * index section * STEPS + i) being x = x * (2654435761 + 2k) + k,
 * x ^= x >> (k mod 13 + 3), in 32-bit unsigned arithmetic.
 */
#define STEPS	128

template <int S>
__device__ __forceinline__ unsigned int section(unsigned int x, int passes)
{
#pragma unroll 1
	for (int p = 0; p < passes; p++) {
#pragma unroll
		for (int i = 0; i < STEPS; i++) {
			const unsigned int k = S * STEPS + i;

			x = x * (2654435761u + 2u * k) + k;
			x ^= x >> (k % 13 + 3);
		}
	}
	return x;
}

extern "C" __global__ void ifetch(const unsigned int *in, unsigned int *out, int n,
				  int passes)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int x, s = (threadIdx.x >> 5) & 3;

	if (t >= n)
		return;
	x = in[t];
	if (s == 0)
		x = section<0>(x, passes);
	else if (s == 1)
		x = section<1>(x, passes);
	else if (s == 2)
		x = section<2>(x, passes);
	else
		x = section<3>(x, passes);
	out[t] = x;
}
