/* SPDX-License-Identifier: MIT */
/*
 * vgpu_sim.h - the GPU model that vgpud drives: SMs executing vGPU ISA thread
 * blocks over the device memory. Mechanism only: which block runs where is
 * decided by vgpu.ko and arrives as commands (uapi/drm/vgpu_backend.h).
 *
 * Deterministic: the same sequence of calls gives the same events and
 * cycles. No wall-clock time is read anywhere in the model.
 */
#ifndef VGPU_SIM_H
#define VGPU_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_backend.h>

struct vgpu_sim;

/*
 * Local memory one thread may use in every preset (desc.max_local_per_thread):
 * 16 KiB. The model gives each resident block its own zeroed local memory,
 * so an SM full of threads at the limit takes 16 KiB x 2048 = 32 MiB of
 * host memory; CUDA's 512 KiB would take a gigabyte per SM.
 */
#define VGPU_SIM_LOCAL_MAX	(16u * 1024)

/* Warp scheduling policies (config key "scheduler"). */
enum vgpu_sched_policy {
	VGPU_SCHED_LRR = 0,	/* loose round robin */
	VGPU_SCHED_GTO,		/* greedy then oldest */
	VGPU_SCHED_TWO_LEVEL,	/* two-level active/pending sets (Narasiman et al.) */
	VGPU_SCHED_ELF,		/* earliest load first (thesis Ch. III) */
	VGPU_SCHED_RBA,		/* register-bank-aware (sub-core paper Sec. IV) */
	VGPU_SCHED_PROGRESS,	/* progress-aware, virtual blocks (seed 003 §4.3.2) */
	VGPU_SCHED_COUNT_
};

/* Assignment of warps to sub-cores (config key "subcore_assign"). */
enum vgpu_subcore_assign {
	VGPU_SUBCORE_RR = 0,	/* round robin: sub = W mod N */
	VGPU_SUBCORE_SRR,	/* skewed round robin: sub = (W + W / N) mod N */
	VGPU_SUBCORE_SHUFFLE,	/* balanced seeded random permutations */
	VGPU_SUBCORE_COUNT_
};

/* The occupied L1I and L1D MSHRs below which next-line prefetch fetches. */
#define VGPU_SIM_PREFETCH_MSHRS	16
/* Entries of the NewCAR re-execution queue (thesis Sec. 3.3.4, Mascar's CAR). */
#define VGPU_SIM_NEWCAR_ENTRIES	32

