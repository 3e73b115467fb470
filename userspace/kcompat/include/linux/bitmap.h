/* SPDX-License-Identifier: MIT */
/* kcompat: bitmaps of unsigned longs, as <linux/bitmap.h> has them. */
#ifndef VGPU_KCOMPAT_LINUX_BITMAP_H
#define VGPU_KCOMPAT_LINUX_BITMAP_H

#include <stdlib.h>
#include <string.h>

#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/gfp.h>
#include <linux/types.h>

#define DECLARE_BITMAP(name, bits)	unsigned long name[BITS_TO_LONGS(bits)]

static inline unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t gfp)
{
	(void)gfp;
	return calloc(BITS_TO_LONGS(nbits) ? BITS_TO_LONGS(nbits) : 1, sizeof(unsigned long));
}

static inline void bitmap_free(const unsigned long *map)
{
	free((void *)map);
}

static inline void bitmap_zero(unsigned long *map, unsigned int nbits)
{
	memset(map, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_fill(unsigned long *map, unsigned int nbits)
{
	for (unsigned int i = 0; i < nbits; i++)
		__set_bit(i, map);
}

static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int len)
{
	for (unsigned int i = start; i < start + len; i++)
		__set_bit(i, map);
}

static inline void bitmap_clear(unsigned long *map, unsigned int start, unsigned int len)
{
	for (unsigned int i = start; i < start + len; i++)
		__clear_bit(i, map);
}

static inline bool bitmap_empty(const unsigned long *map, unsigned int nbits)
{
	return find_first_bit(map, nbits) >= nbits;
}

static inline bool bitmap_full(const unsigned long *map, unsigned int nbits)
{
	return find_first_zero_bit(map, nbits) >= nbits;
}

static inline unsigned int bitmap_weight(const unsigned long *map, unsigned int nbits)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < nbits; i++)
		n += test_bit(i, map);
	return n;
}

/*
 * The lowest index at or after @start, rounded up to @align_mask + 1, at
 * which @nr clear bits follow; a value past @size - @nr when there is none
 * (callers compare with @size). The kernel's contract, not its code.
 */
static inline unsigned long bitmap_find_next_zero_area(unsigned long *map, unsigned long size,
						       unsigned long start, unsigned int nr,
						       unsigned long align_mask)
{
	for (;;) {
		unsigned long index = find_next_zero_bit(map, size, start);
		unsigned long end, busy;

		index = __ALIGN_MASK(index, align_mask);
		end = index + nr;
		if (end > size)
			return end;
		busy = find_next_bit(map, end, index);
		if (busy >= end)
			return index;
		start = busy + 1;
	}
}

#endif
