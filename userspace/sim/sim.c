// SPDX-License-Identifier: MIT
/*
 * sim.c - the GPU model of vgpu_sim.h: presets, jobs, thread-block
 * dispatch, the warp schedulers and the cycle loop.
 *
 * Timing (timing.h, sched.c, mem.c): each SM has schedulers_per_sm warp
 * schedulers; each issues at most one instruction per cycle, chosen by the
 * configured policy among the warps whose next instruction has its operands
 * (a per-register scoreboard), its instruction fetched, and a free
 * functional unit (SP, SFU, DP per scheduler with latency and initiation
 * interval, the LD/ST unit per SM). An issued instruction executes at once
 * (functionally, exec.c); the memory system times its access. Cycles in
 * which no SM can issue are skipped ("simulation gating", as in Accel-Sim):
 * time jumps to the next cycle at which some warp can, and the skipped
 * cycles are counted in the stall class they all share. The SMs of a cycle
 * may be simulated on several host threads ("parallel simulation" below).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

static void phase_a_thread(void *arg, uint32_t tid);

/* ------------------------------------------------------------------ */
/* creation */

/*
 * The min-trees of @sm (sim_int.h) sized for its warp slots, empty: no
 * warp is resident.
 */
static void mtree_size(struct sm *sm)
{
	uint32_t per = (sm->nws + sm->npool - 1) / sm->npool;

	for (sm->mleaves = 1; sm->mleaves < per; sm->mleaves *= 2)
		;
	for (size_t k = 0; k < (size_t)sm->npool * FU_N * sm->mstride; k++)
		sm->mtree[k] = UINT64_MAX;
}

static int config_check(const struct vgpu_sim_config *c)
{
	const struct vgpu_device_desc *d = &c->desc;

	if (d->num_sms < 1 || d->num_sms > 1024 || d->warp_size != 32 ||
	    d->max_tbs_per_sm < 1 || d->max_tbs_per_sm > 64 ||
	    d->max_threads_per_sm < 32 || d->max_threads_per_sm > 65536 ||
	    d->max_threads_per_tb < 1 || d->max_threads_per_tb > d->max_threads_per_sm ||
	    d->max_regs_per_thread > VGPU_NUM_REGS || d->shared_per_sm > (64u << 20) ||
	    d->max_shared_per_tb > d->shared_per_sm ||
	    c->schedulers_per_sm < 1 || c->schedulers_per_sm > 64 ||
	    c->scheduler >= VGPU_SCHED_COUNT_ || c->mem_partitions > 4096 ||
	    c->l1d_mshrs > 65536 || c->shared_banks > 64 || c->reg_banks > 64 ||
	    c->collectors > 64 || c->dram_banks > 1024 || c->l1d_size > (64u << 20) ||
	    c->l2_size > (1u << 30) || c->l1i_size > (64u << 20) || c->threads > 1024 ||
	    c->kernel_sched >= VGPU_KSCHED_COUNT || c->newcar > 1 || c->l1i_prefetch > 1 ||
	    c->subcore_assign >= VGPU_SUBCORE_COUNT_ || c->fully_connected > 1 ||
	    c->l2_calendar > 1 || c->dram_calendar > 1 ||
	    c->collector_stall > 1)
		return -EINVAL;
	return 0;
}

struct vgpu_sim *vgpu_sim_create(const struct vgpu_sim_config *cfg, uint8_t *vram,
				 uint64_t vram_size)
{
	struct vgpu_sim *s;
	uint32_t nsm;

	struct vgpu_sim_config c = *cfg;

	vgpu_sim_config_defaults(&c);
	if (config_check(&c))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = c;
	s->cfg0 = c;
	cfg = &s->cfg;
	s->sched = sched_get(cfg->scheduler);
	s->kmode = cfg->kernel_sched;
	s->vram = vram;
	s->vram_size = vram ? vram_size : 0;
	s->lat[LAT_ALU] = cfg->alu_latency ? cfg->alu_latency : 1;
	s->lat[LAT_SFU] = cfg->sfu_latency ? cfg->sfu_latency : 1;
	s->lat[LAT_MEM] = cfg->mem_latency ? cfg->mem_latency : 1;
	s->lat[LAT_SHARED] = cfg->shared_latency ? cfg->shared_latency : 1;
	nsm = cfg->desc.num_sms;
	s->nslots = cfg->desc.max_tbs_per_sm;
	s->nws_cap = cfg->desc.max_threads_per_sm / 32;
	if (s->nws_cap < VGPU_VT_VIRTUAL_WARPS)
		s->nws_cap = VGPU_VT_VIRTUAL_WARPS;
	s->sms = sim_calloc(nsm, sizeof(*s->sms));
	s->due = sim_calloc(nsm, sizeof(*s->due));
	s->snx = sim_calloc(nsm, sizeof(*s->snx));
	if (!s->sms || !s->due || !s->snx)
		goto fail;
	for (uint32_t i = 0; i < nsm; i++)
		s->snx[i] = UINT64_MAX;
	for (uint32_t i = 0; i < nsm; i++) {
		struct sm *sm = &s->sms[i];

		sm->id = i;
		sm->nws = cfg->desc.max_threads_per_sm / 32;
		sm->next = UINT64_MAX;
		sm->shared = sim_calloc(1, cfg->desc.shared_per_sm ? cfg->desc.shared_per_sm : 1);
		/* sized for Virtual Thread: VGPU_VT_MAX_TBS blocks, nws_cap warp slots */
		sm->slots = sim_calloc(VGPU_VT_MAX_TBS, sizeof(*sm->slots));
		sm->ws = sim_calloc(s->nws_cap, sizeof(*sm->ws));
		sm->rr = sim_calloc(cfg->schedulers_per_sm, sizeof(*sm->rr));
		sm->last = sim_calloc(cfg->schedulers_per_sm, sizeof(*sm->last));
		sm->fc = cfg->fully_connected;
		sm->cstall = cfg->collector_stall && cfg->collectors;
		sm->npool = sm->fc ? 1 : cfg->schedulers_per_sm;
		sm->ordcap = (s->nws_cap + sm->npool - 1) / sm->npool;
		sm->ord = sim_calloc((size_t)sm->ordcap * cfg->schedulers_per_sm, sizeof(*sm->ord));
		sm->nord = sim_calloc(cfg->schedulers_per_sm, sizeof(*sm->nord));
		sm->snext = sim_calloc(cfg->schedulers_per_sm, sizeof(*sm->snext));
		sm->sum = sim_calloc(s->nws_cap, sizeof(*sm->sum));
		sm->minr = sim_calloc((size_t)cfg->schedulers_per_sm * FU_N, sizeof(*sm->minr));
		for (sm->mstride = 2; sm->mstride < 2 * sm->ordcap; sm->mstride *= 2)
			;
		sm->mtree = sim_calloc((size_t)cfg->schedulers_per_sm * FU_N * sm->mstride,
				       sizeof(*sm->mtree));
		sm->rwords = (sm->ordcap + 63) / 64;
		sm->rmask = sim_calloc((size_t)cfg->schedulers_per_sm * sm->rwords,
				       sizeof(*sm->rmask));
		/* a demand miss and a prefetch per warp */
		sm->fetch = sim_calloc((size_t)s->nws_cap * 2, sizeof(*sm->fetch));
		sm->wid_used = sim_calloc(s->nws_cap, 1);
		sm->ended = sim_calloc(VGPU_VT_MAX_TBS, sizeof(*sm->ended));
		sm->nsched = cfg->schedulers_per_sm;
		sm->kern = sim_calloc(VGPU_VT_MAX_TBS, sizeof(*sm->kern));
		sm->klist = sim_calloc(VGPU_VT_MAX_TBS, sizeof(*sm->klist));
		sm->ks = sim_calloc((size_t)cfg->schedulers_per_sm * VGPU_VT_MAX_TBS,
				    sizeof(*sm->ks));
		sm->klast = sim_calloc(cfg->schedulers_per_sm, sizeof(*sm->klast));
		sm->plast = sim_calloc(cfg->schedulers_per_sm, sizeof(*sm->plast));
		sm->wk = sim_calloc(s->nws_cap, 1);
		sm->wp = sim_calloc(s->nws_cap, 1);
		sm->wpause = sim_calloc(s->nws_cap, 1);
		if (!sm->sum || !sm->minr || !sm->mtree || !sm->rmask ||
		    !sm->shared || !sm->slots || !sm->ws || !sm->rr ||
		    !sm->last || !sm->ord || !sm->nord || !sm->snext || !sm->fetch || !sm->ended ||
		    !sm->kern || !sm->klist || !sm->ks || !sm->klast || !sm->plast || !sm->wk ||
		    !sm->wp || !sm->wpause || !sm->wid_used)
			goto fail;
		ka_restart(s, sm);
		for (uint32_t k = 0; k < cfg->schedulers_per_sm; k++)
			sm->rr[k] = sm->last[k] = UINT32_MAX;
		for (uint32_t k = 0; k < s->nws_cap; k++)
			sm->sum[k].ready = UINT64_MAX;
		for (uint32_t k = 0; k < (size_t)cfg->schedulers_per_sm * FU_N; k++)
			sm->minr[k] = UINT64_MAX;
		mtree_size(sm);
		sm->t.idle_since = UINT64_MAX;
		sm->gated_since = UINT64_MAX;
		sm->pend = UINT64_MAX;
		sm->vt_next = UINT64_MAX;
	}
	if (mem_create(s))
		goto fail;
	s->nthreads = 1;
	if (cfg->threads > 1) {
		uint32_t n = cfg->threads < nsm ? cfg->threads : nsm;

		/* without its threads the model runs on the caller's, to the same results */
		s->pool = pool_create(n, phase_a_thread, s);
		if (s->pool)
			s->nthreads = n;
	}
	return s;
fail:
	vgpu_sim_destroy(s);
	return NULL;
}

static void free_tb(struct tb *tb)
{
	free(tb->regs);
	free(tb->local);
	free(tb->sb);
	free(tb);
}

static void free_job(struct job *j)
{
	sim_decode_release(j);
	free(j->params);
	free(j->ranges);
	free(j->read_ranges);
	free(j->tim);
	free(j);
}

void vgpu_sim_destroy(struct vgpu_sim *s)
{
	if (!s)
		return;
	pool_destroy(s->pool);
	if (s->sms) {
		for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
			struct sm *sm = &s->sms[i];

			if (sm->slots)
				for (uint32_t k = 0; k < VGPU_VT_MAX_TBS; k++)
					if (sm->slots[k])
						free_tb(sm->slots[k]);
			free(sm->shared);
			free(sm->slots);
			free(sm->ws);
			free(sm->rr);
			free(sm->last);
			free(sm->ord);
			free(sm->nord);
			free(sm->snext);
			free(sm->sum);
			free(sm->minr);
			free(sm->mtree);
			free(sm->rmask);
			free(sm->fetch);
			free(sm->ended);
			free(sm->kern);
			free(sm->klist);
			free(sm->ks);
			free(sm->klast);
			free(sm->plast);
			free(sm->wk);
			free(sm->wp);
			free(sm->wpause);
			free(sm->wid_used);
		}
		mem_destroy(s);
		free(s->sms);
	}
	while (s->jobs) {
		struct job *j = s->jobs;

		s->jobs = j->next;
		free_job(j);
	}
	free(s->due);
	free(s->snx);
	free(s->evq);
	free(s);
}

/* ------------------------------------------------------------------ */
/* events */

static int post(struct vgpu_sim *s, const struct vgpu_evt *e)
{
	if (s->nev == s->evcap) {
		uint32_t nc = s->evcap ? s->evcap * 2 : 64;
		struct vgpu_evt *q = malloc(sizeof(*q) * nc);

		if (!q)
			return -ENOMEM;
		for (uint32_t i = 0; i < s->nev; i++)
			q[i] = s->evq[(s->evhead + i) % s->evcap];
		free(s->evq);
		s->evq = q;
		s->evhead = 0;
		s->evcap = nc;
	}
	s->evq[(s->evhead + s->nev) % s->evcap] = *e;
	s->nev++;
	return 0;
}

static int drain(struct vgpu_sim *s, struct vgpu_evt *out, unsigned int max)
{
	unsigned int n = 0;

	while (n < max && s->nev) {
		out[n++] = s->evq[s->evhead];
		s->evhead = (s->evhead + 1) % s->evcap;
		s->nev--;
	}
	return (int)n;
}

/* ------------------------------------------------------------------ */
/* jobs */

