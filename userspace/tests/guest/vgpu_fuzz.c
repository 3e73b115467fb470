// SPDX-License-Identifier: MIT
/*
 * vgpu_fuzz - a structured fuzzer of the vgpu render node and of the
 * backend device, run in the test guest (tools/vgpu-vm).
 *
 *	vgpu_fuzz [--seed N] [--calls N] [--procs N] [--no-backend]
 *		  [--hang-limit S] [--known-bugs] [--verbose]
 *
 * Every ioctl of the render node (uapi/drm/vgpu_drm.h) and the DRM core
 * ioctls a render node allows (GEM_CLOSE, PRIME, SYNCOBJ_*, VERSION, GET_CAP,
 * SET_CLIENT_CAP, and the rest refused with EACCES), mmap() of buffer
 * objects and of exported dma-bufs, poll() and read(): random and boundary
 * values in every field (sizes, flags, pads, handles - valid, stale, another
 * file's, huge -, the argument and the user pointers in it NULL, unmapped,
 * misaligned, read-only, straddling into a guard page), mixed with valid
 * objects so that calls get deep: real buffers, real programs (three small
 * PTX kernels compiled by libvgpu, hand-built images that exit or trap,
 * mutated images) and real launches that run on the device, are waited for
 * and whose results are compared with the CPU's. Several processes fuzz at
 * once, each with two files; one more runs races: a child that submits a
 * long job and exits or is killed with SIGKILL at a random moment, JOB_INFO
 * RELEASE, WAIT, GEM_CLOSE and PROGRAM_DESTROY on one file from two
 * processes, CLOCK_SYNC join and leave with a member killed while joined.
 *
 * Then, as root, the backend: vgpud (its pid in /run/vgpud.pid, see
 * tools/guest-init) is stopped, the fuzzer attaches as a rogue backend
 * (ATTACH with random descriptions; the rings and the device memory mapped
 * with right and wrong sizes; commands read; events posted, mostly the ones
 * a model would post and the rest malformed: unknown jobs, SM and slot out
 * of range, bad status values, duplicate TB_DONE, PREEMPTED for nothing,
 * event tails beyond the ring, a command head beyond its tail; KICK with
 * cycles going backwards or jumping; WAIT_CLOCK; poll()) while two more
 * processes submit launches; then it detaches and starts vgpud again with
 * the arguments it had.
 *
 * The fuzzer's own checks, printed as "ok - ..." / "not ok - ..." lines:
 * every rejected call returned an errno documented for it, every rejection
 * it could predict (a pad set, an unknown flag, a bad pointer, ...) got
 * exactly that errno (those that depend on the device are not judged for
 * calls made while vgpud is away: no device, or the rogue backend's), every
 * job ended with a documented error and the
 * launches it can check computed what the CPU computes, a store outside a
 * job's buffers failed with EFAULT and left another file's buffer alone, no
 * call ran past its limit (a monitor process watches every call; the limit
 * is --hang-limit seconds plus the call's own timeout; a wait without a
 * timeout for a job counts from the job's last progress - its KCB line or
 * its running blocks' instruction counts changing - since how long a job
 * takes in host time depends on the host's load), no process died of
 * a signal it was not sent, vgpud works again after the rogue backend, and
 * at the end the device still computes right.
 *
 * The calls and their arguments are a function of --seed and of the results
 * of earlier calls (handles, job ids); where a result depends on timing (a
 * job has finished or not) two runs may part. --calls bounds the fuzzing
 * calls: 55 % for the render workers, 15 % for the races, the rest for the
 * backend (without it, the races get it); children started just before a
 * share runs out may make a few more, and setup, waiting for the last jobs
 * and the checks make a few hundred, counted apart. The summary gives the
 * calls per ioctl and the results per errno (--verbose: per ioctl and
 * errno).
 *
 * Runaway kernels (hours of simulated time) and mutated programs the
 * driver accepted are launched with a time limit (drm_vgpu_submit.timeout_us)
 * and must end with -ETIMEDOUT or another documented error while the other
 * files' jobs go on.
 *
 * What it does not do unless asked (--known-bugs), because the DRM core is
 * known to report it: SYNCOBJ_WAIT with 2^30 handles (its kmalloc WARNs).
 * It never joins the clock with a file and then blocks in anything but a
 * WAIT on that file's jobs: such a file holds its group's clock until the
 * hold limit (clock_hold_ms) makes it leave, which would only slow the run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>

#include "compiler/vgpu_compile.h"

/* Not in every libdrm's drm.h. */
#ifndef DRM_IOCTL_SYNCOBJ_EVENTFD
struct drm_syncobj_eventfd {
	__u32 handle;
	__u32 flags;
	__u64 point;
	__s32 fd;
	__u32 pad;
};
#define DRM_IOCTL_SYNCOBJ_EVENTFD DRM_IOWR(0xCF, struct drm_syncobj_eventfd)
#endif

#define ISA_EXIT	UINT64_C(0x1)	/* VGPU_OP_EXIT: every lane finishes */
#define ISA_TRAP	UINT64_C(0x5)	/* VGPU_OP_TRAP: the block ends with -EILSEQ */
#define PAGE		4096u
#define NS		1000000000ull

/* ---- the kernels ----------------------------------------------------------- */

/*
 * fill: out[i] = a * i + b for i < n. spin: every thread iterates a linear
 * congruential generator @iters times from its global index and stores the
 * result at out[index] (a job as long as one likes). poke: one store of
 * @value at device address @addr (a stray store when @addr is not the
 * job's).
 */
static const char fuzz_ptx[] =
	".version 9.0\n.target sm_75\n.address_size 64\n"
	".visible .entry fill(.param .u32 fill_param_0, .param .u32 fill_param_1,\n"
	"	.param .u32 fill_param_2, .param .u64 fill_param_3)\n"
	"{\n"
	"	.reg .pred %p<2>;\n	.reg .b32 %r<10>;\n	.reg .b64 %rd<5>;\n"
	"	ld.param.u32 %r1, [fill_param_0];\n"
	"	ld.param.u32 %r2, [fill_param_1];\n"
	"	ld.param.u32 %r3, [fill_param_2];\n"
	"	ld.param.u64 %rd1, [fill_param_3];\n"
	"	mov.u32 %r4, %ctaid.x;\n	mov.u32 %r5, %ntid.x;\n	mov.u32 %r6, %tid.x;\n"
	"	mad.lo.s32 %r7, %r4, %r5, %r6;\n"
	"	setp.ge.u32 %p1, %r7, %r1;\n"
	"	@%p1 bra $L__BB0_2;\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	mad.lo.s32 %r8, %r7, %r2, %r3;\n"
	"	mul.wide.u32 %rd3, %r7, 4;\n"
	"	add.s64 %rd4, %rd2, %rd3;\n"
	"	st.global.u32 [%rd4], %r8;\n"
	"$L__BB0_2:\n"
	"	ret;\n"
	"}\n"
	".visible .entry spin(.param .u32 spin_param_0, .param .u64 spin_param_1)\n"
	"{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<10>;\n	.reg .b64 %rd<5>;\n"
	"	ld.param.u32 %r1, [spin_param_0];\n"
	"	ld.param.u64 %rd1, [spin_param_1];\n"
	"	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n	mov.u32 %r4, %tid.x;\n"
	"	mad.lo.s32 %r5, %r2, %r3, %r4;\n"
	"	mov.u32 %r6, 0;\n"
	"	mov.u32 %r7, %r5;\n"
	"	setp.eq.s32 %p1, %r1, 0;\n"
	"	@%p1 bra $L__BB1_3;\n"
	"$L__BB1_2:\n"
	"	mad.lo.s32 %r7, %r7, 1664525, 1013904223;\n"
	"	add.s32 %r6, %r6, 1;\n"
	"	setp.lt.u32 %p2, %r6, %r1;\n"
	"	@%p2 bra $L__BB1_2;\n"
	"$L__BB1_3:\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	mul.wide.u32 %rd3, %r5, 4;\n"
	"	add.s64 %rd4, %rd2, %rd3;\n"
	"	st.global.u32 [%rd4], %r7;\n"
	"	ret;\n"
	"}\n"
	".visible .entry poke(.param .u64 poke_param_0, .param .u32 poke_param_1)\n"
	"{\n"
	"	.reg .b32 %r<3>;\n	.reg .b64 %rd<3>;\n"
	"	ld.param.u64 %rd1, [poke_param_0];\n"
	"	ld.param.u32 %r1, [poke_param_1];\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	st.global.u32 [%rd2], %r1;\n"
	"	ret;\n"
	"}\n";

/* Iterations of spin that take a tenth of a second of device time (calibrated). */
static uint32_t g_long_spin = 20000;

static uint32_t spin_ref(uint32_t index, uint32_t iters)
{
	uint32_t r = index;

	while (iters--)
		r = r * 1664525u + 1013904223u;
	return r;
}

/* ---- operations, their documented errors ------------------------------------ */

enum op {
	OP_GET_PARAM, OP_BO_CREATE, OP_BO_MMAP_OFFSET, OP_PROGRAM_CREATE,
	OP_PROGRAM_DESTROY, OP_SUBMIT, OP_JOB_INFO, OP_WAIT, OP_CLOCK_SYNC,
	OP_GEM_CLOSE, OP_PRIME_TO_FD, OP_PRIME_TO_HANDLE, OP_SYNCOBJ_CREATE,
	OP_SYNCOBJ_DESTROY, OP_SYNCOBJ_WAIT, OP_SYNCOBJ_RESET, OP_SYNCOBJ_SIGNAL,
	OP_SYNCOBJ_TO_FD, OP_SYNCOBJ_TO_HANDLE, OP_SYNCOBJ_TIMELINE, OP_VERSION,
	OP_GET_CAP, OP_SET_CLIENT_CAP, OP_DRM_REFUSED, OP_DRM_RANDOM, OP_MMAP,
	OP_DMABUF_MMAP, OP_POLL_READ, OP_OPEN_CLOSE, OP_SYSFS, OP_DEBUGFS,
	OP_B_OPEN, OP_B_ATTACH, OP_B_KICK, OP_B_WAIT_CLOCK, OP_B_MMAP, OP_B_POLL,
	OP_B_OTHER, OP_COUNT
};

#define ERRS(...) ((const int[]){ __VA_ARGS__, 0 })

/*
 * What each call may fail with: the conventions of uapi/drm/vgpu_drm.h and
 * vgpu_backend.h for vgpu's own ioctls (ENOMEM is every ioctl's), the DRM
 * core's (Documentation/gpu/drm-uapi.rst) for the others, mmap(2)'s for
 * mappings.
 */
static const struct {
	const char *name;
	const int *errs;
} ops[OP_COUNT] = {
	[OP_GET_PARAM] = { "GET_PARAM", ERRS(EINVAL, ENODEV, EFAULT) },
	[OP_BO_CREATE] = { "BO_CREATE", ERRS(EINVAL, E2BIG, ENOSPC, ENOMEM, EFAULT) },
	[OP_BO_MMAP_OFFSET] = { "BO_MMAP_OFFSET", ERRS(EINVAL, ENOENT, EFAULT) },
	[OP_PROGRAM_CREATE] = { "PROGRAM_CREATE",
				ERRS(ENODEV, EINVAL, E2BIG, EFAULT, ENOSPC, ENOMEM) },
	[OP_PROGRAM_DESTROY] = { "PROGRAM_DESTROY", ERRS(EINVAL, ENOENT, EFAULT) },
	[OP_SUBMIT] = { "SUBMIT", ERRS(ENODEV, ENOENT, EINVAL, E2BIG, EFAULT, ENOSPC, ENOMEM) },
	[OP_JOB_INFO] = { "JOB_INFO", ERRS(EINVAL, ENOENT, EBUSY, EFAULT) },
	[OP_WAIT] = { "WAIT", ERRS(EINVAL, ENOENT, ETIME, EINTR, EFAULT) },
	[OP_CLOCK_SYNC] = { "CLOCK_SYNC", ERRS(EINVAL, EFAULT) },
	[OP_GEM_CLOSE] = { "GEM_CLOSE", ERRS(EINVAL, EFAULT) },
	[OP_PRIME_TO_FD] = { "PRIME_HANDLE_TO_FD", ERRS(EINVAL, ENOENT, EFAULT, EMFILE, ENOMEM) },
	[OP_PRIME_TO_HANDLE] = { "PRIME_FD_TO_HANDLE",
				 ERRS(EINVAL, EBADF, ENOENT, EFAULT, ENOMEM, ENOSPC) },
	[OP_SYNCOBJ_CREATE] = { "SYNCOBJ_CREATE", ERRS(EINVAL, ENOMEM, EFAULT) },
	[OP_SYNCOBJ_DESTROY] = { "SYNCOBJ_DESTROY", ERRS(EINVAL, ENOENT, EFAULT) },
	[OP_SYNCOBJ_WAIT] = { "SYNCOBJ_WAIT",
			      ERRS(EINVAL, ENOENT, ETIME, EINTR, EFAULT, ENOMEM, E2BIG) },
	[OP_SYNCOBJ_RESET] = { "SYNCOBJ_RESET", ERRS(EINVAL, ENOENT, EFAULT, ENOMEM) },
	[OP_SYNCOBJ_SIGNAL] = { "SYNCOBJ_SIGNAL", ERRS(EINVAL, ENOENT, EFAULT, ENOMEM) },
	[OP_SYNCOBJ_TO_FD] = { "SYNCOBJ_HANDLE_TO_FD",
			       ERRS(EINVAL, ENOENT, EFAULT, EMFILE, ENOMEM) },
	[OP_SYNCOBJ_TO_HANDLE] = { "SYNCOBJ_FD_TO_HANDLE",
				   ERRS(EINVAL, ENOENT, EBADF, EFAULT, ENOMEM) },
	[OP_SYNCOBJ_TIMELINE] = { "SYNCOBJ_TIMELINE_*", ERRS(EOPNOTSUPP, EINVAL, EFAULT) },
	[OP_VERSION] = { "VERSION", ERRS(EFAULT) },
	[OP_GET_CAP] = { "GET_CAP", ERRS(EINVAL, EOPNOTSUPP, EFAULT) },
	[OP_SET_CLIENT_CAP] = { "SET_CLIENT_CAP", ERRS(EACCES, EINVAL, EOPNOTSUPP, EFAULT) },
	[OP_DRM_REFUSED] = { "DRM core ioctl not for render nodes",
			     ERRS(EACCES, EOPNOTSUPP, EINVAL, EFAULT) },
	[OP_DRM_RANDOM] = { "random DRM ioctl",
			    ERRS(EINVAL, EACCES, EFAULT, EOPNOTSUPP, ENOENT, ENOTTY, E2BIG,
				 ENOSPC, ENOMEM, EBUSY, ETIME, ENODEV, EBADF, EPERM, EMFILE) },
	[OP_MMAP] = { "mmap", ERRS(EINVAL, EACCES, ENOMEM, EPERM, EAGAIN, EOVERFLOW) },
	[OP_DMABUF_MMAP] = { "dma-buf mmap", ERRS(EINVAL, EACCES, ENOMEM, EPERM) },
	[OP_POLL_READ] = { "poll/read", ERRS(EAGAIN, EINVAL, EFAULT) },
	[OP_OPEN_CLOSE] = { "open/close", ERRS(EMFILE, ENOMEM) },
	[OP_SYSFS] = { "sysfs knob", ERRS(EINVAL, ERANGE, EBUSY) },
	[OP_DEBUGFS] = { "debugfs read", ERRS(ENOMEM) },
	[OP_B_OPEN] = { "backend open", ERRS(EPERM, ENOMEM) },
	[OP_B_ATTACH] = { "ATTACH", ERRS(EINVAL, EBUSY, EFAULT, ENOMEM, ENOSPC) },
	[OP_B_KICK] = { "KICK", ERRS(EINVAL, EFAULT) },
	[OP_B_WAIT_CLOCK] = { "WAIT_CLOCK", ERRS(EINVAL, EINTR) },
	[OP_B_MMAP] = { "backend mmap", ERRS(EINVAL, ENOMEM, EACCES, EPERM) },
	[OP_B_POLL] = { "backend poll", ERRS(EINTR) },
	[OP_B_OTHER] = { "backend unknown ioctl", ERRS(ENOTTY, EFAULT, EINVAL) },
};

/* ---- state shared by the processes ----------------------------------------- */

#define NERR		136
#define MAX_SLOTS	64
#define MAX_MSGS	40

/* A process making calls, for the monitor. */
struct slot {
	int pid;
	int op;
	uint64_t since;		/* start of the call in progress, 0 when none */
	uint64_t limit;		/* how long it may take */
	/*
	 * A wait for this job (0: none) is judged by the job's progress: the
	 * monitor moves @progress on while the device's cycle or the job's
	 * KCB line changes, and the limit counts from there.
	 */
	uint32_t job;
	uint64_t progress;
	uint64_t seen;		/* the monitor's last view of the job */
	int reported;
};

struct shared {
	unsigned long calls[OP_COUNT];
	unsigned long errs[OP_COUNT][NERR];	/* [0]: succeeded; last: errno >= NERR */
	unsigned long fuzz_calls, setup_calls;
	unsigned long race_calls, backend_calls;	/* the shared phases' quotas */
	unsigned long undocumented;
	unsigned long predictions, mispredicted;
	unsigned long jobs_checked, jobs_bad, verified, stray_checked;
	unsigned long race_children, race_killed, race_exited_running, race_reaped_late;
	unsigned long rogue_events, rogue_bad_events, rogue_kicks, rogue_cmds, rogue_attaches;
	unsigned long hangs, bad_deaths, stalls, stands;
	unsigned long joined_waits, joined_waits_late;
	unsigned long runaways, mutants_run, untracked_handles;
	unsigned long dep_jobs, dep_cancelled;
	int stop_monitor_stall;	/* the backend is ours: its clock is its business */
	uint64_t longest_ns;
	int longest_op;
	int stop_submitters;
	/*
	 * Odd while vgpud is away (stopped, a rogue backend, restarting):
	 * calls that overlap it may see no device (ENODEV) or another
	 * device's limits.
	 */
	unsigned int backend_swaps;
	unsigned long backend_excused;
	int backend_state;	/* 0 not run, 1 skipped, 2 run */
	char backend_why[160];
	int restarted, restart_verified;
	int final_ok, final_done;
	int first_ok;
	char first_msg[200];
	uint32_t long_spin;
	uint64_t spin_ns;	/* one block of 32 threads, 4000 iterations */
	unsigned long stray_bad;
	char final_msg[200];
	int nmsg;
	char msg[MAX_MSGS][400];
	struct slot slots[MAX_SLOTS];
};

static struct shared *sh;

/* ---- per process ----------------------------------------------------------- */

static struct {
	uint64_t rng;
	int slot;
	bool setup;		/* calls count as setup, not fuzzing */
	unsigned long *quota_ctr;	/* shared phase counter, or NULL: local */
	unsigned long local_calls;
	unsigned long quota;
	int placed;		/* where xioctl() put the last argument */
	bool verbose;
	bool no_predict;	/* another process shares our files: outcomes vary */
	int force_kind;		/* op_submit() launches this kind, long; -1: any */
	uint32_t wait_job;	/* the next call waits for this job, no time limit */
	bool backend_moved;	/* the last call overlapped vgpud being away */
	uint64_t hang_limit;	/* ns */
	/* special memory */
	uint8_t *ro;		/* a read-only page */
	uint8_t *unmapped;	/* an address with nothing mapped */
	uint8_t *guard;		/* a page followed by an inaccessible one */
	uint8_t *misal;		/* scratch for misaligned copies */
	/* the device */
	uint64_t vram_size, num_sms, max_threads_per_tb, max_shared_per_tb;
	uint64_t max_regs_per_thread;
	bool root;
	/* for the record when a prediction goes wrong */
	uint64_t who;		/* spawn()'s @who: which process this is */
	unsigned long ncalls;	/* ioctls this process has made */
	unsigned int opens;	/* render-node files this process has opened */
	struct { uint8_t op, err; int16_t fd; } hist[32];	/* the last ioctls */
} g;

static void *kernels_img, *exit_img, *trap_img;
static size_t kernels_size, exit_size, trap_size;
static uint32_t entry_fill, entry_spin, entry_poke;
static uint32_t param_fill, param_spin, param_poke;
static unsigned long race_quota, backend_quota;
/* Also do what is known to make the kernel report (see --known-bugs). */
static bool known_bugs;
static char vgpud_argv_buf[4096];
static char *vgpud_argv[64];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static void note(const char *fmt, ...)
{
	int i = __atomic_fetch_add(&sh->nmsg, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (i >= MAX_MSGS)
		return;
	va_start(ap, fmt);
	vsnprintf(sh->msg[i], sizeof(sh->msg[i]), fmt, ap);
	va_end(ap);
}

#define ADD(field, n) __atomic_fetch_add(&sh->field, (n), __ATOMIC_RELAXED)

/* ---- random numbers -------------------------------------------------------- */

static uint64_t rnd64(void)
{
	uint64_t z = (g.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd64() % n : 0;
}

static bool one_in(unsigned int n)
{
	return below(n) == 0;
}

static const uint64_t boundary[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 255, 256, 511,
	512, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 65537, 0x7fffffff,
	0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xfffffffffffffffeull, 0xffffffffffffffffull,
};

static uint64_t fuzz64(void)
{
	switch (below(5)) {
	case 0:
		return rnd64();
	case 1:
		return below(1024);
	case 2:
		return boundary[below(sizeof(boundary) / sizeof(boundary[0]))] + below(3) - 1;
	default:
		return boundary[below(sizeof(boundary) / sizeof(boundary[0]))];
	}
}

static uint32_t fuzz32(void)
{
	return (uint32_t)fuzz64();
}

static uint64_t seed_for(uint64_t seed, uint64_t who)
{
	return seed * 0x100000001b3ull + who * 0x9e3779b97f4a7c15ull + 1;
}

/* ---- the monitor's slots --------------------------------------------------- */

static void slot_take(void)
{
	int pid = getpid();

	g.slot = -1;
	for (int i = 0; i < MAX_SLOTS; i++) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&sh->slots[i].pid, &zero, pid, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			sh->slots[i].since = 0;
			sh->slots[i].reported = 0;
			g.slot = i;
			return;
		}
	}
}

/* The reaper of @pid frees its slot (a killed process cannot). */
static void slot_free_pid(int pid)
{
	for (int i = 0; i < MAX_SLOTS; i++) {
		if (__atomic_load_n(&sh->slots[i].pid, __ATOMIC_ACQUIRE) == pid) {
			__atomic_store_n(&sh->slots[i].since, 0, __ATOMIC_RELEASE);
			__atomic_store_n(&sh->slots[i].pid, 0, __ATOMIC_RELEASE);
		}
	}
}

