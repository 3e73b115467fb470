/* SPDX-License-Identifier: MIT */
/*
 * chain.h - launch dependencies on any libvgpu device: a chain A -> B -> C
 * of spin kernels (spin_ptx.h), each launch waiting for the previous one's
 * syncobj (&vgpu_launch.wait_syncobjs) and naming no buffer list (each may
 * touch every buffer of its file). The guest's vgpu_chain runs it on the
 * render node, test_local and vgpu_chain --local on the local device;
 * tools/check requires the same lines from both.
 *
 * With @fail, A stores to device address 0, which no buffer covers: it
 * fails with -EFAULT, and B and C fail with -ECANCELED without running.
 *
 * The program joins the synchronised clock while it submits, so that the
 * three launches arrive at one cycle whatever the host's timing.
 */
#ifndef VGPU_TEST_CHAIN_H
#define VGPU_TEST_CHAIN_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "spin_ptx.h"
#include "vgpu.h"

#define CHAIN_LEN	3

/* Blocks and loops of each link: different shapes, so that each takes its time. */
static const uint32_t chain_grid[CHAIN_LEN] = { 24, 8, 16 };
static const uint64_t chain_loops[CHAIN_LEN] = { 40, 120, 20 };

/*
 * Runs the chain on @dev; each job's result in @res. Returns 0, or a
 * negative errno of a call (not of a job) with @why saying which.
 */
static int chain_run(struct vgpu_device *dev, bool fail, struct vgpu_job_result res[CHAIN_LEN],
		     const char **why)
{
	struct vgpu_job jobs[CHAIN_LEN] = { 0 };
	struct vgpu_params params[CHAIN_LEN];
	struct vgpu_program *prog = NULL;
	struct vgpu_bo *bo = NULL;
	char err[128];
	uint32_t entry;
	int ret, n = 0;

	*why = "compile spin";
	ret = vgpu_program_create_ptx(dev, spin_ptx, sizeof(spin_ptx) - 1, &prog, err,
				      sizeof(err));
	if (!ret) {
		*why = "spin entry";
		ret = vgpu_program_find_entry(prog, "spin", &entry);
	}
	if (!ret) {
		*why = "buffer";
		ret = vgpu_bo_create(dev, 4096, &bo);
	}
	if (!ret) {
		*why = "join the clock";
		ret = vgpu_clock_sync(dev, true, 0);
	}
	for (; !ret && n < CHAIN_LEN; n++) {
		struct vgpu_launch l = {
			.entry = entry,
			.grid = { chain_grid[n], 1, 1 },
			.block = { 32, 1, 1 },
			.params = &params[n],
			.wait_syncobjs = n ? &jobs[n - 1].syncobj : NULL,
			.num_wait_syncobjs = n ? 1 : 0,
		};

		vgpu_params_init(&params[n]);
		vgpu_params_u64(&params[n], chain_loops[n]);
		if (fail && n == 0)
			vgpu_params_u64(&params[n], 0);	/* no buffer there */
		else
			vgpu_params_ptr(&params[n], bo);
		vgpu_params_u32(&params[n], 32);
		*why = "submit";
		ret = vgpu_submit(dev, prog, &l, &jobs[n]);
	}
	/* The last first: the others have ended by then. */
	for (int i = n - 1; i >= 0; i--) {
		int r = vgpu_job_wait(&jobs[i], -1, &res[i]);

		if (r && !ret) {
			*why = "wait";
			ret = r;
		}
	}
	vgpu_clock_sync(dev, false, 0);
	vgpu_bo_destroy(bo);
	vgpu_program_destroy(prog);
	return ret;
}

/*
 * One line per job, its cycles from A's start: "NAME error E start +S end +E
 * warp_insts W tbs T" ("start none" for a job that never ran).
 */
static int chain_print(char *buf, size_t len, const char *name,
		       const struct vgpu_job_result res[CHAIN_LEN])
{
	size_t n = 0;

	for (int i = 0; i < CHAIN_LEN && n < len; i++) {
		char start[32];

		if (res[i].start_cycle || res[i].warp_insts || res[i].tbs_done)
			snprintf(start, sizeof(start), "+%" PRIu64,
				 res[i].start_cycle - res[0].start_cycle);
		else
			snprintf(start, sizeof(start), "none");
		n += (size_t)snprintf(buf + n, len - n,
				      "%s %c: error %d start %s end +%" PRIu64 " warp_insts %" PRIu64
				      " tbs %" PRIu64 "\n", name, 'A' + i, res[i].error, start,
				      res[i].end_cycle - res[0].start_cycle, res[i].warp_insts,
				      res[i].tbs_done);
	}
	return n < len ? 0 : -ENOSPC;
}

/* What must hold on every device; NULL, or what does not. */
static const char *chain_check(bool fail, const struct vgpu_job_result res[CHAIN_LEN])
{
	if (!fail) {
		for (int i = 0; i < CHAIN_LEN; i++)
			if (res[i].error || res[i].tbs_done != chain_grid[i])
				return "a job of the chain failed";
		if (res[1].start_cycle != res[0].end_cycle)
			return "B did not start at the cycle A ended";
		if (res[2].start_cycle != res[1].end_cycle)
			return "C did not start at the cycle B ended";
		return NULL;
	}
	if (res[0].error != -EFAULT)
		return "A did not fail with -EFAULT";
	for (int i = 1; i < CHAIN_LEN; i++) {
		if (res[i].error != -ECANCELED)
			return "a job after the failure did not fail with -ECANCELED";
		if (res[i].start_cycle || res[i].tbs_done || res[i].warp_insts)
			return "a job after the failure ran";
		if (res[i].end_cycle != res[0].end_cycle)
			return "a job after the failure did not end when A did";
	}
	return NULL;
}

#endif /* VGPU_TEST_CHAIN_H */
