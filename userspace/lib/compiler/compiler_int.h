/* SPDX-License-Identifier: MIT */
/*
 * compiler_int.h - internals of the PTX front end: the intermediate form
 * between the parser (ptx_parse.c with ptx_lex.c, ptx_operand.c,
 * ptx_lower*.c, ptx_decl.c and ptx_func.c; their shared state in
 * ptx_parse_int.h) and the code generator (ptx_codegen.c).
 *
 * The parser lowers every PTX instruction to one or more vGPU ISA
 * instructions over virtual registers, already legal with respect to
 * immediates (an operand that cannot be encoded as an immediate is first
 * moved into a fresh virtual register). The code generator builds the CFG,
 * allocates machine registers (linear scan over live intervals, spilling
 * with ptx_spill.c when they do not fit), computes reconvergence points
 * (immediate post-dominators) and encodes the image.
 */
#ifndef VGPU_COMPILER_INT_H
#define VGPU_COMPILER_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "vgpu_compile.h"
#include "vgpu_compile_meta.h"

/* Virtual register classes. */
enum vclass { VC_32 = 0, VC_16, VC_64, VC_PRED };

struct vreg {
	uint8_t cls;
	int phys;		/* machine register / predicate, -1 unallocated */
	int start, end;		/* live interval in positions, -1 when unused */
	bool nospill;		/* a spill's reload/store temporary (ptx_spill.c) */
};

enum okind { OK_NONE = 0, OK_REG, OK_IMM };

struct opnd {
	uint8_t k;
	int r;			/* vreg */
	uint64_t v;		/* immediate value */
};

struct ins {
	uint8_t op, type;
	uint16_t mod;		/* mod bits not naming predicates */
	int g;			/* guard predicate vreg, -1 for none */
	bool gneg;
	int d;			/* destination vreg (register or predicate), -1: RZ */
	int q;			/* second predicate destination, -1 */
	struct opnd a, b, c;
	int p;			/* predicate source (SETP c, SELP, VOTE, PLOP a) */
	bool pneg;
	int p2;			/* PLOP b */
	bool p2neg;
	int vec[4];		/* vector LD/ST element vregs */
	uint8_t nvec;
	bool x;			/* needs the extension word */
	int64_t off;		/* LD/ST/ATOM offset */
	int label;		/* BRA target label */
	int line;		/* PTX source line */
	/* code generator */
	uint32_t addr;		/* word index in the code segment */
	uint32_t rpc;
	int block;
	bool dead;		/* removed after allocation (no effect) */
	bool boundary;		/* idempotence boundary (VGPU_I_BOUNDARY) */
	bool internal;		/* ATOM of a lowering (bar.red), not of the PTX */
	bool nc;		/* ld.global.nc: read-only while the kernel runs */
	bool gpu_scope;		/* membar/fence beyond the block (gl, gpu, sys) */
};

/* Parameter of an entry. */
struct param {
	char name[128];
	uint32_t offset, size;
	uint32_t align;		/* .align, or the element size */
};

/* A symbol with a fixed address in one of the state spaces. */
struct var {
	char name[128];
	uint8_t space;		/* VGPU_SP_* */
	bool external;		/* .extern .shared: dynamic shared memory */
	uint32_t align, size;
	uint32_t offset;	/* within its space (entry-relative for shared/local) */
	int line;
	int depth;		/* block nesting of an entry-scope declaration */
	bool pslot;		/* a .param of a call, kept in .local (inlining) */
};

struct label {
	char name[128];
	int pos;		/* instruction index, -1 until defined */
	int line;		/* first reference, for errors */
};

struct entry {
	char name[128];
	int line;
	struct ins *ins;
	size_t nins, cap;
	struct vreg *vregs;
	size_t nvregs, vcap;
	struct label *labels;
	size_t nlabels, lcap;
	struct param *params;
	size_t nparams, pcap;
	uint32_t param_size;
	uint32_t shared_static;
	uint32_t local_size;
	uint32_t max_threads;
	uint32_t regs;		/* result of allocation */
	uint32_t spilled_regs, spilled_preds;	/* vregs spilled (ptx_spill.c) */
	uint32_t flags;
	uint32_t code_start, code_words;	/* in words */
	struct vgpu_program_analysis an;	/* analysis section record */
};

struct compiler {
	jmp_buf jb;
	char *err;
	size_t errlen;
	struct entry *entries;
	size_t nentries, ecap;
	/* module-scope variables (.global, .const, .shared, .extern .shared) */
	struct var *mvars;
	size_t nmvars, mvcap;
	uint8_t *data;		/* data segment (global + const) */
	size_t data_cap;
	uint32_t data_size, data_init;
	int errcode;
	void **scratch;		/* cc_alloc'd blocks, freed on error */
	size_t nscratch, scap;
	unsigned int opts;	/* VGPU_COMPILE_* */
	struct vgpu_compile_meta **meta;	/* out: what compile_meta.c records, or NULL */
	struct vgpu_compile_limits lim;	/* the device's; 0: no limit */
};

/* Reports "ptx:LINE: msg" and unwinds to vgpu_compile_ptx(). */
_Noreturn void cc_error(struct compiler *cc, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Zeroed scratch memory, freed by cc_free() or when compilation ends. */
void *cc_alloc(struct compiler *cc, size_t size);
void cc_free(struct compiler *cc, void *p);
void *cc_grow(struct compiler *cc, void *p, size_t *cap, size_t n, size_t elem);

/* @in as an unguarded @op of @type at PTX line @line, with no operands. */
void ins_init(struct ins *in, int op, int type, int line);
int ptx_parse(struct compiler *cc, const char *src, size_t len);
/* virtual_tb.c: rewrites @e into the persistent-thread form (seed 003 §4.1). */
void vtb_transform(struct compiler *cc, struct entry *e);
void cg_entry(struct compiler *cc, struct entry *e);
/* ptx_codegen.c: the vregs an instruction reads (a guarded destination's
 * old value included) and writes; at most 16 and 8. */
int cg_ins_uses(const struct ins *in, int *u);
int cg_ins_defs(const struct ins *in, int *d);
/*
 * ptx_spill.c: rewrites @e so that every vreg with @spill[v] set lives
 * outside the allocator's reach: a register in a local-memory slot of its
 * own (stored after each definition, loaded before each use), a predicate
 * in a 32-bit register (SELP after each definition, SETP before each use).
 * Reloads and stores go through fresh temporaries marked nospill.
 */
void spill_rewrite(struct compiler *cc, struct entry *e, const bool *spill);
/* vgpu_compile.c: -E2BIG naming the entry when it does not fit cc->lim. */
void cc_check_entry_limits(struct compiler *cc, const struct entry *e);
int cg_image(struct compiler *cc, void **image, size_t *size);
/* vgpu_compile_ptx_limits() that also records the module's metadata in *@meta (NULL: not). */
int cc_compile(const char *src, size_t len, unsigned int opts,
	       const struct vgpu_compile_limits *lim, void **image, size_t *image_size,
	       struct vgpu_compile_meta **meta, char *err, size_t errlen);
/* compile_meta.c: the parameters and variables of a parsed module; -ENOMEM. */
int cc_meta(const struct compiler *cc, struct vgpu_compile_meta **out);

#endif /* VGPU_COMPILER_INT_H */
