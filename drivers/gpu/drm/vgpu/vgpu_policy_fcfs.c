// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu partition policy: non-preemptive first come, first served.
 *
 * The baseline of Park, dissertation, Ch. IV and V: kernels run in arrival
 * order and a kernel's TBs are dispatched only once every earlier kernel
 * has dispatched all of its TBs; a later kernel may take whatever room the
 * earlier ones leave (leftover TB slots, threads, registers, shared
 * memory). Each TB goes to the first SM, from a round-robin start point,
 * that has room. Priorities and latency budgets are ignored.
 */

#include <kunit/visibility.h>

#include "vgpu_sched.h"

static void vgpu_fcfs_dispatch(struct vgpu_sched *s)
{
	struct vgpu_kcb_entry *e;

	list_for_each_entry(e, &s->kcb.active, link) {
		if (!vgpu_kcb_entry_wants_tbs(e))
			continue;	/* all dispatched or failed */
		if (e->arrival > s->cycle)
			return;		/* it and everything after it wait */
		if (e->barred)
			continue;	/* another file is owed its share */
		while (vgpu_kcb_entry_may_start(e)) {
			int sm;

			if (!vgpu_sched_room(s, e)) {
				s->ring_full = true;
				return;
			}
			sm = vgpu_sched_find_sm(s, e);
			if (sm < 0)
				return;	/* nothing behind it may start */
			if (WARN_ON(vgpu_sched_dispatch(s, e, sm)))
				return;
		}
	}
}

const struct vgpu_partition_ops vgpu_policy_fcfs = {
	.name = "fcfs",
	.dispatch = vgpu_fcfs_dispatch,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_policy_fcfs);
