// SPDX-License-Identifier: MIT
/*
 * bench_slurm.c - a bench's independent simulations as a Slurm job array
 * (--slurm; Documentation/experiments.rst, "Sweeps on a Slurm cluster").
 *
 * The bench runs as usual up to bench_run_tasks(). There, instead of
 * forking workers, it writes a batch script that runs the same command line
 * with --slurm-set S --slurm-task N, submits it with `sbatch --wait
 * --array=0-(T-1)`, and waits. Each array task repeats the bench's set-up
 * (the same arguments give the same set-up), runs its one task, writes the
 * memory the tasks write their results into (bench_shared_alloc()) to
 * DIR/task-S-N.res, and exits. The submitting process then merges those
 * files into its own result memory and goes on exactly as after local
 * workers: the same table, CSV and SVG, byte for byte. Tasks write disjoint
 * slots; a byte that two tasks changed differently is an error, as is a
 * missing or short file.
 *
 * A bench whose later tasks depend on the results of earlier ones (bench
 * vt: which workloads run past the baseline) calls bench_run_tasks() once
 * per set of tasks, S = 0, 1, ...: set S is an array of its own, submitted
 * once set S - 1's results are merged. A task of set S merges the files of
 * the sets before it as the submitting process did, instead of running
 * them, so it sets up the same tasks.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

#define RES_MAGIC	0x76677075736c726dull	/* "vgpuslrm" */
#define MAX_REGIONS	16

/* The result memory of the run, in the order it was allocated. */
static struct region {
	void *p;
	size_t size;
} regions[MAX_REGIONS];
static unsigned int nregions;

static struct {
	bool on;		/* --slurm: submit the tasks */
	long task;		/* --slurm-task N: run task N only; -1 */
	long set;		/* --slurm-set S: of set S (bench_slurm_run()); -1: 0 */
	const char *dir;	/* --slurm-dir: where the script and results go */
	const char *partition, *time, *account;
	int argc;		/* the command line, from "bench" on */
	char **argv;
} slurm = { .task = -1, .set = -1 };

/* Sets of tasks the bench has begun (calls of bench_slurm_run()). */
static unsigned int nsets;

void bench_slurm_command(int argc, char **argv)
{
	/* A copy: the benches split their list arguments in place. */
	slurm.argv = calloc((size_t)argc + 1, sizeof(*slurm.argv));
	if (!slurm.argv)
		return;
	for (int i = 0; i < argc; i++) {
		slurm.argv[i] = strdup(argv[i]);
		if (!slurm.argv[i])
			return;
		slurm.argc = i + 1;
	}
}

/* --@name's number 0 ... INT_MAX into @out: 1, or -EINVAL (said). */
static int number_opt(const char *name, const char *arg, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || *end || end == arg || *out < 0 || *out > INT_MAX) {
		fprintf(stderr, "vgpu bench: bad --%s '%s'\n", name, arg);
		return -EINVAL;
	}
	return 1;
}

int bench_slurm_opt(int opt, const char *arg)
{
	switch (opt) {
	case BENCH_OPT_SLURM:
		slurm.on = true;
		return 1;
	case BENCH_OPT_SLURM_DIR:
		slurm.dir = arg;
		return 1;
	case BENCH_OPT_PARTITION:
		slurm.partition = arg;
		return 1;
	case BENCH_OPT_TIME:
		slurm.time = arg;
		return 1;
	case BENCH_OPT_ACCOUNT:
		slurm.account = arg;
		return 1;
	case BENCH_OPT_SLURM_TASK:
		return number_opt("slurm-task", arg, &slurm.task);
	case BENCH_OPT_SLURM_SET:
		return number_opt("slurm-set", arg, &slurm.set);
	default:
		return 0;
	}
}

int bench_slurm_check(bool local)
{
	if ((slurm.on || slurm.task >= 0) && !local) {
		fprintf(stderr, "vgpu bench: --slurm runs the simulations on local devices:"
			" add --local\n");
		return -EINVAL;
	}
	if ((slurm.on || slurm.task >= 0) && slurm.argc < 2) {
		fprintf(stderr, "vgpu bench: out of memory for the command line\n");
		return -ENOMEM;
	}
	if ((slurm.on || slurm.task >= 0) && !slurm.dir) {
		fprintf(stderr, "vgpu bench: --slurm needs --slurm-dir DIR, a directory every"
			" node sees (a shared file system)\n");
		return -EINVAL;
	}
	if (slurm.set >= 0 && slurm.task < 0) {
		fprintf(stderr, "vgpu bench: --slurm-set goes with --slurm-task\n");
		return -EINVAL;
	}
	if (!slurm.on && slurm.task < 0 && (slurm.dir || slurm.partition || slurm.time ||
					     slurm.account)) {
		fprintf(stderr, "vgpu bench: --slurm-dir, --partition, --time and --account"
			" go with --slurm\n");
		return -EINVAL;
	}
	return 0;
}

