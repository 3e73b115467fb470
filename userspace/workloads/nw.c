// SPDX-License-Identifier: MIT
/*
 * nw: Needleman-Wunsch scores of two random sequences of length n (a
 * multiple of 16) over a 24-letter alphabet with a random symmetric
 * substitution table in [-4, 10] and gap penalty 10 (nw.cu): nw_upper for
 * block anti-diagonals 0 ... nb-1, nw_lower for the rest, 2 nb - 1
 * launches. The whole (n+1)^2 score matrix must equal the CPU's DP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

#define B 16
#define PENALTY 10

static int nw_run(struct vgpu_device *dev, const struct workload_args *args,
		  struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nb = n / B, w = n + 1;
	uint64_t sizes[2] = { (uint64_t)w * w * 4, (uint64_t)n * n * 4 };
	uint64_t seed = args->seed;
	struct vgpu_program *prog;
	struct vgpu_bo *bo[2];
	struct vgpu_params p;
	int32_t *score, *ref, *want, table[24][24];
	uint8_t *sa, *sb;
	uint32_t entry;
	int ret;

	if (n == 0 || n % B || n > 8192) {
		snprintf(msg, msglen, "size (sequence length) must be a multiple of 16, at most 8192");
		return -EINVAL;
	}
	ret = workload_load(dev, "nw", "nw_upper", &prog, &entry, msg, msglen);
	if (ret)
		return ret;
	ret = workload_alloc(dev, bo, sizes, 2, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc(sizes[0] + 2 * (size_t)n);
	if (!want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	sa = (uint8_t *)(want + (size_t)w * w);
	sb = sa + n;
	for (int i = 0; i < 24; i++)
		for (int j = 0; j <= i; j++)
			table[i][j] = table[j][i] = (int32_t)workload_randn(&seed, 15) - 4;
	for (uint32_t i = 0; i < n; i++) {
		sa[i] = (uint8_t)workload_randn(&seed, 24);
		sb[i] = (uint8_t)workload_randn(&seed, 24);
	}
	score = bo[0]->map;
	ref = bo[1]->map;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			ref[i * n + j] = table[sa[i]][sb[j]];
	for (uint32_t i = 0; i < w; i++) {
		score[i * w] = -(int32_t)i * PENALTY;
		score[i] = -(int32_t)i * PENALTY;
	}
	for (uint32_t d = 0; d < 2 * nb - 1 && !ret; d++) {
		int upper = d < nb;

		vgpu_params_init(&p);
		vgpu_params_ptr(&p, bo[0]);
		vgpu_params_ptr(&p, bo[1]);
		vgpu_params_u32(&p, n);
		vgpu_params_u32(&p, PENALTY);
		vgpu_params_u32(&p, upper ? d : d - nb + 1);
		ret = workload_go(dev, prog, upper ? "nw_upper" : "nw_lower",
				  upper ? d + 1 : 2 * nb - 1 - d, 1, B, 1, 0, &p, bo, 2,
				  res, msg, msglen);
	}
	if (!ret) {
		for (uint32_t i = 0; i < w; i++) {
			want[i * w] = -(int32_t)i * PENALTY;
			want[i] = -(int32_t)i * PENALTY;
		}
		for (uint32_t i = 1; i < w; i++)
			for (uint32_t j = 1; j < w; j++) {
				int32_t v = want[(i - 1) * w + j - 1] + ref[(i - 1) * n + j - 1];
				int32_t up = want[(i - 1) * w + j] - PENALTY;
				int32_t left = want[i * w + j - 1] - PENALTY;

				v = v > up ? v : up;
				want[i * w + j] = v > left ? v : left;
			}
		ret = workload_cmp_u32("score", (uint32_t *)score, (uint32_t *)want,
				       (size_t)w * w, msg, msglen);
	}
	free(want);
out_bo:
	workload_free(bo, 2);
out_prog:
	vgpu_program_destroy(prog);
	return ret;
}

const struct vgpu_workload workload_nw = {
	.name = "nw",
	.paper = "Rodinia nw (Needleman-Wunsch, NW)",
	.cls = "MEM",
	.kernels = "nw_upper nw_lower (one launch per block anti-diagonal)",
	.small_size = 64,
	.medium_size = 64,
	.default_size = 1024,
	.large_size = 4096,
	.size_unit = "sequence length (x16)",
	.run = nw_run,
};
