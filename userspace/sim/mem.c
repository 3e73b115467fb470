// SPDX-License-Identifier: MIT
/*
 * mem.c - the memory system of the timing model: shared memory banks,
 * coalescing, L1D with MSHRs, the instruction cache, the interconnect, L2
 * slices over the memory partitions, atomics at L2 and DRAM channels with
 * row buffers.
 *
 * A warp's global access is coalesced into 128-byte lines with a mask of
 * the 32-byte sectors it touches (one transaction per line, as GPGPU-Sim
 * does for Fermi and later). The LD/ST unit handles one transaction per
 * cycle. L1D (thesis Table 3.1: 16 KB, 4-way, 128 B lines, 32 MSHRs) is
 * allocate-on-miss: a miss needs a free MSHR and a victim way without a
 * pending fill; when either is lacking, the LD/ST unit stalls until one
 * frees (the "reservation fail" of Sec. 3.2.3 that the thesis counts as a
 * memory conflict). Stores are write-through with write-evict (Fermi).
 * Misses and stores cross the interconnect to the L2 slice that the address
 * hash picks; each slice's tag port takes one access per cycle (atomics:
 * one per lane on the same address). L2 is write-back, write-allocate
 * without fetch for written sectors. L2 misses go to the partition's DRAM
 * channel: a data bus of bandwidth / partitions and banks with an open row;
 * an access to another row pays dram_row_miss.
 *
 * Latency parameters are the load-to-use times a pointer chase sees on an
 * idle machine: l1d_latency (L1 hit), l2_latency (L2 hit), mem_latency (DRAM,
 * open row); the slice and DRAM internals are derived from them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

#define LOCAL_BASE	(1ull << 56)

struct mctx {
	struct vgpu_sim *s;
	struct vgpu_sim_stats *a, *b;	/* SM and block (for its job) counters */
};

#define CNT(c, f, v) do { (c)->a->f += (v); (c)->b->f += (v); } while (0)

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ------------------------------------------------------------------ */
/* caches */

static int cache_init(struct cache *c, uint32_t size, uint32_t assoc)
{
	uint32_t lines = size >> LINE_SHIFT;

	c->sets = 0;
	c->l = NULL;
	if (!lines)
		return 0;
	if (!assoc || assoc > lines)
		assoc = lines;
	c->assoc = assoc;
	c->sets = lines / assoc;
	c->l = sim_calloc((size_t)c->sets * assoc, sizeof(*c->l));
	return c->l ? 0 : -ENOMEM;
}

static void cache_reset(struct cache *c)
{
	if (c->l)
		memset(c->l, 0, sizeof(*c->l) * c->sets * c->assoc);
	c->tick = 0;
}

/*
 * Looks @line up in set @set at @t. A hit returns its way (*hit true). A
 * miss returns the victim: an invalid way, else the least recently used way
 * whose fill is not pending; if every way is pending, *wait is the cycle
 * the first fill completes and NULL is returned.
 */
static struct cline *cache_look(struct cache *c, uint64_t line, uint64_t set, uint64_t t,
				bool *hit, uint64_t *wait)
{
	struct cline *ways = c->l + (size_t)(set % c->sets) * c->assoc, *v = NULL;
	uint64_t w = UINT64_MAX;

	/* Hits first, in a loop of their own: most looks hit. */
	for (uint32_t i = 0; i < c->assoc; i++) {
		if (ways[i].tag == line + 1) {
			*hit = true;
			ways[i].lru = ++c->tick;
			return &ways[i];
		}
	}
	for (uint32_t i = 0; i < c->assoc; i++) {
		struct cline *x = &ways[i];

		if (x->tag && x->fill > t) {
			if (x->fill < w)
				w = x->fill;
			continue;
		}
		if (!v || (v->tag && (!x->tag || x->lru < v->lru)))
			v = x;
	}
	*hit = false;
	*wait = w;
	if (v)
		v->lru = ++c->tick;
	return v;
}

static void cache_shift(struct cache *c, int64_t delta)
{
	for (size_t i = 0; c->l && i < (size_t)c->sets * c->assoc; i++)
		if (c->l[i].tag)
			c->l[i].fill += (uint64_t)delta;
}

/* ------------------------------------------------------------------ */
/* DRAM and L2 */

static uint32_t part_of(const struct vgpu_sim *s, uint64_t line)
{
	/* XOR-folded address hash over the partitions (avoids camping) */
	uint64_t x = line ^ (line >> 7) ^ (line >> 14) ^ (line >> 21);

	return (uint32_t)(x % s->cfg.mem_partitions);
}

/* One DRAM access of @nsect sectors of @line arriving at @t; data time. */
static uint64_t dram(struct mctx *c, struct part *p, uint64_t line, uint32_t nsect, uint64_t t,
		     bool write)
{
	struct vgpu_sim *s = c->s;
	uint64_t xfer = nsect * s->sector_xfer, st = max64(t << 8, p->ch_free), done;
	uint64_t local = line / s->cfg.mem_partitions;
	uint64_t lpr = s->cfg.dram_row_bytes >> LINE_SHIFT ? s->cfg.dram_row_bytes >> LINE_SHIFT : 1;
	uint64_t row = local / lpr, bank = row % s->cfg.dram_banks, rid = row / s->cfg.dram_banks;
	uint32_t extra = 0;

	if (s->cfg.dram_calendar) {
		/* the transfer fills the channel's free 1/256 cycles from @t on */
		done = xfer ? cal_book(&p->dcal, 256, s->now, t, xfer, NULL) + 1 : t;
	} else {
		p->ch_free = st + xfer;
		done = (st + xfer + 255) >> 8;
	}
	if (p->row[bank] != rid + 1) {
		extra = s->cfg.dram_row_miss;
		p->row[bank] = rid + 1;
	}
	if (write) {
		CNT(c, dram_write_bytes, (uint64_t)nsect << SECTOR_SHIFT);
		return 0;
	}
	CNT(c, dram_read_bytes, (uint64_t)nsect << SECTOR_SHIFT);
	return done + s->dram_core + extra;
}

enum { L2_RD = 0, L2_WR, L2_ATOM };

/* Forgets the cycles before @now: no request arrives before it. */
static void cal_slide(struct cal *c, uint64_t now)
{
	if (now <= c->base)
		return;
	if (now - c->base >= CAL_CYCLES)
		memset(c->use, 0, CAL_CYCLES * sizeof(*c->use));
	else
		for (uint64_t t = c->base; t < now; t++)
			c->use[t % CAL_CYCLES] = 0;
	c->base = now;
}

uint64_t cal_book(struct cal *c, uint32_t cap, uint64_t now, uint64_t t, uint64_t units,
		  uint64_t *first)
{
	uint64_t u, last = t - 1;

	cal_slide(c, now);
	u = max64(t, c->base);
	if (first)
		*first = u;
	for (bool got = false; units; u++) {
		uint16_t *x = &c->use[u % CAL_CYCLES];
		uint64_t take;

		if (u >= c->base + CAL_CYCLES) {
			/* beyond the window: after every booking there */
			u = max64(u, c->far);
			if (first && !got)
				*first = u;
			c->far = u + (units + cap - 1) / cap;
			return c->far - 1;
		}
		if (*x >= cap)
			continue;
		take = units < cap - *x ? units : cap - *x;
		*x = (uint16_t)(*x + take);
		units -= take;
		if (first && !got)
			*first = u;
		got = true;
		last = u;
	}
	return last;
}

