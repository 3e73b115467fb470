/* SPDX-License-Identifier: MIT */
/*
 * ptx_parse_int.h - what the files of the PTX parser share: tokens, the
 * parser's state, parsed operands and opcode words, and the functions one
 * file of the parser calls in another (ptx_lex.c, ptx_operand.c,
 * ptx_lower*.c, ptx_decl.c, ptx_func.c, ptx_parse.c). Not for the code
 * generator, which sees compiler_int.h only.
 */
#ifndef PTX_PARSE_INT_H
#define PTX_PARSE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "compiler_int.h"

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
	char kind;		/* 'b', 'u', 's', 'f' or 'p': the declared type */
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


/* Operand for slot B: a register or an immediate of any size. Prepared
 * (materialised) before the instruction is emitted, applied after. */
struct bsrc {
	bool imm;
	uint64_t v;
	int r;
	int type;
};

#define MAXMODS 12

struct opword {
	char base[32];
	char mods[MAXMODS][32];
	int nmods;
	int types[4];		/* type modifiers in order */
	int ntypes;
	bool used[MAXMODS];
};

/* ptx_lex.c */
void ptx_scopy(char *dst, size_t n, const char *src);
void ptx_lex(struct parser *P, const char *src, size_t len);
void ptx_tokstr(const struct tok *t, char *buf, size_t n);
_Noreturn void ptx_unexpected(struct parser *P, const struct tok *t, const char *what);
void ptx_expect(struct parser *P, char c);
void ptx_name_of(struct parser *P, const struct tok *t, char *buf, size_t n);
bool ptx_parse_uint(const struct tok *t, uint64_t *v);
uint64_t ptx_expect_uint(struct parser *P);
void ptx_skip_line(struct parser *P, int line);

/* ptx_operand.c */
int ptx_type(const char *s, size_t n, bool *unsupported);
int ptx_newv(struct parser *P, int cls);
struct ins *ptx_emit_raw(struct parser *P, int op, int type, bool guarded);
void ptx_set_bimm(struct ins *in, uint64_t v, int type);
int ptx_find_reg(struct parser *P, const char *name);
struct var *ptx_find_var(struct var *v, size_t n, const char *name);
int ptx_label_raw(struct parser *P, const char *name, int line);
int ptx_label_id(struct parser *P, const char *name, int line);
void ptx_parse_operand(struct parser *P, struct pop *o);
_Noreturn void ptx_bad_operand(struct parser *P, const struct pop *o, const char *what);
uint64_t ptx_imm_value(struct parser *P, const struct pop *o, int type);
void ptx_check_cls(struct parser *P, const struct pop *o, int v, int cls);
int ptx_sym_addr(struct parser *P, const struct pop *o, int cls, int64_t add);
int ptx_mat(struct parser *P, const struct pop *o, int type, int cls);
struct bsrc ptx_prepB(struct parser *P, const struct pop *o, int type, int cls);
void ptx_applyB(struct ins *in, struct bsrc b);
struct opnd ptx_srcC(struct parser *P, const struct pop *o, int type, int cls);
int ptx_dst_reg(struct parser *P, const struct pop *o, int cls);
void ptx_zext16(struct parser *P, int d);
void ptx_narrow_src(struct parser *P, struct pop *o, int t);
int ptx_wide_type(int t);
void ptx_split_op(struct parser *P, const struct tok *t, struct opword *w);
int ptx_which(struct opword *w, const char *const *names);
void ptx_ignore_hints(struct opword *w);
void ptx_check_mods(struct parser *P, struct opword *w);
int ptx_float_rnd(struct opword *w);

