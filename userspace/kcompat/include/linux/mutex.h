/* SPDX-License-Identifier: MIT */
/*
 * kcompat: sleeping locks on pthreads. A mutex knows its owner, so that
 * lockdep_assert_held() can check what the kernel's lockdep checks.
 */
#ifndef VGPU_KCOMPAT_LINUX_MUTEX_H
#define VGPU_KCOMPAT_LINUX_MUTEX_H

#include <pthread.h>

#include <linux/bug.h>
#include <linux/types.h>

/**
 * struct mutex - a mutex.
 * @lock: the pthread mutex.
 * @owner: the thread holding it, when @held.
 * @held: locked.
 */
struct mutex {
	pthread_mutex_t lock;
	pthread_t owner;
	bool held;
};

#define DEFINE_MUTEX(name)	struct mutex name = { .lock = PTHREAD_MUTEX_INITIALIZER }

static inline void mutex_init(struct mutex *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->held = false;
}

static inline void mutex_destroy(struct mutex *m)
{
	WARN_ON(m->held);
	pthread_mutex_destroy(&m->lock);
}

static inline void mutex_lock(struct mutex *m)
{
	pthread_mutex_lock(&m->lock);
	m->owner = pthread_self();
	__atomic_store_n(&m->held, true, __ATOMIC_RELEASE);
}

static inline int mutex_trylock(struct mutex *m)
{
	if (pthread_mutex_trylock(&m->lock))
		return 0;
	m->owner = pthread_self();
	__atomic_store_n(&m->held, true, __ATOMIC_RELEASE);
	return 1;
}

static inline void mutex_unlock(struct mutex *m)
{
	__atomic_store_n(&m->held, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&m->lock);
}

static inline bool mutex_is_locked(struct mutex *m)
{
	return __atomic_load_n(&m->held, __ATOMIC_ACQUIRE);
}

/*
 * pthread_cond_wait() on a held mutex: the wait lets it go and takes it
 * back, so its owner is set again afterwards.
 */
static inline void kcompat_mutex_cond_wait(struct mutex *m, pthread_cond_t *cv)
{
	__atomic_store_n(&m->held, false, __ATOMIC_RELEASE);
	pthread_cond_wait(cv, &m->lock);
	m->owner = pthread_self();
	__atomic_store_n(&m->held, true, __ATOMIC_RELEASE);
}

/* Held by the calling thread (lockdep's lock_is_held()). */
static inline bool kcompat_mutex_held(struct mutex *m)
{
	return mutex_is_locked(m) && pthread_equal(m->owner, pthread_self());
}

#endif
