/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * vgpu_drm.h - the application interface of the vgpu virtual GPU.
 *
 * Applications open the render node (/dev/dri/renderD*), allocate buffer
 * objects in device memory, load programs and submit GPU kernels. Device
 * addresses are byte offsets in the device memory region; a buffer object
 * has one for its whole life.
 *
 * Error conventions shared by every ioctl:
 *   -EINVAL  malformed request (zero sizes, reserved fields or flags set,
 *            unknown parameter, garbage program header)
 *   -E2BIG   a request beyond a device limit (threads, registers, shared
 *            memory, parameter bytes, a buffer larger than device memory)
 *   -ENOENT  unknown GEM, program or syncobj handle, or job id
 *   -ENOSPC  device memory (or a per-file table) exhausted
 *   -EFAULT  unreadable or unwritable user pointer
 *   -ENODEV  no vgpud backend attached
 * Each failure also logs one line at debug level (dynamic debug).
 */
#ifndef _UAPI_VGPU_DRM_H_
#define _UAPI_VGPU_DRM_H_

#include <linux/const.h>

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define DRM_VGPU_GET_PARAM		0x00
#define DRM_VGPU_BO_CREATE		0x01
#define DRM_VGPU_BO_MMAP_OFFSET		0x02
#define DRM_VGPU_PROGRAM_CREATE		0x03
#define DRM_VGPU_PROGRAM_DESTROY	0x04
#define DRM_VGPU_SUBMIT			0x05
#define DRM_VGPU_JOB_INFO		0x06
#define DRM_VGPU_WAIT			0x07
#define DRM_VGPU_CLOCK_SYNC		0x08

#define DRM_IOCTL_VGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_GET_PARAM, struct drm_vgpu_get_param)
#define DRM_IOCTL_VGPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_BO_CREATE, struct drm_vgpu_bo_create)
#define DRM_IOCTL_VGPU_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_BO_MMAP_OFFSET, struct drm_vgpu_bo_mmap_offset)
#define DRM_IOCTL_VGPU_PROGRAM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_PROGRAM_CREATE, struct drm_vgpu_program_create)
#define DRM_IOCTL_VGPU_PROGRAM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_PROGRAM_DESTROY, struct drm_vgpu_program_destroy)
#define DRM_IOCTL_VGPU_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_SUBMIT, struct drm_vgpu_submit)
#define DRM_IOCTL_VGPU_JOB_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VGPU_JOB_INFO, struct drm_vgpu_job_info)
#define DRM_IOCTL_VGPU_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_WAIT, struct drm_vgpu_wait)
#define DRM_IOCTL_VGPU_CLOCK_SYNC \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VGPU_CLOCK_SYNC, struct drm_vgpu_clock_sync)

/**
 * enum drm_vgpu_param - what DRM_IOCTL_VGPU_GET_PARAM can report.
 * @DRM_VGPU_PARAM_VRAM_SIZE: bytes of device memory.
 * @DRM_VGPU_PARAM_BACKEND_ATTACHED: 1 when vgpud is attached, else 0.
 * @DRM_VGPU_PARAM_NUM_SMS: streaming multiprocessors.
 * @DRM_VGPU_PARAM_WARP_SIZE: threads per warp.
 * @DRM_VGPU_PARAM_MAX_THREADS_PER_SM: resident threads per SM.
 * @DRM_VGPU_PARAM_MAX_TBS_PER_SM: resident thread blocks per SM.
 * @DRM_VGPU_PARAM_REGS_PER_SM: 32-bit registers per SM.
 * @DRM_VGPU_PARAM_SHARED_PER_SM: bytes of shared memory per SM.
 * @DRM_VGPU_PARAM_MAX_THREADS_PER_TB: threads per block.
 * @DRM_VGPU_PARAM_MAX_REGS_PER_THREAD: registers per thread.
 * @DRM_VGPU_PARAM_MAX_SHARED_PER_TB: bytes of shared memory per block.
 * @DRM_VGPU_PARAM_CORE_CLOCK_KHZ: SM clock; converts cycles to time.
 * @DRM_VGPU_PARAM_CURRENT_CYCLE: the device's simulated cycle.
 * @DRM_VGPU_PARAM_MAX_LOCAL_PER_THREAD: bytes of local memory per thread.
 * @DRM_VGPU_PARAM_COUNT: the number of parameters; not one itself.
 *
 * Every parameter but %DRM_VGPU_PARAM_VRAM_SIZE and
 * %DRM_VGPU_PARAM_BACKEND_ATTACHED describes the hardware that the attached
 * vgpud models; without a backend those return -ENODEV.
 */
