/*
 * gaussian.cu - Gaussian elimination (no pivoting) of an n x (n + 1)
 * augmented float matrix [A | b].
 *
 * Stands for Rodinia "gaussian" (GA in the Virtual Thread paper's Table
 * II; class MEM): a multi-kernel application, two kernels relaunched for
 * every pivot t = 0 ... n-2, over a shrinking trailing matrix:
 *   gauss_fan1  m[i] = a[i][t] / a[t][t] for the rows i > t;
 *   gauss_fan2  a[i][j] = fmaf(-m[i], a[t][j], a[i][j]) for i > t, j > t
 *               (column n is b), and a[i][t] = 0.
 * __fdiv_rn and fmaf: the CPU reference matches bit for bit. fan2
 * overwrites the matrix it reads: not idempotent.
 */
extern "C" __global__ void gauss_fan1(const float *a, float *m, unsigned int n,
				      unsigned int t)
{
	unsigned int i = t + 1 + blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int w = n + 1;

	if (i < n)
		m[i] = __fdiv_rn(a[i * w + t], a[t * w + t]);
}

extern "C" __global__ void gauss_fan2(float *a, const float *m, unsigned int n,
				      unsigned int t)
{
	unsigned int j = t + blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int i = t + 1 + blockIdx.y * blockDim.y + threadIdx.y;
	unsigned int w = n + 1;

	if (i >= n || j > n)
		return;
	if (j == t)
		a[i * w + t] = 0.0f;
	else
		a[i * w + j] = fmaf(-m[i], a[t * w + j], a[i * w + j]);
}
