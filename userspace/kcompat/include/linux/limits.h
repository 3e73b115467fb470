/* SPDX-License-Identifier: MIT */
/* kcompat: <linux/limits.h> is the uapi one plus the kernel's U32_MAX & co. */
#ifndef VGPU_KCOMPAT_LINUX_LIMITS_H
#define VGPU_KCOMPAT_LINUX_LIMITS_H

#include_next <linux/limits.h>

#include <linux/types.h>

#endif
