// SPDX-License-Identifier: MIT
/*
 * status.c - the thread-block status table the daemon keeps for the kernel
 * (uapi vgpu_backend.h, struct vgpu_tb_status): per slot, the block in it
 * and how far it has got, the statistics Chimera's cost estimates need
 * (Park, dissertation, Ch. IV §4.3.2).
 */
#include <string.h>

#include "sim_int.h"

void vgpu_sim_tb_status(const struct vgpu_sim *s, struct vgpu_tb_status *table,
			uint32_t slots_per_sm)
{
	uint32_t nslots = s->cfg.desc.max_tbs_per_sm;

	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		const struct sm *sm = &s->sms[i];

		for (uint32_t k = 0; k < slots_per_sm; k++) {
			struct vgpu_tb_status *ts = &table[(size_t)i * slots_per_sm + k];
			const struct tb *tb = k < nslots ? sm->slots[k] : NULL;

			if (!tb) {
				if (ts->job)
					memset(ts, 0, sizeof(*ts));
				continue;
			}
			ts->job = tb->job->id;
			ts->tb = tb->index;
			ts->warp_insts = tb->warp_insts;
			ts->start_cycle = tb->start;
			ts->flags = tb->crossed_boundary ? VGPU_TB_STATUS_CROSSED_BOUNDARY : 0;
			ts->reserved = 0;
		}
	}
}
