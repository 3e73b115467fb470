/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu Kernel Control Block (KCB) table.
 *
 * Park, dissertation, Ch. II, Fig. 2.3: one entry per launched GPU kernel
 * with the launching process, the grid, the executed TBs, the resource needs
 * of one TB and runtime information.
 */
#ifndef _VGPU_KCB_H_
#define _VGPU_KCB_H_

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "vgpu_smst.h"

struct vgpu_kcb_entry;

/**
 * enum vgpu_kcb_state - life of a KCB entry (values of the uapi
 * %DRM_VGPU_JOB_* states).
 * @VGPU_KCB_QUEUED: waiting; no TB dispatched yet.
 * @VGPU_KCB_RUNNING: at least one TB dispatched.
 * @VGPU_KCB_DONE: ended (all TBs done, or failed); see
 *	&vgpu_kcb_entry.error.
 */
enum vgpu_kcb_state {
	VGPU_KCB_QUEUED = 0,
	VGPU_KCB_RUNNING = 1,
	VGPU_KCB_DONE = 2,
};

/**
 * struct vgpu_kcb_fault - the thread block whose error failed a job.
 * @flags: %DRM_VGPU_FAULT_* of the fields that say something.
 * @tb: the block's linear index in the grid.
 * @pc: word index of its failing instruction in the program's code.
 * @addr: the device address of its stray access (-EFAULT).
 */
struct vgpu_kcb_fault {
	u32 flags;
	u32 tb;
	u32 pc;
	u64 addr;
};

/**
 * struct vgpu_kcb_entry_ops - what the owner of an entry does at its end.
 * @done: the job ended (state is %VGPU_KCB_DONE, error set): signal its
 *	fence, drop the resources it held. Called once, with the device lock
 *	held, before the KCB drops its reference.
 * @release: the last reference is gone: free the memory. Any context that
 *	may sleep; the device lock may or may not be held.
 */
struct vgpu_kcb_entry_ops {
	void (*done)(struct vgpu_kcb_entry *e);
	void (*release)(struct vgpu_kcb_entry *e);
};

