// SPDX-License-Identifier: MIT
/*
 * bench_classify.c - "vgpu bench classify": the COM / MEM class of each
 * workload measured on the model by the rule of the thesis' Table 5.3
 * (Park, dissertation, Ch. V §5.5): a kernel is compute-bound (COM) when it
 * runs more than 12 times faster on 16 SMs than on one, memory-bound (MEM)
 * otherwise. Both runs use the in-process model (a local device), so this
 * runs on the host in seconds; "vgpu bench pairs --classes FILE" takes the
 * file it writes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define CLASSIFY_USAGE \
	"[--local] [--gpu NAME] [--workloads A,B,...|all] [--size small|medium|default|large|N]" \
	" [--sizes NAME=N,...] [--vram-mb N] [--out FILE] [-j N | " BENCH_SLURM_USAGE "]"

/* Table 5.3: speed-up from 1 to 16 SMs above which a kernel is COM. */
#define COM_SPEEDUP	12.0

/**
 * struct classify_run - the sweep, for its tasks: each workload on 1 SM and
 *	on 16 (bench_run_tasks()).
 * @gpu: the preset.
 * @size: --size as tool_parse_size() gave it.
 * @which: and its kind.
 * @sizes: --sizes, over @size for the workloads it names.
 * @vram_size: --vram-mb in bytes, 0 for the local device's default.
 * @w: the workloads (--workloads); @nw: how many.
 * @cycles: per workload, its cycles on 1 and 16 SMs (shared with the workers).
 */
struct classify_run {
	const char *gpu;
	uint64_t size;
	int which;
	struct bench_sizes sizes;
	uint64_t vram_size;
	const struct vgpu_workload **w;
	unsigned int nw;
	uint64_t (*cycles)[2];
};

static int cycles_on(const char *gpu, uint64_t vram_size, unsigned int sms,
		     const struct vgpu_workload *w, const struct workload_args *args,
		     uint64_t *cycles)
{
	struct vgpu_sim_config cfg;
	struct bench_target t;
	struct local_run run;
	unsigned int threads;
	char v[16];
	int ret;

	ret = local_config(gpu, NULL, 0, &cfg, &threads);
	if (ret)
		return ret;
	snprintf(v, sizeof(v), "%u", sms);
	ret = vgpu_sim_config_set(&cfg, "num_sms", v);
	if (ret)
		return ret;
	local_target(&t, &cfg);
	t.vram_size = vram_size;
	ret = local_run_workload(&t, w, args, &run);
	if (ret)
		return ret;
	if (run.ret) {
		fprintf(stderr, "vgpu bench classify: %s on %u SMs: %s\n", w->name, sms, run.msg);
		return run.ret;
	}
	*cycles = run.res.cycles;
	return 0;
}

/* Task @k: workload @k / 2 on 1 SM (even @k) or 16. */
static int classify_task(unsigned int k, void *arg)
{
	struct classify_run *run = arg;
	const struct vgpu_workload *w = run->w[k / 2];
	struct workload_args args = {
		.seed = 1, .size = bench_size_of(&run->sizes, w, run->size, run->which),
	};

	return cycles_on(run->gpu, run->vram_size, k % 2 ? 16 : 1, w, &args,
			 &run->cycles[k / 2][k % 2]);
}

int bench_classify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "size", required_argument, NULL, 'n' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "workloads", required_argument, NULL, 'w' },
		{ "vram-mb", required_argument, NULL, 'V' },
		{ "out", required_argument, NULL, 'o' },
		{ "local", no_argument, NULL, 'L' },
		{ "jobs", required_argument, NULL, 'j' },
		BENCH_SLURM_LONGOPTS,
		{ 0 },
	};
	const char *out = NULL;
	struct classify_run run = { .gpu = "maxwell-gtx980", .which = 4 };
	unsigned int jobs = bench_default_jobs();
	struct bench_target_opts topts = { 0 };
	char workloads[512] = "all";
	size_t cycles_size;
	int opt, agree = 0, n = 0, ret = 0;
	FILE *f = NULL;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "g:n:o:j:z:w:V:", opts, NULL)) != -1) {
		switch (opt) {
		case 'L':
			break;	/* it always runs on the local device */
		case 'j':
			if (bench_parse_jobs(optarg, &jobs))
				return 2;
			break;
		case 'g':
			run.gpu = optarg;
			break;
		case 'n':
			if (tool_parse_size(optarg, &run.size, &run.which)) {
				fprintf(stderr, "vgpu bench classify: bad --size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'z':
			if (bench_parse_sizes("classify", optarg, &run.sizes))
				return 2;
			break;
		case 'w':
			snprintf(workloads, sizeof(workloads), "%s", optarg);
			break;
		case 'V':
			if (bench_target_opt(opt, optarg, &topts) < 0)
				return 2;
			run.vram_size = topts.vram_size;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			ret = bench_slurm_opt(opt, optarg);
			if (ret < 0)
				return 2;
			if (ret)
				break;
			fprintf(stderr, "usage: vgpu bench classify " CLASSIFY_USAGE "\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "usage: vgpu bench classify " CLASSIFY_USAGE "\n");
		return 2;
	}
	if (bench_slurm_check(true))
		return 2;
	if (bench_workloads("classify", workloads, NULL, NULL, &run.w, &run.nw)) {
		free(run.w);
		return 2;
	}
	cycles_size = sizeof(*run.cycles) * run.nw;
	run.cycles = bench_shared_alloc(cycles_size);
	if (!run.cycles) {
		free(run.w);
		return 1;
	}
	ret = bench_run_tasks(2 * run.nw, jobs, classify_task, &run);
	if (ret) {
		fprintf(stderr, "vgpu bench classify: failed: %s\n", strerror(-ret));
		bench_shared_free(run.cycles, cycles_size);
		free(run.w);
		return 1;
	}
	if (out) {
		f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "vgpu bench classify: %s: %s\n", out, strerror(errno));
			bench_shared_free(run.cycles, cycles_size);
			free(run.w);
			return 1;
		}
		fprintf(f, "# vgpu bench classify --gpu %s: NAME CLASS (Table 5.3 rule)\n",
			run.gpu);
	}
	printf("%-12s %12s %12s %8s %5s %8s\n", "NAME", "1 SM", "16 SMs", "SPEEDUP", "CLASS",
	       "REGISTRY");
	for (const struct vgpu_workload **w = run.w; w < run.w + run.nw; w++) {
		uint64_t c1 = run.cycles[w - run.w][0], c16 = run.cycles[w - run.w][1];
		const char *cls;
		double up;

		up = c16 ? (double)c1 / (double)c16 : 0;
		cls = up > COM_SPEEDUP ? "COM" : "MEM";
		agree += (*w)->cls && !strcmp((*w)->cls, cls);
		n++;
		printf("%-12s %12" PRIu64 " %12" PRIu64 " %8.2f %5s %8s\n", (*w)->name, c1, c16, up,
		       cls, (*w)->cls ? (*w)->cls : "-");
		if (f)
			fprintf(f, "%s %s\n", (*w)->name, cls);
	}
	if (!ret)
		printf("%d workloads, %d classed as the registry has them\n", n, agree);
	if (f && fclose(f) && !ret)
		ret = -errno;
	if (ret)
		fprintf(stderr, "vgpu bench classify: failed: %s\n", strerror(-ret));
	bench_shared_free(run.cycles, cycles_size);
	free(run.w);
	return ret ? 1 : 0;
}
