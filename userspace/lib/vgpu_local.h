/* SPDX-License-Identifier: MIT */
/*
 * vgpu_local.h - internal to libvgpu: how vgpu.c reaches the local device
 * (vgpu_local.c, local_cp.h). Not for applications.
 */
#ifndef VGPU_LOCAL_INTERNAL_H
#define VGPU_LOCAL_INTERNAL_H

#include <stdint.h>

struct local_file;
struct vgpu_device;
struct vgpu_local;

struct vgpu_device *vgpu_device_new_local(struct vgpu_local *local);
struct vgpu_local *vgpu_device_local(const struct vgpu_device *dev);
void vgpu_local_close(struct vgpu_local *l);
struct local_file *vgpu_local_file(struct vgpu_local *l);
/* local_cp_wait() with a timeout relative to now, counted as model time. */
int vgpu_local_wait(struct vgpu_local *l, uint32_t job, int64_t timeout_ns);

#endif /* VGPU_LOCAL_INTERNAL_H */
