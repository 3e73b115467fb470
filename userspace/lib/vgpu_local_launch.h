/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A launch as the local device's driver code took it: what local_cp hands
 * its launch hook and libvgpu's vgpu_local_set_launch_hook() passes on.
 * Its own header because both sides (local_cp.h, compiled with the
 * driver's code, and vgpu.h) need it.
 */
#ifndef VGPU_LOCAL_LAUNCH_H
#define VGPU_LOCAL_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include <drm/vgpu_program.h>

/**
 * struct vgpu_local_launch - a launch as the local device's driver code took
 *	it, for vgpu_local_set_launch_hook().
 * @job: its job id, as its events name it (&vgpu_evt.job).
 * @kernel: its entry point's name.
 * @num_tbs: thread blocks of its grid.
 * @threads: threads of one block.
 * @regs_per_thread: the entry's registers per thread.
 * @shared: shared-memory bytes of one block, static and dynamic.
 * @local_per_thread: the entry's .local bytes per thread.
 * @tbs_per_sm: blocks that fit an empty SM (the driver's occupancy).
 * @ctx_bytes: one block's saved context (uapi vgpu_ctx_bytes()): what a
 *	context switch moves and the scheduler's preemption estimates count.
 * @idempotent: the kernel as a whole is idempotent (no atomic, no global
 *	overwrite): strict idempotence may flush its blocks.
 */
struct vgpu_local_launch {
	uint32_t job;
	char kernel[VGPU_PROGRAM_NAME_LEN];
	uint32_t num_tbs;
	uint32_t threads;
	uint32_t regs_per_thread;
	uint32_t shared;
	uint32_t local_per_thread;
	uint32_t tbs_per_sm;
	uint64_t ctx_bytes;
	bool idempotent;
};

#endif /* VGPU_LOCAL_LAUNCH_H */
