// SPDX-License-Identifier: MIT
/*
 * ptx_operand.c - PTX types, virtual registers, instructions emitted, operands parsed and
 * materialised, and opcode words split into base and modifiers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

int ptx_type(const char *s, size_t n, bool *unsupported)
{
	static const struct { const char *n; int t; } tt[] = {
		{ "u8", VGPU_T_U8 }, { "s8", VGPU_T_S8 }, { "b8", VGPU_T_U8 },
		{ "u16", VGPU_T_U16 }, { "s16", VGPU_T_S16 }, { "b16", VGPU_T_U16 },
		{ "u32", VGPU_T_U32 }, { "s32", VGPU_T_S32 }, { "b32", VGPU_T_U32 },
		{ "u64", VGPU_T_U64 }, { "s64", VGPU_T_S64 }, { "b64", VGPU_T_U64 },
		{ "f32", VGPU_T_F32 }, { "f64", VGPU_T_F64 }, { "pred", VGPU_T_PRED },
		{ "f16", VGPU_T_F16 },
	};
	static const char *const bad[] = {
		"f16x2", "bf16", "bf16x2", "b128", "tf32", "e4m3", "e5m2",
		"e4m3x2", "e5m2x2", "u16x2", "s16x2", NULL,
	};

	*unsupported = false;
	for (size_t i = 0; i < sizeof(tt) / sizeof(tt[0]); i++)
		if (strlen(tt[i].n) == n && !memcmp(tt[i].n, s, n))
			return tt[i].t;
	for (int i = 0; bad[i]; i++)
		if (strlen(bad[i]) == n && !memcmp(bad[i], s, n))
			*unsupported = true;
	return -1;
}

int ptx_newv(struct parser *P, int cls)
{
	struct entry *e = P->e;

	e->vregs = cc_grow(P->cc, e->vregs, &e->vcap, e->nvregs + 1, sizeof(*e->vregs));
	e->vregs[e->nvregs] = (struct vreg){ .cls = cls, .phys = -1, .start = -1, .end = -1 };
	if (e->nvregs >= 1000000)
		cc_error(P->cc, P->line, "too many registers");
	return (int)e->nvregs++;
}

struct ins *ptx_emit_raw(struct parser *P, int op, int type, bool guarded)
{
	struct entry *e = P->e;
	struct ins *in;

	e->ins = cc_grow(P->cc, e->ins, &e->cap, e->nins + 1, sizeof(*e->ins));
	in = &e->ins[e->nins++];
	ins_init(in, op, type, P->line);
	in->g = guarded ? P->guard : -1;
	in->gneg = guarded && P->gneg;
	return in;
}

static bool fits8(uint64_t v, bool w64)
{
	int64_t s = w64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;

	return s >= -128 && s <= 127;
}

/* Sets B to an immediate, choosing the short form when it fits. */
void ptx_set_bimm(struct ins *in, uint64_t v, int type)
{
	bool w64 = vgpu_type_is64(type);

	if (!w64)
		v = (uint32_t)v;
	in->b = I(v);
	if (vgpu_type_float(type) ? v != 0 : !fits8(v, w64))
		in->x = true;
}

static const struct { const char *n; int sr; } sregs[] = {
	{ "%tid.x", VGPU_SR_TID_X }, { "%tid.y", VGPU_SR_TID_Y }, { "%tid.z", VGPU_SR_TID_Z },
	{ "%ntid.x", VGPU_SR_NTID_X }, { "%ntid.y", VGPU_SR_NTID_Y }, { "%ntid.z", VGPU_SR_NTID_Z },
	{ "%ctaid.x", VGPU_SR_CTAID_X }, { "%ctaid.y", VGPU_SR_CTAID_Y },
	{ "%ctaid.z", VGPU_SR_CTAID_Z }, { "%nctaid.x", VGPU_SR_NCTAID_X },
	{ "%nctaid.y", VGPU_SR_NCTAID_Y }, { "%nctaid.z", VGPU_SR_NCTAID_Z },
	{ "%laneid", VGPU_SR_LANEID }, { "%warpid", VGPU_SR_WARPID },
	{ "%nwarpid", VGPU_SR_NWARPID }, { "%smid", VGPU_SR_SMID }, { "%nsmid", VGPU_SR_NSMID },
	{ "%lanemask_eq", VGPU_SR_LANEMASK_EQ }, { "%lanemask_lt", VGPU_SR_LANEMASK_LT },
	{ "%lanemask_le", VGPU_SR_LANEMASK_LE }, { "%lanemask_gt", VGPU_SR_LANEMASK_GT },
	{ "%lanemask_ge", VGPU_SR_LANEMASK_GE }, { "%clock", VGPU_SR_CLOCK },
	{ "%clock64", VGPU_SR_CLOCK64 }, { "%dynamic_smem_size", VGPU_SR_DYN_SMEM },
	{ "%total_smem_size", VGPU_SR_TOTAL_SMEM },
};

