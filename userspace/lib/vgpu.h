/* SPDX-License-Identifier: MIT */
/*
 * vgpu.h - libvgpu, the userspace runtime of the vgpu virtual GPU.
 *
 * Opens the render node through libdrm, allocates buffer objects, compiles
 * PTX into programs, launches kernels and waits for them. Every function
 * that can fail returns 0 or a negative errno.
 */
#ifndef VGPU_H
#define VGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>

#include "vgpu_local_launch.h"

struct vgpu_device;
struct vgpu_sim_config;
struct vgpu_sim_stats;
struct vgpu_sim;
struct vgpu_evt;

/**
 * struct vgpu_bo - a buffer object, mapped into the process.
 * @dev: the device.
 * @handle: GEM handle.
 * @size: bytes.
 * @addr: device address; pass it to kernels as a pointer.
 * @map: CPU mapping of the whole buffer.
 */
struct vgpu_bo {
	struct vgpu_device *dev;
	uint32_t handle;
	uint64_t size;
	uint64_t addr;
	void *map;
};

/**
 * struct vgpu_program - a program loaded on the device.
 * @dev: the device.
 * @handle: program handle.
 * @image: the compiled image (owned).
 * @image_size: bytes of @image.
 */
struct vgpu_program {
	struct vgpu_device *dev;
	uint32_t handle;
	void *image;
	size_t image_size;
};

/*
 * The message behind the last error a call of this thread returned, for the
 * calls that say more than their errno (the runtime of vgpu_runtime.h,
 * vgpu_device_open_local_preset()): "unknown kernel 'foo' in module
 * k.ptx (kernels: ...)". Empty when none has been set; not cleared by a
 * call that succeeds.
 */
const char *vgpu_last_error(void);

/* Opens @path, or with NULL the first render node whose driver is "vgpu". */
int vgpu_device_open(const char *path, struct vgpu_device **out);
void vgpu_device_close(struct vgpu_device *dev);
int vgpu_device_fd(const struct vgpu_device *dev);
int vgpu_get_param(struct vgpu_device *dev, uint32_t param, uint64_t *value);

int vgpu_bo_create(struct vgpu_device *dev, uint64_t size, struct vgpu_bo **out);
void vgpu_bo_destroy(struct vgpu_bo *bo);

struct vgpu_compile_limits;	/* compiler/vgpu_compile.h */
/*
 * What the device offers a program (DRM_VGPU_PARAM_MAX_* and
 * DRM_VGPU_MAX_PARAM_BYTES; 0 where it does not say), for
 * vgpu_compile_ptx_limits().
 */
void vgpu_device_compile_limits(struct vgpu_device *dev, struct vgpu_compile_limits *lim);
/*
 * Compiles PTX for the device and loads it; on a compile error @err says
 * which line. The compiler gets the device's limits (DRM_VGPU_PARAM_MAX_*):
 * it spills registers beyond the registers per thread to local memory, and
 * an entry that still needs more of a resource than the device offers
 * fails with -E2BIG and "ptx:LINE: entry 'NAME' needs N RESOURCE; the
 * device allows M" (a refusal of the device itself names the same).
 */
int vgpu_program_create_ptx(struct vgpu_device *dev, const char *ptx, size_t len,
			    struct vgpu_program **out, char *err, size_t errlen);
/* The same with VGPU_COMPILE_* options (compiler/vgpu_compile.h). */
int vgpu_program_create_ptx_opts(struct vgpu_device *dev, const char *ptx, size_t len,
				 unsigned int opts, struct vgpu_program **out, char *err,
				 size_t errlen);
/* Loads an already compiled image (copied). */
int vgpu_program_create_image(struct vgpu_device *dev, const void *image,
			      size_t size, struct vgpu_program **out);
void vgpu_program_destroy(struct vgpu_program *prog);
/*
 * Finds an entry point by its PTX name, or by the C++ name nvcc mangles
 * into it ("saxpy" finds "_Z5saxpyifPKfPf"). -ENOENT when absent.
 */
int vgpu_program_find_entry(const struct vgpu_program *prog, const char *name,
			    uint32_t *index);
