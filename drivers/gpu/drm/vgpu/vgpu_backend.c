// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu backend device: the interface to vgpud, the daemon that models the
 * hardware (uapi vgpu_backend.h).
 *
 * Modelled on the kernel's backend-in-userspace devices (VDUSE, ublk): a
 * root-only misc device /dev/vgpu-backend. The daemon attaches with a
 * description of the hardware, maps a command ring (kernel -> daemon), an
 * event ring (daemon -> kernel) and the whole device memory, and drives the
 * lock-step protocol with KICK: the kernel consumes the events stamped with
 * the kicked cycle, updates KCB/SMST, runs the scheduler and writes the
 * resulting commands before the ioctl returns. poll() reports EPOLLIN when
 * the command ring is not empty.
 *
 * Rings follow io_uring's layout: a header page with head, tail, mask and
 * entry count, then 4096 entries of 64 bytes. The kernel keeps its own copy
 * of the index it owns (command tail, event head) and never trusts the
 * daemon's copy of it; entries are copied out before they are checked.
 *
 * Closing the file detaches: every unfinished job fails with -EIO, the
 * SMST is dropped, the rings are freed and another daemon may attach. The
 * device's cycle carries over to the next attach. A daemon that has work
 * and does not kick for daemon_timeout_ms of host time (it is stopped,
 * stuck, or ignores the sync quantum) is taken for dead and detached the
 * same way; it learns so at its next call. The file holds a reference to
 * the DRM device, so that an unplug (vgpu_backend_unplug()) only detaches
 * it.
 */

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>

#include <kunit/visibility.h>

#include "vgpu_drv.h"

#define VGPU_RING_ENTRIES	VGPU_CMD_RING_ENTRIES
#define VGPU_RING_OFF_HEAD	0
#define VGPU_RING_OFF_TAIL	64
#define VGPU_RING_OFF_MASK	128
#define VGPU_RING_OFF_COUNT	132
#define VGPU_RING_OFF_ENTRIES	PAGE_SIZE
#define VGPU_RING_ENTRY_SIZE	64
#define VGPU_RING_MAP_SIZE	(VGPU_RING_OFF_ENTRIES + \
				 VGPU_RING_ENTRIES * VGPU_RING_ENTRY_SIZE)

static_assert(sizeof(struct vgpu_cmd) == VGPU_RING_ENTRY_SIZE);
static_assert(sizeof(struct vgpu_evt) == VGPU_RING_ENTRY_SIZE);

/**
 * struct vgpu_ring - one ring shared with the daemon.
 * @base: header page + entries, vmalloc_user().
 * @head: consumer index in the shared header.
 * @tail: producer index in the shared header.
 * @local: the index the kernel owns (command tail, event head), its
 *	trusted copy.
 * @published: command ring: the tail the daemon has been shown.
 * @consumed: command ring: the daemon's head as far as the kernel accepts
 *	it - it only moves forward, up to @local - so that room the
 *	scheduler found stays there while a pass uses it. Device lock.
 */
struct vgpu_ring {
	void *base;
	u32 *head;
	u32 *tail;
	u32 local;
	u32 published;
	u32 consumed;
};

/**
 * struct vgpu_backend - one open file of /dev/vgpu-backend.
 * @vdev: the device.
 * @attached: this file is the device's backend. Written under the device
 *	lock; the rings below do not change while it is set.
 * @cmd: command ring.
 * @evt: event ring.
 * @status: the thread-block status table in device memory (allocated
 *	while attached; under the device lock).
 * @watch: the daemon watchdog, every second while attached
 *	(vgpu_backend_watch()).
 * @last_seen: jiffies of the daemon's last kick, or of the last check at
 *	which it had nothing to do; under the device lock.
 */
struct vgpu_backend {
	struct vgpu_device *vdev;
	bool attached;
	struct vgpu_ring cmd;
	struct vgpu_ring evt;
	struct drm_mm_node status;
	struct delayed_work watch;
	unsigned long last_seen;
};

/**
 * vgpu_backend_get_desc() - the attached device's description.
 * @vdev: the device.
 * @desc: out.
 *
 * Return: 0, or -ENODEV when no backend is attached.
 */
