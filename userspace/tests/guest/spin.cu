extern "C" __global__ void spin(unsigned long long loops, unsigned int *out)
{
	unsigned int acc = blockIdx.x * blockDim.x + threadIdx.x;

	for (unsigned long long i = 0; i < loops; i++)
		acc = acc * 1664525u + 1013904223u;
	out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