static void slot_enter(int op, uint64_t limit_ns)
{
	struct slot *s;

	if (g.slot < 0)
		return;
	s = &sh->slots[g.slot];
	s->op = op;
	s->limit = limit_ns;
	s->job = g.wait_job;
	s->progress = 0;
	s->seen = 0;
	g.wait_job = 0;
	__atomic_store_n(&s->since, now_ns(), __ATOMIC_RELEASE);
}

static void slot_leave(void)
{
	if (g.slot >= 0)
		__atomic_store_n(&sh->slots[g.slot].since, 0, __ATOMIC_RELEASE);
}

/* ---- calls ----------------------------------------------------------------- */

static bool documented(int op, int err)
{
	for (const int *e = ops[op].errs; *e; e++)
		if (*e == err)
			return true;
	return false;
}

static void count_call(int op, int err, uint64_t dt, const char *what)
{
	uint64_t longest;

	ADD(calls[op], 1);
	ADD(errs[op][err < NERR ? err : NERR - 1], 1);
	if (g.setup) {
		ADD(setup_calls, 1);
	} else {
		ADD(fuzz_calls, 1);
		if (g.quota_ctr)
			__atomic_fetch_add(g.quota_ctr, 1, __ATOMIC_RELAXED);
		else
			g.local_calls++;
	}
	longest = __atomic_load_n(&sh->longest_ns, __ATOMIC_RELAXED);
	while (dt > longest && !__atomic_compare_exchange_n(&sh->longest_ns, &longest, dt,
							      false, __ATOMIC_RELAXED,
							      __ATOMIC_RELAXED))
		;
	if (dt >= longest)
		sh->longest_op = op;
	if (err && !documented(op, err)) {
		ADD(undocumented, 1);
		note("%s%s%s failed with %s (%d), not one of its documented errors",
		     ops[op].name, what ? " " : "", what ? what : "", strerror(err), err);
	}
}

static bool budget_left(void)
{
	if (g.quota_ctr)
		return __atomic_load_n(g.quota_ctr, __ATOMIC_RELAXED) < g.quota;
	return g.local_calls < g.quota;
}

/* The ioctl as made: errno, 0 on success. */
static int raw_ioctl(int op, int fd, unsigned long req, void *arg, uint64_t limit_ns)
{
	uint64_t t0 = now_ns(), dt;
	unsigned int swaps = __atomic_load_n(&sh->backend_swaps, __ATOMIC_ACQUIRE);
	int r, err;

	slot_enter(op, limit_ns + g.hang_limit);
	r = ioctl(fd, req, arg);
	err = r < 0 ? errno : 0;
	g.hist[g.ncalls % 32].op = (uint8_t)op;
	g.hist[g.ncalls % 32].err = (uint8_t)err;
	g.hist[g.ncalls % 32].fd = (int16_t)fd;
	g.ncalls++;
	slot_leave();
	g.backend_moved = (swaps & 1) ||
			  swaps != __atomic_load_n(&sh->backend_swaps, __ATOMIC_ACQUIRE);
	dt = now_ns() - t0;
	count_call(op, err, dt, NULL);
	return err;
}

/* The last ioctls of this process on @fd, oldest first: "op/errno". */
static const char *fd_history(int fd)
{
	static char buf[160];
	int n = 0;

	buf[0] = 0;
	for (unsigned long i = g.ncalls > 32 ? g.ncalls - 32 : 0; i < g.ncalls; i++)
		if (g.hist[i % 32].fd == fd && n < (int)sizeof(buf) - 8)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %u/%u",
				      g.hist[i % 32].op, g.hist[i % 32].err);
	return buf;
}

enum { AT_NORMAL, AT_MISALIGNED, AT_READONLY, AT_NULL, AT_UNMAPPED, AT_STRADDLE, AT_KERNEL };

static bool placed_normally(void)
{
	return g.placed == AT_NORMAL || g.placed == AT_MISALIGNED;
}

/*
 * The ioctl with its argument at a fuzzed place: mostly @arg itself; now
 * and then a misaligned copy (which must behave the same), a read-only copy
 * (the results cannot be written back: EFAULT for an ioctl that has any),
 * NULL, an unmapped page, straddling into an inaccessible page, or a kernel
 * address (EFAULT before anything happens). The results come back into
 * @arg only from a normal or misaligned place.
 */
static int xioctl(int op, int fd, unsigned long req, void *arg, size_t size,
		  uint64_t limit_ns)
{
	uint8_t *p;
	int err;

	g.placed = one_in(25) ? (int)below(7) : AT_NORMAL;
	switch (g.placed) {
	case AT_MISALIGNED:
		p = g.misal + 1 + below(7);
		memcpy(p, arg, size);
		err = raw_ioctl(op, fd, req, p, limit_ns);
		memcpy(arg, p, size);
		return err;
	case AT_READONLY:
		mprotect(g.ro, PAGE, PROT_READ | PROT_WRITE);
		memcpy(g.ro, arg, size);
		mprotect(g.ro, PAGE, PROT_READ);
		return raw_ioctl(op, fd, req, g.ro, limit_ns);
	case AT_NULL:
		return raw_ioctl(op, fd, req, NULL, limit_ns);
	case AT_UNMAPPED:
		return raw_ioctl(op, fd, req, g.unmapped, limit_ns);
	case AT_STRADDLE:
		p = g.guard + PAGE - 1 - below(size > 1 ? size - 1 : 1);
		memcpy(p, arg, (size_t)(g.guard + PAGE - p));
		return raw_ioctl(op, fd, req, p, limit_ns);
	case AT_KERNEL:
		return raw_ioctl(op, fd, req, (void *)0xffff888000001000ull, limit_ns);
	default:
		return raw_ioctl(op, fd, req, arg, limit_ns);
	}
}

/* The argument's place alone decides the result: EFAULT. */
static bool placed_badly(void)
{
	return g.placed >= AT_NULL;
}

static void predict(int op, int got, int want, const char *what)
{
	if (g.no_predict)
		return;
	ADD(predictions, 1);
	if (got == want)
		return;
	/*
	 * While vgpud is away there may be no device, or a rogue one with
	 * other limits: what depends on the device is not predictable then.
	 */
	if (g.backend_moved && (got == ENODEV || want == E2BIG || want == 0)) {
		ADD(backend_excused, 1);
		return;
	}
	ADD(mispredicted, 1);
	note("%s %s: got %s (%d), want %s (%d)", ops[op].name, what,
	     got ? strerror(got) : "success", got, want ? strerror(want) : "success", want);
}

/*
 * After xioctl(): when the argument was placed so that the call cannot
 * have read it, EFAULT; from a read-only place an ioctl that writes results
 * fails with EFAULT whatever it did.
 */
static bool predict_placement(int op, unsigned long req, int err)
{
	if (placed_badly()) {
		predict(op, err, EFAULT, "with its argument at a bad address");
		return true;
	}
	/* The DRM core writes the results back whatever the handler said. */
	if (g.placed == AT_READONLY && (_IOC_DIR(req) & _IOC_READ) &&
	    _IOC_TYPE(req) == DRM_IOCTL_BASE) {
		predict(op, err, EFAULT, "with its argument in read-only memory");
		return true;
	}
	return g.placed == AT_READONLY;
}

/* A user pointer for an input buffer of @size bytes at @valid, fuzzed. */
static uint64_t fuzz_uptr(void *valid, size_t size, bool *bad)
{
	*bad = false;
	if (!one_in(12))
		return (uintptr_t)valid;
	switch (below(6)) {
	case 0:
		*bad = size > 0;
		return 0;
	case 1:
		*bad = size > 0;
		return (uintptr_t)g.unmapped;
	case 2:
		*bad = size > 0;
		return (uintptr_t)(g.guard + PAGE - 1 - below(size > 1 ? size - 1 : 1));
	case 3:
		*bad = size > 0;
		return 0xffff888000000000ull + below(1 << 20);
	case 4:	/* read-only zeros: readable */
		return size <= PAGE ? (uintptr_t)g.ro : (uintptr_t)valid;
	default:
		return rnd64() | 1;	/* who knows */
	}
}

/* ---- the render node ------------------------------------------------------- */

static int open_node(bool counted)
{
	for (int i = 128; i < 192; i++) {
		char path[64], name[32] = "";
		struct drm_version v = { .name_len = sizeof(name) - 1, .name = name };
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (!(counted ? raw_ioctl(OP_VERSION, fd, DRM_IOCTL_VERSION, &v, 0) :
			       (ioctl(fd, DRM_IOCTL_VERSION, &v) ? errno : 0)) &&
		    !strcmp(name, "vgpu"))
			return fd;
		close(fd);
	}
	return -1;
}

static int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vgpu_get_param gp = { .param = param };
	int err = raw_ioctl(OP_GET_PARAM, fd, DRM_IOCTL_VGPU_GET_PARAM, &gp, 0);

	if (!err)
		*value = gp.value;
	return err;
}

static void read_limits(int fd)
{
	get_param(fd, DRM_VGPU_PARAM_VRAM_SIZE, &g.vram_size);
	get_param(fd, DRM_VGPU_PARAM_NUM_SMS, &g.num_sms);
	get_param(fd, DRM_VGPU_PARAM_MAX_THREADS_PER_TB, &g.max_threads_per_tb);
	get_param(fd, DRM_VGPU_PARAM_MAX_SHARED_PER_TB, &g.max_shared_per_tb);
	get_param(fd, DRM_VGPU_PARAM_MAX_REGS_PER_THREAD, &g.max_regs_per_thread);
	if (!g.max_threads_per_tb)
		g.max_threads_per_tb = 1024;
	if (!g.vram_size)
		g.vram_size = 256u << 20;
}

/* ---- per-file pools -------------------------------------------------------- */

#define MAX_BOS		20
#define MAX_PROGS	6
#define MAX_JOBS	40
#define MAX_SYNCS	10
#define MAX_STALE	8

enum job_kind { JK_FILL, JK_SPIN, JK_POKE, JK_EXIT, JK_TRAP, JK_OTHER };
enum prog_kind { PK_KERNELS, PK_EXIT, PK_TRAP };

struct fbo {
	uint32_t handle;
	uint64_t size, addr;
	int origin;	/* 0 created, 1 imported */
};

struct fprog {
	uint32_t handle;
	int kind;
};

struct fjob {
	uint64_t id;
	int kind;
	bool finite;		/* it ends on its own (no far NOT_BEFORE, real vgpud) */
	bool checked;
	bool unchecked;		/* what it writes is not known */
	/* what its end must look like */
	int want_error;		/* 1: not predicted */
	uint32_t vbo;		/* a buffer only it writes, checked at its end, or 0 */
	uint64_t vbo_size;
	uint32_t n, a, b;	/* fill; spin: n threads, a iterations */
	uint32_t canary_file;	/* poke of another file's canary: its index + 1 */
	bool deps;		/* waits for in-fences: may be cancelled for them */
	uint64_t poke_addr;	/* for the record when it goes wrong */
	char named[96];
	unsigned long submit_call;	/* g.ncalls at its SUBMIT */
	unsigned int file_open;		/* its file's ffile.open_serial then */
};

struct ffile {
	int fd;
	struct fbo bo[MAX_BOS];
	int nbo;
	struct fprog prog[MAX_PROGS];
	int nprog;
	struct fjob job[MAX_JOBS];
	int njob;
	uint32_t sync[MAX_SYNCS];
	int nsync;
	uint32_t stale_bo[MAX_STALE], stale_prog[MAX_STALE], stale_sync[MAX_STALE];
	uint64_t stale_job[MAX_STALE];
	int nstale;
	bool joined;
	int joined_calls;
	/*
	 * Objects we have no handle of may exist (a creating ioctl whose
	 * results could not be written back, a random ioctl that worked):
	 * a handle that is not in our pools may still be valid.
	 */
	bool ghosts;
	/* a buffer no job of this file names: other files' stray stores aim at it */
	uint32_t canary;
	/*
	 * The other file's canary came in through PRIME: a launch of ours
	 * without a buffer list may store into it (it is our buffer too).
	 */
	bool holds_other_canary;
	uint64_t canary_addr;
	uint32_t *canary_map;
	unsigned int open_serial;	/* g.opens when this file was opened */
};

#define NFILES 2
static struct ffile files[NFILES];
static bool rogue_device;	/* the backend is ours: jobs may never end */

/* Did the last xioctl() perhaps make an object whose handle we did not get? */
static void mark_ghosts(struct ffile *f, int err)
{
	if (g.placed == AT_READONLY || (!err && !placed_normally()))
		f->ghosts = true;
}

static void stale_add(uint32_t *ring, uint32_t v)
{
	ring[below(MAX_STALE)] = v;
}

static bool own_bo(struct ffile *f, uint32_t h)
{
	for (int i = 0; i < f->nbo; i++)
		if (f->bo[i].handle == h)
			return true;
	return false;
}

/*
 * A call on handle @h, which the fuzzer does not know, succeeded: when
 * another ioctl finds the buffer too, the file has it after all (a number
 * reused by a buffer the fuzzer lost track of), which is the fuzzer's
 * blind spot and not the kernel's mistake. Counted, and the file's
 * predictions about unknown handles stop.
 */
static bool untracked_bo(struct ffile *f, uint32_t h, int op)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = h };
	struct drm_prime_handle ph = { .handle = h, .flags = DRM_CLOEXEC };

	if (op != OP_BO_MMAP_OFFSET) {
		if (raw_ioctl(OP_BO_MMAP_OFFSET, f->fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, 0))
			return false;
	} else {
		if (raw_ioctl(OP_PRIME_TO_FD, f->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, 0))
			return false;
		close(ph.fd);
	}
	ADD(untracked_handles, 1);
	f->ghosts = true;
	return true;
}

/*
 * Before a call that would destroy handle @h, which the fuzzer does not
 * know: whether the file has such a buffer after all (BO_MMAP_OFFSET finds
 * it), so that the call's success is no misprediction. A closing call
 * leaves nothing to cross-check afterwards, so the check comes first.
 */
static void untracked_bo_before_close(struct ffile *f, uint32_t h)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = h };

	if (f->ghosts || !h)
		return;
	if (!raw_ioctl(OP_BO_MMAP_OFFSET, f->fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, 0)) {
		ADD(untracked_handles, 1);
		f->ghosts = true;
	}
}

/*
 * The same for syncobj handle @h before SYNCOBJ_DESTROY: a wait that does
 * not block (timeout 0) finds every handle the file has; only a handle it
 * lacks gives ENOENT.
 */
static void untracked_sync_before_destroy(struct ffile *f, uint32_t h)
{
	struct drm_syncobj_wait w = { .handles = (uintptr_t)&h, .count_handles = 1 };

	if (f->ghosts || !h)
		return;
	if (raw_ioctl(OP_SYNCOBJ_WAIT, f->fd, DRM_IOCTL_SYNCOBJ_WAIT, &w, 0) != ENOENT) {
		ADD(untracked_handles, 1);
		f->ghosts = true;
	}
}

/*
 * Handles a file has but that no fuzzed call may close: its canary and the
 * buffers its checked jobs write.
 */
static bool own_or_canary(struct ffile *f, uint32_t h)
{
	if (own_bo(f, h) || (h && h == f->canary))
		return true;
	for (int i = 0; i < f->njob; i++)
		if (h && f->job[i].vbo == h)
			return true;
	return false;
}

static bool own_prog(struct ffile *f, uint32_t h)
{
	for (int i = 0; i < f->nprog; i++)
		if (f->prog[i].handle == h)
			return true;
	return false;
}

static bool own_sync(struct ffile *f, uint32_t h)
{
	for (int i = 0; i < f->nsync; i++)
		if (f->sync[i] == h)
			return true;
	return false;
}

static struct ffile *other_file(struct ffile *f)
{
	return &files[(f - files + 1) % NFILES];
}

/* A handle that is not valid in @f (0 is never one). */
static uint32_t bad_handle(struct ffile *f, bool (*own)(struct ffile *, uint32_t),
			   const uint32_t *stale)
{
	for (int tries = 0; tries < 8; tries++) {
		uint32_t h;

		switch (below(4)) {
		case 0:
			h = 0;
			break;
		case 1:
			h = stale[below(MAX_STALE)];
			break;
		case 2:
			h = fuzz32();
			break;
		default:
			h = 0xfffff000u + (uint32_t)below(0x1000);
			break;
		}
		if (!own(f, h))
			return h;
	}
	return 0;
}

static const char *picked;	/* how pick_bo() chose, for the record */

/* A BO handle: mostly one of ours, else another file's, stale or random. */
static uint32_t pick_bo(struct ffile *f, bool *valid)
{
	*valid = false;
	picked = "ours";
	if (f->nbo && !one_in(6)) {
		*valid = true;
		return f->bo[below(f->nbo)].handle;
	}
	picked = "another file's";
	if (one_in(2) && other_file(f)->nbo) {
		uint32_t h = other_file(f)->bo[below(other_file(f)->nbo)].handle;

		/* The same number here may be a buffer no fuzzed call may touch. */
		if (own_bo(f, h) || !own_or_canary(f, h)) {
			*valid = own_bo(f, h);
			return h;
		}
	}
	picked = "stale or made up";
	return bad_handle(f, own_or_canary, f->stale_bo);
}

static void gem_close(struct ffile *f, uint32_t h)
{
	struct drm_gem_close gc = { .handle = h };

	raw_ioctl(OP_GEM_CLOSE, f->fd, DRM_IOCTL_GEM_CLOSE, &gc, 0);
}

static void drop_bo(struct ffile *f, int i)
{
	stale_add(f->stale_bo, f->bo[i].handle);
	f->bo[i] = f->bo[--f->nbo];
}

static void *map_bo(int fd, uint32_t handle, uint64_t size, int prot)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = handle };
	void *p;

	if (raw_ioctl(OP_BO_MMAP_OFFSET, fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, 0))
		return NULL;
	p = mmap(NULL, size, prot, MAP_SHARED, fd, (off_t)mo.offset);
	count_call(OP_MMAP, p == MAP_FAILED ? errno : 0, 0, "of a buffer object");
	return p == MAP_FAILED ? NULL : p;
}

static int bo_create(struct ffile *f, uint64_t size, uint32_t *handle, uint64_t *addr)
{
	struct drm_vgpu_bo_create bc = { .size = size };
	int err = raw_ioctl(OP_BO_CREATE, f->fd, DRM_IOCTL_VGPU_BO_CREATE, &bc, 0);

	if (!err) {
		*handle = bc.handle;
		*addr = bc.device_address;
	}
	return err;
}

static int program_create(struct ffile *f, const void *img, size_t size, uint32_t *handle)
{
	struct drm_vgpu_program_create pc = { .data = (uintptr_t)img, .size = (uint32_t)size };
	int err = raw_ioctl(OP_PROGRAM_CREATE, f->fd, DRM_IOCTL_VGPU_PROGRAM_CREATE, &pc, 0);

	if (!err)
		*handle = pc.handle;
	return err;
}

static void program_destroy(struct ffile *f, uint32_t h)
{
	struct drm_vgpu_program_destroy pd = { .handle = h };

	raw_ioctl(OP_PROGRAM_DESTROY, f->fd, DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd, 0);
}

static void file_open(struct ffile *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = open_node(true);
	f->open_serial = ++g.opens;
	count_call(OP_OPEN_CLOSE, f->fd < 0 ? errno : 0, 0, "of the render node");
	if (f->fd < 0)
		return;
	if (!bo_create(f, PAGE, &f->canary, &f->canary_addr)) {
		f->canary_map = map_bo(f->fd, f->canary, PAGE, PROT_READ | PROT_WRITE);
		if (f->canary_map)
			for (unsigned int i = 0; i < PAGE / 4; i++)
				f->canary_map[i] = 0xca0a0000u + i;
	}
}

static void job_forget(struct ffile *f, struct fjob *j)
{
	if (j->vbo)
		gem_close(f, j->vbo);
	f->stale_job[below(MAX_STALE)] = j->id;
	*j = f->job[--f->njob];
}

static void file_close(struct ffile *f)
{
	if (f->fd < 0)
		return;
	if (f->canary_map)
		munmap(f->canary_map, PAGE);
	close(f->fd);
	count_call(OP_OPEN_CLOSE, 0, 0, NULL);
	f->fd = -1;
}

/* ---- program images --------------------------------------------------------- */

/* An image whose one entry "k" (16 parameter bytes) is the single word @code. */
static void *img_single(uint64_t code, size_t *size)
{
	struct vgpu_program_header *h;
	struct vgpu_program_entry *e;
	uint8_t *buf = calloc(1, 1024);

	h = (struct vgpu_program_header *)buf;
	h->magic = VGPU_PROGRAM_MAGIC;
	h->version_major = VGPU_PROGRAM_VERSION_MAJOR;
	h->version_minor = VGPU_PROGRAM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->num_entries = 1;
	h->entry_size = sizeof(*e);
	h->entries_offset = sizeof(*h);
	h->code_offset = h->entries_offset + sizeof(*e);
	h->code_size = 8;
	h->data_offset = h->code_offset + 8;
	h->data_init_size = 16;
	h->data_size = 64;
	h->image_size = h->data_offset + h->data_init_size;
	e = (struct vgpu_program_entry *)(buf + h->entries_offset);
	strcpy(e->name, "k");
	e->code_start = 0;
	e->code_end = 8;
	e->regs_per_thread = 8;
	e->shared_static = 256;
	e->param_size = 16;
	memcpy(buf + h->code_offset, &code, 8);
	memset(buf + h->data_offset, 0x42, 16);
	*size = h->image_size;
	return buf;
}

static int find_entry(const void *img, const char *name, uint32_t *index, uint32_t *params)
{
	const struct vgpu_program_header *h = img;

	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e = (const void *)((const uint8_t *)img +
						     h->entries_offset + i * h->entry_size);

		if (!strcmp(e->name, name)) {
			*index = i;
			*params = e->param_size;
			return 0;
		}
	}
	return -1;
}

/* The static shared memory of entry @index of a program of kind @kind. */
static uint32_t entry_static_shared(int kind, uint32_t index)
{
	const struct vgpu_program_header *h =
		kind == PK_KERNELS ? kernels_img : kind == PK_EXIT ? exit_img : trap_img;
	const struct vgpu_program_entry *e;

	if (index >= h->num_entries)
		return 0;
	e = (const void *)((const uint8_t *)h + h->entries_offset + index * h->entry_size);
	return e->shared_static;
}

