// SPDX-License-Identifier: MIT
/*
 * vgpud's side of /dev/vgpu-backend. Ring discipline follows io_uring: the
 * producer writes entries and publishes its tail with release semantics,
 * the consumer reads the tail with acquire semantics.
 */
#include "backend.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int ring_map(int fd, struct ring *r, const struct vgpu_ring_offsets *o,
		    uint64_t offset)
{
	r->map = mmap(NULL, o->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      (off_t)offset);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return -errno;
	}
	r->map_size = o->map_size;
	r->head = (uint32_t *)((uint8_t *)r->map + o->head);
	r->tail = (uint32_t *)((uint8_t *)r->map + o->tail);
	/* ring_mask is where the mask lives in the mapping, as in io_uring. */
	r->mask = *(uint32_t *)((uint8_t *)r->map + o->ring_mask);
	if (r->mask + 1 != *(uint32_t *)((uint8_t *)r->map + o->ring_entries) ||
	    (r->mask & (r->mask + 1))) {
		munmap(r->map, o->map_size);
		r->map = NULL;
		return -EPROTO;
	}
	r->entries = (uint8_t *)r->map + o->entries;
	r->entry_size = o->entry_size;
	return 0;
}

static void ring_unmap(struct ring *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	r->map = NULL;
}

int backend_attach(struct backend *be, const char *path,
		   const struct vgpu_device_desc *desc)
{
	struct vgpu_backend_attach at = {
		.abi_version = VGPU_BACKEND_ABI_VERSION,
		.desc = *desc,
	};
	int ret;

	memset(be, 0, sizeof(*be));
	be->fd = open(path, O_RDWR | O_CLOEXEC);
	if (be->fd < 0)
		return -errno;
	if (ioctl(be->fd, VGPU_BACKEND_IOC_ATTACH, &at)) {
		ret = -errno;
		goto err;
	}
	if (at.cmd.entry_size != sizeof(struct vgpu_cmd) ||
	    at.evt.entry_size != sizeof(struct vgpu_evt)) {
		ret = -EPROTO;
		goto err;
	}
	ret = ring_map(be->fd, &be->cmd, &at.cmd, VGPU_BACKEND_OFF_CMD_RING);
	if (ret)
		goto err;
	ret = ring_map(be->fd, &be->evt, &at.evt, VGPU_BACKEND_OFF_EVT_RING);
	if (ret)
		goto err;
	be->vram = mmap(NULL, at.vram_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			be->fd, (off_t)VGPU_BACKEND_OFF_VRAM);
	if (be->vram == MAP_FAILED) {
		be->vram = NULL;
		ret = -errno;
		goto err;
	}
	be->vram_size = at.vram_size;
	be->start_cycle = at.start_cycle;
	{
		uint64_t bytes = (uint64_t)desc->num_sms * desc->max_tbs_per_sm *
				 sizeof(struct vgpu_tb_status);

		if (at.status_addr % 8 || at.status_addr > at.vram_size ||
		    bytes > at.vram_size - at.status_addr) {
			ret = -EPROTO;
			goto err;
		}
		be->status = (struct vgpu_tb_status *)(be->vram + at.status_addr);
		be->slots_per_sm = desc->max_tbs_per_sm;
	}
	return 0;
err:
	backend_detach(be);
	return ret;
}

void backend_detach(struct backend *be)
{
	ring_unmap(&be->cmd);
	ring_unmap(&be->evt);
	if (be->vram)
		munmap(be->vram, be->vram_size);
	be->vram = NULL;
	be->status = NULL;
	if (be->fd >= 0)
		close(be->fd);
	be->fd = -1;
}

const struct vgpu_cmd *backend_cmd_peek(struct backend *be)
{
	uint32_t head = *be->cmd.head;
	uint32_t tail = __atomic_load_n(be->cmd.tail, __ATOMIC_ACQUIRE);

	if (head == tail)
		return NULL;
	return (const struct vgpu_cmd *)(be->cmd.entries +
					 (size_t)(head & be->cmd.mask) * be->cmd.entry_size);
}

void backend_cmd_pop(struct backend *be)
{
	__atomic_store_n(be->cmd.head, *be->cmd.head + 1, __ATOMIC_RELEASE);
}

uint32_t backend_evt_space(const struct backend *be)
{
	uint32_t head = __atomic_load_n(be->evt.head, __ATOMIC_ACQUIRE);

	return be->evt.mask + 1 - (*be->evt.tail - head);
}

void backend_evt_push(struct backend *be, const struct vgpu_evt *evt)
{
	uint32_t tail = *be->evt.tail;

	memcpy(be->evt.entries + (size_t)(tail & be->evt.mask) * be->evt.entry_size,
	       evt, sizeof(*evt));
	__atomic_store_n(be->evt.tail, tail + 1, __ATOMIC_RELEASE);
}

int backend_kick(struct backend *be, uint64_t cycle)
{
	struct vgpu_backend_kick k = { .cycle = cycle };

	while (ioctl(be->fd, VGPU_BACKEND_IOC_KICK, &k)) {
		if (errno != EINTR)
			return -errno;
	}
	be->held = k.flags & VGPU_KICK_HOLD;
	return 0;
}

int backend_wait_clock(struct backend *be)
{
	/* A hold begins in a kick or while the daemon sleeps, nowhere else. */
	if (!be->held && !be->slept)
		return 0;
	if (ioctl(be->fd, VGPU_BACKEND_IOC_WAIT_CLOCK))
		return -errno;
	be->held = false;
	be->slept = false;
	return 0;
}

int backend_wait(struct backend *be)
{
	struct pollfd p = { .fd = be->fd, .events = POLLIN };

	be->slept = true;
	if (poll(&p, 1, -1) < 0)
		return -errno;
	if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
		return -EPIPE;
	return 0;
}