enum drm_vgpu_param {
	DRM_VGPU_PARAM_VRAM_SIZE = 0,		/* bytes of device memory */
	DRM_VGPU_PARAM_BACKEND_ATTACHED = 1,	/* 1 when vgpud is attached */
	DRM_VGPU_PARAM_NUM_SMS = 2,
	DRM_VGPU_PARAM_WARP_SIZE = 3,
	DRM_VGPU_PARAM_MAX_THREADS_PER_SM = 4,
	DRM_VGPU_PARAM_MAX_TBS_PER_SM = 5,
	DRM_VGPU_PARAM_REGS_PER_SM = 6,
	DRM_VGPU_PARAM_SHARED_PER_SM = 7,	/* bytes */
	DRM_VGPU_PARAM_MAX_THREADS_PER_TB = 8,
	DRM_VGPU_PARAM_MAX_REGS_PER_THREAD = 9,
	DRM_VGPU_PARAM_MAX_SHARED_PER_TB = 10,	/* bytes */
	DRM_VGPU_PARAM_CORE_CLOCK_KHZ = 11,
	DRM_VGPU_PARAM_CURRENT_CYCLE = 12,	/* simulated cycle of the device */
	DRM_VGPU_PARAM_MAX_LOCAL_PER_THREAD = 13,	/* bytes */
	DRM_VGPU_PARAM_COUNT
};

/**
 * struct drm_vgpu_get_param - query one device parameter.
 * @param: one of &enum drm_vgpu_param.
 * @pad: must be zero.
 * @value: out, the value.
 */
struct drm_vgpu_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

/**
 * struct drm_vgpu_bo_create - allocate a buffer object in device memory.
 * @size: in, bytes (rounded up to the page size); not zero.
 * @flags: in, must be zero.
 * @handle: out, GEM handle.
 * @device_address: out, where the buffer lives in device memory. Programs
 *	address it with this value.
 *
 * The memory is zeroed. -E2BIG when @size exceeds the device memory,
 * -ENOSPC when no free range is large enough or the file's buffers would
 * hold more than the device's file_vram_pct of it.
 */
struct drm_vgpu_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 device_address;
};

/**
 * struct drm_vgpu_bo_mmap_offset - fake offset for mmap() on the DRM fd.
 * @handle: in, GEM handle.
 * @pad: must be zero.
 * @offset: out, pass to mmap().
 */
struct drm_vgpu_bo_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/**
 * struct drm_vgpu_program_create - load a compiled program (header + code).
 * @data: in, user pointer to the program image (&struct vgpu_program_header
 *	first, see vgpu_program.h).
 * @size: in, bytes at @data; at most %VGPU_PROGRAM_MAX_SIZE.
 * @handle: out, program handle, valid for this file only.
 *
 * The header is validated against the attached device's limits; the image
 * is copied into device memory, where vgpud fetches its code.
 */
struct drm_vgpu_program_create {
	__u64 data;
	__u32 size;
	__u32 handle;
};

/**
 * struct drm_vgpu_program_destroy - drop a program handle.
 * @handle: in, program handle.
 * @pad: must be zero.
 *
 * Jobs already submitted keep the program alive until they finish.
 */
struct drm_vgpu_program_destroy {
	__u32 handle;
	__u32 pad;
};

/** Largest accepted parameter block of one launch (CUDA's limit). */
#define DRM_VGPU_MAX_PARAM_BYTES	4096
/** Largest number of buffer objects one launch may name. */
#define DRM_VGPU_MAX_SUBMIT_BOS		256
/** Largest number of syncobjs one launch may wait for. */
#define DRM_VGPU_MAX_IN_SYNCOBJS	64