/**
 * struct vgpu_kcb_entry - one launched GPU kernel (a job).
 * @ref: references: the KCB's while the entry is active, the owning
 *	file's job record, and temporary ones of ioctls.
 * @ops: owner callbacks.
 * @kcb: table the entry's id belongs to, NULL before vgpu_kcb_add().
 * @id: job id, unique among all live entries (u32, never 0).
 * @link: position in &vgpu_kcb.active (arrival order), while active.
 * @active: on &vgpu_kcb.active.
 * @owner: opaque owner (the DRM file), for debugging output.
 * @pid: thread-group id of the launching process.
 * @kernel_key: which kernel it launches, the same for every launch of one
 *	entry of the same code (from the program's hash and the entry index;
 *	0 unknown). Policies that learn per kernel recognise a kernel that
 *	comes back by it (GPU Maestro, Ch. V §5.4.1).
 * @grid: thread blocks in x, y, z.
 * @block: threads per block in x, y, z.
 * @num_tbs: thread blocks of the grid.
 * @next_tb: next TB to dispatch (linear index, x fastest).
 * @tbs_running: TBs dispatched and not yet finished.
 * @tbs_done: TBs that finished successfully.
 * @res: resources of one TB on an SM.
 * @priority: %DRM_VGPU_PRIORITY_* class.
 * @latency_budget_us: preemption latency budget (0: device default).
 * @timeout_us: the launch's time limit in simulated microseconds
 *	(&drm_vgpu_submit.timeout_us; 0: the device's). See
 *	vgpu_sched_deadline().
 * @not_before: with %DRM_VGPU_SUBMIT_NOT_BEFORE, the cycle before which no
 *	TB starts; 0 otherwise.
 * @arrival: cycle at which the job enters the FCFS order: the later of
 *	the submission cycle and @not_before.
 * @rank: among jobs of the same @arrival, lower ranks come first (the
 *	submitting file's &drm_vgpu_clock_sync.rank; 0 otherwise).
 * @submit_cycle: device cycle when the job was submitted.
 * @start_cycle: cycle at which the daemon applied the first dispatch; until
 *	the daemon has consumed it (see vgpu_sched_applied()), the cycle at
 *	which it was issued.
 * @end_cycle: cycle at which the job ended.
 * @warp_insts: warp instructions executed, summed over finished TBs.
 * @max_tb_insts: the most warp instructions one finished TB executed.
 * @tb_cycles: cycles from dispatch to completion, summed over finished TBs
 *	(TB_DONE's tb_cycles); with @warp_insts and @tbs_done this gives the
 *	average TB cycles and instructions of Ch. II's runtime information.
 * @requeue: TBs that were preempted and must be issued again, first in
 *	first out; the TB scheduler re-issues them before any new TB
 *	(Chimera, Fig. 4.4). Only filled by a preemption mechanism.
 * @nr_requeued: entries on @requeue.
 * @plan_sms: the kernel scheduler's SM target for this kernel (spatial
 *	policies; 0 when the policy does not map SMs).
 * @plan_want: scratch of the kernel scheduler: SMs or TBs per SM the
 *	kernel could use.
 * @plan_have: scratch of the kernel scheduler: SMs or TBs given so far.
 * @quota: the kernel scheduler's per-SM TB quota for this kernel: at most
 *	this many of its TBs run on one SM (0: no limit but room).
 * @state: &enum vgpu_kcb_state.
 * @error: 0, or the negative errno that failed the job. Once set, no more
 *	TBs are dispatched and those running are flushed off their SMs
 *	(vgpu_sched_cancel()).
 * @fault: where @error came from, when a thread block's did
 *	(&drm_vgpu_job_info.fault_flags and the fields after it).
 * @begun: %VGPU_CMD_JOB_BEGIN has been issued.
 * @started: the daemon has consumed the JOB_BEGIN; @start_cycle is final.
 * @begin_seq: command-ring producer index just past the JOB_BEGIN.
 * @desc_addr: device address of its &struct vgpu_job_desc.
 * @ctx_bytes: size of one TB's saved context (uapi vgpu_ctx_bytes()).
 * @idempotent: the kernel is idempotent as a whole: its entry has neither
 *	atomics nor global stores that may overwrite what it reads (the
 *	compiler's %VGPU_ENTRY_HAS_ATOMICS and %VGPU_ENTRY_HAS_GLOBAL_RMW).
 *	Strict idempotence (§4.4.3) flushes only such kernels' TBs.
 * @unclocked: submitted by a file that had not joined the synchronised
 *	clock: while it is active the clock does not hold (vgpu_clock_hold.c).
 * @barred: starts no block in the current scheduling pass: its file is at
 *	its limit or owes another file its fair share (vgpu_sched_fair()).
 * @preempted: TBs preempted so far (switch or flush).
 * @lost_insts: warp instructions thrown away by flushes.
 * @deps: in-fences (&drm_vgpu_submit.in_syncobjs) not yet signalled, plus
 *	one while the submitter is still arming them (vgpu_kcb_deps_init()).
 *	Atomic: a fence's callback decrements it in any context
 *	(vgpu_kcb_dep_signal()).
 * @dep_error: 0, or the error of the first in-fence that signalled with
 *	one. Atomic, as @deps.
 * @blocked: the job waits for its in-fences: it dispatches nothing and is
 *	no candidate of any policy (vgpu_kcb_entry_wants_tbs()). Set before
 *	the entry is added; cleared by the first scheduling pass that sees
 *	@deps at 0 (vgpu_sched_unblock()).
 *
 * Every field but @ref, @deps and @dep_error is protected by the device
 * lock.
 */
struct vgpu_kcb_entry {
	struct kref ref;
	const struct vgpu_kcb_entry_ops *ops;
	struct vgpu_kcb *kcb;
	u32 id;
	struct list_head link;
	bool active;
	const void *owner;
	pid_t pid;
	u64 kernel_key;
	u32 grid[3];
	u32 block[3];
	u32 num_tbs;
	u32 next_tb;
	u32 tbs_running;
	u32 tbs_done;
	struct vgpu_tb_res res;
	u32 priority;
	u32 latency_budget_us;
	u32 timeout_us;
	u64 not_before;
	u64 arrival;
	u32 rank;
	u64 submit_cycle;
	u64 start_cycle;
	u64 end_cycle;
	u64 warp_insts;
	u64 max_tb_insts;
	u64 tb_cycles;
	struct list_head requeue;
	u32 nr_requeued;
	u32 plan_sms;
	u32 plan_want;
	u32 plan_have;
	u32 quota;
	enum vgpu_kcb_state state;
	int error;
	struct vgpu_kcb_fault fault;
	bool begun;
	bool started;
	u32 begin_seq;
	u64 desc_addr;
	u64 ctx_bytes;
	bool idempotent;
	bool unclocked;
	bool barred;
	u32 preempted;
	u64 lost_insts;
	atomic_t deps;
	atomic_t dep_error;
	bool blocked;
};

/**
 * struct vgpu_kcb_tb - a preempted TB waiting on &vgpu_kcb_entry.requeue.
 * @link: position on the list.
 * @tb: linear TB index.
 * @ctx: its saved context when a context switch preempted it (the
 *	scheduler's &struct vgpu_sched_ctx, owned by this record until the TB
 *	is dispatched again), NULL when it starts from scratch.
 */
