/* SPDX-License-Identifier: MIT */
/*
 * sim_int.h - internals of the GPU model (vgpu_sim.h): decoded programs,
 * jobs, thread blocks, warps, SMs.
 */
#ifndef VGPU_SIM_INT_H
#define VGPU_SIM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "vgpu_sim.h"
#include "timing.h"

#define SIMT_STACK_MAX	64
#define NO_PC		0xffffffffu

/*
 * The lane loops in a second version for hosts with AVX2 (eight lanes a
 * vector instruction, 32-bit multiplies, 64-bit compares), chosen when the
 * program starts. Integer and IEEE floating-point operations give the
 * same results either way: no floating-point contraction (ISO C), the
 * same library calls. -DSIM_NO_LANE_CLONES builds the baseline version
 * alone (to check that the results hold without AVX2).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(SIM_NO_LANE_CLONES)
#define SIM_LANE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SIM_LANE_CLONES
#endif

/* Latency classes. */
enum { LAT_ALU = 0, LAT_SFU, LAT_MEM, LAT_SHARED };

/* Decoded instruction flags. */
#define DI_GE	1	/* guarded */
#define DI_GN	2	/* guard negated */
#define DI_BI	4	/* B is an immediate (bslot) */
#define DI_CI	8	/* C is an immediate (cslot) */
#define DI_IB	16	/* idempotence boundary (VGPU_I_BOUNDARY) */

/* One instruction, decoded once per job. */
struct dinst {
	uint8_t op, type, flags, gp;
	uint8_t d, a, b, c;
	uint8_t lat;
	uint8_t vec[4];
	uint16_t mod;
	uint32_t bslot, cslot;	/* rows of the job's immediate pool */
	uint32_t target, rpc;	/* instruction indices (BRA) */
	uint64_t imm;		/* B immediate */
	int64_t off;		/* memory offset */
};

/* An ELF program point (vgpu_program.h), at a decoded instruction index. */
struct elf_pt {
	uint32_t idx;
	uint8_t score;
	bool branch;
};

struct job {
	struct job *next;
	uint32_t id;
	int status;		/* 0, or what every block of the job ends with */
	struct vgpu_job_desc desc;
	struct vgpu_program_entry entry;
	struct dinst *code;
	uint32_t *code_off;	/* each decoded instruction's word index in the code */
	uint32_t ncode;
	uint32_t *pool;		/* immediate rows: 64 words each (lo row, hi row) */
	uint8_t *params;
	struct vgpu_mem_range *ranges;
	uint32_t nranges;
	uint32_t last_range;
	/*
	 * VGPU_JOB_BUFFER_BOUNDARIES: a boundary store crosses only into a
	 * range a global load has read; the ranges read, a bit each
	 * (nranges + 1 bits, the last for the data segment outside them);
	 * written by global loads, in the serial phase only
	 */
	bool buffer_bounds;
	uint64_t *read_ranges;
	uint32_t threads, nwarps;
	uint32_t resident;	/* thread blocks on SMs */
	/* timing model */
	struct itime *tim;	/* per instruction */
	struct vgpu_sim_stats st;
	uint64_t first, last;	/* first dispatch, last completion; first UINT64_MAX none */
	/*
	 * kernel-aware "fair" (thesis §5.5.2, Eq. 5.4): T_k, its blocks that
	 * fit an empty SM, and x%, the SM cycles with only this job resident
	 * and those of them that issued (added when it leaves an SM; written
	 * in the serial phase only)
	 */
	uint32_t tfit;
	uint64_t alone_cycles, alone_issue;
	/* ELF's program points from the image's analysis section (none: 0) */
	struct elf_pt elf[VGPU_ELF_SLOTS];
	uint32_t nelf;
	/*
	 * virtual thread blocks (seed 003 §4.2.1; VGPU_ENTRY_VIRTUAL_TB): the
	 * next logical block index NEXTTB hands out and the grid's blocks;
	 * written in the serial phase only
	 */
	bool virt;
	uint32_t vt_next, vt_total;
};

struct simt {
	uint32_t pc, rpc, mask;
};

