// SPDX-License-Identifier: MIT
/*
 * kcompat xarray: the XArray calls of <linux/xarray.h> over an array of
 * (index, entry) sorted by index, with Linux 6.12's results: which index
 * xa_alloc() and xa_alloc_cyclic() hand out, xa_alloc_cyclic()'s *next
 * and its return of 1 after wrapping, -EBUSY when the range is full, and
 * reserved entries.
 *
 * A reserved entry is stored as the kernel's XA_ZERO_ENTRY value: NULL
 * stored into an allocating array (xa_store(), xa_insert(), xa_alloc())
 * takes the index without an entry. Loads read NULL there, xa_insert()
 * and the allocators see the index as taken, iteration skips it, and
 * xa_cmpxchg() compares against the reserved value, not NULL.
 *
 * One simplification: the kernel keeps index 0 of an XA_FLAGS_ALLOC1
 * array reserved while the array is not empty; here index 0 is only
 * excluded from allocation, and xa_store()/xa_insert() at 0 behave as at
 * any other index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/xarray.h>

struct xa_slot {
	unsigned long index;
	void *entry;
};

/* The kernel's internal entries: xa_mk_internal(v) is (v << 2) | 2. */
#define XA_INTERNAL(v)		((void *)(((unsigned long)(v) << 2) | 2UL))
#define XA_ZERO_ENTRY		XA_INTERNAL(257)
#define XA_ERROR(err)		XA_INTERNAL((long)(err))

/* What the kernel refuses to store: its node, sibling and retry entries. */
static bool xa_is_advanced(const void *entry)
{
	return ((unsigned long)entry & 3) == 2 &&
	       (unsigned long)entry <= (unsigned long)XA_INTERNAL(256);
}

static void *zero_to_null(void *entry)
{
	return entry == XA_ZERO_ENTRY ? NULL : entry;
}

/* One per thread: xa_lock() records its holder by this address. */
static __thread char xa_self;

/**
 * xa_lock() - take the array's lock.
 * @xa: the array.
 *
 * Not recursive; xa_load() and xa_find() may be called with it held.
 */
void xa_lock(struct xarray *xa)
{
	pthread_mutex_lock(&xa->lock);
	__atomic_store_n(&xa->owner, &xa_self, __ATOMIC_RELAXED);
}

/**
 * xa_unlock() - release the array's lock.
 * @xa: the array.
 */
void xa_unlock(struct xarray *xa)
{
	__atomic_store_n(&xa->owner, NULL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&xa->lock);
}

/* For the readers: lock unless this thread holds it; true if we locked. */
static bool read_lock(struct xarray *xa)
{
	if (__atomic_load_n(&xa->owner, __ATOMIC_RELAXED) == &xa_self)
		return false;
	xa_lock(xa);
	return true;
}

static void read_unlock(struct xarray *xa, bool locked)
{
	if (locked)
		xa_unlock(xa);
}

