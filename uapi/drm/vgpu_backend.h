/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * vgpu_backend.h - the interface between vgpu.ko and vgpud, the process
 * that models the GPU hardware.
 *
 * vgpud opens /dev/vgpu-backend (root only), attaches with a description
 * of the hardware it models and maps three regions: the command ring
 * (kernel -> daemon), the event ring (daemon -> kernel) and the whole device
 * memory. Ring layout follows io_uring: the attach ioctl returns the byte
 * offsets of head, tail, mask and entries inside each ring's mapping.
 *
 * Lock-step protocol (see Documentation/design.rst):
 *  1. The daemon applies every command in the command ring at its current
 *     cycle C.
 *  2. It simulates until the first cycle C' at which something happens (a
 *     thread block finishes, a requested wake-up cycle is reached), posts
 *     the events of C' stamped with C', and calls VGPU_BACKEND_IOC_KICK with
 *     cycle = C'. The kernel consumes the events, makes its decisions and
 *     writes the resulting commands before the ioctl returns; those commands
 *     take effect at C'.
 *  3. With nothing to simulate, the daemon sleeps in poll() until the
 *     command ring is non-empty (POLLIN); simulated time does not advance.
 *  4. While the device clock is held (KICK reports %VGPU_KICK_HOLD), the
 *     daemon sleeps in VGPU_BACKEND_IOC_WAIT_CLOCK before simulating on;
 *     it also calls it when it wakes from poll().
 * A second doorbell is therefore not needed in either direction: KICK is
 * the daemon's, POLLIN the kernel's.
 *
 * Closing the backend file detaches: every job still pending fails with
 * -EIO on its fence.
 */
#ifndef _UAPI_VGPU_BACKEND_H_
#define _UAPI_VGPU_BACKEND_H_

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define VGPU_BACKEND_ABI_VERSION	4
#define VGPU_BACKEND_DEVICE		"/dev/vgpu-backend"

/* mmap() offsets of the three regions of the backend file. */
#define VGPU_BACKEND_OFF_CMD_RING	0x00000000ULL
#define VGPU_BACKEND_OFF_EVT_RING	0x10000000ULL
#define VGPU_BACKEND_OFF_VRAM		0x100000000ULL

#define VGPU_DEVICE_NAME_LEN		32

/**
 * struct vgpu_device_desc - the hardware that the daemon models.
 * @name: NUL-terminated preset name, e.g. "fermi-gtx480".
 * @num_sms: streaming multiprocessors, 1 ... 1024.
 * @warp_size: threads per warp; 32.
 * @max_threads_per_sm: thread slots per SM.
 * @max_tbs_per_sm: thread-block slots per SM, at most 64.
 * @regs_per_sm: 32-bit registers per SM.
 * @shared_per_sm: shared memory bytes per SM.
 * @max_threads_per_tb: largest thread block.
 * @max_regs_per_thread: registers one thread may use.
 * @max_shared_per_tb: shared memory bytes one block may use.
 * @core_clock_khz: SM clock; converts cycles to time.
 * @reg_alloc_unit: registers are allocated to a warp in multiples of this
 *	many per thread (1 for no rounding).
 * @shared_alloc_unit: shared memory is allocated in multiples of this many
 *	bytes (power of two).
 * @mem_bandwidth_mbs: DRAM bandwidth of the whole device in MB/s (0:
 *	unknown); what a context switch's save and restore move at.
 * @max_local_per_thread: bytes of local memory (.local: arrays, spills)
 *	one thread may use; the daemon refuses a launch beyond it, so the
 *	driver does first.
 * @reserved: must be zero.
 */
struct vgpu_device_desc {
	char name[VGPU_DEVICE_NAME_LEN];
	__u32 num_sms;
	__u32 warp_size;
	__u32 max_threads_per_sm;
	__u32 max_tbs_per_sm;
	__u32 regs_per_sm;
	__u32 shared_per_sm;
	__u32 max_threads_per_tb;
	__u32 max_regs_per_thread;
	__u32 max_shared_per_tb;
	__u32 core_clock_khz;
	__u32 reg_alloc_unit;
	__u32 shared_alloc_unit;
	__u32 mem_bandwidth_mbs;
	__u32 max_local_per_thread;
	__u32 reserved[6];
};

