/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the vgpu KUnit suites.
 */
#ifndef _VGPU_TEST_H_
#define _VGPU_TEST_H_

#include <linux/string.h>

#include <drm/vgpu_backend.h>

/*
 * A Fermi-like device (Park, dissertation, Table 4.1, with 2 SMs): 1536
 * threads, 8 TBs, 32768 registers and 48 KiB of shared memory per SM.
 */
static inline void vgpu_test_desc(struct vgpu_device_desc *d)
{
	memset(d, 0, sizeof(*d));
	strscpy(d->name, "kunit-fermi", sizeof(d->name));
	d->num_sms = 2;
	d->warp_size = 32;
	d->max_threads_per_sm = 1536;
	d->max_tbs_per_sm = 8;
	d->regs_per_sm = 32768;
	d->shared_per_sm = 49152;
	d->max_threads_per_tb = 1024;
	d->max_regs_per_thread = 63;
	d->max_shared_per_tb = 49152;
	d->core_clock_khz = 1400000;
	d->reg_alloc_unit = 2;
	d->shared_alloc_unit = 128;
	d->max_local_per_thread = 16384;
}

#endif /* _VGPU_TEST_H_ */
