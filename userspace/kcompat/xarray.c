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
 * Index 0 of an XA_FLAGS_ALLOC1 array follows the kernel too (see take()),
 * except after the caller stores there itself: the kernel's free-index
 * summary may then hide other free indices from the allocators for a
 * while, depending on its node layout, which is not reproduced.
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

/*
 * The lowest index >= @want with nothing stored: past the run of taken
 * indices from @want. Indices are distinct and sorted, so index - position
 * never decreases and the run's end is found by bisection.
 */
static unsigned long first_gap(const struct xarray *xa, unsigned long want)
{
	size_t first = slot_rank(xa, want), lo = first, hi = xa->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (xa->slots[mid].index - (mid - first) == want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return want + (lo - first);
}

/* Room for @n more slots. */
static int slot_reserve(struct xarray *xa, size_t n)
{
	size_t cap = xa->cap ? xa->cap : 16;
	struct xa_slot *s;

	if (xa->nr + n <= xa->cap)
		return 0;
	while (cap < xa->nr + n)
		cap *= 2;
	s = realloc(xa->slots, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	xa->slots = s;
	xa->cap = cap;
	return 0;
}

/* Sets @index to @entry (not NULL); room for one more slot is reserved. */
static void slot_put(struct xarray *xa, unsigned long index, void *entry)
{
	size_t i = slot_rank(xa, index);

	if (i < xa->nr && xa->slots[i].index == index) {
		xa->slots[i].entry = entry;
		return;
	}
	memmove(&xa->slots[i + 1], &xa->slots[i], (xa->nr - i) * sizeof(*xa->slots));
	xa->slots[i].index = index;
	xa->slots[i].entry = entry;
	xa->nr++;
}

/*
 * Index 0 of an XA_FLAGS_ALLOC1 array. The kernel reserves it with an
 * XA_ZERO_ENTRY when the array grows from empty into a tree (an entry
 * stored at a non-zero index), drops that reserved entry when the tree
 * shrinks back to index 0 alone, and lets the allocators take index 0
 * once it has been erased, until something is stored there again or the
 * array is destroyed. XA_TREE says whether the kernel would have a tree;
 * XA_FREE0 whether index 0 is free for the allocators.
 */
#define XA_TREE		(1U << 30)
#define XA_FREE0	(1U << 31)

/* Whether nothing is stored at a non-zero index. */
static bool only_index0(const struct xarray *xa)
{
	return xa->nr == 0 || (xa->nr == 1 && xa->slots[0].index == 0);
}

/*
 * Stores @entry (not NULL) at @index. @taken: the allocators no longer
 * see @index as free (the kernel keeps the free mark when xa_cmpxchg()
 * replaces an entry). Return: 0 or -ENOMEM, with nothing changed.
 */
static int put(struct xarray *xa, unsigned long index, void *entry, bool taken)
{
	if (slot_reserve(xa, 2))
		return -ENOMEM;
	if ((xa->xa_flags & XA_FLAGS_ZERO_BUSY) && !(xa->xa_flags & XA_TREE)) {
		if (index) {
			xa->xa_flags |= XA_TREE;
			if (!slot_of(xa, 0))
				slot_put(xa, 0, XA_ZERO_ENTRY);
		} else if (entry == XA_ZERO_ENTRY && !slot_of(xa, 0)) {
			/* A reserved entry cannot be the root: a tree of one. */
			xa->xa_flags |= XA_TREE;
		}
	}
	slot_put(xa, index, entry);
	if (index == 0 && taken)
		xa->xa_flags &= ~XA_FREE0;
	return 0;
}

/* Erases @index; returns what was there (raw). Nothing there: no change. */
static void *take(struct xarray *xa, unsigned long index)
{
	size_t i = slot_rank(xa, index);
	void *old;

	if (i == xa->nr || xa->slots[i].index != index)
		return NULL;
	old = xa->slots[i].entry;
	memmove(&xa->slots[i], &xa->slots[i + 1], (xa->nr - i - 1) * sizeof(*xa->slots));
	xa->nr--;
	if (xa->xa_flags & XA_FLAGS_ZERO_BUSY) {
		if (index == 0)
			xa->xa_flags |= XA_FREE0;
		if ((xa->xa_flags & XA_TREE) && only_index0(xa)) {
			/* The tree shrinks to its root entry, or goes. */
			xa->xa_flags &= ~XA_TREE;
			if (xa->nr && xa->slots[0].entry == XA_ZERO_ENTRY)
				xa->nr = 0;
		}
	}
	if (!xa->nr) {
		/* An empty kernel XArray holds no memory: no xa_destroy() needed. */
		free(xa->slots);
		xa->slots = NULL;
		xa->cap = 0;
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
	xa->xa_flags = flags & ~(XA_TREE | XA_FREE0);
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
	xa->xa_flags &= ~(XA_TREE | XA_FREE0);
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
	struct xa_slot *s;
	void *curr;

	(void)gfp;
	if (xa_is_advanced(entry))
		return XA_ERROR(-EINVAL);
	if (!entry && (xa->xa_flags & XA_FLAGS_TRACK_FREE))
		entry = XA_ZERO_ENTRY;
	if (!entry)
		return zero_to_null(take(xa, index));
	s = slot_of(xa, index);
	curr = s ? s->entry : NULL;
	if (put(xa, index, entry, true))
		return XA_ERROR(-ENOMEM);
	return zero_to_null(curr);
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
	return zero_to_null(take(xa, index));
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
		if (!entry)
			take(xa, index);
		else if (put(xa, index, entry, !curr))
			return XA_ERROR(-ENOMEM);
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
	(void)gfp;
	if (xa_is_advanced(entry))
		return -EINVAL;
	if (!entry)
		entry = XA_ZERO_ENTRY;
	if (slot_of(xa, index))
		return -EBUSY;
	return put(xa, index, entry, true);
}

/**
 * __xa_alloc() - xa_alloc() with the lock held.
 * @xa: an allocating array (%XA_FLAGS_ALLOC or %XA_FLAGS_ALLOC1).
 * @id: receives the index.
 * @entry: the entry; NULL reserves the index.
 * @limit: the range; the lowest free index in it is taken (with
 *	%XA_FLAGS_ALLOC1, index 0 only after it was erased, see take()).
 * @gfp: ignored.
 *
 * Return: 0, -EBUSY when no index in @limit is free (@id untouched),
 * -EINVAL (not an allocating array, or @entry), -ENOMEM.
 */
int __xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
	       gfp_t gfp)
{
	unsigned long want = limit.min;
	int ret;

	(void)gfp;
	if (xa_is_advanced(entry) || !(xa->xa_flags & XA_FLAGS_TRACK_FREE))
		return -EINVAL;
	if (!entry)
		entry = XA_ZERO_ENTRY;
	if (want == 0 && (xa->xa_flags & XA_FLAGS_ZERO_BUSY)) {
		/* Free even while it holds the kernel's own reservation. */
		if (xa->xa_flags & XA_FREE0)
			goto found;
		want = 1;
	}
	want = first_gap(xa, want);
found:
	if (want > limit.max)
		return -EBUSY;
	ret = put(xa, want, entry, true);
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
