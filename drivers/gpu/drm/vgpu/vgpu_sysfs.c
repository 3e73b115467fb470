// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu sysfs: the scheduler knobs (vgpu_knob.c) as attributes of the
 * platform device, which /sys/class/drm/renderD128/device points to.
 * Documented in Documentation/ABI/testing/sysfs-driver-vgpu.
 *
 * One attribute per knob, and a read-only copy of its default in the
 * ".defaults" directory, as Xe's engine attributes do; both are built from
 * the knobs when the device is created, so that a knob added to the table
 * (or a policy's) is an attribute without more code here. Reads and writes
 * are the knobs' own, taken under the device lock.
 */

#include <linux/device.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "vgpu_drv.h"
#include "vgpu_knob.h"

/**
 * struct vgpu_sysfs - the attributes of one device's knobs.
 * @attrs: per knob, its attribute, then its .defaults attribute.
 * @values: the knobs' attributes, NULL-terminated.
 * @defaults: the .defaults attributes, NULL-terminated.
 * @groups: the knobs and ".defaults".
 * @list: @groups as sysfs_create_groups() takes them, NULL-terminated.
 *
 * Built before sysfs_create_groups() and freed after
 * sysfs_remove_groups(); not changed in between.
 */
struct vgpu_sysfs {
	struct device_attribute *attrs;
	struct attribute **values;
	struct attribute **defaults;
	struct attribute_group groups[2];
	const struct attribute_group *list[3];
};

static ssize_t vgpu_sysfs_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct vgpu_device *vdev = dev_get_drvdata(dev);
	int ret;

	mutex_lock(&vdev->lock);
	ret = vgpu_knob_show(&vdev->sched, attr->attr.name, buf);
	mutex_unlock(&vdev->lock);
	return ret;
}

static ssize_t vgpu_sysfs_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct vgpu_device *vdev = dev_get_drvdata(dev);
	u32 emitted;
	int ret;

	mutex_lock(&vdev->lock);
	vdev->sched.emitted = 0;
	ret = vgpu_knob_store(&vdev->sched, attr->attr.name, buf);
	emitted = vdev->sched.emitted;
	mutex_unlock(&vdev->lock);
	/*
	 * A knob the daemon must hear of (kernel_sched, warp_sched,
	 * subcore_assign) queued a command: the daemon may sleep in poll()
	 * with nothing to simulate.
	 */
	if (emitted)
		vgpu_backend_notify(vdev);
	return ret ? ret : count;
}

static ssize_t vgpu_sysfs_default_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	return vgpu_knob_default(attr->attr.name, buf);
}

static void vgpu_sysfs_free(struct vgpu_sysfs *vs)
{
	if (!vs)
		return;
	kfree(vs->attrs);
	kfree(vs->values);
	kfree(vs->defaults);
	kfree(vs);
}

/* One attribute and one .defaults attribute per knob. */
static struct vgpu_sysfs *vgpu_sysfs_build(void)
{
	struct vgpu_sysfs *vs;
	const char *name;
	unsigned int n, i;

	for (n = 0; vgpu_knob_name(n); n++)
		;
	vs = kzalloc(sizeof(*vs), GFP_KERNEL);
	if (!vs)
		return NULL;
	vs->attrs = kcalloc(2 * n, sizeof(*vs->attrs), GFP_KERNEL);
	vs->values = kcalloc(n + 1, sizeof(*vs->values), GFP_KERNEL);
	vs->defaults = kcalloc(n + 1, sizeof(*vs->defaults), GFP_KERNEL);
	if (!vs->attrs || !vs->values || !vs->defaults) {
		vgpu_sysfs_free(vs);
		return NULL;
	}
	for (i = 0; (name = vgpu_knob_name(i)); i++) {
		struct device_attribute *a = &vs->attrs[2 * i];
		struct device_attribute *d = &vs->attrs[2 * i + 1];

		sysfs_attr_init(&a->attr);
		a->attr.name = name;
		a->attr.mode = 0644;
		a->show = vgpu_sysfs_show;
		a->store = vgpu_sysfs_store;
		vs->values[i] = &a->attr;

		sysfs_attr_init(&d->attr);
		d->attr.name = name;
		d->attr.mode = 0444;
		d->show = vgpu_sysfs_default_show;
		vs->defaults[i] = &d->attr;
	}
	vs->groups[0].attrs = vs->values;
	vs->groups[1].name = ".defaults";
	vs->groups[1].attrs = vs->defaults;
	vs->list[0] = &vs->groups[0];
	vs->list[1] = &vs->groups[1];
	return vs;
}

/**
 * vgpu_sysfs_init() - create the scheduler attributes.
 * @vdev: the device; its platform device's drvdata must point to it.
 *
 * Return: 0 or a negative errno.
 */
int vgpu_sysfs_init(struct vgpu_device *vdev)
{
	struct vgpu_sysfs *vs = vgpu_sysfs_build();
	int ret;

	if (!vs)
		return -ENOMEM;
	ret = sysfs_create_groups(&vdev->drm.dev->kobj, vs->list);
	if (ret) {
		vgpu_sysfs_free(vs);
		return ret;
	}
	vdev->sysfs = vs;
	return 0;
}

/**
 * vgpu_sysfs_fini() - remove them.
 * @vdev: the device.
 */
void vgpu_sysfs_fini(struct vgpu_device *vdev)
{
	if (!vdev->sysfs)
		return;
	sysfs_remove_groups(&vdev->drm.dev->kobj, vdev->sysfs->list);
	vgpu_sysfs_free(vdev->sysfs);
	vdev->sysfs = NULL;
}
