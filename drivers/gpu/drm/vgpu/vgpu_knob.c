// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu scheduler knobs: every setting of the command processor that is an
 * attribute of the device in sysfs (Documentation/ABI/testing/
 * sysfs-driver-vgpu), described once. The table below holds the core's
 * knobs; a partition policy's own knobs come with its
 * &vgpu_partition_ops.conf and follow, in the order of
 * vgpu_partition_policies[]. The policy lists of partition_policy and
 * preempt_policy are the registries themselves.
 *
 * Pure: the device lock is the caller's (vgpu_sysfs.c, libvgpu's local
 * device); a bad value fails with -EINVAL, logged at debug level, and
 * changes nothing. A value taken is used from the next scheduling decision
 * on (the next submission or daemon event).
 */

#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/limits.h>
#include <linux/lockdep.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include <kunit/visibility.h>

#include "vgpu_knob.h"
#include "vgpu_sched.h"
#include "vgpu_trace.h"

/* Largest latency_budget_us and preempt_stress. */
#define VGPU_BUDGET_US_MAX	1000000
#define VGPU_STRESS_MAX		100000000

static const char * const vgpu_alloc_mode_names[] = {
	[VGPU_SMST_FIRST_FIT] = "first-fit",
	[VGPU_SMST_TWO_WAY] = "2-way",
	NULL
};

/* Kernel-aware warp scheduling modes (&enum vgpu_kernel_sched). */
static const char * const vgpu_kernel_sched_names[] = {
	[VGPU_KSCHED_NONE] = "none",
	[VGPU_KSCHED_LRR] = "lrr",
	[VGPU_KSCHED_IPR] = "ipr",
	[VGPU_KSCHED_FAIR] = "fair",
	NULL
};

static_assert(ARRAY_SIZE(vgpu_kernel_sched_names) == VGPU_KSCHED_COUNT + 1);

/* Warp schedulers (&enum vgpu_warp_sched). */
static const char * const vgpu_warp_sched_names[] = {
	[VGPU_WARP_SCHED_CONFIG] = "config",
	[VGPU_WARP_SCHED_LRR] = "lrr",
	[VGPU_WARP_SCHED_GTO] = "gto",
	[VGPU_WARP_SCHED_TWO_LEVEL] = "two-level",
	[VGPU_WARP_SCHED_ELF] = "elf",
	[VGPU_WARP_SCHED_ELF_NEWCAR] = "elf-newcar",
	[VGPU_WARP_SCHED_ELF_PP] = "elf++",
	[VGPU_WARP_SCHED_RBA] = "rba",
	[VGPU_WARP_SCHED_PROGRESS] = "progress",
	NULL
};

static_assert(ARRAY_SIZE(vgpu_warp_sched_names) == VGPU_WARP_SCHED_COUNT + 1);

/* Sub-core assignments of warps (&enum vgpu_subcore_assign_mode). */
static const char * const vgpu_subcore_assign_names[] = {
	[VGPU_SUBCORE_ASSIGN_CONFIG] = "config",
	[VGPU_SUBCORE_ASSIGN_RR] = "rr",
	[VGPU_SUBCORE_ASSIGN_SRR] = "srr",
	[VGPU_SUBCORE_ASSIGN_SHUFFLE] = "shuffle",
	NULL
};

static_assert(ARRAY_SIZE(vgpu_subcore_assign_names) ==
	      VGPU_SUBCORE_ASSIGN_COUNT + 1);

/* Virtual Thread modes (&enum vgpu_virtual_thread). */
static const char * const vgpu_virtual_thread_names[] = {
	[VGPU_VT_OFF] = "off",
	[VGPU_VT_ON] = "on",
	[VGPU_VT_MAX] = "max",
	NULL
};

static_assert(ARRAY_SIZE(vgpu_virtual_thread_names) == VGPU_VT_COUNT + 1);

