// SPDX-License-Identifier: MIT
/*
 * kcompat kstrto*(): the kernel's rules (whole string, optional "+" for
 * unsigned, one trailing newline, base 0 meaning C prefixes, range checks).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kstrtox.h>

/* The digits of @s up to an optional final newline; false if anything else is there. */
static bool whole(const char *s, const char *end)
{
	return end != s && (!*end || (end[0] == '\n' && !end[1]));
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v;
	char *end;

	if (*s == '+')
		s++;
	if (*s == '-' || *s == ' ' || *s == '\t')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, (int)base);
	if (!whole(s, end))
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	long long v;
	char *end;

	if (*s == ' ' || *s == '\t')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, (int)base);
	if (!whole(s, end))
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);

	if (!ret)
		*res = v;
	return ret;
}

int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);

	if (ret)
		return ret;
	if (v > U32_MAX)
		return -ERANGE;
	*res = (u32)v;
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	return kstrtou32(s, base, res);
}

int kstrtos32(const char *s, unsigned int base, s32 *res)
{
	long long v;
	int ret = kstrtoll(s, base, &v);

	if (ret)
		return ret;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*res = (s32)v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	return kstrtos32(s, base, res);
}

/* The kernel's kstrtobool(): y/Y/1/on and n/N/0/off. */
int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}