int ptx_find_reg(struct parser *P, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = P->ndecls; i-- > 0;) {
		struct rdecl *d = &P->decls[i];
		size_t pl = strlen(d->name);

		if (d->count < 0) {
			if (!strcmp(d->name, name))
				return d->base;
			continue;
		}
		if (n > pl && !strncmp(name, d->name, pl)) {
			const char *s = name + pl;
			char *end;
			unsigned long k;

			if (!isdigit((unsigned char)*s) || (s[0] == '0' && s[1]))
				continue;
			k = strtoul(s, &end, 10);
			if (*end == 0 && k < (unsigned long)d->count)
				return d->base + (int)k;
		}
	}
	return -1;
}

struct var *ptx_find_var(struct var *v, size_t n, const char *name)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* A module-scope static shared variable used by this entry gets its place. */
static struct var *entry_var(struct parser *P, struct var *mv)
{
	struct var *v = ptx_find_var(P->lvars, P->nlvars, mv->name);

	if (v)
		return v;
	P->lvars = cc_grow(P->cc, P->lvars, &P->lvcap, P->nlvars + 1, sizeof(*P->lvars));
	v = &P->lvars[P->nlvars++];
	*v = *mv;
	v->offset = align_up(P->e->shared_static, v->align);
	P->e->shared_static = v->offset + v->size;
	return v;
}

static struct sym lookup_sym(struct parser *P, const char *name)
{
	struct sym s = { 0 };
	struct var *v;

	v = ptx_find_var(P->lvars, P->nlvars, name);
	if (v) {
		s.kind = SY_VAR;
		s.var = v;
		return s;
	}
	for (size_t i = 0; i < P->e->nparams; i++) {
		if (!strcmp(P->e->params[i].name, name)) {
			s.kind = SY_PARAM;
			s.param = &P->e->params[i];
			return s;
		}
	}
	v = ptx_find_var(P->cc->mvars, P->cc->nmvars, name);
	if (v) {
		s.kind = SY_VAR;
		if (v->space == VGPU_SP_SHARED && !v->external)
			v = entry_var(P, v);
		else if (v->space == VGPU_SP_SHARED && v->align > P->extern_align)
			P->extern_align = v->align;
		s.var = v;
	}
	return s;
}

int ptx_label_raw(struct parser *P, const char *name, int line)
{
	struct entry *e = P->e;

	for (size_t i = 0; i < e->nlabels; i++)
		if (!strcmp(e->labels[i].name, name))
			return (int)i;
	e->labels = cc_grow(P->cc, e->labels, &e->lcap, e->nlabels + 1, sizeof(*e->labels));
	ptx_scopy(e->labels[e->nlabels].name, sizeof(e->labels[0].name), name);
	e->labels[e->nlabels].pos = -1;
	e->labels[e->nlabels].line = line;
	return (int)e->nlabels++;
}

/* A label of the source: those of an inlined .func get its frame's prefix. */
int ptx_label_id(struct parser *P, const char *name, int line)
{
	char full[160];

	if (!P->nframes)
		return ptx_label_raw(P, name, line);
	snprintf(full, sizeof(full), "%s%s", P->frames[P->nframes - 1].prefix, name);
	if (strlen(full) >= sizeof(P->e->labels[0].name))
		cc_error(P->cc, line, "label name too long");
	return ptx_label_raw(P, full, line);
}