int vgpu_backend_get_desc(struct vgpu_device *vdev,
			  struct vgpu_device_desc *desc)
{
	int ret = 0;

	mutex_lock(&vdev->lock);
	if (vdev->sched.attached)
		*desc = vdev->sched.desc;
	else
		ret = -ENODEV;
	mutex_unlock(&vdev->lock);
	return ret;
}

/**
 * vgpu_backend_notify() - wake the daemon: commands are waiting.
 * @vdev: the device.
 */
void vgpu_backend_notify(struct vgpu_device *vdev)
{
	wake_up_interruptible(&vdev->cmd_wq);
}

static int vgpu_ring_alloc(struct vgpu_ring *ring)
{
	ring->base = vmalloc_user(VGPU_RING_MAP_SIZE);
	if (!ring->base)
		return -ENOMEM;
	ring->head = ring->base + VGPU_RING_OFF_HEAD;
	ring->tail = ring->base + VGPU_RING_OFF_TAIL;
	*(u32 *)(ring->base + VGPU_RING_OFF_MASK) = VGPU_RING_ENTRIES - 1;
	*(u32 *)(ring->base + VGPU_RING_OFF_COUNT) = VGPU_RING_ENTRIES;
	ring->local = 0;
	ring->published = 0;
	ring->consumed = 0;
	return 0;
}

static void vgpu_ring_free(struct vgpu_ring *ring)
{
	vfree(ring->base);
	ring->base = NULL;
}

static void *vgpu_ring_entry(struct vgpu_ring *ring, u32 index)
{
	return ring->base + VGPU_RING_OFF_ENTRIES +
	       (index & (VGPU_RING_ENTRIES - 1)) * VGPU_RING_ENTRY_SIZE;
}

static void vgpu_ring_offsets(struct vgpu_ring_offsets *off)
{
	memset(off, 0, sizeof(*off));
	off->head = VGPU_RING_OFF_HEAD;
	off->tail = VGPU_RING_OFF_TAIL;
	off->ring_mask = VGPU_RING_OFF_MASK;
	off->ring_entries = VGPU_RING_OFF_COUNT;
	off->entries = VGPU_RING_OFF_ENTRIES;
	off->map_size = VGPU_RING_MAP_SIZE;
	off->entry_size = VGPU_RING_ENTRY_SIZE;
}

/**
 * vgpu_ring_accept_head() - how far the command ring is consumed, after
 * the daemon wrote @head.
 * @head: the head the daemon wrote in the shared header.
 * @consumed: the head accepted so far.
 * @local: the kernel's tail.
 *
 * A head behind @consumed or beyond @local (the indices wrap at 2^32) is
 * not taken: a pass checks for room, then issues, and a head moving back
 * between the two once made a dispatch find no room it had just been
 * promised (a WARN with a rogue backend).
 *
 * Return: @head if it lies from @consumed to @local, else @consumed.
 */
VISIBLE_IF_KUNIT u32 vgpu_ring_accept_head(u32 head, u32 consumed, u32 local)
{
	return head - consumed <= local - consumed ? head : consumed;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_ring_accept_head);

/* Commands in the ring, as far as the daemon's head is accepted. */
static u32 vgpu_cmd_pending(struct vgpu_backend *b)
{
	/* Pairs with the daemon's release store of head: slots are free. */
	u32 head = smp_load_acquire(b->cmd.head);

	b->cmd.consumed = vgpu_ring_accept_head(head, b->cmd.consumed, b->cmd.local);
	return min_t(u32, b->cmd.local - b->cmd.consumed, VGPU_RING_ENTRIES);
}

static u32 vgpu_cmd_space(void *ctx)
{
	return VGPU_RING_ENTRIES - vgpu_cmd_pending(ctx);
}

static void vgpu_cmd_emit(void *ctx, const struct vgpu_cmd *cmd)
{
	struct vgpu_backend *b = ctx;

	memcpy(vgpu_ring_entry(&b->cmd, b->cmd.local), cmd, sizeof(*cmd));
	b->cmd.local++;
}

static void vgpu_cmd_publish(void *ctx)
{
	struct vgpu_backend *b = ctx;

	if (b->cmd.published == b->cmd.local)
		return;
	WRITE_ONCE(b->cmd.published, b->cmd.local);
	/* Entries before the tail (daemon: acquire load of tail). */
	smp_store_release(b->cmd.tail, b->cmd.local);
}

/* A context save area: a device-memory range (vgpu_sched_preempt.c). */
static void *vgpu_ctx_alloc(void *ctx, u64 bytes, u64 *addr)
{
	struct vgpu_backend *b = ctx;

	return vgpu_vram_ctx_alloc(&b->vdev->vram, bytes, addr);
}

static void vgpu_ctx_free(void *ctx, void *handle)
{
	struct vgpu_backend *b = ctx;

	vgpu_vram_ctx_free(&b->vdev->vram, handle);
}

static const struct vgpu_cmd_sink_ops vgpu_ring_sink_ops = {
	.space = vgpu_cmd_space,
	.emit = vgpu_cmd_emit,
	.publish = vgpu_cmd_publish,
	.ctx_alloc = vgpu_ctx_alloc,
	.ctx_free = vgpu_ctx_free,
};

/*
 * Detach @b if it is attached, failing the jobs that have not ended with
 * @error; device lock held. Rings stay until release.
 */
static void vgpu_backend_detach(struct vgpu_backend *b, int error)
{
	struct vgpu_device *vdev = b->vdev;

	lockdep_assert_held(&vdev->lock);
	if (!b->attached)
		return;
	vgpu_sched_detach(&vdev->sched, error);
	vdev->sched.tb_status = NULL;
	vgpu_vram_free(&vdev->vram, &b->status);
	vdev->backend = NULL;
	WRITE_ONCE(vdev->clock.daemon_stopped, false);
	WRITE_ONCE(b->attached, false);
	/* A daemon asleep in poll() or WAIT_CLOCK learns it at once. */
	wake_up_interruptible_all(&vdev->cmd_wq);
	wake_up_interruptible_all(&vdev->clock_wq);
	dev_info(vdev->drm.dev, "backend detached at cycle %llu\n",
		 vdev->sched.cycle);
}

/* Whether the daemon owes the device a kick: it has something to do. */
static bool vgpu_backend_busy(struct vgpu_backend *b)
{
	struct vgpu_sched *s = &b->vdev->sched;
	struct vgpu_kcb_entry *e;

	if (READ_ONCE(s->held))
		return false;	/* it waits for the clock, as it must */
	if (READ_ONCE(b->cmd.published) != READ_ONCE(*b->cmd.head))
		return true;	/* commands it has not taken */
	list_for_each_entry(e, &s->kcb.active, link)
		if (e->tbs_running)
			return true;	/* blocks it simulates */
	return false;
}

/*
 * The daemon watchdog: a daemon with work that has not kicked for
 * daemon_timeout_ms of host time is taken for dead, as a device that stops
 * answering is (drm_sched's timedout_job, on the whole device): it is
 * detached and the jobs that have not ended fail with -EIO. A daemon that
 * comes back finds itself detached and exits; another may attach. Only
 * host time of a daemon that owes a kick counts, so a slow host makes the
 * watchdog late, never the model different.
 */
static void vgpu_backend_watch(struct work_struct *work)
{
	struct vgpu_backend *b = container_of(to_delayed_work(work),
					      struct vgpu_backend, watch);
	struct vgpu_device *vdev = b->vdev;
	unsigned long limit;
	bool again;

	mutex_lock(&vdev->lock);
	limit = msecs_to_jiffies(vdev->sched.daemon_timeout_ms);
	if (b->attached && !vgpu_backend_busy(b)) {
		b->last_seen = jiffies;
	} else if (b->attached && time_after(jiffies, b->last_seen + limit)) {
		dev_err(vdev->drm.dev,
			"vgpud has not answered for %u ms with work pending: taken for dead, its jobs fail\n",
			vdev->sched.daemon_timeout_ms);
		vgpu_backend_detach(b, -EIO);
	}
	again = b->attached;
	mutex_unlock(&vdev->lock);
	if (again)
		schedule_delayed_work(&b->watch, HZ);
}

