// SPDX-License-Identifier: MIT
/*
 * ptx_parse.c - PTX lexer, parser and lowering to vGPU ISA instructions over
 * virtual registers (see compiler_int.h). Every construct that is not
 * handled is reported as "ptx:LINE: ..." rather than approximated.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_int.h"

/* ------------------------------------------------------------------ */
/* lexer */

enum { T_EOF = 0, T_WORD, T_PUNCT, T_STR };

struct tok {
	uint8_t t;
	char ch;		/* T_PUNCT */
	const char *s;
	uint32_t len;
	int line;
};

struct rdecl {
	char name[64];
	int count;		/* -1: a single register named exactly @name */
	int base;		/* first vreg */
	uint8_t cls;
	int depth;
};

struct fixup {
	int ins;
	uint32_t addend;
	bool off;		/* patch ins.off (memory), else ins.b.v */
};

/* A formal parameter or return value of a .func. */
struct fparam {
	char name[128];
	uint32_t size, align;
};

#define MAX_FPARAMS	64
#define MAX_FRAMES	32

/* A .func, found by a first pass over the module (calls may precede it). */
struct func {
	char name[128];
	int line;
	size_t body;		/* token index of its '{', 0: declared only */
	struct fparam ret[MAX_FPARAMS], par[MAX_FPARAMS];
	int nret, npar;
};

/* A .func being inlined. */
struct frame {
	int func;
	int retlabel;
	char prefix[32];	/* of its labels: "#<n>#", never a PTX name */
};

struct parser {
	struct compiler *cc;
	struct func *funcs;
	size_t nfuncs, fncap;
	struct frame frames[MAX_FRAMES];
	int nframes;
	int ninlined;
	int carry;		/* CC.CF predicate vreg, -1 until used */
	int redword;		/* shared offset of bar.red's counter, -1 none */
	struct tok *toks;
	size_t ntoks, pos, tcap;
	struct entry *e;
	struct rdecl *decls;
	size_t ndecls, dcap;
	int depth;
	struct var *lvars;	/* entry-scope .shared/.local, module shared used */
	size_t nlvars, lvcap;
	struct fixup *fix;
	size_t nfix, fcap;
	uint32_t extern_align;
	int line;		/* line of the instruction being lowered */
	int guard;		/* guard of the instruction being lowered */
	bool gneg;
};

/* Copies @src into @dst of @n bytes, truncating. */
static void scopy(char *dst, size_t n, const char *src)
{
	size_t l = strlen(src);

	if (l >= n)
		l = n - 1;
	memcpy(dst, src, l);
	dst[l] = 0;
}

static bool wordc(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static void lex(struct parser *P, const char *src, size_t len)
{
	struct compiler *cc = P->cc;
	size_t i = 0;
	int line = 1;

	while (1) {
		struct tok t = { .line = line };

		while (i < len) {
			char c = src[i];

			if (c == '\n') {
				line++;
				i++;
			} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
				i++;
			} else if (c == '/' && i + 1 < len && src[i + 1] == '/') {
				while (i < len && src[i] != '\n')
					i++;
			} else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
				int l0 = line;

				i += 2;
				while (i + 1 < len && !(src[i] == '*' && src[i + 1] == '/')) {
					if (src[i] == '\n')
						line++;
					i++;
				}
				if (i + 1 >= len)
					cc_error(cc, l0, "unterminated comment");
				i += 2;
			} else {
				break;
			}
		}
		t.line = line;
		if (i >= len) {
			t.t = T_EOF;
		} else if (src[i] == '\0') {
			cc_error(cc, line, "NUL byte in source");
		} else if (wordc((unsigned char)src[i])) {
			size_t s = i;
			bool num = isdigit((unsigned char)src[i]);

			while (i < len) {
				unsigned char c = src[i];

				if (wordc(c)) {
					i++;
				} else if (c == ':' && i + 1 < len && src[i + 1] == ':' &&
					   i + 2 < len && wordc((unsigned char)src[i + 2])) {
					i += 2;
				} else if (num && (c == '+' || c == '-') &&
					   (src[i - 1] == 'e' || src[i - 1] == 'E') &&
					   memchr(src + s, '.', i - s) &&
					   !(i - s > 1 && (src[s + 1] == 'x' || src[s + 1] == 'X' ||
							   src[s + 1] == 'f' || src[s + 1] == 'F' ||
							   src[s + 1] == 'd' || src[s + 1] == 'D'))) {
					i++;
				} else {
					break;
				}
			}
			t.t = T_WORD;
			t.s = src + s;
			t.len = i - s;
		} else if (src[i] == '"') {
			size_t s = ++i;

			while (i < len && src[i] != '"' && src[i] != '\n')
				i++;
			if (i >= len || src[i] != '"')
				cc_error(cc, line, "unterminated string");
			t.t = T_STR;
			t.s = src + s;
			t.len = i - s;
			i++;
		} else if (strchr(",;:[]{}()+-|!@<>=*", src[i])) {
			t.t = T_PUNCT;
			t.ch = src[i];
			t.s = src + i;
			t.len = 1;
			i++;
		} else {
			cc_error(cc, line, "unexpected character '%c'", src[i]);
		}
		P->toks = cc_grow(cc, P->toks, &P->tcap, P->ntoks + 1, sizeof(*P->toks));
		P->toks[P->ntoks++] = t;
		if (t.t == T_EOF)
			break;
	}
}

static struct tok *peek(struct parser *P)
{
	return &P->toks[P->pos];
}

static struct tok *peek2(struct parser *P)
{
	return P->pos + 1 < P->ntoks ? &P->toks[P->pos + 1] : &P->toks[P->ntoks - 1];
}

static struct tok *next(struct parser *P)
{
	struct tok *t = &P->toks[P->pos];

	if (t->t != T_EOF)
		P->pos++;
	return t;
}

static bool is_p(const struct tok *t, char c)
{
	return t->t == T_PUNCT && t->ch == c;
}

static bool is_w(const struct tok *t, const char *w)
{
	return t->t == T_WORD && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

static void tokstr(const struct tok *t, char *buf, size_t n)
{
	size_t l;

	if (t->t == T_EOF) {
		snprintf(buf, n, "end of file");
		return;
	}
	l = t->len < n - 1 ? t->len : n - 1;
	memcpy(buf, t->s, l);
	buf[l] = 0;
}

static _Noreturn void unexpected(struct parser *P, const struct tok *t, const char *what)
{
	char b[64];

	tokstr(t, b, sizeof(b));
	cc_error(P->cc, t->line, "expected %s, found '%s'", what, b);
}

static void expect(struct parser *P, char c)
{
	struct tok *t = next(P);

	if (!is_p(t, c)) {
		char w[4] = { '\'', c, '\'', 0 };

		unexpected(P, t, w);
	}
}

static void name_of(struct parser *P, const struct tok *t, char *buf, size_t n)
{
	if (t->t != T_WORD)
		unexpected(P, t, "a name");
	if (t->len >= n)
		cc_error(P->cc, t->line, "name too long");
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
}

static bool parse_uint(const struct tok *t, uint64_t *v)
{
	char b[64], *end;

	if (t->t != T_WORD || !isdigit((unsigned char)t->s[0]) || t->len >= sizeof(b))
		return false;
	memcpy(b, t->s, t->len);
	b[t->len] = 0;
	if (t->len > 1 && (b[t->len - 1] == 'U' || b[t->len - 1] == 'u'))
		b[t->len - 1] = 0;
	errno = 0;
	if (b[0] == '0' && (b[1] == 'x' || b[1] == 'X'))
		*v = strtoull(b + 2, &end, 16);
	else if (b[0] == '0' && (b[1] == 'b' || b[1] == 'B'))
		*v = strtoull(b + 2, &end, 2);
	else if (b[0] == '0' && b[1])
		*v = strtoull(b + 1, &end, 8);
	else
		*v = strtoull(b, &end, 10);
	return !errno && *end == 0;
}

static uint64_t expect_uint(struct parser *P)
{
	struct tok *t = next(P);
	uint64_t v;

	if (!parse_uint(t, &v))
		unexpected(P, t, "a number");
	return v;
}

/* Skips the rest of the source line of token @t. */
static void skip_line(struct parser *P, int line)
{
	while (peek(P)->t != T_EOF && peek(P)->line == line)
		next(P);
}

/* ------------------------------------------------------------------ */
/* types */

static int ptx_type(const char *s, size_t n, bool *unsupported)
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

static int type_cls(int t)
{
	if (t == VGPU_T_PRED)
		return VC_PRED;
	if (vgpu_type_is64(t))
		return VC_64;
	if (t == VGPU_T_U8 || t == VGPU_T_S8 || t == VGPU_T_U16 || t == VGPU_T_S16 ||
	    t == VGPU_T_F16)
		return VC_16;
	return VC_32;
}

/* ------------------------------------------------------------------ */
/* entries, vregs, instructions */

static int newv(struct parser *P, int cls)
{
	struct entry *e = P->e;

	e->vregs = cc_grow(P->cc, e->vregs, &e->vcap, e->nvregs + 1, sizeof(*e->vregs));
	e->vregs[e->nvregs] = (struct vreg){ .cls = cls, .phys = -1, .start = -1, .end = -1 };
	if (e->nvregs >= 1000000)
		cc_error(P->cc, P->line, "too many registers");
	return (int)e->nvregs++;
}

static int vcls(struct parser *P, int v)
{
	return P->e->vregs[v].cls;
}

static struct ins *emit_raw(struct parser *P, int op, int type, bool guarded)
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

/* The instruction that writes the PTX destination: guarded. */
static struct ins *emit(struct parser *P, int op, int type)
{
	return emit_raw(P, op, type, true);
}

/* A temporary computation: never guarded (its result is fresh). */
static struct ins *emit_tmp(struct parser *P, int op, int type)
{
	return emit_raw(P, op, type, false);
}

static struct opnd R(int v)
{
	return (struct opnd){ .k = OK_REG, .r = v };
}

static struct opnd I(uint64_t v)
{
	return (struct opnd){ .k = OK_IMM, .v = v };
}

static bool fits8(uint64_t v, bool w64)
{
	int64_t s = w64 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;

	return s >= -128 && s <= 127;
}

/* Sets B to an immediate, choosing the short form when it fits. */
static void set_bimm(struct ins *in, uint64_t v, int type)
{
	bool w64 = vgpu_type_is64(type);

	if (!w64)
		v = (uint32_t)v;
	in->b = I(v);
	if (vgpu_type_float(type) ? v != 0 : !fits8(v, w64))
		in->x = true;
}

/* ------------------------------------------------------------------ */
/* operands */

enum { PO_NONE = 0, PO_REG, PO_IMM, PO_SREG, PO_SYM, PO_ADDR, PO_VEC, PO_SINK };

/* What a symbol names. */
enum { SY_NONE = 0, SY_PARAM, SY_VAR, SY_LABEL };

struct sym {
	int kind;
	const struct param *param;
	struct var *var;
	int label;
};

struct pop {
	int kind;
	int line;
	int r, r2;		/* PO_REG; r2: second dest after '|' (-1) */
	bool neg;		/* !%p */
	/* PO_IMM */
	uint64_t iv;		/* integer value / float bits */
	int fk;			/* 0 int, 32: 0f bits, 64: 0d bits, 1: decimal float */
	double fv;
	/* PO_SREG */
	int sreg;
	/* PO_SYM / PO_ADDR base symbol */
	struct sym sym;
	char name[128];
	/* PO_ADDR */
	int abase;		/* PO_REG, PO_SYM or PO_IMM */
	int64_t aoff;
	/* PO_VEC */
	int vec[4];
	int nvec;
};

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

static int find_reg(struct parser *P, const char *name)
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

static struct var *find_var(struct var *v, size_t n, const char *name)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

/* A module-scope static shared variable used by this entry gets its place. */
static struct var *entry_var(struct parser *P, struct var *mv)
{
	struct var *v = find_var(P->lvars, P->nlvars, mv->name);

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

	v = find_var(P->lvars, P->nlvars, name);
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
	v = find_var(P->cc->mvars, P->cc->nmvars, name);
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

static int label_raw(struct parser *P, const char *name, int line)
{
	struct entry *e = P->e;

	for (size_t i = 0; i < e->nlabels; i++)
		if (!strcmp(e->labels[i].name, name))
			return (int)i;
	e->labels = cc_grow(P->cc, e->labels, &e->lcap, e->nlabels + 1, sizeof(*e->labels));
	scopy(e->labels[e->nlabels].name, sizeof(e->labels[0].name), name);
	e->labels[e->nlabels].pos = -1;
	e->labels[e->nlabels].line = line;
	return (int)e->nlabels++;
}

/* A label of the source: those of an inlined .func get its frame's prefix. */
static int label_id(struct parser *P, const char *name, int line)
{
	char full[160];

	if (!P->nframes)
		return label_raw(P, name, line);
	snprintf(full, sizeof(full), "%s%s", P->frames[P->nframes - 1].prefix, name);
	if (strlen(full) >= sizeof(P->e->labels[0].name))
		cc_error(P->cc, line, "label name too long");
	return label_raw(P, full, line);
}

static void parse_imm(struct parser *P, struct pop *o, bool neg)
{
	struct tok *t = next(P);
	char b[80];

	o->kind = PO_IMM;
	if (t->t != T_WORD || !isdigit((unsigned char)t->s[0]))
		unexpected(P, t, "an operand");
	tokstr(t, b, sizeof(b));
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
	} else if (parse_uint(t, &o->iv)) {
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
		o->aoff = (int64_t)expect_uint(P);
	} else {
		name_of(P, next(P), name, sizeof(name));
		o->r = find_reg(P, name);
		if (o->r >= 0) {
			o->abase = PO_REG;
		} else {
			o->sym = lookup_sym(P, name);
			if (o->sym.kind != SY_PARAM && o->sym.kind != SY_VAR)
				cc_error(P->cc, t->line, "unknown symbol '%s'", name);
			o->abase = PO_SYM;
			scopy(o->name, sizeof(o->name), name);
		}
	}
	while (is_p(peek(P), '+') || is_p(peek(P), '-')) {
		bool neg = next(P)->ch == '-';
		uint64_t v;

		if (is_p(peek(P), '-')) {
			next(P);
			neg = !neg;
		}
		v = expect_uint(P);
		o->aoff += neg ? -(int64_t)v : (int64_t)v;
	}
	expect(P, ']');
}

static void parse_operand(struct parser *P, struct pop *o)
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
			name_of(P, next(P), name, sizeof(name));
			if (!strcmp(name, "_")) {
				o->vec[o->nvec++] = -1;
			} else {
				int r = find_reg(P, name);

				if (r < 0)
					cc_error(P->cc, t->line, "unknown register '%s'", name);
				o->vec[o->nvec++] = r;
			}
			if (is_p(peek(P), '}'))
				break;
			expect(P, ',');
		}
		next(P);
		return;
	}
	if (is_p(t, '!')) {
		next(P);
		parse_operand(P, o);
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
	name_of(P, next(P), name, sizeof(name));
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
	o->r = find_reg(P, name);
	if (o->r >= 0) {
		o->kind = PO_REG;
		if (is_p(peek(P), '|')) {
			next(P);
			name_of(P, next(P), name, sizeof(name));
			if (!strcmp(name, "_")) {
				o->r2 = -2;
			} else {
				o->r2 = find_reg(P, name);
				if (o->r2 < 0)
					cc_error(P->cc, t->line, "unknown register '%s'", name);
			}
		}
		return;
	}
	if (name[0] == '%')
		cc_error(P->cc, t->line, "unknown register '%s'", name);
	o->kind = PO_SYM;
	scopy(o->name, sizeof(o->name), name);
	o->sym = lookup_sym(P, name);
}

