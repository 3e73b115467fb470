// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu tracepoints (vgpu_trace.h) are instantiated here.
 */

#define CREATE_TRACE_POINTS
#include "vgpu_trace.h"
