/* SPDX-License-Identifier: MIT */
/*
 * local_cp.h - the command processor of vgpu.ko, hosted in this process
 * (local_cp.c): the kernel's own KCB, SMST, scheduler, policies,
 * synchronised clock, device memory allocator, program and launch
 * validation, compiled from drivers/gpu/drm/vgpu/ over kcompat, driving
 * the GPU model through the same lock-step loop as vgpud. The interface
 * mirrors the render node: a device is opened as files, and each file
 * call stands for the ioctl of the same name. libvgpu's local device
 * (vgpu_local.c) is built on it.
 *
 * Files of one device may be used from different threads (one thread per
 * file at a time), as processes use the render node: the processes of a
 * multi-programmed experiment run as threads on the synchronised clock.
 */
#ifndef VGPU_LOCAL_CP_H
#define VGPU_LOCAL_CP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>

#include "vgpu_local_launch.h"

struct local_cp;
struct local_file;
struct vgpu_sim;
struct vgpu_sim_config;
struct vgpu_evt;

/* Device memory of vgpu.ko's default (its module parameter vram_size_mb). */
#define LOCAL_CP_VRAM_DEFAULT	(256ull << 20)

/*
 * A device of @vram_size bytes (0: the default) whose hardware is @cfg,
 * with the model attached, as vgpu.ko is once vgpud attached. It lives
 * until local_cp_put() has dropped this reference (and every other that
 * local_cp_get() took) and every file is closed.
 */
int local_cp_create(const struct vgpu_sim_config *cfg, uint64_t vram_size,
		    struct local_cp **out);
void local_cp_get(struct local_cp *cp);
void local_cp_put(struct local_cp *cp);
uint8_t *local_cp_vram(struct local_cp *cp);
uint64_t local_cp_vram_size(struct local_cp *cp);
struct vgpu_sim *local_cp_sim(struct local_cp *cp);

/*
 * Device attributes by their sysfs names (Documentation/ABI/testing/
 * sysfs-driver-vgpu): shown into @buf (at least 4096 bytes, as sysfs
 * shows them) or stored with the same values, ranges and errors; -ENOENT
 * for a name the device does not have.
 */
int local_cp_attr_show(struct local_cp *cp, const char *name, char *buf);
int local_cp_attr_store(struct local_cp *cp, const char *name, const char *value);
/*
 * The text of the driver's debugfs file @name that the local device has
 * ("preempt", and a partition policy's own, "maestro"), into @buf (at
 * least 4096 bytes); -ENOENT for another.
 */
int local_cp_debugfs(struct local_cp *cp, const char *name, char *buf);

/* A file of the device (opening the render node) and its end. */
int local_cp_open(struct local_cp *cp, struct local_file **out);
void local_cp_close(struct local_file *f);
struct local_cp *local_file_cp(struct local_file *f);

/* DRM_IOCTL_VGPU_GET_PARAM. */
int local_cp_get_param(struct local_file *f, uint32_t param, uint64_t *value);
/* DRM_IOCTL_VGPU_BO_CREATE: the handle and the device address out. */
int local_cp_bo_create(struct local_file *f, uint64_t size, uint32_t *handle,
		       uint64_t *addr);
int local_cp_bo_destroy(struct local_file *f, uint32_t handle);
/* DRM_IOCTL_VGPU_PROGRAM_CREATE / _DESTROY. */
int local_cp_program_create(struct local_file *f, const void *image, size_t size,
			    uint32_t *handle);
int local_cp_program_destroy(struct local_file *f, uint32_t handle);
/* The data segment the driver placed for program @handle (0 and 0: none). */
int local_cp_program_data(struct local_file *f, uint32_t handle, uint64_t *addr,
			  uint32_t *size);
/*
 * DRM_IOCTL_VGPU_SUBMIT: @args as the ioctl takes it, with its buffer
 * handles, in-syncobj handles and parameters at @bo_handles, @in_syncobjs
 * and @params (its pointer fields are not read); the job id out. With
 * &drm_vgpu_submit.num_bos 0 the job may touch every buffer of the file;
 * &drm_vgpu_submit.out_syncobj, a syncobj of local_cp_syncobj_create(),
 * takes the job's end as its fence; the job's blocks start only once the
 * jobs of its in-syncobjs have ended, at the cycle the last one ended, and
 * it fails with -ECANCELED without running when one of them failed - the
 * semantics and checks of vgpu.ko (uapi vgpu_drm.h).
 */
int local_cp_submit(struct local_file *f, const struct drm_vgpu_submit *args,
		    const uint32_t *bo_handles, const uint32_t *in_syncobjs,
		    const void *params, uint32_t *job);
/*
 * DRM_IOCTL_SYNCOBJ_CREATE and _DESTROY on the file: a syncobj's fence is
 * the end of the last job submitted with it as its out-syncobj. A job that
 * waits for it keeps what it needs; destroying the handle does not release
 * the wait. -ENOENT for an unknown handle.
 */
