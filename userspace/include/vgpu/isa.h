/* SPDX-License-Identifier: MIT */
/*
 * isa.h - the vGPU instruction set: encoding shared by the PTX compiler
 * (userspace/lib/compiler), the disassembler and the model (userspace/sim).
 * Documentation/isa.rst is the specification; this header is its C form.
 *
 * Every instruction is one little-endian 64-bit word, optionally followed by
 * one 64-bit extension word (bit X set):
 *
 *   bits  0-6   op        enum vgpu_op
 *   bit   7     ib        idempotence boundary (compiler's mark; the model
 *                         reports a block that executes one)
 *   bits  8-11  type      enum vgpu_type (operation / operand type)
 *   bits 12-14  gp        guard predicate P0..P7
 *   bit  15     gn        guard negated (@!Pn)
 *   bit  16     ge        guard enabled; 0: executes unconditionally
 *   bits 17-24  d         destination register (RZ = 255: none / discard)
 *   bits 25-32  a         source A register
 *   bits 33-40  b         source B register, or immediate (BI set)
 *   bits 41-48  c         source C register, or immediate (CI set)
 *   bit  49     bi        B is an immediate
 *   bit  50     ci        C is an immediate
 *   bit  51     x         an extension word follows
 *   bits 52-63  mod       per-opcode modifiers (VGPU_M_* below)
 *
 * Immediate operands: an immediate B is the sign-extended 8-bit b field, or,
 * when X is set (for opcodes whose extension word is "immediate"), the whole
 * extension word. An immediate C is always the sign-extended c field.
 *
 * Registers are 32 bits. A 64-bit operand (types U64, S64, F64) names an
 * even register Rn and occupies the pair Rn (low half), Rn+1 (high half).
 * Reading RZ gives 0; writing it discards the result.
 *
 * Code addresses (branch targets, reconvergence points) are word indices
 * from the start of the code segment of the program image.
 */
#ifndef VGPU_ISA_H
#define VGPU_ISA_H

#include <stdint.h>

#define VGPU_ISA_VERSION	1

#define VGPU_NUM_REGS		255	/* R0..R254 */
#define VGPU_RZ			255
#define VGPU_NUM_PREDS		8
#define VGPU_WARP_SIZE		32
#define VGPU_NO_RECONV		0xffffffffu

/*
 * Generic address windows. A generic address below VGPU_GENERIC_SHARED is a
 * global (device) address; shared and local addresses live in 4 GiB windows
 * above it. cvta converts between a space and the generic form.
 */
#define VGPU_GENERIC_SHARED	0x0001000000000000ull
#define VGPU_GENERIC_LOCAL	0x0002000000000000ull
#define VGPU_GENERIC_WINDOW	0x0000000100000000ull

enum vgpu_op {
	/* control */
	VGPU_OP_NOP = 0,
	VGPU_OP_EXIT = 1,	/* active lanes finish */
	VGPU_OP_BRA = 2,	/* X: target | rpc << 32 */
	VGPU_OP_BAR = 3,	/* block-wide barrier; mod = barrier id */
	VGPU_OP_MEMBAR = 4,	/* memory fence (no-op: the model is SC) */
	VGPU_OP_TRAP = 5,	/* the block ends with -EILSEQ */

	/* moves */
	VGPU_OP_MOV = 8,	/* d = b */
	VGPU_OP_S2R = 9,	/* d = special register mod (VGPU_SR_*) */
	VGPU_OP_LEAD = 10,	/* d = data segment address + imm B */
	VGPU_OP_CVTA = 11,	/* d = a converted; mod: space | to */
	VGPU_OP_PACK = 12,	/* d(64) = a | b << 32 */
	VGPU_OP_UNPK = 13,	/* d(32) = half mod (0 low, 1 high) of a(64) */
	VGPU_OP_NEXTTB = 14,	/* d = next logical block index or thread index; mod */

	/* integer and float arithmetic (type selects) */
	VGPU_OP_ADD = 16,
	VGPU_OP_SUB = 17,
	VGPU_OP_MUL = 18,	/* low half (int) or product (float) */
	VGPU_OP_MULHI = 19,	/* high half */
	VGPU_OP_MULWD = 20,	/* d(2w) = a(w) * b(w); type is the source type */
	VGPU_OP_MAD = 21,	/* d = a * b + c (low half); float: fused */
	VGPU_OP_MADHI = 22,
	VGPU_OP_MADWD = 23,	/* d(2w) = a(w) * b(w) + c(2w) */
	VGPU_OP_DIV = 24,
	VGPU_OP_REM = 25,
	VGPU_OP_MIN = 26,
	VGPU_OP_MAX = 27,
	VGPU_OP_NEG = 28,
	VGPU_OP_ABS = 29,