const struct vgpu_program_entry *
vgpu_program_entry(const struct vgpu_program *prog, uint32_t index);

/**
 * struct vgpu_params - a kernel's parameter block, packed as PTX lays out
 * the .param space: each value at the next offset aligned to its size.
 * @size: bytes used.
 * @overflow: set when a value did not fit; vgpu_submit() then fails.
 * @bytes: the block.
 */
struct vgpu_params {
	uint32_t size;
	bool overflow;
	uint8_t bytes[DRM_VGPU_MAX_PARAM_BYTES];
};

void vgpu_params_init(struct vgpu_params *p);
void vgpu_params_u32(struct vgpu_params *p, uint32_t v);
void vgpu_params_u64(struct vgpu_params *p, uint64_t v);
void vgpu_params_f32(struct vgpu_params *p, float v);
void vgpu_params_f64(struct vgpu_params *p, double v);
void vgpu_params_ptr(struct vgpu_params *p, const struct vgpu_bo *bo);
void vgpu_params_u8(struct vgpu_params *p, uint8_t v);
void vgpu_params_u16(struct vgpu_params *p, uint16_t v);
/*
 * @size raw bytes at the next offset aligned to @align (a power of two):
 * a struct passed by value, declared `.param .align A .b8 s[N]` in PTX.
 */
void vgpu_params_bytes(struct vgpu_params *p, const void *v, uint32_t size, uint32_t align);

/**
 * struct vgpu_launch - what one kernel launch needs.
 * @entry: entry index (vgpu_program_find_entry()).
 * @grid: blocks in x, y, z.
 * @block: threads per block in x, y, z.
 * @dynamic_shared: bytes of extern __shared__ memory per block.
 * @params: the parameter block.
 * @bos: buffers the kernel may access.
 * @num_bos: entries in @bos; 0 lets the kernel access every buffer of the
 *	device (of this vgpu_device's file) that exists when it is submitted,
 *	and still no other file's (uapi &drm_vgpu_submit.num_bos).
 * @priority: DRM_VGPU_PRIORITY_*.
 * @latency_budget_us: preemption budget of a high-priority launch.
 * @timeout_us: the job's time limit in simulated microseconds (0: the
 *	device's; uapi &drm_vgpu_submit.timeout_us).
 * @not_before: honour @not_before_cycle.
 * @not_before_cycle: simulated cycle before which the launch does not start.
 * @wait_syncobjs: syncobjs whose fences must signal before any block of
 *	the launch starts: &vgpu_job.syncobj of earlier jobs of this device
 *	(uapi &drm_vgpu_submit.in_syncobjs). The launch starts at the cycle
 *	the last of those jobs ends, on the render node and the local device
 *	alike; when one of them failed it fails with -ECANCELED without
 *	running. Each syncobj must still exist at vgpu_submit(); it need not
 *	afterwards.
 * @num_wait_syncobjs: entries in @wait_syncobjs, at most
 *	%DRM_VGPU_MAX_IN_SYNCOBJS.
 */
struct vgpu_launch {
	uint32_t entry;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t dynamic_shared;
	const struct vgpu_params *params;
	struct vgpu_bo *const *bos;
	unsigned int num_bos;
	uint32_t priority;
	uint32_t latency_budget_us;
	uint32_t timeout_us;
	bool not_before;
	uint64_t not_before_cycle;
	const uint32_t *wait_syncobjs;
	unsigned int num_wait_syncobjs;
};

/**
 * struct vgpu_job - a submitted launch.
 * @dev: the device.
 * @id: job id.
 * @syncobj: syncobj signalled when the job ends (with the job's error when
 *	it failed): what a later launch waits for (&vgpu_launch.wait_syncobjs).
 *	vgpu_submit() creates it and vgpu_job_wait() destroys it, so submit
 *	the launches that wait for a job before waiting for it; a launch that
 *	has been submitted keeps what it waits for. To keep the syncobj past
 *	vgpu_job_wait(), copy it and set @syncobj to 0 before the wait: the
 *	wait then leaves it alone, and vgpu_syncobj_destroy() releases it.
 */
