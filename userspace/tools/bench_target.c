// SPDX-License-Identifier: MIT
/*
 * bench_sysfs.c - the benchmarks' access to the driver's knobs: sysfs
 * attributes of the device (Documentation/ABI/testing/sysfs-driver-vgpu)
 * and its debugfs files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench.h"

#define DEBUGFS_DRI "/sys/kernel/debug/dri"

int bench_sysfs_dir(struct vgpu_device *dev, char *buf, size_t len)
{
	struct stat st;

	if (fstat(vgpu_device_fd(dev), &st))
		return -errno;
	snprintf(buf, len, "/sys/dev/char/%u:%u/device", major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

int bench_sysfs_write(const char *dir, const char *attr, const char *value)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fprintf(f, "%s\n", value) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int bench_sysfs_read(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[512], line[256], *a, *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	/* a choice ("a [b] c"): the active one */
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b) {
		*b = '\0';
		snprintf(buf, len, "%s", a + 1);
	} else {
		snprintf(buf, len, "%s", line);
	}
	return 0;
}

int bench_debugfs_file(const char *name, char *buf, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(DEBUGFS_DRI);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(buf, len, DEBUGFS_DRI "/%s/%s", de->d_name, name);
		if (!access(buf, R_OK)) {
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -ENOENT;
}

int bench_debugfs_counters(const char *name, const char *const *keys, unsigned int n,
			   uint64_t *out)
{
	char path[512], line[128], key[64];
	unsigned long long v;
	unsigned int found = 0;
	int ret = bench_debugfs_file(name, path, sizeof(path));
	FILE *f;

	if (ret)
		return ret;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		for (unsigned int i = 0; i < n; i++) {
			if (!strcmp(key, keys[i]) && !(found & (1u << i))) {
				out[i] = v;
				found |= 1u << i;
			}
		}
	}
	fclose(f);
	return found == (1u << n) - 1 ? 0 : -EPROTO;
}

int bench_save_attr(const char *dir, const char *name, struct bench_saved_attr *sv,
		    unsigned int *n)
{
	for (unsigned int i = 0; i < *n; i++)
		if (!strcmp(sv[i].name, name))
			return 0;
	if (strlen(name) >= sizeof(sv[*n].name))
		return -ENAMETOOLONG;
	snprintf(sv[*n].name, sizeof(sv[*n].name), "%s", name);
	if (bench_sysfs_read(dir, name, sv[*n].value, sizeof(sv[*n].value)))
		return -ENOENT;
	(*n)++;
	return 0;
}

void bench_restore_attrs(const char *dir, const struct bench_saved_attr *sv, unsigned int n)
{
	while (n--)
		bench_sysfs_write(dir, sv[n].name, sv[n].value);
}

int bench_apply_sets(const char *dir, const char *const *sets, unsigned int nset,
		     struct bench_saved_attr *sv, unsigned int *n)
{
	for (unsigned int i = 0; i < nset; i++) {
		const char *eq = strchr(sets[i], '=');
		char key[48];
		int ret;

		if (!eq || eq == sets[i] || (size_t)(eq - sets[i]) >= sizeof(key) ||
		    strchr(sets[i], '/')) {
			fprintf(stderr, "vgpu bench: bad --set '%s' (KEY=VALUE)\n", sets[i]);
			return -EINVAL;
		}
		memcpy(key, sets[i], eq - sets[i]);
		key[eq - sets[i]] = '\0';
		ret = bench_save_attr(dir, key, sv, n);
		if (!ret)
			ret = bench_sysfs_write(dir, key, eq + 1);
		if (ret) {
			fprintf(stderr, "vgpu bench: --set %s: %s\n", sets[i], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int bench_add_set(const char **sets, unsigned int *n, const char *arg)
{
	if (*n == BENCH_MAX_SETS) {
		fprintf(stderr, "vgpu bench: at most %d --set\n", BENCH_MAX_SETS);
		return -EINVAL;
	}
	sets[(*n)++] = arg;
	return 0;
}
