/*
 * hotspot.cu - transient heat on a 2D chip floor plan, one explicit time
 * step per launch (5-point stencil over temperature plus a power term).
 *
 * Stands for Rodinia "hotspot" (HS in Tables 4.2 and 5.3, kernel
 * calculate_temp; class COM): each 16x16 block stages its tile and a
 * one-cell halo of the temperature in shared memory, then every cell
 * computes
 *   t' = t + cap * (p + (tn + ts - 2t) ry + (te + tw - 2t) rx + (amb - t) rz)
 * with fmaf in a fixed order (the CPU reference repeats it). Edges clamp
 * (a missing neighbour is the cell itself). The host ping-pongs the two
 * temperature buffers: idempotent per launch.
 */
#define B 16

extern "C" __global__ void hotspot(const float *temp, const float *power,
				   float *out, unsigned int w, unsigned int hgt,
				   float cap, float rx, float ry, float rz,
				   float amb)
{
	__shared__ float t[B + 2][B + 2];
	int tx = threadIdx.x, ty = threadIdx.y;
	int x = blockIdx.x * B + tx, y = blockIdx.y * B + ty;
	int W = (int)w, H = (int)hgt;

	/* The tile and its halo: 18 x 18 cells from 16 x 16 threads. */
	for (int idx = ty * B + tx; idx < (B + 2) * (B + 2); idx += B * B) {
		int hx = blockIdx.x * B + idx % (B + 2) - 1;
		int hy = blockIdx.y * B + idx / (B + 2) - 1;

		hx = min(max(hx, 0), W - 1);
		hy = min(max(hy, 0), H - 1);
		t[idx / (B + 2)][idx % (B + 2)] = temp[hy * W + hx];
	}
	__syncthreads();
	if (x < W && y < H) {
		float c = t[ty + 1][tx + 1];
		float tn = y > 0 ? t[ty][tx + 1] : c;
		float ts = y < H - 1 ? t[ty + 2][tx + 1] : c;
		float tw = x > 0 ? t[ty + 1][tx] : c;
		float te = x < W - 1 ? t[ty + 1][tx + 2] : c;
		float c2 = __fadd_rn(c, c);
		float d = fmaf(__fsub_rn(amb, c), rz, power[y * W + x]);

		d = fmaf(__fsub_rn(__fadd_rn(te, tw), c2), rx, d);
		d = fmaf(__fsub_rn(__fadd_rn(tn, ts), c2), ry, d);
		out[y * W + x] = fmaf(cap, d, c);
	}
}
