/* SPDX-License-Identifier: MIT */
/* kcompat: allocation flags; only __GFP_ZERO means anything here. */
#ifndef VGPU_KCOMPAT_LINUX_GFP_H
#define VGPU_KCOMPAT_LINUX_GFP_H

#include <linux/types.h>

#define __GFP_ZERO	0x100u
#define __GFP_NOWARN	0x200u
#ifndef GFP_KERNEL
#define GFP_KERNEL	0x1u
#endif
#define GFP_NOWAIT	0x2u
#define GFP_ATOMIC	0x4u

#endif