/* The first slot with index >= @index (xa->nr if none). */
static size_t slot_rank(const struct xarray *xa, unsigned long index)
{
	size_t lo = 0, hi = xa->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (xa->slots[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The slot of @index, or NULL. */
static struct xa_slot *slot_of(const struct xarray *xa, unsigned long index)
{
	size_t i = slot_rank(xa, index);

	return i < xa->nr && xa->slots[i].index == index ? &xa->slots[i] : NULL;
}

static int slot_insert(struct xarray *xa, size_t at, unsigned long index,
		       void *entry)
{
	if (xa->nr == xa->cap) {
		size_t cap = xa->cap ? 2 * xa->cap : 16;
		struct xa_slot *s = realloc(xa->slots, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		xa->slots = s;
		xa->cap = cap;
	}
	memmove(&xa->slots[at + 1], &xa->slots[at], (xa->nr - at) * sizeof(*xa->slots));
	xa->slots[at].index = index;
	xa->slots[at].entry = entry;
	xa->nr++;
	return 0;
}

/* Makes @index hold @entry (NULL: nothing); returns the old raw entry. */
static void *slot_set(struct xarray *xa, unsigned long index, void *entry)
{
	size_t i = slot_rank(xa, index);
	void *old;

	if (i == xa->nr || xa->slots[i].index != index) {
		if (entry && slot_insert(xa, i, index, entry))
			return XA_ERROR(-ENOMEM);
		return NULL;
	}
	old = xa->slots[i].entry;
	if (entry) {
		xa->slots[i].entry = entry;
	} else {
		memmove(&xa->slots[i], &xa->slots[i + 1],
			(xa->nr - i - 1) * sizeof(*xa->slots));
		xa->nr--;
	}
	return old;
}

/**
 * xa_init_flags() - set up an empty array.
 * @xa: the array.
 * @flags: %XA_FLAGS_ALLOC or %XA_FLAGS_ALLOC1 for xa_alloc(), else 0;
 *	the lock flags are accepted and mean nothing here.
 */
void xa_init_flags(struct xarray *xa, unsigned int flags)
{
	pthread_mutex_init(&xa->lock, NULL);
	xa->owner = NULL;
	xa->xa_flags = flags;
	xa->slots = NULL;
	xa->nr = 0;
	xa->cap = 0;
}

/**
 * xa_destroy() - empty the array; the entries themselves are not freed.
 * @xa: the array, usable again afterwards.
 */
void xa_destroy(struct xarray *xa)
{
	xa_lock(xa);
	free(xa->slots);
	xa->slots = NULL;
	xa->nr = 0;
	xa->cap = 0;
	xa_unlock(xa);
}

/**
 * xa_empty() - whether nothing, not even a reserved entry, is stored.
 * @xa: the array.
 *
 * Return: true when empty.
 */
bool xa_empty(struct xarray *xa)
{
	bool locked = read_lock(xa);
	bool empty = xa->nr == 0;

	read_unlock(xa, locked);
	return empty;
}

/**
 * xa_load() - the entry at @index.
 * @xa: the array.
 * @index: the index.
 *
 * Return: the entry, or NULL (also for a reserved entry).
 */
void *xa_load(struct xarray *xa, unsigned long index)
{
	bool locked = read_lock(xa);
	struct xa_slot *s = slot_of(xa, index);
	void *entry = s ? zero_to_null(s->entry) : NULL;

	read_unlock(xa, locked);
	return entry;
}

/*
 * The first entry other than a reserved one with index in [@from, @max]:
 * stores its index in *@indexp. @from > @max finds nothing.
 */
static void *find_from(struct xarray *xa, unsigned long from, unsigned long max,
		       unsigned long *indexp)
{
	bool locked = read_lock(xa);
	void *entry = NULL;

	for (size_t i = slot_rank(xa, from); i < xa->nr && xa->slots[i].index <= max; i++) {
		if (xa->slots[i].entry != XA_ZERO_ENTRY) {
			entry = xa->slots[i].entry;
			*indexp = xa->slots[i].index;
			break;
		}
	}
	read_unlock(xa, locked);
	return entry;
}

/**
 * xa_find() - the first present entry at or after *@indexp.
 * @xa: the array.
 * @indexp: where to start; set to the entry's index when one is found.
 * @max: last index to look at.
 * @filter: %XA_PRESENT.
 *
 * Return: the entry, or NULL.
 */
void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max,
	      xa_mark_t filter)
{
	(void)filter;
	return find_from(xa, *indexp, max, indexp);
}

/**
 * xa_find_after() - the first present entry after *@indexp.
 * @xa: the array.
 * @indexp: the last index seen; set to the entry's index when one is found.
 * @max: last index to look at.
 * @filter: %XA_PRESENT.
 *
 * Return: the entry, or NULL.
 */
void *xa_find_after(struct xarray *xa, unsigned long *indexp, unsigned long max,
		    xa_mark_t filter)
{
	(void)filter;
	if (*indexp == ~0UL)
		return NULL;
	return find_from(xa, *indexp + 1, max, indexp);
}

/**
 * __xa_store() - xa_store() with the lock held.
 * @xa: the array.
 * @index: the index.
 * @entry: the new entry; NULL erases, or reserves in an allocating array.
 * @gfp: ignored.
 *
 * Return: the old entry (NULL for none or reserved), or an error entry
 * (xa_is_err()): -EINVAL for an entry the kernel cannot store, -ENOMEM.
 */
void *__xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	(void)gfp;
	if (xa_is_advanced(entry))
		return XA_ERROR(-EINVAL);
	if (!entry && (xa->xa_flags & XA_FLAGS_TRACK_FREE))
		entry = XA_ZERO_ENTRY;
	return zero_to_null(slot_set(xa, index, entry));
}

/**
 * __xa_erase() - xa_erase() with the lock held.
 * @xa: the array.
 * @index: the index.
 *
 * Return: the old entry (NULL for none or reserved).
 */
void *__xa_erase(struct xarray *xa, unsigned long index)
{
	return zero_to_null(slot_set(xa, index, NULL));
}

/**
 * __xa_cmpxchg() - xa_cmpxchg() with the lock held.
 * @xa: the array.
 * @index: the index.
 * @old: the entry expected; a reserved entry does not match NULL.
 * @entry: the new entry; NULL erases.
 * @gfp: ignored.
 *
 * Return: the entry that was there (NULL for none or reserved); @entry
 * was stored if that is @old. An error entry: -EINVAL, -ENOMEM.
 */
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		   void *entry, gfp_t gfp)
{
	struct xa_slot *s;
	void *curr;

	(void)gfp;
	if (xa_is_advanced(entry))
		return XA_ERROR(-EINVAL);
	s = slot_of(xa, index);
	curr = s ? s->entry : NULL;
	if (curr == old) {
		void *ret = slot_set(xa, index, entry);

		if (xa_is_err(ret))
			return ret;
	}
	return zero_to_null(curr);
}

/**
 * __xa_insert() - xa_insert() with the lock held.
 * @xa: the array.
 * @index: the index.
 * @entry: the entry; NULL reserves the index.
 * @gfp: ignored.
 *
 * Return: 0, -EBUSY when @index holds an entry (reserved ones included),
 * -EINVAL, -ENOMEM.
 */
int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	size_t i;

	(void)gfp;
	if (xa_is_advanced(entry))
		return -EINVAL;
	if (!entry)
		entry = XA_ZERO_ENTRY;
	i = slot_rank(xa, index);
	if (i < xa->nr && xa->slots[i].index == index)
		return -EBUSY;
	return slot_insert(xa, i, index, entry);
}