static struct job *find_job(struct vgpu_sim *s, uint32_t id)
{
	for (struct job *j = s->jobs; j; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

static bool in_vram(const struct vgpu_sim *s, uint64_t addr, uint64_t size)
{
	return addr <= s->vram_size && size <= s->vram_size - addr;
}

/* ------------------------------------------------------------------ */
/* instruction timing classes */

static void it_add(uint8_t *list, uint8_t *n, unsigned int r, bool wide, uint32_t nregs)
{
	for (unsigned int k = 0; k < (wide ? 2u : 1u); k++) {
		unsigned int x = r + k;

		if (r == VGPU_RZ || x >= nregs || *n >= IT_MAXOP)
			return;
		list[(*n)++] = (uint8_t)x;
	}
}

/*
 * Unit, latency and register operands of @d. Unused fields hold RZ
 * (Documentation/isa.rst); a 64-bit operand is a register pair, and where
 * widths mix (conversions, wide multiplies) both halves are counted, which
 * at worst adds a dependency. Predicates are one scoreboard entry.
 */
static void itime_of(const struct vgpu_sim *s, const struct job *j, const struct dinst *d,
		     struct itime *t)
{
	const struct vgpu_sim_config *c = &s->cfg;
	uint32_t nr = j->entry.regs_per_thread;
	unsigned int op = d->op, m = d->mod;
	bool w64 = vgpu_type_is64(d->type), f64 = d->type == VGPU_T_F64, mixed = false;
	bool pd = false, pa = false, pb = false, pc = false;

	memset(t, 0, sizeof(*t));
	t->fu = FU_SP;
	t->lat = c->alu_latency;
	t->ii = c->alu_ii;
	if (d->flags & DI_GE)
		t->flags |= IT_PRED_R;
	switch (op) {
	case VGPU_OP_DIV: case VGPU_OP_REM: case VGPU_OP_SQRT: case VGPU_OP_RSQRT:
	case VGPU_OP_RCP: case VGPU_OP_SIN: case VGPU_OP_COS: case VGPU_OP_LG2:
	case VGPU_OP_EX2: case VGPU_OP_TANH:
		if (f64) {
			t->fu = FU_DP;
			t->lat = c->sfu_latency + c->dp_latency;
			t->ii = c->dp_ii;
		} else {
			t->fu = FU_SFU;
			t->lat = c->sfu_latency;
			t->ii = c->sfu_ii;
		}
		break;
	case VGPU_OP_LD: case VGPU_OP_ST: case VGPU_OP_ATOM:
		t->fu = FU_LDST;
		t->flags |= IT_MEM;
		/* read-only or the block's: no other SM's work can see the access */
		if (VGPU_M_MEM_SP(m) == VGPU_SP_SHARED || VGPU_M_MEM_SP(m) == VGPU_SP_PARAM ||
		    VGPU_M_MEM_SP(m) == VGPU_SP_CONST)
			t->flags |= IT_SM_MEM;
		else
			t->flags |= IT_GLOBAL;
		t->lat = 1;
		t->ii = 1;
		break;
	case VGPU_OP_NEXTTB:
		/* the logical block comes from the job's counter; TID is the warp's */
		if (m == VGPU_NEXTTB_TB)
			t->flags |= IT_SERIAL | IT_GLOBAL;
		break;
	case VGPU_OP_CVT:
		mixed = true;
		if (f64 || VGPU_M_CVT_ST(m) == VGPU_T_F64) {
			t->fu = FU_DP;
			t->lat = c->dp_latency;
			t->ii = c->dp_ii;
		}
		break;
	case VGPU_OP_ADD: case VGPU_OP_SUB: case VGPU_OP_MUL: case VGPU_OP_MAD:
	case VGPU_OP_MIN: case VGPU_OP_MAX: case VGPU_OP_NEG: case VGPU_OP_ABS:
	case VGPU_OP_SETP:
		if (f64) {
			t->fu = FU_DP;
			t->lat = c->dp_latency;
			t->ii = c->dp_ii;
		}
		break;
	case VGPU_OP_MULWD: case VGPU_OP_MADWD: case VGPU_OP_PACK: case VGPU_OP_UNPK:
	case VGPU_OP_LEAD:
		mixed = true;
		break;
	default:
		break;
	}
	/* predicate fields (decode.c's pred_fields) */
	switch (op) {
	case VGPU_OP_SETP: pd = pc = true; t->flags |= IT_PRED_R | IT_PRED_W; break;
	case VGPU_OP_PLOP: pd = pa = pb = true; t->flags |= IT_PRED_R | IT_PRED_W; break;
	case VGPU_OP_SELP: t->flags |= IT_PRED_R; break;
	case VGPU_OP_VOTE:
		t->flags |= IT_PRED_R;
		if ((m & 3) != VGPU_VOTE_BALLOT) {
			pd = true;
			t->flags |= IT_PRED_W;
		}
		break;
	default:
		break;
	}
	switch (op) {
	case VGPU_OP_NOP: case VGPU_OP_MEMBAR: case VGPU_OP_BRA: case VGPU_OP_EXIT:
	case VGPU_OP_BAR: case VGPU_OP_TRAP:
		return;
	case VGPU_OP_LD: {
		unsigned int nv = 1u << VGPU_M_MEM_LVEC(m);

		it_add(t->src, &t->nsrc, d->a, VGPU_M_MEM_A64(m), nr);
		if (nv == 1)
			it_add(t->dst, &t->ndst, d->d, w64, nr);
		else
			for (unsigned int i = 0; i < nv; i++)
				it_add(t->dst, &t->ndst, d->vec[i], w64, nr);
		return;
	}
	case VGPU_OP_ST: {
		unsigned int nv = 1u << VGPU_M_MEM_LVEC(m);

		it_add(t->src, &t->nsrc, d->a, VGPU_M_MEM_A64(m), nr);
		if (nv == 1)
			it_add(t->src, &t->nsrc, d->c, w64, nr);
		else
			for (unsigned int i = 0; i < nv; i++)
				it_add(t->src, &t->nsrc, d->vec[i], w64, nr);
		return;
	}
	case VGPU_OP_ATOM:
		it_add(t->src, &t->nsrc, d->a, VGPU_M_MEM_A64(m), nr);
		if (!(d->flags & DI_BI))
			it_add(t->src, &t->nsrc, d->b, w64, nr);
		if (!(d->flags & DI_CI))
			it_add(t->src, &t->nsrc, d->c, w64, nr);
		it_add(t->dst, &t->ndst, d->d, w64, nr);
		return;
	default:
		break;
	}
	if (!pa)
		it_add(t->src, &t->nsrc, d->a, w64 || mixed, nr);
	if (!pb && !(d->flags & DI_BI))
		it_add(t->src, &t->nsrc, d->b, w64 || mixed, nr);
	if (!pc && !(d->flags & DI_CI))
		it_add(t->src, &t->nsrc, d->c, w64 || mixed, nr);
	if (!pd)
		it_add(t->dst, &t->ndst, d->d, w64 || mixed, nr);
}

/* Validates the descriptor and decodes the program: 0, -EINVAL, -EILSEQ, -ENOMEM. */
static int load_job(struct vgpu_sim *s, struct job *j, uint64_t desc_addr)
{
	const struct vgpu_device_desc *dev = &s->cfg.desc;
	struct vgpu_job_desc *d = &j->desc;
	uint64_t threads;
	int ret;

	if (!in_vram(s, desc_addr, sizeof(*d)))
		return -EINVAL;
	memcpy(d, s->vram + desc_addr, sizeof(*d));
	if (d->abi_version != VGPU_BACKEND_ABI_VERSION || d->job != j->id)
		return -EINVAL;
	if (!in_vram(s, d->program_addr, d->program_size) ||
	    !in_vram(s, desc_addr + d->params_offset, d->params_size) ||
	    d->num_ranges > 65536 ||
	    !in_vram(s, desc_addr + d->ranges_offset,
		     (uint64_t)d->num_ranges * sizeof(struct vgpu_mem_range)) ||
	    (d->data_size && !in_vram(s, d->data_addr, d->data_size)))
		return -EINVAL;
	for (int i = 0; i < 3; i++)
		if (!d->grid[i] || !d->block[i])
			return -EINVAL;
	threads = (uint64_t)d->block[0] * d->block[1] * d->block[2];
	if (threads > dev->max_threads_per_tb || d->shared_bytes > dev->max_shared_per_tb ||
	    d->dynamic_shared > d->shared_bytes)
		return -EINVAL;
	j->threads = (uint32_t)threads;
	j->nwarps = (j->threads + 31) / 32;
	j->params = malloc(d->params_size ? d->params_size : 1);
	j->ranges = malloc(sizeof(*j->ranges) * (d->num_ranges ? d->num_ranges : 1));
	if (!j->params || !j->ranges)
		return -ENOMEM;
	memcpy(j->params, s->vram + desc_addr + d->params_offset, d->params_size);
	memcpy(j->ranges, s->vram + desc_addr + d->ranges_offset,
	       sizeof(*j->ranges) * d->num_ranges);
	j->nranges = d->num_ranges;
	for (uint32_t i = 0; i < j->nranges; i++)
		if (!in_vram(s, j->ranges[i].start, j->ranges[i].size))
			return -EINVAL;
	if (d->flags & ~VGPU_JOB_BUFFER_BOUNDARIES)
		return -EINVAL;
	j->buffer_bounds = d->flags & VGPU_JOB_BUFFER_BOUNDARIES;
	if (j->buffer_bounds) {
		j->read_ranges = calloc(j->nranges / 64 + 1, sizeof(*j->read_ranges));
		if (!j->read_ranges)
			return -ENOMEM;
	}
	ret = sim_decode(s, j, s->vram + d->program_addr, d->program_size);
	if (ret)
		return ret;
	j->virt = j->entry.flags & VGPU_ENTRY_VIRTUAL_TB;
	/* the logical grid; the launch dispatches only the blocks that fill the GPU */
	if ((uint64_t)d->grid[0] * d->grid[1] * d->grid[2] > UINT32_MAX)
		return -EINVAL;
	j->vt_total = d->grid[0] * d->grid[1] * d->grid[2];
	j->tim = malloc(sizeof(*j->tim) * (j->ncode ? j->ncode : 1));
	if (!j->tim)
		return -ENOMEM;
	for (uint32_t i = 0; i < j->ncode; i++)
		itime_of(s, j, &j->code[i], &j->tim[i]);
	for (uint32_t i = 0; i < j->ncode; i++)
		j->tim[i].elf = job_elf_prio(j->elf, j->nelf, i);
	if (j->entry.param_size != d->params_size ||
	    j->entry.regs_per_thread > dev->max_regs_per_thread ||
	    (uint64_t)j->entry.shared_static + d->dynamic_shared > d->shared_bytes ||
	    j->entry.local_per_thread > dev->max_local_per_thread ||
	    (j->entry.max_threads_per_tb && threads > j->entry.max_threads_per_tb))
		return -EINVAL;
	return 0;
}

/*
 * T_k of kernel-aware "fair" (thesis §5.5.2, Eq. 5.4): blocks of @j an
 * empty SM holds, by block slots, warp slots, registers (per thread, in
 * reg_alloc_unit granules) and shared memory (in shared_alloc_unit
 * granules), as the kernel allocates them; at least 1.
 */
static uint32_t blocks_that_fit(const struct vgpu_device_desc *d, const struct job *j)
{
	uint64_t t = d->max_tbs_per_sm, ru = d->reg_alloc_unit ? d->reg_alloc_unit : 1;
	uint64_t su = d->shared_alloc_unit ? d->shared_alloc_unit : 1;
	uint64_t regs = (j->entry.regs_per_thread + ru - 1) / ru * ru * 32 * j->nwarps;
	uint64_t shared = ((uint64_t)j->desc.shared_bytes + su - 1) / su * su;

	if (j->nwarps && d->max_threads_per_sm / 32 / j->nwarps < t)
		t = d->max_threads_per_sm / 32 / j->nwarps;
	if (regs && d->regs_per_sm / regs < t)
		t = d->regs_per_sm / regs;
	if (shared && d->shared_per_sm / shared < t)
		t = d->shared_per_sm / shared;
	return t ? (uint32_t)t : 1;
}

int vgpu_sim_job_begin(struct vgpu_sim *s, uint32_t id, uint64_t desc_addr)
{
	struct job *j;
	int ret;

	if (find_job(s, id))
		return -EEXIST;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->id = id;
	j->first = UINT64_MAX;
	ret = load_job(s, j, desc_addr);
	if (ret == -ENOMEM) {
		free_job(j);
		return ret;
	}
	j->status = ret;
	if (!ret)
		j->tfit = blocks_that_fit(&s->cfg.desc, j);
	j->next = s->jobs;
	s->jobs = j;
	return 0;
}

/* ------------------------------------------------------------------ */
/* thread blocks */

/* Drops warp slot @slot from its scheduler's age order. */
static void ord_remove(struct vgpu_sim *s, struct sm *sm, uint32_t slot)
{
	uint32_t k = slot % sm->npool, *o = sm->ord + (size_t)k * sm->ordcap;

	(void)s;

	for (uint32_t i = 0; i < sm->nord[k]; i++) {
		if (o[i] == slot) {
			memmove(o + i, o + i + 1, (sm->nord[k] - i - 1) * sizeof(*o));
			sm->nord[k]--;
			return;
		}
	}
}

/* @w leaves its warp slot and warp id (it exited, its block left or swapped out). */
static void warp_release(struct vgpu_sim *s, struct sm *sm, const struct warp *w)
{
	sm->ws[w->slot] = NULL;
	sm->wid_used[w->wid] = 0;
	sim_wsum_clear(sm, w->slot);
	ord_remove(s, sm, w->slot);
}

static void stall_add(struct sm *sm, uint64_t n)
{
	struct vgpu_sim_stats *st = &sm->t.st;

	st->cycles += n;
	/* fair's x%: cycles with one kernel alone on the SM (sched.c) */
	if (sm->kon && sm->nk == 1)
		sm->kern[sm->klist[0]].alone_cycles += n;
	switch (sm->t.wclass) {
	case WHY_CONFLICT: st->stall_mem_conflict += n; break;
	case WHY_MEM: st->stall_mem_dep += n; break;
	case WHY_FETCH: st->stall_fetch += n; break;
	default: st->stall_other += n; break;
	}
	if (sm->t.wall_mem)
		st->c_mem += n;
}

static void sm_classify(struct vgpu_sim *s, struct sm *sm);

/*
 * Counts the cycles @sm skipped up to @now (simulated already) in the class
 * they had, before a command changes what its warps wait for.
 */
static void sm_catch_up(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	if (sm->ntbs && sm->t.last < now) {
		sm_classify(s, sm);
		stall_add(sm, now - sm->t.last);
		sm->t.last = now;
	}
}

/* The SM's next cycle into the array vgpu_sim_step() scans. */
static inline void sm_next_sync(struct vgpu_sim *s, const struct sm *sm)
{
	s->snx[sm->id] = sm->ntbs ? sm->next : UINT64_MAX;
}

/* Earliest cycle at which each pool of @sm could issue, and the SM's. */
static inline __attribute__((always_inline)) void sm_update_next(struct vgpu_sim *s,
								 struct sm *sm)
{
	uint32_t ns = sm->npool;
	uint64_t next = UINT64_MAX, *minr = sm->minr;

	/* when the unit takes each scheduler's earliest warp for it */
	for (uint32_t q = 0; q < ns; q++) {
		uint64_t sn = UINT64_MAX;

		for (uint32_t f = 0; f < FU_N; f++) {
			uint64_t r = minr[q * FU_N + f], u;

			if (r == UINT64_MAX)
				continue;
			u = f == FU_LDST ? sm->t.ldst_free : sm->t.fu_free[q * FU_N + f];
			if (u > r)
				r = u;
			if (r < sn)
				sn = r;
		}
		/* collector_stall: nothing issues before a collector unit frees */
		if (sm->cstall && sn != UINT64_MAX && sm->t.cu_next[q] > sn)
			sn = sm->t.cu_next[q];
		sm->snext[q] = sn;
		if (sn < next)
			next = sn;
	}
	sm->next = next;
	sm_next_sync(s, sm);
}

/*
 * What the running warps of @sm wait for (1 << WHY_*): a warp whose unit is
 * busy past its ready time waits for the unit ("other", or a conflict for
 * the LD/ST unit), any other for what it records. Stops at the first warp
 * whose reason is in @stop.
 */
static uint32_t wait_reasons(const struct vgpu_sim *s, const struct sm *sm, uint32_t stop)
{
	static const uint8_t busy_why[FU_N] = {
		[FU_SP] = WHY_OTHER, [FU_SFU] = WHY_OTHER, [FU_DP] = WHY_OTHER,
		[FU_LDST] = WHY_CONFLICT,
	};
	uint32_t ns = sm->npool, seen = 0;

	(void)s;
	for (uint32_t q = 0; q < ns; q++) {
		uint64_t unit[FU_N];

		for (uint32_t f = 0; f < FU_N; f++)
			unit[f] = f == FU_LDST ? sm->t.ldst_free : sm->t.fu_free[q * FU_N + f];
		for (uint32_t wi = 0; wi < sm->rwords; wi++) {
			for (uint64_t b = sm->rmask[(size_t)q * sm->rwords + wi]; b; b &= b - 1) {
				uint32_t k = q + (wi * 64 + (uint32_t)__builtin_ctzll(b)) * ns;
				const struct wsum *x = &sm->sum[k];

				seen |= 1u << (unit[x->fu] > x->ready ? busy_why[x->fu] : x->why);
				if (seen & stop)
					return seen;
			}
		}
	}
	return seen;
}

/*
 * Stall class of the cycles in which @sm issues nothing (thesis Fig. 3.2):
 * a memory conflict if a warp waits for the LD/ST unit, else a memory
 * dependency if one waits for loaded data, else a fetch if one waits for an
 * instruction, else other. C_mem (DYNCTA): every resident warp waits for
 * memory. The state does not change between two visits of the SM, so the
 * class of the skipped cycles is worked out when they are counted.
 */
static void sm_classify(struct vgpu_sim *s, struct sm *sm)
{
	uint32_t ns = sm->npool, seen = 0, nrun = 0, nres = 0;
	const uint32_t other = 1u << WHY_OTHER | 1u << WHY_FETCH;
	const uint32_t (*c)[4] = sm->wcnt;
	bool all_mem, conflict = false, busy = false;

	/* the state is the one classified last (sm_classify_again() not called) */
	if (sm->cls_ok)
		return;
	sm->cls_ok = true;
	/*
	 * From the counts of running warps by unit and reason, when no warp
	 * waits for a unit other than LD/ST: each scheduler's earliest warp for
	 * a unit tells whether any waits for it. A warp waiting for the LD/ST
	 * unit makes the class a conflict; whether every warp waits for memory
	 * then needs the LD/ST warps that wait for something else to be none.
	 */
	for (uint32_t q = 0; q < ns; q++) {
		const uint64_t *m = sm->minr + (size_t)q * FU_N;

		for (uint32_t f = 0; f < FU_N; f++) {
			if (f == FU_LDST)
				conflict |= m[f] < sm->t.ldst_free;
			else
				busy |= m[f] < sm->t.fu_free[q * FU_N + f];
			/* waiting for a collector unit counts as a busy unit */
			busy |= sm->cstall && m[f] < sm->t.cu_next[q];
		}
	}
	for (uint32_t i = 0; i < 2; i++)
		for (uint32_t y = 0; y < 4; y++)
			nrun += c[i][y];
	if (!busy && (!conflict || !(c[1][WHY_OTHER] + c[1][WHY_FETCH]))) {
		seen = conflict ? 1u << WHY_CONFLICT : 0;
		for (uint32_t y = 0; y < 4; y++)
			seen |= (c[0][y] || (!conflict && c[1][y])) ? 1u << y : 0;
		goto counted;
	}
	if (busy) {
		/*
		 * A warp waits for a busy ALU unit (it counts as "other"): not
		 * every warp waits for memory. The class is a conflict if one
		 * waits for the LD/ST unit, else a memory dependency as soon as
		 * one warp is found waiting for memory (without a conflict no
		 * LD/ST warp waits for its unit), else what the scan finds.
		 */
		if (conflict)
			seen = 1u << WHY_OTHER | 1u << WHY_CONFLICT;
		else if (c[1][WHY_MEM])
			/* an LD/ST warp waits for memory: its unit is free by then */
			seen = 1u << WHY_OTHER | 1u << WHY_MEM;
		else if (!(c[0][WHY_MEM] + c[0][WHY_FETCH] + c[1][WHY_FETCH] +
			   c[0][WHY_CONFLICT] + c[1][WHY_CONFLICT]))
			/* a warp waits for a unit or for nothing else than "other" */
			seen = 1u << WHY_OTHER;
		else
			seen = 1u << WHY_OTHER | wait_reasons(s, sm, 1u << WHY_MEM);
	} else if (c[0][WHY_OTHER] + c[0][WHY_FETCH]) {
		/* a conflict, and a warp of an ALU unit waits for something else */
		seen = 1u << WHY_CONFLICT | 1u << WHY_OTHER;
	} else {
		/*
		 * A conflict, every ALU warp waits for memory, and some LD/ST
		 * warps record other reasons: every warp waits for memory unless
		 * one of those does not wait for the LD/ST unit.
		 */
		seen = 1u << WHY_CONFLICT | wait_reasons(s, sm, other);
	}
counted:
	all_mem = !(seen & ~(1u << WHY_MEM | 1u << WHY_CONFLICT));
	/* warps at a barrier are resident but not running */
	for (uint32_t i = 0; i < s->nslots && nrun && all_mem; i++)
		if (sm->slots[i] && !sm->slots[i]->inactive)
			nres += sm->slots[i]->live;
	sm->t.wclass = seen >> WHY_CONFLICT & 1 ? WHY_CONFLICT : seen >> WHY_MEM & 1 ? WHY_MEM :
		       seen >> WHY_FETCH & 1 ? WHY_FETCH : WHY_OTHER;
	sm->t.wall_mem = nrun && all_mem && nres == nrun;
}

/*
 * What sm_classify() looks at changed other than through a warp slot's
 * summary (sim_wsum_move()): the units' busy times, the blocks, their
 * live warps.
 */
static inline void sm_classify_again(struct sm *sm)
{
	sm->cls_ok = false;
}

/* Counts @sm's cycles off and empty up to @now, and stops counting. */
static void sm_gated_catch_up(struct sm *sm, uint64_t now)
{
	if (sm->gated_since == UINT64_MAX)
		return;
	if (now > sm->gated_since)
		sm->t.st.gated_cycles += now - sm->gated_since;
	sm->gated_since = UINT64_MAX;
}

/* Counts @sm's C_idle up to @now while it waits without a block. */
static void sm_idle_catch_up(struct sm *sm, uint64_t now)
{
	if (sm->t.idle_since != UINT64_MAX && now > sm->t.idle_since) {
		sm->t.st.c_idle += now - sm->t.idle_since;
		sm->t.idle_since = now;
	}
}

/*
 * The device went idle at @now: it forgets where its warp schedulers stood
 * (no warp is left to remember). What the memory system holds stays, as on
 * a real GPU between launches, until vgpu_sim_reset().
 */
static void device_idle(struct vgpu_sim *s, uint64_t now)
{
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		struct sm *sm = &s->sms[i];

		for (uint32_t k = 0; k < s->cfg.schedulers_per_sm; k++)
			sm->rr[k] = sm->last[k] = UINT32_MAX;
		ka_restart(s, sm);
		if (sm->t.idle_since != UINT64_MAX && now > sm->t.idle_since)
			sm->t.st.c_idle += now - sm->t.idle_since;
		sm->t.idle_since = UINT64_MAX;
		sm_gated_catch_up(sm, now);
	}
}

void vgpu_sim_reset(struct vgpu_sim *s)
{
	if (!vgpu_sim_busy(s))
		mem_reset(s);
}

/*
 * Works out when @w can issue its next instruction (at @now or later): the
 * scoreboard entries of its operands (RAW) and results (WAW), and its
 * instruction fetch. Records what it waits for (stall classes).
 */
static inline __attribute__((always_inline)) void warp_prepare(struct sm *sm, struct warp *w,
								uint64_t now)
{
	const struct job *j = w->tb->job;
	const struct itime *ti;
	uint64_t r = now + 1, f;
	uint8_t why = WHY_OTHER;
	uint32_t pc;

	if (w->state == W_DONE || !w->sp) {
		sim_wsync(sm, w);
		return;
	}
	pc = w->stack[w->sp - 1].pc;
	if (j->virt && pc < j->ncode && w->state == W_RUN && vtb_wait(w->tb, w, &j->code[pc])) {
		w->state = W_VTB;
		sim_wsync(sm, w);
		return;
	}
	if (pc >= j->ncode) {
		w->ready = r;
		w->elf = VGPU_ELF_MAX_SCORE;
		w->fu = FU_SP;
		w->why = WHY_OTHER;
		sim_wsync(sm, w);
		return;
	}
	ti = &j->tim[pc];
	for (unsigned int i = 0; i < ti->nsrc; i++) {
		uint64_t v = w->sb[ti->src[i]];

		if (v >> 1 > r) {
			r = v >> 1;
			why = v & 1 ? WHY_MEM : WHY_OTHER;
		}
	}
	for (unsigned int i = 0; i < ti->ndst; i++) {
		uint64_t v = w->sb[ti->dst[i]];

		if (v >> 1 > r) {
			r = v >> 1;
			why = v & 1 ? WHY_MEM : WHY_OTHER;
		}
	}
	if ((ti->flags & (IT_PRED_R | IT_PRED_W)) && w->pred_rdy > r) {
		r = w->pred_rdy;
		why = WHY_OTHER;
	}
	f = sim_fetch(sm, w, pc, now);
	if (f != FETCH_DEFERRED && f > r) {
		r = f;
		why = WHY_FETCH;
	}
	w->ready = r;
	w->why = why;
	w->fu = ti->fu;
	w->elf = ti->elf;
	sim_wsync(sm, w);
}

/*
 * The L1I misses of @sm's warps at @now go to L2 (shared: the serial phase),
 * then each of those warps waits for its instruction as warp_prepare()
 * would have made it.
 */
static void fetches_done(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	if (!sm->nfetch)
		return;
	mem_fetch_resolve(s, sm, now);
	for (uint32_t i = 0; i < sm->nfetch; i++) {
		const struct fetch_miss *f = &sm->fetch[i];
		struct warp *w = f->w;

		if (f->prefetch || w->tb->ended || f->avail <= w->ready)
			continue;
		w->ready = f->avail;
		w->why = WHY_FETCH;
		sim_wsync(sm, w);
	}
	sm->nfetch = 0;
}

static void stats_add(struct vgpu_sim_stats *d, const struct vgpu_sim_stats *a)
{
	const uint64_t *x = (const uint64_t *)a;
	uint64_t *y = (uint64_t *)d;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		y[i] += x[i];
}

/* Removes a block from its SM (no event). */
static void tb_detach(struct vgpu_sim *s, struct sm *sm, struct tb *tb);
static uint64_t tb_drained(const struct tb *tb, uint64_t now);

/*
 * Virtual Thread's load queues (Yoon et al. Sec. IV-D, after Mascar; the
 * entries: sim_int.h struct lq_ent, made by mem.c l1_load()). A load
 * transaction that met a reservation failure waits in the queue, its
 * instruction's registers at LQ_WAIT (the warp waits for memory, which the
 * swap-out condition sees). In the serial phase, SMs in index order, the
 * L1D of an SM takes one queued transaction a cycle when it can (a hit, or
 * a free MSHR and a victim way): the oldest of the active queue, the
 * inactive queue's oldest only while the active queue is empty (Sec.
 * IV-D: "the loads from the active queue are always given higher
 * priority"). Only the timing waits: the load executed at issue.
 */

/* The entry the L1D of @sm takes next. */
static uint32_t lq_head(const struct sm *sm)
{
	for (uint32_t i = 0; i < sm->nlq; i++)
		if (!sm->lq[i].w->tb->inactive)
			return i;
	return 0;
}

/* When the L1D of @sm may take its next queued transaction, from @now on. */
static void lq_update(struct sm *sm, uint64_t now)
{
	if (sm->nlq)
		sm->lq_next = mem_lq_when(sm, &sm->lq[lq_head(sm)], now);
}

/* Takes entry @i out of the queues, the others keeping their order. */
static void lq_remove(struct sm *sm, uint32_t i)
{
	memmove(sm->lq + i, sm->lq + i + 1, (sm->nlq - i - 1) * sizeof(*sm->lq));
	sm->nlq--;
}

/* The load @w just issued has transactions queued: its results wait for them. */
static void lq_hold(struct sm *sm, struct warp *w, const struct itime *ti, uint64_t done)
{
	struct lq_rec *r = &sm->lrec[sm->lq_cur - 1];

	sm->lq_cur = 0;
	r->done = done;
	r->ndst = ti->ndst;
	memcpy(r->dst, ti->dst, ti->ndst);
	r->pred = (ti->flags & IT_PRED_W) != 0;
	for (unsigned int i = 0; i < ti->ndst; i++)
		w->sb[ti->dst[i]] = LQ_WAIT << 1 | 1;
	if (r->pred)
		w->pred_rdy = LQ_WAIT;
}

static void warp_prepare(struct sm *sm, struct warp *w, uint64_t now);
static void fetches_done(struct vgpu_sim *s, struct sm *sm, uint64_t now);
static void sm_update_next(struct vgpu_sim *s, struct sm *sm);

/*
 * A queued transaction of record @ri was replayed at @now or later, its
 * data at @done. With its instruction's last, the registers get their
 * ready time; a warp that waited for them prepares again, an inactive
 * block may become ready (Sec. IV-B: its pending writes are done).
 */
static void lq_done(struct vgpu_sim *s, struct sm *sm, uint32_t ri, uint64_t done,
		    uint64_t now)
{
	struct lq_rec *r = &sm->lrec[ri];
	struct warp *w = r->w;
	struct tb *tb = w->tb;

	if (done > r->done)
		r->done = done;
	if (--r->left)
		return;
	for (uint32_t i = 0; i < r->ndst; i++)
		w->sb[r->dst[i]] = r->done << 1 | 1;
	if (r->pred)
		w->pred_rdy = r->done;
	if (tb->inactive) {
		uint64_t d = tb_drained(tb, now);

		tb->vt_ready = d > tb->vt_saved ? d : tb->vt_saved;
		if (tb->vt_ready < sm->vt_next)
			sm->vt_next = tb->vt_ready;
		return;
	}
	if (w->ready < LQ_WAIT || sm->ws[w->slot] != w)
		return;
	/* the cycles so far in the class they had (no warp of the SM changes between visits) */
	sm_catch_up(s, sm, now);
	warp_prepare(sm, w, now);
	fetches_done(s, sm, now);
	if (w->state == W_RUN && w->ready < tb->vt_resume) {
		w->ready = tb->vt_resume;
		w->why = WHY_OTHER;
		sim_wsync(sm, w);
	}
	sm_update_next(s, sm);
	if (sm->next <= now)
		sm->next = now + 1;
	sm_next_sync(s, sm);
}

/* The L1D of @sm takes its next queued transaction at @now if it can. */
static void lq_serve(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	uint32_t i = lq_head(sm);
	struct lq_ent e = sm->lq[i];
	struct tb *tb = e.w->tb;
	uint64_t done;

	sm->lq_next = mem_lq_when(sm, &e, now);
	if (sm->lq_next > now)
		return;
	lq_remove(sm, i);
	done = mem_lq_replay(s, sm, &e, now);
	if (tb->inactive) {
		sm->t.st.vt_lq_inactive++;
		tb->job_st.vt_lq_inactive++;
	}
	lq_done(s, sm, e.rec, done, now);
	lq_update(sm, now + 1);
}

/*
 * @tb stops for a context switch at @now: the memory system takes its
 * queued transactions at once, oldest first, each when the L1D can (its
 * save waits for every result in flight).
 */
static void lq_flush(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t now)
{
	for (uint32_t i = 0; i < sm->nlq;) {
		struct lq_ent e = sm->lq[i];

		if (e.w->tb != tb) {
			i++;
			continue;
		}
		lq_remove(sm, i);
		lq_done(s, sm, e.rec, mem_lq_replay(s, sm, &e, mem_lq_when(sm, &e, now)), now);
	}
	lq_update(sm, now);
}

/* @tb leaves its SM: its queued transactions are dropped with it. */
static void lq_drop(struct sm *sm, const struct tb *tb, uint64_t now)
{
	for (uint32_t i = 0; i < sm->nlq;) {
		if (sm->lq[i].w->tb != tb) {
			i++;
			continue;
		}
		sm->lrec[sm->lq[i].rec].left--;
		lq_remove(sm, i);
	}
	lq_update(sm, now);
}

/* Whether @out's queued transactions fit the inactive queue (a swap-out moves them). */
static bool lq_fits_inactive(const struct sm *sm, const struct tb *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sm->nlq; i++)
		n += sm->lq[i].w->tb->inactive || sm->lq[i].w->tb == out;
	return n <= VT_LQ_SIZE;
}

