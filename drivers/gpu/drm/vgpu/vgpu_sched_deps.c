// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu scheduler: launch dependencies (in-fences).
 *
 * A launch may name syncobjs whose fences must signal before any of its
 * thread blocks is dispatched (&drm_vgpu_submit.in_syncobjs). The host
 * glue - vgpu_job.c with dma_fence callbacks, libvgpu's local device with
 * its own syncobjs - counts the fences down on the job's KCB entry with
 * vgpu_kcb_dep_signal(); the scheduler, shared by both, keeps the job out
 * of every policy's view while it is blocked (vgpu_kcb_entry_wants_tbs())
 * and lets it in, or fails it, in the first pass that sees the count at 0
 * (vgpu_sched_unblock()).
 *
 * The fence of a job of this device is signalled while the scheduling pass
 * that ends the job runs (&vgpu_kcb_entry_ops.done), and that pass looks
 * at the blocked jobs again after ending jobs (vgpu_sched_run()): a
 * dependent job's blocks are dispatched at the very cycle its dependency
 * ended, in vgpu.ko and in the local device alike, whatever the host's
 * timing. Only fences from elsewhere (another device, a sync_file) signal
 * outside a pass; the glue then runs one (vgpu_sched_deps_ready()).
 *
 * A blocked job holds no SM, is not counted as waiting by the fair share
 * (it is no candidate), and has no deadline yet: its time limit counts
 * from its first dispatch (vgpu_sched_deadline()). It can be cancelled
 * like any job (vgpu_sched_cancel()); it then ends in the next pass.
 */

#include <linux/atomic.h>
#include <linux/device.h>
#include <linux/lockdep.h>

#include <kunit/visibility.h>

#include "vgpu_sched.h"

/**
 * vgpu_kcb_deps_init() - give a job in-fences to wait for.
 * @e: the entry, not yet added to the KCB (vgpu_kcb_add()).
 * @n: how many fences the glue will arm; 0 for none.
 *
 * With @n > 0 the entry is blocked, and its count holds one more than @n
 * until vgpu_kcb_deps_arm(), so that fences that signal while the glue is
 * still arming the others cannot unblock it early.
 */
void vgpu_kcb_deps_init(struct vgpu_kcb_entry *e, u32 n)
{
	atomic_set(&e->dep_error, 0);
	atomic_set(&e->deps, n ? n + 1 : 0);
	e->blocked = n > 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_deps_init);

/**
 * vgpu_kcb_dep_signal() - one in-fence of a job signalled.
 * @e: the job's entry.
 * @error: the fence's error (0, or a negative errno).
 *
 * Any context, with or without the device lock: only atomics. The first
 * error is kept.
 *
 * Return: true when this was the last fence the job waited for; the caller
 * then makes sure a scheduling pass runs (the pass that ends a job of this
 * device runs anyway).
 */
bool vgpu_kcb_dep_signal(struct vgpu_kcb_entry *e, int error)
{
	if (error)
		atomic_cmpxchg(&e->dep_error, 0, error);
	return atomic_dec_return(&e->deps) == 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_dep_signal);

/**
 * vgpu_kcb_deps_arm() - the glue has armed every in-fence of a job.
 * @e: the job's entry, with vgpu_kcb_deps_init() done.
 *
 * Drops the count's extra one. Call it once the entry is in the KCB, before
 * the scheduling pass of the SUBMIT.
 *
 * Return: as vgpu_kcb_dep_signal(); false for a job without in-fences.
 */
bool vgpu_kcb_deps_arm(struct vgpu_kcb_entry *e)
{
	if (!e->blocked)
		return false;
	return vgpu_kcb_dep_signal(e, 0);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_deps_arm);

/**
 * vgpu_sched_unblock() - let a job whose in-fences have signalled in.
 * @s: the scheduler.
 * @e: an active job.
 *
 * When @e is blocked and its count has reached 0 it becomes a candidate;
 * if one of its fences signalled with an error it fails instead, with
 * -ECANCELED, and ends in this pass without running a block. Device lock
 * held.
 *
 * Return: true when @e was unblocked now.
 */
bool vgpu_sched_unblock(struct vgpu_sched *s, struct vgpu_kcb_entry *e)
{
	int error;

	lockdep_assert_held(s->lock);
	if (!e->blocked || atomic_read(&e->deps) > 0)
		return false;
	e->blocked = false;
	error = atomic_read(&e->dep_error);
	if (error) {
		dev_dbg(s->dev, "job %u: an in-fence signalled with error %d at cycle %llu: cancelled before it ran\n",
			e->id, error, s->cycle);
		vgpu_sched_cancel(s, e, -ECANCELED);
	} else {
		dev_dbg(s->dev, "job %u: in-fences signalled at cycle %llu\n",
			e->id, s->cycle);
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_unblock);

/**
 * vgpu_sched_deps_ready() - whether a pass would unblock a job.
 * @s: the scheduler.
 *
 * For the glue's deferred pass after a fence from elsewhere signalled:
 * without a job to let in it would have nothing to do. Device lock held.
 *
 * Return: true when an active job is blocked with its count at 0.
 */
bool vgpu_sched_deps_ready(const struct vgpu_sched *s)
{
	const struct vgpu_kcb_entry *e;

	lockdep_assert_held(s->lock);
	list_for_each_entry(e, &s->kcb.active, link)
		if (e->blocked && atomic_read(&e->deps) <= 0)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_deps_ready);
