/* SPDX-License-Identifier: MIT */
/* kcompat: BIT() and GENMASK(). */
#ifndef VGPU_KCOMPAT_LINUX_BITS_H
#define VGPU_KCOMPAT_LINUX_BITS_H

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_PER_TYPE(t)	(8 * sizeof(t))
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define BIT_MASK(n)		(1UL << ((n) % BITS_PER_LONG))
#define BIT_WORD(n)		((n) / BITS_PER_LONG)
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)

#endif