/* ---- the render-node operations --------------------------------------------- */

static void op_get_param(struct ffile *f)
{
	struct drm_vgpu_get_param gp = { 0 };
	int err;

	gp.param = one_in(3) ? fuzz32() : (uint32_t)below(DRM_VGPU_PARAM_COUNT);
	if (one_in(10))
		gp.pad = fuzz32() | 1;
	err = xioctl(OP_GET_PARAM, f->fd, DRM_IOCTL_VGPU_GET_PARAM, &gp, sizeof(gp), 0);
	if (predict_placement(OP_GET_PARAM, DRM_IOCTL_VGPU_GET_PARAM, err))
		return;
	if (gp.pad)
		predict(OP_GET_PARAM, err, EINVAL, "with pad set");
	else if (gp.param >= DRM_VGPU_PARAM_COUNT)
		predict(OP_GET_PARAM, err, EINVAL, "of an unknown parameter");
	else if (!rogue_device)
		predict(OP_GET_PARAM, err, 0, "of a known parameter");
}

static void op_bo_create(struct ffile *f)
{
	struct drm_vgpu_bo_create bc = { 0 };
	int err;

	if (f->nbo == MAX_BOS) {
		int i = (int)below(f->nbo);

		gem_close(f, f->bo[i].handle);
		drop_bo(f, i);
	}
	switch (below(10)) {
	case 0:
		bc.size = fuzz64();
		break;
	case 1:
		bc.size = g.vram_size - below(2) * PAGE + below(3);
		break;
	case 2:
		bc.size = g.vram_size / 8 + below(g.vram_size / 4);
		break;
	case 3:
	case 4:
		bc.size = PAGE * (1 + below(256));
		break;
	default:
		bc.size = 1 + below(64 * 1024);
		break;
	}
	if (one_in(12))
		bc.flags = fuzz32() | 1;
	err = xioctl(OP_BO_CREATE, f->fd, DRM_IOCTL_VGPU_BO_CREATE, &bc, sizeof(bc), 0);
	mark_ghosts(f, err);
	if (!predict_placement(OP_BO_CREATE, DRM_IOCTL_VGPU_BO_CREATE, err)) {
		if (bc.flags)
			predict(OP_BO_CREATE, err, EINVAL, "with flags set");
		else if (!bc.size)
			predict(OP_BO_CREATE, err, EINVAL, "of size 0");
		else if (bc.size > g.vram_size)
			predict(OP_BO_CREATE, err, E2BIG, "larger than device memory");
	}
	if (err || !placed_normally())
		return;
	if (bc.device_address % PAGE || bc.device_address + bc.size > g.vram_size) {
		ADD(jobs_bad, 1);
		note("BO_CREATE: a buffer of %" PRIu64 " bytes at %#" PRIx64 " is not inside device memory",
		     (uint64_t)bc.size, (uint64_t)bc.device_address);
	}
	/* The large ones go again at once: they would starve the others. */
	if (bc.size > (16u << 20)) {
		gem_close(f, bc.handle);
		return;
	}
	f->bo[f->nbo++] = (struct fbo){ bc.handle, (bc.size + PAGE - 1) & ~(uint64_t)(PAGE - 1),
					 bc.device_address, 0 };
}

static void op_gem_close(struct ffile *f)
{
	struct drm_gem_close gc = { 0 };
	bool valid;
	int err;

	gc.handle = pick_bo(f, &valid);
	if (one_in(10))
		gc.pad = fuzz32() | 1;
	if (!own_or_canary(f, gc.handle))
		untracked_bo_before_close(f, gc.handle);
	err = xioctl(OP_GEM_CLOSE, f->fd, DRM_IOCTL_GEM_CLOSE, &gc, sizeof(gc), 0);
	if (predict_placement(OP_GEM_CLOSE, DRM_IOCTL_GEM_CLOSE, err)) {
		if (placed_badly())
			return;
	} else if (!own_or_canary(f, gc.handle)) {
		/* The core ignores pad. */
		if (!f->ghosts)
			predict(OP_GEM_CLOSE, err, EINVAL, "of a handle this file does not have");
	} else {
		predict(OP_GEM_CLOSE, err, 0, "of a buffer");
	}
	if (!err)
		for (int i = 0; i < f->nbo; i++)
			if (f->bo[i].handle == gc.handle) {
				drop_bo(f, i);
				break;
			}
}

/* Maps a buffer (or not quite), touches it, and unmaps it. */
static void op_bo_mmap(struct ffile *f)
{
	struct drm_vgpu_bo_mmap_offset mo = { 0 };
	uint64_t size = 0, len, pgoff = 0;
	bool valid;
	int err, prot, flags;
	void *p;

	mo.handle = pick_bo(f, &valid);
	if (one_in(12))
		mo.pad = fuzz32() | 1;
	for (int i = 0; i < f->nbo; i++)
		if (f->bo[i].handle == mo.handle)
			size = f->bo[i].size;
	err = xioctl(OP_BO_MMAP_OFFSET, f->fd, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, sizeof(mo), 0);
	if (!predict_placement(OP_BO_MMAP_OFFSET, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, err)) {
		if (mo.pad)
			predict(OP_BO_MMAP_OFFSET, err, EINVAL, "with pad set");
		else if (!own_or_canary(f, mo.handle) && !f->ghosts &&
			 !(!err && untracked_bo(f, mo.handle, OP_BO_MMAP_OFFSET))) {
			char what[96];

			snprintf(what, sizeof(what), "of handle %u (%s), not this file's", mo.handle,
				 picked);
			predict(OP_BO_MMAP_OFFSET, err, ENOENT, what);
		}
		else
			for (int i = 0; i < f->nbo; i++)
				if (f->bo[i].handle == mo.handle)
					predict(OP_BO_MMAP_OFFSET, err, 0, f->bo[i].origin ?
						"of a buffer imported from a dma-buf" : "of a buffer");
	}
	if (err || !placed_normally()) {
		/* A made-up fake offset. */
		mo.offset = one_in(2) ? fuzz64() & ~(uint64_t)(PAGE - 1) : (uint64_t)1 << 32;
		size = PAGE;
	} else if (!size) {
		size = PAGE;	/* the canary, or a buffer another file named */
	}
	len = size;
	switch (below(8)) {
	case 0:
		len = size + PAGE;	/* beyond the end: refused */
		break;
	case 1:
		if (size > PAGE) {
			pgoff = 1 + below(size / PAGE - 1);
			len = PAGE * (1 + below(size / PAGE - pgoff));
		}
		break;
	case 2:
		len = PAGE;
		break;
	default:
		break;
	}
	prot = one_in(6) ? (int)below(8) : PROT_READ | PROT_WRITE;
	flags = one_in(10) ? MAP_PRIVATE : MAP_SHARED;
	p = mmap(NULL, len, prot, flags, f->fd, (off_t)(mo.offset + pgoff * PAGE));
	count_call(OP_MMAP, p == MAP_FAILED ? errno : 0, 0, "of the render node");
	if (p == MAP_FAILED)
		return;
	/* A made-up offset may map any buffer of ours (the canary too): read only. */
	if (!own_bo(f, mo.handle) || err || !placed_normally())
		prot &= ~PROT_WRITE;
	if ((prot & PROT_READ) && (prot & PROT_WRITE)) {
		volatile uint8_t *b = p;

		b[0] = b[len - 1];
		b[len / 2] ^= 0;
	} else if (prot & PROT_READ) {
		volatile uint8_t *b = p;

		(void)b[len - 1];
	}
	if (one_in(4)) {	/* the mapping outlives the handle */
		struct drm_gem_close gc = { .handle = mo.handle };

		if (own_bo(f, mo.handle) && mo.handle != f->canary &&
		    !raw_ioctl(OP_GEM_CLOSE, f->fd, DRM_IOCTL_GEM_CLOSE, &gc, 0)) {
			for (int i = 0; i < f->nbo; i++)
				if (f->bo[i].handle == mo.handle) {
					drop_bo(f, i);
					break;
				}
			if (prot & PROT_WRITE && prot & PROT_READ)
				((volatile uint8_t *)p)[0] = 1;
		}
	}
	munmap(p, len);
}

/*
 * A mutated image the driver took may run anything: launch it once, with a
 * time limit of its own and only this file's buffers, and expect any
 * documented end (the job's end is checked like every other's).
 */
static void launch_mutated(struct ffile *f, uint32_t handle)
{
	static uint8_t params[256] __attribute__((aligned(8)));
	uint32_t bos[4];
	struct drm_vgpu_submit s = { 0 };
	struct fjob j = { .want_error = 1, .finite = !rogue_device, .unchecked = true,
			  .kind = JK_OTHER };
	int k = (int)below(4);

	if (f->njob == MAX_JOBS)
		return;
	s.program = handle;
	/* The entries and parameter sizes of the images it came from. */
	s.entry = k == 0 ? entry_fill : k == 1 ? entry_spin : k == 2 ? entry_poke : 0;
	s.params_size = k == 0 ? param_fill : k == 1 ? param_spin : k == 2 ? param_poke : 0;
	s.grid[0] = 1 + (uint32_t)below(4);
	s.grid[1] = s.grid[2] = 1;
	s.block[0] = 1 + (uint32_t)below(64);
	s.block[1] = s.block[2] = 1;
	for (size_t i = 0; i < sizeof(params); i++)
		params[i] = (uint8_t)rnd32();
	s.params = (uintptr_t)params;
	for (int i = 0; i < f->nbo && s.num_bos < 4; i++)
		bos[s.num_bos++] = f->bo[i].handle;
	s.bo_handles = (uintptr_t)bos;
	s.timeout_us = 1 + (uint32_t)below(500);
	if (xioctl(OP_SUBMIT, f->fd, DRM_IOCTL_VGPU_SUBMIT, &s, sizeof(s), 0))
		return;
	ADD(mutants_run, 1);
	j.id = s.job_id;
	j.submit_call = g.ncalls;
	j.file_open = f->open_serial;
	f->job[f->njob++] = j;
}

/* A program image: the real one, one that exits or traps, or a mutation. */
static void op_program_create(struct ffile *f)
{
	static uint8_t buf[8192] __attribute__((aligned(8)));
	struct drm_vgpu_program_create pc = { 0 };
	int kind = -1, err;
	bool mutated = false, bad_ptr = false;
	const void *src;
	size_t size;

	if (f->nprog == MAX_PROGS) {
		int i = (int)below(f->nprog);

		program_destroy(f, f->prog[i].handle);
		stale_add(f->stale_prog, f->prog[i].handle);
		f->prog[i] = f->prog[--f->nprog];
	}
	switch (below(4)) {
	case 0:
		src = exit_img, size = exit_size, kind = PK_EXIT;
		break;
	case 1:
		src = trap_img, size = trap_size, kind = PK_TRAP;
		break;
	default:
		src = kernels_img, size = kernels_size, kind = PK_KERNELS;
		break;
	}
	if (size > sizeof(buf))
		size = sizeof(buf);
	memcpy(buf, src, size);
	if (one_in(3)) {
		/* A 32-bit field of the header or an entry, or a byte anywhere. */
		const struct vgpu_program_header *h = (const void *)buf;
		uint32_t span = h->entries_offset + h->entry_size * h->num_entries;

		mutated = true;
		switch (below(4)) {
		case 0:
			buf[below(size)] ^= (uint8_t)(1u << below(8));
			break;
		case 1:
			size = below(size + 64);
			break;
		default: {
			uint32_t off = (uint32_t)below(span < size ? span : size) & ~3u;
			uint32_t v = fuzz32();

			memcpy(buf + off, &v, 4);
			break;
		}
		}
	}
	pc.size = (uint32_t)size;
	if (one_in(20))
		pc.size = one_in(2) ? VGPU_PROGRAM_MAX_SIZE + 1 + (uint32_t)below(1000) : fuzz32();
	/* for the size the kernel reads: a pointer bad for more may be good for less */
	pc.data = fuzz_uptr(buf, pc.size, &bad_ptr);
	if (pc.data != (uintptr_t)buf && !bad_ptr)
		mutated = true;	/* whatever is there */
	err = xioctl(OP_PROGRAM_CREATE, f->fd, DRM_IOCTL_VGPU_PROGRAM_CREATE, &pc, sizeof(pc), 0);
	mark_ghosts(f, err);
	if (!predict_placement(OP_PROGRAM_CREATE, DRM_IOCTL_VGPU_PROGRAM_CREATE, err)) {
		if (pc.size > VGPU_PROGRAM_MAX_SIZE)
			predict(OP_PROGRAM_CREATE, err, E2BIG, "of an image above the limit");
		else if (pc.size < sizeof(struct vgpu_program_header))
			predict(OP_PROGRAM_CREATE, err, EINVAL, "of less than a header");
		else if (bad_ptr)
			predict(OP_PROGRAM_CREATE, err, EFAULT, "from an unreadable pointer");
		else if (!mutated && pc.data == (uintptr_t)buf && pc.size == size && !rogue_device &&
			 err != ENOSPC && err != ENOMEM)
			predict(OP_PROGRAM_CREATE, err, 0, "of a valid image");
	}
	if (err || !placed_normally())
		return;
	/* A mutation that passed may run anything: launched once, bounded. */
	if (mutated || pc.data != (uintptr_t)buf || pc.size != size) {
		if (one_in(2))
			launch_mutated(f, pc.handle);
		program_destroy(f, pc.handle);
		return;
	}
	f->prog[f->nprog++] = (struct fprog){ pc.handle, kind };
}

/* A program handle the file was not known to have: the record. */
static void prog_found(struct ffile *f, uint32_t h)
{
	char hs[80];
	int n = 0;

	hs[0] = 0;
	for (int i = 0; i < f->nprog && n < (int)sizeof(hs) - 12; i++)
		n += snprintf(hs + n, sizeof(hs) - (size_t)n, " %u", f->prog[i].handle);
	note("program %u was in the file after all (process %" PRIu64 ", fd %d, opened %u,"
	     " %lu calls); its programs:%s; its last calls:%s; stale: %u %u %u %u %u %u %u %u",
	     h, g.who, f->fd, f->open_serial, g.ncalls, hs, fd_history(f->fd),
	     f->stale_prog[0], f->stale_prog[1], f->stale_prog[2], f->stale_prog[3],
	     f->stale_prog[4], f->stale_prog[5], f->stale_prog[6], f->stale_prog[7]);
}

static void op_program_destroy(struct ffile *f)
{
	struct drm_vgpu_program_destroy pd = { 0 };
	int err, i = -1;

	if (f->nprog && !one_in(4)) {
		i = (int)below(f->nprog);
		pd.handle = f->prog[i].handle;
	} else {
		pd.handle = bad_handle(f, own_prog, f->stale_prog);
	}
	if (one_in(10))
		pd.pad = fuzz32() | 1;
	err = xioctl(OP_PROGRAM_DESTROY, f->fd, DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd,
		     sizeof(pd), 0);
	if (predict_placement(OP_PROGRAM_DESTROY, DRM_IOCTL_VGPU_PROGRAM_DESTROY, err)) {
		if (placed_badly())
			return;
	} else if (pd.pad) {
		predict(OP_PROGRAM_DESTROY, err, EINVAL, "with pad set");
	} else if (i < 0) {
		if (!f->ghosts) {
			predict(OP_PROGRAM_DESTROY, err, ENOENT, "of a handle this file does not have");
			if (!err && !g.no_predict)
				prog_found(f, pd.handle);
		}
	} else {
		predict(OP_PROGRAM_DESTROY, err, 0, "of a program");
	}
	if (!err && i >= 0) {
		stale_add(f->stale_prog, f->prog[i].handle);
		f->prog[i] = f->prog[--f->nprog];
	}
}

static int find_prog(struct ffile *f, int kind)
{
	int n = 0, pick = -1;

	for (int i = 0; i < f->nprog; i++)
		if (f->prog[i].kind == kind && below(++n) == 0)
			pick = i;
	return pick;
}

static uint64_t current_cycle(struct ffile *f)
{
	uint64_t c = 0;

	get_param(f->fd, DRM_VGPU_PARAM_CURRENT_CYCLE, &c);
	return c;
}

