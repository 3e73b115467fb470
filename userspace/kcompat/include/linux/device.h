/* SPDX-License-Identifier: MIT */
/*
 * kcompat: the device a scheduler logs for. Only its name exists here; the
 * dev_*() messages go through kcompat_log() (see <linux/printk.h>).
 */
#ifndef VGPU_KCOMPAT_LINUX_DEVICE_H
#define VGPU_KCOMPAT_LINUX_DEVICE_H

#include <linux/gfp.h>
#include <linux/printk.h>
#include <linux/types.h>

/**
 * struct device - a device: its name in messages and its managed resources.
 * @name: e.g. "vgpu-local".
 * @devres: resources of devres_add(), released by
 *	kcompat_devres_release_all() (as a driver's unbind releases them);
 *	zero-initialised is empty.
 */
struct device {
	const char *name;
	struct kcompat_devres *devres;
};

typedef void (*dr_release_t)(struct device *dev, void *res);
typedef int (*dr_match_t)(struct device *dev, void *res, void *match_data);

/* Managed resources (the kernel's devres), for policies' per-kernel state. */
void *devres_alloc(dr_release_t release, size_t size, gfp_t gfp);
void devres_free(void *res);
void devres_add(struct device *dev, void *res);
int devres_destroy(struct device *dev, dr_release_t release, dr_match_t match,
		   void *match_data);
/* Releases every resource of @dev, the newest first. */
void kcompat_devres_release_all(struct device *dev);

static inline const char *dev_name(const struct device *dev)
{
	return dev && dev->name ? dev->name : "(NULL device *)";
}

void kcompat_dev_log(int level, const struct device *dev, const char *fmt, ...)
	__printf(3, 4);

#define dev_err(dev, fmt, ...)	kcompat_dev_log(3, dev, fmt, ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)	kcompat_dev_log(4, dev, fmt, ##__VA_ARGS__)
#define dev_notice(dev, fmt, ...) kcompat_dev_log(5, dev, fmt, ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)	kcompat_dev_log(6, dev, fmt, ##__VA_ARGS__)
#define dev_dbg(dev, fmt, ...)	kcompat_dev_log(7, dev, fmt, ##__VA_ARGS__)

#endif
