/* SPDX-License-Identifier: MIT */
/* kcompat: container_of(). */
#ifndef VGPU_KCOMPAT_LINUX_CONTAINER_OF_H
#define VGPU_KCOMPAT_LINUX_CONTAINER_OF_H

#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif
