// SPDX-License-Identifier: MIT
/*
 * The workload suite's registry and the helpers its members share.
 */
#include "workload.h"

#include "compiler/vgpu_compile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct vgpu_workload workload_saxpy;
extern const struct vgpu_workload workload_reduce;
extern const struct vgpu_workload workload_histogram;
extern const struct vgpu_workload workload_vectoradd;
extern const struct vgpu_workload workload_stream;
extern const struct vgpu_workload workload_transpose;
extern const struct vgpu_workload workload_sgemm;
extern const struct vgpu_workload workload_compact;
extern const struct vgpu_workload workload_lud;
extern const struct vgpu_workload workload_bfs;
extern const struct vgpu_workload workload_scan;
extern const struct vgpu_workload workload_spmv;
extern const struct vgpu_workload workload_blackscholes;
extern const struct vgpu_workload workload_nbody;
extern const struct vgpu_workload workload_cp;
extern const struct vgpu_workload workload_hotspot;
extern const struct vgpu_workload workload_stencil3d;
extern const struct vgpu_workload workload_conv1d;
extern const struct vgpu_workload workload_kmeans;
extern const struct vgpu_workload workload_nw;
extern const struct vgpu_workload workload_backprop;
extern const struct vgpu_workload workload_srad;
extern const struct vgpu_workload workload_pathfinder;
extern const struct vgpu_workload workload_sortnet;
extern const struct vgpu_workload workload_fdtd2d;
extern const struct vgpu_workload workload_gaussian;
extern const struct vgpu_workload workload_mandel;
extern const struct vgpu_workload workload_regbank;
extern const struct vgpu_workload workload_ifetch;
extern const struct vgpu_workload workload_iix;
extern const struct vgpu_workload workload_pvc;
extern const struct vgpu_workload workload_kmrow;

/* The suite, in the order vgpu list and vgpu run --all show it. */
const struct vgpu_workload *const vgpu_workloads[] = {
	&workload_saxpy,
	&workload_reduce,
	&workload_histogram,
	&workload_vectoradd,
	&workload_stream,
	&workload_transpose,
	&workload_sgemm,
	&workload_compact,
	&workload_lud,
	&workload_bfs,
	&workload_scan,
	&workload_spmv,
	&workload_blackscholes,
	&workload_nbody,
	&workload_cp,
	&workload_hotspot,
	&workload_stencil3d,
	&workload_conv1d,
	&workload_kmeans,
	&workload_nw,
	&workload_backprop,
	&workload_srad,
	&workload_pathfinder,
	&workload_sortnet,
	&workload_fdtd2d,
	&workload_gaussian,
	&workload_mandel,
	&workload_regbank,
	&workload_ifetch,
	&workload_iix,
	&workload_pvc,
	&workload_kmrow,
	NULL,
};

unsigned int workload_compile_opts;

const struct vgpu_workload *vgpu_workload_find(const char *name)
{
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++) {
		if (strcmp((*w)->name, name) == 0)
			return *w;
	}
	return NULL;
}

/* Size 0 asks a run for the default size, so it is never a size taken. */
static uint64_t size_floor(const struct vgpu_workload *w)
{
	return w->min_size ? w->min_size : 1;
}

static uint64_t size_cap(const struct vgpu_workload *w)
{
	return w->max_size ? w->max_size : UINT64_MAX;
}

static uint64_t size_step(const struct vgpu_workload *w)
{
	return w->size_step ? w->size_step : 1;
}

bool workload_size_takes(const struct vgpu_workload *w, uint64_t n)
{
	return n >= size_floor(w) && n <= size_cap(w) && n % size_step(w) == 0 &&
	       (!w->size_pow2 || (n & (n - 1)) == 0);
}

/*
 * The smallest size from @n up that is at least @min_size, a multiple of
 * the step and, where asked, a power of two, whatever @max_size says; 0
 * past 2^64.
 */
static uint64_t size_up(const struct vgpu_workload *w, uint64_t n)
{
	uint64_t step = size_step(w);

	if (n < size_floor(w))
		n = size_floor(w);
	if (!w->size_pow2) {
		if (n % step == 0)
			return n;
		return n / step < UINT64_MAX / step ? (n / step + 1) * step : 0;
	}
	for (uint64_t p = 1; p; p <<= 1) {
		if (p >= n && p % step == 0)
			return p;
	}
	return 0;
}

/* The largest size from @n down that @w takes; 0 when none. */
static uint64_t size_down(const struct vgpu_workload *w, uint64_t n)
{
	uint64_t step = size_step(w), p;

	if (n > size_cap(w))
		n = size_cap(w);
	if (!w->size_pow2) {
		p = n / step * step;
		return p >= size_floor(w) ? p : 0;
	}
	for (p = n ? UINT64_C(1) << (63 - __builtin_clzll(n)) : 0; p >= size_floor(w) && p;
	     p >>= 1) {
		if (p % step == 0)
			return p;
	}
	return 0;
}

