/* SPDX-License-Identifier: MIT */
/* kcompat: reference counts. */
#ifndef VGPU_KCOMPAT_LINUX_KREF_H
#define VGPU_KCOMPAT_LINUX_KREF_H

#include <linux/atomic.h>
#include <linux/bug.h>

/**
 * struct kref - a reference count.
 * @refcount: references held.
 */
struct kref {
	atomic_t refcount;
};

#define KREF_INIT(n)	{ .refcount = ATOMIC_INIT(n) }

static inline void kref_init(struct kref *kref)
{
	atomic_set(&kref->refcount, 1);
}

static inline unsigned int kref_read(const struct kref *kref)
{
	return (unsigned int)atomic_read(&kref->refcount);
}

static inline void kref_get(struct kref *kref)
{
	/* taking a reference on a dead object is the bug the kernel warns about */
	WARN_ON(atomic_inc_return(&kref->refcount) < 2);
}

static inline int kref_put(struct kref *kref, void (*release)(struct kref *kref))
{
	if (atomic_dec_and_test(&kref->refcount)) {
		release(kref);
		return 1;
	}
	return 0;
}

#endif