/* ------------------------------------------------------------------ */
/* lowering helpers */

static _Noreturn void bad_operand(struct parser *P, const struct pop *o, const char *what)
{
	cc_error(P->cc, o->line ? o->line : P->line, "operand: expected %s", what);
}

static uint64_t imm_value(struct parser *P, const struct pop *o, int type)
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

static void check_cls(struct parser *P, const struct pop *o, int v, int cls)
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
static int sym_addr(struct parser *P, const struct pop *o, int cls, int64_t add)
{
	int v = newv(P, cls);
	struct ins *in;

	if (o->sym.kind == SY_PARAM) {
		in = emit_tmp(P, VGPU_OP_MOV, reg_type(cls));
		set_bimm(in, o->sym.param->offset + add, in->type);
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
				set_bimm(in, var->offset + add, in->type);
			}
		}
	} else {
		cc_error(P->cc, o->line, "unknown symbol '%s'", o->name);
	}
	in->d = v;
	return v;
}

/* Any operand into a register of class @cls holding a value of @type. */
static int mat(struct parser *P, const struct pop *o, int type, int cls)
{
	struct ins *in;
	int v;

	switch (o->kind) {
	case PO_REG:
		check_cls(P, o, o->r, cls);
		return o->r;
	case PO_IMM:
		v = newv(P, cls);
		in = emit_tmp(P, VGPU_OP_MOV, reg_type(cls) == VGPU_T_U64 &&
			      vgpu_type_float(type) ? VGPU_T_F64 :
			      reg_type(cls) == VGPU_T_U32 && vgpu_type_float(type) ?
			      VGPU_T_F32 : reg_type(cls));
		set_bimm(in, imm_value(P, o, type), in->type);
		in->d = v;
		return v;
	case PO_SREG:
		v = newv(P, cls);
		in = emit_tmp(P, VGPU_OP_S2R, reg_type(cls));
		in->mod = o->sreg;
		in->d = v;
		return v;
	case PO_SYM:
		return sym_addr(P, o, cls, 0);
	default:
		bad_operand(P, o, "a register or a constant");
	}
}

/* Operand for slot B: a register or an immediate of any size. Prepared
 * (materialised) before the instruction is emitted, applied after. */
struct bsrc {
	bool imm;
	uint64_t v;
	int r;
	int type;
};

static struct bsrc prepB(struct parser *P, const struct pop *o, int type, int cls)
{
	if (o->kind == PO_IMM)
		return (struct bsrc){ .imm = true, .v = imm_value(P, o, type), .type = type };
	return (struct bsrc){ .r = mat(P, o, type, cls) };
}

static void applyB(struct ins *in, struct bsrc b)
{
	if (b.imm) {
		set_bimm(in, b.v, in->type);
		if (vgpu_type_float(b.type) && b.v)
			in->x = true;
	} else {
		in->b = R(b.r);
	}
}

/* Operand for slot C: a register or a small integer immediate. */
static struct opnd srcC(struct parser *P, const struct pop *o, int type, int cls)
{
	if (o->kind == PO_IMM && !vgpu_type_float(type)) {
		uint64_t v = imm_value(P, o, type);

		if (fits8(v, cls == VC_64))
			return I(v);
	}
	return R(mat(P, o, type, cls));
}

static int dst_reg(struct parser *P, const struct pop *o, int cls)
{
	if (o->kind == PO_SINK)
		return -1;
	if (o->kind != PO_REG)
		bad_operand(P, o, "a destination register");
	check_cls(P, o, o->r, cls);
	return o->r;
}

/* Keeps the invariant that a 16-bit register holds its value zero-extended. */
static void zext16(struct parser *P, int d)
{
	struct ins *in;

	if (d < 0 || vcls(P, d) != VC_16)
		return;
	in = emit(P, VGPU_OP_AND, VGPU_T_U32);
	in->d = d;
	in->a = R(d);
	set_bimm(in, 0xffff, VGPU_T_U32);
}

/* A 16/8-bit signed source, sign-extended to 32 bits. */
static int sext_src(struct parser *P, const struct pop *o, int t16)
{
	struct ins *in;
	int v, s;

	if (o->kind == PO_IMM) {
		v = newv(P, VC_32);
		in = emit_tmp(P, VGPU_OP_MOV, VGPU_T_U32);
		set_bimm(in, imm_value(P, o, t16), VGPU_T_U32);
		in->d = v;
		return v;
	}
	s = mat(P, o, t16, VC_32);
	v = newv(P, VC_32);
	in = emit_tmp(P, VGPU_OP_CVT, VGPU_T_S32);
	in->mod = VGPU_M_CVT(t16, 0, 0, 0, 0);
	in->a = R(s);
	in->d = v;
	return v;
}

/* Source operands of a narrow op: signed narrow values are sign-extended. */
static void narrow_src(struct parser *P, struct pop *o, int t)
{
	if ((t == VGPU_T_S16 || t == VGPU_T_S8) && o->kind != PO_SINK) {
		int v = sext_src(P, o, t);

		o->kind = PO_REG;
		o->r = v;
	} else if (o->kind == PO_IMM && (t == VGPU_T_U16 || t == VGPU_T_U8)) {
		o->iv = imm_value(P, o, t);
	}
}

static int wide_type(int t)
{
	switch (t) {
	case VGPU_T_U8: case VGPU_T_U16: return VGPU_T_U32;
	case VGPU_T_S8: case VGPU_T_S16: return VGPU_T_S32;
	default: return t;
	}
}

/* ------------------------------------------------------------------ */
/* opcode words */

#define MAXMODS 12

struct opword {
	char base[32];
	char mods[MAXMODS][32];
	int nmods;
	int types[4];		/* type modifiers in order */
	int ntypes;
	bool used[MAXMODS];
};