/* The bookings of @c @delta cycles later (or earlier). */
static void cal_shift(struct cal *c, int64_t delta)
{
	uint16_t *old = malloc(CAL_CYCLES * sizeof(*old));
	uint64_t base = c->base;

	if (old) {
		memcpy(old, c->use, CAL_CYCLES * sizeof(*old));
		for (uint64_t t = base; t < base + CAL_CYCLES; t++)
			c->use[(t + (uint64_t)delta) % CAL_CYCLES] = old[t % CAL_CYCLES];
		free(old);
	} else {
		memset(c->use, 0, CAL_CYCLES * sizeof(*c->use));
	}
	c->base = base + (uint64_t)delta;
	if (c->far)
		c->far += (uint64_t)delta;
}

static int cal_init(struct cal *c, bool on)
{
	memset(c, 0, sizeof(*c));
	c->use = on ? calloc(CAL_CYCLES, sizeof(*c->use)) : NULL;
	return on && !c->use ? -ENOMEM : 0;
}

static void cal_reset(struct cal *c)
{
	if (c->use)
		memset(c->use, 0, CAL_CYCLES * sizeof(*c->use));
	c->base = c->far = 0;
}

/*
 * Books @n cycles of @p's L2 tag port for an access arriving at @a; returns
 * the first. Without l2_calendar the port is a busy-until time: the access
 * starts after every booking made before it. With it (a reservation
 * calendar, so that NewCAR's future bookings, thesis Sec. 3.3.4, do not
 * hold back the accesses that come before them in time) the access takes
 * the first free cycles at or after @a.
 */
uint64_t port_book(struct vgpu_sim *s, struct part *p, uint64_t a, uint32_t n)
{
	uint64_t t;

	if (!n)
		n = 1;
	if (!s->cfg.l2_calendar) {
		t = max64(a, p->port_free);
		p->port_free = t + n;
		return t;
	}
	cal_book(&p->pcal, 1, s->now, a, n, &t);
	return t;
}

/*
 * An access to the L2 slice of @line for sectors @sect arriving at @a;
 * @ops tag-port cycles. Returns when the data is ready at the slice.
 */
static uint64_t l2_access(struct mctx *c, uint64_t line, uint8_t sect, uint64_t a, int kind,
			  uint32_t ops)
{
	struct vgpu_sim *s = c->s;
	struct part *p = &s->parts[part_of(s, line)];
	struct cache *l2 = &p->l2;
	uint64_t t = port_book(s, p, a, ops), wait, ready;
	struct cline *x;
	uint8_t miss;
	bool hit;

	CNT(c, l2_accesses, 1);
	if (!l2->sets) {
		if (kind == L2_WR) {
			dram(c, p, line, sim_popcount(sect), t, true);
			return t;
		}
		return dram(c, p, line, sim_popcount(sect), t, false);
	}
	x = cache_look(l2, line, line / s->cfg.mem_partitions, t, &hit, &wait);
	if (!x) {
		/* every way pending: the access waits in the slice's queue */
		if (s->cfg.l2_calendar) {
			t = port_book(s, p, wait, ops);
		} else {
			t = wait;
			p->port_free = t + (ops ? ops : 1);
		}
		x = cache_look(l2, line, line / s->cfg.mem_partitions, t, &hit, &wait);
		if (!x)
			return t + s->l2_core;
	}
	if (hit && (x->valid & sect) == sect) {
		CNT(c, l2_hits, 1);
		if (kind != L2_RD)
			x->dirty |= sect;
		return max64(t + s->l2_core, x->fill);
	}
	if (!hit) {
		if (x->tag && x->dirty)
			dram(c, p, x->tag - 1, sim_popcount(x->dirty), t, true);
		x->tag = line + 1;
		x->valid = 0;
		x->dirty = 0;
		x->fill = 0;
	}
	if (kind == L2_WR) {
		/* write-allocate, no fetch: the written sectors become valid */
		x->valid |= sect;
		x->dirty |= sect;
		return t + s->l2_core;
	}
	miss = sect & (uint8_t)~x->valid;
	ready = dram(c, p, line, sim_popcount(miss), t, false);
	x->valid |= miss;
	if (kind == L2_ATOM)
		x->dirty |= sect;
	x->fill = max64(x->fill, ready);
	return max64(ready, t + s->l2_core);
}

/* ------------------------------------------------------------------ */

int mem_create(struct vgpu_sim *s)
{
	const struct vgpu_sim_config *cfg = &s->cfg;
	uint32_t np = cfg->mem_partitions, ns = cfg->schedulers_per_sm;
	uint64_t bpc;
	uint32_t icnt2 = 2 * cfg->icnt_latency;

	s->parts = calloc(np, sizeof(*s->parts));
	if (!s->parts)
		return -ENOMEM;
	for (uint32_t i = 0; i < np; i++) {
		struct part *p = &s->parts[i];

		p->row = calloc(cfg->dram_banks, sizeof(*p->row));
		if (!p->row || cache_init(&p->l2, cfg->l2_size / np, cfg->l2_assoc))
			return -ENOMEM;
		if (cal_init(&p->pcal, cfg->l2_calendar) ||
		    cal_init(&p->dcal, cfg->dram_calendar))
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < cfg->desc.num_sms; i++) {
		struct smt *t = &s->sms[i].t;

		t->mshr = sim_calloc(cfg->l1d_mshrs, sizeof(*t->mshr));
		t->nmshr = cfg->l1d_mshrs;
		t->prefetch = cfg->l1i_prefetch;
		/* a fully connected SM's shared units follow (sim.c fu_take()) */
		t->fu_free = sim_calloc((size_t)(ns + 1) * FU_N, sizeof(*t->fu_free));
		t->bank_free = sim_calloc((size_t)ns * (cfg->reg_banks + 1), sizeof(*t->bank_free));
		t->coll_free = sim_calloc((size_t)ns * (cfg->collectors + 1),
					  sizeof(*t->coll_free));
		t->cu_next = sim_calloc(ns, sizeof(*t->cu_next));
		if (!t->mshr || !t->fu_free || !t->bank_free || !t->coll_free || !t->cu_next ||
		    cache_init(&t->l1d, cfg->l1d_size, cfg->l1d_assoc) ||
		    cache_init(&t->l1i, cfg->l1i_size, cfg->l1i_assoc))
			return -ENOMEM;
	}
	/* bytes per core cycle per partition, fixed point 1/256 cycle per sector */
	bpc = cfg->dram_bandwidth_mbs ? (uint64_t)cfg->dram_bandwidth_mbs * 1000 : 0;
	if (bpc && cfg->desc.core_clock_khz) {
		/* sector time = 32 B / (MB/s * 1e6 / np / (kHz * 1e3)) cycles */
		s->sector_xfer = ((uint64_t)32 * np * cfg->desc.core_clock_khz * 256 + bpc / 2) / bpc;
	} else {
		s->sector_xfer = 0;
	}
	s->l2_core = cfg->l2_latency > icnt2 ? cfg->l2_latency - icnt2 : 1;
	s->dram_core = cfg->mem_latency > icnt2 + (s->sector_xfer >> 8) ?
		       cfg->mem_latency - icnt2 - (uint32_t)(s->sector_xfer >> 8) : 1;
	return 0;
}

