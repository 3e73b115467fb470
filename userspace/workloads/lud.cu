/*
 * lud.cu - blocked LU decomposition (Doolittle, no pivoting) of an n x n
 * float matrix in place, 16 x 16 blocks.
 *
 * Stands for Rodinia "lud" (LUD in Tables 4.2 and 5.3, class MEM): a
 * multi-kernel application whose three kernels are relaunched for every
 * block step k, with shrinking grids:
 *   lud_diagonal   1 block: factors the diagonal block A_kk = L_kk U_kk;
 *   lud_perimeter  one block per remaining block column/row pair: solves
 *                  U_kj = L_kk^-1 A_kj and L_ik = A_ik U_kk^-1;
 *   lud_internal   one block per remaining block: A_ij -= L_ik U_kj.
 * Every element is updated with fmaf / __fdiv_rn / __fsub_rn in a fixed
 * order, so the CPU reference (lud.c) reproduces the result bit for bit.
 * lud_perimeter and lud_internal overwrite the matrix they read: not
 * idempotent.
 */
#define BS 16

/* 16 threads; thread tx owns column tx of the block. */
extern "C" __global__ void lud_diagonal(float *a, unsigned int n, unsigned int k)
{
	__shared__ float t[BS][BS];
	unsigned int tx = threadIdx.x, base = k * BS;

	for (unsigned int r = 0; r < BS; r++)
		t[r][tx] = a[(base + r) * n + base + tx];
	__syncthreads();
	for (unsigned int i = 0; i < BS - 1; i++) {
		if (tx > i)
			t[tx][i] = __fdiv_rn(t[tx][i], t[i][i]);
		__syncthreads();
		if (tx > i) {
			for (unsigned int r = i + 1; r < BS; r++)
				t[r][tx] = fmaf(-t[r][i], t[i][tx], t[r][tx]);
		}
		__syncthreads();
	}
	for (unsigned int r = 0; r < BS; r++)
		a[(base + r) * n + base + tx] = t[r][tx];
}

/*
 * 32 threads per block, block b handles block column j = k + 1 + b of the
 * block row k (threads 0-15, one column each) and block row i = k + 1 + b of
 * the block column k (threads 16-31, one row each).
 */
extern "C" __global__ void lud_perimeter(float *a, unsigned int n, unsigned int k)
{
	__shared__ float d[BS][BS];
	__shared__ float u[BS][BS];
	__shared__ float l[BS][BS];
	unsigned int tx = threadIdx.x, base = k * BS;
	unsigned int other = (k + 1 + blockIdx.x) * BS;

	for (unsigned int idx = tx; idx < BS * BS; idx += 2 * BS) {
		unsigned int r = idx / BS, c = idx % BS;

		d[r][c] = a[(base + r) * n + base + c];
		u[r][c] = a[(base + r) * n + other + c];
		l[r][c] = a[(other + r) * n + base + c];
	}
	__syncthreads();
	if (tx < BS) {
		unsigned int c = tx;

		for (unsigned int i = 0; i < BS; i++)
			for (unsigned int r = i + 1; r < BS; r++)
				u[r][c] = fmaf(-d[r][i], u[i][c], u[r][c]);
	} else {
		unsigned int r = tx - BS;

		for (unsigned int i = 0; i < BS; i++) {
			l[r][i] = __fdiv_rn(l[r][i], d[i][i]);
			for (unsigned int c = i + 1; c < BS; c++)
				l[r][c] = fmaf(-l[r][i], d[i][c], l[r][c]);
		}
	}
	__syncthreads();
	for (unsigned int idx = tx; idx < BS * BS; idx += 2 * BS) {
		unsigned int r = idx / BS, c = idx % BS;

		a[(base + r) * n + other + c] = u[r][c];
		a[(other + r) * n + base + c] = l[r][c];
	}
}

/* 16 x 16 threads; block (x, y) updates block (k + 1 + y, k + 1 + x). */
extern "C" __global__ void lud_internal(float *a, unsigned int n, unsigned int k)
{
	__shared__ float l[BS][BS];
	__shared__ float u[BS][BS];
	unsigned int tx = threadIdx.x, ty = threadIdx.y, base = k * BS;
	unsigned int row = (k + 1 + blockIdx.y) * BS + ty;
	unsigned int col = (k + 1 + blockIdx.x) * BS + tx;
	float acc = 0.0f;

	l[ty][tx] = a[row * n + base + tx];
	u[ty][tx] = a[(base + ty) * n + col];
	__syncthreads();
	for (unsigned int i = 0; i < BS; i++)
		acc = fmaf(l[ty][i], u[i][tx], acc);
	a[row * n + col] = __fsub_rn(a[row * n + col], acc);
}