/*
 * W_STOP: a block being switched out (preempt.c); prev_state keeps what it was.
 * W_VTB: a warp of a virtual block ahead of a sibling, waiting (vtb_wait()).
 */
enum { W_RUN = 0, W_BAR, W_DONE, W_STOP, W_VTB };

struct tb;

/*
 * Virtual Thread's load queues (Yoon et al. Sec. IV-D, after Mascar): a
 * global load transaction that meets a reservation failure at the L1D
 * waits in its SM's queue and is timed when it is replayed. One array in
 * age order holds both queues: an entry of an active block is in the
 * active queue, one of an inactive block in the inactive queue, so a swap
 * moves a block's entries between them in age order (Table I: 30 and 30).
 */
#define VT_LQ_SIZE	30
#define VT_LQ_CAP	(2 * VT_LQ_SIZE)
/* the ready cycle of a result whose load waits in a queue: not yet known */
#define LQ_WAIT		(UINT64_MAX >> 2)

struct warp;

/* One queued transaction: its line and sectors, and its instruction's record. */
struct lq_ent {
	struct warp *w;
	uint64_t line;
	uint8_t sect;
	uint8_t rec;		/* index into sm->lrec */
};

/*
 * A load instruction with transactions in a queue: the registers it
 * writes (their scoreboard entries wait at LQ_WAIT), the latest data time
 * of its transactions timed so far, and how many are still queued.
 */
struct lq_rec {
	struct warp *w;
	uint64_t done;
	uint16_t left;		/* 0: the record is free */
	uint8_t ndst, pred;
	uint8_t dst[IT_MAXOP];
};

struct warp {
	struct tb *tb;
	uint32_t *regs;		/* [reg][lane] */
	uint32_t pred[VGPU_NUM_PREDS];
	uint64_t ready;
	uint8_t state;
	uint8_t prev_state;	/* W_STOP: the state the warp stopped in */
	uint32_t idx;		/* warp index in the block */
	uint32_t slot;		/* warp slot on the SM */
	/* timing model */
	uint64_t *sb;		/* scoreboard: per register (ready << 1 | from memory) */
	uint64_t pred_rdy;	/* predicates (one entry) */
	uint64_t age;		/* dispatch order (GTO) */
	uint8_t why;		/* WHY_*: what @ready waits for */
	uint8_t fu;		/* unit of the next instruction */
	uint8_t active;		/* two-level: in the active set */
	uint8_t elf;		/* ELF priority of the next instruction */
	uint32_t wid;		/* warp id on the SM (sub-core assignment) */
	uint64_t car_until;	/* NewCAR: its last queued request's re-execution */
	/*
	 * the decoded instructions that start in the L1I line of its last
	 * fetch: pc - ilo < ispan (ispan 0: none yet)
	 */
	uint64_t ilo;
	uint32_t ispan;
	uint64_t insts;		/* warp instructions issued */
	uint64_t it_start;	/* insts when it took its logical block (NEXTTB) */
	uint32_t vt_iter;	/* virtual block: NEXTTBs executed (its iteration) */
	uint32_t vt_widx;	/* ...the warp of its logical block it runs (§4.2.2) */
	/*
	 * SlowestLane: warps[k].vt_order is the warp index the k-th warp to
	 * start the block's iteration vt_hi takes (an array over the warps)
	 */
	uint32_t vt_order;
	int sp;
	struct simt stack[SIMT_STACK_MAX];
};