static const char *vgpu_knob_partition_name(u32 i)
{
	const struct vgpu_partition_ops *ops = vgpu_partition_policies[i];

	return ops ? ops->name : NULL;
}

static u32 vgpu_knob_partition_get(const struct vgpu_sched *s)
{
	u32 i;

	for (i = 0; vgpu_partition_policies[i]; i++)
		if (vgpu_partition_policies[i] == s->policy)
			return i;
	return U32_MAX;
}

static void vgpu_knob_partition_set(struct vgpu_sched *s, u32 v)
{
	const struct vgpu_partition_ops *old = s->policy;
	const struct vgpu_partition_ops *ops = vgpu_partition_policies[v];

	vgpu_sched_set_policy(s, ops);
	trace_vgpu_policy_change(old->name, ops->name, s->cycle);
}

static const char *vgpu_knob_preempt_name(u32 i)
{
	const struct vgpu_preempt_ops *ops = vgpu_preempt_policies[i];

	return ops ? ops->name : NULL;
}

static u32 vgpu_knob_preempt_get(const struct vgpu_sched *s)
{
	u32 i;

	for (i = 0; vgpu_preempt_policies[i]; i++)
		if (vgpu_preempt_policies[i] == s->preempt_ops)
			return i;
	return U32_MAX;
}

static void vgpu_knob_preempt_set(struct vgpu_sched *s, u32 v)
{
	s->preempt_ops = vgpu_preempt_policies[v];
}

static u32 vgpu_knob_alloc_get(const struct vgpu_sched *s)
{
	/* What is in effect: 2-way while a policy requires it (maestro). */
	return vgpu_sched_alloc_mode(s);
}

static void vgpu_knob_alloc_set(struct vgpu_sched *s, u32 v)
{
	vgpu_sched_set_alloc_mode(s, v);
}

static u32 vgpu_knob_idem_get(const struct vgpu_sched *s)
{
	return s->idem;
}

static void vgpu_knob_idem_set(struct vgpu_sched *s, u32 v)
{
	s->idem = v;
}

static u32 vgpu_knob_kernel_sched_get(const struct vgpu_sched *s)
{
	return s->kernel_sched;
}

static void vgpu_knob_kernel_sched_set(struct vgpu_sched *s, u32 v)
{
	/* Sent to an attached daemon at once. */
	vgpu_sched_set_kernel_sched(s, v);
}

static u32 vgpu_knob_warp_sched_get(const struct vgpu_sched *s)
{
	return s->warp_sched;
}

static void vgpu_knob_warp_sched_set(struct vgpu_sched *s, u32 v)
{
	/* Sent to an attached daemon at once. */
	vgpu_sched_set_warp_sched(s, v);
}

static u32 vgpu_knob_subcore_assign_get(const struct vgpu_sched *s)
{
	return s->subcore_assign;
}

static void vgpu_knob_subcore_assign_set(struct vgpu_sched *s, u32 v)
{
	vgpu_sched_set_subcore_assign(s, v);
}

static const char *vgpu_knob_tlp_name(u32 i)
{
	const struct vgpu_tlp_ops *ops = vgpu_tlp_policies[i];

	return ops ? ops->name : NULL;
}

static u32 vgpu_knob_tlp_get(const struct vgpu_sched *s)
{
	u32 i;

	for (i = 0; vgpu_tlp_policies[i]; i++)
		if (vgpu_tlp_policies[i] == s->tlp.ops)
			return i;
	return U32_MAX;
}

static void vgpu_knob_tlp_set(struct vgpu_sched *s, u32 v)
{
	vgpu_tlp_set_policy(s, vgpu_tlp_policies[v]);
}

static u32 vgpu_knob_virtual_thread_get(const struct vgpu_sched *s)
{
	return s->virtual_thread;
}

static void vgpu_knob_virtual_thread_set(struct vgpu_sched *s, u32 v)
{
	/* Applied when no TB is placed (at once on an idle device). */
	vgpu_sched_set_virtual_thread(s, v);
}

