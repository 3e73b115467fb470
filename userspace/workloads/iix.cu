/*
 * iix.cu - the map phase of building an inverted index over documents.
 *
 * Stands for IIX (Mars "inverted index", Kayiran et al. Sec. 3.1 and Table
 * 2, a Type-M application whose throughput falls as more blocks share an
 * SM). Each thread owns one document of doc_words 32-bit words of text
 * and scans it a word (four characters) at a time, hashing its words
 * (FNV-1a; a space ends a word, so does the end of the document). The
 * documents lie one after the other, a line or more each, so a warp's
 * load touches 32 lines, one per thread: the next 7 loads of each thread
 * (a 32-byte sector) hit only if those lines stay in the L1 while the
 * other warps of the SM load theirs - with more blocks per SM they do not.
 *
 * Per document the kernel writes its word count and the sum of its word
 * hashes; words of the indexed vocabulary (low 4 bits of the hash zero,
 * about one in 16) add a posting to their hash bucket with an atomic.
 */
#define IIX_FNV_BASIS	2166136261u
#define IIX_FNV_PRIME	16777619u

extern "C" __global__ void iix_map(const unsigned int *text, unsigned int *words,
				   unsigned int *sig, unsigned int *postings,
				   unsigned int ndocs, unsigned int doc_words,
				   unsigned int nbuckets)
{
	unsigned int d = blockIdx.x * blockDim.x + threadIdx.x;
	const unsigned int *doc = text + (size_t)d * doc_words;
	unsigned int h = IIX_FNV_BASIS, len = 0, nw = 0, sum = 0;

	if (d >= ndocs)
		return;
	/* one past the end: a space that ends the last word */
	for (unsigned int i = 0; i <= doc_words; i++) {
		unsigned int four = i < doc_words ? doc[i] : 0x20202020u;

		for (int k = 0; k < 4; k++) {
			unsigned int c = four >> (8 * k) & 0xffu;

			if (c != ' ') {
				h = (h ^ c) * IIX_FNV_PRIME;
				len++;
				continue;
			}
			if (len) {
				nw++;
				sum += h;
				if ((h & 15u) == 0)
					atomicAdd(&postings[(h >> 4) % nbuckets], 1u);
			}
			h = IIX_FNV_BASIS;
			len = 0;
		}
	}
	words[d] = nw;
	sig[d] = sum;
}
