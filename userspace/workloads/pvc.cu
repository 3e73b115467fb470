/*
 * pvc.cu - page view count over a web server log.
 *
 * Stands for PVC (Mars "page view count", Kayiran et al. Sec. 3.1 and Table
 * 2, a Type-M application whose throughput falls as more blocks share an
 * SM). The log is 32-byte text records, "time page status user...\n" with
 * a hex timestamp, a decimal page number and an HTTP status of variable
 * length, each followed by one space. Each thread owns recs_per_thread
 * consecutive records and parses them byte by byte, a field up to its
 * space, so a warp's load touches 32 lines, one per thread, and the
 * thread's next loads (each after the previous one's byte is known) hit
 * only while those lines stay in the L1 - with more blocks on the SM,
 * their loads evict them first. A view (status 200) is counted for its
 * page; consecutive views of one page are combined into one atomic add.
 */
#define PVC_RECORD	32u

/* Parses a decimal field at *p up to its space; leaves *p after it. */
__device__ static unsigned int pvc_field(const unsigned char **p)
{
	const unsigned char *q = *p;
	unsigned int v = 0, c;

	while ((c = *q++) != ' ')
		v = v * 10u + (c - '0');
	*p = q;
	return v;
}

extern "C" __global__ void pvc_count(const unsigned char *log, unsigned int *views,
				     unsigned int nthreads, unsigned int recs_per_thread,
				     unsigned int npages)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned char *rec = log + (size_t)t * recs_per_thread * PVC_RECORD;
	unsigned int cur = 0, cnt = 0;

	if (t >= nthreads)
		return;
	for (unsigned int r = 0; r < recs_per_thread; r++, rec += PVC_RECORD) {
		const unsigned char *p = rec;
		unsigned int page, status;

		while (*p++ != ' ')
			;	/* the timestamp */
		page = pvc_field(&p) % npages;
		status = pvc_field(&p);
		if (status != 200u)
			continue;
		if (cnt && page != cur) {
			atomicAdd(&views[cur], cnt);
			cnt = 0;
		}
		cur = page;
		cnt++;
	}
	if (cnt)
		atomicAdd(&views[cur], cnt);
}
