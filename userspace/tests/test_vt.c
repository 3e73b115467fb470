// SPDX-License-Identifier: MIT
/*
 * test_vt.c - host tests of Virtual Thread in the model (Yoon et al.;
 * userspace/sim/sim.c, Documentation/model.rst "Virtual Thread") on a
 * hand-built case: one SM whose scheduling limit is one block, two blocks
 * of one warp that each load a word, add one and store it. The test plays
 * the command processor: it dispatches both blocks (the second beyond the
 * scheduling limit) and steps the model a cycle at a time, checking which
 * block is active, when the swapped-in block issues (Eq. 2) and when the
 * swapped-out one is ready again; then the modes' checks, a barrier that
 * keeps a block active, MAX, and preemption of an inactive block.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_program.h>

#include "compiler/vgpu_compile.h"
#include "sim/sim_int.h"
#include "tap.h"

/* out[gid] = in[gid] + 1: one long-latency load per warp */
static const char inc_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry inc(.param .u64 in, .param .u64 out)\n{\n"
	"	.reg .b32 %r<8>;\n	.reg .b64 %rd<8>;\n"
	"	ld.param.u64 %rd1, [in];\n	ld.param.u64 %rd2, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mad.lo.s32 %r4, %r2, %r3, %r1;\n"
	"	mul.wide.u32 %rd3, %r4, 4;\n	add.s64 %rd4, %rd1, %rd3;\n"
	"	add.s64 %rd5, %rd2, %rd3;\n"
	"	ld.global.u32 %r5, [%rd4];\n	add.s32 %r6, %r5, 1;\n"
	"	st.global.u32 [%rd5], %r6;\n"
	"	ret;\n}\n";

/*
 * The same with two warps: the first loads both warps' words into shared
 * memory while the second waits at the barrier, so the block never waits
 * only for memory (after the barrier nothing waits for memory).
 */
static const char incbar_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry incbar(.param .u64 in, .param .u64 out)\n{\n"
	"	.reg .b32 %r<16>;\n	.reg .b64 %rd<8>;\n	.reg .pred %p<2>;\n"
	"	.shared .align 4 .b8 buf[256];\n"
	"	ld.param.u64 %rd1, [in];\n	ld.param.u64 %rd2, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mad.lo.s32 %r4, %r2, %r3, %r1;\n"
	"	mul.wide.u32 %rd3, %r4, 4;\n	add.s64 %rd4, %rd1, %rd3;\n"
	"	add.s64 %rd5, %rd2, %rd3;\n"
	"	mov.u32 %r10, buf;\n	shl.b32 %r11, %r1, 2;\n	add.s32 %r12, %r10, %r11;\n"
	"	setp.ge.u32 %p1, %r1, 32;\n"
	"	@%p1 bra LATE;\n"
	"	ld.global.u32 %r5, [%rd4];\n	add.s32 %r6, %r5, 1;\n"
	"	st.shared.u32 [%r12], %r6;\n"
	"	ld.global.u32 %r7, [%rd4+128];\n	add.s32 %r8, %r7, 1;\n"
	"	st.shared.u32 [%r12+128], %r8;\n"
	"LATE:\n"
	"	bar.sync 0;\n"
	"	ld.shared.u32 %r9, [%r12];\n"
	"	st.global.u32 [%rd5], %r9;\n"
	"	ret;\n}\n";

/*
 * out[gid] = in[32 * gid] + 1: each lane's word on a line of its own, so a
 * warp's load is 32 L1D transactions (with two MSHRs, 30 reservation
 * failures: Virtual Thread's load queue, Sec. IV-D)
 */
static const char spread_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry spread(.param .u64 in, .param .u64 out)\n{\n"
	"	.reg .b32 %r<8>;\n	.reg .b64 %rd<8>;\n"
	"	ld.param.u64 %rd1, [in];\n	ld.param.u64 %rd2, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mad.lo.s32 %r4, %r2, %r3, %r1;\n"
	"	mul.wide.u32 %rd3, %r4, 128;\n	add.s64 %rd4, %rd1, %rd3;\n"
	"	mul.wide.u32 %rd6, %r4, 4;\n	add.s64 %rd5, %rd2, %rd6;\n"
	"	ld.global.u32 %r5, [%rd4];\n	add.s32 %r6, %r5, 1;\n"
	"	st.global.u32 [%rd5], %r6;\n"
	"	ret;\n}\n";

#define VRAM	(8u << 20)
#define NBLK	2

/* vt_setup(): in[] words this far apart (spread_ptx: 32), L1D MSHRs (0: the preset's) */
static uint32_t in_stride = 1, cfg_mshrs;

struct vt_env {
	uint8_t *vram;
	uint64_t brk;
	struct vgpu_sim *sim;
	void *image;
	uint64_t prog, desc, in, out;
	uint32_t threads, regs_tb, shared_tb, job;
};

static uint64_t vt_alloc(struct vt_env *e, uint64_t size)
{
	uint64_t a = (e->brk + 255) & ~255ull;

	e->brk = a + size;
	return a;
}

/*
 * One SM, one block of scheduling limit, the job of @entry in @ptx with
 * NBLK blocks of @threads begun; in[] holds 1000 + i.
 */
static int vt_setup(struct vt_env *e, const char *ptx, const char *entry, uint32_t threads)
{
	struct vgpu_sim_config cfg;
	const struct vgpu_program_header *h;
	const struct vgpu_program_entry *pe;
	struct vgpu_mem_range rg[2];
	struct vgpu_job_desc d = { 0 };
	char err[256];
	size_t size;
	uint64_t params[2];

	memset(e, 0, sizeof(*e));
	e->vram = calloc(1, VRAM);
	e->brk = 4096;
	if (!e->vram || vgpu_sim_preset("fermi-gtx480", &cfg))
		return -1;
	cfg.desc.num_sms = 1;
	cfg.desc.max_tbs_per_sm = 1;
	if (cfg_mshrs)
		cfg.l1d_mshrs = cfg_mshrs;
	e->sim = vgpu_sim_create(&cfg, e->vram, VRAM);
	if (!e->sim || vgpu_compile_ptx(ptx, strlen(ptx), &e->image, &size, err, sizeof(err)))
		return -1;
	e->prog = vt_alloc(e, size);
	memcpy(e->vram + e->prog, e->image, size);
	h = e->image;
	pe = (const void *)((const uint8_t *)e->image + h->entries_offset);
	if (strcmp(pe->name, entry))
		return -1;
	e->threads = threads;
	e->regs_tb = threads * pe->regs_per_thread;
	e->shared_tb = pe->shared_static;
	e->in = vt_alloc(e, NBLK * threads * 4 * in_stride);
	e->out = vt_alloc(e, NBLK * threads * 4);
	for (uint32_t i = 0; i < NBLK * threads; i++) {
		uint32_t v = 1000 + i;

		memcpy(e->vram + e->in + i * 4 * in_stride, &v, 4);
	}
	rg[0] = (struct vgpu_mem_range){ e->in, NBLK * threads * 4 * in_stride };
	rg[1] = (struct vgpu_mem_range){ e->out, NBLK * threads * 4 };
	params[0] = e->in;
	params[1] = e->out;
	e->job = 1;
	d.abi_version = VGPU_BACKEND_ABI_VERSION;
	d.job = e->job;
	d.program_addr = e->prog;
	d.program_size = (uint32_t)size;
	d.grid[0] = NBLK;
	d.grid[1] = d.grid[2] = 1;
	d.block[0] = threads;
	d.block[1] = d.block[2] = 1;
	d.shared_bytes = e->shared_tb;
	d.ranges_offset = sizeof(d);
	d.num_ranges = 2;
	d.params_offset = sizeof(d) + sizeof(rg);
	d.params_size = sizeof(params);
	e->desc = vt_alloc(e, d.params_offset + sizeof(params));
	memcpy(e->vram + e->desc, &d, sizeof(d));
	memcpy(e->vram + e->desc + sizeof(d), rg, sizeof(rg));
	memcpy(e->vram + e->desc + d.params_offset, params, sizeof(params));
	return vgpu_sim_job_begin(e->sim, e->job, e->desc);
}

static void vt_fini(struct vt_env *e)
{
	vgpu_sim_destroy(e->sim);
	free(e->image);
	free(e->vram);
}

/* Block @tb into slot @slot, its ranges after those of the slots below. */
static int vt_dispatch(struct vt_env *e, uint32_t tb, uint32_t slot, uint64_t restore)
{
	struct vgpu_cmd c = {
		.op = VGPU_CMD_DISPATCH, .job = e->job, .tb = tb, .slot = slot,
		.reg_base = slot * e->regs_tb, .shared_base = slot * e->shared_tb,
		.flags = restore ? VGPU_DISPATCH_RESTORE : 0, .addr = restore,
	};

	return vgpu_sim_dispatch(e->sim, &c);
}

/* Steps until @n blocks are done; 0, or -1 on an error or a failed block. */
static int vt_finish(struct vt_env *e, uint32_t n)
{
	while (n) {
		struct vgpu_evt ev[8];
		int k = vgpu_sim_step(e->sim, UINT64_MAX, ev, 8);

		if (k <= 0)
			return -1;
		for (int i = 0; i < k; i++) {
			if (ev[i].type != VGPU_EVT_TB_DONE || ev[i].status)
				return -1;
			n--;
		}
	}
	return 0;
}

/* Whether out[] is in[] + 1 for every thread. */
static bool vt_outputs_ok(const struct vt_env *e)
{
	for (uint32_t i = 0; i < NBLK * e->threads; i++) {
		uint32_t v;

		memcpy(&v, e->vram + e->out + i * 4, 4);
		if (v != 1001 + i) {
			printf("#   out[%u] = %u\n", i, v);
			return false;
		}
	}
	return true;
}

/* The last cycle a register of @w is written by a result in flight. */
static uint64_t warp_drained(const struct warp *w)
{
	uint64_t d = w->pred_rdy;

	for (uint32_t r = 0; r <= w->tb->job->entry.regs_per_thread; r++)
		if (w->sb[r] >> 1 > d)
			d = w->sb[r] >> 1;
	return d;
}

static uint64_t run_cycles(const char *ptx, const char *entry, uint32_t threads, uint32_t mode,
			   uint64_t *swaps)
{
	struct vt_env e;
	uint64_t c = 0;

	if (!vt_setup(&e, ptx, entry, threads) && !vgpu_sim_set_virtual_thread(e.sim, mode) &&
	    !vt_dispatch(&e, 0, 0, 0)) {
		int r = mode ? vt_dispatch(&e, 1, 1, 0) : 0;

		if (!r && !vt_finish(&e, mode ? NBLK : 1) &&
		    (mode || (!vt_dispatch(&e, 1, 0, 0) && !vt_finish(&e, 1))) &&
		    vt_outputs_ok(&e))
			c = vgpu_sim_cycle(e.sim);
		*swaps = e.sim->sms[0].t.st.vt_swaps;
	}
	vt_fini(&e);
	return c;
}

/* The swap: which block is active, when the incoming issues, when the outgoing is ready. */
static int t_vt_swap(void)
{
	struct vt_env e;
	struct sm *sm;
	struct tb *b0, *b1;
	uint64_t t, ready0, swap = vgpu_vt_swap_cycles(1);
	int fails = 0;

	CHECK(vt_setup(&e, inc_ptx, "inc", 32) == 0, "setup");
	sm = &e.sim->sms[0];
	CHECK(vgpu_sim_set_virtual_thread(e.sim, VGPU_VT_COUNT) == -EINVAL,
	      "an unknown mode is refused");
	CHECK(vt_dispatch(&e, 1, 1, 0) == -EINVAL,
	      "without Virtual Thread a slot beyond the scheduling limit is refused");
	CHECK(vgpu_sim_set_virtual_thread(e.sim, VGPU_VT_ON) == 0, "on while idle");
	CHECK(vt_dispatch(&e, 0, 0, 0) == 0 && vt_dispatch(&e, 1, 1, 0) == 0,
	      "two blocks on an SM with a scheduling limit of one");
	CHECK(vgpu_sim_set_virtual_thread(e.sim, VGPU_VT_OFF) == -EBUSY,
	      "the mode does not change while blocks are resident");
	b0 = sm->slots[0];
	b1 = sm->slots[1];
	CHECK(b0 && b1 && !b0->inactive && b1->inactive && sm->ninact == 1,
	      "the block beyond the limit waits inactive");
	CHECK(b1 && sm->ws[0] == &b0->warps[0] && !sm->ws[1],
	      "an inactive block's warp holds no warp slot");
	while (!sm->t.st.vt_swaps && vgpu_sim_busy(e.sim)) {
		struct vgpu_evt ev[4];

		if (vgpu_sim_step(e.sim, vgpu_sim_cycle(e.sim) + 1, ev, 4) < 0)
			break;
	}
	t = vgpu_sim_cycle(e.sim);
	CHECK(sm->t.st.vt_swaps == 1, "block 0 swapped out (cycle %llu)", (unsigned long long)t);
	CHECK(b0->inactive && !b1->inactive && sm->ws[0] == &b1->warps[0],
	      "block 1 active in block 0's warp slot");
	CHECK(b0->warps[0].why == WHY_MEM && b0->warps[0].ready > t,
	      "block 0 waits for its load");
	CHECK(b1->warps[0].ready == t + swap,
	      "block 1 issues once its state is restored: %llu, expected %llu (Eq. 2: %llu cycles)",
	      (unsigned long long)b1->warps[0].ready, (unsigned long long)(t + swap),
	      (unsigned long long)swap);
	ready0 = warp_drained(&b0->warps[0]);
	if (ready0 < t + 2 * swap)
		ready0 = t + 2 * swap;
	CHECK(b0->vt_ready == ready0,
	      "block 0 is ready once its load is in and its state saved: %llu, expected %llu",
	      (unsigned long long)b0->vt_ready, (unsigned long long)ready0);
	CHECK(vt_finish(&e, NBLK) == 0 && vt_outputs_ok(&e), "both blocks compute in[] + 1");
	CHECK(sm->ninact == 0 && sm->ntbs == 0, "nothing left on the SM");
	vt_fini(&e);
	return fails;
}

static int t_vt_modes(void)
{
	uint64_t off, on, max, s_off, s_on, s_max, s_bar;
	int fails = 0;

	off = run_cycles(inc_ptx, "inc", 32, VGPU_VT_OFF, &s_off);
	on = run_cycles(inc_ptx, "inc", 32, VGPU_VT_ON, &s_on);
	max = run_cycles(inc_ptx, "inc", 32, VGPU_VT_MAX, &s_max);
	CHECK(off && on && max, "every mode computes in[] + 1");
	CHECK(s_off == 0 && s_max == 0 && s_on >= 1, "only on swaps (%llu swaps)",
	      (unsigned long long)s_on);
	CHECK(on < off, "on hides block 0's load behind block 1: %llu < %llu cycles",
	      (unsigned long long)on, (unsigned long long)off);
	CHECK(max <= on, "MAX, both blocks active at once, is no slower: %llu <= %llu",
	      (unsigned long long)max, (unsigned long long)on);
	CHECK(run_cycles(incbar_ptx, "incbar", 64, VGPU_VT_ON, &s_bar) && s_bar == 0,
	      "a warp at a barrier keeps its block active (%llu swaps)",
	      (unsigned long long)s_bar);
	return fails;
}

/* Preemption of an inactive block: a switch saves it, a restore brings it back. */
static int t_vt_preempt(void)
{
	struct vt_env e;
	struct vgpu_evt ev[4];
	uint64_t save;
	int fails = 0, n = 0;
	struct vgpu_cmd c = {
		.op = VGPU_CMD_PREEMPT, .flags = VGPU_PREEMPT_SWITCH, .tb = 1, .slot = 1,
	};

	CHECK(vt_setup(&e, inc_ptx, "inc", 32) == 0, "setup");
	save = vt_alloc(&e, vgpu_ctx_bytes(32, 64, 0, 0) + 65536);
	c.job = e.job;
	c.addr = save;
	CHECK(vgpu_sim_set_virtual_thread(e.sim, VGPU_VT_ON) == 0 &&
	      vt_dispatch(&e, 0, 0, 0) == 0 && vt_dispatch(&e, 1, 1, 0) == 0, "dispatch");
	CHECK(e.sim->sms[0].slots[1]->inactive, "block 1 inactive");
	CHECK(vgpu_sim_preempt(e.sim, &c) == 0, "switch of the inactive block");
	while (n <= 0 && vgpu_sim_busy(e.sim))
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 1);
	CHECK(n == 1 && ev[0].type == VGPU_EVT_PREEMPTED && !ev[0].status && ev[0].slot == 1,
	      "its context is saved and the slot freed");
	CHECK(e.sim->sms[0].ninact == 0, "no inactive block left");
	CHECK(vt_dispatch(&e, 1, 1, save) == 0, "restored");
	CHECK(vt_finish(&e, NBLK) == 0 && vt_outputs_ok(&e), "both blocks compute in[] + 1");
	vt_fini(&e);
	return fails;
}

/* Queued transactions of @tb on @sm. */
static uint32_t lq_of(const struct sm *sm, const struct tb *tb)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sm->nlq; i++)
		n += sm->lq[i].w->tb == tb;
	return n;
}