static void parse_imm(struct parser *P, struct pop *o, bool neg)
{
	struct tok *t = next(P);
	char b[80];

	o->kind = PO_IMM;
	if (t->t != T_WORD || !isdigit((unsigned char)t->s[0]))
		ptx_unexpected(P, t, "an operand");
	ptx_tokstr(t, b, sizeof(b));
	if ((b[1] == 'f' || b[1] == 'F') && b[0] == '0' && t->len == 10) {
		o->fk = 32;
		o->iv = strtoull(b + 2, NULL, 16);
		if (neg)
			o->iv ^= 0x80000000u;
	} else if ((b[1] == 'd' || b[1] == 'D') && b[0] == '0' && t->len == 18) {
		o->fk = 64;
		o->iv = strtoull(b + 2, NULL, 16);
		if (neg)
			o->iv ^= 1ull << 63;
	} else if (ptx_parse_uint(t, &o->iv)) {
		if (neg)
			o->iv = -o->iv;
	} else {
		char *end;

		o->fk = 1;
		o->fv = strtod(b, &end);
		if (*end)
			cc_error(P->cc, t->line, "bad number '%s'", b);
		if (neg)
			o->fv = -o->fv;
	}
}

static void parse_addr(struct parser *P, struct pop *o)
{
	struct tok *t;
	char name[128];

	o->kind = PO_ADDR;
	t = peek(P);
	if (t->t == T_WORD && isdigit((unsigned char)t->s[0])) {
		o->abase = PO_IMM;
		o->aoff = (int64_t)ptx_expect_uint(P);
	} else {
		ptx_name_of(P, next(P), name, sizeof(name));
		o->r = ptx_find_reg(P, name);
		if (o->r >= 0) {
			o->abase = PO_REG;
		} else {
			o->sym = lookup_sym(P, name);
			if (o->sym.kind != SY_PARAM && o->sym.kind != SY_VAR)
				cc_error(P->cc, t->line, "unknown symbol '%s'", name);
			o->abase = PO_SYM;
			ptx_scopy(o->name, sizeof(o->name), name);
		}
	}
	while (is_p(peek(P), '+') || is_p(peek(P), '-')) {
		bool neg = next(P)->ch == '-';
		uint64_t v;

		if (is_p(peek(P), '-')) {
			next(P);
			neg = !neg;
		}
		v = ptx_expect_uint(P);
		o->aoff += neg ? -(int64_t)v : (int64_t)v;
	}
	ptx_expect(P, ']');
}

void ptx_parse_operand(struct parser *P, struct pop *o)
{
	struct tok *t = peek(P);
	char name[128];

	memset(o, 0, sizeof(*o));
	o->r = o->r2 = -1;
	o->line = t->line;
	if (is_p(t, '[')) {
		next(P);
		parse_addr(P, o);
		return;
	}
	if (is_p(t, '{')) {
		next(P);
		o->kind = PO_VEC;
		while (1) {
			if (o->nvec == 4)
				cc_error(P->cc, t->line, "vector of more than 4 elements");
			ptx_name_of(P, next(P), name, sizeof(name));
			if (!strcmp(name, "_")) {
				o->vec[o->nvec++] = -1;
			} else {
				int r = ptx_find_reg(P, name);

				if (r < 0)
					cc_error(P->cc, t->line, "unknown register '%s'", name);
				o->vec[o->nvec++] = r;
			}
			if (is_p(peek(P), '}'))
				break;
			ptx_expect(P, ',');
		}
		next(P);
		return;
	}
	if (is_p(t, '!')) {
		next(P);
		ptx_parse_operand(P, o);
		if (o->kind != PO_REG)
			cc_error(P->cc, t->line, "'!' applies to predicates only");
		o->neg = true;
		return;
	}
	if (is_p(t, '-')) {
		next(P);
		parse_imm(P, o, true);
		return;
	}
	if (t->t == T_WORD && isdigit((unsigned char)t->s[0])) {
		parse_imm(P, o, false);
		return;
	}
	ptx_name_of(P, next(P), name, sizeof(name));
	if (!strcmp(name, "_")) {
		o->kind = PO_SINK;
		return;
	}
	if (name[0] == '%') {
		for (size_t i = 0; i < sizeof(sregs) / sizeof(sregs[0]); i++) {
			if (!strcmp(name, sregs[i].n)) {
				o->kind = PO_SREG;
				o->sreg = sregs[i].sr;
				return;
			}
		}
	}
	o->r = ptx_find_reg(P, name);
	if (o->r >= 0) {
		o->kind = PO_REG;
		if (is_p(peek(P), '|')) {
			next(P);
			ptx_name_of(P, next(P), name, sizeof(name));
			if (!strcmp(name, "_")) {
				o->r2 = -2;
			} else {
				o->r2 = ptx_find_reg(P, name);
				if (o->r2 < 0)
					cc_error(P->cc, t->line, "unknown register '%s'", name);
			}
		}
		return;
	}
	if (name[0] == '%')
		cc_error(P->cc, t->line, "unknown register '%s'", name);
	o->kind = PO_SYM;
	ptx_scopy(o->name, sizeof(o->name), name);
	o->sym = lookup_sym(P, name);
}

