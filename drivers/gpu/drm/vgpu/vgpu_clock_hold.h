/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu synchronised clock, its decisions (vgpu_clock_hold.c): which files
 * run on the host, when the device clock stands, where their memory goes.
 * The ioctls around it are in vgpu_clock.c.
 */
#ifndef _VGPU_CLOCK_HOLD_H_
#define _VGPU_CLOCK_HOLD_H_

#include <linux/list.h>
#include <linux/types.h>

struct vgpu_kcb_entry;
struct vgpu_sched;

/**
 * struct vgpu_clock - the synchronised clock.
 * @sched: the scheduler whose &vgpu_sched.held it sets.
 * @released: called when a hold has ended and its deferred decisions are
 *	taken (vgpu.ko: wake the daemon; the local device: wake the threads
 *	that wait to simulate).
 * @host_ms: optional: the host's monotonic time in milliseconds, stamped
 *	on a file when it starts running (&vgpu_clock_file.running_since) for
 *	the hold limit (vgpu_clock_overdue()). vgpu.ko sets it; the local
 *	device, whose files are threads of one process, does not.
 * @joined: files that joined (&vgpu_clock_file.link).
 * @running: joined files not blocked in a wait.
 * @foreign: active jobs of files that had not joined when they submitted
 *	them (&vgpu_kcb_entry.unclocked). The clock holds only while
 *	@running is not zero and @foreign is: a process that did not join is
 *	never stopped by the files that did.
 * @releasing: the hold has ended and its deferred decisions are being
 *	taken; a daemon waiting for the hold to end keeps waiting.
 * @daemon_stopped: the hardware was told to hold and has not simulated
 *	since, so its thread-block status table is current.
 *
 * Protected by the device lock, except that vgpu.ko's daemon wait reads
 * @releasing and clears @daemon_stopped without it.
 */
struct vgpu_clock {
	struct vgpu_sched *sched;
	void (*released)(struct vgpu_clock *clock);
	u64 (*host_ms)(void);
	struct list_head joined;
	u32 running;
	u32 foreign;
	bool releasing;
	bool daemon_stopped;
};

/**
 * struct vgpu_clock_file - a file's part in the synchronised clock.
 * @link: on &vgpu_clock.joined while joined, else empty.
 * @rank: orders its jobs among those arriving at the same cycle.
 * @arena: where its device memory goes (vgpu_clock_arena()); written under
 *	the device lock, read without it.
 * @waits: its threads' waits for jobs that have not ended, linked by
 *	&vgpu_clock_wait.link; the file runs while it is empty.
 * @running_since: &vgpu_clock.host_ms when it last started running.
 *
 * Protected by the device lock.
 */
struct vgpu_clock_file {
	struct list_head link;
	u32 rank;
	u32 arena;
	struct list_head waits;
	u64 running_since;
};

/**
 * struct vgpu_clock_wait - one thread's wait for a job, on its stack.
 * @link: on &vgpu_clock_file.waits until the job ends, the wait ends or
 *	the file leaves; then empty.
 * @job_id: the job it waits for.
 *
 * Several threads of one file may wait at once, each for its own job or
 * the same one: the file waits while any of them does.
 *
 * Protected by the device lock.
 */
struct vgpu_clock_wait {
	struct list_head link;
	u32 job_id;
};

void vgpu_clock_init(struct vgpu_clock *clock, struct vgpu_sched *sched,
		     void (*released)(struct vgpu_clock *clock));
void vgpu_clock_file_init(struct vgpu_clock_file *cf);
u32 vgpu_clock_arena(const struct vgpu_clock_file *cf);
bool vgpu_clock_joined(const struct vgpu_clock_file *cf);
void vgpu_clock_join(struct vgpu_clock *clock, struct vgpu_clock_file *cf,
		     u32 rank);
void vgpu_clock_leave(struct vgpu_clock *clock, struct vgpu_clock_file *cf);
void vgpu_clock_wait_begin(struct vgpu_clock *clock,
			   struct vgpu_clock_file *cf,
			   struct vgpu_clock_wait *wait, u32 job_id);
void vgpu_clock_wait_end(struct vgpu_clock *clock, struct vgpu_clock_file *cf,
			 struct vgpu_clock_wait *wait);
void vgpu_clock_job_added(struct vgpu_clock *clock,
			  const struct vgpu_clock_file *cf,
			  struct vgpu_kcb_entry *e);
void vgpu_clock_job_done(struct vgpu_clock *clock,
			 const struct vgpu_kcb_entry *e);
struct vgpu_clock_file *vgpu_clock_overdue(struct vgpu_clock *clock, u64 now,
					   u64 limit);

#endif /* _VGPU_CLOCK_HOLD_H_ */
