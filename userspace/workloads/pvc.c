// SPDX-License-Identifier: MIT
/*
 * pvc: page view count over a log of 32-byte text records (pvc.cu), one
 * thread per RECS consecutive records. Stands for PVC (Kayiran et al.
 * Sec. 3.1, Table 2): per-thread sequential parsing whose L1 reuse the other
 * blocks of the SM evict. A record is "time page status user...\n": the
 * time in 1 to 8 hex digits, the page (0 ... NPAGES - 1) in decimal, the
 * status, each followed by a space, letters up to the newline. Visits come
 * in sessions (the next record views the same page with probability 5/8),
 * three in four with status 200. The counts are integers summed with
 * atomics: the table is compared exactly, whatever order they came in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define RECORD		32u	/* as pvc.cu */
/*
 * Four records, one 128-byte line, per thread: a warp's 32 chunks are 32
 * lines on the 32 different sets of fermi's 16 KB 4-way L1, which holds
 * the lines of four warps (two blocks of BLOCK threads).
 */
#define RECS		4u
#define NPAGES		10000u
#define BLOCK		64u

static void pvc_log(unsigned char *log, uint32_t nrecs, uint64_t seed)
{
	static const uint32_t other[3] = { 304, 404, 500 };
	uint32_t page = 0, time = 0;

	for (uint32_t r = 0; r < nrecs; r++) {
		char *p = (char *)log + (size_t)r * RECORD;
		uint32_t status = workload_randn(&seed, 4) ? 200 : other[workload_randn(&seed, 3)];
		int len;

		if (r == 0 || workload_randn(&seed, 8) >= 5)
			page = workload_randn(&seed, NPAGES);
		time += workload_randn(&seed, 4096);
		/* at most 8 + 1 + 4 + 1 + 3 + 1 = 18 bytes */
		len = snprintf(p, RECORD, "%x %u %u ", time, page, status);
		for (int i = len; i < (int)RECORD - 1; i++)
			p[i] = (char)('a' + workload_randn(&seed, 26));
		p[RECORD - 1] = '\n';
	}
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_pvc;

static int pvc_run(struct vgpu_device *dev, const struct workload_args *args,
		   struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, recs = RECS, npages = NPAGES;
	size_t log_bytes = (size_t)n * RECS * RECORD;
	uint64_t sizes[2] = { log_bytes, NPAGES * 4 };
	unsigned char *log;
	uint32_t *views;
	struct workload_ctx w;
	vgpu_deviceptr d[2];
	int ret;

	ret = workload_size_check(&workload_pvc, args->size, msg, msglen);
	if (ret)
		return ret;
	log = malloc(log_bytes);
	views = calloc(NPAGES, 4);
	if (!log || !views) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out_host;
	}
	ret = workload_open(&w, dev, "pvc", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 2);
	if (ret)
		goto out;
	pvc_log(log, n * RECS, args->seed);
	ret = workload_htod(&w, d[0], log, log_bytes);
	if (!ret)
		ret = workload_memset(&w, d[1], 0, NPAGES * 4);
	if (!ret)
		ret = workload_go(&w, "pvc_count", (n + BLOCK - 1) / BLOCK, 1, BLOCK, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &n, &recs, &npages));
	if (ret)
		goto out;

	/* the reference: every status-200 record is a view of its page */
	for (uint32_t r = 0; r < n * RECS; r++) {
		char rec[RECORD + 1];	/* the log has no NUL: sscanf would strlen() all of it */
		unsigned int page, status;

		memcpy(rec, log + (size_t)r * RECORD, RECORD);
		rec[RECORD] = '\0';
		if (sscanf(rec, "%*x %u %u ", &page, &status) != 2) {
			snprintf(msg, msglen, "record %u unparsable", r);
			ret = -EINVAL;
			goto out;
		}
		if (status == 200)
			views[page % NPAGES]++;
	}
	ret = workload_check_u32(&w, "views", d[1], views, NPAGES);
out:
	workload_close(&w);
out_host:
	free(log);
	free(views);
	return ret;
}

const struct vgpu_workload workload_pvc = {
	.name = "pvc",
	.paper = "Kayiran et al. PVC (Mars page view count): per-thread log parsing thrashing the L1",
	.cls = "MEM",
	.kernels = "pvc_count",
	.small_size = 512,
	.medium_size = 8192,
	.default_size = 32768,
	.large_size = 262144,
	.size_unit = "threads",
	.max_size = 1u << 20,
	.limits = (const struct vgpu_workload_limit[]){
		{ "pvc_count", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS, LIM_TBS } },
		{ NULL },
	},
	.run = pvc_run,
};
