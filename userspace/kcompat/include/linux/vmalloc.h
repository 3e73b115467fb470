/* SPDX-License-Identifier: MIT */
/*
 * kcompat: vmalloc on calloc(). calloc() maps large regions lazily, so the
 * untouched part of a large device memory costs nothing, as vmalloc_user()
 * memory costs nothing until it is faulted in.
 */
#ifndef VGPU_KCOMPAT_LINUX_VMALLOC_H
#define VGPU_KCOMPAT_LINUX_VMALLOC_H

#include <stdlib.h>

static inline void *vzalloc(unsigned long size)
{
	return calloc(1, size ? size : 1);
}

#define vmalloc(size)		vzalloc(size)
#define vmalloc_user(size)	vzalloc(size)

static inline void vfree(const void *p)
{
	free((void *)p);
}

#endif