struct vgpu_job {
	struct vgpu_device *dev;
	uint64_t id;
	uint32_t syncobj;
};

/**
 * struct vgpu_job_result - how a job ended.
 * @error: 0, or the negative errno the device reported (-EFAULT for a
 *	stray memory access, -EIO when the backend died, ...).
 * @start_cycle: first thread block dispatched.
 * @end_cycle: last thread block finished.
 * @cycles: end_cycle - start_cycle.
 * @warp_insts: warp instructions executed.
 * @tbs_done: thread blocks finished.
 * @fault_flags: %DRM_VGPU_FAULT_* (uapi/drm/vgpu_drm.h): which of the
 *	three below tell where @error came from.
 * @fault_tb: the failing block's linear index in the grid.
 * @fault_pc: its failing instruction's word index in the program's code
 *	(as `vgpu compile` numbers the code).
 * @fault_addr: the device address of its stray access (-EFAULT).
 */
struct vgpu_job_result {
	int error;
	uint64_t start_cycle;
	uint64_t end_cycle;
	uint64_t cycles;
	uint64_t warp_insts;
	uint64_t tbs_done;
	uint32_t fault_flags;
	uint32_t fault_tb;
	uint32_t fault_pc;
	uint64_t fault_addr;
};

int vgpu_submit(struct vgpu_device *dev, const struct vgpu_program *prog,
		const struct vgpu_launch *launch, struct vgpu_job *job);
/* Destroys a syncobj taken from a &vgpu_job.syncobj (0: nothing). */
void vgpu_syncobj_destroy(struct vgpu_device *dev, uint32_t syncobj);
/*
 * Waits until the job ends (@timeout_ns relative, < 0 for no limit), then
 * reports it and releases the job. Returns -ETIME on timeout (the job is
 * then still owned by the caller).
 */
int vgpu_job_wait(struct vgpu_job *job, int64_t timeout_ns,
		  struct vgpu_job_result *res);
/*
 * Joins (or leaves) the device's synchronised clock: while this process
 * runs on the host between its waits, simulated time stands; among jobs
 * arriving at the same cycle, lower @rank goes first (uapi vgpu_drm.h,
 * struct drm_vgpu_clock_sync). Wait for jobs with vgpu_job_wait().
 */
int vgpu_clock_sync(struct vgpu_device *dev, bool join, uint32_t rank);
/*
 * How a failed job failed, for a message: "Bad address in kernel saxpy,
 * block 3, instruction 17, address 0x7f000" (what of it @res knows).
 * @prog and @entry name the kernel; @prog may be NULL. Returns @buf.
 */
const char *vgpu_job_describe(const struct vgpu_job_result *res,
			      const struct vgpu_program *prog, uint32_t entry,
			      char *buf, size_t len);

/* vgpu_submit() + vgpu_job_wait(); the job's own error is in @res. */
int vgpu_run(struct vgpu_device *dev, const struct vgpu_program *prog,
	     const struct vgpu_launch *launch, struct vgpu_job_result *res);

/*
 * The local device (vgpu_local.c): vgpu.ko's command processor and the GPU
 * model of vgpud (userspace/sim) run in this process, over 256 MiB of
 * device memory as the module's default; no kernel module or daemon is
 * involved, and the same calls take the same cycles as on the render node.
 * Every function above works on it; vgpu_job_wait() runs the model until
 * the job is over (or its host-time timeout passes, -ETIME), and returns
 * -EDEADLK when every thread of the device waits and nothing can run; a
 * block stuck for good (a barrier no thread reaches) fails its job with
 * -ETIMEDOUT at its time limit, as on the render node. vgpu_device_fd() is -1. One vgpu_device is used by one
thread at a time; its peers may be used by others.
 */

/*
 * The local device of the GPU preset @gpu ("fermi-gtx480", ...; NULL: the
 * default, %VGPU_LOCAL_DEFAULT_PRESET) with @vram_bytes of device memory
 * (0: 256 MiB). An unknown preset is -EINVAL, and vgpu_last_error() names
 * it and the known ones. Needs no header but this one.
 */
