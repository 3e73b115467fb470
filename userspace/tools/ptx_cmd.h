/* SPDX-License-Identifier: MIT */
/*
 * ptx_cmd.h - "vgpu ptx": what vgpu makes of a PTX file (ptx_cmd.c).
 */
#ifndef VGPU_PTX_CMD_H
#define VGPU_PTX_CMD_H

#include <stddef.h>
#include <stdio.h>

/* vgpu ptx FILE.ptx...: argv[0] is "ptx". Returns the exit status. */
int vgpu_ptx_cmd(int argc, char **argv);
/* Writes the per-entry report of a compiled image; -EINVAL if malformed. */
int vgpu_ptx_report(const void *image, size_t size, FILE *out);

#endif /* VGPU_PTX_CMD_H */