static void remove_tb(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t now)
{
	tb_detach(s, sm, tb);
	if (sm->nlq)
		lq_drop(sm, tb, now);
	if (tb->prio)
		sm->nprio--;
	if (tb->paused)
		sm->npaused--;
	/* an inactive block's warps hold no warp slot; a place may be free now */
	if (tb->inactive)
		sm->ninact--;
	else if (sm->ninact)
		sm->vt_due = true;
	ka_leave(s, sm, tb->kidx);
	sm->slots[tb->slot] = NULL;
	sm->threads -= tb->job->threads;
	sm->ntbs--;
	sm_next_sync(s, sm);
	stats_add(&tb->job->st, &tb->job_st);
	tb->job->resident--;
	s->resident--;
	free_tb(tb);
	if (!sm->ntbs)
		sm->t.idle_since = now;
	if (!sm->ntbs && sm->gated && s->resident)
		sm->gated_since = now;
	if (!s->resident)
		device_idle(s, now);
}

void vgpu_sim_set_tb_hook(struct vgpu_sim *s,
			  void (*hook)(void *ctx, const struct vgpu_sim_tb_end *e), void *ctx)
{
	s->tb_hook = hook;
	s->tb_hook_ctx = ctx;
}

static int finish_tb(struct vgpu_sim *s, struct sm *sm, struct tb *tb, int status,
		     uint64_t now)
{
	struct vgpu_evt e = {
		.type = VGPU_EVT_TB_DONE,
		.flags = (tb->crossed_boundary ? VGPU_EVT_F_CROSSED_BOUNDARY : 0) |
			 (tb->fault_pc_set ? VGPU_EVT_F_FAULT_PC : 0),
		.job = tb->job->id,
		.cycle = now,
		.tb = tb->index,
		.sm = sm->id,
		.slot = tb->slot,
		.status = status,
		.warp_insts = tb->warp_insts,
		.tb_cycles = now - tb->start,
		.fault_addr = status == -EFAULT ? tb->fault_addr : 0,
		/* Past the last instruction: the entry's end. */
		.fault_pc = !tb->fault_pc_set ? 0 :
			    tb->fault_pc < tb->job->ncode ? tb->job->code_off[tb->fault_pc] :
			    tb->job->entry.code_end / 8,
	};

	if (s->tb_hook) {
		struct vgpu_sim_tb_end te = {
			.job = e.job,
			.tb = e.tb,
			.sm = e.sm,
			.status = status,
			.cycles = e.tb_cycles,
			.warp_insts = e.warp_insts,
			.crossed = tb->crossed_boundary,
			.cross_cycles = tb->cross_cycles,
			.cross_insts = tb->cross_insts,
		};

		s->tb_hook(s->tb_hook_ctx, &te);
	}
	tb->job->st.tbs_done++;
	tb->job->last = now;
	sm->t.st.tbs_done++;
	remove_tb(s, sm, tb, now);
	s->stats.tbs_done++;
	return post(s, &e);
}

