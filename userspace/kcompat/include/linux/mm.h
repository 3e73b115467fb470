/* SPDX-License-Identifier: MIT */
/* kcompat: the page size of the kernel's device memory (4 KiB). */
#ifndef VGPU_KCOMPAT_LINUX_MM_H
#define VGPU_KCOMPAT_LINUX_MM_H

#include <linux/align.h>

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_MASK		(~(PAGE_SIZE - 1))
#define PAGE_ALIGN(addr)	ALIGN(addr, PAGE_SIZE)
#define PAGE_ALIGNED(addr)	IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)

#endif
