/* SPDX-License-Identifier: MIT */
/* kcompat: the C library's errno values plus the kernel-internal ones. */
#ifndef VGPU_KCOMPAT_LINUX_ERRNO_H
#define VGPU_KCOMPAT_LINUX_ERRNO_H

#include_next <linux/errno.h>

#include <errno.h>

#define ERESTARTSYS	512
#define ENOTSUPP	524

#endif
