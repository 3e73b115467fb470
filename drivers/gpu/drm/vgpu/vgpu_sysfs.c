// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu sysfs: scheduler knobs under the platform device, which
 * /sys/class/drm/renderD128/device points to. Documented in
 * Documentation/ABI/testing/sysfs-driver-vgpu.
 *
 * Each knob has a read-only copy of its default in the ".defaults"
 * directory, as Xe's engine attributes do. A new value is taken under the
 * device lock and used from the next scheduling decision on (the next
 * submission or daemon event); a bad value fails with -EINVAL and changes
 * nothing.
 */

#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "vgpu_drv.h"
#include "vgpu_trace.h"

static const char * const vgpu_alloc_mode_names[] = {
	[VGPU_SMST_FIRST_FIT] = "first-fit",
	[VGPU_SMST_TWO_WAY] = "2-way",
};

/* Preemption policies (vgpu_preempt_*.c), the default first. */
static const char * const vgpu_preempt_names[] = {
	"drain", "switch", "flush", "chimera", "ideal",
};

static const char * const vgpu_idem_names[] = {
	[VGPU_PREEMPT_IDEM_RELAXED] = "relaxed",
	[VGPU_PREEMPT_IDEM_STRICT] = "strict",
};

/* Kernel-aware warp scheduling modes (&enum vgpu_kernel_sched), none first. */
static const char * const vgpu_kernel_sched_names[] = {
	[VGPU_KSCHED_NONE] = "none",
	[VGPU_KSCHED_LRR] = "lrr",
	[VGPU_KSCHED_IPR] = "ipr",
	[VGPU_KSCHED_FAIR] = "fair",
};

static_assert(ARRAY_SIZE(vgpu_kernel_sched_names) == VGPU_KSCHED_COUNT);
/* maestro's objectives (enum vgpu_maestro_objective), the default first. */
static const char * const vgpu_objective_names[] = {
	[VGPU_MAESTRO_STP] = "stp",
	[VGPU_MAESTRO_ANTT] = "antt",
};

/** Range of maestro_epoch_cycles. */
#define VGPU_EPOCH_MIN		100
#define VGPU_EPOCH_MAX		100000000

/** Largest latency_budget_us and preempt_stress. */
#define VGPU_BUDGET_US_MAX	1000000
#define VGPU_STRESS_MAX		100000000

static struct vgpu_device *vgpu_sysfs_vdev(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t vgpu_show_choice(char *buf, const char * const *names,
				size_t n, size_t active)
{
	int len = 0;
	size_t i;

	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, i == active ? "%s[%s]" : "%s%s",
				     i ? " " : "", names[i]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t partition_policy_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	const struct vgpu_partition_ops *ops;

	mutex_lock(&vdev->lock);
	ops = vdev->sched.policy;
	mutex_unlock(&vdev->lock);
	return vgpu_partition_show(ops, buf);
}

static ssize_t partition_policy_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	const struct vgpu_partition_ops *ops, *old;
	char name[32];

	if (strscpy(name, buf, sizeof(name)) < 0)
		return -EINVAL;
	ops = vgpu_partition_find(strim(name));
	if (!ops)
		return -EINVAL;
	mutex_lock(&vdev->lock);
	old = vdev->sched.policy;
	vgpu_sched_set_policy(&vdev->sched, ops);
	trace_vgpu_policy_change(old->name, ops->name, vdev->sched.cycle);
	mutex_unlock(&vdev->lock);
	return count;
}
static DEVICE_ATTR_RW(partition_policy);

static ssize_t preempt_policy_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	size_t i, active = 0;

	mutex_lock(&vdev->lock);
	for (i = 0; i < ARRAY_SIZE(vgpu_preempt_names); i++)
		if (!strcmp(vdev->sched.preempt_ops->name,
			    vgpu_preempt_names[i]))
			active = i;
	mutex_unlock(&vdev->lock);
	return vgpu_show_choice(buf, vgpu_preempt_names,
				ARRAY_SIZE(vgpu_preempt_names), active);
}

static ssize_t preempt_policy_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	const struct vgpu_preempt_ops *ops;
	int i = sysfs_match_string(vgpu_preempt_names, buf);

	if (i < 0)
		return -EINVAL;
	ops = vgpu_preempt_find(vgpu_preempt_names[i]);
	if (!ops)
		return -EINVAL;
	mutex_lock(&vdev->lock);
	vdev->sched.preempt_ops = ops;
	mutex_unlock(&vdev->lock);
	return count;
}
static DEVICE_ATTR_RW(preempt_policy);

