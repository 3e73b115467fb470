/* SPDX-License-Identifier: MIT */
/*
 * kcompat: the kernel's XArray (<linux/xarray.h>), the part the command
 * processor uses: an index -> pointer map that also hands out free
 * indices (xa_alloc(), xa_alloc_cyclic()), with Linux 6.12's results,
 * including reserved entries (NULL stored in an allocating array: the
 * index is taken, loads give NULL, iteration skips it), except after a
 * store at index 0 of an XA_FLAGS_ALLOC1 array (xarray.c). Marks,
 * multi-index entries and the xas_*() advanced API are not provided.
 *
 * The entries live in an array sorted by index. xa_lock() is a mutex that
 * the modifying calls take themselves, as in the kernel; xa_load() and the
 * iteration take it too unless the calling thread already holds it (the
 * kernel's lock-free RCU readers may be called either way).
 */
#ifndef VGPU_KCOMPAT_LINUX_XARRAY_H
#define VGPU_KCOMPAT_LINUX_XARRAY_H

#include <pthread.h>

#include <linux/types.h>

#ifndef GFP_KERNEL
#define GFP_KERNEL	0x1u
#endif

#define XA_FLAGS_LOCK_IRQ	1U	/* the lock is a mutex either way */
#define XA_FLAGS_LOCK_BH	2U
#define XA_FLAGS_TRACK_FREE	4U
#define XA_FLAGS_ZERO_BUSY	8U
#define XA_FLAGS_ALLOC_WRAPPED	16U
#define XA_FLAGS_ACCOUNT	32U
/* Allocating arrays: from index 0, or never index 0. */
#define XA_FLAGS_ALLOC		XA_FLAGS_TRACK_FREE
#define XA_FLAGS_ALLOC1		(XA_FLAGS_TRACK_FREE | XA_FLAGS_ZERO_BUSY)

typedef unsigned int xa_mark_t;
/* xa_find()'s filter: any present entry (the only one provided). */
#define XA_PRESENT		((xa_mark_t)8U)

struct xa_slot;

/**
 * struct xarray - an index -> entry map.
 *
 * All fields are private.
 */
struct xarray {
	pthread_mutex_t lock;
	/* The holding thread's token (see xa_lock()), or NULL. */
	const void *owner;
	unsigned int xa_flags;
	/* Present entries (reserved ones included) by ascending index. */
	struct xa_slot *slots;
	size_t nr;
	size_t cap;
};

/**
 * struct xa_limit - the range xa_alloc() picks from.
 * @max: highest index.
 * @min: lowest index.
 */
struct xa_limit {
	u32 max;
	u32 min;
};

#define XA_LIMIT(_min, _max)	((struct xa_limit){ .min = (_min), .max = (_max) })
#define xa_limit_32b		XA_LIMIT(0, U32_MAX)
#define xa_limit_31b		XA_LIMIT(0, (u32)S32_MAX)
#define xa_limit_16b		XA_LIMIT(0, U16_MAX)

#define XARRAY_INIT(name, flags) { \
	.lock = PTHREAD_MUTEX_INITIALIZER, .owner = NULL, .xa_flags = (flags), \
	.slots = NULL, .nr = 0, .cap = 0 }
#define DEFINE_XARRAY_FLAGS(name, flags)	struct xarray name = XARRAY_INIT(name, flags)
#define DEFINE_XARRAY(name)		DEFINE_XARRAY_FLAGS(name, 0)
#define DEFINE_XARRAY_ALLOC(name)	DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC)
#define DEFINE_XARRAY_ALLOC1(name)	DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC1)

/**
 * xa_is_err() - whether xa_store() or xa_cmpxchg() returned an error.
 * @entry: their return value.
 *
 * Return: true for an error (see xa_err()).
 */
static inline bool xa_is_err(const void *entry)
{
	return ((unsigned long)entry & 3) == 2 &&
	       (unsigned long)entry >= ((-4095UL << 2) | 2);
}

/**
 * xa_err() - the errno of an xa_store() or xa_cmpxchg() return value.
 * @entry: their return value.
 *
 * Return: the negative errno, or 0 when @entry is not an error.
 */
static inline int xa_err(void *entry)
{
	return xa_is_err(entry) ? (int)((long)entry >> 2) : 0;
}

/**
 * xa_mk_value() - an integer as an entry.
 * @v: at most LONG_MAX.
 *
 * Return: the entry.
 */
static inline void *xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1);
}

/**
 * xa_to_value() - the integer of an xa_mk_value() entry.
 * @entry: the entry.
 *
 * Return: the integer.
 */
static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

/**
 * xa_is_value() - whether @entry came from xa_mk_value().
 * @entry: the entry.
 *
 * Return: true for an integer entry.
 */
static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}

void xa_init_flags(struct xarray *xa, unsigned int flags);
void xa_destroy(struct xarray *xa);
bool xa_empty(struct xarray *xa);

void xa_lock(struct xarray *xa);
void xa_unlock(struct xarray *xa);
#define xa_lock_bh(xa)				xa_lock(xa)
#define xa_unlock_bh(xa)			xa_unlock(xa)
#define xa_lock_irq(xa)				xa_lock(xa)
#define xa_unlock_irq(xa)			xa_unlock(xa)
#define xa_lock_irqsave(xa, flags)		do { (flags) = 0; xa_lock(xa); } while (0)
#define xa_unlock_irqrestore(xa, flags)		do { (void)(flags); xa_unlock(xa); } while (0)

void *xa_load(struct xarray *xa, unsigned long index);
void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max,
	      xa_mark_t filter);
void *xa_find_after(struct xarray *xa, unsigned long *indexp, unsigned long max,
		    xa_mark_t filter);

/* With xa_lock() held. */
void *__xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *__xa_erase(struct xarray *xa, unsigned long index);
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		   void *entry, gfp_t gfp);
int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
int __xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	       gfp_t gfp);
int __xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry,
		      struct xa_limit limit, u32 *next, gfp_t gfp);

/* Without it: each takes it. */
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *xa_erase(struct xarray *xa, unsigned long index);
void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		 void *entry, gfp_t gfp);
int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	     gfp_t gfp);
int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry,
		    struct xa_limit limit, u32 *next, gfp_t gfp);

/**
 * xa_init() - set up an empty, non-allocating array.
 * @xa: the array.
 */
static inline void xa_init(struct xarray *xa)
{
	xa_init_flags(xa, 0);
}

/**
 * xa_for_each_range - every present entry with index in [@start, @last].
 * @xa: the array.
 * @index: unsigned long cursor: the entry's index.
 * @entry: the entry.
 * @start: first index.
 * @last: last index.
 *
 * Ascending index; reserved entries are skipped. The body may modify the
 * array.
 */
#define xa_for_each_range(xa, index, entry, start, last) \
	for ((index) = (start), \
	     (entry) = xa_find((xa), &(index), (last), XA_PRESENT); \
	     (entry); \
	     (entry) = xa_find_after((xa), &(index), (last), XA_PRESENT))

#define xa_for_each_start(xa, index, entry, start) \
	xa_for_each_range(xa, index, entry, start, ~0UL)

#define xa_for_each(xa, index, entry) \
	xa_for_each_start(xa, index, entry, 0)

#endif /* VGPU_KCOMPAT_LINUX_XARRAY_H */
