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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "local_cp.h"
#include "vgpu_error.h"
#include "vgpu_local.h"
#include "vgpu_sim.h"

/**
 * struct vgpu_local - one vgpu_device's file of a local device.
 * @file: the file (it holds a reference on the device).
 * @model_ns: host time spent in the model (waits).
 * @launch_hook: vgpu_local_set_launch_hook()'s hook, or NULL.
 * @launch_ctx: its argument.
 */
struct vgpu_local {
	struct local_file *file;
	uint64_t model_ns;
	void (*launch_hook)(void *ctx, const struct vgpu_local_launch *l);
	void *launch_ctx;
};

/* A vgpu_device for a new file of @cp. */
static int open_file(struct local_cp *cp, struct vgpu_device **out)
{
	struct vgpu_local *l = calloc(1, sizeof(*l));
	struct vgpu_device *dev;
	int ret;

	if (!l)
		return -ENOMEM;
	ret = local_cp_open(cp, &l->file);
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

int vgpu_device_open_local_vram(const struct vgpu_sim_config *cfg, uint64_t vram_size,
				struct vgpu_device **out)
{
	struct local_cp *cp;
	int ret;

	ret = local_cp_create(cfg, vram_size, &cp);
	if (ret)
		return ret;
	ret = open_file(cp, out);
	local_cp_put(cp);	/* the file keeps the device */
	return ret;
}

int vgpu_device_open_local(const struct vgpu_sim_config *cfg, struct vgpu_device **out)
{
	return vgpu_device_open_local_vram(cfg, 0, out);
}

const char *const *vgpu_local_presets(void)
{
	return vgpu_sim_preset_names();
}

int vgpu_device_open_local_preset(const char *gpu, uint64_t vram_bytes,
				  struct vgpu_device **out)
{
	const char *const *names = vgpu_sim_preset_names();
	struct vgpu_sim_config cfg;
	char known[256] = "";
	size_t n = 0;
	int ret;

	if (!gpu)
		gpu = VGPU_LOCAL_DEFAULT_PRESET;
	if (vgpu_sim_preset(gpu, &cfg)) {
		for (size_t i = 0; names[i] && n < sizeof(known); i++)
			n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s",
					      i ? ", " : "", names[i]);
		return vgpu_set_error(-EINVAL, "unknown GPU preset '%s' (known: %s)", gpu,
				      known);
	}
	ret = vgpu_device_open_local_vram(&cfg, vram_bytes, out);
	if (ret)
		return vgpu_set_error(ret, "local device '%s' with %llu bytes of memory: %s",
				      gpu, (unsigned long long)vram_bytes, strerror(-ret));
	return 0;
}

int vgpu_device_open_local_peer(struct vgpu_device *dev, struct vgpu_device **out)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	return open_file(local_file_cp(l->file), out);
}

void vgpu_local_close(struct vgpu_local *l)
{
	if (!l)
		return;
	/* the device may outlive this file: its hook must not outlive @l */
	if (l->launch_hook && l->file)
		local_cp_set_launch_hook(local_file_cp(l->file), NULL, NULL);
	local_cp_close(l->file);
	free(l);
}

struct local_file *vgpu_local_file(struct vgpu_local *l)
{
	return l->file;
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
	int ret = local_cp_wait(l->file, job, timeout_ns < 0 ? -1 : t0 + timeout_ns);

	l->model_ns += (uint64_t)(now_ns() - t0);
	return ret;
}

int vgpu_local_attr_store(struct vgpu_device *dev, const char *name, const char *value)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	return local_cp_attr_store(local_file_cp(l->file), name, value);
}

/* Copies the text of a show function (4096 bytes, as sysfs) into @buf of @len. */
static int show_into(struct vgpu_local *l, const char *name, char *buf, size_t len,
		     int (*show)(struct local_cp *cp, const char *name, char *page))
{
	char *page = calloc(1, 4096);
	int ret;

	if (!page)
		return -ENOMEM;
	ret = show(local_file_cp(l->file), name, page);
	if (!ret && strlen(page) >= len)
		ret = -ENOSPC;
	if (!ret)
		memcpy(buf, page, strlen(page) + 1);
	free(page);
	return ret;
}

