/* SPDX-License-Identifier: MIT */
/* kcompat: the kernel's allocators on malloc(). */
#ifndef VGPU_KCOMPAT_LINUX_SLAB_H
#define VGPU_KCOMPAT_LINUX_SLAB_H

#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>
#include <linux/overflow.h>
#include <linux/types.h>

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	void *p = malloc(size ? size : 1);

	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, size);
	return p;
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | __GFP_ZERO);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc(bytes, gfp);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kmalloc_array(n, size, gfp | __GFP_ZERO);
}

static inline void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = kmalloc(len, gfp);

	if (p)
		memcpy(p, src, len);
	return p;
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#define kvmalloc(size, gfp)		kmalloc(size, gfp)
#define kvzalloc(size, gfp)		kzalloc(size, gfp)
#define kvmalloc_array(n, size, gfp)	kmalloc_array(n, size, gfp)
#define kvcalloc(n, size, gfp)		kcalloc(n, size, gfp)
#define kvfree(p)			kfree(p)

#endif