int local_cp_syncobj_create(struct local_file *f, uint32_t *handle);
int local_cp_syncobj_destroy(struct local_file *f, uint32_t handle);
/*
 * DRM_IOCTL_VGPU_WAIT: until job @job has ended, the waiting threads take
 * turns at running the model while the clock lets time run. -ETIME when
 * the host's CLOCK_MONOTONIC passes @deadline_ns first (< 0: no limit),
 * -EDEADLK when every file waits and nothing runs, -ENOENT for an unknown
 * job. A block stuck for good (a barrier no thread reaches) fails its job
 * at its time limit (vgpu_sched_deadline()), as in vgpu.ko.
 */
int local_cp_wait(struct local_file *f, uint32_t job, int64_t deadline_ns);
/* DRM_IOCTL_VGPU_JOB_INFO, with or without DRM_VGPU_JOB_INFO_RELEASE. */
int local_cp_job_info(struct local_file *f, struct drm_vgpu_job_info *info);
/*
 * TBs of the launches so far by the limit that binds each launch on an
 * empty SM: vgpu_smst_occupancy_limit()'s &enum vgpu_occ_limit, then at
 * index VGPU_OCC_COUNT those of grids that fit the GPU at once (libvgpu's
 * &enum vgpu_limit, in the same order).
 */
#define LOCAL_CP_LIMITS	5
void local_cp_limits(struct local_cp *cp, uint64_t tbs[LOCAL_CP_LIMITS]);
/**
 * struct local_cp_kernel_limit - what binds one kernel's TBs on an empty SM.
 * @kernel: its entry point's name.
 * @limit: vgpu_smst_occupancy_limit()'s &enum vgpu_occ_limit, whatever the
 *	grid (the limit a grid larger than the GPU meets).
 * @tbs_per_sm: the TBs that fit under it.
 */
struct local_cp_kernel_limit {
	char kernel[VGPU_PROGRAM_NAME_LEN];
	uint32_t limit;
	uint32_t tbs_per_sm;
};

/* Distinct kernel limits kept (the first so many of a device's launches). */
#define LOCAL_CP_KERNEL_LIMITS	64
/*
 * The distinct (kernel, limit, TBs per SM) of the launches so far, the
 * first @max into @out in launch order; returns how many there are.
 */
uint32_t local_cp_kernel_limits(struct local_cp *cp, struct local_cp_kernel_limit *out,
				uint32_t max);
/**
 * struct local_cp_layout - a launch as the driver lays it out for the model.
 * @desc_addr: its job descriptor (struct vgpu_job_desc, ranges, parameters).
 * @num_tbs: thread blocks of the grid.
 * @tbs_per_sm: blocks that fit an empty SM (vgpu_smst_occupancy()).
 * @regs_per_tb: registers a block occupies (&vgpu_tb_res.regs).
 * @shared_per_tb: shared-memory bytes a block occupies (&vgpu_tb_res.shared).
 */
struct local_cp_layout {
	uint64_t desc_addr;
	uint32_t num_tbs;
	uint32_t tbs_per_sm;
	uint32_t regs_per_tb;
	uint32_t shared_per_tb;
};

/*
 * For tests of the model's command interface: what DRM_IOCTL_VGPU_SUBMIT
 * does before the scheduler takes over - the launch validated and its
 * descriptor, naming job @job, laid out by the driver's code in a new
 * buffer of the file - but nothing entered into the KCB: the caller
 * begins the job on the model and dispatches its blocks itself. Unlike a
 * SUBMIT, a launch without a buffer list gets no range at all here: the
 * model's tests name every range they mean the job to have.
 */
int local_cp_job_desc(struct local_file *f, const struct drm_vgpu_submit *args,
		      const uint32_t *bo_handles, const void *params, uint32_t job,
		      struct local_cp_layout *out);
/*
 * @hook is called with every event the model posts, before the command
 * processor sees it, on the thread that runs the model (NULL: none).
 */
void local_cp_set_evt_hook(struct local_cp *cp,
			   void (*hook)(void *ctx, const struct vgpu_evt *evt), void *ctx);


/*
 * @hook is called with every launch the device accepts, on the submitting
 * thread with the device lock held (it must not call into the device),
 * before any of its blocks can run (NULL: none).
 */
void local_cp_set_launch_hook(struct local_cp *cp,
			      void (*hook)(void *ctx, const struct vgpu_local_launch *l),
			      void *ctx);
/*
 * Chimera's cost estimates (Park, dissertation, §4.3.2) as the device's
 * scheduler makes them, by the driver's vgpu_preempt.c: one SM's share of
 * the DRAM bandwidth (*@sm_bw_fp, bytes per cycle in 1/1024), the cycles
 * to save @ctx_bytes of context through it (*@switch_cycles), and the
 * cycles to execute @remaining_insts warp instructions at the CPI of
 * @tb_cycles over @warp_insts (*@drain_cycles; U64_MAX when @warp_insts
 * is 0).
 */
void local_cp_preempt_estimate(struct local_cp *cp, uint64_t ctx_bytes,
			       uint64_t remaining_insts, uint64_t tb_cycles,
			       uint64_t warp_insts, uint64_t *sm_bw_fp,
			       uint64_t *switch_cycles, uint64_t *drain_cycles);

/* DRM_IOCTL_VGPU_CLOCK_SYNC. */
int local_cp_clock_sync(struct local_file *f, bool join, uint32_t rank);

#endif /* VGPU_LOCAL_CP_H */