uint64_t workload_size_lowest(const struct vgpu_workload *w)
{
	uint64_t n = size_up(w, 1);

	return n <= size_cap(w) ? n : 0;
}

uint64_t workload_size_highest(const struct vgpu_workload *w)
{
	return size_down(w, UINT64_MAX);
}

uint64_t workload_size_above(const struct vgpu_workload *w, uint64_t n)
{
	uint64_t up = n < UINT64_MAX ? size_up(w, n + 1) : 0;

	return up <= size_cap(w) ? up : 0;
}

uint64_t workload_size_round_up(const struct vgpu_workload *w, uint64_t n)
{
	uint64_t lo = workload_size_lowest(w), hi = workload_size_highest(w);

	if (!lo || !hi)
		return 0;
	if (n <= lo)
		return lo;
	if (n >= hi)
		return hi;
	/* lo < n < hi: a size above exists */
	return size_up(w, n);
}

void workload_size_describe(const struct vgpu_workload *w, char *buf, size_t len)
{
	uint64_t lo = workload_size_lowest(w), hi = workload_size_highest(w);
	char kind[64] = "sizes ";

	if (!lo || !hi) {
		snprintf(buf, len, "no size");
		return;
	}
	if (w->size_pow2 && size_step(w) > 1)
		snprintf(kind, sizeof(kind), "powers of two, multiples of %" PRIu64 ", ",
			 size_step(w));
	else if (w->size_pow2)
		snprintf(kind, sizeof(kind), "powers of two ");
	else if (size_step(w) > 1)
		snprintf(kind, sizeof(kind), "multiples of %" PRIu64 " ", size_step(w));
	if (w->max_size)
		snprintf(buf, len, "%sfrom %" PRIu64 " to %" PRIu64, kind, lo, hi);
	else
		snprintf(buf, len, "%sfrom %" PRIu64 " up", kind, lo);
}

int workload_size_check(const struct vgpu_workload *w, uint64_t n, char *msg, size_t msglen)
{
	char takes[128];

	if (workload_size_takes(w, n))
		return 0;
	workload_size_describe(w, takes, sizeof(takes));
	snprintf(msg, msglen, "size %" PRIu64 " (%s) refused: %s takes %s", n,
		 w->size_unit ? w->size_unit : "elements", w->name, takes);
	return -EINVAL;
}

const struct vgpu_embedded_ptx *workload_ptx(const char *name)
{
	for (const struct vgpu_embedded_ptx *p = vgpu_workload_ptx; p->name; p++) {
		if (strcmp(p->name, name) == 0)
			return p;
	}
	return NULL;
}

/* The runtime's message of the call that failed with @ret, after @what. */
static int fail(struct workload_ctx *w, int ret, const char *what)
{
	snprintf(w->msg, w->msglen, "%s: %s", what,
		 vgpu_last_error()[0] ? vgpu_last_error() : strerror(-ret));
	return ret;
}

int workload_open(struct workload_ctx *w, struct vgpu_device *dev, const char *name,
		  struct workload_result *res, char *msg, size_t msglen)
{
	const struct vgpu_embedded_ptx *ptx = workload_ptx(name);
	int ret;

	memset(w, 0, sizeof(*w));
	w->res = res;
	w->msg = msg;
	w->msglen = msglen;
	if (!ptx) {
		snprintf(msg, msglen, "no PTX for workload '%s'", name);
		return -ENOENT;
	}
	ret = vgpu_ctx_create(dev, &w->ctx);
	if (ret)
		return fail(w, ret, "context");
	ret = vgpu_module_load_data_opts(w->ctx, ptx->text, ptx->len, workload_compile_opts,
					 &w->mod);
	if (ret == -EINVAL && (workload_compile_opts & VGPU_COMPILE_VIRTUAL_TB) &&
	    strstr(vgpu_last_error(), "virtual thread blocks: ")) {
		/* refused: the original kernels run, and the result line says why */
		snprintf(msg, msglen, "%s.ptx: %s", name, vgpu_last_error());
		ret = vgpu_module_load_data(w->ctx, ptx->text, ptx->len, &w->mod);
	}
	if (ret) {
		char what[64];

		snprintf(what, sizeof(what), "loading %s.ptx", name);
		fail(w, ret, what);
		workload_close(w);
	}
	return ret;
}

