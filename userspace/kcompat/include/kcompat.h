/* SPDX-License-Identifier: MIT */
/*
 * kcompat.h - force-included into every kernel file built for userspace.
 *
 * Kernel headers include one another so widely that a kernel file gets
 * errno values, printk and dev_*(), the 64-bit divisions and the string
 * helpers through almost any header it names. The compat headers include
 * only what they need; this header gives every file that common ground
 * at once, as the kernel's build gives it kconfig.h.
 */
#ifndef VGPU_KCOMPAT_H
#define VGPU_KCOMPAT_H

#include <linux/kconfig.h>

#include <linux/device.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/types.h>

#endif /* VGPU_KCOMPAT_H */
