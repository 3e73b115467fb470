// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu debugfs: dumps of the KCB and the SMST (Park, dissertation, Ch. II,
 * Fig. 2.3) under /sys/kernel/debug/dri/<minor>/, taken under the device
 * lock.
 */

#include <linux/gfp.h>
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
	seq_puts(m, "id pid state prio budget_us arrival tbs done running requeued next threads regs shared quota sms ipc_milli avg_tb_cycles avg_tb_insts error\n");
	list_for_each_entry(e, &s->kcb.active, link) {
		u32 n = e->tbs_done;

		seq_printf(m, "%u %d %s %u %u %llu %u %u %u %u %u %u %u %u %u %u %llu %llu %llu %d\n",
			   e->id, e->pid,
			   e->blocked ? "blocked" : vgpu_kcb_state_names[e->state],
			   e->priority, e->latency_budget_us, e->arrival,
			   e->num_tbs, e->tbs_done, e->tbs_running,
			   e->nr_requeued, e->next_tb, e->res.threads,
			   e->res.regs, e->res.shared, e->quota, e->plan_sms,
			   vgpu_kcb_ipc_milli(e, s->cycle),
			   n ? div64_u64(e->tb_cycles, n) : 0,
			   n ? div64_u64(e->warp_insts, n) : 0, e->error);
	}
	mutex_unlock(&vdev->lock);
	return 0;
}

/*
 * The lock-step with the daemon: the wake-up asked for and not yet reached
 * (0: none), whether the synchronised clock holds, whether the last pass
 * stopped on a full command ring, and the ring's free entries.
 */
static int vgpu_debugfs_lockstep(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	struct vgpu_sched *s = &vdev->sched;

	mutex_lock(&vdev->lock);
	seq_printf(m, "attached %d cycle %llu wake_at %llu held %d ring_full %d ring_free %u commands %u\n",
		   s->attached, s->cycle, s->wake_at, READ_ONCE(s->held),
		   s->ring_full,
		   s->attached && s->sink ? s->sink->space(s->sink_ctx) : 0,
		   s->cmd_seq);
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
			/* A PREEMPT sent and not answered yet; a drain. */
			if (s->slots) {
				const struct vgpu_sched_slot *ss =
					vgpu_sched_slot_of(s, i, k);

				if (ss->preempting)
					seq_printf(m, " preempting %u:%u",
						   ss->job, ss->tb);
				if (vgpu_sched_slot_draining(s, i, k))
					seq_puts(m, " draining");
			}
			seq_putc(m, '\n');
		}
	}
out:
	mutex_unlock(&vdev->lock);
	return 0;
}

/* A file of the scheduler's text, @show's (PAGE_SIZE bytes at most). */
static int vgpu_debugfs_sched_page(struct seq_file *m,
				   int (*show)(const struct vgpu_sched *s,
					       char *buf))
{
	struct drm_debugfs_entry *entry = m->private;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	char *buf = (char *)get_zeroed_page(GFP_KERNEL);
	int len;

	if (!buf)
		return -ENOMEM;
	mutex_lock(&vdev->lock);
	len = show(&vdev->sched, buf);
	mutex_unlock(&vdev->lock);
	seq_write(m, buf, len);
	free_page((unsigned long)buf);
	return 0;
}

/* Preemption: the policy and what it did since the module was loaded. */
static int vgpu_debugfs_preempt(struct seq_file *m, void *data)
{
	return vgpu_debugfs_sched_page(m, vgpu_sched_preempt_show);
}

/* TLP policies (DYNCTA, DYNCORE): the policy, its counters, each SM's limit. */
static int vgpu_debugfs_tlp(struct seq_file *m, void *data)
{
	return vgpu_debugfs_sched_page(m, vgpu_tlp_show);
}

/*
 * A partition policy's own file (&vgpu_policy_conf.show; "maestro": its
 * epoch and the decisions it took since the device was created), whether
 * the policy is active or not.
 */
static int vgpu_debugfs_policy(struct seq_file *m, void *data)
{
	struct drm_debugfs_entry *entry = m->private;
	const struct vgpu_policy_conf *conf = entry->file.data;
	struct vgpu_device *vdev = to_vgpu_device(entry->dev);
	char *buf = (char *)get_zeroed_page(GFP_KERNEL);
	void *area;
	int len = 0;

	if (!buf)
		return -ENOMEM;
	mutex_lock(&vdev->lock);
	area = vgpu_sched_policy_conf(&vdev->sched, conf);
	if (area)
		len = conf->show(area, buf);
	mutex_unlock(&vdev->lock);
	seq_write(m, buf, len);
	free_page((unsigned long)buf);
	return 0;
}

/**
 * vgpu_debugfs_init() - register the kcb, lockstep, smst, preempt and tlp
 *	files, and one
 *	per partition policy that has one (&vgpu_policy_conf.show).
 * @vdev: the device, before drm_dev_register().
 */
void vgpu_debugfs_init(struct vgpu_device *vdev)
{
	unsigned int i;

	drm_debugfs_add_file(&vdev->drm, "kcb", vgpu_debugfs_kcb, NULL);
	drm_debugfs_add_file(&vdev->drm, "lockstep", vgpu_debugfs_lockstep, NULL);
	drm_debugfs_add_file(&vdev->drm, "smst", vgpu_debugfs_smst, NULL);
	drm_debugfs_add_file(&vdev->drm, "preempt", vgpu_debugfs_preempt, NULL);
	drm_debugfs_add_file(&vdev->drm, "tlp", vgpu_debugfs_tlp, NULL);
	for (i = 0; vgpu_partition_policies[i]; i++) {
		const struct vgpu_policy_conf *conf = vgpu_partition_conf(i);

		if (conf && conf->show)
			drm_debugfs_add_file(&vdev->drm, conf->name,
					     vgpu_debugfs_policy,
					     (void *)conf);
	}
}