static long vgpu_backend_attach(struct vgpu_backend *b,
				struct vgpu_backend_attach __user *uarg)
{
	struct vgpu_device *vdev = b->vdev;
	struct device *dev = vdev->drm.dev;
	struct vgpu_backend_attach args;
	struct vgpu_ring cmd = {}, evt = {};
	u64 status_size;
	const char *why;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.abi_version != VGPU_BACKEND_ABI_VERSION) {
		dev_dbg(dev, "ATTACH: ABI version %u, want %u\n",
			args.abi_version, VGPU_BACKEND_ABI_VERSION);
		return -EINVAL;
	}
	if (args.flags) {
		dev_dbg(dev, "ATTACH: flags %#x set\n", args.flags);
		return -EINVAL;
	}
	ret = vgpu_desc_validate(&args.desc, &why);
	if (ret) {
		dev_dbg(dev, "ATTACH: bad device description: %s\n", why);
		return ret;
	}
	ret = vgpu_ring_alloc(&cmd);
	if (!ret)
		ret = vgpu_ring_alloc(&evt);
	if (ret)
		goto err_free;

	mutex_lock(&vdev->lock);
	if (drm_dev_is_unplugged(&vdev->drm)) {
		dev_dbg(dev, "ATTACH: the device was unplugged\n");
		ret = -ENODEV;
		goto err_unlock;
	}
	/* One attach per file; one attached backend per device. */
	if (b->cmd.base || vdev->backend) {
		dev_dbg(dev, "ATTACH: a backend is already attached\n");
		ret = -EBUSY;
		goto err_unlock;
	}
	status_size = (u64)args.desc.num_sms * args.desc.max_tbs_per_sm *
		      sizeof(struct vgpu_tb_status);
	ret = vgpu_vram_alloc(&vdev->vram, &b->status, status_size, 64, 0);
	if (ret) {
		dev_dbg(dev, "ATTACH: no device memory for the TB status table\n");
		goto err_unlock;
	}
	ret = vgpu_sched_attach(&vdev->sched, &args.desc, &vgpu_ring_sink_ops,
				b);
	if (ret) {
		dev_dbg(dev, "ATTACH: cannot build the SMST (%d)\n", ret);
		vgpu_vram_free(&vdev->vram, &b->status);
		goto err_unlock;
	}
	vdev->sched.tb_status = vgpu_vram_ptr(&vdev->vram, b->status.start);
	memset(vdev->sched.tb_status, 0, status_size);
	args.status_addr = b->status.start;
	b->cmd = cmd;
	b->evt = evt;
	/* Rings before the flag; pairs with the acquire in poll() and mmap(). */
	smp_store_release(&b->attached, true);
	vdev->backend = b;
	b->last_seen = jiffies;
	/* The new daemon's first command: the kernel-aware warp scheduling. */
	vgpu_sched_send_kernel_sched(&vdev->sched);
	args.start_cycle = vdev->sched.cycle;
	mutex_unlock(&vdev->lock);

	/*
	 * Not under the device lock: a fault on the user page may take
	 * mmap_lock, which mmap() holds around its own calls.
	 */
	vgpu_ring_offsets(&args.cmd);
	vgpu_ring_offsets(&args.evt);
	args.vram_size = vdev->vram.size;
	if (copy_to_user(uarg, &args, sizeof(args))) {
		mutex_lock(&vdev->lock);
		vgpu_backend_detach(b, -EIO);
		mutex_unlock(&vdev->lock);
		return -EFAULT;
	}
	schedule_delayed_work(&b->watch, HZ);
	dev_info(dev, "backend attached: %s, %u SMs, cycle %llu\n",
		 args.desc.name, args.desc.num_sms, args.start_cycle);
	return 0;

err_unlock:
	mutex_unlock(&vdev->lock);
err_free:
	vgpu_ring_free(&cmd);
	vgpu_ring_free(&evt);
	return ret;
}

/**
 * struct vgpu_evt_reader - where vgpu_backend_next_evt() is in the event ring.
 * @b: the backend.
 * @head: the next entry to read.
 * @tail: the daemon's producer index when the turn began.
 */
