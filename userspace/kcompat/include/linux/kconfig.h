/* SPDX-License-Identifier: MIT */
/*
 * kcompat: IS_ENABLED(). Force-included, as the kernel's build force-
 * includes its kconfig.h. No CONFIG_ option is set in userspace, so every
 * IS_ENABLED() is 0 unless the build defines the option to 1.
 */
#ifndef VGPU_KCOMPAT_LINUX_KCONFIG_H
#define VGPU_KCOMPAT_LINUX_KCONFIG_H

/* kcompat_defined(CONFIG_X) is 1 when CONFIG_X is defined as 1, else 0. */
#define kcompat_one_if_1	0,
#define kcompat_second(ignored, val, ...)	val
#define kcompat_pick(junk_or_placeholder)	kcompat_second(junk_or_placeholder 1, 0)
#define kcompat_paste(val)	kcompat_pick(kcompat_one_if_##val)
#define kcompat_defined(x)	kcompat_paste(x)

#define IS_ENABLED(option)	kcompat_defined(option)
#define IS_BUILTIN(option)	kcompat_defined(option)
#define IS_REACHABLE(option)	kcompat_defined(option)

#endif
