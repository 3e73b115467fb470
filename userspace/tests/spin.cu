/*
 * spin(loops, out, n): every thread runs @loops steps of a linear
 * congruential generator; the first @n threads store the result.
 */
extern "C" __global__ void spin(unsigned long long loops, unsigned int *out,
				unsigned int n)
{
	unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int acc = idx;

	for (unsigned long long i = 0; i < loops; i++)
		acc = acc * 1664525u + 1013904223u;
	if (idx < n)
		out[idx] = acc;
}
