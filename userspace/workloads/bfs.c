// SPDX-License-Identifier: MIT
/*
 * bfs: breadth-first search from node 0 over a random graph of n nodes
 * in CSR form (bfs.cu). Each node links to its successor (so every node
 * is reachable, at depth up to n - 1 along the chain, much less through
 * the shortcuts) and to 0-7 random nodes. bfs_expand and bfs_update are
 * relaunched once per level until no node joins the frontier: the number
 * of launches depends on the graph. The levels must equal the CPU BFS's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

enum { ROWPTR, COLS, FRONTIER, NEXT, VISITED, COST, MORE, NBO };

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_bfs;

static int bfs_run(struct vgpu_device *dev, const struct workload_args *args,
		   struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, edges = 0, zero = 0;
	uint64_t seed = args->seed, sizes[NBO];
	struct workload_ctx w;
	vgpu_deviceptr d[NBO];
	uint32_t *rowptr = NULL, *cols = NULL, *init = NULL, *want = NULL, *queue = NULL;
	uint8_t *deg;
	int ret;

	ret = workload_size_check(&workload_bfs, args->size, msg, msglen);
	if (ret)
		return ret;
	deg = malloc(n);
	if (!deg)
		return -ENOMEM;
	for (uint32_t v = 0; v < n; v++) {
		deg[v] = (uint8_t)(1 + workload_randn(&seed, 8));
		edges += deg[v];
	}
	sizes[ROWPTR] = ((uint64_t)n + 1) * 4;
	sizes[COLS] = (uint64_t)edges * 4;
	sizes[FRONTIER] = sizes[NEXT] = sizes[VISITED] = sizes[COST] = (uint64_t)n * 4;
	sizes[MORE] = 4;
	rowptr = malloc(sizes[ROWPTR]);
	cols = malloc(sizes[COLS]);
	init = malloc((size_t)n * 4);
	want = malloc((size_t)n * 4);
	queue = malloc((size_t)n * 4);
	if (!rowptr || !cols || !init || !want || !queue) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "bfs", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, NBO);
	if (ret)
		goto out;
	rowptr[0] = 0;
	for (uint32_t v = 0; v < n; v++) {
		uint32_t e = rowptr[v];

		cols[e++] = (v + 1) % n;
		for (int k = 1; k < deg[v]; k++)
			cols[e++] = workload_randn(&seed, n);
		rowptr[v + 1] = e;
	}
	ret = workload_htod(&w, d[ROWPTR], rowptr, sizes[ROWPTR]);
	if (!ret)
		ret = workload_htod(&w, d[COLS], cols, sizes[COLS]);
	/* node 0 in the frontier and visited, at cost 0; the others unreached */
	memset(init, 0, (size_t)n * 4);
	init[0] = 1;
	if (!ret)
		ret = workload_htod(&w, d[FRONTIER], init, (size_t)n * 4);
	if (!ret)
		ret = workload_memset(&w, d[NEXT], 0, (size_t)n * 4);
	if (!ret)
		ret = workload_htod(&w, d[VISITED], init, (size_t)n * 4);
	memset(init, 0xff, (size_t)n * 4);
	init[0] = 0;
	if (!ret)
		ret = workload_htod(&w, d[COST], init, (size_t)n * 4);
	if (ret)
		goto out;

	for (uint32_t level = 0; ; level++) {
		uint32_t more;

		if (level > n) {
			snprintf(msg, msglen, "more than %u levels", n);
			ret = -EBADMSG;
			goto out;
		}
		ret = workload_htod(&w, d[MORE], &zero, 4);
		if (!ret)
			ret = workload_go(&w, "bfs_expand", (n + 255) / 256, 1, 256, 1, 0,
					  WORKLOAD_ARGS(&d[ROWPTR], &d[COLS], &d[FRONTIER],
							&d[NEXT], &d[VISITED], &d[COST], &n));
		if (!ret)
			ret = workload_go(&w, "bfs_update", (n + 255) / 256, 1, 256, 1, 0,
					  WORKLOAD_ARGS(&d[FRONTIER], &d[NEXT], &d[VISITED],
							&d[MORE], &n));
		if (!ret)
			ret = workload_dtoh(&w, &more, d[MORE], 4);
		if (ret)
			goto out;
		if (!more)
			break;
	}
	/* CPU BFS. */
	memset(want, 0xff, (size_t)n * 4);
	want[0] = 0;
	queue[0] = 0;
	for (uint32_t head = 0, tail = 1; head < tail; head++) {
		uint32_t v = queue[head];

		for (uint32_t e = rowptr[v]; e < rowptr[v + 1]; e++) {
			uint32_t u = cols[e];

			if (want[u] == UINT32_MAX) {
				want[u] = want[v] + 1;
				queue[tail++] = u;
			}
		}
	}
	ret = workload_check_u32(&w, "cost", d[COST], want, n);
out:
	workload_close(&w);
out_host:
	free(rowptr);
	free(cols);
	free(init);
	free(want);
	free(queue);
	free(deg);
	return ret;
}

const struct vgpu_workload workload_bfs = {
	.name = "bfs",
	.paper = "Rodinia bfs (BFS)",
	.cls = "MEM",
	.kernels = "bfs_expand bfs_update (relaunched per level)",
	.small_size = 2048,
	.medium_size = 16384,
	.default_size = 1 << 18,
	.large_size = 1 << 22,
	.size_unit = "nodes",
	.min_size = 2,
	.max_size = 1u << 24,
	.limits = (const struct vgpu_workload_limit[]){
		{ "bfs_expand", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ "bfs_update", { LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = bfs_run,
};