static ssize_t idempotence_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	enum vgpu_preempt_idem idem;

	mutex_lock(&vdev->lock);
	idem = vdev->sched.idem;
	mutex_unlock(&vdev->lock);
	return vgpu_show_choice(buf, vgpu_idem_names,
				ARRAY_SIZE(vgpu_idem_names), idem);
}

static ssize_t idempotence_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	int idem = sysfs_match_string(vgpu_idem_names, buf);

	if (idem < 0)
		return -EINVAL;
	mutex_lock(&vdev->lock);
	vdev->sched.idem = idem;
	mutex_unlock(&vdev->lock);
	return count;
}
static DEVICE_ATTR_RW(idempotence);

static ssize_t kernel_sched_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	enum vgpu_kernel_sched mode;

	mutex_lock(&vdev->lock);
	mode = vdev->sched.kernel_sched;
	mutex_unlock(&vdev->lock);
	return vgpu_show_choice(buf, vgpu_kernel_sched_names,
				ARRAY_SIZE(vgpu_kernel_sched_names), mode);
}

static ssize_t kernel_sched_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	int mode = sysfs_match_string(vgpu_kernel_sched_names, buf);

	if (mode < 0) {
		dev_dbg(dev, "kernel_sched: unknown mode '%.*s'\n",
			(int)strcspn(buf, "\n"), buf);
		return -EINVAL;
	}
	mutex_lock(&vdev->lock);
	vgpu_sched_set_kernel_sched(&vdev->sched, mode);
	mutex_unlock(&vdev->lock);
	/* the daemon may sleep in poll() with nothing to simulate */
	vgpu_backend_notify(vdev);
	return count;
}
static DEVICE_ATTR_RW(kernel_sched);

static ssize_t vgpu_u32_store(struct device *dev, const char *buf,
			      size_t count, u32 lo, u32 hi, u32 *field)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	u32 v;

	if (kstrtou32(buf, 0, &v) || v < lo || v > hi)
		return -EINVAL;
	mutex_lock(&vdev->lock);
	*field = v;
	mutex_unlock(&vdev->lock);
	return count;
}

static ssize_t vgpu_u32_show(struct device *dev, char *buf, const u32 *field)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	u32 v;

	mutex_lock(&vdev->lock);
	v = *field;
	mutex_unlock(&vdev->lock);
	return sysfs_emit(buf, "%u\n", v);
}

static ssize_t latency_budget_us_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return vgpu_u32_show(dev, buf, &vgpu_sysfs_vdev(dev)->sched.budget_us);
}

static ssize_t latency_budget_us_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	return vgpu_u32_store(dev, buf, count, 1, VGPU_BUDGET_US_MAX,
			      &vgpu_sysfs_vdev(dev)->sched.budget_us);
}
static DEVICE_ATTR_RW(latency_budget_us);

static ssize_t latency_margin_pct_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	return vgpu_u32_show(dev, buf,
			     &vgpu_sysfs_vdev(dev)->sched.budget_margin_pct);
}

static ssize_t latency_margin_pct_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	return vgpu_u32_store(dev, buf, count, 0, VGPU_BUDGET_MARGIN_PCT_MAX,
			      &vgpu_sysfs_vdev(dev)->sched.budget_margin_pct);
}
static DEVICE_ATTR_RW(latency_margin_pct);

static ssize_t latency_feedback_show(struct device *dev,
				     struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	bool on;

	mutex_lock(&vdev->lock);
	on = vdev->sched.latency_feedback;
	mutex_unlock(&vdev->lock);
	return sysfs_emit(buf, "%d\n", on);
}

static ssize_t latency_feedback_store(struct device *dev,
				      struct device_attribute *attr,
				      const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	bool on;

	if (kstrtobool(buf, &on)) {
		dev_dbg(dev, "latency_feedback: '%s' is not a boolean\n", buf);
		return -EINVAL;
	}
	mutex_lock(&vdev->lock);
	vdev->sched.latency_feedback = on;
	mutex_unlock(&vdev->lock);
	return count;
}
static DEVICE_ATTR_RW(latency_feedback);

static ssize_t preempt_stress_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return vgpu_u32_show(dev, buf,
			     &vgpu_sysfs_vdev(dev)->sched.stress_period);
}

static ssize_t preempt_stress_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	return vgpu_u32_store(dev, buf, count, 0, VGPU_STRESS_MAX,
			      &vgpu_sysfs_vdev(dev)->sched.stress_period);
}
static DEVICE_ATTR_RW(preempt_stress);

static ssize_t smst_alloc_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	enum vgpu_smst_alloc_mode mode;

	mutex_lock(&vdev->lock);
	mode = vgpu_sched_alloc_mode(&vdev->sched);
	mutex_unlock(&vdev->lock);
	return vgpu_show_choice(buf, vgpu_alloc_mode_names,
				ARRAY_SIZE(vgpu_alloc_mode_names), mode);
}