	/* bit operations */
	VGPU_OP_AND = 32,
	VGPU_OP_OR = 33,
	VGPU_OP_XOR = 34,
	VGPU_OP_NOT = 35,
	VGPU_OP_SHL = 36,
	VGPU_OP_SHR = 37,	/* arithmetic for signed types */
	VGPU_OP_POPC = 38,
	VGPU_OP_CLZ = 39,
	VGPU_OP_BREV = 40,
	VGPU_OP_BFE = 41,	/* d = bits [b, b+c) of a, sign-extended if signed */
	VGPU_OP_BFI = 42,	/* d = b with bits [c, c + mod) replaced by a */
	VGPU_OP_PRMT = 43,	/* byte permute, default mode */
	VGPU_OP_CNOT = 44,	/* d = a == 0 */

	/* float-only */
	VGPU_OP_SQRT = 48,
	VGPU_OP_RSQRT = 49,
	VGPU_OP_RCP = 50,
	VGPU_OP_SIN = 51,
	VGPU_OP_COS = 52,
	VGPU_OP_LG2 = 53,
	VGPU_OP_EX2 = 54,
	VGPU_OP_TANH = 55,

	/* compare, select, predicates, conversion */
	VGPU_OP_SETP = 64,	/* Pd (|Pq) = (a cmp b) bop Pc */
	VGPU_OP_SELP = 65,	/* d = P ? a : b */
	VGPU_OP_PLOP = 66,	/* Pd = Pa op Pb */
	VGPU_OP_CVT = 67,	/* d(type) = a(mod src type) */

	/* memory */
	VGPU_OP_LD = 80,
	VGPU_OP_ST = 81,
	VGPU_OP_ATOM = 82,	/* d = old; [a + off] = op(old, b, c) */

	/* warp */
	VGPU_OP_SHFL = 96,
	VGPU_OP_VOTE = 97,

	VGPU_OP_MAX_ = 128,
};

enum vgpu_type {
	VGPU_T_NONE = 0,
	VGPU_T_U8 = 1,
	VGPU_T_S8 = 2,
	VGPU_T_U16 = 3,
	VGPU_T_S16 = 4,
	VGPU_T_U32 = 5,
	VGPU_T_S32 = 6,
	VGPU_T_U64 = 7,
	VGPU_T_S64 = 8,
	VGPU_T_F16 = 9,		/* CVT only (IEEE binary16 in the low 16 bits) */
	VGPU_T_F32 = 10,
	VGPU_T_F64 = 11,
	VGPU_T_PRED = 12,
};

static inline int vgpu_type_is64(unsigned int t)
{
	return t == VGPU_T_U64 || t == VGPU_T_S64 || t == VGPU_T_F64;
}

static inline int vgpu_type_signed(unsigned int t)
{
	return t == VGPU_T_S8 || t == VGPU_T_S16 || t == VGPU_T_S32 ||
	       t == VGPU_T_S64;
}

static inline int vgpu_type_float(unsigned int t)
{
	return t == VGPU_T_F32 || t == VGPU_T_F64;
}

static inline unsigned int vgpu_type_bits(unsigned int t)
{
	switch (t) {
	case VGPU_T_U8: case VGPU_T_S8: return 8;
	case VGPU_T_U16: case VGPU_T_S16: case VGPU_T_F16: return 16;
	case VGPU_T_U64: case VGPU_T_S64: case VGPU_T_F64: return 64;
	case VGPU_T_PRED: return 1;
	default: return 32;
	}
}

/* Special registers (S2R mod). */
enum vgpu_sreg {
	VGPU_SR_TID_X = 0, VGPU_SR_TID_Y, VGPU_SR_TID_Z,
	VGPU_SR_NTID_X, VGPU_SR_NTID_Y, VGPU_SR_NTID_Z,
	VGPU_SR_CTAID_X, VGPU_SR_CTAID_Y, VGPU_SR_CTAID_Z,
	VGPU_SR_NCTAID_X, VGPU_SR_NCTAID_Y, VGPU_SR_NCTAID_Z,
	VGPU_SR_LANEID, VGPU_SR_WARPID, VGPU_SR_NWARPID,
	VGPU_SR_SMID, VGPU_SR_NSMID,
	VGPU_SR_LANEMASK_EQ, VGPU_SR_LANEMASK_LT, VGPU_SR_LANEMASK_LE,
	VGPU_SR_LANEMASK_GT, VGPU_SR_LANEMASK_GE,
	VGPU_SR_CLOCK, VGPU_SR_CLOCK64,
	VGPU_SR_DYN_SMEM, VGPU_SR_TOTAL_SMEM,
	VGPU_SR_ACTIVEMASK,
	VGPU_SR_COUNT_
};

