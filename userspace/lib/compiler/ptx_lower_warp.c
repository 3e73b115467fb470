// SPDX-License-Identifier: MIT
/*
 * ptx_lower_warp.c - lowering of PTX's block- and warp-wide instructions: bar.red, shfl, vote,
 * match, redux.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

/*
 * The member mask of shfl.sync / vote.sync: all lanes take part in this
 * model, so a mask that leaves out a lane executing the instruction traps
 * (the block ends with -EILSEQ) instead of giving a wrong result.
 */
static void member_mask(struct parser *P, struct pop *m)
{
	int ex, nm, x, p;
	struct ins *in;

	if (m->kind == PO_IMM && (uint32_t)m->iv == 0xffffffffu && !m->fk)
		return;
	if (m->kind != PO_IMM && m->kind != PO_REG)
		ptx_bad_operand(P, m, "a member mask");
	ex = ptx_newv(P, VC_32);
	if (P->guard >= 0) {
		in = emit_tmp(P, VGPU_OP_VOTE, VGPU_T_U32);
		in->mod = VGPU_VOTE_BALLOT;
		in->p = P->guard;
		in->pneg = P->gneg;
	} else {
		in = emit_tmp(P, VGPU_OP_S2R, VGPU_T_U32);
		in->mod = VGPU_SR_ACTIVEMASK;
	}
	in->d = ex;
	if (m->kind == PO_IMM) {
		x = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32, ex, -1, true, ~(uint32_t)m->iv);
	} else {
		nm = ptx_t2(P, VGPU_OP_NOT, VGPU_T_U32, ptx_mat(P, m, VGPU_T_U32, VC_32), -1, false, 0);
		x = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32, ex, nm, false, 0);
	}
	p = ptx_tsetp(P, VGPU_T_U32, VGPU_CMP_NE, x, -1, true, 0, 0, -1);
	in = emit_tmp(P, VGPU_OP_TRAP, VGPU_T_NONE);
	in->g = p;
}

/*
 * bar.red.{popc.u32,and.pred,or.pred} d, id, {!}c: a barrier that also
 * counts the threads whose predicate is true, through a hidden shared word:
 * bar; v0 = [h]; bar; @q red.shared.add [h], 1; bar; n = [h] - v0.
 */
void ptx_lower_bar_red(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ops[] = { "popc", "and", "or", NULL };
	int op = ptx_which(w, ops), t, d, v0, v1, cnt;
	uint32_t id;
	struct ins *in;

	has(w, "red");
	has(w, "sync");
	ptx_ignore_hints(w);
	t = one_type(P, w);
	ptx_check_mods(P, w);
	if (op < 0 || (op == 0) != (t == VGPU_T_U32) || (op && t != VGPU_T_PRED))
		cc_error(P->cc, P->line, "unsupported bar.red form");
	if (n == 4)
		cc_error(P->cc, P->line, "barriers with a thread count are not supported");
	nops(P, n, 3, "bar.red");
	if (P->guard >= 0)
		cc_error(P->cc, P->line, "guarded bar.red is not supported");
	if (o[1].kind != PO_IMM || o[1].iv > 15)
		cc_error(P->cc, P->line, "barrier id must be a constant 0..15");
	id = (uint32_t)o[1].iv;
	d = ptx_dst_reg(P, &o[0], op ? VC_PRED : VC_32);
	if (o[2].kind != PO_REG)
		ptx_bad_operand(P, &o[2], "a predicate");
	ptx_check_cls(P, &o[2], o[2].r, VC_PRED);
	if (P->redword < 0) {
		P->redword = (int)align_up(P->e->shared_static, 4);
		P->e->shared_static = (uint32_t)P->redword + 4;
	}
	for (int step = 0; step < 3; step++) {
		in = emit_tmp(P, VGPU_OP_BAR, VGPU_T_NONE);
		in->mod = (uint16_t)id;
		if (step == 0) {
			v0 = ptx_newv(P, VC_32);
			in = emit_tmp(P, VGPU_OP_LD, VGPU_T_U32);
			in->d = v0;
			in->mod = VGPU_M_MEM(VGPU_SP_SHARED, 2, 0, 0, 0, 0);
			ptx_set_mem_off(P, in, P->redword, false, false);
		} else if (step == 1) {
			int one = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 1);

			in = emit_tmp(P, VGPU_OP_ATOM, VGPU_T_U32);
			in->g = o[2].r;
			in->gneg = o[2].neg ^ (op == 1);	/* and: count the false ones */
			in->b = R(one);
			in->mod = VGPU_M_ATOM(VGPU_SP_SHARED, VGPU_ATOM_ADD, 0, 0);
			in->internal = true;
			ptx_set_mem_off(P, in, P->redword, false, true);
		}
	}
	v1 = ptx_newv(P, VC_32);
	in = emit_tmp(P, VGPU_OP_LD, VGPU_T_U32);
	in->d = v1;
	in->mod = VGPU_M_MEM(VGPU_SP_SHARED, 2, 0, 0, 0, 0);
	ptx_set_mem_off(P, in, P->redword, false, false);
	cnt = ptx_t2(P, VGPU_OP_SUB, VGPU_T_U32, v1, v0, false, 0);
	if (op == 0) {
		ptx_dmov(P, d, cnt, VGPU_T_U32);
	} else {
		int p = ptx_tsetp(P, VGPU_T_U32, op == 1 ? VGPU_CMP_EQ : VGPU_CMP_NE, cnt, -1, true, 0,
			      0, -1);

		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = d;
		in->p = p;
	}
}

