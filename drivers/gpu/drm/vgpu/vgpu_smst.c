// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu SM Status Table: per-SM resource accounting.
 *
 * Park, dissertation, Ch. II, Fig. 2.3 (the SMST of the baseline
 * multitasking GPU): for every SM the thread-block slots with the kernel and
 * TB they hold, and the remaining registers, shared memory, thread slots and
 * TB slots. Registers and shared memory of one TB are consecutive ranges
 * with a base register / base address, allocated first-fit over allocation
 * units (a bitmap per SM): first-fit, or the 2-way allocation of Ch. V
 * §5.4.2 (see &enum vgpu_smst_alloc_mode).
 *
 * No locking in here: the caller serialises (see struct vgpu_smst).
 */

#include <linux/bitmap.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include <drm/vgpu_backend.h>

#include "vgpu_smst.h"

/*
 * Accounting errors (double free, ranges not allocated, totals above
 * capacity) are bugs: they WARN. KUnit provokes them on purpose; it sets
 * vgpu_smst_quiet so that the test kernel's log stays free of warnings and
 * counts them in vgpu_smst_bugs instead.
 */
VISIBLE_IF_KUNIT bool vgpu_smst_quiet;
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_quiet);
VISIBLE_IF_KUNIT unsigned int vgpu_smst_bugs;
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_bugs);

static bool vgpu_smst_bug(bool cond, u32 sm, u32 slot, const char *what)
{
	if (!cond)
		return false;
	vgpu_smst_bugs++;
	WARN(!vgpu_smst_quiet, "vgpu: SMST %s on SM %u slot %u\n", what, sm,
	     slot);
	return true;
}

/**
 * vgpu_tb_res_compute() - resources one thread block needs on an SM.
 * @desc: the device.
 * @threads: threads of the block (product of its dimensions), at least 1.
 * @regs_per_thread: registers each thread needs.
 * @shared_bytes: static plus dynamic shared memory of the block.
 * @res: out.
 *
 * A block occupies whole warps. Registers are allocated per warp, each
 * thread's count rounded up to a multiple of
 * &vgpu_device_desc.reg_alloc_unit (any positive value); shared memory is
 * rounded up to &vgpu_device_desc.shared_alloc_unit (a power of two).
 *
 * Return: 0, or -E2BIG when a total does not fit 32 bits.
 */
int vgpu_tb_res_compute(const struct vgpu_device_desc *desc, u32 threads,
			u32 regs_per_thread, u32 shared_bytes,
			struct vgpu_tb_res *res)
{
	u64 warps, regs, shared;

	warps = DIV_ROUND_UP((u64)threads, desc->warp_size);
	regs = warps * desc->warp_size *
	       roundup((u64)regs_per_thread, desc->reg_alloc_unit);
	shared = round_up((u64)shared_bytes, desc->shared_alloc_unit);
	if (warps * desc->warp_size > U32_MAX || regs > U32_MAX ||
	    shared > U32_MAX)
		return -E2BIG;
	res->warps = warps;
	res->threads = warps * desc->warp_size;
	res->regs = regs;
	res->shared = shared;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_tb_res_compute);

/**
 * vgpu_smst_init() - build the table for a device.
 * @st: the table, zeroed or finished.
 * @desc: the device, already validated (see vgpu_desc_validate()).
 *
 * Return: 0, -EINVAL for a description the table cannot represent, or
 * -ENOMEM.
 */
