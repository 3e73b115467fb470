// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu launches: what a SUBMIT becomes before it reaches the scheduler.
 *
 * The launch is checked against its entry and the device, its KCB entry is
 * filled in, and its struct vgpu_job_desc (uapi vgpu_backend.h) is laid out
 * for the daemon. Pure functions, free of ioctl and file glue
 * (vgpu_job.c), so that libvgpu's local device builds its jobs with this
 * same code (Documentation/design.rst, "One command processor, two hosts").
 */

#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>

#include <kunit/visibility.h>

#include "vgpu_launch.h"

/**
 * vgpu_virtual_tbs() - blocks of a virtualised entry that fill the device.
 * @desc: the device.
 * @res: what one block occupies on an SM.
 *
 * A virtualised entry (%VGPU_ENTRY_VIRTUAL_TB) loops over the logical
 * blocks of its grid, taking their indices with NEXTTB; it is launched with
 * as many (virtual) blocks as the device holds at once: NumVirtualTBs =
 * MIN(NewRes, NumLogicalTBs) of seed 003, §4.1. The limits are those of
 * vgpu_smst_occupancy() on an empty SM, times the SMs.
 *
 * Return: the number of blocks, at least 1.
 */
u64 vgpu_virtual_tbs(const struct vgpu_device_desc *desc,
		     const struct vgpu_tb_res *res)
{
	u64 n = desc->max_tbs_per_sm;

	if (res->threads)
		n = min_t(u64, n, desc->max_threads_per_sm / res->threads);
	if (res->regs)
		n = min_t(u64, n, desc->regs_per_sm / res->regs);
	if (res->shared)
		n = min_t(u64, n, desc->shared_per_sm / res->shared);
	return max_t(u64, n, 1) * desc->num_sms;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_virtual_tbs);

/**
 * vgpu_submit_validate() - check a launch against its entry and the device.
 * @args: the SUBMIT arguments.
 * @desc: the attached device.
 * @entries: the program's entries.
 * @num_entries: how many.
 * @res: out, the resources one TB occupies on an SM.
 * @num_tbs: out, thread blocks of the grid; of a virtualised entry, those
 *	that fill the device (vgpu_virtual_tbs()).
 * @why: out, a static string saying what is wrong when the result is not 0.
 *
 * A pure function of its arguments (KUnit tests it). Handles are checked
 * by the caller.
 *
 * Return: 0; -EINVAL for unknown flags, a bad priority, a
 * zero grid or block dimension, a non-zero &drm_vgpu_submit.in_pad, a bad
 * entry index or a parameter size other than the entry's; -E2BIG for a
 * block above the device's or the entry's thread limit, a grid of more than
 * 2^32-1 blocks, registers or shared memory of a block beyond the device,
 * more than %DRM_VGPU_MAX_PARAM_BYTES parameter bytes,
 * %DRM_VGPU_MAX_SUBMIT_BOS buffers or %DRM_VGPU_MAX_IN_SYNCOBJS in-syncobjs.
 */
