/*
 * stencil3d.cu - 7-point Jacobi stencil on a 3D float grid.
 *
 * Stands for Parboil "stencil" (ST in Tables 4.2 and 5.3, kernel
 * block2D_hybrid_coarsen_x; class MEM): a 2D grid of threads, one per
 * (x, y) column, marches through z, 7 loads per point and 2 flops per load.
 *   next = c1 * (xm + xp + ym + yp + zm + zp) - c0 * cur
 * (sum left to right, then fmaf(s, c1, -c0 * cur)). Boundary points are
 * copied. The host ping-pongs two grids: idempotent per launch.
 */
extern "C" __global__ void stencil3d(const float *in, float *out,
				     unsigned int nx, unsigned int ny,
				     unsigned int nz, float c0, float c1)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
	unsigned int plane = nx * ny;

	if (x >= nx || y >= ny)
		return;
	for (unsigned int z = 0; z < nz; z++) {
		unsigned int i = z * plane + y * nx + x;
		float cur = in[i];

		if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 ||
		    z == nz - 1) {
			out[i] = cur;
			continue;
		}
		float s = __fadd_rn(in[i - 1], in[i + 1]);

		s = __fadd_rn(s, in[i - nx]);
		s = __fadd_rn(s, in[i + nx]);
		s = __fadd_rn(s, in[i - plane]);
		s = __fadd_rn(s, in[i + plane]);
		out[i] = fmaf(s, c1, __fmul_rn(-c0, cur));
	}
}