static void split_op(struct parser *P, const struct tok *t, struct opword *w)
{
	char buf[256];
	char *s, *dot;

	memset(w, 0, sizeof(*w));
	tokstr(t, buf, sizeof(buf));
	s = buf;
	dot = strchr(s, '.');
	if (dot)
		*dot = 0;
	scopy(w->base, sizeof(w->base), s);
	while (dot) {
		bool unsup;
		int ty;

		s = dot + 1;
		dot = strchr(s, '.');
		if (dot)
			*dot = 0;
		if (w->nmods == MAXMODS)
			cc_error(P->cc, t->line, "too many modifiers");
		scopy(w->mods[w->nmods], sizeof(w->mods[0]), s);
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

static bool has(struct opword *w, const char *m)
{
	for (int i = 0; i < w->nmods; i++) {
		if (!strcmp(w->mods[i], m)) {
			w->used[i] = true;
			return true;
		}
	}
	return false;
}

/* Index into @names of the modifier present, or -1. */
static int which(struct opword *w, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (has(w, names[i]))
			return i;
	return -1;
}

/* Marks as used the modifiers that do not change results in this model. */
static void ignore_hints(struct opword *w)
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

static void check_mods(struct parser *P, struct opword *w)
{
	for (int i = 0; i < w->nmods; i++)
		if (!w->used[i])
			cc_error(P->cc, P->line, "unsupported modifier '.%s' in '%s'",
				 w->mods[i], w->base);
}

static int one_type(struct parser *P, struct opword *w)
{
	if (w->ntypes != 1)
		cc_error(P->cc, P->line, "'%s' needs exactly one type", w->base);
	return w->types[0];
}

static void nops(struct parser *P, int n, int want, const char *what)
{
	if (n != want)
		cc_error(P->cc, P->line, "'%s' takes %d operands", what, want);
}

static int float_rnd(struct opword *w)
{
	static const char *const r[] = { "rn", "rz", "rm", "rp", NULL };
	int i = which(w, r);

	return i < 0 ? 0 : i;
}

static const char *const cmp_names[] = {
	"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu",
	"num", "nan", "lo", "ls", "hi", "hs", NULL,
};

/* ------------------------------------------------------------------ */
/* lowering, by instruction family */

static void lower_mov(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w);
	struct ins *in;

	nops(P, n, 2, "mov");
	if (t == VGPU_T_PRED) {
		int d = dst_reg(P, &o[0], VC_PRED);

		if (o[1].kind == PO_IMM && !o[1].fk) {
			/* constant: RZ == 0 is false, RZ != 0 ... inverted */
			in = emit(P, VGPU_OP_SETP, VGPU_T_U32);
			in->d = d;
			in->a = R(newv(P, VC_32));
			P->e->ins[P->e->nins - 1].a.k = OK_NONE;
			in = &P->e->ins[P->e->nins - 1];
			in->b = I(0);
			in->mod = VGPU_M_SETP(o[1].iv ? VGPU_CMP_EQ : VGPU_CMP_NE, 0, 0, 0, 0, 0);
			return;
		}
		if (o[1].kind != PO_REG)
			cc_error(P->cc, P->line, "mov.pred needs a predicate source");
		check_cls(P, &o[1], o[1].r, VC_PRED);
		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = d;
		in->p = o[1].r;
		return;
	}
	if (o[0].kind == PO_VEC) {
		/* unpack */
		int s = mat(P, &o[1], t, type_cls(t));

		if (vgpu_type_is64(t) && o[0].nvec == 2) {
			for (int i = 0; i < 2; i++) {
				if (o[0].vec[i] < 0)
					continue;
				check_cls(P, &o[0], o[0].vec[i], VC_32);
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
				set_bimm(in, i ? 16 : 0xffff, VGPU_T_U32);
			}
			return;
		}
		cc_error(P->cc, P->line, "unsupported vector mov");
	}
	if (o[1].kind == PO_VEC) {
		/* pack */
		int d = dst_reg(P, &o[0], type_cls(t));

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
			int h = newv(P, VC_32);

			in = emit_tmp(P, VGPU_OP_SHL, VGPU_T_U32);
			in->d = h;
			in->a = R(o[1].vec[1]);
			set_bimm(in, 16, VGPU_T_U32);
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
		int d = dst_reg(P, &o[0], cls == VC_16 ? vcls(P, o[0].r) : cls);

		if (o[1].kind == PO_SREG) {
			in = emit(P, VGPU_OP_S2R, cls == VC_64 ? VGPU_T_U64 : VGPU_T_U32);
			in->mod = o[1].sreg;
			in->d = d;
			zext16(P, d);
			return;
		}
		if (o[1].kind == PO_SYM) {
			int v = sym_addr(P, &o[1], cls == VC_64 ? VC_64 : VC_32, 0);

			/* retarget the address computation to the destination */
			P->e->ins[P->e->nins - 1].d = d;
			P->e->ins[P->e->nins - 1].g = P->guard;
			P->e->ins[P->e->nins - 1].gneg = P->gneg;
			(void)v;
			return;
		}
		{
			struct bsrc bs = prepB(P, &o[1], t, cls == VC_64 ? VC_64 : VC_32);

			in = emit(P, VGPU_OP_MOV, cls == VC_64 ? (t == VGPU_T_F64 ? t : VGPU_T_U64) :
				  (t == VGPU_T_F32 ? t : VGPU_T_U32));
			in->d = d;
			applyB(in, bs);
		}
		if (o[1].kind == PO_IMM)
			zext16(P, d);
	}
}

static void lower_cvta(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const sp[] = { "global", "shared", "local", "const", "param", NULL };
	static const int spv[] = { VGPU_SP_GLOBAL, VGPU_SP_SHARED, VGPU_SP_LOCAL,
				   VGPU_SP_CONST, VGPU_SP_PARAM };
	int t = one_type(P, w), s, to, cls, d, a;
	struct ins *in;

	nops(P, n, 2, "cvta");
	to = has(w, "to");
	s = which(w, sp);
	if (s < 0 || spv[s] == VGPU_SP_PARAM)
		cc_error(P->cc, P->line, "unsupported state space for cvta");
	if (t != VGPU_T_U64 && t != VGPU_T_U32)
		cc_error(P->cc, P->line, "cvta needs .u32 or .u64");
	cls = type_cls(t);
	d = dst_reg(P, &o[0], cls);
	a = mat(P, &o[1], t, cls);
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

/* ---- helpers for lowerings into several instructions ---- */

/* A temporary: d = op(a, b) of @type, b a register or an immediate. */
static int t2(struct parser *P, int op, int type, int a, int b, bool bimm, uint64_t bv)
{
	struct ins *in = emit_tmp(P, op, type);
	int d = newv(P, vgpu_type_is64(type) ? VC_64 : VC_32);

	in->d = d;
	in->a = a >= 0 ? R(a) : (struct opnd){ 0 };
	if (bimm)
		set_bimm(in, bv, type);
	else if (b >= 0)
		in->b = R(b);
	return d;
}

/* A temporary predicate: (a cmp b) [bop Pc]. */
static int tsetp(struct parser *P, int type, int cmp, int a, int b, bool bimm, uint64_t bv,
		 int bop, int pc)
{
	struct ins *in = emit_tmp(P, VGPU_OP_SETP, type);
	int d = newv(P, VC_PRED);

	in->d = d;
	in->a = R(a);
	if (bimm)
		set_bimm(in, bv, type);
	else
		in->b = R(b);
	in->mod = VGPU_M_SETP(cmp, bop, 0, 0, 0, 0);
	if (bop)
		in->p = pc;
	return d;
}

/* The destination write of a lowering: d = b (guarded MOV). */
static void dmov(struct parser *P, int d, int src, int type)
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
		P->carry = newv(P, VC_PRED);
	return P->carry;
}

/*
 * Extended-precision arithmetic: add.cc, addc{.cc}, sub.cc, subc{.cc},
 * mad{c}.{lo,hi}{.cc}. The carry (borrow for sub) lives in a predicate:
 * t1 = x op y; c1 = carry of it; t2 = t1 op cin; c2 = carry of that.
 */
static void lower_carry(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const lh[] = { "lo", "hi", NULL };
	const char *b = w->base;
	bool cin = !strcmp(b, "addc") || !strcmp(b, "subc") || !strcmp(b, "madc");
	bool cout = has(w, "cc"), sub = b[0] == 's', mad = b[0] == 'm';
	int t, cls, d, x, y, t1, res, c1 = -1, hl = 0;
	struct ins *in;

	if (mad) {
		hl = which(w, lh);
		if (hl < 0)
			cc_error(P->cc, P->line, "'%s' needs .lo or .hi", b);
	}
	t = one_type(P, w);
	check_mods(P, w);
	if (t != VGPU_T_U32 && t != VGPU_T_S32 && t != VGPU_T_U64 && t != VGPU_T_S64)
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	t = vgpu_type_is64(t) ? VGPU_T_U64 : VGPU_T_U32;
	cls = type_cls(t);
	nops(P, n, mad ? 4 : 3, b);
	d = dst_reg(P, &o[0], cls);
	x = mat(P, &o[1], t, cls);
	if (mad) {
		int m2 = mat(P, &o[2], t, cls);

		x = t2(P, hl ? VGPU_OP_MULHI : VGPU_OP_MUL, t, x, m2, false, 0);
		y = mat(P, &o[3], t, cls);
	} else {
		y = mat(P, &o[2], t, cls);
	}
	t1 = t2(P, sub ? VGPU_OP_SUB : VGPU_OP_ADD, t, x, y, false, 0);
	if (cout)
		c1 = sub ? tsetp(P, t, VGPU_CMP_LT, x, y, false, 0, 0, -1) :
			   tsetp(P, t, VGPU_CMP_LT, t1, x, false, 0, 0, -1);
	res = t1;
	if (cin) {
		int ci = newv(P, cls), cf = carry_flag(P);
		int one = t2(P, VGPU_OP_MOV, t, -1, -1, true, 1);

		in = emit_tmp(P, VGPU_OP_SELP, t);	/* ci = cf ? 1 : 0 */
		in->d = ci;
		in->a = R(one);
		set_bimm(in, 0, t);
		in->p = cf;
		res = t2(P, sub ? VGPU_OP_SUB : VGPU_OP_ADD, t, t1, ci, false, 0);
		if (cout) {
			int c2 = sub ? tsetp(P, t, VGPU_CMP_LT, t1, ci, false, 0, VGPU_BOP_OR, c1) :
				       tsetp(P, t, VGPU_CMP_LT, res, t1, false, 0, VGPU_BOP_OR, c1);

			c1 = c2;
		}
	}
	dmov(P, d, res, t);
	if (cout) {
		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = carry_flag(P);
		in->p = c1;
	}
}

/* sad: d = c + |a - b|; mul24/mad24: 24-bit operands. */
static void lower_sad24(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const lh[] = { "lo", "hi", NULL };
	const char *b = w->base;
	int t = one_type(P, w), d, a, bb, c = -1, r;

	if (t != VGPU_T_U32 && t != VGPU_T_S32)
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	if (!strcmp(b, "sad")) {
		int mx, mn;

		check_mods(P, w);
		nops(P, n, 4, b);
		d = dst_reg(P, &o[0], VC_32);
		a = mat(P, &o[1], t, VC_32);
		bb = mat(P, &o[2], t, VC_32);
		c = mat(P, &o[3], t, VC_32);
		mx = t2(P, VGPU_OP_MAX, t, a, bb, false, 0);
		mn = t2(P, VGPU_OP_MIN, t, a, bb, false, 0);
		r = t2(P, VGPU_OP_SUB, VGPU_T_U32, mx, mn, false, 0);
		r = t2(P, VGPU_OP_ADD, VGPU_T_U32, r, c, false, 0);
		dmov(P, d, r, VGPU_T_U32);
		return;
	}
	{
		int hl = which(w, lh), a24, b24, ext[2];
		bool mad = !strcmp(b, "mad24");

		if (hl < 0)
			cc_error(P->cc, P->line, "'%s' needs .lo or .hi", b);
		check_mods(P, w);
		nops(P, n, mad ? 4 : 3, b);
		d = dst_reg(P, &o[0], VC_32);
		a = mat(P, &o[1], t, VC_32);
		bb = mat(P, &o[2], t, VC_32);
		if (mad)
			c = mat(P, &o[3], t, VC_32);
		/* the low 24 bits, extended by the signedness */
		a24 = newv(P, VC_32);
		b24 = newv(P, VC_32);
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
			r = t2(P, VGPU_OP_MUL, VGPU_T_U32, a24, b24, false, 0);
		} else {
			/* bits 16..47 of the 48-bit product */
			int wd = t2(P, VGPU_OP_MULWD, t, a24, b24, false, 0);

			wd = t2(P, VGPU_OP_SHR, VGPU_T_U64, wd, -1, true, 16);
			r = newv(P, VC_32);
			{
				struct ins *in = emit_tmp(P, VGPU_OP_UNPK, VGPU_T_U32);

				in->d = r;
				in->a = R(wd);
				in->mod = 0;
			}
		}
		if (mad)
			r = t2(P, VGPU_OP_ADD, VGPU_T_U32, r, c, false, 0);
		dmov(P, d, r, VGPU_T_U32);
	}
}

/* add.sat.s32 / sub.sat.s32: in 64 bits, clamped. */
static void lower_isat(struct parser *P, struct opword *w, struct pop *o, int n, int op)
{
	int t = one_type(P, w), d, a, b, r;
	struct ins *in;

	check_mods(P, w);
	if (t != VGPU_T_S32)
		cc_error(P->cc, P->line, "'.sat' needs .s32 for integer '%s'", w->base);
	nops(P, n, 3, w->base);
	d = dst_reg(P, &o[0], VC_32);
	a = mat(P, &o[1], t, VC_32);
	b = mat(P, &o[2], t, VC_32);
	{
		int a64 = newv(P, VC_64), b64 = newv(P, VC_64);

		in = emit_tmp(P, VGPU_OP_CVT, VGPU_T_S64);
		in->d = a64;
		in->a = R(a);
		in->mod = VGPU_M_CVT(VGPU_T_S32, 0, 0, 0, 0);
		in = emit_tmp(P, VGPU_OP_CVT, VGPU_T_S64);
		in->d = b64;
		in->a = R(b);
		in->mod = VGPU_M_CVT(VGPU_T_S32, 0, 0, 0, 0);
		r = t2(P, op, VGPU_T_S64, a64, b64, false, 0);
		r = t2(P, VGPU_OP_MIN, VGPU_T_S64, r, -1, true, 0x7fffffffull);
		r = t2(P, VGPU_OP_MAX, VGPU_T_S64, r, -1, true, (uint64_t)(int64_t)INT32_MIN);
		in = emit(P, VGPU_OP_UNPK, VGPU_T_U32);
		in->d = d;
		in->a = R(r);
		in->mod = 0;
	}
}

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
		bad_operand(P, m, "a member mask");
	ex = newv(P, VC_32);
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
		x = t2(P, VGPU_OP_AND, VGPU_T_U32, ex, -1, true, ~(uint32_t)m->iv);
	} else {
		nm = t2(P, VGPU_OP_NOT, VGPU_T_U32, mat(P, m, VGPU_T_U32, VC_32), -1, false, 0);
		x = t2(P, VGPU_OP_AND, VGPU_T_U32, ex, nm, false, 0);
	}
	p = tsetp(P, VGPU_T_U32, VGPU_CMP_NE, x, -1, true, 0, 0, -1);
	in = emit_tmp(P, VGPU_OP_TRAP, VGPU_T_NONE);
	in->g = p;
}

/* Generic two/three-operand arithmetic. */
static void lower_arith(struct parser *P, struct opword *w, struct pop *o, int n)
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
		lower_carry(P, w, o, n);
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
		mod |= float_rnd(w);
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
		mode = which(w, lhw);
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
	check_mods(P, w);
	three = op == VGPU_OP_MAD || op == VGPU_OP_MADHI || op == VGPU_OP_MADWD;
	nops(P, n, three ? 4 : 3, b);
	commut = op == VGPU_OP_ADD || op == VGPU_OP_MUL || op == VGPU_OP_MULHI ||
		 op == VGPU_OP_MULWD || op == VGPU_OP_MIN || op == VGPU_OP_MAX ||
		 op == VGPU_OP_MAD || op == VGPU_OP_MADHI || op == VGPU_OP_MADWD;

	/* narrow (16-bit) integer operations are done in 32 bits */
	wt = wide_type(t);
	scls = type_cls(wt);
	dcls = (op == VGPU_OP_MULWD || op == VGPU_OP_MADWD) && t != wt ? VC_32 :
	       (op == VGPU_OP_MULWD || op == VGPU_OP_MADWD) ? VC_64 : type_cls(t);
	d = dst_reg(P, &o[0], dcls == VC_16 ? VC_16 : dcls);
	if (d >= 0 && dcls == VC_16)
		dcls = VC_16;
	for (int i = 1; i < n; i++)
		narrow_src(P, &o[i], t);
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
		int a = mat(P, &o[1], wt, scls);
		struct opnd c = { 0 };
		struct bsrc bs = prepB(P, &o[2], wt, scls);

		if (three)
			c = srcC(P, &o[3], wt, op == VGPU_OP_MADWD ? VC_64 : scls);
		in = emit(P, op, wt);
		in->mod = mod;
		in->d = d;
		in->a = R(a);
		applyB(in, bs);
		in->c = c;
	}
	if (t != wt && op == VGPU_OP_MULHI) {
		in->op = VGPU_OP_MUL;
		in = emit(P, VGPU_OP_SHR, wt);
		in->d = d;
		in->a = R(d);
		set_bimm(in, 16, VGPU_T_U32);
	} else if (t != wt && op == VGPU_OP_MADHI) {
		cc_error(P->cc, P->line, "mad.hi of 16-bit values is not supported");
	}
	if (dcls == VC_16)
		zext16(P, d);
}

static void lower_unary(struct parser *P, struct opword *w, struct pop *o, int n, int op)
{
	int t = one_type(P, w), wt = wide_type(t), d, a, dcls;
	uint16_t mod = 0;
	struct ins *in;

	nops(P, n, 2, w->base);
	if (vgpu_type_float(t)) {
		mod |= float_rnd(w);
		if (has(w, "ftz"))
			mod |= VGPU_M_FTZ;
		has(w, "approx");
		has(w, "full");
	} else if (op >= VGPU_OP_SQRT && op <= VGPU_OP_TANH) {
		cc_error(P->cc, P->line, "'%s' needs a float type", w->base);
	}
	if (t == VGPU_T_PRED)
		cc_error(P->cc, P->line, "unsupported type for '%s'", w->base);
	check_mods(P, w);
	dcls = (op == VGPU_OP_POPC || op == VGPU_OP_CLZ) ? VC_32 : type_cls(t);
	d = dst_reg(P, &o[0], dcls);
	narrow_src(P, &o[1], t);
	a = mat(P, &o[1], wt, type_cls(wt));
	in = emit(P, op, wt);
	in->mod = mod;
	in->d = d;
	in->a = R(a);
	if (dcls == VC_16 && op != VGPU_OP_ABS)
		zext16(P, d);
	else if (dcls == VC_16)
		zext16(P, d);
}

