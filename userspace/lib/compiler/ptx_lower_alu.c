// SPDX-License-Identifier: MIT
/*
 * ptx_lower_alu.c - lowering of PTX's arithmetic, logic, bit, comparison, conversion, move and
 * half-precision instructions.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

static const char *const cmp_names[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
	"num", "nan", "lo", "ls", "hi", "hs", NULL,
};

void ptx_lower_mov(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w);
	struct ins *in;

	nops(P, n, 2, "mov");
	if (t == VGPU_T_PRED) {
		int d = ptx_dst_reg(P, &o[0], VC_PRED);

		if (o[1].kind == PO_IMM && !o[1].fk) {
			/* constant: RZ == 0 is false, RZ != 0 ... inverted */
			in = emit(P, VGPU_OP_SETP, VGPU_T_U32);
			in->d = d;
			in->a = R(ptx_newv(P, VC_32));
			P->e->ins[P->e->nins - 1].a.k = OK_NONE;
			in = &P->e->ins[P->e->nins - 1];
			in->b = I(0);
			in->mod = VGPU_M_SETP(o[1].iv ? VGPU_CMP_EQ : VGPU_CMP_NE, 0, 0, 0, 0, 0);
			return;
		}
		if (o[1].kind != PO_REG)
			cc_error(P->cc, P->line, "mov.pred needs a predicate source");
		ptx_check_cls(P, &o[1], o[1].r, VC_PRED);
		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = d;
		in->p = o[1].r;
		return;
	}
	if (o[0].kind == PO_VEC) {
		/* unpack */
		int s = ptx_mat(P, &o[1], t, type_cls(t));

		if (vgpu_type_is64(t) && o[0].nvec == 2) {
			for (int i = 0; i < 2; i++) {
				if (o[0].vec[i] < 0)
					continue;
				ptx_check_cls(P, &o[0], o[0].vec[i], VC_32);
				in = emit(P, VGPU_OP_UNPK, VGPU_T_U32);
				in->d = o[0].vec[i];
				in->a = R(s);
				in->mod = i;
			}
			return;
		}
		if (vgpu_type_bits(t) == 32 && o[0].nvec == 2) {
			for (int i = 0; i < 2; i++) {
				if (o[0].vec[i] < 0)
					continue;
				in = emit(P, i ? VGPU_OP_SHR : VGPU_OP_AND, VGPU_T_U32);
				in->d = o[0].vec[i];
				in->a = R(s);
				ptx_set_bimm(in, i ? 16 : 0xffff, VGPU_T_U32);
			}
			return;
		}
		cc_error(P->cc, P->line, "unsupported vector mov");
	}
	if (o[1].kind == PO_VEC) {
		/* pack */
		int d = ptx_dst_reg(P, &o[0], type_cls(t));

		if (o[1].vec[0] < 0 || o[1].vec[1] < 0 || o[1].nvec != 2)
			cc_error(P->cc, P->line, "unsupported vector mov");
		if (vgpu_type_is64(t)) {
			in = emit(P, VGPU_OP_PACK, VGPU_T_U64);
			in->d = d;
			in->a = R(o[1].vec[0]);
			in->b = R(o[1].vec[1]);
			return;
		}
		if (vgpu_type_bits(t) == 32) {
			int h = ptx_newv(P, VC_32);

			in = emit_tmp(P, VGPU_OP_SHL, VGPU_T_U32);
			in->d = h;
			in->a = R(o[1].vec[1]);
			ptx_set_bimm(in, 16, VGPU_T_U32);
			in = emit(P, VGPU_OP_OR, VGPU_T_U32);
			in->d = d;
			in->a = R(h);
			in->b = R(o[1].vec[0]);
			return;
		}
		cc_error(P->cc, P->line, "unsupported vector mov");
	}
	{
		int cls = type_cls(t);
		int d = ptx_dst_reg(P, &o[0], cls == VC_16 ? vcls(P, o[0].r) : cls);

		if (o[1].kind == PO_SREG) {
			in = emit(P, VGPU_OP_S2R, cls == VC_64 ? VGPU_T_U64 : VGPU_T_U32);
			in->mod = o[1].sreg;
			in->d = d;
			ptx_zext16(P, d);
			return;
		}
		if (o[1].kind == PO_SYM) {
			int v = ptx_sym_addr(P, &o[1], cls == VC_64 ? VC_64 : VC_32, 0);

			/* retarget the address computation to the destination */
			P->e->ins[P->e->nins - 1].d = d;
			P->e->ins[P->e->nins - 1].g = P->guard;
			P->e->ins[P->e->nins - 1].gneg = P->gneg;
			(void)v;
			return;
		}
		{
			struct bsrc bs = ptx_prepB(P, &o[1], t, cls == VC_64 ? VC_64 : VC_32);

			in = emit(P, VGPU_OP_MOV, cls == VC_64 ? (t == VGPU_T_F64 ? t : VGPU_T_U64) :
				  (t == VGPU_T_F32 ? t : VGPU_T_U32));
			in->d = d;
			ptx_applyB(in, bs);
		}
		if (o[1].kind == PO_IMM)
			ptx_zext16(P, d);
	}
}

void ptx_lower_cvta(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const sp[] = { "global", "shared", "local", "const", "param", NULL };
	static const int spv[] = { VGPU_SP_GLOBAL, VGPU_SP_SHARED, VGPU_SP_LOCAL,
				   VGPU_SP_CONST, VGPU_SP_PARAM };
	int t = one_type(P, w), s, to, cls, d, a;
	struct ins *in;

	nops(P, n, 2, "cvta");
	to = has(w, "to");
	s = ptx_which(w, sp);
	if (s < 0 || spv[s] == VGPU_SP_PARAM)
		cc_error(P->cc, P->line, "unsupported state space for cvta");
	if (t != VGPU_T_U64 && t != VGPU_T_U32)
		cc_error(P->cc, P->line, "cvta needs .u32 or .u64");
	cls = type_cls(t);
	d = ptx_dst_reg(P, &o[0], cls);
	a = ptx_mat(P, &o[1], t, cls);
	if (spv[s] == VGPU_SP_GLOBAL) {
		in = emit(P, VGPU_OP_MOV, t);
		in->d = d;
		in->b = R(a);
		return;
	}
	in = emit(P, VGPU_OP_CVTA, t);
	in->mod = VGPU_M_CVTA(spv[s], to);
	in->d = d;
	in->a = R(a);
}