struct tb {
	struct job *job;
	uint32_t index, sm, slot;
	uint32_t ctaid[3];
	uint32_t reg_base, reg_count;
	uint32_t shared_base, shared_bytes;
	uint8_t *shared;
	uint8_t *local;
	uint32_t *regs;
	uint64_t *sb;		/* the warps' scoreboards */
	uint32_t nwarps, live, at_bar;
	uint64_t warp_insts, start;
	uint64_t fault_addr;
	uint32_t fault_pc;	/* decoded index of the instruction that ended it */
	bool fault_pc_set;	/* ...when it ended on one (VGPU_EVT_F_FAULT_PC) */
	bool crossed_boundary;	/* executed a VGPU_I_BOUNDARY instruction */
	/* ...that many cycles after @start, after that many warp instructions */
	uint64_t cross_cycles, cross_insts;
	bool prio;		/* issue priority (vgpu_sim_set_tb_priority()) */
	bool paused;		/* DYNCTA: issues last (vgpu_sim_set_tb_paused()) */
	uint8_t kidx;		/* its kernel's index on the SM (struct kern) */
	bool ended;		/* ended in this cycle; finished in its serial phase */
	/*
	 * virtual block (seed 003 §4.2.1): the highest iteration given a
	 * logical index, the indices of iterations vt_hi - 1 and vt_hi (at
	 * [iteration & 1]), and the lowest iteration of a live warp
	 */
	uint32_t vt_hi, vt_min;
	uint32_t vt_idx[2];
	uint32_t vt_started;	/* its full warps that started iteration vt_hi */
	int end_status;
	/* PREEMPT SWITCH under way: its context goes to @save_addr at @switch_at */
	bool switching;
	bool ideal;		/* the switch is VGPU_PREEMPT_IDEAL: no cost */
	uint64_t switch_at, preempt_cycle, save_addr;
	/*
	 * Virtual Thread (sim.c): an inactive block's warps hold no warp slot;
	 * it may become active from @vt_ready on (its state saved, its
	 * register writes in flight done); @vt_seq orders inactive blocks.
	 */
	bool inactive;
	uint64_t vt_ready, vt_seq;
	/*
	 * ...the cycle its saved state is in (vt_ready without the writes
	 * still to come from its queued loads), and the cycle its warps issue
	 * from after a swap-in (Eq. 2) or a restore
	 */
	uint64_t vt_saved, vt_resume;
	/* counted for the job, added to job->st when the block leaves (SMs on
	 * other threads may count for the same job) */
	struct vgpu_sim_stats job_st;
	struct warp warps[];
};

/* What the schedulers look at of a warp slot, kept compact for speed. */
struct wsum {
	uint64_t ready;		/* warp->ready; UINT64_MAX: no warp in W_RUN */
	uint8_t fu, why;	/* warp->fu, warp->why */
	uint8_t run;		/* a warp in W_RUN */
	uint8_t prio;		/* warp->elf */
};

/*
 * Kernel-aware warp scheduling (sched.c, thesis §5.4.3): a kernel (job) with
 * blocks on an SM has an index there, 0 ... max_tbs_per_sm - 1.
 */
struct kern {
	struct job *job;	/* NULL: index free */
	uint32_t ntbs;		/* S_k: its blocks on the SM */
	uint64_t alone_cycles, alone_issue;	/* x%: while alone here (fair) */
};

/* Per scheduler and kernel index. */
struct kstate {
	uint64_t iss, rdy;	/* IPR (Eq. 5.3): issued, ready warps summed over cycles */
	uint64_t fiss;		/* fair: issued since the SM's kernels last changed */
	uint32_t last;		/* warp slot of the kernel issued last, UINT32_MAX none */
};

