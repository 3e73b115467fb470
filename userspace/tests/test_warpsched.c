// SPDX-License-Identifier: MIT
/*
 * test_warpsched.c - host tests of the warp schedulers from the papers
 * (userspace/sim/sched.c) on hand-built warp states: ELF's priorities from
 * program points and its pick order, RBA's scores from known register bank
 * queues and its pick order, the sub-core assignments (round robin, skewed
 * round robin, Shuffle) for given warp counts, ELF's program points as the
 * model reads them from a compiled image, and the progress-aware order of
 * virtual thread blocks (sched_progress.c), a fully connected SM's one
 * warp pool and shared banks, the reservation calendars of the L2 tag
 * port and the DRAM channel, and the stall on busy collector units.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/vgpu_program.h>

#include "compiler/vgpu_compile.h"
#include "sim/sim_int.h"
#include "tap.h"

/* ------------------------------------------------------------------ */
/* a hand-built SM: nws warp slots, ns schedulers, one block of one job */

#define NWS	8
#define NS	2
#define NB	2	/* register banks per scheduler */

struct hsm {
	struct vgpu_sim s;
	struct sm sm;
	struct job job;
	struct tb *tb;
	struct wsum sum[NWS];
	struct warp *ws[NWS];
	uint32_t ord[NWS], nord[NS];
	uint64_t fu_free[(NS + 1) * FU_N], bank_free[NS * (NB + 1)];
	struct itime tim[NWS];
	struct dinst code[NWS];
};

/*
 * Warp slot i (all of them, scheduler i % NS) is at instruction i, which
 * reads the registers @src[i][0..1] (255: none); the age order of each
 * scheduler is slot order. Every warp can issue at cycle 100.
 */
static void hsm_init(struct hsm *h, uint32_t policy, const uint8_t src[NWS][2])
{
	memset(h, 0, sizeof(*h));
	h->s.cfg.schedulers_per_sm = NS;
	h->s.cfg.reg_banks = NB;
	h->s.cfg.collectors = 2;
	h->s.cfg.scheduler = policy;
	h->s.sched = sched_get(policy);
	h->job.code = h->code;
	h->job.tim = h->tim;
	h->job.ncode = NWS;
	h->tb = calloc(1, sizeof(*h->tb) + sizeof(struct warp) * NWS);
	h->tb->job = &h->job;
	h->tb->nwarps = NWS;
	h->sm.nws = NWS;
	h->sm.nsched = NS;
	h->sm.npool = NS;
	h->sm.sum = h->sum;
	h->sm.ws = h->ws;
	h->sm.ord = h->ord;
	h->sm.nord = h->nord;
	h->sm.ordcap = NWS / NS;
	h->sm.t.fu_free = h->fu_free;
	h->sm.t.bank_free = h->bank_free;
	for (uint32_t i = 0; i < NWS; i++) {
		struct warp *w = &h->tb->warps[i];
		uint32_t k = i % NS;

		w->tb = h->tb;
		w->slot = i;
		w->sp = 1;
		w->stack[0].pc = i;
		w->state = W_RUN;
		h->ws[i] = w;
		h->sum[i] = (struct wsum){ .ready = 100, .fu = FU_SP, .run = 1 };
		h->ord[k * h->sm.ordcap + h->nord[k]++] = i;
		for (int r = 0; src && r < 2; r++)
			if (src[i][r] != 255)
				h->tim[i].src[h->tim[i].nsrc++] = src[i][r];
	}
}

static void hsm_fini(struct hsm *h)
{
	free(h->tb);
}

/* The slots scheduler @k picks at @now, one after another, each taken away. */
static int pick_order(struct hsm *h, uint32_t k, uint64_t now, uint32_t *out)
{
	int n = 0;
	struct warp *w;

	while ((w = h->s.sched->pick(&h->s, &h->sm, k, now))) {
		out[n++] = w->slot;
		h->sum[w->slot].ready = UINT64_MAX;
	}
	return n;
}

/* ------------------------------------------------------------------ */

