// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu debugfs: dumps of the KCB and the SMST (Park, dissertation, Ch. II,
 * Fig. 2.3) under /sys/kernel/debug/dri/<minor>/, taken under the device
 * lock.
 */

#include <linux/math64.h>
#include <linux/seq_file.h>

#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>

#include "vgpu_drv.h"

static const char * const vgpu_kcb_state_names[] = {
	[VGPU_KCB_QUEUED] = "queued",
	[VGPU_KCB_RUNNING] = "running",
	[VGPU_KCB_DONE] = "done",
};

static int vgpu_debugfs_kcb(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	struct vgpu_sched *s = &vdev->sched;
	struct vgpu_kcb_entry *e;

	mutex_lock(&vdev->lock);
	seq_printf(m, "cycle %llu policy %s active %u\n", s->cycle,
		   s->policy->name, s->kcb.num_active);
	seq_puts(m, "id pid state prio budget_us arrival tbs done running requeued next threads regs shared quota sms ipc_milli avg_tb_cycles avg_tb_insts\n");
	list_for_each_entry(e, &s->kcb.active, link) {
		u32 n = e->tbs_done;

		seq_printf(m, "%u %d %s %u %u %llu %u %u %u %u %u %u %u %u %u %u %llu %llu %llu\n",
			   e->id, e->pid, vgpu_kcb_state_names[e->state],
			   e->priority, e->latency_budget_us, e->arrival,
			   e->num_tbs, e->tbs_done, e->tbs_running,
			   e->nr_requeued, e->next_tb, e->res.threads,
			   e->res.regs, e->res.shared, e->quota, e->plan_sms,
			   vgpu_kcb_ipc_milli(e, s->cycle),
			   n ? div64_u64(e->tb_cycles, n) : 0,
			   n ? div64_u64(e->warp_insts, n) : 0);
	}
	mutex_unlock(&vdev->lock);
	return 0;
}

static int vgpu_debugfs_smst(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	struct vgpu_sched *s = &vdev->sched;
	const struct vgpu_smst *st = &s->smst;
	u32 i, k;

	mutex_lock(&vdev->lock);
	if (!s->attached) {
		seq_puts(m, "no backend attached\n");
		goto out;
	}
	seq_printf(m, "sms %u alloc %s frag_refusals %llu\n", st->num_sms,
		   st->mode == VGPU_SMST_TWO_WAY ? "2-way" : "first-fit",
		   st->frag_refusals);
	for (i = 0; i < st->num_sms; i++) {
		const struct vgpu_sm *sm = &st->sms[i];

		seq_printf(m, "sm %u owner %u free_slots %u free_threads %u free_regs %u free_shared %u frag_refusals %llu bottom %u top %u kernels",
			   i, s->sm_owner[i] ? s->sm_owner[i]->id : 0,
			   sm->free_slots, sm->free_threads, sm->free_regs,
			   sm->free_shared, sm->frag_refusals,
			   sm->bottom ? sm->bottom->id : 0,
			   sm->top ? sm->top->id : 0);
		for (k = 0; k < sm->nr_kernels; k++)
			seq_printf(m, " %u:%u", sm->kernels[k].job->id,
				   sm->kernels[k].tbs);
		seq_putc(m, '\n');
		for (k = 0; k < st->max_tbs; k++) {
			const struct vgpu_smst_slot *sl = &sm->slots[k];
			u64 insts;
			u32 flags;

			if (!(sm->slot_map & BIT_ULL(k)))
				continue;
			seq_printf(m, "  slot %u job %u tb %u regs %u+%u shared %u+%u",
				   k, sl->job->id, sl->tb, sl->reg_base,
				   sl->res.regs, sl->shared_base,
				   sl->res.shared);
			/* Chimera's per-TB statistics, as of the last kick. */
			if (!vgpu_sched_tb_progress(s, i, k, &insts, &flags,
						    NULL))
				seq_printf(m, " insts %llu%s", insts,
					   flags & VGPU_TB_STATUS_CROSSED_BOUNDARY ?
					   " crossed" : "");
			seq_putc(m, '\n');
		}
	}
out:
	mutex_unlock(&vdev->lock);
	return 0;
}

/* Preemption: the policy and what it did since the module was loaded. */
static int vgpu_debugfs_preempt(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	const struct vgpu_sched *s = &vdev->sched;
	const struct vgpu_sched_preempt_stats *st = &s->preempt_stats;

	mutex_lock(&vdev->lock);
	seq_printf(m, "policy %s\nidempotence %s\nbudget_us %u\nmargin_pct %u\nlatency_feedback %d\n",
		   s->preempt_ops->name, vgpu_preempt_idem_name(s->idem),
		   s->budget_us, s->budget_margin_pct, s->latency_feedback);
	seq_printf(m, "requests %llu\nswitch %llu\ndrain %llu\nflush %llu\nlost_insts %llu\n",
		   st->requests, st->tbs[VGPU_TECH_SWITCH],
		   st->tbs[VGPU_TECH_DRAIN], st->tbs[VGPU_TECH_FLUSH],
		   st->lost_insts);
	mutex_unlock(&vdev->lock);
	return 0;
}

/* Maestro: its settings and the decisions it took since the module was loaded. */
static int vgpu_debugfs_maestro(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	const struct vgpu_sched *s = &vdev->sched;
	const struct vgpu_maestro_stats *st = &s->maestro_stats;

	mutex_lock(&vdev->lock);
	seq_printf(m, "epoch_cycles %u\nepochs %llu\nspatial %llu\nsmk_even %llu\n",
		   s->maestro_epoch_cycles, st->epochs, st->spatial,
		   st->smk_even);
	seq_printf(m, "smk_other %llu\nrepartitions %llu\npreempted_tbs %llu\n",
		   st->smk_other, st->repartitions, st->preempted_tbs);
	mutex_unlock(&vdev->lock);
	return 0;
}

/**
 * vgpu_debugfs_init() - register the kcb, smst, preempt and maestro files.
 * @vdev: the device, before drm_dev_register().
 */
void vgpu_debugfs_init(struct vgpu_device *vdev)
{
	drm_debugfs_add_file(&vdev->drm, "kcb", vgpu_debugfs_kcb, NULL);
	drm_debugfs_add_file(&vdev->drm, "smst", vgpu_debugfs_smst, NULL);
	drm_debugfs_add_file(&vdev->drm, "preempt", vgpu_debugfs_preempt, NULL);
	drm_debugfs_add_file(&vdev->drm, "maestro", vgpu_debugfs_maestro, NULL);
}
