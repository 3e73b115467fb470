/* SPDX-License-Identifier: MIT */
/* kcompat: xxh64(), the kernel's hash of program images. */
#ifndef VGPU_KCOMPAT_LINUX_XXHASH_H
#define VGPU_KCOMPAT_LINUX_XXHASH_H

#include <linux/types.h>

/* XXH64 of @len bytes at @input (the published algorithm, little-endian). */
u64 xxh64(const void *input, size_t len, u64 seed);

#endif