void mem_destroy(struct vgpu_sim *s)
{
	if (s->parts) {
		for (uint32_t i = 0; i < s->cfg.mem_partitions; i++) {
			free(s->parts[i].row);
			free(s->parts[i].pcal.use);
			free(s->parts[i].dcal.use);
			free(s->parts[i].l2.l);
		}
		free(s->parts);
	}
	for (uint32_t i = 0; s->sms && i < s->cfg.desc.num_sms; i++) {
		struct smt *t = &s->sms[i].t;

		free(t->mshr);
		free(t->fu_free);
		free(t->bank_free);
		free(t->coll_free);
		free(t->cu_next);
		free(t->l1d.l);
		free(t->l1i.l);
	}
}

void mem_reset(struct vgpu_sim *s)
{
	const struct vgpu_sim_config *cfg = &s->cfg;
	uint32_t ns = cfg->schedulers_per_sm;

	for (uint32_t i = 0; i < cfg->mem_partitions; i++) {
		struct part *p = &s->parts[i];

		cache_reset(&p->l2);
		memset(p->row, 0, sizeof(*p->row) * cfg->dram_banks);
		p->port_free = 0;
		p->ch_free = 0;
		cal_reset(&p->pcal);
		cal_reset(&p->dcal);
	}
	for (uint32_t i = 0; i < cfg->desc.num_sms; i++) {
		struct smt *t = &s->sms[i].t;

		cache_reset(&t->l1d);
		cache_reset(&t->l1i);
		memset(t->mshr, 0, sizeof(*t->mshr) * cfg->l1d_mshrs);
		t->mhead = 0;
		memset(t->fu_free, 0, sizeof(*t->fu_free) * (ns + 1) * FU_N);
		memset(t->bank_free, 0, sizeof(*t->bank_free) * ns * (cfg->reg_banks + 1));
		memset(t->coll_free, 0, sizeof(*t->coll_free) * ns * (cfg->collectors + 1));
		memset(t->cu_next, 0, sizeof(*t->cu_next) * ns);
		t->ldst_free = 0;
		memset(t->car, 0, sizeof(t->car));
	}
}

static void shift_arr(uint64_t *a, size_t n, int64_t delta)
{
	for (size_t i = 0; i < n; i++)
		if (a[i])
			a[i] += (uint64_t)delta;
}

/* The MSHRs' free times in ascending order again (after a shift). */
static void mshr_sort(struct smt *t)
{
	uint64_t *a = t->mshr;

	for (uint32_t i = 1; i < t->nmshr; i++) {
		uint64_t v = a[i];
		uint32_t k = i;

		for (; k > 0 && a[k - 1] > v; k--)
			a[k] = a[k - 1];
		a[k] = v;
	}
	t->mhead = 0;
}

void mem_shift(struct vgpu_sim *s, int64_t delta)
{
	const struct vgpu_sim_config *cfg = &s->cfg;
	uint32_t ns = cfg->schedulers_per_sm;

	for (uint32_t i = 0; i < cfg->mem_partitions; i++) {
		struct part *p = &s->parts[i];

		cache_shift(&p->l2, delta);
		if (p->port_free)
			p->port_free += (uint64_t)delta;
		if (p->pcal.use)
			cal_shift(&p->pcal, delta);
		if (p->dcal.use)
			cal_shift(&p->dcal, delta);
		if (p->ch_free)
			p->ch_free += (uint64_t)(delta * 256);
	}
	for (uint32_t i = 0; i < cfg->desc.num_sms; i++) {
		struct smt *t = &s->sms[i].t;

		cache_shift(&t->l1d, delta);
		cache_shift(&t->l1i, delta);
		shift_arr(t->mshr, cfg->l1d_mshrs, delta);
		mshr_sort(t);
		shift_arr(t->fu_free, (size_t)(ns + 1) * FU_N, delta);
		shift_arr(t->bank_free, (size_t)ns * (cfg->reg_banks + 1), delta);
		shift_arr(t->coll_free, (size_t)ns * (cfg->collectors + 1), delta);
		shift_arr(t->cu_next, ns, delta);
		if (t->ldst_free)
			t->ldst_free += (uint64_t)delta;
		shift_arr(t->car, VGPU_SIM_NEWCAR_ENTRIES, delta);
	}
}

/* ------------------------------------------------------------------ */
/* the LD/ST unit */

/*
 * Lanes on each address, counted as they come: open addressing over twice
 * as many slots as a warp has lanes.
 */
struct addr_count {
	uint64_t key[64];
	uint8_t n[64];		/* 0: slot free */
};

/* One more lane on @a; returns the lanes on it so far. */
static inline uint32_t addr_count_add(struct addr_count *c, uint64_t a)
{
	uint32_t h = (uint32_t)((a * 0x9e3779b97f4a7c15ull) >> 58);

	while (c->n[h] && c->key[h] != a)
		h = (h + 1) & 63;
	c->key[h] = a;
	return ++c->n[h];
}

/*
 * The bank conflict degree of a full warp of 4-byte accesses whose
 * half-warps are each on one word or on 16 consecutive words (blocks 16
 * threads wide: two rows a warp), with @nb banks, a power of two of at
 * least 32: each half-warp has at most one word on a bank, so the degree
 * is 2 where a bank holds a word of each half-warp and the two differ,
 * else 1. 0: not those patterns.
 */
static inline __attribute__((always_inline)) uint32_t
half_warps_degree(const uint64_t *off, uint32_t nb)
{
	uint64_t w0 = off[0] >> 2, h1 = off[16] >> 2;
	uint64_t same0 = 0, same1 = 0, unit0 = 0, unit1 = 0, d;

	for (uint32_t l = 0; l < 16; l++) {
		same0 |= (off[l] >> 2) ^ w0;
		unit0 |= (off[l] >> 2) ^ (w0 + l);
		same1 |= (off[l + 16] >> 2) ^ h1;
		unit1 |= (off[l + 16] >> 2) ^ (h1 + l);
	}
	if (!same0 && !same1)
		/* two words: one word, or two on different banks, or a clash */
		return w0 != h1 && !((w0 ^ h1) & (nb - 1)) ? 2 : 1;
	if (!same0 && !unit1)
		/* w0 is one of the 16 words, or on none of their banks */
		return w0 - h1 < 16 || ((w0 - h1) & (nb - 1)) >= 16 ? 1 : 2;
	if (!unit0 && !same1)
		return h1 - w0 < 16 || ((h1 - w0) & (nb - 1)) >= 16 ? 1 : 2;
	if (!unit0 && !unit1) {
		/*
		 * two runs of 16 words: within a span of fewer than 32 words
		 * (distinct words, distinct banks), or on banks apart; else
		 * the runs are disjoint and share a bank
		 */
		d = h1 - w0;
		return d + 15 < 31 || ((d & (nb - 1)) >= 16 && (d & (nb - 1)) <= nb - 16) ? 1 : 2;
	}
	return 0;
}

