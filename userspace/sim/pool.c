// SPDX-License-Identifier: MIT
/*
 * pool.c - the host threads that simulate SMs in parallel (sim.c,
 * "parallel simulation"). pool_run() runs one function on every thread's
 * share of the work (share 0 is the caller's) and returns when all shares
 * are done.
 *
 * A run is short (one cycle of a few SMs: microseconds), far shorter than
 * waking a sleeping thread, so threads spin on atomic counters, then yield,
 * and only sleep on a condition variable after a long wait (a model between
 * steps). A worker claims its share of a run before doing it; a share no
 * worker has claimed when the caller is through with its own is done by the
 * caller, so a worker the host has not scheduled (more threads than free
 * cores) delays nothing. Every shared variable is an atomic or under the
 * mutex; the sequentially consistent atomics order everything written
 * before a run for whoever does a share, and everything written by a
 * share for the caller after the run.
 */
#include <fenv.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define CACHE_LINE	64
#define SPIN_ROUNDS	2000	/* pause instructions before yielding */
#define YIELD_ROUNDS	200	/* then yields before sleeping */

/* One worker, with the counters of its share on their own cache line. */
struct pool_thread {
	_Alignas(CACHE_LINE) atomic_uint claimed;	/* last run whose share is taken */
	atomic_uint finished;	/* last run whose share is done */
	struct sim_pool *pool;
	uint32_t tid;
	pthread_t thread;
};

struct sim_pool {
	void (*fn)(void *arg, uint32_t tid);
	void *arg;
	uint32_t n;			/* shares: the caller and n - 1 workers */
	fenv_t fenv;			/* the creator's rounding mode, for the workers */
	struct pool_thread *threads;	/* [0] unused: share 0 is the caller's */
	pthread_mutex_t lock;
	pthread_cond_t start_cv, done_cv;
	_Alignas(CACHE_LINE) atomic_uint gen;	/* runs started */
	atomic_uint sleepers;		/* workers asleep on start_cv */
	atomic_bool waiting;		/* the caller is asleep on done_cv */
	atomic_bool stop;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Waits for a run after run @seen (or the stop); returns its number. */
static uint32_t wait_start(struct sim_pool *p, uint32_t seen)
{
	uint32_t g;

	for (uint32_t i = 0; i < SPIN_ROUNDS + YIELD_ROUNDS; i++) {
		g = atomic_load(&p->gen);
		if (g != seen || atomic_load(&p->stop))
			return g;
		if (i < SPIN_ROUNDS)
			cpu_relax();
		else
			sched_yield();
	}
	pthread_mutex_lock(&p->lock);
	atomic_fetch_add(&p->sleepers, 1);
	/* the caller reads sleepers after it bumps gen: one of us sees the other */
	while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop))
		pthread_cond_wait(&p->start_cv, &p->lock);
	atomic_fetch_sub(&p->sleepers, 1);
	pthread_mutex_unlock(&p->lock);
	return g;
}

/* Takes share @t of run @run unless someone did; true if taken. */
static bool claim(struct pool_thread *t, uint32_t run)
{
	unsigned int expected = run - 1;

	return atomic_compare_exchange_strong(&t->claimed, &expected, run);
}

static void *worker(void *arg)
{
	struct pool_thread *t = arg;
	struct sim_pool *p = t->pool;
	uint32_t seen = 0;

	/* plain float arithmetic must round as on the caller's thread */
	fesetenv(&p->fenv);
	for (;;) {
		seen = wait_start(p, seen);
		if (atomic_load(&p->stop))
			return NULL;
		if (!claim(t, seen))
			continue;
		p->fn(p->arg, t->tid);
		atomic_store(&t->finished, seen);
		if (atomic_load(&p->waiting)) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done_cv);
			pthread_mutex_unlock(&p->lock);
		}
	}
}

/* Whether every share of @run is done. */
static bool run_done(struct sim_pool *p, uint32_t run)
{
	for (uint32_t i = 1; i < p->n; i++)
		if (atomic_load(&p->threads[i].finished) != run)
			return false;
	return true;
}

void pool_run(struct sim_pool *p)
{
	uint32_t run = atomic_fetch_add(&p->gen, 1) + 1;

	if (atomic_load(&p->sleepers)) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->start_cv);
		pthread_mutex_unlock(&p->lock);
	}
	p->fn(p->arg, 0);
	/* the shares no worker has started yet */
	for (uint32_t i = 1; i < p->n; i++) {
		if (claim(&p->threads[i], run)) {
			p->fn(p->arg, i);
			atomic_store(&p->threads[i].finished, run);
		}
	}
	for (uint32_t i = 0; i < SPIN_ROUNDS + YIELD_ROUNDS; i++) {
		if (run_done(p, run))
			return;
		if (i < SPIN_ROUNDS)
			cpu_relax();
		else
			sched_yield();
	}
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->waiting, true);
	/* a worker reads waiting after it marks its share done: one of us sees the other */
	while (!run_done(p, run))
		pthread_cond_wait(&p->done_cv, &p->lock);
	atomic_store(&p->waiting, false);
	pthread_mutex_unlock(&p->lock);
}

static void pool_stop(struct sim_pool *p, uint32_t started)
{
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->stop, true);
	pthread_cond_broadcast(&p->start_cv);
	pthread_mutex_unlock(&p->lock);
	for (uint32_t i = 1; i <= started; i++)
		pthread_join(p->threads[i].thread, NULL);
}

struct sim_pool *pool_create(uint32_t nthreads, void (*fn)(void *arg, uint32_t tid), void *arg)
{
	struct sim_pool *p;

	if (nthreads < 2)
		return NULL;
	p = sim_calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->fn = fn;
	p->arg = arg;
	p->n = nthreads;
	fegetenv(&p->fenv);
	atomic_init(&p->gen, 0);
	atomic_init(&p->sleepers, 0);
	atomic_init(&p->waiting, false);
	atomic_init(&p->stop, false);
	p->threads = sim_calloc(nthreads, sizeof(*p->threads));
	if (!p->threads || pthread_mutex_init(&p->lock, NULL)) {
		free(p->threads);
		free(p);
		return NULL;
	}
	pthread_cond_init(&p->start_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	for (uint32_t i = 1; i < nthreads; i++) {
		struct pool_thread *t = &p->threads[i];

		atomic_init(&t->claimed, 0);
		atomic_init(&t->finished, 0);
		t->pool = p;
		t->tid = i;
		if (pthread_create(&t->thread, NULL, worker, t)) {
			pool_stop(p, i - 1);
			pthread_cond_destroy(&p->start_cv);
			pthread_cond_destroy(&p->done_cv);
			pthread_mutex_destroy(&p->lock);
			free(p->threads);
			free(p);
			return NULL;
		}
	}
	return p;
}

void pool_destroy(struct sim_pool *p)
{
	if (!p)
		return;
	pool_stop(p, p->n - 1);
	pthread_cond_destroy(&p->start_cv);
	pthread_cond_destroy(&p->done_cv);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p);
}

void *sim_malloc(size_t n, size_t size)
{
	size_t bytes;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	bytes = bytes ? (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE : CACHE_LINE;
	if (bytes < n * size)
		return NULL;
	return aligned_alloc(CACHE_LINE, bytes);
}

void *sim_calloc(size_t n, size_t size)
{
	void *p = sim_malloc(n, size);
	size_t bytes = n * size;

	/* sim_malloc() checked the size: all of its whole cache lines */
	if (p)
		memset(p, 0, bytes ? (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE : CACHE_LINE);
	return p;
}
