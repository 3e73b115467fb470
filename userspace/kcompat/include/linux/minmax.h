/* SPDX-License-Identifier: MIT */
/* kcompat: min(), max(), clamp() and swap() of <linux/minmax.h>. */
#ifndef VGPU_KCOMPAT_LINUX_MINMAX_H
#define VGPU_KCOMPAT_LINUX_MINMAX_H

#define min(a, b)		({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); \
				   a_ < b_ ? a_ : b_; })
#define max(a, b)		({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); \
				   a_ > b_ ? a_ : b_; })
#define min3(a, b, c)		min(min(a, b), c)
#define max3(a, b, c)		max(max(a, b), c)
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define umin(a, b)		min_t(unsigned long long, a, b)
#define umax(a, b)		max_t(unsigned long long, a, b)
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define clamp_t(t, v, lo, hi)	clamp((t)(v), (t)(lo), (t)(hi))
#define clamp_val(v, lo, hi)	clamp_t(__typeof__(v), v, lo, hi)
#define swap(a, b)		do { __typeof__(a) t_ = (a); (a) = (b); (b) = t_; } while (0)

#endif
