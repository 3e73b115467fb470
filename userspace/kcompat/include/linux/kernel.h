/* SPDX-License-Identifier: MIT */
/* kcompat: the grab bag <linux/kernel.h> pulls in. */
#ifndef VGPU_KCOMPAT_LINUX_KERNEL_H
#define VGPU_KCOMPAT_LINUX_KERNEL_H

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/err.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#endif
