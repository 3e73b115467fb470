// SPDX-License-Identifier: MIT
/*
 * ptx_codegen.c - from the intermediate form to vGPU ISA code: basic blocks,
 * liveness, linear-scan register allocation, reconvergence points
 * (immediate post-dominators), idempotence flags, encoding of the image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/vgpu_program.h>

#include "compiler_int.h"

struct block {
	int first, last;	/* instruction range, inclusive */
	int succ[2];
	int nsucc;
	uint64_t *in, *out;	/* live sets */
};

struct cg {
	struct compiler *cc;
	struct entry *e;
	struct block *b;
	int nb;
	int *blk_of_label;
	uint64_t *bits;		/* backing store of live sets */
	size_t words;		/* 64-bit words per set */
	int *uses;		/* real (source) uses per vreg */
};

/* ------------------------------------------------------------------ */
/* operands of an instruction */

/* Registers/predicates read, including the old value of a guarded dest. */
int cg_ins_uses(const struct ins *in, int *u)
{
	int n = 0;

	if (in->a.k == OK_REG)
		u[n++] = in->a.r;
	if (in->b.k == OK_REG)
		u[n++] = in->b.r;
	if (in->c.k == OK_REG)
		u[n++] = in->c.r;
	if (in->p >= 0)
		u[n++] = in->p;
	if (in->p2 >= 0)
		u[n++] = in->p2;
	if (in->g >= 0)
		u[n++] = in->g;
	if (in->op == VGPU_OP_ST)
		for (int i = 0; i < in->nvec; i++)
			if (in->vec[i] >= 0)
				u[n++] = in->vec[i];
	return n;
}

int cg_ins_defs(const struct ins *in, int *d)
{
	int n = 0;

	if (in->op == VGPU_OP_ST)
		return 0;
	if (in->d >= 0)
		d[n++] = in->d;
	if (in->q >= 0)
		d[n++] = in->q;
	if (in->op == VGPU_OP_LD)
		for (int i = 0; i < in->nvec; i++)
			if (in->vec[i] >= 0)
				d[n++] = in->vec[i];
	return n;
}

/* ------------------------------------------------------------------ */
/* blocks */

static bool ends_block(const struct ins *in)
{
	return in->op == VGPU_OP_BRA || in->op == VGPU_OP_EXIT || in->op == VGPU_OP_TRAP;
}

static void build_blocks(struct cg *g)
{
	struct entry *e = g->e;
	int n = (int)e->nins;
	char *leader = cc_alloc(g->cc, n + 1);
	int *bstart;

	leader[0] = 1;
	for (size_t i = 0; i < e->nlabels; i++)
		if (e->labels[i].pos < n)
			leader[e->labels[i].pos] = 1;
	for (int i = 0; i < n; i++)
		if (ends_block(&e->ins[i]) && i + 1 < n)
			leader[i + 1] = 1;
	g->nb = 0;
	for (int i = 0; i < n; i++)
		g->nb += leader[i];
	g->b = cc_alloc(g->cc, sizeof(*g->b) * g->nb);
	bstart = cc_alloc(g->cc, sizeof(int) * (n + 1));
	for (int i = 0, k = -1; i < n; i++) {
		if (leader[i]) {
			k++;
			g->b[k].first = i;
			if (k)
				g->b[k - 1].last = i - 1;
		}
		bstart[i] = k;
		e->ins[i].block = k;
	}
	g->b[g->nb - 1].last = n - 1;
	for (int k = 0; k < g->nb; k++) {
		struct block *b = &g->b[k];
		struct ins *in = &e->ins[b->last];

		b->nsucc = 0;
		if (in->op == VGPU_OP_BRA) {
			int t = e->labels[in->label].pos;

			if (t >= n)
				cc_error(g->cc, in->line, "branch past the end of '%s'", e->name);
			b->succ[b->nsucc++] = bstart[t];
			if (in->g >= 0 && b->last + 1 < n && bstart[b->last + 1] != bstart[t])
				b->succ[b->nsucc++] = bstart[b->last + 1];
		} else if (in->op == VGPU_OP_EXIT || in->op == VGPU_OP_TRAP) {
			if (in->g >= 0 && b->last + 1 < n)
				b->succ[b->nsucc++] = bstart[b->last + 1];
		} else if (b->last + 1 < n) {
			b->succ[b->nsucc++] = bstart[b->last + 1];
		}
	}
	cc_free(g->cc, leader);
	cc_free(g->cc, bstart);
}

/* ------------------------------------------------------------------ */
/* liveness and intervals */

