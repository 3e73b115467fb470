/* SPDX-License-Identifier: MIT */
/*
 * kcompat: the kernel's range allocator (<drm/drm_mm.h>) for the command
 * processor's files built into userspace (vgpu_vram.c allocates device
 * memory with it).
 *
 * Where a node lands decides the simulation's results, so placement is the
 * kernel's (Linux 6.12), hole for hole: DRM_MM_INSERT_BEST takes the
 * smallest hole that fits and, among holes of equal size, the one that
 * became a hole last, then tries bigger (or older) ones; LOW and HIGH take
 * the lowest and highest hole in address order; EVICT the most recently
 * made hole. drivers/gpu/drm/vgpu/tests/vgpu_kcompat_cases.h checks this
 * against the kernel.
 * Not reproduced: which hole LOW or HIGH with %DRM_MM_INSERT_ONCE tries
 * (drm_mm.c). Eviction scanning (drm_mm_scan_*) and the interval tree
 * lookups are not provided.
 */
#ifndef VGPU_KCOMPAT_DRM_DRM_MM_H
#define VGPU_KCOMPAT_DRM_DRM_MM_H

#include <linux/types.h>

/**
 * enum drm_mm_insert_mode - where drm_mm_insert_node_in_range() looks.
 * @DRM_MM_INSERT_BEST: smallest hole that fits; bottom of it.
 * @DRM_MM_INSERT_LOW: lowest hole that fits; bottom of it.
 * @DRM_MM_INSERT_HIGH: highest hole that fits; top of it.
 * @DRM_MM_INSERT_EVICT: most recently made hole that fits; bottom of it.
 * @DRM_MM_INSERT_ONCE: flag: try only the first hole of the search.
 * @DRM_MM_INSERT_HIGHEST: %DRM_MM_INSERT_HIGH | %DRM_MM_INSERT_ONCE.
 * @DRM_MM_INSERT_LOWEST: %DRM_MM_INSERT_LOW | %DRM_MM_INSERT_ONCE.
 */
enum drm_mm_insert_mode {
	DRM_MM_INSERT_BEST = 0,
	DRM_MM_INSERT_LOW,
	DRM_MM_INSERT_HIGH,
	DRM_MM_INSERT_EVICT,
	DRM_MM_INSERT_ONCE = 0x80000000u,
	DRM_MM_INSERT_HIGHEST = DRM_MM_INSERT_HIGH | DRM_MM_INSERT_ONCE,
	DRM_MM_INSERT_LOWEST = DRM_MM_INSERT_LOW | DRM_MM_INSERT_ONCE,
};

struct drm_mm;

/**
 * struct drm_mm_node - an allocated range; zero it before inserting.
 * @color: opaque driver tag, passed to &drm_mm.color_adjust.
 * @start: first address of the range.
 * @size: bytes.
 *
 * The other fields are the allocator's.
 */
struct drm_mm_node {
	unsigned long color;
	u64 start;
	u64 size;
	/* private: */
	struct drm_mm *mm;
	/* All nodes by address, a ring through &drm_mm.head_node. */
	struct drm_mm_node *node_prev;
	struct drm_mm_node *node_next;
	/* Nodes followed by a hole, newest hole first (EVICT's order). */
	struct drm_mm_node *stack_prev;
	struct drm_mm_node *stack_next;
	/* Bytes of the hole after this node, 0 for none. */
	u64 hole_size;
	/* When the hole was made: orders equal-size holes for BEST. */
	u64 hole_seq;
	unsigned long flags;
#define DRM_MM_NODE_ALLOCATED_BIT	0
};

/**
 * struct drm_mm - a range allocator.
 * @color_adjust: optional; narrows a hole's [*start, *end) for a node of
 *	colour @color placed after @node.
 *
 * The other fields are private. @head_node is the node "before" the
 * managed range: its start is the range's end and its size minus the
 * range's size, so the first hole is simply the hole after it.
 */
