// SPDX-License-Identifier: MIT
/*
 * ptx_decl.c - PTX declarations: registers, variables and their initialisers, entry and
 * module scope, kernel parameters.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

int ptx_parse_align(struct parser *P)
{
	uint64_t a;

	next(P);
	a = ptx_expect_uint(P);
	if (!a || (a & (a - 1)) || a > 4096)
		cc_error(P->cc, P->line, "bad alignment");
	return (int)a;
}

/* .reg .type names; (after '.reg') */
void ptx_parse_reg_decl(struct parser *P)
{
	struct tok *t = next(P);
	bool unsup;
	int ty, cls;

	if (t->t != T_WORD || t->s[0] != '.')
		ptx_unexpected(P, t, "a register type");
	if (is_w(t, ".v2") || is_w(t, ".v4"))
		cc_error(P->cc, t->line, "vector registers are not supported");
	ty = ptx_type(t->s + 1, t->len - 1, &unsup);
	if (unsup && is_w(t, ".bf16"))
		ty = VGPU_T_U16;	/* storage only; bf16 arithmetic is refused */
	else if (ty < 0 || unsup)
		cc_error(P->cc, t->line, "unsupported register type");
	cls = type_cls(ty);
	while (1) {
		struct rdecl d = { .count = -1, .cls = cls, .kind = t->s[1],
				   .depth = P->depth };

		ptx_name_of(P, next(P), d.name, sizeof(d.name));
		if (is_p(peek(P), '<')) {
			uint64_t n;

			next(P);
			n = ptx_expect_uint(P);
			ptx_expect(P, '>');
			if (n > 100000)
				cc_error(P->cc, t->line, "too many registers");
			d.count = (int)n;
		}
		d.base = (int)P->e->nvregs;
		for (int i = 0; i < (d.count < 0 ? 1 : d.count); i++)
			ptx_newv(P, cls);
		P->decls = cc_grow(P->cc, P->decls, &P->dcap, P->ndecls + 1, sizeof(*P->decls));
		P->decls[P->ndecls++] = d;
		if (is_p(peek(P), ','))
			next(P);
		else
			break;
	}
	ptx_expect(P, ';');
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
			v->align = ptx_parse_align(P);
			continue;
		}
		if (is_w(t, ".v2") || is_w(t, ".v4"))
			cc_error(P->cc, t->line, "vector variables are not supported");
		ty = ptx_type(t->s + 1, t->len - 1, &unsup);
		if (ty < 0 || ty == VGPU_T_PRED) {
			char b[64];

			ptx_tokstr(t, b, sizeof(b));
			cc_error(P->cc, t->line, "unsupported variable attribute '%s'", b);
		}
		next(P);
	}
	if (ty < 0)
		cc_error(P->cc, P->line, "variable needs a type");
	esize = vgpu_type_bits(ty) / 8;
	if (!v->align)
		v->align = esize;
	ptx_name_of(P, next(P), v->name, sizeof(v->name));
	while (is_p(peek(P), '[')) {
		next(P);
		if (is_p(peek(P), ']')) {
			unsized = true;
		} else {
			uint64_t n = ptx_expect_uint(P);

			if (!n || n > (1u << 30) / count)
				cc_error(P->cc, P->line, "bad array size");
			count *= n;
		}
		ptx_expect(P, ']');
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
		ptx_parse_operand(P, &o);
		if ((i + 1) * esize > size)
			cc_error(P->cc, o.line, "too many initialisers");
		val = ptx_imm_value(P, &o, ty);
		memcpy(buf + i * esize, &val, esize);
		i++;
		if (!brace || !is_p(peek(P), ','))
			break;
		next(P);
	}
	if (brace)
		ptx_expect(P, '}');
}

void ptx_parse_entry_var(struct parser *P, int space)
{
	struct var v = { .space = space, .line = peek(P)->line };

	parse_var(P, &v);
	if (is_p(peek(P), '='))
		cc_error(P->cc, v.line, "initialiser not allowed here");
	ptx_expect(P, ';');
	if (space == VGPU_SP_SHARED) {
		v.offset = align_up(P->e->shared_static, v.align);
		P->e->shared_static = v.offset + v.size;
	} else {
		v.offset = align_up(P->e->local_size, v.align);
		P->e->local_size = v.offset + v.size;
	}
	{
		struct var *o = ptx_find_var(P->lvars, P->nlvars, v.name);

		if (o && o->depth == P->depth)
			cc_error(P->cc, v.line, "'%s' declared twice", v.name);
	}
	v.depth = P->depth;
	P->lvars = cc_grow(P->cc, P->lvars, &P->lvcap, P->nlvars + 1, sizeof(*P->lvars));
	P->lvars[P->nlvars++] = v;
}

/* .param inside a body: an argument or return value of a call, in .local. */
void ptx_parse_call_param(struct parser *P)
{
	ptx_parse_entry_var(P, VGPU_SP_LOCAL);
	P->lvars[P->nlvars - 1].pslot = true;
}

/* Forgets the declarations of blocks deeper than the current one. */
void ptx_pop_scope(struct parser *P)
{
	size_t k = 0;

	while (P->ndecls && P->decls[P->ndecls - 1].depth > P->depth)
		P->ndecls--;
	for (size_t i = 0; i < P->nlvars; i++)
		if (P->lvars[i].depth <= P->depth)
			P->lvars[k++] = P->lvars[i];
	P->nlvars = k;
}

void ptx_parse_module_var(struct parser *P, int space, bool external)
{
	struct compiler *cc = P->cc;
	struct var v = { .space = space, .external = external, .line = peek(P)->line };
	int ty;

	ty = parse_var(P, &v);
	if (external && space != VGPU_SP_SHARED)
		cc_error(cc, v.line, "external .global/.const variables are not supported");
	if (ptx_find_var(cc->mvars, cc->nmvars, v.name))
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
	ptx_expect(P, ';');
	cc->mvars = cc_grow(cc, cc->mvars, &cc->mvcap, cc->nmvars + 1, sizeof(*cc->mvars));
	cc->mvars[cc->nmvars++] = v;
}

void ptx_parse_params(struct parser *P)
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
			ptx_unexpected(P, t, "'.param'");
		while ((t = peek(P))->t == T_WORD && t->s[0] == '.') {
			bool unsup;
			int ty;

			if (is_w(t, ".align")) {
				align = ptx_parse_align(P);
				continue;
			}
			next(P);
			if (is_w(t, ".ptr") || is_w(t, ".global") || is_w(t, ".shared") ||
			    is_w(t, ".const") || is_w(t, ".local"))
				continue;
			ty = ptx_type(t->s + 1, t->len - 1, &unsup);
			if (ty < 0 || ty == VGPU_T_PRED) {
				char b[64];

				ptx_tokstr(t, b, sizeof(b));
				cc_error(P->cc, t->line, "unsupported parameter attribute '%s'", b);
			}
			esize = vgpu_type_bits(ty) / 8;
		}
		if (!esize)
			cc_error(P->cc, P->line, "parameter needs a type");
		ptx_name_of(P, next(P), p.name, sizeof(p.name));
		while (is_p(peek(P), '[')) {
			uint64_t n;

			next(P);
			n = ptx_expect_uint(P);
			if (!n || n > 4096)
				cc_error(P->cc, P->line, "bad parameter array size");
			count *= n;
			ptx_expect(P, ']');
		}
		if (!align)
			align = esize;
		off = align_up(off, align);
		p.offset = off;
		p.align = align;
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
			ptx_unexpected(P, t, "',' or ')'");
	}
	e->param_size = off;
}
