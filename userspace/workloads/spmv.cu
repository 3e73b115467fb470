/*
 * spmv.cu - y = A x for a sparse float matrix in CSR form.
 *
 * Stands for Parboil "spmv": irregular gathers of x through the column
 * indices, little arithmetic per byte. Class MEM.
 *   spmv_scalar  one thread per row, fmaf over the row's entries in order;
 *   spmv_vector  one warp per row: lane l sums entries l, l + 32, ... with
 *                fmaf, then the warp adds the partial sums with
 *                __shfl_down_sync (16, 8, 4, 2, 1).
 * The CPU reference repeats both orders exactly.
 */
extern "C" __global__ void spmv_scalar(const unsigned int *rowptr,
				       const unsigned int *cols,
				       const float *vals, const float *x,
				       float *y, unsigned int rows)
{
	unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
	float acc = 0.0f;

	if (r >= rows)
		return;
	for (unsigned int e = rowptr[r]; e < rowptr[r + 1]; e++)
		acc = fmaf(vals[e], x[cols[e]], acc);
	y[r] = acc;
}

extern "C" __global__ void spmv_vector(const unsigned int *rowptr,
				       const unsigned int *cols,
				       const float *vals, const float *x,
				       float *y, unsigned int rows)
{
	unsigned int lane = threadIdx.x & 31;
	unsigned int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	float acc = 0.0f;

	if (r >= rows)
		return;	/* whole warps: rows is per warp */
	for (unsigned int e = rowptr[r] + lane; e < rowptr[r + 1]; e += 32)
		acc = fmaf(vals[e], x[cols[e]], acc);
	for (int off = 16; off > 0; off >>= 1)
		acc = __fadd_rn(acc, __shfl_down_sync(0xffffffffu, acc, off));
	if (lane == 0)
		y[r] = acc;
}