/* A temporary: d = op(a, b) of @type, b a register or an immediate. */
int ptx_t2(struct parser *P, int op, int type, int a, int b, bool bimm, uint64_t bv)
{
	struct ins *in = emit_tmp(P, op, type);
	int d = ptx_newv(P, vgpu_type_is64(type) ? VC_64 : VC_32);

	in->d = d;
	in->a = a >= 0 ? R(a) : (struct opnd){ 0 };
	if (bimm)
		ptx_set_bimm(in, bv, type);
	else if (b >= 0)
		in->b = R(b);
	return d;
}

/* A temporary predicate: (a cmp b) [bop Pc]. */
int ptx_tsetp(struct parser *P, int type, int cmp, int a, int b, bool bimm, uint64_t bv,
	      int bop, int pc)
{
	struct ins *in = emit_tmp(P, VGPU_OP_SETP, type);
	int d = ptx_newv(P, VC_PRED);

	in->d = d;
	in->a = R(a);
	if (bimm)
		ptx_set_bimm(in, bv, type);
	else
		in->b = R(b);
	in->mod = VGPU_M_SETP(cmp, bop, 0, 0, 0, 0);
	if (bop)
		in->p = pc;
	return d;
}

/* The destination write of a lowering: d = b (guarded MOV). */
void ptx_dmov(struct parser *P, int d, int src, int type)
{
	struct ins *in;

	if (d < 0)
		return;
	in = emit(P, VGPU_OP_MOV, vgpu_type_is64(type) ? VGPU_T_U64 : VGPU_T_U32);
	in->d = d;
	in->b = R(src);
}

/* The carry flag CC.CF of the entry (a hidden predicate). */
static int carry_flag(struct parser *P)
{
	if (P->carry < 0)
		P->carry = ptx_newv(P, VC_PRED);
	return P->carry;
}

/*
 * Extended-precision arithmetic: add.cc, addc{.cc}, sub.cc, subc{.cc},
 * mad{c}.{lo,hi}{.cc}. The carry (borrow for sub) lives in a predicate:
 * t1 = x op y; c1 = carry of it; t2 = t1 op cin; c2 = carry of that.
 */
void ptx_lower_carry(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const lh[] = { "lo", "hi", NULL };
	const char *b = w->base;
	bool cin = !strcmp(b, "addc") || !strcmp(b, "subc") || !strcmp(b, "madc");
	bool cout = has(w, "cc"), sub = b[0] == 's', mad = b[0] == 'm';
	int t, cls, d, x, y, t1, res, c1 = -1, hl = 0;
	struct ins *in;

	if (mad) {
		hl = ptx_which(w, lh);
		if (hl < 0)
			cc_error(P->cc, P->line, "'%s' needs .lo or .hi", b);
	}
	t = one_type(P, w);
	ptx_check_mods(P, w);
	if (t != VGPU_T_U32 && t != VGPU_T_S32 && t != VGPU_T_U64 && t != VGPU_T_S64)
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	t = vgpu_type_is64(t) ? VGPU_T_U64 : VGPU_T_U32;
	cls = type_cls(t);
	nops(P, n, mad ? 4 : 3, b);
	d = ptx_dst_reg(P, &o[0], cls);
	x = ptx_mat(P, &o[1], t, cls);
	if (mad) {
		int m2 = ptx_mat(P, &o[2], t, cls);

		x = ptx_t2(P, hl ? VGPU_OP_MULHI : VGPU_OP_MUL, t, x, m2, false, 0);
		y = ptx_mat(P, &o[3], t, cls);
	} else {
		y = ptx_mat(P, &o[2], t, cls);
	}
	t1 = ptx_t2(P, sub ? VGPU_OP_SUB : VGPU_OP_ADD, t, x, y, false, 0);
	if (cout)
		c1 = sub ? ptx_tsetp(P, t, VGPU_CMP_LT, x, y, false, 0, 0, -1) :
			   ptx_tsetp(P, t, VGPU_CMP_LT, t1, x, false, 0, 0, -1);
	res = t1;
	if (cin) {
		int ci = ptx_newv(P, cls), cf = carry_flag(P);
		int one = ptx_t2(P, VGPU_OP_MOV, t, -1, -1, true, 1);

		in = emit_tmp(P, VGPU_OP_SELP, t);	/* ci = cf ? 1 : 0 */
		in->d = ci;
		in->a = R(one);
		ptx_set_bimm(in, 0, t);
		in->p = cf;
		res = ptx_t2(P, sub ? VGPU_OP_SUB : VGPU_OP_ADD, t, t1, ci, false, 0);
		if (cout) {
			int c2 = sub ? ptx_tsetp(P, t, VGPU_CMP_LT, t1, ci, false, 0, VGPU_BOP_OR, c1) :
				       ptx_tsetp(P, t, VGPU_CMP_LT, res, t1, false, 0, VGPU_BOP_OR, c1);

			c1 = c2;
		}
	}
	ptx_dmov(P, d, res, t);
	if (cout) {
		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = carry_flag(P);
		in->p = c1;
	}
}

/* sad: d = c + |a - b|; mul24/mad24: 24-bit operands. */
void ptx_lower_sad24(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const lh[] = { "lo", "hi", NULL };
	const char *b = w->base;
	int t = one_type(P, w), d, a, bb, c = -1, r;

	if (t != VGPU_T_U32 && t != VGPU_T_S32)
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	if (!strcmp(b, "sad")) {
		int mx, mn;

		ptx_check_mods(P, w);
		nops(P, n, 4, b);
		d = ptx_dst_reg(P, &o[0], VC_32);
		a = ptx_mat(P, &o[1], t, VC_32);
		bb = ptx_mat(P, &o[2], t, VC_32);
		c = ptx_mat(P, &o[3], t, VC_32);
		mx = ptx_t2(P, VGPU_OP_MAX, t, a, bb, false, 0);
		mn = ptx_t2(P, VGPU_OP_MIN, t, a, bb, false, 0);
		r = ptx_t2(P, VGPU_OP_SUB, VGPU_T_U32, mx, mn, false, 0);
		r = ptx_t2(P, VGPU_OP_ADD, VGPU_T_U32, r, c, false, 0);
		ptx_dmov(P, d, r, VGPU_T_U32);
		return;
	}
	{
		int hl = ptx_which(w, lh), a24, b24, ext[2];
		bool mad = !strcmp(b, "mad24");

		if (hl < 0)
			cc_error(P->cc, P->line, "'%s' needs .lo or .hi", b);
		ptx_check_mods(P, w);
		nops(P, n, mad ? 4 : 3, b);
		d = ptx_dst_reg(P, &o[0], VC_32);
		a = ptx_mat(P, &o[1], t, VC_32);
		bb = ptx_mat(P, &o[2], t, VC_32);
		if (mad)
			c = ptx_mat(P, &o[3], t, VC_32);
		/* the low 24 bits, extended by the signedness */
		a24 = ptx_newv(P, VC_32);
		b24 = ptx_newv(P, VC_32);
		ext[0] = a24;
		ext[1] = b24;
		for (int i = 0; i < 2; i++) {
			struct ins *in = emit_tmp(P, VGPU_OP_BFE, t);

			in->d = ext[i];
			in->a = R(i ? bb : a);
			in->b = I(0);
			in->c = I(24);
			in->x = false;
		}
		if (hl == 0) {
			r = ptx_t2(P, VGPU_OP_MUL, VGPU_T_U32, a24, b24, false, 0);
		} else {
			/* bits 16..47 of the 48-bit product */
			int wd = ptx_t2(P, VGPU_OP_MULWD, t, a24, b24, false, 0);

			wd = ptx_t2(P, VGPU_OP_SHR, VGPU_T_U64, wd, -1, true, 16);
			r = ptx_newv(P, VC_32);
			{
				struct ins *in = emit_tmp(P, VGPU_OP_UNPK, VGPU_T_U32);

				in->d = r;
				in->a = R(wd);
				in->mod = 0;
			}
		}
		if (mad)
			r = ptx_t2(P, VGPU_OP_ADD, VGPU_T_U32, r, c, false, 0);
		ptx_dmov(P, d, r, VGPU_T_U32);
	}
}

