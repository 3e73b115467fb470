// SPDX-License-Identifier: MIT
/*
 * regbank: chains of three-source integer multiply-adds whose operands
 * share a register bank (regbank.cu), the register-file-bound kind of
 * kernel the sub-core paper's RBA scheduler and fully connected SM gain on
 * (seed 002, Sec. II, VI-B). One thread per size unit, eight values each,
 * ROUNDS rounds of 16 IMADs. Host side on the runtime API; the reference
 * does the same 32-bit unsigned arithmetic: bit-exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload_rt.h"

#define ROUNDS	32
#define BLOCK	128

static uint32_t regbank_ref(const uint32_t *in)
{
	uint32_t v[8], t[8];

	for (int i = 0; i < 8; i++)
		v[i] = in[i];
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < 8; i++)
			t[i] = v[i] * v[(i + 2) % 8] + v[(i + 4) % 8];
		/* in regbank.cu's order: t0 t4 t1 t5 in registers of one parity */
		v[0] = t[0] * t[4] + t[1];
		v[1] = t[4] * t[1] + t[5];
		v[2] = t[1] * t[5] + t[0];
		v[3] = t[5] * t[0] + t[4];
		v[4] = t[2] * t[6] + t[3];
		v[5] = t[6] * t[3] + t[7];
		v[6] = t[3] * t[7] + t[2];
		v[7] = t[7] * t[2] + t[6];
		v[0] ^= v[7] >> 11;
	}
	return v[0] ^ v[1] ^ v[2] ^ v[3] ^ v[4] ^ v[5] ^ v[6] ^ v[7];
}

static int regbank_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, *in = NULL, *want = NULL;
	uint64_t seed = args->seed;
	int ret;

	if (args->size < 1 || args->size > (1u << 24)) {
		snprintf(msg, msglen, "size (threads) must be 1 ... %u", 1u << 24);
		return -EINVAL;
	}
	in = malloc((size_t)n * 32);
	want = malloc((size_t)n * 4);
	if (!in || !want) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < (size_t)n * 8; i++)
		in[i] = (uint32_t)workload_rand(&seed);
	for (uint32_t t = 0; t < n; t++)
		want[t] = regbank_ref(in + (size_t)t * 8);
	ret = wrt_run_inout(dev, "regbank", in, (size_t)n * 32, n, ROUNDS, BLOCK, want, res, msg,
			    msglen);
out:
	free(in);
	free(want);
	return ret;
}

const struct vgpu_workload workload_regbank = {
	.name = "regbank",
	.paper = "seed 002 register-file-bound kernels: 3-source IMADs on one register bank",
	.cls = "COM",
	.kernels = "regbank",
	.small_size = 4096,
	.medium_size = 131072,
	.default_size = 262144,
	.large_size = 1048576,
	.size_unit = "threads",
	.run = regbank_run,
};