/**
 * __xa_alloc() - xa_alloc() with the lock held.
 * @xa: an allocating array (%XA_FLAGS_ALLOC or %XA_FLAGS_ALLOC1).
 * @id: receives the index.
 * @entry: the entry; NULL reserves the index.
 * @limit: the range; the lowest free index in it is taken (never 0 with
 *	%XA_FLAGS_ALLOC1).
 * @gfp: ignored.
 *
 * Return: 0, -EBUSY when no index in @limit is free (@id untouched),
 * -EINVAL (not an allocating array, or @entry), -ENOMEM.
 */
int __xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	       gfp_t gfp)
{
	unsigned long want = limit.min;
	size_t i;
	int ret;

	(void)gfp;
	if (xa_is_advanced(entry) || !(xa->xa_flags & XA_FLAGS_TRACK_FREE))
		return -EINVAL;
	if (!entry)
		entry = XA_ZERO_ENTRY;
	if (want == 0 && (xa->xa_flags & XA_FLAGS_ZERO_BUSY))
		want = 1;
	/* Step over the run of taken indices starting at @want. */
	for (i = slot_rank(xa, want); i < xa->nr && xa->slots[i].index == want; i++)
		want++;
	if (want > limit.max)
		return -EBUSY;
	ret = slot_insert(xa, i, want, entry);
	if (!ret)
		*id = (u32)want;
	return ret;
}

