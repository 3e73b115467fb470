// SPDX-License-Identifier: MIT
/*
 * The workload suite's registry and the helpers its members share.
 */
#include "workload.h"

#include "compiler/vgpu_compile.h"

#include <errno.h>
#include <stdio.h>
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

const struct vgpu_embedded_ptx *workload_ptx(const char *name)
{
	for (const struct vgpu_embedded_ptx *p = vgpu_workload_ptx; p->name; p++) {
		if (strcmp(p->name, name) == 0)
			return p;
	}
	return NULL;
}

int workload_load(struct vgpu_device *dev, const char *name, const char *entry,
		  struct vgpu_program **prog, uint32_t *entry_index,
		  char *msg, size_t msglen)
{
	const struct vgpu_embedded_ptx *ptx = workload_ptx(name);
	char err[256] = "";
	int ret;

	if (!ptx) {
		snprintf(msg, msglen, "no PTX for workload '%s'", name);
		return -ENOENT;
	}
	ret = vgpu_program_create_ptx_opts(dev, ptx->text, ptx->len, workload_compile_opts, prog,
					   err, sizeof(err));
	if (ret == -EINVAL && (workload_compile_opts & VGPU_COMPILE_VIRTUAL_TB) &&
	    strstr(err, "virtual thread blocks: ")) {
		/* refused: the original kernels run, and the result line says why */
		snprintf(msg, msglen, "%s.ptx: %s", name, err);
		ret = vgpu_program_create_ptx(dev, ptx->text, ptx->len, prog, err, sizeof(err));
	}
	if (ret) {
		snprintf(msg, msglen, "loading %s.ptx: %s", name,
			 err[0] ? err : strerror(-ret));
		return ret;
	}
	ret = vgpu_program_find_entry(*prog, entry, entry_index);
	if (ret) {
		snprintf(msg, msglen, "%s.ptx has no entry '%s'", name, entry);
		vgpu_program_destroy(*prog);
		*prog = NULL;
	}
	return ret;
}

int workload_launch(struct vgpu_device *dev, struct vgpu_program *prog,
		    const struct vgpu_launch *launch, struct workload_result *res,
		    char *msg, size_t msglen)
{
	struct vgpu_job_result jr;
	int ret = vgpu_run(dev, prog, launch, &jr);

	if (ret) {
		snprintf(msg, msglen, "launch failed: %s", strerror(-ret));
		return ret;
	}
	if (jr.error) {
		char why[160];

		snprintf(msg, msglen, "job failed on the device: %s",
			 vgpu_job_describe(&jr, prog, launch->entry, why, sizeof(why)));
		return jr.error;
	}
	res->launches++;
	res->cycles += jr.cycles;
	res->warp_insts += jr.warp_insts;
	res->tbs += jr.tbs_done;
	return 0;
}

uint64_t workload_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int workload_alloc(struct vgpu_device *dev, struct vgpu_bo **bos,
		   const uint64_t *sizes, unsigned int n, char *msg, size_t msglen)
{
	for (unsigned int i = 0; i < n; i++) {
		int ret = vgpu_bo_create(dev, sizes[i], &bos[i]);

		if (ret) {
			snprintf(msg, msglen, "allocating %llu bytes: %s",
				 (unsigned long long)sizes[i], strerror(-ret));
			workload_free(bos, i);
			return ret;
		}
	}
	return 0;
}

void workload_free(struct vgpu_bo **bos, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		vgpu_bo_destroy(bos[i]);
		bos[i] = NULL;
	}
}

float workload_randf(uint64_t *state)
{
	return (float)((int32_t)(workload_rand(state) >> 40) - (1 << 23)) /
	       (float)(1 << 23);
}

uint32_t workload_randn(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((workload_rand(state) >> 32) * n) >> 32);
}

int workload_go(struct vgpu_device *dev, struct vgpu_program *prog,
		const char *entry, uint32_t gx, uint32_t gy, uint32_t bx,
		uint32_t by, uint32_t dyn, const struct vgpu_params *p,
		struct vgpu_bo *const *bos, unsigned int nbos,
		struct workload_result *res, char *msg, size_t msglen)
{
	struct vgpu_launch l = {
		.grid = { gx, gy, 1 },
		.block = { bx, by, 1 },
		.dynamic_shared = dyn,
		.params = p,
		.bos = bos,
		.num_bos = nbos,
	};
	int ret = vgpu_program_find_entry(prog, entry, &l.entry);

	if (ret) {
		snprintf(msg, msglen, "no entry '%s'", entry);
		return ret;
	}
	ret = workload_launch(dev, prog, &l, res, msg, msglen);
	if (ret) {
		size_t len = strlen(msg);

		snprintf(msg + len, msglen - len, " (%s)", entry);
	}
	return ret;
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
