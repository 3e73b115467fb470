/* SPDX-License-Identifier: GPL-2.0 */
/* vgpu device descriptions (vgpu_desc.c). */
#ifndef _VGPU_DESC_H_
#define _VGPU_DESC_H_

#include <linux/types.h>

struct vgpu_device_desc;

int vgpu_desc_validate(const struct vgpu_device_desc *d, const char **why);
int vgpu_desc_param(const struct vgpu_device_desc *d, u32 param, u64 *value);

#endif /* _VGPU_DESC_H_ */