void bench_slurm_region_add(void *p, size_t size)
{
	if (nregions < MAX_REGIONS)
		regions[nregions++] = (struct region){ p, size };
}

void bench_slurm_region_remove(void *p)
{
	for (unsigned int i = 0; i < nregions; i++) {
		if (regions[i].p == p) {
			memmove(&regions[i], &regions[i + 1],
				(nregions - i - 1) * sizeof(regions[0]));
			nregions--;
			return;
		}
	}
}

bool bench_slurm_active(void)
{
	return slurm.on || slurm.task >= 0;
}

static void res_path(char *buf, size_t len, unsigned int set, long task)
{
	snprintf(buf, len, "%s/task-%u-%ld.res", slurm.dir, set, task);
}

/* The array task: one task of @set, its result memory to its file, then exit. */
static int run_one(unsigned int set, unsigned int ntasks, bench_task_fn fn, void *arg)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	uint64_t head[4];
	int status;
	FILE *f;

	if ((unsigned long)slurm.task >= ntasks) {
		fprintf(stderr, "vgpu bench: --slurm-task %ld: set %u of the bench has %u tasks\n",
			slurm.task, set, ntasks);
		exit(1);
	}
	status = fn((unsigned int)slurm.task, arg);
	res_path(path, sizeof(path), set, slurm.task);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f) {
		fprintf(stderr, "vgpu bench: %s: %s\n", tmp, strerror(errno));
		exit(1);
	}
	head[0] = RES_MAGIC;
	head[1] = ntasks;
	head[2] = (uint64_t)(int64_t)status;
	head[3] = nregions;
	fwrite(head, sizeof(head), 1, f);
	for (unsigned int r = 0; r < nregions; r++) {
		uint64_t size = regions[r].size;

		fwrite(&size, sizeof(size), 1, f);
		fwrite(regions[r].p, 1, regions[r].size, f);
	}
	if (fflush(f) || ferror(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "vgpu bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fflush(stdout);
	exit(status ? 1 : 0);
}

/* A shell word: quoted so that sh reads it back as it is. */
static void put_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputs("' ", f);
}

static int write_script(const char *path, unsigned int set)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	if (n <= 0)
		return -errno;
	exe[n] = 0;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "#!/bin/sh\n# vgpu bench: one task of the array (bench_slurm.c)\nexec ");
	put_word(f, exe);
	for (int i = 0; i < slurm.argc; i++)
		put_word(f, slurm.argv[i]);
	fprintf(f, "--slurm-set %u --slurm-task \"$SLURM_ARRAY_TASK_ID\"\n", set);
	if (fclose(f))
		return -errno;
	return chmod(path, 0755) ? -errno : 0;
}

/* sbatch --wait: 0 when every task of set @set's array ended well. */
static int submit(unsigned int set, unsigned int ntasks, const char *script)
{
	char array[32], out[PATH_MAX + 16], part[256], tim[128], acct[256];
	char *argv[16];
	int argc = 0, st;
	pid_t pid;

	snprintf(array, sizeof(array), "--array=0-%u", ntasks - 1);
	snprintf(out, sizeof(out), "--output=%s/task-%u-%%a.out", slurm.dir, set);
	argv[argc++] = "sbatch";
	argv[argc++] = "--wait";
	argv[argc++] = "--quiet";
	argv[argc++] = "--job-name=vgpu-bench";
	argv[argc++] = "--cpus-per-task=1";
	argv[argc++] = array;
	argv[argc++] = out;
	if (slurm.partition) {
		snprintf(part, sizeof(part), "--partition=%s", slurm.partition);
		argv[argc++] = part;
	}
	if (slurm.time) {
		snprintf(tim, sizeof(tim), "--time=%s", slurm.time);
		argv[argc++] = tim;
	}
	if (slurm.account) {
		snprintf(acct, sizeof(acct), "--account=%s", slurm.account);
		argv[argc++] = acct;
	}
	argv[argc++] = (char *)script;
	argv[argc] = NULL;
	fflush(stdout);
	st = posix_spawnp(&pid, "sbatch", NULL, NULL, argv, environ);
	if (st) {
		fprintf(stderr, "vgpu bench: cannot run sbatch: %s (is Slurm installed?)\n",
			strerror(st));
		return -st;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "vgpu bench: sbatch --wait exited %d: a task failed (its output:"
			" %s/task-%u-N.out)\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurm.dir, set);
		return -ECHILD;
	}
	return 0;
}

