// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu_kunit.ko: KUnit suites for vgpu.ko. Each suite lives in its own
 * file; this one holds the module boilerplate.
 */

#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for the vgpu driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