/* add.sat.s32 / sub.sat.s32: in 64 bits, clamped. */
static void lower_isat(struct parser *P, struct opword *w, struct pop *o, int n, int op)
{
	int t = one_type(P, w), d, a, b, r;
	struct ins *in;

	ptx_check_mods(P, w);
	if (t != VGPU_T_S32)
		cc_error(P->cc, P->line, "'.sat' needs .s32 for integer '%s'", w->base);
	nops(P, n, 3, w->base);
	d = ptx_dst_reg(P, &o[0], VC_32);
	a = ptx_mat(P, &o[1], t, VC_32);
	b = ptx_mat(P, &o[2], t, VC_32);
	{
		int a64 = ptx_newv(P, VC_64), b64 = ptx_newv(P, VC_64);

		in = emit_tmp(P, VGPU_OP_CVT, VGPU_T_S64);
		in->d = a64;
		in->a = R(a);
		in->mod = VGPU_M_CVT(VGPU_T_S32, 0, 0, 0, 0);
		in = emit_tmp(P, VGPU_OP_CVT, VGPU_T_S64);
		in->d = b64;
		in->a = R(b);
		in->mod = VGPU_M_CVT(VGPU_T_S32, 0, 0, 0, 0);
		r = ptx_t2(P, op, VGPU_T_S64, a64, b64, false, 0);
		r = ptx_t2(P, VGPU_OP_MIN, VGPU_T_S64, r, -1, true, 0x7fffffffull);
		r = ptx_t2(P, VGPU_OP_MAX, VGPU_T_S64, r, -1, true, (uint64_t)(int64_t)INT32_MIN);
		in = emit(P, VGPU_OP_UNPK, VGPU_T_U32);
		in->d = d;
		in->a = R(r);
		in->mod = 0;
	}
}

/* Generic two/three-operand arithmetic. */
void ptx_lower_arith(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const lhw[] = { "lo", "hi", "wide", NULL };
	const char *b = w->base;
	int t = one_type(P, w), wt, op, mode = -1, dcls, scls;
	bool fl = vgpu_type_float(t), three, commut;
	uint16_t mod = 0;
	struct ins *in;
	int d;

	if (t == VGPU_T_PRED || t == VGPU_T_U8 || t == VGPU_T_S8)
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	if (!strcmp(b, "add")) op = VGPU_OP_ADD;
	else if (!strcmp(b, "sub")) op = VGPU_OP_SUB;
	else if (!strcmp(b, "mul")) op = VGPU_OP_MUL;
	else if (!strcmp(b, "mad") || !strcmp(b, "fma")) op = VGPU_OP_MAD;
	else if (!strcmp(b, "div")) op = VGPU_OP_DIV;
	else if (!strcmp(b, "rem")) op = VGPU_OP_REM;
	else if (!strcmp(b, "min")) op = VGPU_OP_MIN;
	else op = VGPU_OP_MAX;
	if (!fl && has(w, "cc")) {
		ptx_lower_carry(P, w, o, n);
		return;
	}
	if (!fl && (op == VGPU_OP_ADD || op == VGPU_OP_SUB) && has(w, "sat")) {
		lower_isat(P, w, o, n, op);
		return;
	}
	if (has(w, "cc") || has(w, "sat") || has(w, "relu") || has(w, "NaN") ||
	    has(w, "xorsign") || has(w, "abs")) {
		if (!(fl && has(w, "sat")))
			cc_error(P->cc, P->line, "unsupported modifier in '%s'", b);
		mod |= VGPU_M_SAT;
	}
	if (fl) {
		mod |= ptx_float_rnd(w);
		if (has(w, "ftz"))
			mod |= VGPU_M_FTZ;
		has(w, "approx");
		has(w, "full");
		if (!strcmp(b, "fma") || !strcmp(b, "mad")) {
			if (!has(w, "rn") && !has(w, "rz") && !has(w, "rm") && !has(w, "rp") &&
			    !strcmp(b, "fma"))
				cc_error(P->cc, P->line, "fma needs a rounding modifier");
		}
		if (op == VGPU_OP_REM)
			cc_error(P->cc, P->line, "rem has no float form");
	} else if (op == VGPU_OP_MUL || op == VGPU_OP_MAD) {
		mode = ptx_which(w, lhw);
		if (mode < 0)
			cc_error(P->cc, P->line, "'%s' needs .lo, .hi or .wide", b);
		if (op == VGPU_OP_MUL)
			op = mode == 0 ? VGPU_OP_MUL : mode == 1 ? VGPU_OP_MULHI : VGPU_OP_MULWD;
		else
			op = mode == 0 ? VGPU_OP_MAD : mode == 1 ? VGPU_OP_MADHI : VGPU_OP_MADWD;
		if (mode == 2 && vgpu_type_is64(t))
			cc_error(P->cc, P->line, "%s.wide of 64-bit values is not supported", b);
	}
	if (!strcmp(b, "fma") && !fl)
		cc_error(P->cc, P->line, "fma needs a float type");
	ptx_check_mods(P, w);
	three = op == VGPU_OP_MAD || op == VGPU_OP_MADHI || op == VGPU_OP_MADWD;
	nops(P, n, three ? 4 : 3, b);
	commut = op == VGPU_OP_ADD || op == VGPU_OP_MUL || op == VGPU_OP_MULHI ||
		 op == VGPU_OP_MULWD || op == VGPU_OP_MIN || op == VGPU_OP_MAX ||
		 op == VGPU_OP_MAD || op == VGPU_OP_MADHI || op == VGPU_OP_MADWD;

	/* narrow (16-bit) integer operations are done in 32 bits */
	wt = ptx_wide_type(t);
	scls = type_cls(wt);
	dcls = (op == VGPU_OP_MULWD || op == VGPU_OP_MADWD) && t != wt ? VC_32 :
	       (op == VGPU_OP_MULWD || op == VGPU_OP_MADWD) ? VC_64 : type_cls(t);
	d = ptx_dst_reg(P, &o[0], dcls == VC_16 ? VC_16 : dcls);
	if (d >= 0 && dcls == VC_16)
		dcls = VC_16;
	for (int i = 1; i < n; i++)
		ptx_narrow_src(P, &o[i], t);
	if (o[1].kind == PO_IMM && commut && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
	}
	if (t != wt && (op == VGPU_OP_MULWD || op == VGPU_OP_MADWD)) {
		/* 16x16 -> 32: a plain 32-bit multiply of the extended values */
		op = op == VGPU_OP_MULWD ? VGPU_OP_MUL : VGPU_OP_MAD;
	}
	{
		int a = ptx_mat(P, &o[1], wt, scls);
		struct opnd c = { 0 };
		struct bsrc bs = ptx_prepB(P, &o[2], wt, scls);

		if (three)
			c = ptx_srcC(P, &o[3], wt, op == VGPU_OP_MADWD ? VC_64 : scls);
		in = emit(P, op, wt);
		in->mod = mod;
		in->d = d;
		in->a = R(a);
		ptx_applyB(in, bs);
		in->c = c;
	}
	if (t != wt && op == VGPU_OP_MULHI) {
		in->op = VGPU_OP_MUL;
		in = emit(P, VGPU_OP_SHR, wt);
		in->d = d;
		in->a = R(d);
		ptx_set_bimm(in, 16, VGPU_T_U32);
	} else if (t != wt && op == VGPU_OP_MADHI) {
		cc_error(P->cc, P->line, "mad.hi of 16-bit values is not supported");
	}
	if (dcls == VC_16)
		ptx_zext16(P, d);
}