/* ptx_lower_alu.c */
void ptx_lower_mov(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_cvta(struct parser *P, struct opword *w, struct pop *o, int n);
int ptx_t2(struct parser *P, int op, int type, int a, int b, bool bimm, uint64_t bv);
int ptx_tsetp(struct parser *P, int type, int cmp, int a, int b, bool bimm, uint64_t bv,
	      int bop, int pc);
void ptx_dmov(struct parser *P, int d, int src, int type);
void ptx_lower_carry(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_sad24(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_arith(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_unary(struct parser *P, struct opword *w, struct pop *o, int n, int op);
void ptx_lower_logic(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_shift(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_bfind(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_copysign(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_testp(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_bits(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_setp(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_selp(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_cvt(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_f16(struct parser *P, struct opword *w, struct pop *o, int n);

/* ptx_lower_mem.c */
void ptx_set_mem_off(struct parser *P, struct ins *in, int64_t off, bool fix,
		     bool atom);
void ptx_lower_ldst(struct parser *P, struct opword *w, struct pop *o, int n, bool st);
void ptx_lower_atom(struct parser *P, struct opword *w, struct pop *o, int n, bool red);

/* ptx_lower_warp.c */
void ptx_lower_bar_red(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_shfl(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_vote(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_match(struct parser *P, struct opword *w, struct pop *o, int n);
void ptx_lower_redux(struct parser *P, struct opword *w, struct pop *o, int n);

/* ptx_lower.c */
void ptx_lower(struct parser *P, const struct tok *optok, struct pop *o, int n);

/* ptx_decl.c */
int ptx_parse_align(struct parser *P);
void ptx_parse_reg_decl(struct parser *P);
void ptx_parse_entry_var(struct parser *P, int space);
void ptx_parse_call_param(struct parser *P);
void ptx_pop_scope(struct parser *P);
void ptx_parse_module_var(struct parser *P, int space, bool external);
void ptx_parse_params(struct parser *P);

/* ptx_func.c */
void ptx_skip_func(struct parser *P);
void ptx_scan_funcs(struct parser *P);
void ptx_parse_call(struct parser *P);

/* ptx_parse.c */
void ptx_parse_body(struct parser *P);

/* Small helpers, inline in every file of the parser. */

static inline struct tok *peek(struct parser *P)
{
	return &P->toks[P->pos];
}

static inline struct tok *peek2(struct parser *P)
{
	return P->pos + 1 < P->ntoks ? &P->toks[P->pos + 1] : &P->toks[P->ntoks - 1];
}

static inline struct tok *next(struct parser *P)
{
	struct tok *t = &P->toks[P->pos];

	if (t->t != T_EOF)
		P->pos++;
	return t;
}

static inline bool is_p(const struct tok *t, char c)
{
	return t->t == T_PUNCT && t->ch == c;
}

static inline bool is_w(const struct tok *t, const char *w)
{
	return t->t == T_WORD && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}

static inline int type_cls(int t)
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

static inline int vcls(struct parser *P, int v)
{
	return P->e->vregs[v].cls;
}

/* The instruction that writes the PTX destination: guarded. */
static inline struct ins *emit(struct parser *P, int op, int type)
{
	return ptx_emit_raw(P, op, type, true);
}

/* A temporary computation: never guarded (its result is fresh). */
static inline struct ins *emit_tmp(struct parser *P, int op, int type)
{
	return ptx_emit_raw(P, op, type, false);
}

static inline struct opnd R(int v)
{
	return (struct opnd){ .k = OK_REG, .r = v };
}

static inline struct opnd I(uint64_t v)
{
	return (struct opnd){ .k = OK_IMM, .v = v };
}

static inline uint32_t align_up(uint32_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

static inline bool has(struct opword *w, const char *m)
{
	for (int i = 0; i < w->nmods; i++) {
		if (!strcmp(w->mods[i], m)) {
			w->used[i] = true;
			return true;
		}
	}
	return false;
}

static inline int one_type(struct parser *P, struct opword *w)
{
	if (w->ntypes != 1)
		cc_error(P->cc, P->line, "'%s' needs exactly one type", w->base);
	return w->types[0];
}

static inline void nops(struct parser *P, int n, int want, const char *what)
{
	if (n != want)
		cc_error(P->cc, P->line, "'%s' takes %d operands", what, want);
}

#endif /* PTX_PARSE_INT_H */
