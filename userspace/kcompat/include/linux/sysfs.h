/* SPDX-License-Identifier: MIT */
/*
 * kcompat: the string helpers of <linux/sysfs.h>. A "sysfs buffer" is
 * PAGE_SIZE bytes, as in the kernel.
 */
#ifndef VGPU_KCOMPAT_LINUX_SYSFS_H
#define VGPU_KCOMPAT_LINUX_SYSFS_H

#include <stdarg.h>
#include <stdio.h>

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/types.h>

static inline __printf(3, 4) int sysfs_emit_at(char *buf, int at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at < 0 || at >= (int)PAGE_SIZE)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, PAGE_SIZE - (size_t)at, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return n < (int)PAGE_SIZE - at ? n : (int)PAGE_SIZE - at - 1;
}

#define sysfs_emit(buf, fmt...)	sysfs_emit_at(buf, 0, fmt)


#endif
