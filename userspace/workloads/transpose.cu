/*
 * transpose.cu - out = transpose(in) for a rows x cols matrix of uint32.
 *
 * Stands for the CUDA SDK "transpose" sample: the naive kernel reads
 * coalesced and writes with a stride of rows words; the tiled kernel stages
 * a 32x32 tile in shared memory (padded to 33 columns against bank
 * conflicts) so that both sides are coalesced. Class MEM.
 * Blocks are 32x8 threads; each thread moves 4 elements of a tile.
 */
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_naive(const unsigned int *in,
					   unsigned int *out,
					   unsigned int rows, unsigned int cols)
{
	unsigned int x = blockIdx.x * TILE + threadIdx.x;
	unsigned int y = blockIdx.y * TILE + threadIdx.y;

	for (unsigned int j = 0; j < TILE; j += ROWS) {
		if (x < cols && y + j < rows)
			out[x * rows + y + j] = in[(y + j) * cols + x];
	}
}

extern "C" __global__ void transpose_tiled(const unsigned int *in,
					   unsigned int *out,
					   unsigned int rows, unsigned int cols)
{
	__shared__ unsigned int tile[TILE][TILE + 1];
	unsigned int x = blockIdx.x * TILE + threadIdx.x;
	unsigned int y = blockIdx.y * TILE + threadIdx.y;

	for (unsigned int j = 0; j < TILE; j += ROWS) {
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
	}
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;	/* column of out = row of in */
	y = blockIdx.x * TILE + threadIdx.y;
	for (unsigned int j = 0; j < TILE; j += ROWS) {
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
	}
}