/* Priority classes of a launch (&drm_vgpu_submit.priority). */
#define DRM_VGPU_PRIORITY_NORMAL	0
#define DRM_VGPU_PRIORITY_HIGH		1
#define DRM_VGPU_PRIORITY_REALTIME	2

/* &drm_vgpu_submit.flags */
/** Honour &drm_vgpu_submit.not_before_cycle. */
#define DRM_VGPU_SUBMIT_NOT_BEFORE	_BITUL(0)
#define DRM_VGPU_SUBMIT_FLAGS		(DRM_VGPU_SUBMIT_NOT_BEFORE)

/**
 * DRM_VGPU_NOT_BEFORE_AHEAD - how far ahead of the device's current cycle a
 * launch's not-before cycle may lie (2^32 cycles: about three seconds of
 * simulated time at 1.4 GHz, far beyond any real-time period).
 */
#define DRM_VGPU_NOT_BEFORE_AHEAD	_BITULL(32)

/**
 * struct drm_vgpu_submit - launch one GPU kernel.
 * @program: in, program handle.
 * @entry: in, index of the entry point in the program.
 * @grid: in, thread blocks in x, y, z; each at least 1.
 * @block: in, threads per block in x, y, z; each at least 1, product
 *	within the device's and the entry's limit.
 * @dynamic_shared: in, bytes of dynamic (extern) shared memory per block.
 * @params: in, user pointer to the parameter bytes, laid out as the entry's
 *	.param space.
 * @params_size: in, must equal the entry's parameter size.
 * @bo_handles: in, user pointer to an array of __u32 GEM handles: the only
 *	memory the kernel may touch. Each buffer stays alive until the job ends.
 * @num_bos: in, entries at @bo_handles, at most %DRM_VGPU_MAX_SUBMIT_BOS.
 *	0 names no list: the kernel may then touch every buffer object this
 *	file has a handle for at the moment of the SUBMIT (a snapshot; each
 *	stays alive until the job ends), and still no other memory: buffers
 *	of other files fault as before (-EFAULT). At most 65535 buffers
 *	(-E2BIG beyond).
 * @out_syncobj: in, syncobj handle that receives the job's fence, or 0.
 * @flags: in, %DRM_VGPU_SUBMIT_* flags.
 * @priority: in, %DRM_VGPU_PRIORITY_*.
 * @latency_budget_us: in, preemption latency budget of a high-priority or
 *	real-time launch; 0 for the device default.
 * @timeout_us: in, the job's time limit in simulated microseconds from
 *	its first thread block's dispatch (converted with the device's core
 *	clock); 0 for the device's (sysfs job_timeout_us). The lower of the
 *	two applies. A job that runs longer fails with -ETIMEDOUT: its
 *	thread blocks are flushed off the SMs, other jobs are untouched.
 * @not_before_cycle: in, with %DRM_VGPU_SUBMIT_NOT_BEFORE, the simulated
 *	cycle before which no thread block of the job starts; at most
 *	%DRM_VGPU_NOT_BEFORE_AHEAD cycles after the device's current cycle
 *	(-EINVAL otherwise), so that no launch can move the device clock far.
 * @job_id: out, identifies the job for DRM_IOCTL_VGPU_JOB_INFO.
 * @in_syncobjs: in, user pointer to an array of __u32 syncobj handles of
 *	this file: the job's launch dependencies (in-fences). Each handle's
 *	current fence is taken at the SUBMIT; no thread block of the job is
 *	dispatched until every one of them has signalled. Meanwhile the job is
 *	%DRM_VGPU_JOB_QUEUED, holds no SM and keeps no other job - of this file
 *	or another - from running; its time limit counts from its first
 *	dispatch as always. When an in-fence signals with an error the job
 *	fails without running, with -ECANCELED (its own fence is signalled
 *	with it, so the failure carries down a chain). A fence of another
 *	file's or process's job - a syncobj or sync_file shared through a file
 *	descriptor - is as good as one of this file; when that file is closed
 *	first, its unfinished jobs are cancelled and the dependent job fails
 *	with -ECANCELED too. The job of an in-fence that runs on this device
 *	ends at some cycle; the dependent job's blocks may start at that
 *	same cycle.
 * @num_in_syncobjs: in, entries at @in_syncobjs, at most
 *	%DRM_VGPU_MAX_IN_SYNCOBJS (-E2BIG beyond); 0 for none (@in_syncobjs
 *	is then not read).
 * @in_pad: must be zero.
 *
 * -ENOSPC when the file already has the device's file_max_jobs jobs queued
 * or running; -E2BIG when the entry needs more local memory per thread than
 * the device allows (%DRM_VGPU_PARAM_MAX_LOCAL_PER_THREAD). For
 * @in_syncobjs: -EFAULT when the array is unreadable, -ENOENT for a handle
 * the file does not have, -EINVAL for a syncobj that holds no fence (never
 * signalled nor given a job's fence) or a non-zero @in_pad.
 *
 * The fields from @in_syncobjs on came later: the DRM core zero-fills what
 * a caller built with older headers does not pass, which waits for nothing.
 */
