// SPDX-License-Identifier: MIT
/*
 * ptx_lower.c - lowering of one PTX instruction: the opcode word to its family's lowering.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse_int.h"

static bool has_f16(const struct opword *w)
{
	for (int i = 0; i < w->ntypes; i++)
		if (w->types[i] == VGPU_T_F16)
			return true;
	return false;
}

void ptx_lower(struct parser *P, const struct tok *optok, struct pop *o, int n)
{
	struct opword w;
	const char *b;
	struct ins *in;

	ptx_split_op(P, optok, &w);
	b = w.base;
	if (has_f16(&w) && strcmp(b, "ld") && strcmp(b, "ldu") && strcmp(b, "st") &&
	    strcmp(b, "mov") && strcmp(b, "cvt")) {
		ptx_lower_f16(P, &w, o, n);
	} else if (!strcmp(b, "mov")) {
		ptx_lower_mov(P, &w, o, n);
	} else if (!strcmp(b, "ld") || !strcmp(b, "ldu")) {
		ptx_lower_ldst(P, &w, o, n, false);
	} else if (!strcmp(b, "st")) {
		ptx_lower_ldst(P, &w, o, n, true);
	} else if (!strcmp(b, "cvta")) {
		ptx_lower_cvta(P, &w, o, n);
	} else if (!strcmp(b, "add") || !strcmp(b, "sub") || !strcmp(b, "mul") ||
		   !strcmp(b, "mad") || !strcmp(b, "fma") || !strcmp(b, "div") ||
		   !strcmp(b, "rem") || !strcmp(b, "min") || !strcmp(b, "max")) {
		ptx_lower_arith(P, &w, o, n);
	} else if (!strcmp(b, "addc") || !strcmp(b, "subc") || !strcmp(b, "madc")) {
		ptx_lower_carry(P, &w, o, n);
	} else if (!strcmp(b, "sad") || !strcmp(b, "mul24") || !strcmp(b, "mad24")) {
		ptx_lower_sad24(P, &w, o, n);
	} else if (!strcmp(b, "neg")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_NEG);
	} else if (!strcmp(b, "abs")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_ABS);
	} else if (!strcmp(b, "popc")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_POPC);
	} else if (!strcmp(b, "clz")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_CLZ);
	} else if (!strcmp(b, "brev")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_BREV);
	} else if (!strcmp(b, "sqrt")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_SQRT);
	} else if (!strcmp(b, "rsqrt")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_RSQRT);
	} else if (!strcmp(b, "rcp")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_RCP);
	} else if (!strcmp(b, "sin")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_SIN);
	} else if (!strcmp(b, "cos")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_COS);
	} else if (!strcmp(b, "lg2")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_LG2);
	} else if (!strcmp(b, "ex2")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_EX2);
	} else if (!strcmp(b, "tanh")) {
		ptx_lower_unary(P, &w, o, n, VGPU_OP_TANH);
	} else if (!strcmp(b, "and") || !strcmp(b, "or") || !strcmp(b, "xor") ||
		   !strcmp(b, "not") || !strcmp(b, "cnot")) {
		ptx_lower_logic(P, &w, o, n);
	} else if (!strcmp(b, "shl") || !strcmp(b, "shr")) {
		ptx_lower_shift(P, &w, o, n);
	} else if (!strcmp(b, "bfe") || !strcmp(b, "bfi") || !strcmp(b, "prmt")) {
		ptx_lower_bits(P, &w, o, n);
	} else if (!strcmp(b, "setp")) {
		ptx_lower_setp(P, &w, o, n);
	} else if (!strcmp(b, "selp")) {
		ptx_lower_selp(P, &w, o, n);
	} else if (!strcmp(b, "cvt")) {
		ptx_lower_cvt(P, &w, o, n);
	} else if (!strcmp(b, "atom") || !strcmp(b, "red")) {
		ptx_lower_atom(P, &w, o, n, b[0] == 'r');
	} else if (!strcmp(b, "shfl")) {
		ptx_lower_shfl(P, &w, o, n);
	} else if (!strcmp(b, "vote")) {
		ptx_lower_vote(P, &w, o, n);
	} else if (!strcmp(b, "activemask")) {
		nops(P, n, 1, b);
		has(&w, "b32");
		ptx_check_mods(P, &w);
		in = emit(P, VGPU_OP_S2R, VGPU_T_U32);
		in->mod = VGPU_SR_ACTIVEMASK;
		in->d = ptx_dst_reg(P, &o[0], VC_32);
	} else if (!strcmp(b, "bra")) {
		ptx_ignore_hints(&w);
		ptx_check_mods(P, &w);
		nops(P, n, 1, b);
		if (o[0].kind != PO_SYM)
			ptx_bad_operand(P, &o[0], "a label");
		in = emit(P, VGPU_OP_BRA, VGPU_T_NONE);
		in->label = ptx_label_id(P, o[0].name, P->line);
		in->x = true;
	} else if (!strcmp(b, "ret") && P->nframes) {
		ptx_ignore_hints(&w);
		ptx_check_mods(P, &w);
		nops(P, n, 0, b);
		in = emit(P, VGPU_OP_BRA, VGPU_T_NONE);
		in->label = P->frames[P->nframes - 1].retlabel;
		in->x = true;
	} else if (!strcmp(b, "ret") || !strcmp(b, "exit")) {
		ptx_ignore_hints(&w);
		ptx_check_mods(P, &w);
		nops(P, n, 0, b);
		emit(P, VGPU_OP_EXIT, VGPU_T_NONE);
	} else if (!strcmp(b, "trap")) {
		nops(P, n, 0, b);
		emit(P, VGPU_OP_TRAP, VGPU_T_NONE);
	} else if (!strcmp(b, "redux")) {
		ptx_lower_redux(P, &w, o, n);
	} else if (!strcmp(b, "match")) {
		ptx_lower_match(P, &w, o, n);
	} else if (!strcmp(b, "bfind")) {
		ptx_lower_bfind(P, &w, o, n);
	} else if (!strcmp(b, "copysign")) {
		ptx_lower_copysign(P, &w, o, n);
	} else if (!strcmp(b, "testp")) {
		ptx_lower_testp(P, &w, o, n);
	} else if ((!strcmp(b, "bar") || !strcmp(b, "barrier")) && w.nmods && !strcmp(w.mods[0], "red")) {
		ptx_lower_bar_red(P, &w, o, n);
	} else if (!strcmp(b, "bar") || !strcmp(b, "barrier")) {
		if (has(&w, "warp")) {
			has(&w, "sync");
			ptx_check_mods(P, &w);
			return;	/* warps execute in lockstep here */
		}
		if (!has(&w, "sync") && !(w.nmods == 0 && !strcmp(b, "bar")))
			cc_error(P->cc, P->line, "unsupported barrier form");
		ptx_ignore_hints(&w);
		ptx_check_mods(P, &w);
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
