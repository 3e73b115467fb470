/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu SM Status Table (SMST).
 *
 * Park, dissertation, Ch. II, Fig. 2.3: per SM, the kernels running there,
 * the state of each thread-block slot, the TB-to-kernel map and the
 * remaining registers, shared memory, thread slots and TB slots. Registers
 * of a TB and its shared memory are consecutive ranges with a base.
 */
#ifndef _VGPU_SMST_H_
#define _VGPU_SMST_H_

#include <linux/bits.h>
#include <linux/types.h>

#include <drm/vgpu_backend.h>

struct vgpu_device_desc;
struct vgpu_kcb_entry;

/** Hard upper bound of &vgpu_device_desc.max_tbs_per_sm. */
#define VGPU_SMST_MAX_SLOTS		64
/** Upper bound of register granules or shared-memory units per SM. */
#define VGPU_SMST_MAX_UNITS		BIT(18)

/**
 * struct vgpu_tb_res - resources that one thread block occupies on an SM.
 * @threads: thread slots; a TB occupies whole warps, so this is
 *	@warps × warp size.
 * @warps: warps of the TB.
 * @regs: registers; a multiple of &vgpu_smst.reg_granule.
 * @shared: shared-memory bytes; a multiple of &vgpu_smst.shared_unit
 *	(0 when the TB uses none).
 */
struct vgpu_tb_res {
	u32 threads;
	u32 warps;
	u32 regs;
	u32 shared;
};

/**
 * enum vgpu_occ_limit - what bounds the TBs of one kind on an SM
 * (vgpu_smst_occupancy_limit()): the scheduling limits (TB slots,
 * threads) or the capacity limits (registers, shared memory) of Yoon et
 * al. §II.
 * @VGPU_OCC_TBS: the SM's TB slots (scheduling limit).
 * @VGPU_OCC_THREADS: its thread slots (scheduling limit).
 * @VGPU_OCC_REGS: its register file (capacity limit).
 * @VGPU_OCC_SHARED: its shared memory (capacity limit).
 * @VGPU_OCC_COUNT: number of limits.
 */
enum vgpu_occ_limit {
	VGPU_OCC_TBS,
	VGPU_OCC_THREADS,
	VGPU_OCC_REGS,
	VGPU_OCC_SHARED,
	VGPU_OCC_COUNT,
};

/**
 * struct vgpu_smst_slot - one thread-block slot of an SM.
 * @job: KCB entry of the kernel the TB belongs to, NULL when the slot is
 *	free. Not a counted reference: a KCB entry stays in the KCB while any
 *	of its TBs runs.
 * @tb: linear thread-block index.
 * @res: what the TB occupies.
 * @reg_base: first register of the TB's range.
 * @shared_base: first byte of the TB's shared-memory range.
 */
struct vgpu_smst_slot {
	struct vgpu_kcb_entry *job;
	u32 tb;
	struct vgpu_tb_res res;
	u32 reg_base;
	u32 shared_base;
};

/**
 * struct vgpu_smst_kernel - TBs of one kernel on one SM.
 * @job: KCB entry (not counted, see &vgpu_smst_slot.job).
 * @tbs: TBs of that kernel running on the SM; never zero in the table.
 */
struct vgpu_smst_kernel {
	struct vgpu_kcb_entry *job;
	u32 tbs;
};

/**
 * enum vgpu_smst_alloc_mode - how register and shared-memory ranges are
 * placed on an SM.
 * @VGPU_SMST_FIRST_FIT: lowest range that fits, for every kernel.
 * @VGPU_SMST_TWO_WAY: 2-way allocation (Park, dissertation, Ch. V §5.4.2,
 *	Fig. 5.9): at most two kernels per SM; the first takes ranges from
 *	the bottom (lowest that fits), the second from the top (highest that
 *	fits), so that each kernel's ranges stay consecutive and what one
 *	kernel releases adjoins the free space (no Fig. 5.4 fragmentation).
 *	The fixed preemption order is the reverse of the allocation order:
 *	a bottom kernel gives up its highest TB first, a top kernel its
 *	lowest (see vgpu_smst_preempt_victim()).
 */
enum vgpu_smst_alloc_mode {
	VGPU_SMST_FIRST_FIT = 0,
	VGPU_SMST_TWO_WAY = 1,
};

/**
 * struct vgpu_sm - status of one SM.
 * @slot_map: bit i set when slot i holds a running TB.
 * @free_threads: remaining thread slots.
 * @free_slots: remaining TB slots.
 * @free_regs: remaining registers (sum over free granules).
 * @free_shared: remaining shared-memory bytes (sum over free units).
 * @reg_map: one bit per register granule, set when allocated.
 * @shared_map: one bit per shared-memory unit, set when allocated.
 * @nr_kernels: entries used in @kernels.
 * @kernels: the kernels running on this SM with their TB counts.
 * @slots: the TB slots.
 * @bottom: 2-way allocation: the kernel that allocates from the bottom,
 *	or NULL (not a counted reference; cleared when its last TB here ends).
 * @top: 2-way allocation: the kernel that allocates from the top, or NULL.
 * @frag_refusals: TBs refused because no consecutive range was free
 *	although the SM's free totals would admit them (counted by
 *	vgpu_smst_note_refusal()).
 */