static ssize_t smst_alloc_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	int mode = sysfs_match_string(vgpu_alloc_mode_names, buf);

	if (mode < 0)
		return -EINVAL;
	mutex_lock(&vdev->lock);
	vgpu_sched_set_alloc_mode(&vdev->sched, mode);
	mutex_unlock(&vdev->lock);
	return count;
}
static DEVICE_ATTR_RW(smst_alloc);

static ssize_t smk_quota_min_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return vgpu_u32_show(dev, buf,
			     &vgpu_sysfs_vdev(dev)->sched.smk_quota_min);
}

static ssize_t smk_quota_min_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	return vgpu_u32_store(dev, buf, count, 1, VGPU_SMST_MAX_SLOTS,
			      &vgpu_sysfs_vdev(dev)->sched.smk_quota_min);
}
static DEVICE_ATTR_RW(smk_quota_min);

static ssize_t maestro_epoch_cycles_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return vgpu_u32_show(dev, buf,
			     &vgpu_sysfs_vdev(dev)->sched.maestro_epoch_cycles);
}

static ssize_t maestro_epoch_cycles_store(struct device *dev,
					  struct device_attribute *attr,
					  const char *buf, size_t count)
{
	ssize_t ret = vgpu_u32_store(dev, buf, count, VGPU_EPOCH_MIN,
				     VGPU_EPOCH_MAX,
				     &vgpu_sysfs_vdev(dev)->sched.maestro_epoch_cycles);

	if (ret < 0)
		dev_dbg(dev, "maestro_epoch_cycles: not a number in %u..%u, refused\n",
			VGPU_EPOCH_MIN, VGPU_EPOCH_MAX);
	return ret;
}
static DEVICE_ATTR_RW(maestro_epoch_cycles);

static ssize_t maestro_objective_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	u32 obj;

	mutex_lock(&vdev->lock);
	obj = vdev->sched.maestro_objective;
	mutex_unlock(&vdev->lock);
	return vgpu_show_choice(buf, vgpu_objective_names,
				ARRAY_SIZE(vgpu_objective_names), obj);
}

static ssize_t maestro_objective_store(struct device *dev,
				       struct device_attribute *attr,
				       const char *buf, size_t count)
{
	struct vgpu_device *vdev = vgpu_sysfs_vdev(dev);
	int obj = sysfs_match_string(vgpu_objective_names, buf);

	if (obj < 0) {
		dev_dbg(dev, "maestro_objective: not stp or antt, refused\n");
		return -EINVAL;
	}
	mutex_lock(&vdev->lock);
	vdev->sched.maestro_objective = obj;
	mutex_unlock(&vdev->lock);
	return count;
}
static DEVICE_ATTR_RW(maestro_objective);

static struct attribute *vgpu_sched_attrs[] = {
	&dev_attr_partition_policy.attr,
	&dev_attr_preempt_policy.attr,
	&dev_attr_smst_alloc.attr,
	&dev_attr_smk_quota_min.attr,
	&dev_attr_idempotence.attr,
	&dev_attr_latency_budget_us.attr,
	&dev_attr_latency_margin_pct.attr,
	&dev_attr_latency_feedback.attr,
	&dev_attr_preempt_stress.attr,
	&dev_attr_kernel_sched.attr,
	&dev_attr_maestro_epoch_cycles.attr,
	&dev_attr_maestro_objective.attr,
	NULL
};

static const struct attribute_group vgpu_sched_group = {
	.attrs = vgpu_sched_attrs,
};

/* .defaults: the values the driver starts with (vgpu_sched_init()). */

static ssize_t default_partition_policy_show(struct device *dev,
					     struct device_attribute *attr,
					     char *buf)
{
	return sysfs_emit(buf, "%s\n", vgpu_policy_fcfs.name);
}

static ssize_t default_preempt_policy_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return sysfs_emit(buf, "%s\n", vgpu_preempt_names[0]);
}

static ssize_t default_smst_alloc_show(struct device *dev,
				       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  vgpu_alloc_mode_names[VGPU_SMST_FIRST_FIT]);
}

static ssize_t default_smk_quota_min_show(struct device *dev,
					  struct device_attribute *attr,
					  char *buf)
{
	return sysfs_emit(buf, "%u\n", VGPU_SMK_QUOTA_MIN_DEFAULT);
}

static ssize_t default_idempotence_show(struct device *dev,
					struct device_attribute *attr,
					char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  vgpu_idem_names[VGPU_PREEMPT_IDEM_RELAXED]);
}

static ssize_t default_latency_budget_us_show(struct device *dev,
					      struct device_attribute *attr,
					      char *buf)
{
	return sysfs_emit(buf, "%u\n", VGPU_BUDGET_US_DEFAULT);
}