struct vgpu_kcb_tb {
	struct list_head link;
	u32 tb;
	void *ctx;
};

/**
 * struct vgpu_kcb - the KCB table.
 * @ids: id -> entry for every live entry (active or only referenced by a
 *	job record), so ids stay unique while anything can name them. Has its
 *	own internal lock.
 * @next_id: cursor of xa_alloc_cyclic().
 * @active: active entries (not yet %VGPU_KCB_DONE), ordered by
 *	(&vgpu_kcb_entry.arrival, submission). Device lock.
 * @num_active: entries on @active. Device lock.
 */
struct vgpu_kcb {
	struct xarray ids;
	u32 next_id;
	struct list_head active;
	u32 num_active;
};

void vgpu_kcb_init(struct vgpu_kcb *kcb);
void vgpu_kcb_fini(struct vgpu_kcb *kcb);
void vgpu_kcb_entry_init(struct vgpu_kcb_entry *e,
			 const struct vgpu_kcb_entry_ops *ops);
int vgpu_kcb_add(struct vgpu_kcb *kcb, struct vgpu_kcb_entry *e, u64 cycle);
int vgpu_kcb_requeue_tb_ctx(struct vgpu_kcb_entry *e, u32 tb, void *ctx);
void *vgpu_kcb_next_ctx(const struct vgpu_kcb_entry *e);
struct vgpu_kcb_entry *vgpu_kcb_find_active(struct vgpu_kcb *kcb, u32 id);
void vgpu_kcb_retire(struct vgpu_kcb *kcb, struct vgpu_kcb_entry *e);
int vgpu_kcb_requeue_tb(struct vgpu_kcb_entry *e, u32 tb);
u32 vgpu_kcb_next_tb(const struct vgpu_kcb_entry *e);
void vgpu_kcb_take_tb(struct vgpu_kcb_entry *e);
u64 vgpu_kcb_ipc_milli(const struct vgpu_kcb_entry *e, u64 cycle);

/**
 * vgpu_kcb_get() - take a reference on an entry.
 * @e: the entry.
 *
 * Return: @e.
 */
static inline struct vgpu_kcb_entry *vgpu_kcb_get(struct vgpu_kcb_entry *e)
{
	kref_get(&e->ref);
	return e;
}

void vgpu_kcb_put(struct vgpu_kcb_entry *e);

/**
 * vgpu_kcb_entry_can_end() - whether an active entry is over.
 * @e: the entry.
 *
 * Return: true when all its TBs are done, or it failed and none of its TBs
 * is still running.
 */
static inline bool vgpu_kcb_entry_can_end(const struct vgpu_kcb_entry *e)
{
	if (e->tbs_running)
		return false;
	return e->error || (e->next_tb >= e->num_tbs && !e->nr_requeued);
}

/**
 * vgpu_kcb_entry_wants_tbs() - whether an entry has TBs left to dispatch.
 * @e: the entry.
 *
 * Return: true when it has not failed, does not wait for in-fences
 * (&vgpu_kcb_entry.blocked) and not every TB is dispatched.
 */
static inline bool vgpu_kcb_entry_wants_tbs(const struct vgpu_kcb_entry *e)
{
	return !e->error && !e->blocked &&
	       (e->next_tb < e->num_tbs || e->nr_requeued);
}

/**
 * vgpu_kcb_entry_may_start() - whether an entry may start a TB now.
 * @e: the entry.
 *
 * Return: true when it has TBs to dispatch and is not barred in this pass
 * (&vgpu_kcb_entry.barred).
 */
static inline bool vgpu_kcb_entry_may_start(const struct vgpu_kcb_entry *e)
{
	return vgpu_kcb_entry_wants_tbs(e) && !e->barred;
}

/**
 * vgpu_kcb_entry_tbs_left() - TBs of an entry not yet finished.
 * @e: the entry.
 *
 * Return: TBs running, waiting to be re-issued or never dispatched.
 */
static inline u32 vgpu_kcb_entry_tbs_left(const struct vgpu_kcb_entry *e)
{
	return e->num_tbs - e->next_tb + e->nr_requeued + e->tbs_running;
}

/**
 * vgpu_kernel_key() - &vgpu_kcb_entry.kernel_key of a launch.
 * @prog_hash: &vgpu_program.hash of its program.
 * @entry: its entry index.
 *
 * Return: a key that differs between entries of one program (and, but for
 * hash collisions, between programs); never 0.
 */
static inline u64 vgpu_kernel_key(u64 prog_hash, u32 entry)
{
	u64 key = prog_hash ^ ((entry + 1ull) * 0x9e3779b97f4a7c15ull);

	return key ? key : 1;
}

#endif /* _VGPU_KCB_H_ */
