// SPDX-License-Identifier: MIT
/*
 * vgpu_hog - a careless GPU program, for the reliability tests (e2e.sh):
 * it launches spin (userspace/tests/spin_ptx.h), a kernel whose threads each run a loop of --loops
 * iterations, and then behaves as asked: waits for it, exits without
 * waiting, joins the synchronised clock and never waits, or asks for a
 * not-before cycle far ahead. With --expect it exits 0 when the job ends
 * with that error; a job that ends well is checked against the CPU.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vgpu.h"
#include "vgpu_sim.h"
#include "../spin_ptx.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: vgpu_hog [--loops N] [--blocks B] [--threads T] [--timeout-us U] [--launches N]\n"
		"                [--ahead C] [--join] [--no-wait] [--hold S] [--expect ERRNO]\n"
		"                [--local [--set K=V]...]\n"
		"  --loops N       iterations of each thread's loop (default 10^9: runs for ever)\n"
		"  --blocks B      thread blocks (default 1, up to 4294967295), --threads T\n"
		"                  per block (default 32); the first 65536 threads' results\n"
		"                  are checked\n"
		"  --timeout-us U  the launch's time limit, simulated microseconds (0: the device's)\n"
		"  --ahead C       not-before cycle C cycles after the device's current one\n"
		"  --join          join the synchronised clock first (rank 1)\n"
		"  --no-wait       submit, print the job id, sleep --hold seconds, exit\n"
		"  --hold S        with --no-wait: seconds to stay alive (default 0)\n"
		"  --expect E      the error the job must end with: ETIMEDOUT, EIO, ...;\n"
		"                  SUBMIT:E for the error SUBMIT itself must return\n"
		"  --local         on libvgpu's local device (fermi-gtx480), not the render node\n"
		"  --set K=V       with --local: a device attribute\n"
		"  --launches N    N launches at once (default 1); SUBMIT:E applies to the last\n");
}

static int errno_by_name(const char *name)
{
	static const struct { const char *name; int err; } names[] = {
		{ "ETIMEDOUT", ETIMEDOUT }, { "EIO", EIO }, { "EINVAL", EINVAL },
		{ "ECANCELED", ECANCELED }, { "ENODEV", ENODEV }, { "ENOSPC", ENOSPC },
		{ "0", 0 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			return names[i].err;
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "blocks", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "timeout-us", required_argument, NULL, 'u' },
		{ "ahead", required_argument, NULL, 'a' },
		{ "join", no_argument, NULL, 'j' },
		{ "no-wait", no_argument, NULL, 'n' },
		{ "hold", required_argument, NULL, 's' },
		{ "expect", required_argument, NULL, 'e' },
		{ "local", no_argument, NULL, 'L' },
		{ "launches", required_argument, NULL, 'N' },
		{ "set", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t loops = 1000000000ull, ahead = 0;
	uint32_t blocks = 1, threads = 32, timeout_us = 0, hold = 0, stored, launches = 1;
	uint64_t submitted = 0;
	bool join = false, no_wait = false, expect_submit = false, local = false;
	const char *sets[16];
	int nsets = 0;
	int expect = 0, opt, ret;
	struct vgpu_device *dev;
	struct vgpu_program *prog;
	struct vgpu_bo *out;
	struct vgpu_params params;
	struct vgpu_launch l = { 0 };
	struct vgpu_job job;
	struct vgpu_job_result res;
	char err[256];

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': loops = strtoull(optarg, NULL, 0); break;
		case 'b': blocks = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': threads = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'u': timeout_us = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'a': ahead = strtoull(optarg, NULL, 0); break;
		case 'j': join = true; break;
		case 'n': no_wait = true; break;
		case 's': hold = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'e':
			expect_submit = !strncmp(optarg, "SUBMIT:", 7);
			expect = errno_by_name(optarg + (expect_submit ? 7 : 0));
			if (expect < 0) {
				fprintf(stderr, "vgpu_hog: unknown error name '%s'\n", optarg);
				return 2;
			}
			break;
		case 'L': local = true; break;
		case 'N': launches = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'S':
			if (nsets == 16) {
				fprintf(stderr, "vgpu_hog: at most 16 --set\n");
				return 2;
			}
			sets[nsets++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!blocks || !threads || !launches || launches > 64) {
		usage(stderr);
		return 2;
	}
	/* the first threads' results only: a grid of 2^32-1 blocks fits no buffer */
	stored = (uint64_t)blocks * threads < 65536 ? blocks * threads : 65536;
	if (local) {
		struct vgpu_sim_config cfg;

		vgpu_sim_preset("fermi-gtx480", &cfg);
		ret = vgpu_device_open_local(&cfg, &dev);
	} else {
		ret = vgpu_device_open(NULL, &dev);
	}
	if (ret) {
		fprintf(stderr, "vgpu_hog: no vgpu device: %s\n", strerror(-ret));
		return 1;
	}
	for (int i = 0; i < nsets; i++) {
		char key[64];
		const char *eq = strchr(sets[i], '=');

		if (!local || !eq || (size_t)(eq - sets[i]) >= sizeof(key)) {
			fprintf(stderr, "vgpu_hog: --set KEY=VALUE needs --local\n");
			return 2;
		}
		memcpy(key, sets[i], (size_t)(eq - sets[i]));
		key[eq - sets[i]] = 0;
		ret = vgpu_local_attr_store(dev, key, eq + 1);
		if (ret) {
			fprintf(stderr, "vgpu_hog: %s: %s\n", sets[i], strerror(-ret));
			return 2;
		}
	}
	ret = vgpu_program_create_ptx(dev, spin_ptx, sizeof(spin_ptx) - 1, &prog, err,
				      sizeof(err));
	if (!ret)
		ret = vgpu_program_find_entry(prog, "spin", &l.entry);
	if (!ret)
		ret = vgpu_bo_create(dev, (uint64_t)stored * 4, &out);
	if (ret) {
		fprintf(stderr, "vgpu_hog: setting up: %s %s\n", strerror(-ret), err);
		return 1;
	}
	vgpu_params_init(&params);
	vgpu_params_u64(&params, loops);
	vgpu_params_ptr(&params, out);
	vgpu_params_u32(&params, stored);
	l.grid[0] = blocks;
	l.grid[1] = l.grid[2] = 1;
	l.block[0] = threads;
	l.block[1] = l.block[2] = 1;
	l.params = &params;
	l.bos = &out;
	l.num_bos = 1;
	l.timeout_us = timeout_us;
	if (ahead) {
		uint64_t now = 0;

		vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &now);
		l.not_before = true;
		l.not_before_cycle = now + ahead;
	}
	if (join && (ret = vgpu_clock_sync(dev, true, 1))) {
		fprintf(stderr, "vgpu_hog: joining the clock: %s\n", strerror(-ret));
		return 1;
	}
	vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &submitted);
	for (uint32_t i = 1; i < launches; i++) {
		struct vgpu_job other;

		ret = vgpu_submit(dev, prog, &l, &other);
		if (ret) {
			fprintf(stderr, "vgpu_hog: submit %u: %s\n", i, strerror(-ret));
			return 1;
		}
	}
	ret = vgpu_submit(dev, prog, &l, &job);
	if (expect_submit) {
		printf("hog: submit: %s\n", ret ? strerror(-ret) : "ok");
		return -ret == expect ? 0 : 1;
	}
	if (ret) {
		fprintf(stderr, "vgpu_hog: submit: %s\n", strerror(-ret));
		return 1;
	}
	printf("hog: job %" PRIu64 " submitted at cycle %" PRIu64 " (%u x %u threads, %"
	       PRIu64 " loops)\n", job.id, submitted, blocks, threads, loops);
	fflush(stdout);
	if (no_wait) {
		sleep(hold);
		return 0;
	}
	ret = vgpu_job_wait(&job, -1, &res);
	if (ret) {
		/* an unplugged device fails the calls after the wait too */
		printf("hog: job %" PRIu64 ": wait: %s\n", job.id, strerror(-ret));
		return -ret == expect ? 0 : 1;
	}
	printf("hog: job %" PRIu64 " ended: %s, %" PRIu64 " blocks done, cycles %" PRIu64
	       "..%" PRIu64 "\n", job.id, res.error ? strerror(-res.error) : "ok",
	       res.tbs_done, res.start_cycle, res.end_cycle);
	if (!res.error) {
		const uint32_t *o = out->map;

		for (uint32_t i = 0; i < stored; i++) {
			if (o[i] != spin_ref(i, loops)) {
				printf("hog: thread %u: %#x, the CPU says %#x\n", i, o[i],
				       spin_ref(i, loops));
				return 1;
			}
		}
	}
	return -res.error == expect ? 0 : 1;
}
