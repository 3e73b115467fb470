// SPDX-License-Identifier: MIT
/*
 * preempt.c - the saved context of a thread block, what a PREEMPT SWITCH
 * writes and a DISPATCH RESTORE reads (uapi vgpu_backend.h; the layout and
 * the costs are described in Documentation/model.rst, "Preemption"):
 *
 *   0                       header (struct ctx_header), VGPU_CTX_HEADER_BYTES
 *   256                     per warp (struct ctx_warp), VGPU_CTX_WARP_BYTES each
 *   + warps * 1024          registers: per warp, per register, 32 lanes (u32)
 *   + warps * 32 * regs * 4 shared memory of the block
 *   + shared                local memory: per warp, per lane, local_per_thread
 *
 * which is vgpu_ctx_bytes() bytes. Fields are little-endian, as the device
 * memory the kernel shares with the daemon is.
 */
#include <errno.h>
#include <string.h>

#include "sim_int.h"

#define CTX_MAGIC	0x58544356u	/* "VCTX" */
#define CTX_VERSION	3
#define CTX_F_CROSSED	1u	/* the block crossed its idempotence boundary */
#define CTX_F_IDEAL	2u	/* saved by VGPU_PREEMPT_IDEAL: restores at no cost */

/* warp states as saved (independent of the model's enum) */
enum { CTX_W_RUN = 0, CTX_W_BAR = 1, CTX_W_DONE = 2 };

struct ctx_header {
	uint32_t magic, version;
	uint32_t job, tb;
	uint32_t threads, nwarps, regs_per_thread, shared_bytes;
	uint32_t local_per_thread, live, at_bar, flags;
	uint64_t bytes;		/* vgpu_ctx_bytes() of the block */
	uint64_t warp_insts;	/* executed before the switch */
	uint64_t saved_cycle;	/* when the save completed */
	uint32_t sm, slot;	/* where the block ran */
	/* virtual block: struct tb vt_hi, vt_idx (version 2) */
	uint32_t vt_hi;
	uint32_t vt_idx[2];
	uint32_t vt_started;	/* struct tb vt_started (version 3) */
};

struct ctx_simt {
	uint32_t pc, rpc, mask;
};

struct ctx_warp {
	uint32_t state;		/* CTX_W_* */
	uint32_t sp;		/* SIMT stack entries; 0 for an exited warp */
	uint32_t pred[VGPU_NUM_PREDS];
	struct ctx_simt stack[SIMT_STACK_MAX];
	/* the row past the last register: the high half of a 64-bit pair there */
	uint32_t extra[32];
	uint32_t vt_iter;	/* virtual block: the warp's iteration (version 2) */
	uint64_t insts;		/* warp instructions issued (version 2) */
	uint64_t it_start;	/* insts at its last NEXTTB (version 2) */
	uint32_t vt_widx;	/* the warp of its logical block it runs (version 3) */
	uint32_t vt_order;	/* SlowestLane order entry (version 3) */
};

_Static_assert(sizeof(struct ctx_header) <= VGPU_CTX_HEADER_BYTES, "context header");
_Static_assert(sizeof(struct ctx_warp) <= VGPU_CTX_WARP_BYTES, "context warp record");

uint64_t ctx_bytes_of(const struct job *j)
{
	return vgpu_ctx_bytes(j->threads, j->entry.regs_per_thread, j->desc.shared_bytes,
			      j->entry.local_per_thread);
}

/*
 * ceil(bytes / (DRAM bytes per cycle / SMs)): the device moves
 * dram_bandwidth_mbs * 1000 bytes per core_clock_khz cycles, and an SM
 * gets its share of that. At least one cycle; one when the bandwidth is
 * unlimited (0).
 */
uint64_t ctx_cycles(const struct vgpu_sim *s, uint64_t bytes)
{
	const struct vgpu_sim_config *c = &s->cfg;
	unsigned __int128 num, den, q;

	if (!c->dram_bandwidth_mbs || !c->desc.core_clock_khz)
		return 1;
	num = (unsigned __int128)bytes * c->desc.core_clock_khz * c->desc.num_sms;
	den = (unsigned __int128)c->dram_bandwidth_mbs * 1000;
	q = (num + den - 1) / den;
	if (q > (1ull << 62))
		q = 1ull << 62;
	return q ? (uint64_t)q : 1;
}