/**
 * struct vgpu_sim_config - what the model is built from. Documented with the
 * key = value file format in Documentation/model.rst. A zero timing field
 * takes its default (vgpu_sim_config_defaults()).
 * @desc: the hardware limits; reported to the kernel at attach.
 * @schedulers_per_sm: warp schedulers (= sub-cores) per SM; warp slot k
 *	belongs to scheduler k % schedulers_per_sm, each with its own SP, SFU
 *	and DP pipelines.
 * @alu_latency: cycles from issue to result for integer/f32 arithmetic.
 * @sfu_latency: ... for transcendental / division / sqrt.
 * @mem_latency: load-to-use cycles of a global load served by DRAM (row
 *	buffer hit, idle memory system).
 * @shared_latency: ... of a shared memory load without bank conflicts.
 * @threads: host threads that simulate the SMs (0 or 1: the calling
 *	thread only). Not a property of the hardware: events, cycles,
 *	counters and memory are the same for every value.
 * @kernel_sched: kernel-aware warp scheduling, &enum vgpu_kernel_sched
 *	(config key "kernel_sched"; thesis Ch. V §5.4.3): how a warp
 *	scheduler chooses between the kernels sharing its SM, on top of
 *	@scheduler. Changed at run time by vgpu_sim_set_kernel_sched().
 * @newcar: 1: the LD/ST unit has the NewCAR re-execution queue (thesis
 *	Sec. 3.3.4): an L1D miss without a free MSHR or way waits in the
 *	queue instead of stalling the unit.
 * @l1i_prefetch: 1: next-line L1I prefetch while fewer than
 *	%VGPU_SIM_PREFETCH_MSHRS L1I and L1D MSHRs are occupied (Sec. 3.3.5).
 * @subcore_assign: &enum vgpu_subcore_assign: which sub-core (scheduler)
 *	a new warp goes to; @subcore_seed seeds Shuffle's permutations.
 * The warp scheduler and these change at run time by
 * vgpu_sim_set_warp_sched() and vgpu_sim_set_subcore_assign().
 * @fully_connected: 1: the SM is not split into sub-cores (the sub-core
 *	paper's "fully connected SM", Sec. I and VI-B1): one pool of warps
 *	that every scheduler picks from, each unit type's schedulers_per_sm
 *	units shared by all of them, and the reg_banks * schedulers_per_sm
 *	register banks and collectors * schedulers_per_sm collector units
 *	shared too (bank (reg + warp slot) % all banks). The issue width stays
 *	schedulers_per_sm instructions a cycle; @subcore_assign has no effect.
 *	Fixed when the model is created.
 * @l2_calendar: 1: an L2 slice's tag port keeps a calendar of the cycles
 *	it is booked, and an access takes the first free cycles at or after
 *	its arrival, even before a later booking (a NewCAR re-execution
 *	books its access when it is queued, at its future time); 0: the port
 *	is one busy-until time, and an access waits behind every booking
 *	made before it.
 * @dram_calendar: the same for a memory partition's DRAM channel: a
 *	transfer takes the channel's free time (in 1/256 cycles) from its
 *	arrival on, instead of starting after every transfer booked before.
 * @collector_stall: 1: a scheduler issues only while one of its operand
 *	collector units (of the SM's, fully connected) is free (sub-core
 *	paper Sec. VI-B1: the warp scheduling stage stalls when the collector
 *	units are exhausted); 0: an instruction waits for one after issue,
 *	its result later, the scheduler going on.
 */
struct vgpu_sim_config {
	struct vgpu_device_desc desc;
	uint32_t schedulers_per_sm;
	uint32_t alu_latency;
	uint32_t sfu_latency;
	uint32_t mem_latency;
	uint32_t shared_latency;
	/* timing model; see Documentation/model.rst for each key */
	uint32_t scheduler;		/* enum vgpu_sched_policy */
	uint32_t two_level_active;	/* active warps per scheduler (two-level) */
	uint32_t alu_ii, sfu_ii;	/* initiation intervals per scheduler */
	uint32_t dp_latency, dp_ii;
	uint32_t const_latency;
	uint32_t shared_banks;
	uint32_t l1d_size, l1d_assoc, l1d_mshrs, l1d_latency;	/* 128-byte lines */
	uint32_t l2_size, l2_assoc, l2_latency;	/* l2_size: all slices together */
	uint32_t mem_partitions;
	uint32_t dram_bandwidth_mbs;	/* all partitions, MB/s */
	uint32_t dram_banks, dram_row_bytes, dram_row_miss;
	uint32_t icnt_latency;
	uint32_t atomic_latency;
	uint32_t l1i_size, l1i_assoc;	/* 0: ideal instruction fetch */
	uint32_t reg_banks, collectors;	/* per scheduler; 0: ideal operand reads */
	uint32_t threads;		/* host threads; 0 or 1: the calling thread */
	uint32_t kernel_sched;		/* enum vgpu_kernel_sched */
	uint32_t newcar, l1i_prefetch;	/* ELF's companions: 0 off, 1 on */
	uint32_t subcore_assign;	/* enum vgpu_subcore_assign */
	uint32_t subcore_seed;		/* Shuffle's seed */
	uint32_t fully_connected;	/* 1: no sub-core split */
	uint32_t l2_calendar;		/* 1: L2 tag ports keep a reservation calendar */
	uint32_t dram_calendar;		/* 1: DRAM channels keep one */
	uint32_t collector_stall;	/* 1: no issue while every collector unit is busy */
};