/*
 * Distinct 4-byte words per bank, maximum over the banks (conflict degree).
 * Built for AVX2 too, with half_warps_degree() inlined: their tests of a
 * full warp's 64-bit addresses vectorise there.
 */
SIM_LANE_CLONES
static uint32_t bank_degree(const struct vgpu_sim *s, const uint64_t *off, uint32_t m,
			    uint32_t size, uint32_t *same_max)
{
	uint32_t nb = s->cfg.shared_banks, words = size >= 4 ? size / 4 : 1;
	uint32_t deg = 1, cnt[64], same = 1;
	uint64_t seen[64][8], banks = 0, bword[64];
	bool clash = false;

	if (nb > 64)
		nb = 64;
	/*
	 * at most one word on each bank (unit stride, a broadcast): no
	 * conflict; a mask of the banks used, and each one's word
	 */
	if (!same_max && m == 0xffffffffu && words == 1) {
		/*
		 * a full warp on one word, or on 32 consecutive words (no two
		 * on one bank with 32 banks or more): in a loop that vectorises
		 */
		uint64_t w0 = off[0] >> 2, unit = 0, same = 0;

		for (uint32_t l = 0; l < 32; l++) {
			unit |= (off[l] >> 2) ^ (w0 + l);
			same |= (off[l] >> 2) ^ w0;
		}
		if (!same || (!unit && nb >= 32))
			return 1;
		if (nb >= 32 && !(nb & (nb - 1))) {
			uint32_t hd = half_warps_degree(off, nb);

			if (hd)
				return hd;
		}
	}
	if (!same_max && m == 0xffffffffu && words == 1 && !(nb & (nb - 1))) {
		/* the loop below for the common case, without its tests */
		for (uint32_t l = 0; l < 32; l++) {
			uint64_t wd = off[l] >> 2;
			uint32_t b = (uint32_t)(wd & (nb - 1));

			if (!(banks >> b & 1)) {
				banks |= 1ull << b;
				bword[b] = wd;
			} else if (bword[b] != wd) {
				clash = true;
				break;
			}
		}
		if (!clash)
			return 1;
	} else if (!same_max) {
		bool pow2 = !(nb & (nb - 1));

		for (uint32_t l = 0; l < 32 && !clash; l++) {
			if (!(m >> l & 1))
				continue;
			for (uint32_t k = 0; k < words; k++) {
				uint64_t wd = (off[l] >> 2) + k;
				uint32_t b = (uint32_t)(pow2 ? wd & (nb - 1) : wd % nb);

				if (banks >> b & 1) {
					clash |= bword[b] != wd;
				} else {
					banks |= 1ull << b;
					bword[b] = wd;
				}
			}
		}
		if (!clash)
			return 1;
	}
	if (!same_max && m == 0xffffffffu && words == 1 && !(nb & (nb - 1))) {
		/*
		 * words that rise from lane to lane (strides, a compare-exchange
		 * network's pairs) are all different: the degree is the most
		 * lanes on one bank, without looking for repeated words
		 */
		uint64_t up = 1;
		uint8_t lanes[64];

		for (uint32_t l = 1; l < 32; l++)
			up &= off[l] >> 2 > off[l - 1] >> 2;
		if (up) {
			memset(lanes, 0, sizeof(lanes));
			for (uint32_t l = 0; l < 32; l++)
				lanes[(off[l] >> 2) & (nb - 1)]++;
			for (uint32_t b = 0; b < nb; b++)
				deg = lanes[b] > deg ? lanes[b] : deg;
			return deg;
		}
	}
	memset(cnt, 0, sizeof(cnt));
	if (words == 1 && !(nb & (nb - 1))) {
		/* the loop below for one word a lane: the active lanes only, no division */
		for (uint32_t mm = m; mm; mm &= mm - 1) {
			uint64_t wd = off[__builtin_ctz(mm)] >> 2;
			uint32_t b = (uint32_t)(wd & (nb - 1)), n = cnt[b], i;
			uint32_t kept = n < 8 ? n : 8;

			for (i = 0; i < kept; i++)
				if (seen[b][i] == wd)
					break;
			if (i < kept)
				continue;
			if (n < 8)
				seen[b][n] = wd;
			cnt[b] = ++n;
			if (n > deg)
				deg = n;
		}
	} else {
		for (uint32_t l = 0; l < 32; l++) {
			if (!(m >> l & 1))
				continue;
			for (uint32_t k = 0; k < words; k++) {
				uint64_t wd = (off[l] >> 2) + k;
				uint32_t b = (uint32_t)(wd % nb), i;

				for (i = 0; i < cnt[b] && i < 8; i++)
					if (seen[b][i] == wd)
						break;
				if (i < cnt[b] && i < 8)
					continue;
				if (cnt[b] < 8)
					seen[b][cnt[b]] = wd;
				if (++cnt[b] > deg)
					deg = cnt[b];
			}
		}
	}
	if (same_max) {
		/* lanes on one address serialise (atomics): the most on one */
		struct addr_count ac;

		memset(ac.n, 0, sizeof(ac.n));
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t n;

			if (!(m >> l & 1))
				continue;
			n = addr_count_add(&ac, off[l]);
			if (n > same)
				same = n;
		}
		*same_max = same;
	}
	return deg;
}

/* Whether every active lane of @m has the same address. */
static bool lanes_same(const uint64_t *off, uint32_t m)
{
	uint64_t a = off[__builtin_ctz(m)], diff = 0;

	if (m == 0xffffffffu) {
		for (uint32_t l = 0; l < 32; l++)
			diff |= off[l] ^ a;
	} else {
		for (uint32_t l = 0; l < 32; l++)
			diff |= (m >> l & 1) ? off[l] ^ a : 0;
	}
	return !diff;
}

/*
 * Coalescing of the two common patterns at once, with the lines in the
 * order and the sectors the per-lane loop finds (accesses of at most 32
 * bytes, which touch at most two sectors each): every active lane on one
 * address, or a full warp on consecutive elements (lane l at off[0] + l *
 * @size). @known: a full warp whose @unit says whether it is on consecutive
 * elements (exec.c found out). Returns the number of lines, 0 for any other
 * pattern.
 */
