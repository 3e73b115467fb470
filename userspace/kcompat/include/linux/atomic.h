/* SPDX-License-Identifier: MIT */
/* kcompat: atomic_t on the compiler's atomics (sequentially consistent). */
#ifndef VGPU_KCOMPAT_LINUX_ATOMIC_H
#define VGPU_KCOMPAT_LINUX_ATOMIC_H

typedef struct {
	int counter;
} atomic_t;

#define ATOMIC_INIT(i)	{ (i) }

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_SEQ_CST);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline int atomic_add_return(int i, atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline int atomic_inc_return(atomic_t *v)
{
	return atomic_add_return(1, v);
}

static inline int atomic_dec_return(atomic_t *v)
{
	return atomic_add_return(-1, v);
}

static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	__atomic_compare_exchange_n(&v->counter, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

static inline void atomic_inc(atomic_t *v)
{
	atomic_add_return(1, v);
}

static inline void atomic_dec(atomic_t *v)
{
	atomic_add_return(-1, v);
}

static inline int atomic_dec_and_test(atomic_t *v)
{
	return atomic_dec_return(v) == 0;
}

#endif
