// SPDX-License-Identifier: MIT
/*
 * bench.c - "vgpu bench SUBCOMMAND": the benchmarks of the tool, one table
 * entry each.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static const struct bench_cmd {
	const char *name;
	const char *args;
	const char *what;
	int (*run)(int argc, char **argv);
} bench_cmds[] = {
	{ "model-speed", "[--gpu NAME] [--config FILE] [--size small|default|large|N] [--threads N]",
	  "simulated warp-insts/s and cycles/s of the model on the suite, 1 thread and all cores",
	  bench_model_speed },
	{ "pairs", "--workloads A,B[,...] [--policies PARTITION[/PREEMPT][:KSCHED],...] [--with W] "
	  "[--set KEY=VALUE]... [--size small|medium|default|large|N] "
	  "[--seed S] [--csv FILE] [--svg FILE] [--classes FILE]",
	  "every pair run together under each partition policy: ANTT and STP (thesis Eq. 4.1, 4.2)",
	  bench_pairs },
	{ "classify", "[--gpu NAME] [--workloads A,B,...|all] [--size small|medium|default|large|N] "
	  "[--sizes NAME=N,...] [--vram-mb N] [--out FILE]",
	  "COM/MEM class of each workload by the Table 5.3 rule (speed-up 1 -> 16 SMs > 12)"
	  " on the in-process model",
	  bench_classify },
	{ "chimera", "[--workloads A,B,...|default|all] [--budget-us 5,10,15,20] "
	  "[--policies switch,drain,flush,chimera,...] [--period-us 50] [--rt-us 10] "
	  "[--size N] [--sizes NAME=N,...] [--csv FILE] [--svg FILE]",
	  "a periodic real-time task preempting half the SMs under each preemption policy:"
	  " deadline violations, throughput overhead, techniques (thesis Sec. 4.4.1-4.4.3)",
	  bench_chimera },
	{ "tlp", "[--workloads A,B,...|mem|all] [--gpu NAME] [--size small|medium|default|large|N] "
	  "[--max-static N] [--set KEY=VALUE]...",
	  "DYNCTA, DYNCORE and the best static TB limit against the default TB scheduler:"
	  " speed-up, DYNCORE's power and energy (Kayiran et al. Sec. 5)",
	  bench_tlp },
	{ "vt", "[--workloads A,B,...|sched-limited|all] [--gpu NAME] "
	  "[--size small|medium|default|large|N] [--set KEY=VALUE]... [--csv FILE]",
	  "Virtual Thread against the LRR baseline, MAX, GTO and GTO+VT on the workloads a"
	  " scheduling limit binds: IPC speed-up (Yoon et al. Sec. V)",
	  bench_vt },
	{ "sizes", "--min-us US [--workloads A,B,...|all] [--gpu NAME] "
	  "[--size small|medium|default|large|N] [--vram-mb N] [--set KEY=VALUE]...",
	  "per workload, a problem size at which it runs at least US microseconds alone:"
	  " the --sizes option of pairs and chimera",
	  bench_sizes },
	{ "preempt-cost", "[--workloads A,B,...|all] [--gpu NAME] "
	  "[--size small|medium|default|large|N] [--set KEY=VALUE]... [--csv FILE]",
	  "per kernel: TBs per SM, mean TB time, estimated drain time, context per TB, estimated"
	  " switch time, idempotent region (thesis Table 4.2)",
	  bench_preempt_cost },
};

static int bench_usage(FILE *f, int status)
{
	fprintf(f, "usage: vgpu bench SUBCOMMAND ...\n");
	for (size_t i = 0; i < sizeof(bench_cmds) / sizeof(bench_cmds[0]); i++)
		fprintf(f, "  vgpu bench %s %s\n      %s\n", bench_cmds[i].name,
			bench_cmds[i].args, bench_cmds[i].what);
	return status;
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2)
		return bench_usage(stderr, 2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return bench_usage(stdout, 0);
	/* What a Slurm array task runs again (bench_slurm.c). */
	bench_slurm_command(argc, argv);
	for (size_t i = 0; i < sizeof(bench_cmds) / sizeof(bench_cmds[0]); i++) {
		if (!strcmp(argv[1], bench_cmds[i].name))
			return bench_cmds[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "vgpu: unknown benchmark '%s'\n", argv[1]);
	return bench_usage(stderr, 2);
}
