// SPDX-License-Identifier: MIT
/*
 * decode.c - validates a program image and decodes one entry's code into
 * struct dinst, once per job. Everything the interpreter relies on
 * (register numbers inside the block's allocation, branch targets on
 * instruction boundaries, known opcodes and types) is checked here, so the
 * interpreter does not check it again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

static bool t_int(unsigned int t)
{
	return t == VGPU_T_U32 || t == VGPU_T_S32 || t == VGPU_T_U64 || t == VGPU_T_S64;
}

static bool t_num(unsigned int t)
{
	return t_int(t) || t == VGPU_T_F32 || t == VGPU_T_F64;
}

static bool t_cvt(unsigned int t)
{
	return (t >= VGPU_T_U8 && t <= VGPU_T_S64) || t == VGPU_T_F16 || t == VGPU_T_F32 ||
	       t == VGPU_T_F64;
}

static bool op_type_ok(unsigned int op, unsigned int t, unsigned int m)
{
	switch (op) {
	case VGPU_OP_NOP: case VGPU_OP_EXIT: case VGPU_OP_BRA: case VGPU_OP_BAR:
	case VGPU_OP_MEMBAR: case VGPU_OP_TRAP: case VGPU_OP_PLOP: case VGPU_OP_VOTE:
		return true;
	case VGPU_OP_MOV: case VGPU_OP_SELP:
		return t_num(t);
	case VGPU_OP_S2R:
		return (t == VGPU_T_U32 || t == VGPU_T_U64) && m < VGPU_SR_COUNT_;
	case VGPU_OP_NEXTTB:
		return t == VGPU_T_U32 && m <= VGPU_NEXTTB_TID;
	case VGPU_OP_LEAD: case VGPU_OP_PACK:
		return t == VGPU_T_U64;
	case VGPU_OP_UNPK:
		return t == VGPU_T_U32;
	case VGPU_OP_CVTA:
		return (t == VGPU_T_U32 || t == VGPU_T_U64) && (m & 7) >= VGPU_SP_GLOBAL &&
		       (m & 7) <= VGPU_SP_CONST && (m & 7) != VGPU_SP_PARAM;
	case VGPU_OP_ADD: case VGPU_OP_SUB: case VGPU_OP_MUL: case VGPU_OP_MIN:
	case VGPU_OP_MAX: case VGPU_OP_NEG: case VGPU_OP_ABS: case VGPU_OP_DIV:
	case VGPU_OP_MAD: case VGPU_OP_SETP:
		return t_num(t);
	case VGPU_OP_MULWD: case VGPU_OP_MADWD:
		return t == VGPU_T_U32 || t == VGPU_T_S32;
	case VGPU_OP_REM: case VGPU_OP_MULHI: case VGPU_OP_MADHI: case VGPU_OP_AND:
	case VGPU_OP_OR: case VGPU_OP_XOR: case VGPU_OP_NOT: case VGPU_OP_CNOT:
	case VGPU_OP_SHL: case VGPU_OP_SHR: case VGPU_OP_POPC: case VGPU_OP_CLZ:
	case VGPU_OP_BREV: case VGPU_OP_BFE: case VGPU_OP_BFI:
		return t_int(t);
	case VGPU_OP_PRMT: case VGPU_OP_SHFL:
		return t == VGPU_T_U32;
	case VGPU_OP_SQRT: case VGPU_OP_RSQRT: case VGPU_OP_RCP: case VGPU_OP_SIN:
	case VGPU_OP_COS: case VGPU_OP_LG2: case VGPU_OP_EX2: case VGPU_OP_TANH:
		return t == VGPU_T_F32 || t == VGPU_T_F64;
	case VGPU_OP_CVT:
		return t_cvt(t) && t_cvt(VGPU_M_CVT_ST(m));
	case VGPU_OP_LD: case VGPU_OP_ST: {
		unsigned int sp = VGPU_M_MEM_SP(m), lsz = VGPU_M_MEM_LSZ(m);

		if (!t_num(t) || sp > VGPU_SP_CONST || lsz > 3 || VGPU_M_MEM_LVEC(m) > 2)
			return false;
		if (lsz == 3 && !vgpu_type_is64(t))
			return false;
		if (op == VGPU_OP_ST && (sp == VGPU_SP_PARAM || sp == VGPU_SP_CONST))
			return false;
		return true;
	}
	case VGPU_OP_ATOM: {
		unsigned int sp = VGPU_M_MEM_SP(m);

		return t_num(t) && VGPU_M_ATOM_OP(m) <= VGPU_ATOM_DEC &&
		       (sp == VGPU_SP_GLOBAL || sp == VGPU_SP_SHARED || sp == VGPU_SP_GENERIC);
	}
	default:
		return false;
	}
}

/* Which of d, a, b, c name predicates rather than registers. */
static unsigned int pred_fields(unsigned int op, unsigned int m)
{
	switch (op) {
	case VGPU_OP_SETP: return 1 | 8;
	case VGPU_OP_PLOP: return 1 | 2 | 4;
	case VGPU_OP_VOTE: return (m & 3) == VGPU_VOTE_BALLOT ? 0 : 1;
	default: return 0;
	}
}

