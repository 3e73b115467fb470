/* SPDX-License-Identifier: MIT */
/* kcompat: single-bit operations and bit searches of <linux/bitops.h>. */
#ifndef VGPU_KCOMPAT_LINUX_BITOPS_H
#define VGPU_KCOMPAT_LINUX_BITOPS_H

#include <strings.h>

#include <linux/bits.h>
#include <linux/types.h>

/*
 * The kernel's set_bit() and clear_bit() are atomic; every caller here
 * holds the device lock, so plain accesses do.
 */
static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

#define set_bit(nr, addr)	__set_bit(nr, addr)
#define clear_bit(nr, addr)	__clear_bit(nr, addr)

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[BIT_WORD(nr)] >> (nr % BITS_PER_LONG)) & 1;
}

/* Index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned long __ffs(unsigned long word)
{
	return (unsigned long)__builtin_ctzl(word);
}

static inline unsigned long __ffs64(u64 word)
{
	return (unsigned long)__builtin_ctzll(word);
}

/* 1-based index of the highest set bit, 0 for none (ffs() is the C library's). */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned int hweight32(u32 w)
{
	return (unsigned int)__builtin_popcount(w);
}

static inline unsigned int hweight64(u64 w)
{
	return (unsigned int)__builtin_popcountll(w);
}

static inline unsigned int hweight_long(unsigned long w)
{
	return (unsigned int)__builtin_popcountl(w);
}

/* The first set (zero) bit at or after @offset, or @size when none. */
static inline unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
					  unsigned long offset)
{
	for (; offset < size; offset++)
		if (test_bit(offset, addr))
			return offset;
	return size;
}

static inline unsigned long find_next_zero_bit(const unsigned long *addr,
					       unsigned long size, unsigned long offset)
{
	for (; offset < size; offset++)
		if (!test_bit(offset, addr))
			return offset;
	return size;
}

#define find_first_bit(addr, size)	find_next_bit(addr, size, 0)
#define find_first_zero_bit(addr, size)	find_next_zero_bit(addr, size, 0)

#define for_each_set_bit(bit, addr, size) \
	for ((bit) = find_first_bit(addr, size); (bit) < (size); \
	     (bit) = find_next_bit(addr, size, (bit) + 1))
#define for_each_clear_bit(bit, addr, size) \
	for ((bit) = find_first_zero_bit(addr, size); (bit) < (size); \
	     (bit) = find_next_zero_bit(addr, size, (bit) + 1))

#endif
