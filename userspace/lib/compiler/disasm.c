// SPDX-License-Identifier: MIT
/*
 * disasm.c - vgpu_disasm(): a listing of a program image.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <drm/vgpu_program.h>

#include "vgpu_compile.h"
#include <vgpu/isa.h>

static const char *op_name(unsigned int op)
{
	static const char *const n[VGPU_OP_MAX_] = {
		[VGPU_OP_NOP] = "nop", [VGPU_OP_EXIT] = "exit", [VGPU_OP_BRA] = "bra",
		[VGPU_OP_BAR] = "bar", [VGPU_OP_MEMBAR] = "membar", [VGPU_OP_TRAP] = "trap",
		[VGPU_OP_MOV] = "mov", [VGPU_OP_S2R] = "s2r", [VGPU_OP_LEAD] = "lead",
		[VGPU_OP_CVTA] = "cvta", [VGPU_OP_PACK] = "pack", [VGPU_OP_UNPK] = "unpk",
		[VGPU_OP_NEXTTB] = "nexttb",
		[VGPU_OP_ADD] = "add", [VGPU_OP_SUB] = "sub", [VGPU_OP_MUL] = "mul",
		[VGPU_OP_MULHI] = "mulhi", [VGPU_OP_MULWD] = "mulwd", [VGPU_OP_MAD] = "mad",
		[VGPU_OP_MADHI] = "madhi", [VGPU_OP_MADWD] = "madwd", [VGPU_OP_DIV] = "div",
		[VGPU_OP_REM] = "rem", [VGPU_OP_MIN] = "min", [VGPU_OP_MAX] = "max",
		[VGPU_OP_NEG] = "neg", [VGPU_OP_ABS] = "abs", [VGPU_OP_AND] = "and",
		[VGPU_OP_OR] = "or", [VGPU_OP_XOR] = "xor", [VGPU_OP_NOT] = "not",
		[VGPU_OP_SHL] = "shl", [VGPU_OP_SHR] = "shr", [VGPU_OP_POPC] = "popc",
		[VGPU_OP_CLZ] = "clz", [VGPU_OP_BREV] = "brev", [VGPU_OP_BFE] = "bfe",
		[VGPU_OP_BFI] = "bfi", [VGPU_OP_PRMT] = "prmt", [VGPU_OP_CNOT] = "cnot",
		[VGPU_OP_SQRT] = "sqrt", [VGPU_OP_RSQRT] = "rsqrt", [VGPU_OP_RCP] = "rcp",
		[VGPU_OP_SIN] = "sin", [VGPU_OP_COS] = "cos", [VGPU_OP_LG2] = "lg2",
		[VGPU_OP_EX2] = "ex2", [VGPU_OP_TANH] = "tanh", [VGPU_OP_SETP] = "setp",
		[VGPU_OP_SELP] = "selp", [VGPU_OP_PLOP] = "plop", [VGPU_OP_CVT] = "cvt",
		[VGPU_OP_LD] = "ld", [VGPU_OP_ST] = "st", [VGPU_OP_ATOM] = "atom",
		[VGPU_OP_SHFL] = "shfl", [VGPU_OP_VOTE] = "vote",
	};

	return op < VGPU_OP_MAX_ ? n[op] : NULL;
}

static const char *type_name(unsigned int t)
{
	static const char *const n[16] = {
		"", "u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "?9", "f32",
		"f64", "pred", "?13", "?14", "?15",
	};

	return n[t & 15];
}

static const char *const sp_names[8] = { "", "global", "shared", "local", "param", "const",
					 "?6", "?7" };
static const char *const cmp_n[16] = { "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu",
				       "ltu", "leu", "gtu", "geu", "num", "nan", "?14", "?15" };
static const char *const bop_n[4] = { "", "and", "or", "xor" };
static const char *const atom_n[16] = { "add", "min", "max", "exch", "cas", "and", "or",
					"xor", "inc", "dec", "?10", "?11", "?12", "?13", "?14",
					"?15" };
static const char *const rnd_n[4] = { "rn", "rz", "rm", "rp" };
static const char *const sr_n[VGPU_SR_COUNT_] = {
	"tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z", "ctaid.x", "ctaid.y",
	"ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpid", "nwarpid",
	"smid", "nsmid", "lanemask_eq", "lanemask_lt", "lanemask_le", "lanemask_gt",
	"lanemask_ge", "clock", "clock64", "dynamic_smem_size", "total_smem_size",
	"activemask",
};

static void reg(FILE *o, unsigned int r, unsigned int type)
{
	if (r == VGPU_RZ)
		fprintf(o, "RZ");
	else if (vgpu_type_is64(type))
		fprintf(o, "R%u:%u", r, r + 1);
	else
		fprintf(o, "R%u", r);
}

static int64_t sext8(unsigned int v)
{
	return (int8_t)(uint8_t)v;
}

static void bsrc(FILE *o, uint64_t w, uint64_t ext, unsigned int type)
{
	if (!(w & VGPU_I_BI)) {
		reg(o, VGPU_I_B(w), type);
		return;
	}
	if (w & VGPU_I_X) {
		if (type == VGPU_T_F32) {
			union { uint32_t u; float f; } f = { .u = (uint32_t)ext };

			fprintf(o, "0f%08" PRIx32 " /* %g */", f.u, f.f);
		} else if (type == VGPU_T_F64) {
			union { uint64_t u; double d; } d = { .u = ext };

			fprintf(o, "0d%016" PRIx64 " /* %g */", d.u, d.d);
		} else {
			fprintf(o, "0x%" PRIx64, vgpu_type_is64(type) ? ext : (uint32_t)ext);
		}
		return;
	}
	fprintf(o, "%" PRId64, sext8(VGPU_I_B(w)));
}