/* Cache-line aligned: SMs simulated on different threads share no line. */
struct sm {
	_Alignas(64) uint32_t id;
	struct wsum *sum;	/* per warp slot */
	uint8_t *shared;
	struct tb **slots;
	struct warp **ws;	/* warp slots */
	uint32_t nws;
	uint32_t *rr;		/* per scheduler: last warp slot issued */
	uint64_t next;		/* earliest cycle a warp may issue, UINT64_MAX none */
	uint32_t threads;
	uint32_t ntbs;
	uint32_t *last;		/* per scheduler: last warp slot issued (GTO), or UINT32_MAX */
	uint32_t *ord;		/* per pool: its warp slots, oldest first */
	uint32_t *nord;		/* per pool: entries of ord */
	uint32_t ordcap;	/* ord entries per pool */
	uint64_t *snext;	/* per pool: earliest cycle it may issue */
	/*
	 * [pool][FU_N]: the earliest ready warp for the unit, kept exact as
	 * warps change (sim_wsum_move()): the root of a min-tree over the
	 * pool's warp slots, [pool][FU_N][2 * mleaves], leaf i being slot
	 * q + i * npool (its ready time when it runs on the unit, else
	 * UINT64_MAX), node n the lower of 2n and 2n + 1
	 */
	uint64_t *minr;
	uint64_t *mtree;
	/*
	 * leaves of each tree: a power of two, at least the pool's warp
	 * slots (nws); the trees are mstride entries apart, room for ordcap
	 */
	uint32_t mleaves, mstride;
	/*
	 * [pool][rwords]: bit i of pool q is warp slot q + i * npool,
	 * set while it holds a warp in W_RUN (wsum.run), so that scans visit
	 * only those
	 */
	uint64_t *rmask;
	uint32_t rwords;
	/* running warps by [unit is LD/ST][wsum.why] (sm_classify()) */
	uint32_t wcnt[2][4];
	bool cls_ok;		/* t.wclass and t.wall_mem hold for the SM's state */
	uint32_t nsched;	/* schedulers */
	/*
	 * warp pools: slot i is in pool i % npool, which the per-pool state
	 * (ord, rmask, minr, snext) is indexed by; schedulers_per_sm, one per
	 * scheduler (sub-core), or 1 for a fully connected SM
	 * (cfg.fully_connected), whose schedulers all pick from the one pool
	 */
	uint32_t npool;
	bool fc;		/* cfg.fully_connected */
	bool cstall;		/* cfg.collector_stall */
	struct smt t;		/* timing state */
	struct memrec mrec;	/* set by exec.c for LD/ST/ATOM */
	uint32_t sink[256];	/* writes to RZ */
	/*
	 * What the parallel phase of a cycle leaves to the serial one (sim.c,
	 * "parallel simulation"): the memory instruction picked, L1I misses,
	 * ended blocks.
	 */
	struct warp *mem_warp;	/* NULL: none */
	uint32_t mem_sched;
	struct fetch_miss *fetch;	/* nws entries */
	uint32_t nfetch;
	struct tb **ended;	/* max_tbs_per_sm entries */
	uint32_t nended;
	bool issued, classified;	/* in this cycle */
	bool serial;		/* has work for the serial phase */
	uint64_t pend;		/* earliest switch_at of its blocks, UINT64_MAX none */
	/*
	 * The cycle its context transfers are done: saves and restores share
	 * the SM's bandwidth, so they go one after another (preempt.c).
	 */
	uint64_t xfer_free;
	/*
	 * Virtual Thread (sim.c): inactive blocks, the earliest cycle one of
	 * them becomes ready (UINT64_MAX none), whether the SM must look for
	 * a swap after this cycle, when its shared-memory port is free of
	 * block state transfers, and the next inactive block's sequence.
	 */
	uint32_t ninact;
	uint64_t vt_next;
	bool vt_due;
	uint64_t vt_port, vt_seq;
	/*
	 * ...its load queues (struct lq_ent, oldest first), the records of
	 * their instructions, the earliest cycle the L1D may take the entry
	 * served next (with nlq), and the record of the load being issued + 1
	 * (0: none).
	 */
	struct lq_ent lq[VT_LQ_CAP];
	uint32_t nlq;
	struct lq_rec lrec[VT_LQ_CAP];
	uint64_t lq_next;
	uint8_t lq_cur;
	/* kernel-aware warp scheduling (sched.c) */
	bool ka;		/* pick with ka_pick(): a mode other than none, nk >= 2 */
	bool kon;		/* a mode other than none (x% is measured) */
	uint32_t nk;		/* kernels with blocks on the SM */
	uint32_t nprio;		/* blocks with issue priority */
	struct kern *kern;	/* max_tbs_per_sm entries */
	uint32_t *klist;	/* the nk kernel indices in order of arrival */
	struct kstate *ks;	/* [scheduler][max_tbs_per_sm] */
	uint32_t *klast;	/* per scheduler: kernel index issued last, UINT32_MAX none */
	uint32_t *plast;	/* per scheduler: priority warp slot issued last */
	uint8_t *wk;		/* per warp slot: kernel index */
	uint8_t *wp;		/* per warp slot: 1 when its block has priority */
	uint32_t npaused;	/* blocks paused (DYNCTA, sched.c pause_pick()) */
	uint8_t *wpause;	/* per warp slot: 1 when its block is paused */
	struct vgpu_sim_stats sampled;	/* t.st at the last sample (sim_sample()) */
	bool gated;		/* turned off (DYNCORE, vgpu_sim_set_sm_gated()) */
	uint64_t gated_since;	/* off and empty since, UINT64_MAX not */
	uint8_t *wid_used;	/* per warp id: taken by a resident warp */
};

