/* SPDX-License-Identifier: MIT */
/*
 * vgpu_error.h - internal to libvgpu: the calling thread's last error
 * message, which vgpu_last_error() returns.
 */
#ifndef VGPU_ERROR_INTERNAL_H
#define VGPU_ERROR_INTERNAL_H

/* Sets the thread's message; returns @err (a negative errno) for chaining. */
int vgpu_set_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* VGPU_ERROR_INTERNAL_H */
