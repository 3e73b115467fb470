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

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_nw;

static int nw_run(struct vgpu_device *dev, const struct workload_args *args,
		  struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, nb = n / B, side = n + 1, penalty = PENALTY;
	uint64_t sizes[2] = { (uint64_t)side * side * 4, (uint64_t)n * n * 4 };
	uint64_t seed = args->seed;
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	int32_t *score, *ref, *want, table[24][24];
	uint8_t *sa, *sb;
	int ret;

	ret = workload_size_check(&workload_nw, args->size, msg, msglen);
	if (ret)
		return ret;
	score = calloc(1, sizes[0]);
	ref = malloc(sizes[1]);
	want = malloc(sizes[0] + 2 * (size_t)n);
	if (!score || !ref || !want) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "nw", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	sa = (uint8_t *)(want + (size_t)side * side);
	sb = sa + n;
	for (int i = 0; i < 24; i++)
		for (int j = 0; j <= i; j++)
			table[i][j] = table[j][i] = (int32_t)workload_randn(&seed, 15) - 4;
	for (uint32_t i = 0; i < n; i++) {
		sa[i] = (uint8_t)workload_randn(&seed, 24);
		sb[i] = (uint8_t)workload_randn(&seed, 24);
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
			ref[i * n + j] = table[sa[i]][sb[j]];
	/* the borders; the device fills the rest */
	for (uint32_t i = 0; i < side; i++) {
		score[i * side] = -(int32_t)i * PENALTY;
		score[i] = -(int32_t)i * PENALTY;
	}
	ret = workload_htod(&w, d[0], score, sizes[0]);
	if (!ret)
		ret = workload_htod(&w, d[1], ref, sizes[1]);
	for (uint32_t diag = 0; diag < 2 * nb - 1 && !ret; diag++) {
		int upper = diag < nb;
		uint32_t band = upper ? diag : diag - nb + 1;

		ret = workload_go(&w, upper ? "nw_upper" : "nw_lower",
				  upper ? diag + 1 : 2 * nb - 1 - diag, 1, B, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &n, &penalty, &band));
	}
	if (!ret) {
		for (uint32_t i = 0; i < side; i++) {
			want[i * side] = -(int32_t)i * PENALTY;
			want[i] = -(int32_t)i * PENALTY;
		}
		for (uint32_t i = 1; i < side; i++)
			for (uint32_t j = 1; j < side; j++) {
				int32_t v = want[(i - 1) * side + j - 1] + ref[(i - 1) * n + j - 1];
				int32_t up = want[(i - 1) * side + j] - PENALTY;
				int32_t left = want[i * side + j - 1] - PENALTY;

				v = v > up ? v : up;
				want[i * side + j] = v > left ? v : left;
			}
		ret = workload_check_u32(&w, "score", d[0], (uint32_t *)want,
					 (size_t)side * side);
	}
out:
	workload_close(&w);
out_host:
	free(score);
	free(ref);
	free(want);
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
	.size_step = B,
	.max_size = 8192,
	.limits = (const struct vgpu_workload_limit[]){
		{ "nw_upper", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS } },
		{ "nw_lower", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS } },
		{ NULL },
	},
	.run = nw_run,
};
