// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu device descriptions: the hardware a backend says it models
 * (&struct vgpu_device_desc, uapi vgpu_backend.h), checked before the
 * command processor builds its tables on it, and the GET_PARAM values it
 * determines. Pure functions, shared with libvgpu's local device.
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/string.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>

#include <kunit/visibility.h>

#include "vgpu_desc.h"
#include "vgpu_smst.h"

/**
 * vgpu_desc_validate() - check the hardware a daemon describes.
 * @d: the description.
 * @why: out, a static string saying what is wrong when the result is not 0.
 *
 * Return: 0, or -EINVAL when a field is out of range or the limits
 * contradict each other.
 */
int vgpu_desc_validate(const struct vgpu_device_desc *d, const char **why)
{
	u64 granule;

	*why = NULL;
	if (!memchr(d->name, 0, sizeof(d->name))) {
		*why = "name not NUL-terminated";
		return -EINVAL;
	}
	if (memchr_inv(d->reserved, 0, sizeof(d->reserved))) {
		*why = "reserved field set";
		return -EINVAL;
	}
	if (d->num_sms < 1 || d->num_sms > 1024) {
		*why = "num_sms out of 1..1024";
		return -EINVAL;
	}
	if (d->warp_size != 32) {
		*why = "warp_size is not 32";
		return -EINVAL;
	}
	if (d->max_tbs_per_sm < 1 || d->max_tbs_per_sm > VGPU_SMST_MAX_SLOTS) {
		*why = "max_tbs_per_sm out of 1..64";
		return -EINVAL;
	}
	if (!d->max_threads_per_sm || !d->regs_per_sm || !d->shared_per_sm ||
	    !d->max_threads_per_tb || !d->max_regs_per_thread ||
	    !d->max_shared_per_tb || !d->core_clock_khz ||
	    !d->reg_alloc_unit || !d->shared_alloc_unit) {
		*why = "a limit is zero";
		return -EINVAL;
	}
	if (d->max_local_per_thread > 1024 * 1024) {
		*why = "max_local_per_thread above 1 MiB";
		return -EINVAL;
	}
	if (!is_power_of_2(d->shared_alloc_unit)) {
		*why = "shared_alloc_unit not a power of two";
		return -EINVAL;
	}
	if (d->max_threads_per_sm % d->warp_size) {
		*why = "max_threads_per_sm not a multiple of the warp size";
		return -EINVAL;
	}
	if (round_up((u64)d->max_threads_per_tb, d->warp_size) >
	    d->max_threads_per_sm) {
		*why = "max_threads_per_tb larger than an SM";
		return -EINVAL;
	}
	if (d->max_shared_per_tb > d->shared_per_sm) {
		*why = "max_shared_per_tb larger than an SM's shared memory";
		return -EINVAL;
	}
	granule = (u64)d->warp_size * d->reg_alloc_unit;
	if ((u64)d->warp_size * roundup((u64)d->max_regs_per_thread,
					d->reg_alloc_unit) > d->regs_per_sm) {
		*why = "one warp at max_regs_per_thread exceeds regs_per_sm";
		return -EINVAL;
	}
	if (d->regs_per_sm / granule > VGPU_SMST_MAX_UNITS) {
		*why = "register file too finely divided";
		return -EINVAL;
	}
	if (d->shared_per_sm / d->shared_alloc_unit < 1 ||
	    d->shared_per_sm / d->shared_alloc_unit > VGPU_SMST_MAX_UNITS) {
		*why = "shared memory too finely divided";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_desc_validate);

/**
 * vgpu_desc_param() - a GET_PARAM value that the hardware description gives.
 * @d: the attached device's description.
 * @param: %DRM_VGPU_PARAM_*.
 * @value: out.
 *
 * Return: 0, or -ENOENT when @param is not one of the description's.
 */
int vgpu_desc_param(const struct vgpu_device_desc *d, u32 param, u64 *value)
{
	switch (param) {
	case DRM_VGPU_PARAM_NUM_SMS:
		*value = d->num_sms;
		break;
	case DRM_VGPU_PARAM_WARP_SIZE:
		*value = d->warp_size;
		break;
	case DRM_VGPU_PARAM_MAX_THREADS_PER_SM:
		*value = d->max_threads_per_sm;
		break;
	case DRM_VGPU_PARAM_MAX_TBS_PER_SM:
		*value = d->max_tbs_per_sm;
		break;
	case DRM_VGPU_PARAM_REGS_PER_SM:
		*value = d->regs_per_sm;
		break;
	case DRM_VGPU_PARAM_SHARED_PER_SM:
		*value = d->shared_per_sm;
		break;
	case DRM_VGPU_PARAM_MAX_THREADS_PER_TB:
		*value = d->max_threads_per_tb;
		break;
	case DRM_VGPU_PARAM_MAX_REGS_PER_THREAD:
		*value = d->max_regs_per_thread;
		break;
	case DRM_VGPU_PARAM_MAX_SHARED_PER_TB:
		*value = d->max_shared_per_tb;
		break;
	case DRM_VGPU_PARAM_CORE_CLOCK_KHZ:
		*value = d->core_clock_khz;
		break;
	case DRM_VGPU_PARAM_MAX_LOCAL_PER_THREAD:
		*value = d->max_local_per_thread;
		break;
	default:
		return -ENOENT;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_desc_param);
