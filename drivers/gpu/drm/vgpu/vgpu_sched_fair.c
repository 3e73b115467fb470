// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu scheduler: fair shares between files, under every partition policy.
 *
 * The partition policies decide how kernels share the SMs; none of them
 * knows which process a kernel belongs to, and FCFS lets a kernel of 2^32-1
 * blocks hold every SM for as long as it has blocks left. This file bounds
 * what one file (an open render node; the owner of its jobs) can take from
 * the others:
 *
 * - the fair slice (fair_slice_us, simulated time): a file whose jobs have
 *   waited with nothing on the SMs for a whole slice is owed its share -
 *   the device's block slots divided by the files competing, or what it
 *   still has to run if that is less. Until it has it, no other file starts
 *   a block: theirs finish and the freed slots go to it. The policies plan
 *   as before; only the dispatch of the others' blocks waits. A policy that
 *   gives every kernel some SMs (spatial, SMK, maestro) never starves a file
 *   for a slice, so its decisions stand;
 * - blocks in flight (file_max_tbs): the most blocks of one file on the SMs
 *   at once, 0 for no limit but the device;
 * - jobs in flight (file_max_jobs): the most jobs of one file queued or
 *   running; a SUBMIT beyond fails with -ENOSPC.
 *
 * Device memory per file (file_vram_pct) is vgpu_vram.c's. All of it is
 * simulated time or counts, never host time: runs stay repeatable.
 */

#include <linux/lockdep.h>
#include <linux/minmax.h>

#include <kunit/visibility.h>

#include "vgpu_sched.h"
#include "vgpu_trace.h"

/* Files tracked by one fairness pass; more are served once these are. */
#define VGPU_FAIR_OWNERS	32

/**
 * struct vgpu_fair_owner - one file's part of the device in a pass.
 * @owner: &vgpu_kcb_entry.owner of its jobs.
 * @first: its earliest active job (arrival order).
 * @running: its blocks on the SMs.
 * @left: blocks it still has to start (saturating).
 */
struct vgpu_fair_owner {
	const void *owner;
	const struct vgpu_kcb_entry *first;
	u32 running;
	u32 left;
};

/**
 * vgpu_sched_owner_tbs() - blocks of a file on the SMs.
 * @s: the scheduler.
 * @owner: the file (&vgpu_kcb_entry.owner).
 *
 * Return: the sum of &vgpu_kcb_entry.tbs_running over its active jobs.
 */
u32 vgpu_sched_owner_tbs(const struct vgpu_sched *s, const void *owner)
{
	const struct vgpu_kcb_entry *e;
	u32 n = 0;

	list_for_each_entry(e, &s->kcb.active, link)
		if (e->owner == owner)
			n += e->tbs_running;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_owner_tbs);

/**
 * vgpu_sched_owner_jobs() - jobs of a file queued or running.
 * @s: the scheduler.
 * @owner: the file.
 *
 * Return: its active jobs.
 */
u32 vgpu_sched_owner_jobs(const struct vgpu_sched *s, const void *owner)
{
	const struct vgpu_kcb_entry *e;
	u32 n = 0;

	list_for_each_entry(e, &s->kcb.active, link)
		n += e->owner == owner;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_owner_jobs);

/* Starts no more blocks of @owner's jobs in this pass. */
static void vgpu_sched_bar_owner(struct vgpu_sched *s, const void *owner)
{
	struct vgpu_kcb_entry *e;

	list_for_each_entry(e, &s->kcb.active, link)
		if (e->owner == owner)
			e->barred = true;
}

/**
 * vgpu_sched_tb_started() - a block of @e was dispatched.
 * @s: the scheduler.
 * @e: its job.
 *
 * Bars the file's jobs for the rest of the pass once it has file_max_tbs
 * blocks on the SMs. Device lock held.
 */
void vgpu_sched_tb_started(struct vgpu_sched *s, struct vgpu_kcb_entry *e)
{
	if (s->file_max_tbs &&
	    vgpu_sched_owner_tbs(s, e->owner) >= s->file_max_tbs)
		vgpu_sched_bar_owner(s, e->owner);
}

