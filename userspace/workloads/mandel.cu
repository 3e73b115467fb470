/*
 * mandel.cu - escape-time rendering of the Mandelbrot set on a w x h grid,
 * in Q4.28 fixed point (64-bit integers: bit-exact on any host).
 *
 * Stands for the kernels with warp-level divergence of "Taming Warp
 * Divergence" (seed 003, Table 1, Set 1: ray tracing, n-queens): blocks of
 * 32 x 8 threads, one warp per row of a tile; a warp's work is the longest
 * escape time of its 32 pixels, so the warps of a block finish far apart,
 * and warps whose row lies outside the radius-2 disc exit at once (their
 * pixels escape before the first iteration). Class COM. Pixel (x, y) is
 * c = (-2.5 + 4x/w, -2 + 4y/h); out = iterations before |z|^2 > 4, at most
 * max_iter; 0 outside the disc.
 */
#define Q 28

extern "C" __global__ void mandel(unsigned int *out, int w, int h, int max_iter)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	long long cr, ci, zr = 0, zi = 0;
	int it = 0;

	if (x >= w || y >= h)
		return;
	cr = ((long long)x << (Q + 2)) / w - (5LL << (Q - 1));
	ci = ((long long)y << (Q + 2)) / h - (2LL << Q);
	if (((cr * cr) >> Q) + ((ci * ci) >> Q) > (4LL << Q)) {
		out[y * w + x] = 0;
		return;
	}
	while (it < max_iter) {
		long long zr2 = (zr * zr) >> Q, zi2 = (zi * zi) >> Q, t;

		if (zr2 + zi2 > (4LL << Q))
			break;
		t = zr2 - zi2 + cr;
		zi = ((zr * zi) >> (Q - 1)) + ci;
		zr = t;
		it++;
	}
	out[y * w + x] = it;
}