SIM_LANE_CLONES
static uint32_t coalesce_fast(const uint64_t *off, uint32_t m, uint32_t size, bool known,
			      bool unit, uint64_t *lines, uint8_t *sects)
{
	uint64_t a = off[__builtin_ctz(m)], diff = 0, end;
	uint32_t n = 0;

	if (!unit && lanes_same(off, m)) {
		lines[0] = a >> LINE_SHIFT;
		sects[0] = (uint8_t)(1u << ((a >> SECTOR_SHIFT) & 3));
		if (((a + size - 1) >> SECTOR_SHIFT) != a >> SECTOR_SHIFT)
			sects[0] |= (uint8_t)(1u << (((a + size - 1) >> SECTOR_SHIFT) & 3));
		return 1;
	}
	if (m != 0xffffffffu || (known && !unit))
		return 0;
	if (!known) {
		/* lane by lane from lane 0's: a loop that vectorises */
		uint64_t e = a;

		for (uint32_t l = 0; l < 32; l++, e += size)
			diff |= off[l] ^ e;
	}
	end = a + 32ull * size - 1;
	if (diff || end < a)
		return 0;
	/* the span's sectors, line by line */
	for (uint64_t sec = a >> SECTOR_SHIFT; sec <= end >> SECTOR_SHIFT; sec++) {
		uint64_t line = sec >> (LINE_SHIFT - SECTOR_SHIFT);

		if (!n || lines[n - 1] != line) {
			lines[n] = line;
			sects[n++] = 0;
		}
		sects[n - 1] |= (uint8_t)(1u << (sec & 3));
	}
	return n;
}

/*
 * Where a warp's lines are found by their value: an open-addressed table of
 * 64 slots (twice the most lines a warp has) holding each line's index in
 * the warp's list, so that a lane need not walk every line before its own
 * (a column of a matrix puts each lane on a line of its own).
 */
struct line_index {
	int8_t at[64];
	bool built;
};

/* The slot of @line: where it is, or the free slot it would take. */
static inline uint32_t line_slot(const struct line_index *ix, const uint64_t *lines, uint64_t line)
{
	uint32_t h = (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 58);

	while (ix->at[h] >= 0 && lines[ix->at[h]] != line)
		h = (h + 1) & 63;
	return h;
}

/*
 * Line @line with sectors @sect joins the @n lines of a warp; returns the
 * count.
 */
static inline uint32_t coalesce_add(uint64_t *lines, uint8_t *sects, uint32_t n, uint64_t line,
				    uint8_t sect, struct line_index *ix)
{
	uint32_t k, h;

	if (n && lines[n - 1] == line) {
		sects[n - 1] |= sect;
		return n;
	}
	if (n <= 8) {
		/* A short list is walked (a half-warp's lines, a row's). */
		for (k = 0; k < n && lines[k] != line; k++)
			;
		if (k == n) {
			lines[n] = line;
			sects[n++] = 0;
		}
		sects[k] |= sect;
		return n;
	}
	if (!ix->built) {
		/* Built when the list grows long. */
		memset(ix->at, -1, sizeof(ix->at));
		for (k = 0; k < n; k++)
			ix->at[line_slot(ix, lines, lines[k])] = (int8_t)k;
		ix->built = true;
	}
	h = line_slot(ix, lines, line);
	if (ix->at[h] < 0) {
		ix->at[h] = (int8_t)n;
		lines[n] = line;
		sects[n++] = 0;
	}
	k = (uint32_t)ix->at[h];
	sects[k] |= sect;
	return n;
}

/*
 * Coalescing of a full warp of accesses that each lie within one sector
 * when each half-warp is on 16 consecutive elements or on one address
 * (blocks 16 threads wide; a row's value for each row): the sectors of each
 * half's span, line by line, as coalesce_runs() finds them. Returns the
 * number of lines, 0 for any other pattern.
 */
static inline __attribute__((always_inline)) uint32_t
coalesce_halves(const uint64_t *off, uint32_t m, uint32_t size, uint64_t *lines, uint8_t *sects)
{
	uint64_t a0 = off[0], a1 = off[16], e = 0, u0 = 0, u1 = 0, s0 = 0, s1 = 0;
	struct line_index ix;
	uint32_t n = 0;

	if (m != 0xffffffffu || (off[1] - a0 != size && off[1] != a0) ||
	    (off[17] - a1 != size && off[17] != a1))
		return 0;
	/* distances from consecutive (u) and from one address (s): it vectorises */
	for (uint32_t l = 0; l < 16; l++, e += size) {
		u0 |= off[l] ^ (a0 + e);
		u1 |= off[16 + l] ^ (a1 + e);
		s0 |= off[l] ^ a0;
		s1 |= off[16 + l] ^ a1;
	}
	/* a span that wraps is not consecutive */
	u0 |= a0 + 16ull * size <= a0;
	u1 |= a1 + 16ull * size <= a1;
	if ((u0 && s0) || (u1 && s1))
		return 0;
	ix.built = false;
	for (uint32_t h = 0; h < 32; h += 16) {
		/* a half-warp on one address takes its one sector */
		uint64_t end = (h ? s1 : s0) ? off[h] + 16ull * size - 1 : off[h];

		for (uint64_t sec = off[h] >> SECTOR_SHIFT; sec <= end >> SECTOR_SHIFT; sec++)
			n = coalesce_add(lines, sects, n, sec >> (LINE_SHIFT - SECTOR_SHIFT),
					 (uint8_t)(1u << (sec & 3)), &ix);
	}
	return n;
}

/*
 * Coalescing of any pattern of accesses that each lie within one sector,
 * with the lines in the order of their first lane and the sectors the
 * per-lane loop finds: neighbouring lanes on one line are taken together.
 */
static uint32_t coalesce_runs(const uint64_t *off, uint32_t m, uint64_t *lines, uint8_t *sects)
{
	uint64_t run = UINT64_MAX;	/* no line: addresses are below 2^64 */
	struct line_index ix;
	uint32_t n = 0;
	uint8_t rs = 0;

	ix.built = false;
	for (uint32_t mm = m, l; mm && ((l = (uint32_t)__builtin_ctz(mm)), 1); mm &= mm - 1) {
		uint64_t line = off[l] >> LINE_SHIFT;
		uint8_t sb = (uint8_t)(1u << ((off[l] >> SECTOR_SHIFT) & 3));

		if (line == run) {
			rs |= sb;
			continue;
		}
		if (run != UINT64_MAX)
			n = coalesce_add(lines, sects, n, run, rs, &ix);
		run = line;
		rs = sb;
	}
	if (run != UINT64_MAX)
		n = coalesce_add(lines, sects, n, run, rs, &ix);
	return n;
}

/* Resolves generic addresses; returns the space of lane @l. */
static unsigned int space_of(unsigned int sp, uint64_t *a)
{
	if (sp != VGPU_SP_GENERIC)
		return sp;
	if (*a - VGPU_GENERIC_SHARED < VGPU_GENERIC_WINDOW) {
		*a -= VGPU_GENERIC_SHARED;
		return VGPU_SP_SHARED;
	}
	if (*a - VGPU_GENERIC_LOCAL < VGPU_GENERIC_WINDOW) {
		*a -= VGPU_GENERIC_LOCAL;
		return VGPU_SP_LOCAL;
	}
	return VGPU_SP_GLOBAL;
}

