// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu scheduler: issue priority for the thread blocks another kernel
 * waits for (Park, dissertation, Ch. V §5.4.3).
 *
 * "When some of the warps are being preempted with draining, these warps
 * should be given higher priority to issue instructions to reduce
 * repartitioning time", and when a kernel has no more thread blocks to
 * issue, "the warps within the boundary thread block should be given
 * higher priority ... because resources only become available to the other
 * kernel when resources are released from the boundary thread block".
 * The daemon's kernel-aware warp schedulers pick such blocks' warps first
 * (VGPU_CMD_SET_TB_PRIORITY); with kernel-aware scheduling off (mode none)
 * there is nothing to tell.
 */

#include <linux/lockdep.h>

#include <kunit/visibility.h>

#include <drm/vgpu_backend.h>

#include "vgpu_sched.h"

/*
 * Whether the TB in (@sm, @slot), of @sl, is one whose end another kernel
 * waits for: a TB chosen to drain, or, under 2-way allocation on an SM two
 * kernels share, the boundary TB (the next in the fixed preemption order,
 * vgpu_smst_preempt_victim(): it adjoins the free space) of a kernel with
 * no more TBs to dispatch.
 */
static bool vgpu_sched_slot_wants_prio(struct vgpu_sched *s, u32 sm,
				       u32 slot,
				       const struct vgpu_smst_slot *sl)
{
	if (vgpu_sched_slot_draining(s, sm, slot))
		return true;
	if (s->smst.mode != VGPU_SMST_TWO_WAY ||
	    s->smst.sms[sm].nr_kernels < 2 ||
	    vgpu_kcb_entry_wants_tbs(sl->job))
		return false;
	return vgpu_smst_preempt_victim(&s->smst, sm, sl->job) == (int)slot;
}

/**
 * vgpu_sched_send_priorities() - give issue priority to the TBs another
 * kernel waits for.
 * @s: the scheduler.
 *
 * Sends %VGPU_CMD_SET_TB_PRIORITY, once per TB in a slot, for each TB
 * chosen to drain and each 2-way boundary TB of a kernel with nothing more
 * to dispatch (vgpu_sched_slot_wants_prio()), while the kernel-aware mode is
 * not %VGPU_KSCHED_NONE. The priority lasts until the TB leaves its slot.
 * With the command ring full it stops and marks the pass so; the next pass
 * goes on. Caller holds the device lock.
 */
void vgpu_sched_send_priorities(struct vgpu_sched *s)
{
	u32 sm, slot;

	lockdep_assert_held(s->lock);
	if (!s->slots || s->kernel_sched == VGPU_KSCHED_NONE)
		return;
	for (sm = 0; sm < s->smst.num_sms; sm++) {
		for (slot = 0; slot < s->smst.max_tbs; slot++) {
			const struct vgpu_smst_slot *sl =
				vgpu_smst_slot(&s->smst, sm, slot);
			struct vgpu_sched_slot *ss = vgpu_sched_slot_of(s, sm, slot);
			struct vgpu_cmd cmd = { .op = VGPU_CMD_SET_TB_PRIORITY };

			if (!sl || !sl->job || ss->prio || ss->preempting ||
			    !vgpu_sched_slot_wants_prio(s, sm, slot, sl))
				continue;
			cmd.job = sl->job->id;
			cmd.tb = sl->tb;
			cmd.sm = sm;
			cmd.slot = slot;
			if (!vgpu_sched_emit_reserved(s, &cmd)) {
				s->ring_full = true;
				return;
			}
			ss->prio = true;
		}
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_sched_send_priorities);