int vgpu_submit_validate(const struct drm_vgpu_submit *args,
			 const struct vgpu_device_desc *desc,
			 const struct vgpu_program_entry *entries,
			 u32 num_entries, struct vgpu_tb_res *res,
			 u32 *num_tbs, const char **why)
{
	const struct vgpu_program_entry *e;
	u64 threads, tbs, shared;
	int i;

	*why = NULL;
	if (args->flags & ~DRM_VGPU_SUBMIT_FLAGS) {
		*why = "unknown flags";
		return -EINVAL;
	}
	if (args->priority > DRM_VGPU_PRIORITY_REALTIME) {
		*why = "unknown priority";
		return -EINVAL;
	}
	for (i = 0; i < 3; i++) {
		if (!args->grid[i] || !args->block[i]) {
			*why = "zero grid or block dimension";
			return -EINVAL;
		}
	}
	if (args->params_size > DRM_VGPU_MAX_PARAM_BYTES) {
		*why = "parameter block larger than DRM_VGPU_MAX_PARAM_BYTES";
		return -E2BIG;
	}
	if (args->num_bos > DRM_VGPU_MAX_SUBMIT_BOS) {
		*why = "more buffers than DRM_VGPU_MAX_SUBMIT_BOS";
		return -E2BIG;
	}
	if (args->in_pad) {
		*why = "in_pad set";
		return -EINVAL;
	}
	if (args->num_in_syncobjs > DRM_VGPU_MAX_IN_SYNCOBJS) {
		*why = "more in-syncobjs than DRM_VGPU_MAX_IN_SYNCOBJS";
		return -E2BIG;
	}
	if (args->entry >= num_entries) {
		*why = "no such entry point";
		return -EINVAL;
	}
	e = &entries[args->entry];
	if (args->params_size != e->param_size) {
		*why = "parameter size differs from the entry's";
		return -EINVAL;
	}

	threads = (u64)args->block[0] * args->block[1];
	if (threads <= desc->max_threads_per_tb)
		threads *= args->block[2];
	if (threads > desc->max_threads_per_tb) {
		*why = "block larger than the device's block limit";
		return -E2BIG;
	}
	if (e->max_threads_per_tb && threads > e->max_threads_per_tb) {
		*why = "block larger than the entry's .maxntid";
		return -E2BIG;
	}
	tbs = (u64)args->grid[0] * args->grid[1];
	if (tbs <= U32_MAX)
		tbs *= args->grid[2];
	if (tbs > U32_MAX) {
		*why = "grid of more than 2^32-1 blocks";
		return -E2BIG;
	}
	if (e->regs_per_thread > desc->max_regs_per_thread) {
		*why = "entry needs more registers per thread than the device has";
		return -E2BIG;
	}
	if (e->local_per_thread > desc->max_local_per_thread) {
		*why = "entry needs more local memory per thread than the device allows";
		return -E2BIG;
	}
	shared = (u64)e->shared_static + args->dynamic_shared;
	if (shared > desc->max_shared_per_tb ||
	    round_up(shared, (u64)desc->shared_alloc_unit) >
			desc->max_shared_per_tb) {
		*why = "shared memory of a block beyond the device's limit";
		return -E2BIG;
	}
	if (vgpu_tb_res_compute(desc, threads, e->regs_per_thread, shared,
				res) ||
	    res->regs > desc->regs_per_sm) {
		*why = "registers of a block beyond an SM's register file";
		return -E2BIG;
	}
	if (res->threads > desc->max_threads_per_sm) {
		*why = "block larger than an SM's thread slots";
		return -E2BIG;
	}
	*num_tbs = tbs;
	if (e->flags & VGPU_ENTRY_VIRTUAL_TB)
		*num_tbs = min_t(u64, tbs, vgpu_virtual_tbs(desc, res));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_submit_validate);

/**
 * vgpu_job_desc_size() - bytes of a job's descriptor in device memory.
 * @num_bos: buffers the launch names.
 * @prog: its program (a data segment is one more range).
 * @params_size: bytes of its parameter block.
 *
 * Return: the size of the &struct vgpu_job_desc, its ranges and parameters.
 */
size_t vgpu_job_desc_size(u32 num_bos, const struct vgpu_program *prog,
			  u32 params_size)
{
	u32 nr_ranges = num_bos + (prog->data_size ? 1 : 0);

	return sizeof(struct vgpu_job_desc) +
	       nr_ranges * sizeof(struct vgpu_mem_range) + params_size;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_job_desc_size);

/**
 * vgpu_job_desc_init() - lay a job's descriptor out.
 * @buf: where it goes (in device memory).
 * @size: bytes of @buf, vgpu_job_desc_size().
 * @job: the job id.
 * @prog: its program.
 * @args: the launch.
 * @num_bos: buffers it names.
 * @params: its &drm_vgpu_submit.params_size parameter bytes.
 * @idem: the idempotence condition at submission: under
 *	%VGPU_PREEMPT_IDEM_BUFFERS the daemon decides a store's boundary by
 *	the buffers read (%VGPU_JOB_BUFFER_BOUNDARIES).
 *
 * Writes the descriptor, the program's data segment as the range after the
 * buffers' and the parameters; the caller fills in the buffers' ranges.
 *
 * Return: the first of the @num_bos ranges the caller fills in.
 */
struct vgpu_mem_range *vgpu_job_desc_init(void *buf, size_t size, u32 job,
					  const struct vgpu_program *prog,
					  const struct drm_vgpu_submit *args,
					  u32 num_bos, const void *params,
					  enum vgpu_preempt_idem idem)
{
	const struct vgpu_program_entry *e = &prog->entries[args->entry];
	struct vgpu_job_desc *d = buf;
	struct vgpu_mem_range *r = (void *)(d + 1);
	u32 nr = num_bos;