void ptx_lower_unary(struct parser *P, struct opword *w, struct pop *o, int n, int op)
{
	int t = one_type(P, w), wt = ptx_wide_type(t), d, a, dcls;
	uint16_t mod = 0;
	struct ins *in;

	nops(P, n, 2, w->base);
	if (vgpu_type_float(t)) {
		mod |= ptx_float_rnd(w);
		if (has(w, "ftz"))
			mod |= VGPU_M_FTZ;
		has(w, "approx");
		has(w, "full");
	} else if (op >= VGPU_OP_SQRT && op <= VGPU_OP_TANH) {
		cc_error(P->cc, P->line, "'%s' needs a float type", w->base);
	}
	if (t == VGPU_T_PRED)
		cc_error(P->cc, P->line, "unsupported type for '%s'", w->base);
	ptx_check_mods(P, w);
	dcls = (op == VGPU_OP_POPC || op == VGPU_OP_CLZ) ? VC_32 : type_cls(t);
	d = ptx_dst_reg(P, &o[0], dcls);
	ptx_narrow_src(P, &o[1], t);
	a = ptx_mat(P, &o[1], wt, type_cls(wt));
	in = emit(P, op, wt);
	in->mod = mod;
	in->d = d;
	in->a = R(a);
	if (dcls == VC_16 && op != VGPU_OP_ABS)
		ptx_zext16(P, d);
	else if (dcls == VC_16)
		ptx_zext16(P, d);
}

void ptx_lower_logic(struct parser *P, struct opword *w, struct pop *o, int n)
{
	const char *b = w->base;
	int t = one_type(P, w), op, cls, d;
	struct ins *in;

	ptx_check_mods(P, w);
	if (!strcmp(b, "and")) op = VGPU_OP_AND;
	else if (!strcmp(b, "or")) op = VGPU_OP_OR;
	else if (!strcmp(b, "xor")) op = VGPU_OP_XOR;
	else if (!strcmp(b, "not")) op = VGPU_OP_NOT;
	else op = VGPU_OP_CNOT;
	if (t == VGPU_T_PRED) {
		static const int bops[] = { VGPU_BOP_AND, VGPU_BOP_OR, VGPU_BOP_XOR };

		if (op == VGPU_OP_CNOT)
			cc_error(P->cc, P->line, "cnot.pred is not valid");
		nops(P, n, op == VGPU_OP_NOT ? 2 : 3, b);
		d = ptx_dst_reg(P, &o[0], VC_PRED);
		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = d;
		for (int i = 1; i < n; i++)
			if (o[i].kind != PO_REG)
				cc_error(P->cc, P->line, "'%s.pred' needs predicate operands", b);
		ptx_check_cls(P, &o[1], o[1].r, VC_PRED);
		in->p = o[1].r;
		in->pneg = o[1].neg;
		if (op == VGPU_OP_NOT) {
			in->pneg = !in->pneg;
			in->mod = VGPU_M_PLOP(VGPU_BOP_NONE, 0, 0);
		} else {
			ptx_check_cls(P, &o[2], o[2].r, VC_PRED);
			in->p2 = o[2].r;
			in->p2neg = o[2].neg;
			in->mod = VGPU_M_PLOP(bops[op - VGPU_OP_AND], 0, 0);
		}
		return;
	}
	if (t == VGPU_T_S32 || t == VGPU_T_S64 || t == VGPU_T_S16 || t == VGPU_T_F32 ||
	    t == VGPU_T_F64 || t == VGPU_T_U8 || t == VGPU_T_S8)
		cc_error(P->cc, P->line, "'%s' needs a .b type", b);
	cls = type_cls(t);
	t = ptx_wide_type(t);
	nops(P, n, op == VGPU_OP_NOT || op == VGPU_OP_CNOT ? 2 : 3, b);
	d = ptx_dst_reg(P, &o[0], cls);
	if (n == 3 && o[1].kind == PO_IMM && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
	}
	{
		int a = ptx_mat(P, &o[1], t, cls == VC_16 ? VC_32 : cls);
		struct bsrc bs = { 0 };

		if (n == 3)
			bs = ptx_prepB(P, &o[2], t, cls == VC_16 ? VC_32 : cls);
		in = emit(P, op, t);
		in->d = d;
		in->a = R(a);
		if (n == 3)
			ptx_applyB(in, bs);
	}
	if (cls == VC_16 && (op == VGPU_OP_NOT))
		ptx_zext16(P, d);
}

