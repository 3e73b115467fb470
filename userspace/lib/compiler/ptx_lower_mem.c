// SPDX-License-Identifier: MIT
/*
 * ptx_lower_mem.c - lowering of PTX's memory instructions: addresses and state spaces, ld/st,
 * atom/red.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

/* Memory address operand -> base vreg (or -1), offset, a64, rel, space. */
static void mem_addr(struct parser *P, struct pop *o, int *space, int *base,
		     int64_t *off, bool *a64, bool *rel, bool *fix)
{
	*base = -1;
	*off = o->aoff;
	*a64 = true;
	*rel = false;
	*fix = false;
	if (o->kind != PO_ADDR)
		ptx_bad_operand(P, o, "an address [..]");
	if (o->abase == PO_REG) {
		int c = vcls(P, o->r);

		if (c == VC_PRED || c == VC_16)
			cc_error(P->cc, o->line, "address register must be 32 or 64 bits");
		*base = o->r;
		*a64 = c == VC_64;
		/* the entry's parameters through a register: the register can only
		 * hold an entry parameter's address (taking the address of a call's
		 * .param is refused in sym_addr) */
		if (*space == VGPU_SP_PARAM && P->nframes)
			cc_error(P->cc, o->line,
				 "param space through a register inside a .func is not supported");
		return;
	}
	if (o->abase == PO_IMM)
		return;
	if (o->sym.kind == SY_PARAM) {
		if (*space != VGPU_SP_PARAM)
			cc_error(P->cc, o->line, "'%s' is a parameter", o->name);
		*off += o->sym.param->offset;
		return;
	}
	{
		struct var *v = o->sym.var;

		if (*space == VGPU_SP_GENERIC)
			*space = v->space == VGPU_SP_CONST ? VGPU_SP_GLOBAL : v->space;
		if (v->space == VGPU_SP_CONST && *space == VGPU_SP_GLOBAL) {
			*rel = true;
		} else if (v->space != *space) {
			cc_error(P->cc, o->line, "'%s' is not in the instruction's state space",
				 o->name);
		} else if (v->space == VGPU_SP_GLOBAL) {
			*rel = true;
		}
		if (v->space == VGPU_SP_SHARED && v->external)
			*fix = true;
		*off += v->offset;
	}
}

void ptx_set_mem_off(struct parser *P, struct ins *in, int64_t off, bool fix,
		     bool atom)
{
	if (off < INT32_MIN || off > INT32_MAX)
		cc_error(P->cc, P->line, "address offset out of range");
	in->off = off;
	if (fix) {
		P->fix = cc_grow(P->cc, P->fix, &P->fcap, P->nfix + 1, sizeof(*P->fix));
		P->fix[P->nfix++] = (struct fixup){ (int)P->e->nins - 1, (uint32_t)off, true };
		in->x = true;
	} else if (atom || in->nvec > 1 || off < -128 || off > 127) {
		if (off)
			in->x = true;
	}
	if (in->nvec > 1)
		in->x = true;
}

static const char *const space_names[] = { "global", "shared", "local", "param", "const", NULL };
static const int space_vals[] = { VGPU_SP_GLOBAL, VGPU_SP_SHARED, VGPU_SP_LOCAL,
				  VGPU_SP_PARAM, VGPU_SP_CONST };

static int mem_space(struct parser *P, struct opword *w)
{
	int s;

	if (has(w, "shared::cta"))
		return VGPU_SP_SHARED;
	if (has(w, "shared::cluster"))
		cc_error(P->cc, P->line, "cluster shared memory is not supported");
	s = ptx_which(w, space_names);
	return s < 0 ? VGPU_SP_GENERIC : space_vals[s];
}

