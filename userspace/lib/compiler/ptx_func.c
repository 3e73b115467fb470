// SPDX-License-Identifier: MIT
/*
 * ptx_func.c - PTX .func: found by a first pass over the module, inlined at each call.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

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
void ptx_skip_func(struct parser *P)
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

	ptx_expect(P, '(');
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
			ptx_unexpected(P, t, "'.param'");
		if (n == MAX_FPARAMS)
			cc_error(P->cc, t->line, "too many parameters");
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
			if (unsup && (is_w(t, ".f16") || is_w(t, ".bf16")))
				ty = VGPU_T_U16;
			if (ty < 0 || ty == VGPU_T_PRED) {
				char b[64];

				ptx_tokstr(t, b, sizeof(b));
				cc_error(P->cc, t->line, "unsupported parameter attribute '%s'", b);
			}
			esize = vgpu_type_bits(ty) / 8;
		}
		if (!esize)
			cc_error(P->cc, P->line, "parameter needs a type");
		ptx_name_of(P, next(P), fp[n].name, sizeof(fp[n].name));
		while (is_p(peek(P), '[')) {
			next(P);
			count *= ptx_expect_uint(P);
			if (!count || count > 4096)
				cc_error(P->cc, P->line, "bad parameter array size");
			ptx_expect(P, ']');
		}
		fp[n].size = (uint32_t)(esize * count);
		fp[n].align = align ? align : esize;
		n++;
		t = next(P);
		if (is_p(t, ')'))
			break;
		if (!is_p(t, ','))
			ptx_unexpected(P, t, "',' or ')'");
	}
	return n;
}

/* First pass: every .func of the module, with its parameters and body. */
void ptx_scan_funcs(struct parser *P)
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
		ptx_name_of(P, next(P), f.name, sizeof(f.name));
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
	ptx_name_of(P, t, name, sizeof(name));
	v = ptx_find_var(P->lvars, P->nlvars, name);
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
	ptx_scopy(v.name, sizeof(v.name), fp->name);
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
void ptx_parse_call(struct parser *P)
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
		ptx_expect(P, ',');
	}
	if (peek(P)->t == T_WORD && peek(P)->s[0] == '%')
		cc_error(P->cc, line, "indirect calls are not supported");
	ptx_name_of(P, next(P), name, sizeof(name));
	if (is_p(peek(P), ',')) {
		next(P);
		ptx_expect(P, '(');
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
	ptx_expect(P, ';');
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
		skip = ptx_label_raw(P, lab, line);
		in = ptx_emit_raw(P, VGPU_OP_BRA, VGPU_T_NONE, true);
		in->gneg = !gneg;
		in->label = skip;
		in->x = true;
	}
	fr = &P->frames[P->nframes];
	fr->func = fi;
	snprintf(fr->prefix, sizeof(fr->prefix), "#%d#", P->ninlined);
	snprintf(lab, sizeof(lab), "#%d#ret", P->ninlined);
	fr->retlabel = ptx_label_raw(P, lab, line);
	for (int k = 0; k < narg; k++)
		bind_slot(P, &f->par[k], args[k], P->depth + 1);
	for (int k = 0; k < nret; k++)
		bind_slot(P, &f->ret[k], rets[k], P->depth + 1);
	P->nframes++;
	resume = P->pos;
	P->pos = f->body;
	ptx_parse_body(P);
	P->pos = resume;
	P->nframes--;
	P->e->labels[fr->retlabel].pos = (int)P->e->nins;
	if (skip >= 0)
		P->e->labels[skip].pos = (int)P->e->nins;
	P->line = line;
}