/**
 * __xa_alloc_cyclic() - xa_alloc_cyclic() with the lock held.
 * @xa: an allocating array.
 * @id: receives the index.
 * @entry: the entry; NULL reserves the index.
 * @limit: the range.
 * @next: where the search starts (below @limit.min means at it); set to
 *	the index after the one taken.
 * @gfp: ignored.
 *
 * Searches from *@next to @limit.max, then from @limit.min. Like the
 * kernel, an index taken right after *@next wrapped past U32_MAX also
 * counts as wrapped.
 *
 * Return: 0, 1 when the search wrapped, -EBUSY when @limit is full,
 * -EINVAL, -ENOMEM.
 */
int __xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry,
		      struct xa_limit limit, u32 *next, gfp_t gfp)
{
	u32 min = limit.min;
	int ret;

	if (*next > limit.min)
		limit.min = *next;
	ret = __xa_alloc(xa, id, entry, limit, gfp);
	if (ret == 0 && (xa->xa_flags & XA_FLAGS_ALLOC_WRAPPED)) {
		xa->xa_flags &= ~XA_FLAGS_ALLOC_WRAPPED;
		ret = 1;
	}
	if (ret < 0 && limit.min > min) {
		limit.min = min;
		ret = __xa_alloc(xa, id, entry, limit, gfp);
		if (ret == 0)
			ret = 1;
	}
	if (ret >= 0) {
		*next = *id + 1;
		if (*next == 0)
			xa->xa_flags |= XA_FLAGS_ALLOC_WRAPPED;
	}
	return ret;
}

/**
 * xa_store() - store @entry at @index.
 * @xa: the array.
 * @index: the index.
 * @entry: the new entry; NULL erases, or reserves in an allocating array.
 * @gfp: ignored.
 *
 * Return: see __xa_store().
 */
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_store(xa, index, entry, gfp);
	xa_unlock(xa);
	return curr;
}

/**
 * xa_erase() - remove the entry at @index.
 * @xa: the array.
 * @index: the index.
 *
 * Return: the old entry (NULL for none or reserved).
 */
void *xa_erase(struct xarray *xa, unsigned long index)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_erase(xa, index);
	xa_unlock(xa);
	return curr;
}

/**
 * xa_cmpxchg() - store @entry at @index if it holds @old.
 * @xa: the array.
 * @index: the index.
 * @old: the entry expected.
 * @entry: the new entry; NULL erases.
 * @gfp: ignored.
 *
 * Return: see __xa_cmpxchg().
 */
void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old,
		 void *entry, gfp_t gfp)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_cmpxchg(xa, index, old, entry, gfp);
	xa_unlock(xa);
	return curr;
}

/**
 * xa_insert() - store @entry at @index if nothing is there.
 * @xa: the array.
 * @index: the index.
 * @entry: the entry; NULL reserves the index.
 * @gfp: ignored.
 *
 * Return: see __xa_insert().
 */
int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	int ret;

	xa_lock(xa);
	ret = __xa_insert(xa, index, entry, gfp);
	xa_unlock(xa);
	return ret;
}

/**
 * xa_alloc() - store @entry at the lowest free index in @limit.
 * @xa: an allocating array.
 * @id: receives the index.
 * @entry: the entry; NULL reserves the index.
 * @limit: the range.
 * @gfp: ignored.
 *
 * Return: see __xa_alloc().
 */
int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	     gfp_t gfp)
{
	int ret;

	xa_lock(xa);
	ret = __xa_alloc(xa, id, entry, limit, gfp);
	xa_unlock(xa);
	return ret;
}

/**
 * xa_alloc_cyclic() - store @entry at the first free index from *@next.
 * @xa: an allocating array.
 * @id: receives the index.
 * @entry: the entry; NULL reserves the index.
 * @limit: the range.
 * @next: where the search starts; updated.
 * @gfp: ignored.
 *
 * Return: see __xa_alloc_cyclic().
 */
int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry,
		    struct xa_limit limit, u32 *next, gfp_t gfp)
{
	int ret;

	xa_lock(xa);
	ret = __xa_alloc_cyclic(xa, id, entry, limit, next, gfp);
	xa_unlock(xa);
	return ret;
}
