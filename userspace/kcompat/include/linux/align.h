/* SPDX-License-Identifier: MIT */
/* kcompat: ALIGN() and friends (power-of-two alignments). */
#ifndef VGPU_KCOMPAT_LINUX_ALIGN_H
#define VGPU_KCOMPAT_LINUX_ALIGN_H

#define __ALIGN_MASK(x, mask)	(((x) + (mask)) & ~(mask))
#define ALIGN(x, a)		__ALIGN_MASK(x, (__typeof__(x))(a) - 1)
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a)	(((x) & ((__typeof__(x))(a) - 1)) == 0)
#define PTR_ALIGN(p, a)		((__typeof__(p))ALIGN((unsigned long)(p), (a)))

#endif