/*
 * The warp slot of a new warp (sub-core paper Sec. IV-B): it takes the
 * lowest free warp id W; the assignment maps W to a sub-core, and the warp
 * takes that sub-core's first free slot (slot k belongs to scheduler
 * k % schedulers_per_sm), or, with none free there, the first free slot.
 * Under round robin W's own slot is free, so W is the slot, as it always was.
 */
static uint32_t slot_for(struct vgpu_sim *s, struct sm *sm, struct warp *w)
{
	uint32_t ns = s->cfg.schedulers_per_sm, wid = 0, q, k;

	while (sm->wid_used[wid])
		wid++;
	sm->wid_used[wid] = 1;
	w->wid = wid;
	/* a fully connected SM: one pool, the first free slot */
	if (sm->fc)
		ns = 1;
	q = vgpu_sim_subcore_of(s->cfg.subcore_assign, s->cfg.subcore_seed, sm->id, wid, ns);
	for (k = q; k < sm->nws; k += ns)
		if (!sm->ws[k])
			return k;
	for (k = 0; sm->ws[k]; k++)
		;
	return k;
}

static uint32_t free_warp_slots(const struct sm *sm)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < sm->nws; k++)
		n += !sm->ws[k];
	return n;
}

/*
 * Gives the warps of @tb that have not exited warp slots at @now (a
 * dispatch, a Virtual Thread swap-in); they issue from @resume on.
 */
static void tb_attach(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t now,
		      uint64_t resume)
{
	sm_classify_again(sm);
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];
		uint32_t k;

		if (w->state == W_DONE)
			continue;	/* no warp slot: sm->ws[w->slot] is never it */
		k = slot_for(s, sm, w);
		w->slot = k;
		w->age = s->age++;
		sm->ws[k] = w;
		sm->wk[k] = tb->kidx;
		sm->wp[k] = tb->prio;
		sm->wpause[k] = tb->paused;
		{
			uint32_t q = k % sm->npool;

			sm->ord[(size_t)q * sm->ordcap + sm->nord[q]++] = k;
		}
		warp_prepare(sm, w, now);
	}
	fetches_done(s, sm, now);
	for (uint32_t i = 0; i < tb->nwarps && resume > now; i++) {
		struct warp *w = &tb->warps[i];

		if (w->state == W_RUN && w->ready < resume) {
			w->ready = resume;
			w->why = WHY_OTHER;
			sim_wsync(sm, w);
		}
	}
}

/* Takes the warp slots from the warps of @tb (a block leaving, a swap-out). */
static void tb_detach(struct vgpu_sim *s, struct sm *sm, struct tb *tb)
{
	sm_classify_again(sm);
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (sm->ws[w->slot] == w)
			warp_release(s, sm, w);
	}
}

/*
 * Virtual Thread (Yoon et al., Sec. III-IV). The command processor
 * dispatches blocks up to the capacity limit; at most the scheduling limit
 * of them (max_tbs_per_sm blocks, the SM's warp slots) are active, the
 * others inactive: their registers and shared memory stay where they are,
 * their warps hold no warp slot (the physical warp ids of Sec. IV-A) and
 * no scheduler sees them. MAX raises the scheduling limit itself: every
 * block is active.
 */

/* Active blocks an SM may have. */
static uint32_t vt_active_limit(const struct vgpu_sim *s)
{
	return s->vt == VGPU_VT_MAX ? s->nslots : s->cfg.desc.max_tbs_per_sm;
}