static int lat_class(unsigned int op, unsigned int t, unsigned int m)
{
	switch (op) {
	case VGPU_OP_LD: case VGPU_OP_ST: case VGPU_OP_ATOM:
		switch (VGPU_M_MEM_SP(m)) {
		case VGPU_SP_SHARED: case VGPU_SP_PARAM: case VGPU_SP_CONST:
			return LAT_SHARED;
		default:
			return LAT_MEM;
		}
	case VGPU_OP_DIV: case VGPU_OP_REM: case VGPU_OP_SQRT: case VGPU_OP_RSQRT:
	case VGPU_OP_RCP: case VGPU_OP_SIN: case VGPU_OP_COS: case VGPU_OP_LG2:
	case VGPU_OP_EX2: case VGPU_OP_TANH:
		return LAT_SFU;
	default:
		(void)t;
		return LAT_ALU;
	}
}

static int64_t sext8(unsigned int v)
{
	return (int8_t)(uint8_t)v;
}

/* Frees what sim_decode() allocated for @j. */
void sim_decode_release(struct job *j)
{
	free(j->code);
	free(j->code_off);
	free(j->pool);
	j->code = NULL;
	j->code_off = NULL;
	j->pool = NULL;
}

/*
 * ELF's program points of the job's entry from the image's analysis
 * section (vgpu_program.h), at decoded instruction indices (@map: word
 * index in the entry to instruction, -1 for none). An image without the
 * section, or with one that does not fit, gives no points: every warp has
 * the same priority. The code runs the same either way.
 */
static void elf_points(struct job *j, const struct vgpu_program_header *h, const uint8_t *img,
		       const int32_t *map, uint32_t words)
{
	struct vgpu_program_analysis an;
	uint32_t sz;
	uint64_t at;

	j->nelf = 0;
	if (h->version_minor < 1 || !h->analysis_offset || h->analysis_offset % 8 ||
	    (uint64_t)h->analysis_offset + h->analysis_size > h->image_size ||
	    h->analysis_size < 4)
		return;
	memcpy(&sz, img + h->analysis_offset, sizeof(sz));
	if (sz < sizeof(an) || (uint64_t)sz * h->num_entries > h->analysis_size)
		return;
	at = h->analysis_offset + (uint64_t)sz * j->desc.entry;
	memcpy(&an, img + at, sizeof(an));
	for (uint32_t i = 0; i < an.num_elf_points && i < VGPU_ELF_SLOTS; i++) {
		const struct vgpu_elf_point *p = &an.elf[i];

		if (p->pc >= words || map[p->pc] < 0 ||
		    (j->nelf && j->elf[j->nelf - 1].idx >= (uint32_t)map[p->pc]))
			continue;
		j->elf[j->nelf++] = (struct elf_pt){
			.idx = (uint32_t)map[p->pc], .score = p->score,
			.branch = p->flags & VGPU_ELF_BRANCH,
		};
	}
}