void ptx_lower_shift(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w), wt = ptx_wide_type(t), cls = type_cls(t), d, a;
	bool shl = !strcmp(w->base, "shl");
	struct ins *in;

	ptx_check_mods(P, w);
	nops(P, n, 3, w->base);
	if (vgpu_type_float(t) || t == VGPU_T_PRED || (shl && vgpu_type_signed(t)))
		cc_error(P->cc, P->line, "unsupported type for '%s'", w->base);
	d = ptx_dst_reg(P, &o[0], cls);
	ptx_narrow_src(P, &o[1], t);
	a = ptx_mat(P, &o[1], wt, type_cls(wt));
	{
		int sr = o[2].kind == PO_IMM ? -1 : ptx_mat(P, &o[2], VGPU_T_U32, VC_32);

		if (sr >= 0 && t != wt)	/* 16-bit: amounts >= 16 give 0 / sign fill */
			sr = ptx_t2(P, VGPU_OP_MIN, VGPU_T_U32, sr, -1, true, 16);
		in = emit(P, shl ? VGPU_OP_SHL : VGPU_OP_SHR, wt);
		in->d = d;
		in->a = R(a);
		if (sr < 0) {
			uint64_t v = ptx_imm_value(P, &o[2], VGPU_T_U32);

			if (v > 127)
				v = 127;
			in->b = I(v);
		} else {
			in->b = R(sr);
		}
	}
	if (t != wt) {
		/* 16-bit: shift amounts >= 16 must give 0 / sign fill */
		if (in->b.k == OK_IMM && in->b.v > 16)
			in->b.v = 16;
		ptx_zext16(P, d);
	}
}

static const char *const prmt_modes[] = { "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", NULL };

/* Default-mode selector (4 nibbles, byte 0 lowest) of prmt mode @m for c[1:0] = @s. */
static unsigned int prmt_sel(int m, int s)
{
	unsigned int b[4];

	for (int i = 0; i < 4; i++) {
		switch (m) {
		case 0: b[i] = (unsigned int)(s + i) & 7; break;		/* f4e */
		case 1: b[i] = (unsigned int)(s - i) & 7; break;		/* b4e */
		case 2: b[i] = (unsigned int)s; break;				/* rc8 */
		case 3: b[i] = i == 3 ? 3 : (unsigned int)(s > i ? s : i); break;	/* ecl */
		case 4: b[i] = i == 0 ? 0 : (unsigned int)(s < i ? s : i); break;	/* ecr */
		default: b[i] = (unsigned int)(2 * (s & 1) + (i & 1)); break;	/* rc16 */
		}
	}
	return b[0] | b[1] << 4 | b[2] << 8 | b[3] << 12;
}

/* bfind{.shiftamt}: position of the most significant non-sign bit. */
void ptx_lower_bfind(struct parser *P, struct opword *w, struct pop *o, int n)
{
	bool sa = has(w, "shiftamt");
	int t = one_type(P, w), cls, wt, bits, d, a, x, c, r;

	ptx_check_mods(P, w);
	nops(P, n, 2, "bfind");
	if (t != VGPU_T_U32 && t != VGPU_T_S32 && t != VGPU_T_U64 && t != VGPU_T_S64)
		cc_error(P->cc, P->line, "unsupported type for 'bfind'");
	cls = type_cls(t);
	wt = vgpu_type_is64(t) ? VGPU_T_U64 : VGPU_T_U32;
	bits = vgpu_type_is64(t) ? 64 : 32;
	d = ptx_dst_reg(P, &o[0], VC_32);
	a = ptx_mat(P, &o[1], t, cls);
	x = a;
	if (vgpu_type_signed(t)) {
		int sg = ptx_t2(P, VGPU_OP_SHR, t, a, -1, true, (uint64_t)bits - 1);

		x = ptx_t2(P, VGPU_OP_XOR, wt, a, sg, false, 0);
	}
	c = ptx_newv(P, VC_32);
	{
		struct ins *in = emit_tmp(P, VGPU_OP_CLZ, wt);

		in->d = c;
		in->a = R(x);
	}
	if (sa) {
		/* clz, or 0xffffffff when there is no such bit */
		int p = ptx_tsetp(P, VGPU_T_U32, VGPU_CMP_EQ, c, -1, true, (uint64_t)bits, 0, -1);
		int all = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 0xffffffffu);
		struct ins *in = emit_tmp(P, VGPU_OP_SELP, VGPU_T_U32);

		r = ptx_newv(P, VC_32);
		in->d = r;
		in->a = R(all);
		in->b = R(c);
		in->p = p;
	} else {
		int top = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, (uint64_t)bits - 1);

		r = ptx_t2(P, VGPU_OP_SUB, VGPU_T_U32, top, c, false, 0);	/* -1 when none */
	}
	ptx_dmov(P, d, r, VGPU_T_U32);
}

/* copysign.fN d, a, b: b with the sign of a. */
void ptx_lower_copysign(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w), wt, cls, d, a, b;
	uint64_t sign;

	ptx_check_mods(P, w);
	nops(P, n, 3, "copysign");
	if (t != VGPU_T_F32 && t != VGPU_T_F64)
		cc_error(P->cc, P->line, "copysign needs .f32 or .f64");
	cls = type_cls(t);
	wt = t == VGPU_T_F64 ? VGPU_T_U64 : VGPU_T_U32;
	sign = t == VGPU_T_F64 ? 1ull << 63 : 1ull << 31;
	d = ptx_dst_reg(P, &o[0], cls);
	a = ptx_mat(P, &o[1], t, cls);
	b = ptx_mat(P, &o[2], t, cls);
	a = ptx_t2(P, VGPU_OP_AND, wt, a, -1, true, sign);
	b = ptx_t2(P, VGPU_OP_AND, wt, b, -1, true, ~sign & (t == VGPU_T_F64 ? ~0ull : 0xffffffffull));
	ptx_dmov(P, d, ptx_t2(P, VGPU_OP_OR, wt, a, b, false, 0), wt);
}