/*
 * NewCAR (thesis Sec. 3.3.4, Fig. 3.4): a request the L1D cannot take at
 * *@t until @ready (no free MSHR or way) enters the re-execution queue and
 * leaves the LD/ST unit free; it is executed again at @ready. With the
 * queue full the unit waits for an entry (*@t moves). Returns the time
 * the request executes; the warp's later stores wait for it (Fig. 3.5).
 */
static uint64_t car_enqueue(struct sm *sm, struct warp *w, uint64_t *t, uint64_t ready)
{
	uint64_t *q = sm->t.car;
	uint32_t qi = 0;

	for (uint32_t i = 1; i < VGPU_SIM_NEWCAR_ENTRIES; i++)
		if (q[i] < q[qi])
			qi = i;
	if (q[qi] > *t)
		*t = q[qi];	/* full: the unit waits for an entry */
	if (ready <= *t)
		return *t;
	q[qi] = ready;
	if (ready > w->car_until)
		w->car_until = ready;
	return ready;
}

/*
 * Virtual Thread (Yoon et al. Sec. IV-D, after Mascar): a load transaction
 * that meets a reservation failure goes to the SM's active queue instead
 * of stalling the LD/ST unit, and is timed when sim.c replays it. With the
 * active queue full (VT_LQ_SIZE entries of active blocks) it is not
 * queued: the unit stalls as without the queue. Returns whether it went.
 */
static bool lq_enqueue(struct mctx *c, struct sm *sm, struct warp *w, uint64_t line,
		       uint8_t sect)
{
	uint32_t act = 0, r;

	for (uint32_t i = 0; i < sm->nlq; i++)
		act += !sm->lq[i].w->tb->inactive;
	if (act >= VT_LQ_SIZE || sm->nlq >= VT_LQ_CAP)
		return false;
	if (!sm->lq_cur) {
		/* the instruction's first queued transaction: a free record */
		for (r = 0; sm->lrec[r].left; r++)
			;
		sm->lrec[r] = (struct lq_rec){ .w = w };
		sm->lq_cur = (uint8_t)(r + 1);
	}
	r = sm->lq_cur - 1u;
	sm->lrec[r].left++;
	sm->lq[sm->nlq++] = (struct lq_ent){ .w = w, .line = line, .sect = sect,
					     .rec = (uint8_t)r };
	CNT(c, vt_lq_queued, 1);
	return true;
}

/* The @i-th MSHR to free (0: the first). */
static inline uint64_t *mshr_at(const struct smt *st, uint32_t i)
{
	uint32_t k = st->mhead + i;

	return &st->mshr[k >= st->nmshr ? k - st->nmshr : k];
}

/* The free time of the MSHR that frees first. */
static inline uint64_t mshr_first_free(const struct smt *st)
{
	return st->mshr[st->mhead];
}

