/*
 * fdtd2d.cu - 2D finite-difference time domain (Yee scheme, TE mode): the
 * electric fields ex, ey and the magnetic field hz on an nx x ny grid,
 * three kernels per time step.
 *
 * Stands for FDTD (CUDA SDK FDTD3d in Table 5.3, class MEM; PolyBench
 * fdtd-2d, FD in the Virtual Thread paper's Table II):
 *   fdtd_ey  ey[0][j] = src; ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j])
 *   fdtd_ex  ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1])            (j > 0)
 *   fdtd_hz  hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])
 * each as fmaf(-c, difference, old), the differences added left to right.
 * Each kernel overwrites a field it reads: not idempotent.
 */
extern "C" __global__ void fdtd_ey(float *ey, const float *hz, unsigned int nx,
				   unsigned int ny, float src)
{
	unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int i = blockIdx.y * blockDim.y + threadIdx.y;

	if (i >= nx || j >= ny)
		return;
	if (i == 0)
		ey[j] = src;
	else
		ey[i * ny + j] = fmaf(-0.5f, __fsub_rn(hz[i * ny + j], hz[(i - 1) * ny + j]),
				      ey[i * ny + j]);
}

extern "C" __global__ void fdtd_ex(float *ex, const float *hz, unsigned int nx,
				   unsigned int ny)
{
	unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int i = blockIdx.y * blockDim.y + threadIdx.y;

	if (i >= nx || j >= ny || j == 0)
		return;
	ex[i * ny + j] = fmaf(-0.5f, __fsub_rn(hz[i * ny + j], hz[i * ny + j - 1]),
			      ex[i * ny + j]);
}

extern "C" __global__ void fdtd_hz(float *hz, const float *ex, const float *ey,
				   unsigned int nx, unsigned int ny)
{
	unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int i = blockIdx.y * blockDim.y + threadIdx.y;
	float d;

	if (i + 1 >= nx || j + 1 >= ny)
		return;
	d = __fsub_rn(ex[i * ny + j + 1], ex[i * ny + j]);
	d = __fadd_rn(d, ey[(i + 1) * ny + j]);
	d = __fsub_rn(d, ey[i * ny + j]);
	hz[i * ny + j] = fmaf(-0.7f, d, hz[i * ny + j]);
}
