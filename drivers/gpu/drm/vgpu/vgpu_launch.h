/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu launches (vgpu_launch.c): validation, KCB entry and job descriptor
 * of a SUBMIT.
 */
#ifndef _VGPU_LAUNCH_H_
#define _VGPU_LAUNCH_H_

#include <linux/types.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>

#include "vgpu_kcb.h"
#include "vgpu_preempt.h"
#include "vgpu_program_image.h"
#include "vgpu_smst.h"

/*
 * The most buffers a launch without a buffer list (&drm_vgpu_submit.num_bos
 * 0) may take from its file: with the program's data segment, the most
 * ranges a job descriptor may have (the model's limit).
 */
#define VGPU_LAUNCH_MAX_FILE_BOS	65535

int vgpu_submit_validate(const struct drm_vgpu_submit *args,
			 const struct vgpu_device_desc *desc,
			 const struct vgpu_program_entry *entries,
			 u32 num_entries, struct vgpu_tb_res *res,
			 u32 *num_tbs, const char **why);
u64 vgpu_virtual_tbs(const struct vgpu_device_desc *desc,
		     const struct vgpu_tb_res *res);
size_t vgpu_job_desc_size(u32 num_bos, const struct vgpu_program *prog,
			  u32 params_size);
struct vgpu_mem_range *vgpu_job_desc_init(void *buf, size_t size, u32 job,
					  const struct vgpu_program *prog,
					  const struct drm_vgpu_submit *args,
					  u32 num_bos, const void *params,
					  enum vgpu_preempt_idem idem);
void vgpu_launch_kcb_init(struct vgpu_kcb_entry *e,
			  const struct drm_vgpu_submit *args,
			  const struct vgpu_program *prog,
			  const struct vgpu_tb_res *res, u32 num_tbs);
int vgpu_launch_check_arrival(const struct vgpu_kcb_entry *e, u64 now);
void vgpu_launch_info(const struct vgpu_kcb_entry *e,
		      struct drm_vgpu_job_info *info);

#endif /* _VGPU_LAUNCH_H_ */
