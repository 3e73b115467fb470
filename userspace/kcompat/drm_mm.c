// SPDX-License-Identifier: MIT
/*
 * kcompat drm_mm: the kernel's range allocator, placing nodes exactly where
 * Linux 6.12's drm_mm.c does.
 *
 * The kernel keeps every hole (the free range after a node) in two rbtrees,
 * one by size and one by address, and a stack by age. Placement depends
 * only on the order of those trees' in-order walks, never on their shape,
 * for the searches drm_mm makes:
 *
 * - BEST walks the size tree backwards from the smallest hole that fits.
 *   The tree is ordered largest first and puts a new hole after every hole
 *   of the same size, so among equal sizes the newest hole is tried first,
 *   then older ones, then the next size up.
 * - LOW and HIGH walk the address tree up or down from the range's start or
 *   end; the subtrees they skip only hold holes too small to fit (given a
 *   &drm_mm.color_adjust that only narrows holes, as drivers' do).
 * - EVICT walks the stack, newest hole first.
 *
 * So sorted arrays with the same orders give the same answers: @by_size
 * sorted by (size descending, age ascending), where a hole's age is when it
 * was (re)made, and @by_addr sorted by address. One exception: with
 * %DRM_MM_INSERT_ONCE, LOW and HIGH try the first hole the kernel's tree
 * descent lands on, which depends on the tree's shape; here that is the
 * first hole in address order big enough for the node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/drm_mm.h>

#define NODE_ALLOCATED	(1UL << DRM_MM_NODE_ALLOCATED_BIT)

static u64 hole_start(const struct drm_mm_node *n)
{
	return n->start + n->size;
}

static u64 hole_end(const struct drm_mm_node *n)
{
	return n->node_next->start;
}

/* @a comes before @b in the kernel's size tree: bigger, or as big and older. */
static bool size_before(const struct drm_mm_node *a, const struct drm_mm_node *b)
{
	return a->hole_size > b->hole_size ||
	       (a->hole_size == b->hole_size && a->hole_seq < b->hole_seq);
}