#define VGPU_LOCAL_DEFAULT_PRESET	"fermi-gtx480"
int vgpu_device_open_local_preset(const char *gpu, uint64_t vram_bytes,
				  struct vgpu_device **out);
/* NULL-terminated list of the GPU presets' names. */
const char *const *vgpu_local_presets(void);
/* The same with the model's configuration (userspace/sim/vgpu_sim.h). */
int vgpu_device_open_local(const struct vgpu_sim_config *cfg, struct vgpu_device **out);
/* The same with @vram_size bytes of device memory (0: the default). */
int vgpu_device_open_local_vram(const struct vgpu_sim_config *cfg, uint64_t vram_size,
				struct vgpu_device **out);
/*
 * Another file of @dev's local device, as another process opening the
 * render node: clients of one device, for instance the programs of a
 * multi-programmed experiment, one thread each, on the synchronised clock
 * (vgpu_clock_sync()). The device lives while any of its files is open.
 * -ENODEV when @dev is not local.
 */
int vgpu_device_open_local_peer(struct vgpu_device *dev, struct vgpu_device **out);
/*
 * A local device's attributes by their sysfs names
 * (Documentation/ABI/testing/sysfs-driver-vgpu), with the same values,
 * ranges and errors (-EINVAL, -ERANGE; -ENOENT for an unknown name):
 * store, or show into @buf of @len bytes as sysfs shows it.
 */
int vgpu_local_attr_store(struct vgpu_device *dev, const char *name, const char *value);
int vgpu_local_attr_show(struct vgpu_device *dev, const char *name, char *buf, size_t len);
/*
 * The text of the driver's debugfs file @name that a local device has
 * ("preempt", "maestro"); -ENOENT for another, -ENODEV if not local.
 */
int vgpu_local_debugfs(struct vgpu_device *dev, const char *name, char *buf, size_t len);
/* The model's counters since the device was opened; -ENODEV if not local. */
int vgpu_local_stats(struct vgpu_device *dev, struct vgpu_sim_stats *st);
/* Host time spent in the model so far (in waits); -ENODEV if not local. */
int vgpu_local_model_ns(struct vgpu_device *dev, uint64_t *ns);
/**
 * enum vgpu_limit - what bounds a launch's TBs per SM (Yoon et al. §II):
 * the scheduling limits (TB slots, threads), the capacity limits
 * (registers, shared memory), or the grid, every TB of which fits the GPU
 * at once. The first four are the driver's &enum vgpu_occ_limit.
 */
enum vgpu_limit {
	VGPU_LIMIT_TBS,
	VGPU_LIMIT_THREADS,
	VGPU_LIMIT_REGS,
	VGPU_LIMIT_SHARED,
	VGPU_LIMIT_GRID,
	VGPU_LIMIT_COUNT,
};
/*
 * TBs of the launches since the device was opened, by the limit that binds
 * each launch under the attributes it was submitted with (the driver's
 * vgpu_smst_occupancy_limit()); -ENODEV if not local.
 */
int vgpu_local_limits(struct vgpu_device *dev, uint64_t tbs[VGPU_LIMIT_COUNT]);
/**
 * struct vgpu_kernel_limit - what binds one kernel's TBs per SM.
 * @kernel: the kernel (entry point).
 * @limit: the limit an empty SM puts on its TBs, whatever the grid (never
 *	%VGPU_LIMIT_GRID): the one a grid larger than the GPU meets.
 * @tbs_per_sm: how many fit under it.
 */
struct vgpu_kernel_limit {
	char kernel[VGPU_PROGRAM_NAME_LEN];
	enum vgpu_limit limit;
	uint32_t tbs_per_sm;
};
/*
 * The distinct kernel limits of the launches since the device was opened,
 * in launch order (a kernel launched with other block sizes can appear
 * more than once): the first @max into @out, *@count how many there are
 * (at most 64 are kept). -ENODEV if not local.
 */
int vgpu_local_kernel_limits(struct vgpu_device *dev, struct vgpu_kernel_limit *out,
			     unsigned int max, unsigned int *count);

