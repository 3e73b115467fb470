// SPDX-License-Identifier: MIT
/*
 * kcompat log: where the kernel files' printk(), dev_*() and WARN*()
 * messages go in userspace (stderr), and the count of warnings.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/bug.h>
#include <linux/device.h>
#include <linux/printk.h>

static unsigned long warnings;

/* VGPU_KLOG=N: messages of level N and lower are printed (default 4: warnings). */
static int log_threshold(void)
{
	static int threshold = -1;
	int t = __atomic_load_n(&threshold, __ATOMIC_RELAXED);

	if (t < 0) {
		const char *e = getenv("VGPU_KLOG");

		t = e && *e ? atoi(e) : 4;
		__atomic_store_n(&threshold, t, __ATOMIC_RELAXED);
	}
	return t;
}

static void vlog(int level, const char *prefix, const char *fmt, va_list ap)
{
	if (level > log_threshold())
		return;
	flockfile(stderr);
	if (prefix)
		fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	funlockfile(stderr);
}

void kcompat_log(int level, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, prefix, fmt, ap);
	va_end(ap);
}

void kcompat_printk(const char *fmt, ...)
{
	int level = 6;
	va_list ap;

	if (fmt[0] == '\001' && fmt[1] >= '0' && fmt[1] <= '7') {
		level = fmt[1] - '0';
		fmt += 2;
	}
	va_start(ap, fmt);
	vlog(level, NULL, fmt, ap);
	va_end(ap);
}

void kcompat_dev_log(int level, const struct device *dev, const char *fmt, ...)
{
	char prefix[96];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s: ", dev_name(dev));
	va_start(ap, fmt);
	vlog(level, prefix, fmt, ap);
	va_end(ap);
}

void kcompat_warn(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&warnings, 1, __ATOMIC_RELAXED);
	flockfile(stderr);
	fprintf(stderr, "WARNING: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

unsigned long kcompat_warnings(void)
{
	return __atomic_load_n(&warnings, __ATOMIC_RELAXED);
}