int vgpu_smst_init(struct vgpu_smst *st, const struct vgpu_device_desc *desc)
{
	u32 i;

	memset(st, 0, sizeof(*st));
	if (!desc->num_sms || !desc->warp_size || !desc->reg_alloc_unit ||
	    !desc->shared_alloc_unit || !desc->max_tbs_per_sm ||
	    desc->max_tbs_per_sm > VGPU_SMST_MAX_SLOTS)
		return -EINVAL;
	st->num_sms = desc->num_sms;
	st->warp_size = desc->warp_size;
	st->max_tbs = desc->max_tbs_per_sm;
	st->max_threads = desc->max_threads_per_sm;
	st->sched_tbs = st->max_tbs;
	st->sched_threads = st->max_threads;
	st->vt = VGPU_VT_OFF;
	st->reg_granule = desc->warp_size * desc->reg_alloc_unit;
	st->reg_units = desc->regs_per_sm / st->reg_granule;
	st->shared_unit = desc->shared_alloc_unit;
	st->shared_units = desc->shared_per_sm / st->shared_unit;
	if (!st->reg_units || st->reg_units > VGPU_SMST_MAX_UNITS ||
	    !st->shared_units || st->shared_units > VGPU_SMST_MAX_UNITS)
		return -EINVAL;

	st->sms = kvcalloc(st->num_sms, sizeof(*st->sms), GFP_KERNEL);
	if (!st->sms)
		return -ENOMEM;
	for (i = 0; i < st->num_sms; i++) {
		struct vgpu_sm *sm = &st->sms[i];

		sm->reg_map = bitmap_zalloc(st->reg_units, GFP_KERNEL);
		sm->shared_map = bitmap_zalloc(st->shared_units, GFP_KERNEL);
		if (!sm->reg_map || !sm->shared_map) {
			vgpu_smst_fini(st);
			return -ENOMEM;
		}
	}
	vgpu_smst_reset(st);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_init);

/**
 * vgpu_smst_fini() - free the table.
 * @st: the table; may be zeroed or already finished.
 */
void vgpu_smst_fini(struct vgpu_smst *st)
{
	u32 i;

	if (!st->sms)
		return;
	for (i = 0; i < st->num_sms; i++) {
		bitmap_free(st->sms[i].reg_map);
		bitmap_free(st->sms[i].shared_map);
	}
	kvfree(st->sms);
	st->sms = NULL;
	st->num_sms = 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_fini);

/**
 * vgpu_smst_reset() - mark every SM empty, with all resources free.
 * @st: the table.
 */
void vgpu_smst_reset(struct vgpu_smst *st)
{
	u32 i;

	for (i = 0; i < st->num_sms; i++) {
		struct vgpu_sm *sm = &st->sms[i];

		sm->slot_map = 0;
		sm->free_threads = st->max_threads;
		sm->free_slots = st->max_tbs;
		sm->free_regs = st->reg_units * st->reg_granule;
		sm->free_shared = st->shared_units * st->shared_unit;
		bitmap_zero(sm->reg_map, st->reg_units);
		bitmap_zero(sm->shared_map, st->shared_units);
		sm->nr_kernels = 0;
		memset(sm->kernels, 0, sizeof(sm->kernels));
		memset(sm->slots, 0, sizeof(sm->slots));
		sm->bottom = NULL;
		sm->top = NULL;
		sm->frag_refusals = 0;
	}
	st->frag_refusals = 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_reset);

/* First fit of @nr units in @map; returns the first unit or @size. */
static unsigned long vgpu_smst_first_fit(unsigned long *map,
					 unsigned long size, u32 nr)
{
	if (!nr)
		return 0;
	return bitmap_find_next_zero_area(map, size, 0, nr, 0);
}

/* Highest start of @nr free units in @map; returns it or @size. */
static unsigned long vgpu_smst_top_fit(unsigned long *map, unsigned long size,
				       u32 nr)
{
	unsigned long start, b;

	if (!nr)
		return 0;
	if (nr > size)
		return size;
	start = size - nr;
	for (;;) {
		b = find_next_bit(map, start + nr, start);
		if (b >= start + nr)
			return start;
		if (b < nr)
			return size;
		start = b - nr;
	}
}

/*
 * Direction in which @job allocates on @sm: false for bottom-up, true for
 * top-down. Under 2-way allocation a kernel new to the SM takes the free
 * direction; *@claim says it must be recorded. Returns -ENOSPC when both
 * directions belong to other kernels (two kernels per SM at most).
 */
