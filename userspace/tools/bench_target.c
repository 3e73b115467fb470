// SPDX-License-Identifier: MIT
/*
 * bench_target.c - where a benchmark runs: the render node of vgpu.ko (its
 * knobs in sysfs, its counters in debugfs, a group's programs as processes)
 * or libvgpu's local device (the same command processor in this process:
 * its knobs and counters under the same names, a group's programs as
 * threads on a fresh device each, so that independent groups can run in
 * worker processes). The same experiment gives the same table on both.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define DEBUGFS_DRI "/sys/kernel/debug/dri"

/* ---- the render node ------------------------------------------------------ */

static int sysfs_dir(struct vgpu_device *dev, char *buf, size_t len)
{
	struct stat st;

	if (fstat(vgpu_device_fd(dev), &st))
		return -errno;
	snprintf(buf, len, "/sys/dev/char/%u:%u/device", major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

static int sysfs_write(const char *dir, const char *attr, const char *value)
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

static int sysfs_read(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return 0;
}

/* The text of the driver's debugfs file @name (malloc'd into *@text). */
static int debugfs_read(const char *name, char **text)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(DEBUGFS_DRI);
	size_t len = 0;
	FILE *f = NULL, *out;

	if (!d)
		return -errno;
	while (!f && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DEBUGFS_DRI "/%s/%s", de->d_name, name);
		f = fopen(path, "r");
	}
	closedir(d);
	if (!f)
		return -ENOENT;
	out = open_memstream(text, &len);
	if (!out) {
		fclose(f);
		return -ENOMEM;
	}
	for (int c; (c = fgetc(f)) != EOF;)
		fputc(c, out);
	fclose(f);
	return fclose(out) ? -ENOMEM : 0;
}

/* ---- both ------------------------------------------------------------------ */

/* The active one of a choice ("a [b] c"), or the first line as it is. */
static void active_value(const char *line, char *buf, size_t len)
{
	const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
	size_t n;

	if (a && b) {
		snprintf(buf, len, "%.*s", (int)(b - a - 1), a + 1);
		return;
	}
	n = strcspn(line, "\n");
	snprintf(buf, len, "%.*s", (int)n, line);
}

int bench_target_opt(int opt, const char *arg, struct bench_target_opts *o)
{
	char *end;
	unsigned long long mb;

	switch (opt) {
	case 'L':
		o->local = true;
		return 1;
	case 'G':
		o->gpu = arg;
		return 1;
	case 'C':
		o->config = arg;
		return 1;
	case 'V':
		errno = 0;
		mb = strtoull(arg, &end, 10);
		if (errno || *end || !mb || mb > 16384) {
			fprintf(stderr, "vgpu bench: bad --vram-mb '%s' (1 to 16384, as vgpu.ko's"
				" vram_size_mb)\n", arg);
			return -EINVAL;
		}
		o->vram_size = mb << 20;
		return 1;
	case 'j':
		return bench_parse_jobs(arg, &o->jobs) ? -EINVAL : 1;
	default:
		return bench_slurm_opt(opt, arg);
	}
}

int bench_target_open(struct bench_target *t, const struct bench_target_opts *o)
{
	struct vgpu_device *dev;
	int ret;

	memset(t, 0, sizeof(*t));
	t->local = o->local;
	t->jobs = o->local ? (o->jobs ? o->jobs : bench_default_jobs()) : 1;
	if (!o->local && o->jobs > 1) {
		fprintf(stderr, "vgpu bench: -j needs --local (the render node is one device)\n");
		return -EINVAL;
	}
	ret = bench_slurm_check(o->local);
	if (ret)
		return ret;
	if (o->local) {
		unsigned int used;

		t->vram_size = o->vram_size;
		return local_config(o->gpu ? o->gpu : "fermi-gtx480", o->config, 0, &t->cfg,
				    &used);
	}
	if (o->gpu || o->config || o->vram_size) {
		fprintf(stderr, "vgpu bench: --gpu, --config and --vram-mb need --local"
			" (the render node has the hardware vgpud models)\n");
		return -EINVAL;
	}
	ret = vgpu_device_open(NULL, &dev);
	if (ret) {
		fprintf(stderr, "vgpu bench: no vgpu device: %s\n", strerror(-ret));
		return ret;
	}
	ret = sysfs_dir(dev, t->dir, sizeof(t->dir));
	vgpu_device_close(dev);
	return ret;
}