void workload_close(struct workload_ctx *w)
{
	vgpu_ctx_destroy(w->ctx);
	w->ctx = NULL;
	w->mod = NULL;
}

int workload_alloc(struct workload_ctx *w, vgpu_deviceptr *d, const uint64_t *sizes,
		   unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int ret = vgpu_mem_alloc(w->ctx, sizes[i], &d[i]);

		if (ret)
			return fail(w, ret, "device memory");
	}
	return 0;
}

int workload_htod(struct workload_ctx *w, vgpu_deviceptr dst, const void *src, size_t bytes)
{
	int ret = vgpu_memcpy_htod(w->ctx, dst, src, bytes);

	return ret ? fail(w, ret, "copy to the device") : 0;
}

int workload_dtoh(struct workload_ctx *w, void *dst, vgpu_deviceptr src, size_t bytes)
{
	int ret = vgpu_memcpy_dtoh(w->ctx, dst, src, bytes);

	return ret ? fail(w, ret, "copy from the device") : 0;
}

int workload_memset(struct workload_ctx *w, vgpu_deviceptr dst, uint8_t value, size_t bytes)
{
	int ret = vgpu_memset_d8(w->ctx, dst, value, bytes);

	return ret ? fail(w, ret, "memset") : 0;
}

int workload_go(struct workload_ctx *w, const char *kernel, uint32_t gx, uint32_t gy,
		uint32_t bx, uint32_t by, uint32_t dyn, void **args, unsigned int nargs)
{
	struct vgpu_function *f;
	struct vgpu_job_result jr;
	int ret = vgpu_module_get_function(w->mod, kernel, &f);

	if (!ret)
		ret = vgpu_launch_kernel(f, gx, gy, 1, bx, by, 1, dyn, NULL, args, nargs);
	if (!ret)
		ret = vgpu_ctx_last_result(w->ctx, &jr);
	if (ret)
		return fail(w, ret, kernel);
	w->res->launches++;
	w->res->cycles += jr.cycles;
	w->res->warp_insts += jr.warp_insts;
	w->res->tbs += jr.tbs_done;
	return 0;
}

/* @n results at @got copied from the device and compared, 32-bit words or floats. */
static int check(struct workload_ctx *w, const char *what, vgpu_deviceptr got,
		 const void *want, size_t n, bool f32)
{
	void *buf = malloc(n ? n * 4 : 1);
	int ret;

	if (!buf) {
		snprintf(w->msg, w->msglen, "out of memory");
		return -ENOMEM;
	}
	ret = workload_dtoh(w, buf, got, n * 4);
	if (!ret && f32)
		ret = workload_cmp_f32(what, buf, want, n, w->msg, w->msglen);
	else if (!ret)
		ret = workload_cmp_u32(what, buf, want, n, w->msg, w->msglen);
	free(buf);
	return ret;
}

int workload_check_u32(struct workload_ctx *w, const char *what, vgpu_deviceptr got,
		       const uint32_t *want, size_t n)
{
	return check(w, what, got, want, n, false);
}

int workload_check_f32(struct workload_ctx *w, const char *what, vgpu_deviceptr got,
		       const float *want, size_t n)
{
	return check(w, what, got, want, n, true);
}

uint64_t workload_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

float workload_randf(uint64_t *state)
{
	return (float)((int32_t)(workload_rand(state) >> 40) - (1 << 23)) /
	       (float)(1 << 23);
}

uint32_t workload_nearest(const float *p, const float *centres, uint32_t k, uint32_t f)
{
	float best_d = 3.402823466e38f;
	uint32_t best = 0;

	for (uint32_t j = 0; j < k; j++) {
		float dist = 0.0f;

		for (uint32_t i = 0; i < f; i++) {
			float diff = p[i] - centres[(size_t)j * f + i];

			dist = fmaf(diff, diff, dist);
		}
		if (dist < best_d) {
			best_d = dist;
			best = j;
		}
	}
	return best;
}

uint32_t workload_randn(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((workload_rand(state) >> 32) * n) >> 32);
}

int workload_cmp_u32(const char *what, const uint32_t *got, const uint32_t *want,
		     size_t n, char *msg, size_t msglen)
{
	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			snprintf(msg, msglen, "%s[%zu] = %u, expected %u", what, i,
				 got[i], want[i]);
			return -EBADMSG;
		}
	}
	return 0;
}

int workload_cmp_f32(const char *what, const float *got, const float *want,
		     size_t n, char *msg, size_t msglen)
{
	for (size_t i = 0; i < n; i++) {
		if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
			snprintf(msg, msglen, "%s[%zu] = %a, expected %a", what, i,
				 (double)got[i], (double)want[i]);
			return -EBADMSG;
		}
	}
	return 0;
}