struct vgpu_sm {
	u64 slot_map;
	u32 free_threads;
	u32 free_slots;
	u32 free_regs;
	u32 free_shared;
	unsigned long *reg_map;
	unsigned long *shared_map;
	u32 nr_kernels;
	struct vgpu_smst_kernel kernels[VGPU_SMST_MAX_SLOTS];
	struct vgpu_smst_slot slots[VGPU_SMST_MAX_SLOTS];
	struct vgpu_kcb_entry *bottom;
	struct vgpu_kcb_entry *top;
	u64 frag_refusals;
};

/**
 * struct vgpu_smst - the SM Status Table.
 * @num_sms: SMs in @sms.
 * @warp_size: threads per warp.
 * @max_tbs: TB slots per SM: @sched_tbs, or %VGPU_VT_MAX_TBS under
 *	Virtual Thread.
 * @max_threads: thread slots per SM: @sched_threads, or the threads of
 *	%VGPU_VT_VIRTUAL_WARPS warps (at least @sched_threads) under Virtual
 *	Thread.
 * @sched_tbs: the scheduling limit of TBs (&vgpu_device_desc.max_tbs_per_sm).
 * @sched_threads: the scheduling limit of threads
 *	(&vgpu_device_desc.max_threads_per_sm).
 * @vt: &enum vgpu_virtual_thread (vgpu_smst_set_vt()); under
 *	%VGPU_VT_ON every TB's shared-memory range ends in its
 *	vgpu_vt_ctx_bytes() context area.
 * @reg_granule: registers per allocation granule (warp size × register
 *	allocation unit): a warp's registers are a whole number of granules.
 * @reg_units: register granules per SM.
 * @shared_unit: shared-memory allocation unit in bytes.
 * @shared_units: shared-memory units per SM.
 * @sms: per-SM status, @num_sms entries.
 * @mode: &enum vgpu_smst_alloc_mode of the range allocator.
 * @frag_refusals: sum of &vgpu_sm.frag_refusals.
 *
 * The table has no lock of its own: every function below is a pure
 * function of its arguments and the table, and the caller serialises
 * (vgpu.ko holds &vgpu_device.lock). That keeps them testable by KUnit.
 */
struct vgpu_smst {
	u32 num_sms;
	u32 warp_size;
	u32 max_tbs;
	u32 max_threads;
	u32 sched_tbs;
	u32 sched_threads;
	enum vgpu_virtual_thread vt;
	u32 reg_granule;
	u32 reg_units;
	u32 shared_unit;
	u32 shared_units;
	struct vgpu_sm *sms;
	enum vgpu_smst_alloc_mode mode;
	u64 frag_refusals;
};

/**
 * struct vgpu_smst_place - where vgpu_smst_alloc() put a TB.
 * @slot: TB slot on the SM.
 * @reg_base: first register of its range.
 * @shared_base: first shared-memory byte of its range (0 when it uses
 *	no shared memory).
 */
struct vgpu_smst_place {
	u32 slot;
	u32 reg_base;
	u32 shared_base;
};

#if IS_ENABLED(CONFIG_KUNIT)
extern bool vgpu_smst_quiet;
extern unsigned int vgpu_smst_bugs;
#endif

int vgpu_smst_init(struct vgpu_smst *st, const struct vgpu_device_desc *desc);
void vgpu_smst_fini(struct vgpu_smst *st);
void vgpu_smst_reset(struct vgpu_smst *st);
int vgpu_tb_res_compute(const struct vgpu_device_desc *desc, u32 threads,
			u32 regs_per_thread, u32 shared_bytes,
			struct vgpu_tb_res *res);
bool vgpu_smst_can_fit(const struct vgpu_smst *st, u32 sm,
		       const struct vgpu_tb_res *res);
bool vgpu_smst_can_fit_job(const struct vgpu_smst *st, u32 sm,
			   const struct vgpu_tb_res *res,
			   const struct vgpu_kcb_entry *job);
int vgpu_smst_alloc(struct vgpu_smst *st, u32 sm,
		    const struct vgpu_tb_res *res, struct vgpu_kcb_entry *job,
		    u32 tb, struct vgpu_smst_place *place);
int vgpu_smst_free(struct vgpu_smst *st, u32 sm, u32 slot);
const struct vgpu_smst_slot *vgpu_smst_slot(const struct vgpu_smst *st,
					    u32 sm, u32 slot);
bool vgpu_smst_sm_empty(const struct vgpu_smst *st, u32 sm);
u32 vgpu_smst_occupancy(const struct vgpu_smst *st,
			const struct vgpu_tb_res *res);
u32 vgpu_smst_occupancy_limit(const struct vgpu_smst *st,
			      const struct vgpu_tb_res *res,
			      enum vgpu_occ_limit *limit);
bool vgpu_smst_totals_fit(const struct vgpu_smst *st, u32 sm,
			  const struct vgpu_tb_res *res);
void vgpu_smst_note_refusal(struct vgpu_smst *st, u32 sm,
			    const struct vgpu_tb_res *res);
int vgpu_smst_preempt_victim(const struct vgpu_smst *st, u32 sm,
			     const struct vgpu_kcb_entry *job);
u32 vgpu_smst_kernel_tbs(const struct vgpu_smst *st, u32 sm,
			 const struct vgpu_kcb_entry *job);
int vgpu_smst_set_vt(struct vgpu_smst *st, enum vgpu_virtual_thread mode);

#endif /* _VGPU_SMST_H_ */
