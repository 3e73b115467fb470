// SPDX-License-Identifier: MIT
/*
 * regbank: chains of three-source integer multiply-adds whose operands
 * share a register bank (regbank.cu), the register-file-bound kind of
 * kernel the sub-core paper's RBA scheduler and fully connected SM gain on
 * (seed 002, Sec. II, VI-B). One thread per size unit, eight values each,
 * ROUNDS rounds of 16 IMADs. Host side on the runtime API; the reference
 * does the same 32-bit unsigned arithmetic: bit-exact.
 */
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

/* Input: 8 random words per thread; the reference's output. */
static void regbank_fill(uint32_t *in, uint32_t *want, uint32_t n, uint64_t seed)
{
	for (size_t i = 0; i < (size_t)n * 8; i++)
		in[i] = (uint32_t)workload_rand(&seed);
	for (uint32_t t = 0; t < n; t++)
		want[t] = regbank_ref(in + (size_t)t * 8);
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_regbank;

static int regbank_run(struct vgpu_device *dev, const struct workload_args *args,
		       struct workload_result *res, char *msg, size_t msglen)
{
	return wrt_run_inout(dev, args, &workload_regbank, 8, ROUNDS, BLOCK, regbank_fill, res,
			     msg, msglen);
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
	.max_size = WRT_MAX_THREADS,
	.limits = (const struct vgpu_workload_limit[]){
		{ "regbank", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = regbank_run,
};