/* Whether a block with @nws warps not exited can be active on @sm now. */
static bool vt_room(const struct vgpu_sim *s, const struct sm *sm, uint32_t nws)
{
	return sm->ntbs - sm->ninact < vt_active_limit(s) && free_warp_slots(sm) >= nws;
}

/*
 * The swap-out condition (Sec. IV-B, the tracking counter): every warp of
 * active @tb that has not exited waits for a long-latency memory result.
 * A warp at a barrier does not wait for memory, so it keeps the block
 * active.
 */
static bool vt_stalled(const struct tb *tb, uint64_t now)
{
	if (tb->inactive || tb->switching || tb->ended)
		return false;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		if (w->state == W_DONE)
			continue;
		if (w->state != W_RUN || w->why != WHY_MEM || w->ready <= now)
			return false;
	}
	return true;
}

/*
 * First ready, first served (Sec. IV-B): the inactive block of @sm ready
 * (state saved, writes in flight drained) at @now the earliest, whose
 * warps fit @nws warp slots; NULL when none.
 */
static struct tb *vt_pick(const struct vgpu_sim *s, const struct sm *sm, uint64_t now,
			  uint32_t nws)
{
	struct tb *best = NULL;

	for (uint32_t k = 0; k < s->nslots; k++) {
		struct tb *tb = sm->slots[k];

		if (!tb || !tb->inactive || tb->switching || tb->vt_ready > now ||
		    tb->live > nws)
			continue;
		if (!best || tb->vt_ready < best->vt_ready ||
		    (tb->vt_ready == best->vt_ready && tb->vt_seq < best->vt_seq))
			best = tb;
	}
	return best;
}

/*
 * Makes inactive @tb active at @now: its state comes back from shared
 * memory in vgpu_vt_swap_cycles() (Eq. 2), after the SM's state transfers
 * under way, and its warps issue from then on.
 */
static void vt_swap_in(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t now)
{
	uint64_t at = sm->vt_port > now ? sm->vt_port : now;

	at += vgpu_vt_swap_cycles(tb->nwarps);
	sm->vt_port = at;
	tb->inactive = false;
	tb->vt_resume = at;
	sm_classify_again(sm);
	sm->ninact--;
	tb_attach(s, sm, tb, now, at);
}

/*
 * Makes active @tb, its warp slots already taken, inactive at @now. Its
 * results in flight still write its registers (Sec. IV-B: the tracking
 * counter counts them down to @drained), and its state goes to shared
 * memory from the temporary buffer after the transfers under way (the
 * restore of the incoming block first: that one is on the critical path);
 * it is ready once both are done.
 */
static void vt_swap_out(struct sm *sm, struct tb *tb, uint64_t drained, uint64_t now)
{
	uint64_t at = sm->vt_port > now ? sm->vt_port : now;

	at += vgpu_vt_swap_cycles(tb->nwarps);
	sm->vt_port = at;
	tb->inactive = true;
	sm_classify_again(sm);
	/* a queued load keeps it waiting (drained at LQ_WAIT): lq_done() */
	tb->vt_saved = at;
	tb->vt_ready = drained > at ? drained : at;
	tb->vt_seq = sm->vt_seq++;
	sm->ninact++;
	sm->t.st.vt_swaps++;
	tb->job_st.vt_swaps++;
}

/* The cycle by which every register and predicate write of @tb is done. */
static uint64_t tb_drained(const struct tb *tb, uint64_t now)
{
	uint32_t nr = tb->job->entry.regs_per_thread;
	uint64_t drained = now;

	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		for (uint32_t r = 0; r <= nr; r++)
			if (w->sb[r] >> 1 > drained)
				drained = w->sb[r] >> 1;
		if (w->pred_rdy > drained)
			drained = w->pred_rdy;
	}
	return drained;
}

/*
 * The Virtual Thread controller of @sm after cycle @now (serial phase):
 * free active places go to ready inactive blocks; then each active block
 * that waits only for memory swaps out for the first ready inactive block
 * (none ready: nothing swaps).
 */
static void vt_pass(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	bool changed = false;
	struct tb *in;

	sm->vt_due = false;
	while (sm->ninact && sm->ntbs - sm->ninact < vt_active_limit(s) &&
	       (in = vt_pick(s, sm, now, free_warp_slots(sm)))) {
		vt_swap_in(s, sm, in, now);
		changed = true;
	}
	for (uint32_t k = 0; k < s->nslots && sm->ninact; k++) {
		struct tb *out = sm->slots[k];

		if (!out || !vt_stalled(out, now))
			continue;
		/* Sec. IV-D: its queued loads move to the inactive queue, which must hold them */
		if (sm->nlq && !lq_fits_inactive(sm, out))
			continue;
		in = vt_pick(s, sm, now, free_warp_slots(sm) + out->live);
		if (!in)
			continue;
		tb_detach(s, sm, out);
		vt_swap_in(s, sm, in, now);
		vt_swap_out(sm, out, tb_drained(out, now), now);
		changed = true;
	}
	sm->vt_next = UINT64_MAX;
	for (uint32_t k = 0; k < s->nslots && sm->ninact; k++) {
		const struct tb *tb = sm->slots[k];

		if (tb && tb->inactive && tb->vt_ready > now && tb->vt_ready < sm->vt_next)
			sm->vt_next = tb->vt_ready;
	}
	if (changed) {
		sm_update_next(s, sm);
		if (sm->next <= now)
			sm->next = now + 1;
		sm_next_sync(s, sm);
		/* the queue served first may be another */
		lq_update(sm, now + 1);
	}
}

int vgpu_sim_set_virtual_thread(struct vgpu_sim *s, uint32_t mode)
{
	if (mode >= VGPU_VT_COUNT)
		return -EINVAL;
	if (s->resident)
		return -EBUSY;
	s->vt = mode;
	s->nslots = mode == VGPU_VT_OFF ? s->cfg.desc.max_tbs_per_sm : VGPU_VT_MAX_TBS;
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		struct sm *sm = &s->sms[i];

		sm->nws = mode == VGPU_VT_MAX ? s->nws_cap : s->cfg.desc.max_threads_per_sm / 32;
		mtree_size(sm);
		sm->cls_ok = false;
		sm->vt_next = UINT64_MAX;
		sm->vt_due = false;
		ka_restart(s, sm);
		sm_update_next(s, sm);
	}
	return 0;
}

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

static void sample_restart(struct vgpu_sim *s);

int vgpu_sim_dispatch(struct vgpu_sim *s, const struct vgpu_cmd *cmd)
{
	const struct vgpu_device_desc *dev = &s->cfg.desc;
	struct job *j = find_job(s, cmd->job);
	bool restore = cmd->flags & VGPU_DISPATCH_RESTORE;
	struct sm *sm;
	struct tb *tb;
	uint64_t ntbs, regs, resume = s->cycle;
	uint32_t free_ws, need_ws, max_threads = dev->max_threads_per_sm;
	bool inactive;

	if (!j)
		return -ENOENT;
	if (cmd->sm >= dev->num_sms || cmd->slot >= s->nslots ||
	    (cmd->flags & ~VGPU_DISPATCH_RESTORE))
		return -EINVAL;
	sm = &s->sms[cmd->sm];
	if (sm->slots[cmd->slot])
		return -EINVAL;
	if (s->vt != VGPU_VT_OFF)
		max_threads = s->nws_cap * 32;
	if (j->status) {
		struct vgpu_evt e = {
			.type = VGPU_EVT_TB_DONE, .job = j->id, .cycle = s->cycle,
			.tb = cmd->tb, .sm = cmd->sm, .slot = cmd->slot, .status = j->status,
		};

		s->stats.tbs_done++;
		return post(s, &e);
	}
	ntbs = (uint64_t)j->desc.grid[0] * j->desc.grid[1] * j->desc.grid[2];
	regs = (uint64_t)j->nwarps * 32 * j->entry.regs_per_thread;
	if (cmd->tb >= ntbs ||
	    (uint64_t)cmd->reg_base + regs > dev->regs_per_sm ||
	    (uint64_t)cmd->shared_base + j->desc.shared_bytes > dev->shared_per_sm ||
	    sm->threads + j->threads > max_threads)
		return -EINVAL;
	for (uint32_t k = 0; k < s->nslots; k++) {
		struct tb *o = sm->slots[k];

		if (o && (overlaps(o->reg_base, o->reg_count, cmd->reg_base, regs) ||
			  overlaps(o->shared_base, o->shared_bytes, cmd->shared_base,
				   j->desc.shared_bytes)))
			return -EINVAL;
	}
	need_ws = j->nwarps;
	/* exited warps of a restored block take no warp slot */
	if (restore && ctx_check(s, j, cmd->tb, cmd->addr, &need_ws))
		return -EINVAL;
	free_ws = free_warp_slots(sm);
	/* under Virtual Thread a block without a place waits inactive */
	inactive = s->vt != VGPU_VT_OFF && !vt_room(s, sm, need_ws);
	if (free_ws < need_ws && !inactive)
		return -EINVAL;

	sm_catch_up(s, sm, s->cycle);
	/* zeroed but for the warps' SIMT stacks, read only below their depth */
	tb = sim_malloc(1, sizeof(*tb) + sizeof(struct warp) * j->nwarps);
	if (!tb)
		return -ENOMEM;
	memset(tb, 0, sizeof(*tb));
	for (uint32_t i = 0; i < j->nwarps; i++)
		memset(&tb->warps[i], 0, offsetof(struct warp, stack));
	tb->regs = sim_calloc((size_t)j->nwarps * (j->entry.regs_per_thread + 1) * 32, 4);
	tb->local = sim_calloc((size_t)j->nwarps * 32 * j->entry.local_per_thread + 1, 1);
	tb->sb = sim_calloc((size_t)j->nwarps * (j->entry.regs_per_thread + 1), sizeof(*tb->sb));
	if (!tb->regs || !tb->local || !tb->sb) {
		free_tb(tb);
		return -ENOMEM;
	}
	tb->job = j;
	tb->index = cmd->tb;
	tb->sm = cmd->sm;
	tb->slot = cmd->slot;
	tb->ctaid[0] = cmd->tb % j->desc.grid[0];
	tb->ctaid[1] = (cmd->tb / j->desc.grid[0]) % j->desc.grid[1];
	tb->ctaid[2] = cmd->tb / (j->desc.grid[0] * j->desc.grid[1]);
	tb->reg_base = cmd->reg_base;
	tb->reg_count = (uint32_t)regs;
	tb->shared_base = cmd->shared_base;
	tb->shared_bytes = j->desc.shared_bytes;
	tb->shared = sm->shared + cmd->shared_base;
	memset(tb->shared, 0, tb->shared_bytes);
	tb->nwarps = j->nwarps;
	tb->live = j->nwarps;
	tb->start = s->cycle;
	for (uint32_t i = 0; i < j->nwarps; i++) {
		struct warp *w = &tb->warps[i];
		uint32_t lanes = j->threads - i * 32;

		w->tb = tb;
		w->regs = tb->regs + (size_t)i * (j->entry.regs_per_thread + 1) * 32;
		w->idx = i;
		w->vt_widx = i;
		w->sb = tb->sb + (size_t)i * (j->entry.regs_per_thread + 1);
		w->state = W_RUN;
		w->sp = 1;
		w->stack[0] = (struct simt){ 0, NO_PC, lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1 };
	}
	if (restore && !ctx_load(s, tb, cmd->addr)) {
		/*
		 * It issues once its context is in: the cost of the save again,
		 * after the SM's transfers already under way.
		 */
		resume = (sm->xfer_free > s->cycle ? sm->xfer_free : s->cycle) +
			 ctx_cycles(s, ctx_bytes_of(j));
		sm->xfer_free = resume;
	}
	tb->kidx = ka_join(s, sm, j);
	if (inactive) {
		tb->inactive = true;
		tb->vt_ready = tb->vt_saved = resume;
		tb->vt_seq = sm->vt_seq++;
		sm->ninact++;
		if (resume < sm->vt_next)
			sm->vt_next = resume;
	} else {
		tb->vt_resume = resume;
		tb_attach(s, sm, tb, s->cycle, resume);
	}
	/* C_idle: an SM without blocks while others have some (DYNCTA) */
	if (!s->resident) {
		for (uint32_t i = 0; i < dev->num_sms; i++)
			s->sms[i].t.idle_since = s->cycle;
		if (s->sample_period)
			sample_restart(s);
	}
	if (!sm->ntbs) {
		sm_gated_catch_up(sm, s->cycle);
		if (sm->t.idle_since != UINT64_MAX && s->cycle > sm->t.idle_since)
			sm->t.st.c_idle += s->cycle - sm->t.idle_since;
		sm->t.idle_since = UINT64_MAX;
		sm->t.last = s->cycle;
	}
	if (j->first == UINT64_MAX)
		j->first = s->cycle;
	sm->slots[cmd->slot] = tb;
	sm->threads += j->threads;
	sm->ntbs++;
	sm_next_sync(s, sm);
	j->resident++;
	s->resident++;
	sm_update_next(s, sm);
	return 0;
}