static void csrc(FILE *o, uint64_t w, unsigned int type)
{
	if (w & VGPU_I_CI)
		fprintf(o, "%" PRId64, sext8(VGPU_I_C(w)));
	else
		reg(o, VGPU_I_C(w), type);
}

static void mem_operand(FILE *o, uint64_t w, uint64_t ext)
{
	unsigned int m = VGPU_I_MOD(w);
	int64_t off = 0;

	if (w & VGPU_I_X)
		off = (int32_t)(uint32_t)ext;
	else if (w & VGPU_I_BI && VGPU_I_OP(w) != VGPU_OP_ATOM)
		off = sext8(VGPU_I_B(w));
	fprintf(o, "[");
	if (VGPU_M_MEM_REL(m))
		fprintf(o, "data+");
	reg(o, VGPU_I_A(w), VGPU_M_MEM_A64(m) ? VGPU_T_U64 : VGPU_T_U32);
	if (off)
		fprintf(o, "%+" PRId64, off);
	fprintf(o, "]");
}

static void disasm_one(FILE *o, uint64_t w, uint64_t ext)
{
	unsigned int op = VGPU_I_OP(w), t = VGPU_I_TYPE(w), m = VGPU_I_MOD(w);
	unsigned int d = VGPU_I_D(w), a = VGPU_I_A(w);
	const char *name = op_name(op);

	if (w & VGPU_I_GE)
		fprintf(o, "@%sP%u ", VGPU_I_GN(w) ? "!" : "", VGPU_I_GP(w));
	if (!name) {
		fprintf(o, ".word 0x%016" PRIx64, w);
		return;
	}
	fprintf(o, "%s", name);
	switch (op) {
	case VGPU_OP_NOP: case VGPU_OP_EXIT: case VGPU_OP_MEMBAR: case VGPU_OP_TRAP:
		return;
	case VGPU_OP_BAR:
		fprintf(o, " %u", m);
		return;
	case VGPU_OP_BRA:
		fprintf(o, " %" PRIu32, (uint32_t)ext);
		if ((uint32_t)(ext >> 32) != VGPU_NO_RECONV)
			fprintf(o, ", reconv %" PRIu32, (uint32_t)(ext >> 32));
		return;
	case VGPU_OP_S2R:
		fprintf(o, ".%s ", type_name(t));
		reg(o, d, t);
		fprintf(o, ", %%%s", m < VGPU_SR_COUNT_ ? sr_n[m] : "?");
		return;
	case VGPU_OP_NEXTTB:
		fprintf(o, m == VGPU_NEXTTB_TID ? ".tid " : " ");
		reg(o, d, t);
		return;
	case VGPU_OP_LEAD:
		fprintf(o, " ");
		reg(o, d, VGPU_T_U64);
		fprintf(o, ", data+");
		bsrc(o, w, ext, VGPU_T_U32);
		return;
	case VGPU_OP_CVTA:
		fprintf(o, ".%s.%s ", (m >> 3 & 1) ? "to" : "from", sp_names[m & 7]);
		reg(o, d, t);
		fprintf(o, ", ");
		reg(o, a, t);
		return;
	case VGPU_OP_PACK:
		fprintf(o, " ");
		reg(o, d, VGPU_T_U64);
		fprintf(o, ", ");
		reg(o, a, VGPU_T_U32);
		fprintf(o, ", ");
		reg(o, VGPU_I_B(w), VGPU_T_U32);
		return;
	case VGPU_OP_UNPK:
		fprintf(o, ".%s ", m ? "hi" : "lo");
		reg(o, d, VGPU_T_U32);
		fprintf(o, ", ");
		reg(o, a, VGPU_T_U64);
		return;
	case VGPU_OP_SETP:
		fprintf(o, ".%s%s%s%s.%s P%u", cmp_n[VGPU_M_SETP_CMP(m)],
			VGPU_M_SETP_BOP(m) ? "." : "", bop_n[VGPU_M_SETP_BOP(m)],
			VGPU_M_SETP_FTZ(m) ? ".ftz" : "", type_name(t), d & 7);
		if (VGPU_M_SETP_QON(m))
			fprintf(o, "|P%u", VGPU_M_SETP_Q(m));
		fprintf(o, ", ");
		reg(o, a, t);
		fprintf(o, ", ");
		bsrc(o, w, ext, t);
		if (VGPU_M_SETP_BOP(m))
			fprintf(o, ", %sP%u", VGPU_M_SETP_CNEG(m) ? "!" : "", VGPU_I_C(w) & 7);
		return;
	case VGPU_OP_SELP:
		fprintf(o, ".%s ", type_name(t));
		reg(o, d, t);
		fprintf(o, ", ");
		reg(o, a, t);
		fprintf(o, ", ");
		bsrc(o, w, ext, t);
		fprintf(o, ", %sP%u", m & 8 ? "!" : "", m & 7);
		return;
	case VGPU_OP_PLOP:
		fprintf(o, "%s%s P%u, %sP%u", m & 3 ? "." : "", bop_n[m & 3], d & 7,
			m & 4 ? "!" : "", a & 7);
		if (m & 3)
			fprintf(o, ", %sP%u", m & 8 ? "!" : "", VGPU_I_B(w) & 7);
		return;
	case VGPU_OP_CVT:
		fprintf(o, ".%s%s%s%s.%s.%s ", rnd_n[VGPU_M_CVT_RND(m)],
			VGPU_M_CVT_RINT(m) ? "i" : "",
			VGPU_M_CVT_SAT(m) ? ".sat" : "", VGPU_M_CVT_FTZ(m) ? ".ftz" : "",
			type_name(t), type_name(VGPU_M_CVT_ST(m)));
		reg(o, d, t);
		fprintf(o, ", ");
		reg(o, a, VGPU_M_CVT_ST(m));
		return;
	case VGPU_OP_LD: case VGPU_OP_ST: {
		unsigned int nv = 1u << VGPU_M_MEM_LVEC(m);
		static const char *const sz[8] = { "8", "16", "32", "64", "?", "?", "?", "?" };

		fprintf(o, "%s%s%s%s.%s%s ", VGPU_M_MEM_SP(m) ? "." : "", sp_names[VGPU_M_MEM_SP(m)],
			nv > 1 ? ".v" : "", nv == 2 ? "2" : nv == 4 ? "4" : "",
			VGPU_M_MEM_SX(m) ? "s" : "b", sz[VGPU_M_MEM_LSZ(m)]);
		if (op == VGPU_OP_ST) {
			mem_operand(o, w, ext);
			fprintf(o, ", ");
		}
		if (nv > 1) {
			fprintf(o, "{");
			for (unsigned int i = 0; i < nv; i++) {
				if (i)
					fprintf(o, ", ");
				reg(o, (unsigned int)(ext >> (32 + 8 * i)) & 0xff, t);
			}
			fprintf(o, "}");
		} else {
			reg(o, op == VGPU_OP_ST ? VGPU_I_C(w) : d, t);
		}
		if (op == VGPU_OP_LD) {
			fprintf(o, ", ");
			mem_operand(o, w, ext);
		}
		fprintf(o, " /* .%s */", type_name(t));
		return;
	}
	case VGPU_OP_ATOM:
		fprintf(o, "%s%s.%s.%s ", VGPU_M_MEM_SP(m) ? "." : "", sp_names[VGPU_M_MEM_SP(m)],
			atom_n[VGPU_M_ATOM_OP(m)], type_name(t));
		reg(o, d, t);
		fprintf(o, ", ");
		mem_operand(o, w, ext);
		fprintf(o, ", ");
		if (w & VGPU_I_BI)
			fprintf(o, "%" PRId64, sext8(VGPU_I_B(w)));
		else
			reg(o, VGPU_I_B(w), t);
		if (VGPU_M_ATOM_OP(m) == VGPU_ATOM_CAS) {
			fprintf(o, ", ");
			csrc(o, w, t);
		}
		return;
	case VGPU_OP_SHFL: {
		static const char *const mn[4] = { "up", "down", "bfly", "idx" };

		fprintf(o, ".%s ", mn[m & 3]);
		reg(o, d, VGPU_T_U32);
		if (m & 32)
			fprintf(o, "|P%u", (m >> 2) & 7);
		fprintf(o, ", ");
		reg(o, a, VGPU_T_U32);
		fprintf(o, ", ");
		if (w & VGPU_I_BI)
			fprintf(o, "%" PRId64, sext8(VGPU_I_B(w)));
		else
			reg(o, VGPU_I_B(w), VGPU_T_U32);
		fprintf(o, ", ");
		csrc(o, w, VGPU_T_U32);
		return;
	}
	case VGPU_OP_VOTE: {
		static const char *const mn[4] = { "all", "any", "uni", "ballot" };

		fprintf(o, ".%s ", mn[m & 3]);
		if ((m & 3) == VGPU_VOTE_BALLOT)
			reg(o, d, VGPU_T_U32);
		else
			fprintf(o, "P%u", d & 7);
		fprintf(o, ", %sP%u", m & 32 ? "!" : "", (m >> 2) & 7);
		return;
	}
	default:
		break;
	}
	/* arithmetic and the rest: op.type d, a[, b[, c]] */
	if (t)
		fprintf(o, ".%s", type_name(t));
	if (vgpu_type_float(t)) {
		if (VGPU_M_RND(m))
			fprintf(o, ".%s", rnd_n[VGPU_M_RND(m)]);
		if (m & VGPU_M_FTZ)
			fprintf(o, ".ftz");
		if (m & VGPU_M_SAT)
			fprintf(o, ".sat");
	}
	{
		unsigned int dt = t, st = t;

		if (op == VGPU_OP_MULWD || op == VGPU_OP_MADWD)
			dt = vgpu_type_signed(t) ? VGPU_T_S64 : VGPU_T_U64;
		if (op == VGPU_OP_POPC || op == VGPU_OP_CLZ)
			dt = VGPU_T_U32;
		fprintf(o, " ");
		reg(o, d, dt);
		if (op == VGPU_OP_MOV) {
			fprintf(o, ", ");
			bsrc(o, w, ext, t);
			return;
		}
		fprintf(o, ", ");
		reg(o, a, st);
		switch (op) {
		case VGPU_OP_NEG: case VGPU_OP_ABS: case VGPU_OP_NOT: case VGPU_OP_CNOT:
		case VGPU_OP_POPC: case VGPU_OP_CLZ: case VGPU_OP_BREV: case VGPU_OP_SQRT:
		case VGPU_OP_RSQRT: case VGPU_OP_RCP: case VGPU_OP_SIN: case VGPU_OP_COS:
		case VGPU_OP_LG2: case VGPU_OP_EX2: case VGPU_OP_TANH:
			return;
		default:
			break;
		}
		fprintf(o, ", ");
		bsrc(o, w, ext, op == VGPU_OP_SHL || op == VGPU_OP_SHR || op == VGPU_OP_BFE ?
		     VGPU_T_U32 : st);
		if (op == VGPU_OP_MAD || op == VGPU_OP_MADHI || op == VGPU_OP_MADWD ||
		    op == VGPU_OP_BFE || op == VGPU_OP_BFI || op == VGPU_OP_PRMT) {
			fprintf(o, ", ");
			csrc(o, w, op == VGPU_OP_MADWD ? dt : op == VGPU_OP_MAD ||
			     op == VGPU_OP_MADHI ? st : VGPU_T_U32);
		}
		if (op == VGPU_OP_BFI)
			fprintf(o, ", %u", m);
	}
}