/* The core's knobs; the policies' follow (vgpu_knob_at()). */
static const struct vgpu_knob vgpu_knobs[] = {
	{
		.name = "partition_policy",
		.kind = VGPU_KNOB_CHOICE,
		.choice = vgpu_knob_partition_name,
		.trim = true,
		.get = vgpu_knob_partition_get,
		.set = vgpu_knob_partition_set,
	}, {
		.name = "preempt_policy",
		.kind = VGPU_KNOB_CHOICE,
		.choice = vgpu_knob_preempt_name,
		.get = vgpu_knob_preempt_get,
		.set = vgpu_knob_preempt_set,
	}, {
		.name = "smst_alloc",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_SMST_FIRST_FIT,
		.choices = vgpu_alloc_mode_names,
		.get = vgpu_knob_alloc_get,
		.set = vgpu_knob_alloc_set,
	}, {
		.name = "idempotence",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_PREEMPT_IDEM_RELAXED,
		.choices = vgpu_preempt_idem_names,
		.get = vgpu_knob_idem_get,
		.set = vgpu_knob_idem_set,
	}, {
		.name = "latency_budget_us",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = VGPU_BUDGET_US_MAX,
		.def = VGPU_BUDGET_US_DEFAULT,
		.offset = offsetof(struct vgpu_sched, budget_us),
	}, {
		.name = "latency_margin_pct",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = VGPU_BUDGET_MARGIN_PCT_MAX,
		.def = VGPU_BUDGET_MARGIN_PCT_DEFAULT,
		.offset = offsetof(struct vgpu_sched, budget_margin_pct),
	}, {
		.name = "latency_feedback",
		.kind = VGPU_KNOB_BOOL,
		.def = false,
		.offset = offsetof(struct vgpu_sched, latency_feedback),
	}, {
		.name = "preempt_stress",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = VGPU_STRESS_MAX,
		.def = 0,
		.offset = offsetof(struct vgpu_sched, stress_period),
	}, {
		.name = "kernel_sched",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_KSCHED_NONE,
		.choices = vgpu_kernel_sched_names,
		.get = vgpu_knob_kernel_sched_get,
		.set = vgpu_knob_kernel_sched_set,
	}, {
		.name = "warp_sched",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_WARP_SCHED_CONFIG,
		.choices = vgpu_warp_sched_names,
		.get = vgpu_knob_warp_sched_get,
		.set = vgpu_knob_warp_sched_set,
	}, {
		.name = "subcore_assign",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_SUBCORE_ASSIGN_CONFIG,
		.choices = vgpu_subcore_assign_names,
		.get = vgpu_knob_subcore_assign_get,
		.set = vgpu_knob_subcore_assign_set,
	}, {
		.name = "job_timeout_us",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = U32_MAX,
		.def = VGPU_JOB_TIMEOUT_US_DEFAULT,
		.offset = offsetof(struct vgpu_sched, job_timeout_us),
	}, {
		.name = "sync_quantum_cycles",
		.kind = VGPU_KNOB_U32,
		.min = VGPU_SYNC_QUANTUM_MIN,
		.max = VGPU_SYNC_QUANTUM_MAX,
		.def = VGPU_SYNC_QUANTUM_DEFAULT,
		.offset = offsetof(struct vgpu_sched, sync_quantum),
	}, {
		.name = "clock_hold_ms",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = VGPU_CLOCK_HOLD_MS_MAX,
		.def = VGPU_CLOCK_HOLD_MS_DEFAULT,
		.offset = offsetof(struct vgpu_sched, clock_hold_ms),
	}, {
		.name = "daemon_timeout_ms",
		.kind = VGPU_KNOB_U32,
		.min = VGPU_DAEMON_TIMEOUT_MS_MIN,
		.max = VGPU_DAEMON_TIMEOUT_MS_MAX,
		.def = VGPU_DAEMON_TIMEOUT_MS_DEFAULT,
		.offset = offsetof(struct vgpu_sched, daemon_timeout_ms),
	}, {
		.name = "fair_slice_us",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = VGPU_FAIR_SLICE_US_MAX,
		.def = VGPU_FAIR_SLICE_US_DEFAULT,
		.offset = offsetof(struct vgpu_sched, fair_slice_us),
	}, {
		.name = "file_max_tbs",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = U32_MAX,
		.def = 0,
		.offset = offsetof(struct vgpu_sched, file_max_tbs),
	}, {
		.name = "file_max_jobs",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = VGPU_FILE_MAX_JOBS_MAX,
		.def = VGPU_FILE_MAX_JOBS_DEFAULT,
		.offset = offsetof(struct vgpu_sched, file_max_jobs),
	}, {
		.name = "file_vram_pct",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = 100,
		.def = VGPU_FILE_VRAM_PCT_DEFAULT,
		.offset = offsetof(struct vgpu_sched, file_vram_pct),
	}, {
		/* DYNCTA and DYNCORE (vgpu_tlp.h); a counter of a period
		 * never exceeds the period, so neither may a threshold
		 */
		.name = "tlp_policy",
		.kind = VGPU_KNOB_CHOICE,
		.choice = vgpu_knob_tlp_name,
		.get = vgpu_knob_tlp_get,
		.set = vgpu_knob_tlp_set,
	}, {
		.name = "dyncta_t_idle",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = VGPU_TLP_PERIOD,
		.def = VGPU_DYNCTA_T_IDLE_DEFAULT,
		.offset = offsetof(struct vgpu_sched, tlp.t_idle),
	}, {
		.name = "dyncta_t_mem_l",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = VGPU_TLP_PERIOD,
		.def = VGPU_DYNCTA_T_MEM_L_DEFAULT,
		.offset = offsetof(struct vgpu_sched, tlp.t_mem_l),
	}, {
		.name = "dyncta_t_mem_h",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = VGPU_TLP_PERIOD,
		.def = VGPU_DYNCTA_T_MEM_H_DEFAULT,
		.offset = offsetof(struct vgpu_sched, tlp.t_mem_h),
	}, {
		.name = "dyncore_gate_sms",
		.kind = VGPU_KNOB_U32,
		.min = 0,
		.max = VGPU_DYNCORE_GATE_SMS_MAX,
		.def = VGPU_DYNCORE_GATE_SMS_DEFAULT,
		.offset = offsetof(struct vgpu_sched, tlp.gate_sms),
	}, {
		.name = "dyncore_t_act_pct",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = 100,
		.def = VGPU_DYNCORE_T_ACT_PCT_DEFAULT,
		.offset = offsetof(struct vgpu_sched, tlp.t_act_pct),
	}, {
		.name = "tlp_static_tbs",
		.kind = VGPU_KNOB_U32,
		.min = 1,
		.max = VGPU_SMST_MAX_SLOTS,
		.def = VGPU_TLP_STATIC_TBS_DEFAULT,
		.offset = offsetof(struct vgpu_sched, tlp.static_tbs),
	}, {
		.name = "virtual_thread",
		.kind = VGPU_KNOB_CHOICE,
		.def = VGPU_VT_OFF,
		.choices = vgpu_virtual_thread_names,
		.get = vgpu_knob_virtual_thread_get,
		.set = vgpu_knob_virtual_thread_set,
	},
};

