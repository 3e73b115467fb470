// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu Kernel Control Block table.
 *
 * Park, dissertation, Ch. II, Fig. 2.3: the thread-block scheduler keeps a
 * KCB entry per launched kernel (launching process, grid size, executed TBs,
 * resource needs of one TB, runtime statistics), extended to many entries
 * for multitasking. Here an entry is reference counted; the table holds one
 * reference from submission until the job ends, the submitting file's job
 * record another until it is released.
 *
 * The active list is protected by the device lock (the caller's); the id
 * xarray has its own lock so that the last reference may be dropped
 * anywhere.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

#include "vgpu_kcb.h"

/**
 * vgpu_kcb_init() - initialise an empty table.
 * @kcb: the table.
 */
void vgpu_kcb_init(struct vgpu_kcb *kcb)
{
	xa_init_flags(&kcb->ids, XA_FLAGS_ALLOC1);
	kcb->next_id = 1;
	INIT_LIST_HEAD(&kcb->active);
	kcb->num_active = 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_init);

/**
 * vgpu_kcb_fini() - tear down a table; it must be empty.
 * @kcb: the table.
 */
void vgpu_kcb_fini(struct vgpu_kcb *kcb)
{
	WARN_ON(!list_empty(&kcb->active));
	WARN_ON(!xa_empty(&kcb->ids));
	xa_destroy(&kcb->ids);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_fini);

/**
 * vgpu_kcb_entry_init() - initialise an entry with one reference.
 * @e: the entry, zeroed.
 * @ops: its owner's callbacks.
 */
void vgpu_kcb_entry_init(struct vgpu_kcb_entry *e,
			 const struct vgpu_kcb_entry_ops *ops)
{
	kref_init(&e->ref);
	e->ops = ops;
	INIT_LIST_HEAD(&e->link);
	INIT_LIST_HEAD(&e->requeue);
	e->state = VGPU_KCB_QUEUED;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_entry_init);

/**
 * vgpu_kcb_add() - give an entry an id and queue it.
 * @kcb: the table.
 * @e: the entry; @e->not_before and the launch fields already set.
 * @cycle: the device's current cycle.
 *
 * The entry is placed after every active entry that arrives earlier than
 * it does (arrival = max(@cycle, not_before)), or at the same cycle with a
 * rank no higher than its &vgpu_kcb_entry.rank, so the active list is in
 * FCFS order. The table takes its own reference. Caller holds the device
 * lock.
 *
 * Return: 0, -ENOSPC when no id is free, or -ENOMEM.
 */
int vgpu_kcb_add(struct vgpu_kcb *kcb, struct vgpu_kcb_entry *e, u64 cycle)
{
	struct vgpu_kcb_entry *pos;
	u32 id;
	int ret;

	ret = xa_alloc_cyclic(&kcb->ids, &id, e, XA_LIMIT(1, U32_MAX),
			      &kcb->next_id, GFP_KERNEL);
	if (ret < 0)
		return ret == -EBUSY ? -ENOSPC : ret;

	e->kcb = kcb;
	e->id = id;
	e->submit_cycle = cycle;
	e->arrival = max(cycle, e->not_before);
	e->state = VGPU_KCB_QUEUED;

	/*
	 * Walk back from the tail to the last entry that arrives no later
	 * (of the same arrival: ranks no higher), so that jobs of the same
	 * cycle are in rank order whatever order their SUBMITs came in.
	 */
	list_for_each_entry_reverse(pos, &kcb->active, link) {
		if (pos->arrival < e->arrival ||
		    (pos->arrival == e->arrival && pos->rank <= e->rank))
			break;
	}
	list_add(&e->link, &pos->link);
	e->active = true;
	kcb->num_active++;
	vgpu_kcb_get(e);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_add);

/**
 * vgpu_kcb_find_active() - look up an active entry by id.
 * @kcb: the table.
 * @id: job id.
 *
 * Caller holds the device lock; the returned entry stays valid while it is
 * held (the table's reference).
 *
 * Return: the entry, or NULL when unknown or no longer active.
 */
struct vgpu_kcb_entry *vgpu_kcb_find_active(struct vgpu_kcb *kcb, u32 id)
{
	struct vgpu_kcb_entry *e = xa_load(&kcb->ids, id);

	return e && e->active ? e : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_find_active);

/**
 * vgpu_kcb_retire() - take an entry off the active list.
 * @kcb: the table.
 * @e: an active entry.
 *
 * Drops the table's reference; the id stays taken until the last reference
 * goes. Caller holds the device lock.
 */
void vgpu_kcb_retire(struct vgpu_kcb *kcb, struct vgpu_kcb_entry *e)
{
	if (WARN_ON(!e->active))
		return;
	list_del_init(&e->link);
	e->active = false;
	kcb->num_active--;
	vgpu_kcb_put(e);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_retire);

/**
 * vgpu_kcb_requeue_tb() - queue a preempted TB to be issued again.
 * @e: an active entry.
 * @tb: the TB, no longer running anywhere.
 *
 * The TB scheduler issues queued TBs before new ones (vgpu_kcb_next_tb()).
 * Caller holds the device lock; does not sleep.
 *
 * Return: 0, -EINVAL for a TB index out of range, or -ENOMEM.
 */
int vgpu_kcb_requeue_tb(struct vgpu_kcb_entry *e, u32 tb)
{
	return vgpu_kcb_requeue_tb_ctx(e, tb, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_requeue_tb);

/**
 * vgpu_kcb_requeue_tb_ctx() - queue a TB a context switch preempted.
 * @e: an active entry.
 * @tb: the TB, no longer running anywhere.
 * @ctx: its saved context, NULL for none; the record owns it until
 *	vgpu_kcb_take_tb() hands it over (vgpu_kcb_next_ctx() first).
 *
 * Return: 0, -EINVAL for a TB index out of range, or -ENOMEM.
 */
int vgpu_kcb_requeue_tb_ctx(struct vgpu_kcb_entry *e, u32 tb, void *ctx)
{
	struct vgpu_kcb_tb *t;

	if (tb >= e->num_tbs)
		return -EINVAL;
	t = kmalloc(sizeof(*t), GFP_NOWAIT);
	if (!t)
		return -ENOMEM;
	t->tb = tb;
	t->ctx = ctx;
	list_add_tail(&t->link, &e->requeue);
	e->nr_requeued++;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_requeue_tb_ctx);

/**
 * vgpu_kcb_next_ctx() - the saved context of vgpu_kcb_next_tb(), if any.
 * @e: an entry that wants TBs.
 *
 * Return: the context, or NULL when the next TB starts from scratch.
 */
void *vgpu_kcb_next_ctx(const struct vgpu_kcb_entry *e)
{
	if (!e->nr_requeued)
		return NULL;
	return list_first_entry(&e->requeue, struct vgpu_kcb_tb, link)->ctx;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_next_ctx);

/**
 * vgpu_kcb_next_tb() - the TB the TB scheduler issues next for an entry.
 * @e: an entry that wants TBs (vgpu_kcb_entry_wants_tbs()).
 *
 * Return: the oldest preempted TB if any, else the next new one.
 */
u32 vgpu_kcb_next_tb(const struct vgpu_kcb_entry *e)
{
	if (e->nr_requeued)
		return list_first_entry(&e->requeue, struct vgpu_kcb_tb,
					link)->tb;
	return e->next_tb;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_next_tb);

/**
 * vgpu_kcb_take_tb() - the TB of vgpu_kcb_next_tb() was dispatched.
 * @e: the entry.
 */
void vgpu_kcb_take_tb(struct vgpu_kcb_entry *e)
{
	struct vgpu_kcb_tb *t;

	if (!e->nr_requeued) {
		e->next_tb++;
		return;
	}
	t = list_first_entry(&e->requeue, struct vgpu_kcb_tb, link);
	list_del(&t->link);
	e->nr_requeued--;
	kfree(t);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_take_tb);

/**
 * vgpu_kcb_ipc_milli() - runtime IPC of an entry, in thousandths.
 * @e: the entry.
 * @cycle: the current cycle (used while the entry runs).
 *
 * Warp instructions of its finished TBs per cycle since it started
 * (Ch. II's runtime information in the KCB).
 *
 * Return: IPC × 1000, 0 before the first cycle.
 */
u64 vgpu_kcb_ipc_milli(const struct vgpu_kcb_entry *e, u64 cycle)
{
	u64 end = e->state == VGPU_KCB_DONE ? e->end_cycle : cycle;

	if (!e->begun || end <= e->start_cycle)
		return 0;
	return div64_u64(e->warp_insts * 1000, end - e->start_cycle);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_ipc_milli);

static void vgpu_kcb_entry_release(struct kref *ref)
{
	struct vgpu_kcb_entry *e = container_of(ref, struct vgpu_kcb_entry, ref);
	struct vgpu_kcb_tb *t, *tmp;

	WARN_ON(e->active);
	list_for_each_entry_safe(t, tmp, &e->requeue, link)
		kfree(t);
	if (e->kcb)
		xa_erase(&e->kcb->ids, e->id);
	e->ops->release(e);
}

/**
 * vgpu_kcb_put() - drop a reference.
 * @e: the entry, or NULL.
 */
void vgpu_kcb_put(struct vgpu_kcb_entry *e)
{
	if (e)
		kref_put(&e->ref, vgpu_kcb_entry_release);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_kcb_put);