/* Memory spaces (LD/ST/ATOM/CVTA mod). */
enum vgpu_space {
	VGPU_SP_GENERIC = 0,
	VGPU_SP_GLOBAL = 1,
	VGPU_SP_SHARED = 2,
	VGPU_SP_LOCAL = 3,
	VGPU_SP_PARAM = 4,
	VGPU_SP_CONST = 5,	/* offsets into the program's data segment */
};

/* SETP comparisons. */
enum vgpu_cmp {
	VGPU_CMP_EQ = 0, VGPU_CMP_NE, VGPU_CMP_LT, VGPU_CMP_LE,
	VGPU_CMP_GT, VGPU_CMP_GE,
	/* float, true when unordered too */
	VGPU_CMP_EQU, VGPU_CMP_NEU, VGPU_CMP_LTU, VGPU_CMP_LEU,
	VGPU_CMP_GTU, VGPU_CMP_GEU,
	VGPU_CMP_NUM, VGPU_CMP_NAN,
};

/* SETP / PLOP boolean operations. */
enum vgpu_bop { VGPU_BOP_NONE = 0, VGPU_BOP_AND, VGPU_BOP_OR, VGPU_BOP_XOR };

/* ATOM operations. */
enum vgpu_atom {
	VGPU_ATOM_ADD = 0, VGPU_ATOM_MIN, VGPU_ATOM_MAX, VGPU_ATOM_EXCH,
	VGPU_ATOM_CAS, VGPU_ATOM_AND, VGPU_ATOM_OR, VGPU_ATOM_XOR,
	VGPU_ATOM_INC, VGPU_ATOM_DEC,
};

/*
 * NEXTTB mod (seed 003 §4.2): TB takes the warp's next logical block; TID
 * reads the thread's index in it, x + y * ntid.x + z * ntid.x * ntid.y,
 * from the warp index its last NEXTTB.TB assigned (next_tIdxInBlk).
 */
enum vgpu_nexttb { VGPU_NEXTTB_TB = 0, VGPU_NEXTTB_TID };
enum vgpu_shfl { VGPU_SHFL_UP = 0, VGPU_SHFL_DOWN, VGPU_SHFL_BFLY, VGPU_SHFL_IDX };
enum vgpu_vote { VGPU_VOTE_ALL = 0, VGPU_VOTE_ANY, VGPU_VOTE_UNI, VGPU_VOTE_BALLOT };

/* Rounding (CVT and float arithmetic). */
enum vgpu_rnd { VGPU_RND_RN = 0, VGPU_RND_RZ, VGPU_RND_RM, VGPU_RND_RP };

/* ---- mod field layouts ---- */
/* Float arithmetic (ADD..ABS, SQRT..TANH with a float type). */
#define VGPU_M_RND(m)		((m) & 3)		/* enum vgpu_rnd */
#define VGPU_M_FTZ		(1u << 2)
#define VGPU_M_SAT		(1u << 3)
/* SETP: cmp [3:0], bop [5:4], Pc negated [6], Pq [9:7], Pq present [10], ftz [11] */
#define VGPU_M_SETP(cmp, bop, cneg, q, qon, ftz) \
	((cmp) | (bop) << 4 | (cneg) << 6 | (q) << 7 | (qon) << 10 | (ftz) << 11)
#define VGPU_M_SETP_CMP(m)	((m) & 15)
#define VGPU_M_SETP_BOP(m)	(((m) >> 4) & 3)
#define VGPU_M_SETP_CNEG(m)	(((m) >> 6) & 1)
#define VGPU_M_SETP_Q(m)	(((m) >> 7) & 7)
#define VGPU_M_SETP_QON(m)	(((m) >> 10) & 1)
#define VGPU_M_SETP_FTZ(m)	(((m) >> 11) & 1)
/* SELP: P [2:0], P negated [3] */
#define VGPU_M_SELP(p, neg)	((p) | (neg) << 3)
/* PLOP: bop [1:0] (NONE = move), a negated [2], b negated [3] */
#define VGPU_M_PLOP(bop, an, bn) ((bop) | (an) << 2 | (bn) << 3)
/* CVT: src type [3:0], rnd [5:4], round to integral [6], sat [7], ftz [8] */
#define VGPU_M_CVT(st, rnd, rint, sat, ftz) \
	((st) | (rnd) << 4 | (rint) << 6 | (sat) << 7 | (ftz) << 8)