struct drm_vgpu_submit {
	__u32 program;
	__u32 entry;
	__u32 grid[3];
	__u32 block[3];
	__u32 dynamic_shared;
	__u32 params_size;
	__u64 params;
	__u64 bo_handles;
	__u32 num_bos;
	__u32 out_syncobj;
	__u32 flags;
	__u32 priority;
	__u32 latency_budget_us;
	__u32 timeout_us;
	__u64 not_before_cycle;
	__u64 job_id;
	__u64 in_syncobjs;
	__u32 num_in_syncobjs;
	__u32 in_pad;
};

/* &drm_vgpu_job_info.state */
#define DRM_VGPU_JOB_QUEUED	0	/* waiting for SMs or in-fences */
#define DRM_VGPU_JOB_RUNNING	1	/* thread blocks dispatched */
#define DRM_VGPU_JOB_DONE	2	/* finished; @error tells how */

/* &drm_vgpu_job_info.flags */
/** Forget the job once reported (only for a finished job). */
#define DRM_VGPU_JOB_INFO_RELEASE	_BITUL(0)

/**
 * struct drm_vgpu_job_info - state and statistics of a submitted job.
 * @job_id: in, from &drm_vgpu_submit.job_id.
 * @flags: in, %DRM_VGPU_JOB_INFO_* flags.
 * @state: out, %DRM_VGPU_JOB_*.
 * @pad: must be zero.
 * @error: out, 0 on success, else a negative errno: -EFAULT for a memory
 *	access outside the job's buffers, -EIO when the backend died, -EILSEQ
 *	for an illegal instruction, -ETIMEDOUT when it ran past its time limit
 *	(&drm_vgpu_submit.timeout_us), -ENODEV when the device was removed,
 *	-ECANCELED when its file was closed before it ended or one of its
 *	in-fences (&drm_vgpu_submit.in_syncobjs) signalled with an error (it
 *	then ran no block: @start_cycle is 0).
 * @start_cycle: out, cycle at which the first thread block was dispatched.
 * @end_cycle: out, cycle at which the last thread block finished.
 * @warp_insts: out, warp instructions executed.
 * @tbs_done: out, thread blocks finished.
 * @fault_flags: out, which of the three below say something
 *	(%DRM_VGPU_FAULT_*): a job whose first error came from a thread block
 *	(-EFAULT, -EILSEQ) names that block, and where it was.
 * @fault_tb: out, with %DRM_VGPU_FAULT_TB: the linear index in the grid
 *	(x + y * grid[0] + z * grid[0] * grid[1]) of the block whose error
 *	failed the job.
 * @fault_pc: out, with %DRM_VGPU_FAULT_PC: the index of the 64-bit word,
 *	in the program image's code section, of the instruction that failed
 *	it, as ``vgpu compile`` numbers the code.
 * @fault_addr: out, with %DRM_VGPU_FAULT_ADDR: the device address of the
 *	access outside the job's buffers (-EFAULT).
 * @fault_pad: out, zero.
 *
 * A finished job's record stays until it is read with
 * %DRM_VGPU_JOB_INFO_RELEASE or its file is closed. The fault fields came
 * after the others: a caller that passes the shorter structure of older
 * headers gets the rest as before.
 */