/* The entry of @name in @t->attr, or NULL. */
static struct bench_saved_attr *find_attr(struct bench_target *t, const char *name)
{
	for (unsigned int i = 0; i < t->nattr; i++)
		if (!strcmp(t->attr[i].name, name))
			return &t->attr[i];
	return NULL;
}

int bench_target_get(struct bench_target *t, const char *name, char *buf, size_t len)
{
	char line[4096];
	int ret;

	if (!t->local) {
		ret = sysfs_read(t->dir, name, line, sizeof(line));
	} else {
		const struct bench_saved_attr *a = find_attr(t, name);
		struct vgpu_device *dev;

		if (a) {
			snprintf(buf, len, "%s", a->value);
			return 0;
		}
		ret = bench_target_device(t, &dev);
		if (ret)
			return ret;
		ret = vgpu_local_attr_show(dev, name, line, sizeof(line));
		vgpu_device_close(dev);
	}
	if (!ret)
		active_value(line, buf, len);
	return ret;
}

/* Stores @name = @value on a new local device of @t: is it a value the device takes? */
static int local_check(const struct bench_target *t, const char *name, const char *value)
{
	struct vgpu_device *dev;
	char choices[4096];
	int ret;

	ret = bench_target_device(t, &dev);
	if (ret)
		return ret;
	ret = vgpu_local_attr_store(dev, name, value);
	if (ret == -EINVAL || ret == -ERANGE) {
		/* what the attribute shows says what it takes */
		if (!vgpu_local_attr_show(dev, name, choices, sizeof(choices)))
			fprintf(stderr, "vgpu bench: %s takes one of (or a value like) '%.*s', not '%s'\n",
				name, (int)strcspn(choices, "\n"), choices, value);
	} else if (ret == -ENOENT) {
		fprintf(stderr, "vgpu bench: the device has no attribute '%s'\n", name);
	}
	vgpu_device_close(dev);
	return ret;
}

int bench_target_set(struct bench_target *t, const char *name, const char *value)
{
	struct bench_saved_attr *a = find_attr(t, name);
	int ret;

	if (!a && (t->nattr == BENCH_MAX_ATTRS || strlen(name) >= sizeof(a->name)))
		return -ENAMETOOLONG;
	if (t->local) {
		if (strlen(value) >= sizeof(a->value))
			return -E2BIG;
		ret = local_check(t, name, value);
		if (ret)
			return ret;
	}
	if (!a) {
		a = &t->attr[t->nattr];
		snprintf(a->name, sizeof(a->name), "%s", name);
		/* the render node's value, to be put back at the end */
		ret = t->local ? 0 : bench_target_get(t, name, a->value, sizeof(a->value));
		if (ret)
			return ret;
		t->nattr++;
	}
	if (!t->local)
		return sysfs_write(t->dir, name, value);
	/* applied to each new local device, in the order first set */
	snprintf(a->value, sizeof(a->value), "%s", value);
	return 0;
}