void ptx_lower_ldst(struct parser *P, struct opword *w, struct pop *o, int n, bool st)
{
	static const char *const vs[] = { "v2", "v4", NULL };
	int space, base, t, lsz, lvec, nv, cls, rt;
	bool a64, rel, fix, sx;
	int64_t off;
	struct pop *data = st ? &o[1] : &o[0], *addr = st ? &o[0] : &o[1];
	struct ins *in;
	int regs[4] = { -1, -1, -1, -1 };

	space = mem_space(P, w);
	lvec = ptx_which(w, vs) + 1;
	nv = 1 << lvec;
	ptx_ignore_hints(w);
	t = one_type(P, w);
	ptx_check_mods(P, w);
	nops(P, n, 2, w->base);
	if (t == VGPU_T_PRED)
		cc_error(P->cc, P->line, "unsupported type for '%s'", w->base);
	if (space == VGPU_SP_PARAM && addr->kind == PO_ADDR && addr->abase == PO_SYM &&
	    addr->sym.kind == SY_VAR && addr->sym.var->pslot)
		space = VGPU_SP_LOCAL;	/* argument / return value of an inlined call */
	if (st && space == VGPU_SP_PARAM)
		cc_error(P->cc, P->line, "st.param is not supported outside calls");
	if (st && space == VGPU_SP_CONST)
		cc_error(P->cc, P->line, "st.const is not valid");
	lsz = vgpu_type_bits(t) == 8 ? 0 : vgpu_type_bits(t) == 16 ? 1 :
	      vgpu_type_bits(t) == 32 ? 2 : 3;
	/* data registers */
	if (nv > 1) {
		if (data->kind != PO_VEC || data->nvec != nv)
			ptx_bad_operand(P, data, "a vector of registers");
		for (int i = 0; i < nv; i++)
			regs[i] = data->vec[i];
	} else if (st && data->kind != PO_REG) {
		regs[0] = -3;	/* materialised below */
	} else if (data->kind == PO_SINK) {
		regs[0] = -1;
	} else {
		if (data->kind != PO_REG)
			ptx_bad_operand(P, data, "a register");
		regs[0] = data->r;
	}
	cls = -1;
	for (int i = 0; i < nv; i++) {
		int c;

		if (regs[i] < 0)
			continue;
		c = vcls(P, regs[i]);
		if (c == VC_PRED)
			cc_error(P->cc, P->line, "predicate in a memory operation");
		if (cls >= 0 && (c == VC_64) != (cls == VC_64))
			cc_error(P->cc, P->line, "mixed register sizes in a vector");
		cls = c;
	}
	if (cls < 0)
		cls = type_cls(t) == VC_64 ? VC_64 : VC_32;
	if (lsz == 3 && cls != VC_64)
		cc_error(P->cc, P->line, "64-bit memory type needs 64-bit registers");
	rt = cls == VC_64 ? VGPU_T_U64 : VGPU_T_U32;
	sx = vgpu_type_signed(t) && lsz < (cls == VC_64 ? 3 : 2);
	if (regs[0] == -3) {
		/* constant store data */
		regs[0] = ptx_mat(P, data, t, cls == VC_16 ? VC_32 : cls);
	}
	if (st && nv > 1) {
		for (int i = 0; i < nv; i++)
			if (regs[i] < 0)
				ptx_bad_operand(P, data, "registers");
	}
	mem_addr(P, addr, &space, &base, &off, &a64, &rel, &fix);
	in = emit(P, st ? VGPU_OP_ST : VGPU_OP_LD, rt);
	/*
	 * ld.global.nc promises the data is read-only for the kernel's whole
	 * run (nvcc emits it for const __restrict__ pointers): no store of the
	 * kernel can overwrite it, whatever the aliasing.
	 */
	in->nc = !st && has(w, "nc");
	in->a = base >= 0 ? R(base) : (struct opnd){ 0 };
	in->mod = VGPU_M_MEM(space, lsz, lvec, sx, a64, rel);
	if (nv > 1) {
		in->nvec = nv;
		for (int i = 0; i < nv; i++)
			in->vec[i] = regs[i];
	} else if (st) {
		in->c = R(regs[0]);
	} else {
		in->d = regs[0];
	}
	ptx_set_mem_off(P, in, off, fix, false);
	if (!st && sx) {
		for (int i = 0; i < nv; i++)
			ptx_zext16(P, regs[i]);
	}
}

void ptx_lower_atom(struct parser *P, struct opword *w, struct pop *o, int n, bool red)
{
	static const char *const ops[] = { "add", "min", "max", "exch", "cas", "and", "or",
					   "xor", "inc", "dec", NULL };
	int space, aop, t, cls, base, d = -1, k = red ? 0 : 1;
	bool a64, rel, fix, ok;
	int64_t off;
	struct ins *in;
	struct opnd b, c = { 0 };

	space = mem_space(P, w);
	if (space != VGPU_SP_GLOBAL && space != VGPU_SP_SHARED && space != VGPU_SP_GENERIC)
		cc_error(P->cc, P->line, "atomic in an unsupported state space");
	aop = ptx_which(w, ops);
	if (aop < 0)
		cc_error(P->cc, P->line, "unsupported atomic operation");
	ptx_ignore_hints(w);
	t = one_type(P, w);
	ptx_check_mods(P, w);
	switch (aop) {
	case VGPU_ATOM_ADD:
		ok = t == VGPU_T_U32 || t == VGPU_T_S32 || t == VGPU_T_U64 ||
		     t == VGPU_T_F32 || t == VGPU_T_F64;
		break;
	case VGPU_ATOM_MIN: case VGPU_ATOM_MAX:
		ok = t == VGPU_T_U32 || t == VGPU_T_S32 || t == VGPU_T_U64 || t == VGPU_T_S64;
		break;
	case VGPU_ATOM_INC: case VGPU_ATOM_DEC:
		ok = t == VGPU_T_U32;
		break;
	default:
		ok = t == VGPU_T_U32 || t == VGPU_T_U64 || (aop == VGPU_ATOM_EXCH &&
							    (t == VGPU_T_S32 || t == VGPU_T_F32));
		break;
	}
	if (!ok)
		cc_error(P->cc, P->line, "unsupported type for atomic operation");
	nops(P, n, k + 2 + (aop == VGPU_ATOM_CAS), red ? "red" : "atom");
	if (red && aop == VGPU_ATOM_CAS)
		cc_error(P->cc, P->line, "red.cas is not valid");
	cls = type_cls(t);
	if (!red)
		d = ptx_dst_reg(P, &o[0], cls);
	mem_addr(P, &o[k], &space, &base, &off, &a64, &rel, &fix);
	if (space != VGPU_SP_GLOBAL && space != VGPU_SP_SHARED && space != VGPU_SP_GENERIC)
		cc_error(P->cc, P->line, "atomic in an unsupported state space");
	b = ptx_srcC(P, &o[k + 1], t, cls);
	if (aop == VGPU_ATOM_CAS)
		c = ptx_srcC(P, &o[k + 2], t, cls);
	in = emit(P, VGPU_OP_ATOM, t);
	in->d = d;
	in->a = base >= 0 ? R(base) : (struct opnd){ 0 };
	in->b = b;
	in->c = c;
	in->mod = VGPU_M_ATOM(space, aop, a64, rel);
	ptx_set_mem_off(P, in, off, fix, true);
}