struct ctx_offs {
	uint64_t warps, regs, shared, local, end;
};

static void offsets(const struct job *j, struct ctx_offs *o)
{
	uint64_t nw = j->nwarps;

	o->warps = VGPU_CTX_HEADER_BYTES;
	o->regs = o->warps + nw * VGPU_CTX_WARP_BYTES;
	o->shared = o->regs + nw * 32 * j->entry.regs_per_thread * 4;
	o->local = o->shared + j->desc.shared_bytes;
	o->end = o->local + nw * 32 * j->entry.local_per_thread;
}

void ctx_save(struct vgpu_sim *s, const struct tb *tb, uint64_t now)
{
	const struct job *j = tb->job;
	uint8_t *p = s->vram + tb->save_addr;
	uint32_t nr = j->entry.regs_per_thread;
	struct ctx_header h;
	struct ctx_offs o;

	offsets(j, &o);
	memset(&h, 0, sizeof(h));
	h.magic = CTX_MAGIC;
	h.version = CTX_VERSION;
	h.job = j->id;
	h.tb = tb->index;
	h.threads = j->threads;
	h.nwarps = tb->nwarps;
	h.regs_per_thread = nr;
	h.shared_bytes = tb->shared_bytes;
	h.local_per_thread = j->entry.local_per_thread;
	h.live = tb->live;
	h.at_bar = tb->at_bar;
	h.flags = (tb->crossed_boundary ? CTX_F_CROSSED : 0) | (tb->ideal ? CTX_F_IDEAL : 0);
	h.bytes = o.end;
	h.warp_insts = tb->warp_insts;
	h.saved_cycle = now;
	h.sm = tb->sm;
	h.slot = tb->slot;
	h.vt_hi = tb->vt_hi;
	memcpy(h.vt_idx, tb->vt_idx, sizeof(h.vt_idx));
	h.vt_started = tb->vt_started;
	/* padding too: the save area's contents depend on the block alone */
	memset(p, 0, o.regs);
	memcpy(p, &h, sizeof(h));
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];
		uint8_t st = w->state == W_STOP ? w->prev_state : w->state;
		struct ctx_warp cw;

		memset(&cw, 0, sizeof(cw));
		cw.state = st == W_BAR ? CTX_W_BAR : st == W_DONE ? CTX_W_DONE : CTX_W_RUN;
		cw.sp = st == W_DONE ? 0 : (uint32_t)w->sp;
		memcpy(cw.pred, w->pred, sizeof(cw.pred));
		for (uint32_t k = 0; k < cw.sp; k++)
			cw.stack[k] = (struct ctx_simt){ w->stack[k].pc, w->stack[k].rpc,
							 w->stack[k].mask };
		memcpy(cw.extra, w->regs + (size_t)nr * 32, sizeof(cw.extra));
		cw.vt_iter = w->vt_iter;
		cw.insts = w->insts;
		cw.it_start = w->it_start;
		cw.vt_widx = w->vt_widx;
		cw.vt_order = w->vt_order;
		memcpy(p + o.warps + (uint64_t)i * VGPU_CTX_WARP_BYTES, &cw, sizeof(cw));
		memcpy(p + o.regs + (uint64_t)i * 32 * nr * 4, w->regs, (size_t)32 * nr * 4);
	}
	memcpy(p + o.shared, tb->shared, tb->shared_bytes);
	memcpy(p + o.local, tb->local, (size_t)tb->nwarps * 32 * j->entry.local_per_thread);
}

