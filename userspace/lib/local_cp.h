/* SPDX-License-Identifier: MIT */
/*
 * local_cp.h - the command processor of vgpu.ko, hosted in this process
 * (local_cp.c): the kernel's own KCB, SMST, scheduler, policies, device
 * memory allocator, program and launch validation, compiled from
 * drivers/gpu/drm/vgpu/ over kcompat, driving the GPU model through the
 * same lock-step loop as vgpud. The interface mirrors the render node's
 * ioctls; libvgpu's local device (vgpu_local.c) is built on it.
 *
 * Not thread-safe: one thread calls it at a time.
 */
#ifndef VGPU_LOCAL_CP_H
#define VGPU_LOCAL_CP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_drm.h>

struct local_cp;
struct vgpu_sim;
struct vgpu_sim_config;

/* Device memory of vgpu.ko's default (its module parameter vram_size_mb). */
#define LOCAL_CP_VRAM_DEFAULT	(256ull << 20)

/*
 * A device of @vram_size bytes (0: the default) whose hardware is @cfg,
 * attached and opened once, as vgpu.ko is once vgpud attached and a
 * process opened the render node.
 */
int local_cp_create(const struct vgpu_sim_config *cfg, uint64_t vram_size,
		    struct local_cp **out);
void local_cp_destroy(struct local_cp *cp);
uint8_t *local_cp_vram(struct local_cp *cp);
struct vgpu_sim *local_cp_sim(struct local_cp *cp);

/* DRM_IOCTL_VGPU_GET_PARAM. */
int local_cp_get_param(struct local_cp *cp, uint32_t param, uint64_t *value);
/* DRM_IOCTL_VGPU_BO_CREATE: the handle and the device address out. */
int local_cp_bo_create(struct local_cp *cp, uint64_t size, uint32_t *handle,
		       uint64_t *addr);
int local_cp_bo_destroy(struct local_cp *cp, uint32_t handle);
/* DRM_IOCTL_VGPU_PROGRAM_CREATE / _DESTROY. */
int local_cp_program_create(struct local_cp *cp, const void *image, size_t size,
			    uint32_t *handle);
int local_cp_program_destroy(struct local_cp *cp, uint32_t handle);
/*
 * DRM_IOCTL_VGPU_SUBMIT: @args as the ioctl takes it, with its buffer
 * handles and parameters at @bo_handles and @params (its pointer fields
 * are not read); the job id out.
 */
int local_cp_submit(struct local_cp *cp, const struct drm_vgpu_submit *args,
		    const uint32_t *bo_handles, const void *params, uint32_t *job);
/*
 * DRM_IOCTL_VGPU_WAIT: runs the model until job @job has ended. -ETIME when
 * the host's CLOCK_MONOTONIC passes @deadline_ns first (< 0: no limit),
 * -EDEADLK when the device can make no more progress and the job has not
 * ended (a barrier no thread reaches), -ENOENT for an unknown job.
 */
int local_cp_wait(struct local_cp *cp, uint32_t job, int64_t deadline_ns);
/* DRM_IOCTL_VGPU_JOB_INFO, with or without DRM_VGPU_JOB_INFO_RELEASE. */
int local_cp_job_info(struct local_cp *cp, struct drm_vgpu_job_info *info);

#endif /* VGPU_LOCAL_CP_H */
