// SPDX-License-Identifier: MIT
/*
 * test_smst.c - host tests of vgpu_smst_occupancy_limit() (the driver's
 * vgpu_smst.c through kcompat): which of the scheduling limits (block
 * slots, threads) and capacity limits (registers, shared memory) bounds
 * a block kind on an empty SM (Yoon et al. §II), and that a tie goes to
 * the capacity limit, where Virtual Thread could add no block.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/kconfig.h>	/* IS_ENABLED() in the driver's headers */
#include <linux/types.h>

#include "../../drivers/gpu/drm/vgpu/vgpu_smst.h"
#include "tap.h"

/* The paper's Fermi-like SM (Table I): 8 blocks, 1,536 threads, 32 K registers, 48 KB. */
static const struct vgpu_device_desc fermi = {
	.num_sms = 15, .warp_size = 32, .max_threads_per_sm = 1536, .max_tbs_per_sm = 8,
	.regs_per_sm = 32768, .shared_per_sm = 48 * 1024, .max_threads_per_tb = 1024,
	.max_regs_per_thread = 63, .max_shared_per_tb = 48 * 1024, .reg_alloc_unit = 2,
	.shared_alloc_unit = 128,
};

static const char *const names[] = { "tbs", "threads", "regs", "shared" };

/* A block of @threads threads, @regs registers each and @shared bytes. */
static int expect(struct vgpu_smst *st, u32 threads, u32 regs, u32 shared, u32 n,
		  enum vgpu_occ_limit want)
{
	enum vgpu_occ_limit got = VGPU_OCC_COUNT;
	struct vgpu_tb_res res;
	u32 k;

	CHECK(vgpu_tb_res_compute(&fermi, threads, regs, shared, &res) == 0, "res");
	k = vgpu_smst_occupancy_limit(st, &res, &got);
	CHECK(k == n && got == want, "%u threads, %u regs, %u bytes: %u by %s, want %u by %s",
	      threads, regs, shared, k, got < VGPU_OCC_COUNT ? names[got] : "?", n, names[want]);
	CHECK(vgpu_smst_occupancy(st, &res) == k, "vgpu_smst_occupancy() agrees");
	return 0;
}

static int t_limits(void)
{
	struct vgpu_smst st;

	CHECK(vgpu_smst_init(&st, &fermi) == 0, "init");
	/* scheduling limits */
	CHECK(expect(&st, 256, 16, 0, 6, VGPU_OCC_THREADS) == 0, "threads");
	CHECK(expect(&st, 64, 8, 0, 8, VGPU_OCC_TBS) == 0, "block slots");
	/* capacity limits */
	CHECK(expect(&st, 256, 32, 0, 4, VGPU_OCC_REGS) == 0, "registers");
	CHECK(expect(&st, 128, 8, 16 * 1024, 3, VGPU_OCC_SHARED) == 0, "shared memory");
	/* ties: 6 by threads and by 20 registers, 8 by slots and by 6 KB */
	CHECK(expect(&st, 256, 20, 0, 6, VGPU_OCC_REGS) == 0, "threads = registers");
	CHECK(expect(&st, 64, 8, 6 * 1024, 8, VGPU_OCC_SHARED) == 0, "slots = shared");
	CHECK(expect(&st, 256, 20, 8 * 1024, 6, VGPU_OCC_REGS) == 0, "registers = shared");
	vgpu_smst_fini(&st);
	return 0;
}

/*
 * Under Virtual Thread (on) a block's shared memory also holds its context
 * region (Yoon et al. Sec. IV-B), so fewer fit; a block that fills the
 * SM's shared memory alone takes no region, so it still fits once (with
 * one it would never be placed and its job would wait for good).
 */
static int t_vt_context_region(void)
{
	struct vgpu_smst st;

	CHECK(vgpu_smst_init(&st, &fermi) == 0, "init");
	CHECK(vgpu_smst_set_vt(&st, VGPU_VT_ON) == 0, "virtual_thread on");
	/* 128 threads: 384 bytes of region; 3 x (16 K + 384) > 48 K */
	CHECK(expect(&st, 128, 8, 16 * 1024, 2, VGPU_OCC_SHARED) == 0, "16 KB with its region");
	CHECK(expect(&st, 128, 8, 48 * 1024, 1, VGPU_OCC_SHARED) == 0, "48 KB, no room for one");
	CHECK(expect(&st, 32, 8, 48 * 1024 - 128, 1, VGPU_OCC_SHARED) == 0,
	      "48 KB less one unit, no room for one");
	CHECK(vgpu_smst_set_vt(&st, VGPU_VT_MAX) == 0, "virtual_thread max");
	CHECK(expect(&st, 128, 8, 16 * 1024, 3, VGPU_OCC_SHARED) == 0, "max: no region");
	vgpu_smst_fini(&st);
	return 0;
}

int main(void)
{
	report("vgpu_smst_occupancy_limit(): the binding limit, a tie to the capacity limit",
	       t_limits());
	report("virtual_thread on: a block's context region counts unless it leaves no room"
	       " for the block itself", t_vt_context_region());
	return test_summary();
}