/*
 * For the model's own tests (userspace/tests/test_sim.c), on a local
 * device: the model and its device memory (@size out), which tests of the
 * model's command interface drive directly while no launch of the device
 * runs; NULL if not local.
 */
struct vgpu_sim *vgpu_local_sim(struct vgpu_device *dev);
uint8_t *vgpu_local_vram(struct vgpu_device *dev, uint64_t *size);
/*
 * @hook sees every event the model posts, before the command processor
 * does, on the thread that runs the model (NULL: none); -ENODEV if not
 * local.
 */
int vgpu_local_set_evt_hook(struct vgpu_device *dev,
			    void (*hook)(void *ctx, const struct vgpu_evt *evt), void *ctx);
/*
 * @hook sees every launch the local device accepts, on the submitting
 * thread, before any of its blocks runs; it must not call into the device
 * (NULL: none). -ENODEV if not local.
 */
int vgpu_local_set_launch_hook(struct vgpu_device *dev,
			       void (*hook)(void *ctx, const struct vgpu_local_launch *l),
			       void *ctx);
/**
 * struct vgpu_local_preempt_est - Chimera's cost estimates (Park,
 *	dissertation, §4.3.2) as the local device's scheduler makes them (the
 *	driver's vgpu_preempt.c), for vgpu_local_preempt_estimate().
 * @sm_bw_fp: one SM's share of the DRAM bandwidth, bytes per cycle in
 *	1/1024.
 * @switch_cycles: cycles to save the context given through that share.
 * @drain_cycles: cycles to execute the warp instructions given at the CPI
 *	given; UINT64_MAX when no CPI is known.
 */
struct vgpu_local_preempt_est {
	uint64_t sm_bw_fp;
	uint64_t switch_cycles;
	uint64_t drain_cycles;
};
/*
 * The estimates for @ctx_bytes of context to save and @remaining_insts
 * warp instructions to drain at a kernel's CPI of @tb_cycles over
 * @warp_insts (its blocks' sums) into @out. -ENODEV if not local.
 */
int vgpu_local_preempt_estimate(struct vgpu_device *dev, uint64_t ctx_bytes,
				uint64_t remaining_insts, uint64_t tb_cycles,
				uint64_t warp_insts, struct vgpu_local_preempt_est *out);
/*
 * Closes @dev's file and opens a new one on the same local device, as a
 * program that exits and the next one that starts: in between no file is
 * open, so the device starts afresh (the driver forgets its round robin
 * and tells the model to forget its caches, vgpu_sched_fresh_start()).
 * Destroy the file's buffers and programs first; on failure only
 * vgpu_device_close() may follow. -ENODEV if not local.
 */
int vgpu_local_reopen(struct vgpu_device *dev);
/* The data segment the device placed for @prog (0 and 0: none). */
int vgpu_local_program_data(const struct vgpu_program *prog, uint64_t *addr, uint32_t *size);

/**
 * struct vgpu_local_layout - a launch laid out by the driver's code.
 * @desc_addr: its job descriptor in device memory.
 * @num_tbs: thread blocks of the grid.
 * @tbs_per_sm: blocks that fit an empty SM.
 * @regs_per_tb: registers one block occupies.
 * @shared_per_tb: shared-memory bytes one block occupies.
 */
struct vgpu_local_layout {
	uint64_t desc_addr;
	uint32_t num_tbs;
	uint32_t tbs_per_sm;
	uint32_t regs_per_tb;
	uint32_t shared_per_tb;
};

/*
 * For tests of the model's command interface: @launch validated and its
 * descriptor, naming job @job, laid out as vgpu_submit() would, in a new
 * buffer of the device's file, but not scheduled: the caller begins the
 * job on the model (vgpu_local_sim()) and dispatches its blocks itself.
 * A launch without buffers (num_bos 0) gets no range here, not the
 * file's buffers as vgpu_submit() gives it.
 */
int vgpu_local_job_desc(struct vgpu_device *dev, const struct vgpu_program *prog,
			const struct vgpu_launch *launch, uint32_t job,
			struct vgpu_local_layout *out);

#endif /* VGPU_H */
