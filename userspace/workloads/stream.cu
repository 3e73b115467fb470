/*
 * stream.cu - the four STREAM kernels: copy, scale, add, triad.
 *
 * Stands for the bandwidth-bound streaming kernels of the papers' sets
 * (the CUDA SDK bandwidth test / STREAM): every element is touched once
 * per kernel, arithmetic intensity below one flop per 8 bytes. Class MEM.
 * Grid-stride loops, so the host picks a grid smaller than the data.
 */
#define FOR_EACH(i, n) \
	for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
	     i += blockDim.x * gridDim.x)

extern "C" __global__ void stream_copy(const float *a, float *c, unsigned int n)
{
	FOR_EACH(i, n)
		c[i] = a[i];
}

extern "C" __global__ void stream_scale(const float *c, float *b, float s,
					unsigned int n)
{
	FOR_EACH(i, n)
		b[i] = s * c[i];
}

extern "C" __global__ void stream_add(const float *a, const float *b, float *c,
				      unsigned int n)
{
	FOR_EACH(i, n)
		c[i] = a[i] + b[i];
}

/* nvcc contracts this to fma.rn.f32; the reference uses fmaf. */
extern "C" __global__ void stream_triad(const float *b, const float *c, float *a,
					float s, unsigned int n)
{
	FOR_EACH(i, n)
		a[i] = b[i] + s * c[i];
}
