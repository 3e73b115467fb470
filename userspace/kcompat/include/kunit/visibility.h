/* SPDX-License-Identifier: MIT */
/*
 * kcompat: functions that vgpu.ko exports to its KUnit suites are plain
 * library functions here, so that host tests can call them too.
 */
#ifndef VGPU_KCOMPAT_KUNIT_VISIBILITY_H
#define VGPU_KCOMPAT_KUNIT_VISIBILITY_H

#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)

#endif
