// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu synchronised clock: its decisions.
 *
 * The device clock is simulated: it advances when the hardware model
 * simulates, which it does whenever the GPU has work. The processes that
 * feed the GPU run on the host meanwhile, so the cycle at which a program's
 * next launch arrives would depend on host scheduling, and two programs
 * started "together" would start a few thousand cycles apart, differently
 * every time.
 *
 * A file that joins the synchronised clock makes its host time take no
 * simulated time: while any joined file is running (not blocked in a wait),
 * the clock is held - the scheduler takes no dispatch decision and the
 * hardware stops at the current cycle. When the last running file waits,
 * the hold is released: the jobs submitted meanwhile arrive together, in
 * rank order (vgpu_kcb_add()), the scheduler runs and time moves on until a
 * job that a joined file waits for ends. Its end is handled in the turn of
 * that cycle, which marks the waiter running again before the hardware
 * learns whether it may go on - so no cycle passes between a job's end and
 * its program's reaction.
 *
 * The hold is fenced: it applies only while the device runs nothing but
 * the joined files' jobs. A job of a file that did not join lets time run
 * at once, until it ends - its process is never stopped by the others' -
 * and a joined file that runs on the host longer than the hold limit
 * without waiting is made to leave (vgpu_clock_overdue(), applied by
 * vgpu.ko's glue), so that it cannot stop its own group for good either.
 *
 * Pure bookkeeping under the device lock, shared by vgpu.ko's ioctls
 * (vgpu_clock.c) and libvgpu's local device.
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/lockdep.h>

#include <kunit/visibility.h>

#include "vgpu_clock_hold.h"
#include "vgpu_sched.h"
#include "vgpu_vram.h"

/**
 * vgpu_clock_init() - set up the synchronised clock of a device.
 * @clock: the device's clock.
 * @sched: its scheduler.
 * @released: &vgpu_clock.released.
 */
void vgpu_clock_init(struct vgpu_clock *clock, struct vgpu_sched *sched,
		     void (*released)(struct vgpu_clock *clock))
{
	clock->sched = sched;
	clock->released = released;
	clock->host_ms = NULL;
	INIT_LIST_HEAD(&clock->joined);
	clock->running = 0;
	clock->foreign = 0;
	clock->releasing = false;
	clock->daemon_stopped = false;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_init);

/*
 * The hold ends (the last running file waits or leaves, or a foreign job
 * arrives): take the deferred decisions, let time run.
 */
static void vgpu_clock_release(struct vgpu_clock *clock)
{
	struct vgpu_sched *s = clock->sched;

	lockdep_assert_held(s->lock);
	/*
	 * Hardware told to hold has not simulated since: its status table is
	 * current, and it keeps waiting until the decisions are taken, so
	 * they are the same however the host interleaves the two.
	 */
	WRITE_ONCE(clock->releasing, true);
	WRITE_ONCE(s->held, false);
	s->emitted = 0;
	s->fresh_status = READ_ONCE(clock->daemon_stopped);
	vgpu_sched_run(s);
	s->fresh_status = false;
	WRITE_ONCE(clock->releasing, false);
	clock->released(clock);
}

/* Whether the clock holds: a joined file runs and no foreign job is active. */
static bool vgpu_clock_holds(const struct vgpu_clock *clock)
{
	return clock->running && !clock->foreign;
}

/* A joined file starts running on the host. */
static void vgpu_clock_hold(struct vgpu_clock *clock,
			    struct vgpu_clock_file *cf)
{
	lockdep_assert_held(clock->sched->lock);
	clock->running++;
	cf->running_since = clock->host_ms ? clock->host_ms() : 0;
	if (vgpu_clock_holds(clock))
		WRITE_ONCE(clock->sched->held, true);
}

/* The hold may have ended: take its deferred decisions. */
static void vgpu_clock_update(struct vgpu_clock *clock)
{
	if (READ_ONCE(clock->sched->held) && !vgpu_clock_holds(clock))
		vgpu_clock_release(clock);
}

static void vgpu_clock_stop_running(struct vgpu_clock *clock)
{
	lockdep_assert_held(clock->sched->lock);
	if (!WARN_ON(!clock->running))
		clock->running--;
	vgpu_clock_update(clock);
}

/**
 * vgpu_clock_file_init() - a new file is not joined.
 * @cf: the file's part in the clock.
 */
void vgpu_clock_file_init(struct vgpu_clock_file *cf)
{
	INIT_LIST_HEAD(&cf->link);
	cf->rank = 0;
	cf->arena = 0;
	INIT_LIST_HEAD(&cf->waits);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_file_init);

/**
 * vgpu_clock_arena() - where a file's device memory is allocated.
 * @cf: the file's part in the clock.
 *
 * Addresses decide cache sets, memory partitions and DRAM rows, so a run
 * is only repeatable if its buffers land at the same addresses. Files of
 * the synchronised clock allocate concurrently, in whatever order the host
 * runs them; each gets its own part of the device memory, chosen by its
 * rank, so that its addresses depend on its own allocations only (while
 * they fit there).
 *
 * Return: 0 (anywhere) or the arena index, 1 to %VGPU_VRAM_ARENAS - 1.
 */
u32 vgpu_clock_arena(const struct vgpu_clock_file *cf)
{
	return READ_ONCE(cf->arena);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_arena);

/**
 * vgpu_clock_joined() - whether a file has joined the clock.
 * @cf: the file's part in the clock.
 *
 * Return: true while it is joined. Device lock held.
 */
bool vgpu_clock_joined(const struct vgpu_clock_file *cf)
{
	return !list_empty(&cf->link);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_joined);

/**
 * vgpu_clock_join() - a file joins the clock (or changes its rank).
 * @clock: the device's clock.
 * @cf: the file's part.
 * @rank: its jobs' order among those arriving at the same cycle.
 *
 * A file that joins is running: the clock holds until it waits. Device
 * lock held.
 */
void vgpu_clock_join(struct vgpu_clock *clock, struct vgpu_clock_file *cf,
		     u32 rank)
{
	lockdep_assert_held(clock->sched->lock);
	cf->rank = rank;
	WRITE_ONCE(cf->arena, rank ? 1 + (rank - 1) % (VGPU_VRAM_ARENAS - 1) : 0);
	if (list_empty(&cf->link)) {
		list_add_tail(&cf->link, &clock->joined);
		vgpu_clock_hold(clock, cf);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_join);

/**
 * vgpu_clock_leave() - a file leaves the clock (or closes); no-op when not
 *	joined.
 * @clock: the device's clock.
 * @cf: the file's part.
 *
 * Device lock held.
 */
void vgpu_clock_leave(struct vgpu_clock *clock, struct vgpu_clock_file *cf)
{
	lockdep_assert_held(clock->sched->lock);
	cf->rank = 0;
	if (list_empty(&cf->link))
		return;
	WRITE_ONCE(cf->arena, 0);
	list_del_init(&cf->link);
	if (list_empty(&cf->waits))
		vgpu_clock_stop_running(clock);
	/* Its threads' waits end on their own; they find themselves unlinked. */
	while (!list_empty(&cf->waits))
		list_del_init(cf->waits.next);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_leave);

/**
 * vgpu_clock_wait_begin() - a thread of a file starts waiting for a job
 *	that has not ended.
 * @clock: the device's clock.
 * @cf: the file's part.
 * @wait: the wait, which must stay put until vgpu_clock_wait_end().
 * @job_id: the job.
 *
 * A joined file stops running when its first thread waits; when it was the
 * last running file, time runs again. Device lock held.
 */
void vgpu_clock_wait_begin(struct vgpu_clock *clock,
			   struct vgpu_clock_file *cf,
			   struct vgpu_clock_wait *wait, u32 job_id)
{
	bool first = list_empty(&cf->waits);

	lockdep_assert_held(clock->sched->lock);
	INIT_LIST_HEAD(&wait->link);
	wait->job_id = job_id;
	if (list_empty(&cf->link))
		return;
	list_add_tail(&wait->link, &cf->waits);
	if (first)
		vgpu_clock_stop_running(clock);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_wait_begin);

/**
 * vgpu_clock_wait_end() - a thread's wait is over, whatever ended it.
 * @clock: the device's clock.
 * @cf: the file's part.
 * @wait: what vgpu_clock_wait_begin() was given.
 *
 * A wait that ended other than by its job's end (a timeout, a signal) is
 * still on the file's list; the file runs again when it was its last.
 * Device lock held.
 */
void vgpu_clock_wait_end(struct vgpu_clock *clock, struct vgpu_clock_file *cf,
			 struct vgpu_clock_wait *wait)
{
	lockdep_assert_held(clock->sched->lock);
	if (list_empty(&wait->link))
		return;
	list_del_init(&wait->link);
	if (list_empty(&cf->waits) && !list_empty(&cf->link))
		vgpu_clock_hold(clock, cf);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_wait_end);

/**
 * vgpu_clock_job_added() - a job was submitted.
 * @clock: the device's clock.
 * @cf: the submitting file's part.
 * @e: the job, just added to the KCB.
 *
 * A job of a file that has not joined is foreign
 * (&vgpu_kcb_entry.unclocked): while it is active the clock does not hold,
 * and a hold in place ends now, its deferred decisions taken. Device lock
 * held.
 */
void vgpu_clock_job_added(struct vgpu_clock *clock,
			  const struct vgpu_clock_file *cf,
			  struct vgpu_kcb_entry *e)
{
	lockdep_assert_held(clock->sched->lock);
	if (!list_empty(&cf->link))
		return;
	e->unclocked = true;
	clock->foreign++;
	vgpu_clock_update(clock);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_job_added);

/**
 * vgpu_clock_job_done() - a job ended; its waiting program runs again.
 * @clock: the device's clock.
 * @e: the job.
 *
 * Called with the device lock held where the job ends, which is inside the
 * turn that ended it: the hold is in place before the hardware may
 * simulate on. Only ever starts a hold (the caller is in a scheduling
 * pass, which must not release one).
 */
void vgpu_clock_job_done(struct vgpu_clock *clock,
			 const struct vgpu_kcb_entry *e)
{
	struct vgpu_clock_wait *wait, *next;
	struct vgpu_clock_file *cf;

	lockdep_assert_held(clock->sched->lock);
	if (e->unclocked && !WARN_ON(!clock->foreign))
		clock->foreign--;
	list_for_each_entry(cf, &clock->joined, link) {
		if (list_empty(&cf->waits))
			continue;
		list_for_each_entry_safe(wait, next, &cf->waits, link)
			if (wait->job_id == e->id)
				list_del_init(&wait->link);
		if (list_empty(&cf->waits))
			vgpu_clock_hold(clock, cf);
	}
	if (vgpu_clock_holds(clock))
		WRITE_ONCE(clock->sched->held, true);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_job_done);

/**
 * vgpu_clock_overdue() - a joined file that has run on the host too long.
 * @clock: the device's clock.
 * @now: &vgpu_clock.host_ms now.
 * @limit: the longest a file may run without waiting, in the same unit.
 *
 * A file that joins and never waits would stop its group's clock for as
 * long as it lives; the caller makes such a file leave. Device lock held.
 *
 * Return: a joined file running since more than @limit before @now, or
 * NULL.
 */
struct vgpu_clock_file *vgpu_clock_overdue(struct vgpu_clock *clock, u64 now,
					   u64 limit)
{
	struct vgpu_clock_file *cf;

	lockdep_assert_held(clock->sched->lock);
	list_for_each_entry(cf, &clock->joined, link)
		if (list_empty(&cf->waits) && now > cf->running_since &&
		    now - cf->running_since > limit)
			return cf;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_clock_overdue);