void ptx_lower_shfl(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const modes[] = { "up", "down", "bfly", "idx", NULL };
	int mode, t, d, a, k;
	struct ins *in;
	struct opnd b, c;
	bool sync = has(w, "sync");

	mode = ptx_which(w, modes);
	if (mode < 0)
		cc_error(P->cc, P->line, "shfl needs a mode");
	t = one_type(P, w);
	if (t != VGPU_T_U32 && t != VGPU_T_F32 && t != VGPU_T_S32)
		cc_error(P->cc, P->line, "shfl needs .b32");
	ptx_ignore_hints(w);
	ptx_check_mods(P, w);
	nops(P, n, sync ? 5 : 4, "shfl");
	d = ptx_dst_reg(P, &o[0], VC_32);
	a = ptx_mat(P, &o[1], VGPU_T_U32, VC_32);
	b = ptx_srcC(P, &o[2], VGPU_T_U32, VC_32);
	c = ptx_srcC(P, &o[3], VGPU_T_U32, VC_32);
	k = 0;
	if (sync)
		member_mask(P, &o[4]);
	in = emit(P, VGPU_OP_SHFL, VGPU_T_U32);
	in->d = d;
	in->a = R(a);
	in->b = b;
	in->c = c;
	in->mod = mode;
	if (o[0].r2 >= 0) {
		ptx_check_cls(P, &o[0], o[0].r2, VC_PRED);
		in->q = o[0].r2;
	}
	(void)k;
}

void ptx_lower_vote(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const modes[] = { "all", "any", "uni", "ballot", NULL };
	int mode, t, d;
	bool sync = has(w, "sync");
	struct ins *in;

	mode = ptx_which(w, modes);
	if (mode < 0)
		cc_error(P->cc, P->line, "vote needs a mode");
	if (sync)
		member_mask(P, &o[n - 1]);
	t = one_type(P, w);
	ptx_check_mods(P, w);
	nops(P, n, sync ? 3 : 2, "vote");
	if ((mode == VGPU_VOTE_BALLOT) != (t == VGPU_T_U32))
		cc_error(P->cc, P->line, "vote type does not match the mode");
	d = ptx_dst_reg(P, &o[0], mode == VGPU_VOTE_BALLOT ? VC_32 : VC_PRED);
	if (o[1].kind != PO_REG)
		ptx_bad_operand(P, &o[1], "a predicate");
	ptx_check_cls(P, &o[1], o[1].r, VC_PRED);
	in = emit(P, VGPU_OP_VOTE, mode == VGPU_VOTE_BALLOT ? VGPU_T_U32 : VGPU_T_PRED);
	in->d = d;
	in->p = o[1].r;
	in->pneg = o[1].neg;
	in->mod = mode;
}

/*
 * match.{any,all}.sync.b32/b64 d[|p], a, mask: 32 shfl.idx compare the
 * value with each lane's; lanes not executing the instruction are masked
 * out (and the member mask is checked as for shfl).
 */