/* Position of @n in (or for) @by_size: the holes that come before it. */
static size_t size_rank(const struct drm_mm *mm, const struct drm_mm_node *n)
{
	size_t lo = 0, hi = mm->nr_holes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (size_before(mm->by_size[mid], n))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The number of holes of at least @size bytes: a prefix of @by_size. */
static size_t fit_count(const struct drm_mm *mm, u64 size)
{
	size_t lo = 0, hi = mm->nr_holes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mm->by_size[mid]->hole_size >= size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The number of holes starting below @addr (@end false), or ending at or
 * below it (@end true). Holes are disjoint, so both orders are @by_addr's.
 */
static size_t addr_rank(const struct drm_mm *mm, u64 addr, bool end)
{
	size_t lo = 0, hi = mm->nr_holes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct drm_mm_node *h = mm->by_addr[mid];

		if (end ? hole_start(h) + h->hole_size <= addr : hole_start(h) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void array_insert(struct drm_mm_node **a, size_t n, size_t at,
			 struct drm_mm_node *node)
{
	memmove(&a[at + 1], &a[at], (n - at) * sizeof(*a));
	a[at] = node;
}

static void array_remove(struct drm_mm_node **a, size_t n, size_t at)
{
	memmove(&a[at], &a[at + 1], (n - at - 1) * sizeof(*a));
}

/*
 * Makes room for @nodes nodes' holes (a hole follows each node or the head
 * node), so that adding holes later cannot fail halfway through a change.
 */
static int reserve_holes(struct drm_mm *mm, size_t nodes)
{
	size_t cap = mm->holes_cap ? mm->holes_cap : 16;
	struct drm_mm_node **s, **a;

	if (nodes + 1 <= mm->holes_cap)
		return 0;
	while (cap < nodes + 1)
		cap *= 2;
	s = realloc(mm->by_size, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	mm->by_size = s;
	a = realloc(mm->by_addr, cap * sizeof(*a));
	if (!a)
		return -ENOMEM;
	mm->by_addr = a;
	mm->holes_cap = cap;
	return 0;
}

/* Records the hole after @n, as the newest hole. */
static void add_hole(struct drm_mm *mm, struct drm_mm_node *n)
{
	n->hole_size = hole_end(n) - hole_start(n);
	n->hole_seq = ++mm->hole_seq;
	array_insert(mm->by_size, mm->nr_holes, size_rank(mm, n), n);
	array_insert(mm->by_addr, mm->nr_holes, addr_rank(mm, hole_start(n), false), n);
	mm->nr_holes++;

	n->stack_prev = NULL;
	n->stack_next = mm->stack_top;
	if (mm->stack_top)
		mm->stack_top->stack_prev = n;
	mm->stack_top = n;
}

/* Forgets the hole after @n; @n's hole size and age must be unchanged. */
static void rm_hole(struct drm_mm *mm, struct drm_mm_node *n)
{
	array_remove(mm->by_size, mm->nr_holes, size_rank(mm, n));
	array_remove(mm->by_addr, mm->nr_holes, addr_rank(mm, hole_start(n), false));
	mm->nr_holes--;

	if (n->stack_prev)
		n->stack_prev->stack_next = n->stack_next;
	else
		mm->stack_top = n->stack_next;
	if (n->stack_next)
		n->stack_next->stack_prev = n->stack_prev;
	n->stack_prev = NULL;
	n->stack_next = NULL;
	n->hole_size = 0;
}

/* Links @node, placed at the start of @hole's hole, and splits the hole. */
static void place(struct drm_mm *mm, struct drm_mm_node *hole,
		  struct drm_mm_node *node)
{
	u64 start = hole_start(hole), end = start + hole->hole_size;

	node->mm = mm;
	node->hole_size = 0;
	node->flags |= NODE_ALLOCATED;
	node->node_prev = hole;
	node->node_next = hole->node_next;
	hole->node_next->node_prev = node;
	hole->node_next = node;
	mm->nr_nodes++;

	/* The kernel's order, which decides the new holes' ages. */
	rm_hole(mm, hole);
	if (node->start > start)
		add_hole(mm, hole);
	if (node->start + node->size < end)
		add_hole(mm, node);
}

/**
 * drm_mm_init() - set up an allocator for [@start, @start + @size).
 * @mm: the allocator, zeroed.
 * @start: first address.
 * @size: bytes; @start + @size must not wrap.
 */
void drm_mm_init(struct drm_mm *mm, u64 start, u64 size)
{
	struct drm_mm_node *head = &mm->head_node;

	mm->color_adjust = NULL;
	mm->stack_top = NULL;
	mm->nr_holes = 0;
	mm->nr_nodes = 0;
	mm->hole_seq = 0;
	memset(head, 0, sizeof(*head));
	head->mm = mm;
	head->start = start + size;
	head->size = -size;
	head->node_prev = head;
	head->node_next = head;
	if (reserve_holes(mm, 0)) {
		fprintf(stderr, "drm_mm: out of memory in drm_mm_init\n");
		abort();
	}
	add_hole(mm, head);
}

/**
 * drm_mm_takedown() - free an allocator's bookkeeping.
 * @mm: the allocator; every node should have been removed, and the ones
 *	still there are reported on stderr.
 */
void drm_mm_takedown(struct drm_mm *mm)
{
	const struct drm_mm_node *n;

	if (!drm_mm_clean(mm)) {
		fprintf(stderr, "drm_mm: memory manager not clean during takedown\n");
		drm_mm_for_each_node(n, mm)
			fprintf(stderr, "drm_mm: node [%08llx + %08llx]: leaked\n",
				(unsigned long long)n->start, (unsigned long long)n->size);
	}
	free(mm->by_size);
	free(mm->by_addr);
	mm->by_size = NULL;
	mm->by_addr = NULL;
	mm->holes_cap = 0;
	mm->nr_holes = 0;
	mm->stack_top = NULL;
}

/**
 * drm_mm_reserve_node() - insert a node at the place it names.
 * @mm: the allocator.
 * @node: node with @start, @size and @color set, everything else zero.
 *
 * Return: 0, or -ENOSPC when [start, start + size) is not inside one hole
 * (after &drm_mm.color_adjust), -ENOMEM.
 */
int drm_mm_reserve_node(struct drm_mm *mm, struct drm_mm_node *node)
{
	u64 end = node->start + node->size;
	struct drm_mm_node *hole;
	u64 adj_start, adj_end;
	size_t i;

	if (end <= node->start)
		return -ENOSPC;
	/* The first hole ending after node->start must hold it. */
	i = addr_rank(mm, node->start, true);
	if (i == mm->nr_holes || hole_start(mm->by_addr[i]) > node->start)
		return -ENOSPC;
	hole = mm->by_addr[i];

	adj_start = hole_start(hole);
	adj_end = adj_start + hole->hole_size;
	if (mm->color_adjust)
		mm->color_adjust(hole, node->color, &adj_start, &adj_end);
	if (adj_start > node->start || adj_end < end)
		return -ENOSPC;
	if (reserve_holes(mm, mm->nr_nodes + 1))
		return -ENOMEM;
	place(mm, hole, node);
	return 0;
}

/*
 * The search order of the kernel's first_hole()/next_hole(): @i walks
 * @by_size down from the smallest fit (BEST), @by_addr up from the range's
 * start (LOW) or down from its end (HIGH); EVICT follows the stack.
 */
struct hole_walk {
	const struct drm_mm *mm;
	enum drm_mm_insert_mode mode;
	size_t i;
	struct drm_mm_node *at;
};

static struct drm_mm_node *walk_first(struct hole_walk *w, u64 range_start,
				      u64 range_end, u64 size, bool once)
{
	const struct drm_mm *mm = w->mm;
	size_t n;

	switch (w->mode) {
	case DRM_MM_INSERT_LOW:
		w->i = addr_rank(mm, range_start, true);
		if (once)
			while (w->i < mm->nr_holes && mm->by_addr[w->i]->hole_size < size)
				w->i++;
		w->at = w->i < mm->nr_holes ? mm->by_addr[w->i] : NULL;
		break;
	case DRM_MM_INSERT_HIGH:
		w->i = addr_rank(mm, range_end, false);
		if (once)
			while (w->i > 0 && mm->by_addr[w->i - 1]->hole_size < size)
				w->i--;
		w->at = w->i > 0 ? mm->by_addr[--w->i] : NULL;
		break;
	case DRM_MM_INSERT_EVICT:
		w->at = mm->stack_top;
		break;
	default:
		/* fit_count() >= 1: the caller checked the biggest hole. */
		n = fit_count(mm, size);
		w->i = n - 1;
		w->at = mm->by_size[w->i];
		break;
	}
	return w->at;
}

static struct drm_mm_node *walk_next(struct hole_walk *w)
{
	const struct drm_mm *mm = w->mm;

	switch (w->mode) {
	case DRM_MM_INSERT_LOW:
		w->at = ++w->i < mm->nr_holes ? mm->by_addr[w->i] : NULL;
		break;
	case DRM_MM_INSERT_HIGH:
		w->at = w->i > 0 ? mm->by_addr[--w->i] : NULL;
		break;
	case DRM_MM_INSERT_EVICT:
		w->at = w->at->stack_next;
		break;
	default:
		w->at = w->i > 0 ? mm->by_size[--w->i] : NULL;
		break;
	}
	return w->at;
}

/**
 * drm_mm_insert_node_in_range() - find a place for @node and insert it.
 * @mm: the allocator.
 * @node: zeroed node.
 * @size: bytes, non-zero.
 * @alignment: of the start (any value, not only powers of two); 0 or 1
 *	for none.
 * @color: stored in @node, passed to &drm_mm.color_adjust.
 * @range_start: lowest start allowed.
 * @range_end: highest end allowed (exclusive), at least @range_start.
 * @mode: search and placement, see &enum drm_mm_insert_mode.
 *
 * Return: 0, -ENOSPC when no hole in the range fits, -ENOMEM.
 */
int drm_mm_insert_node_in_range(struct drm_mm *mm, struct drm_mm_node *node,
				u64 size, u64 alignment, unsigned long color,
				u64 range_start, u64 range_end,
				enum drm_mm_insert_mode mode)
{
	struct hole_walk w = { .mm = mm };
	struct drm_mm_node *hole;
	bool once;

	if (size == 0 || range_end - range_start < size)
		return -ENOSPC;
	if (!mm->nr_holes || mm->by_size[0]->hole_size < size)
		return -ENOSPC;
	if (reserve_holes(mm, mm->nr_nodes + 1))
		return -ENOMEM;
	if (alignment <= 1)
		alignment = 0;
	once = (unsigned int)mode & DRM_MM_INSERT_ONCE;
	w.mode = (enum drm_mm_insert_mode)((unsigned int)mode & ~DRM_MM_INSERT_ONCE);

	for (hole = walk_first(&w, range_start, range_end, size, once); hole;
	     hole = once ? NULL : walk_next(&w)) {
		u64 start = hole_start(hole), end = start + hole->hole_size;
		u64 lo, hi, at;

		/* Past the range: no later hole in this order can be in it. */
		if (w.mode == DRM_MM_INSERT_LOW && start >= range_end)
			break;
		if (w.mode == DRM_MM_INSERT_HIGH && end <= range_start)
			break;

		if (mm->color_adjust)
			mm->color_adjust(hole, color, &start, &end);
		lo = start > range_start ? start : range_start;
		hi = end < range_end ? end : range_end;
		if (hi <= lo || hi - lo < size)
			continue;

		at = w.mode == DRM_MM_INSERT_HIGH ? hi - size : lo;
		if (alignment && at % alignment) {
			/* Up to the next boundary, or down for HIGH. */
			at -= at % alignment;
			if (w.mode != DRM_MM_INSERT_HIGH)
				at += alignment;	/* may wrap: caught below */
			if (at < lo || at >= hi || hi - at < size)
				continue;
		}

		node->size = size;
		node->start = at;
		node->color = color;
		place(mm, hole, node);
		return 0;
	}
	return -ENOSPC;
}

/**
 * drm_mm_remove_node() - take @node out of its allocator.
 * @node: an allocated node; it may be inserted again without zeroing.
 */
void drm_mm_remove_node(struct drm_mm_node *node)
{
	struct drm_mm *mm = node->mm;
	struct drm_mm_node *prev = node->node_prev;

	/* The kernel's order: the merged hole is the newest. */
	if (node->hole_size)
		rm_hole(mm, node);
	prev->node_next = node->node_next;
	node->node_next->node_prev = prev;
	node->node_prev = NULL;
	node->node_next = NULL;
	mm->nr_nodes--;
	if (prev->hole_size)
		rm_hole(mm, prev);
	add_hole(mm, prev);	/* room reserved: holes <= nodes + 1 */
	node->flags &= ~NODE_ALLOCATED;
}