/* Fills the zero timing fields of @cfg with defaults. */
void vgpu_sim_config_defaults(struct vgpu_sim_config *cfg);
/*
 * Applies one "key = value" setting (Documentation/model.rst); -ENOENT
 * unknown key, -EINVAL bad value. "gpu = NAME" loads a preset first
 * (keeping "threads", which is not part of the hardware).
 */
int vgpu_sim_config_set(struct vgpu_sim_config *cfg, const char *key, const char *value);
/*
 * Reads a configuration file: lines "key = value", '#' comments. On an
 * error returns it and, when @err is not NULL, describes it ("file:line:
 * ...") in @err.
 */
int vgpu_sim_config_load(struct vgpu_sim_config *cfg, const char *path, char *err,
			 size_t errlen);
/* Writes @cfg in the file format (all keys). */
int vgpu_sim_config_write(const struct vgpu_sim_config *cfg, char *buf, size_t len);

/* Fills @cfg with the named preset; -ENOENT for an unknown name. */
int vgpu_sim_preset(const char *name, struct vgpu_sim_config *cfg);
/* NULL-terminated list of preset names. */
const char *const *vgpu_sim_preset_names(void);

/*
 * @vram is the device memory (mapped from the kernel, or any buffer in tests).
 * With cfg->threads > 1 the model starts that many host threads less one
 * (the caller of vgpu_sim_step() is one of them), at most one per SM; if it
 * cannot, it simulates on the calling thread alone, with the same results.
 */
struct vgpu_sim *vgpu_sim_create(const struct vgpu_sim_config *cfg,
				 uint8_t *vram, uint64_t vram_size);
void vgpu_sim_destroy(struct vgpu_sim *sim);

/* Commands; each takes effect at the current cycle. */
/* Reads the job descriptor at @desc_addr and decodes its program. A bad
 * descriptor or program is not an error of the call: the job is marked
 * faulted and each of its dispatched blocks completes at once with that
 * status (-EINVAL, -EILSEQ). Returns -ENOMEM, -EEXIST (job id in use). */
int vgpu_sim_job_begin(struct vgpu_sim *sim, uint32_t job, uint64_t desc_addr);
/*
 * DISPATCH command; -ENOENT unknown job, -EINVAL bad sm/slot/ranges/flags.
 * With VGPU_DISPATCH_RESTORE the block resumes from the context a SWITCH
 * saved at cmd->addr (-EINVAL when the save area is not one of this job's
 * block cmd->tb); it issues again ctx_bytes / (DRAM bytes per cycle / SMs)
 * cycles later, its TB_DONE's warp_insts counts from its start and its
 * tb_cycles from this dispatch.
 */
int vgpu_sim_dispatch(struct vgpu_sim *sim, const struct vgpu_cmd *cmd);
/*
 * PREEMPT command (Documentation/model.rst, "Preemption"). Every command
 * gets exactly one VGPU_EVT_PREEMPTED: status 0 when the slot is free (a
 * FLUSH at once, a SWITCH once the context is saved), -ENOENT when the
 * block is not in that slot (it finished first; the call returns 0), and
 * for a refused command -EINVAL (bad sm, slot or technique, save area
 * outside device memory) or -EBUSY (a switch of that block under way),
 * which the call returns too. -ENOMEM: not even the event could be queued.
 */
int vgpu_sim_preempt(struct vgpu_sim *sim, const struct vgpu_cmd *cmd);
/*
 * SET_KERNEL_SCHED command: the kernel-aware warp scheduling mode (enum
 * vgpu_kernel_sched, Documentation/model.rst "Kernel-aware warp
 * scheduling") from the current cycle on; -EINVAL for an unknown mode.
 * The schedulers' kernel-aware counters start afresh.
 */