int vgpu_local_attr_show(struct vgpu_device *dev, const char *name, char *buf, size_t len)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	return l ? show_into(l, name, buf, len, local_cp_attr_show) : -ENODEV;
}

int vgpu_local_debugfs(struct vgpu_device *dev, const char *name, char *buf, size_t len)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	return l ? show_into(l, name, buf, len, local_cp_debugfs) : -ENODEV;
}

int vgpu_local_stats(struct vgpu_device *dev, struct vgpu_sim_stats *st)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	vgpu_sim_get_stats(local_cp_sim(local_file_cp(l->file)), st);
	return 0;
}

_Static_assert(VGPU_LIMIT_COUNT == LOCAL_CP_LIMITS, "enum vgpu_limit is local_cp_limits()'s");

int vgpu_local_limits(struct vgpu_device *dev, uint64_t tbs[VGPU_LIMIT_COUNT])
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	local_cp_limits(local_file_cp(l->file), tbs);
	return 0;
}

int vgpu_local_kernel_limits(struct vgpu_device *dev, struct vgpu_kernel_limit *out,
			     unsigned int max, unsigned int *count)
{
	struct local_cp_kernel_limit k[LOCAL_CP_KERNEL_LIMITS];
	struct vgpu_local *l = vgpu_device_local(dev);
	uint32_t n;

	if (!l)
		return -ENODEV;
	n = local_cp_kernel_limits(local_file_cp(l->file), k, LOCAL_CP_KERNEL_LIMITS);
	for (uint32_t i = 0; i < n && i < max && i < LOCAL_CP_KERNEL_LIMITS; i++) {
		memcpy(out[i].kernel, k[i].kernel, sizeof(out[i].kernel));
		out[i].limit = (enum vgpu_limit)k[i].limit;
		out[i].tbs_per_sm = k[i].tbs_per_sm;
	}
	*count = n;
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

struct vgpu_sim *vgpu_local_sim(struct vgpu_device *dev)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	return l ? local_cp_sim(local_file_cp(l->file)) : NULL;
}

uint8_t *vgpu_local_vram(struct vgpu_device *dev, uint64_t *size)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return NULL;
	*size = local_cp_vram_size(local_file_cp(l->file));
	return local_cp_vram(local_file_cp(l->file));
}

int vgpu_local_set_evt_hook(struct vgpu_device *dev,
			    void (*hook)(void *ctx, const struct vgpu_evt *evt), void *ctx)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	local_cp_set_evt_hook(local_file_cp(l->file), hook, ctx);
	return 0;
}

int vgpu_local_set_launch_hook(struct vgpu_device *dev,
			       void (*hook)(void *ctx, const struct vgpu_local_launch *l),
			       void *ctx)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	local_cp_set_launch_hook(local_file_cp(l->file), NULL, NULL);
	l->launch_hook = hook;
	l->launch_ctx = ctx;
	if (hook)
		local_cp_set_launch_hook(local_file_cp(l->file), hook, ctx);
	return 0;
}

int vgpu_local_preempt_estimate(struct vgpu_device *dev, uint64_t ctx_bytes,
				uint64_t remaining_insts, uint64_t tb_cycles,
				uint64_t warp_insts, struct vgpu_local_preempt_est *out)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	local_cp_preempt_estimate(local_file_cp(l->file), ctx_bytes, remaining_insts, tb_cycles,
				  warp_insts, &out->sm_bw_fp, &out->switch_cycles,
				  &out->drain_cycles);
	return 0;
}

int vgpu_local_reopen(struct vgpu_device *dev)
{
	struct vgpu_local *l = vgpu_device_local(dev);
	struct local_cp *cp;
	int ret;

	if (!l)
		return -ENODEV;
	cp = local_file_cp(l->file);
	local_cp_get(cp);	/* the device outlives its last file here */
	local_cp_close(l->file);
	ret = local_cp_open(cp, &l->file);
	if (ret)
		l->file = NULL;
	local_cp_put(cp);
	return ret;
}