static int vgpu_smst_dir(const struct vgpu_smst *st, const struct vgpu_sm *sm,
			 const struct vgpu_kcb_entry *job, bool *top,
			 bool *claim)
{
	*top = false;
	*claim = false;
	if (st->mode != VGPU_SMST_TWO_WAY)
		return 0;
	if (job && job == sm->bottom)
		return 0;
	if (job && job == sm->top) {
		*top = true;
		return 0;
	}
	*claim = true;
	if (!sm->bottom && (!sm->top || sm->nr_kernels < 2))
		return 0;
	if (!sm->top && sm->nr_kernels < 2) {
		*top = true;
		return 0;
	}
	return -ENOSPC;
}

/*
 * What a TB takes on an SM: under Virtual Thread (%VGPU_VT_ON) its
 * shared-memory range also holds the state saved when it is swapped out
 * (Yoon et al. Sec. IV-B, the context region), so that the capacity limit
 * accounts for it. A TB whose own shared memory leaves no room for the
 * region on an empty SM takes none: with it, it would never be placed and
 * its job would wait for good (the region is where the model charges the
 * swap's transfer; it holds no data the model reads back).
 */
static struct vgpu_tb_res vgpu_smst_taken(const struct vgpu_smst *st,
					  const struct vgpu_tb_res *res)
{
	struct vgpu_tb_res r = *res;
	u32 area;

	if (st->vt != VGPU_VT_ON)
		return r;
	area = round_up(vgpu_vt_ctx_bytes(res->warps), st->shared_unit);
	if (res->shared + area <= st->shared_units * st->shared_unit)
		r.shared += area;
	return r;
}

static bool vgpu_smst_find(const struct vgpu_smst *st, const struct vgpu_sm *sm,
			   const struct vgpu_tb_res *res,
			   const struct vgpu_kcb_entry *job, bool *top,
			   bool *claim, unsigned long *reg_unit,
			   unsigned long *shared_unit)
{
	u32 reg_nr = res->regs / st->reg_granule;
	u32 shared_nr = res->shared / st->shared_unit;

	if (!sm->free_slots || res->threads > sm->free_threads ||
	    res->regs > sm->free_regs || res->shared > sm->free_shared)
		return false;
	if (vgpu_smst_dir(st, sm, job, top, claim))
		return false;
	if (*top) {
		*reg_unit = vgpu_smst_top_fit(sm->reg_map, st->reg_units,
					      reg_nr);
		*shared_unit = vgpu_smst_top_fit(sm->shared_map,
						 st->shared_units, shared_nr);
	} else {
		*reg_unit = vgpu_smst_first_fit(sm->reg_map, st->reg_units,
						reg_nr);
		*shared_unit = vgpu_smst_first_fit(sm->shared_map,
						   st->shared_units, shared_nr);
	}
	return *reg_unit + reg_nr <= st->reg_units &&
	       *shared_unit + shared_nr <= st->shared_units;
}

static bool vgpu_smst_res_valid(const struct vgpu_smst *st,
				const struct vgpu_tb_res *res)
{
	return res->threads && res->regs % st->reg_granule == 0 &&
	       res->shared % st->shared_unit == 0;
}

/**
 * vgpu_smst_can_fit() - whether a TB fits on an SM right now.
 * @st: the table.
 * @sm: SM index.
 * @res: the TB's resources (from vgpu_tb_res_compute()).
 *
 * Checks a free TB slot, enough free thread slots, and a free consecutive
 * register range and shared-memory range (first fit), so a fragmented SM
 * may refuse a TB that its free totals would admit.
 *
 * Return: true when vgpu_smst_alloc() would succeed.
 */