/* A launch: a real one of a known kind, sometimes with one field spoiled. */
static void op_submit(struct ffile *f)
{
	static uint8_t params[DRM_VGPU_MAX_PARAM_BYTES + 64] __attribute__((aligned(8)));
	static uint32_t bos[DRM_VGPU_MAX_SUBMIT_BOS + 8];
	static uint32_t deps[3];
	struct drm_vgpu_submit s = { 0 };
	struct fjob j = { .want_error = 1, .finite = !rogue_device };
	const char *spoiled = NULL;
	uint32_t unknown_bo = 0;
	int want = -1, err, pi = -1, kind;
	uint32_t nthreads = 0, vbo = 0;
	uint64_t vbo_addr = 0, vbo_size = 0;
	bool bad, runaway = false, with_deps = false;

	if (f->njob == MAX_JOBS)
		return;
	switch (g.force_kind >= 0 ? 10 + g.force_kind : (int)below(10)) {
	case 0:
	case 1:
	case 2:
		kind = JK_FILL;
		break;
	case 3:
	case 4:
		kind = JK_SPIN;
		break;
	case 5:
		kind = JK_POKE;
		break;
	case 6:
		kind = JK_EXIT;
		break;
	case 7:
		kind = JK_TRAP;
		break;
	case 10 + JK_FILL:
	case 10 + JK_SPIN:
		kind = g.force_kind;
		break;
	default:
		kind = JK_OTHER;
		break;
	}
	pi = find_prog(f, kind == JK_EXIT ? PK_EXIT : kind == JK_TRAP ? PK_TRAP :
		       kind == JK_OTHER ? (int)below(3) : PK_KERNELS);
	if (pi < 0) {
		op_program_create(f);
		return;
	}
	if (f->prog[pi].kind != PK_KERNELS && kind != JK_OTHER)
		kind = f->prog[pi].kind == PK_EXIT ? JK_EXIT : JK_TRAP;
	s.program = f->prog[pi].handle;
	s.grid[0] = s.grid[1] = s.grid[2] = 1;
	s.block[0] = s.block[1] = s.block[2] = 1;
	s.params = (uintptr_t)params;
	s.bo_handles = (uintptr_t)bos;
	memset(params, 0, sizeof(params));

	if (kind == JK_FILL || kind == JK_SPIN) {
		/* A buffer only this job writes, when it is to be checked. */
		uint32_t block = 32u << below(4);

		if (block > g.max_threads_per_tb)
			block = (uint32_t)g.max_threads_per_tb;
		if (kind == JK_FILL) {
			j.n = 1 + (uint32_t)below(one_in(4) ? 20000 : 2000);
			s.grid[0] = (j.n + block - 1) / block;
			nthreads = j.n;
		} else {
			s.grid[0] = 1 + (uint32_t)below(one_in(8) ? 16 : 4);
			j.a = (uint32_t)(one_in(10) ? 2000 + below(20000) : below(400));
			if (g.force_kind == JK_SPIN) {	/* long */
				block = 32;
				s.grid[0] = 1;
				j.a = (uint32_t)(g_long_spin + below(g_long_spin));
			} else if (one_in(12)) {
				/*
				 * A runaway: hours of simulated time, failed at
				 * its own time limit while the others go on.
				 */
				j.a = 0x40000000u + (uint32_t)below(1u << 30);
				s.timeout_us = 1 + (uint32_t)below(200);
				runaway = true;
				ADD(runaways, 1);
			}
			nthreads = s.grid[0] * block;
			j.n = nthreads;
		}
		s.block[0] = block;
		vbo_size = (uint64_t)nthreads * 4;
		if (one_in(8))
			vbo_size = (vbo_size / 2) & ~3ull;	/* too small: EFAULT */
		if (!vbo_size)
			vbo_size = 4;
		if (bo_create(f, vbo_size, &vbo, &vbo_addr))
			return;
		j.vbo = vbo;
		j.vbo_size = (vbo_size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
		bos[0] = vbo;
		s.num_bos = 1;
		if (kind == JK_FILL) {
			j.a = rnd32();
			j.b = rnd32();
			s.entry = entry_fill;
			s.params_size = param_fill;
			memcpy(params, &j.n, 4);
			memcpy(params + 4, &j.a, 4);
			memcpy(params + 8, &j.b, 4);
			memcpy(params + 16, &vbo_addr, 8);
		} else {
			s.entry = entry_spin;
			s.params_size = param_spin;
			memcpy(params, &j.a, 4);
			memcpy(params + 8, &vbo_addr, 8);
		}
		/* Threads beyond the page-rounded buffer fault (at the end). */
		j.want_error = runaway ? -ETIMEDOUT :
			       (uint64_t)nthreads * 4 > j.vbo_size ? -EFAULT : 0;
	} else if (kind == JK_POKE) {
		struct ffile *o = other_file(f);
		uint64_t addr;
		uint32_t v = rnd32();
		int k = (int)below(4);

		s.entry = entry_poke;
		s.params_size = param_poke;
		for (int i = 0; i < f->nbo && i < 4; i++)
			bos[s.num_bos++] = f->bo[i].handle;
		if (k == 0 && s.num_bos) {
			struct fbo *b = &f->bo[below(s.num_bos)];

			addr = b->addr + (below(b->size) & ~3ull);
			j.want_error = 0;
		} else if (k == 1 && o->canary_map) {
			addr = o->canary_addr + (below(PAGE) & ~3ull);
			if (!s.num_bos && f->holds_other_canary) {
				/*
				 * Without a list: ours too, through PRIME
				 * (unless a fuzzed GEM_CLOSE dropped it). The
				 * canary's own value, so that it stays intact.
				 */
				j.want_error = 1;
				v = 0xca0a0000u + (uint32_t)((addr - o->canary_addr) / 4);
			} else {
				j.want_error = -EFAULT;
				j.canary_file = (uint32_t)(o - files) + 1;
			}
		} else if (k == 2) {
			addr = fuzz64();
		} else {
			/*
			 * The file's canary, not named: out of reach of a list,
			 * but a launch without one (no buffer to name) may touch
			 * every buffer of its file, the canary too.
			 */
			addr = f->canary_addr + (below(PAGE) & ~3ull);
			j.want_error = !f->canary_map ? 1 : s.num_bos ? -EFAULT : 0;
			/*
			 * A store that may land writes the value the canary
			 * holds: other files' stray-store checks read it.
			 */
			if (!s.num_bos)
				v = 0xca0a0000u + (uint32_t)((addr - f->canary_addr) / 4);
		}
		memcpy(params, &addr, 8);
		memcpy(params + 8, &v, 4);
		j.poke_addr = addr;
		for (uint32_t i = 0, n = 0; i < s.num_bos && n < sizeof(j.named) - 1; i++)
			n += (uint32_t)snprintf(j.named + n, sizeof(j.named) - n, " %u:%#" PRIx64 "+%#" PRIx64 "%s",
						f->bo[i].handle, f->bo[i].addr, f->bo[i].size,
						f->bo[i].origin ? "i" : "");
		if (k == 2 && !s.num_bos) {
			/* Without a list any buffer of the file, tracked or not. */
			j.want_error = 1;
		} else if (k == 2) {
			/* Inside one of the named buffers (and aligned) or not? */
			j.want_error = -EFAULT;
			for (uint32_t i = 0; i < s.num_bos && !(addr & 3); i++) {
				struct fbo *b = &f->bo[i];

				if (addr >= b->addr && addr - b->addr <= b->size - 4)
					j.want_error = 0;
			}
		}
	} else {
		/* The exit and trap images; any entry, dims and buffers. */
		s.entry = kind == JK_OTHER ? (uint32_t)below(3) : 0;
		s.params_size = 16;
		s.grid[0] = 1 + (uint32_t)below(8);
		s.block[0] = 1 + (uint32_t)below(g.max_threads_per_tb);
		for (int i = 0; i < f->nbo && s.num_bos < 6; i++)
			if (one_in(2))
				bos[s.num_bos++] = f->bo[i].handle;
		j.want_error = kind == JK_EXIT ? 0 : kind == JK_TRAP ? -EILSEQ : 1;
		if (kind == JK_OTHER)
			s.params_size = (uint32_t)(one_in(2) ? 16 : below(32));
	}
	if (one_in(4))
		s.priority = (uint32_t)below(3);
	if (one_in(6))
		s.latency_budget_us = (uint32_t)below(200);
	if (!runaway && one_in(10)) {
		s.timeout_us = one_in(2) ? fuzz32() : 1 + (uint32_t)below(1000);
		if (s.timeout_us < 1000000 && j.want_error != 1)
			j.want_error = 1;	/* it may run out of time */
	}
	if (one_in(8)) {
		s.flags = DRM_VGPU_SUBMIT_NOT_BEFORE;
		s.not_before_cycle = one_in(4) ? below(1000) : current_cycle(f) + below(50000);
	}
	if (f->nsync && one_in(3))
		s.out_syncobj = f->sync[below(f->nsync)];
	/*
	 * In-fences: the fences of one to three of the file's syncobjs (an
	 * earlier launch's end, maybe the out-syncobj of this very launch,
	 * whose fence is taken before it is replaced). A syncobj without a
	 * fence is refused (EINVAL); a failed dependency cancels the job
	 * without running it. The job ends when they have: not finite.
	 */
	if (f->nsync && one_in(5)) {
		s.num_in_syncobjs = 1 + (uint32_t)below(3);
		for (uint32_t i = 0; i < s.num_in_syncobjs; i++)
			deps[i] = f->sync[below(f->nsync)];
		s.in_syncobjs = (uintptr_t)deps;
		with_deps = true;
	}
	if (s.num_bos > 1 && one_in(6))
		bos[s.num_bos++] = bos[0];	/* named twice: allowed */

	/* One field spoiled; when alone, its errno is known. */
	if (g.force_kind < 0 && one_in(4)) {
		switch (below(18)) {
		case 0:
			s.program = bad_handle(f, own_prog, f->stale_prog);
			spoiled = "with a program this file does not have";
			want = f->ghosts ? -1 : ENOENT;
			break;
		case 1:
			s.flags |= (uint32_t)(fuzz32() | 2) & ~DRM_VGPU_SUBMIT_FLAGS;
			if (s.flags & ~DRM_VGPU_SUBMIT_FLAGS)
				spoiled = "with an unknown flag", want = EINVAL;
			break;
		case 2:
			/* The clock may not be moved far: 2^32 cycles at most. */
			s.flags |= DRM_VGPU_SUBMIT_NOT_BEFORE;
			s.not_before_cycle = one_in(3) ? UINT64_MAX - below(1u << 20) :
					     current_cycle(f) + (1ull << 33) + below(1ull << 40);
			spoiled = "not before a cycle over 2^32 ahead", want = EINVAL;
			break;
		case 3:
			s.priority = DRM_VGPU_PRIORITY_REALTIME + 1 + (uint32_t)below(100);
			spoiled = "with an unknown priority", want = EINVAL;
			break;
		case 4:
			s.grid[below(3)] = 0;
			spoiled = "with a zero grid dimension", want = EINVAL;
			break;
		case 5:
			s.block[below(3)] = 0;
			spoiled = "with a zero block dimension", want = EINVAL;
			break;
		case 6:
			/* More than 2^32-1 blocks; a huge valid grid would run for hours. */
			s.grid[0] = 65536 + (uint32_t)below(65536);
			s.grid[1] = 65536 + (uint32_t)below(65536);
			s.grid[2] = one_in(2) ? 1 : fuzz32() | 1;
			spoiled = "with a grid of 2^32 blocks or more", want = E2BIG;
			break;
		case 7:
			s.block[below(3)] = (uint32_t)g.max_threads_per_tb + 1 + (uint32_t)below(1u << 20);
			spoiled = "with a block above the device's limit";
			want = rogue_device ? -1 : E2BIG;
			break;
		case 8:
			s.params_size = DRM_VGPU_MAX_PARAM_BYTES + 1 + (uint32_t)below(1u << 20);
			spoiled = "with too many parameter bytes", want = E2BIG;
			break;
		case 9:
			s.num_bos = DRM_VGPU_MAX_SUBMIT_BOS + 1 + (uint32_t)below(1000);
			spoiled = "with too many buffers", want = E2BIG;
			break;
		case 10:
			s.entry = 3 + fuzz32();
			spoiled = "of an entry the program may not have";
			if (s.entry >= 3)
				want = EINVAL;
			break;
		case 11:
			if (s.params_size) {
				s.params = fuzz_uptr(params, s.params_size, &bad);
				if (bad)
					spoiled = "with unreadable parameters", want = EFAULT;
				else if (s.params != (uintptr_t)params)
					spoiled = "with parameters from elsewhere";
			}
			break;
		case 12:
			if (s.num_bos) {
				s.bo_handles = fuzz_uptr(bos, s.num_bos * 4, &bad);
				if (bad)
					spoiled = "with an unreadable buffer list", want = EFAULT;
				else if (s.bo_handles != (uintptr_t)bos)
					spoiled = "with a buffer list from elsewhere";
			}
			break;
		case 13:
			if (s.num_bos) {
				unknown_bo = bad_handle(f, own_or_canary, f->stale_bo);
				bos[below(s.num_bos)] = unknown_bo;
				spoiled = "naming a buffer this file does not have";
				want = f->ghosts ? -1 : ENOENT;
			}
			break;
		case 14:
			s.out_syncobj = bad_handle(f, own_sync, f->stale_sync);
			if (s.out_syncobj) {
				spoiled = "with a syncobj this file does not have";
				want = f->ghosts ? -1 : ENOENT;
			}
			break;
		case 15:
			/* Launch dependencies: more than the limit, checked first. */
			s.in_syncobjs = (uintptr_t)bos;
			s.num_in_syncobjs = DRM_VGPU_MAX_IN_SYNCOBJS + 1 + (uint32_t)below(1u << 20);
			spoiled = "waiting for too many syncobjs", want = E2BIG;
			break;
		case 16:
			s.in_pad = fuzz32() | 1;
			spoiled = "with in_pad set", want = EINVAL;
			break;
		default:
			s.dynamic_shared = one_in(2) ? fuzz32() :
				(uint32_t)below(g.max_shared_per_tb + 1);
			/* A rogue backend describes devices of its own. */
			if ((uint64_t)s.dynamic_shared +
			    entry_static_shared(f->prog[pi].kind, s.entry) > g.max_shared_per_tb)
				spoiled = "with too much shared memory",
				want = rogue_device ? -1 : E2BIG;
			break;
		}
	}
	err = xioctl(OP_SUBMIT, f->fd, DRM_IOCTL_VGPU_SUBMIT, &s, sizeof(s), 0);
	/*
	 * A handle we took for unknown that the file has after all (its
	 * number reused by a buffer we lost track of): not the kernel's
	 * mistake when another ioctl finds it too.
	 */
	if (!err && unknown_bo && want == ENOENT && untracked_bo(f, unknown_bo, OP_SUBMIT))
		want = -1;
	if (!predict_placement(OP_SUBMIT, DRM_IOCTL_VGPU_SUBMIT, err)) {
		/* A fenceless in-syncobj may be refused (EINVAL) first. */
		if (spoiled && want > 0 && kind != JK_OTHER && !(with_deps && err == EINVAL))
			predict(OP_SUBMIT, err, want, spoiled);
		else if (!spoiled && kind != JK_OTHER && !rogue_device && err != ENOSPC &&
			 err != ENOMEM && !(with_deps && err == EINVAL))
			predict(OP_SUBMIT, err, 0, "of a valid launch");
	}
	if (err || !placed_normally()) {
		/* A launch that may exist keeps its buffer, which we cannot track. */
		if (vbo && (err || g.placed != AT_READONLY))
			gem_close(f, vbo);
		else if (vbo)
			f->ghosts = true;
		return;
	}
	if (spoiled || kind == JK_OTHER || s.params != (uintptr_t)params ||
	    s.bo_handles != (uintptr_t)bos || g.no_predict) {
		j.want_error = 1;
		j.unchecked = true;	/* it may have read other parameters */
	}
	if (s.flags & DRM_VGPU_SUBMIT_NOT_BEFORE && s.not_before_cycle > current_cycle(f) + 100000)
		j.finite = false;
	if (with_deps && s.in_syncobjs == (uintptr_t)deps) {
		j.deps = true;
		j.finite = false;
		ADD(dep_jobs, 1);
	}
	j.id = s.job_id;
	j.kind = kind;
	j.submit_call = g.ncalls;
	j.file_open = f->open_serial;
	f->job[f->njob++] = j;
}

static uint64_t random_job_id(struct ffile *f)
{
	switch (below(5)) {
	case 0:
		return 0;
	case 1:
		return f->stale_job[below(MAX_STALE)];
	case 2:
		if (other_file(f)->njob)
			return other_file(f)->job[below(other_file(f)->njob)].id;
		return 1 + below(100);
	case 3:
		return (uint64_t)1 << 32 | below(100);
	default:
		return fuzz64();
	}
}

/*
 * A job id for a call, with *@jp the file's record of it when it is one of
 * the file's jobs. A random id may be one of them (ids are small early on):
 * a RELEASE of it must be forgotten like any other, or a later call of the
 * file's own job finds it gone.
 */
static uint64_t pick_job_id(struct ffile *f, struct fjob **jp)
{
	uint64_t id;

	*jp = NULL;
	if (f->njob && !one_in(5)) {
		*jp = &f->job[below(f->njob)];
		return (*jp)->id;
	}
	id = random_job_id(f);
	for (int i = 0; i < f->njob; i++)
		if (f->job[i].id == id)
			*jp = &f->job[i];
	return id;
}

/* A job is over: its error, and what it wrote when that can be checked. */
static void job_ended(struct ffile *f, struct fjob *j, const struct drm_vgpu_job_info *ji)
{
	int e = ji->error;

	if (j->checked)
		return;
	j->checked = true;
	ADD(jobs_checked, 1);
	if (e && e != -EFAULT && e != -EIO && e != -EILSEQ && e != -ENOMEM &&
	    e != -ETIMEDOUT && e != -ENODEV && !(j->deps && e == -ECANCELED) &&
	    !(rogue_device && e < 0 && e >= -4095)) {
		ADD(jobs_bad, 1);
		note("job %" PRIu64 " ended with error %d, not a documented one", j->id, e);
	}
	/* A detached backend fails everything with EIO: nothing else to check. */
	if (e == -EIO || rogue_device)
		return;
	/* A dependency failed: the job never ran, its error is the dependency's. */
	if (j->deps && e == -ECANCELED) {
		ADD(dep_cancelled, 1);
		return;
	}
	if (j->want_error != 1 && e != j->want_error) {
		ADD(jobs_bad, 1);
		note("job %" PRIu64 " (%s) ended with error %d, want %d%s%.0" PRIx64 "%s", j->id,
		     j->kind == JK_FILL ? "fill" : j->kind == JK_SPIN ? "spin" :
		     j->kind == JK_POKE ? "poke" : j->kind == JK_EXIT ? "exit" :
		     j->kind == JK_TRAP ? "trap" : "other",
		     e, j->want_error, j->kind == JK_POKE ? "; store at " : "",
		     j->kind == JK_POKE ? j->poke_addr : 0, j->kind == JK_POKE ? j->named : "");
	}
	if (j->kind == JK_POKE && j->canary_file) {
		struct ffile *o = &files[j->canary_file - 1];

		ADD(stray_checked, 1);
		if (o->canary_map)
			for (unsigned int i = 0; i < PAGE / 4; i++)
				if (o->canary_map[i] != 0xca0a0000u + i) {
					ADD(jobs_bad, 1);
					ADD(stray_bad, 1);
					note("a stray store of job %" PRIu64 " changed another file's buffer at word %u (job's poke at %#" PRIx64 ", canary at %#" PRIx64 ", buffers named:%s)",
					     j->id, i, j->poke_addr, o->canary_addr,
					     j->named[0] ? j->named : " none");
					break;
				}
	}
	if (e == 0 && j->vbo && !j->unchecked && (j->kind == JK_FILL || j->kind == JK_SPIN)) {
		uint32_t *p = map_bo(f->fd, j->vbo, j->vbo_size, PROT_READ);

		if (!p)
			return;
		for (uint32_t i = 0; i < j->n && (uint64_t)i * 4 < j->vbo_size; i++) {
			uint32_t want = j->kind == JK_FILL ? j->a * i + j->b : spin_ref(i, j->a);

			if (p[i] != want) {
				ADD(jobs_bad, 1);
				note("job %" PRIu64 " (%s): word %u is %#x, the CPU says %#x", j->id,
				     j->kind == JK_FILL ? "fill" : "spin", i, p[i], want);
				break;
			}
		}
		ADD(verified, 1);
		munmap(p, j->vbo_size);
	}
}

/*
 * A job this file should have is unknown to it: everything that tells the
 * fuzzer's bookkeeping from the kernel's, for the record.
 */
static void job_lost(struct ffile *f, const struct fjob *j)
{
	struct drm_vgpu_job_info ji = { .job_id = j->id };
	struct drm_vgpu_wait w = { .job_id = j->id };
	char ids[120];
	int e1, e2, n = 0;

	e1 = raw_ioctl(OP_JOB_INFO, f->fd, DRM_IOCTL_VGPU_JOB_INFO, &ji, 0);
	e2 = raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, 0);
	ids[0] = 0;
	for (int i = 0; i < f->njob && n < (int)sizeof(ids) - 24; i++)
		n += snprintf(ids + n, sizeof(ids) - (size_t)n, " %" PRIu64, f->job[i].id);
	note("job %" PRIu64 " (kind %d, want_error %d, finite %d, deps %d) of process %" PRIu64
	     " is unknown to its file (fd %d, opened %u, at submit %u), submitted %lu calls ago;"
	     " again: JOB_INFO %d, WAIT %d; the file's jobs:%s; its last calls:%s",
	     j->id, j->kind, j->want_error, j->finite, j->deps, g.who, f->fd, f->open_serial,
	     j->file_open, g.ncalls - j->submit_call, e1, e2, ids, fd_history(f->fd));
}

static void op_job_info(struct ffile *f)
{
	struct drm_vgpu_job_info ji = { 0 };
	struct fjob *j;
	int err;

	ji.job_id = pick_job_id(f, &j);
	if (one_in(2))
		ji.flags = DRM_VGPU_JOB_INFO_RELEASE;
	if (one_in(12))
		ji.flags |= fuzz32() & ~DRM_VGPU_JOB_INFO_RELEASE;
	if (one_in(12))
		ji.pad = fuzz32() | 1;
	err = xioctl(OP_JOB_INFO, f->fd, DRM_IOCTL_VGPU_JOB_INFO, &ji, sizeof(ji), 0);
	if (predict_placement(OP_JOB_INFO, DRM_IOCTL_VGPU_JOB_INFO, err)) {
		/* A read-only argument: released or not, we cannot tell. */
		if (j && g.placed == AT_READONLY && ji.flags == DRM_VGPU_JOB_INFO_RELEASE &&
		    !ji.pad)
			job_forget(f, j);
		return;
	}
	if (ji.flags & ~DRM_VGPU_JOB_INFO_RELEASE)
		predict(OP_JOB_INFO, err, EINVAL, "with an unknown flag");
	else if (ji.pad)
		predict(OP_JOB_INFO, err, EINVAL, "with pad set");
	else if (!ji.job_id || ji.job_id > UINT32_MAX)
		predict(OP_JOB_INFO, err, ENOENT, "of job 0 or above 2^32");
	else if (j && !(ji.flags & DRM_VGPU_JOB_INFO_RELEASE)) {
		predict(OP_JOB_INFO, err, 0, "of a job of this file");
		if (err == ENOENT && !g.no_predict && !g.backend_moved)
			job_lost(f, j);
	}
	if (!j)
		return;
	if (!err || err == EBUSY) {
		if (ji.state > DRM_VGPU_JOB_DONE) {
			ADD(jobs_bad, 1);
			note("JOB_INFO: job %" PRIu64 " in state %u", ji.job_id, ji.state);
		}
		if (ji.flags & DRM_VGPU_JOB_INFO_RELEASE)
			predict(OP_JOB_INFO, err, ji.state == DRM_VGPU_JOB_DONE ? 0 : EBUSY,
				ji.state == DRM_VGPU_JOB_DONE ? "RELEASE of a finished job" :
				"RELEASE of an unfinished job");
		if (ji.state == DRM_VGPU_JOB_DONE) {
			if (ji.end_cycle < ji.start_cycle) {
				ADD(jobs_bad, 1);
				note("job %" PRIu64 " ended at cycle %" PRIu64 " before its start %" PRIu64,
				     ji.job_id, (uint64_t)ji.end_cycle, (uint64_t)ji.start_cycle);
			}
			job_ended(f, j, &ji);
		}
		if (!err && ji.flags & DRM_VGPU_JOB_INFO_RELEASE)
			job_forget(f, j);
	}
}

static void op_wait(struct ffile *f)
{
	struct drm_vgpu_wait w = { 0 };
	uint64_t limit;
	struct fjob *j;
	int err;

	w.job_id = pick_job_id(f, &j);
	switch (below(6)) {
	case 0:
		w.timeout_ns = 0;
		break;
	case 1:
		w.timeout_ns = 1;
		break;
	case 2:
		w.timeout_ns = (int64_t)below(50000000);
		break;
	case 3:
		w.timeout_ns = (int64_t)below(2 * NS);
		break;
	default:
		/*
		 * Forever: only for a job that ends on its own, and only while
		 * no other file of ours holds the clock (it would hold it for
		 * good: we are the one that would have to wait in it).
		 */
		w.timeout_ns = j && j->finite && !other_file(f)->joined ?
			       -1 - (int64_t)below(1000) : (int64_t)below(100000000);
		break;
	}
	if (one_in(15))
		w.flags = fuzz32() | 1;
	if (one_in(15))
		w.pad = fuzz32() | 1;
	limit = w.timeout_ns < 0 ? 3 * g.hang_limit : (uint64_t)w.timeout_ns;
	if (w.timeout_ns < 0 && j)
		g.wait_job = (uint32_t)w.job_id;
	err = xioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, sizeof(w), limit);
	if (predict_placement(OP_WAIT, DRM_IOCTL_VGPU_WAIT, err))
		return;
	if (w.flags || w.pad)
		predict(OP_WAIT, err, EINVAL, "with flags or pad set");
	else if (!w.job_id || w.job_id > UINT32_MAX)
		predict(OP_WAIT, err, ENOENT, "for job 0 or above 2^32");
	else if (j && w.timeout_ns < 0)
		predict(OP_WAIT, err, 0, "without a timeout for a job of this file");
	if (f->joined)
		f->joined_calls = 0;	/* time ran */
}

static void op_clock_sync(struct ffile *f)
{
	struct drm_vgpu_clock_sync cs = { 0 };
	int err;

	switch (below(6)) {
	case 0:
		cs.flags = fuzz32() | 2;
		break;
	case 1:
		cs.rank = fuzz32() | 1;	/* leaving with a rank */
		break;
	case 2:
	case 3:
		cs.flags = DRM_VGPU_CLOCK_SYNC_JOIN;
		cs.rank = one_in(2) ? (uint32_t)below(8) : fuzz32();
		break;
	default:
		cs.flags = f->joined ? 0 : DRM_VGPU_CLOCK_SYNC_JOIN;
		cs.rank = f->joined ? 0 : (uint32_t)below(4);
		break;
	}
	err = xioctl(OP_CLOCK_SYNC, f->fd, DRM_IOCTL_VGPU_CLOCK_SYNC, &cs, sizeof(cs), 0);
	if (predict_placement(OP_CLOCK_SYNC, DRM_IOCTL_VGPU_CLOCK_SYNC, err))
		return;
	if (cs.flags & ~DRM_VGPU_CLOCK_SYNC_FLAGS)
		predict(OP_CLOCK_SYNC, err, EINVAL, "with an unknown flag");
	else if (!(cs.flags & DRM_VGPU_CLOCK_SYNC_JOIN) && cs.rank)
		predict(OP_CLOCK_SYNC, err, EINVAL, "leaving with a rank");
	else
		predict(OP_CLOCK_SYNC, err, 0, cs.flags ? "join" : "leave");
	if (!err) {
		f->joined = cs.flags & DRM_VGPU_CLOCK_SYNC_JOIN;
		f->joined_calls = 0;
	}
}

static void clock_leave(struct ffile *f)
{
	struct drm_vgpu_clock_sync cs = { 0 };

	if (f->fd >= 0 && !raw_ioctl(OP_CLOCK_SYNC, f->fd, DRM_IOCTL_VGPU_CLOCK_SYNC, &cs, 0))
		f->joined = false;
}

/*
 * A joined file holds the device's clock while it does anything but WAIT:
 * after a few calls it waits for one of its jobs that ends, or leaves.
 */
