/* SPDX-License-Identifier: MIT */
/*
 * backend.h - vgpud's side of /dev/vgpu-backend: attach, the two rings and
 * the device memory mapping (uapi/drm/vgpu_backend.h).
 */
#ifndef VGPUD_BACKEND_H
#define VGPUD_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include <drm/vgpu_backend.h>

/**
 * struct ring - one mapped ring.
 * @map: the mapping.
 * @map_size: its size.
 * @head: consumer index.
 * @tail: producer index.
 * @mask: entries - 1.
 * @entries: entry array.
 * @entry_size: bytes per entry.
 */
struct ring {
	void *map;
	uint32_t map_size;
	uint32_t *head;
	uint32_t *tail;
	uint32_t mask;
	uint8_t *entries;
	uint32_t entry_size;
};

/**
 * struct backend - an attached backend file.
 * @fd: the open /dev/vgpu-backend.
 * @cmd: command ring (we consume).
 * @evt: event ring (we produce).
 * @vram: device memory mapping.
 * @vram_size: its size.
 * @start_cycle: the device's cycle at attach.
 * @status: the thread-block status table in device memory, or NULL.
 * @slots_per_sm: its entries per SM.
 * @held: the last kick reported the device clock held.
 * @slept: slept in poll() since the last wait for the clock.
 */
struct backend {
	int fd;
	struct ring cmd;
	struct ring evt;
	uint8_t *vram;
	uint64_t vram_size;
	uint64_t start_cycle;
	struct vgpu_tb_status *status;
	uint32_t slots_per_sm;
	bool held;
	bool slept;
};

int backend_attach(struct backend *be, const char *path,
		   const struct vgpu_device_desc *desc);
void backend_detach(struct backend *be);

/* Next command, or NULL when the ring is empty; backend_cmd_pop() consumes it. */
const struct vgpu_cmd *backend_cmd_peek(struct backend *be);
void backend_cmd_pop(struct backend *be);
/* Free event slots. */
uint32_t backend_evt_space(const struct backend *be);
/* Queues one event (caller checked the space); published by backend_kick(). */
void backend_evt_push(struct backend *be, const struct vgpu_evt *evt);
/* Publishes queued events and hands the turn to the kernel at @cycle. */
int backend_kick(struct backend *be, uint64_t cycle);
/*
 * Sleeps while the device clock is held (the last kick said so, or a hold
 * began while the daemon slept); 0, or -EINTR on a signal.
 */
int backend_wait_clock(struct backend *be);
/* Sleeps until the command ring is non-empty; -EINTR on a signal. */
int backend_wait(struct backend *be);

#endif /* VGPUD_BACKEND_H */