_Noreturn void ptx_bad_operand(struct parser *P, const struct pop *o, const char *what)
{
	cc_error(P->cc, o->line ? o->line : P->line, "operand: expected %s", what);
}

uint64_t ptx_imm_value(struct parser *P, const struct pop *o, int type)
{
	union { float f; uint32_t u; } f;
	union { double d; uint64_t u; } d;

	if (type == VGPU_T_F32) {
		if (o->fk == 32)
			return o->iv;
		if (o->fk == 64) {
			d.u = o->iv;
			f.f = (float)d.d;
		} else if (o->fk == 1) {
			f.f = (float)o->fv;
		} else {
			f.f = (float)(int64_t)o->iv;
		}
		return f.u;
	}
	if (type == VGPU_T_F64) {
		if (o->fk == 64)
			return o->iv;
		if (o->fk == 32) {
			f.u = (uint32_t)o->iv;
			d.d = f.f;
		} else if (o->fk == 1) {
			d.d = o->fv;
		} else {
			d.d = (double)(int64_t)o->iv;
		}
		return d.u;
	}
	if (o->fk == 1)
		cc_error(P->cc, o->line, "floating-point literal for an integer operand");
	switch (type) {
	case VGPU_T_U8: return (uint8_t)o->iv;
	case VGPU_T_S8: return (uint64_t)(int64_t)(int8_t)o->iv;
	case VGPU_T_U16: return (uint16_t)o->iv;
	case VGPU_T_S16: return (uint64_t)(int64_t)(int16_t)o->iv;
	default: return o->iv;
	}
}

void ptx_check_cls(struct parser *P, const struct pop *o, int v, int cls)
{
	int c = vcls(P, v);

	if (cls == VC_PRED || c == VC_PRED) {
		if (c != cls)
			cc_error(P->cc, o->line, "operand: predicate/register mismatch");
		return;
	}
	if ((c == VC_64) != (cls == VC_64))
		cc_error(P->cc, o->line, "operand: register size does not match the type");
}

static int reg_type(int cls)
{
	return cls == VC_64 ? VGPU_T_U64 : VGPU_T_U32;
}

