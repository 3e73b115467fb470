/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu thread-level parallelism policies (vgpu_tlp.c): how many thread
 * blocks each SM holds and which SMs take blocks at all, decided from the
 * per-SM counters the daemon reports every sampling period (Kayiran et al.,
 * "Neither More Nor Less", seed 001: DYNCTA and DYNCORE). They compose
 * with the partition policies: a TB starts on an SM only where the
 * partition policy and the TLP policy both allow it.
 */
#ifndef _VGPU_TLP_H_
#define _VGPU_TLP_H_

#include <linux/types.h>

#include <drm/vgpu_backend.h>

struct vgpu_kcb_entry;
struct vgpu_sched;

/** The sampling period of DYNCTA and DYNCORE in cycles (§4.1, §4.2). */
#define VGPU_TLP_PERIOD			2048

/* Defaults of DYNCTA's thresholds (Kayiran et al., §4.1, Algorithm 1). */
#define VGPU_DYNCTA_T_IDLE_DEFAULT	16
#define VGPU_DYNCTA_T_MEM_L_DEFAULT	128
#define VGPU_DYNCTA_T_MEM_H_DEFAULT	384

/* Defaults of DYNCORE: 8 of 30 SMs off below 66 % active cycles (§4.2). */
#define VGPU_DYNCORE_GATE_SMS_DEFAULT	8
#define VGPU_DYNCORE_T_ACT_PCT_DEFAULT	66
/* Largest dyncore_gate_sms: one less than the most SMs a device has. */
#define VGPU_DYNCORE_GATE_SMS_MAX	1023

/* Default of the static policy's limit: the paper's 8 TBs an SM holds. */
#define VGPU_TLP_STATIC_TBS_DEFAULT	8

/**
 * struct vgpu_tlp_ops - a thread-level parallelism policy; an entry of
 *	vgpu_tlp_policies[].
 * @name: its name, as the tlp_policy attribute shows it.
 * @first_limit: the limit of an SM when it receives the first TB of a
 *	kernel of which @max TBs fit it. Device lock held.
 * @sample: SM @sm reported @smp for the period that ended at the current
 *	cycle; the policy adjusts the SM's block limit
 *	(&vgpu_tlp_sm.limit). Optional. Device lock held.
 * @period_end: every SM has reported the period (@smp above, in SM order
 *	once per period): device-wide decisions (&vgpu_tlp_sm.gated).
 *	Optional. Device lock held.
 *
 * Policies, one file each: vgpu_tlp_dyncta.c, vgpu_tlp_dyncore.c and
 * vgpu_tlp_static.c (a fixed limit, the baseline DYNCTA is measured
 * against); the first entry, "none", changes nothing. Only a policy with
 * @sample asks the daemon for samples.
 */
struct vgpu_tlp_ops {
	const char *name;
	u32 (*first_limit)(const struct vgpu_sched *s, u32 max);
	void (*sample)(struct vgpu_sched *s, u32 sm,
		       const struct vgpu_evt_sample *smp);
	void (*period_end)(struct vgpu_sched *s);
};

/**
 * struct vgpu_tlp_sm - the TLP state of one SM.
 * @limit: DYNCTA's n: the most unpaused TBs the SM runs; 0 while @job is
 *	0 (no limit yet).
 * @max: DYNCTA's N: the TBs of @job that fit the empty SM.
 * @job: id of the kernel @limit was sized for (the kernel of the TB the
 *	SM received last), 0 none.
 * @gated: DYNCORE turned the SM off: it takes no TB; those it holds run to
 *	their end.
 * @active: the SM's active cycles of the last period (DYNCORE's N_act).
 * @gated_sent: the daemon was told that the SM is off
 *	(%VGPU_CMD_SET_SM_GATED).
 */
struct vgpu_tlp_sm {
	u32 limit;
	u32 max;
	u32 job;
	bool gated;
	u32 active;
	bool gated_sent;
};

