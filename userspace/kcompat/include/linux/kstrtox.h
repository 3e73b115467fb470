/* SPDX-License-Identifier: MIT */
/*
 * kcompat: the kernel's string-to-number parsers: the whole string must be
 * a number (one trailing newline allowed), in range; else -EINVAL or
 * -ERANGE.
 */
#ifndef VGPU_KCOMPAT_LINUX_KSTRTOX_H
#define VGPU_KCOMPAT_LINUX_KSTRTOX_H

#include <linux/types.h>

int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtoll(const char *s, unsigned int base, long long *res);
int kstrtou32(const char *s, unsigned int base, u32 *res);
int kstrtos32(const char *s, unsigned int base, s32 *res);
int kstrtou64(const char *s, unsigned int base, u64 *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtobool(const char *s, bool *res);

#endif
