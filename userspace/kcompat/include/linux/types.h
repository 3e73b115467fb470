/* SPDX-License-Identifier: MIT */
/*
 * Userspace stand-in for the kernel's <linux/types.h>: the uapi types of the
 * system header plus the kernel's own names for them. Part of kcompat, the
 * small layer that lets the command processor's kernel files compile
 * unchanged into libvgpu (Documentation/design.rst, "One command processor,
 * two hosts").
 */
#ifndef VGPU_KCOMPAT_LINUX_TYPES_H
#define VGPU_KCOMPAT_LINUX_TYPES_H

#include_next <linux/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int gfp_t;
typedef u64 phys_addr_t;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		((s32)(-S32_MAX - 1))
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		((s64)(-S64_MAX - 1))

#endif /* VGPU_KCOMPAT_LINUX_TYPES_H */