/* testp.op.fN p, a: finite infinite number notanumber normal subnormal. */
void ptx_lower_testp(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ops[] = { "finite", "infinite", "number", "notanumber",
					   "normal", "subnormal", NULL };
	int op = ptx_which(w, ops), t = one_type(P, w), cls, d, a, x, p = -1;
	bool dbl = t == VGPU_T_F64;
	union { float f; uint32_t u; } fi = { .f = __builtin_inff() }, fm = { .f = 0x1p-126f };
	union { double f; uint64_t u; } di = { .f = __builtin_inf() }, dm = { .f = 0x1p-1022 };
	uint64_t inf = dbl ? di.u : fi.u, mn = dbl ? dm.u : fm.u;
	struct ins *in;

	ptx_check_mods(P, w);
	nops(P, n, 2, "testp");
	if (op < 0)
		cc_error(P->cc, P->line, "testp needs an operation");
	if (t != VGPU_T_F32 && t != VGPU_T_F64)
		cc_error(P->cc, P->line, "testp needs .f32 or .f64");
	cls = type_cls(t);
	d = ptx_dst_reg(P, &o[0], VC_PRED);
	a = ptx_mat(P, &o[1], t, cls);
	x = ptx_newv(P, cls);
	in = emit_tmp(P, VGPU_OP_ABS, t);
	in->d = x;
	in->a = R(a);
	switch (op) {
	case 0: p = ptx_tsetp(P, t, VGPU_CMP_LT, x, -1, true, inf, 0, -1); break;
	case 1: p = ptx_tsetp(P, t, VGPU_CMP_EQ, x, -1, true, inf, 0, -1); break;
	case 2: p = ptx_tsetp(P, t, VGPU_CMP_NUM, a, a, false, 0, 0, -1); break;
	case 3: p = ptx_tsetp(P, t, VGPU_CMP_NAN, a, a, false, 0, 0, -1); break;
	case 4:
		p = ptx_tsetp(P, t, VGPU_CMP_LT, x, -1, true, inf, 0, -1);
		p = ptx_tsetp(P, t, VGPU_CMP_GE, x, -1, true, mn, VGPU_BOP_AND, p);
		break;
	default:
		p = ptx_tsetp(P, t, VGPU_CMP_NE, x, -1, true, 0, 0, -1);
		p = ptx_tsetp(P, t, VGPU_CMP_LT, x, -1, true, mn, VGPU_BOP_AND, p);
		break;
	}
	in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
	in->d = d;
	in->p = p;
}

void ptx_lower_bits(struct parser *P, struct opword *w, struct pop *o, int n)
{
	const char *b = w->base;
	int t = one_type(P, w), cls = type_cls(t), d, a;
	int mode = !strcmp(b, "prmt") ? ptx_which(w, prmt_modes) : -1;
	struct ins *in;

	ptx_check_mods(P, w);
	if (cls == VC_16 || cls == VC_PRED || vgpu_type_float(t))
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	if (!strcmp(b, "bfe")) {
		nops(P, n, 4, b);
		d = ptx_dst_reg(P, &o[0], cls);
		a = ptx_mat(P, &o[1], t, cls);
		{
			struct opnd c = ptx_srcC(P, &o[3], VGPU_T_U32, VC_32);
			struct bsrc bs = ptx_prepB(P, &o[2], VGPU_T_U32, VC_32);

			in = emit(P, VGPU_OP_BFE, t);
			in->d = d;
			in->a = R(a);
			ptx_applyB(in, bs);
			if (in->b.k == OK_IMM)
				in->b.v = (uint32_t)in->b.v;
			in->c = c;
		}
		return;
	}
	if (!strcmp(b, "bfi")) {
		int bb;

		nops(P, n, 5, b);
		if (o[4].kind != PO_IMM) {
			/* mask = ((1 << len) - 1) << pos; d = (b & ~mask) | (a << pos & mask) */
			int wt = vgpu_type_is64(t) ? VGPU_T_U64 : VGPU_T_U32, pos, len, one, m, x;

			d = ptx_dst_reg(P, &o[0], cls);
			a = ptx_mat(P, &o[1], t, cls);
			bb = ptx_mat(P, &o[2], t, cls);
			pos = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32, ptx_mat(P, &o[3], VGPU_T_U32, VC_32), -1,
				 true, 0xff);
			len = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32, ptx_mat(P, &o[4], VGPU_T_U32, VC_32), -1,
				 true, 0xff);
			one = ptx_t2(P, VGPU_OP_MOV, wt, -1, -1, true, 1);
			m = ptx_t2(P, VGPU_OP_SHL, wt, one, len, false, 0);
			m = ptx_t2(P, VGPU_OP_SUB, wt, m, -1, true, 1);
			m = ptx_t2(P, VGPU_OP_SHL, wt, m, pos, false, 0);
			x = ptx_t2(P, VGPU_OP_SHL, wt, a, pos, false, 0);
			x = ptx_t2(P, VGPU_OP_AND, wt, x, m, false, 0);
			m = ptx_t2(P, VGPU_OP_NOT, wt, m, -1, false, 0);
			m = ptx_t2(P, VGPU_OP_AND, wt, bb, m, false, 0);
			m = ptx_t2(P, VGPU_OP_OR, wt, m, x, false, 0);
			ptx_dmov(P, d, m, wt);
			return;
		}
		d = ptx_dst_reg(P, &o[0], cls);
		a = ptx_mat(P, &o[1], t, cls);
		bb = ptx_mat(P, &o[2], t, cls);
		{
			struct opnd c = ptx_srcC(P, &o[3], VGPU_T_U32, VC_32);

			in = emit(P, VGPU_OP_BFI, t);
			in->d = d;
			in->a = R(a);
			in->b = R(bb);
			in->c = c;
		}
		in->mod = o[4].iv > 64 ? 64 : (uint16_t)o[4].iv;
		return;
	}
	if (!strcmp(b, "prmt")) {
		nops(P, n, 4, b);
		if (t != VGPU_T_U32)
			cc_error(P->cc, P->line, "prmt needs .b32");
		if (mode >= 0) {
			/* the mode's byte selectors for c[1:0], as a default-mode selector */
			uint64_t tab = 0;
			int sel, bb2;

			for (int k = 0; k < 4; k++)
				tab |= (uint64_t)prmt_sel(mode, k) << (16 * k);
			d = ptx_dst_reg(P, &o[0], VC_32);
			a = ptx_mat(P, &o[1], t, VC_32);
			bb2 = ptx_mat(P, &o[2], t, VC_32);
			if (o[3].kind == PO_IMM) {
				sel = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true,
					 prmt_sel(mode, (int)(o[3].iv & 3)));
			} else {
				int sh = ptx_t2(P, VGPU_OP_AND, VGPU_T_U32,
					    ptx_mat(P, &o[3], VGPU_T_U32, VC_32), -1, true, 3);
				int tb = ptx_t2(P, VGPU_OP_MOV, VGPU_T_U64, -1, -1, true, tab);

				sh = ptx_t2(P, VGPU_OP_SHL, VGPU_T_U32, sh, -1, true, 4);
				tb = ptx_t2(P, VGPU_OP_SHR, VGPU_T_U64, tb, sh, false, 0);
				sel = ptx_newv(P, VC_32);
				in = emit_tmp(P, VGPU_OP_UNPK, VGPU_T_U32);
				in->d = sel;
				in->a = R(tb);
			}
			in = emit(P, VGPU_OP_PRMT, t);
			in->d = d;
			in->a = R(a);
			in->b = R(bb2);
			in->c = R(sel);
			return;
		}
		d = ptx_dst_reg(P, &o[0], VC_32);
		a = ptx_mat(P, &o[1], t, VC_32);
		{
			int bb = ptx_mat(P, &o[2], t, VC_32);
			struct opnd c = ptx_srcC(P, &o[3], t, VC_32);

			in = emit(P, VGPU_OP_PRMT, t);
			in->d = d;
			in->a = R(a);
			in->b = R(bb);
			in->c = c;
		}
		return;
	}
	cc_error(P->cc, P->line, "unsupported instruction '%s'", b);
}

