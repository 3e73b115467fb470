// SPDX-License-Identifier: MIT
/*
 * virtual_tb.c - virtual thread blocks and virtual warps (Anantpur and
 * Govindarajan, "Taming Warp Divergence", seed 003, §4.1 and Fig. 2): the
 * entry becomes a persistent-thread loop, the "wrapper while loop",
 *
 *	NX, NY, NZ = %nctaid; N = NX * NY * NZ	hoisted out of the loop
 *   head:
 *	L = NEXTTB				the warp's next logical block
 *	@(L >= N) EXIT				grid done
 *	ctaid = (L % NX, L / NX % NY, L / NX / NY)
 *	the body, with %ctaid read from these and every exit a branch to head
 *
 * so that a warp that finishes its part of a logical block takes the next
 * logical block at once instead of idling until its siblings finish. The
 * index comes from NEXTTB (§4.2.1; Documentation/isa.rst): the first warp of
 * a block to ask for an iteration takes a new index from the kernel's
 * counter, its siblings get the same one. By default thread indices stay the
 * warp's own (the paper's SameLane assignment, §4.2.2). With
 * VGPU_COMPILE_VTB_LOWEST or _SLOWEST (LowestToHighestLane, SlowestLane) the
 * model chooses which warp of the logical block a warp runs at each NEXTTB,
 * and the loop reads its thread index there (next_tIdxInBlk, §4.2.2):
 *
 *	T = NEXTTB.TID				after the exit test
 *	tid = (T % NTX, T / NTX % NTY, T / NTX / NTY)	what %tid reads
 *
 * with NTX, NTY = %ntid hoisted. %nctaid is the logical grid:
 * the launch carries it and dispatches only the blocks that fill the device
 * (VGPU_ENTRY_VIRTUAL_TB).
 *
 * Refused, naming the instruction: atomics on global memory whose result
 * the kernel reads, and fences beyond the block. Blocks that use them may
 * wait for or count each other, and a virtual block holding several
 * logical blocks in turn would change the order they run in or wait for
 * itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_int.h"

#define VTB_HEAD_LABEL	"%vtb.head"

/* %tid.x, .y or .z (VGPU_SR_TID_X is 0) */
static bool tid_read(const struct ins *in)
{
	return in->op == VGPU_OP_S2R && in->mod <= VGPU_SR_TID_Z;
}

static void refuse(struct compiler *cc, const struct entry *e, bool lanes)
{
	for (size_t i = 0; i < e->nins; i++) {
		const struct ins *in = &e->ins[i];
		int sp = VGPU_M_MEM_SP(in->mod);

		if (in->op == VGPU_OP_ATOM && !in->internal && in->d >= 0 &&
		    (sp == VGPU_SP_GLOBAL || sp == VGPU_SP_GENERIC))
			cc_error(cc, in->line,
				 "virtual thread blocks: '%s' reads the result of a global atomic (blocks may synchronise with each other through it)",
				 e->name);
		if (in->op == VGPU_OP_S2R && in->type != VGPU_T_U32 &&
		    in->mod >= VGPU_SR_CTAID_X && in->mod <= VGPU_SR_CTAID_Z)
			cc_error(cc, in->line, "virtual thread blocks: 64-bit read of %%ctaid");
		if (lanes && tid_read(in) && in->type != VGPU_T_U32)
			cc_error(cc, in->line, "virtual thread blocks: 64-bit read of %%tid");
		if (in->op == VGPU_OP_MEMBAR && in->gpu_scope)
			cc_error(cc, in->line,
				 "virtual thread blocks: '%s' has a fence beyond the block (blocks may synchronise with each other)",
				 e->name);
	}
}

static int vreg_new(struct compiler *cc, struct entry *e, int cls)
{
	e->vregs = cc_grow(cc, e->vregs, &e->vcap, e->nvregs + 1, sizeof(*e->vregs));
	e->vregs[e->nvregs] = (struct vreg){ .cls = cls, .phys = -1, .start = -1, .end = -1 };
	return (int)e->nvregs++;
}

/* An unguarded instruction of the wrapper at @e's source line. */
static struct ins *wrap_ins(struct ins *out, size_t *n, const struct entry *e, int op, int type)
{
	struct ins *in = &out[(*n)++];

	ins_init(in, op, type, e->line);
	return in;
}

static void wrap_op(struct ins *out, size_t *n, const struct entry *e, int op, int d, int a,
		    int b)
{
	struct ins *in = wrap_ins(out, n, e, op, VGPU_T_U32);

	in->d = d;
	in->a = (struct opnd){ .k = OK_REG, .r = a };
	in->b = (struct opnd){ .k = OK_REG, .r = b };
}