struct vgpu_evt_reader {
	struct vgpu_backend *b;
	u32 head;
	u32 tail;
};

/* vgpu_sched_kick()'s source of events: the ring, copied out entry by entry. */
static bool vgpu_backend_next_evt(void *ctx, struct vgpu_evt *evt)
{
	struct vgpu_evt_reader *rd = ctx;

	if (rd->head == rd->tail)
		return false;
	memcpy(evt, vgpu_ring_entry(&rd->b->evt, rd->head), sizeof(*evt));
	rd->head++;
	return true;
}

static long vgpu_backend_kick(struct vgpu_backend *b,
			      struct vgpu_backend_kick __user *uarg)
{
	struct vgpu_device *vdev = b->vdev;
	struct device *dev = vdev->drm.dev;
	struct vgpu_evt_reader rd = { .b = b };
	struct vgpu_backend_kick args;
	u32 consumed;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags) {
		dev_dbg(dev, "KICK: flags %#x set\n", args.flags);
		return -EINVAL;
	}
	mutex_lock(&vdev->lock);
	if (!b->attached) {
		dev_dbg(dev, "KICK: not attached\n");
		ret = -EINVAL;
		goto out;
	}
	/* Pairs with the daemon's release store of tail: entries are written. */
	rd.tail = smp_load_acquire(b->evt.tail);
	rd.head = b->evt.local;
	if (rd.tail - rd.head > VGPU_RING_ENTRIES) {
		dev_dbg(dev, "KICK: event tail %u invalid (head %u), events dropped\n",
			rd.tail, rd.head);
		rd.head = rd.tail;
	}
	/* Pairs with the daemon's release store of head: what it applied. */
	consumed = smp_load_acquire(b->cmd.head);
	ret = vgpu_sched_kick(&vdev->sched, args.cycle, consumed,
			      vgpu_backend_next_evt, &rd);
	if (ret) {
		dev_dbg(dev, "KICK: cycle %llu before the current %llu\n",
			args.cycle, vdev->sched.cycle);
		goto out;
	}
	b->evt.local = rd.head;
	b->last_seen = jiffies;
	/* Entries read before the slots are handed back to the daemon. */
	smp_store_release(b->evt.head, rd.head);
	args.pending_cmds = vgpu_cmd_pending(b);
	args.flags = vdev->sched.held ? VGPU_KICK_HOLD : 0;
	if (args.flags & VGPU_KICK_HOLD)
		WRITE_ONCE(vdev->clock.daemon_stopped, true);
out:
	mutex_unlock(&vdev->lock);
	if (!ret && copy_to_user(uarg, &args, sizeof(args)))
		ret = -EFAULT;
	return ret;
}

/* Sleep while the synchronised clock holds the device (vgpu_clock.c). */
static long vgpu_backend_wait_clock(struct vgpu_backend *b)
{
	struct vgpu_device *vdev = b->vdev;
	int ret;

	if (!READ_ONCE(b->attached)) {
		dev_dbg(vdev->drm.dev, "WAIT_CLOCK: not attached\n");
		return -EINVAL;
	}
	ret = wait_event_interruptible(vdev->clock_wq,
				       !READ_ONCE(vdev->sched.held) &&
				       !READ_ONCE(vdev->clock.releasing));
	/* Back to simulating: the status table goes stale. */
	WRITE_ONCE(vdev->clock.daemon_stopped, false);
	return ret ? -EINTR : 0;
}

static long vgpu_backend_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	struct vgpu_backend *b = file->private_data;

	switch (cmd) {
	case VGPU_BACKEND_IOC_ATTACH:
		return vgpu_backend_attach(b, (void __user *)arg);
	case VGPU_BACKEND_IOC_KICK:
		return vgpu_backend_kick(b, (void __user *)arg);
	case VGPU_BACKEND_IOC_WAIT_CLOCK:
		return vgpu_backend_wait_clock(b);
	default:
		return -ENOTTY;
	}
}

