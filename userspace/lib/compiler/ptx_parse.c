// SPDX-License-Identifier: MIT
/*
 * ptx_parse.c - the PTX parser: the module, its entries and their bodies, lowered to vGPU
 * ISA instructions over virtual registers (see compiler_int.h and
 * ptx_parse_int.h). Every construct that is not handled is reported as
 * "ptx:LINE: ..." rather than approximated.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

void ptx_parse_body(struct parser *P)
{
	struct entry *e = P->e;
	int base = P->depth;

	ptx_expect(P, '{');
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
			ptx_pop_scope(P);
			continue;
		}
		if (t->t == T_WORD && t->s[0] == '.') {
			next(P);
			if (is_w(t, ".reg")) {
				ptx_parse_reg_decl(P);
			} else if (is_w(t, ".shared")) {
				ptx_parse_entry_var(P, VGPU_SP_SHARED);
			} else if (is_w(t, ".local")) {
				ptx_parse_entry_var(P, VGPU_SP_LOCAL);
			} else if (is_w(t, ".param")) {
				ptx_parse_call_param(P);
			} else if (is_w(t, ".callprototype")) {
				cc_error(P->cc, t->line, "indirect calls are not supported");
			} else if (is_w(t, ".loc") || is_w(t, ".file")) {
				ptx_skip_line(P, t->line);
			} else if (is_w(t, ".pragma")) {
				while (!is_p(peek(P), ';') && peek(P)->t != T_EOF)
					next(P);
				ptx_expect(P, ';');
			} else {
				char b[64];

				ptx_tokstr(t, b, sizeof(b));
				cc_error(P->cc, t->line, "unsupported directive '%s'", b);
			}
			continue;
		}
		if (t->t == T_WORD && is_p(peek2(P), ':')) {
			char name[128];
			int id;

			ptx_name_of(P, next(P), name, sizeof(name));
			next(P);
			id = ptx_label_id(P, name, t->line);
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
			ptx_name_of(P, next(P), name, sizeof(name));
			g = ptx_find_reg(P, name);
			if (g < 0 || vcls(P, g) != VC_PRED)
				cc_error(P->cc, t->line, "guard '%s' is not a predicate", name);
			P->guard = g;
		}
		optok = next(P);
		if (optok->t != T_WORD || optok->s[0] == '.' || optok->s[0] == '%')
			ptx_unexpected(P, optok, "an instruction");
		P->line = optok->line;
		if (optok->len >= 4 && !memcmp(optok->s, "call", 4) &&
		    (optok->len == 4 || optok->s[4] == '.')) {
			ptx_parse_call(P);
			continue;
		}
		while (!is_p(peek(P), ';')) {
			if (n == 8)
				cc_error(P->cc, P->line, "too many operands");
			ptx_parse_operand(P, &ops[n++]);
			if (is_p(peek(P), ','))
				next(P);
			else if (!is_p(peek(P), ';'))
				ptx_unexpected(P, peek(P), "',' or ';'");
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
		ptx_lower(P, optok, ops, n);
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
	ptx_name_of(P, t, e->name, sizeof(e->name));
	if (strlen(e->name) >= 64)
		cc_error(cc, t->line, "entry name longer than 63 characters");
	e->line = t->line;
	for (size_t i = 0; i + 1 < cc->nentries; i++)
		if (!strcmp(cc->entries[i].name, e->name))
			cc_error(cc, t->line, "entry '%s' defined twice", e->name);
	ptx_parse_params(P);
	while ((t = peek(P))->t == T_WORD && t->s[0] == '.') {
		next(P);
		if (is_w(t, ".maxntid") || is_w(t, ".reqntid")) {
			uint64_t prod = 1;

			for (int i = 0; i < 3; i++) {
				prod *= ptx_expect_uint(P);
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
			ptx_expect_uint(P);
		} else if (is_w(t, ".noreturn")) {
		} else if (is_w(t, ".pragma")) {
			while (!is_p(peek(P), ';') && peek(P)->t != T_EOF)
				next(P);
			ptx_expect(P, ';');
		} else {
			char b[64];

			ptx_tokstr(t, b, sizeof(b));
			cc_error(cc, t->line, "unsupported entry directive '%s'", b);
		}
	}
	if (is_p(peek(P), ';'))
		cc_error(cc, peek(P)->line, "entry declarations without a body are not supported");
	ptx_parse_body(P);
	finish_entry(P);
	if (cc->opts & VGPU_COMPILE_VIRTUAL_TB)
		vtb_transform(cc, e);
	cg_entry(cc, e);
	P->e = NULL;
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
				ptx_unexpected(P, v, "a version");
			seen_version = true;
			continue;
		}
		if (is_w(t, ".target")) {
			ptx_skip_line(P, t->line);
			continue;
		}
		if (is_w(t, ".address_size")) {
			if (ptx_expect_uint(P) != 64)
				cc_error(cc, t->line, "only .address_size 64 is supported");
			continue;
		}
		if (is_w(t, ".file") || is_w(t, ".loc")) {
			ptx_skip_line(P, t->line);
			continue;
		}
		if (is_w(t, ".pragma")) {
			while (!is_p(peek(P), ';') && peek(P)->t != T_EOF)
				next(P);
			ptx_expect(P, ';');
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
			/* found by ptx_scan_funcs(); inlined where called */
			ptx_skip_func(P);
		} else if (is_w(t, ".global")) {
			ptx_parse_module_var(P, VGPU_SP_GLOBAL, external);
		} else if (is_w(t, ".const")) {
			ptx_parse_module_var(P, VGPU_SP_CONST, external);
		} else if (is_w(t, ".shared")) {
			ptx_parse_module_var(P, VGPU_SP_SHARED, external);
		} else {
			char b[64];

			ptx_tokstr(t, b, sizeof(b));
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
		ptx_lex(P, src, len);
		ptx_scan_funcs(P);
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