/* Priorities from program points: loads, branches, a merged load. */
static int t_elf_prio(void)
{
	static const struct elf_pt pt[] = {
		{ .idx = 5 },				/* a load */
		{ .idx = 10, .score = 7, .branch = true },	/* 7 to the next load after it */
		{ .idx = 20, .score = 4 },		/* a load, a point 4 before merged */
		{ .idx = 30, .score = 250, .branch = true },
	};
	static const struct { uint32_t pc; uint8_t want; } c[] = {
		{ 0, 5 }, { 4, 1 }, { 5, 0 }, { 6, 11 }, { 10, 7 }, { 11, 5 }, { 15, 1 },
		{ 16, 4 }, { 18, 2 }, { 20, 0 }, { 21, 255 }, { 28, 252 }, { 31, 255 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t got = job_elf_prio(pt, 4, c[i].pc);

		CHECK(got == c[i].want, "pc %u: priority %u, want %u", c[i].pc, got, c[i].want);
	}
	CHECK(job_elf_prio(pt, 0, 3) == VGPU_ELF_MAX_SCORE, "no points: the maximum");
	return 0;
}

/* ELF picks the lowest priority value, the oldest of equals, issuable only. */
static int t_elf_pick(void)
{
	static const uint8_t prio[NWS] = { 9, 3, 3, 7, 0, 3, 3, 1 };
	uint32_t got[NWS];
	struct hsm h;
	int n;

	hsm_init(&h, VGPU_SCHED_ELF, NULL);
	for (uint32_t i = 0; i < NWS; i++)
		h.sum[i].prio = prio[i];
	h.sum[4].ready = 101;	/* not issuable at 100 */
	/* scheduler 0: slots 0 2 4 6 with 9 3 (0, not ready) 3 */
	n = pick_order(&h, 0, 100, got);
	CHECK(n == 3 && got[0] == 2 && got[1] == 6 && got[2] == 0,
	      "scheduler 0 picked %d: %u %u %u", n, got[0], got[1], got[2]);
	/* scheduler 1: slots 1 3 5 7 with 3 7 3 1 */
	n = pick_order(&h, 1, 100, got);
	CHECK(n == 4 && got[0] == 7 && got[1] == 1 && got[2] == 5 && got[3] == 3,
	      "scheduler 1 picked %d: %u %u %u %u", n, got[0], got[1], got[2], got[3]);
	/* the not-ready warp at its cycle */
	n = pick_order(&h, 0, 101, got);
	CHECK(n == 1 && got[0] == 4, "at 101: %d, slot %u", n, got[0]);
	hsm_fini(&h);
	return 0;
}

/*
 * RBA: bank (reg + slot) % 2 of the scheduler's sub-core; the queue of a
 * bank is its busy time past now. Scheduler 0 (slots 0 2 4 6): bank 0 has
 * 3 reads queued, bank 1 none.
 */
static int t_rba(void)
{
	static const uint8_t src[NWS][2] = {
		{ 0, 2 },	/* slot 0: r0, r2 -> banks 0, 0: 6 */
		{ 1, 255 },	/* slot 1: r1 -> bank (1 + 1) % 2 = 0 of scheduler 1 */
		{ 1, 255 },	/* slot 2: r1 -> bank 1: 0 */
		{ 255, 255 },
		{ 0, 1 },	/* slot 4: banks 0, 1: 3 */
		{ 0, 255 },
		{ 3, 255 },	/* slot 6: bank 1: 0 */
		{ 0, 255 },
	};
	uint32_t got[NWS];
	struct hsm h;
	int n;

	hsm_init(&h, VGPU_SCHED_RBA, src);
	h.bank_free[0 * (NB + 1) + 0] = 103;
	h.bank_free[0 * (NB + 1) + 1] = 90;	/* free: no queue */
	h.bank_free[1 * (NB + 1) + 0] = 105;	/* scheduler 1, bank 0: 5 */
	h.bank_free[1 * (NB + 1) + 1] = 101;	/* bank 1: 1 */
	CHECK(rba_score(&h.s, &h.sm, 0, 0, 100) == 6, "slot 0");
	CHECK(rba_score(&h.s, &h.sm, 0, 2, 100) == 0, "slot 2");
	CHECK(rba_score(&h.s, &h.sm, 0, 4, 100) == 3, "slot 4");
	CHECK(rba_score(&h.s, &h.sm, 0, 6, 100) == 0, "slot 6");
	/* slot 1: r1 -> (1 + 1) % 2 = 0: 5; slot 3: none; slot 5: (0 + 5) % 2 = 1: 1 */
	CHECK(rba_score(&h.s, &h.sm, 1, 1, 100) == 5, "slot 1");
	CHECK(rba_score(&h.s, &h.sm, 1, 3, 100) == 0, "slot 3");
	CHECK(rba_score(&h.s, &h.sm, 1, 5, 100) == 1, "slot 5");
	CHECK(rba_score(&h.s, &h.sm, 1, 7, 100) == 1, "slot 7: (0 + 7) %% 2 = 1");
	n = pick_order(&h, 0, 100, got);
	CHECK(n == 4 && got[0] == 2 && got[1] == 6 && got[2] == 4 && got[3] == 0,
	      "scheduler 0 picked %d: %u %u %u %u", n, got[0], got[1], got[2], got[3]);
	n = pick_order(&h, 1, 100, got);
	CHECK(n == 4 && got[0] == 3 && got[1] == 5 && got[2] == 7 && got[3] == 1,
	      "scheduler 1 picked %d: %u %u %u %u", n, got[0], got[1], got[2], got[3]);
	/* ideal banks: every score 0, the oldest first */
	h.s.cfg.reg_banks = 0;
	for (uint32_t i = 0; i < NWS; i++)
		h.sum[i].ready = 100;
	n = pick_order(&h, 0, 100, got);
	CHECK(n == 4 && got[0] == 0 && got[1] == 2 && got[2] == 4 && got[3] == 6,
	      "ideal banks: %u %u %u %u", got[0], got[1], got[2], got[3]);
	hsm_fini(&h);
	return 0;
}

/*
 * A fully connected SM (sub-core paper Sec. I, VI-B1), under RBA: warps
 * of scheduler 0's sub-core issue from scheduler 1 when scheduler 1's own
 * cannot, and the scores count the SM's 4 banks, (reg + slot) % 4. Scheduler 0's
 * slots (0 2 4 6) are ready at 100, scheduler 1's (1 3 5 7) at 200, and
 * scheduler 1's SP unit is busy until 150.
 */
static int t_fully_connected(void)
{
	static const uint8_t src[NWS][2] = {
		{ 0, 4 },	/* slot 0: banks 0, 0 of 4 (of scheduler 0's 2: 0, 0) */
		{ 255, 255 },
		{ 0, 1 },	/* slot 2: banks 2, 3 (of 2: 0, 1) */
		{ 255, 255 }, { 255, 255 }, { 255, 255 }, { 255, 255 }, { 255, 255 },
	};
	uint32_t got[NWS];
	struct hsm h;
	int n;

	hsm_init(&h, VGPU_SCHED_RBA, src);
	for (uint32_t i = 1; i < NWS; i += 2)
		h.sum[i].ready = 200;
	h.fu_free[1 * FU_N + FU_SP] = 150;
	n = pick_order(&h, 1, 100, got);
	CHECK(n == 0, "sub-cores: scheduler 1 picks %d at 100", n);
	n = pick_order(&h, 1, 200, got);
	CHECK(n == 4 && got[0] == 1, "sub-cores: scheduler 1 at 200 picks its own, %u first",
	      got[0]);
	/* one pool, the oldest of equal scores first; the shared SP units: one is free */
	hsm_fini(&h);
	hsm_init(&h, VGPU_SCHED_RBA, src);
	h.sm.fc = true;
	h.sm.npool = 1;
	h.sm.ordcap = NWS;
	h.nord[0] = NWS;
	h.nord[1] = 0;
	for (uint32_t i = 0; i < NWS; i++)
		h.ord[i] = i;
	for (uint32_t i = 1; i < NWS; i += 2)
		h.sum[i].ready = 200;
	h.fu_free[FU_N + 1 * FU_N + FU_SP] = 150;
	h.fu_free[FU_SP] = 0;	/* the earliest of the shared units */
	CHECK(h.s.sched->pick(&h.s, &h.sm, 0, 100) == h.ws[0], "scheduler 0 picks slot 0");
	h.sum[0].ready = UINT64_MAX;
	n = pick_order(&h, 1, 100, got);
	CHECK(n == 3 && got[0] == 2 && got[1] == 4 && got[2] == 6,
	      "fully connected: scheduler 1 picks %d at 100: %u %u %u", n, got[0], got[1],
	      got[2]);
	/* RBA over the 4 shared banks: bank 0 busy to 103, bank 2 to 101 */
	h.bank_free[0] = 103;
	h.bank_free[2] = 101;
	CHECK(rba_score(&h.s, &h.sm, 1, 0, 100) == 6, "slot 0: banks 0, 0: %u",
	      rba_score(&h.s, &h.sm, 1, 0, 100));
	CHECK(rba_score(&h.s, &h.sm, 0, 2, 100) == 1, "slot 2: banks 2, 3: %u",
	      rba_score(&h.s, &h.sm, 0, 2, 100));
	hsm_fini(&h);
	return 0;
}

/*
 * collector_stall (sub-core paper Sec. VI-B1): while every collector unit
 * of scheduler 0 is busy (its first free at 105) it issues nothing, every
 * warp ready or not; scheduler 1's are free. From 105 on it picks again.
 */
static int t_collector_stall(void)
{
	uint64_t cu_next[NS] = { 105, 0 };
	struct hsm h;

	hsm_init(&h, VGPU_SCHED_RBA, NULL);
	h.sm.t.cu_next = cu_next;
	CHECK(h.s.sched->pick(&h.s, &h.sm, 0, 100) == h.ws[0], "without: slot 0");
	h.sm.cstall = true;
	CHECK(!h.s.sched->pick(&h.s, &h.sm, 0, 100), "scheduler 0 picked at 100");
	CHECK(h.s.sched->pick(&h.s, &h.sm, 1, 100) == h.ws[1], "scheduler 1: slot 1");
	CHECK(h.s.sched->pick(&h.s, &h.sm, 0, 105) == h.ws[0], "at 105: slot 0");
	hsm_fini(&h);
	return 0;
}

/*
 * The L2 tag port (mem.c port_book()): a NewCAR re-execution books its
 * access at its future time, 500. As one busy-until time the port then
 * holds an access arriving at 101 until 501; with the calendar (l2_calendar
 * = 1) it goes at 101, the cycle after the one booked at 100, and two
 * cycles wanted at 499 take 499 and 501 around the one booked at 500. A
 * DRAM channel's calendar (cal_book(), 256 units a cycle) packs transfers
 * into the free part of each cycle, and a booking far ahead holds back none
 * before it.
 */
static int t_calendar(void)
{
	struct vgpu_sim s;
	struct part p;
	struct cal d;
	uint64_t got[5], first;

	memset(&s, 0, sizeof(s));
	memset(&p, 0, sizeof(p));
	s.now = 90;
	got[0] = port_book(&s, &p, 100, 1);
	got[1] = port_book(&s, &p, 500, 1);
	got[2] = port_book(&s, &p, 101, 1);
	CHECK(got[0] == 100 && got[1] == 500 && got[2] == 501,
	      "busy-until: %llu %llu %llu", (unsigned long long)got[0],
	      (unsigned long long)got[1], (unsigned long long)got[2]);
	memset(&p, 0, sizeof(p));
	p.pcal.use = calloc(CAL_CYCLES, sizeof(*p.pcal.use));
	CHECK(p.pcal.use, "memory");
	s.cfg.l2_calendar = 1;
	got[0] = port_book(&s, &p, 100, 1);
	got[1] = port_book(&s, &p, 500, 1);
	got[2] = port_book(&s, &p, 100, 1);
	CHECK(cal_book(&p.pcal, 1, s.now, 499, 2, &first) == 501 && first == 499,
	      "two cycles from 499: %llu", (unsigned long long)first);
	got[3] = port_book(&s, &p, 499, 1);
	/* the window slides with the current cycle; beyond it, busy-until */
	s.now = 450;
	got[4] = port_book(&s, &p, 100, 1);
	CHECK(got[0] == 100 && got[1] == 500 && got[2] == 101 && got[3] == 502 &&
	      got[4] == 450, "calendar: %llu %llu %llu %llu %llu",
	      (unsigned long long)got[0], (unsigned long long)got[1],
	      (unsigned long long)got[2], (unsigned long long)got[3],
	      (unsigned long long)got[4]);
	CHECK(port_book(&s, &p, 450 + CAL_CYCLES, 1) == 450 + CAL_CYCLES &&
	      port_book(&s, &p, 450 + CAL_CYCLES, 1) == 451 + CAL_CYCLES, "beyond the window");
	free(p.pcal.use);
	memset(&d, 0, sizeof(d));
	d.use = calloc(CAL_CYCLES, sizeof(*d.use));
	CHECK(d.use, "memory");
	CHECK(cal_book(&d, 256, 0, 1000, 256, NULL) == 1000, "far ahead");
	CHECK(cal_book(&d, 256, 0, 100, 300, NULL) == 101, "300/256 from 100");
	CHECK(cal_book(&d, 256, 0, 100, 100, NULL) == 101, "the rest of 101");
	CHECK(cal_book(&d, 256, 0, 100, 200, NULL) == 102, "101 full: into 102");
	CHECK(cal_book(&d, 256, 0, 999, 512, NULL) == 1001, "999, then around 1000");
	free(d.use);
	return 0;
}

/* Round robin, SRR and Shuffle for 4 sub-cores and 16 warps, and 2 and 3. */
static int t_subcore(void)
{
	static const uint32_t srr4[16] = { 0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2 };
	static const uint32_t srr2[8] = { 0, 1, 1, 0, 0, 1, 1, 0 };
	uint32_t n1[4] = { 0 }, same = 0;

	for (uint32_t w = 0; w < 16; w++) {
		CHECK(vgpu_sim_subcore_of(VGPU_SUBCORE_RR, 0, 0, w, 4) == w % 4, "rr %u", w);
		CHECK(vgpu_sim_subcore_of(VGPU_SUBCORE_SRR, 0, 0, w, 4) == srr4[w], "srr4 %u", w);
	}
	for (uint32_t w = 0; w < 8; w++)
		CHECK(vgpu_sim_subcore_of(VGPU_SUBCORE_SRR, 0, 0, w, 2) == srr2[w], "srr2 %u", w);
	/* Shuffle: each group of n warp ids is a permutation; the same every time */
	for (uint32_t n = 2; n <= 4; n++) {
		for (uint32_t sm = 0; sm < 3; sm++) {
			for (uint32_t g = 0; g < 16; g++) {
				uint32_t seen = 0;

				for (uint32_t i = 0; i < n; i++) {
					uint32_t w = g * n + i;
					uint32_t q = vgpu_sim_subcore_of(VGPU_SUBCORE_SHUFFLE, 7, sm, w, n);

					CHECK(q < n, "in range");
					CHECK(q == vgpu_sim_subcore_of(VGPU_SUBCORE_SHUFFLE, 7, sm, w, n),
					      "deterministic");
					seen |= 1u << q;
					if (n == 4 && sm == 0)
						n1[q] += i == 0;
					same += n == 4 && q == i;
				}
				CHECK(seen == (1u << n) - 1, "n %u sm %u group %u: balanced", n, sm, g);
			}
		}
	}
	/* not the identity, and the first warp of a group goes everywhere */
	CHECK(same < 3 * 16 * 4, "Shuffle is not round robin");
	for (uint32_t q = 0; q < 4; q++)
		CHECK(n1[q] > 0, "the groups' first warps reach sub-core %u", q);
	CHECK(vgpu_sim_subcore_of(VGPU_SUBCORE_SHUFFLE, 1, 0, 0, 1) == 0, "one sub-core");
	return 0;
}

/*
 * The model's program points of a compiled loop with a global load: the
 * priority falls to 0 at the load and is the loop's distance after it.
 */
static const char loop_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry loop(.param .u64 p, .param .u32 n)\n{\n"
	"	.reg .pred %p<2>;\n	.reg .b32 %r<8>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [p];\n"
	"	ld.param.u32 %r1, [n];\n"
	"	mov.u32 %r2, 0;\n	mov.u32 %r3, 0;\n"
	"L:\n"
	"	mul.wide.u32 %rd2, %r2, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	ld.global.u32 %r4, [%rd3];\n"
	"	add.u32 %r3, %r3, %r4;\n	mul.lo.u32 %r3, %r3, 3;\n	xor.b32 %r3, %r3, %r2;\n"
	"	add.u32 %r2, %r2, 1;\n"
	"	setp.lt.u32 %p1, %r2, %r1;\n"
	"	@%p1 bra L;\n"
	"	st.global.u32 [%rd1], %r3;\n"
	"	ret;\n}\n";

static int t_elf_image(void)
{
	struct vgpu_sim s;
	struct job j;
	char err[256];
	void *img;
	size_t size;
	uint32_t ld = UINT32_MAX;
	int r;

	CHECK(vgpu_compile_ptx(loop_ptx, sizeof(loop_ptx) - 1, &img, &size, err,
			       sizeof(err)) == 0, "compile: %s", err);
	memset(&s, 0, sizeof(s));
	memset(&j, 0, sizeof(j));
	r = sim_decode(&s, &j, img, (uint32_t)size);
	CHECK(r == 0, "decode: %d", r);
	CHECK(j.nelf >= 1, "program points: %u", j.nelf);
	for (uint32_t i = 0; i < j.ncode; i++)
		if (j.code[i].op == VGPU_OP_LD && VGPU_M_MEM_SP(j.code[i].mod) == VGPU_SP_GLOBAL)
			ld = i;
	CHECK(ld != UINT32_MAX, "the load");
	CHECK(job_elf_prio(j.elf, j.nelf, ld) == 0, "0 at the load");
	for (uint32_t i = 0; i < ld; i++)
		CHECK(job_elf_prio(j.elf, j.nelf, i) == ld - i, "%u before the load: %u", ld - i,
		      job_elf_prio(j.elf, j.nelf, i));
	/* after the load: through the loop's branch back to it, not to the end */
	CHECK(job_elf_prio(j.elf, j.nelf, ld + 1) < VGPU_ELF_MAX_SCORE,
	      "after the load: %u", job_elf_prio(j.elf, j.nelf, ld + 1));
	sim_decode_release(&j);
	free(img);
	return 0;
}

/*
 * Progress-aware scheduling (seed 003 §4.3.2) on one scheduler with five
 * blocks of a virtualised kernel, progress in instructions since the warp's
 * last NEXTTB:
 *   slot 0, A: Barrier, 1 of 2 warps waiting; A0 progress 9
 *   slot 1, B: DiffIter, lowest iteration 1: B0 (1, 50), B1 (2, 5), B2 (1, 10)
 *   slot 2, C: SameIter: C0 30, C1 70 (block 100)
 *   slot 3, D: SameIter: D0 200
 *   slot 4, E: Barrier, 2 of 3 warps waiting; E2 progress 1
 * Fast phase: E2 A0 (more waiting first) B2 B0 (lagging, less progress
 * first) D0 C1 C0 (more progress first) B1 (leading). Slow phase, the last
 * logical block handed out: SameIter least progress first, C0 C1 D0.
 */
#define PW	11

struct pstate {
	struct vgpu_sim s;
	struct sm sm;
	struct job job;
	struct tb *tb[5];
	struct wsum sum[PW];
	struct warp *ws[PW];
	uint32_t ord[PW], nord[1];
	uint64_t fu_free[FU_N];
};

static void pstate_init(struct pstate *p)
{
	static const struct { uint8_t tb, iter, bar; uint32_t prog; } w[PW] = {
		{ 0, 1, 0, 9 }, { 0, 1, 1, 4 },
		{ 1, 1, 0, 50 }, { 1, 2, 0, 5 }, { 1, 1, 0, 10 },
		{ 2, 1, 0, 30 }, { 2, 1, 0, 70 },
		{ 3, 1, 0, 200 },
		{ 4, 1, 1, 3 }, { 4, 1, 1, 2 }, { 4, 1, 0, 1 },
	};
	static const uint32_t nw[5] = { 2, 3, 2, 1, 3 };
	uint32_t idx[5] = { 0 };

	memset(p, 0, sizeof(*p));
	p->s.cfg.schedulers_per_sm = 1;
	p->s.cfg.scheduler = VGPU_SCHED_PROGRESS;
	p->s.sched = sched_get(VGPU_SCHED_PROGRESS);
	p->job.virt = true;
	p->job.vt_next = 5;
	p->job.vt_total = 10;
	for (uint32_t b = 0; b < 5; b++) {
		p->tb[b] = calloc(1, sizeof(*p->tb[b]) + sizeof(struct warp) * nw[b]);
		p->tb[b]->job = &p->job;
		p->tb[b]->slot = b;
		p->tb[b]->nwarps = nw[b];
		p->tb[b]->vt_min = 1;
	}
	p->sm.nws = PW;
	p->sm.nsched = 1;
	p->sm.sum = p->sum;
	p->sm.ws = p->ws;
	p->sm.ord = p->ord;
	p->sm.nord = p->nord;
	p->sm.ordcap = PW;
	p->sm.t.fu_free = p->fu_free;
	for (uint32_t i = 0; i < PW; i++) {
		struct tb *tb = p->tb[w[i].tb];
		struct warp *x = &tb->warps[idx[w[i].tb]++];

		x->tb = tb;
		x->slot = i;
		x->sp = 1;
		x->age = i;
		x->vt_iter = w[i].iter;
		x->insts = 1000 + w[i].prog;
		x->it_start = 1000;
		x->state = w[i].bar ? W_BAR : W_RUN;
		tb->at_bar += w[i].bar;
		p->ws[i] = x;
		p->sum[i] = (struct wsum){ .ready = w[i].bar ? UINT64_MAX : 100, .fu = FU_SP,
					   .run = !w[i].bar };
		p->ord[p->nord[0]++] = i;
	}
}

static void pstate_fini(struct pstate *p)
{
	for (uint32_t b = 0; b < 5; b++)
		free(p->tb[b]);
}

static int progress_order(bool slow, const uint32_t *want, uint32_t n)
{
	struct pstate p;
	struct warp *w;
	uint32_t got = 0;
	int r = 0;

	pstate_init(&p);
	if (slow)
		p.job.vt_next = p.job.vt_total;
	while ((w = p.s.sched->pick(&p.s, &p.sm, 0, 100))) {
		if (got >= n || w->slot != want[got]) {
			printf("#   %s phase, pick %u: slot %u, want %d\n", slow ? "slow" : "fast",
			       got, w->slot, got < n ? (int)want[got] : -1);
			r = -1;
			break;
		}
		got++;
		p.sum[w->slot].ready = UINT64_MAX;
	}
	if (!r && got != n) {
		printf("#   %s phase: %u picks, want %u\n", slow ? "slow" : "fast", got, n);
		r = -1;
	}
	pstate_fini(&p);
	return r;
}

static int t_progress(void)
{
	/* slots: A0 0, A1 1, B0 2, B1 3, B2 4, C0 5, C1 6, D0 7, E0 8, E1 9, E2 10 */
	static const uint32_t fast[] = { 10, 0, 4, 2, 7, 6, 5, 3 };
	static const uint32_t slow[] = { 10, 0, 4, 2, 5, 6, 7, 3 };

	CHECK(progress_order(false, fast, 8) == 0, "fast phase");
	CHECK(progress_order(true, slow, 8) == 0, "slow phase");
	return 0;
}

int main(void)
{
	report("ELF priorities from load, branch and merged program points", t_elf_prio());
	report("ELF picks the fewest instructions to a load, the oldest of equals", t_elf_pick());
	report("RBA scores from known bank queues; the lowest issues, the oldest of equals",
	       t_rba());
	report("sub-core assignment: round robin, SRR (W + W/N) mod N, Shuffle balanced and "
	       "deterministic", t_subcore());
	report("the model reads ELF's program points from a compiled image", t_elf_image());
	report("progress-aware: Barrier, lagging DiffIter, SameIter by progress (least first "
	       "when slow), leading DiffIter", t_progress());
	report("fully connected SM: one warp pool for every scheduler, shared units and banks",
	       t_fully_connected());
	report("L2 tag port and DRAM channel: a calendar lets a request go before a later,"
	       " future booking", t_calendar());
	report("collector_stall: a scheduler whose collector units are all busy issues nothing",
	       t_collector_stall());
	return test_summary();
}
