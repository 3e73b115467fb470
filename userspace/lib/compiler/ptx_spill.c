// SPDX-License-Identifier: MIT
/*
 * ptx_spill.c - spill code for the linear-scan allocator (ptx_codegen.c):
 * when more values are live at once than there are registers (the
 * device's registers per thread, or 255) or predicates (8), the allocator
 * picks intervals to spill and this file rewrites the entry so that they
 * no longer need a machine register across their lifetime.
 *
 * Spill everywhere: each instruction that names a spilled vreg gets a
 * fresh temporary for it (marked nospill, so a later round never spills
 * it again), loaded before the instruction when the instruction reads the
 * value (a guarded definition reads it too: the lanes whose guard is false
 * keep the old value) and stored after it when it writes the value.
 *
 *   registers    a slot of 4 (8 for a pair) bytes of local memory per
 *                thread, after the entry's own .local variables:
 *                ST.local [RZ + slot] after a definition, LD before a use
 *   predicates   a 32-bit register (itself spillable in a later round):
 *                SELP.u32 r, RZ, 1, !p after a definition (r = p ? 1 : 0),
 *                SETP.ne.u32 p', r, 0 before a use
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_int.h"

static int spill_newv(struct compiler *cc, struct entry *e, int cls, bool nospill)
{
	e->vregs = cc_grow(cc, e->vregs, &e->vcap, e->nvregs + 1, sizeof(*e->vregs));
	e->vregs[e->nvregs] = (struct vreg){ .cls = (uint8_t)cls, .phys = -1, .start = -1,
					     .end = -1, .nospill = nospill };
	return (int)e->nvregs++;
}

struct out {
	struct ins *ins;
	size_t n, cap;
};

static struct ins *put(struct compiler *cc, struct out *o, int op, int type, int line)
{
	struct ins *in;

	(void)cc;	/* o->ins holds the bound spill_rewrite() computed */
	in = &o->ins[o->n++];
	ins_init(in, op, type, line);
	return in;
}

/* A local-memory access of register @v at @slot: LD (@st false) or ST. */
static void slot_access(struct compiler *cc, struct out *o, const struct entry *e, int v,
			uint32_t slot, bool st, int line)
{
	bool wide = e->vregs[v].cls == VC_64;
	struct ins *in = put(cc, o, st ? VGPU_OP_ST : VGPU_OP_LD,
			     wide ? VGPU_T_U64 : VGPU_T_U32, line);

	/* the address as the parser gives a .local variable: RZ + offset */
	in->mod = VGPU_M_MEM(VGPU_SP_LOCAL, wide ? 3 : 2, 0, 0, 1, 0);
	in->off = slot;
	in->x = slot > 127;
	if (st)
		in->c = (struct opnd){ .k = OK_REG, .r = v };
	else
		in->d = v;
}

static void replace(struct ins *in, int from, int to)
{
	if (in->a.k == OK_REG && in->a.r == from)
		in->a.r = to;
	if (in->b.k == OK_REG && in->b.r == from)
		in->b.r = to;
	if (in->c.k == OK_REG && in->c.r == from)
		in->c.r = to;
	if (in->d == from)
		in->d = to;
	if (in->q == from)
		in->q = to;
	if (in->p == from)
		in->p = to;
	if (in->p2 == from)
		in->p2 = to;
	if (in->g == from)
		in->g = to;
	for (int i = 0; i < in->nvec; i++)
		if (in->vec[i] == from)
			in->vec[i] = to;
}

