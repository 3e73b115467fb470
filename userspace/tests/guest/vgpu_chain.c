// SPDX-License-Identifier: MIT
/*
 * vgpu_chain - launch dependencies end to end (userspace/tests/chain.h): a
 * chain A -> B -> C that succeeds, then one whose first link faults, on the
 * render node, or with --local on libvgpu's local device (fermi-gtx480, as
 * vgpud's default). Prints one line per job with its cycles counted from
 * the chain's start, which must be the same on both (tools/check), then
 * "ok - ..." or "not ok - ..." per chain; exits non-zero on a failure.
 */
#include <stdio.h>
#include <string.h>

#include "../chain.h"
#include "vgpu.h"
#include "vgpu_sim.h"

int main(int argc, char **argv)
{
	struct vgpu_sim_config cfg;
	struct vgpu_device *dev;
	bool local = argc > 1 && !strcmp(argv[1], "--local");
	int failed = 0, ret;

	if (argc > 2 || (argc == 2 && !local)) {
		fprintf(stderr, "usage: %s [--local]\n", argv[0]);
		return 2;
	}
	if (local)
		ret = vgpu_sim_preset("fermi-gtx480", &cfg) ? -EINVAL :
		      vgpu_device_open_local(&cfg, &dev);
	else
		ret = vgpu_device_open(NULL, &dev);
	if (ret) {
		printf("not ok - open the device: %s\n", strerror(-ret));
		return 1;
	}
	for (int fail = 0; fail < 2; fail++) {
		struct vgpu_job_result res[CHAIN_LEN] = { 0 };
		const char *name = fail ? "failing" : "chain";
		const char *why;
		char out[1024];

		ret = chain_run(dev, fail, res, &why);
		if (ret) {
			printf("not ok - %s: %s: %s\n", name, why, strerror(-ret));
			failed++;
			continue;
		}
		chain_print(out, sizeof(out), name, res);
		fputs(out, stdout);
		why = chain_check(fail, res);
		printf("%s - %s: %s\n", why ? "not ok" : "ok", name,
		       why ? why : fail ? "A faults, B and C fail with ECANCELED unrun"
				   : "B starts at A's end, C at B's");
		failed += why != NULL;
	}
	vgpu_device_close(dev);
	return failed ? 1 : 0;
}