int vgpu_disasm(const void *image, size_t size, FILE *o)
{
	const uint8_t *img = image;
	const struct vgpu_program_header *h = image;
	const uint64_t *code;
	uint32_t nwords;

	if (size < sizeof(*h) || h->magic != VGPU_PROGRAM_MAGIC) {
		fprintf(o, "not a vgpu program image\n");
		return -EINVAL;
	}
	fprintf(o, "program: version %u.%u, %u bytes, %u entries, %u bytes of code, "
		"data %u (%u initialised)\n", h->version_major, h->version_minor,
		h->image_size, h->num_entries, h->code_size, h->data_size, h->data_init_size);
	if (h->image_size > size || h->entry_size < sizeof(struct vgpu_program_entry) ||
	    (uint64_t)h->entries_offset + (uint64_t)h->num_entries * h->entry_size > size ||
	    (uint64_t)h->code_offset + h->code_size > size || h->code_size % 8 ||
	    h->code_offset % 8) {
		fprintf(o, "malformed header\n");
		return -EINVAL;
	}
	code = (const uint64_t *)(img + h->code_offset);
	nwords = h->code_size / 8;
	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e =
			(const void *)(img + h->entries_offset + (size_t)i * h->entry_size);
		char name[VGPU_PROGRAM_NAME_LEN + 1];

		memcpy(name, e->name, VGPU_PROGRAM_NAME_LEN);
		name[VGPU_PROGRAM_NAME_LEN] = 0;
		fprintf(o, "\n.entry %s  // code [%u, %u) regs %u shared %u params %u local %u"
			" maxntid %u flags%s%s%s%s\n", name, e->code_start / 8, e->code_end / 8,
			e->regs_per_thread, e->shared_static, e->param_size, e->local_per_thread,
			e->max_threads_per_tb, e->flags & VGPU_ENTRY_HAS_ATOMICS ? " atomics" : "",
			e->flags & VGPU_ENTRY_HAS_GLOBAL_RMW ? " global-rmw" : "",
			e->flags & VGPU_ENTRY_VIRTUAL_TB ? " virtual-tb" : "",
			e->flags & VGPU_ENTRY_VTB_LOWEST ? " lanes=lowest" :
			e->flags & VGPU_ENTRY_VTB_SLOWEST ? " lanes=slowest" : "");
		if (e->code_start % 8 || e->code_end % 8 || e->code_start > e->code_end ||
		    e->code_end / 8 > nwords) {
			fprintf(o, "  bad code range\n");
			return -EINVAL;
		}
		for (uint32_t k = e->code_start / 8; k < e->code_end / 8; k++) {
			uint64_t w = code[k], ext = 0;

			fprintf(o, "  %5u:  ", k);
			if (w & VGPU_I_X) {
				if (k + 1 >= e->code_end / 8) {
					fprintf(o, "truncated instruction\n");
					return -EINVAL;
				}
				ext = code[k + 1];
			}
			disasm_one(o, w, ext);
			fprintf(o, w & VGPU_I_BOUNDARY ? "  // idempotence boundary\n" : "\n");
			k += !!(w & VGPU_I_X);
		}
	}
	return 0;
}