/* The address of a symbol into a fresh register of class @cls. */
int ptx_sym_addr(struct parser *P, const struct pop *o, int cls, int64_t add)
{
	int v = ptx_newv(P, cls);
	struct ins *in;

	if (o->sym.kind == SY_PARAM) {
		in = emit_tmp(P, VGPU_OP_MOV, reg_type(cls));
		ptx_set_bimm(in, o->sym.param->offset + add, in->type);
	} else if (o->sym.kind == SY_VAR) {
		struct var *var = o->sym.var;

		if (var->pslot)
			cc_error(P->cc, o->line, "the address of call parameter '%s' is not supported",
				 o->name);
		if (var->space == VGPU_SP_GLOBAL) {
			if (cls != VC_64)
				cc_error(P->cc, o->line, "address of '%s' needs a 64-bit register",
					 o->name);
			in = emit_tmp(P, VGPU_OP_LEAD, VGPU_T_U64);
			in->b = I(var->offset + add);
			in->x = true;
		} else {
			in = emit_tmp(P, VGPU_OP_MOV, reg_type(cls));
			if (var->space == VGPU_SP_SHARED && var->external) {
				P->fix = cc_grow(P->cc, P->fix, &P->fcap, P->nfix + 1, sizeof(*P->fix));
				P->fix[P->nfix++] = (struct fixup){ (int)P->e->nins - 1,
								    (uint32_t)add, false };
				in->b = I(0);
				in->x = true;
			} else {
				ptx_set_bimm(in, var->offset + add, in->type);
			}
		}
	} else {
		cc_error(P->cc, o->line, "unknown symbol '%s'", o->name);
	}
	in->d = v;
	return v;
}

/* Any operand into a register of class @cls holding a value of @type. */
int ptx_mat(struct parser *P, const struct pop *o, int type, int cls)
{
	struct ins *in;
	int v;

	switch (o->kind) {
	case PO_REG:
		ptx_check_cls(P, o, o->r, cls);
		return o->r;
	case PO_IMM:
		v = ptx_newv(P, cls);
		in = emit_tmp(P, VGPU_OP_MOV, reg_type(cls) == VGPU_T_U64 &&
			      vgpu_type_float(type) ? VGPU_T_F64 :
			      reg_type(cls) == VGPU_T_U32 && vgpu_type_float(type) ?
			      VGPU_T_F32 : reg_type(cls));
		ptx_set_bimm(in, ptx_imm_value(P, o, type), in->type);
		in->d = v;
		return v;
	case PO_SREG:
		v = ptx_newv(P, cls);
		in = emit_tmp(P, VGPU_OP_S2R, reg_type(cls));
		in->mod = o->sreg;
		in->d = v;
		return v;
	case PO_SYM:
		return ptx_sym_addr(P, o, cls, 0);
	default:
		ptx_bad_operand(P, o, "a register or a constant");
	}
}

struct bsrc ptx_prepB(struct parser *P, const struct pop *o, int type, int cls)
{
	if (o->kind == PO_IMM)
		return (struct bsrc){ .imm = true, .v = ptx_imm_value(P, o, type), .type = type };
	return (struct bsrc){ .r = ptx_mat(P, o, type, cls) };
}

void ptx_applyB(struct ins *in, struct bsrc b)
{
	if (b.imm) {
		ptx_set_bimm(in, b.v, in->type);
		if (vgpu_type_float(b.type) && b.v)
			in->x = true;
	} else {
		in->b = R(b.r);
	}
}

/* Operand for slot C: a register or a small integer immediate. */
struct opnd ptx_srcC(struct parser *P, const struct pop *o, int type, int cls)
{
	if (o->kind == PO_IMM && !vgpu_type_float(type)) {
		uint64_t v = ptx_imm_value(P, o, type);

		if (fits8(v, cls == VC_64))
			return I(v);
	}
	return R(ptx_mat(P, o, type, cls));
}

int ptx_dst_reg(struct parser *P, const struct pop *o, int cls)
{
	if (o->kind == PO_SINK)
		return -1;
	if (o->kind != PO_REG)
		ptx_bad_operand(P, o, "a destination register");
	ptx_check_cls(P, o, o->r, cls);
	return o->r;
}

/* Keeps the invariant that a 16-bit register holds its value zero-extended. */
void ptx_zext16(struct parser *P, int d)
{
	struct ins *in;

	if (d < 0 || vcls(P, d) != VC_16)
		return;
	in = emit(P, VGPU_OP_AND, VGPU_T_U32);
	in->d = d;
	in->a = R(d);
	ptx_set_bimm(in, 0xffff, VGPU_T_U32);
}