/* The MSHRs busy after @t (they free later). */
static uint32_t mshr_busy_after(const struct smt *st, uint64_t t)
{
	uint32_t lo = 0, hi = st->nmshr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (*mshr_at(st, mid) > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return st->nmshr - lo;
}

/*
 * An L1D miss sent at @tx, with the MSHR that frees first: the MSHRs busy
 * then (they free after @tx), and that MSHR is taken until @back.
 */
static uint32_t mshr_take(struct smt *st, uint64_t tx, uint64_t back)
{
	uint32_t n = st->nmshr, busy = mshr_busy_after(st, tx), i;

	/* the first leaves the front; its place is the end, from where @back moves down */
	st->mhead = st->mhead + 1 == n ? 0 : st->mhead + 1;
	for (i = n - 1; i > 0 && *mshr_at(st, i - 1) > back; i--)
		*mshr_at(st, i) = *mshr_at(st, i - 1);
	*mshr_at(st, i) = back;
	return busy;
}

/*
 * An L1D miss sent at @tx with MSHR @mi into way @x (@hit: the line is
 * there, sectors missing): the L2's answer fills the way and frees the
 * MSHR at the returned time.
 */
static uint64_t l1_miss(struct mctx *c, struct smt *st, struct cline *x, bool hit,
			uint64_t line, uint8_t sect, uint64_t tx)
{
	struct vgpu_sim *s = c->s;
	uint32_t busy;
	uint64_t back;

	back = l2_access(c, line, sect, tx + s->cfg.icnt_latency, L2_RD, 1) + s->cfg.icnt_latency;
	if (!hit) {
		x->tag = line + 1;
		x->valid = 0;
	}
	x->valid |= sect;
	x->fill = back;
	busy = mshr_take(st, tx, back);
	CNT(c, mshr_busy, busy);
	return back;
}

uint64_t mem_lq_when(const struct sm *sm, const struct lq_ent *e, uint64_t now)
{
	const struct smt *st = &sm->t;
	const struct cache *c = &st->l1d;
	const struct cline *ways = c->l + (size_t)(e->line % c->sets) * c->assoc;
	uint64_t way = UINT64_MAX, m = UINT64_MAX;

	for (uint32_t i = 0; i < c->assoc; i++) {
		const struct cline *x = &ways[i];
		uint64_t t = x->tag && x->fill > now ? x->fill : now;

		if (x->tag == e->line + 1) {
			if ((x->valid & e->sect) == e->sect)
				return now;	/* a hit: no MSHR */
			way = now;		/* its own line: an MSHR only */
			break;
		}
		if (t < way)
			way = t;
	}
	m = mshr_first_free(st);
	return max64(now, max64(way, m));
}

uint64_t mem_lq_replay(struct vgpu_sim *s, struct sm *sm, const struct lq_ent *e, uint64_t t)
{
	struct mctx cx = { s, &sm->t.st, &e->w->tb->job_st }, *c = &cx;
	struct smt *st = &sm->t;
	uint64_t wait, line = e->line;
	uint8_t sect = e->sect;
	struct cline *x;
	bool hit;

	/* as l1_load() past its access count; the caller checked mem_lq_when() */
	x = cache_look(&st->l1d, line, line, t, &hit, &wait);
	if (x && hit && (x->valid & sect) == sect) {
		CNT(c, l1d_hits, 1);
		return max64(t + s->cfg.l1d_latency, x->fill);
	}
	if (!x) {
		t = wait;
		x = cache_look(&st->l1d, line, line, t, &hit, &wait);
		if (!x)
			return t + s->cfg.l2_latency;
	}
	if (mshr_first_free(st) > t)
		t = mshr_first_free(st);
	return l1_miss(c, st, x, hit, line, sect, t);
}

/*
 * One L1D load transaction at *@t; returns its data time, may delay *@t;
 * LQ_QUEUED: it went to the Virtual Thread load queue.
 */
static uint64_t l1_load(struct mctx *c, struct sm *sm, struct warp *w, uint64_t line,
			uint8_t sect, uint64_t *t)
{
	struct vgpu_sim *s = c->s;
	struct smt *st = &sm->t;
	uint64_t wait, tx, mf;
	struct cline *x;
	bool hit;

	CNT(c, l1d_accesses, 1);
	if (!st->l1d.sets)
		return l2_access(c, line, sect, *t + s->cfg.icnt_latency, L2_RD, 1) +
		       s->cfg.icnt_latency;
	x = cache_look(&st->l1d, line, line, *t, &hit, &wait);
	if (hit && (x->valid & sect) == sect) {
		CNT(c, l1d_hits, 1);
		return max64(*t + s->cfg.l1d_latency, x->fill);
	}
	tx = *t;
	if (!x) {
		/* every way of the set has a fill pending: reservation fail */
		CNT(c, mshr_fails, 1);
		if (s->vt && lq_enqueue(c, sm, w, line, sect))
			return LQ_QUEUED;
		if (s->cfg.newcar)
			tx = car_enqueue(sm, w, t, wait);
		else
			tx = *t = wait;
		x = cache_look(&st->l1d, line, line, tx, &hit, &wait);
		if (!x)
			return tx + s->cfg.l2_latency;
	}
	mf = mshr_first_free(st);
	if (mf > tx) {
		/* no free MSHR: the LD/ST unit waits for one (reservation fail) */
		CNT(c, mshr_fails, 1);
		if (s->vt && lq_enqueue(c, sm, w, line, sect))
			return LQ_QUEUED;
		if (s->cfg.newcar)
			tx = car_enqueue(sm, w, t, mf);
		else
			tx = *t = mf;
	}
	return l1_miss(c, st, x, hit, line, sect, tx);
}

SIM_LANE_CLONES
uint64_t mem_access(struct vgpu_sim *s, struct sm *sm, struct warp *w, uint64_t now,
		    bool *is_mem)
{
	struct memrec *r = &sm->mrec;
	struct mctx c = { s, &sm->t.st, &w->tb->job_st };
	uint32_t m = r->mask, n = 0, icnt = s->cfg.icnt_latency;
	uint64_t buf[32], lines[64], t = now, ready = now + 1;
	const uint64_t *off = r->addr;
	uint8_t sects[64], same[64];
	struct addr_count ac;
	unsigned int sp = r->sp;
	bool first = true, exact = true;	/* off: r->addr, or all moved alike */

	*is_mem = false;
	if (!m)
		return now + 1;
	if (sp == VGPU_SP_GENERIC && r->rsp != VGPU_SP_GENERIC) {
		/* exec.c found every lane in one space: resolved alike */
		uint64_t adj = r->rsp == VGPU_SP_SHARED ? VGPU_GENERIC_SHARED :
			       r->rsp == VGPU_SP_LOCAL ? VGPU_GENERIC_LOCAL : 0;

		for (uint32_t l = 0; l < 32; l++)
			buf[l] = r->addr[l] - adj;
		sp = r->rsp;
		off = buf;
	} else if (sp == VGPU_SP_GENERIC) {
		/* the first lane's space decides; each lane's address is resolved */
		for (uint32_t l = 0; l < 32; l++) {
			if (!(m >> l & 1))
				continue;
			buf[l] = r->addr[l];
			if (first) {
				sp = space_of(r->sp, &buf[l]);
				first = false;
			} else {
				space_of(r->sp, &buf[l]);
			}
		}
		off = buf;
		exact = false;
	}
	switch (sp) {
	case VGPU_SP_SHARED: {
		uint32_t sm_max = 1, deg = bank_degree(s, off, m, r->size,
						       r->kind == MR_ATOM ? &sm_max : NULL);

		if (sm_max > deg)
			deg = sm_max;
		CNT(&c, shared_accesses, 1);
		CNT(&c, shared_conflicts, deg - 1);
		sm->t.ldst_free = now + deg;
		return now + s->cfg.shared_latency + deg - 1 +
		       (r->kind == MR_ATOM ? s->cfg.atomic_latency : 0);
	}
	case VGPU_SP_PARAM: case VGPU_SP_CONST: {
		/* constant cache: one access per distinct address */
		uint32_t d = 0;

		if (lanes_same(off, m)) {
			sm->t.ldst_free = now + 1;
			return now + s->cfg.const_latency;
		}
		for (uint32_t l = 0; l < 32; l++) {
			uint32_t k;

			if (!(m >> l & 1))
				continue;
			for (k = 0; k < l; k++)
				if ((m >> k & 1) && off[k] == off[l])
					break;
			d += k == l;
		}
		sm->t.ldst_free = now + d;
		return now + s->cfg.const_latency + d - 1;
	}
	case VGPU_SP_LOCAL:
		/* per-thread words interleaved across the lanes, as CUDA lays them out */
		for (uint32_t l = 0; l < 32; l++)
			if (m >> l & 1)
				buf[l] = LOCAL_BASE + ((uint64_t)sm->id << 40) +
					 ((((uint64_t)w->slot << 20) + (off[l] >> 2)) * 32 + l) * 4 +
					 (off[l] & 3);
		off = buf;
		exact = false;
		break;
	default:
		break;
	}
	/* coalescing: 128-byte lines with their 32-byte sector masks */
	if (r->kind != MR_ATOM && r->size <= 32) {
		bool known = exact && m == 0xffffffffu;

		n = coalesce_fast(off, m, r->size, known, known && r->unit, lines, sects);
		/*
		 * Aligned accesses of at most a sector (any space but local,
		 * whose layout interleaves the lanes' words) each touch one
		 * sector: half-warps on consecutive elements or one address at
		 * once, else lanes in runs on one line.
		 */
		if (!n && sp != VGPU_SP_LOCAL) {
			n = coalesce_halves(off, m, r->size, lines, sects);
			if (!n)
				n = coalesce_runs(off, m, lines, sects);
		}
	}
	if (r->kind == MR_ATOM)
		memset(ac.n, 0, sizeof(ac.n));
	for (uint32_t l = n ? 32 : 0, prev = 0; l < 32; l++) {
		uint64_t a, line;
		uint32_t k, cnt;
		uint8_t sm_;

		if (!(m >> l & 1))
			continue;
		a = off[l];
		/* atomics: this lane and the earlier ones on its address */
		cnt = r->kind == MR_ATOM ? addr_count_add(&ac, a) : 0;
		line = a >> LINE_SHIFT;
		sm_ = (uint8_t)(1u << ((a >> SECTOR_SHIFT) & 3));
		if (r->size > 32 || ((a + r->size - 1) >> SECTOR_SHIFT) != a >> SECTOR_SHIFT)
			sm_ |= (uint8_t)(1u << (((a + r->size - 1) >> SECTOR_SHIFT) & 3));
		/* neighbouring lanes mostly share the line of the lane before */
		if (n && lines[prev] == line) {
			k = prev;
		} else {
			for (k = 0; k < n; k++)
				if (lines[k] == line)
					break;
		}
		prev = k;
		if (k == n) {
			if (n == 64)
				continue;
			lines[n] = line;
			sects[n] = 0;
			same[n] = 1;
			n++;
		} else if (r->kind == MR_ATOM && cnt > same[k]) {
			same[k] = (uint8_t)cnt;
		}
		sects[k] |= sm_;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint64_t done;

		switch (r->kind) {
		case MR_LD:
			done = l1_load(&c, sm, w, lines[k], sects[k], &t);
			if (done == LQ_QUEUED)
				done = 0;	/* timed when replayed */
			break;
		case MR_ST:
			/* write-through, write-evict at L1D */
			if (sm->t.l1d.sets) {
				uint64_t wait;
				bool hit;
				struct cline *x = cache_look(&sm->t.l1d, lines[k], lines[k], t, &hit,
							     &wait);

				if (hit && x->fill <= t)
					x->tag = 0;
			}
			/* NewCAR: no store passes the warp's queued requests */
			l2_access(&c, lines[k], sects[k], max64(t, w->car_until) + icnt, L2_WR, 1);
			done = t + 1;
			break;
		default:
			/* atomics are performed at the L2 slice */
			done = l2_access(&c, lines[k], sects[k], t + icnt, L2_ATOM, same[k]) +
			       same[k] - 1 + s->cfg.atomic_latency + icnt;
			break;
		}
		if (done > ready)
			ready = done;
		t++;
	}
	sm->t.ldst_free = t;
	*is_mem = r->kind != MR_ST;
	return ready;
}

/*
 * Next-line instruction prefetch (thesis Sec. 3.3.5): when @w fetches from
 * a new line, the next line is brought into the L1I unless it is there or
 * on its way, or the occupied MSHRs of L1I (fills pending) and L1D
 * together are VGPU_SIM_PREFETCH_MSHRS or more (memory contention).
 */
static void prefetch(struct sm *sm, struct warp *w, uint64_t line, uint64_t now)
{
	struct cache *c = &sm->t.l1i;
	struct cline *ways = c->l + (size_t)(line % c->sets) * c->assoc, *x;
	uint32_t occ = 0;
	uint64_t wait;
	bool hit;

	for (uint32_t i = 0; i < c->assoc; i++)
		if (ways[i].tag == line + 1)
			return;
	occ = mshr_busy_after(&sm->t, now);
	for (size_t i = 0; i < (size_t)c->sets * c->assoc; i++)
		occ += c->l[i].tag && c->l[i].fill > now;
	if (occ >= VGPU_SIM_PREFETCH_MSHRS)
		return;
	x = cache_look(c, line, line, now, &hit, &wait);
	if (!x)
		return;
	x->tag = line + 1;
	x->valid = 0xf;
	x->fill = FILL_PENDING;
	sm->fetch[sm->nfetch++] = (struct fetch_miss){
		.w = w, .x = x, .line = line, .prefetch = true,
	};
}

static uint64_t fetch_line(struct sm *sm, struct warp *w, uint64_t line, uint64_t now);

uint64_t mem_fetch(struct sm *sm, struct warp *w, uint32_t pc, uint64_t now)
{
	const struct job *j = w->tb->job;
	uint64_t line = sim_iline(j, pc), r;
	int64_t base = (int64_t)(j->desc.program_addr + j->entry.code_start), lo, hi;

	if (!sm->t.l1i.sets || sim_in_iline(w, pc))
		return now;
	/* the instructions starting in the line: 8 bytes each from base */
	lo = (int64_t)(line << LINE_SHIFT) - base;
	hi = (int64_t)((line + 1) << LINE_SHIFT) - base;
	lo = lo > 0 ? (lo + 7) / 8 : lo / 8;
	hi = (hi + 7) / 8;
	w->ilo = (uint64_t)lo;
	w->ispan = (uint32_t)(hi - lo);
	r = fetch_line(sm, w, line, now);
	if (sm->t.prefetch)
		prefetch(sm, w, line + 1, now);
	return r;
}

static uint64_t fetch_line(struct sm *sm, struct warp *w, uint64_t line, uint64_t now)
{
	uint64_t wait;
	struct cline *x;
	bool hit;

	x = cache_look(&sm->t.l1i, line, line, now, &hit, &wait);
	if (hit) {
		if (x->fill != FILL_PENDING)
			return max64(now, x->fill);
	} else if (x) {
		/* the line is allocated now; its fill time comes from L2 later */
		x->tag = line + 1;
		x->valid = 0xf;
		x->fill = FILL_PENDING;
	} else if (wait != FILL_PENDING) {
		return wait;
	}
	sm->fetch[sm->nfetch++] = (struct fetch_miss){ .w = w, .x = x, .line = line };
	return FETCH_DEFERRED;
}

/*
 * ELF's fetch scheduling (thesis Sec. 3.3.3): the L1I misses of a cycle go
 * to L2 in the warps' issue priority, each scheduler's misses by ELF
 * priority (ties in the order they came), the schedulers' orders
 * interleaved: the first of each scheduler, then the second of each, ...
 */
static void fetch_order(const struct vgpu_sim *s, struct sm *sm)
{
	uint32_t n = sm->nfetch, ns = sm->npool, key[128];
	struct fetch_miss *f = sm->fetch;

	(void)s;
	if (n > 128)
		return;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t q = f[i].w->slot % ns, p = f[i].w->elf, rank = 0;

		for (uint32_t j = 0; j < n; j++) {
			uint32_t pj = f[j].w->elf;

			if (j != i && f[j].w->slot % ns == q && (pj < p || (pj == p && j < i)))
				rank++;
		}
		key[i] = rank * ns + q;
	}
	/* stable insertion sort by key */
	for (uint32_t i = 1; i < n; i++) {
		struct fetch_miss x = f[i];
		uint32_t kx = key[i], at = i;

		while (at > 0 && key[at - 1] > kx) {
			f[at] = f[at - 1];
			key[at] = key[at - 1];
			at--;
		}
		f[at] = x;
		key[at] = kx;
	}
}

