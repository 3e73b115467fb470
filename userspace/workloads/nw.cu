/*
 * nw.cu - Needleman-Wunsch global alignment score matrix of two sequences
 * of length n (a multiple of 16), in 16 x 16 tiles along anti-diagonals.
 *
 * Stands for Rodinia "nw" (NW in Tables 4.2 and 5.3; class MEM) and its
 * two kernels: nw_upper processes the tiles of block anti-diagonal d of
 * the upper-left triangle, nw_lower those of the lower-right triangle; the
 * host launches one per anti-diagonal (2 * n / 16 - 1 launches). Inside a
 * tile, 16 threads sweep the 31 cell anti-diagonals in shared memory with
 * a barrier between them (a wavefront). The score matrix is (n+1)^2 ints,
 * row and column 0 initialised by the host; ref[] holds the n x n
 * substitution scores. Each tile reads the cells its neighbours wrote in
 * earlier launches and writes its own. Integer: bit-exact.
 */
#define B 16

__device__ __forceinline__ void nw_tile(int *score, const int *ref,
					unsigned int n, int penalty,
					unsigned int bx, unsigned int by)
{
	__shared__ int s[B + 1][B + 1];
	__shared__ int r[B][B];
	unsigned int tx = threadIdx.x, w = n + 1;
	unsigned int row0 = by * B, col0 = bx * B;	/* cell (row0, col0) is the corner */

	for (unsigned int i = 0; i < B; i++)
		r[i][tx] = ref[(row0 + i) * n + col0 + tx];
	s[0][tx + 1] = score[row0 * w + col0 + tx + 1];
	s[tx + 1][0] = score[(row0 + tx + 1) * w + col0];
	if (tx == 0)
		s[0][0] = score[row0 * w + col0];
	__syncthreads();
	/*
	 * Thread tx owns row tx of the tile; on step m it computes column
	 * m - tx. (Owning a column instead makes nvcc strength-reduce the
	 * shared address to 17 m - 16 tx, negative before the thread's first
	 * step, which the model's 32-bit shared addressing does not wrap.)
	 */
	for (unsigned int m = 0; m < 2 * B - 1; m++) {
		int c = (int)m - (int)tx;	/* column of this thread's cell */

		if (c >= 0 && c < B) {
			int i = (int)tx;
			int v = s[i][c] + r[i][c];

			v = max(v, s[i][c + 1] - penalty);
			v = max(v, s[i + 1][c] - penalty);
			s[i + 1][c + 1] = v;
		}
		__syncthreads();
	}
	for (unsigned int i = 0; i < B; i++)
		score[(row0 + i + 1) * w + col0 + tx + 1] = s[i + 1][tx + 1];
}

/* Block anti-diagonal d (0 ... nb-1): tiles (bx, d - bx), bx = 0 ... d. */
extern "C" __global__ void nw_upper(int *score, const int *ref, unsigned int n,
				    int penalty, unsigned int d)
{
	nw_tile(score, ref, n, penalty, blockIdx.x, d - blockIdx.x);
}

/* Block anti-diagonal nb - 1 + d (d = 1 ... nb-1): tiles (d + bx, nb-1-bx). */
extern "C" __global__ void nw_lower(int *score, const int *ref, unsigned int n,
				    int penalty, unsigned int d)
{
	unsigned int nb = n / B;

	nw_tile(score, ref, n, penalty, d + blockIdx.x, nb - 1 - blockIdx.x);
}