void ptx_lower_setp(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const bops[] = { "and", "or", "xor", NULL };
	static const int mirror[] = { 0, 1, 4, 5, 2, 3, 6, 7, 10, 11, 8, 9, 12, 13 };
	int t = one_type(P, w), wt, cmp, bop, p, q = -1, a;
	bool ftz;
	struct ins *in;

	cmp = ptx_which(w, cmp_names);
	if (cmp < 0)
		cc_error(P->cc, P->line, "setp needs a comparison");
	bop = ptx_which(w, bops) + 1;
	ftz = has(w, "ftz");
	ptx_check_mods(P, w);
	if (cmp >= 14) {
		/* lo ls hi hs: unsigned lt le gt ge */
		cmp = VGPU_CMP_LT + (cmp - 14);
		if (t == VGPU_T_S32) t = VGPU_T_U32;
		if (t == VGPU_T_S64) t = VGPU_T_U64;
		if (t == VGPU_T_S16) t = VGPU_T_U16;
	}
	if (cmp >= VGPU_CMP_EQU && !vgpu_type_float(t))
		cc_error(P->cc, P->line, "unordered comparison needs a float type");
	if (t == VGPU_T_PRED || t == VGPU_T_U8 || t == VGPU_T_S8)
		cc_error(P->cc, P->line, "unsupported type for setp");
	nops(P, n, bop ? 4 : 3, "setp");
	if (o[0].kind != PO_REG)
		ptx_bad_operand(P, &o[0], "a predicate");
	p = o[0].r;
	ptx_check_cls(P, &o[0], p, VC_PRED);
	if (o[0].r2 >= 0) {
		q = o[0].r2;
		ptx_check_cls(P, &o[0], q, VC_PRED);
	}
	wt = ptx_wide_type(t);
	ptx_narrow_src(P, &o[1], t);
	ptx_narrow_src(P, &o[2], t);
	if (o[1].kind == PO_IMM && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
		cmp = mirror[cmp];
	}
	a = ptx_mat(P, &o[1], wt, type_cls(wt));
	{
		struct bsrc bs = ptx_prepB(P, &o[2], wt, type_cls(wt));

		in = emit(P, VGPU_OP_SETP, wt);
		ptx_applyB(in, bs);
	}
	in->d = p;
	in->q = q;
	in->a = R(a);
	in->mod = VGPU_M_SETP(cmp, bop, 0, 0, 0, ftz);
	if (bop) {
		if (o[3].kind != PO_REG)
			ptx_bad_operand(P, &o[3], "a predicate");
		ptx_check_cls(P, &o[3], o[3].r, VC_PRED);
		in->p = o[3].r;
		in->pneg = o[3].neg;
	}
}

void ptx_lower_selp(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w), cls = type_cls(t), d, a;
	bool neg;
	struct ins *in;

	ptx_check_mods(P, w);
	nops(P, n, 4, "selp");
	if (t == VGPU_T_PRED)
		cc_error(P->cc, P->line, "selp.pred is not valid");
	d = ptx_dst_reg(P, &o[0], cls);
	if (o[3].kind != PO_REG)
		ptx_bad_operand(P, &o[3], "a predicate");
	ptx_check_cls(P, &o[3], o[3].r, VC_PRED);
	neg = o[3].neg;
	if (o[1].kind == PO_IMM && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
		neg = !neg;
	}
	a = ptx_mat(P, &o[1], t, cls == VC_16 ? VC_32 : cls);
	{
		struct bsrc bs = ptx_prepB(P, &o[2], t, cls == VC_16 ? VC_32 : cls);

		in = emit(P, VGPU_OP_SELP, cls == VC_64 ? VGPU_T_U64 : VGPU_T_U32);
		ptx_applyB(in, bs);
	}
	in->d = d;
	in->a = R(a);
	in->p = o[3].r;
	in->pneg = neg;
}

/* The declared type letter of PTX register vreg @v ('b', 'u', 's', 'f', 'p'). */
static char reg_kind(struct parser *P, int v)
{
	for (size_t i = P->ndecls; i-- > 0;) {
		const struct rdecl *d = &P->decls[i];

		if (v >= d->base && v < d->base + (d->count < 0 ? 1 : d->count))
			return d->kind;
	}
	return 'b';
}

/*
 * Whether cvt operand @o is a 64-bit register for a narrower type @t: PTX
 * lets cvt (like ld and st) name a register wider than its type ("Operand
 * size exceeding instruction-type size"): a source is truncated to the
 * type, a destination is sign-extended for a signed integer type and
 * zero-extended otherwise. A bit-size register may be used with any type,
 * an integer register with integer types; a float register must match a
 * float type exactly.
 */
static bool cvt_wider(struct parser *P, const struct pop *o, int t, bool src)
{
	char k;

	if (o->kind != PO_REG || vcls(P, o->r) != VC_64 || type_cls(t) == VC_64)
		return false;
	k = reg_kind(P, o->r);
	if (k == 'f' || (k != 'b' && (vgpu_type_float(t) || t == VGPU_T_F16)))
		cc_error(P->cc, o->line ? o->line : P->line,
			 "cvt: %s register is wider than the %s type (PTX allows a wider "
			 "operand only for a bit-size register, or an integer register "
			 "with an integer type)", k == 'f' ? "a .f64" : k == 's' ?
			 "a .s64" : "a .u64", src ? "source" : "destination");
	return true;
}

