// SPDX-License-Identifier: MIT
/*
 * vgpu - command-line tool of the vgpu virtual GPU.
 *
 *   vgpu run NAME [--size N] [--seed S]   run a workload, check it, print figures
 *   vgpu list                             the workload suite
 *   vgpu info                             the device's parameters
 *   vgpu compile FILE.ptx [-o OUT]        compile PTX; print the disassembly
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/vgpu_compile.h"
#include "ptx_cmd.h"
#include "vgpu.h"
#include "workloads/workload.h"

static int usage(FILE *f, int status)
{
	fprintf(f,
		"usage: vgpu run NAME [--size N] [--seed S]\n"
		"       vgpu list\n"
		"       vgpu info\n"
		"       vgpu compile FILE.ptx [-o IMAGE]\n"
		"       vgpu ptx FILE.ptx   resources and analyses per entry (like ptxas -v)\n");
	return status;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *s == '\0' || *end != '\0' || *s == '-' ? -EINVAL : 0;
}

static int open_device(struct vgpu_device **dev)
{
	int ret = vgpu_device_open(NULL, dev);

	if (ret)
		fprintf(stderr, "vgpu: no vgpu device: %s\n", strerror(-ret));
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ 0 },
	};
	struct workload_args args = { .seed = 1 };
	const struct vgpu_workload *w;
	struct workload_result res = { 0 };
	struct vgpu_device *dev;
	char msg[512] = "";
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "n:s:", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (parse_u64(optarg, &args.size) || args.size == 0) {
				fprintf(stderr, "vgpu: bad --size '%s'\n", optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_u64(optarg, &args.seed)) {
				fprintf(stderr, "vgpu: bad --seed '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			return usage(stderr, 2);
		}
	}
	if (optind != argc - 1)
		return usage(stderr, 2);
	w = vgpu_workload_find(argv[optind]);
	if (!w) {
		fprintf(stderr, "vgpu: unknown workload '%s' (vgpu list)\n", argv[optind]);
		return 2;
	}
	if (!args.size)
		args.size = w->default_size;
	if (open_device(&dev))
		return 1;
	ret = w->run(dev, &args, &res, msg, sizeof(msg));
	vgpu_device_close(dev);
	if (ret) {
		printf("%s: FAILED: %s\n", w->name, msg[0] ? msg : strerror(-ret));
		return 1;
	}
	printf("%s: ok cycles=%" PRIu64 " warp_insts=%" PRIu64 " launches=%u tbs=%" PRIu64
	       " size=%" PRIu64 "\n", w->name, res.cycles, res.warp_insts, res.launches,
	       res.tbs, args.size);
	return 0;
}

static int cmd_list(void)
{
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++)
		printf("%-12s size %-9" PRIu64 " stands for: %s\n", (*w)->name,
		       (*w)->default_size, (*w)->paper);
	return 0;
}

static int cmd_info(void)
{
	static const char *const names[DRM_VGPU_PARAM_COUNT] = {
		[DRM_VGPU_PARAM_VRAM_SIZE] = "vram_size",
		[DRM_VGPU_PARAM_BACKEND_ATTACHED] = "backend_attached",
		[DRM_VGPU_PARAM_NUM_SMS] = "num_sms",
		[DRM_VGPU_PARAM_WARP_SIZE] = "warp_size",
		[DRM_VGPU_PARAM_MAX_THREADS_PER_SM] = "max_threads_per_sm",
		[DRM_VGPU_PARAM_MAX_TBS_PER_SM] = "max_tbs_per_sm",
		[DRM_VGPU_PARAM_REGS_PER_SM] = "regs_per_sm",
		[DRM_VGPU_PARAM_SHARED_PER_SM] = "shared_per_sm",
		[DRM_VGPU_PARAM_MAX_THREADS_PER_TB] = "max_threads_per_tb",
		[DRM_VGPU_PARAM_MAX_REGS_PER_THREAD] = "max_regs_per_thread",
		[DRM_VGPU_PARAM_MAX_SHARED_PER_TB] = "max_shared_per_tb",
		[DRM_VGPU_PARAM_CORE_CLOCK_KHZ] = "core_clock_khz",
		[DRM_VGPU_PARAM_CURRENT_CYCLE] = "current_cycle",
	};
	struct vgpu_device *dev;

	if (open_device(&dev))
		return 1;
	for (uint32_t p = 0; p < DRM_VGPU_PARAM_COUNT; p++) {
		uint64_t v;
		int ret = vgpu_get_param(dev, p, &v);

		if (ret)
			printf("%-20s (%s)\n", names[p], strerror(-ret));
		else
			printf("%-20s %" PRIu64 "\n", names[p], v);
	}
	vgpu_device_close(dev);
	return 0;
}

static int cmd_compile(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	char err[512] = "";
	void *image = NULL;
	size_t size = 0, len;
	char *src;
	FILE *f;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (!in)
			in = argv[i];
		else
			return usage(stderr, 2);
	}
	if (!in)
		return usage(stderr, 2);
	f = fopen(in, "rb");
	if (!f) {
		fprintf(stderr, "vgpu: %s: %s\n", in, strerror(errno));
		return 1;
	}
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	src = malloc(len + 1);
	if (!src || fread(src, 1, len, f) != len) {
		fprintf(stderr, "vgpu: %s: cannot read\n", in);
		fclose(f);
		free(src);
		return 1;
	}
	fclose(f);
	src[len] = '\0';
	ret = vgpu_compile_ptx(src, len, &image, &size, err, sizeof(err));
	free(src);
	if (ret) {
		fprintf(stderr, "%s: %s\n", in, err[0] ? err : strerror(-ret));
		return 1;
	}
	if (out) {
		f = fopen(out, "wb");
		if (!f || fwrite(image, 1, size, f) != size) {
			fprintf(stderr, "vgpu: %s: cannot write\n", out);
			if (f)
				fclose(f);
			free(image);
			return 1;
		}
		fclose(f);
	} else {
		vgpu_disasm(image, size, stdout);
	}
	free(image);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr, 2);
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return cmd_list();
	if (strcmp(argv[1], "info") == 0)
		return cmd_info();
	if (strcmp(argv[1], "compile") == 0)
		return cmd_compile(argc - 1, argv + 1);
	if (strcmp(argv[1], "ptx") == 0)
		return vgpu_ptx_cmd(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		return usage(stdout, 0);
	return usage(stderr, 2);
}
