/* SPDX-License-Identifier: MIT */
/*
 * kcompat: printk() and pr_*(). Messages go to kcompat_log(): errors and
 * warnings always reach stderr, the rest only at the level the environment
 * variable VGPU_KLOG asks for (0 errors ... 7 debug; default 4).
 */
#ifndef VGPU_KCOMPAT_LINUX_PRINTK_H
#define VGPU_KCOMPAT_LINUX_PRINTK_H

#include <linux/compiler.h>

#define KERN_EMERG	"\0010"
#define KERN_ALERT	"\0011"
#define KERN_CRIT	"\0012"
#define KERN_ERR	"\0013"
#define KERN_WARNING	"\0014"
#define KERN_NOTICE	"\0015"
#define KERN_INFO	"\0016"
#define KERN_DEBUG	"\0017"

/* Logs at @level (0 ... 7) with an optional @prefix ("dev: "). */
void kcompat_log(int level, const char *prefix, const char *fmt, ...) __printf(3, 4);
/* printk(): the level comes from a KERN_* prefix of @fmt (default info). */
void kcompat_printk(const char *fmt, ...) __printf(1, 2);

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define printk(fmt...)		kcompat_printk(fmt)
#define pr_err(fmt, ...)	kcompat_log(3, NULL, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	kcompat_log(4, NULL, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	kcompat_log(5, NULL, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	kcompat_log(6, NULL, pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)	kcompat_log(7, NULL, pr_fmt(fmt), ##__VA_ARGS__)

#endif