void mem_fetch_resolve(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	struct cache *l1i = &sm->t.l1i;

	if (s->cfg.scheduler == VGPU_SCHED_ELF && sm->nfetch > 1)
		fetch_order(s, sm);

	/* the L2 accesses, in the order of the misses */
	for (uint32_t i = 0; i < sm->nfetch; i++) {
		struct fetch_miss *f = &sm->fetch[i];
		struct mctx c = { s, &sm->t.st, &f->w->tb->job_st };
		uint32_t icnt = s->cfg.icnt_latency;

		if (f->x && f->x->fill == FILL_PENDING)
			f->x->fill = l2_access(&c, f->line, 0xf, now + icnt, L2_RD, 1) + icnt;
	}
	for (uint32_t i = 0; i < sm->nfetch; i++) {
		struct fetch_miss *f = &sm->fetch[i];

		if (f->x) {
			f->avail = max64(now, f->x->fill);
		} else {
			/* a full set: the first of its fills to complete */
			size_t set = (size_t)(f->line % l1i->sets);
			const struct cline *ways = l1i->l + set * l1i->assoc;

			f->avail = UINT64_MAX;
			for (uint32_t k = 0; k < l1i->assoc; k++)
				if (ways[k].tag && ways[k].fill > now && ways[k].fill < f->avail)
					f->avail = ways[k].fill;
			if (f->avail == UINT64_MAX)
				f->avail = now;
		}
	}
}
