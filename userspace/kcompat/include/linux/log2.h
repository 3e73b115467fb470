/* SPDX-License-Identifier: MIT */
/* kcompat: powers of two. */
#ifndef VGPU_KCOMPAT_LINUX_LOG2_H
#define VGPU_KCOMPAT_LINUX_LOG2_H

#include <linux/bitops.h>
#include <linux/types.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

#define ilog2(n)	((int)(63 - __builtin_clzll((unsigned long long)(n))))

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n < 2 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

#endif
