/* SPDX-License-Identifier: MIT */
/*
 * timing.h - internals of the timing model (sim.c, mem.c, sched.c):
 * per-instruction timing classes, the scoreboard encoding, caches, memory
 * partitions and the warp scheduler ops table. Included by sim_int.h.
 *
 * The model is "timed at issue": when a warp instruction issues, its
 * functional effect happens at once (exec.c) and the memory system works
 * out, from the state of its resources (LD/ST unit, MSHRs, L2 slice ports,
 * DRAM channels and row buffers, each a busy-until time), when its result
 * is ready. The scoreboard then holds the warp's dependent instructions
 * until then. Everything is a function of the issue order, which is
 * deterministic, so cycle counts are too. The exception: under Virtual
 * Thread a load transaction that meets a reservation failure is timed
 * when its SM's load queue replays it (sim.c, Sec. IV-D), in the serial
 * phase, SMs in index order.
 */
#ifndef VGPU_TIMING_H
#define VGPU_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "vgpu_sim.h"

/* Functional units (per scheduler, LD/ST per SM). */
enum { FU_SP = 0, FU_SFU, FU_DP, FU_LDST, FU_N };

/* Why a warp cannot issue (thesis Fig. 3.2 classes). */
enum { WHY_OTHER = 0, WHY_MEM, WHY_FETCH, WHY_CONFLICT };

/* struct itime flags */
#define IT_PRED_R	1	/* reads predicates */
#define IT_PRED_W	2	/* writes predicates */
#define IT_MEM		4	/* LD/ST/ATOM */
#define IT_SM_MEM	8	/* ... of the SM's own memory: shared, param, const */
#define IT_SERIAL	16	/* NEXTTB: reads state every SM shares (the job's counter) */
#define IT_GLOBAL	32	/* IT_MEM but not IT_SM_MEM, or IT_SERIAL: phase B issues it */
#define IT_MAXOP	10

/* Timing of one decoded instruction, derived once per job. */
struct itime {
	uint8_t fu, flags, nsrc, ndst;
	uint8_t src[IT_MAXOP], dst[IT_MAXOP];
	uint32_t lat;		/* result latency (non-memory) */
	uint32_t ii;		/* initiation interval of its unit */
	uint8_t elf;		/* ELF priority (sched.c job_elf_prio()) */
};

/* Memory access of the instruction just executed (filled by exec.c). */
struct memrec {
	uint32_t mask;		/* lanes that accessed; 0: none */
	uint8_t sp;		/* VGPU_SP_* as encoded (generic unresolved) */
	uint8_t rsp;		/* generic: every lane's space, VGPU_SP_GENERIC unknown */
	uint8_t size;		/* bytes per lane */
	uint8_t kind;		/* MR_LD, MR_ST, MR_ATOM */
	/*
	 * every lane, lane l at addr[0] + l * size; for loads and stores of
	 * a full warp exact (mem.c relies on false too), for atomics false
	 */
	bool unit;
	uint64_t addr[32];
};
enum { MR_LD = 0, MR_ST, MR_ATOM };

/*
 * An L1I miss found while SMs run in parallel: the L2 access waits for the
 * serial phase (mem_fetch_resolve()). @x: the L1I line the miss fills, NULL
 * when every way of the set waits for a fill; @avail: when the instruction
 * is there, set by mem_fetch_resolve().
 */
struct fetch_miss {
	struct warp *w;
	struct cline *x;
	uint64_t line, avail;
	bool prefetch;		/* a next-line prefetch (@w made it) */
};
/* cline.fill of a line whose L2 access is still to be made */
#define FILL_PENDING	UINT64_MAX
/* mem_fetch(): the miss went to the SM's fetch list */
#define FETCH_DEFERRED	UINT64_MAX

#define LINE_SHIFT	7	/* 128-byte lines */
#define SECTOR_SHIFT	5	/* 32-byte sectors */

struct cline {
	uint64_t tag;		/* line address + 1; 0 = invalid */
	uint64_t fill;		/* cycle the pending fill completes */
	uint64_t lru;
	uint8_t valid, dirty;	/* sector masks */
};

struct cache {
	uint32_t sets, assoc;
	uint64_t tick;
	struct cline *l;
};

/*
 * A reservation calendar (l2_calendar, dram_calendar; mem.c cal_book()):
 * use[t % CAL_CYCLES] is what is booked of cycle t, for t in [base, base +
 * CAL_CYCLES), out of the resource's capacity per cycle (an L2 tag port: 1
 * access; a DRAM channel: 256, its transfer time being in 1/256 cycles);
 * far is the busy-until cycle of the bookings beyond the window.
 */
#define CAL_CYCLES	65536u

struct cal {
	uint16_t *use;
	uint64_t base, far;
};
/*
 * Books @units of @c (capacity @cap per cycle) for a request arriving at
 * @t, into the first cycles at or after it with room, and forgets the
 * cycles before @now; returns the last cycle it took (@t - 1 for none),
 * the first in *@first.
 */
uint64_t cal_book(struct cal *c, uint32_t cap, uint64_t now, uint64_t t, uint64_t units,
		  uint64_t *first);

/* A memory partition: an L2 slice and a DRAM channel (Table 3.1: 6). */
struct part {
	struct cache l2;
	uint64_t port_free;	/* L2 slice tag port (busy-until, without a calendar) */
	uint64_t ch_free;	/* DRAM data bus, in 1/256 cycles (without a calendar) */
	struct cal pcal, dcal;	/* their calendars (l2_calendar, dram_calendar) */
	uint64_t *row;		/* open row + 1 per bank; 0 closed */
};

/* Per-SM timing state. */
struct smt {
	struct cache l1d, l1i;
	/*
	 * free times of the L1D MSHRs, in ascending order from mshr[mhead]
	 * round the array: the MSHRs are alike, only their times count
	 */
	uint64_t *mshr;
	uint32_t mhead;
	uint64_t ldst_free;		/* LD/ST unit */
	/*
	 * [scheduler][FU_N], then [scheduler][FU_N] of a fully connected SM's
	 * shared units, whose earliest free time per type is in [0][FU_N]
	 */
	uint64_t *fu_free;
	uint64_t *bank_free;		/* [scheduler][reg_banks] (fully connected: all one) */
	uint64_t *coll_free;		/* [scheduler][collectors] (fully connected: all one) */
	uint64_t *cu_next;		/* [pool]: its first collector unit free (collector_stall) */
	uint64_t car[VGPU_SIM_NEWCAR_ENTRIES];	/* NewCAR queue: each entry's departure */
	uint32_t nmshr;			/* L1D MSHRs (l1d_mshrs) */
	bool prefetch;			/* next-line L1I prefetch (l1i_prefetch) */
	uint64_t last;			/* last cycle accounted */
	uint64_t idle_since;		/* no block resident since; UINT64_MAX busy */
	uint8_t wclass;			/* stall class of the cycles after @last */
	uint8_t wall_mem;		/* ... and whether all warps waited on memory */
	struct vgpu_sim_stats st;
};

struct vgpu_sim;
struct sm;
struct warp;

/* sched.c: a warp scheduler policy; one instance per scheduler of an SM. */
struct sched_ops {
	const char *name;
	/* the warp scheduler @k of @sm issues this cycle, or NULL */
	struct warp *(*pick)(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now);
	/* @w was issued; @long_lat: it now waits for memory */
	void (*issued)(struct vgpu_sim *s, struct sm *sm, uint32_t k, struct warp *w,
		       bool long_lat);
	/* issued() only records the warp's slot in sm->last[k] (GTO): done inline */
	bool issued_last;
	/*
	 * pick among the warp slots i with @tag[i] == @want only, *@last
	 * standing for the warp issued last (kernel-aware scheduling: the
	 * policy restricted to one kernel's warps, or to priority blocks')
	 */
	struct warp *(*pick_in)(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
				const uint8_t *tag, uint8_t want, const uint32_t *last);
};
const struct sched_ops *sched_get(uint32_t policy);

/* mem.c */
int mem_create(struct vgpu_sim *s);
/* Books @n cycles of @p's L2 tag port for an access arriving at @a; the first. */
uint64_t port_book(struct vgpu_sim *s, struct part *p, uint64_t a, uint32_t n);
void mem_destroy(struct vgpu_sim *s);
/* forgets every cache line, row buffer and busy time (idle device) */
void mem_reset(struct vgpu_sim *s);
/* shifts every pending time by @delta (vgpu_sim_set_cycle) */
void mem_shift(struct vgpu_sim *s, int64_t delta);
/*
 * Times the memory access in sm->mrec of warp @w issued at @now: returns the
 * cycle its result is ready and sets *@is_mem for a long-latency (global/
 * local) access. Occupies the LD/ST unit, MSHRs, L2 ports and DRAM.
 */
uint64_t mem_access(struct vgpu_sim *s, struct sm *sm, struct warp *w, uint64_t now,
		    bool *is_mem);
/*
 * Instruction fetch of instruction @pc by @w at @now: the cycle it is
 * available, or FETCH_DEFERRED for an L1I miss, which only touches the SM
 * and is appended to sm->fetch; mem_fetch_resolve() then makes the L2
 * accesses (shared state) in the serial phase.
 */
uint64_t mem_fetch(struct sm *sm, struct warp *w, uint32_t pc, uint64_t now);
/* Makes the L2 accesses of sm->fetch in order and sets each entry's avail. */
void mem_fetch_resolve(struct vgpu_sim *s, struct sm *sm, uint64_t now);
/* l1_load(): the transaction went to the SM's Virtual Thread load queue */
#define LQ_QUEUED	UINT64_MAX
struct lq_ent;
/*
 * Virtual Thread's load queues (sim_int.h struct lq_ent): the earliest
 * cycle from @now on at which the L1D of @sm can take queued @e (a hit, or
 * a free MSHR and a victim way), and its replay at @t: its data time.
 */
uint64_t mem_lq_when(const struct sm *sm, const struct lq_ent *e, uint64_t now);
uint64_t mem_lq_replay(struct vgpu_sim *s, struct sm *sm, const struct lq_ent *e, uint64_t t);

#endif /* VGPU_TIMING_H */