struct vgpu_sim {
	struct vgpu_sim_config cfg;
	uint8_t *vram;
	uint64_t vram_size;
	uint64_t cycle;
	struct sm *sms;
	struct job *jobs;
	uint32_t resident;	/* thread blocks */
	uint32_t lat[4];
	struct vgpu_evt *evq;	/* pending events */
	/* vgpu_sim_set_tb_hook() */
	void (*tb_hook)(void *ctx, const struct vgpu_sim_tb_end *e);
	void *tb_hook_ctx;
	uint32_t nev, evhead, evcap;
	struct vgpu_sim_stats stats;
	/* timing model */
	const struct sched_ops *sched;
	struct part *parts;
	uint64_t age;		/* warps dispatched */
	uint64_t sector_xfer;	/* DRAM bus time of a 32-byte sector, 1/256 cycles */
	uint32_t l2_core;	/* slice access cycles (l2_latency less the interconnect) */
	uint32_t dram_core;	/* DRAM access cycles (mem_latency less the rest) */
	uint32_t zero[128];	/* reads of RZ */
	/* parallel simulation (sim.c) */
	struct sim_pool *pool;	/* NULL: every SM on the calling thread */
	uint32_t nthreads;
	uint64_t now;		/* the cycle being simulated */
	uint32_t *due;		/* num_sms entries: the SMs due at @now (vgpu_sim_step()) */
	uint64_t *snx;		/* per SM: its next cycle when it has blocks, else UINT64_MAX */
	bool any_pend;		/* a context switch was started: SMs' pend may be set */
	uint32_t kmode;		/* enum vgpu_kernel_sched */
	struct vgpu_sim_config cfg0;	/* as created (SET_WARP_SCHED "config") */
	/* per-SM sampling (VGPU_CMD_SET_SAMPLING): period, 0 off; next boundary */
	uint64_t sample_period, sample_next;
	/*
	 * Virtual Thread (enum vgpu_virtual_thread): the block slots in use
	 * (max_tbs_per_sm, or VGPU_VT_MAX_TBS under Virtual Thread) and the
	 * warp slots allocated per SM (what MAX mode schedules from).
	 */
	uint32_t vt;
	uint32_t nslots;
	uint32_t nws_cap;
};

/*
 * sched.c: the kernel-aware pick of scheduler @k (sm->ka), and the start
 * and end of a kernel's stay on an SM.
 */
struct warp *ka_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now);
uint8_t ka_join(struct vgpu_sim *s, struct sm *sm, struct job *j);
void ka_leave(struct vgpu_sim *s, struct sm *sm, uint8_t kidx);
void ka_update(const struct vgpu_sim *s, struct sm *sm);
void ka_restart(struct vgpu_sim *s, struct sm *sm);
/* sched.c: the pick of scheduler @k of an SM with paused blocks (DYNCTA) */
struct warp *pause_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now);

/* sched_progress.c: the progress-aware scheduler (seed 003 §4.3.2) */
struct warp *progress_pick(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now);
struct warp *progress_pick_in(struct vgpu_sim *s, struct sm *sm, uint32_t k, uint64_t now,
			      const uint8_t *tag, uint8_t want, const uint32_t *last);

/* sched.c: ELF's priority at instruction @pc; RBA's score of a warp slot. */
uint8_t job_elf_prio(const struct elf_pt *pt, uint32_t n, uint32_t pc);
uint32_t rba_score(const struct vgpu_sim *s, const struct sm *sm, uint32_t k, uint32_t slot,
		   uint64_t now);

/*
 * pool.c: host threads running one function together. pool_run() calls
 * @fn(@arg, tid) on every thread, tid 0 being the caller, and returns when
 * all have returned; everything written before it is visible to @fn, and
 * everything @fn wrote is visible after it.
 */
