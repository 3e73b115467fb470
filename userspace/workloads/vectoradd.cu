/*
 * vectoradd.cu - c[i] = a[i] + b[i] over floats.
 *
 * Stands for the CUDA SDK "vectorAdd" sample: two loads and one store per
 * element, one add, no reuse. Class MEM.
 */
extern "C" __global__ void vectoradd(const float *a, const float *b, float *c,
				     unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}
