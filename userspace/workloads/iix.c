// SPDX-License-Identifier: MIT
/*
 * iix: the map phase of an inverted index over n documents of DOC_BYTES
 * bytes of text each (iix.cu), one thread per document. Stands for IIX
 * (Kayiran et al. Sec. 3.1, Table 2): per-thread sequential scans whose L1
 * reuse the other blocks of the SM evict. The text is words of 1 to 11
 * lowercase letters separated by one or two spaces; the reference hashes
 * and counts as the kernel does (32-bit unsigned arithmetic): bit-exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

/*
 * One 128-byte line per document: a warp's 32 documents are 32 lines on
 * the 32 different sets of fermi's 16 KB 4-way L1, which holds the lines
 * of four warps (two blocks of BLOCK threads).
 */
#define DOC_BYTES	128u
#define NBUCKETS	1024u
#define BLOCK		64u

static void iix_text(unsigned char *text, size_t bytes, uint64_t seed)
{
	size_t i = 0;

	while (i < bytes) {
		uint32_t len = 1 + workload_randn(&seed, 11);
		uint32_t gap = 1 + workload_randn(&seed, 2);

		for (uint32_t k = 0; k < len && i < bytes; k++)
			text[i++] = (unsigned char)('a' + workload_randn(&seed, 26));
		for (uint32_t k = 0; k < gap && i < bytes; k++)
			text[i++] = ' ';
	}
}

/* What iix_map does for document @doc. */
static void iix_ref(const unsigned char *doc, uint32_t *words, uint32_t *sig,
		    uint32_t *postings)
{
	uint32_t h = 2166136261u, len = 0, nw = 0, sum = 0;

	for (uint32_t i = 0; i <= DOC_BYTES; i++) {
		uint32_t c = i < DOC_BYTES ? doc[i] : ' ';

		if (c != ' ') {
			h = (h ^ c) * 16777619u;
			len++;
			continue;
		}
		if (len) {
			nw++;
			sum += h;
			if ((h & 15u) == 0)
				postings[(h >> 4) % NBUCKETS]++;
		}
		h = 2166136261u;
		len = 0;
	}
	*words = nw;
	*sig = sum;
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_iix;

static int iix_run(struct vgpu_device *dev, const struct workload_args *args,
		   struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t n = (uint32_t)args->size, doc_words = DOC_BYTES / 4, nbuckets = NBUCKETS;
	size_t text_bytes = (size_t)n * DOC_BYTES;
	uint64_t sizes[4] = { text_bytes, (uint64_t)n * 4, (uint64_t)n * 4, NBUCKETS * 4 };
	uint32_t *words = NULL, *sig = NULL, postings[NBUCKETS] = { 0 };
	unsigned char *text;	/* the device reads it as little-endian words */
	struct workload_ctx w;
	vgpu_deviceptr d[4];
	int ret;

	ret = workload_size_check(&workload_iix, args->size, msg, msglen);
	if (ret)
		return ret;
	text = malloc(text_bytes);
	words = malloc((size_t)n * 4);
	sig = malloc((size_t)n * 4);
	if (!text || !words || !sig) {
		snprintf(msg, msglen, "out of memory");
		ret = -ENOMEM;
		goto out_host;
	}
	ret = workload_open(&w, dev, "iix", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, 4);
	if (ret)
		goto out;
	iix_text(text, text_bytes, args->seed);
	ret = workload_htod(&w, d[0], text, text_bytes);
	if (!ret)
		ret = workload_memset(&w, d[3], 0, NBUCKETS * 4);
	if (!ret)
		ret = workload_go(&w, "iix_map", (n + BLOCK - 1) / BLOCK, 1, BLOCK, 1, 0,
				  WORKLOAD_ARGS(&d[0], &d[1], &d[2], &d[3], &n, &doc_words,
						&nbuckets));
	if (ret)
		goto out;

	for (uint32_t i = 0; i < n; i++)
		iix_ref(text + (size_t)i * DOC_BYTES, &words[i], &sig[i], postings);
	ret = workload_check_u32(&w, "words", d[1], words, n);
	if (!ret)
		ret = workload_check_u32(&w, "sig", d[2], sig, n);
	if (!ret)
		ret = workload_check_u32(&w, "postings", d[3], postings, NBUCKETS);
out:
	workload_close(&w);
out_host:
	free(text);
	free(words);
	free(sig);
	return ret;
}

const struct vgpu_workload workload_iix = {
	.name = "iix",
	.paper = "Kayiran et al. IIX (Mars inverted index): per-thread text scans thrashing the L1",
	.cls = "MEM",
	.kernels = "iix_map",
	.small_size = 512,
	.medium_size = 8192,
	.default_size = 32768,
	.large_size = 262144,
	.size_unit = "documents",
	.max_size = 1u << 20,
	.limits = (const struct vgpu_workload_limit[]){
		{ "iix_map", { LIM_TBS, LIM_TBS, LIM_TBS, LIM_REGS, LIM_REGS } },
		{ NULL },
	},
	.run = iix_run,
};