int sim_decode(struct vgpu_sim *s, struct job *j, const uint8_t *img, uint32_t size)
{
	const struct vgpu_program_header *h = (const void *)img;
	struct vgpu_program_entry e;
	const uint8_t *code;
	uint32_t nwords, first, last, n = 0, npool = 0, regs;
	int32_t *map;
	int ret = -EILSEQ;

	(void)s;
	if (size < sizeof(*h) || h->magic != VGPU_PROGRAM_MAGIC ||
	    h->version_major != VGPU_PROGRAM_VERSION_MAJOR || h->image_size > size ||
	    h->header_size < sizeof(*h) || h->entry_size < sizeof(e) ||
	    h->num_entries == 0 || h->num_entries > VGPU_PROGRAM_MAX_ENTRIES ||
	    h->entries_offset % 8 || h->code_offset % 8 || h->code_size % 8 ||
	    (uint64_t)h->entries_offset + (uint64_t)h->num_entries * h->entry_size > h->image_size ||
	    (uint64_t)h->code_offset + h->code_size > h->image_size ||
	    (uint64_t)h->data_offset + h->data_init_size > h->image_size ||
	    h->data_init_size > h->data_size)
		return -EINVAL;
	if (j->desc.entry >= h->num_entries)
		return -EINVAL;
	memcpy(&e, img + h->entries_offset + (size_t)j->desc.entry * h->entry_size, sizeof(e));
	if (e.code_start % 8 || e.code_end % 8 || e.code_start >= e.code_end ||
	    e.code_end > h->code_size || e.regs_per_thread > VGPU_NUM_REGS)
		return -EINVAL;
	j->entry = e;
	regs = e.regs_per_thread;
	code = img + h->code_offset;
	nwords = h->code_size / 8;
	first = e.code_start / 8;
	last = e.code_end / 8;
	map = malloc(sizeof(*map) * (last - first + 1));
	j->code = calloc(last - first, sizeof(*j->code));
	j->code_off = calloc(last - first, sizeof(*j->code_off));
	j->pool = calloc((size_t)2 * (last - first) + 1, 64 * sizeof(uint32_t));
	if (!map || !j->code || !j->code_off || !j->pool) {
		free(map);
		return -ENOMEM;
	}
	for (uint32_t k = first; k < last; k++)
		map[k - first] = -1;
	map[last - first] = -1;
	/* pass 1: decode */
	for (uint32_t k = first; k < last; k++) {
		uint64_t w, ext = 0;
		struct dinst *d = &j->code[n];
		unsigned int op, t, m, pf;

		memcpy(&w, code + (size_t)k * 8, 8);
		op = VGPU_I_OP(w);
		t = VGPU_I_TYPE(w);
		m = VGPU_I_MOD(w);
		if (w & VGPU_I_X) {
			if (k + 1 >= last)
				goto out;
			memcpy(&ext, code + (size_t)(k + 1) * 8, 8);
		}
		if (!op_type_ok(op, t, m))
			goto out;
		/* logical block indices exist only in a virtualised entry */
		if (op == VGPU_OP_NEXTTB && !(j->entry.flags & VGPU_ENTRY_VIRTUAL_TB))
			goto out;
		map[k - first] = (int32_t)n;
		j->code_off[n] = k;
		d->op = op;
		d->type = t;
		d->mod = m;
		d->gp = VGPU_I_GP(w);
		d->flags = (w & VGPU_I_GE ? DI_GE : 0) | (VGPU_I_GN(w) ? DI_GN : 0) |
			   (w & VGPU_I_BOUNDARY ? DI_IB : 0);
		d->d = VGPU_I_D(w);
		d->a = VGPU_I_A(w);
		d->b = VGPU_I_B(w);
		d->c = VGPU_I_C(w);
		d->lat = lat_class(op, t, m);
		pf = pred_fields(op, m);
		if (pf & 1) d->d &= 7;
		if (pf & 2) d->a &= 7;
		if (pf & 4) d->b &= 7;
		if (pf & 8) d->c &= 7;
		if (!(pf & 1) && d->d != VGPU_RZ && d->d >= regs)
			goto out;
		if (!(pf & 2) && d->a != VGPU_RZ && d->a >= regs)
			goto out;
		if (!(pf & 4) && !(w & VGPU_I_BI) && d->b != VGPU_RZ && d->b >= regs)
			goto out;
		if (!(pf & 8) && !(w & VGPU_I_CI) && d->c != VGPU_RZ && d->c >= regs)
			goto out;
		if (op == VGPU_OP_BRA) {
			if (!(w & VGPU_I_X))
				goto out;
			d->target = (uint32_t)ext;
			d->rpc = (uint32_t)(ext >> 32);
		} else if (op == VGPU_OP_LD || op == VGPU_OP_ST || op == VGPU_OP_ATOM) {
			unsigned int nv = 1u << VGPU_M_MEM_LVEC(m);

			if (w & VGPU_I_X)
				d->off = (int32_t)(uint32_t)ext;
			else if (w & VGPU_I_BI && op != VGPU_OP_ATOM)
				d->off = sext8(d->b);
			if (op == VGPU_OP_ATOM) {
				if (w & VGPU_I_BI) {
					d->flags |= DI_BI;
					d->imm = (uint64_t)sext8(d->b);
				}
				if (w & VGPU_I_CI)
					d->flags |= DI_CI;
			} else if (nv > 1) {
				if (!(w & VGPU_I_X))
					goto out;
				for (unsigned int i = 0; i < nv; i++) {
					d->vec[i] = (uint8_t)(ext >> (32 + 8 * i));
					if (d->vec[i] != VGPU_RZ && d->vec[i] >= regs)
						goto out;
				}
			}
		} else {
			if (w & VGPU_I_BI) {
				d->flags |= DI_BI;
				d->imm = w & VGPU_I_X ? ext : (uint64_t)sext8(d->b);
			}
			if (w & VGPU_I_CI && !(pf & 8))
				d->flags |= DI_CI;
		}
		if (d->flags & DI_BI) {
			uint32_t *row = j->pool + (size_t)npool * 64;

			for (int l = 0; l < 32; l++) {
				row[l] = (uint32_t)d->imm;
				row[32 + l] = (uint32_t)(d->imm >> 32);
			}
			d->bslot = npool++;
		}
		if (d->flags & DI_CI) {
			uint32_t *row = j->pool + (size_t)npool * 64;
			uint64_t v = (uint64_t)sext8(d->c);

			for (int l = 0; l < 32; l++) {
				row[l] = (uint32_t)v;
				row[32 + l] = (uint32_t)(v >> 32);
			}
			d->cslot = npool++;
		}
		n++;
		if (w & VGPU_I_X)
			k++;
	}
	/* pass 2: branch targets to instruction indices */
	for (uint32_t i = 0; i < n; i++) {
		struct dinst *d = &j->code[i];

		if (d->op != VGPU_OP_BRA)
			continue;
		if (d->target < first || d->target >= last || map[d->target - first] < 0)
			goto out;
		d->target = (uint32_t)map[d->target - first];
		if (d->rpc != VGPU_NO_RECONV) {
			if (d->rpc < first || d->rpc >= last || map[d->rpc - first] < 0)
				goto out;
			d->rpc = (uint32_t)map[d->rpc - first];
		} else {
			d->rpc = NO_PC;
		}
	}
	(void)nwords;
	j->ncode = n;
	elf_points(j, h, img, map, last - first);
	ret = 0;
out:
	free(map);
	return ret;
}