/* Earliest completion of a context switch on @sm. */
static void sm_pend_update(struct vgpu_sim *s, struct sm *sm)
{
	sm->pend = UINT64_MAX;
	for (uint32_t k = 0; k < s->nslots; k++) {
		const struct tb *tb = sm->slots[k];

		if (tb && tb->switching && tb->switch_at < sm->pend)
			sm->pend = tb->switch_at;
	}
}

/*
 * SWITCH: the block stops issuing now; its context is saved once every
 * result in flight is in (the model executes at issue, so only the
 * scoreboard still waits: loads, long-latency arithmetic), which then
 * takes ctx_cycles() after the SM's transfers already under way (its
 * contexts share its bandwidth). The slot is freed at that cycle by
 * switches_done(). IDEAL: the same, but the slot is free the next cycle (executing at issue,
 * the registers already hold every result in flight).
 */
static void switch_start(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t addr,
			 bool ideal)
{
	uint64_t drained;

	if (sm->nlq)
		lq_flush(s, sm, tb, s->cycle);
	drained = tb_drained(tb, s->cycle);

	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (w->state == W_DONE)
			continue;
		w->prev_state = w->state;
		w->state = W_STOP;
		w->active = 0;
		if (!tb->inactive)
			sim_wsync(sm, w);
	}
	tb->switching = true;
	tb->ideal = ideal;
	tb->preempt_cycle = s->cycle;
	tb->save_addr = addr;
	if (ideal) {
		tb->switch_at = s->cycle + 1;
	} else {
		if (sm->xfer_free > drained)
			drained = sm->xfer_free;
		tb->switch_at = drained + ctx_cycles(s, ctx_bytes_of(tb->job));
		sm->xfer_free = tb->switch_at;
	}
	if (tb->switch_at < sm->pend)
		sm->pend = tb->switch_at;
	s->any_pend = true;
}

int vgpu_sim_preempt(struct vgpu_sim *s, const struct vgpu_cmd *cmd)
{
	const struct vgpu_device_desc *dev = &s->cfg.desc;
	struct vgpu_evt e = {
		.type = VGPU_EVT_PREEMPTED, .flags = cmd->flags, .job = cmd->job,
		.cycle = s->cycle, .tb = cmd->tb, .sm = cmd->sm, .slot = cmd->slot,
	};
	struct sm *sm;
	struct tb *tb;
	int ret = 0, r;

	if ((cmd->flags != VGPU_PREEMPT_SWITCH && cmd->flags != VGPU_PREEMPT_FLUSH &&
	     cmd->flags != VGPU_PREEMPT_IDEAL) ||
	    cmd->sm >= dev->num_sms || cmd->slot >= s->nslots) {
		ret = -EINVAL;
		goto refuse;
	}
	sm = &s->sms[cmd->sm];
	tb = sm->slots[cmd->slot];
	if (!tb || tb->job->id != cmd->job || tb->index != cmd->tb) {
		/* it finished (or was dropped) first: the kernel only hears so */
		e.status = -ENOENT;
		return post(s, &e);
	}
	if (tb->switching) {
		ret = -EBUSY;
		goto refuse;
	}
	if (cmd->flags != VGPU_PREEMPT_FLUSH &&
	    !in_vram(s, cmd->addr, ctx_bytes_of(tb->job))) {
		ret = -EINVAL;
		goto refuse;
	}
	/* the cycles skipped so far still count in the class they had */
	sm_catch_up(s, sm, s->cycle);
	if (cmd->flags != VGPU_PREEMPT_FLUSH) {
		switch_start(s, sm, tb, cmd->addr, cmd->flags == VGPU_PREEMPT_IDEAL);
	} else {
		/* FLUSH: dropped now; what it wrote stays, it reruns from its start */
		e.warp_insts = tb->warp_insts;
		remove_tb(s, sm, tb, s->cycle);
		r = post(s, &e);
		if (r)
			ret = r;
	}
	sm_update_next(s, sm);
	return ret;
refuse:
	e.status = ret;
	r = post(s, &e);
	return r ? r : ret;
}

/* The context switches of @sm due at @now complete: contexts out, slots free. */
static int switches_done(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	int ret = 0;

	sm_catch_up(s, sm, now);
	for (uint32_t k = 0; k < s->nslots; k++) {
		struct tb *tb = sm->slots[k];
		struct vgpu_evt e;
		int r;

		if (!tb || !tb->switching || tb->switch_at > now)
			continue;
		ctx_save(s, tb, now);
		e = (struct vgpu_evt){
			.type = VGPU_EVT_PREEMPTED,
			.flags = tb->ideal ? VGPU_PREEMPT_IDEAL : VGPU_PREEMPT_SWITCH,
			.job = tb->job->id, .cycle = now, .tb = tb->index, .sm = sm->id,
			.slot = tb->slot, .warp_insts = tb->warp_insts,
			.tb_cycles = now - tb->preempt_cycle,
		};
		remove_tb(s, sm, tb, now);
		r = post(s, &e);
		if (r && !ret)
			ret = r;
	}
	sm_pend_update(s, sm);
	sm_update_next(s, sm);
	if (sm->next <= now)
		sm->next = now + 1;
	sm_next_sync(s, sm);
	return ret;
}

int vgpu_sim_set_kernel_sched(struct vgpu_sim *s, uint32_t mode)
{
	if (mode >= VGPU_KSCHED_COUNT)
		return -EINVAL;
	s->kmode = mode;
	s->cfg.kernel_sched = mode;
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		/* the cycles skipped so far count under the old mode (x%) */
		sm_catch_up(s, &s->sms[i], s->cycle);
		ka_restart(s, &s->sms[i]);
	}
	return 0;
}

int vgpu_sim_set_warp_sched(struct vgpu_sim *s, uint32_t policy, uint32_t newcar,
			    uint32_t prefetch)
{
	if (policy >= VGPU_SCHED_COUNT_ || newcar > 1 || prefetch > 1)
		return -EINVAL;
	s->cfg.scheduler = policy;
	s->cfg.newcar = newcar;
	s->cfg.l1i_prefetch = prefetch;
	s->sched = sched_get(policy);
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		struct sm *sm = &s->sms[i];

		sm_catch_up(s, sm, s->cycle);
		sm->t.prefetch = prefetch;
		for (uint32_t k = 0; k < s->cfg.schedulers_per_sm; k++)
			sm->rr[k] = sm->last[k] = UINT32_MAX;
		for (uint32_t k = 0; k < sm->nws; k++)
			if (sm->ws[k])
				sm->ws[k]->active = 0;
	}
	return 0;
}

int vgpu_sim_set_subcore_assign(struct vgpu_sim *s, uint32_t mode)
{
	if (mode >= VGPU_SUBCORE_COUNT_)
		return -EINVAL;
	s->cfg.subcore_assign = mode;
	return 0;
}

int vgpu_sim_warp_sched_cmd(struct vgpu_sim *s, uint32_t mode)
{
	static const uint8_t policy[VGPU_WARP_SCHED_COUNT] = {
		[VGPU_WARP_SCHED_LRR] = VGPU_SCHED_LRR,
		[VGPU_WARP_SCHED_GTO] = VGPU_SCHED_GTO,
		[VGPU_WARP_SCHED_TWO_LEVEL] = VGPU_SCHED_TWO_LEVEL,
		[VGPU_WARP_SCHED_ELF] = VGPU_SCHED_ELF,
		[VGPU_WARP_SCHED_ELF_NEWCAR] = VGPU_SCHED_ELF,
		[VGPU_WARP_SCHED_ELF_PP] = VGPU_SCHED_ELF,
		[VGPU_WARP_SCHED_RBA] = VGPU_SCHED_RBA,
		[VGPU_WARP_SCHED_PROGRESS] = VGPU_SCHED_PROGRESS,
	};

	if (mode >= VGPU_WARP_SCHED_COUNT)
		return -EINVAL;
	if (mode == VGPU_WARP_SCHED_CONFIG)
		return vgpu_sim_set_warp_sched(s, s->cfg0.scheduler, s->cfg0.newcar,
					       s->cfg0.l1i_prefetch);
	return vgpu_sim_set_warp_sched(s, policy[mode], mode == VGPU_WARP_SCHED_ELF_NEWCAR ||
				       mode == VGPU_WARP_SCHED_ELF_PP,
				       mode == VGPU_WARP_SCHED_ELF_PP);
}

_Static_assert(VGPU_SUBCORE_ASSIGN_RR - 1 == VGPU_SUBCORE_RR &&
	       VGPU_SUBCORE_ASSIGN_SRR - 1 == VGPU_SUBCORE_SRR &&
	       VGPU_SUBCORE_ASSIGN_SHUFFLE - 1 == VGPU_SUBCORE_SHUFFLE, "sub-core modes");

int vgpu_sim_subcore_assign_cmd(struct vgpu_sim *s, uint32_t mode)
{
	if (mode >= VGPU_SUBCORE_ASSIGN_COUNT)
		return -EINVAL;
	return vgpu_sim_set_subcore_assign(s, mode == VGPU_SUBCORE_ASSIGN_CONFIG ?
					   s->cfg0.subcore_assign : mode - 1);
}

/* The block in @slot of @sm into *@sm_out, *@tb_out; -EINVAL, -ENOENT. */
static int slot_tb(struct vgpu_sim *s, uint32_t smi, uint32_t slot, struct sm **sm_out,
		   struct tb **tb_out)
{
	if (smi >= s->cfg.desc.num_sms || slot >= s->nslots)
		return -EINVAL;
	*sm_out = &s->sms[smi];
	*tb_out = (*sm_out)->slots[slot];
	return *tb_out ? 0 : -ENOENT;
}

/*
 * A per-block flag of @tb (*@flag) becomes @v: the SM's count of blocks
 * with it (*@count) and the tags of the block's warp slots (@tag) follow.
 */
static void tb_set_flag(struct sm *sm, const struct tb *tb, bool *flag, uint32_t *count,
			uint8_t *tag, bool v)
{
	if (*flag == v)
		return;
	*flag = v;
	if (v)
		(*count)++;
	else
		(*count)--;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		if (w->state != W_DONE && sm->ws[w->slot] == w)
			tag[w->slot] = v;
	}
}

int vgpu_sim_set_tb_priority(struct vgpu_sim *s, uint32_t smi, uint32_t slot, bool prio)
{
	struct sm *sm;
	struct tb *tb;
	int ret = slot_tb(s, smi, slot, &sm, &tb);

	if (!ret)
		tb_set_flag(sm, tb, &tb->prio, &sm->nprio, sm->wp, prio);
	return ret;
}

int vgpu_sim_set_tb_paused(struct vgpu_sim *s, uint32_t smi, uint32_t slot, bool paused)
{
	struct sm *sm;
	struct tb *tb;
	int ret = slot_tb(s, smi, slot, &sm, &tb);

	if (!ret)
		tb_set_flag(sm, tb, &tb->paused, &sm->npaused, sm->wpause, paused);
	return ret;
}

/* The block a command names: 0, -EINVAL bad sm or slot, -ENOENT not there. */
static int cmd_tb_check(const struct vgpu_sim *s, const struct vgpu_cmd *c)
{
	const struct tb *tb;

	if (c->sm >= s->cfg.desc.num_sms || c->slot >= s->nslots)
		return -EINVAL;
	tb = s->sms[c->sm].slots[c->slot];
	if (!tb || tb->job->id != c->job || tb->index != c->tb)
		return -ENOENT;
	return 0;
}

int vgpu_sim_tb_priority_cmd(struct vgpu_sim *s, const struct vgpu_cmd *c)
{
	int ret = cmd_tb_check(s, c);

	return ret ? ret : vgpu_sim_set_tb_priority(s, c->sm, c->slot, true);
}

int vgpu_sim_tb_paused_cmd(struct vgpu_sim *s, const struct vgpu_cmd *c)
{
	int ret = c->flags > 1 ? -EINVAL : cmd_tb_check(s, c);

	return ret ? ret : vgpu_sim_set_tb_paused(s, c->sm, c->slot, c->flags);
}

int vgpu_sim_set_sm_gated(struct vgpu_sim *s, uint32_t smi, bool gated)
{
	struct sm *sm;

	if (smi >= s->cfg.desc.num_sms)
		return -EINVAL;
	sm = &s->sms[smi];
	if (sm->gated == gated)
		return 0;
	sm->gated = gated;
	if (!gated)
		sm_gated_catch_up(sm, s->cycle);
	else if (!sm->ntbs && s->resident)
		sm->gated_since = s->cycle;
	return 0;
}

/*
 * A sampling period starts at the current cycle. Periods count from the
 * dispatch that makes an idle device busy, not from cycle 0: a kernel is
 * sampled at the same points whatever the device ran before it, so the
 * local device (a fresh clock) and vgpud (a clock that ran other work)
 * take the same DYNCTA decisions.
 */
static void sample_restart(struct vgpu_sim *s)
{
	s->sample_next = s->cycle + s->sample_period;
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		struct sm *sm = &s->sms[i];

		sm_catch_up(s, sm, s->cycle);
		sm_idle_catch_up(sm, s->cycle);
		sm->sampled = sm->t.st;
	}
}

