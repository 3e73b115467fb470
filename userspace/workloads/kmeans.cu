/*
 * kmeans.cu - the assignment step of k-means clustering.
 *
 * Stands for Rodinia "kmeans" (KM in Tables 4.2 and 5.3; class MEM), with
 * its two kernels:
 *   kmeans_invert  transposes the points from point-major to feature-major
 *                  (Rodinia's invert_mapping), so that the next kernel's
 *                  loads are coalesced;
 *   kmeans_assign  each thread finds the nearest of k centres to its point
 *                  (squared Euclidean distance, fmaf over the features in
 *                  order; the first minimum wins) (kmeansPoint).
 * The host recomputes the centres between iterations, as Rodinia does.
 * Both kernels are idempotent.
 */
extern "C" __global__ void kmeans_invert(const float *in, float *out,
					 unsigned int npoints,
					 unsigned int nfeatures)
{
	unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;

	if (p >= npoints)
		return;
	for (unsigned int f = 0; f < nfeatures; f++)
		out[f * npoints + p] = in[p * nfeatures + f];
}

extern "C" __global__ void kmeans_assign(const float *features,
					 const float *centres,
					 unsigned int *membership,
					 unsigned int npoints,
					 unsigned int nfeatures,
					 unsigned int k)
{
	unsigned int p = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int best = 0;
	float best_d = 3.402823466e38f;

	if (p >= npoints)
		return;
	for (unsigned int c = 0; c < k; c++) {
		float d = 0.0f;

		for (unsigned int f = 0; f < nfeatures; f++) {
			float diff = __fsub_rn(features[f * npoints + p],
					       centres[c * nfeatures + f]);

			d = fmaf(diff, diff, d);
		}
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	membership[p] = best;
}