struct drm_mm {
	void (*color_adjust)(const struct drm_mm_node *node, unsigned long color,
			     u64 *start, u64 *end);
	/* private: */
	struct drm_mm_node head_node;
	struct drm_mm_node *stack_top;
	/*
	 * The holes twice over (the nodes they follow): @by_size largest
	 * first, equal sizes oldest first, which is the in-order walk of the
	 * kernel's size rbtree; @by_addr by address.
	 */
	struct drm_mm_node **by_size;
	struct drm_mm_node **by_addr;
	size_t nr_holes;
	size_t holes_cap;
	size_t nr_nodes;
	u64 hole_seq;
};

/**
 * drm_mm_node_allocated() - whether @node is in an allocator.
 * @node: the node.
 *
 * Return: true between a successful insert or reserve and the remove.
 */
static inline bool drm_mm_node_allocated(const struct drm_mm_node *node)
{
	return node->flags & (1UL << DRM_MM_NODE_ALLOCATED_BIT);
}

/**
 * drm_mm_initialized() - whether drm_mm_init() has been called on @mm.
 * @mm: the allocator, zeroed before its drm_mm_init().
 *
 * Return: true once initialised (still true after drm_mm_takedown()).
 */
static inline bool drm_mm_initialized(const struct drm_mm *mm)
{
	return mm->head_node.mm != NULL;
}

/**
 * drm_mm_clean() - whether @mm holds no node.
 * @mm: the allocator.
 *
 * Return: true when every node has been removed.
 */
static inline bool drm_mm_clean(const struct drm_mm *mm)
{
	return mm->head_node.node_next == &mm->head_node;
}

/**
 * drm_mm_for_each_node - every node of @mm in address order.
 * @entry: &struct drm_mm_node cursor; must not be removed in the body.
 * @mm: the allocator.
 */
#define drm_mm_for_each_node(entry, mm) \
	for ((entry) = (mm)->head_node.node_next; (entry) != &(mm)->head_node; \
	     (entry) = (entry)->node_next)

void drm_mm_init(struct drm_mm *mm, u64 start, u64 size);
void drm_mm_takedown(struct drm_mm *mm);
int drm_mm_reserve_node(struct drm_mm *mm, struct drm_mm_node *node);
int drm_mm_insert_node_in_range(struct drm_mm *mm, struct drm_mm_node *node,
				u64 size, u64 alignment, unsigned long color,
				u64 range_start, u64 range_end,
				enum drm_mm_insert_mode mode);
void drm_mm_remove_node(struct drm_mm_node *node);

/**
 * drm_mm_insert_node_generic() - insert @node anywhere in @mm.
 * @mm: the allocator.
 * @node: zeroed node.
 * @size: bytes, non-zero.
 * @alignment: of the start, 0 or 1 for none.
 * @color: stored in @node.
 * @mode: search and placement.
 *
 * Return: 0 or -ENOSPC.
 */
static inline int drm_mm_insert_node_generic(struct drm_mm *mm,
					     struct drm_mm_node *node,
					     u64 size, u64 alignment,
					     unsigned long color,
					     enum drm_mm_insert_mode mode)
{
	return drm_mm_insert_node_in_range(mm, node, size, alignment, color,
					   0, U64_MAX, mode);
}

/**
 * drm_mm_insert_node() - insert @node in the smallest hole that fits.
 * @mm: the allocator.
 * @node: zeroed node.
 * @size: bytes, non-zero.
 *
 * Return: 0 or -ENOSPC.
 */
static inline int drm_mm_insert_node(struct drm_mm *mm, struct drm_mm_node *node,
				     u64 size)
{
	return drm_mm_insert_node_generic(mm, node, size, 0, 0,
					  DRM_MM_INSERT_BEST);
}

#endif /* VGPU_KCOMPAT_DRM_DRM_MM_H */