static void clock_keep_moving(struct ffile *f)
{
	if (!f->joined || ++f->joined_calls < 12)
		return;
	for (int i = 0; i < f->njob && one_in(2); i++) {
		if (f->job[i].finite) {
			struct drm_vgpu_wait w = { .job_id = f->job[i].id,
						   .timeout_ns = (int64_t)(NS / 2) };

			raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns);
			f->joined_calls = 0;
			return;
		}
	}
	clock_leave(f);
}

static void op_syncobj(struct ffile *f)
{
	uint32_t handles[8];
	int err, n;

	switch (below(10)) {
	case 0:
	case 1: {
		struct drm_syncobj_create c = { 0 };

		if (f->nsync == MAX_SYNCS)
			return;
		c.flags = one_in(3) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0;
		if (one_in(10))
			c.flags = fuzz32() | 2;
		err = xioctl(OP_SYNCOBJ_CREATE, f->fd, DRM_IOCTL_SYNCOBJ_CREATE, &c, sizeof(c), 0);
		mark_ghosts(f, err);
		if (!predict_placement(OP_SYNCOBJ_CREATE, DRM_IOCTL_SYNCOBJ_CREATE, err) &&
		    c.flags & ~DRM_SYNCOBJ_CREATE_SIGNALED)
			predict(OP_SYNCOBJ_CREATE, err, EINVAL, "with an unknown flag");
		if (!err && placed_normally())
			f->sync[f->nsync++] = c.handle;
		break;
	}
	case 2: {
		struct drm_syncobj_destroy d = { 0 };
		int i = f->nsync && !one_in(4) ? (int)below(f->nsync) : -1;

		d.handle = i >= 0 ? f->sync[i] : bad_handle(f, own_sync, f->stale_sync);
		if (one_in(10))
			d.pad = fuzz32() | 1;
		if (i < 0)
			untracked_sync_before_destroy(f, d.handle);
		err = xioctl(OP_SYNCOBJ_DESTROY, f->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d, sizeof(d), 0);
		if (!predict_placement(OP_SYNCOBJ_DESTROY, DRM_IOCTL_SYNCOBJ_DESTROY, err)) {
			if (d.pad)
				predict(OP_SYNCOBJ_DESTROY, err, EINVAL, "with pad set");
			else if (i < 0 && !f->ghosts)
				predict(OP_SYNCOBJ_DESTROY, err, EINVAL, "of a handle this file does not have");
		}
		/* From a read-only place it was destroyed all the same. */
		if ((!err || g.placed == AT_READONLY) && i >= 0) {
			stale_add(f->stale_sync, f->sync[i]);
			f->sync[i] = f->sync[--f->nsync];
		}
		break;
	}
	case 3:
	case 4: {
		struct drm_syncobj_wait w = { 0 };
		uint64_t rel;
		bool bad;

		n = (int)below(5);
		for (int i = 0; i < n; i++)
			handles[i] = f->nsync && !one_in(5) ? f->sync[below(f->nsync)] :
				     bad_handle(f, own_sync, f->stale_sync);
		w.handles = fuzz_uptr(handles, (size_t)n * 4, &bad);
		w.count_handles = (uint32_t)n;
		/*
		 * Not beyond 2^20: the core allocates count * 4 bytes without
		 * __GFP_NOWARN and WARNs above MAX_PAGE_ORDER (a report of its
		 * own, not the driver's; see the final message of the campaign).
		 */
		if (one_in(15))
			w.count_handles = fuzz32() & ((1u << 20) - 1);
		if (known_bugs && one_in(15))
			w.count_handles = 0x40000000u | (uint32_t)below(1u << 20);
		w.flags = (uint32_t)below(8);
		if (one_in(15))
			w.flags |= fuzz32() & ~7u;
		rel = one_in(3) ? 0 : below(200000000);
		w.timeout_nsec = one_in(8) ? (int64_t)fuzz64() % 1000 : (int64_t)(now_ns() + rel);
		err = xioctl(OP_SYNCOBJ_WAIT, f->fd, DRM_IOCTL_SYNCOBJ_WAIT, &w, sizeof(w), rel);
		predict_placement(OP_SYNCOBJ_WAIT, DRM_IOCTL_SYNCOBJ_WAIT, err);
		break;
	}
	case 5: {
		struct drm_syncobj_array a = { 0 };
		bool sig = one_in(2), bad;

		n = (int)below(4);
		for (int i = 0; i < n; i++)
			handles[i] = f->nsync && !one_in(5) ? f->sync[below(f->nsync)] :
				     bad_handle(f, own_sync, f->stale_sync);
		a.handles = fuzz_uptr(handles, (size_t)n * 4, &bad);
		a.count_handles = one_in(15) ? fuzz32() & ((1u << 20) - 1) : (uint32_t)n;
		if (one_in(10))
			a.pad = fuzz32() | 1;
		err = xioctl(sig ? OP_SYNCOBJ_SIGNAL : OP_SYNCOBJ_RESET, f->fd,
			     sig ? DRM_IOCTL_SYNCOBJ_SIGNAL : DRM_IOCTL_SYNCOBJ_RESET, &a, sizeof(a), 0);
		if (!predict_placement(sig ? OP_SYNCOBJ_SIGNAL : OP_SYNCOBJ_RESET,
				       DRM_IOCTL_SYNCOBJ_RESET, err) && a.pad)
			predict(sig ? OP_SYNCOBJ_SIGNAL : OP_SYNCOBJ_RESET, err, EINVAL, "with pad set");
		break;
	}
	case 6:
	case 7: {
		struct drm_syncobj_handle h = { 0 }, back = { 0 };
		struct ffile *to = one_in(2) ? f : other_file(f);

		h.handle = f->nsync && !one_in(4) ? f->sync[below(f->nsync)] :
			   bad_handle(f, own_sync, f->stale_sync);
		h.flags = one_in(3) ? DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0;
		if (one_in(12))
			h.flags = fuzz32();
		if (one_in(12))
			h.pad = fuzz32() | 1;
		err = xioctl(OP_SYNCOBJ_TO_FD, f->fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h, sizeof(h), 0);
		predict_placement(OP_SYNCOBJ_TO_FD, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, err);
		back.fd = !err && placed_normally() ? h.fd :
			  one_in(2) ? f->fd : (int)fuzz32();
		back.flags = h.flags & DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE ?
			     DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE : 0;
		if (back.flags)
			back.handle = to->nsync ? to->sync[below(to->nsync)] : 0;
		if (one_in(12))
			back.flags = fuzz32();
		if (to->nsync < MAX_SYNCS || back.flags) {
			int e2 = xioctl(OP_SYNCOBJ_TO_HANDLE, to->fd, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
					&back, sizeof(back), 0);

			mark_ghosts(to, e2);
			if (!e2 && placed_normally() && (back.flags || to->nsync >= MAX_SYNCS))
				to->ghosts = !back.flags;
			predict_placement(OP_SYNCOBJ_TO_HANDLE, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, e2);
			if (!e2 && placed_normally() && !back.flags && to->nsync < MAX_SYNCS)
				to->sync[to->nsync++] = back.handle;
		}
		if (!err && placed_normally())
			close(h.fd);
		break;
	}
	default: {
		/* Timeline syncobjs and eventfd: the driver has none. */
		struct drm_syncobj_timeline_array ta = { 0 };
		struct drm_syncobj_timeline_wait tw = { 0 };
		struct drm_syncobj_transfer tr = { 0 };
		struct drm_syncobj_eventfd ev = { 0 };
		uint64_t points[4] = { 1, 2, 3, 4 };

		handles[0] = f->nsync ? f->sync[0] : 1;
		ta.handles = (uintptr_t)handles;
		ta.points = (uintptr_t)points;
		ta.count_handles = 1;
		tw.handles = (uintptr_t)handles;
		tw.points = (uintptr_t)points;
		tw.count_handles = 1;
		tw.timeout_nsec = (int64_t)now_ns();
		tr.src_handle = tr.dst_handle = handles[0];
		ev.handle = handles[0];
		ev.fd = -1;
		switch (below(5)) {
		case 0:
			err = xioctl(OP_SYNCOBJ_TIMELINE, f->fd, DRM_IOCTL_SYNCOBJ_QUERY, &ta, sizeof(ta), 0);
			break;
		case 1:
			err = xioctl(OP_SYNCOBJ_TIMELINE, f->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &ta,
				     sizeof(ta), 0);
			break;
		case 2:
			err = xioctl(OP_SYNCOBJ_TIMELINE, f->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &tw,
				     sizeof(tw), 0);
			break;
		case 3:
			err = xioctl(OP_SYNCOBJ_TIMELINE, f->fd, DRM_IOCTL_SYNCOBJ_TRANSFER, &tr, sizeof(tr), 0);
			break;
		default:
			err = xioctl(OP_SYNCOBJ_TIMELINE, f->fd, DRM_IOCTL_SYNCOBJ_EVENTFD, &ev, sizeof(ev), 0);
			break;
		}
		if (!predict_placement(OP_SYNCOBJ_TIMELINE, DRM_IOCTL_SYNCOBJ_QUERY, err))
			predict(OP_SYNCOBJ_TIMELINE, err, EOPNOTSUPP, "on a driver without timelines");
		break;
	}
	}
}

/* Exports a buffer as a dma-buf, maps it, imports it into a file. */
static void op_prime(struct ffile *f)
{
	struct drm_prime_handle ph = { 0 }, im = { 0 };
	struct ffile *to = one_in(3) ? f : other_file(f);
	bool valid;
	int err, e2;

	ph.handle = pick_bo(f, &valid);
	ph.flags = DRM_CLOEXEC | (one_in(2) ? DRM_RDWR : 0);
	if (one_in(10))
		ph.flags = fuzz32();
	err = xioctl(OP_PRIME_TO_FD, f->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph, sizeof(ph), 0);
	if (!predict_placement(OP_PRIME_TO_FD, DRM_IOCTL_PRIME_HANDLE_TO_FD, err)) {
		if (ph.flags & ~(DRM_CLOEXEC | DRM_RDWR))
			predict(OP_PRIME_TO_FD, err, EINVAL, "with an unknown flag");
		else if (!own_or_canary(f, ph.handle) && !f->ghosts &&
			 !(!err && untracked_bo(f, ph.handle, OP_PRIME_TO_FD)))
			predict(OP_PRIME_TO_FD, err, ENOENT, "of a handle this file does not have");
	}
	if (err || !placed_normally()) {
		/* Something that is not one of ours. */
		im.fd = one_in(2) ? f->fd : (int)fuzz32();
		err = xioctl(OP_PRIME_TO_HANDLE, to->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im,
			     sizeof(im), 0);
		mark_ghosts(to, err);
		if (!err)
			to->ghosts = true;
		predict_placement(OP_PRIME_TO_HANDLE, DRM_IOCTL_PRIME_FD_TO_HANDLE, err);
		return;
	}
	if (one_in(2)) {
		uint64_t size = PAGE;
		void *p;

		for (int i = 0; i < f->nbo; i++)
			if (f->bo[i].handle == ph.handle)
				size = f->bo[i].size;
		if (one_in(4))
			size += PAGE;
		p = mmap(NULL, size, PROT_READ | (ph.flags & DRM_RDWR ? PROT_WRITE : 0), MAP_SHARED,
			 ph.fd, 0);
		count_call(OP_DMABUF_MMAP, p == MAP_FAILED ? errno : 0, 0, NULL);
		if (p != MAP_FAILED) {
			(void)((volatile uint8_t *)p)[size - 1];
			munmap(p, size);
		}
	}
	im.fd = ph.fd;
	if (to->nbo < MAX_BOS) {
		e2 = xioctl(OP_PRIME_TO_HANDLE, to->fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im, sizeof(im), 0);
		mark_ghosts(to, e2);
		if (!predict_placement(OP_PRIME_TO_HANDLE, DRM_IOCTL_PRIME_FD_TO_HANDLE, e2))
			predict(OP_PRIME_TO_HANDLE, e2, 0, "of a buffer this device exported");
		/* The same buffer in another file: its jobs may name it too. */
		if (!e2 && placed_normally() && !own_bo(to, im.handle)) {
			bool tracked = false;

			for (int i = 0; i < f->nbo; i++)
				if (f->bo[i].handle == ph.handle) {
					to->bo[to->nbo++] = (struct fbo){ im.handle, f->bo[i].size,
									   f->bo[i].addr, 1 };
					tracked = true;
				}
			/*
			 * The canary or a job's buffer: a handle @to has now
			 * but does not track.
			 */
			if (!tracked && to != f) {
				to->ghosts = true;
				if (ph.handle == f->canary)
					to->holds_other_canary = true;
			}
		}
	}
	close(ph.fd);
}

/* The DRM core's own ioctls: the ones a render node answers, and others. */
static void op_core(struct ffile *f)
{
	switch (below(5)) {
	case 0: {
		char name[16], date[16], desc[64];
		struct drm_version v = { 0 };
		bool bad;

		v.name_len = below(sizeof(name) + 1);
		v.name = (char *)(uintptr_t)fuzz_uptr(name, v.name_len, &bad);
		v.date_len = below(sizeof(date) + 1);
		v.date = date;
		v.desc_len = below(sizeof(desc) + 1);
		v.desc = desc;
		xioctl(OP_VERSION, f->fd, DRM_IOCTL_VERSION, &v, sizeof(v), 0);
		break;
	}
	case 1: {
		struct drm_get_cap c = { .capability = one_in(2) ? below(0x20) : fuzz64() };

		xioctl(OP_GET_CAP, f->fd, DRM_IOCTL_GET_CAP, &c, sizeof(c), 0);
		break;
	}
	case 2: {
		struct drm_set_client_cap c = { .capability = one_in(2) ? below(8) : fuzz64(),
						.value = fuzz64() };

		xioctl(OP_SET_CLIENT_CAP, f->fd, DRM_IOCTL_SET_CLIENT_CAP, &c, sizeof(c), 0);
		break;
	}
	default: {
		/* Refused on a render node. */
		static const unsigned long refused[] = {
			DRM_IOCTL_GEM_FLINK, DRM_IOCTL_GEM_OPEN, DRM_IOCTL_SET_MASTER,
			DRM_IOCTL_DROP_MASTER, DRM_IOCTL_GET_MAGIC, DRM_IOCTL_AUTH_MAGIC,
			DRM_IOCTL_MODE_CREATE_DUMB, DRM_IOCTL_MODE_GETRESOURCES,
			DRM_IOCTL_SET_VERSION, DRM_IOCTL_GET_UNIQUE,
		};
		uint8_t arg[128] = { 0 };
		unsigned long req = refused[below(sizeof(refused) / sizeof(refused[0]))];
		int err;

		for (size_t i = 0; i < sizeof(arg); i++)
			arg[i] = one_in(3) ? (uint8_t)rnd32() : 0;
		err = xioctl(OP_DRM_REFUSED, f->fd, req, arg,
			     _IOC_SIZE(req) < sizeof(arg) ? _IOC_SIZE(req) : sizeof(arg), 0);
		/*
		 * The core reads the argument first (when it has one), refuses,
		 * and writes the argument back all the same.
		 */
		if (_IOC_SIZE(req) && predict_placement(OP_DRM_REFUSED, req, err))
			break;
		if (err != EACCES && err != EOPNOTSUPP && err != EINVAL)
			predict(OP_DRM_REFUSED, err, EACCES, "refused to render clients");
		break;
	}
	}
}

/*
 * Any number in the DRM range with any size and direction: vgpu's own with
 * their structures cut short or run long, the ones after them, the core's.
 * Fields that could start a launch of hours or a wait of days are tamed.
 */
static void op_drm_random(struct ffile *f)
{
	uint8_t arg[512] __attribute__((aligned(8)));
	unsigned int nr, size, dir;
	unsigned long req;
	int err;

	if (one_in(2))
		nr = DRM_COMMAND_BASE + (unsigned int)below(16);
	else
		nr = (unsigned int)below(256);
	if (nr == 0xC3 || nr == 0xCA)	/* syncobj waits: op_syncobj's */
		nr = 0x0c;
	size = one_in(3) ? (unsigned int)below(sizeof(arg)) : (unsigned int)below(80);
	dir = (unsigned int)below(4);
	for (unsigned int i = 0; i < sizeof(arg); i++)
		arg[i] = one_in(2) ? 0 : (uint8_t)rnd32();
	/* Nothing of ours is destroyed or released behind our back. */
	if (nr == 0x09 || nr == 0xC0 || nr == DRM_COMMAND_BASE + DRM_VGPU_PROGRAM_DESTROY)
		memset(arg, 0xff, 4);	/* GEM_CLOSE, SYNCOBJ_DESTROY: handle ~0 */
	if (nr == DRM_COMMAND_BASE + DRM_VGPU_JOB_INFO)
		arg[8] &= ~DRM_VGPU_JOB_INFO_RELEASE;
	if (nr == 0xC4 || nr == 0xC5 || nr == 0xCD)
		memset(arg, 0, 16);	/* syncobj arrays: no handles, count 0 */
	if (nr == DRM_COMMAND_BASE + DRM_VGPU_SUBMIT) {
		memset(arg, 0, 4);	/* program 0: ENOENT */
	} else if (nr == DRM_COMMAND_BASE + DRM_VGPU_WAIT) {
		int64_t t = (int64_t)below(NS / 10);

		memcpy(arg + 8, &t, 8);
	} else if (nr == DRM_COMMAND_BASE + DRM_VGPU_CLOCK_SYNC) {
		arg[0] &= ~DRM_VGPU_CLOCK_SYNC_JOIN;
	} else if (nr == DRM_COMMAND_BASE + DRM_VGPU_BO_CREATE) {
		uint64_t sz = below(1 << 20);

		memcpy(arg, &sz, 8);
	}
	req = _IOC(dir, DRM_IOCTL_BASE, nr, size);
	err = xioctl(OP_DRM_RANDOM, f->fd, req, arg, size < sizeof(arg) ? size : sizeof(arg), 0);
	/* Whatever it made stays in the file until it closes. */
	if (!err || g.placed == AT_READONLY)
		f->ghosts = true;
}

static void op_poll_read(struct ffile *f)
{
	char buf[256];
	struct pollfd p = { .fd = f->fd, .events = POLLIN | POLLOUT | POLLPRI };
	ssize_t n;
	int r;

	r = poll(&p, 1, 0);
	count_call(OP_POLL_READ, r < 0 ? errno : 0, 0, NULL);
	n = read(f->fd, one_in(8) ? NULL : buf, below(sizeof(buf)));
	count_call(OP_POLL_READ, n < 0 ? errno : 0, 0, NULL);
}

static const char *const sysdev = "/sys/class/drm/renderD128/device";

/* A scheduler knob, to a value it lists (or not); restored at the end. */
static void op_sysfs(void)
{
	static const char *const choice[] = {
		"partition_policy", "preempt_policy", "smst_alloc", "kernel_sched",
		"idempotence", "maestro_objective", "maestro_history",
		"maestro_pairing", "maestro_relaunch",
	};
	static const char *const number[] = {
		"preempt_stress", "latency_budget_us", "maestro_epoch_cycles",
		"latency_margin_pct", "smk_quota_min", "latency_feedback",
	};
	char path[256], buf[256], val[64];
	ssize_t n;
	int fd, err = 0;

	if (one_in(2)) {
		const char *a = choice[below(sizeof(choice) / sizeof(choice[0]))];
		char *tok, *save = NULL;
		int k = 0, want;

		snprintf(path, sizeof(path), "%s/%s", sysdev, a);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = 0;
		want = (int)below(8);
		snprintf(val, sizeof(val), "nosuch");
		for (tok = strtok_r(buf, " []\n", &save); tok; tok = strtok_r(NULL, " []\n", &save))
			if (k++ == want || !strcmp(val, "nosuch"))
				snprintf(val, sizeof(val), "%s", tok);
		if (one_in(6))
			snprintf(val, sizeof(val), "bogus%u", (unsigned int)below(10));
	} else {
		const char *a = number[below(sizeof(number) / sizeof(number[0]))];

		snprintf(path, sizeof(path), "%s/%s", sysdev, a);
		if (!strcmp(a, "preempt_stress"))
			snprintf(val, sizeof(val), "%u", one_in(2) ? 0 : 2000 + (unsigned int)below(20000));
		else if (!strcmp(a, "maestro_epoch_cycles"))
			snprintf(val, sizeof(val), "%u", 2000 + (unsigned int)below(100000));
		else if (!strcmp(a, "latency_feedback"))
			snprintf(val, sizeof(val), "%u", (unsigned int)below(3));
		else
			snprintf(val, sizeof(val), "%" PRIu64, one_in(4) ? fuzz64() : below(120));
	}
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return;
	n = write(fd, val, strlen(val));
	if (n < 0)
		err = errno;
	close(fd);
	count_call(OP_SYSFS, err, 0, path);
}

static void op_debugfs(void)
{
	static const char *const names[] = { "kcb", "smst", "preempt", "maestro" };
	const char *base = "/sys/kernel/debug/dri";
	char path[300], buf[4096];
	struct dirent *d;
	DIR *dir = opendir(base);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int fd, err = 0;
		ssize_t n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", base, d->d_name,
			 names[below(sizeof(names) / sizeof(names[0]))]);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0)
			err = errno;
		close(fd);
		count_call(OP_DEBUGFS, err, 0, path);
	}
	closedir(dir);
}

/* Closes a file with whatever runs in it, and opens it again. */
static void op_reopen(struct ffile *f)
{
	clock_leave(f);
	if (one_in(2))
		clock_leave(f);
	file_close(f);
	file_open(f);
}

/* ---- a render worker -------------------------------------------------------- */

static void render_step(struct ffile *f)
{
	unsigned int r = (unsigned int)below(100);

	if (r < 4)
		op_get_param(f);
	else if (r < 12)
		op_bo_create(f);
	else if (r < 17)
		op_bo_mmap(f);
	else if (r < 21)
		op_gem_close(f);
	else if (r < 26)
		op_program_create(f);
	else if (r < 28)
		op_program_destroy(f);
	else if (r < 46)
		op_submit(f);
	else if (r < 58)
		op_job_info(f);
	else if (r < 66)
		op_wait(f);
	else if (r < 69)
		op_clock_sync(f);
	else if (r < 78)
		op_syncobj(f);
	else if (r < 82)
		op_prime(f);
	else if (r < 86)
		op_core(f);
	else if (r < 90)
		op_drm_random(f);
	else if (r < 93)
		op_poll_read(f);
	else if (r < 94 && one_in(4))
		op_reopen(f);
	else if (r < 96 && g.root && one_in(3))
		op_sysfs();
	else if (r < 98 && g.root && one_in(3))
		op_debugfs();
	else
		op_job_info(f);
	clock_keep_moving(f);
}