static inline void bset(uint64_t *s, int v) { s[v >> 6] |= 1ull << (v & 63); }
static inline bool btst(const uint64_t *s, int v) { return s[v >> 6] >> (v & 63) & 1; }

static void extend(struct vreg *v, int pos)
{
	if (v->start < 0 || pos < v->start)
		v->start = pos;
	if (pos > v->end)
		v->end = pos;
}

static void liveness(struct cg *g)
{
	struct entry *e = g->e;
	size_t W = (e->nvregs + 63) / 64;
	uint64_t *use, *def, *tmp;
	int u[16], d[8];
	bool changed;

	g->words = W ? W : 1;
	W = g->words;
	g->bits = cc_alloc(g->cc, sizeof(uint64_t) * W * (g->nb * 4 + 1));
	g->uses = cc_alloc(g->cc, sizeof(int) * (e->nvregs + 1));
	tmp = g->bits + W * g->nb * 4;
	for (int k = 0; k < g->nb; k++) {
		struct block *b = &g->b[k];

		b->in = g->bits + W * (k * 4);
		b->out = b->in + W;
		use = b->in + 2 * W;
		def = b->in + 3 * W;
		for (int i = b->first; i <= b->last; i++) {
			struct ins *in = &e->ins[i];
			int nu = cg_ins_uses(in, u), nd = cg_ins_defs(in, d);

			for (int j = 0; j < nu; j++) {
				if (!btst(def, u[j]))
					bset(use, u[j]);
				g->uses[u[j]]++;
			}
			for (int j = 0; j < nd; j++) {
				if (in->g >= 0) {
					/* a guarded write keeps the old value elsewhere */
					if (!btst(def, d[j]))
						bset(use, d[j]);
				} else {
					bset(def, d[j]);
				}
			}
		}
	}
	do {
		changed = false;
		for (int k = g->nb - 1; k >= 0; k--) {
			struct block *b = &g->b[k];

			use = b->in + 2 * W;
			def = b->in + 3 * W;
			memset(tmp, 0, W * 8);
			for (int s = 0; s < b->nsucc; s++)
				for (size_t w = 0; w < W; w++)
					tmp[w] |= g->b[b->succ[s]].in[w];
			memcpy(b->out, tmp, W * 8);
			for (size_t w = 0; w < W; w++) {
				uint64_t nin = use[w] | (b->out[w] & ~def[w]);

				if (nin != b->in[w]) {
					b->in[w] = nin;
					changed = true;
				}
			}
		}
	} while (changed);

	for (int k = 0; k < g->nb; k++) {
		struct block *b = &g->b[k];

		for (size_t v = 0; v < e->nvregs; v++) {
			if (btst(b->in, (int)v))
				extend(&e->vregs[v], 2 * b->first);
			if (btst(b->out, (int)v))
				extend(&e->vregs[v], 2 * b->last + 1);
		}
		for (int i = b->first; i <= b->last; i++) {
			struct ins *in = &e->ins[i];
			int nu = cg_ins_uses(in, u), nd = cg_ins_defs(in, d);

			for (int j = 0; j < nu; j++)
				extend(&e->vregs[u[j]], 2 * i);
			for (int j = 0; j < nd; j++)
				extend(&e->vregs[d[j]], 2 * i + 1);
		}
	}
}

/* ------------------------------------------------------------------ */
/* linear scan */

/*
 * The entry comes as qsort_r()'s argument, not in a global: programs are
 * compiled on several threads at once (the programs of a multi-programmed
 * experiment on libvgpu's local device).
 */
