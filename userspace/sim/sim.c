// SPDX-License-Identifier: MIT
/*
 * sim.c - the GPU model of vgpu_sim.h: presets, jobs, thread-block
 * dispatch, the warp schedulers and the cycle loop.
 *
 * Timing: each SM has schedulers_per_sm warp schedulers; warp slot k belongs
 * to scheduler k % schedulers_per_sm. Every cycle each scheduler issues at
 * most one instruction, from the first ready warp after the one it issued
 * last (loose round robin). An issued instruction executes at once
 * (functionally) and its warp is ready again after the instruction's latency.
 * Cycles in which no SM can issue are skipped: time jumps to the next cycle
 * at which some warp is ready.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* ------------------------------------------------------------------ */
/* presets */

static const struct preset {
	const char *name;
	struct vgpu_sim_config cfg;
} presets[] = {
	{
		/* Fermi GTX480 as in the thesis, Table 3.1 (ELF): 15 SMs. */
		"fermi-gtx480",
		{
			.desc = {
				.num_sms = 15, .warp_size = 32, .max_threads_per_sm = 1536,
				.max_tbs_per_sm = 8, .regs_per_sm = 32768,
				.shared_per_sm = 48 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 63, .max_shared_per_tb = 48 * 1024,
				.core_clock_khz = 1400000, .reg_alloc_unit = 2,
				.shared_alloc_unit = 128,
			},
			.schedulers_per_sm = 2, .alu_latency = 8, .sfu_latency = 20,
			.mem_latency = 400, .shared_latency = 30,
		},
	},
	{
		/* Fermi as in Table 4.1 (Chimera): 30 SMs. */
		"fermi-30sm",
		{
			.desc = {
				.num_sms = 30, .warp_size = 32, .max_threads_per_sm = 1536,
				.max_tbs_per_sm = 8, .regs_per_sm = 32768,
				.shared_per_sm = 48 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 63, .max_shared_per_tb = 48 * 1024,
				.core_clock_khz = 1400000, .reg_alloc_unit = 2,
				.shared_alloc_unit = 128,
			},
			.schedulers_per_sm = 2, .alu_latency = 8, .sfu_latency = 20,
			.mem_latency = 400, .shared_latency = 30,
		},
	},
	{
		/* Maxwell GTX980 as in Table 5.2 (GPU Maestro). */
		"maxwell-gtx980",
		{
			.desc = {
				.num_sms = 16, .warp_size = 32, .max_threads_per_sm = 2048,
				.max_tbs_per_sm = 32, .regs_per_sm = 65536,
				.shared_per_sm = 96 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 255, .max_shared_per_tb = 48 * 1024,
				.core_clock_khz = 1126000, .reg_alloc_unit = 8,
				.shared_alloc_unit = 256,
			},
			.schedulers_per_sm = 4, .alu_latency = 6, .sfu_latency = 15,
			.mem_latency = 350, .shared_latency = 24,
		},
	},
	{
		/* Volta V100-like: 80 SMs, 4 sub-cores. */
		"volta-v100",
		{
			.desc = {
				.num_sms = 80, .warp_size = 32, .max_threads_per_sm = 2048,
				.max_tbs_per_sm = 32, .regs_per_sm = 65536,
				.shared_per_sm = 96 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 255, .max_shared_per_tb = 96 * 1024,
				.core_clock_khz = 1530000, .reg_alloc_unit = 8,
				.shared_alloc_unit = 256,
			},
			.schedulers_per_sm = 4, .alu_latency = 4, .sfu_latency = 12,
			.mem_latency = 300, .shared_latency = 20,
		},
	},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

int vgpu_sim_preset(const char *name, struct vgpu_sim_config *cfg)
{
	for (size_t i = 0; i < NPRESETS; i++) {
		if (!strcmp(presets[i].name, name)) {
			*cfg = presets[i].cfg;
			memset(cfg->desc.name, 0, sizeof(cfg->desc.name));
			memcpy(cfg->desc.name, presets[i].name, strlen(presets[i].name));
			return 0;
		}
	}
	return -ENOENT;
}

const char *const *vgpu_sim_preset_names(void)
{
	static const char *names[NPRESETS + 1];

	for (size_t i = 0; i < NPRESETS; i++)
		names[i] = presets[i].name;
	names[NPRESETS] = NULL;
	return names;
}

/* ------------------------------------------------------------------ */
/* creation */

static int config_check(const struct vgpu_sim_config *c)
{
	const struct vgpu_device_desc *d = &c->desc;

	if (d->num_sms < 1 || d->num_sms > 1024 || d->warp_size != 32 ||
	    d->max_tbs_per_sm < 1 || d->max_tbs_per_sm > 64 ||
	    d->max_threads_per_sm < 32 || d->max_threads_per_sm > 65536 ||
	    d->max_threads_per_tb < 1 || d->max_threads_per_tb > d->max_threads_per_sm ||
	    d->max_regs_per_thread > VGPU_NUM_REGS || d->shared_per_sm > (64u << 20) ||
	    d->max_shared_per_tb > d->shared_per_sm ||
	    c->schedulers_per_sm < 1 || c->schedulers_per_sm > 64)
		return -EINVAL;
	return 0;
}

struct vgpu_sim *vgpu_sim_create(const struct vgpu_sim_config *cfg, uint8_t *vram,
				 uint64_t vram_size)
{
	struct vgpu_sim *s;
	uint32_t nsm;

	if (config_check(cfg))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->vram = vram;
	s->vram_size = vram ? vram_size : 0;
	s->lat[LAT_ALU] = cfg->alu_latency ? cfg->alu_latency : 1;
	s->lat[LAT_SFU] = cfg->sfu_latency ? cfg->sfu_latency : 1;
	s->lat[LAT_MEM] = cfg->mem_latency ? cfg->mem_latency : 1;
	s->lat[LAT_SHARED] = cfg->shared_latency ? cfg->shared_latency : 1;
	nsm = cfg->desc.num_sms;
	s->sms = calloc(nsm, sizeof(*s->sms));
	if (!s->sms)
		goto fail;
	for (uint32_t i = 0; i < nsm; i++) {
		struct sm *sm = &s->sms[i];

		sm->id = i;
		sm->nws = cfg->desc.max_threads_per_sm / 32;
		sm->next = UINT64_MAX;
		sm->shared = calloc(1, cfg->desc.shared_per_sm ? cfg->desc.shared_per_sm : 1);
		sm->slots = calloc(cfg->desc.max_tbs_per_sm, sizeof(*sm->slots));
		sm->ws = calloc(sm->nws, sizeof(*sm->ws));
		sm->rr = calloc(cfg->schedulers_per_sm, sizeof(*sm->rr));
		if (!sm->shared || !sm->slots || !sm->ws || !sm->rr)
			goto fail;
		for (uint32_t k = 0; k < cfg->schedulers_per_sm; k++)
			sm->rr[k] = UINT32_MAX;
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
	free(tb);
}

static void free_job(struct job *j)
{
	free(j->code);
	free(j->pool);
	free(j->params);
	free(j->ranges);
	free(j);
}

void vgpu_sim_destroy(struct vgpu_sim *s)
{
	if (!s)
		return;
	if (s->sms) {
		for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++) {
			struct sm *sm = &s->sms[i];

			if (sm->slots)
				for (uint32_t k = 0; k < s->cfg.desc.max_tbs_per_sm; k++)
					if (sm->slots[k])
						free_tb(sm->slots[k]);
			free(sm->shared);
			free(sm->slots);
			free(sm->ws);
			free(sm->rr);
		}
		free(s->sms);
	}
	while (s->jobs) {
		struct job *j = s->jobs;

		s->jobs = j->next;
		free_job(j);
	}
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
	ret = sim_decode(s, j, s->vram + d->program_addr, d->program_size);
	if (ret)
		return ret;
	if (j->entry.param_size != d->params_size ||
	    j->entry.regs_per_thread > dev->max_regs_per_thread ||
	    (uint64_t)j->entry.shared_static + d->dynamic_shared > d->shared_bytes ||
	    j->entry.local_per_thread > (1u << 20) ||
	    (j->entry.max_threads_per_tb && threads > j->entry.max_threads_per_tb))
		return -EINVAL;
	return 0;
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
	ret = load_job(s, j, desc_addr);
	if (ret == -ENOMEM) {
		free_job(j);
		return ret;
	}
	j->status = ret;
	j->next = s->jobs;
	s->jobs = j;
	return 0;
}

/* ------------------------------------------------------------------ */
/* thread blocks */

static void sm_update_next(struct sm *sm)
{
	uint64_t next = UINT64_MAX;

	for (uint32_t k = 0; k < sm->nws; k++) {
		struct warp *w = sm->ws[k];

		if (w && w->state == W_RUN && w->ready < next)
			next = w->ready;
	}
	sm->next = next;
}

/* Removes a block from its SM (no event). */
static void remove_tb(struct vgpu_sim *s, struct sm *sm, struct tb *tb)
{
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (sm->ws[w->slot] == w)
			sm->ws[w->slot] = NULL;
	}
	sm->slots[tb->slot] = NULL;
	sm->threads -= tb->job->threads;
	sm->ntbs--;
	tb->job->resident--;
	s->resident--;
	free_tb(tb);
	/*
	 * An idle device forgets where its warp schedulers stood, so that
	 * the same launches on an idle device take the same cycles every
	 * time (the driver resets its SM round robin likewise).
	 */
	if (!s->resident) {
		for (uint32_t i = 0; i < s->cfg.desc.num_sms; i++)
			for (uint32_t k = 0; k < s->cfg.schedulers_per_sm; k++)
				s->sms[i].rr[k] = UINT32_MAX;
	}
}