int vgpu_sim_set_kernel_sched(struct vgpu_sim *sim, uint32_t mode);
/*
 * SET_WARP_SCHED command: the warp scheduler (&enum vgpu_sched_policy) and
 * the NewCAR queue and L1I prefetch (@newcar, @prefetch: 0 or 1) from the
 * current cycle on; every scheduler's state starts afresh (as at an idle
 * device). Requests already in the NewCAR queue stay there. -EINVAL for
 * an unknown policy.
 */
int vgpu_sim_set_warp_sched(struct vgpu_sim *sim, uint32_t policy, uint32_t newcar,
			    uint32_t prefetch);
/*
 * SET_SUBCORE_ASSIGN command: the sub-core assignment (&enum
 * vgpu_subcore_assign) of warps dispatched from the current cycle on;
 * resident warps stay where they are. -EINVAL for an unknown mode.
 */
int vgpu_sim_set_subcore_assign(struct vgpu_sim *sim, uint32_t mode);
/*
 * SET_WARP_SCHED and SET_SUBCORE_ASSIGN commands (&enum vgpu_warp_sched,
 * &enum vgpu_subcore_assign_mode of vgpu_backend.h): the same from the
 * current cycle on, CONFIG being what the model was created with; -EINVAL
 * for an unknown value.
 */
int vgpu_sim_warp_sched_cmd(struct vgpu_sim *sim, uint32_t mode);
int vgpu_sim_subcore_assign_cmd(struct vgpu_sim *sim, uint32_t mode);
/*
 * SET_VIRTUAL_THREAD command (&enum vgpu_virtual_thread): how many blocks
 * an SM holds and how many of them issue (Documentation/model.rst,
 * "Virtual Thread"). -EINVAL for an unknown mode, -EBUSY while a block is
 * resident.
 */
int vgpu_sim_set_virtual_thread(struct vgpu_sim *sim, uint32_t mode);
/*
 * The sub-core that warp id @w of SM @sm goes to under @mode with @n
 * sub-cores and Shuffle seed @seed (exposed for the tests).
 */
uint32_t vgpu_sim_subcore_of(uint32_t mode, uint32_t seed, uint32_t sm, uint32_t w, uint32_t n);
/*
 * Gives the block in @slot of @sm issue priority (or takes it away): in
 * the kernel-aware modes other than none, and with two or more kernels on
 * the SM, the warp schedulers pick its warps before any other (thesis
 * §5.4.3: draining blocks and 2-way boundary blocks). -EINVAL bad sm or
 * slot, -ENOENT no block there.
 */
int vgpu_sim_set_tb_priority(struct vgpu_sim *sim, uint32_t sm, uint32_t slot, bool prio);
/*
 * SET_TB_PRIORITY command: vgpu_sim_set_tb_priority() on for the block the
 * command names; -ENOENT when that block is no longer in the slot (another
 * one, or none, is there), -EINVAL bad sm or slot. Nothing changes then.
 */
int vgpu_sim_tb_priority_cmd(struct vgpu_sim *sim, const struct vgpu_cmd *cmd);
/*
 * Pauses the block in @slot of @sm (DYNCTA's CTA pausing, Kayiran et al.
 * §4.1) or lets it run again: its warps issue only in cycles in which no
 * warp of an unpaused block on the SM can (model.rst). -EINVAL bad sm or
 * slot, -ENOENT no block there.
 */
int vgpu_sim_set_tb_paused(struct vgpu_sim *sim, uint32_t sm, uint32_t slot, bool paused);
/*
 * SET_TB_PAUSED command: vgpu_sim_set_tb_paused() for the block the
 * command names, @flags 1 paused, 0 not; -ENOENT when that block is no
 * longer in the slot, -EINVAL bad sm, slot or flags. Nothing changes then.
 */
int vgpu_sim_tb_paused_cmd(struct vgpu_sim *sim, const struct vgpu_cmd *cmd);
/*
 * SET_SM_GATED command: SM @sm is off (@gated) or on again; the model
 * counts the cycles in which it is off and empty. -EINVAL bad sm.
 */