static ssize_t default_latency_margin_pct_show(struct device *dev,
					       struct device_attribute *attr,
					       char *buf)
{
	return sysfs_emit(buf, "%u\n", VGPU_BUDGET_MARGIN_PCT_DEFAULT);
}

static ssize_t default_latency_feedback_show(struct device *dev,
					     struct device_attribute *attr,
					     char *buf)
{
	return sysfs_emit(buf, "0\n");
}

static ssize_t default_preempt_stress_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return sysfs_emit(buf, "0\n");
}

static ssize_t default_kernel_sched_show(struct device *dev,
					 struct device_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  vgpu_kernel_sched_names[VGPU_KSCHED_NONE]);
}

static ssize_t default_maestro_epoch_cycles_show(struct device *dev,
						 struct device_attribute *attr,
						 char *buf)
{
	return sysfs_emit(buf, "%u\n", VGPU_MAESTRO_EPOCH_DEFAULT);
}

static ssize_t default_maestro_objective_show(struct device *dev,
					      struct device_attribute *attr,
					      char *buf)
{
	return sysfs_emit(buf, "%s\n", vgpu_objective_names[VGPU_MAESTRO_STP]);
}

static struct device_attribute dev_attr_default_partition_policy =
	__ATTR(partition_policy, 0444, default_partition_policy_show, NULL);
static struct device_attribute dev_attr_default_preempt_policy =
	__ATTR(preempt_policy, 0444, default_preempt_policy_show, NULL);
static struct device_attribute dev_attr_default_smst_alloc =
	__ATTR(smst_alloc, 0444, default_smst_alloc_show, NULL);
static struct device_attribute dev_attr_default_smk_quota_min =
	__ATTR(smk_quota_min, 0444, default_smk_quota_min_show, NULL);
static struct device_attribute dev_attr_default_idempotence =
	__ATTR(idempotence, 0444, default_idempotence_show, NULL);
static struct device_attribute dev_attr_default_latency_budget_us =
	__ATTR(latency_budget_us, 0444, default_latency_budget_us_show, NULL);
static struct device_attribute dev_attr_default_latency_margin_pct =
	__ATTR(latency_margin_pct, 0444, default_latency_margin_pct_show, NULL);
static struct device_attribute dev_attr_default_latency_feedback =
	__ATTR(latency_feedback, 0444, default_latency_feedback_show, NULL);
static struct device_attribute dev_attr_default_preempt_stress =
	__ATTR(preempt_stress, 0444, default_preempt_stress_show, NULL);
static struct device_attribute dev_attr_default_kernel_sched =
	__ATTR(kernel_sched, 0444, default_kernel_sched_show, NULL);
static struct device_attribute dev_attr_default_maestro_epoch_cycles =
	__ATTR(maestro_epoch_cycles, 0444, default_maestro_epoch_cycles_show,
	       NULL);
static struct device_attribute dev_attr_default_maestro_objective =
	__ATTR(maestro_objective, 0444, default_maestro_objective_show, NULL);

static struct attribute *vgpu_defaults_attrs[] = {
	&dev_attr_default_partition_policy.attr,
	&dev_attr_default_preempt_policy.attr,
	&dev_attr_default_smst_alloc.attr,
	&dev_attr_default_smk_quota_min.attr,
	&dev_attr_default_idempotence.attr,
	&dev_attr_default_latency_budget_us.attr,
	&dev_attr_default_latency_margin_pct.attr,
	&dev_attr_default_latency_feedback.attr,
	&dev_attr_default_preempt_stress.attr,
	&dev_attr_default_kernel_sched.attr,
	&dev_attr_default_maestro_epoch_cycles.attr,
	&dev_attr_default_maestro_objective.attr,
	NULL
};

static const struct attribute_group vgpu_defaults_group = {
	.name = ".defaults",
	.attrs = vgpu_defaults_attrs,
};

static const struct attribute_group *vgpu_sysfs_groups[] = {
	&vgpu_sched_group,
	&vgpu_defaults_group,
	NULL
};

/**
 * vgpu_sysfs_init() - create the scheduler attributes.
 * @vdev: the device; its platform device's drvdata must point to it.
 *
 * Return: 0 or a negative errno.
 */
int vgpu_sysfs_init(struct vgpu_device *vdev)
{
	return sysfs_create_groups(&vdev->drm.dev->kobj, vgpu_sysfs_groups);
}

/**
 * vgpu_sysfs_fini() - remove them.
 * @vdev: the device.
 */
void vgpu_sysfs_fini(struct vgpu_device *vdev)
{
	sysfs_remove_groups(&vdev->drm.dev->kobj, vgpu_sysfs_groups);
}
