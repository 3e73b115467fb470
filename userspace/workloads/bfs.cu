/*
 * bfs.cu - level-synchronous breadth-first search over a graph in CSR form.
 *
 * Stands for Rodinia "bfs" (BFS in Table 5.3, class MEM): irregular,
 * data-dependent gathers through the adjacency lists and divergence on the
 * frontier test. The host relaunches the two kernels once per level until
 * no node joined the frontier:
 *   bfs_expand  every frontier node labels its unvisited neighbours with
 *               level + 1 and marks them for the next frontier;
 *   bfs_update  the marked nodes become the frontier and visited, and
 *               *more is set.
 * All writers of a node write the same values, so the result is exact.
 */
extern "C" __global__ void bfs_expand(const unsigned int *rowptr,
				      const unsigned int *cols,
				      unsigned int *frontier,
				      unsigned int *next,
				      const unsigned int *visited,
				      unsigned int *cost, unsigned int n)
{
	unsigned int v = blockIdx.x * blockDim.x + threadIdx.x;

	if (v >= n || !frontier[v])
		return;
	frontier[v] = 0;
	for (unsigned int e = rowptr[v]; e < rowptr[v + 1]; e++) {
		unsigned int w = cols[e];

		if (!visited[w]) {
			cost[w] = cost[v] + 1;
			next[w] = 1;
		}
	}
}

extern "C" __global__ void bfs_update(unsigned int *frontier, unsigned int *next,
				      unsigned int *visited, unsigned int *more,
				      unsigned int n)
{
	unsigned int v = blockIdx.x * blockDim.x + threadIdx.x;

	if (v < n && next[v]) {
		frontier[v] = 1;
		visited[v] = 1;
		next[v] = 0;
		*more = 1;
	}
}