void vgpu_sim_set_sampling(struct vgpu_sim *s, uint64_t period)
{
	s->sample_period = period;
	s->sample_next = 0;
	if (period)
		sample_restart(s);
}

/*
 * The end of a sampling period at the current cycle: one SM_SAMPLE per SM
 * with what its counters gained since the last (Kayiran et al. §4.1: C_idle
 * and C_mem; §4.2: active cycles). Counters the model keeps lazily are
 * brought up to the cycle first; that changes no total.
 */
static int sim_sample(struct vgpu_sim *s)
{
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
		struct sm *sm = &s->sms[i];
		const struct vgpu_sim_stats *st = &sm->t.st, *b = &sm->sampled;
		struct vgpu_evt e = { .type = VGPU_EVT_SM_SAMPLE, .cycle = s->cycle, .sm = i };
		int ret;

		sm_catch_up(s, sm, s->cycle);
		sm_idle_catch_up(sm, s->cycle);
		e.sample.c_idle = (uint32_t)(st->c_idle - b->c_idle);
		e.sample.c_mem = (uint32_t)(st->c_mem - b->c_mem);
		e.sample.active = (uint32_t)(st->issue_cycles - b->issue_cycles);
		e.sample.resident = (uint32_t)(st->cycles - b->cycles);
		e.sample.warp_insts = (uint32_t)(st->warp_insts - b->warp_insts);
		sm->sampled = *st;
		ret = post(s, &e);
		if (ret)
			return ret;
	}
	s->sample_next += s->sample_period;
	return 0;
}

void vgpu_sim_job_end(struct vgpu_sim *s, uint32_t id)
{
	struct job **pp, *j = NULL;

	for (pp = &s->jobs; *pp; pp = &(*pp)->next) {
		if ((*pp)->id == id) {
			j = *pp;
			*pp = j->next;
			break;
		}
	}
	if (!j)
		return;
	for (uint32_t i = 0; i < s->cfg.desc.num_sms && j->resident; i++) {
		struct sm *sm = &s->sms[i];

		for (uint32_t k = 0; k < s->nslots; k++)
			if (sm->slots[k] && sm->slots[k]->job == j)
				remove_tb(s, sm, sm->slots[k], s->cycle);
		sm_pend_update(s, sm);
		sm_update_next(s, sm);
	}
	/* events of the job not yet returned are dropped with it */
	if (s->nev) {
		uint32_t n = 0;

		for (uint32_t i = 0; i < s->nev; i++) {
			struct vgpu_evt *e = &s->evq[(s->evhead + i) % s->evcap];

			if (e->job != id)
				s->evq[(s->evhead + n++) % s->evcap] = *e;
		}
		s->nev = n;
	}
	free_job(j);
}

uint64_t vgpu_sim_cycle(const struct vgpu_sim *s)
{
	return s->cycle;
}

/* The pending times of inactive @tb's warps move by @delta (no warp slot). */
static void tb_shift(struct tb *tb, int64_t delta)
{
	/* LQ_WAIT (a queued load, sim_int.h) is no cycle: it stays */
	if (tb->vt_ready < LQ_WAIT)
		tb->vt_ready += (uint64_t)delta;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (w->ready < LQ_WAIT)
			w->ready += (uint64_t)delta;
		if (w->pred_rdy && w->pred_rdy < LQ_WAIT)
			w->pred_rdy += (uint64_t)delta;
		if (w->car_until)
			w->car_until += (uint64_t)delta;
		for (uint32_t r = 0; r <= tb->job->entry.regs_per_thread; r++)
			if (w->sb[r] && w->sb[r] >> 1 < LQ_WAIT)
				w->sb[r] += (uint64_t)(delta * 2);
	}
}

void vgpu_sim_set_cycle(struct vgpu_sim *s, uint64_t cycle)
{
	/* resident warps keep their distance to every pending time */
	int64_t delta = (int64_t)(cycle - s->cycle);

	if (!delta)
		return;
	for (uint32_t i = 0; i < s->cfg.desc.num_sms && s->resident; i++) {
		struct sm *sm = &s->sms[i];

		for (uint32_t k = 0; k < sm->nws; k++) {
			struct warp *w = sm->ws[k];

			if (!w)
				continue;
			if (w->ready < LQ_WAIT)
				w->ready += (uint64_t)delta;
			sim_wsync(sm, w);
			if (w->pred_rdy && w->pred_rdy < LQ_WAIT)
				w->pred_rdy += (uint64_t)delta;
			if (w->car_until)
				w->car_until += (uint64_t)delta;
			for (uint32_t r = 0; r <= w->tb->job->entry.regs_per_thread; r++)
				if (w->sb[r] && w->sb[r] >> 1 < LQ_WAIT)
					w->sb[r] += (uint64_t)(delta * 2);
		}
		for (uint32_t k = 0; k < VT_LQ_CAP; k++)
			if (sm->lrec[k].left)
				sm->lrec[k].done += (uint64_t)delta;
		for (uint32_t k = 0; k < s->nslots; k++) {
			struct tb *tb = sm->slots[k];

			if (!tb)
				continue;
			tb->start += (uint64_t)delta;
			if (tb->vt_saved > s->cycle)
				tb->vt_saved += (uint64_t)delta;
			if (tb->vt_resume > s->cycle)
				tb->vt_resume += (uint64_t)delta;
			if (tb->inactive)
				tb_shift(tb, delta);
			if (tb->switching) {
				tb->switch_at += (uint64_t)delta;
				tb->preempt_cycle += (uint64_t)delta;
			}
		}
		if (sm->pend != UINT64_MAX)
			sm->pend += (uint64_t)delta;
		if (sm->xfer_free > s->cycle)
			sm->xfer_free += (uint64_t)delta;
		if (sm->vt_port > s->cycle)
			sm->vt_port += (uint64_t)delta;
		if (sm->vt_next != UINT64_MAX)
			sm->vt_next += (uint64_t)delta;
		if (sm->t.idle_since != UINT64_MAX)
			sm->t.idle_since += (uint64_t)delta;
		sm->t.last += (uint64_t)delta;
	}
	for (struct job *j = s->jobs; j && s->resident; j = j->next) {
		if (j->resident && j->first != UINT64_MAX) {
			j->first += (uint64_t)delta;
			j->last += (uint64_t)delta;
		}
	}
	if (s->resident) {
		mem_shift(s, delta);
		for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
			sm_update_next(s, &s->sms[i]);
			lq_update(&s->sms[i], cycle);
		}
	}
	s->cycle = cycle;
}

bool vgpu_sim_busy(const struct vgpu_sim *s)
{
	return s->resident || s->nev;
}

void vgpu_sim_get_stats(const struct vgpu_sim *s, struct vgpu_sim_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++)
		stats_add(st, &s->sms[i].t.st);
	/* blocks of a bad job complete without an SM */
	st->tbs_done = s->stats.tbs_done;
}

int vgpu_sim_get_sm_stats(const struct vgpu_sim *s, uint32_t sm, struct vgpu_sim_stats *st)
{
	if (sm >= s->cfg.desc.num_sms)
		return -EINVAL;
	*st = s->sms[sm].t.st;
	return 0;
}

int vgpu_sim_get_job_stats(const struct vgpu_sim *s, uint32_t job, struct vgpu_sim_stats *st)
{
	for (const struct job *j = s->jobs; j; j = j->next) {
		if (j->id == job) {
			*st = j->st;
			st->cycles = j->first == UINT64_MAX ? 0 :
				     (j->resident ? s->cycle : j->last) - j->first;
			/* resident blocks add theirs to the job when they leave */
			for (uint32_t i = 0; i < s->cfg.desc.num_sms && j->resident; i++) {
				const struct sm *sm = &s->sms[i];

				for (uint32_t k = 0; k < s->nslots; k++) {
					const struct tb *tb = sm->slots[k];

					if (tb && tb->job == j)
						stats_add(st, &tb->job_st);
				}
			}
			return 0;
		}
	}
	return -ENOENT;
}

/* ------------------------------------------------------------------ */
/* the cycle loop */

static void release_barrier(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t now)
{
	(void)s;
	if (!tb->at_bar || tb->at_bar < tb->live)
		return;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (w->state == W_BAR) {
			w->state = W_RUN;
			if (w->ready <= now)
				w->ready = now + 1;
			sim_wsync(sm, w);
		}
	}
	tb->at_bar = 0;
}

/*
 * A virtual block after an instruction of one of its warps: when its
 * lowest iteration moved on, the warps waiting for it (W_VTB) try again;
 * a barrier is the barrier of the lowest iteration: it releases when every
 * live warp there has arrived, while warps of the next iteration that
 * reached a barrier wait for their siblings to come (seed 003 §4.4).
 */
static void vtb_update(struct vgpu_sim *s, struct sm *sm, struct tb *tb, uint64_t now)
{
	uint32_t m = vtb_min(tb), n = 0, nb = 0;

	(void)s;
	if (m != tb->vt_min) {
		tb->vt_min = m;
		for (uint32_t i = 0; i < tb->nwarps; i++) {
			struct warp *w = &tb->warps[i];

			if (w->state == W_VTB) {
				w->state = W_RUN;
				warp_prepare(sm, w, now);
			}
		}
	}
	if (!tb->at_bar)
		return;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		if (w->state != W_DONE && w->vt_iter == m) {
			n++;
			nb += w->state == W_BAR;
		}
	}
	if (!nb || nb < n)
		return;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (w->state == W_BAR && w->vt_iter == m) {
			w->state = W_RUN;
			if (w->ready <= now)
				w->ready = now + 1;
			sim_wsync(sm, w);
		}
	}
	tb->at_bar -= nb;
}

/*
 * Register banks and operand collectors (sub-core paper Sec. II, Table II:
 * 2 banks and 2 collector units per sub-core). The instruction takes the
 * collector unit free first; each source register is read from bank
 * (reg + warp slot) % banks, one read per bank per cycle. Returns how many
 * cycles later than with ideal operand reads the instruction can execute.
 * A fully connected SM (Sec. VI-B1: "each scheduler has access to a shared
 * pool of 8 CUs, and operands can be mapped to any of the 8 banks") has
 * every sub-core's banks and collector units in one pool.
 */
static uint64_t collect(struct vgpu_sim *s, struct sm *sm, uint32_t k, const struct warp *w,
			const struct itime *ti, uint64_t now)
{
	uint32_t nb = s->cfg.reg_banks, nc = s->cfg.collectors, ci = 0;
	uint64_t *bank = sm->t.bank_free + (size_t)k * (nb + 1);
	uint64_t *cu = sm->t.coll_free + (size_t)k * (nc + 1);
	uint64_t t, done;

	if (sm->fc) {
		bank = sm->t.bank_free;
		cu = sm->t.coll_free;
		nb *= sm->nsched;
		nc *= sm->nsched;
	}
	for (uint32_t i = 1; i < nc; i++)
		if (cu[i] < cu[ci])
			ci = i;
	t = cu[ci] > now ? cu[ci] : now;
	done = t + 1;
	for (unsigned int i = 0; i < ti->nsrc; i++) {
		uint32_t b = (ti->src[i] + w->slot) % nb;
		uint64_t rt = bank[b] > t ? bank[b] : t;

		bank[b] = rt + 1;
		if (rt + 1 > done)
			done = rt + 1;
	}
	sm->t.st.reg_reads += ti->nsrc;
	/* beyond the cycle an instruction without conflicts reads in */
	sm->t.st.reg_bank_conflicts += done - (t + 1);
	cu[ci] = done;
	if (sm->cstall) {
		uint64_t m = cu[0];

		for (uint32_t i = 1; i < nc; i++)
			if (cu[i] < m)
				m = cu[i];
		sm->t.cu_next[sim_pool(sm, k)] = m;
		sm_classify_again(sm);
	}
	return done - (now + 1);
}

/*
 * Takes a unit of type @f for @ii cycles from @now: scheduler @k's own, or
 * on a fully connected SM the shared one free first (its units at
 * fu_free[FU_N + q * FU_N + f]; fu_free[f] holds when the next is free).
 */
static inline void fu_take(struct sm *sm, uint32_t k, uint32_t f, uint64_t now, uint32_t ii)
{
	uint64_t *u = sm->t.fu_free + FU_N + f, m = UINT64_MAX;
	uint32_t best = 0;

	if (!sm->fc) {
		sm->t.fu_free[k * FU_N + f] = now + ii;
		return;
	}
	for (uint32_t q = 1; q < sm->nsched; q++)
		if (u[q * FU_N] < u[best * FU_N])
			best = q;
	u[best * FU_N] = now + ii;
	for (uint32_t q = 0; q < sm->nsched; q++)
		if (u[q * FU_N] < m)
			m = u[q * FU_N];
	sm->t.fu_free[f] = m;
}


