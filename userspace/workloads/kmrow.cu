/*
 * kmrow.cu - the assignment step of k-means on point-major feature rows.
 *
 * Stands for KM (Rodinia kmeans as Kayiran et al. run it, Table 2, a
 * Type-M application whose throughput falls as more blocks share an SM).
 * Unlike the suite's kmeans (whose kmeans_invert first makes the loads
 * coalesced), each thread reads its own point's row of nfeatures floats,
 * 16 bytes at a time, once per centre: a warp's load touches 32 lines,
 * one per thread, and the next loads of the pass and the passes for the
 * other centres hit only while those lines stay in the L1 - with more
 * blocks on the SM, their rows evict them first.
 *
 * Squared Euclidean distance with sub.rn and fma.rn over the features in
 * order; the first minimum wins (as kmeans.cu). nfeatures is a multiple
 * of 4.
 */
extern "C" __global__ void kmrow_assign(const float4 *features, const float4 *centres,
					unsigned int *membership, unsigned int npoints,
					unsigned int nfeatures, unsigned int k)
{
	unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int n4 = nfeatures / 4, best = 0;
	const float4 *row = features + (size_t)p * n4;
	float best_d = 3.402823466e38f;

	if (p >= npoints)
		return;
	for (unsigned int c = 0; c < k; c++) {
		const float4 *centre = centres + c * n4;
		float d = 0.0f;

		for (unsigned int f = 0; f < n4; f++) {
			float4 x = row[f], m = centre[f];
			float dx = __fsub_rn(x.x, m.x), dy = __fsub_rn(x.y, m.y);
			float dz = __fsub_rn(x.z, m.z), dw = __fsub_rn(x.w, m.w);

			d = fmaf(dx, dx, d);
			d = fmaf(dy, dy, d);
			d = fmaf(dz, dz, d);
			d = fmaf(dw, dw, d);
		}
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	membership[p] = best;
}
