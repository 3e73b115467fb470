// SPDX-License-Identifier: MIT
/*
 * ifetch: four long straight-line hash chains, warp w of a block running
 * chain w mod 4 (ifetch.cu): about 23 KB of code, whose warps sit at
 * different places of it at once, the instruction-fetch-bound kind of
 * kernel ELF's next-line prefetch gains on (thesis Sec. 3.3.5). One thread
 * per size unit, PASSES passes over its chain. Host side on the runtime
 * API; the reference does the same 32-bit unsigned arithmetic: bit-exact.
 */
#include "workload_rt.h"

#define STEPS	128	/* per chain, as ifetch.cu */
#define PASSES	4
#define BLOCK	128

static uint32_t ifetch_ref(uint32_t x, uint32_t t)
{
	uint32_t s = (t / 32) % 4;

	for (int p = 0; p < PASSES; p++) {
		for (uint32_t i = 0; i < STEPS; i++) {
			uint32_t k = s * STEPS + i;

			x = x * (2654435761u + 2u * k) + k;
			x ^= x >> (k % 13 + 3);
		}
	}
	return x;
}

/* Input: a random word per thread; the reference's output. */
static void ifetch_fill(uint32_t *in, uint32_t *want, uint32_t n, uint64_t seed)
{
	for (uint32_t t = 0; t < n; t++) {
		in[t] = (uint32_t)workload_rand(&seed);
		/* the block's thread index decides the chain, as threadIdx.x there */
		want[t] = ifetch_ref(in[t], t % BLOCK);
	}
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_ifetch;

static int ifetch_run(struct vgpu_device *dev, const struct workload_args *args,
		      struct workload_result *res, char *msg, size_t msglen)
{
	return wrt_run_inout(dev, args, &workload_ifetch, 1, PASSES, BLOCK, ifetch_fill, res,
			     msg, msglen);
}

const struct vgpu_workload workload_ifetch = {
	.name = "ifetch",
	.paper = "thesis Sec. 3.3.5 instruction-fetch-bound kernels: 23 KB of straight-line code",
	.cls = "COM",
	.kernels = "ifetch",
	.small_size = 2048,
	.medium_size = 16384,
	.default_size = 65536,
	.large_size = 524288,
	.size_unit = "threads",
	.max_size = WRT_MAX_THREADS,
	.limits = (const struct vgpu_workload_limit[]){
		{ "ifetch", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = ifetch_run,
};