/* Counts cycle @now of @sm and works out when it can issue next. */
static inline __attribute__((always_inline)) void sm_cycle_end(struct vgpu_sim *s,
							       struct sm *sm, uint64_t now)
{
	if (sm->issued) {
		sm->t.st.cycles++;
		sm->t.st.issue_cycles++;
		if (sm->kon && sm->nk == 1) {
			sm->kern[sm->klist[0]].alone_cycles++;
			sm->kern[sm->klist[0]].alone_issue++;
		}
	} else {
		/* nothing issued: the state is still the one just classified */
		if (!sm->classified)
			sm_classify(s, sm);
		stall_add(sm, 1);
	}
	sm->t.last = now;
	sm_update_next(s, sm);
	if (sm->next <= now)
		sm->next = now + 1;
	sm_next_sync(s, sm);
	if (sm->ninact)
		sm->vt_due = true;
}

/*
 * A block ended with @status (a fault, or its last warp exited). Its
 * warps stop issuing at once; the event, the counters and freeing its slot
 * touch state other SMs share, so they wait for the serial phase
 * (sm_phase_b()), in the order the blocks ended.
 */
static void tb_end(struct sm *sm, struct tb *tb, int status)
{
	if (tb->ended)
		return;
	tb->ended = true;
	tb->end_status = status;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		if (sm->ws[w->slot] == w)
			sim_wsum_clear(sm, w->slot);
	}
	sm->ended[sm->nended++] = tb;
}

/* Whether the next instruction of @w accesses memory other SMs may access. */
static bool next_is_global_mem(const struct warp *w)
{
	const struct job *j = w->tb->job;
	uint32_t pc = w->stack[w->sp - 1].pc;

	return pc < j->ncode && (j->tim[pc].flags & IT_GLOBAL);
}

/* Issues @w on scheduler @k at @now. */
static inline __attribute__((always_inline)) void issue(struct vgpu_sim *s, struct sm *sm,
							uint32_t k, struct warp *w, uint64_t now)
{
	struct tb *tb = w->tb;
	struct job *j = tb->job;
	const struct simt *top = &w->stack[w->sp - 1];
	uint32_t pc = top->pc, m = top->mask, nt;
	const struct itime *ti = pc < j->ncode ? &j->tim[pc] : NULL;
	uint64_t done, start = now;
	bool is_mem = false;
	int st;

	sm_classify_again(sm);
	if (ti && (j->code[pc].flags & DI_GE)) {
		uint32_t p = w->pred[j->code[pc].gp];

		m &= j->code[pc].flags & DI_GN ? ~p : p;
	}
	sm->mrec.mask = 0;
	st = sim_exec(s, sm, w, now);
	/* most warps run with every lane */
	nt = m == 0xffffffffu ? 32 : sim_popcount(m);
	sm->t.st.warp_insts++;
	sm->t.st.thread_insts += nt;
	tb->job_st.warp_insts++;
	tb->job_st.thread_insts += nt;
	if (st) {
		tb->fault_pc = pc;
		tb->fault_pc_set = st == -EFAULT || st == -EILSEQ;
		tb_end(sm, tb, st);
		return;
	}
	if (ti) {
		if (s->cfg.reg_banks && s->cfg.collectors && ti->nsrc)
			start += collect(s, sm, k, w, ti, now);
		if (ti->flags & IT_MEM) {
			done = mem_access(s, sm, w, start, &is_mem);
		} else {
			done = start + ti->lat;
			fu_take(sm, k, ti->fu, now, ti->ii);
		}
		for (unsigned int i = 0; i < ti->ndst; i++)
			w->sb[ti->dst[i]] = done << 1 | is_mem;
		if (ti->flags & IT_PRED_W)
			w->pred_rdy = done;
		if (sm->lq_cur)
			lq_hold(sm, w, ti, done);
	}
	if (s->sched->issued_last)
		sm->last[k] = w->slot;
	else
		s->sched->issued(s, sm, k, w, is_mem);
	if (w->state == W_DONE) {
		warp_release(s, sm, w);
		tb->live--;
		if (!tb->live) {
			tb_end(sm, tb, 0);
			return;
		}
	} else {
		warp_prepare(sm, w, now);
	}
	if (j->virt)
		vtb_update(s, sm, tb, now);
	else
		release_barrier(s, sm, tb, now);
}

/*
 * Parallel simulation. A cycle of the SMs due at @now runs in two phases:
 *
 *   A  (sm_phase_a(), every SM on its own, on any thread): the warp
 *      schedulers pick, and every instruction issues and executes
 *      (registers, predicates, the SIMT stack, barriers, functional units,
 *      the scoreboard, the L1I, shared memory, parameters and constants)
 *      but loads, stores and atomics of global, local or generic addresses.
 *      Such a "global" instruction only reserves the SM's LD/ST unit for
 *      this cycle (so no other scheduler picks one) and is left to phase B,
 *      as are the L2 accesses of L1I misses and the end of blocks (events,
 *      counters of jobs and the device, residency).
 *
 *   B  (sm_phase_b(), the calling thread, SMs in index order): the global
 *      instruction executes (device memory, atomics) and is timed through
 *      the L1D, L2 and DRAM; the L1I misses go to L2; ended blocks post
 *      their events and leave; then the SM works out when it can issue
 *      next.
 *
 * Phase A writes only the SM's own state and its blocks' (a block's job
 * counters too, added to the job when it leaves), and reads nothing phase
 * A of another SM writes, so which thread runs it, and when, cannot change
 * anything; phase B is one fixed sequence. One thread runs both phases the
 * same way, so every thread count gives the same events, cycles, counters
 * and memory.
 */
static inline __attribute__((always_inline)) void sm_phase_a(struct vgpu_sim *s,
							     struct sm *sm, uint64_t now)
{
	/* schedulers with a warp slot (an issue changes neither count) */
	uint32_t ns = s->cfg.schedulers_per_sm < sm->nws ? s->cfg.schedulers_per_sm : sm->nws;

	sm->issued = false;
	sm->classified = false;
	/* the cycles skipped since the last visit: no warp could issue */
	if (now > sm->t.last + 1) {
		sm_classify(s, sm);
		sm->classified = true;
		stall_add(sm, now - sm->t.last - 1);
	}
	for (uint32_t k = 0; k < ns; k++) {
		struct warp *w;

		if (sm->snext[sim_pool(sm, k)] > now)
			continue;
		/* kernel-aware: two or more kernels on the SM (sched.c) */
		w = sm->ka ? ka_pick(s, sm, k, now) :
		    sm->npaused ? pause_pick(s, sm, k, now) : s->sched->pick(s, sm, k, now);
		if (!w)
			continue;
		sm->issued = true;
		if (next_is_global_mem(w)) {
			/* at most one a cycle: mem_access() sets when the unit is free */
			sm->t.ldst_free = now + 1;
			sm_classify_again(sm);
			sm->mem_warp = w;
			sm->mem_sched = k;
			continue;
		}
		issue(s, sm, k, w, now);
	}
	sm->serial = sm->mem_warp || sm->nfetch || sm->nended;
	if (!sm->serial)
		sm_cycle_end(s, sm, now);
}

static int sm_phase_b(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	struct warp *w = sm->mem_warp;
	int ret = 0;

	sm->serial = false;
	sm->mem_warp = NULL;
	if (w && !w->tb->ended)
		issue(s, sm, sm->mem_sched, w, now);
	/* a load may have queued, or brought the line a queued one waits for */
	lq_update(sm, now);
	fetches_done(s, sm, now);
	for (uint32_t i = 0; i < sm->nended; i++) {
		struct tb *tb = sm->ended[i];
		int r = finish_tb(s, sm, tb, tb->end_status, now);

		if (r && !ret)
			ret = r;
	}
	sm->nended = 0;
	sm_cycle_end(s, sm, now);
	return ret;
}

/* Phase A of share @tid (pool.c): the SMs i with i % threads == tid. */
static void phase_a_thread(void *arg, uint32_t tid)
{
	struct vgpu_sim *s = arg;
	uint64_t now = s->now;

	for (uint32_t i = tid; i < s->cfg.desc.num_sms; i += s->nthreads) {
		struct sm *sm = &s->sms[i];

		if (sm->ntbs && sm->next <= now)
			sm_phase_a(s, sm, now);
	}
}

/*
 * Simulates cycle @now of the @ndue SMs in @due (their indices, in index
 * order: those with blocks whose next cycle is @now); 0 or a negative
 * error. @pend: some SM has a context switch ending by @now; @vt: some SM
 * has inactive blocks or a Virtual Thread pass due (the passes that have
 * nothing to do are skipped).
 */
static int cycle(struct vgpu_sim *s, uint64_t now, bool pend, bool vt, const uint32_t *due,
		 uint32_t ndue)
{
	uint32_t nsm = s->cfg.desc.num_sms;
	int ret = 0;

	s->now = now;
	if (s->pool && ndue >= 2) {
		pool_run(s->pool);
	} else {
		/* one SM is not worth waking the threads */
		for (uint32_t i = 0; i < ndue; i++)
			sm_phase_a(s, &s->sms[due[i]], now);
	}
	/* only an SM that ran phase A has work for phase B */
	for (uint32_t i = 0; i < ndue; i++) {
		if (s->sms[due[i]].serial) {
			int r = sm_phase_b(s, &s->sms[due[i]], now);

			if (r && !ret)
				ret = r;
		}
	}
	/* Virtual Thread's load queues, SMs in index order */
	for (uint32_t i = 0; s->vt && i < nsm; i++) {
		struct sm *sm = &s->sms[i];

		if (sm->nlq && sm->lq_next <= now)
			lq_serve(s, sm, now);
	}
	/* context switches end after the cycle's work, SMs in index order */
	for (uint32_t i = 0; pend && i < nsm; i++) {
		if (s->sms[i].pend <= now) {
			int r = switches_done(s, &s->sms[i], now);

			if (r && !ret)
				ret = r;
		}
	}
	/* then Virtual Thread swaps, SMs in index order */
	for (uint32_t i = 0; vt && i < nsm; i++) {
		struct sm *sm = &s->sms[i];

		if (sm->ninact && (sm->vt_due || sm->vt_next <= now))
			vt_pass(s, sm, now);
		sm->vt_due = false;
	}
	return ret;
}

int vgpu_sim_step(struct vgpu_sim *s, uint64_t limit, struct vgpu_evt *out, unsigned int max)
{
	uint32_t nsm = s->cfg.desc.num_sms;

	if (s->nev)
		return drain(s, out, max);
	while (s->resident) {
		uint64_t t = UINT64_MAX, pend = UINT64_MAX, tn = UINT64_MAX;
		uint32_t ndue = 0;
		bool vt = false;
		int ret;

		/* the SMs with blocks whose next cycle is the earliest, in index order */
		for (uint32_t i = 0; i < nsm; i++) {
			if (s->snx[i] <= tn) {
				if (s->snx[i] < tn) {
					tn = s->snx[i];
					ndue = 0;
				}
				s->due[ndue++] = i;
			}
		}
		/* an SM without blocks has UINT64_MAX: due only with one that has */
		if (tn == UINT64_MAX)
			ndue = 0;
		for (uint32_t i = 0; s->any_pend && i < nsm; i++)
			if (s->sms[i].pend < pend)
				pend = s->sms[i].pend;
		/* only Virtual Thread queues loads and has inactive blocks */
		for (uint32_t i = 0; s->vt && i < nsm; i++) {
			const struct sm *sm = &s->sms[i];

			if (sm->nlq && sm->lq_next < t)
				t = sm->lq_next;
			/* Virtual Thread: a block became ready, or a place is free */
			if (sm->ninact) {
				vt = true;
				if (sm->vt_next < t)
					t = sm->vt_next;
				if (sm->vt_due && s->cycle + 1 < t)
					t = s->cycle + 1;
			} else if (sm->vt_due) {
				vt = true;
			}
		}
		if (tn < t)
			t = tn;
		if (pend < t)
			t = pend;
		if (t <= s->cycle)
			t = s->cycle + 1;
		if (s->sample_period && s->resident) {
			/* a sampling boundary: time stops there, SMs busy or not */
			if (s->sample_next <= s->cycle)
				s->sample_next = s->cycle + s->sample_period;
			if (s->sample_next < t && s->sample_next <= limit) {
				s->cycle = s->sample_next;
				ret = sim_sample(s);
				if (ret)
					return ret;
				return drain(s, out, max);
			}
		}
		if (t == UINT64_MAX || t > limit) {
			/* nothing before the limit (a stuck block never advances time) */
			if (limit != UINT64_MAX && limit > s->cycle)
				s->cycle = limit;
			return 0;
		}
		if (t < tn) {
			ndue = 0;
		} else if (t > tn) {
			/* time moved past the earliest SM's next cycle: all due then */
			ndue = 0;
			for (uint32_t i = 0; i < nsm; i++)
				if (s->sms[i].ntbs && s->sms[i].next <= t)
					s->due[ndue++] = i;
		}
		ret = cycle(s, t, pend <= t, vt, s->due, ndue);
		s->cycle = t;
		if (ret)
			return ret;
		if (s->sample_period && t == s->sample_next) {
			ret = sim_sample(s);
			if (ret)
				return ret;
		}
		if (s->nev)
			return drain(s, out, max);
	}
	return 0;
}