bool vgpu_smst_can_fit(const struct vgpu_smst *st, u32 sm,
		       const struct vgpu_tb_res *res)
{
	return vgpu_smst_can_fit_job(st, sm, res, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_can_fit);

/**
 * vgpu_smst_can_fit_job() - whether a TB of a given kernel fits on an SM.
 * @st: the table.
 * @sm: SM index.
 * @res: the TB's resources.
 * @job: its kernel, or NULL for a kernel not yet on the SM.
 *
 * As vgpu_smst_can_fit(); under 2-way allocation the kernel's direction
 * (or the free one) decides where its ranges may go, and a third kernel is
 * refused.
 *
 * Return: true when vgpu_smst_alloc() for @job would succeed.
 */
bool vgpu_smst_can_fit_job(const struct vgpu_smst *st, u32 sm,
			   const struct vgpu_tb_res *res,
			   const struct vgpu_kcb_entry *job)
{
	struct vgpu_tb_res t = vgpu_smst_taken(st, res);
	unsigned long r, s;
	bool top, claim;

	if (sm >= st->num_sms || !vgpu_smst_res_valid(st, res))
		return false;
	return vgpu_smst_find(st, &st->sms[sm], &t, job, &top, &claim, &r,
			      &s);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_can_fit_job);

/**
 * vgpu_smst_totals_fit() - whether an SM's free totals admit a TB.
 * @st: the table.
 * @sm: SM index.
 * @res: the TB's resources.
 *
 * Return: true when a TB slot, the threads, and enough registers and shared
 * memory in total (consecutive or not) are free.
 */
bool vgpu_smst_totals_fit(const struct vgpu_smst *st, u32 sm,
			  const struct vgpu_tb_res *res)
{
	struct vgpu_tb_res t = vgpu_smst_taken(st, res);
	const struct vgpu_sm *s;

	if (sm >= st->num_sms)
		return false;
	s = &st->sms[sm];
	return s->free_slots && t.threads <= s->free_threads &&
	       t.regs <= s->free_regs && t.shared <= s->free_shared;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_totals_fit);

/**
 * vgpu_smst_note_refusal() - count a refused TB as fragmentation if it is.
 * @st: the table.
 * @sm: SM index.
 * @res: the TB that did not fit.
 *
 * Increments the SM's and the table's fragmentation counters when the free
 * totals would have admitted the TB (Ch. V, Fig. 5.4).
 */
void vgpu_smst_note_refusal(struct vgpu_smst *st, u32 sm,
			    const struct vgpu_tb_res *res)
{
	if (!vgpu_smst_totals_fit(st, sm, res))
		return;
	st->sms[sm].frag_refusals++;
	st->frag_refusals++;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_note_refusal);

/**
 * vgpu_smst_occupancy_limit() - TBs of one kind that fit on an empty SM,
 * and which limit binds.
 * @st: the table.
 * @res: the TB's resources.
 * @limit: out (may be NULL): the limit that gives the result. On a tie a
 *	capacity limit (registers, then shared memory) wins over a
 *	scheduling limit: raising the scheduling limit, as Virtual Thread
 *	does (Yoon et al. §II), would then place no more TBs.
 *
 * Return: the smallest of the slot, thread, register and shared-memory
 * limits (0 when one TB does not fit at all).
 */
u32 vgpu_smst_occupancy_limit(const struct vgpu_smst *st,
			      const struct vgpu_tb_res *res,
			      enum vgpu_occ_limit *limit)
{
	struct vgpu_tb_res t = vgpu_smst_taken(st, res);
	enum vgpu_occ_limit why = VGPU_OCC_TBS;
	u32 n = st->max_tbs;

	if (t.threads && st->max_threads / t.threads < n) {
		n = st->max_threads / t.threads;
		why = VGPU_OCC_THREADS;
	}
	if (t.regs && st->reg_units * st->reg_granule / t.regs <= n) {
		n = st->reg_units * st->reg_granule / t.regs;
		why = VGPU_OCC_REGS;
	}
	if (t.shared && (st->shared_units * st->shared_unit / t.shared < n ||
			 (st->shared_units * st->shared_unit / t.shared == n &&
			  why != VGPU_OCC_REGS))) {
		n = st->shared_units * st->shared_unit / t.shared;
		why = VGPU_OCC_SHARED;
	}
	if (limit)
		*limit = why;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_occupancy_limit);

/**
 * vgpu_smst_occupancy() - TBs of one kind that fit on an empty SM.
 * @st: the table.
 * @res: the TB's resources.
 *
 * Return: vgpu_smst_occupancy_limit() without the limit.
 */
u32 vgpu_smst_occupancy(const struct vgpu_smst *st,
			const struct vgpu_tb_res *res)
{
	return vgpu_smst_occupancy_limit(st, res, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_occupancy);

/**
 * vgpu_smst_preempt_victim() - the TB of a kernel to preempt first on an SM.
 * @st: the table.
 * @sm: SM index.
 * @job: the kernel.
 *
 * The fixed preemption order of Ch. V §5.4.2, Fig. 5.9 (b): the reverse of
 * the allocation direction, so that what is released adjoins the free
 * space: the kernel's TB with the highest register base, or the lowest for
 * a kernel that allocates from the top.
 *
 * Return: the slot, or -ENOENT when @job has no TB on @sm.
 */
int vgpu_smst_preempt_victim(const struct vgpu_smst *st, u32 sm,
			     const struct vgpu_kcb_entry *job)
{
	const struct vgpu_sm *s;
	bool top;
	int best = -ENOENT;
	u32 i;

	if (sm >= st->num_sms)
		return -ENOENT;
	s = &st->sms[sm];
	top = st->mode == VGPU_SMST_TWO_WAY && s->top == job;
	for (i = 0; i < st->max_tbs; i++) {
		const struct vgpu_smst_slot *sl = &s->slots[i];

		if (!(s->slot_map & BIT_ULL(i)) || sl->job != job)
			continue;
		if (best < 0 ||
		    (top ? sl->reg_base < s->slots[best].reg_base :
			   sl->reg_base > s->slots[best].reg_base))
			best = i;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_preempt_victim);

static void vgpu_smst_kernel_add(struct vgpu_sm *sm, struct vgpu_kcb_entry *job)
{
	u32 i;

	for (i = 0; i < sm->nr_kernels; i++) {
		if (sm->kernels[i].job == job) {
			sm->kernels[i].tbs++;
			return;
		}
	}
	/* One kernel per occupied slot at most, so this never overflows. */
	sm->kernels[sm->nr_kernels].job = job;
	sm->kernels[sm->nr_kernels].tbs = 1;
	sm->nr_kernels++;
}

static void vgpu_smst_kernel_del(struct vgpu_sm *sm, struct vgpu_kcb_entry *job)
{
	u32 i;

	for (i = 0; i < sm->nr_kernels; i++) {
		if (sm->kernels[i].job != job)
			continue;
		if (--sm->kernels[i].tbs == 0) {
			sm->kernels[i] = sm->kernels[sm->nr_kernels - 1];
			memset(&sm->kernels[sm->nr_kernels - 1], 0,
			       sizeof(sm->kernels[0]));
			sm->nr_kernels--;
		}
		return;
	}
	WARN(1, "vgpu: SMST kernel table lost a kernel\n");
}

/**
 * vgpu_smst_alloc() - place a TB on an SM.
 * @st: the table.
 * @sm: SM index.
 * @res: the TB's resources.
 * @job: KCB entry of its kernel.
 * @tb: linear TB index.
 * @place: out, the slot and range bases.
 *
 * Takes the lowest free slot and the first register and shared-memory
 * ranges that fit (first fit), or under 2-way allocation the lowest or
 * highest ranges that fit, by the kernel's direction on the SM.
 *
 * Return: the slot index, -EINVAL for a bad SM index or malformed @res, or
 * -ENOSPC when the TB does not fit.
 */
int vgpu_smst_alloc(struct vgpu_smst *st, u32 sm,
		    const struct vgpu_tb_res *res, struct vgpu_kcb_entry *job,
		    u32 tb, struct vgpu_smst_place *place)
{
	unsigned long reg_unit, shared_unit;
	struct vgpu_smst_slot *sl;
	struct vgpu_tb_res taken;
	struct vgpu_sm *s;
	bool top, claim;
	u32 slot;

	if (sm >= st->num_sms || !job || !vgpu_smst_res_valid(st, res))
		return -EINVAL;
	/* The slot records what the TB takes, context area included. */
	taken = vgpu_smst_taken(st, res);
	res = &taken;
	s = &st->sms[sm];
	if (!vgpu_smst_find(st, s, res, job, &top, &claim, &reg_unit,
			    &shared_unit))
		return -ENOSPC;

	slot = __ffs64(~s->slot_map);
	if (WARN_ON(slot >= st->max_tbs))
		return -ENOSPC;

	s->slot_map |= BIT_ULL(slot);
	s->free_slots--;
	s->free_threads -= res->threads;
	s->free_regs -= res->regs;
	s->free_shared -= res->shared;
	bitmap_set(s->reg_map, reg_unit, res->regs / st->reg_granule);
	if (res->shared)
		bitmap_set(s->shared_map, shared_unit,
			   res->shared / st->shared_unit);
	else
		shared_unit = 0;
	vgpu_smst_kernel_add(s, job);
	if (claim && top)
		s->top = job;
	else if (claim)
		s->bottom = job;

	sl = &s->slots[slot];
	sl->job = job;
	sl->tb = tb;
	sl->res = *res;
	sl->reg_base = reg_unit * st->reg_granule;
	sl->shared_base = shared_unit * st->shared_unit;

	place->slot = slot;
	place->reg_base = sl->reg_base;
	place->shared_base = sl->shared_base;
	return slot;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_alloc);

/**
 * vgpu_smst_free() - release a TB's slot and ranges.
 * @st: the table.
 * @sm: SM index.
 * @slot: the TB's slot.
 *
 * A slot that is not in use (a double free), or ranges that are not
 * allocated, or totals that would exceed the SM's capacity, are bugs: they
 * WARN (see vgpu_smst_quiet) and leave the table unchanged.
 *
 * Return: 0, or -EINVAL.
 */
int vgpu_smst_free(struct vgpu_smst *st, u32 sm, u32 slot)
{
	struct vgpu_smst_slot *sl;
	u32 reg_unit, reg_nr, sh_unit, sh_nr;
	struct vgpu_sm *s;

	if (sm >= st->num_sms || slot >= st->max_tbs)
		return -EINVAL;
	s = &st->sms[sm];
	sl = &s->slots[slot];
	if (vgpu_smst_bug(!(s->slot_map & BIT_ULL(slot)) || !sl->job, sm, slot,
			  "double free"))
		return -EINVAL;

	reg_unit = sl->reg_base / st->reg_granule;
	reg_nr = sl->res.regs / st->reg_granule;
	sh_unit = sl->shared_base / st->shared_unit;
	sh_nr = sl->res.shared / st->shared_unit;
	if (vgpu_smst_bug(s->free_slots >= st->max_tbs ||
			  s->free_threads + sl->res.threads > st->max_threads ||
			  s->free_regs + sl->res.regs >
				st->reg_units * st->reg_granule ||
			  s->free_shared + sl->res.shared >
				st->shared_units * st->shared_unit ||
			  (reg_nr && find_next_zero_bit(s->reg_map,
							reg_unit + reg_nr,
							reg_unit) <
				reg_unit + reg_nr) ||
			  (sh_nr && find_next_zero_bit(s->shared_map,
						       sh_unit + sh_nr,
						       sh_unit) <
				sh_unit + sh_nr),
			  sm, slot, "accounting broken"))
		return -EINVAL;

	bitmap_clear(s->reg_map, reg_unit, reg_nr);
	bitmap_clear(s->shared_map, sh_unit, sh_nr);
	s->free_slots++;
	s->free_threads += sl->res.threads;
	s->free_regs += sl->res.regs;
	s->free_shared += sl->res.shared;
	s->slot_map &= ~BIT_ULL(slot);
	vgpu_smst_kernel_del(s, sl->job);
	if (!vgpu_smst_kernel_tbs(st, sm, sl->job)) {
		/* Its last TB here: the direction is free again. */
		if (s->bottom == sl->job)
			s->bottom = NULL;
		if (s->top == sl->job)
			s->top = NULL;
	}
	memset(sl, 0, sizeof(*sl));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_free);

/**
 * vgpu_smst_slot() - a slot in use.
 * @st: the table.
 * @sm: SM index.
 * @slot: slot index.
 *
 * Return: the slot, or NULL when out of range or free.
 */
const struct vgpu_smst_slot *vgpu_smst_slot(const struct vgpu_smst *st,
					    u32 sm, u32 slot)
{
	if (sm >= st->num_sms || slot >= st->max_tbs ||
	    !(st->sms[sm].slot_map & BIT_ULL(slot)))
		return NULL;
	return &st->sms[sm].slots[slot];
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_slot);

/**
 * vgpu_smst_sm_empty() - whether an SM has every resource free.
 * @st: the table.
 * @sm: SM index.
 *
 * Return: true when no slot is used and all totals and maps are at full
 * capacity.
 */
bool vgpu_smst_sm_empty(const struct vgpu_smst *st, u32 sm)
{
	const struct vgpu_sm *s;

	if (sm >= st->num_sms)
		return false;
	s = &st->sms[sm];
	return !s->slot_map && !s->nr_kernels &&
	       s->free_slots == st->max_tbs &&
	       s->free_threads == st->max_threads &&
	       s->free_regs == st->reg_units * st->reg_granule &&
	       s->free_shared == st->shared_units * st->shared_unit &&
	       bitmap_empty(s->reg_map, st->reg_units) &&
	       bitmap_empty(s->shared_map, st->shared_units);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_sm_empty);

/**
 * vgpu_smst_kernel_tbs() - TBs of one kernel running on an SM.
 * @st: the table.
 * @sm: SM index.
 * @job: the kernel's KCB entry.
 *
 * Return: the count (0 when none or @sm is out of range).
 */
u32 vgpu_smst_kernel_tbs(const struct vgpu_smst *st, u32 sm,
			 const struct vgpu_kcb_entry *job)
{
	u32 i;

	if (sm >= st->num_sms)
		return 0;
	for (i = 0; i < st->sms[sm].nr_kernels; i++)
		if (st->sms[sm].kernels[i].job == job)
			return st->sms[sm].kernels[i].tbs;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_kernel_tbs);

static_assert(VGPU_VT_MAX_TBS == VGPU_SMST_MAX_SLOTS);

/**
 * vgpu_smst_set_vt() - switch the table to or from Virtual Thread.
 * @st: the table, every SM empty.
 * @mode: &enum vgpu_virtual_thread.
 *
 * Under %VGPU_VT_ON and %VGPU_VT_MAX an SM takes TBs up to its capacity
 * limit (registers, shared memory) instead of its scheduling limit
 * (Yoon et al. Sec. III): %VGPU_VT_MAX_TBS slots and the threads of
 * %VGPU_VT_VIRTUAL_WARPS warps; %VGPU_VT_ON adds each TB's context area to
 * its shared memory (vgpu_smst_taken()).
 *
 * Return: 0, -EINVAL for an unknown mode, or -EBUSY while a TB is placed.
 */
int vgpu_smst_set_vt(struct vgpu_smst *st, enum vgpu_virtual_thread mode)
{
	u32 i;

	if (mode >= VGPU_VT_COUNT)
		return -EINVAL;
	for (i = 0; i < st->num_sms; i++)
		if (!vgpu_smst_sm_empty(st, i))
			return -EBUSY;
	st->vt = mode;
	st->max_tbs = mode == VGPU_VT_OFF ? st->sched_tbs : VGPU_VT_MAX_TBS;
	st->max_threads = st->sched_threads;
	if (mode != VGPU_VT_OFF)
		st->max_threads = max(st->sched_threads,
				      VGPU_VT_VIRTUAL_WARPS * st->warp_size);
	for (i = 0; i < st->num_sms; i++) {
		st->sms[i].free_slots = st->max_tbs;
		st->sms[i].free_threads = st->max_threads;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_smst_set_vt);