int bench_target_apply_sets(struct bench_target *t, const char *const *sets, unsigned int nset)
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
		ret = bench_target_set(t, key, eq + 1);
		if (ret) {
			fprintf(stderr, "vgpu bench: --set %s: %s\n", sets[i], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

void bench_target_close(struct bench_target *t)
{
	/* the render node's knobs as they were, the last noted first */
	while (!t->local && t->nattr--)
		sysfs_write(t->dir, t->attr[t->nattr].name, t->attr[t->nattr].value);
	t->nattr = 0;
}

int bench_target_device(const struct bench_target *t, struct vgpu_device **out)
{
	struct vgpu_device *dev;
	int ret;

	if (!t->local)
		return vgpu_device_open(NULL, out);
	ret = vgpu_device_open_local_vram(&t->cfg, t->vram_size, &dev);
	for (unsigned int i = 0; !ret && i < t->nattr; i++) {
		ret = vgpu_local_attr_store(dev, t->attr[i].name, t->attr[i].value);
		if (ret)
			fprintf(stderr, "vgpu bench: %s = %s: %s\n", t->attr[i].name,
				t->attr[i].value, strerror(-ret));
	}
	if (ret) {
		vgpu_device_close(dev);
		return ret;
	}
	*out = dev;
	return 0;
}

/* "KEY VALUE" lines of @text: the value of each of @keys into @out. */
static int parse_counters(const char *text, const char *const *keys, unsigned int n,
			  uint64_t *out)
{
	unsigned long long v;
	unsigned int found = 0;
	char key[64];

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line) {
		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		for (unsigned int i = 0; i < n; i++) {
			if (!strcmp(key, keys[i]) && !(found & (1u << i))) {
				out[i] = v;
				found |= 1u << i;
			}
		}
	}
	return found == (1u << n) - 1 ? 0 : -EPROTO;
}

int bench_counters(const struct bench_target *t, struct vgpu_device *dev, const char *name,
		   const char *const *keys, unsigned int n, uint64_t *out)
{
	char *text = NULL;
	int ret;

	if (t->local) {
		size_t len = 1 << 16;

		text = malloc(len);
		ret = text ? vgpu_local_debugfs(dev, name, text, len) : -ENOMEM;
	} else {
		ret = debugfs_read(name, &text);
	}
	if (!ret)
		ret = parse_counters(text, keys, n, out);
	free(text);
	return ret;
}

/* ---- a group of programs on the synchronised clock ------------------------ */

/**
 * struct group_run - one group's members and how they report.
 * @t: the target.
 * @parent: the group's first file (rank 0), holding the clock until every
 *	member has joined.
 * @fn: the members' work.
 * @arg: its argument.
 * @ready: guest: the pipe members write a byte to once joined.
 * @lock: local: protects @nready.
 * @cv: local: signalled when @nready grows.
 * @nready: local: members joined.
 * @status: each member's result (0 or -errno).
 */
struct group_run {
	const struct bench_target *t;
	struct vgpu_device *parent;
	bench_member_fn fn;
	void *arg;
	int ready[2];
	pthread_mutex_t lock;
	pthread_cond_t cv;
	unsigned int nready;
	int status[BENCH_GROUP_MAX];
};

/* A member: its own file, on the clock at rank @i + 1, then the work. */
static int member(struct group_run *g, unsigned int i)
{
	struct vgpu_device *dev = NULL;
	int ret;

	ret = g->t->local ? vgpu_device_open_local_peer(g->parent, &dev) :
			    vgpu_device_open(NULL, &dev);
	if (!ret)
		ret = vgpu_clock_sync(dev, true, i + 1);
	/* joined, or failed: either way the group need not wait for it */
	if (g->t->local) {
		pthread_mutex_lock(&g->lock);
		g->nready++;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->lock);
	} else {
		char c = 'r';

		if (write(g->ready[1], &c, 1) != 1 && !ret)
			ret = -EPIPE;
		close(g->ready[1]);
	}
	if (!ret)
		ret = g->fn(dev, i, g->arg);
	vgpu_device_close(dev);
	return ret;
}

struct member_thread {
	struct group_run *g;
	unsigned int i;
	pthread_t th;
};

static void *member_thread(void *p)
{
	struct member_thread *m = p;

	m->g->status[m->i] = member(m->g, m->i);
	return NULL;
}