/*
 * Leaves the clock with every file (a joined one would hold the jobs the
 * others wait for), then waits for what their jobs do and checks it.
 */
static void files_settle(uint64_t deadline)
{
	for (int k = 0; k < NFILES; k++)
		if (files[k].fd >= 0)
			clock_leave(&files[k]);
	for (int k = 0; k < NFILES; k++) {
		struct ffile *f = &files[k];

		if (f->fd < 0)
			continue;
		for (int i = 0; i < f->njob; i++) {
			struct fjob *j = &f->job[i];
			struct drm_vgpu_wait w = { .job_id = j->id };
			struct drm_vgpu_job_info ji = { .job_id = j->id };
			uint64_t now = now_ns();

			if (!j->finite || now >= deadline)
				continue;
			w.timeout_ns = (int64_t)(deadline - now);
			if (raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns))
				continue;
			if (!raw_ioctl(OP_JOB_INFO, f->fd, DRM_IOCTL_VGPU_JOB_INFO, &ji, 0) &&
			    ji.state == DRM_VGPU_JOB_DONE)
				job_ended(f, j, &ji);
		}
	}
}

static void worker_setup_memory(void)
{
	g.ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(g.ro, PAGE, PROT_READ);
	g.unmapped = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(g.unmapped, PAGE);
	g.guard = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(g.guard + PAGE, PAGE, PROT_NONE);
	g.misal = malloc(PAGE + 64);
}

/* Starts a process of the campaign: its own random stream and slot. */
static pid_t spawn(uint64_t seed, uint64_t who, void (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;
	g.rng = seed_for(seed, who);
	g.who = who;
	slot_take();
	fn(arg);
	if (g.slot >= 0)
		__atomic_store_n(&sh->slots[g.slot].pid, 0, __ATOMIC_RELEASE);
	fflush(stdout);
	_exit(0);
}

static void render_worker(void *arg)
{
	unsigned long quota = *(unsigned long *)arg;

	g.quota_ctr = NULL;
	g.quota = quota;
	g.local_calls = 0;
	for (int k = 0; k < NFILES; k++)
		file_open(&files[k]);
	while (budget_left()) {
		struct ffile *f = &files[below(NFILES)];

		if (f->fd < 0) {
			file_open(f);
			if (f->fd < 0)
				break;
		}
		render_step(f);
	}
	g.setup = true;
	files_settle(now_ns() + 4 * g.hang_limit);
	for (int k = 0; k < NFILES; k++)
		file_close(&files[k]);
}

/* ---- races ------------------------------------------------------------------ */

/* The program that op_submit() wants for fill and spin, made now. */
static void ensure_kernels(struct ffile *f)
{
	uint32_t h;

	if (find_prog(f, PK_KERNELS) < 0 && f->nprog < MAX_PROGS &&
	    !program_create(f, kernels_img, kernels_size, &h))
		f->prog[f->nprog++] = (struct fprog){ h, PK_KERNELS };
}

/*
 * A child with a file of its own submits long jobs, maybe joined to the
 * clock, and then exits at once (mode 0: the file closes with them
 * running) or waits for them in short waits until it is killed (mode 1).
 */
static void race_child_jobs(void *arg)
{
	struct ffile *f = &files[0];
	int mode = *(int *)arg;

	g.quota_ctr = &sh->race_calls;	/* the driver's quota, shared */
	g.no_predict = false;	/* a file of its own */
	g.force_kind = JK_SPIN;
	file_open(f);
	if (f->fd < 0)
		return;
	ensure_kernels(f);
	if (one_in(3)) {
		struct drm_vgpu_clock_sync cs = { .flags = DRM_VGPU_CLOCK_SYNC_JOIN,
						  .rank = (uint32_t)below(4) };

		if (!raw_ioctl(OP_CLOCK_SYNC, f->fd, DRM_IOCTL_VGPU_CLOCK_SYNC, &cs, 0))
			f->joined = true;
	}
	for (int i = 1 + (int)below(2); i > 0; i--)
		op_submit(f);
	g.force_kind = -1;
	if (mode == 0)
		_exit(0);
	for (int i = 0; i < 40 && f->njob && budget_left(); i++) {
		struct drm_vgpu_wait w = { .timeout_ns = (int64_t)below(NS / 20) };

		w.job_id = f->job[below(f->njob)].id;
		raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns);
		op_job_info(f);
		if (f->joined && one_in(8))
			clock_leave(f);
	}
	clock_leave(f);
}

/* Two processes on one file: RELEASE, WAIT, closes and destroys at once. */
static void race_shared_body(struct ffile *f)
{
	bool was = g.no_predict;

	g.no_predict = true;
	for (int i = 0; i < 30 && budget_left(); i++) {
		switch (below(6)) {
		case 0:
		case 1:
			op_job_info(f);
			break;
		case 2:
			op_wait(f);
			break;
		case 3:
			op_gem_close(f);
			break;
		case 4:
			op_program_destroy(f);
			break;
		default:
			op_submit(f);
			break;
		}
	}
	clock_leave(f);
	g.no_predict = was;
}

static void race_shared_child(void *arg)
{
	g.quota_ctr = &sh->race_calls;	/* the driver's quota, shared */
	race_shared_body(arg);
}

static void reap_child(pid_t pid, uint64_t limit)
{
	uint64_t t0 = now_ns();
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (now_ns() - t0 > limit) {
			ADD(race_reaped_late, 1);
			note("race child %d has not exited after %.0f s: killed", (int)pid,
			     (double)limit / NS);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(2000);
	}
	slot_free_pid(pid);
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
		ADD(bad_deaths, 1);
		note("race child %d died of signal %d", (int)pid, WTERMSIG(st));
	}
}

/* The child of race_joined_waits(): waits for the other job of the file. */
static void race_joined_waiter(void *arg)
{
	struct ffile *f = arg;
	struct drm_vgpu_wait w = { .timeout_ns = (int64_t)(2 * g.hang_limit) };

	g.quota_ctr = &sh->race_calls;
	w.job_id = f->job[1].id;
	ADD(joined_waits, 1);
	if (raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns)) {
		ADD(joined_waits_late, 1);
		note("the second waiter of a joined file timed out (job %" PRIu64 ")",
		     (uint64_t)w.job_id);
	}
}

/*
 * Two processes of one file that joined the clock wait at once, for
 * different jobs: the file waits while either does, and both jobs end
 * (vgpu_clock_hold.c once kept one wait per file: the second wait tripped
 * a WARN_ON and the count of running files went wrong, which could hold
 * the device for good).
 */
static void race_joined_waits(uint64_t seed, uint64_t n)
{
	struct ffile *f = &files[1];
	struct drm_vgpu_clock_sync cs = { .flags = DRM_VGPU_CLOCK_SYNC_JOIN };
	struct drm_vgpu_wait w = { .timeout_ns = (int64_t)g.hang_limit };
	pid_t pid;

	if (f->fd < 0)
		file_open(f);
	while (f->njob)
		job_forget(f, &f->job[0]);
	ensure_kernels(f);
	if (raw_ioctl(OP_CLOCK_SYNC, f->fd, DRM_IOCTL_VGPU_CLOCK_SYNC, &cs, 0))
		return;
	g.force_kind = JK_SPIN;
	op_submit(f);
	op_submit(f);
	g.force_kind = -1;
	if (f->njob == 2) {
		pid = spawn(seed, 4000000 + n, race_joined_waiter, f);
		usleep(20000);
		w.job_id = f->job[0].id;
		ADD(joined_waits, 1);
		if (raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns)) {
			ADD(joined_waits_late, 1);
			note("the first waiter of a joined file timed out");
		}
		clock_leave(f);
		reap_child(pid, 4 * g.hang_limit);
	}
	clock_leave(f);
}

static void race_driver(void *arg)
{
	uint64_t seed = *(uint64_t *)arg;
	struct ffile *f = &files[0];

	g.quota_ctr = &sh->race_calls;
	g.quota = race_quota;
	/* Its files are shared with children that close and destroy: no predictions. */
	g.no_predict = true;
	file_open(&files[0]);
	file_open(&files[1]);
	for (uint64_t n = 0; budget_left(); n++) {
		int scenario = (int)below(5), mode;
		pid_t pid, pid2;

		if (f->fd < 0)
			file_open(f);
		switch (scenario) {
		case 0:
		case 1:
			/* Close while running: exit at once, or killed at a random moment. */
			mode = (int)below(2);
			pid = spawn(seed, 1000000 + n, race_child_jobs, &mode);
			ADD(race_children, 1);
			usleep((useconds_t)below(mode ? 300000 : 50000));
			if (mode || one_in(2)) {
				kill(pid, SIGKILL);
				ADD(race_killed, 1);
			} else {
				ADD(race_exited_running, 1);
			}
			reap_child(pid, 2 * g.hang_limit);
			break;
		case 2:
			/* One file, two processes. */
			ensure_kernels(f);
			for (int i = 0; i < 4; i++)
				op_submit(f);
			op_syncobj(f);
			pid = spawn(seed, 2000000 + n, race_shared_child, f);
			ADD(race_children, 1);
			race_shared_body(f);
			for (int i = 0; i < f->njob; i++)
				f->job[i].unchecked = true;	/* the other may have closed its buffer */
			if (one_in(3)) {
				kill(pid, SIGKILL);
				ADD(race_killed, 1);
			}
			reap_child(pid, 4 * g.hang_limit);
			break;
		case 4:
			race_joined_waits(seed, n);
			break;
		default: {
			/* Two joined files, one killed while joined. */
			int m1 = 1, m2 = 1;

			pid = spawn(seed, 3000000 + 2 * n, race_child_jobs, &m1);
			pid2 = spawn(seed, 3000001 + 2 * n, race_child_jobs, &m2);
			ADD(race_children, 2);
			usleep((useconds_t)below(200000));
			kill(one_in(2) ? pid : pid2, SIGKILL);
			ADD(race_killed, 1);
			reap_child(pid, 4 * g.hang_limit);
			reap_child(pid2, 4 * g.hang_limit);
			break;
		}
		}
		if (one_in(10))
			op_reopen(f);
	}
	g.setup = true;
	files_settle(now_ns() + 4 * g.hang_limit);
	file_close(&files[0]);
	file_close(&files[1]);
}

/* ---- the backend ------------------------------------------------------------ */

struct rtb {
	uint32_t job, tb, sm, slot;
};

static struct {
	int fd;
	struct vgpu_backend_attach at;
	uint8_t *cmd, *evt, *vram;
	uint64_t cycle;
	struct rtb tbs[512];
	int ntbs;
	struct rtb pre[128];
	uint16_t pre_flags[128];
	int npre;
	struct rtb done[64];	/* finished: for duplicates */
	int ndone;
	uint32_t jobs[64];
	int njobs;
	uint32_t evt_tail;
	uint32_t cmd_head;	/* what we really consumed */
	uint32_t cmd_mask, evt_mask;	/* from ATTACH, not from the rings */
} rb;

static void fermi_desc(struct vgpu_device_desc *d)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->name, "vgpu-fuzz");
	d->num_sms = 1 + (uint32_t)below(one_in(8) ? 1024 : 16);
	d->warp_size = 32;
	d->max_threads_per_sm = 1536;
	d->max_tbs_per_sm = 1 + (uint32_t)below(64);
	d->regs_per_sm = 32768;
	d->shared_per_sm = 48 * 1024;
	d->max_threads_per_tb = 1024;
	d->max_regs_per_thread = 63;
	d->max_shared_per_tb = 48 * 1024;
	d->core_clock_khz = 1400000;
	d->reg_alloc_unit = 2;
	d->shared_alloc_unit = 128;
	d->mem_bandwidth_mbs = one_in(3) ? 0 : 177400;
}

static void spoil_desc(struct vgpu_device_desc *d)
{
	uint32_t *w = (uint32_t *)((uint8_t *)d + VGPU_DEVICE_NAME_LEN);
	size_t nw = (sizeof(*d) - VGPU_DEVICE_NAME_LEN) / 4;

	if (one_in(6))
		memset(d->name, 'x', sizeof(d->name));
	else
		w[below(nw)] = fuzz32();
}

static int b_open(void)
{
	int fd = open(VGPU_BACKEND_DEVICE, O_RDWR | O_CLOEXEC);

	count_call(OP_B_OPEN, fd < 0 ? errno : 0, 0, NULL);
	return fd;
}

static void *b_mmap(int fd, uint64_t off, size_t size, int prot, int flags)
{
	void *p = mmap(NULL, size, prot, flags, fd, (off_t)off);

	count_call(OP_B_MMAP, p == MAP_FAILED ? errno : 0, 0, NULL);
	return p == MAP_FAILED ? NULL : p;
}