int vgpu_sim_set_sm_gated(struct vgpu_sim *sim, uint32_t sm, bool gated);
/*
 * SET_SAMPLING command: from the current cycle on, at every multiple of
 * @period cycles (0: never) while blocks are resident, vgpu_sim_step()
 * stops and returns one VGPU_EVT_SM_SAMPLE per SM, in SM order, with the
 * SM's counters of the period (struct vgpu_evt_sample). Sampling changes
 * no cycle count.
 */
void vgpu_sim_set_sampling(struct vgpu_sim *sim, uint64_t period);
/* Drops a job; blocks still running of it are discarded. */
void vgpu_sim_job_end(struct vgpu_sim *sim, uint32_t job);

uint64_t vgpu_sim_cycle(const struct vgpu_sim *sim);
void vgpu_sim_set_cycle(struct vgpu_sim *sim, uint64_t cycle);
/* True while any thread block is resident (or a completion is pending). */
bool vgpu_sim_busy(const struct vgpu_sim *sim);
/*
 * RESET command: an idle device forgets what its caches, MSHRs, DRAM row
 * buffers and pipelines hold, so that the same launches on an unused device
 * take the same cycles every time. Ignored while busy. Between launches
 * that state otherwise carries over, as on a real GPU.
 */
void vgpu_sim_reset(struct vgpu_sim *sim);
/**
 * struct vgpu_sim_tb_end - a block that ended, for vgpu_sim_set_tb_hook().
 * @job: its job.
 * @tb: its index in the grid.
 * @sm: the SM it ran on.
 * @status: what its TB_DONE event says (0, or the fault).
 * @cycles: cycles from its dispatch to its end (TB_DONE's tb_cycles).
 * @warp_insts: warp instructions it executed.
 * @crossed: it crossed its idempotence boundary (an atomic or a global
 *	overwrite; Chimera's relaxed idempotence, TB_DONE's
 *	%VGPU_EVT_F_CROSSED_BOUNDARY).
 * @cross_cycles: when @crossed, the cycles from its dispatch to the issue
 *	of the first instruction that crossed: how long it was idempotent.
 *	Zero for a block restored from a context saved after it crossed.
 * @cross_insts: when @crossed, the warp instructions it had executed
 *	before that one.
 */
struct vgpu_sim_tb_end {
	uint32_t job;
	uint32_t tb;
	uint32_t sm;
	int32_t status;
	uint64_t cycles;
	uint64_t warp_insts;
	bool crossed;
	uint64_t cross_cycles;
	uint64_t cross_insts;
};
/*
 * @hook sees every block that ends (not one preempted), when it posts its
 * TB_DONE event, on the thread that runs the model (NULL: none). For
 * tools that characterise kernels (vgpu bench preempt-cost): it changes
 * no cycle.
 */
void vgpu_sim_set_tb_hook(struct vgpu_sim *sim,
			  void (*hook)(void *ctx, const struct vgpu_sim_tb_end *e), void *ctx);
/*
 * Fills the thread-block status table (uapi vgpu_backend.h): entry
 * sm * @slots_per_sm + slot for every slot, the block in it and how far it
 * has got, zeroed when free (status.c).
 */
void vgpu_sim_tb_status(const struct vgpu_sim *sim, struct vgpu_tb_status *table,
			uint32_t slots_per_sm);

/*
 * Simulates until the first cycle at which at least one event happens, but
 * not past @limit (UINT64_MAX for none). Stores up to @max events of that
 * cycle in @out, all stamped with it; if there were more, the next call
 * returns them without advancing time. Returns the number of events (0 when
 * @limit was reached or nothing is resident); afterwards vgpu_sim_cycle() is
 * the cycle of those events (or @limit). When idle the cycle does not move.
 */
int vgpu_sim_step(struct vgpu_sim *sim, uint64_t limit, struct vgpu_evt *out,
		  unsigned int max);