static int by_start(const void *x, const void *y, void *ctx)
{
	const struct entry *e = ctx;
	const struct vreg *a = &e->vregs[*(const int *)x];
	const struct vreg *b = &e->vregs[*(const int *)y];

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

/* The line of the instruction at interval position @pos (for errors). */
static int line_at(const struct entry *e, int pos)
{
	for (size_t j = 0; j < e->nins; j++)
		if (2 * (int)j + 1 >= pos)
			return e->ins[j].line;
	return e->line;
}

/*
 * Linear scan over the registers (or the predicates) with @limit machine
 * registers. When none is free, the interval that ends last among the
 * active ones and the new one (spill temporaries excepted) is spilled:
 * @spill[v] is set, its register freed, and the scan goes on; the caller
 * rewrites the code (spill_rewrite()) and allocates again. Returns the
 * registers used (meaningful when nothing was spilled).
 */
static int scan(struct cg *g, bool preds, int limit, bool *spill, int *nspill)
{
	struct entry *e = g->e;
	int *order = cc_alloc(g->cc, sizeof(int) * (e->nvregs + 1));
	int *active = cc_alloc(g->cc, sizeof(int) * (e->nvregs + 1));
	int n = 0, na = 0, maxr = 0;
	bool busy[VGPU_NUM_REGS + 1] = { 0 };

	for (size_t v = 0; v < e->nvregs; v++) {
		struct vreg *r = &e->vregs[v];

		if (r->start < 0 || (r->cls == VC_PRED) != preds)
			continue;
		if (!preds && !g->uses[v]) {
			r->phys = VGPU_RZ;	/* written, never read */
			continue;
		}
		order[n++] = (int)v;
	}
	qsort_r(order, n, sizeof(int), by_start, e);
	for (int i = 0; i < n; i++) {
		struct vreg *r = &e->vregs[order[i]];
		int k = 0, p = -1;

		/* expire */
		for (int j = 0; j < na; j++) {
			struct vreg *a = &e->vregs[active[j]];

			if (a->end < r->start) {
				busy[a->phys] = false;
				if (a->cls == VC_64)
					busy[a->phys + 1] = false;
			} else {
				active[k++] = active[j];
			}
		}
		na = k;
		for (;;) {
			int victim = -1, vj = -1;

			if (r->cls == VC_64) {
				for (int c = 0; c + 1 < limit; c += 2)
					if (!busy[c] && !busy[c + 1]) {
						p = c;
						break;
					}
			} else {
				for (int c = 0; c < limit; c++)
					if (!busy[c]) {
						p = c;
						break;
					}
			}
			if (p >= 0)
				break;
			/* spill the interval that ends last */
			if (!r->nospill)
				victim = order[i];
			for (int j = 0; j < na; j++) {
				struct vreg *a = &e->vregs[active[j]];

				if (!a->nospill && (victim < 0 || a->end > e->vregs[victim].end)) {
					victim = active[j];
					vj = j;
				}
			}
			if (victim < 0) {
				int line = line_at(e, r->start);

				cc_free(g->cc, order);
				cc_free(g->cc, active);
				if (preds)
					cc_error(g->cc, line, "more than %d predicates live at once "
						 "in one instruction", limit);
				cc_error(g->cc, line, "more than %d registers live at once in "
					 "one instruction (the limit per thread)", limit);
			}
			spill[victim] = true;
			(*nspill)++;
			if (vj < 0)
				break;	/* the new interval itself */
			busy[e->vregs[victim].phys] = false;
			if (e->vregs[victim].cls == VC_64)
				busy[e->vregs[victim].phys + 1] = false;
			active[vj] = active[--na];
		}
		if (p < 0)
			continue;
		r->phys = p;
		busy[p] = true;
		if (r->cls == VC_64)
			busy[p + 1] = true;
		if (p + (r->cls == VC_64 ? 2 : 1) > maxr)
			maxr = p + (r->cls == VC_64 ? 2 : 1);
		active[na++] = order[i];
	}
	cc_free(g->cc, order);
	cc_free(g->cc, active);
	return maxr;
}

/* ------------------------------------------------------------------ */
/* post-dominators */

static void postdom(struct cg *g)
{
	struct entry *e = g->e;
	int nb = g->nb, X = nb, cnt = 0, sp = 0;
	int *po = cc_alloc(g->cc, sizeof(int) * (nb + 1));	/* postorder number */
	int *rpo = cc_alloc(g->cc, sizeof(int) * (nb + 1));
	int *ipdom = cc_alloc(g->cc, sizeof(int) * (nb + 1));
	int *npred = cc_alloc(g->cc, sizeof(int) * (nb + 1));
	int *pstart = cc_alloc(g->cc, sizeof(int) * (nb + 2));
	int *plist = cc_alloc(g->cc, sizeof(int) * (2 * nb + 1));
	int *stk = cc_alloc(g->cc, sizeof(int) * (2 * nb + 2));
	int *it = cc_alloc(g->cc, sizeof(int) * (nb + 1));
	bool changed;

	/* CFG predecessors of each node (X = virtual exit) */
	for (int k = 0; k < nb; k++) {
		struct ins *last = &e->ins[g->b[k].last];
		bool exits = last->op == VGPU_OP_EXIT || last->op == VGPU_OP_TRAP ||
			     (g->b[k].nsucc == 0);

		for (int s = 0; s < g->b[k].nsucc; s++)
			npred[g->b[k].succ[s]]++;
		if (exits)
			npred[X]++;
	}
	for (int k = 0; k <= nb; k++)
		pstart[k + 1] = pstart[k] + npred[k];
	memset(npred, 0, sizeof(int) * (nb + 1));
	for (int k = 0; k < nb; k++) {
		struct ins *last = &e->ins[g->b[k].last];
		bool exits = last->op == VGPU_OP_EXIT || last->op == VGPU_OP_TRAP ||
			     (g->b[k].nsucc == 0);

		for (int s = 0; s < g->b[k].nsucc; s++) {
			int t = g->b[k].succ[s];

			plist[pstart[t] + npred[t]++] = k;
		}
		if (exits)
			plist[pstart[X] + npred[X]++] = k;
	}
	/* DFS from X over reversed edges, postorder */
	for (int k = 0; k <= nb; k++) {
		po[k] = -1;
		ipdom[k] = -1;
	}
	stk[sp++] = X;
	it[X] = 0;
	po[X] = -2;
	while (sp) {
		int n = stk[sp - 1];

		if (it[n] < npred[n]) {
			int m = plist[pstart[n] + it[n]++];

			if (po[m] == -1) {
				po[m] = -2;
				it[m] = 0;
				stk[sp++] = m;
			}
		} else {
			po[n] = cnt;
			rpo[cnt++] = n;
			sp--;
		}
	}
	/* Cooper-Harvey-Kennedy on the reversed graph */
	ipdom[X] = X;
	do {
		changed = false;
		for (int i = cnt - 1; i >= 0; i--) {
			int n = rpo[i], nd = -1;
			int succs[3], ns = 0;

			if (n == X)
				continue;
			for (int s = 0; s < g->b[n].nsucc; s++)
				succs[ns++] = g->b[n].succ[s];
			{
				struct ins *last = &e->ins[g->b[n].last];

				if (last->op == VGPU_OP_EXIT || last->op == VGPU_OP_TRAP ||
				    g->b[n].nsucc == 0)
					succs[ns++] = X;
			}
			for (int s = 0; s < ns; s++) {
				int m = succs[s];

				if (ipdom[m] < 0)
					continue;
				if (nd < 0) {
					nd = m;
					continue;
				}
				{
					int a = m, b = nd;

					while (a != b) {
						while (po[a] < po[b])
							a = ipdom[a];
						while (po[b] < po[a])
							b = ipdom[b];
					}
					nd = a;
				}
			}
			if (nd >= 0 && ipdom[n] != nd) {
				ipdom[n] = nd;
				changed = true;
			}
		}
	} while (changed);
	for (int k = 0; k < nb; k++) {
		struct ins *last = &e->ins[g->b[k].last];

		if (last->op != VGPU_OP_BRA)
			continue;
		if (last->g < 0 || ipdom[k] < 0 || ipdom[k] == X)
			last->rpc = VGPU_NO_RECONV;
		else
			last->rpc = (uint32_t)g->b[ipdom[k]].first;	/* index; addr later */
	}
	cc_free(g->cc, po);
	cc_free(g->cc, rpo);
	cc_free(g->cc, ipdom);
	cc_free(g->cc, npred);
	cc_free(g->cc, pstart);
	cc_free(g->cc, plist);
	cc_free(g->cc, stk);
	cc_free(g->cc, it);
}

/* ------------------------------------------------------------------ */
/* entry flags and idempotence boundaries */

static bool global_space(const struct ins *in)
{
	int sp = VGPU_M_MEM_SP(in->mod);

	return sp == VGPU_SP_GLOBAL || sp == VGPU_SP_GENERIC;
}

static void flags(struct cg *g)
{
	struct entry *e = g->e;
	bool reads_writable = false, stores = false;

	for (size_t i = 0; i < e->nins; i++) {
		struct ins *in = &e->ins[i];

		if (in->op == VGPU_OP_ATOM && !in->internal)
			e->flags |= VGPU_ENTRY_HAS_ATOMICS;
		if ((in->op == VGPU_OP_LD || in->op == VGPU_OP_ST) && global_space(in)) {
			if (in->op == VGPU_OP_LD)
				reads_writable |= !in->nc;
			else
				stores = true;
		}
	}
	/*
	 * Two pointer parameters may point into the same buffer (nothing in
	 * PTX says they do not), so provenance alone cannot prove that a store
	 * leaves the entry's reads alone: a global store may overwrite any
	 * location the entry reads from writable global memory. Only loads
	 * marked .nc are known not to be overwritten (read-only for the whole
	 * kernel).
	 */
	if (stores && reads_writable)
		e->flags |= VGPU_ENTRY_HAS_GLOBAL_RMW;
	/*
	 * Chimera's relaxed idempotence boundaries (thesis Sec. 4.3.1): an
	 * atomic on global memory, and a global store that may overwrite a
	 * location the entry reads. Shared-memory atomics are not
	 * boundaries: a re-executed block starts with fresh shared memory.
	 */
	for (size_t i = 0; i < e->nins; i++) {
		struct ins *in = &e->ins[i];

		/* NEXTTB too: a block run again would take other logical blocks */
		if ((in->op == VGPU_OP_ATOM && global_space(in)) || (in->op == VGPU_OP_NEXTTB && in->mod == VGPU_NEXTTB_TB))
			in->boundary = true;
		else if (in->op == VGPU_OP_ST && global_space(in))
			in->boundary = reads_writable;
	}
}

/* ------------------------------------------------------------------ */
/* analyses for the analysis section (after allocation and peephole) */

/* Static count of the instructions no boundary reaches. */
static void idempotence(struct cg *g)
{
	struct entry *e = g->e;
	bool *tin = cc_alloc(g->cc, sizeof(bool) * (g->nb + 1));
	bool changed;
	uint32_t insts = 0, idem = 0;

	e->an.first_boundary = VGPU_NO_BOUNDARY;
	do {
		changed = false;
		for (int k = 0; k < g->nb; k++) {
			struct block *b = &g->b[k];
			bool out = tin[k];

			for (int i = b->first; i <= b->last && !out; i++)
				out = e->ins[i].boundary && !e->ins[i].dead;
			for (int s = 0; s < b->nsucc; s++) {
				if (out && !tin[b->succ[s]]) {
					tin[b->succ[s]] = true;
					changed = true;
				}
			}
		}
	} while (changed);
	for (int k = 0; k < g->nb; k++) {
		struct block *b = &g->b[k];
		bool t = tin[k];

		for (int i = b->first; i <= b->last; i++) {
			struct ins *in = &e->ins[i];

			if (in->dead)
				continue;
			insts++;
			if (in->boundary) {
				t = true;
				e->an.num_boundaries++;
				if (e->an.first_boundary == VGPU_NO_BOUNDARY ||
				    in->addr < e->an.first_boundary)
					e->an.first_boundary = in->addr;
			}
			if (!t)
				idem++;
			if (in->op == VGPU_OP_BRA && in->g >= 0) {
				e->an.num_branches++;
				if (in->rpc != VGPU_NO_RECONV)
					e->an.num_reconv++;
			}
		}
	}
	e->an.insts = insts;
	e->an.idem_insts = idem;
	cc_free(g->cc, tin);
}

/* getScore() of every instruction at once: g[k] for k in [0, n]. */
static void elf_scores(int n, const bool *pp, const int *sc, int *gs)
{
	gs[n] = VGPU_ELF_MAX_SCORE;
	for (int k = n - 1; k >= 0; k--) {
		if (pp[k])
			gs[k] = sc[k] < VGPU_ELF_MAX_SCORE ? sc[k] : VGPU_ELF_MAX_SCORE;
		else
			gs[k] = gs[k + 1] + 1 < VGPU_ELF_MAX_SCORE ? gs[k + 1] + 1 :
				VGPU_ELF_MAX_SCORE;
	}
}

/*
 * ELF's program points (thesis Ch. III, Algorithms 1 and 2) over the live
 * instructions in code order: global/local/generic loads and branches;
 * branch scores by fixpoint; meaningless branches removed; then merged
 * down to VGPU_ELF_SLOTS.
 */
static void elf_points(struct cg *g)
{
	struct entry *e = g->e;
	int n = 0, *idx, *sc, *gs, *tgt, *at, npp = 0;
	bool *pp, *br, *ld, changed;
	const int MAX = VGPU_ELF_MAX_SCORE;

	for (size_t i = 0; i < e->nins; i++)
		n += !e->ins[i].dead;
	idx = cc_alloc(g->cc, sizeof(int) * (n + 1));
	sc = cc_alloc(g->cc, sizeof(int) * (n + 1));
	gs = cc_alloc(g->cc, sizeof(int) * (n + 1));
	tgt = cc_alloc(g->cc, sizeof(int) * (n + 1));
	at = cc_alloc(g->cc, sizeof(int) * (e->nins + 1));
	pp = cc_alloc(g->cc, n + 1);
	br = cc_alloc(g->cc, n + 1);
	ld = cc_alloc(g->cc, n + 1);
	/* at[i]: live instruction index of ins i or the first live one after */
	at[e->nins] = n;
	for (size_t i = e->nins, k = n; i-- > 0;) {
		if (!e->ins[i].dead)
			idx[--k] = (int)i;
		at[i] = (int)k;
	}
	for (int k = 0; k < n; k++) {
		struct ins *in = &e->ins[idx[k]];
		int sp = VGPU_M_MEM_SP(in->mod);

		if (in->op == VGPU_OP_LD && (sp == VGPU_SP_GLOBAL || sp == VGPU_SP_LOCAL ||
					     sp == VGPU_SP_GENERIC)) {
			pp[k] = ld[k] = true;
			sc[k] = 0;
		} else if (in->op == VGPU_OP_BRA) {
			pp[k] = br[k] = true;
			sc[k] = MAX;
			tgt[k] = at[e->labels[in->label].pos];
		}
	}
	/* Algorithm 1, lines 10-24 */
	do {
		changed = false;
		elf_scores(n, pp, sc, gs);
		for (int k = 0; k < n; k++) {
			int ns, ts, m;

			if (!br[k])
				continue;
			ns = gs[k + 1] + 1 < MAX ? gs[k + 1] + 1 : MAX;
			ts = gs[tgt[k]] + 1 < MAX ? gs[tgt[k]] + 1 : MAX;
			m = ns < ts ? ns : ts;
			if (m < sc[k]) {
				sc[k] = m;
				changed = true;
				elf_scores(n, pp, sc, gs);
			}
		}
	} while (changed);
	/* lines 25-31: meaningless branches */
	for (int k = 0; k < n; k++) {
		if (!br[k])
			continue;
		elf_scores(n, pp, sc, gs);
		if (sc[k] >= MAX || sc[k] == (gs[k + 1] + 1 < MAX ? gs[k + 1] + 1 : MAX))
			pp[k] = br[k] = false;
	}
	for (int k = 0; k < n; k++)
		npp += pp[k];
	e->an.elf_points_before_merge = (uint32_t)npp;
	/* Algorithm 2, until the points fit the slots */
	while (npp > VGPU_ELF_SLOTS) {
		int mind = MAX, mem = -1, prev = -1, last = -1;

		elf_scores(n, pp, sc, gs);
		for (int k = 0; k < n; k++) {
			if (!pp[k])
				continue;
			if (ld[k] && last >= 0) {
				int cur = gs[last + 1] + 1;

				if (cur < mind) {
					mind = cur;
					mem = k;
					prev = last;
					if (br[last])
						mind -= sc[last];
					if (mind < 0)
						mind = 0;
				}
			}
			last = k;
		}
		if (mem < 0) {
			/* no load follows another point: drop the last point */
			pp[last] = br[last] = false;
		} else {
			sc[mem] = mind;
			pp[prev] = br[prev] = false;
		}
		npp--;
	}
	for (int k = 0, j = 0; k < n; k++) {
		struct vgpu_elf_point *p;

		if (!pp[k])
			continue;
		p = &e->an.elf[j++];
		p->pc = e->ins[idx[k]].addr;
		p->score = (uint8_t)(sc[k] < MAX ? sc[k] : MAX);
		p->flags = br[k] ? VGPU_ELF_BRANCH : 0;
		e->an.num_elf_points = (uint32_t)j;
	}
	cc_free(g->cc, idx);
	cc_free(g->cc, sc);
	cc_free(g->cc, gs);
	cc_free(g->cc, tgt);
	cc_free(g->cc, at);
	cc_free(g->cc, pp);
	cc_free(g->cc, br);
	cc_free(g->cc, ld);
}

/* ------------------------------------------------------------------ */

/* After allocation: a move onto itself, or a pure operation whose result
 * nobody reads (destination RZ), has no effect and is dropped. */
static void peephole(struct entry *e)
{
	for (size_t i = 0; i < e->nins; i++) {
		struct ins *in = &e->ins[i];
		bool pure;

		switch (in->op) {
		case VGPU_OP_MOV:
			if (in->d >= 0 && in->b.k == OK_REG &&
			    e->vregs[in->d].phys == e->vregs[in->b.r].phys &&
			    (e->vregs[in->d].cls == VC_64) == (e->vregs[in->b.r].cls == VC_64)) {
				in->dead = true;
				continue;
			}
			pure = true;
			break;
		case VGPU_OP_S2R: case VGPU_OP_LEAD: case VGPU_OP_CVTA: case VGPU_OP_PACK:
		case VGPU_OP_UNPK: case VGPU_OP_SELP: case VGPU_OP_CVT:
			pure = true;
			break;
		default:
			pure = in->op >= VGPU_OP_ADD && in->op <= VGPU_OP_TANH;
			break;
		}
		if (pure && (in->d < 0 || e->vregs[in->d].phys == VGPU_RZ))
			in->dead = true;
	}
}

void cg_entry(struct compiler *cc, struct entry *e)
{
	struct cg g = { .cc = cc, .e = e };
	uint32_t addr = 0;
	int nr;

	int limit = cc->lim.regs_per_thread && cc->lim.regs_per_thread < VGPU_NUM_REGS ?
		    (int)cc->lim.regs_per_thread : VGPU_NUM_REGS;

	for (;;) {
		bool *spill;
		int nregs = 0, npreds = 0;

		build_blocks(&g);
		liveness(&g);
		spill = cc_alloc(cc, e->nvregs + 1);
		nr = scan(&g, false, limit, spill, &nregs);
		scan(&g, true, VGPU_NUM_PREDS, spill, &npreds);
		if (!nregs && !npreds) {
			cc_free(cc, spill);
			break;
		}
		/* spill, then build and allocate the rewritten code again */
		e->spilled_regs += (uint32_t)nregs;
		e->spilled_preds += (uint32_t)npreds;
		cc_free(cc, g.b);
		cc_free(cc, g.bits);
		cc_free(cc, g.uses);
		spill_rewrite(cc, e, spill);
		cc_free(cc, spill);
		for (size_t v = 0; v < e->nvregs; v++) {
			e->vregs[v].start = e->vregs[v].end = -1;
			e->vregs[v].phys = -1;
		}
	}
	postdom(&g);
	flags(&g);
	e->regs = (uint32_t)nr;
	peephole(e);
	for (size_t i = 0; i < e->nins; i++) {
		e->ins[i].addr = addr;
		if (!e->ins[i].dead)
			addr += 1 + e->ins[i].x;
	}
	e->code_words = addr;
	for (size_t i = 0; i < e->nins; i++) {
		struct ins *in = &e->ins[i];

		if (in->op == VGPU_OP_BRA && in->rpc != VGPU_NO_RECONV)
			in->rpc = e->ins[in->rpc].addr;
	}
	e->an.size = sizeof(e->an);
	idempotence(&g);
	elf_points(&g);
	cc_free(cc, g.b);
	cc_free(cc, g.bits);
	cc_free(cc, g.uses);
}

/* ------------------------------------------------------------------ */
/* encoding */

static unsigned int phys(const struct entry *e, int v)
{
	return v < 0 ? VGPU_RZ : (unsigned int)e->vregs[v].phys;
}

static unsigned int opnd_field(const struct entry *e, const struct opnd *o)
{
	if (o->k == OK_REG)
		return phys(e, o->r);
	if (o->k == OK_IMM)
		return (unsigned int)(o->v & 0xff);
	return VGPU_RZ;
}

static int encode(const struct entry *e, const struct ins *in, uint32_t base, uint64_t *out)
{
	unsigned int mod = in->mod, d = phys(e, in->d), a = opnd_field(e, &in->a);
	unsigned int b = opnd_field(e, &in->b), c = opnd_field(e, &in->c);
	uint64_t w, ext = 0;
	bool mem = in->op == VGPU_OP_LD || in->op == VGPU_OP_ST || in->op == VGPU_OP_ATOM;
	bool bi = in->b.k == OK_IMM, ci = in->c.k == OK_IMM;

	switch (in->op) {
	case VGPU_OP_SETP:
		mod |= VGPU_M_SETP(0, 0, in->pneg, in->q >= 0 ? phys(e, in->q) : 0,
				   in->q >= 0, 0);
		c = in->p >= 0 ? phys(e, in->p) : VGPU_RZ;
		ci = false;
		break;
	case VGPU_OP_SELP:
		mod = VGPU_M_SELP(phys(e, in->p), in->pneg);
		break;
	case VGPU_OP_PLOP:
		mod |= VGPU_M_PLOP(0, in->pneg, in->p2neg);
		a = phys(e, in->p);
		b = in->p2 >= 0 ? phys(e, in->p2) : VGPU_RZ;
		break;
	case VGPU_OP_VOTE:
		mod = VGPU_M_VOTE(in->mod, phys(e, in->p), in->pneg);
		break;
	case VGPU_OP_SHFL:
		mod = VGPU_M_SHFL(in->mod, in->q >= 0 ? phys(e, in->q) : 0, in->q >= 0);
		break;
	case VGPU_OP_BRA:
		ext = (uint64_t)(base + e->ins[e->labels[in->label].pos].addr) |
		      (uint64_t)(in->rpc == VGPU_NO_RECONV ? VGPU_NO_RECONV : base + in->rpc) << 32;
		break;
	default:
		break;
	}
	if (mem) {
		if (in->op == VGPU_OP_ST && in->nvec <= 1)
			c = in->c.k == OK_REG ? phys(e, in->c.r) : VGPU_RZ;
		if (in->op == VGPU_OP_LD || in->op == VGPU_OP_ST) {
			if (in->x) {
				bi = false;
				b = VGPU_RZ;
				ext = (uint32_t)(int32_t)in->off;
				for (int i = 0; i < in->nvec; i++)
					ext |= (uint64_t)phys(e, in->vec[i]) << (32 + 8 * i);
			} else if (in->off) {
				bi = true;
				b = (unsigned int)(in->off & 0xff);
			} else {
				bi = false;
				b = VGPU_RZ;
			}
		} else {
			ext = (uint32_t)(int32_t)in->off;
		}
	} else if (in->x && in->op != VGPU_OP_BRA) {
		ext = in->b.v;
		b = 0;
	}
	w = vgpu_enc(in->op, in->type, d, a, b, c, mod);
	if (in->g >= 0)
		w = vgpu_enc_guard(w, phys(e, in->g), in->gneg);
	if (bi)
		w |= VGPU_I_BI;
	if (ci)
		w |= VGPU_I_CI;
	if (in->x)
		w |= VGPU_I_X;
	if (in->boundary)
		w |= VGPU_I_BOUNDARY;
	out[0] = w;
	if (in->x)
		out[1] = ext;
	return 1 + in->x;
}

int cg_image(struct compiler *cc, void **image, size_t *size)
{
	struct vgpu_program_header *h;
	uint64_t words = 0;
	size_t eoff, coff, doff, aoff, total;
	uint8_t *img;
	uint64_t *code;
	uint32_t base = 0;

	for (size_t i = 0; i < cc->nentries; i++)
		words += cc->entries[i].code_words;
	eoff = (sizeof(*h) + 7) & ~7ul;
	coff = eoff + cc->nentries * sizeof(struct vgpu_program_entry);
	coff = (coff + 7) & ~7ul;
	doff = coff + words * 8;
	aoff = (doff + cc->data_init + 7) & ~7ul;
	total = aoff + cc->nentries * sizeof(struct vgpu_program_analysis);
	if (total > VGPU_PROGRAM_MAX_SIZE)
		cc_error(cc, 1, "program image larger than %u bytes", VGPU_PROGRAM_MAX_SIZE);
	img = calloc(1, total);
	if (!img)
		return -ENOMEM;
	h = (struct vgpu_program_header *)img;
	h->magic = VGPU_PROGRAM_MAGIC;
	h->version_major = VGPU_PROGRAM_VERSION_MAJOR;
	h->version_minor = VGPU_PROGRAM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->image_size = (uint32_t)total;
	h->num_entries = (uint32_t)cc->nentries;
	h->entry_size = sizeof(struct vgpu_program_entry);
	h->entries_offset = (uint32_t)eoff;
	h->code_offset = (uint32_t)coff;
	h->code_size = (uint32_t)(words * 8);
	h->data_offset = (uint32_t)doff;
	h->data_init_size = cc->data_init;
	h->data_size = (cc->data_size + 7) & ~7u;
	h->analysis_offset = (uint32_t)aoff;
	h->analysis_size = (uint32_t)(cc->nentries * sizeof(struct vgpu_program_analysis));
	code = (uint64_t *)(img + coff);
	for (size_t i = 0; i < cc->nentries; i++) {
		struct entry *e = &cc->entries[i];
		struct vgpu_program_entry *pe =
			(struct vgpu_program_entry *)(img + eoff) + i;
		uint32_t k = base;

		for (size_t c = 0; c + 1 < sizeof(pe->name) && e->name[c]; c++)
			pe->name[c] = e->name[c];
		pe->code_start = base * 8;
		pe->code_end = (base + e->code_words) * 8;
		pe->regs_per_thread = e->regs;
		pe->shared_static = e->shared_static;
		pe->param_size = e->param_size;
		pe->local_per_thread = e->local_size;
		pe->max_threads_per_tb = e->max_threads;
		pe->flags = e->flags;
		memcpy(img + aoff + i * sizeof(e->an), &e->an, sizeof(e->an));
		for (size_t j = 0; j < e->nins; j++)
			if (!e->ins[j].dead)
				k += encode(e, &e->ins[j], base, code + k);
		base += e->code_words;
	}
	if (cc->data_init)
		memcpy(img + doff, cc->data, cc->data_init);
	*image = img;
	*size = total;
	return 0;
}