#define VGPU_M_CVT_ST(m)	((m) & 15)
#define VGPU_M_CVT_RND(m)	(((m) >> 4) & 3)
#define VGPU_M_CVT_RINT(m)	(((m) >> 6) & 1)
#define VGPU_M_CVT_SAT(m)	(((m) >> 7) & 1)
#define VGPU_M_CVT_FTZ(m)	(((m) >> 8) & 1)
/*
 * LD/ST: space [2:0], log2 element bytes [5:3], log2 vector length [7:6],
 * sign-extend [8], 64-bit address register [9], data-segment relative [10].
 * ATOM: space [2:0], op [6:3], 64-bit address [9], data relative [10].
 * The memory type (type field) is the register type: U32/S32/U64/S64/F32/F64.
 */
#define VGPU_M_MEM(sp, lsz, lvec, sx, a64, rel) \
	((sp) | (lsz) << 3 | (lvec) << 6 | (sx) << 8 | (a64) << 9 | (rel) << 10)
#define VGPU_M_MEM_SP(m)	((m) & 7)
#define VGPU_M_MEM_LSZ(m)	(((m) >> 3) & 7)
#define VGPU_M_MEM_LVEC(m)	(((m) >> 6) & 3)
#define VGPU_M_MEM_SX(m)	(((m) >> 8) & 1)
#define VGPU_M_MEM_A64(m)	(((m) >> 9) & 1)
#define VGPU_M_MEM_REL(m)	(((m) >> 10) & 1)
#define VGPU_M_ATOM(sp, aop, a64, rel) \
	((sp) | (aop) << 3 | (a64) << 9 | (rel) << 10)
#define VGPU_M_ATOM_OP(m)	(((m) >> 3) & 15)
/* CVTA: space [2:0], to-space [3] (1: generic -> space, 0: space -> generic) */
#define VGPU_M_CVTA(sp, to)	((sp) | (to) << 3)
/* SHFL: mode [1:0], Pd [4:2], Pd present [5] */
#define VGPU_M_SHFL(mode, p, pon) ((mode) | (p) << 2 | (pon) << 5)
/* VOTE: mode [1:0], source predicate [4:2], negated [5] */
#define VGPU_M_VOTE(mode, p, neg) ((mode) | (p) << 2 | (neg) << 5)

/* ---- word layout ---- */
#define VGPU_I_GE	(1ull << 16)
#define VGPU_I_BI	(1ull << 49)
#define VGPU_I_CI	(1ull << 50)
#define VGPU_I_X	(1ull << 51)

static inline uint64_t vgpu_enc(unsigned int op, unsigned int type,
				unsigned int d, unsigned int a, unsigned int b,
				unsigned int c, unsigned int mod)
{
	return (uint64_t)(op & 0x7f) | (uint64_t)(type & 15) << 8 |
	       (uint64_t)(d & 0xff) << 17 | (uint64_t)(a & 0xff) << 25 |
	       (uint64_t)(b & 0xff) << 33 | (uint64_t)(c & 0xff) << 41 |
	       (uint64_t)(mod & 0xfff) << 52;
}

static inline uint64_t vgpu_enc_guard(uint64_t w, unsigned int p, int neg)
{
	return w | VGPU_I_GE | (uint64_t)(p & 7) << 12 | (uint64_t)(!!neg) << 15;
}

#define VGPU_I_OP(w)	((unsigned int)((w) & 0x7f))
#define VGPU_I_BOUNDARY	(1ull << 7)	/* idempotence boundary mark */
#define VGPU_I_TYPE(w)	((unsigned int)(((w) >> 8) & 15))
#define VGPU_I_GP(w)	((unsigned int)(((w) >> 12) & 7))
#define VGPU_I_GN(w)	((unsigned int)(((w) >> 15) & 1))
#define VGPU_I_D(w)	((unsigned int)(((w) >> 17) & 0xff))
#define VGPU_I_A(w)	((unsigned int)(((w) >> 25) & 0xff))
#define VGPU_I_B(w)	((unsigned int)(((w) >> 33) & 0xff))
#define VGPU_I_C(w)	((unsigned int)(((w) >> 41) & 0xff))
#define VGPU_I_MOD(w)	((unsigned int)(((w) >> 52) & 0xfff))

/*
 * Extension word by opcode:
 *   BRA         target word index [31:0], reconvergence word index [63:32]
 *               (VGPU_NO_RECONV: the paths only meet at exit)
 *   LD/ST/ATOM  signed offset [31:0]; vector LD/ST: element registers in
 *               bytes 4..7 (element i in [32+8i, 40+8i))
 *   others      the 64-bit value of immediate B
 */

#endif /* VGPU_ISA_H */