/* The members as threads of this process on the parent's local device. */
static int run_threads(struct group_run *g, unsigned int n)
{
	struct member_thread m[BENCH_GROUP_MAX];
	unsigned int started = 0;
	int ret = 0;

	for (unsigned int i = 0; i < n; i++) {
		m[i] = (struct member_thread){ .g = g, .i = i };
		if (pthread_create(&m[i].th, NULL, member_thread, &m[i])) {
			g->status[i] = ret = -EAGAIN;
			break;
		}
		started++;
	}
	/* the clock stands until every member has joined */
	pthread_mutex_lock(&g->lock);
	while (g->nready < started)
		pthread_cond_wait(&g->cv, &g->lock);
	pthread_mutex_unlock(&g->lock);
	vgpu_clock_sync(g->parent, false, 0);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(m[i].th, NULL);
	return ret;
}

/* The members as processes, each with its own file of the render node. */
static int run_processes(struct group_run *g, unsigned int n)
{
	pid_t pid[BENCH_GROUP_MAX];
	unsigned int started = 0;
	int *status, ret = 0;

	status = bench_shared_alloc(sizeof(int) * n);
	if (!status)
		return -ENOMEM;
	if (pipe(g->ready)) {
		bench_shared_free(status, sizeof(int) * n);
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	for (unsigned int i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			ret = -errno;
			break;
		}
		if (pid[i] == 0) {
			/* Not the parent's file: it leaves the clock on its own. */
			close(vgpu_device_fd(g->parent));
			close(g->ready[0]);
			status[i] = member(g, i);
			_exit(status[i] ? 1 : 0);
		}
		started++;
	}
	close(g->ready[1]);
	for (unsigned int i = 0; i < started; i++) {
		char c;

		if (read(g->ready[0], &c, 1) != 1)
			break;	/* a member died before joining: its status says why */
	}
	close(g->ready[0]);
	/* this file leaves: the device, unused between groups, starts each afresh */
	vgpu_clock_sync(g->parent, false, 0);
	vgpu_device_close(g->parent);
	g->parent = NULL;
	for (unsigned int i = 0; i < started; i++) {
		int st;

		while (waitpid(pid[i], &st, 0) < 0 && errno == EINTR)
			;
		g->status[i] = status[i] ? status[i] :
			       (!WIFEXITED(st) || WEXITSTATUS(st)) ? -ECHILD : 0;
	}
	bench_shared_free(status, sizeof(int) * n);
	return ret;
}

int bench_group(const struct bench_target *t, unsigned int n, bench_member_fn fn, void *arg,
		const struct bench_counted *counted, int *status)
{
	struct group_run g = { .t = t, .fn = fn, .arg = arg };
	uint64_t before[BENCH_MAX_COUNTERS] = { 0 };
	int ret;

	if (n < 1 || n > BENCH_GROUP_MAX)
		return -EINVAL;
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.cv, NULL);
	ret = bench_target_device(t, &g.parent);
	if (ret)
		goto out;
	if (counted && !t->local)
		ret = bench_counters(t, g.parent, counted->file, counted->keys, counted->n, before);
	if (!ret)
		ret = vgpu_clock_sync(g.parent, true, 0);
	if (!ret)
		ret = t->local ? run_threads(&g, n) : run_processes(&g, n);
	for (unsigned int i = 0; i < n; i++)
		status[i] = g.status[i];
	if (!ret && counted) {
		/* a fresh local device counts from zero; the render node's grow */
		ret = t->local ? bench_counters(t, g.parent, counted->file, counted->keys,
						counted->n, counted->delta) :
				 bench_counters(t, NULL, counted->file, counted->keys, counted->n,
						counted->delta);
		for (unsigned int k = 0; !ret && k < counted->n; k++)
			counted->delta[k] -= before[k];
	}
out:
	vgpu_device_close(g.parent);
	pthread_cond_destroy(&g.cv);
	pthread_mutex_destroy(&g.lock);
	return ret;
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
