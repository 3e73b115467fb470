// SPDX-License-Identifier: MIT
/*
 * bench_jobs.c - independent simulations spread over worker processes
 * (-j N). Each task is deterministic and writes its result into its own
 * slot of memory shared with the parent, which prints the results in task
 * order: the output does not depend on N.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

unsigned int bench_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

int bench_parse_jobs(const char *s, unsigned int *jobs)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || end == s || n < 1 || n > 1024) {
		fprintf(stderr, "vgpu bench: bad -j '%s' (1 to 1024 worker processes)\n", s);
		return -EINVAL;
	}
	*jobs = (unsigned int)n;
	return 0;
}

/* A worker: takes the next task until none is left; 0 or the first failure. */
static int worker(unsigned int ntasks, bench_task_fn fn, void *arg, unsigned int *next,
		  int *status)
{
	int ret = 0;

	for (;;) {
		unsigned int i = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);

		if (i >= ntasks)
			return ret;
		status[i] = fn(i, arg);
		if (status[i] && !ret)
			ret = status[i];
	}
}

int bench_run_tasks(unsigned int ntasks, unsigned int jobs, bench_task_fn fn, void *arg)
{
	size_t size = sizeof(unsigned int) + (size_t)(ntasks ? ntasks : 1) * sizeof(int);
	unsigned int *next;
	int *status, ret = 0;
	pid_t *pid;
	unsigned int started = 0;

	if (bench_slurm_active())
		return bench_slurm_run(ntasks, fn, arg);
	if (jobs > ntasks)
		jobs = ntasks;
	if (jobs <= 1) {
		for (unsigned int i = 0; i < ntasks && !ret; i++)
			ret = fn(i, arg);
		return ret;
	}
	next = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (next == MAP_FAILED)
		return -errno;
	status = (int *)(next + 1);
	memset(next, 0, size);
	pid = calloc(jobs, sizeof(*pid));
	if (!pid) {
		munmap(next, size);
		return -ENOMEM;
	}
	fflush(stdout);
	fflush(stderr);
	for (unsigned int w = 0; w < jobs; w++) {
		pid[w] = fork();
		if (pid[w] < 0) {
			ret = -errno;
			break;
		}
		if (pid[w] == 0) {
			int r = worker(ntasks, fn, arg, next, status);

			fflush(stdout);
			_exit(r ? 1 : 0);
		}
		started++;
	}
	if (ret)	/* the workers started take every task, nobody else */
		ret = 0;
	for (unsigned int w = 0; w < started; w++) {
		int st;

		while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) && !ret)
			ret = -ECHILD;	/* a worker died: its task's slot says nothing */
	}
	if (!started)
		ret = -ECHILD;
	for (unsigned int i = 0; i < ntasks && !ret; i++) {
		if (i >= __atomic_load_n(next, __ATOMIC_RELAXED))
			ret = -ECHILD;
		else
			ret = status[i];
	}
	free(pid);
	munmap(next, size);
	return ret;
}

void *bench_shared_alloc(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, size);
	bench_slurm_region_add(p, size);
	return p;
}

void bench_shared_free(void *p, size_t size)
{
	if (p) {
		bench_slurm_region_remove(p);
		munmap(p, size ? size : 1);
	}
}