struct sim_pool;
struct sim_pool *pool_create(uint32_t nthreads, void (*fn)(void *arg, uint32_t tid), void *arg);
void pool_run(struct sim_pool *p);
void pool_destroy(struct sim_pool *p);
/* Zeroed memory in whole cache lines: no two SMs' state share one. */
void *sim_calloc(size_t n, size_t size);
/* The same, not zeroed. */
void *sim_malloc(size_t n, size_t size);

/* decode.c */
int sim_decode(struct vgpu_sim *s, struct job *j, const uint8_t *img, uint32_t size);
void sim_decode_release(struct job *j);

/* exec.c: executes the next instruction of @w at cycle @now. Returns 0, or
 * the negative status that ends the block (tb->fault_addr set for -EFAULT). */
int sim_exec(struct vgpu_sim *s, struct sm *sm, struct warp *w, uint64_t now);

/*
 * preempt.c: the saved context of a thread block (Documentation/model.rst,
 * "Preemption"). ctx_bytes_of() is vgpu_ctx_bytes() of the job's blocks,
 * ctx_cycles() what moving that many bytes costs an SM.
 */
uint64_t ctx_bytes_of(const struct job *j);
uint64_t ctx_cycles(const struct vgpu_sim *s, uint64_t bytes);
/* Writes @tb's context to its save_addr (checked to be in device memory). */
void ctx_save(struct vgpu_sim *s, const struct tb *tb, uint64_t now);
/*
 * Checks the save area at @addr for block @index of @j: 0 and the number of
 * warps that have not exited in *@live, or -EINVAL.
 */
int ctx_check(const struct vgpu_sim *s, const struct job *j, uint32_t index, uint64_t addr,
	      uint32_t *live);
/*
 * Loads a checked context into the new @tb: registers, predicates, SIMT
 * stacks, warp states, barrier count, shared and local memory, counters.
 */
/* Returns true for a context an ideal switch saved: it loads at no cost. */
bool ctx_load(const struct vgpu_sim *s, struct tb *tb, uint64_t addr);

/*
 * exec.c: virtual blocks. vtb_next() is NEXTTB's value for @w (the serial
 * phase: it takes from the job's counter); vtb_wait() whether @w's next
 * instruction @d must wait for a sibling (seed 003 §4.2.1: iterations of a
 * block's warps differ by at most 1; §4.4: shared memory only once every
 * sibling has left the previous iteration); vtb_min() the lowest iteration
 * of a live warp.
 */
uint32_t vtb_next(struct tb *tb, struct warp *w);
bool vtb_wait(const struct tb *tb, const struct warp *w, const struct dinst *d);
uint32_t vtb_min(const struct tb *tb);

/*
 * Set bits of @x. The x86-64 baseline has no POPCNT instruction, and the
 * compiler's __builtin_popcount() is a library call there: this is inline.
 */