static int vgpu_backend_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vgpu_backend *b = file->private_data;
	struct vgpu_device *vdev = b->vdev;
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	void *addr = NULL;

	if (!(vma->vm_flags & VM_SHARED)) {
		dev_dbg(vdev->drm.dev, "mmap: not MAP_SHARED\n");
		return -EINVAL;
	}
	/*
	 * No device lock here (mmap_lock is held, and the device lock is taken
	 * around user copies elsewhere): once attached, the rings of this file
	 * stay until it is released, which cannot happen during mmap().
	 */
	if (smp_load_acquire(&b->attached)) {
		if (off == VGPU_BACKEND_OFF_CMD_RING &&
		    size == VGPU_RING_MAP_SIZE)
			addr = b->cmd.base;
		else if (off == VGPU_BACKEND_OFF_EVT_RING &&
			 size == VGPU_RING_MAP_SIZE)
			addr = b->evt.base;
		else if (off == VGPU_BACKEND_OFF_VRAM &&
			 size == vdev->vram.size)
			addr = vdev->vram.vaddr;
	}
	if (!addr) {
		dev_dbg(vdev->drm.dev, "mmap: offset %#llx size %lu is not a region\n",
			off, size);
		return -EINVAL;
	}
	vm_flags_set(vma, VM_DONTCOPY);
	return remap_vmalloc_range(vma, addr, 0);
}

static __poll_t vgpu_backend_poll(struct file *file, poll_table *wait)
{
	struct vgpu_backend *b = file->private_data;

	poll_wait(file, &b->vdev->cmd_wq, wait);
	/* Pairs with the release in attach: the rings are set up. */
	if (!smp_load_acquire(&b->attached))
		return EPOLLERR;
	if (READ_ONCE(b->cmd.published) != READ_ONCE(*b->cmd.head))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static int vgpu_backend_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct vgpu_backend *b;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->vdev = container_of(misc, struct vgpu_device, misc);
	INIT_DELAYED_WORK(&b->watch, vgpu_backend_watch);
	/* The device outlives an unplug while the daemon holds the file. */
	drm_dev_get(&b->vdev->drm);
	file->private_data = b;
	return stream_open(inode, file);
}

static int vgpu_backend_release(struct inode *inode, struct file *file)
{
	struct vgpu_backend *b = file->private_data;
	struct vgpu_device *vdev = b->vdev;

	mutex_lock(&vdev->lock);
	vgpu_backend_detach(b, -EIO);
	mutex_unlock(&vdev->lock);
	cancel_delayed_work_sync(&b->watch);
	vgpu_ring_free(&b->cmd);
	vgpu_ring_free(&b->evt);
	kfree(b);
	drm_dev_put(&vdev->drm);
	return 0;
}

static const struct file_operations vgpu_backend_fops = {
	.owner = THIS_MODULE,
	.open = vgpu_backend_open,
	.release = vgpu_backend_release,
	.unlocked_ioctl = vgpu_backend_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = vgpu_backend_mmap,
	.poll = vgpu_backend_poll,
};

/**
 * vgpu_backend_register() - create /dev/vgpu-backend.
 * @vdev: the device.
 *
 * Return: 0 or a negative errno of misc_register().
 */
int vgpu_backend_register(struct vgpu_device *vdev)
{
	vdev->misc.minor = MISC_DYNAMIC_MINOR;
	vdev->misc.name = "vgpu-backend";
	vdev->misc.fops = &vgpu_backend_fops;
	vdev->misc.mode = 0600;
	return misc_register(&vdev->misc);
}

/**
 * vgpu_backend_unplug() - the device is being removed: detach the daemon.
 * @vdev: the device, unplugged (drm_dev_unplug()).
 *
 * Every job that has not ended fails with -ENODEV. The daemon's file stays
 * open until it closes it; its next call fails.
 */
void vgpu_backend_unplug(struct vgpu_device *vdev)
{
	mutex_lock(&vdev->lock);
	if (vdev->backend)
		vgpu_backend_detach(vdev->backend, -ENODEV);
	mutex_unlock(&vdev->lock);
}

/**
 * vgpu_backend_unregister() - remove /dev/vgpu-backend.
 * @vdev: the device.
 */
void vgpu_backend_unregister(struct vgpu_device *vdev)
{
	misc_deregister(&vdev->misc);
}