	memset(d, 0, size);
	if (prog->data_size) {
		r[nr].start = prog->data.start;
		r[nr].size = prog->data_size;
		nr++;
	}
	d->abi_version = VGPU_BACKEND_ABI_VERSION;
	d->job = job;
	d->program_addr = prog->image.start;
	d->program_size = prog->size;
	d->entry = args->entry;
	memcpy(d->grid, args->grid, sizeof(d->grid));
	memcpy(d->block, args->block, sizeof(d->block));
	d->shared_bytes = e->shared_static + args->dynamic_shared;
	d->dynamic_shared = args->dynamic_shared;
	d->ranges_offset = sizeof(*d);
	d->num_ranges = nr;
	d->params_offset = sizeof(*d) + nr * sizeof(*r);
	d->params_size = args->params_size;
	if (prog->data_size) {
		d->data_addr = prog->data.start;
		d->data_size = prog->data_size;
	}
	d->priority = args->priority;
	if (idem == VGPU_PREEMPT_IDEM_BUFFERS)
		d->flags = VGPU_JOB_BUFFER_BOUNDARIES;
	if (args->params_size)
		memcpy((void *)d + d->params_offset, params, args->params_size);
	return r;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_job_desc_init);

/**
 * vgpu_launch_kcb_init() - fill in a launch's KCB entry.
 * @e: the entry, initialised with vgpu_kcb_entry_init().
 * @args: the launch, checked by vgpu_submit_validate().
 * @prog: its program.
 * @res: what vgpu_submit_validate() found one TB to occupy.
 * @num_tbs: and the grid's TBs.
 *
 * Everything the scheduler needs to know of the launch; its owner, process
 * and arrival are the caller's.
 */
void vgpu_launch_kcb_init(struct vgpu_kcb_entry *e,
			  const struct drm_vgpu_submit *args,
			  const struct vgpu_program *prog,
			  const struct vgpu_tb_res *res, u32 num_tbs)
{
	const struct vgpu_program_entry *pe = &prog->entries[args->entry];

	memcpy(e->grid, args->grid, sizeof(e->grid));
	memcpy(e->block, args->block, sizeof(e->block));
	e->num_tbs = num_tbs;
	e->res = *res;
	e->ctx_bytes = vgpu_ctx_bytes(args->block[0] * args->block[1] *
				      args->block[2], pe->regs_per_thread,
				      res->shared, pe->local_per_thread);
	/* a virtual block run again would take other logical blocks */
	e->idempotent = !(pe->flags & (VGPU_ENTRY_HAS_ATOMICS |
				       VGPU_ENTRY_HAS_GLOBAL_RMW |
				       VGPU_ENTRY_VIRTUAL_TB));
	e->priority = args->priority;
	e->latency_budget_us = args->latency_budget_us;
	e->timeout_us = args->timeout_us;
	if (args->flags & DRM_VGPU_SUBMIT_NOT_BEFORE)
		e->not_before = args->not_before_cycle;
	e->kernel_key = vgpu_kernel_key(prog->hash, args->entry);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_launch_kcb_init);

/**
 * vgpu_launch_check_arrival() - whether a launch's not-before cycle is in
 *	reach.
 * @e: its KCB entry (vgpu_launch_kcb_init()).
 * @now: the device's current cycle.
 *
 * An idle device jumps to the next arrival, so a not-before cycle far
 * ahead would let any process move the device clock towards the end of
 * its range; at most %DRM_VGPU_NOT_BEFORE_AHEAD cycles ahead are allowed.
 * Written so that no value of @now or of the not-before cycle wraps.
 *
 * Return: 0, or -EINVAL.
 */
int vgpu_launch_check_arrival(const struct vgpu_kcb_entry *e, u64 now)
{
	if (e->not_before <= now)
		return 0;
	return e->not_before - now > DRM_VGPU_NOT_BEFORE_AHEAD ? -EINVAL : 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_launch_check_arrival);

/**
 * vgpu_launch_info() - what JOB_INFO reports of a launch.
 * @e: its KCB entry; device lock held.
 * @info: out: state, error, cycles, warp instructions, TBs done and where
 *	a thread block's error came from.
 */
void vgpu_launch_info(const struct vgpu_kcb_entry *e,
		      struct drm_vgpu_job_info *info)
{
	info->state = e->state;
	info->error = e->error;
	info->start_cycle = e->start_cycle;
	info->end_cycle = e->end_cycle;
	info->warp_insts = e->warp_insts;
	info->tbs_done = e->tbs_done;
	info->fault_flags = e->fault.flags;
	info->fault_tb = e->fault.tb;
	info->fault_pc = e->fault.pc;
	info->fault_pad = 0;
	info->fault_addr = e->fault.addr;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_launch_info);