struct drm_vgpu_job_info {
	__u64 job_id;
	__u32 flags;
	__u32 state;
	__s32 error;
	__u32 pad;
	__u64 start_cycle;
	__u64 end_cycle;
	__u64 warp_insts;
	__u64 tbs_done;
	__u32 fault_flags;
	__u32 fault_tb;
	__u32 fault_pc;
	__u32 fault_pad;
	__u64 fault_addr;
};

/* &drm_vgpu_job_info.fault_flags */
#define DRM_VGPU_FAULT_TB	_BITUL(0)	/* fault_tb is the failing block */
#define DRM_VGPU_FAULT_PC	_BITUL(1)	/* fault_pc its instruction */
#define DRM_VGPU_FAULT_ADDR	_BITUL(2)	/* fault_addr the address it touched */

/**
 * struct drm_vgpu_wait - wait for a job of this file to end.
 * @job_id: in, from &drm_vgpu_submit.job_id.
 * @timeout_ns: in, relative timeout in nanoseconds of host time; negative
 *	for none.
 * @flags: in, must be zero.
 * @pad: must be zero.
 *
 * Returns 0 once the job has ended (JOB_INFO then tells how), -ETIME when
 * the timeout passed first, -EINTR on a signal, -ENOENT for a job this file
 * has no record of. A file that joined the synchronised clock must wait
 * for its jobs with this ioctl: only here does it let simulated time run
 * (see &drm_vgpu_clock_sync).
 */
struct drm_vgpu_wait {
	__u64 job_id;
	__s64 timeout_ns;
	__u32 flags;
	__u32 pad;
};

/* &drm_vgpu_clock_sync.flags */
/** Join the synchronised clock (without it: leave it). */
#define DRM_VGPU_CLOCK_SYNC_JOIN	_BITUL(0)
#define DRM_VGPU_CLOCK_SYNC_FLAGS	(DRM_VGPU_CLOCK_SYNC_JOIN)

/**
 * struct drm_vgpu_clock_sync - make this file's host time take no
 * simulated time.
 * @flags: in, %DRM_VGPU_CLOCK_SYNC_JOIN to join, 0 to leave.
 * @rank: in, when joining: orders the jobs of different files that arrive
 *	at the same cycle (lower first; then submission order). A non-zero
 *	rank also gives the file its own part of the device memory (one of
 *	seven eighths, by rank), where its buffers, programs and job
 *	descriptors go while they fit, so that their addresses - and with
 *	them cache sets and DRAM rows - do not depend on how the host
 *	interleaves the allocations of different processes.
 *
 * The device clock normally runs whenever the GPU has work, whatever the
 * processes feeding it are doing, so the cycle at which a program's next
 * launch arrives depends on host scheduling. While any joined file is
 * running on the host - it has joined and is not blocked in
 * DRM_IOCTL_VGPU_WAIT - the device holds its clock: vgpud stops at the
 * current cycle and the scheduler takes no decision. When every joined
 * file waits, the jobs submitted meanwhile arrive together at that cycle,
 * in @rank order, and time runs again until a job some joined file waits
 * for ends. A multi-process run is then as deterministic as a single
 * program: experiments (vgpu bench) start their programs together this
 * way and measure them in cycles only.
 *
 * The hold is fenced. It applies only while every active job belongs to a
 * file that had joined when it submitted: a process that did not join is
 * never stopped - its first launch lets time run until its jobs end (the
 * joined files' runs are then no longer repeatable). A joined file that
 * runs on the host longer than the device's hold limit without waiting
 * (sysfs clock_hold_ms) is made to leave. Closing a file leaves.
 *
 * Returns 0; -EINVAL for unknown flags or non-zero @rank when leaving.
 */
struct drm_vgpu_clock_sync {
	__u32 flags;
	__u32 rank;
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VGPU_DRM_H_ */
