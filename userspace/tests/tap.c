// SPDX-License-Identifier: MIT
/*
 * tap.c - the host test programs' shared reporting and file finding.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* readlink */
#endif
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

void report(const char *name, int r)
{
	printf("%s - %s\n", r ? "not ok" : "ok", name);
	if (r)
		failed++;
	else
		passed++;
}

FILE *open_src(const char *rel)
{
	static const char *const dirs[] = { "", "../", "../../", "../../../" };
	char path[1024], exe[512];
	ssize_t n;
	FILE *f;

	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s%s", dirs[i], rel);
		f = fopen(path, "rb");
		if (f)
			return f;
	}
	if (getenv("VGPU_SRCDIR")) {
		snprintf(path, sizeof(path), "%s/%s", getenv("VGPU_SRCDIR"), rel);
		f = fopen(path, "rb");
		if (f)
			return f;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		for (int up = 0; up < 4; up++) {
			slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = 0;
			snprintf(path, sizeof(path), "%s/%s", exe, rel);
			f = fopen(path, "rb");
			if (f)
				return f;
		}
	}
	printf("# cannot find %s (set VGPU_SRCDIR to the repository)\n", rel);
	return NULL;
}

char *read_src(const char *rel, size_t *len)
{
	FILE *f = open_src(rel);
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

int test_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