/**
 * struct vgpu_ring_offsets - where the fields of a ring live in its mapping.
 * @head: byte offset of the __u32 consumer index (free running).
 * @tail: byte offset of the __u32 producer index (free running).
 * @ring_mask: byte offset of a __u32 that holds entries - 1 (as in
 *	io_uring: the offset, not the mask itself).
 * @ring_entries: byte offset of a __u32 that holds the number of entries,
 *	a power of two.
 * @entries: byte offset of the first entry; entry i is at
 *	entries + (i & mask) * entry_size.
 * @map_size: bytes to mmap (a size, not an offset).
 * @entry_size: bytes per entry (a size, not an offset).
 * @reserved: zero.
 *
 * The producer writes entries, then publishes tail with release semantics;
 * the consumer reads tail with acquire semantics, reads entries, then
 * publishes head with release semantics.
 */
struct vgpu_ring_offsets {
	__u32 head;
	__u32 tail;
	__u32 ring_mask;
	__u32 ring_entries;
	__u32 entries;
	__u32 map_size;
	__u32 entry_size;
	__u32 reserved;
};

/**
 * struct vgpu_backend_attach - VGPU_BACKEND_IOC_ATTACH argument.
 * @abi_version: in, %VGPU_BACKEND_ABI_VERSION.
 * @flags: in, must be zero.
 * @desc: in, the modelled hardware; validated.
 * @cmd: out, layout of the command ring.
 * @evt: out, layout of the event ring.
 * @vram_size: out, bytes of device memory.
 * @start_cycle: out, cycle the device is at (continues across re-attach).
 * @status_addr: out, device address of the thread-block status table:
 *	&struct vgpu_tb_status for every slot, SM by SM (entry
 *	sm * max_tbs_per_sm + slot). The daemon brings it up to date before
 *	every KICK; the kernel reads it while the daemon waits there.
 */
struct vgpu_backend_attach {
	__u32 abi_version;
	__u32 flags;
	struct vgpu_device_desc desc;
	struct vgpu_ring_offsets cmd;
	struct vgpu_ring_offsets evt;
	__u64 vram_size;
	__u64 start_cycle;
	__u64 status_addr;
};

/** &vgpu_tb_status.flags: the block crossed its idempotence boundary. */
#define VGPU_TB_STATUS_CROSSED_BOUNDARY	_BITUL(0)

/**
 * struct vgpu_tb_status - progress of the thread block in one slot (32
 *	bytes), the per-TB statistics of Chimera (Park, dissertation, Ch. IV
 *	§4.3.2): how far a running block has got decides what preempting it
 *	costs.
 * @job: job id of the block in the slot, 0 when the slot is free.
 * @tb: its linear thread-block index.
 * @warp_insts: warp instructions it has executed so far.
 * @start_cycle: cycle at which it was dispatched.
 * @flags: %VGPU_TB_STATUS_CROSSED_BOUNDARY.
 * @reserved: zero.
 */