void vtb_transform(struct compiler *cc, struct entry *e)
{
	static const int nctaid[3] = { VGPU_SR_NCTAID_X, VGPU_SR_NCTAID_Y, VGPU_SR_NCTAID_Z };
	bool lanes = cc->opts & (VGPU_COMPILE_VTB_LOWEST | VGPU_COMPILE_VTB_SLOWEST);
	int nx[3], cta[3], all, xy, l, q, done, head;
	int ntid[2] = { -1, -1 }, tid[3] = { -1, -1, -1 }, t = -1, tq = -1;
	bool reads[3] = { false, false, false };
	size_t n = 0, cap = e->nins + 24;
	struct ins *out, *in;
	int np;

	refuse(cc, e, lanes);
	/* the %tid components the body reads: only those are computed */
	for (size_t i = 0; lanes && i < e->nins; i++)
		if (tid_read(&e->ins[i]))
			reads[e->ins[i].mod - VGPU_SR_TID_X] = true;
	lanes = lanes && (reads[0] || reads[1] || reads[2]);
	if (lanes) {
		t = vreg_new(cc, e, VC_32);
		ntid[0] = vreg_new(cc, e, VC_32);
		for (int k = 0; k < 3; k++)
			if (reads[k])
				tid[k] = vreg_new(cc, e, VC_32);
		if (reads[1] || reads[2]) {
			ntid[1] = vreg_new(cc, e, VC_32);
			tq = vreg_new(cc, e, VC_32);
		}
	}
	for (int k = 0; k < 3; k++) {
		nx[k] = vreg_new(cc, e, VC_32);
		cta[k] = vreg_new(cc, e, VC_32);
	}
	all = vreg_new(cc, e, VC_32);
	xy = vreg_new(cc, e, VC_32);
	l = vreg_new(cc, e, VC_32);
	q = vreg_new(cc, e, VC_32);
	done = vreg_new(cc, e, VC_PRED);
	out = calloc(cap, sizeof(*out));
	if (!out) {
		cc->errcode = ENOMEM;
		cc_error(cc, 0, "out of memory");
	}
	/* loop-invariant: the logical grid (§4.3.1 moves such code out) */
	for (int k = 0; k < 3; k++) {
		in = wrap_ins(out, &n, e, VGPU_OP_S2R, VGPU_T_U32);
		in->d = nx[k];
		in->mod = nctaid[k];
	}
	wrap_op(out, &n, e, VGPU_OP_MUL, xy, nx[0], nx[1]);
	wrap_op(out, &n, e, VGPU_OP_MUL, all, xy, nx[2]);
	for (int k = 0; k < 2; k++) {
		if (ntid[k] < 0)
			continue;
		in = wrap_ins(out, &n, e, VGPU_OP_S2R, VGPU_T_U32);
		in->d = ntid[k];
		in->mod = VGPU_SR_NTID_X + k;
	}
	np = (int)n;
	in = wrap_ins(out, &n, e, VGPU_OP_NEXTTB, VGPU_T_U32);
	in->d = l;
	in = wrap_ins(out, &n, e, VGPU_OP_SETP, VGPU_T_U32);
	in->d = done;
	in->a = (struct opnd){ .k = OK_REG, .r = l };
	in->b = (struct opnd){ .k = OK_REG, .r = all };
	in->mod = VGPU_M_SETP(VGPU_CMP_GE, VGPU_BOP_NONE, 0, 0, 0, 0);
	in = wrap_ins(out, &n, e, VGPU_OP_EXIT, VGPU_T_NONE);
	in->g = done;
	wrap_op(out, &n, e, VGPU_OP_REM, cta[0], l, nx[0]);
	wrap_op(out, &n, e, VGPU_OP_DIV, q, l, nx[0]);
	wrap_op(out, &n, e, VGPU_OP_REM, cta[1], q, nx[1]);
	wrap_op(out, &n, e, VGPU_OP_DIV, cta[2], q, nx[1]);
	if (lanes) {
		/* the thread's index in its logical block (§4.2.2) */
		in = wrap_ins(out, &n, e, VGPU_OP_NEXTTB, VGPU_T_U32);
		in->d = t;
		in->mod = VGPU_NEXTTB_TID;
		if (reads[0])
			wrap_op(out, &n, e, VGPU_OP_REM, tid[0], t, ntid[0]);
		if (tq >= 0)
			wrap_op(out, &n, e, VGPU_OP_DIV, tq, t, ntid[0]);
		if (reads[1])
			wrap_op(out, &n, e, VGPU_OP_REM, tid[1], tq, ntid[1]);
		if (reads[2])
			wrap_op(out, &n, e, VGPU_OP_DIV, tid[2], tq, ntid[1]);
	}

	/* the wrapper's head: where every exit of the body goes */
	e->labels = cc_grow(cc, e->labels, &e->lcap, e->nlabels + 1, sizeof(*e->labels));
	head = (int)e->nlabels++;
	memset(&e->labels[head], 0, sizeof(e->labels[head]));
	strcpy(e->labels[head].name, VTB_HEAD_LABEL);
	e->labels[head].line = e->line;
	for (int i = 0; i < head; i++)
		e->labels[i].pos += (int)n;
	e->labels[head].pos = np;

	for (size_t i = 0; i < e->nins; i++) {
		struct ins *o = &out[n++];

		*o = e->ins[i];
		if (o->op == VGPU_OP_S2R && o->mod >= VGPU_SR_CTAID_X &&
		    o->mod <= VGPU_SR_CTAID_Z) {
			/* %ctaid is the logical block's (a guarded read stays guarded) */
			o->b = (struct opnd){ .k = OK_REG, .r = cta[o->mod - VGPU_SR_CTAID_X] };
			o->op = VGPU_OP_MOV;
			o->mod = 0;
		} else if (lanes && tid_read(o)) {
			/* %tid is the thread's of the logical warp it runs */
			o->b = (struct opnd){ .k = OK_REG, .r = tid[o->mod - VGPU_SR_TID_X] };
			o->op = VGPU_OP_MOV;
			o->mod = 0;
		} else if (o->op == VGPU_OP_EXIT) {
			/* the logical block is done for these lanes: on to the next */
			o->op = VGPU_OP_BRA;
			o->label = head;
			o->x = true;
		}
	}
	free(e->ins);
	e->ins = out;
	e->nins = n;
	e->cap = cap;
	e->flags |= VGPU_ENTRY_VIRTUAL_TB;
	/* the model assigns warps this way even where the body reads no %tid */
	if (cc->opts & VGPU_COMPILE_VTB_LOWEST)
		e->flags |= VGPU_ENTRY_VTB_LOWEST;
	else if (cc->opts & VGPU_COMPILE_VTB_SLOWEST)
		e->flags |= VGPU_ENTRY_VTB_SLOWEST;
}