void ptx_lower_match(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const modes[] = { "any", "all", NULL };
	int mode = ptx_which(w, modes), t, cls, d, q = -1, a, ex, acc, lo = -1, hi = -1;
	struct ins *in;

	has(w, "sync");
	t = one_type(P, w);
	ptx_check_mods(P, w);
	if (mode < 0 || (t != VGPU_T_U32 && t != VGPU_T_U64))
		cc_error(P->cc, P->line, "unsupported match form");
	nops(P, n, 3, "match");
	member_mask(P, &o[2]);
	cls = type_cls(t);
	d = ptx_dst_reg(P, &o[0], VC_32);
	if (o[0].r2 >= 0) {
		if (mode == 0)
			cc_error(P->cc, P->line, "match.any has no predicate destination");
		ptx_check_cls(P, &o[0], o[0].r2, VC_PRED);
		q = o[0].r2;
	}
	a = ptx_mat(P, &o[1], t, cls);
	if (cls == VC_64) {
		lo = ptx_newv(P, VC_32);
		hi = ptx_newv(P, VC_32);
		for (int h = 0; h < 2; h++) {
			in = emit_tmp(P, VGPU_OP_UNPK, VGPU_T_U32);
			in->d = h ? hi : lo;
			in->a = R(a);
			in->mod = (uint16_t)h;
		}
	}
	ex = ptx_newv(P, VC_32);
	if (P->guard >= 0) {
		in = emit_tmp(P, VGPU_OP_VOTE, VGPU_T_U32);
		in->mod = VGPU_VOTE_BALLOT;
		in->p = P->guard;
		in->pneg = P->gneg;
	} else {
		in = emit_tmp(P, VGPU_OP_S2R, VGPU_T_U32);
		in->mod = VGPU_SR_ACTIVEMASK;
	}
	in->d = ex;
	acc = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 0);
	for (int i = 0; i < 32; i++) {
		int p = -1;

		for (int h = 0; h < (cls == VC_64 ? 2 : 1); h++) {
			int v = cls == VC_64 ? (h ? hi : lo) : a, x = ptx_newv(P, VC_32);

			in = emit_tmp(P, VGPU_OP_SHFL, VGPU_T_U32);
			in->d = x;
			in->a = R(v);
			in->b = I((uint64_t)i);
			in->c = I(31);
			in->mod = VGPU_SHFL_IDX;
			p = ptx_tsetp(P, VGPU_T_U32, VGPU_CMP_EQ, x, v, false, 0, p < 0 ? 0 : VGPU_BOP_AND,
				  p);
		}
		in = ptx_emit_raw(P, VGPU_OP_OR, VGPU_T_U32, false);
		in->g = p;
		in->d = acc;
		in->a = R(acc);
		ptx_set_bimm(in, 1ull << i, VGPU_T_U32);
	}
	acc = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32, acc, ex, false, 0);
	if (mode == 0) {
		ptx_dmov(P, d, acc, VGPU_T_U32);
	} else {
		int eq = ptx_tsetp(P, VGPU_T_U32, VGPU_CMP_EQ, acc, ex, false, 0, 0, -1);
		int z = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 0);

		if (d >= 0) {
			in = emit(P, VGPU_OP_SELP, VGPU_T_U32);
			in->d = d;
			in->a = R(ex);
			in->b = R(z);
			in->p = eq;
		}
		if (q >= 0) {
			in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
			in->d = q;
			in->p = eq;
		}
	}
}

/*
 * redux.sync.{add,min,max}.{u32,s32} / .{and,or,xor}.b32 d, a, mask: each
 * lane folds the values of the executing lanes, fetched by 32 shfl.idx.
 */
void ptx_lower_redux(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ops[] = { "add", "min", "max", "and", "or", "xor", NULL };
	static const int vop[] = { VGPU_OP_ADD, VGPU_OP_MIN, VGPU_OP_MAX, VGPU_OP_AND,
				   VGPU_OP_OR, VGPU_OP_XOR };
	int op = ptx_which(w, ops), t, d, a, ex, acc;
	uint64_t init;
	struct ins *in;

	has(w, "sync");
	t = one_type(P, w);
	ptx_check_mods(P, w);
	if (op < 0 || (op < 3 && t != VGPU_T_U32 && t != VGPU_T_S32) ||
	    (op >= 3 && t != VGPU_T_U32))
		cc_error(P->cc, P->line, "unsupported redux form");
	nops(P, n, 3, "redux");
	member_mask(P, &o[2]);
	d = ptx_dst_reg(P, &o[0], VC_32);
	a = ptx_mat(P, &o[1], t, VC_32);
	ex = ptx_newv(P, VC_32);
	if (P->guard >= 0) {
		in = emit_tmp(P, VGPU_OP_VOTE, VGPU_T_U32);
		in->mod = VGPU_VOTE_BALLOT;
		in->p = P->guard;
		in->pneg = P->gneg;
	} else {
		in = emit_tmp(P, VGPU_OP_S2R, VGPU_T_U32);
		in->mod = VGPU_SR_ACTIVEMASK;
	}
	in->d = ex;
	init = op == 1 ? (t == VGPU_T_S32 ? 0x7fffffffu : 0xffffffffu) :
	       op == 2 ? (t == VGPU_T_S32 ? 0x80000000u : 0) : op == 3 ? 0xffffffffu : 0;
	acc = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, init);
	for (int i = 0; i < 32; i++) {
		int x = ptx_newv(P, VC_32), bit, p;

		in = emit_tmp(P, VGPU_OP_SHFL, VGPU_T_U32);
		in->d = x;
		in->a = R(a);
		in->b = I((uint64_t)i);
		in->c = I(31);
		in->mod = VGPU_SHFL_IDX;
		bit = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32, ex, -1, true, 1ull << i);
		p = ptx_tsetp(P, VGPU_T_U32, VGPU_CMP_NE, bit, -1, true, 0, 0, -1);
		in = ptx_emit_raw(P, vop[op], op < 3 ? t : VGPU_T_U32, false);
		in->g = p;
		in->d = acc;
		in->a = R(acc);
		in->b = R(x);
	}
	ptx_dmov(P, d, acc, VGPU_T_U32);
}