struct vgpu_tb_status {
	__u32 job;
	__u32 tb;
	__u64 warp_insts;
	__u64 start_cycle;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct vgpu_backend_kick - VGPU_BACKEND_IOC_KICK argument.
 * @cycle: in, the cycle the daemon has simulated up to; events in the event
 *	ring carry cycles <= @cycle. Must not go backwards.
 * @flags: in, must be zero; out, %VGPU_KICK_HOLD when the device clock is
 *	held (a process of the synchronised clock is running on the host, see
 *	&drm_vgpu_clock_sync): the daemon must not simulate past @cycle until
 *	VGPU_BACKEND_IOC_WAIT_CLOCK returns 0.
 * @pending_cmds: out, commands in the command ring after the kernel's turn.
 */
struct vgpu_backend_kick {
	__u64 cycle;
	__u32 flags;
	__u32 pending_cmds;
};

#define VGPU_BACKEND_IOC_MAGIC	'V'
#define VGPU_BACKEND_IOC_ATTACH	_IOWR(VGPU_BACKEND_IOC_MAGIC, 0x01, struct vgpu_backend_attach)
#define VGPU_BACKEND_IOC_KICK	_IOWR(VGPU_BACKEND_IOC_MAGIC, 0x02, struct vgpu_backend_kick)
/*
 * Sleeps until the device clock is no longer held; returns at once when it
 * is not. 0, or -EINTR on a signal. The daemon calls it after a KICK that
 * reported %VGPU_KICK_HOLD and before it starts simulating after an idle
 * period (a hold can begin while it sleeps in poll()).
 */
#define VGPU_BACKEND_IOC_WAIT_CLOCK	_IO(VGPU_BACKEND_IOC_MAGIC, 0x03)

/* &vgpu_backend_kick.flags, out */
#define VGPU_KICK_HOLD		_BITUL(0)

/* Commands, kernel -> daemon. */
enum vgpu_cmd_op {
	VGPU_CMD_NOP = 0,
	/** A job starts: @addr is its &struct vgpu_job_desc in device memory. */
	VGPU_CMD_JOB_BEGIN = 1,
	/** Run thread block @tb of @job on @sm in slot @slot. */
	VGPU_CMD_DISPATCH = 2,
	/** The job is over; the daemon drops its state. */
	VGPU_CMD_JOB_END = 3,
	/**
	 * Simulate up to at least cycle @addr and kick there. @addr 0: forget
	 * every wake-up asked for so far (the command processor no longer
	 * needs one; an idle device then sleeps and its time stands). An
	 * @addr at or before the daemon's cycle when it applies the command
	 * is void: a kick at or after it has been made since it was asked for.
	 */
	VGPU_CMD_WAKE_AT = 4,
	/**
	 * Nothing runs and no program has the device open: forget what the
	 * caches, row buffers and pipelines hold, as a fresh device would.
	 * Between the launches of programs that keep the device open that
	 * state carries over, as on a real GPU.
	 */
	VGPU_CMD_RESET = 5,
	/**
	 * Preempt thread block @tb of @job, running on @sm in @slot, with
	 * the technique in @flags (Park, dissertation, Ch. IV §4.2):
	 * %VGPU_PREEMPT_SWITCH stops the block issuing, lets its
	 * instructions in flight complete and saves its context (registers,
	 * predicates, SIMT stacks, barrier state, shared and local memory) to
	 * the save area at device address @addr, of at least
	 * vgpu_ctx_bytes() bytes, in context bytes / (DRAM bandwidth / SMs)
	 * cycles; %VGPU_PREEMPT_FLUSH drops the block at once (the kernel only
	 * flushes blocks that have not crossed their idempotence boundary: it
	 * runs again from its start). %VGPU_PREEMPT_IDEAL is a context switch
	 * that costs nothing: the slot is free the next cycle and the restore
	 * issues at once; no hardware does that, it is the reference against
	 * which the real techniques' overhead is measured. Either way a
	 * %VGPU_EVT_PREEMPTED event says when the slot is free.
	 */
	VGPU_CMD_PREEMPT = 6,
	/**
	 * Kernel-aware warp scheduling (Park, dissertation, Ch. V §5.4.3):
	 * @flags is the &enum vgpu_kernel_sched mode the warp schedulers use
	 * from the command's cycle on to choose between the kernels (jobs)
	 * whose thread blocks share an SM.
	 */
	VGPU_CMD_SET_KERNEL_SCHED = 7,
	/**
	 * Thread block @tb of @job, running on @sm in @slot, issues first
	 * until it leaves the slot (Park, dissertation, Ch. V §5.4.3): where
	 * another kernel waits for its end, a block being drained or a 2-way
	 * boundary block of a kernel with no more blocks to issue. The
	 * kernel-aware warp schedulers pick its warps before any other while
	 * two or more kernels share the SM; mode %VGPU_KSCHED_NONE ignores it.
	 */
	VGPU_CMD_SET_TB_PRIORITY = 8,
	/**
	 * The warp scheduler of every SM (Park, dissertation, Ch. III; Barnes
	 * et al., sub-core partitioning): @flags is the &enum vgpu_warp_sched
	 * the schedulers use from the command's cycle on.
	 */
	VGPU_CMD_SET_WARP_SCHED = 9,
	/**
	 * The assignment of warps to sub-cores (Barnes et al.): @flags is the
	 * &enum vgpu_subcore_assign_mode for the warps dispatched from the
	 * command's cycle on; resident warps stay where they are.
	 */
	VGPU_CMD_SET_SUBCORE_ASSIGN = 10,
	/**
	 * Per-SM sampling (Kayiran et al., DYNCTA and DYNCORE, §4): @addr is
	 * the period in cycles, 0 off (the default). While blocks are
	 * resident, at the end of every period the model posts one
	 * %VGPU_EVT_SM_SAMPLE per SM, in SM order. Periods count from this
	 * command and, after the device was idle, from the dispatch that
	 * makes it busy: a kernel is sampled at the same cycles of its run
	 * whatever ran before it.
	 */
	VGPU_CMD_SET_SAMPLING = 11,
	/**
	 * Thread block @tb of @job, running on @sm in @slot, is paused
	 * (@flags 1) or runs again (@flags 0): DYNCTA's CTA pausing (Kayiran
	 * et al., §4.1). A paused block stays resident, and its warps issue
	 * only in a cycle in which no warp of an unpaused block on the SM can.
	 */
	VGPU_CMD_SET_TB_PAUSED = 12,
	/**
	 * SM @sm is turned off (@flags 1) or on again (@flags 0): DYNCORE
	 * (Kayiran et al., §4.2). The command processor starts no block on
	 * an SM that is off; the model counts the cycles in which it is off
	 * and holds no block (&vgpu_sim_stats.gated_cycles), the power it
	 * saves with per-core power gating.
	 */
	VGPU_CMD_SET_SM_GATED = 13,
	/**
	 * Virtual Thread (Yoon et al.): @flags is the &enum
	 * vgpu_virtual_thread mode of every SM. Sent only while no thread
	 * block is resident; it sets how many blocks an SM holds (the
	 * command processor dispatches up to that) and how many of them
	 * issue.
	 */
	VGPU_CMD_SET_VIRTUAL_THREAD = 14,
};

/**
 * enum vgpu_virtual_thread - &vgpu_cmd.flags of %VGPU_CMD_SET_VIRTUAL_THREAD.
 * @VGPU_VT_OFF: an SM holds up to its scheduling limit of blocks
 *	(&vgpu_device_desc.max_tbs_per_sm, .max_threads_per_sm), all active
 *	(default).
 * @VGPU_VT_ON: Virtual Thread (Yoon et al. Sec. III-IV): an SM holds
 *	blocks up to its capacity limit (registers, shared memory including a
 *	vgpu_vt_ctx_bytes() context area per block; at most
 *	%VGPU_VT_MAX_TBS blocks of %VGPU_VT_VIRTUAL_WARPS warps in all); at
 *	most the scheduling limit of them are active. An active block whose
 *	unfinished warps all wait for long-latency memory swaps out for the
 *	first ready inactive block, in vgpu_vt_swap_cycles().
 * @VGPU_VT_MAX: the paper's MAX: the capacity limit as under %VGPU_VT_ON
 *	(no context area), every block active: the scheduling limit itself
 *	raised.
 * @VGPU_VT_COUNT: number of modes.
 */
enum vgpu_virtual_thread {
	VGPU_VT_OFF = 0,
	VGPU_VT_ON = 1,
	VGPU_VT_MAX = 2,
	VGPU_VT_COUNT
};

/* Blocks an SM holds under Virtual Thread (the SMST's slots). */
#define VGPU_VT_MAX_TBS		64
/* Virtual warp ids of an SM: 8-bit VWIs (Yoon et al. Sec. IV-C). */
#define VGPU_VT_VIRTUAL_WARPS	256
/* Eq. 1: VWI bits, log2 of the warps a block may have, SIMT stack depth. */
#define VGPU_VT_VWI_BITS	8
#define VGPU_VT_WARP_BITS	5
#define VGPU_VT_STACK_DEPTH	4
/* Eq. 2: shared-memory bandwidth B, bits per cycle (the paper's 512). */
#define VGPU_VT_SWAP_BITS_PER_CYCLE	512

/**
 * vgpu_vt_ctx_bits() - per-block state Virtual Thread saves (Eq. 1).
 * @warps: warps of the block.
 *
 * (N + log2 W) + 96 + 160 x D x W: the first virtual warp id and the warp
 * count, the three 32-bit block indices, and D SIMT stack entries (32-bit
 * mask, 64-bit PC and reconvergence PC) per warp (Yoon et al. Sec. IV-C).
 *
 * Return: bits.
 */
static inline __u32 vgpu_vt_ctx_bits(__u32 warps)
{
	return VGPU_VT_VWI_BITS + VGPU_VT_WARP_BITS + 96 +
	       160 * VGPU_VT_STACK_DEPTH * warps;
}

/**
 * vgpu_vt_ctx_bytes() - shared memory a block's saved state takes.
 * @warps: warps of the block.
 *
 * Return: vgpu_vt_ctx_bits() rounded up to whole bytes.
 */
static inline __u32 vgpu_vt_ctx_bytes(__u32 warps)
{
	return (vgpu_vt_ctx_bits(warps) + 7) / 8;
}

/**
 * vgpu_vt_swap_cycles() - cycles to save or restore a block's state (Eq. 2).
 * @warps: warps of the block.
 *
 * Return: vgpu_vt_ctx_bits() / B, rounded up.
 */
static inline __u32 vgpu_vt_swap_cycles(__u32 warps)
{
	return (vgpu_vt_ctx_bits(warps) + VGPU_VT_SWAP_BITS_PER_CYCLE - 1) /
	       VGPU_VT_SWAP_BITS_PER_CYCLE;
}

/**
 * enum vgpu_warp_sched - &vgpu_cmd.flags of %VGPU_CMD_SET_WARP_SCHED.
 * @VGPU_WARP_SCHED_CONFIG: the scheduler of the daemon's configuration
 *	(default).
 * @VGPU_WARP_SCHED_LRR: loose round robin.
 * @VGPU_WARP_SCHED_GTO: greedy then oldest.
 * @VGPU_WARP_SCHED_TWO_LEVEL: two-level active and pending sets.
 * @VGPU_WARP_SCHED_ELF: earliest load first (Ch. III), without NewCAR
 *	and instruction prefetch.
 * @VGPU_WARP_SCHED_ELF_NEWCAR: ELF with the NewCAR re-execution queue.
 * @VGPU_WARP_SCHED_ELF_PP: ELF++: ELF, NewCAR and next-line instruction
 *	prefetch.
 * @VGPU_WARP_SCHED_RBA: register-bank-aware scheduling.
 * @VGPU_WARP_SCHED_PROGRESS: progress-aware scheduling of virtual thread
 *	blocks (Anantpur and Govindarajan, §4.3.2).
 * @VGPU_WARP_SCHED_COUNT: number of values.
 */
enum vgpu_warp_sched {
	VGPU_WARP_SCHED_CONFIG = 0,
	VGPU_WARP_SCHED_LRR = 1,
	VGPU_WARP_SCHED_GTO = 2,
	VGPU_WARP_SCHED_TWO_LEVEL = 3,
	VGPU_WARP_SCHED_ELF = 4,
	VGPU_WARP_SCHED_ELF_NEWCAR = 5,
	VGPU_WARP_SCHED_ELF_PP = 6,
	VGPU_WARP_SCHED_RBA = 7,
	VGPU_WARP_SCHED_PROGRESS = 8,
	VGPU_WARP_SCHED_COUNT
};

/**
 * enum vgpu_subcore_assign_mode - &vgpu_cmd.flags of
 * %VGPU_CMD_SET_SUBCORE_ASSIGN.
 * @VGPU_SUBCORE_ASSIGN_CONFIG: the assignment of the daemon's
 *	configuration (default).
 * @VGPU_SUBCORE_ASSIGN_RR: round robin, warp W to sub-core W mod N.
 * @VGPU_SUBCORE_ASSIGN_SRR: skewed round robin, (W + W / N) mod N.
 * @VGPU_SUBCORE_ASSIGN_SHUFFLE: seeded balanced random permutations.
 * @VGPU_SUBCORE_ASSIGN_COUNT: number of values.
 */
enum vgpu_subcore_assign_mode {
	VGPU_SUBCORE_ASSIGN_CONFIG = 0,
	VGPU_SUBCORE_ASSIGN_RR = 1,
	VGPU_SUBCORE_ASSIGN_SRR = 2,
	VGPU_SUBCORE_ASSIGN_SHUFFLE = 3,
	VGPU_SUBCORE_ASSIGN_COUNT
};

/**
 * enum vgpu_kernel_sched - &vgpu_cmd.flags of %VGPU_CMD_SET_KERNEL_SCHED.
 * @VGPU_KSCHED_NONE: no kernel awareness: the warp policy alone (default).
 * @VGPU_KSCHED_LRR: loose round robin between the kernels (§5.4.3).
 * @VGPU_KSCHED_IPR: the kernel with the lowest issued-per-ready ratio
 *	first (§5.5.2, Eq. 5.3).
 * @VGPU_KSCHED_FAIR: issue slots shared by quota (§5.5.2, Eq. 5.4).
 * @VGPU_KSCHED_COUNT: number of modes.
 *
 * With one kernel on an SM every mode is %VGPU_KSCHED_NONE.
 */
enum vgpu_kernel_sched {
	VGPU_KSCHED_NONE = 0,
	VGPU_KSCHED_LRR = 1,
	VGPU_KSCHED_IPR = 2,
	VGPU_KSCHED_FAIR = 3,
	VGPU_KSCHED_COUNT
};

/* &vgpu_cmd.flags of PREEMPT: the technique. */
#define VGPU_PREEMPT_SWITCH	1
#define VGPU_PREEMPT_FLUSH	2
#define VGPU_PREEMPT_IDEAL	3
/*
 * &vgpu_cmd.flags of DISPATCH: resume the block from the context a SWITCH
 * saved at @addr (same job and block; any SM, slot and ranges); it issues
 * again once the context is loaded, context bytes / (DRAM bandwidth / SMs)
 * cycles later.
 */
#define VGPU_DISPATCH_RESTORE	_BITUL(0)

/* Save area layout: a header, then per warp, then registers, shared, local. */
#define VGPU_CTX_HEADER_BYTES	256
#define VGPU_CTX_WARP_BYTES	1024

/**
 * vgpu_ctx_bytes() - size of a thread block's saved context.
 * @threads: threads of the block.
 * @regs_per_thread: registers per thread.
 * @shared: shared memory bytes of the block.
 * @local_per_thread: .local bytes per thread.
 *
 * Return: bytes the save area of a %VGPU_PREEMPT_SWITCH must hold; what a
 * switch moves, and so what it costs, is this much.
 */
static inline __u64 vgpu_ctx_bytes(__u32 threads, __u32 regs_per_thread,
				   __u32 shared, __u32 local_per_thread)
{
	__u64 warps = ((__u64)threads + 31) / 32;

	return VGPU_CTX_HEADER_BYTES + warps * VGPU_CTX_WARP_BYTES +
	       warps * 32 * (regs_per_thread * 4ULL + local_per_thread) + shared;
}

/**
 * struct vgpu_cmd - one command-ring entry (64 bytes).
 * @op: &enum vgpu_cmd_op.
 * @flags: DISPATCH: %VGPU_DISPATCH_RESTORE or zero; PREEMPT: the
 *	technique; SET_KERNEL_SCHED: &enum vgpu_kernel_sched; SET_WARP_SCHED:
 *	&enum vgpu_warp_sched; SET_SUBCORE_ASSIGN: &enum
 *	vgpu_subcore_assign_mode; SET_VIRTUAL_THREAD: &enum
 *	vgpu_virtual_thread; otherwise zero.
 * @job: job id (kernel-global).
 * @addr: JOB_BEGIN: device address of the job descriptor; WAKE_AT: cycle;
 *	PREEMPT (switch) and DISPATCH (restore): the context save area.
 * @tb: DISPATCH, PREEMPT: linear thread-block index, x fastest.
 * @sm: DISPATCH, PREEMPT: SM index.
 * @slot: DISPATCH, PREEMPT: thread-block slot on that SM, < max_tbs_per_sm
 *	(< %VGPU_VT_MAX_TBS under Virtual Thread).
 * @reg_base: DISPATCH: first register of the block's range in the SM's
 *	register file.
 * @shared_base: DISPATCH: byte offset of the block's range in the SM's
 *	shared memory.
 * @reserved: zero.
 */
struct vgpu_cmd {
	__u16 op;
	__u16 flags;
	__u32 job;
	__u64 addr;
	__u32 tb;
	__u32 sm;
	__u32 slot;
	__u32 reg_base;
	__u32 shared_base;
	__u32 reserved[7];
};

/* Events, daemon -> kernel. */
enum vgpu_evt_type {
	VGPU_EVT_NOP = 0,
	/** A thread block finished (@status 0) or faulted (@status < 0). */
	VGPU_EVT_TB_DONE = 1,
	/** A WAKE_AT cycle was reached. */
	VGPU_EVT_WAKE = 2,
	/**
	 * A PREEMPT is done: the slot is free. @flags is the technique;
	 * @warp_insts what the block had executed (kept by a switch, lost by
	 * a flush); @tb_cycles the preemption latency, from the command to the
	 * free slot. @status -ENOENT when the block was no longer there (it
	 * finished first: its TB_DONE came before, nothing else changes).
	 */
	VGPU_EVT_PREEMPTED = 3,
	/**
	 * What SM @sm did in the sampling period that ends at @cycle
	 * (%VGPU_CMD_SET_SAMPLING): @sample.
	 */
	VGPU_EVT_SM_SAMPLE = 4,
};

/**
 * struct vgpu_evt_sample - &vgpu_evt.sample: the counters of one SM over
 *	one sampling period (Kayiran et al., §4.1 and §4.2).
 * @c_idle: cycles without a resident block while another SM had one
 *	(C_idle: no thread to issue).
 * @c_mem: cycles in which every resident warp waited for memory (C_mem).
 * @active: cycles in which the SM issued an instruction (DYNCORE's N_act).
 * @resident: cycles with at least one block resident.
 * @warp_insts: warp instructions the SM issued.
 * @reserved: zero.
 */
struct vgpu_evt_sample {
	__u32 c_idle;
	__u32 c_mem;
	__u32 active;
	__u32 resident;
	__u32 warp_insts;
	__u32 reserved;
};

/**
 * VGPU_EVT_F_CROSSED_BOUNDARY - TB_DONE flag: the block executed an
 * instruction the compiler marked as an idempotence boundary (a global
 * atomic, or a global store that may overwrite memory the kernel reads):
 * it is no longer idempotent, re-executing it from its start could give a
 * different result (Chimera's relaxed idempotence).
 */
#define VGPU_EVT_F_CROSSED_BOUNDARY	_BITUL(0)

/**
 * VGPU_EVT_F_FAULT_PC - TB_DONE flag: the block ended on an instruction it
 * could not execute (an access outside the job's memory, an illegal
 * instruction), whose place @fault_pc gives.
 */
#define VGPU_EVT_F_FAULT_PC		_BITUL(1)

/**
 * struct vgpu_evt - one event-ring entry (64 bytes).
 * @type: &enum vgpu_evt_type.
 * @flags: TB_DONE: %VGPU_EVT_F_CROSSED_BOUNDARY, %VGPU_EVT_F_FAULT_PC;
 *	PREEMPTED: the technique; otherwise zero.
 * @job: job id.
 * @cycle: cycle at which the event happened.
 * @tb: thread block index.
 * @sm: SM index.
 * @slot: slot on the SM.
 * @status: 0, or -EFAULT (access outside the job's memory), -EILSEQ
 *	(illegal instruction), -ENOMEM (daemon out of memory).
 * @warp_insts: warp instructions the block executed.
 * @tb_cycles: cycles from dispatch to completion.
 * @fault_addr: device address of the faulting access, when @status is
 *	-EFAULT.
 * @sample: SM_SAMPLE, in place of @warp_insts, @tb_cycles and @fault_addr:
 *	the SM's counters of the period.
 * @fault_pc: with %VGPU_EVT_F_FAULT_PC, the index of the 64-bit word, in
 *	the program's code section (&vgpu_program_header.code_offset), of the
 *	instruction that ended the block, as ``vgpu compile`` numbers them;
 *	else zero.
 * @reserved: zero.
 */
struct vgpu_evt {
	__u16 type;
	__u16 flags;
	__u32 job;
	__u64 cycle;
	__u32 tb;
	__u32 sm;
	__u32 slot;
	__s32 status;
	union {
		struct {
			__u64 warp_insts;
			__u64 tb_cycles;
			__u64 fault_addr;
		};
		struct vgpu_evt_sample sample;
	};
	__u32 fault_pc;
	__u32 reserved;
};

/**
 * struct vgpu_mem_range - one range of device memory a job may access.
 * @start: device address.
 * @size: bytes.
 */
struct vgpu_mem_range {
	__u64 start;
	__u64 size;
};

/*
 * VGPU_JOB_BUFFER_BOUNDARIES - &vgpu_job_desc.flags: a global store the
 * compiler marked as an idempotence boundary crosses it only when it
 * writes into a range (buffer) that a load of the job without .nc has read
 * before; atomics and NEXTTB cross it as always. Set for launches
 * submitted under idempotence "buffers".
 */
#define VGPU_JOB_BUFFER_BOUNDARIES	_BITUL(0)

/**
 * struct vgpu_job_desc - a job, as the kernel lays it out in device memory
 * for the daemon. The ranges follow the descriptor, then the parameters.
 * @abi_version: %VGPU_BACKEND_ABI_VERSION.
 * @job: job id.
 * @program_addr: device address of the program image.
 * @program_size: bytes of the program image.
 * @entry: entry-point index.
 * @grid: blocks in x, y, z.
 * @block: threads in x, y, z.
 * @shared_bytes: shared memory per block (static + dynamic).
 * @dynamic_shared: the dynamic (extern __shared__) part of
 *	@shared_bytes; it follows the static part in the block's range.
 * @params_offset: byte offset of the parameters from the descriptor start.
 * @params_size: bytes of parameters.
 * @ranges_offset: byte offset of the ranges from the descriptor start.
 * @num_ranges: ranges the job may access (its buffers, then the program's
 *	data segment if it has one).
 * @data_addr: device address of the program's data segment, or 0.
 * @data_size: bytes of it.
 * @priority: the launch's priority class.
 * @flags: %VGPU_JOB_BUFFER_BOUNDARIES.
 * @reserved: zero.
 */
struct vgpu_job_desc {
	__u32 abi_version;
	__u32 job;
	__u64 program_addr;
	__u32 program_size;
	__u32 entry;
	__u32 grid[3];
	__u32 block[3];
	__u32 shared_bytes;
	__u32 dynamic_shared;
	__u32 params_offset;
	__u32 params_size;
	__u32 ranges_offset;
	__u32 num_ranges;
	__u64 data_addr;
	__u64 data_size;
	__u32 priority;
	__u32 flags;
	__u32 reserved[8];
};

#endif /* _UAPI_VGPU_BACKEND_H_ */