/*
 * Sec. IV-D's two load queues: block 0's load meets 30 reservation
 * failures and queues them; block 0 waits for memory and swaps out, its
 * entries moving to the inactive queue; block 1's later load queues 30
 * of its own in the active queue, and the L1D takes all of those before
 * any of block 0's older ones. Without Virtual Thread nothing queues: the
 * LD/ST unit stalls until an MSHR frees, as before.
 */
static int t_vt_queue(void)
{
	struct vt_env e;
	struct sm *sm;
	struct tb *b0, *b1;
	uint32_t n0 = 0, n1 = 0, both = 0, early = 0, max0 = 0;
	uint64_t off_busy = 0;
	int fails = 0;

	in_stride = 32;
	cfg_mshrs = 2;
	CHECK(vt_setup(&e, spread_ptx, "spread", 32) == 0, "setup");
	sm = &e.sim->sms[0];
	CHECK(vgpu_sim_set_virtual_thread(e.sim, VGPU_VT_ON) == 0 &&
	      vt_dispatch(&e, 0, 0, 0) == 0 && vt_dispatch(&e, 1, 1, 0) == 0, "dispatch");
	b0 = sm->slots[0];
	b1 = sm->slots[1];
	while (sm->ntbs == NBLK && vgpu_sim_busy(e.sim)) {
		struct vgpu_evt ev[4];
		uint32_t m0, m1;

		if (vgpu_sim_step(e.sim, vgpu_sim_cycle(e.sim) + 1, ev, 4) != 0)
			break;
		m0 = lq_of(sm, b0);
		m1 = lq_of(sm, b1);
		if (m0 > max0)
			max0 = m0;
		/* one of block 0's entries went while block 1 still had some */
		early += m0 < n0 && n1 && b0->inactive;
		both += m0 && m1 && b0->inactive && !b1->inactive;
		n0 = m0;
		n1 = m1;
	}
	CHECK(max0 == VT_LQ_SIZE, "block 0's load queued %u transactions, expected %u", max0,
	      VT_LQ_SIZE);
	CHECK(both > 0,
	      "block 0's entries waited in the inactive queue beside block 1's (%u cycles)", both);
	CHECK(early == 0, "no entry of swapped-out block 0 went before block 1's (%u did)", early);
	CHECK(vt_finish(&e, sm->ntbs) == 0 && vt_outputs_ok(&e), "both blocks compute in[32i] + 1");
	CHECK(sm->t.st.vt_swaps >= 1 && sm->t.st.vt_lq_queued >= 2 * VT_LQ_SIZE &&
	      sm->t.st.vt_lq_inactive == VT_LQ_SIZE,
	      "counters: %llu swaps, %llu queued, %llu from the inactive queue",
	      (unsigned long long)sm->t.st.vt_swaps, (unsigned long long)sm->t.st.vt_lq_queued,
	      (unsigned long long)sm->t.st.vt_lq_inactive);
	CHECK(sm->nlq == 0, "nothing left in the queues");
	vt_fini(&e);
	both = 0;

	CHECK(vt_setup(&e, spread_ptx, "spread", 32) == 0, "setup (off)");
	sm = &e.sim->sms[0];
	CHECK(vt_dispatch(&e, 0, 0, 0) == 0, "off: dispatch");
	while (vgpu_sim_busy(e.sim)) {
		struct vgpu_evt ev[4];
		uint64_t now;

		if (vgpu_sim_step(e.sim, vgpu_sim_cycle(e.sim) + 1, ev, 4) != 0)
			break;
		now = vgpu_sim_cycle(e.sim);
		if (sm->t.ldst_free > now && sm->t.ldst_free - now > off_busy)
			off_busy = sm->t.ldst_free - now;
		both += sm->nlq != 0;
	}
	CHECK(sm->ntbs == 0 && both == 0 && sm->t.st.vt_lq_queued == 0 &&
	      sm->t.st.mshr_fails >= VT_LQ_SIZE,
	      "off: nothing queues (%llu reservation failures)",
	      (unsigned long long)sm->t.st.mshr_fails);
	CHECK(off_busy > e.sim->cfg.l2_latency,
	      "off: the LD/ST unit stalls for the MSHRs (busy %llu cycles ahead)",
	      (unsigned long long)off_busy);
	vt_fini(&e);
	in_stride = 1;
	cfg_mshrs = 0;
	return fails;
}

int main(void)
{
	report("Virtual Thread swaps a block waiting for memory (Eq. 2 timing)", t_vt_swap());
	report("Virtual Thread modes: off, on, max; a barrier wait is no memory stall",
	       t_vt_modes());
	report("Virtual Thread: preemption of an inactive block", t_vt_preempt());
	report("Virtual Thread: loads of a swapped-out block wait behind active ones (Sec. IV-D)",
	       t_vt_queue());
	return test_summary();
}
