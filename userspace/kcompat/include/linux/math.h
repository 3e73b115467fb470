/* SPDX-License-Identifier: MIT */
/* kcompat: rounding helpers of <linux/math.h>. */
#ifndef VGPU_KCOMPAT_LINUX_MATH_H
#define VGPU_KCOMPAT_LINUX_MATH_H

#include <linux/minmax.h>

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(n, d)	DIV_ROUND_UP((unsigned long long)(n), (d))
#define DIV_ROUND_CLOSEST(x, d)	(((x) + ((d) / 2)) / (d))
#define roundup(x, y)		((((x) + ((y) - 1)) / (y)) * (y))
#define rounddown(x, y)		((x) - ((x) % (y)))
/* @y a power of two */
#define round_up(x, y)		((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define round_down(x, y)	((x) & ~((__typeof__(x))((y) - 1)))
#define mult_frac(x, n, d)	({ __typeof__(x) q_ = (x) / (d); \
				   __typeof__(x) r_ = (x) % (d); \
				   q_ * (n) + r_ * (n) / (d); })

#endif
