/* SPDX-License-Identifier: MIT */
/*
 * sim_int.h - internals of the GPU model (vgpu_sim.h): decoded programs,
 * jobs, thread blocks, warps, SMs.
 */
#ifndef VGPU_SIM_INT_H
#define VGPU_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "vgpu_sim.h"

#define SIMT_STACK_MAX	64
#define NO_PC		0xffffffffu

/* Latency classes. */
enum { LAT_ALU = 0, LAT_SFU, LAT_MEM, LAT_SHARED };

/* Decoded instruction flags. */
#define DI_GE	1	/* guarded */
#define DI_GN	2	/* guard negated */
#define DI_BI	4	/* B is an immediate (bslot) */
#define DI_CI	8	/* C is an immediate (cslot) */
#define DI_IB	16	/* idempotence boundary (VGPU_I_BOUNDARY) */

/* One instruction, decoded once per job. */
struct dinst {
	uint8_t op, type, flags, gp;
	uint8_t d, a, b, c;
	uint8_t lat;
	uint8_t vec[4];
	uint16_t mod;
	uint32_t bslot, cslot;	/* rows of the job's immediate pool */
	uint32_t target, rpc;	/* instruction indices (BRA) */
	uint64_t imm;		/* B immediate */
	int64_t off;		/* memory offset */
};

struct job {
	struct job *next;
	uint32_t id;
	int status;		/* 0, or what every block of the job ends with */
	struct vgpu_job_desc desc;
	struct vgpu_program_entry entry;
	struct dinst *code;
	uint32_t ncode;
	uint32_t *pool;		/* immediate rows: 64 words each (lo row, hi row) */
	uint8_t *params;
	struct vgpu_mem_range *ranges;
	uint32_t nranges;
	uint32_t last_range;
	uint32_t threads, nwarps;
	uint32_t resident;	/* thread blocks on SMs */
};

struct simt {
	uint32_t pc, rpc, mask;
};

enum { W_RUN = 0, W_BAR, W_DONE };

struct tb;

struct warp {
	struct tb *tb;
	uint32_t *regs;		/* [reg][lane] */
	uint32_t pred[VGPU_NUM_PREDS];
	uint64_t ready;
	uint8_t state;
	uint32_t idx;		/* warp index in the block */
	uint32_t slot;		/* warp slot on the SM */
	int sp;
	struct simt stack[SIMT_STACK_MAX];
};

struct tb {
	struct job *job;
	uint32_t index, sm, slot;
	uint32_t ctaid[3];
	uint32_t reg_base, reg_count;
	uint32_t shared_base, shared_bytes;
	uint8_t *shared;
	uint8_t *local;
	uint32_t *regs;
	uint32_t nwarps, live, at_bar;
	uint64_t warp_insts, start;
	uint64_t fault_addr;
	bool crossed_boundary;	/* executed a VGPU_I_BOUNDARY instruction */
	struct warp warps[];
};

struct sm {
	uint32_t id;
	uint8_t *shared;
	struct tb **slots;
	struct warp **ws;	/* warp slots */
	uint32_t nws;
	uint32_t *rr;		/* per scheduler: last warp slot issued */
	uint64_t next;		/* earliest cycle a warp may issue, UINT64_MAX none */
	uint32_t threads;
	uint32_t ntbs;
};

struct vgpu_sim {
	struct vgpu_sim_config cfg;
	uint8_t *vram;
	uint64_t vram_size;
	uint64_t cycle;
	struct sm *sms;
	struct job *jobs;
	uint32_t resident;	/* thread blocks */
	uint32_t lat[4];
	struct vgpu_evt *evq;	/* pending events */
	uint32_t nev, evhead, evcap;
	struct vgpu_sim_stats stats;
	uint32_t zero[128];	/* reads of RZ */
	uint32_t sink[256];	/* writes to RZ */
};

/* decode.c */
int sim_decode(struct vgpu_sim *s, struct job *j, const uint8_t *img, uint32_t size);

/* exec.c: executes the next instruction of @w at cycle @now. Returns 0, or
 * the negative status that ends the block (tb->fault_addr set for -EFAULT). */
int sim_exec(struct vgpu_sim *s, struct sm *sm, struct warp *w, uint64_t now);

#endif /* VGPU_SIM_INT_H */
