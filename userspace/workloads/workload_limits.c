// SPDX-License-Identifier: MIT
/*
 * workload_limits.c - the registry's per-kernel limits (struct
 * vgpu_workload_limit) against what the driver's occupancy finds.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "workload.h"

/* The presets whose SMs differ (fermi-30sm is fermi-gtx480 with 30 SMs). */
const char *const vgpu_workload_limit_presets[WORKLOAD_LIMIT_PRESETS] = {
	"fermi-gtx480", "fermi-30sm", "kepler-like", "maxwell-gtx980", "volta-v100",
};

const char *workload_limit_name(enum vgpu_limit l)
{
	static const char *const names[VGPU_LIMIT_COUNT] = {
		[VGPU_LIMIT_TBS] = "tbs",
		[VGPU_LIMIT_THREADS] = "threads",
		[VGPU_LIMIT_REGS] = "regs",
		[VGPU_LIMIT_SHARED] = "shared",
		[VGPU_LIMIT_GRID] = "grid",
	};

	return (unsigned int)l < VGPU_LIMIT_COUNT ? names[l] : "?";
}

int workload_limits_measure(const struct vgpu_workload *w, const char *gpu, uint64_t size,
			    struct vgpu_kernel_limit *out, unsigned int max, unsigned int *n,
			    char *msg, size_t msglen)
{
	struct workload_args args = { .size = size, .seed = 1 };
	struct workload_result res = { 0 };
	struct vgpu_device *dev;
	int ret;

	ret = vgpu_device_open_local_preset(gpu, 0, &dev);
	if (ret) {
		snprintf(msg, msglen, "%s: local device %s: %s", w->name, gpu, vgpu_last_error());
		return ret;
	}
	ret = w->run(dev, &args, &res, msg, msglen);
	if (!ret)
		ret = vgpu_local_kernel_limits(dev, out, max, n);
	vgpu_device_close(dev);
	return ret;
}

static const struct vgpu_workload_limit *declared(const struct vgpu_workload *w,
						  const char *kernel)
{
	for (const struct vgpu_workload_limit *l = w->limits; l && l->kernel; l++)
		if (!strcmp(l->kernel, kernel))
			return l;
	return NULL;
}

int workload_limits_check(const struct vgpu_workload *w, unsigned int col,
			  const struct vgpu_kernel_limit *got, unsigned int n,
			  char *msg, size_t msglen)
{
	const char *gpu = vgpu_workload_limit_presets[col];

	for (unsigned int i = 0; i < n; i++) {
		const struct vgpu_workload_limit *d = declared(w, got[i].kernel);

		if (!d) {
			snprintf(msg, msglen, "%s on %s: kernel %s (%s, %u TBs per SM) is not declared",
				 w->name, gpu, got[i].kernel, workload_limit_name(got[i].limit),
				 got[i].tbs_per_sm);
			return -EBADMSG;
		}
		if (d->on[col] != got[i].limit) {
			snprintf(msg, msglen, "%s on %s: kernel %s is bound by %s (%u TBs per SM), declared %s",
				 w->name, gpu, got[i].kernel, workload_limit_name(got[i].limit),
				 got[i].tbs_per_sm, workload_limit_name(d->on[col]));
			return -EBADMSG;
		}
	}
	for (const struct vgpu_workload_limit *l = w->limits; l && l->kernel; l++) {
		unsigned int i = 0;

		while (i < n && strcmp(got[i].kernel, l->kernel))
			i++;
		if (i == n) {
			snprintf(msg, msglen, "%s on %s: declared kernel %s was not launched",
				 w->name, gpu, l->kernel);
			return -EBADMSG;
		}
	}
	if (!w->limits || !w->limits[0].kernel) {
		snprintf(msg, msglen, "%s: no kernel limits declared", w->name);
		return -EBADMSG;
	}
	return 0;
}