static int b_kick(uint64_t cycle, uint32_t flags, struct vgpu_backend_kick *out)
{
	struct vgpu_backend_kick k = { .cycle = cycle, .flags = flags };
	int err = xioctl(OP_B_KICK, rb.fd, VGPU_BACKEND_IOC_KICK, &k, sizeof(k), 0);

	if (out)
		*out = k;
	ADD(rogue_kicks, 1);
	if (!predict_placement(OP_B_KICK, VGPU_BACKEND_IOC_KICK, err)) {
		if (flags)
			predict(OP_B_KICK, err, EINVAL, "with flags set");
		else if (cycle < rb.cycle)
			predict(OP_B_KICK, err, EINVAL, "with a cycle going backwards");
		else
			predict(OP_B_KICK, err, 0, "of the cycle reached");
	}
	if ((!err || g.placed == AT_READONLY) && !flags && cycle >= rb.cycle)
		rb.cycle = cycle;	/* a read-only argument: it kicked, then EFAULT */
	return err;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void b_wait_clock(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: EINTR */
	alarm(2);
	raw_ioctl(OP_B_WAIT_CLOCK, rb.fd, VGPU_BACKEND_IOC_WAIT_CLOCK, NULL, 2 * NS);
	alarm(0);
}

/* Reads the commands the kernel wrote and remembers what runs where. */
static void rogue_read_cmds(void)
{
	const struct vgpu_ring_offsets *o = &rb.at.cmd;
	uint32_t head = rb.cmd_head;
	uint32_t tail = __atomic_load_n((uint32_t *)(rb.cmd + o->tail), __ATOMIC_ACQUIRE);
	uint32_t mask = rb.cmd_mask;

	if (tail - head > mask + 1) {
		ADD(rogue_bad_events, 1);
		note("the command ring's tail %u is %u entries past the head", tail, tail - head);
		head = tail;
	}
	for (; head != tail; head++) {
		struct vgpu_cmd c;

		memcpy(&c, rb.cmd + o->entries + (head & mask) * o->entry_size, sizeof(c));
		ADD(rogue_cmds, 1);
		switch (c.op) {
		case VGPU_CMD_JOB_BEGIN:
			if (c.addr + sizeof(struct vgpu_job_desc) > rb.at.vram_size) {
				ADD(rogue_bad_events, 1);
				note("JOB_BEGIN of job %u: descriptor at %#" PRIx64 " outside device memory",
				     c.job, (uint64_t)c.addr);
			} else {
				const struct vgpu_job_desc *d = (const void *)(rb.vram + c.addr);

				if (d->abi_version != VGPU_BACKEND_ABI_VERSION || d->job != c.job) {
					ADD(rogue_bad_events, 1);
					note("JOB_BEGIN of job %u: its descriptor says job %u, ABI %u",
					     c.job, d->job, d->abi_version);
				}
			}
			if (rb.njobs < 64)
				rb.jobs[rb.njobs++] = c.job;
			break;
		case VGPU_CMD_DISPATCH:
			if (c.sm >= rb.at.desc.num_sms || c.slot >= rb.at.desc.max_tbs_per_sm) {
				ADD(rogue_bad_events, 1);
				note("DISPATCH of job %u to SM %u slot %u of a %u x %u device", c.job,
				     c.sm, c.slot, rb.at.desc.num_sms, rb.at.desc.max_tbs_per_sm);
			}
			if (rb.ntbs < 512)
				rb.tbs[rb.ntbs++] = (struct rtb){ c.job, c.tb, c.sm, c.slot };
			break;
		case VGPU_CMD_PREEMPT:
			if (rb.npre < 128) {
				rb.pre_flags[rb.npre] = c.flags;
				rb.pre[rb.npre++] = (struct rtb){ c.job, c.tb, c.sm, c.slot };
			}
			break;
		case VGPU_CMD_JOB_END:
			for (int i = 0; i < rb.ntbs; i++)
				if (rb.tbs[i].job == c.job)
					rb.tbs[i--] = rb.tbs[--rb.ntbs];
			break;
		default:
			break;
		}
	}
	/* Consumed: usually exactly, now and then a head beyond the tail. */
	rb.cmd_head = head;
	if (one_in(25))
		head = tail + 1 + (uint32_t)below(one_in(2) ? 10 : 1u << 20);
	__atomic_store_n((uint32_t *)(rb.cmd + o->head), head, __ATOMIC_RELEASE);
}

static void rogue_push(const struct vgpu_evt *e)
{
	const struct vgpu_ring_offsets *o = &rb.at.evt;
	uint32_t mask = rb.evt_mask;
	uint32_t head = __atomic_load_n((uint32_t *)(rb.evt + o->head), __ATOMIC_ACQUIRE);

	if (rb.evt_tail - head >= mask + 1)
		return;	/* full */
	memcpy(rb.evt + o->entries + (rb.evt_tail & mask) * o->entry_size, e, sizeof(*e));
	rb.evt_tail++;
	ADD(rogue_events, 1);
}

/* Events: the ones a model would post, and malformed ones. */
static void rogue_post(void)
{
	int n = (int)below(12);

	for (int i = 0; i < n; i++) {
		struct vgpu_evt e = { .cycle = rb.cycle + below(100) };
		int k;

		if (rb.ntbs && !one_in(4)) {
			k = (int)below(rb.ntbs);
			e.type = VGPU_EVT_TB_DONE;
			e.job = rb.tbs[k].job;
			e.tb = rb.tbs[k].tb;
			e.sm = rb.tbs[k].sm;
			e.slot = rb.tbs[k].slot;
			e.warp_insts = below(100000);
			e.tb_cycles = below(100000);
			e.flags = (uint16_t)below(2);
			if (one_in(10))
				e.status = one_in(2) ? -(int32_t)below(200) : (int32_t)fuzz32();
			if (rb.ndone < 64)
				rb.done[rb.ndone++] = rb.tbs[k];
			else
				rb.done[below(64)] = rb.tbs[k];
			rb.tbs[k] = rb.tbs[--rb.ntbs];
		} else if (rb.npre && one_in(2)) {
			k = (int)below(rb.npre);
			e.type = VGPU_EVT_PREEMPTED;
			e.job = rb.pre[k].job;
			e.tb = rb.pre[k].tb;
			e.sm = rb.pre[k].sm;
			e.slot = rb.pre[k].slot;
			e.flags = rb.pre_flags[k];
			e.status = one_in(5) ? (one_in(2) ? -ENOENT : -EBUSY) : 0;
			e.warp_insts = below(1000);
			e.tb_cycles = below(5000);
			/* A switched or flushed block is gone from its slot. */
			for (int t = 0; t < rb.ntbs; t++)
				if (rb.tbs[t].job == e.job && rb.tbs[t].tb == e.tb &&
				    rb.tbs[t].sm == e.sm && rb.tbs[t].slot == e.slot && !e.status) {
					rb.tbs[t] = rb.tbs[--rb.ntbs];
					break;
				}
			rb.pre[k] = rb.pre[--rb.npre];
			rb.pre_flags[k] = rb.pre_flags[rb.npre];
		} else {
			/* Malformed. */
			switch (below(8)) {
			case 0:
				e.type = VGPU_EVT_TB_DONE;
				e.job = one_in(2) ? fuzz32() : (rb.njobs ? rb.jobs[below(rb.njobs)] : 1);
				e.tb = fuzz32();
				e.sm = (uint32_t)below(rb.at.desc.num_sms);
				e.slot = (uint32_t)below(rb.at.desc.max_tbs_per_sm);
				break;
			case 1:
				e.type = VGPU_EVT_TB_DONE;
				e.job = rb.njobs ? rb.jobs[below(rb.njobs)] : fuzz32();
				e.sm = rb.at.desc.num_sms + (uint32_t)below(100);
				e.slot = one_in(2) ? fuzz32() : rb.at.desc.max_tbs_per_sm;
				break;
			case 2:
				if (rb.ndone) {	/* a duplicate TB_DONE */
					struct rtb *d = &rb.done[below(rb.ndone)];

					e.type = VGPU_EVT_TB_DONE;
					e.job = d->job, e.tb = d->tb, e.sm = d->sm, e.slot = d->slot;
				}
				break;
			case 3:
				e.type = VGPU_EVT_PREEMPTED;
				e.job = rb.njobs ? rb.jobs[below(rb.njobs)] : fuzz32();
				e.sm = (uint32_t)below(rb.at.desc.num_sms + 2);
				e.slot = (uint32_t)below(rb.at.desc.max_tbs_per_sm + 2);
				e.flags = (uint16_t)fuzz32();
				e.status = (int32_t)fuzz32();
				break;
			case 4:
				e.type = (uint16_t)(4 + below(0xfff0));
				e.job = fuzz32();
				break;
			case 5:
				e.type = VGPU_EVT_WAKE;
				e.cycle = fuzz64();
				break;
			case 6:
				if (rb.ntbs) {	/* right slot, wrong block */
					struct rtb *t = &rb.tbs[below(rb.ntbs)];

					e.type = VGPU_EVT_TB_DONE;
					e.job = t->job, e.sm = t->sm, e.slot = t->slot;
					e.tb = t->tb + 1 + (uint32_t)below(5);
				}
				break;
			default:
				e.type = VGPU_EVT_TB_DONE;
				memset(&e, 0xff, sizeof(e));
				e.type = VGPU_EVT_TB_DONE;
				break;
			}
			e.cycle = one_in(4) ? fuzz64() : e.cycle;
		}
		rogue_push(&e);
	}
	/* Publish: usually the true tail, now and then one beyond the ring. */
	if (one_in(30)) {
		uint32_t bogus = rb.evt_tail + 4096 + 1 + (uint32_t)below(1u << 30);

		__atomic_store_n((uint32_t *)(rb.evt + rb.at.evt.tail), bogus, __ATOMIC_RELEASE);
		rb.evt_tail = bogus;	/* the kernel skips to it */
	} else {
		__atomic_store_n((uint32_t *)(rb.evt + rb.at.evt.tail), rb.evt_tail, __ATOMIC_RELEASE);
	}
}

/* Scribbles on the thread-block status table the kernel reads. */
static void rogue_status(void)
{
	uint64_t n = (uint64_t)rb.at.desc.num_sms * rb.at.desc.max_tbs_per_sm;
	struct vgpu_tb_status *st;

	if (!rb.vram || rb.at.status_addr + n * sizeof(*st) > rb.at.vram_size)
		return;
	st = (struct vgpu_tb_status *)(rb.vram + rb.at.status_addr);
	for (int i = 0; i < 4; i++) {
		struct vgpu_tb_status *s = &st[below(n)];

		if (one_in(2) && rb.ntbs) {
			struct rtb *t = &rb.tbs[below(rb.ntbs)];

			s = &st[(uint64_t)t->sm * rb.at.desc.max_tbs_per_sm + t->slot];
			s->job = t->job;
			s->tb = t->tb;
			s->warp_insts = below(1u << 20);
			s->start_cycle = rb.cycle - below(1000);
			s->flags = (uint32_t)below(2);
		} else {
			s->job = fuzz32();
			s->tb = fuzz32();
			s->warp_insts = fuzz64();
			s->start_cycle = fuzz64();
			s->flags = fuzz32();
			s->reserved = fuzz32();
		}
	}
}

/* One more thing a backend file could be asked. */
static void rogue_misc(void)
{
	switch (below(9)) {
	case 0: {
		struct pollfd p = { .fd = rb.fd, .events = POLLIN };
		int r = poll(&p, 1, 0);

		count_call(OP_B_POLL, r < 0 ? errno : 0, 0, NULL);
		break;
	}
	case 1:
		b_wait_clock();
		break;
	case 2: {
		struct vgpu_backend_attach at = { .abi_version = VGPU_BACKEND_ABI_VERSION };
		int err;

		fermi_desc(&at.desc);
		err = xioctl(OP_B_ATTACH, rb.fd, VGPU_BACKEND_IOC_ATTACH, &at, sizeof(at), 0);
		if (!predict_placement(OP_B_ATTACH, VGPU_BACKEND_IOC_ATTACH, err))
			predict(OP_B_ATTACH, err, EBUSY, "a second time on an attached file");
		break;
	}
	case 3: {
		/* Another file: not attached, and no second backend. */
		int fd = b_open();
		struct vgpu_backend_kick k = { .cycle = fuzz64() };
		struct vgpu_backend_attach at = { .abi_version = VGPU_BACKEND_ABI_VERSION };
		struct pollfd p = { .events = POLLIN };
		void *m;
		int err;

		if (fd < 0)
			break;
		err = raw_ioctl(OP_B_KICK, fd, VGPU_BACKEND_IOC_KICK, &k, 0);
		predict(OP_B_KICK, err, EINVAL, "on a file that is not attached");
		err = raw_ioctl(OP_B_WAIT_CLOCK, fd, VGPU_BACKEND_IOC_WAIT_CLOCK, NULL, 0);
		predict(OP_B_WAIT_CLOCK, err, EINVAL, "on a file that is not attached");
		fermi_desc(&at.desc);
		err = raw_ioctl(OP_B_ATTACH, fd, VGPU_BACKEND_IOC_ATTACH, &at, 0);
		predict(OP_B_ATTACH, err, EBUSY, "of a second backend");
		m = b_mmap(fd, VGPU_BACKEND_OFF_CMD_RING, rb.at.cmd.map_size, PROT_READ, MAP_SHARED);
		if (m)
			munmap(m, rb.at.cmd.map_size);
		p.fd = fd;
		count_call(OP_B_POLL, poll(&p, 1, 0) < 0 ? errno : 0, 0, NULL);
		close(fd);
		break;
	}
	case 4: {
		static const uint64_t offs[] = { VGPU_BACKEND_OFF_CMD_RING, VGPU_BACKEND_OFF_EVT_RING,
						 VGPU_BACKEND_OFF_VRAM, 0x1000, 0x20000000ull };
		uint64_t off = offs[below(5)];
		size_t size = off == VGPU_BACKEND_OFF_VRAM ? rb.at.vram_size : rb.at.cmd.map_size;
		void *m;

		if (one_in(2))
			size = one_in(2) ? size + PAGE : PAGE * (1 + below(4));
		m = b_mmap(rb.fd, off, size, one_in(4) ? PROT_READ : PROT_READ | PROT_WRITE,
			   one_in(4) ? MAP_PRIVATE : MAP_SHARED);
		if (m)
			munmap(m, size);
		break;
	}
	case 5: {
		uint8_t arg[256] = { 0 };
		unsigned long req = _IOC(below(4), one_in(2) ? VGPU_BACKEND_IOC_MAGIC : below(256),
					 below(16), below(256));

		if (req == VGPU_BACKEND_IOC_ATTACH || req == VGPU_BACKEND_IOC_KICK ||
		    req == VGPU_BACKEND_IOC_WAIT_CLOCK)
			break;
		raw_ioctl(OP_B_OTHER, rb.fd, req, arg, 0);
		break;
	}
	case 6:
		/* Garbage in device memory the kernel does not read. */
		if (rb.vram)
			for (int i = 0; i < 8; i++)
				rb.vram[below(rb.at.vram_size)] = (uint8_t)rnd32();
		break;
	case 7:
		/* The ring's mask and size are the kernel's, whatever we write. */
		*(uint32_t *)(rb.cmd + rb.at.cmd.ring_mask) = fuzz32();
		*(uint32_t *)(rb.evt + rb.at.evt.ring_entries) = fuzz32();
		break;
	default:
		b_kick(rb.cycle + 1, (uint32_t)fuzz32() | 1, NULL);
		break;
	}
}

/* ATTACH with random descriptions on fresh files; the ones that pass detach again. */
static void rogue_attach_fuzz(int rounds)
{
	for (int i = 0; i < rounds && budget_left(); i++) {
		struct vgpu_backend_attach at = { .abi_version = VGPU_BACKEND_ABI_VERSION };
		bool spoiled = one_in(2);
		int fd = b_open(), err;

		if (fd < 0)
			return;
		fermi_desc(&at.desc);
		if (spoiled)
			spoil_desc(&at.desc);
		if (one_in(10))
			at.abi_version = fuzz32();
		if (one_in(10))
			at.flags = fuzz32() | 1;
		err = xioctl(OP_B_ATTACH, fd, VGPU_BACKEND_IOC_ATTACH, &at, sizeof(at), 0);
		if (!predict_placement(OP_B_ATTACH, VGPU_BACKEND_IOC_ATTACH, err)) {
			if (at.abi_version != VGPU_BACKEND_ABI_VERSION)
				predict(OP_B_ATTACH, err, EINVAL, "with a wrong ABI version");
			else if (at.flags)
				predict(OP_B_ATTACH, err, EINVAL, "with flags set");
			else if (!spoiled)
				predict(OP_B_ATTACH, err, 0, "of a valid description");
		}
		if (!err && placed_normally()) {
			struct vgpu_backend_kick k = { .cycle = at.start_cycle };

			ADD(rogue_attaches, 1);
			raw_ioctl(OP_B_KICK, fd, VGPU_BACKEND_IOC_KICK, &k, 0);
			if (one_in(2)) {
				void *m = b_mmap(fd, VGPU_BACKEND_OFF_VRAM, at.vram_size,
						 PROT_READ | PROT_WRITE, MAP_SHARED);

				if (m)
					munmap(m, at.vram_size);
			}
		}
		close(fd);
		count_call(OP_OPEN_CLOSE, 0, 0, NULL);
	}
}

/* A process that submits to whatever backend there is, until told to stop. */
static void rogue_submitter(void *arg)
{
	(void)arg;
	g.quota_ctr = &sh->backend_calls;	/* the rogue's quota, shared */
	rogue_device = true;
	for (int k = 0; k < NFILES; k++)
		file_open(&files[k]);
	while (!__atomic_load_n(&sh->stop_submitters, __ATOMIC_ACQUIRE) && budget_left()) {
		struct ffile *f = &files[below(NFILES)];
		unsigned int r = (unsigned int)below(10);

		if (f->fd < 0)
			break;
		if (r < 4)
			op_submit(f);
		else if (r < 6)
			op_job_info(f);
		else if (r < 7)
			op_wait(f);
		else if (r < 8)
			op_clock_sync(f);
		else if (r < 9)
			op_program_create(f);
		else
			op_bo_create(f);
		clock_keep_moving(f);
		usleep(1000);
	}
	for (int k = 0; k < NFILES; k++) {
		clock_leave(&files[k]);
		file_close(&files[k]);
	}
}

static bool backend_attached(int fd)
{
	uint64_t v = 1;

	get_param(fd, DRM_VGPU_PARAM_BACKEND_ATTACHED, &v);
	return v;
}

/* Saves vgpud's command line, so that it can be started again as it was. */
static int vgpud_pid(void)
{
	char buf[32] = "";
	FILE *f = fopen("/run/vgpud.pid", "r");
	int pid = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		pid = atoi(buf);
	fclose(f);
	return pid > 0 && !kill(pid, 0) ? pid : 0;
}

static bool save_vgpud_argv(int pid)
{
	char path[64];
	ssize_t n;
	int fd, argc = 0;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, vgpud_argv_buf, sizeof(vgpud_argv_buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	vgpud_argv_buf[n] = 0;
	for (char *p = vgpud_argv_buf; p < vgpud_argv_buf + n && argc < 63; p += strlen(p) + 1)
		vgpud_argv[argc++] = p;
	vgpud_argv[argc] = NULL;
	return argc > 0;
}

static bool stop_vgpud(int fd, int pid)
{
	uint64_t t0 = now_ns();

	kill(pid, SIGTERM);
	while (backend_attached(fd)) {
		if (now_ns() - t0 > 10 * NS)
			kill(pid, SIGKILL);
		if (now_ns() - t0 > 30 * NS)
			return false;
		usleep(20000);
	}
	return true;
}

static bool start_vgpud(int fd)
{
	uint64_t t0 = now_ns();
	pid_t pid;
	FILE *f;

	unlink("/run/vgpud.ready");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int log = open("/tmp/vgpud-fuzz.log", O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (log >= 0) {
			dup2(log, 1);
			dup2(log, 2);
		}
		setsid();
		execvp(vgpud_argv[0], vgpud_argv);
		_exit(127);
	}
	if (pid < 0)
		return false;
	f = fopen("/run/vgpud.pid", "w");
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	while (access("/run/vgpud.ready", F_OK) || !backend_attached(fd)) {
		if (now_ns() - t0 > 30 * NS || waitpid(pid, NULL, WNOHANG) == pid)
			return false;
		usleep(20000);
	}
	return true;
}

/* Runs one fill launch on a fresh file and compares it with the CPU. */
static bool device_computes(const char **why)
{
	struct ffile *f = &files[0];
	struct drm_vgpu_job_info ji = { 0 };
	struct drm_vgpu_submit s = { 0 };
	struct drm_vgpu_wait w = { 0 };
	uint8_t params[32] = { 0 };
	uint32_t prog = 0, bo = 0, n = 1000, a = 3, b = 7, *p;
	uint64_t addr = 0;
	bool ok = false;

	file_open(f);
	*why = "cannot open the render node";
	if (f->fd < 0)
		return false;
	*why = "PROGRAM_CREATE or BO_CREATE failed";
	if (program_create(f, kernels_img, kernels_size, &prog) || bo_create(f, n * 4, &bo, &addr))
		goto out;
	memcpy(params, &n, 4);
	memcpy(params + 4, &a, 4);
	memcpy(params + 8, &b, 4);
	memcpy(params + 16, &addr, 8);
	s.program = prog;
	s.entry = entry_fill;
	s.grid[0] = (n + 127) / 128;
	s.grid[1] = s.grid[2] = 1;
	s.block[0] = 128;
	s.block[1] = s.block[2] = 1;
	s.params = (uintptr_t)params;
	s.params_size = param_fill;
	s.bo_handles = (uintptr_t)&bo;
	s.num_bos = 1;
	*why = "SUBMIT failed";
	if (raw_ioctl(OP_SUBMIT, f->fd, DRM_IOCTL_VGPU_SUBMIT, &s, 0))
		goto out;
	w.job_id = s.job_id;
	w.timeout_ns = (int64_t)(2 * g.hang_limit);
	*why = "WAIT failed";
	if (raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns))
		goto out;
	ji.job_id = s.job_id;
	*why = "JOB_INFO failed or the job failed";
	if (raw_ioctl(OP_JOB_INFO, f->fd, DRM_IOCTL_VGPU_JOB_INFO, &ji, 0) ||
	    ji.state != DRM_VGPU_JOB_DONE || ji.error)
		goto out;
	p = map_bo(f->fd, bo, PAGE, PROT_READ);
	*why = "the result differs from the CPU's";
	if (!p)
		goto out;
	ok = true;
	for (uint32_t i = 0; i < n; i++)
		ok &= p[i] == a * i + b;
	munmap(p, PAGE);
	if (ok)
		*why = NULL;
out:
	file_close(f);
	return ok;
}

static void backend_phase(void *arg)
{
	uint64_t seed = *(uint64_t *)arg;
	pid_t subs[2];
	int fd, pid;
	const char *why;

	g.quota_ctr = &sh->backend_calls;
	g.quota = backend_quota;
	g.setup = true;
	fd = open_node(true);
	pid = vgpud_pid();
	if (fd < 0 || !pid || !g.root || !save_vgpud_argv(pid)) {
		sh->backend_state = 1;
		snprintf(sh->backend_why, sizeof(sh->backend_why), "%s",
			 !g.root ? "not root" : fd < 0 ? "no render node" :
			 "no vgpud (/run/vgpud.pid)");
		if (fd >= 0)
			close(fd);
		return;
	}
	sh->backend_state = 2;
	sh->stop_monitor_stall = 1;
	__atomic_add_fetch(&sh->backend_swaps, 1, __ATOMIC_ACQ_REL);	/* away */
	if (!stop_vgpud(fd, pid)) {
		note("vgpud (pid %d) did not detach after SIGTERM and SIGKILL", pid);
		close(fd);
		return;
	}
	g.setup = false;

	/* Descriptions, valid and not, on files of their own. */
	rogue_attach_fuzz((int)(g.quota / 20 + 2));

	/* The rogue session. */
	memset(&rb, 0, sizeof(rb));
	rb.fd = b_open();
	if (rb.fd < 0)
		goto restart;
	rb.at.abi_version = VGPU_BACKEND_ABI_VERSION;
	fermi_desc(&rb.at.desc);
	if (raw_ioctl(OP_B_ATTACH, rb.fd, VGPU_BACKEND_IOC_ATTACH, &rb.at, 0)) {
		note("the rogue backend could not attach");
		close(rb.fd);
		goto restart;
	}
	ADD(rogue_attaches, 1);
	rb.cycle = rb.at.start_cycle;
	rb.cmd = b_mmap(rb.fd, VGPU_BACKEND_OFF_CMD_RING, rb.at.cmd.map_size,
			PROT_READ | PROT_WRITE, MAP_SHARED);
	rb.evt = b_mmap(rb.fd, VGPU_BACKEND_OFF_EVT_RING, rb.at.evt.map_size,
			PROT_READ | PROT_WRITE, MAP_SHARED);
	rb.vram = b_mmap(rb.fd, VGPU_BACKEND_OFF_VRAM, rb.at.vram_size,
			 PROT_READ | PROT_WRITE, MAP_SHARED);
	if (!rb.cmd || !rb.evt) {
		note("the rogue backend could not map its rings");
		close(rb.fd);
		goto restart;
	}
	rb.evt_tail = *(uint32_t *)(rb.evt + rb.at.evt.tail);
	rb.cmd_head = *(uint32_t *)(rb.cmd + rb.at.cmd.head);
	rb.cmd_mask = (rb.at.cmd.map_size - rb.at.cmd.entries) / rb.at.cmd.entry_size - 1;
	rb.evt_mask = (rb.at.evt.map_size - rb.at.evt.entries) / rb.at.evt.entry_size - 1;
	if (rb.at.cmd.entry_size != sizeof(struct vgpu_cmd) ||
	    rb.at.evt.entry_size != sizeof(struct vgpu_evt) ||
	    (rb.cmd_mask & (rb.cmd_mask + 1)) || (rb.evt_mask & (rb.evt_mask + 1)) ||
	    *(uint32_t *)(rb.cmd + rb.at.cmd.ring_mask) != rb.cmd_mask) {
		ADD(rogue_bad_events, 1);
		note("the rings' layout is not what ATTACH said");
		close(rb.fd);
		goto restart;
	}
	__atomic_store_n(&sh->stop_submitters, 0, __ATOMIC_RELEASE);
	subs[0] = spawn(seed, 5000001, rogue_submitter, NULL);
	subs[1] = spawn(seed, 5000002, rogue_submitter, NULL);
	while (budget_left()) {
		struct vgpu_backend_kick k;
		uint64_t next;

		rogue_read_cmds();
		rogue_post();
		if (one_in(5))
			rogue_status();
		switch (below(20)) {
		case 0:
			/* Backwards (not below 0: that would be a jump to 2^64). */
			next = rb.cycle > 2000 ? rb.cycle - 1 - below(1000) : rb.cycle;
			break;
		case 1:
			next = rb.cycle + ((uint64_t)1 << (20 + below(16)));	/* a jump */
			break;
		case 2:
			next = rb.cycle;
			break;
		default:
			next = rb.cycle + 1 + below(3000);
			break;
		}
		if (!b_kick(next, 0, &k) && k.flags & VGPU_KICK_HOLD && placed_normally())
			b_wait_clock();
		if (one_in(6))
			rogue_misc();
		if (one_in(3))
			usleep(500);
	}
	/* Answer what is left honestly for a moment, then go. */
	g.setup = true;
	for (int i = 0; i < 20; i++) {
		rogue_read_cmds();
		while (rb.ntbs) {
			struct vgpu_evt e = { .type = VGPU_EVT_TB_DONE, .cycle = rb.cycle + 1 };

			e.job = rb.tbs[0].job, e.tb = rb.tbs[0].tb;
			e.sm = rb.tbs[0].sm, e.slot = rb.tbs[0].slot;
			rb.tbs[0] = rb.tbs[--rb.ntbs];
			rogue_push(&e);
		}
		__atomic_store_n((uint32_t *)(rb.evt + rb.at.evt.tail), rb.evt_tail, __ATOMIC_RELEASE);
		b_kick(rb.cycle + 1000, 0, NULL);
	}
	if (rb.vram && one_in(2)) {
		/* The device memory stays mapped across the detach. */
		munmap(rb.vram, rb.at.vram_size);
		rb.vram = NULL;
	}
	munmap(rb.cmd, rb.at.cmd.map_size);
	munmap(rb.evt, rb.at.evt.map_size);
	close(rb.fd);
	count_call(OP_OPEN_CLOSE, 0, 0, "of the backend (detach)");
	__atomic_store_n(&sh->stop_submitters, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++) {
		uint64_t t0 = now_ns();
		int st = 0;

		while (waitpid(subs[i], &st, WNOHANG) != subs[i]) {
			if (now_ns() - t0 > 4 * g.hang_limit) {
				note("a submitter did not stop after the rogue backend detached");
				kill(subs[i], SIGKILL);
				waitpid(subs[i], &st, 0);
				break;
			}
			usleep(10000);
		}
		slot_free_pid(subs[i]);
		if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
			ADD(bad_deaths, 1);
			note("a submitter died of signal %d", WTERMSIG(st));
		}
	}
	if (rb.vram)
		munmap(rb.vram, rb.at.vram_size);
restart:
	g.setup = true;
	sh->restarted = start_vgpud(fd);
	sh->stop_monitor_stall = 0;
	if (!sh->restarted)
		note("vgpud did not start again (see /tmp/vgpud-fuzz.log)");
	else if (device_computes(&why))
		sh->restart_verified = 1;
	else
		note("after vgpud restarted: %s", why);
	if (sh->restarted)
		__atomic_add_fetch(&sh->backend_swaps, 1, __ATOMIC_ACQ_REL);	/* back */
	close(fd);
}

/*
 * Before the campaign: the device computes, and how long a spin of 4000
 * iterations takes, to size the long jobs at about a tenth of a second.
 */
static void first_check(void *arg)
{
	struct ffile *f = &files[1];
	struct drm_vgpu_submit s = { 0 };
	struct drm_vgpu_wait w = { 0 };
	uint32_t prog = 0, bo = 0, iters = 4000;
	uint8_t params[16] = { 0 };
	const char *why = NULL;
	uint64_t addr = 0, t0;

	(void)arg;
	g.setup = true;
	sh->first_ok = device_computes(&why);
	if (why)
		snprintf(sh->first_msg, sizeof(sh->first_msg), "%s", why);
	sh->long_spin = 20000;
	file_open(f);
	if (f->fd < 0 || program_create(f, kernels_img, kernels_size, &prog) ||
	    bo_create(f, PAGE, &bo, &addr))
		goto out;
	memcpy(params, &iters, 4);
	memcpy(params + 8, &addr, 8);
	s.program = prog;
	s.entry = entry_spin;
	s.grid[0] = s.grid[1] = s.grid[2] = 1;
	s.block[0] = 32;
	s.block[1] = s.block[2] = 1;
	s.params = (uintptr_t)params;
	s.params_size = param_spin;
	s.bo_handles = (uintptr_t)&bo;
	s.num_bos = 1;
	t0 = now_ns();
	if (raw_ioctl(OP_SUBMIT, f->fd, DRM_IOCTL_VGPU_SUBMIT, &s, 0))
		goto out;
	w.job_id = s.job_id;
	w.timeout_ns = (int64_t)(2 * g.hang_limit);
	if (raw_ioctl(OP_WAIT, f->fd, DRM_IOCTL_VGPU_WAIT, &w, (uint64_t)w.timeout_ns))
		goto out;
	sh->spin_ns = now_ns() - t0;
	sh->long_spin = (uint32_t)((uint64_t)iters * (NS / 10) / (sh->spin_ns + 1));
	if (sh->long_spin < 1000)
		sh->long_spin = 1000;
	if (sh->long_spin > 1000000)
		sh->long_spin = 1000000;
out:
	file_close(f);
}

/* ---- the final check --------------------------------------------------------- */

