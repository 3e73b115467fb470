/* SPDX-License-Identifier: MIT */
/*
 * top.h - "vgpu top": a live view of the device (top.c) from the driver's
 * debugfs dumps and sysfs knobs.
 */
#ifndef VGPU_TOOL_TOP_H
#define VGPU_TOOL_TOP_H

/* vgpu top [--interval MS] [--once] [--count N]: argv[0] is "top".
 * Returns the exit status (0, 1 without a device, 2 on bad options). */
int cmd_top(int argc, char **argv);

#endif /* VGPU_TOOL_TOP_H */