static void lower_logic(struct parser *P, struct opword *w, struct pop *o, int n)
{
	const char *b = w->base;
	int t = one_type(P, w), op, cls, d;
	struct ins *in;

	check_mods(P, w);
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
		d = dst_reg(P, &o[0], VC_PRED);
		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = d;
		for (int i = 1; i < n; i++)
			if (o[i].kind != PO_REG)
				cc_error(P->cc, P->line, "'%s.pred' needs predicate operands", b);
		check_cls(P, &o[1], o[1].r, VC_PRED);
		in->p = o[1].r;
		in->pneg = o[1].neg;
		if (op == VGPU_OP_NOT) {
			in->pneg = !in->pneg;
			in->mod = VGPU_M_PLOP(VGPU_BOP_NONE, 0, 0);
		} else {
			check_cls(P, &o[2], o[2].r, VC_PRED);
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
	t = wide_type(t);
	nops(P, n, op == VGPU_OP_NOT || op == VGPU_OP_CNOT ? 2 : 3, b);
	d = dst_reg(P, &o[0], cls);
	if (n == 3 && o[1].kind == PO_IMM && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
	}
	{
		int a = mat(P, &o[1], t, cls == VC_16 ? VC_32 : cls);
		struct bsrc bs = { 0 };

		if (n == 3)
			bs = prepB(P, &o[2], t, cls == VC_16 ? VC_32 : cls);
		in = emit(P, op, t);
		in->d = d;
		in->a = R(a);
		if (n == 3)
			applyB(in, bs);
	}
	if (cls == VC_16 && (op == VGPU_OP_NOT))
		zext16(P, d);
}

static void lower_shift(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w), wt = wide_type(t), cls = type_cls(t), d, a;
	bool shl = !strcmp(w->base, "shl");
	struct ins *in;

	check_mods(P, w);
	nops(P, n, 3, w->base);
	if (vgpu_type_float(t) || t == VGPU_T_PRED || (shl && vgpu_type_signed(t)))
		cc_error(P->cc, P->line, "unsupported type for '%s'", w->base);
	d = dst_reg(P, &o[0], cls);
	narrow_src(P, &o[1], t);
	a = mat(P, &o[1], wt, type_cls(wt));
	{
		int sr = o[2].kind == PO_IMM ? -1 : mat(P, &o[2], VGPU_T_U32, VC_32);

		if (sr >= 0 && t != wt)	/* 16-bit: amounts >= 16 give 0 / sign fill */
			sr = t2(P, VGPU_OP_MIN, VGPU_T_U32, sr, -1, true, 16);
		in = emit(P, shl ? VGPU_OP_SHL : VGPU_OP_SHR, wt);
		in->d = d;
		in->a = R(a);
		if (sr < 0) {
			uint64_t v = imm_value(P, &o[2], VGPU_T_U32);

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
		zext16(P, d);
	}
}

static void set_mem_off(struct parser *P, struct ins *in, int64_t off, bool fix,
			bool atom);

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
static void lower_bfind(struct parser *P, struct opword *w, struct pop *o, int n)
{
	bool sa = has(w, "shiftamt");
	int t = one_type(P, w), cls, wt, bits, d, a, x, c, r;

	check_mods(P, w);
	nops(P, n, 2, "bfind");
	if (t != VGPU_T_U32 && t != VGPU_T_S32 && t != VGPU_T_U64 && t != VGPU_T_S64)
		cc_error(P->cc, P->line, "unsupported type for 'bfind'");
	cls = type_cls(t);
	wt = vgpu_type_is64(t) ? VGPU_T_U64 : VGPU_T_U32;
	bits = vgpu_type_is64(t) ? 64 : 32;
	d = dst_reg(P, &o[0], VC_32);
	a = mat(P, &o[1], t, cls);
	x = a;
	if (vgpu_type_signed(t)) {
		int sg = t2(P, VGPU_OP_SHR, t, a, -1, true, (uint64_t)bits - 1);

		x = t2(P, VGPU_OP_XOR, wt, a, sg, false, 0);
	}
	c = newv(P, VC_32);
	{
		struct ins *in = emit_tmp(P, VGPU_OP_CLZ, wt);

		in->d = c;
		in->a = R(x);
	}
	if (sa) {
		/* clz, or 0xffffffff when there is no such bit */
		int p = tsetp(P, VGPU_T_U32, VGPU_CMP_EQ, c, -1, true, (uint64_t)bits, 0, -1);
		int all = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 0xffffffffu);
		struct ins *in = emit_tmp(P, VGPU_OP_SELP, VGPU_T_U32);

		r = newv(P, VC_32);
		in->d = r;
		in->a = R(all);
		in->b = R(c);
		in->p = p;
	} else {
		int top = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, (uint64_t)bits - 1);

		r = t2(P, VGPU_OP_SUB, VGPU_T_U32, top, c, false, 0);	/* -1 when none */
	}
	dmov(P, d, r, VGPU_T_U32);
}

/* copysign.fN d, a, b: b with the sign of a. */
static void lower_copysign(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w), wt, cls, d, a, b;
	uint64_t sign;

	check_mods(P, w);
	nops(P, n, 3, "copysign");
	if (t != VGPU_T_F32 && t != VGPU_T_F64)
		cc_error(P->cc, P->line, "copysign needs .f32 or .f64");
	cls = type_cls(t);
	wt = t == VGPU_T_F64 ? VGPU_T_U64 : VGPU_T_U32;
	sign = t == VGPU_T_F64 ? 1ull << 63 : 1ull << 31;
	d = dst_reg(P, &o[0], cls);
	a = mat(P, &o[1], t, cls);
	b = mat(P, &o[2], t, cls);
	a = t2(P, VGPU_OP_AND, wt, a, -1, true, sign);
	b = t2(P, VGPU_OP_AND, wt, b, -1, true, ~sign & (t == VGPU_T_F64 ? ~0ull : 0xffffffffull));
	dmov(P, d, t2(P, VGPU_OP_OR, wt, a, b, false, 0), wt);
}

/* testp.op.fN p, a: finite infinite number notanumber normal subnormal. */
static void lower_testp(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ops[] = { "finite", "infinite", "number", "notanumber",
					   "normal", "subnormal", NULL };
	int op = which(w, ops), t = one_type(P, w), cls, d, a, x, p = -1;
	bool dbl = t == VGPU_T_F64;
	union { float f; uint32_t u; } fi = { .f = __builtin_inff() }, fm = { .f = 0x1p-126f };
	union { double f; uint64_t u; } di = { .f = __builtin_inf() }, dm = { .f = 0x1p-1022 };
	uint64_t inf = dbl ? di.u : fi.u, mn = dbl ? dm.u : fm.u;
	struct ins *in;

	check_mods(P, w);
	nops(P, n, 2, "testp");
	if (op < 0)
		cc_error(P->cc, P->line, "testp needs an operation");
	if (t != VGPU_T_F32 && t != VGPU_T_F64)
		cc_error(P->cc, P->line, "testp needs .f32 or .f64");
	cls = type_cls(t);
	d = dst_reg(P, &o[0], VC_PRED);
	a = mat(P, &o[1], t, cls);
	x = newv(P, cls);
	in = emit_tmp(P, VGPU_OP_ABS, t);
	in->d = x;
	in->a = R(a);
	switch (op) {
	case 0: p = tsetp(P, t, VGPU_CMP_LT, x, -1, true, inf, 0, -1); break;
	case 1: p = tsetp(P, t, VGPU_CMP_EQ, x, -1, true, inf, 0, -1); break;
	case 2: p = tsetp(P, t, VGPU_CMP_NUM, a, a, false, 0, 0, -1); break;
	case 3: p = tsetp(P, t, VGPU_CMP_NAN, a, a, false, 0, 0, -1); break;
	case 4:
		p = tsetp(P, t, VGPU_CMP_LT, x, -1, true, inf, 0, -1);
		p = tsetp(P, t, VGPU_CMP_GE, x, -1, true, mn, VGPU_BOP_AND, p);
		break;
	default:
		p = tsetp(P, t, VGPU_CMP_NE, x, -1, true, 0, 0, -1);
		p = tsetp(P, t, VGPU_CMP_LT, x, -1, true, mn, VGPU_BOP_AND, p);
		break;
	}
	in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
	in->d = d;
	in->p = p;
}

/*
 * bar.red.{popc.u32,and.pred,or.pred} d, id, {!}c: a barrier that also
 * counts the threads whose predicate is true, through a hidden shared word:
 * bar; v0 = [h]; bar; @q red.shared.add [h], 1; bar; n = [h] - v0.
 */
static void lower_bar_red(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ops[] = { "popc", "and", "or", NULL };
	int op = which(w, ops), t, d, v0, v1, cnt;
	uint32_t id;
	struct ins *in;

	has(w, "red");
	has(w, "sync");
	ignore_hints(w);
	t = one_type(P, w);
	check_mods(P, w);
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
	d = dst_reg(P, &o[0], op ? VC_PRED : VC_32);
	if (o[2].kind != PO_REG)
		bad_operand(P, &o[2], "a predicate");
	check_cls(P, &o[2], o[2].r, VC_PRED);
	if (P->redword < 0) {
		P->redword = (int)align_up(P->e->shared_static, 4);
		P->e->shared_static = (uint32_t)P->redword + 4;
	}
	for (int step = 0; step < 3; step++) {
		in = emit_tmp(P, VGPU_OP_BAR, VGPU_T_NONE);
		in->mod = (uint16_t)id;
		if (step == 0) {
			v0 = newv(P, VC_32);
			in = emit_tmp(P, VGPU_OP_LD, VGPU_T_U32);
			in->d = v0;
			in->mod = VGPU_M_MEM(VGPU_SP_SHARED, 2, 0, 0, 0, 0);
			set_mem_off(P, in, P->redword, false, false);
		} else if (step == 1) {
			int one = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 1);

			in = emit_tmp(P, VGPU_OP_ATOM, VGPU_T_U32);
			in->g = o[2].r;
			in->gneg = o[2].neg ^ (op == 1);	/* and: count the false ones */
			in->b = R(one);
			in->mod = VGPU_M_ATOM(VGPU_SP_SHARED, VGPU_ATOM_ADD, 0, 0);
			in->internal = true;
			set_mem_off(P, in, P->redword, false, true);
		}
	}
	v1 = newv(P, VC_32);
	in = emit_tmp(P, VGPU_OP_LD, VGPU_T_U32);
	in->d = v1;
	in->mod = VGPU_M_MEM(VGPU_SP_SHARED, 2, 0, 0, 0, 0);
	set_mem_off(P, in, P->redword, false, false);
	cnt = t2(P, VGPU_OP_SUB, VGPU_T_U32, v1, v0, false, 0);
	if (op == 0) {
		dmov(P, d, cnt, VGPU_T_U32);
	} else {
		int p = tsetp(P, VGPU_T_U32, op == 1 ? VGPU_CMP_EQ : VGPU_CMP_NE, cnt, -1, true, 0,
			      0, -1);

		in = emit(P, VGPU_OP_PLOP, VGPU_T_PRED);
		in->d = d;
		in->p = p;
	}
}