/*
 * Knob @i: the core's, then each policy conf's in registry order. *@conf
 * is the conf it belongs to (NULL for the core's).
 */
static const struct vgpu_knob *vgpu_knob_at(unsigned int i,
					    const struct vgpu_policy_conf **conf)
{
	unsigned int p;

	*conf = NULL;
	if (i < ARRAY_SIZE(vgpu_knobs))
		return &vgpu_knobs[i];
	i -= ARRAY_SIZE(vgpu_knobs);
	for (p = 0; vgpu_partition_policies[p]; p++) {
		const struct vgpu_policy_conf *c = vgpu_partition_conf(p);

		if (!c)
			continue;
		if (i < c->nr_knobs) {
			*conf = c;
			return &c->knobs[i];
		}
		i -= c->nr_knobs;
	}
	return NULL;
}

static const struct vgpu_knob *vgpu_knob_find(const char *name,
					      const struct vgpu_policy_conf **conf)
{
	const struct vgpu_knob *k;
	unsigned int i;

	for (i = 0; (k = vgpu_knob_at(i, conf)); i++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

/**
 * vgpu_knob_name() - iterate over the knobs.
 * @i: index, from 0.
 *
 * Return: the name of knob @i, or NULL past the last.
 */
const char *vgpu_knob_name(unsigned int i)
{
	const struct vgpu_policy_conf *conf;
	const struct vgpu_knob *k = vgpu_knob_at(i, &conf);

	return k ? k->name : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_knob_name);

static const char *vgpu_knob_choice(const struct vgpu_knob *k, u32 i)
{
	return k->choice ? k->choice(i) : k->choices[i];
}

/* Where a knob without @get and @set keeps its value. */
static void *vgpu_knob_ptr(struct vgpu_sched *s, const struct vgpu_knob *k,
			   const struct vgpu_policy_conf *conf)
{
	void *base = conf ? vgpu_sched_policy_conf(s, conf) : s;

	return base ? (u8 *)base + k->offset : NULL;
}

static int vgpu_knob_get(struct vgpu_sched *s, const struct vgpu_knob *k,
			 const struct vgpu_policy_conf *conf, u32 *v)
{
	void *p;

	if (k->get) {
		*v = k->get(s);
		return 0;
	}
	p = vgpu_knob_ptr(s, k, conf);
	if (!p)
		return -ENOENT;
	*v = k->kind == VGPU_KNOB_BOOL ? *(bool *)p : *(u32 *)p;
	return 0;
}

static int vgpu_knob_set(struct vgpu_sched *s, const struct vgpu_knob *k,
			 const struct vgpu_policy_conf *conf, u32 v)
{
	void *p;

	if (k->set) {
		k->set(s, v);
		return 0;
	}
	p = vgpu_knob_ptr(s, k, conf);
	if (!p)
		return -ENOENT;
	if (k->kind == VGPU_KNOB_BOOL)
		*(bool *)p = v;
	else
		*(u32 *)p = v;
	return 0;
}

/* The value @value names: 0, or -EINVAL. */
static int vgpu_knob_parse(const struct vgpu_knob *k, const char *value,
			   u32 *v)
{
	char trimmed[VGPU_KNOB_TRIM_MAX];
	const char *c;
	bool b;
	u32 i;

	switch (k->kind) {
	case VGPU_KNOB_U32:
		if (kstrtou32(value, 0, v) || *v < k->min || *v > k->max)
			return -EINVAL;
		return 0;
	case VGPU_KNOB_BOOL:
		if (kstrtobool(value, &b))
			return -EINVAL;
		*v = b;
		return 0;
	case VGPU_KNOB_CHOICE:
		if (k->trim) {
			if (strscpy(trimmed, value, sizeof(trimmed)) < 0)
				return -EINVAL;
			value = strim(trimmed);
		}
		for (i = 0; (c = vgpu_knob_choice(k, i)); i++) {
			if (sysfs_streq(value, c)) {
				*v = i;
				return 0;
			}
		}
		return -EINVAL;
	}
	return -EINVAL;
}

/**
 * vgpu_knob_store() - set a knob.
 * @s: the scheduler; the caller holds the device lock.
 * @name: the knob's name (vgpu_knob_name()).
 * @value: the value, as written to the sysfs attribute (a trailing newline
 *	is ignored).
 *
 * Return: 0; -ENOENT for an unknown knob; -EINVAL, changing nothing, for a
 * value the knob does not take (logged at debug level).
 */
int vgpu_knob_store(struct vgpu_sched *s, const char *name, const char *value)
{
	const struct vgpu_policy_conf *conf;
	const struct vgpu_knob *k;
	u32 v;

	lockdep_assert_held(s->lock);
	k = vgpu_knob_find(name, &conf);
	if (!k)
		return -ENOENT;
	if (vgpu_knob_parse(k, value, &v)) {
		if (k->kind == VGPU_KNOB_U32)
			dev_dbg(s->dev, "%s: '%.*s' is not a number in %u..%u, refused\n",
				k->name, (int)strcspn(value, "\n"), value,
				k->min, k->max);
		else
			dev_dbg(s->dev, "%s: '%.*s' refused\n", k->name,
				(int)strcspn(value, "\n"), value);
		return -EINVAL;
	}
	return vgpu_knob_set(s, k, conf, v);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_knob_store);

/* Every choice, @active in brackets, as the block layer's "scheduler". */
static int vgpu_knob_show_choices(const struct vgpu_knob *k, u32 active,
				  char *buf)
{
	const char *c;
	int len = 0;
	u32 i;

	for (i = 0; (c = vgpu_knob_choice(k, i)); i++)
		len += sysfs_emit_at(buf, len, i == active ? "%s[%s]" : "%s%s",
				     i ? " " : "", c);
	return len + sysfs_emit_at(buf, len, "\n");
}

/**
 * vgpu_knob_show() - a knob's value, as its sysfs attribute reads.
 * @s: the scheduler; the caller holds the device lock.
 * @name: the knob's name.
 * @buf: PAGE_SIZE bytes.
 *
 * Return: the length written (sysfs_emit()), or -ENOENT for an unknown
 * knob.
 */
int vgpu_knob_show(struct vgpu_sched *s, const char *name, char *buf)
{
	const struct vgpu_policy_conf *conf;
	const struct vgpu_knob *k;
	int ret;
	u32 v;

	lockdep_assert_held(s->lock);
	k = vgpu_knob_find(name, &conf);
	if (!k)
		return -ENOENT;
	ret = vgpu_knob_get(s, k, conf, &v);
	if (ret)
		return ret;
	switch (k->kind) {
	case VGPU_KNOB_CHOICE:
		return vgpu_knob_show_choices(k, v, buf);
	case VGPU_KNOB_BOOL:
		return sysfs_emit(buf, "%d\n", !!v);
	default:
		return sysfs_emit(buf, "%u\n", v);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_knob_show);

/**
 * vgpu_knob_default() - a knob's default, as its .defaults attribute reads.
 * @name: the knob's name.
 * @buf: PAGE_SIZE bytes.
 *
 * The value vgpu_sched_init() gives it: a choice's name (a policy's: the
 * first of its registry), a number, 0 or 1.
 *
 * Return: the length written, or -ENOENT for an unknown knob.
 */
int vgpu_knob_default(const char *name, char *buf)
{
	const struct vgpu_policy_conf *conf;
	const struct vgpu_knob *k = vgpu_knob_find(name, &conf);

	if (!k)
		return -ENOENT;
	if (k->kind == VGPU_KNOB_CHOICE)
		return sysfs_emit(buf, "%s\n", vgpu_knob_choice(k, k->def));
	return sysfs_emit(buf, k->kind == VGPU_KNOB_BOOL ? "%d\n" : "%u\n",
			  k->def);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_knob_default);

/**
 * vgpu_knob_conf_init() - set a policy conf's knobs to their defaults.
 * @conf: the conf.
 * @area: its per-device area, zeroed (vgpu_sched_init()).
 */
void vgpu_knob_conf_init(const struct vgpu_policy_conf *conf, void *area)
{
	unsigned int i;

	for (i = 0; i < conf->nr_knobs; i++) {
		const struct vgpu_knob *k = &conf->knobs[i];
		void *p = (u8 *)area + k->offset;

		if (k->kind == VGPU_KNOB_BOOL)
			*(bool *)p = k->def;
		else
			*(u32 *)p = k->def;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_knob_conf_init);
