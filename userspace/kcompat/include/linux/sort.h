/* SPDX-License-Identifier: MIT */
/*
 * kcompat: sort(). The kernel sorts with an unstable heapsort, this with
 * qsort(); the two agree because every comparator the command processor
 * passes is a total order (ties broken by index; tests check it), so the
 * sorted order does not depend on the algorithm.
 */
#ifndef VGPU_KCOMPAT_LINUX_SORT_H
#define VGPU_KCOMPAT_LINUX_SORT_H

#include <stdlib.h>

#include <linux/types.h>

typedef int (*cmp_func_t)(const void *a, const void *b);
typedef void (*swap_func_t)(void *a, void *b, int size);

static inline void sort(void *base, size_t num, size_t size, cmp_func_t cmp,
			swap_func_t swap_fn)
{
	(void)swap_fn;
	qsort(base, num, size, cmp);
}

#endif
