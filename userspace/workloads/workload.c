// SPDX-License-Identifier: MIT
/*
 * The workload suite's registry and the helpers its members share.
 */
#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

extern const struct vgpu_workload workload_saxpy;
extern const struct vgpu_workload workload_reduce;
extern const struct vgpu_workload workload_histogram;

const struct vgpu_workload *const vgpu_workloads[] = {
	&workload_saxpy,
	&workload_reduce,
	&workload_histogram,
	NULL,
};

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
	ret = vgpu_program_create_ptx(dev, ptx->text, ptx->len, prog, err, sizeof(err));
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
		snprintf(msg, msglen, "job failed on the device: %s",
			 strerror(-jr.error));
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