static int finish_tb(struct vgpu_sim *s, struct sm *sm, struct tb *tb, int status,
		     uint64_t now)
{
	struct vgpu_evt e = {
		.type = VGPU_EVT_TB_DONE,
		.flags = tb->crossed_boundary ? VGPU_EVT_F_CROSSED_BOUNDARY : 0,
		.job = tb->job->id,
		.cycle = now,
		.tb = tb->index,
		.sm = sm->id,
		.slot = tb->slot,
		.status = status,
		.warp_insts = tb->warp_insts,
		.tb_cycles = now - tb->start,
		.fault_addr = status == -EFAULT ? tb->fault_addr : 0,
	};

	remove_tb(s, sm, tb);
	s->stats.tbs_done++;
	return post(s, &e);
}

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

int vgpu_sim_dispatch(struct vgpu_sim *s, const struct vgpu_cmd *cmd)
{
	const struct vgpu_device_desc *dev = &s->cfg.desc;
	struct job *j = find_job(s, cmd->job);
	struct sm *sm;
	struct tb *tb;
	uint64_t ntbs, regs;
	uint32_t free_ws = 0;

	if (!j)
		return -ENOENT;
	if (cmd->sm >= dev->num_sms || cmd->slot >= dev->max_tbs_per_sm)
		return -EINVAL;
	sm = &s->sms[cmd->sm];
	if (sm->slots[cmd->slot])
		return -EINVAL;
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
	    sm->threads + j->threads > dev->max_threads_per_sm)
		return -EINVAL;
	for (uint32_t k = 0; k < dev->max_tbs_per_sm; k++) {
		struct tb *o = sm->slots[k];

		if (o && (overlaps(o->reg_base, o->reg_count, cmd->reg_base, regs) ||
			  overlaps(o->shared_base, o->shared_bytes, cmd->shared_base,
				   j->desc.shared_bytes)))
			return -EINVAL;
	}
	for (uint32_t k = 0; k < sm->nws; k++)
		free_ws += !sm->ws[k];
	if (free_ws < j->nwarps)
		return -EINVAL;

	tb = calloc(1, sizeof(*tb) + sizeof(struct warp) * j->nwarps);
	if (!tb)
		return -ENOMEM;
	tb->regs = calloc((size_t)j->nwarps * (j->entry.regs_per_thread + 1) * 32, 4);
	tb->local = calloc((size_t)j->nwarps * 32 * j->entry.local_per_thread + 1, 1);
	if (!tb->regs || !tb->local) {
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
	for (uint32_t i = 0, k = 0; i < j->nwarps; i++) {
		struct warp *w = &tb->warps[i];
		uint32_t lanes = j->threads - i * 32;

		while (sm->ws[k])
			k++;
		w->tb = tb;
		w->regs = tb->regs + (size_t)i * (j->entry.regs_per_thread + 1) * 32;
		w->idx = i;
		w->slot = k;
		w->ready = s->cycle + 1;
		w->state = W_RUN;
		w->sp = 1;
		w->stack[0] = (struct simt){ 0, NO_PC, lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1 };
		sm->ws[k] = w;
	}
	sm->slots[cmd->slot] = tb;
	sm->threads += j->threads;
	sm->ntbs++;
	j->resident++;
	s->resident++;
	if (s->cycle + 1 < sm->next)
		sm->next = s->cycle + 1;
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

		for (uint32_t k = 0; k < s->cfg.desc.max_tbs_per_sm; k++)
			if (sm->slots[k] && sm->slots[k]->job == j)
				remove_tb(s, sm, sm->slots[k]);
		sm_update_next(sm);
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

void vgpu_sim_set_cycle(struct vgpu_sim *s, uint64_t cycle)
{
	/* resident warps keep their distance to their ready time */
	int64_t delta = (int64_t)(cycle - s->cycle);

	for (uint32_t i = 0; i < s->cfg.desc.num_sms && s->resident; i++) {
		struct sm *sm = &s->sms[i];

		for (uint32_t k = 0; k < sm->nws; k++)
			if (sm->ws[k])
				sm->ws[k]->ready += (uint64_t)delta;
		for (uint32_t k = 0; k < s->cfg.desc.max_tbs_per_sm; k++)
			if (sm->slots[k])
				sm->slots[k]->start += (uint64_t)delta;
		sm_update_next(sm);
	}
	s->cycle = cycle;
}

bool vgpu_sim_busy(const struct vgpu_sim *s)
{
	return s->resident || s->nev;
}

void vgpu_sim_get_stats(const struct vgpu_sim *s, struct vgpu_sim_stats *st)
{
	*st = s->stats;
}

/* ------------------------------------------------------------------ */
/* the cycle loop */

static void release_barrier(struct vgpu_sim *s, struct tb *tb, uint64_t now)
{
	if (!tb->at_bar || tb->at_bar < tb->live)
		return;
	for (uint32_t i = 0; i < tb->nwarps; i++) {
		struct warp *w = &tb->warps[i];

		if (w->state == W_BAR) {
			w->state = W_RUN;
			w->ready = now + s->lat[LAT_ALU];
		}
	}
	tb->at_bar = 0;
}

/* Issues from every scheduler of @sm at cycle @now. */
static int sm_cycle(struct vgpu_sim *s, struct sm *sm, uint64_t now)
{
	uint32_t ns = s->cfg.schedulers_per_sm;
	int ret;

	for (uint32_t k = 0; k < ns && k < sm->nws; k++) {
		uint32_t cnt = (sm->nws - k + ns - 1) / ns;
		uint32_t start = sm->rr[k] == UINT32_MAX ? 0 : (sm->rr[k] - k) / ns + 1;

		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t slot = k + ((start + i) % cnt) * ns;
			struct warp *w = sm->ws[slot];
			struct tb *tb;
			int st;

			if (!w || w->state != W_RUN || w->ready > now)
				continue;
			tb = w->tb;
			sm->rr[k] = slot;
			st = sim_exec(s, sm, w, now);
			if (st) {
				ret = finish_tb(s, sm, tb, st, now);
				if (ret)
					return ret;
				break;
			}
			if (w->state == W_DONE) {
				sm->ws[slot] = NULL;
				tb->live--;
				if (!tb->live) {
					ret = finish_tb(s, sm, tb, 0, now);
					if (ret)
						return ret;
					break;
				}
			}
			release_barrier(s, tb, now);
			break;
		}
	}
	sm_update_next(sm);
	if (sm->next <= now)
		sm->next = now + 1;
	return 0;
}

int vgpu_sim_step(struct vgpu_sim *s, uint64_t limit, struct vgpu_evt *out, unsigned int max)
{
	uint32_t nsm = s->cfg.desc.num_sms;

	if (s->nev)
		return drain(s, out, max);
	while (s->resident) {
		uint64_t t = UINT64_MAX;
		int ret;

		for (uint32_t i = 0; i < nsm; i++)
			if (s->sms[i].next < t)
				t = s->sms[i].next;
		if (t <= s->cycle)
			t = s->cycle + 1;
		if (t == UINT64_MAX || t > limit) {
			/* nothing before the limit (a stuck block never advances time) */
			if (limit != UINT64_MAX && limit > s->cycle)
				s->cycle = limit;
			return 0;
		}
		for (uint32_t i = 0; i < nsm; i++) {
			struct sm *sm = &s->sms[i];

			if (sm->next <= t && sm->ntbs) {
				ret = sm_cycle(s, sm, t);
				if (ret)
					return ret;
			}
		}
		s->cycle = t;
		if (s->nev)
			return drain(s, out, max);
	}
	return 0;
}
