/*
 * pathfinder.cu - dynamic programming over a grid: the cheapest path from
 * the top row to each cell of the bottom row, moving down, down-left or
 * down-right, cost = sum of the cells' weights.
 *
 * Stands for Rodinia "pathfinder" (PF in the Virtual Thread paper's
 * Table II; class MEM): one launch per row; each block of 256 threads
 * stages the previous row's 256 costs and a one-cell halo on each side in
 * shared memory, then every thread takes the minimum of its three upper
 * neighbours and adds its weight. Integer: bit-exact. Idempotent per
 * launch (the host ping-pongs the cost rows).
 */
#define T 256

extern "C" __global__ void pathfinder_row(const int *wall, const int *prev,
					  int *next, unsigned int cols,
					  unsigned int row)
{
	__shared__ int s[T + 2];
	int j = blockIdx.x * T + threadIdx.x;
	int n = (int)cols;
	int big = 0x7fffffff;

	s[threadIdx.x + 1] = j < n ? prev[j] : big;
	if (threadIdx.x == 0)
		s[0] = j > 0 ? prev[j - 1] : big;
	if (threadIdx.x == T - 1)
		s[T + 1] = j + 1 < n ? prev[j + 1] : big;
	__syncthreads();
	if (j < n) {
		int m = min(s[threadIdx.x], min(s[threadIdx.x + 1], s[threadIdx.x + 2]));

		next[j] = m + wall[row * cols + j];
	}
}