/**
 * struct vgpu_tlp_stats - what the TLP policies did since the module was
 *	loaded (debugfs "tlp"; readers take differences).
 * @samples: SM samples handled.
 * @raised: times an SM's limit went up.
 * @lowered: times it went down.
 * @pauses: SET_TB_PAUSED commands that paused a TB.
 * @resumes: ... that let one run again.
 * @gate_changes: times DYNCORE turned SMs off or back on.
 */
struct vgpu_tlp_stats {
	u64 samples;
	u64 raised;
	u64 lowered;
	u64 pauses;
	u64 resumes;
	u64 gate_changes;
};

/**
 * struct vgpu_tlp - the TLP policy of one device (&vgpu_sched.tlp).
 * @ops: the policy; never NULL.
 * @t_idle: DYNCTA's t_idle: C_idle at or above it adds a TB.
 * @t_mem_l: t_mem_l: C_mem below it adds a TB.
 * @t_mem_h: t_mem_h: C_mem at or above it takes one away.
 * @gate_sms: DYNCORE: SMs turned off while the device is memory bound.
 * @t_act_pct: DYNCORE: t_act as a share of every SM's cycles of a period.
 * @static_tbs: policy "static": the limit of every SM (at most N).
 * @sms: per SM (valid while the scheduler is attached).
 * @sampling: the sampling period the daemon was told (0 none).
 * @seq: TBs dispatched since attach: the order of assignment.
 * @period_act: active cycles summed over the SMs on while a period's
 *	samples come in (DYNCORE's G_act).
 * @stats: what the policies did.
 */
struct vgpu_tlp {
	const struct vgpu_tlp_ops *ops;
	u32 t_idle;
	u32 t_mem_l;
	u32 t_mem_h;
	u32 gate_sms;
	u32 t_act_pct;
	u32 static_tbs;
	struct vgpu_tlp_sm *sms;
	u32 sampling;
	u64 seq;
	u64 period_act;
	struct vgpu_tlp_stats stats;
};

/* The policies, one file each, and their registry (vgpu_tlp.c). */
extern const struct vgpu_tlp_ops vgpu_tlp_none;
extern const struct vgpu_tlp_ops vgpu_tlp_dyncta;
extern const struct vgpu_tlp_ops vgpu_tlp_dyncore;
extern const struct vgpu_tlp_ops vgpu_tlp_static;
extern const struct vgpu_tlp_ops *const vgpu_tlp_policies[];

void vgpu_tlp_init(struct vgpu_sched *s);
int vgpu_tlp_attach(struct vgpu_sched *s);
void vgpu_tlp_detach(struct vgpu_sched *s);
void vgpu_tlp_set_policy(struct vgpu_sched *s, const struct vgpu_tlp_ops *ops);
bool vgpu_tlp_may_start(const struct vgpu_sched *s,
			const struct vgpu_kcb_entry *e, u32 sm);
void vgpu_tlp_dispatched(struct vgpu_sched *s, const struct vgpu_kcb_entry *e,
			 u32 sm, u32 slot);
int vgpu_tlp_sample(struct vgpu_sched *s, const struct vgpu_evt *evt);
bool vgpu_tlp_sync(struct vgpu_sched *s);
void vgpu_tlp_ungate_idle(struct vgpu_sched *s);
int vgpu_tlp_show(const struct vgpu_sched *s, char *buf);

/* vgpu_tlp_dyncta.c: Algorithm 1 for one SM and one period. */
u32 vgpu_dyncta_first_limit(const struct vgpu_sched *s, u32 max);
u32 vgpu_dyncta_next_limit(const struct vgpu_tlp *t, u32 n, u32 max,
			   u32 ncta, const struct vgpu_evt_sample *smp);
void vgpu_dyncta_sample(struct vgpu_sched *s, u32 sm,
			const struct vgpu_evt_sample *smp);

/* vgpu_tlp_dyncore.c: whether the SMs are to be off after a period. */
bool vgpu_dyncore_gate(const struct vgpu_tlp *t, u32 num_sms, u64 g_act);

#endif /* _VGPU_TLP_H_ */
