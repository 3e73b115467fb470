/* SPDX-License-Identifier: MIT */
/*
 * vgpu_sim.h - the GPU model that vgpud drives: SMs executing vGPU ISA thread
 * blocks over the device memory. Mechanism only: which block runs where is
 * decided by vgpu.ko and arrives as commands (uapi/drm/vgpu_backend.h).
 *
 * Deterministic: the same sequence of calls gives the same events and
 * cycles. No wall-clock time is read anywhere in the model.
 */
#ifndef VGPU_SIM_H
#define VGPU_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_backend.h>

struct vgpu_sim;

/**
 * struct vgpu_sim_config - what the model is built from.
 * @desc: the hardware limits; reported to the kernel at attach.
 * @schedulers_per_sm: warp schedulers per SM (instructions issued per cycle).
 * @alu_latency: cycles from issue to result for integer/f32 arithmetic.
 * @sfu_latency: ... for transcendental / division / sqrt.
 * @mem_latency: ... for a global memory access.
 * @shared_latency: ... for a shared memory access.
 */
struct vgpu_sim_config {
	struct vgpu_device_desc desc;
	uint32_t schedulers_per_sm;
	uint32_t alu_latency;
	uint32_t sfu_latency;
	uint32_t mem_latency;
	uint32_t shared_latency;
};

/* Fills @cfg with the named preset; -ENOENT for an unknown name. */
int vgpu_sim_preset(const char *name, struct vgpu_sim_config *cfg);
/* NULL-terminated list of preset names. */
const char *const *vgpu_sim_preset_names(void);

/* @vram is the device memory (mapped from the kernel, or any buffer in tests). */
struct vgpu_sim *vgpu_sim_create(const struct vgpu_sim_config *cfg,
				 uint8_t *vram, uint64_t vram_size);
void vgpu_sim_destroy(struct vgpu_sim *sim);

/* Commands; each takes effect at the current cycle. */
/* Reads the job descriptor at @desc_addr and decodes its program. A bad
 * descriptor or program is not an error of the call: the job is marked
 * faulted and each of its dispatched blocks completes at once with that
 * status (-EINVAL, -EILSEQ). Returns -ENOMEM, -EEXIST (job id in use). */
int vgpu_sim_job_begin(struct vgpu_sim *sim, uint32_t job, uint64_t desc_addr);
/* DISPATCH command; -ENOENT unknown job, -EINVAL bad sm/slot/ranges. */
int vgpu_sim_dispatch(struct vgpu_sim *sim, const struct vgpu_cmd *cmd);
/* Drops a job; blocks still running of it are discarded. */
void vgpu_sim_job_end(struct vgpu_sim *sim, uint32_t job);

uint64_t vgpu_sim_cycle(const struct vgpu_sim *sim);
void vgpu_sim_set_cycle(struct vgpu_sim *sim, uint64_t cycle);
/* True while any thread block is resident (or a completion is pending). */
bool vgpu_sim_busy(const struct vgpu_sim *sim);

/*
 * Simulates until the first cycle at which at least one event happens, but
 * not past @limit (UINT64_MAX for none). Stores up to @max events of that
 * cycle in @out, all stamped with it; if there were more, the next call
 * returns them without advancing time. Returns the number of events (0 when
 * @limit was reached or nothing is resident); afterwards vgpu_sim_cycle() is
 * the cycle of those events (or @limit). When idle the cycle does not move.
 */
int vgpu_sim_step(struct vgpu_sim *sim, uint64_t limit, struct vgpu_evt *out,
		  unsigned int max);

/**
 * struct vgpu_sim_stats - totals since creation.
 * @warp_insts: warp instructions issued.
 * @thread_insts: thread instructions (active lanes) executed.
 * @tbs_done: blocks completed.
 */
struct vgpu_sim_stats {
	uint64_t warp_insts;
	uint64_t thread_insts;
	uint64_t tbs_done;
};
void vgpu_sim_get_stats(const struct vgpu_sim *sim, struct vgpu_sim_stats *st);

#endif /* VGPU_SIM_H */