static inline uint32_t sim_popcount(uint32_t x)
{
	x = x - ((x >> 1) & 0x55555555u);
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/* The L1I line of decoded instruction @pc of @j. */
static inline uint64_t sim_iline(const struct job *j, uint32_t pc)
{
	return (j->desc.program_addr + j->entry.code_start + (uint64_t)pc * 8) >> LINE_SHIFT;
}

/* Whether instruction @pc starts in the L1I line @w fetched last. */
static inline bool sim_in_iline(const struct warp *w, uint32_t pc)
{
	return (uint64_t)pc - w->ilo < w->ispan;
}

/*
 * mem_fetch() without the call when @w fetches from the line it fetched
 * last, or the SM has no L1I: the instruction is there at @now.
 */
static inline uint64_t sim_fetch(struct sm *sm, struct warp *w, uint32_t pc, uint64_t now)
{
	if (sim_in_iline(w, pc) || !sm->t.l1i.sets)
		return now;
	return mem_fetch(sm, w, pc, now);
}

/* The warp pool scheduler @k picks from (struct sm, npool). */
static inline uint32_t sim_pool(const struct sm *sm, uint32_t k)
{
	return sm->fc ? 0 : k;
}

/*
 * timing model: can a scheduler of pool @p issue the warp in @slot at @now?
 * A fully connected SM keeps in pool 0's entry of fu_free the earliest time
 * one of the shared units of the type is free (sim.c fu_take()).
 */
static inline bool sim_can_issue(const struct sm *sm, uint32_t p, uint32_t slot, uint64_t now)
{
	const struct wsum *x = &sm->sum[slot];

	if (x->ready > now)
		return false;
	if (sm->cstall && sm->t.cu_next[p] > now)
		return false;
	if (x->fu == FU_LDST)
		return sm->t.ldst_free <= now;
	return sm->t.fu_free[p * FU_N + x->fu] <= now;
}

/* Leaf @i of the min-tree of pool @q and unit @f takes @v; the root is minr's. */
static inline void sim_mtree_set(struct sm *sm, uint32_t q, uint32_t f, uint32_t i, uint64_t v)
{
	uint64_t *t = sm->mtree + ((size_t)q * FU_N + f) * sm->mstride;
	uint32_t n = sm->mleaves + i;

	t[n] = v;
	for (n >>= 1; n; n >>= 1) {
		uint64_t m = t[2 * n] < t[2 * n + 1] ? t[2 * n] : t[2 * n + 1];

		/* the node keeps its minimum: so do those above it */
		if (t[n] == m)
			return;
		t[n] = m;
	}
	sm->minr[q * FU_N + f] = t[1];
}

/*
 * Warp slot @slot's summary moves from (@oready, @ofu) to (@nready, @nfu):
 * the min-trees of its pool's units, and so the earliest ready warp per
 * unit, follow. The stall class of the SM's state must be worked out
 * again too.
 */
static inline void sim_wsum_move(struct sm *sm, uint32_t slot, uint64_t oready, uint8_t ofu,
				 uint64_t nready, uint8_t nfu)
{
	uint32_t q = slot % sm->npool, i = slot / sm->npool;

	sm->cls_ok = false;
	if (ofu != nfu) {
		if (oready != UINT64_MAX)
			sim_mtree_set(sm, q, ofu, i, UINT64_MAX);
		if (nready != UINT64_MAX)
			sim_mtree_set(sm, q, nfu, i, nready);
	} else if (oready != nready) {
		sim_mtree_set(sm, q, nfu, i, nready);
	}
}

/* Whether warp slot @slot holds a warp in W_RUN, into the scheduler's run mask. */
static inline void sim_wsum_run(struct sm *sm, uint32_t slot, bool run)
{
	uint32_t q = slot % sm->npool, i = slot / sm->npool;
	uint64_t *wd = &sm->rmask[(size_t)q * sm->rwords + i / 64];

	if (run)
		*wd |= 1ull << (i % 64);
	else
		*wd &= ~(1ull << (i % 64));
}

static inline void sim_wsync(struct sm *sm, const struct warp *w)
{
	struct wsum *x = &sm->sum[w->slot];
	uint64_t ready = w->state == W_RUN ? w->ready : UINT64_MAX;

	sim_wsum_move(sm, w->slot, x->ready, x->fu, ready, w->fu);
	if (x->run != (w->state == W_RUN))
		sim_wsum_run(sm, w->slot, w->state == W_RUN);
	if (x->run)
		sm->wcnt[x->fu == FU_LDST][x->why & 3]--;
	if (w->state == W_RUN)
		sm->wcnt[w->fu == FU_LDST][w->why & 3]++;
	x->run = w->state == W_RUN;
	x->ready = ready;
	x->fu = w->fu;
	x->why = w->why;
	x->prio = w->elf;
}

/* Warp slot @slot holds no warp that can issue (it left, or its block ended). */
static inline void sim_wsum_clear(struct sm *sm, uint32_t slot)
{
	struct wsum *x = &sm->sum[slot];

	sim_wsum_move(sm, slot, x->ready, x->fu, UINT64_MAX, x->fu);
	if (x->run) {
		sim_wsum_run(sm, slot, false);
		sm->wcnt[x->fu == FU_LDST][x->why & 3]--;
	}
	x->run = 0;
	x->ready = UINT64_MAX;
}

#endif /* VGPU_SIM_INT_H */
