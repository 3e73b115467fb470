// SPDX-License-Identifier: MIT
/*
 * libvgpu's local device: no kernel module and no daemon, but their code.
 *
 * The command processor is vgpu.ko's own, compiled into this library
 * (local_cp.c), and the GPU model runs under vgpud's lock-step loop, so a
 * launch placed, scheduled and preempted here takes the cycles it takes
 * in the guest. vgpu.c turns each call on a local device into the
 * local_cp_*() call that stands for its ioctl; this file opens and closes
 * the device and reports what the model did.
 */
#include "vgpu.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "local_cp.h"
#include "vgpu_local.h"
#include "vgpu_sim.h"

/**
 * struct vgpu_local - the local device of one vgpu_device.
 * @cp: the command processor and the model.
 * @model_ns: host time spent in the model (submits and waits).
 */
struct vgpu_local {
	struct local_cp *cp;
	uint64_t model_ns;
};

int vgpu_device_open_local(const struct vgpu_sim_config *cfg, struct vgpu_device **out)
{
	struct vgpu_local *l = calloc(1, sizeof(*l));
	struct vgpu_device *dev;
	int ret;

	if (!l)
		return -ENOMEM;
	ret = local_cp_create(cfg, 0, &l->cp);
	if (ret) {
		free(l);
		return ret;
	}
	dev = vgpu_device_new_local(l);
	if (!dev) {
		vgpu_local_close(l);
		return -ENOMEM;
	}
	*out = dev;
	return 0;
}

void vgpu_local_close(struct vgpu_local *l)
{
	if (!l)
		return;
	local_cp_destroy(l->cp);
	free(l);
}

struct local_cp *vgpu_local_cp(struct vgpu_local *l)
{
	return l->cp;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int vgpu_local_wait(struct vgpu_local *l, uint32_t job, int64_t timeout_ns)
{
	int64_t t0 = now_ns();
	int ret = local_cp_wait(l->cp, job, timeout_ns < 0 ? -1 : t0 + timeout_ns);

	l->model_ns += (uint64_t)(now_ns() - t0);
	return ret;
}

int vgpu_local_stats(struct vgpu_device *dev, struct vgpu_sim_stats *st)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	vgpu_sim_get_stats(local_cp_sim(l->cp), st);
	return 0;
}

int vgpu_local_model_ns(struct vgpu_device *dev, uint64_t *ns)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	*ns = l->model_ns;
	return 0;
}