static void final_check(void *arg)
{
	const char *why = NULL;
	uint64_t v = 0;
	int fd;

	(void)arg;
	g.setup = true;
	fd = open_node(true);
	if (fd >= 0 && (!backend_attached(fd) || get_param(fd, DRM_VGPU_PARAM_NUM_SMS, &v))) {
		snprintf(sh->final_msg, sizeof(sh->final_msg), "no backend attached at the end");
		close(fd);
		sh->final_done = 1;
		return;
	}
	if (fd >= 0)
		close(fd);
	sh->final_ok = device_computes(&why);
	if (why)
		snprintf(sh->final_msg, sizeof(sh->final_msg), "%s", why);
	sh->final_done = 1;
}

/* ---- the monitor ------------------------------------------------------------- */

static void dump_stack(int pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

static void cat_file(const char *path, int max_lines)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	printf("# %s:\n", path);
	for (int n = 0; n < max_lines && fgets(line, sizeof(line), f); n++)
		printf("#   %s", line);
	fclose(f);
}

/* What the device was doing when a call hung. */
static void dump_device(void)
{
	static const char *const knobs[] = { "partition_policy", "preempt_policy", "smst_alloc",
					     "kernel_sched", "preempt_stress" };
	char path[512];
	struct dirent *d;
	DIR *dir = opendir("/sys/kernel/debug/dri");
	int pid = vgpud_pid();

	/* One of dri/0, dri/128 and dri/vgpu: they show the same device. */
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/kcb", d->d_name);
		if (access(path, R_OK))
			continue;
		cat_file(path, 40);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/lockstep", d->d_name);
		cat_file(path, 2);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/smst", d->d_name);
		cat_file(path, 40);
		break;
	}
	if (dir)
		closedir(dir);
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sysdev, knobs[i]);
		cat_file(path, 2);
	}
	if (pid) {
		printf("# vgpud (pid %d):\n", pid);
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		dir = opendir(path);
		while (dir && (d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, d->d_name);
			cat_file(path, 12);
		}
		if (dir)
			closedir(dir);
	}
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &sh->slots[i];
		uint64_t since = __atomic_load_n(&s->since, __ATOMIC_ACQUIRE);

		if (s->pid)
			printf("# process %d: %s%s, for %.1f s\n", s->pid, since ? "in " : "between calls",
			       since ? ops[s->op].name : "", since ? (double)(now_ns() - since) / NS : 0.0);
	}
}

/*
 * The last backtrace vgpud wrote on SIGUSR1, from the log of the daemon
 * the guest started or of the one this program restarted; its addresses
 * resolve on the host with addr2line -f -e build/guest/vgpud.
 */
static void show_vgpud_backtrace(void)
{
	static const char *const logs[] = { "/tmp/vgpud-fuzz.log", "/tmp/vgpud.log" };
	static char buf[1 << 16];

	for (size_t i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		FILE *f = fopen(logs[i], "r");
		size_t n;
		char *p, *last = NULL;

		if (!f)
			continue;
		/* The end of the log: the backtrace was just written. */
		if (fseek(f, -(long)(sizeof(buf) - 1), SEEK_END))
			rewind(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		for (p = buf; (p = strstr(p, "vgpud: backtrace")); p++)
			last = p;
		if (!last)
			continue;
		printf("# %s:\n", logs[i]);
		for (int lines = 0; *last && lines < 40; lines++) {
			char *e = strchr(last, '\n');

			printf("#   %.*s\n", e ? (int)(e - last) : (int)strlen(last), last);
			if (!e)
				break;
			last = e + 1;
		}
	}
}

/* CPU time vgpud has used (clock ticks): it simulates or it sleeps. */
static uint64_t vgpud_cpu(void)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	int pid = vgpud_pid(), fd;
	ssize_t n;

	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return 0;
	return ut + st;
}

/*
 * The device's cycle and its active jobs (the first line of debugfs kcb),
 * and in kcb_text the KCB's job lines and the SMST's block lines as read.
 */
static char kcb_text[1 << 17];

/* Appends the lines of @f to kcb_text from @used on; returns the new end. */
static size_t read_lines(FILE *f, size_t used)
{
	char line[256];

	while (used + sizeof(line) < sizeof(kcb_text) && fgets(line, sizeof(line), f)) {
		memcpy(kcb_text + used, line, strlen(line) + 1);
		used += strlen(line);
	}
	return used;
}

static void device_progress(uint64_t *cycle, unsigned int *active)
{
	static int fd = -1;
	struct drm_vgpu_get_param gp = { .param = DRM_VGPU_PARAM_CURRENT_CYCLE };
	size_t used = 0;
	char line[160];
	struct dirent *d;
	DIR *dir;

	*cycle = 0;
	*active = 0;
	kcb_text[0] = 0;
	if (fd < 0)
		fd = open_node(false);
	if (fd >= 0 && !ioctl(fd, DRM_IOCTL_VGPU_GET_PARAM, &gp))
		*cycle = gp.value;
	dir = opendir("/sys/kernel/debug/dri");
	while (dir && (d = readdir(dir))) {
		char path[300];
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/kcb", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f)) {
			char *a = strstr(line, " active ");

			if (a)
				*active = (unsigned int)atoi(a + 8);
		}
		used = read_lines(f, used);
		fclose(f);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%s/smst", d->d_name);
		f = fopen(path, "r");
		if (f) {
			used = read_lines(f, used);
			fclose(f);
		}
		break;	/* dri/0, dri/128 and dri/vgpu show one device */
	}
	if (dir)
		closedir(dir);
}

/*
 * A fingerprint of job @id's KCB line (its blocks done, running and next)
 * and of its running blocks' SMST lines (the instructions each has
 * executed, from the TB status table), 0 when the job is not active: a
 * wait for it makes progress while this changes. The device's cycle alone
 * is not progress: a job held back (a not-before cycle, a dependency) does
 * not move while time passes.
 */
static uint64_t job_seen(uint32_t id)
{
	char key[16], blk[24];
	const char *p = kcb_text;
	uint64_t h = 1469598103934665603ull;
	int n = snprintf(key, sizeof(key), "%u ", id);
	bool found = false, failed = false;

	snprintf(blk, sizeof(blk), " job %u tb ", id);
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		bool kcb_line = len > (size_t)n && !strncmp(p, key, (size_t)n);
		const char *b = kcb_line ? NULL : strstr(p, blk);

		if (kcb_line) {
			/* The last column: the error the job failed with. */
			const char *last = p + len;

			while (last > p && last[-1] != ' ')
				last--;
			failed = atoi(last) != 0;
		}
		/*
		 * A failed job's blocks are flushed: one that runs on is not
		 * progress towards its end.
		 */
		if (kcb_line || (b && (!e || b < e) && !failed)) {
			for (size_t i = 0; i < len; i++)
				h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
			found |= kcb_line;
		}
		p += len + (e ? 1 : 0);
	}
	return found ? h | 1 : 0;
}

/*
 * Watches every call of every process until the children in @pids end, and
 * the device: work to do and no cycle passing for longer than a call may
 * take is a stall.
 */
static void monitor(pid_t *pids, int n)
{
	uint64_t last_change = now_ns(), last_cycle = 0, last_print = now_ns(), last_check = 0;
	uint64_t busy, last_busy = 0;
	uint64_t last_calls = 0, last_call_change = now_ns();
	uint64_t last_cycle2 = 0, last_move = now_ns();
	bool stall_reported = false, calls_reported = false, still_shown = false;
	bool stand_counted = false;
	int left = n;

	while (left > 0) {
		uint64_t now = now_ns(), cycle;
		unsigned int active;
		int st;
		pid_t r;

		if (now - last_check > NS) {
			last_check = now;
			device_progress(&cycle, &active);
			for (int i = 0; i < MAX_SLOTS; i++) {
				struct slot *s = &sh->slots[i];
				uint64_t seen;

				if (!s->job || !__atomic_load_n(&s->since, __ATOMIC_ACQUIRE))
					continue;
				seen = job_seen(s->job);
				if (seen && seen != s->seen)
					s->progress = now;
				s->seen = seen;
			}
			busy = vgpud_cpu();
			/*
			 * The device's cycle standing with jobs for 20 s, vgpud
			 * busy or not: shown before the daemon watchdog
			 * (daemon_timeout_ms, 60 s) could take vgpud for dead.
			 */
			if (cycle != last_cycle2 || !active) {
				last_cycle2 = cycle;
				last_move = now;
				still_shown = false;
				stand_counted = false;
			} else if (now - last_move > 40 * NS && !stand_counted &&
				   !sh->stop_monitor_stall) {
				/*
				 * vgpud returns every sync quantum of simulated
				 * time; not for 40 s, the daemon watchdog is
				 * near, which fails every job with it.
				 */
				stand_counted = true;
				ADD(stands, 1);
				note("the device's cycle stood at %" PRIu64 " with %u jobs for 40 s",
				     cycle, active);
			} else if (now - last_move > 20 * NS && !still_shown &&
				   !sh->stop_monitor_stall) {
				still_shown = true;
				printf("# the device has stood at cycle %" PRIu64 " with %u jobs for %.0f s, vgpud %s:\n",
				       cycle, active, (double)(now - last_move) / NS,
				       busy != last_busy ? "running" : "idle");
				/* Where it computes: a backtrace into its log. */
				if (vgpud_pid() > 0 && !kill(vgpud_pid(), SIGUSR1)) {
					usleep(500000);
					show_vgpud_backtrace();
				}
				for (int i = 0; i < MAX_SLOTS; i++) {
					struct slot *s = &sh->slots[i];
					uint64_t since = __atomic_load_n(&s->since, __ATOMIC_ACQUIRE);

					if (s->pid && since) {
						printf("#   %s in process %d for %.0f s\n", ops[s->op].name,
						       s->pid, (double)(now - since) / NS);
						dump_stack(s->pid);
					}
				}
				dump_device();
			}
			if (cycle != last_cycle || !active || busy != last_busy) {
				last_busy = busy;
				last_cycle = cycle;
				last_change = now;
				stall_reported = false;
			} else if (now - last_change > g.hang_limit && !stall_reported &&
				   !sh->stop_monitor_stall) {
				stall_reported = true;
				ADD(stalls, 1);
				note("the device stood at cycle %" PRIu64 " with %u jobs, vgpud idle, for %.0f s",
				     cycle, active, (double)(now - last_change) / NS);
				printf("# stall: cycle %" PRIu64 ", %u jobs active, for %.0f s\n", cycle,
				       active, (double)(now - last_change) / NS);
				dump_device();
			}
			if (now - last_print > 30 * NS) {
				printf("# progress: %lu calls, cycle %" PRIu64 ", %u jobs active\n",
				       sh->fuzz_calls, cycle, active);
				last_print = now;
			}
			/*
			 * No call has returned for the hang limit while calls
			 * are made: show what they wait for, once per stretch.
			 */
			if (sh->fuzz_calls + sh->setup_calls != last_calls) {
				last_calls = sh->fuzz_calls + sh->setup_calls;
				last_call_change = now;
				calls_reported = false;
			} else if (now - last_call_change > g.hang_limit && !calls_reported) {
				calls_reported = true;
				printf("# no call returned for %.0f s; calls in progress:\n",
				       (double)(now - last_call_change) / NS);
				for (int i = 0; i < MAX_SLOTS; i++) {
					struct slot *s = &sh->slots[i];
					uint64_t since = __atomic_load_n(&s->since, __ATOMIC_ACQUIRE);

					if (s->pid && since)
						printf("#   %s in process %d for %.0f s%s%.0u\n",
						       ops[s->op].name, s->pid,
						       (double)(now - since) / NS,
						       s->job ? ", for job " : "", s->job);
				}
				dump_device();
			}
			fflush(stdout);
		}

		while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
			for (int i = 0; i < n; i++) {
				if (pids[i] != r)
					continue;
				pids[i] = 0;
				left--;
				if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
					ADD(bad_deaths, 1);
					note("process %d died of signal %d (%s)", (int)r, WTERMSIG(st),
					     strsignal(WTERMSIG(st)));
				} else if (WIFEXITED(st) && WEXITSTATUS(st)) {
					note("process %d exited with status %d", (int)r, WEXITSTATUS(st));
				}
			}
			slot_free_pid(r);
		}
		for (int i = 0; i < MAX_SLOTS; i++) {
			struct slot *s = &sh->slots[i];
			uint64_t since = __atomic_load_n(&s->since, __ATOMIC_ACQUIRE);
			int pid = __atomic_load_n(&s->pid, __ATOMIC_ACQUIRE);

			/* A wait for a job that still moves is not hung. */
			if (since && s->job && s->progress > since)
				since = s->progress;
			if (!pid || !since || s->reported || now < since || now - since <= s->limit)
				continue;
			s->reported = 1;
			ADD(hangs, 1);
			if (s->job)
				note("%s for job %u in process %d has not returned %.1f s after the job last moved",
				     ops[s->op].name, s->job, pid, (double)(now - since) / NS);
			else
				note("%s in process %d has not returned after %.1f s", ops[s->op].name,
				     pid, (double)(now - since) / NS);
			printf("# hung: %s in process %d, kernel stack:\n", ops[s->op].name, pid);
			dump_stack(pid);
			if (sh->hangs == 1)
				dump_device();
			fflush(stdout);
			kill(pid, SIGKILL);
		}
		usleep(50000);
	}
}

/* ---- main ---------------------------------------------------------------------- */

static int passed, failed;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
}

static void restore_knobs(void)
{
	char dpath[128], path[512], val[128];
	struct dirent *d;
	DIR *dir;

	snprintf(dpath, sizeof(dpath), "%s/.defaults", sysdev);
	dir = opendir(dpath);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		FILE *in;
		int fd;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dpath, d->d_name);
		in = fopen(path, "r");
		if (!in)
			continue;
		if (fgets(val, sizeof(val), in)) {
			snprintf(path, sizeof(path), "%s/%s", sysdev, d->d_name);
			fd = open(path, O_WRONLY);
			if (fd >= 0) {
				if (write(fd, val, strlen(val)) < 0)
					note("restoring %s to its default failed: %s", d->d_name,
					     strerror(errno));
				close(fd);
			}
		}
		fclose(in);
	}
	closedir(dir);
}

static void summary(void)
{
	unsigned long total_err[NERR] = { 0 };

	printf("# vgpu_fuzz: %lu calls fuzzed, %lu by setup and checks; per call:",
	       sh->fuzz_calls, sh->setup_calls);
	for (int op = 0; op < OP_COUNT; op++)
		if (sh->calls[op])
			printf(" %s %lu", ops[op].name, sh->calls[op]);
	printf("\n# results:");
	for (int op = 0; op < OP_COUNT; op++)
		for (int e = 0; e < NERR; e++)
			total_err[e] += sh->errs[op][e];
	for (int e = 0; e < NERR; e++) {
		if (!total_err[e])
			continue;
		if (!e)
			printf(" success %lu", total_err[e]);
		else if (e == NERR - 1)
			printf(" other %lu", total_err[e]);
		else
			printf(" %s %lu", strerrorname_np(e) ? strerrorname_np(e) : "?", total_err[e]);
	}
	printf("\n");
	if (!g.verbose)
		return;
	for (int op = 0; op < OP_COUNT; op++) {
		if (!sh->calls[op])
			continue;
		printf("# %s: %lu calls:", ops[op].name, sh->calls[op]);
		for (int e = 0; e < NERR; e++)
			if (sh->errs[op][e])
				printf(" %s %lu", !e ? "success" : e == NERR - 1 ? "other" :
				       strerrorname_np(e) ? strerrorname_np(e) : "?", sh->errs[op][e]);
		printf("\n");
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vgpu_fuzz [--seed N] [--calls N] [--procs N] [--no-backend]\n"
		   "                 [--hang-limit SECONDS] [--known-bugs] [--verbose]\n");
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	unsigned long calls = 20000, render_quota;
	int procs = 3, hang_s = 60, fd;
	bool backend = true;
	char err[256];
	pid_t pids[16];
	uint64_t t0 = now_ns();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			calls = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--procs") && i + 1 < argc) {
			procs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--hang-limit") && i + 1 < argc) {
			hang_s = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--no-backend")) {
			backend = false;
		} else if (!strcmp(argv[i], "--known-bugs")) {
			known_bugs = true;
		} else if (!strcmp(argv[i], "--verbose")) {
			g.verbose = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (procs < 1 || procs > 8 || hang_s < 1 || !calls) {
		usage(stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	g.hang_limit = (uint64_t)hang_s * NS;
	g.root = geteuid() == 0;
	g.rng = seed_for(seed, 0);
	g.force_kind = -1;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	worker_setup_memory();

	/* The programs. */
	if (vgpu_compile_ptx(fuzz_ptx, sizeof(fuzz_ptx) - 1, &kernels_img, &kernels_size, err,
			     sizeof(err)) ||
	    find_entry(kernels_img, "fill", &entry_fill, &param_fill) ||
	    find_entry(kernels_img, "spin", &entry_spin, &param_spin) ||
	    find_entry(kernels_img, "poke", &entry_poke, &param_poke)) {
		tap(false, "compile the fuzzer's kernels: %s", err);
		printf("%d passed, %d failed\n", passed, failed);
		return 1;
	}
	exit_img = img_single(ISA_EXIT, &exit_size);
	trap_img = img_single(ISA_TRAP, &trap_size);
	g.setup = true;
	fd = open_node(true);
	if (fd < 0) {
		tap(false, "open the vgpu render node");
		printf("%d passed, %d failed\n", passed, failed);
		return 1;
	}
	read_limits(fd);
	close(fd);
	g.setup = false;
	printf("# vgpu_fuzz: seed %" PRIu64 ", %lu calls, %d processes, a %u-SM device with %" PRIu64
	       " MiB\n", seed, calls, procs, (unsigned int)g.num_sms, g.vram_size >> 20);

	/* Does it work at all; how fast is it? */
	pids[0] = spawn(seed, 50, first_check, NULL);
	monitor(pids, 1);
	g_long_spin = sh->long_spin;
	tap(sh->first_ok, "before the campaign the device computes right%s%s",
	    sh->first_ok ? "" : ": ", sh->first_ok ? "" : sh->first_msg);
	printf("# a spin of 4000 iterations took %.3f s: long jobs spin %u times\n",
	       (double)sh->spin_ns / NS, g_long_spin);

	/* Phase 1: render workers and the races, at once. */
	backend = backend && g.root;
	render_quota = calls * 55 / 100 / (unsigned long)procs;
	if (!render_quota)
		render_quota = 1;
	race_quota = calls * 15 / 100;
	if (!backend)
		race_quota = calls - render_quota * (unsigned long)procs;
	for (int i = 0; i < procs; i++)
		pids[i] = spawn(seed, (uint64_t)i + 1, render_worker, &render_quota);
	pids[procs] = spawn(seed, 100, race_driver, &seed);
	monitor(pids, procs + 1);
	printf("# render and race phase done in %.1f s\n", (double)(now_ns() - t0) / NS);

	/* Phase 2: the backend. */
	if (backend) {
		backend_quota = calls > sh->fuzz_calls ? calls - sh->fuzz_calls : 1;
		pids[0] = spawn(seed, 200, backend_phase, &seed);
		monitor(pids, 1);
		printf("# backend phase done in %.1f s\n", (double)(now_ns() - t0) / NS);
	}
	if (g.root)
		restore_knobs();

	/* Phase 3: does it still compute? */
	pids[0] = spawn(seed, 300, final_check, NULL);
	monitor(pids, 1);

	summary();
	for (int i = 0; i < sh->nmsg && i < MAX_MSGS; i++)
		printf("# %s\n", sh->msg[i]);
	if (sh->nmsg > MAX_MSGS)
		printf("# ... and %d more\n", sh->nmsg - MAX_MSGS);
	tap(sh->fuzz_calls > 0, "%lu calls by %d processes and the races (seed %" PRIu64 ")",
	    sh->fuzz_calls, procs + 1, seed);
	tap(!sh->undocumented, "every failed call returned an errno documented for it (%lu did not)",
	    sh->undocumented);
	tap(!sh->mispredicted,
	    "every predictable rejection got its errno (%lu of %lu predictions wrong; %lu not judged: vgpud was away)",
	    sh->mispredicted, sh->predictions, sh->backend_excused);
	tap(!sh->jobs_bad, "%lu jobs ended with documented errors, %lu results equal the CPU's "
	    "(%lu problems)", sh->jobs_checked, sh->verified, sh->jobs_bad);
	tap(!sh->stray_bad, "%lu stray stores into another file's buffer changed nothing",
	    sh->stray_checked);
	printf("# %lu runaway kernels launched with a time limit, %lu mutated programs run, "
	       "%lu handles the fuzzer had lost track of\n",
	       sh->runaways, sh->mutants_run, sh->untracked_handles);
	printf("# %lu launches waited for in-fences, %lu of them cancelled for a failed one\n",
	       sh->dep_jobs, sh->dep_cancelled);
	tap(!sh->joined_waits_late,
	    "%lu waits of two processes of one joined file, none timed out (%lu did)",
	    sh->joined_waits, sh->joined_waits_late);
	tap(!sh->race_reaped_late && sh->race_children > 0,
	    "races: %lu children (%lu killed, %lu exited with jobs running), all gone in time",
	    sh->race_children, sh->race_killed, sh->race_exited_running);
	if (sh->backend_state == 2)
		tap(sh->restarted && sh->restart_verified,
		    "rogue backend: %lu attaches, %lu commands read, %lu events posted, %lu kicks; "
		    "vgpud restarted and computes", sh->rogue_attaches, sh->rogue_cmds,
		    sh->rogue_events, sh->rogue_kicks);
	else
		tap(true, "rogue backend # SKIP %s", backend ? sh->backend_why : "--no-backend");
	tap(!sh->rogue_bad_events, "the commands the kernel gave the rogue backend were sound "
	    "(%lu were not)", sh->rogue_bad_events);
	tap(!sh->hangs, "no call hung (longest: %s, %.2f s; limit %d s plus its timeout)",
	    ops[sh->longest_op].name, (double)sh->longest_ns / NS, hang_s);
	tap(!sh->stalls, "the device never stood still with work to do for more than %d s "
	    "(%lu times it did)", hang_s, sh->stalls);
	tap(!sh->stands, "the device's cycle never stood with jobs for 40 s while vgpud was "
	    "attached (%lu times it did)", sh->stands);
	tap(!sh->bad_deaths, "no process died of a signal it was not sent (%lu did)", sh->bad_deaths);
	tap(sh->final_ok, "after the campaign the device computes right (fill of 1000 elements)%s%s",
	    sh->final_ok ? "" : ": ", sh->final_ok ? "" : sh->final_msg);
	printf("# vgpu_fuzz took %.1f s\n", (double)(now_ns() - t0) / NS);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
