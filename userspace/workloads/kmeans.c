// SPDX-License-Identifier: MIT
/*
 * kmeans: 3 iterations of k-means (k = 5, 8 features) over n points
 * (kmeans.cu). kmeans_invert transposes the points once; each iteration
 * the host writes the centres, kmeans_assign labels every point, and the
 * host recomputes the centres from the labels (as Rodinia does). The
 * reference labels with the kernel's arithmetic (sub.rn, fma.rn in feature
 * order, first minimum): labels are compared exactly every iteration.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define K 5
#define F 8
#define ITERS 3

static void new_centres(const float *pts, const uint32_t *member, uint32_t n, float *c)
{
	double sum[K][F] = { { 0 } };
	uint32_t cnt[K] = { 0 };

	for (uint32_t p = 0; p < n; p++) {
		cnt[member[p]]++;
		for (int f = 0; f < F; f++)
			sum[member[p]][f] += pts[p * F + f];
	}
	for (int k = 0; k < K; k++)
		for (int f = 0; f < F; f++)
			if (cnt[k])
				c[k * F + f] = (float)(sum[k][f] / cnt[k]);
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_kmeans;

static int kmeans_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nf = F, nk = K;
	uint64_t pb = (uint64_t)n * F * 4;
	uint64_t sizes[4] = { pb, pb, K * F * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[4];
	float *pts, c[K * F];
	uint32_t *want;
	int ret;

	ret = workload_size_check(&workload_kmeans, args->size, msg, msglen);
	if (ret)
		return ret;
	pts = malloc(pb);
	want = malloc((size_t)n * 4);
	if (!pts || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "kmeans", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 4);
	if (ret)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		/* Points around K blob centres. */
		uint32_t blob = workload_randn(&seed, K);

		for (int f = 0; f < F; f++)
			pts[i * F + f] = (float)(blob * (f + 1) % 7) + workload_randf(&seed);
	}
	memcpy(c, pts, sizeof(c));
	ret = workload_htod(&w, d[0], pts, pb);
	if (!ret)
		ret = workload_go(&w, "kmeans_invert", (n + 255) / 256, 1, 256, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &n, &nf));
	for (int it = 0; it < ITERS && !ret; it++) {
		ret = workload_htod(&w, d[2], c, sizeof(c));
		if (!ret)
			ret = workload_go(&w, "kmeans_assign", (n + 255) / 256, 1, 256, 1, 0,
					  WORKLOAD_ARGS(&d[1], &d[2], &d[3], &n, &nf, &nk));
		if (ret)
			break;
		for (uint32_t i = 0; i < n; i++)
			want[i] = workload_nearest(pts + (size_t)i * F, c, K, F);
		ret = workload_check_u32(&w, "membership", d[3], want, n);
		if (!ret)
			new_centres(pts, want, n, c);
	}
out:
	workload_close(&w);
out_host:
	free(pts);
	free(want);
	return ret;
}

const struct vgpu_workload workload_kmeans = {
	.name = "kmeans",
	.paper = "Rodinia kmeans (KM)",
	.cls = "MEM",
	.kernels = "kmeans_invert kmeans_assign (x3 iterations)",
	.small_size = 4096,
	.medium_size = 16384,
	.default_size = 1 << 18,
	.large_size = 1 << 21,
	.size_unit = "points (8 features, k = 5)",
	/* the first K points are the initial centres */
	.min_size = K,
	.max_size = 1u << 24,
	.limits = (const struct vgpu_workload_limit[]){
		{ "kmeans_invert", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "kmeans_assign", { LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = kmeans_run,
};