/* Blocks @e has not started yet, saturating at U32_MAX. */
static u32 vgpu_sched_tbs_left(const struct vgpu_kcb_entry *e)
{
	u64 left = (u64)e->num_tbs - min(e->next_tb, e->num_tbs) + e->nr_requeued;

	return min_t(u64, left, U32_MAX);
}

/* The files with jobs that run or could start a block, in arrival order. */
static u32 vgpu_sched_fair_owners(const struct vgpu_sched *s,
				  struct vgpu_fair_owner *o)
{
	const struct vgpu_kcb_entry *e;
	u32 n = 0, i;

	list_for_each_entry(e, &s->kcb.active, link) {
		bool wants = vgpu_sched_candidate(s, e);

		if (!wants && !e->tbs_running)
			continue;
		for (i = 0; i < n && o[i].owner != e->owner; i++)
			;
		if (i == n) {
			if (n == VGPU_FAIR_OWNERS)
				continue;
			o[n++] = (struct vgpu_fair_owner){
				.owner = e->owner, .first = e,
			};
		}
		o[i].running += e->tbs_running;
		if (wants)
			o[i].left = min_t(u64, (u64)o[i].left +
					  vgpu_sched_tbs_left(e), U32_MAX);
	}
	return n;
}

/**
 * vgpu_sched_fair() - which jobs may start blocks in this pass.
 * @s: the scheduler.
 *
 * Sets &vgpu_kcb_entry.barred on the jobs that may not: those of a file at
 * its file_max_tbs, and, while a file is owed its share after a fair slice
 * of waiting with nothing on the SMs, those of every other file. Runs at
 * the start of each scheduling pass that may dispatch. Device lock held.
 */
void vgpu_sched_fair(struct vgpu_sched *s)
{
	struct vgpu_fair_owner o[VGPU_FAIR_OWNERS];
	struct vgpu_kcb_entry *e;
	const struct vgpu_fair_owner *starved = NULL;
	u64 slice;
	u32 n, i, share;

	lockdep_assert_held(s->lock);
	list_for_each_entry(e, &s->kcb.active, link)
		e->barred = false;
	n = vgpu_sched_fair_owners(s, o);
	for (i = 0; s->file_max_tbs && i < n; i++)
		if (o[i].running >= s->file_max_tbs)
			vgpu_sched_bar_owner(s, o[i].owner);
	if (!s->fair_slice_us || n < 2) {
		s->fair_owner = NULL;
		s->fair_waiter = NULL;
		return;
	}
	share = max_t(u32, 1, s->smst.num_sms * s->smst.max_tbs / n);

	/* The file owed its share keeps priority until it has it. */
	for (i = 0; s->fair_owner && i < n; i++) {
		if (o[i].owner != s->fair_owner)
			continue;
		if (o[i].left && o[i].running < share)
			starved = &o[i];
		break;
	}
	if (!starved) {
		s->fair_owner = NULL;
		/* The first file that waits with nothing on the SMs. */
		for (i = 0; i < n && !starved; i++)
			if (o[i].left && !o[i].running)
				starved = &o[i];
		if (!starved) {
			s->fair_waiter = NULL;
			return;
		}
		if (starved->owner != s->fair_waiter) {
			s->fair_waiter = starved->owner;
			s->fair_since = s->cycle;
			return;
		}
		slice = div_u64((u64)s->fair_slice_us * s->desc.core_clock_khz,
				1000);
		if (s->cycle - s->fair_since < slice)
			return;
		s->fair_owner = starved->owner;
		trace_vgpu_fair_share(starved->first->id, starved->first->pid,
				      s->cycle - s->fair_since, share,
				      s->cycle);
		dev_dbg(s->dev, "pid %d waited %llu cycles with nothing on the SMs: its share of %u blocks goes first\n",
			starved->first->pid, s->cycle - s->fair_since, share);
	}
	for (i = 0; i < n; i++)
		if (o[i].owner != s->fair_owner)
			vgpu_sched_bar_owner(s, o[i].owner);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_fair);