void spill_rewrite(struct compiler *cc, struct entry *e, const bool *spill)
{
	size_t nv = e->nvregs;
	int *home = cc_alloc(cc, sizeof(int) * (nv + 1));	/* pred: its register */
	uint32_t *slot = cc_alloc(cc, sizeof(uint32_t) * (nv + 1));
	int *newpos = cc_alloc(cc, sizeof(int) * (e->nins + 1));
	uint32_t local = (e->local_size + 7) & ~7u;
	struct out o = { 0 };

	/* homes: 8-byte slots for pairs first, then 4-byte ones */
	for (int pass = 0; pass < 2; pass++)
		for (size_t v = 0; v < nv; v++) {
			if (!spill[v] || e->vregs[v].cls == VC_PRED ||
			    (e->vregs[v].cls == VC_64) != !pass)
				continue;
			slot[v] = local;
			local += pass ? 4 : 8;
		}
	for (size_t v = 0; v < nv; v++)
		if (spill[v] && e->vregs[v].cls == VC_PRED)
			home[v] = spill_newv(cc, e, VC_32, false);
	e->local_size = (local + 7) & ~7u;
	/* one allocation for the new code (nothing to leak if a later step fails):
	 * at most a reload and a store per spilled operand */
	{
		size_t bound = 1;

		for (size_t i = 0; i < e->nins; i++) {
			int u[16], d[8], nu = cg_ins_uses(&e->ins[i], u);
			int nd = cg_ins_defs(&e->ins[i], d);

			bound++;
			for (int j = 0; j < nu; j++)
				bound += spill[u[j]] ? 2 : 0;
			for (int j = 0; j < nd; j++)
				bound += spill[d[j]] ? 2 : 0;
		}
		o.ins = cc_grow(cc, NULL, &o.cap, bound, sizeof(*o.ins));
	}

	for (size_t i = 0; i < e->nins; i++) {
		struct ins in = e->ins[i];
		int u[16], d[8], nu = cg_ins_uses(&in, u), nd = cg_ins_defs(&in, d);
		int sv[24], tv[24], ns = 0;

		newpos[i] = (int)o.n;
		/* the spilled vregs this instruction names, each once */
		for (int j = 0; j < nu + nd; j++) {
			int v = j < nu ? u[j] : d[j - nu], k;

			if (!spill[v])
				continue;
			for (k = 0; k < ns && sv[k] != v; k++)
				;
			if (k == ns) {
				sv[ns] = v;
				tv[ns++] = spill_newv(cc, e, e->vregs[v].cls, true);
			}
		}
		/* reloads */
		for (int k = 0; k < ns; k++) {
			bool read = false;

			for (int j = 0; j < nu; j++)
				read |= u[j] == sv[k];
			for (int j = 0; j < nd && in.g >= 0; j++)
				read |= d[j] == sv[k];	/* guarded: keeps the old value */
			if (!read)
				continue;
			if (e->vregs[sv[k]].cls == VC_PRED) {
				struct ins *s = put(cc, &o, VGPU_OP_SETP, VGPU_T_U32, in.line);

				s->d = tv[k];
				s->a = (struct opnd){ .k = OK_REG, .r = home[sv[k]] };
				s->b = (struct opnd){ .k = OK_IMM, .v = 0 };
				s->mod = VGPU_M_SETP(VGPU_CMP_NE, 0, 0, 0, 0, 0);
			} else {
				slot_access(cc, &o, e, tv[k], slot[sv[k]], false, in.line);
			}
		}
		for (int k = 0; k < ns; k++)
			replace(&in, sv[k], tv[k]);
		o.ins[o.n++] = in;
		/* stores */
		for (int k = 0; k < ns; k++) {
			bool written = false;

			for (int j = 0; j < nd; j++)
				written |= d[j] == sv[k];
			if (!written)
				continue;
			if (e->vregs[sv[k]].cls == VC_PRED) {
				struct ins *s = put(cc, &o, VGPU_OP_SELP, VGPU_T_U32, in.line);

				s->d = home[sv[k]];
				s->b = (struct opnd){ .k = OK_IMM, .v = 1 };
				s->p = tv[k];
				s->pneg = true;	/* !p ? RZ : 1 */
			} else {
				slot_access(cc, &o, e, tv[k], slot[sv[k]], true, in.line);
			}
		}
	}
	newpos[e->nins] = (int)o.n;
	for (size_t l = 0; l < e->nlabels; l++)
		if (e->labels[l].pos >= 0 && (size_t)e->labels[l].pos <= e->nins)
			e->labels[l].pos = newpos[e->labels[l].pos];
	free(e->ins);
	e->ins = o.ins;
	e->nins = o.n;
	e->cap = o.cap;
	cc_free(cc, home);
	cc_free(cc, slot);
	cc_free(cc, newpos);
}
