// SPDX-License-Identifier: MIT
/*
 * vgpu_error.c - the message behind the last error a libvgpu call of this
 * thread returned (vgpu_last_error()).
 */
#include "vgpu.h"
#include "vgpu_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

int vgpu_set_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return err;
}

const char *vgpu_last_error(void)
{
	return last_error;
}