/* Task @task's file into the result memory, against the memory as it was. */
static int merge_one(unsigned int set, unsigned int ntasks, long task, uint8_t **base,
		     uint8_t **owner_set, int *status)
{
	char path[PATH_MAX];
	uint64_t head[4];
	int ret = 0;
	FILE *f;

	res_path(path, sizeof(path), set, task);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "vgpu bench: task %ld of set %u left no result (%s: %s)\n", task,
			set, path, strerror(errno));
		return -ENOENT;
	}
	if (fread(head, sizeof(head), 1, f) != 1 || head[0] != RES_MAGIC ||
	    head[1] != ntasks || head[3] != nregions) {
		fprintf(stderr, "vgpu bench: %s: not a result of this bench\n", path);
		ret = -EPROTO;
		goto out;
	}
	*status = (int)(int64_t)head[2];
	for (unsigned int r = 0; r < nregions && !ret; r++) {
		uint64_t size;
		uint8_t *buf;

		if (fread(&size, sizeof(size), 1, f) != 1 || size != regions[r].size) {
			fprintf(stderr, "vgpu bench: %s: region %u is not %zu bytes\n", path, r,
				regions[r].size);
			ret = -EPROTO;
			break;
		}
		buf = malloc(size ? size : 1);
		if (!buf) {
			ret = -ENOMEM;
			break;
		}
		if (fread(buf, 1, size, f) != size) {
			fprintf(stderr, "vgpu bench: %s: short\n", path);
			ret = -EPROTO;
		}
		for (uint64_t b = 0; b < size && !ret; b++) {
			uint8_t *dst = (uint8_t *)regions[r].p + b;

			if (buf[b] == base[r][b])
				continue;
			if (owner_set[r][b] && *dst != buf[b]) {
				fprintf(stderr, "vgpu bench: tasks wrote byte %" PRIu64 " of result"
					" region %u differently (task %ld among them)\n", b, r, task);
				ret = -EPROTO;
			}
			*dst = buf[b];
			owner_set[r][b] = 1;
		}
		free(buf);
	}
out:
	fclose(f);
	return ret;
}

/*
 * The results of set @set's @ntasks tasks, from their files, into the
 * result memory; then the first task's failure, if any.
 */
static int merge_set(unsigned int set, unsigned int ntasks)
{
	uint8_t *base[MAX_REGIONS] = { 0 }, *owner[MAX_REGIONS] = { 0 };
	int ret = 0, first = 0;

	for (unsigned int r = 0; r < nregions; r++) {
		base[r] = malloc(regions[r].size ? regions[r].size : 1);
		owner[r] = calloc(regions[r].size ? regions[r].size : 1, 1);
		if (!base[r] || !owner[r]) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(base[r], regions[r].p, regions[r].size);
	}
	for (unsigned int i = 0; i < ntasks && !ret; i++) {
		int st = 0;

		ret = merge_one(set, ntasks, i, base, owner, &st);
		if (!ret && st && !first)
			first = st;
	}
	if (!ret)
		ret = first;
out:
	for (unsigned int r = 0; r < nregions; r++) {
		free(base[r]);
		free(owner[r]);
	}
	return ret;
}

/* Set @set's @ntasks tasks as a job array, then their results. */
static int run_array(unsigned int set, unsigned int ntasks)
{
	char script[PATH_MAX];
	int ret;

	if (mkdir(slurm.dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "vgpu bench: --slurm-dir %s: %s\n", slurm.dir, strerror(errno));
		return -errno;
	}
	/* Results of an earlier run must not pass for this one's. */
	for (unsigned int i = 0; i < ntasks; i++) {
		char path[PATH_MAX];

		res_path(path, sizeof(path), set, i);
		if (unlink(path) && errno != ENOENT)
			return -errno;
	}
	snprintf(script, sizeof(script), "%s/array-%u.sh", slurm.dir, set);
	ret = write_script(script, set);
	if (ret) {
		fprintf(stderr, "vgpu bench: %s: %s\n", script, strerror(-ret));
		return ret;
	}
	ret = submit(set, ntasks, script);
	if (ret)
		return ret;
	return merge_set(set, ntasks);
}

int bench_slurm_run(unsigned int ntasks, bench_task_fn fn, void *arg)
{
	unsigned int set = nsets++;

	if (slurm.task >= 0) {
		/* an earlier set: its results, as the submitting process took them */
		if ((long)set < slurm.set)
			return merge_set(set, ntasks);
		return run_one(set, ntasks, fn, arg);
	}
	if (!ntasks)
		return 0;
	return run_array(set, ntasks);
}
