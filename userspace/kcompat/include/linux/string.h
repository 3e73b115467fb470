/* SPDX-License-Identifier: MIT */
/* kcompat: the C library's string functions plus the kernel's own. */
#ifndef VGPU_KCOMPAT_LINUX_STRING_H
#define VGPU_KCOMPAT_LINUX_STRING_H

#include <ctype.h>
#include <string.h>
#include <sys/types.h>

#include <linux/errno.h>
#include <linux/types.h>

/* The first byte of @p[0 .. @len) that is not @c, or NULL. */
static inline void *memchr_inv(const void *p, int c, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != (unsigned char)c)
			return (void *)(b + i);
	return NULL;
}

/* Copies with truncation; the length copied or -E2BIG when truncated. */
static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (!size)
		return -E2BIG;
	len = strnlen(src, size);
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return (ssize_t)len;
}

/* Strips leading and trailing white space in place. */
static inline char *strim(char *s)
{
	size_t len = strlen(s);

	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

static inline char *skip_spaces(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return (char *)s;
}

/* Equal, but for one trailing newline on either. */
static inline bool sysfs_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	if (*a == *b)
		return true;
	if (*a == '\n' && !a[1] && !*b)
		return true;
	return *b == '\n' && !b[1] && !*a;
}

static inline int __sysfs_match_string(const char *const *array, size_t n, const char *str)
{
	for (size_t i = 0; i < n; i++) {
		if (!array[i])
			break;
		if (sysfs_streq(array[i], str))
			return (int)i;
	}
	return -EINVAL;
}

#define sysfs_match_string(a, s)	__sysfs_match_string(a, sizeof(a) / sizeof((a)[0]), s)

#endif