/* A 16/8-bit signed source, sign-extended to 32 bits. */
static int sext_src(struct parser *P, const struct pop *o, int t16)
{
	struct ins *in;
	int v, s;

	if (o->kind == PO_IMM) {
		v = ptx_newv(P, VC_32);
		in = emit_tmp(P, VGPU_OP_MOV, VGPU_T_U32);
		ptx_set_bimm(in, ptx_imm_value(P, o, t16), VGPU_T_U32);
		in->d = v;
		return v;
	}
	s = ptx_mat(P, o, t16, VC_32);
	v = ptx_newv(P, VC_32);
	in = emit_tmp(P, VGPU_OP_CVT, VGPU_T_S32);
	in->mod = VGPU_M_CVT(t16, 0, 0, 0, 0);
	in->a = R(s);
	in->d = v;
	return v;
}

/* Source operands of a narrow op: signed narrow values are sign-extended. */
void ptx_narrow_src(struct parser *P, struct pop *o, int t)
{
	if ((t == VGPU_T_S16 || t == VGPU_T_S8) && o->kind != PO_SINK) {
		int v = sext_src(P, o, t);

		o->kind = PO_REG;
		o->r = v;
	} else if (o->kind == PO_IMM && (t == VGPU_T_U16 || t == VGPU_T_U8)) {
		o->iv = ptx_imm_value(P, o, t);
	}
}

int ptx_wide_type(int t)
{
	switch (t) {
	case VGPU_T_U8: case VGPU_T_U16: return VGPU_T_U32;
	case VGPU_T_S8: case VGPU_T_S16: return VGPU_T_S32;
	default: return t;
	}
}

void ptx_split_op(struct parser *P, const struct tok *t, struct opword *w)
{
	char buf[256];
	char *s, *dot;

	memset(w, 0, sizeof(*w));
	ptx_tokstr(t, buf, sizeof(buf));
	s = buf;
	dot = strchr(s, '.');
	if (dot)
		*dot = 0;
	ptx_scopy(w->base, sizeof(w->base), s);
	while (dot) {
		bool unsup;
		int ty;

		s = dot + 1;
		dot = strchr(s, '.');
		if (dot)
			*dot = 0;
		if (w->nmods == MAXMODS)
			cc_error(P->cc, t->line, "too many modifiers");
		ptx_scopy(w->mods[w->nmods], sizeof(w->mods[0]), s);
		ty = ptx_type(s, strlen(s), &unsup);
		if (unsup)
			cc_error(P->cc, t->line, "unsupported type '.%s' in '%s'", s, w->base);
		if (ty >= 0) {
			if (w->ntypes == 4)
				cc_error(P->cc, t->line, "too many types");
			w->types[w->ntypes++] = ty;
			w->used[w->nmods] = true;
		}
		w->nmods++;
	}
}

/* Index into @names of the modifier present, or -1. */
int ptx_which(struct opword *w, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (has(w, names[i]))
			return i;
	return -1;
}

/* Marks as used the modifiers that do not change results in this model. */
void ptx_ignore_hints(struct opword *w)
{
	static const char *const ign[] = {
		"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "weak",
		"relaxed", "acquire", "release", "acq_rel", "sc", "gpu", "cta", "sys",
		"aligned", "uni", "noftz", NULL,
	};

	for (int i = 0; i < w->nmods; i++) {
		if (strstr(w->mods[i], "::"))
			w->used[i] = true;
		for (int j = 0; ign[j]; j++)
			if (!strcmp(w->mods[i], ign[j]))
				w->used[i] = true;
	}
}

void ptx_check_mods(struct parser *P, struct opword *w)
{
	for (int i = 0; i < w->nmods; i++)
		if (!w->used[i])
			cc_error(P->cc, P->line, "unsupported modifier '.%s' in '%s'",
				 w->mods[i], w->base);
}

int ptx_float_rnd(struct opword *w)
{
	static const char *const r[] = { "rn", "rz", "rm", "rp", NULL };
	int i = ptx_which(w, r);

	return i < 0 ? 0 : i;
}
