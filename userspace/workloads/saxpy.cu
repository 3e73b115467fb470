/*
 * saxpy.cu - y[i] = a * x[i] + y[i].
 *
 * Stands for the streaming, memory-bound kernels of the papers' benchmark
 * sets (one load pair and one store per element, no reuse): the class that
 * GPU Maestro and Chimera call MEM.
 */
extern "C" __global__ void saxpy(unsigned int n, float a, const float *x,
				 float *y)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] + y[i];
}

/* Grid-stride variant: any grid covers any n. */
extern "C" __global__ void saxpy_stride(unsigned int n, float a,
					const float *x, float *y)
{
	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}