static void lower_bits(struct parser *P, struct opword *w, struct pop *o, int n)
{
	const char *b = w->base;
	int t = one_type(P, w), cls = type_cls(t), d, a;
	int mode = !strcmp(b, "prmt") ? which(w, prmt_modes) : -1;
	struct ins *in;

	check_mods(P, w);
	if (cls == VC_16 || cls == VC_PRED || vgpu_type_float(t))
		cc_error(P->cc, P->line, "unsupported type for '%s'", b);
	if (!strcmp(b, "bfe")) {
		nops(P, n, 4, b);
		d = dst_reg(P, &o[0], cls);
		a = mat(P, &o[1], t, cls);
		{
			struct opnd c = srcC(P, &o[3], VGPU_T_U32, VC_32);
			struct bsrc bs = prepB(P, &o[2], VGPU_T_U32, VC_32);

			in = emit(P, VGPU_OP_BFE, t);
			in->d = d;
			in->a = R(a);
			applyB(in, bs);
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

			d = dst_reg(P, &o[0], cls);
			a = mat(P, &o[1], t, cls);
			bb = mat(P, &o[2], t, cls);
			pos = t2(P, VGPU_OP_AND, VGPU_T_U32, mat(P, &o[3], VGPU_T_U32, VC_32), -1,
				 true, 0xff);
			len = t2(P, VGPU_OP_AND, VGPU_T_U32, mat(P, &o[4], VGPU_T_U32, VC_32), -1,
				 true, 0xff);
			one = t2(P, VGPU_OP_MOV, wt, -1, -1, true, 1);
			m = t2(P, VGPU_OP_SHL, wt, one, len, false, 0);
			m = t2(P, VGPU_OP_SUB, wt, m, -1, true, 1);
			m = t2(P, VGPU_OP_SHL, wt, m, pos, false, 0);
			x = t2(P, VGPU_OP_SHL, wt, a, pos, false, 0);
			x = t2(P, VGPU_OP_AND, wt, x, m, false, 0);
			m = t2(P, VGPU_OP_NOT, wt, m, -1, false, 0);
			m = t2(P, VGPU_OP_AND, wt, bb, m, false, 0);
			m = t2(P, VGPU_OP_OR, wt, m, x, false, 0);
			dmov(P, d, m, wt);
			return;
		}
		d = dst_reg(P, &o[0], cls);
		a = mat(P, &o[1], t, cls);
		bb = mat(P, &o[2], t, cls);
		{
			struct opnd c = srcC(P, &o[3], VGPU_T_U32, VC_32);

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
			d = dst_reg(P, &o[0], VC_32);
			a = mat(P, &o[1], t, VC_32);
			bb2 = mat(P, &o[2], t, VC_32);
			if (o[3].kind == PO_IMM) {
				sel = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true,
					 prmt_sel(mode, (int)(o[3].iv & 3)));
			} else {
				int sh = t2(P, VGPU_OP_AND, VGPU_T_U32,
					    mat(P, &o[3], VGPU_T_U32, VC_32), -1, true, 3);
				int tb = t2(P, VGPU_OP_MOV, VGPU_T_U64, -1, -1, true, tab);

				sh = t2(P, VGPU_OP_SHL, VGPU_T_U32, sh, -1, true, 4);
				tb = t2(P, VGPU_OP_SHR, VGPU_T_U64, tb, sh, false, 0);
				sel = newv(P, VC_32);
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
		d = dst_reg(P, &o[0], VC_32);
		a = mat(P, &o[1], t, VC_32);
		{
			int bb = mat(P, &o[2], t, VC_32);
			struct opnd c = srcC(P, &o[3], t, VC_32);

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

static void lower_setp(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const bops[] = { "and", "or", "xor", NULL };
	static const int mirror[] = { 0, 1, 4, 5, 2, 3, 6, 7, 10, 11, 8, 9, 12, 13 };
	int t = one_type(P, w), wt, cmp, bop, p, q = -1, a;
	bool ftz;
	struct ins *in;

	cmp = which(w, cmp_names);
	if (cmp < 0)
		cc_error(P->cc, P->line, "setp needs a comparison");
	bop = which(w, bops) + 1;
	ftz = has(w, "ftz");
	check_mods(P, w);
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
		bad_operand(P, &o[0], "a predicate");
	p = o[0].r;
	check_cls(P, &o[0], p, VC_PRED);
	if (o[0].r2 >= 0) {
		q = o[0].r2;
		check_cls(P, &o[0], q, VC_PRED);
	}
	wt = wide_type(t);
	narrow_src(P, &o[1], t);
	narrow_src(P, &o[2], t);
	if (o[1].kind == PO_IMM && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
		cmp = mirror[cmp];
	}
	a = mat(P, &o[1], wt, type_cls(wt));
	{
		struct bsrc bs = prepB(P, &o[2], wt, type_cls(wt));

		in = emit(P, VGPU_OP_SETP, wt);
		applyB(in, bs);
	}
	in->d = p;
	in->q = q;
	in->a = R(a);
	in->mod = VGPU_M_SETP(cmp, bop, 0, 0, 0, ftz);
	if (bop) {
		if (o[3].kind != PO_REG)
			bad_operand(P, &o[3], "a predicate");
		check_cls(P, &o[3], o[3].r, VC_PRED);
		in->p = o[3].r;
		in->pneg = o[3].neg;
	}
}

static void lower_selp(struct parser *P, struct opword *w, struct pop *o, int n)
{
	int t = one_type(P, w), cls = type_cls(t), d, a;
	bool neg;
	struct ins *in;

	check_mods(P, w);
	nops(P, n, 4, "selp");
	if (t == VGPU_T_PRED)
		cc_error(P->cc, P->line, "selp.pred is not valid");
	d = dst_reg(P, &o[0], cls);
	if (o[3].kind != PO_REG)
		bad_operand(P, &o[3], "a predicate");
	check_cls(P, &o[3], o[3].r, VC_PRED);
	neg = o[3].neg;
	if (o[1].kind == PO_IMM && o[2].kind != PO_IMM) {
		struct pop tmp = o[1];

		o[1] = o[2];
		o[2] = tmp;
		neg = !neg;
	}
	a = mat(P, &o[1], t, cls == VC_16 ? VC_32 : cls);
	{
		struct bsrc bs = prepB(P, &o[2], t, cls == VC_16 ? VC_32 : cls);

		in = emit(P, VGPU_OP_SELP, cls == VC_64 ? VGPU_T_U64 : VGPU_T_U32);
		applyB(in, bs);
	}
	in->d = d;
	in->a = R(a);
	in->p = o[3].r;
	in->pneg = neg;
}

static void lower_cvt(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ir[] = { "rni", "rzi", "rmi", "rpi", NULL };
	static const int irv[] = { VGPU_RND_RN, VGPU_RND_RZ, VGPU_RND_RM, VGPU_RND_RP };
	int dt, st, rnd = 0, rint = 0, sat, ftz, d, a, i;
	struct ins *in;

	nops(P, n, 2, "cvt");
	if (w->ntypes != 2)
		cc_error(P->cc, P->line, "cvt needs two types");
	dt = w->types[0];
	st = w->types[1];
	if (dt == VGPU_T_PRED || st == VGPU_T_PRED)
		cc_error(P->cc, P->line, "unsupported type for cvt");
	i = which(w, ir);
	if (i >= 0) {
		rnd = irv[i];
		rint = 1;
	} else {
		rnd = float_rnd(w);
	}
	sat = has(w, "sat");
	ftz = has(w, "ftz");
	check_mods(P, w);
	if ((vgpu_type_float(st) || st == VGPU_T_F16) && !vgpu_type_float(dt) &&
	    dt != VGPU_T_F16 && !rint)
		cc_error(P->cc, P->line, "float to integer cvt needs an integer rounding modifier");
	d = dst_reg(P, &o[0], type_cls(dt) == VC_16 && o[0].kind == PO_REG &&
		    vcls(P, o[0].r) == VC_32 ? VC_32 : type_cls(dt));
	if (o[1].kind == PO_REG)
		a = o[1].r, check_cls(P, &o[1], a, type_cls(st) == VC_16 ? VC_32 : type_cls(st));
	else
		a = mat(P, &o[1], st, type_cls(st) == VC_64 ? VC_64 : VC_32);
	in = emit(P, VGPU_OP_CVT, dt == VGPU_T_U8 || dt == VGPU_T_U16 ? dt : dt);
	in->d = d;
	in->a = R(a);
	in->mod = VGPU_M_CVT(st, rnd, rint, sat, ftz);
	if (d >= 0 && vcls(P, d) == VC_16 && (dt == VGPU_T_S8 || dt == VGPU_T_S16))
		zext16(P, d);
}

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
		bad_operand(P, o, "an address [..]");
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

static void set_mem_off(struct parser *P, struct ins *in, int64_t off, bool fix,
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
	s = which(w, space_names);
	return s < 0 ? VGPU_SP_GENERIC : space_vals[s];
}

static void lower_ldst(struct parser *P, struct opword *w, struct pop *o, int n, bool st)
{
	static const char *const vs[] = { "v2", "v4", NULL };
	int space, base, t, lsz, lvec, nv, cls, rt;
	bool a64, rel, fix, sx;
	int64_t off;
	struct pop *data = st ? &o[1] : &o[0], *addr = st ? &o[0] : &o[1];
	struct ins *in;
	int regs[4] = { -1, -1, -1, -1 };

	space = mem_space(P, w);
	lvec = which(w, vs) + 1;
	nv = 1 << lvec;
	ignore_hints(w);
	t = one_type(P, w);
	check_mods(P, w);
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
			bad_operand(P, data, "a vector of registers");
		for (int i = 0; i < nv; i++)
			regs[i] = data->vec[i];
	} else if (st && data->kind != PO_REG) {
		regs[0] = -3;	/* materialised below */
	} else if (data->kind == PO_SINK) {
		regs[0] = -1;
	} else {
		if (data->kind != PO_REG)
			bad_operand(P, data, "a register");
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
		regs[0] = mat(P, data, t, cls == VC_16 ? VC_32 : cls);
	}
	if (st && nv > 1) {
		for (int i = 0; i < nv; i++)
			if (regs[i] < 0)
				bad_operand(P, data, "registers");
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
	set_mem_off(P, in, off, fix, false);
	if (!st && sx) {
		for (int i = 0; i < nv; i++)
			zext16(P, regs[i]);
	}
}

static void lower_atom(struct parser *P, struct opword *w, struct pop *o, int n, bool red)
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
	aop = which(w, ops);
	if (aop < 0)
		cc_error(P->cc, P->line, "unsupported atomic operation");
	ignore_hints(w);
	t = one_type(P, w);
	check_mods(P, w);
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
		d = dst_reg(P, &o[0], cls);
	mem_addr(P, &o[k], &space, &base, &off, &a64, &rel, &fix);
	if (space != VGPU_SP_GLOBAL && space != VGPU_SP_SHARED && space != VGPU_SP_GENERIC)
		cc_error(P->cc, P->line, "atomic in an unsupported state space");
	b = srcC(P, &o[k + 1], t, cls);
	if (aop == VGPU_ATOM_CAS)
		c = srcC(P, &o[k + 2], t, cls);
	in = emit(P, VGPU_OP_ATOM, t);
	in->d = d;
	in->a = base >= 0 ? R(base) : (struct opnd){ 0 };
	in->b = b;
	in->c = c;
	in->mod = VGPU_M_ATOM(space, aop, a64, rel);
	set_mem_off(P, in, off, fix, true);
}

static void lower_shfl(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const modes[] = { "up", "down", "bfly", "idx", NULL };
	int mode, t, d, a, k;
	struct ins *in;
	struct opnd b, c;
	bool sync = has(w, "sync");

	mode = which(w, modes);
	if (mode < 0)
		cc_error(P->cc, P->line, "shfl needs a mode");
	t = one_type(P, w);
	if (t != VGPU_T_U32 && t != VGPU_T_F32 && t != VGPU_T_S32)
		cc_error(P->cc, P->line, "shfl needs .b32");
	ignore_hints(w);
	check_mods(P, w);
	nops(P, n, sync ? 5 : 4, "shfl");
	d = dst_reg(P, &o[0], VC_32);
	a = mat(P, &o[1], VGPU_T_U32, VC_32);
	b = srcC(P, &o[2], VGPU_T_U32, VC_32);
	c = srcC(P, &o[3], VGPU_T_U32, VC_32);
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
		check_cls(P, &o[0], o[0].r2, VC_PRED);
		in->q = o[0].r2;
	}
	(void)k;
}

static void lower_vote(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const modes[] = { "all", "any", "uni", "ballot", NULL };
	int mode, t, d;
	bool sync = has(w, "sync");
	struct ins *in;

	mode = which(w, modes);
	if (mode < 0)
		cc_error(P->cc, P->line, "vote needs a mode");
	if (sync)
		member_mask(P, &o[n - 1]);
	t = one_type(P, w);
	check_mods(P, w);
	nops(P, n, sync ? 3 : 2, "vote");
	if ((mode == VGPU_VOTE_BALLOT) != (t == VGPU_T_U32))
		cc_error(P->cc, P->line, "vote type does not match the mode");
	d = dst_reg(P, &o[0], mode == VGPU_VOTE_BALLOT ? VC_32 : VC_PRED);
	if (o[1].kind != PO_REG)
		bad_operand(P, &o[1], "a predicate");
	check_cls(P, &o[1], o[1].r, VC_PRED);
	in = emit(P, VGPU_OP_VOTE, mode == VGPU_VOTE_BALLOT ? VGPU_T_U32 : VGPU_T_PRED);
	in->d = d;
	in->p = o[1].r;
	in->pneg = o[1].neg;
	in->mod = mode;
}

/* A 16-bit f16 value widened to f32 (exact) or f64 into a fresh register. */
static int f16_widen(struct parser *P, struct pop *o, int to)
{
	int v = mat(P, o, VGPU_T_F16, VC_32), r = newv(P, to == VGPU_T_F64 ? VC_64 : VC_32);
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
static void lower_f16(struct parser *P, struct opword *w, struct pop *o, int n)
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

		check_mods(P, w);
		nops(P, n, 2, b);
		d = dst_reg(P, &o[0], VC_16);
		a = mat(P, &o[1], VGPU_T_F16, VC_32);
		in = emit(P, b[0] == 'n' ? VGPU_OP_XOR : VGPU_OP_AND, VGPU_T_U32);
		in->d = d;
		in->a = R(a);
		set_bimm(in, b[0] == 'n' ? 0x8000 : 0x7fff, VGPU_T_U32);
		return;
	}
	if (strcmp(b, "add") && strcmp(b, "sub") && strcmp(b, "mul") && !fma &&
	    strcmp(b, "min") && strcmp(b, "max") && strcmp(b, "setp"))
		cc_error(P->cc, P->line, "unsupported instruction '%s' with .f16", b);
	for (int i = 1; i < n; i++) {
		if (!strcmp(b, "setp") && i == 3)
			break;	/* the predicate combined with */
		if (o[i].kind != PO_REG && o[i].kind != PO_IMM)
			bad_operand(P, &o[i], "a register or a constant");
		o[i].r = f16_widen(P, &o[i], wt);
		o[i].kind = PO_REG;
	}
	w->types[0] = wt;
	if (!strcmp(b, "setp")) {
		lower_setp(P, w, o, n);
		return;
	}
	if (o[0].kind != PO_SINK)
		d = dst_reg(P, &o[0], VC_16);
	tmp = newv(P, wide ? VC_64 : VC_32);
	o[0].kind = PO_REG;
	o[0].r = tmp;
	{
		bool sat = has(w, "sat");

		/* the operation, unguarded into tmp, then the rounding, guarded */
		int g = P->guard;

		P->guard = -1;
		lower_arith(P, w, o, n);
		P->guard = g;
		if (d >= 0) {
			in = emit(P, VGPU_OP_CVT, VGPU_T_F16);
			in->d = d;
			in->a = R(tmp);
			in->mod = VGPU_M_CVT(wt, VGPU_RND_RN, 0, sat, 0);
		}
	}
}

/*
 * match.{any,all}.sync.b32/b64 d[|p], a, mask: 32 shfl.idx compare the
 * value with each lane's; lanes not executing the instruction are masked
 * out (and the member mask is checked as for shfl).
 */
static void lower_match(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const modes[] = { "any", "all", NULL };
	int mode = which(w, modes), t, cls, d, q = -1, a, ex, acc, lo = -1, hi = -1;
	struct ins *in;

	has(w, "sync");
	t = one_type(P, w);
	check_mods(P, w);
	if (mode < 0 || (t != VGPU_T_U32 && t != VGPU_T_U64))
		cc_error(P->cc, P->line, "unsupported match form");
	nops(P, n, 3, "match");
	member_mask(P, &o[2]);
	cls = type_cls(t);
	d = dst_reg(P, &o[0], VC_32);
	if (o[0].r2 >= 0) {
		if (mode == 0)
			cc_error(P->cc, P->line, "match.any has no predicate destination");
		check_cls(P, &o[0], o[0].r2, VC_PRED);
		q = o[0].r2;
	}
	a = mat(P, &o[1], t, cls);
	if (cls == VC_64) {
		lo = newv(P, VC_32);
		hi = newv(P, VC_32);
		for (int h = 0; h < 2; h++) {
			in = emit_tmp(P, VGPU_OP_UNPK, VGPU_T_U32);
			in->d = h ? hi : lo;
			in->a = R(a);
			in->mod = (uint16_t)h;
		}
	}
	ex = newv(P, VC_32);
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
	acc = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 0);
	for (int i = 0; i < 32; i++) {
		int p = -1;

		for (int h = 0; h < (cls == VC_64 ? 2 : 1); h++) {
			int v = cls == VC_64 ? (h ? hi : lo) : a, x = newv(P, VC_32);

			in = emit_tmp(P, VGPU_OP_SHFL, VGPU_T_U32);
			in->d = x;
			in->a = R(v);
			in->b = I((uint64_t)i);
			in->c = I(31);
			in->mod = VGPU_SHFL_IDX;
			p = tsetp(P, VGPU_T_U32, VGPU_CMP_EQ, x, v, false, 0, p < 0 ? 0 : VGPU_BOP_AND,
				  p);
		}
		in = emit_raw(P, VGPU_OP_OR, VGPU_T_U32, false);
		in->g = p;
		in->d = acc;
		in->a = R(acc);
		set_bimm(in, 1ull << i, VGPU_T_U32);
	}
	acc = t2(P, VGPU_OP_AND, VGPU_T_U32, acc, ex, false, 0);
	if (mode == 0) {
		dmov(P, d, acc, VGPU_T_U32);
	} else {
		int eq = tsetp(P, VGPU_T_U32, VGPU_CMP_EQ, acc, ex, false, 0, 0, -1);
		int z = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, 0);

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
static void lower_redux(struct parser *P, struct opword *w, struct pop *o, int n)
{
	static const char *const ops[] = { "add", "min", "max", "and", "or", "xor", NULL };
	static const int vop[] = { VGPU_OP_ADD, VGPU_OP_MIN, VGPU_OP_MAX, VGPU_OP_AND,
				   VGPU_OP_OR, VGPU_OP_XOR };
	int op = which(w, ops), t, d, a, ex, acc;
	uint64_t init;
	struct ins *in;

	has(w, "sync");
	t = one_type(P, w);
	check_mods(P, w);
	if (op < 0 || (op < 3 && t != VGPU_T_U32 && t != VGPU_T_S32) ||
	    (op >= 3 && t != VGPU_T_U32))
		cc_error(P->cc, P->line, "unsupported redux form");
	nops(P, n, 3, "redux");
	member_mask(P, &o[2]);
	d = dst_reg(P, &o[0], VC_32);
	a = mat(P, &o[1], t, VC_32);
	ex = newv(P, VC_32);
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
	acc = t2(P, VGPU_OP_MOV, VGPU_T_U32, -1, -1, true, init);
	for (int i = 0; i < 32; i++) {
		int x = newv(P, VC_32), bit, p;

		in = emit_tmp(P, VGPU_OP_SHFL, VGPU_T_U32);
		in->d = x;
		in->a = R(a);
		in->b = I((uint64_t)i);
		in->c = I(31);
		in->mod = VGPU_SHFL_IDX;
		bit = t2(P, VGPU_OP_AND, VGPU_T_U32, ex, -1, true, 1ull << i);
		p = tsetp(P, VGPU_T_U32, VGPU_CMP_NE, bit, -1, true, 0, 0, -1);
		in = emit_raw(P, vop[op], op < 3 ? t : VGPU_T_U32, false);
		in->g = p;
		in->d = acc;
		in->a = R(acc);
		in->b = R(x);
	}
	dmov(P, d, acc, VGPU_T_U32);
}

static bool has_f16(const struct opword *w)
{
	for (int i = 0; i < w->ntypes; i++)
		if (w->types[i] == VGPU_T_F16)
			return true;
	return false;
}

static void lower(struct parser *P, const struct tok *optok, struct pop *o, int n)
{
	struct opword w;
	const char *b;
	struct ins *in;

	split_op(P, optok, &w);
	b = w.base;
	if (has_f16(&w) && strcmp(b, "ld") && strcmp(b, "ldu") && strcmp(b, "st") &&
	    strcmp(b, "mov") && strcmp(b, "cvt")) {
		lower_f16(P, &w, o, n);
	} else if (!strcmp(b, "mov")) {
		lower_mov(P, &w, o, n);
	} else if (!strcmp(b, "ld") || !strcmp(b, "ldu")) {
		lower_ldst(P, &w, o, n, false);
	} else if (!strcmp(b, "st")) {
		lower_ldst(P, &w, o, n, true);
	} else if (!strcmp(b, "cvta")) {
		lower_cvta(P, &w, o, n);
	} else if (!strcmp(b, "add") || !strcmp(b, "sub") || !strcmp(b, "mul") ||
		   !strcmp(b, "mad") || !strcmp(b, "fma") || !strcmp(b, "div") ||
		   !strcmp(b, "rem") || !strcmp(b, "min") || !strcmp(b, "max")) {
		lower_arith(P, &w, o, n);
	} else if (!strcmp(b, "addc") || !strcmp(b, "subc") || !strcmp(b, "madc")) {
		lower_carry(P, &w, o, n);
	} else if (!strcmp(b, "sad") || !strcmp(b, "mul24") || !strcmp(b, "mad24")) {
		lower_sad24(P, &w, o, n);
	} else if (!strcmp(b, "neg")) {
		lower_unary(P, &w, o, n, VGPU_OP_NEG);
	} else if (!strcmp(b, "abs")) {
		lower_unary(P, &w, o, n, VGPU_OP_ABS);
	} else if (!strcmp(b, "popc")) {
		lower_unary(P, &w, o, n, VGPU_OP_POPC);
	} else if (!strcmp(b, "clz")) {
		lower_unary(P, &w, o, n, VGPU_OP_CLZ);
	} else if (!strcmp(b, "brev")) {
		lower_unary(P, &w, o, n, VGPU_OP_BREV);
	} else if (!strcmp(b, "sqrt")) {
		lower_unary(P, &w, o, n, VGPU_OP_SQRT);
	} else if (!strcmp(b, "rsqrt")) {
		lower_unary(P, &w, o, n, VGPU_OP_RSQRT);
	} else if (!strcmp(b, "rcp")) {
		lower_unary(P, &w, o, n, VGPU_OP_RCP);
	} else if (!strcmp(b, "sin")) {
		lower_unary(P, &w, o, n, VGPU_OP_SIN);
	} else if (!strcmp(b, "cos")) {
		lower_unary(P, &w, o, n, VGPU_OP_COS);
	} else if (!strcmp(b, "lg2")) {
		lower_unary(P, &w, o, n, VGPU_OP_LG2);
	} else if (!strcmp(b, "ex2")) {
		lower_unary(P, &w, o, n, VGPU_OP_EX2);
	} else if (!strcmp(b, "tanh")) {
		lower_unary(P, &w, o, n, VGPU_OP_TANH);
	} else if (!strcmp(b, "and") || !strcmp(b, "or") || !strcmp(b, "xor") ||
		   !strcmp(b, "not") || !strcmp(b, "cnot")) {
		lower_logic(P, &w, o, n);
	} else if (!strcmp(b, "shl") || !strcmp(b, "shr")) {
		lower_shift(P, &w, o, n);
	} else if (!strcmp(b, "bfe") || !strcmp(b, "bfi") || !strcmp(b, "prmt")) {
		lower_bits(P, &w, o, n);
	} else if (!strcmp(b, "setp")) {
		lower_setp(P, &w, o, n);
	} else if (!strcmp(b, "selp")) {
		lower_selp(P, &w, o, n);
	} else if (!strcmp(b, "cvt")) {
		lower_cvt(P, &w, o, n);
	} else if (!strcmp(b, "atom") || !strcmp(b, "red")) {
		lower_atom(P, &w, o, n, b[0] == 'r');
	} else if (!strcmp(b, "shfl")) {
		lower_shfl(P, &w, o, n);
	} else if (!strcmp(b, "vote")) {
		lower_vote(P, &w, o, n);
	} else if (!strcmp(b, "activemask")) {
		nops(P, n, 1, b);
		has(&w, "b32");
		check_mods(P, &w);
		in = emit(P, VGPU_OP_S2R, VGPU_T_U32);
		in->mod = VGPU_SR_ACTIVEMASK;
		in->d = dst_reg(P, &o[0], VC_32);
	} else if (!strcmp(b, "bra")) {
		ignore_hints(&w);
		check_mods(P, &w);
		nops(P, n, 1, b);
		if (o[0].kind != PO_SYM)
			bad_operand(P, &o[0], "a label");
		in = emit(P, VGPU_OP_BRA, VGPU_T_NONE);
		in->label = label_id(P, o[0].name, P->line);
		in->x = true;
	} else if (!strcmp(b, "ret") && P->nframes) {
		ignore_hints(&w);
		check_mods(P, &w);
		nops(P, n, 0, b);
		in = emit(P, VGPU_OP_BRA, VGPU_T_NONE);
		in->label = P->frames[P->nframes - 1].retlabel;
		in->x = true;
	} else if (!strcmp(b, "ret") || !strcmp(b, "exit")) {
		ignore_hints(&w);
		check_mods(P, &w);
		nops(P, n, 0, b);
		emit(P, VGPU_OP_EXIT, VGPU_T_NONE);
	} else if (!strcmp(b, "trap")) {
		nops(P, n, 0, b);
		emit(P, VGPU_OP_TRAP, VGPU_T_NONE);
	} else if (!strcmp(b, "redux")) {
		lower_redux(P, &w, o, n);
	} else if (!strcmp(b, "match")) {
		lower_match(P, &w, o, n);
	} else if (!strcmp(b, "bfind")) {
		lower_bfind(P, &w, o, n);
	} else if (!strcmp(b, "copysign")) {
		lower_copysign(P, &w, o, n);
	} else if (!strcmp(b, "testp")) {
		lower_testp(P, &w, o, n);
	} else if ((!strcmp(b, "bar") || !strcmp(b, "barrier")) && w.nmods && !strcmp(w.mods[0], "red")) {
		lower_bar_red(P, &w, o, n);
	} else if (!strcmp(b, "bar") || !strcmp(b, "barrier")) {
		if (has(&w, "warp")) {
			has(&w, "sync");
			check_mods(P, &w);
			return;	/* warps execute in lockstep here */
		}
		if (!has(&w, "sync") && !(w.nmods == 0 && !strcmp(b, "bar")))
			cc_error(P->cc, P->line, "unsupported barrier form");
		ignore_hints(&w);
		check_mods(P, &w);
		if (n == 2)
			cc_error(P->cc, P->line, "barriers with a thread count are not supported");
		nops(P, n, 1, b);
		if (o[0].kind != PO_IMM || o[0].iv > 15)
			cc_error(P->cc, P->line, "barrier id must be a constant 0..15");
		in = emit(P, VGPU_OP_BAR, VGPU_T_NONE);
		in->mod = (uint16_t)o[0].iv;
	} else if (!strcmp(b, "membar") || !strcmp(b, "fence")) {
		bool cta = false;

		for (int i = 0; i < w.nmods; i++) {
			w.used[i] = true;
			cta |= !strcmp(w.mods[i], "cta");
		}
		in = emit(P, VGPU_OP_MEMBAR, VGPU_T_NONE);
		in->gpu_scope = !cta;
	} else if (!strcmp(b, "prefetch") || !strcmp(b, "prefetchu") ||
		   !strcmp(b, "nanosleep") || !strcmp(b, "pmevent")) {
		/* hints: no effect on results */
	} else if (!strcmp(b, "call")) {
		cc_error(P->cc, P->line,
			 "unsupported instruction 'call' (device functions must be inlined)");
	} else {
		cc_error(P->cc, P->line, "unsupported instruction '%s'", b);
	}
}

/* ------------------------------------------------------------------ */
/* declarations */

static int parse_align(struct parser *P)
{
	uint64_t a;

	next(P);
	a = expect_uint(P);
	if (!a || (a & (a - 1)) || a > 4096)
		cc_error(P->cc, P->line, "bad alignment");
	return (int)a;
}

/* .reg .type names; (after '.reg') */
static void parse_reg_decl(struct parser *P)
{
	struct tok *t = next(P);
	bool unsup;
	int ty, cls;

	if (t->t != T_WORD || t->s[0] != '.')
		unexpected(P, t, "a register type");
	if (is_w(t, ".v2") || is_w(t, ".v4"))
		cc_error(P->cc, t->line, "vector registers are not supported");
	ty = ptx_type(t->s + 1, t->len - 1, &unsup);
	if (unsup && is_w(t, ".bf16"))
		ty = VGPU_T_U16;	/* storage only; bf16 arithmetic is refused */
	else if (ty < 0 || unsup)
		cc_error(P->cc, t->line, "unsupported register type");
	cls = type_cls(ty);
	while (1) {
		struct rdecl d = { .count = -1, .cls = cls, .depth = P->depth };

		name_of(P, next(P), d.name, sizeof(d.name));
		if (is_p(peek(P), '<')) {
			uint64_t n;

			next(P);
			n = expect_uint(P);
			expect(P, '>');
			if (n > 100000)
				cc_error(P->cc, t->line, "too many registers");
			d.count = (int)n;
		}
		d.base = (int)P->e->nvregs;
		for (int i = 0; i < (d.count < 0 ? 1 : d.count); i++)
			newv(P, cls);
		P->decls = cc_grow(P->cc, P->decls, &P->dcap, P->ndecls + 1, sizeof(*P->decls));
		P->decls[P->ndecls++] = d;
		if (is_p(peek(P), ','))
			next(P);
		else
			break;
	}
	expect(P, ';');
}

/*
 * A variable declaration after its state space word, up to the name and
 * array sizes: [.align N] .type name[[N]]*. Returns the element type.
 */
static int parse_var(struct parser *P, struct var *v)
{
	struct tok *t;
	int ty = -1;
	bool unsup;
	uint64_t count = 1;
	uint32_t esize;
	bool unsized = false;

	v->align = 0;
	while ((t = peek(P))->t == T_WORD && t->s[0] == '.') {
		if (is_w(t, ".align")) {
			v->align = parse_align(P);
			continue;
		}
		if (is_w(t, ".v2") || is_w(t, ".v4"))
			cc_error(P->cc, t->line, "vector variables are not supported");
		ty = ptx_type(t->s + 1, t->len - 1, &unsup);
		if (ty < 0 || ty == VGPU_T_PRED) {
			char b[64];

			tokstr(t, b, sizeof(b));
			cc_error(P->cc, t->line, "unsupported variable attribute '%s'", b);
		}
		next(P);
	}
	if (ty < 0)
		cc_error(P->cc, P->line, "variable needs a type");
	esize = vgpu_type_bits(ty) / 8;
	if (!v->align)
		v->align = esize;
	name_of(P, next(P), v->name, sizeof(v->name));
	while (is_p(peek(P), '[')) {
		next(P);
		if (is_p(peek(P), ']')) {
			unsized = true;
		} else {
			uint64_t n = expect_uint(P);

			if (!n || n > (1u << 30) / count)
				cc_error(P->cc, P->line, "bad array size");
			count *= n;
		}
		expect(P, ']');
	}
	if (unsized && !v->external)
		cc_error(P->cc, P->line, "unsized array needs .extern");
	if ((uint64_t)esize * count > (64u << 20))
		cc_error(P->cc, P->line, "variable too large");
	v->size = unsized ? 0 : (uint32_t)(esize * count);
	return ty;
}

/* "= value" or "= { values }" into @buf (@size bytes of @ty elements). */
static void parse_init(struct parser *P, int ty, uint8_t *buf, uint32_t size)
{
	uint32_t esize = vgpu_type_bits(ty) / 8, i = 0;
	bool brace;

	next(P);	/* '=' */
	brace = is_p(peek(P), '{');
	if (brace)
		next(P);
	while (1) {
		struct tok *t = peek(P);
		struct pop o;
		uint64_t val;

		if (!is_p(t, '-') && !(t->t == T_WORD && isdigit((unsigned char)t->s[0])))
			cc_error(P->cc, t->line, "unsupported initialiser (constants only)");
		parse_operand(P, &o);
		if ((i + 1) * esize > size)
			cc_error(P->cc, o.line, "too many initialisers");
		val = imm_value(P, &o, ty);
		memcpy(buf + i * esize, &val, esize);
		i++;
		if (!brace || !is_p(peek(P), ','))
			break;
		next(P);
	}
	if (brace)
		expect(P, '}');
}

static void parse_entry_var(struct parser *P, int space)
{
	struct var v = { .space = space, .line = peek(P)->line };

	parse_var(P, &v);
	if (is_p(peek(P), '='))
		cc_error(P->cc, v.line, "initialiser not allowed here");
	expect(P, ';');
	if (space == VGPU_SP_SHARED) {
		v.offset = align_up(P->e->shared_static, v.align);
		P->e->shared_static = v.offset + v.size;
	} else {
		v.offset = align_up(P->e->local_size, v.align);
		P->e->local_size = v.offset + v.size;
	}
	{
		struct var *o = find_var(P->lvars, P->nlvars, v.name);

		if (o && o->depth == P->depth)
			cc_error(P->cc, v.line, "'%s' declared twice", v.name);
	}
	v.depth = P->depth;
	P->lvars = cc_grow(P->cc, P->lvars, &P->lvcap, P->nlvars + 1, sizeof(*P->lvars));
	P->lvars[P->nlvars++] = v;
}

/* .param inside a body: an argument or return value of a call, in .local. */
static void parse_call_param(struct parser *P)
{
	parse_entry_var(P, VGPU_SP_LOCAL);
	P->lvars[P->nlvars - 1].pslot = true;
}

/* Forgets the declarations of blocks deeper than the current one. */
static void pop_scope(struct parser *P)
{
	size_t k = 0;

	while (P->ndecls && P->decls[P->ndecls - 1].depth > P->depth)
		P->ndecls--;
	for (size_t i = 0; i < P->nlvars; i++)
		if (P->lvars[i].depth <= P->depth)
			P->lvars[k++] = P->lvars[i];
	P->nlvars = k;
}

static void parse_module_var(struct parser *P, int space, bool external)
{
	struct compiler *cc = P->cc;
	struct var v = { .space = space, .external = external, .line = peek(P)->line };
	int ty;

	ty = parse_var(P, &v);
	if (external && space != VGPU_SP_SHARED)
		cc_error(cc, v.line, "external .global/.const variables are not supported");
	if (find_var(cc->mvars, cc->nmvars, v.name))
		cc_error(cc, v.line, "'%s' declared twice", v.name);
	if (space == VGPU_SP_GLOBAL || space == VGPU_SP_CONST) {
		uint32_t off = align_up(cc->data_size, v.align);

		if ((uint64_t)off + v.size > (64u << 20))
			cc_error(cc, v.line, "data segment too large");
		cc->data = cc_grow(cc, cc->data, &cc->data_cap, off + v.size + 1, 1);
		memset(cc->data + cc->data_size, 0, off + v.size - cc->data_size);
		v.offset = off;
		cc->data_size = off + v.size;
		if (is_p(peek(P), '=')) {
			parse_init(P, ty, cc->data + off, v.size);
			cc->data_init = cc->data_size;
		}
	} else if (is_p(peek(P), '=')) {
		cc_error(cc, v.line, "shared variables cannot be initialised");
	}
	expect(P, ';');
	cc->mvars = cc_grow(cc, cc->mvars, &cc->mvcap, cc->nmvars + 1, sizeof(*cc->mvars));
	cc->mvars[cc->nmvars++] = v;
}

static void parse_params(struct parser *P)
{
	struct entry *e = P->e;
	uint32_t off = 0;

	if (!is_p(peek(P), '('))
		return;
	next(P);
	if (is_p(peek(P), ')')) {
		next(P);
		return;
	}
	while (1) {
		struct param p = { 0 };
		struct tok *t = next(P);
		uint32_t align = 0, esize = 0;
		uint64_t count = 1;

		if (!is_w(t, ".param"))
			unexpected(P, t, "'.param'");
		while ((t = peek(P))->t == T_WORD && t->s[0] == '.') {
			bool unsup;
			int ty;

			if (is_w(t, ".align")) {
				align = parse_align(P);
				continue;
			}
			next(P);
			if (is_w(t, ".ptr") || is_w(t, ".global") || is_w(t, ".shared") ||
			    is_w(t, ".const") || is_w(t, ".local"))
				continue;
			ty = ptx_type(t->s + 1, t->len - 1, &unsup);
			if (ty < 0 || ty == VGPU_T_PRED) {
				char b[64];

				tokstr(t, b, sizeof(b));
				cc_error(P->cc, t->line, "unsupported parameter attribute '%s'", b);
			}
			esize = vgpu_type_bits(ty) / 8;
		}
		if (!esize)
			cc_error(P->cc, P->line, "parameter needs a type");
		name_of(P, next(P), p.name, sizeof(p.name));
		while (is_p(peek(P), '[')) {
			uint64_t n;

			next(P);
			n = expect_uint(P);
			if (!n || n > 4096)
				cc_error(P->cc, P->line, "bad parameter array size");
			count *= n;
			expect(P, ']');
		}
		if (!align)
			align = esize;
		off = align_up(off, align);
		p.offset = off;
		p.size = (uint32_t)(esize * count);
		off += p.size;
		if (off > 4096)
			cc_error(P->cc, P->line, "parameters larger than 4096 bytes");
		e->params = cc_grow(P->cc, e->params, &e->pcap, e->nparams + 1, sizeof(*e->params));
		e->params[e->nparams++] = p;
		t = next(P);
		if (is_p(t, ')'))
			break;
		if (!is_p(t, ','))
			unexpected(P, t, "',' or ')'");
	}
	e->param_size = off;
}

static void parse_call(struct parser *P);

static void parse_body(struct parser *P)
{
	struct entry *e = P->e;
	int base = P->depth;

	expect(P, '{');
	P->depth++;
	while (P->depth > base) {
		struct tok *t = peek(P);
		struct pop ops[8];
		int n = 0;
		const struct tok *optok;

		P->line = t->line;
		if (t->t == T_EOF)
			cc_error(P->cc, t->line, "unexpected end of file in '%s'", e->name);
		if (is_p(t, '{')) {
			next(P);
			P->depth++;
			continue;
		}
		if (is_p(t, '}')) {
			next(P);
			P->depth--;
			pop_scope(P);
			continue;
		}
		if (t->t == T_WORD && t->s[0] == '.') {
			next(P);
			if (is_w(t, ".reg")) {
				parse_reg_decl(P);
			} else if (is_w(t, ".shared")) {
				parse_entry_var(P, VGPU_SP_SHARED);
			} else if (is_w(t, ".local")) {
				parse_entry_var(P, VGPU_SP_LOCAL);
			} else if (is_w(t, ".param")) {
				parse_call_param(P);
			} else if (is_w(t, ".callprototype")) {
				cc_error(P->cc, t->line, "indirect calls are not supported");
			} else if (is_w(t, ".loc") || is_w(t, ".file")) {
				skip_line(P, t->line);
			} else if (is_w(t, ".pragma")) {
				while (!is_p(peek(P), ';') && peek(P)->t != T_EOF)
					next(P);
				expect(P, ';');
			} else {
				char b[64];

				tokstr(t, b, sizeof(b));
				cc_error(P->cc, t->line, "unsupported directive '%s'", b);
			}
			continue;
		}
		if (t->t == T_WORD && is_p(peek2(P), ':')) {
			char name[128];
			int id;

			name_of(P, next(P), name, sizeof(name));
			next(P);
			id = label_id(P, name, t->line);
			if (e->labels[id].pos >= 0)
				cc_error(P->cc, t->line, "label '%s' defined twice", name);
			e->labels[id].pos = (int)e->nins;
			continue;
		}
		P->guard = -1;
		P->gneg = false;
		if (is_p(t, '@')) {
			char name[128];
			int g;

			next(P);
			if (is_p(peek(P), '!')) {
				next(P);
				P->gneg = true;
			}
			name_of(P, next(P), name, sizeof(name));
			g = find_reg(P, name);
			if (g < 0 || vcls(P, g) != VC_PRED)
				cc_error(P->cc, t->line, "guard '%s' is not a predicate", name);
			P->guard = g;
		}
		optok = next(P);
		if (optok->t != T_WORD || optok->s[0] == '.' || optok->s[0] == '%')
			unexpected(P, optok, "an instruction");
		P->line = optok->line;
		if (optok->len >= 4 && !memcmp(optok->s, "call", 4) &&
		    (optok->len == 4 || optok->s[4] == '.')) {
			parse_call(P);
			continue;
		}
		while (!is_p(peek(P), ';')) {
			if (n == 8)
				cc_error(P->cc, P->line, "too many operands");
			parse_operand(P, &ops[n++]);
			if (is_p(peek(P), ','))
				next(P);
			else if (!is_p(peek(P), ';'))
				unexpected(P, peek(P), "',' or ';'");
		}
		next(P);
		/* bra targets are labels: resolve before lowering */
		for (int i = 0; i < n; i++)
			if (ops[i].kind == PO_SYM && ops[i].sym.kind == SY_NONE)
				ops[i].sym.kind = SY_LABEL;
		{
			bool isbra = optok->len >= 3 && !memcmp(optok->s, "bra", 3) &&
				     (optok->len == 3 || optok->s[3] == '.');

			for (int i = 0; i < n; i++)
				if (ops[i].kind == PO_SYM && ops[i].sym.kind == SY_LABEL && !isbra)
					cc_error(P->cc, P->line, "unknown symbol '%s'", ops[i].name);
		}
		lower(P, optok, ops, n);
	}
}

static void finish_entry(struct parser *P)
{
	struct entry *e = P->e;

	for (size_t i = 0; i < e->nlabels; i++)
		if (e->labels[i].pos < 0)
			cc_error(P->cc, e->labels[i].line, "undefined label '%s'", e->labels[i].name);
	/* dynamic shared memory starts at the 16-aligned end of the static part */
	if (P->nfix || P->extern_align) {
		uint32_t a = P->extern_align > 16 ? P->extern_align : 16;

		e->shared_static = align_up(e->shared_static, a);
	}
	for (size_t i = 0; i < P->nfix; i++) {
		struct ins *in = &e->ins[P->fix[i].ins];
		uint64_t v = (uint64_t)e->shared_static + P->fix[i].addend;

		if (P->fix[i].off)
			in->off = (int32_t)v;
		else
			in->b.v = in->type == VGPU_T_U64 ? v : (uint32_t)v;
	}
	if (!e->nins || e->ins[e->nins - 1].op != VGPU_OP_EXIT ||
	    e->ins[e->nins - 1].g >= 0) {
		/* falling off the end returns */
		P->line = e->line;
		P->guard = -1;
		emit(P, VGPU_OP_EXIT, VGPU_T_NONE);
	}
	e->local_size = align_up(e->local_size, 8);
}

static void parse_entry(struct parser *P)
{
	struct compiler *cc = P->cc;
	struct entry *e;
	struct tok *t;

	cc->entries = cc_grow(cc, cc->entries, &cc->ecap, cc->nentries + 1, sizeof(*cc->entries));
	e = &cc->entries[cc->nentries++];
	memset(e, 0, sizeof(*e));
	P->e = e;
	P->ndecls = 0;
	P->nlvars = 0;
	P->depth = 0;
	P->nframes = 0;
	P->carry = -1;
	P->redword = -1;
	P->nfix = 0;
	P->extern_align = 0;
	t = next(P);
	name_of(P, t, e->name, sizeof(e->name));
	if (strlen(e->name) >= 64)
		cc_error(cc, t->line, "entry name longer than 63 characters");
	e->line = t->line;
	for (size_t i = 0; i + 1 < cc->nentries; i++)
		if (!strcmp(cc->entries[i].name, e->name))
			cc_error(cc, t->line, "entry '%s' defined twice", e->name);
	parse_params(P);
	while ((t = peek(P))->t == T_WORD && t->s[0] == '.') {
		next(P);
		if (is_w(t, ".maxntid") || is_w(t, ".reqntid")) {
			uint64_t prod = 1;

			for (int i = 0; i < 3; i++) {
				prod *= expect_uint(P);
				if (!is_p(peek(P), ','))
					break;
				next(P);
			}
			if (prod > 0xffffffffu)
				prod = 0xffffffffu;
			if (!e->max_threads || prod < e->max_threads)
				e->max_threads = (uint32_t)prod;
		} else if (is_w(t, ".minnctapersm") || is_w(t, ".maxnreg") ||
			   is_w(t, ".maxnctapersm")) {
			expect_uint(P);
		} else if (is_w(t, ".noreturn")) {
		} else if (is_w(t, ".pragma")) {
			while (!is_p(peek(P), ';') && peek(P)->t != T_EOF)
				next(P);
			expect(P, ';');
		} else {
			char b[64];

			tokstr(t, b, sizeof(b));
			cc_error(cc, t->line, "unsupported entry directive '%s'", b);
		}
	}
	if (is_p(peek(P), ';'))
		cc_error(cc, peek(P)->line, "entry declarations without a body are not supported");
	parse_body(P);
	finish_entry(P);
	if (cc->opts & VGPU_COMPILE_VIRTUAL_TB)
		vtb_transform(cc, e);
	cg_entry(cc, e);
	P->e = NULL;
}

/* ------------------------------------------------------------------ */
/* .func: found first, inlined at each call */

/* Skips a balanced (...) or {...} starting at the current token. */
static void skip_group(struct parser *P, char open, char close)
{
	int d = 0;

	do {
		struct tok *t = next(P);

		if (t->t == T_EOF)
			cc_error(P->cc, t->line, "unexpected end of file");
		if (is_p(t, open))
			d++;
		else if (is_p(t, close))
			d--;
	} while (d > 0);
}

/* Skips a .func header and its body or ';' (after the .func word). */
static void skip_func(struct parser *P)
{
	while (!is_p(peek(P), ';') && !is_p(peek(P), '{')) {
		if (peek(P)->t == T_EOF)
			cc_error(P->cc, peek(P)->line, "unexpected end of file");
		if (is_p(peek(P), '('))
			skip_group(P, '(', ')');
		else
			next(P);
	}
	if (is_p(peek(P), ';'))
		next(P);
	else
		skip_group(P, '{', '}');
}

/* ( .param [.align N] .type name[[N]], ... ) of a .func. */
static int parse_fparams(struct parser *P, struct fparam *fp)
{
	int n = 0;

	expect(P, '(');
	if (is_p(peek(P), ')')) {
		next(P);
		return 0;
	}
	while (1) {
		struct tok *t = next(P);
		uint32_t align = 0, esize = 0;
		uint64_t count = 1;

		if (is_w(t, ".reg"))
			cc_error(P->cc, t->line, ".reg parameters of .func are not supported");
		if (!is_w(t, ".param"))
			unexpected(P, t, "'.param'");
		if (n == MAX_FPARAMS)
			cc_error(P->cc, t->line, "too many parameters");
		while ((t = peek(P))->t == T_WORD && t->s[0] == '.') {
			bool unsup;
			int ty;

			if (is_w(t, ".align")) {
				align = parse_align(P);
				continue;
			}
			next(P);
			if (is_w(t, ".ptr") || is_w(t, ".global") || is_w(t, ".shared") ||
			    is_w(t, ".const") || is_w(t, ".local"))
				continue;
			ty = ptx_type(t->s + 1, t->len - 1, &unsup);
			if (unsup && (is_w(t, ".f16") || is_w(t, ".bf16")))
				ty = VGPU_T_U16;
			if (ty < 0 || ty == VGPU_T_PRED) {
				char b[64];

				tokstr(t, b, sizeof(b));
				cc_error(P->cc, t->line, "unsupported parameter attribute '%s'", b);
			}
			esize = vgpu_type_bits(ty) / 8;
		}
		if (!esize)
			cc_error(P->cc, P->line, "parameter needs a type");
		name_of(P, next(P), fp[n].name, sizeof(fp[n].name));
		while (is_p(peek(P), '[')) {
			next(P);
			count *= expect_uint(P);
			if (!count || count > 4096)
				cc_error(P->cc, P->line, "bad parameter array size");
			expect(P, ']');
		}
		fp[n].size = (uint32_t)(esize * count);
		fp[n].align = align ? align : esize;
		n++;
		t = next(P);
		if (is_p(t, ')'))
			break;
		if (!is_p(t, ','))
			unexpected(P, t, "',' or ')'");
	}
	return n;
}

/* First pass: every .func of the module, with its parameters and body. */
static void scan_funcs(struct parser *P)
{
	int depth = 0;

	for (size_t i = 0; i < P->ntoks; i++) {
		struct tok *t = &P->toks[i];
		struct func f;
		struct func *old = NULL;

		if (is_p(t, '{'))
			depth++;
		else if (is_p(t, '}'))
			depth--;
		if (depth || !is_w(t, ".func"))
			continue;
		memset(&f, 0, sizeof(f));
		f.line = t->line;
		P->pos = i + 1;
		if (is_p(peek(P), '('))
			f.nret = parse_fparams(P, f.ret);
		name_of(P, next(P), f.name, sizeof(f.name));
		if (is_p(peek(P), '('))
			f.npar = parse_fparams(P, f.par);
		while (!is_p(peek(P), ';') && !is_p(peek(P), '{')) {
			if (peek(P)->t == T_EOF)
				cc_error(P->cc, peek(P)->line, "unexpected end of file");
			if (is_p(peek(P), '('))
				skip_group(P, '(', ')');
			else
				next(P);
		}
		if (is_p(peek(P), '{'))
			f.body = P->pos;
		for (size_t k = 0; k < P->nfuncs; k++)
			if (!strcmp(P->funcs[k].name, f.name))
				old = &P->funcs[k];
		if (old && old->body && f.body)
			cc_error(P->cc, f.line, "function '%s' defined twice", f.name);
		if (old) {
			if (f.body)
				*old = f;
		} else {
			P->funcs = cc_grow(P->cc, P->funcs, &P->fncap, P->nfuncs + 1,
					   sizeof(*P->funcs));
			P->funcs[P->nfuncs++] = f;
		}
	}
	P->pos = 0;
}

/* A call argument: the name of a .param declared in the caller's body. */
static struct var *call_slot(struct parser *P, const char *what)
{
	struct tok *t = next(P);
	char name[128];
	struct var *v;

	if (t->t != T_WORD || isdigit((unsigned char)t->s[0]))
		cc_error(P->cc, t->line, "call %s must be a .param variable", what);
	name_of(P, t, name, sizeof(name));
	v = find_var(P->lvars, P->nlvars, name);
	if (!v || !v->pslot)
		cc_error(P->cc, t->line, "call %s '%s' is not a .param of the call", what, name);
	return v;
}

/* Binds a formal parameter of the callee to the caller's slot. */
static void bind_slot(struct parser *P, const struct fparam *fp, const struct var *slot,
		      int depth)
{
	struct var v = *slot;

	if (fp->size > slot->size)
		cc_error(P->cc, P->line, "call argument '%s' smaller than parameter '%s'",
			 slot->name, fp->name);
	scopy(v.name, sizeof(v.name), fp->name);
	v.size = fp->size;
	v.depth = depth;
	P->lvars = cc_grow(P->cc, P->lvars, &P->lvcap, P->nlvars + 1, sizeof(*P->lvars));
	P->lvars[P->nlvars++] = v;
}

/*
 * call{.uni} [(ret, ...),] name [, (arg, ...)]; -- the callee is inlined:
 * its parameters alias the caller's .param slots (kept in .local memory),
 * its labels are renamed, its ret branches to the end of its copy.
 */
static void parse_call(struct parser *P)
{
	struct var *rets[MAX_FPARAMS], *args[MAX_FPARAMS];
	int nret = 0, narg = 0, fi = -1, line = P->line, guard = P->guard, skip = -1;
	bool gneg = P->gneg;
	char name[128], lab[64];
	struct func *f;
	struct frame *fr;
	size_t resume;
	struct ins *in;

	if (is_p(peek(P), '(')) {
		next(P);
		while (!is_p(peek(P), ')')) {
			if (nret == MAX_FPARAMS)
				cc_error(P->cc, line, "too many return values");
			rets[nret++] = call_slot(P, "return value");
			if (is_p(peek(P), ','))
				next(P);
		}
		next(P);
		expect(P, ',');
	}
	if (peek(P)->t == T_WORD && peek(P)->s[0] == '%')
		cc_error(P->cc, line, "indirect calls are not supported");
	name_of(P, next(P), name, sizeof(name));
	if (is_p(peek(P), ',')) {
		next(P);
		expect(P, '(');
		while (!is_p(peek(P), ')')) {
			if (narg == MAX_FPARAMS)
				cc_error(P->cc, line, "too many arguments");
			args[narg++] = call_slot(P, "argument");
			if (is_p(peek(P), ','))
				next(P);
		}
		next(P);
		if (is_p(peek(P), ','))
			cc_error(P->cc, line, "indirect calls are not supported");
	}
	expect(P, ';');
	for (size_t k = 0; k < P->nfuncs; k++)
		if (!strcmp(P->funcs[k].name, name))
			fi = (int)k;
	if (fi < 0)
		cc_error(P->cc, line, "call of unknown function '%s'", name);
	f = &P->funcs[fi];
	if (!f->body)
		cc_error(P->cc, line, "call of '%s', which has no body in this module", name);
	for (int k = 0; k < P->nframes; k++)
		if (P->frames[k].func == fi)
			cc_error(P->cc, line, "recursive call of '%s' is not supported", name);
	if (P->nframes == MAX_FRAMES)
		cc_error(P->cc, line, "calls nested too deeply");
	if (++P->ninlined > 100000)
		cc_error(P->cc, line, "too many calls to inline");
	if (nret != f->nret || narg != f->npar)
		cc_error(P->cc, line, "call of '%s' with %d return values and %d arguments "
			 "(it has %d and %d)", name, nret, narg, f->nret, f->npar);
	if (guard >= 0) {
		/* @p call: branch around the inlined body when !p */
		snprintf(lab, sizeof(lab), "#%d#skip", P->ninlined);
		skip = label_raw(P, lab, line);
		in = emit_raw(P, VGPU_OP_BRA, VGPU_T_NONE, true);
		in->gneg = !gneg;
		in->label = skip;
		in->x = true;
	}
	fr = &P->frames[P->nframes];
	fr->func = fi;
	snprintf(fr->prefix, sizeof(fr->prefix), "#%d#", P->ninlined);
	snprintf(lab, sizeof(lab), "#%d#ret", P->ninlined);
	fr->retlabel = label_raw(P, lab, line);
	for (int k = 0; k < narg; k++)
		bind_slot(P, &f->par[k], args[k], P->depth + 1);
	for (int k = 0; k < nret; k++)
		bind_slot(P, &f->ret[k], rets[k], P->depth + 1);
	P->nframes++;
	resume = P->pos;
	P->pos = f->body;
	parse_body(P);
	P->pos = resume;
	P->nframes--;
	P->e->labels[fr->retlabel].pos = (int)P->e->nins;
	if (skip >= 0)
		P->e->labels[skip].pos = (int)P->e->nins;
	P->line = line;
}

static void parse_module(struct parser *P)
{
	struct compiler *cc = P->cc;
	bool seen_version = false;

	while (peek(P)->t != T_EOF) {
		struct tok *t = next(P);
		bool external = false;

		P->line = t->line;
		if (is_w(t, ".version")) {
			struct tok *v = next(P);

			if (v->t != T_WORD || !isdigit((unsigned char)v->s[0]))
				unexpected(P, v, "a version");
			seen_version = true;
			continue;
		}
		if (is_w(t, ".target")) {
			skip_line(P, t->line);
			continue;
		}
		if (is_w(t, ".address_size")) {
			if (expect_uint(P) != 64)
				cc_error(cc, t->line, "only .address_size 64 is supported");
			continue;
		}
		if (is_w(t, ".file") || is_w(t, ".loc")) {
			skip_line(P, t->line);
			continue;
		}
		if (is_w(t, ".pragma")) {
			while (!is_p(peek(P), ';') && peek(P)->t != T_EOF)
				next(P);
			expect(P, ';');
			continue;
		}
		if (is_w(t, ".section"))
			cc_error(cc, t->line, "debug sections are not supported (compile without -G)");
		if (!seen_version)
			cc_error(cc, t->line, "PTX must start with .version");
		while (is_w(t, ".visible") || is_w(t, ".extern") || is_w(t, ".weak") ||
		       is_w(t, ".common")) {
			if (is_w(t, ".extern"))
				external = true;
			t = next(P);
		}
		if (is_w(t, ".entry")) {
			if (external)
				cc_error(cc, t->line, ".extern .entry is not supported");
			parse_entry(P);
		} else if (is_w(t, ".func")) {
			/* found by scan_funcs(); inlined where called */
			skip_func(P);
		} else if (is_w(t, ".global")) {
			parse_module_var(P, VGPU_SP_GLOBAL, external);
		} else if (is_w(t, ".const")) {
			parse_module_var(P, VGPU_SP_CONST, external);
		} else if (is_w(t, ".shared")) {
			parse_module_var(P, VGPU_SP_SHARED, external);
		} else {
			char b[64];

			tokstr(t, b, sizeof(b));
			cc_error(cc, t->line, "unexpected '%s' at module scope", b);
		}
	}
	if (!cc->nentries)
		cc_error(cc, P->toks[P->ntoks - 1].line, "no .entry in the PTX");
	if (cc->nentries > 256)
		cc_error(cc, 1, "too many entries");
}

int ptx_parse(struct compiler *cc, const char *src, size_t len)
{
	struct parser *P = calloc(1, sizeof(*P));
	jmp_buf saved;
	int err;

	if (!P)
		return -ENOMEM;
	P->cc = cc;
	memcpy(saved, cc->jb, sizeof(saved));
	err = setjmp(cc->jb);
	if (!err) {
		lex(P, src, len);
		scan_funcs(P);
		parse_module(P);
	}
	memcpy(cc->jb, saved, sizeof(saved));
	free(P->toks);
	free(P->decls);
	free(P->lvars);
	free(P->fix);
	free(P->funcs);
	free(P);
	return err ? -err : 0;
}
