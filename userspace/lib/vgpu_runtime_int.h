/* SPDX-License-Identifier: MIT */
/*
 * vgpu_runtime_int.h - internal to libvgpu (not installed, not exported):
 * what the tests of the runtime reach beyond vgpu_runtime.h.
 */
#ifndef VGPU_RUNTIME_INT_H
#define VGPU_RUNTIME_INT_H

#include <stdbool.h>

struct vgpu_context;

/*
 * Modules @ctx loads from now on reach their variables as on the render
 * node, through the runtime's copy kernel, even on the local device: the
 * render node's path, tested in-process.
 */
void vgpu_ctx_set_kernel_copy(struct vgpu_context *ctx, bool on);

/*
 * Launch ends (fences) of @ctx still alive: each holds a syncobj, and one
 * not yet waited for, a job record. 0 once the streams that launched and
 * the events that mark launches are gone.
 */
unsigned int vgpu_ctx_fences(const struct vgpu_context *ctx);

#endif /* VGPU_RUNTIME_INT_H */
