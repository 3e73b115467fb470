// SPDX-License-Identifier: MIT
/*
 * kmrow: one k-means assignment (K centres, F features) over n points
 * stored point-major, a thread per point reading its own row (kmrow.cu).
 * Stands for KM (Rodinia kmeans, Kayiran et al. Table 2): the rows are
 * reused from the L1 once per centre, while few blocks share the SM. The
 * points lie around K blobs; the centres are the first K points. The
 * reference computes the distances with the kernel's arithmetic (sub.rn,
 * fma.rn in feature order, first minimum): labels are compared exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define K	4
/*
 * 32 features, one 128-byte line per point: a warp's 32 rows are 32 lines
 * on the 32 different sets of fermi's 16 KB 4-way L1, which holds the rows
 * of four warps (two blocks of BLOCK threads).
 */
#define F	32
#define BLOCK	64u

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_kmrow;

static int kmrow_run(struct vgpu_device *dev, const struct workload_args *args,
		     struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nf = F, nk = K;
	uint64_t pb = (uint64_t)n * F * 4;
	uint64_t sizes[3] = { pb, K * F * 4, (uint64_t)n * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[3];
	uint32_t *want;
	float *pts;
	int ret;

	ret = workload_size_check(&workload_kmrow, args->size, msg, msglen);
	if (ret)
		return ret;
	pts = malloc(pb);
	want = malloc((size_t)n * 4);
	if (!pts || !want) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out_host;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t blob = workload_randn(&seed, K);

		for (int f = 0; f < F; f++)
			pts[i * F + f] = (float)(blob * (f + 1) % 5) + workload_randf(&seed);
	}
	ret = workload_open(&w, dev, "kmrow", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 3);
	if (ret)
		goto out;
	ret = workload_htod(&w, d[0], pts, pb);
	if (!ret)	/* the centres: the first K points */
		ret = workload_htod(&w, d[1], pts, K * F * 4);
	if (!ret)
		ret = workload_go(&w, "kmrow_assign", (n + BLOCK - 1) / BLOCK, 1, BLOCK, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &n, &nf, &nk));
	if (ret)
		goto out;

	for (uint32_t i = 0; i < n; i++)
		want[i] = workload_nearest(pts + (size_t)i * F, pts, K, F);
	ret = workload_check_u32(&w, "membership", d[2], want, n);
out:
	workload_close(&w);
out_host:
	free(pts);
	free(want);
	return ret;
}

const struct vgpu_workload workload_kmrow = {
	.name = "kmrow",
	.paper = "Rodinia kmeans (KM) on point-major rows, as Kayiran et al. run it: rows thrashing the L1",
	.cls = "MEM",
	.kernels = "kmrow_assign",
	.small_size = 512,
	.medium_size = 8192,
	.default_size = 32768,
	.large_size = 262144,
	.size_unit = "points (32 features, k = 4)",
	/* the first K points are the initial centres */
	.min_size = K,
	.max_size = 1u << 22,
	.limits = (const struct vgpu_workload_limit[]){
		{ "kmrow_assign", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = kmrow_run,
};