int ctx_check(const struct vgpu_sim *s, const struct job *j, uint32_t index, uint64_t addr,
	      uint32_t *live)
{
	uint64_t bytes = ctx_bytes_of(j);
	struct ctx_header h;
	struct ctx_offs o;
	uint32_t nlive = 0, nbar = 0;

	offsets(j, &o);
	if (addr > s->vram_size || bytes > s->vram_size - addr || o.end != bytes)
		return -EINVAL;
	memcpy(&h, s->vram + addr, sizeof(h));
	if (h.magic != CTX_MAGIC || h.version != CTX_VERSION || h.job != j->id ||
	    h.tb != index || h.threads != j->threads || h.nwarps != j->nwarps ||
	    h.regs_per_thread != j->entry.regs_per_thread ||
	    h.shared_bytes != j->desc.shared_bytes ||
	    h.local_per_thread != j->entry.local_per_thread || h.bytes != bytes)
		return -EINVAL;
	for (uint32_t i = 0; i < j->nwarps; i++) {
		struct ctx_warp cw;

		memcpy(&cw, s->vram + addr + o.warps + (uint64_t)i * VGPU_CTX_WARP_BYTES,
		       sizeof(cw));
		if (cw.state > CTX_W_DONE ||
		    (cw.state == CTX_W_DONE ? cw.sp != 0 : cw.sp < 1 || cw.sp > SIMT_STACK_MAX))
			return -EINVAL;
		/* a virtual block's live warps are in its last two iterations */
		if (cw.state != CTX_W_DONE &&
		    (cw.vt_iter > h.vt_hi || cw.vt_iter + 1 < h.vt_hi))
			return -EINVAL;
		/* NEXTTB.TID's warp index stays inside the block */
		if (cw.vt_widx >= j->nwarps || cw.vt_order >= j->nwarps)
			return -EINVAL;
		nlive += cw.state != CTX_W_DONE;
		nbar += cw.state == CTX_W_BAR;
	}
	if (h.vt_started > j->nwarps)
		return -EINVAL;
	/* a barrier every live warp had reached would have been released */
	if (!nlive || nlive != h.live || nbar != h.at_bar || nbar >= nlive)
		return -EINVAL;
	*live = nlive;
	return 0;
}

bool ctx_load(const struct vgpu_sim *s, struct tb *tb, uint64_t addr)
{
	const struct job *j = tb->job;
	const uint8_t *p = s->vram + addr;
	uint32_t nr = j->entry.regs_per_thread;
	struct ctx_header h;
	struct ctx_offs o;

	offsets(j, &o);
	memcpy(&h, p, sizeof(h));
	tb->live = h.live;
	tb->at_bar = h.at_bar;
	tb->crossed_boundary = h.flags & CTX_F_CROSSED;
	tb->warp_insts = h.warp_insts;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];
		struct ctx_warp cw;

		memcpy(&cw, p + o.warps + (uint64_t)i * VGPU_CTX_WARP_BYTES, sizeof(cw));
		w->state = cw.state == CTX_W_BAR ? W_BAR : cw.state == CTX_W_DONE ? W_DONE : W_RUN;
		w->sp = (int)cw.sp;
		memcpy(w->pred, cw.pred, sizeof(w->pred));
		for (uint32_t k = 0; k < cw.sp; k++)
			w->stack[k] = (struct simt){ cw.stack[k].pc, cw.stack[k].rpc,
						     cw.stack[k].mask };
		memcpy(w->regs + (size_t)nr * 32, cw.extra, sizeof(cw.extra));
		w->vt_iter = cw.vt_iter;
		w->insts = cw.insts;
		w->it_start = cw.it_start;
		w->vt_widx = cw.vt_widx;
		w->vt_order = cw.vt_order;
		memcpy(w->regs, p + o.regs + (uint64_t)i * 32 * nr * 4, (size_t)32 * nr * 4);
	}
	memcpy(tb->shared, p + o.shared, tb->shared_bytes);
	memcpy(tb->local, p + o.local, (size_t)tb->nwarps * 32 * j->entry.local_per_thread);
	tb->vt_hi = h.vt_hi;
	memcpy(tb->vt_idx, h.vt_idx, sizeof(tb->vt_idx));
	tb->vt_started = h.vt_started;
	tb->vt_min = vtb_min(tb);
	return h.flags & CTX_F_IDEAL;
}
