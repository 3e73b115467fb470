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

static int bfs_run(struct vgpu_device *dev, const struct workload_args *args,
		   struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, edges = 0;
	uint64_t seed = args->seed, sizes[NBO];
	struct vgpu_program *prog;
	struct vgpu_bo *bo[NBO];
	struct vgpu_params pe, pu;
	uint32_t *rowptr, *cols, *want = NULL, *queue = NULL, entry;
	uint8_t *deg;
	int ret;

	if (args->size < 2 || args->size > (1u << 24)) {
		snprintf(msg, msglen, "size (nodes) must be 2 ... %u", 1u << 24);
		return -EINVAL;
	}
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
	ret = workload_load(dev, "bfs", "bfs_expand", &prog, &entry, msg, msglen);
	if (ret)
		goto out_deg;
	ret = workload_alloc(dev, bo, sizes, NBO, msg, msglen);
	if (ret)
		goto out_prog;
	want = malloc((size_t)n * 4);
	queue = malloc((size_t)n * 4);
	if (!want || !queue) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_bo;
	}
	rowptr = bo[ROWPTR]->map;
	cols = bo[COLS]->map;
	rowptr[0] = 0;
	for (uint32_t v = 0; v < n; v++) {
		uint32_t e = rowptr[v];

		cols[e++] = (v + 1) % n;
		for (int k = 1; k < deg[v]; k++)
			cols[e++] = workload_randn(&seed, n);
		rowptr[v + 1] = e;
	}
	memset(bo[FRONTIER]->map, 0, n * 4);
	memset(bo[NEXT]->map, 0, n * 4);
	memset(bo[VISITED]->map, 0, n * 4);
	memset(bo[COST]->map, 0xff, n * 4);
	((uint32_t *)bo[FRONTIER]->map)[0] = 1;
	((uint32_t *)bo[VISITED]->map)[0] = 1;
	((uint32_t *)bo[COST]->map)[0] = 0;

	vgpu_params_init(&pe);
	for (int i = ROWPTR; i <= COST; i++)
		vgpu_params_ptr(&pe, bo[i]);
	vgpu_params_u32(&pe, n);
	vgpu_params_init(&pu);
	vgpu_params_ptr(&pu, bo[FRONTIER]);
	vgpu_params_ptr(&pu, bo[NEXT]);
	vgpu_params_ptr(&pu, bo[VISITED]);
	vgpu_params_ptr(&pu, bo[MORE]);
	vgpu_params_u32(&pu, n);
	for (uint32_t level = 0; ; level++) {
		volatile uint32_t *more = bo[MORE]->map;

		if (level > n) {
			snprintf(msg, msglen, "more than %u levels", n);
			ret = -EBADMSG;
			goto out_bo;
		}
		*more = 0;
		ret = workload_go(dev, prog, "bfs_expand", (n + 255) / 256, 1, 256, 1, 0,
				  &pe, bo, NBO, res, msg, msglen);
		if (!ret)
			ret = workload_go(dev, prog, "bfs_update", (n + 255) / 256, 1, 256, 1,
					  0, &pu, bo, NBO, res, msg, msglen);
		if (ret)
			goto out_bo;
		if (!*more)
			break;
	}

	/* CPU BFS. */
	memset(want, 0xff, (size_t)n * 4);
	want[0] = 0;
	queue[0] = 0;
	for (uint32_t head = 0, tail = 1; head < tail; head++) {
		uint32_t v = queue[head];

		for (uint32_t e = rowptr[v]; e < rowptr[v + 1]; e++) {
			uint32_t w = cols[e];

			if (want[w] == UINT32_MAX) {
				want[w] = want[v] + 1;
				queue[tail++] = w;
			}
		}
	}
	ret = workload_cmp_u32("cost", bo[COST]->map, want, n, msg, msglen);
out_bo:
	free(want);
	free(queue);
	workload_free(bo, NBO);
out_prog:
	vgpu_program_destroy(prog);
out_deg:
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
	.run = bfs_run,
};