/**
 * struct vgpu_sim_stats - counters (totals since creation, per SM or per job).
 * @warp_insts: warp instructions issued.
 * @thread_insts: thread instructions (active lanes) executed.
 * @tbs_done: blocks completed.
 * @cycles: SM cycles with at least one block resident (per job: cycles
 *	from its first dispatch to its last completion).
 * @issue_cycles: SM cycles in which at least one instruction was issued.
 * @c_idle: SM cycles without a resident block while another SM had one
 *	(DYNCTA, Kayiran et al. Sec. 4: no threads to issue).
 * @c_mem: SM cycles in which every resident warp waited for memory (DYNCTA).
 * @stall_mem_conflict: cycles without issue because the LD/ST unit was
 *	busy (bank conflicts, uncoalesced accesses, MSHR reservation fails);
 *	thesis Fig. 3.2 "memory conflict".
 * @stall_mem_dep: ... because warps waited for loaded data ("memory
 *	dependency").
 * @stall_fetch: ... because warps waited for an instruction fetch (L1I miss).
 * @stall_other: ... any other reason (ALU dependencies, barriers, busy units).
 * @l1d_accesses, @l1d_hits: global/local load line accesses to L1D.
 * @l2_accesses, @l2_hits: sector-group accesses at the L2 slices.
 * @dram_read_bytes, @dram_write_bytes: DRAM traffic.
 * @shared_accesses, @shared_conflicts: shared memory warp accesses and their
 *	extra cycles from bank conflicts.
 * @mshr_fails: L1D misses that found no free MSHR (reservation failures).
 * @mshr_busy: sum over L1D misses of the MSHRs busy when they were issued
 *	(mshr_busy / (l1d_accesses - l1d_hits) = mean occupancy seen).
 * @gated_cycles: SM cycles turned off (VGPU_CMD_SET_SM_GATED) with no block
 *	resident, while another SM had one (DYNCORE; complete once the device
 *	is idle).
 * @vt_swaps: Virtual Thread swaps of an active block for an inactive one.
 * @reg_reads: source register reads through the register banks (0 with
 *	ideal operand reads: reg_banks or collectors 0).
 * @reg_bank_conflicts: cycles instructions waited in their collector unit
 *	for a register bank another read held, summed over instructions (the
 *	wait for a free collector unit not counted).
 * @vt_lq_queued: Virtual Thread: L1D load transactions that met a
 *	reservation failure and waited in the SM's load queue (Sec. IV-D).
 * @vt_lq_inactive: ... of them, those replayed from the inactive queue
 *	(their block swapped out).
 */
struct vgpu_sim_stats {
	uint64_t warp_insts;
	uint64_t thread_insts;
	uint64_t tbs_done;
	uint64_t cycles;
	uint64_t issue_cycles;
	uint64_t c_idle;
	uint64_t c_mem;
	uint64_t stall_mem_conflict;
	uint64_t stall_mem_dep;
	uint64_t stall_fetch;
	uint64_t stall_other;
	uint64_t l1d_accesses;
	uint64_t l1d_hits;
	uint64_t l2_accesses;
	uint64_t l2_hits;
	uint64_t dram_read_bytes;
	uint64_t dram_write_bytes;
	uint64_t shared_accesses;
	uint64_t shared_conflicts;
	uint64_t mshr_fails;
	uint64_t mshr_busy;
	uint64_t gated_cycles;
	uint64_t vt_swaps;
	uint64_t reg_reads;
	uint64_t reg_bank_conflicts;
	uint64_t vt_lq_queued;
	uint64_t vt_lq_inactive;
};
/* Totals over all SMs and jobs. */
void vgpu_sim_get_stats(const struct vgpu_sim *sim, struct vgpu_sim_stats *st);
/* One SM's counters; -EINVAL for a bad index. */
int vgpu_sim_get_sm_stats(const struct vgpu_sim *sim, uint32_t sm, struct vgpu_sim_stats *st);
/* One job's counters (the stall fields stay zero); -ENOENT unknown job. */
int vgpu_sim_get_job_stats(const struct vgpu_sim *sim, uint32_t job,
			   struct vgpu_sim_stats *st);

#endif /* VGPU_SIM_H */