void ptx_lower_cvt(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ir[] = { "rni", "rzi", "rmi", "rpi", NULL };
	static const int irv[] = { VGPU_RND_RN, VGPU_RND_RZ, VGPU_RND_RM, VGPU_RND_RP };
	int dt, st, rnd = 0, rint = 0, sat, ftz, d, a, i;
	struct ins *in;
	bool wd;

	nops(P, n, 2, "cvt");
	if (w->ntypes != 2)
		cc_error(P->cc, P->line, "cvt needs two types");
	dt = w->types[0];
	st = w->types[1];
	if (dt == VGPU_T_PRED || st == VGPU_T_PRED)
		cc_error(P->cc, P->line, "unsupported type for cvt");
	i = ptx_which(w, ir);
	if (i >= 0) {
		rnd = irv[i];
		rint = 1;
	} else {
		rnd = ptx_float_rnd(w);
	}
	sat = has(w, "sat");
	ftz = has(w, "ftz");
	ptx_check_mods(P, w);
	if ((vgpu_type_float(st) || st == VGPU_T_F16) && !vgpu_type_float(dt) &&
	    dt != VGPU_T_F16 && !rint)
		cc_error(P->cc, P->line, "float to integer cvt needs an integer rounding modifier");
	wd = cvt_wider(P, &o[0], dt, false);
	if (wd)
		d = ptx_newv(P, VC_32);	/* extended into the 64-bit register below */
	else
		d = ptx_dst_reg(P, &o[0], type_cls(dt) == VC_16 && o[0].kind == PO_REG &&
				vcls(P, o[0].r) == VC_32 ? VC_32 : type_cls(dt));
	if (cvt_wider(P, &o[1], st, true)) {
		/* the low bits of a wider source (PTX "operand size exceeding
		 * instruction-type size"): the low half, narrowed by the CVT */
		a = ptx_newv(P, VC_32);
		in = emit_tmp(P, VGPU_OP_UNPK, VGPU_T_U32);
		in->d = a;
		in->a = R(o[1].r);
	} else if (o[1].kind == PO_REG) {
		a = o[1].r, ptx_check_cls(P, &o[1], a, type_cls(st) == VC_16 ? VC_32 : type_cls(st));
	} else {
		a = ptx_mat(P, &o[1], st, type_cls(st) == VC_64 ? VC_64 : VC_32);
	}
	in = wd ? emit_tmp(P, VGPU_OP_CVT, dt) : emit(P, VGPU_OP_CVT, dt);
	in->d = d;
	in->a = R(a);
	in->mod = VGPU_M_CVT(st, rnd, rint, sat, ftz);
	if (wd) {
		/* a wider destination: sign-extended for a signed integer type,
		 * zero-extended otherwise */
		bool sx = vgpu_type_signed(dt) && !vgpu_type_float(dt);

		in = emit(P, VGPU_OP_CVT, sx ? VGPU_T_S64 : VGPU_T_U64);
		in->d = o[0].r;
		in->a = R(d);
		in->mod = VGPU_M_CVT(sx ? VGPU_T_S32 : VGPU_T_U32, 0, 0, 0, 0);
		return;
	}
	if (d >= 0 && vcls(P, d) == VC_16 && (dt == VGPU_T_S8 || dt == VGPU_T_S16))
		ptx_zext16(P, d);
}

/* A 16-bit f16 value widened to f32 (exact) or f64 into a fresh register. */
static int f16_widen(struct parser *P, struct pop *o, int to)
{
	int v = ptx_mat(P, o, VGPU_T_F16, VC_32), r = ptx_newv(P, to == VGPU_T_F64 ? VC_64 : VC_32);
	struct ins *in = emit_tmp(P, VGPU_OP_CVT, to);

	in->d = r;
	in->a = R(v);
	in->mod = VGPU_M_CVT(VGPU_T_F16, 0, 0, 0, 0);
	return r;
}

/*
 * f16 arithmetic: the operands are widened (exactly) to f32, the operation
 * is done there with round-to-nearest and the result rounded to f16 (an
 * f32 intermediate holds 2 * 11 + 2 bits, so add, sub, mul, min, max round
 * as if done in f16 directly); fma in f64. neg/abs flip / clear the sign
 * bit; setp compares the widened values. .ftz and packed .f16x2 are errors.
 */
void ptx_lower_f16(struct parser *P, struct opword *w, struct pop *o, int n)
{
	const char *b = w->base;
	bool fma = !strcmp(b, "fma"), wide = fma;
	int wt = wide ? VGPU_T_F64 : VGPU_T_F32, d = -1, tmp;
	struct ins *in;

	if (w->ntypes != 1)
		cc_error(P->cc, P->line, "unsupported types for '%s' with .f16", b);
	if (has(w, "ftz"))
		cc_error(P->cc, P->line, "'.ftz' on f16 arithmetic is not supported");
	if (!strcmp(b, "neg") || !strcmp(b, "abs")) {
		int a;

		ptx_check_mods(P, w);
		nops(P, n, 2, b);
		d = ptx_dst_reg(P, &o[0], VC_16);
		a = ptx_mat(P, &o[1], VGPU_T_F16, VC_32);
		in = emit(P, b[0] == 'n' ? VGPU_OP_XOR : VGPU_OP_AND, VGPU_T_U32);
		in->d = d;
		in->a = R(a);
		ptx_set_bimm(in, b[0] == 'n' ? 0x8000 : 0x7fff, VGPU_T_U32);
		return;
	}
	if (strcmp(b, "add") && strcmp(b, "sub") && strcmp(b, "mul") && !fma &&
	    strcmp(b, "min") && strcmp(b, "max") && strcmp(b, "setp"))
		cc_error(P->cc, P->line, "unsupported instruction '%s' with .f16", b);
	for (int i = 1; i < n; i++) {
		if (!strcmp(b, "setp") && i == 3)
			break;	/* the predicate combined with */
		if (o[i].kind != PO_REG && o[i].kind != PO_IMM)
			ptx_bad_operand(P, &o[i], "a register or a constant");
		o[i].r = f16_widen(P, &o[i], wt);
		o[i].kind = PO_REG;
	}
	w->types[0] = wt;
	if (!strcmp(b, "setp")) {
		ptx_lower_setp(P, w, o, n);
		return;
	}
	if (o[0].kind != PO_SINK)
		d = ptx_dst_reg(P, &o[0], VC_16);
	tmp = ptx_newv(P, wide ? VC_64 : VC_32);
	o[0].kind = PO_REG;
	o[0].r = tmp;
	{
		bool sat = has(w, "sat");

		/* the operation, unguarded into tmp, then the rounding, guarded */
		int g = P->guard;

		P->guard = -1;
		ptx_lower_arith(P, w, o, n);
		P->guard = g;
		if (d >= 0) {
			in = emit(P, VGPU_OP_CVT, VGPU_T_F16);
			in->d = d;
			in->a = R(tmp);
			in->mod = VGPU_M_CVT(wt, VGPU_RND_RN, 0, sat, 0);
		}
	}
}
