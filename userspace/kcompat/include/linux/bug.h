/* SPDX-License-Identifier: MIT */
/*
 * kcompat: WARN_ON() and friends. A warning is printed with its place and
 * counted (kcompat_warnings()), so that tests can insist on none; BUG()
 * aborts.
 */
#ifndef VGPU_KCOMPAT_LINUX_BUG_H
#define VGPU_KCOMPAT_LINUX_BUG_H

#include <stdlib.h>

#include <linux/compiler.h>

void kcompat_warn(const char *file, int line, const char *fmt, ...) __printf(3, 4);
unsigned long kcompat_warnings(void);

#define WARN(cond, fmt...)	({ int c_ = !!(cond); \
				   if (unlikely(c_)) kcompat_warn(__FILE__, __LINE__, fmt); \
				   c_; })
#define WARN_ON(cond)		WARN(cond, "WARN_ON(%s)", #cond)
#define WARN_ONCE(cond, fmt...)	WARN(cond, fmt)
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUG()			abort()
#define BUG_ON(cond)		do { if (unlikely(cond)) BUG(); } while (0)
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif
