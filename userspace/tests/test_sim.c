// SPDX-License-Identifier: MIT
/*
 * test_sim.c - host tests of the GPU model (userspace/sim). Every model
 * is a local device (libvgpu's vgpu_device_open_local_vram()): device
 * memory comes from the driver's allocator, and a kernel that is run to
 * check its results or its cycles goes through vgpu.ko's own launch
 * validation, job descriptor and scheduler with the FCFS policy. Tests of
 * the model's command interface (bad descriptors, DISPATCH checks,
 * PREEMPT / RESTORE, the preemption stress, kernel-aware warp scheduling
 * with blocks placed by hand) give the model commands themselves, on a
 * descriptor, occupancy and register / shared-memory layout the driver's
 * code worked out (vgpu_local_job_desc()).
 *
 *   test_sim              runs the tests
 *   test_sim --bench      also measures the model's speed (thread-insts/s)
 *   test_sim --bench-only only that
 *   test_sim --threads N  simulates on N host threads (config "threads")
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* readlink, open_memstream */
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_program.h>

#include "compiler/vgpu_compile.h"
#include "sim/vgpu_sim.h"
#include "tap.h"
#include "vgpu.h"

/* ------------------------------------------------------------------ */
/* environment: a local device, its memory and its model */

struct env {
	struct vgpu_device *dev;
	uint8_t *vram;			/* the device memory */
	uint64_t size;
	struct vgpu_sim *sim;		/* the device's model */
	struct vgpu_sim_config cfg;
	struct vgpu_bo **bos;		/* every buffer dalloc() made, in order */
	uint32_t nbos, bocap;
	struct vgpu_program **progs;	/* every program loaded */
	uint32_t nprogs, progcap;
	uint32_t next_job;		/* raw jobs' ids (the model's job table) */
	uint64_t events;		/* events the model posted */
	int fault_status;		/* first failed block's status since run() began */
	uint64_t fault_addr;		/* and its fault address */
	uint64_t crossed;		/* TB_DONE events of blocks past their boundary */
};

/* host threads of the models env_init() makes ("threads"; --threads N) */
static uint32_t sim_threads;

/*
 * What a model did, to compare the same tests simulated on different
 * numbers of host threads: with a capture active, every event the model
 * posts is logged and env_fini() takes a snapshot of the model's end state.
 */
struct snapshot {
	uint64_t cycle;
	uint64_t vram_hash;		/* the buffers' contents */
	uint32_t events;		/* events logged until then */
	uint32_t nsm;
	struct vgpu_sim_stats st;
	struct vgpu_sim_stats *sm_st;	/* per SM */
};

struct capture {
	struct vgpu_evt *ev;
	uint32_t nev, evcap;
	struct snapshot *snap;
	uint32_t nsnap, snapcap;
};

static struct capture *capture;

static void capture_event(const struct vgpu_evt *ev)
{
	struct capture *c = capture;

	if (!c)
		return;
	if (c->nev == c->evcap) {
		c->evcap = c->evcap ? 2 * c->evcap : 1024;
		c->ev = realloc(c->ev, c->evcap * sizeof(*c->ev));
		if (!c->ev)
			exit(2);
	}
	c->ev[c->nev++] = *ev;
}

static uint64_t hash_bytes(const uint8_t *p, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull, w;
	uint64_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void capture_snapshot(const struct env *e)
{
	struct capture *c = capture;
	struct snapshot *sn;

	if (!c || !e->sim)
		return;
	if (c->nsnap == c->snapcap) {
		c->snapcap = c->snapcap ? 2 * c->snapcap : 64;
		c->snap = realloc(c->snap, c->snapcap * sizeof(*c->snap));
		if (!c->snap)
			exit(2);
	}
	sn = &c->snap[c->nsnap++];
	sn->cycle = vgpu_sim_cycle(e->sim);
	sn->vram_hash = 0;
	for (uint32_t i = 0; i < e->nbos; i++)
		sn->vram_hash = sn->vram_hash * 31 +
				hash_bytes(e->bos[i]->map, e->bos[i]->size);
	sn->events = c->nev;
	sn->nsm = e->cfg.desc.num_sms;
	vgpu_sim_get_stats(e->sim, &sn->st);
	sn->sm_st = calloc(sn->nsm, sizeof(*sn->sm_st));
	if (!sn->sm_st)
		exit(2);
	for (uint32_t i = 0; i < sn->nsm; i++)
		vgpu_sim_get_sm_stats(e->sim, i, &sn->sm_st[i]);
}

static void capture_free(struct capture *c)
{
	for (uint32_t i = 0; i < c->nsnap; i++)
		free(c->snap[i].sm_st);
	free(c->snap);
	free(c->ev);
	memset(c, 0, sizeof(*c));
}

/* Every event the model posts, whoever drives it (the local device or a test). */
static void env_event(void *ctx, const struct vgpu_evt *ev)
{
	struct env *e = ctx;

	capture_event(ev);
	e->events++;
	if (ev->type == VGPU_EVT_TB_DONE && (ev->flags & VGPU_EVT_F_CROSSED_BOUNDARY))
		e->crossed++;
	if (ev->status && !e->fault_status) {
		e->fault_status = ev->status;
		e->fault_addr = ev->fault_addr;
	}
}

/*
 * A local device of @size bytes of memory whose hardware is @preset with
 * the "key", "value" overrides @kv (NULL-terminated, or NULL).
 */
static int env_init_kv(struct env *e, const char *preset, const char *const *kv,
		       uint64_t size)
{
	int r;

	memset(e, 0, sizeof(*e));
	e->next_job = 1;
	if (vgpu_sim_preset(preset, &e->cfg))
		return -1;
	for (; kv && *kv; kv += 2)
		if (vgpu_sim_config_set(&e->cfg, kv[0], kv[1]))
			return -1;
	e->cfg.threads = sim_threads;
	r = vgpu_device_open_local_vram(&e->cfg, size, &e->dev);
	if (r) {
		printf("# local device: %d\n", r);
		return -1;
	}
	e->sim = vgpu_local_sim(e->dev);
	e->vram = vgpu_local_vram(e->dev, &e->size);
	return vgpu_local_set_evt_hook(e->dev, env_event, e);
}

static int env_init(struct env *e, const char *preset, uint64_t size)
{
	return env_init_kv(e, preset, NULL, size);
}

static void env_fini(struct env *e)
{
	if (!e->dev)
		return;
	capture_snapshot(e);
	for (uint32_t i = 0; i < e->nbos; i++)
		vgpu_bo_destroy(e->bos[i]);
	for (uint32_t i = 0; i < e->nprogs; i++)
		vgpu_program_destroy(e->progs[i]);
	free(e->bos);
	free(e->progs);
	vgpu_device_close(e->dev);
	memset(e, 0, sizeof(*e));
}

/* A new buffer of @size bytes (zeroed by the driver): its device address. */
static uint64_t dalloc(struct env *e, uint64_t size)
{
	struct vgpu_bo *bo;
	int r;

	if (e->nbos == e->bocap) {
		e->bocap = e->bocap ? 2 * e->bocap : 16;
		e->bos = realloc(e->bos, e->bocap * sizeof(*e->bos));
		if (!e->bos)
			exit(2);
	}
	r = vgpu_bo_create(e->dev, size, &bo);
	if (r) {
		printf("# buffer of %llu bytes: %d\n", (unsigned long long)size, r);
		exit(2);
	}
	e->bos[e->nbos++] = bo;
	return bo->addr;
}

/* The buffer at device address @addr (its start). */
static struct vgpu_bo *bo_at(const struct env *e, uint64_t addr)
{
	for (uint32_t i = 0; i < e->nbos; i++)
		if (e->bos[i]->addr == addr)
			return e->bos[i];
	return NULL;
}

struct prog {
	struct vgpu_program *vp;	/* loaded by the driver */
	uint32_t size;
	void *image;
};

/* Compiles @ptx with VGPU_COMPILE_* @opts into device memory. */
static int load_ptx_opts(struct env *e, const char *ptx, size_t len, unsigned int opts,
			 struct prog *p)
{
	char err[256];
	size_t size;
	int r = vgpu_compile_ptx_opts(ptx, len, opts, &p->image, &size, err, sizeof(err));

	if (r) {
		printf("# compile: %s\n", err);
		return r;
	}
	p->size = (uint32_t)size;
	if (e->nprogs == e->progcap) {
		e->progcap = e->progcap ? 2 * e->progcap : 4;
		e->progs = realloc(e->progs, e->progcap * sizeof(*e->progs));
		if (!e->progs)
			exit(2);
	}
	r = vgpu_program_create_image(e->dev, p->image, size, &p->vp);
	if (r) {
		printf("# program load: %d\n", r);
		return r;
	}
	e->progs[e->nprogs++] = p->vp;
	return 0;
}

static int load_ptx_text(struct env *e, const char *ptx, size_t len, struct prog *p)
{
	return load_ptx_opts(e, ptx, len, 0, p);
}

static int load_ptx_file(struct env *e, const char *name, struct prog *p)
{
	char rel[256];
	size_t len;
	char *src;

	snprintf(rel, sizeof(rel), "userspace/workloads/%s", name);
	src = read_src(rel, &len);
	int r;

	if (!src)
		return -ENOENT;
	r = load_ptx_text(e, src, len, p);
	free(src);
	return r;
}

static const struct vgpu_program_entry *entry_of(const struct prog *p, const char *name)
{
	uint32_t i;

	if (vgpu_program_find_entry(p->vp, name, &i)) {
		printf("# no entry %s\n", name);
		return NULL;
	}
	return vgpu_program_entry(p->vp, i);
}

struct launch {
	const struct prog *prog;
	const char *entry;
	uint32_t grid[3], block[3];
	uint32_t dynamic_shared;
	const void *params;
	uint32_t params_size;
	const struct vgpu_mem_range *ranges;	/* each a whole buffer of dalloc() */
	uint32_t nranges;
	uint32_t max_tbs_per_sm;	/* raw launches (pstress_run()): 0, as many as fit */
	uint32_t num_tbs;		/* raw launches: blocks dispatched; 0, the driver's */
};

struct result {
	int status;		/* first non-zero TB status */
	uint64_t fault_addr;
	uint64_t cycles;	/* first dispatch to last completion */
	uint64_t warp_insts;
	uint32_t tbs;
	uint32_t events;
};

/* @L as libvgpu launches it: its buffers (*@bos, freed by the caller) and parameters. */
static int to_vgpu_launch(const struct env *e, const struct launch *L, struct vgpu_params *prm,
			  struct vgpu_bo ***bos, struct vgpu_launch *vl)
{
	uint32_t entry;

	memset(vl, 0, sizeof(*vl));
	if (vgpu_program_find_entry(L->prog->vp, L->entry, &entry)) {
		printf("# no entry %s\n", L->entry);
		return -1;
	}
	if (L->params_size > sizeof(prm->bytes)) {
		printf("# %u bytes of parameters\n", L->params_size);
		return -1;
	}
	vgpu_params_init(prm);
	memcpy(prm->bytes, L->params, L->params_size);
	prm->size = L->params_size;
	*bos = calloc(L->nranges + 1, sizeof(**bos));
	if (!*bos)
		return -1;
	for (uint32_t i = 0; i < L->nranges; i++) {
		struct vgpu_bo *bo = bo_at(e, L->ranges[i].start);

		if (!bo || L->ranges[i].size > bo->size) {
			printf("# range %u (0x%llx, %llu bytes) is not a buffer\n", i,
			       (unsigned long long)L->ranges[i].start,
			       (unsigned long long)L->ranges[i].size);
			free(*bos);
			return -1;
		}
		(*bos)[i] = bo;
	}
	vl->entry = entry;
	for (int i = 0; i < 3; i++) {
		vl->grid[i] = L->grid[i] ? L->grid[i] : 1;
		vl->block[i] = L->block[i] ? L->block[i] : 1;
	}
	vl->dynamic_shared = L->dynamic_shared;
	vl->params = prm;
	vl->bos = *bos;
	vl->num_bos = L->nranges;
	return 0;
}

/* Runs one job to completion on the local device: the driver places and schedules it. */
static int run(struct env *e, const struct launch *L, struct result *res)
{
	struct vgpu_job_result jr;
	struct vgpu_launch vl;
	struct vgpu_params prm;
	struct vgpu_bo **bos;
	uint64_t ev0 = e->events;
	int r;

	memset(res, 0, sizeof(*res));
	if (to_vgpu_launch(e, L, &prm, &bos, &vl))
		return -1;
	e->fault_status = 0;
	r = vgpu_run(e->dev, L->prog->vp, &vl, &jr);
	free(bos);
	if (r) {
		printf("# run: %d\n", r);
		return r;
	}
	res->status = jr.error;
	if (jr.error && jr.error != e->fault_status) {
		printf("# job error %d, first block status %d\n", jr.error, e->fault_status);
		return -1;
	}
	res->fault_addr = e->fault_addr;
	res->cycles = jr.cycles;
	res->warp_insts = jr.warp_insts;
	res->tbs = (uint32_t)jr.tbs_done;
	res->events = (uint32_t)(e->events - ev0);
	return 0;
}

/*
 * Lays out @L as the driver would for job @job (new id when 0) without
 * scheduling it, for tests that dispatch its blocks themselves.
 */
static int raw_layout(struct env *e, const struct launch *L, uint32_t job,
		      struct vgpu_local_layout *lay)
{
	struct vgpu_launch vl;
	struct vgpu_params prm;
	struct vgpu_bo **bos;
	int r;

	if (to_vgpu_launch(e, L, &prm, &bos, &vl))
		return -1;
	r = vgpu_local_job_desc(e->dev, L->prog->vp, &vl, job, lay);
	free(bos);
	if (r)
		printf("# job descriptor: %d\n", r);
	return r;
}
static uint64_t rng_state = 0x1234567;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------ */
/* tests */

static int t_presets(void)
{
	struct vgpu_sim_config c;
	const char *const *names = vgpu_sim_preset_names();
	int nf = 0, nm = 0;

	CHECK(vgpu_sim_preset("fermi-gtx480", &c) == 0, "fermi preset");
	CHECK(c.desc.num_sms == 15 && c.desc.max_threads_per_sm == 1536 &&
	      c.desc.max_tbs_per_sm == 8 && c.desc.regs_per_sm == 32768 &&
	      c.desc.shared_per_sm == 48 * 1024 && c.desc.core_clock_khz == 1400000 &&
	      c.schedulers_per_sm == 2 && !strcmp(c.desc.name, "fermi-gtx480"), "fermi values");
	CHECK(vgpu_sim_preset("maxwell-gtx980", &c) == 0, "maxwell preset");
	CHECK(c.desc.num_sms == 16 && c.desc.max_threads_per_sm == 2048 &&
	      c.desc.max_tbs_per_sm == 32 && c.desc.regs_per_sm == 65536 &&
	      c.desc.shared_per_sm == 96 * 1024 && c.desc.core_clock_khz == 1126000 &&
	      c.schedulers_per_sm == 4, "maxwell values");
	CHECK(vgpu_sim_preset("kepler-like", &c) == 0, "kepler preset");
	CHECK(c.desc.num_sms == 15 && c.desc.max_threads_per_sm == 2048 &&
	      c.desc.max_tbs_per_sm == 16 && c.desc.regs_per_sm == 65536 &&
	      c.desc.shared_per_sm == 48 * 1024 && c.schedulers_per_sm == 2,
	      "kepler values (Virtual Thread, Sec. II)");
	CHECK(vgpu_sim_preset("no-such-gpu", &c) == -ENOENT, "unknown preset");
	CHECK(!strcmp(names[0], "fermi-gtx480"), "fermi is the first (default) preset");
	for (int i = 0; names[i]; i++) {
		nf += !strcmp(names[i], "fermi-gtx480");
		nm += !strcmp(names[i], "maxwell-gtx980");
		CHECK(vgpu_sim_preset(names[i], &c) == 0, "listed preset %s loads", names[i]);
	}
	CHECK(nf == 1 && nm == 1, "names listed");
	return 0;
}

struct saxpy_params {
	uint32_t n;
	float a;
	uint64_t x, y;
};

static int saxpy_run(const char *preset, const char *entry, uint32_t n, uint32_t grid,
		     struct result *res)
{
	struct env e;
	struct prog p;
	struct saxpy_params prm;
	float *x, *y, *ref;
	int r = -1;

	if (env_init(&e, preset, 64u << 20) || load_ptx_file(&e, "saxpy.ptx", &p)) {
		env_fini(&e);
		return -1;
	}
	prm.n = n;
	prm.a = 2.5f;
	prm.x = dalloc(&e, n * 4);
	prm.y = dalloc(&e, n * 4);
	x = (float *)(e.vram + prm.x);
	y = (float *)(e.vram + prm.y);
	ref = malloc(n * 4);
	for (uint32_t i = 0; i < n; i++) {
		x[i] = (float)(rnd() % 100000) / 77.0f - 300.0f;
		y[i] = (float)(rnd() % 100000) / 13.0f;
		ref[i] = fmaf(x[i], prm.a, y[i]);
	}
	{
		struct vgpu_mem_range rg[2] = { { prm.x, n * 4 }, { prm.y, n * 4 } };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { grid ? grid : (n + 255) / 256 },
			.block = { 256 }, .params = &prm, .params_size = 24, .ranges = rg,
			.nranges = 2,
		};

		if (run(&e, &L, res) || res->status) {
			printf("# run failed: status %d\n", res->status);
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (memcmp(&y[i], &ref[i], 4)) {
			printf("# y[%u] = %.9g, expected %.9g\n", i, y[i], ref[i]);
			goto out;
		}
	}
	r = 0;
out:
	free(ref);
	free(p.image);
	env_fini(&e);
	return r;
}

static int t_saxpy(void)
{
	struct result r1, r2;

	CHECK(saxpy_run("fermi-gtx480", "saxpy", 10000, 0, &r1) == 0, "saxpy");
	CHECK(r1.tbs == 40 && r1.warp_insts > 0 && r1.cycles > 0, "counts");
	CHECK(saxpy_run("fermi-gtx480", "saxpy_stride", 10001, 7, &r2) == 0, "saxpy_stride");
	CHECK(saxpy_run("maxwell-gtx980", "saxpy", 4097, 0, &r2) == 0, "saxpy on maxwell");
	return 0;
}

static int t_deterministic(void)
{
	struct result r1, r2;

	rng_state = 42;
	CHECK(saxpy_run("fermi-gtx480", "saxpy_stride", 20000, 9, &r1) == 0, "run 1");
	rng_state = 42;
	CHECK(saxpy_run("fermi-gtx480", "saxpy_stride", 20000, 9, &r2) == 0, "run 2");
	CHECK(r1.cycles == r2.cycles && r1.warp_insts == r2.warp_insts,
	      "cycles %llu/%llu warp_insts %llu/%llu", (unsigned long long)r1.cycles,
	      (unsigned long long)r2.cycles, (unsigned long long)r1.warp_insts,
	      (unsigned long long)r2.warp_insts);
	return 0;
}

struct red_params {
	uint64_t in, out;
	uint32_t n;
};

/* Drops the file's buffers and programs and opens a new file: the device is unused in between. */
static int env_reopen(struct env *e)
{
	for (uint32_t i = 0; i < e->nbos; i++)
		vgpu_bo_destroy(e->bos[i]);
	for (uint32_t i = 0; i < e->nprogs; i++)
		vgpu_program_destroy(e->progs[i]);
	e->nbos = e->nprogs = 0;
	return vgpu_local_reopen(e->dev);
}

/* reduce.ptx and its input of @n words, from random state @seed. */
static int reduce_setup(struct env *e, struct prog *p, struct red_params *prm, uint32_t n,
			uint32_t grid, uint64_t seed)
{
	if (load_ptx_file(e, "reduce.ptx", p))
		return -1;
	prm->n = n;
	prm->in = dalloc(e, n * 4);
	prm->out = dalloc(e, grid * 4);
	rng_state = seed;
	for (uint32_t i = 0; i < n; i++)
		((uint32_t *)(e->vram + prm->in))[i] = (uint32_t)rnd();
	return 0;
}

/*
 * The same job twice on one device and model: once the device was unused
 * in between (the program that ran it closed its file, the next opened
 * one: the driver's fresh start, with RESET for the model), the second run
 * must take exactly the cycles of the first (no scheduler state may carry
 * over); while the file stays open, the memory system stays warm.
 */
static int t_idle_reset(void)
{
	struct env e;
	struct prog p = { 0 }, p2 = { 0 };
	struct red_params prm;
	struct result r1, r2, other, warm;
	uint32_t n = 200000, grid = (n + 511) / 512;
	uint64_t seed = rng_state;
	int r = -1;

	if (env_init(&e, "fermi-gtx480", 16u << 20) ||
	    reduce_setup(&e, &p, &prm, n, grid, seed)) {
		env_fini(&e);
		free(p.image);
		return -1;
	}
	{
		struct vgpu_mem_range rg[2] = { { prm.in, n * 4 }, { prm.out, grid * 4 } };
		struct launch L = {
			.prog = &p, .entry = "reduce", .grid = { grid }, .block = { 256 },
			.dynamic_shared = 256 * 4, .params = &prm, .params_size = 20,
			.ranges = rg, .nranges = 2,
		};
		/* A one-block job in between leaves SM 0's schedulers elsewhere. */
		struct launch O = L;

		O.grid[0] = 1;
		O.block[0] = 96;
		O.dynamic_shared = 96 * 4;
		if (run(&e, &L, &r1) || r1.status || run(&e, &O, &other) || other.status) {
			printf("# run failed\n");
			goto out;
		}
		/* Without a reset the memory system stays warm, as on a GPU. */
		if (run(&e, &L, &warm) || warm.status) {
			printf("# run failed\n");
			goto out;
		}
		/* the same program again, its buffers at the same addresses */
		if (env_reopen(&e) || reduce_setup(&e, &p2, &prm, n, grid, seed) ||
		    rg[0].start != prm.in || rg[1].start != prm.out) {
			printf("# second program: buffers at 0x%llx, 0x%llx\n",
			       (unsigned long long)prm.in, (unsigned long long)prm.out);
			goto out;
		}
		L.prog = &p2;
		if (run(&e, &L, &r2) || r2.status) {
			printf("# run failed\n");
			goto out;
		}
	}
	if (r1.cycles != r2.cycles || r1.warp_insts != r2.warp_insts) {
		printf("# cycles %llu then %llu, warp_insts %llu then %llu\n",
		       (unsigned long long)r1.cycles, (unsigned long long)r2.cycles,
		       (unsigned long long)r1.warp_insts, (unsigned long long)r2.warp_insts);
		goto out;
	}
	if (warm.warp_insts != r1.warp_insts || warm.cycles >= r1.cycles) {
		printf("# warm run: %llu cycles, cold %llu\n", (unsigned long long)warm.cycles,
		       (unsigned long long)r1.cycles);
		goto out;
	}
	r = 0;
out:
	free(p.image);
	free(p2.image);
	env_fini(&e);
	return r;
}

static int reduce_case(const char *entry, uint32_t n, uint32_t block, bool dynamic)
{
	struct env e;
	struct prog p;
	struct red_params prm;
	struct result res;
	uint32_t per = dynamic ? 2 * block : block, grid = (n + per - 1) / per, *in, *out;
	int r = -1;

	if (env_init(&e, "fermi-gtx480", 32u << 20) || load_ptx_file(&e, "reduce.ptx", &p)) {
		env_fini(&e);
		return -1;
	}
	prm.n = n;
	prm.in = dalloc(&e, n * 4);
	prm.out = dalloc(&e, grid * 4);
	in = (uint32_t *)(e.vram + prm.in);
	out = (uint32_t *)(e.vram + prm.out);
	for (uint32_t i = 0; i < n; i++)
		in[i] = (uint32_t)rnd();
	{
		struct vgpu_mem_range rg[2] = { { prm.in, n * 4 }, { prm.out, grid * 4 } };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { grid }, .block = { block },
			.dynamic_shared = dynamic ? block * 4 : 0, .params = &prm,
			.params_size = 20, .ranges = rg, .nranges = 2,
		};

		if (run(&e, &L, &res) || res.status) {
			printf("# run failed: status %d\n", res.status);
			goto out;
		}
	}
	for (uint32_t b = 0; b < grid; b++) {
		uint32_t sum = 0;

		for (uint32_t i = b * per; i < (b + 1) * per && i < n; i++)
			sum += in[i];
		if (out[b] != sum) {
			printf("# out[%u] = %u, expected %u\n", b, out[b], sum);
			goto out;
		}
	}
	r = 0;
out:
	free(p.image);
	env_fini(&e);
	return r;
}

static int t_reduce(void)
{
	CHECK(reduce_case("reduce", 100000, 256, true) == 0, "reduce 256");
	CHECK(reduce_case("reduce", 5000, 128, true) == 0, "reduce 128");
	CHECK(reduce_case("reduce", 70000, 1024, true) == 0, "reduce 1024");
	CHECK(reduce_case("reduce_static", 30001, 256, false) == 0, "reduce_static");
	return 0;
}

static int histogram_case(const char *entry, uint32_t n, uint32_t grid, uint32_t block)
{
	struct env e;
	struct prog p;
	struct red_params prm;
	struct result res;
	uint32_t ref[256] = { 0 }, *bins;
	uint8_t *in;
	int r = -1;

	if (env_init(&e, "fermi-gtx480", 32u << 20) || load_ptx_file(&e, "histogram.ptx", &p)) {
		env_fini(&e);
		return -1;
	}
	prm.n = n;
	prm.in = dalloc(&e, n);
	prm.out = dalloc(&e, 256 * 4);
	in = e.vram + prm.in;
	bins = (uint32_t *)(e.vram + prm.out);
	for (uint32_t i = 0; i < n; i++) {
		/* skewed, so that lanes of a warp collide */
		in[i] = (uint8_t)(rnd() % 3 ? rnd() % 16 : rnd());
		ref[in[i]]++;
	}
	{
		struct vgpu_mem_range rg[2] = { { prm.in, n }, { prm.out, 256 * 4 } };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { grid }, .block = { block },
			.params = &prm, .params_size = 20, .ranges = rg, .nranges = 2,
		};

		if (run(&e, &L, &res) || res.status) {
			printf("# run failed: status %d\n", res.status);
			goto out;
		}
	}
	for (int b = 0; b < 256; b++) {
		if (bins[b] != ref[b]) {
			printf("# bin %d = %u, expected %u\n", b, bins[b], ref[b]);
			goto out;
		}
	}
	r = 0;
out:
	free(p.image);
	env_fini(&e);
	return r;
}

static int t_histogram(void)
{
	CHECK(histogram_case("histogram", 50000, 30, 256) == 0, "histogram");
	CHECK(histogram_case("histogram_shared", 50000, 30, 256) == 0, "histogram_shared");
	CHECK(histogram_case("histogram_shared", 12345, 7, 96) == 0, "histogram_shared 96");
	return 0;
}

/*
 * Runs inline PTX with a u64 output pointer as the only parameter: @skip
 * bytes into a buffer of @out_bytes, the launch's only one (with @skip,
 * another buffer follows it).
 */
static int run_inline_at(const char *ptx, const char *entry, uint32_t grid, uint32_t block,
			 uint32_t out_bytes, uint32_t skip, uint32_t **out, struct result *res,
			 struct env *e)
{
	struct prog p;
	uint64_t buf, prm;

	*out = NULL;
	if (env_init(e, "fermi-gtx480", 16u << 20) || load_ptx_text(e, ptx, strlen(ptx), &p)) {
		env_fini(e);
		return -1;
	}
	buf = dalloc(e, out_bytes);
	if (skip)
		dalloc(e, 4096);	/* what lies beyond: another buffer */
	prm = buf + skip;
	*out = (uint32_t *)(e->vram + prm);
	{
		struct vgpu_mem_range rg = { buf, out_bytes };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { grid }, .block = { block },
			.params = &prm, .params_size = 8, .ranges = &rg, .nranges = 1,
		};
		int r = run(e, &L, res);

		free(p.image);
		return r;
	}
}

static int run_inline(const char *ptx, const char *entry, uint32_t grid, uint32_t block,
		      uint32_t out_bytes, uint32_t **out, struct result *res, struct env *e)
{
	return run_inline_at(ptx, entry, grid, block, out_bytes, 0, out, res, e);
}

/*
 * Divergence: lanes take three ways through an if/else-if chain and a loop
 * with a per-lane trip count; after the join, activemask must be full again.
 */
static const char div_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry div(.param .u64 out)\n{\n"
	"	.reg .pred %p<4>;\n	.reg .b32 %r<12>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	cvta.to.global.u64 %rd1, %rd1;\n"
	"	mov.u32 %r1, %tid.x;\n"
	"	rem.u32 %r2, %r1, 3;\n"
	"	setp.eq.s32 %p1, %r2, 0;\n"
	"	@%p1 bra $A;\n"
	"	setp.eq.s32 %p2, %r2, 1;\n"
	"	@%p2 bra $B;\n"
	"	mov.u32 %r3, 300;\n"
	"	bra.uni $J;\n"
	"$A:\n	mov.u32 %r3, 100;\n	bra.uni $J;\n"
	"$B:\n	mov.u32 %r3, 200;\n"
	"$J:\n"
	"	rem.u32 %r4, %r1, 7;\n"
	"	mov.u32 %r5, 0;\n	mov.u32 %r6, 0;\n"
	"$L:\n"
	"	setp.ge.u32 %p3, %r5, %r4;\n"
	"	@%p3 bra $E;\n"
	"	add.s32 %r6, %r6, %r5;\n	add.s32 %r5, %r5, 1;\n"
	"	bra.uni $L;\n"
	"$E:\n"
	"	add.s32 %r7, %r3, %r6;\n"
	"	activemask.b32 %r8;\n"
	"	mul.wide.u32 %rd2, %r1, 8;\n"
	"	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.v2.u32 [%rd3], {%r7, %r8};\n"
	"	ret;\n}\n";

static int t_divergence(void)
{
	struct env e;
	struct result res;
	uint32_t *out;
	int r = run_inline(div_ptx, "div", 2, 64, 128 * 8, &out, &res, &e);

	if (!r && res.status)
		r = res.status;
	for (uint32_t t = 0; t < 64 && !r; t++) {
		uint32_t k = t % 7, want = (t % 3 == 0 ? 100 : t % 3 == 1 ? 200 : 300) +
					   k * (k - 1) / 2;

		if (out[2 * t] != want || out[2 * t + 1] != 0xffffffffu) {
			printf("#   thread %u: %u/%08x, expected %u/ffffffff\n", t, out[2 * t],
			       out[2 * t + 1], want);
			r = -1;
		}
	}
	env_fini(&e);
	return r;
}

/* Barrier: every thread reads what a thread of another warp wrote. */
static const char bar_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry bar(.param .u64 out)\n{\n"
	"	.reg .b32 %r<10>;\n	.reg .b64 %rd<4>;\n"
	"	.shared .align 4 .b8 buf[512];\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ntid.x;\n"
	"	mul.lo.s32 %r3, %r1, 3;\n	add.s32 %r3, %r3, 7;\n"
	"	shl.b32 %r4, %r1, 2;\n	mov.u32 %r5, buf;\n	add.s32 %r6, %r5, %r4;\n"
	"	st.shared.u32 [%r6], %r3;\n"
	"	bar.sync 0;\n"
	"	add.s32 %r7, %r1, 37;\n	rem.u32 %r7, %r7, %r2;\n"
	"	shl.b32 %r7, %r7, 2;\n	add.s32 %r7, %r5, %r7;\n"
	"	ld.shared.u32 %r8, [%r7];\n"
	"	barrier.sync 0;\n"
	"	st.shared.u32 [%r6], 0;\n"
	"	mul.wide.u32 %rd2, %r1, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r8;\n"
	"	ret;\n}\n";

/*
 * The descriptor of job @job of bar_ptx, laid out by the driver: @grid
 * blocks of 128 threads, one 4096-byte output buffer at @out (its only
 * range and parameter). Returns the descriptor's address, 0 on failure.
 */
static uint64_t bar_job_desc(struct env *e, const struct prog *p, uint32_t job,
			     uint32_t grid, uint64_t out)
{
	struct vgpu_mem_range rg = { out, 4096 };
	struct launch L = {
		.prog = p, .entry = "bar", .grid = { grid }, .block = { 128 },
		.params = &out, .params_size = 8, .ranges = &rg, .nranges = 1,
	};
	struct vgpu_local_layout lay;

	return raw_layout(e, &L, job, &lay) ? 0 : lay.desc_addr;
}

static int t_barrier(void)
{
	struct env e;
	struct result res;
	uint32_t *out;
	int r = run_inline(bar_ptx, "bar", 1, 128, 128 * 4, &out, &res, &e);

	if (!r && res.status)
		r = res.status;
	for (uint32_t t = 0; t < 128 && !r; t++) {
		uint32_t want = ((t + 37) % 128) * 3 + 7;

		if (out[t] != want) {
			printf("#   thread %u: %u, expected %u\n", t, out[t], want);
			r = -1;
		}
	}
	env_fini(&e);
	return r;
}

/*
 * A 32-bit shared address may be "negative" until its offset brings it back:
 * nvcc emits [%r - 4 + 4]-style pairs. The sum wraps at 2^32, as in PTX.
 */
static const char wrap_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry wrap(.param .u64 out)\n{\n"
	"	.reg .b32 %r<10>;\n	.reg .b64 %rd<4>;\n"
	"	.shared .align 4 .b8 buf[256];\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	shl.b32 %r2, %r1, 2;\n"
	"	mov.u32 %r3, buf;\n	add.s32 %r4, %r3, %r2;\n"
	"	add.s32 %r5, %r4, -64;\n"
	"	add.s32 %r6, %r1, 1000;\n"
	"	st.shared.u32 [%r5+64], %r6;\n"
	"	bar.sync 0;\n"
	"	ld.shared.u32 %r7, [%r5+64];\n"
	"	mul.wide.u32 %rd2, %r1, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r7;\n"
	"	ret;\n}\n";

static int t_shared_wrap(void)
{
	struct env e;
	struct result res;
	uint32_t *out;
	int r = run_inline(wrap_ptx, "wrap", 1, 32, 32 * 4, &out, &res, &e);

	if (!r && res.status) {
		printf("#   status %d at 0x%llx\n", res.status,
		       (unsigned long long)res.fault_addr);
		r = res.status;
	}
	for (uint32_t t = 0; t < 32 && !r; t++) {
		if (out[t] != 1000 + t) {
			printf("#   thread %u: %u, expected %u\n", t, out[t], 1000 + t);
			r = -1;
		}
	}
	env_fini(&e);
	return r;
}

/* Shared and global atomics of several kinds. */
static const char atom_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry atoms(.param .u64 out)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<20>;\n	.reg .b64 %rd<4>;\n"
	"	.shared .align 4 .b8 s[16];\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	mov.u32 %r1, %tid.x;\n"
	"	setp.ne.s32 %p1, %r1, 0;\n"
	"	@%p1 bra $W;\n"
	"	st.shared.u32 [s+4], 1000;\n"
	"	st.shared.u32 [s+8], -5;\n"
	"$W:\n	bar.sync 0;\n"
	"	atom.shared.add.u32 %r2, [s], 1;\n"
	"	atom.shared.min.u32 %r3, [s+4], %r1;\n"
	"	atom.shared.max.s32 %r4, [s+8], %r1;\n"
	"	atom.global.inc.u32 %r5, [%rd1+16], 9;\n"
	"	atom.global.exch.b32 %r6, [%rd1+20], %r1;\n"
	"	add.s32 %r7, %r1, 1;\n"
	"	atom.global.cas.b32 %r8, [%rd1+24], %r1, %r7;\n"
	"	red.global.add.u32 [%rd1+28], %r1;\n"
	"	atom.global.add.u64 %rd2, [%rd1+32], 3;\n"
	"	bar.sync 0;\n"
	"	@%p1 bra $X;\n"
	"	ld.shared.u32 %r9, [s];\n	st.global.u32 [%rd1], %r9;\n"
	"	ld.shared.u32 %r9, [s+4];\n	st.global.u32 [%rd1+4], %r9;\n"
	"	ld.shared.u32 %r9, [s+8];\n	st.global.u32 [%rd1+8], %r9;\n"
	"$X:\n	ret;\n}\n";

static int t_atomics(void)
{
	struct env e;
	struct result res;
	uint32_t *out;
	uint64_t sum64;
	int r = run_inline(atom_ptx, "atoms", 1, 100, 64, &out, &res, &e);

	if (!r && res.status)
		r = res.status;
	if (!r) {
		uint32_t sum = 0;

		for (uint32_t t = 0; t < 100; t++)
			sum += t;
		memcpy(&sum64, &out[8], 8);
		/* inc wraps at 9: 100 increments from 0 -> 100 % 10; the cas chain
		 * advances while warps come in lane order: at least warp 0's 32 */
		if (out[0] != 100 || out[1] != 0 || out[2] != 99 || out[4] != 100 % 10 ||
		    out[5] >= 100 || out[6] < 32 || out[6] > 100 || out[7] != sum || sum64 != 300) {
			printf("#   %u %u %d %u %u %u %u %llu\n", out[0], out[1], (int)out[2],
			       out[4], out[5], out[6], out[7], (unsigned long long)sum64);
			r = -1;
		}
	}
	env_fini(&e);
	return r;
}

/* A store past the end of the job's range faults the block, writes nothing. */
static const char oob_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry oob(.param .u64 out)\n{\n"
	"	.reg .b32 %r<4>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	mov.u32 %r1, %tid.x;\n"
	"	mul.wide.u32 %rd2, %r1, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r1;\n"
	"	ret;\n}\n";

static int t_fault(void)
{
	struct env e;
	struct result res;
	uint32_t *out;
	uint64_t base, end;
	int r;

	/*
	 * The buffer (a page) ends 40 of the 64 threads' words after the
	 * pointer; the next page, where the rest would go, is another buffer
	 * that the job does not name.
	 */
	r = run_inline_at(oob_ptx, "oob", 1, 64, 4096, 4096 - 40 * 4, &out, &res, &e);
	if (!r) {
		base = (uint64_t)((uint8_t *)out - e.vram);
		end = base + 40 * 4;
		if (!bo_at(&e, end)) {
			printf("#   no buffer right after the launch's\n");
			r = -1;
		}
	}
	if (!r && res.status != -EFAULT) {
		printf("#   status %d, expected -EFAULT\n", res.status);
		r = -1;
	}
	if (!r && res.fault_addr != end) {
		printf("#   fault_addr 0x%llx, expected 0x%llx\n",
		       (unsigned long long)res.fault_addr, (unsigned long long)end);
		r = -1;
	}
	for (uint32_t t = 32; t < 64 && !r; t++) {
		if (out[t]) {
			printf("#   word %u written\n", t);
			r = -1;
		}
	}
	for (uint32_t t = 0; t < 32 && !r; t++)
		if (out[t] != t)
			r = -1;
	env_fini(&e);
	return r;
}

/* A job whose program or descriptor is bad ends each block at once. */
static int t_bad_job(void)
{
	struct env e;
	struct vgpu_job_desc d = { 0 };
	struct vgpu_evt ev[4];
	uint64_t da, pa;
	struct prog p;
	int n;

	CHECK(env_init(&e, "fermi-gtx480", 8u << 20) == 0, "env");
	CHECK(load_ptx_text(&e, oob_ptx, strlen(oob_ptx), &p) == 0, "compile");
	/* 1: garbage program */
	pa = dalloc(&e, 256);
	memset(e.vram + pa, 0x5a, 256);
	d.abi_version = VGPU_BACKEND_ABI_VERSION;
	d.job = 7;
	d.program_addr = pa;
	d.program_size = 256;
	d.grid[0] = d.grid[1] = d.grid[2] = 1;
	d.block[0] = d.block[1] = d.block[2] = 1;
	d.params_offset = sizeof(d);
	d.params_size = 8;
	da = dalloc(&e, sizeof(d) + 8);
	memcpy(e.vram + da, &d, sizeof(d));
	CHECK(vgpu_sim_job_begin(e.sim, 7, da) == 0, "job_begin");
	CHECK(vgpu_sim_job_begin(e.sim, 7, da) == -EEXIST, "job id in use");
	{
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 7, .tb = 0, .sm = 3, .slot = 1 };

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
	}
	CHECK(vgpu_sim_busy(e.sim), "busy with a pending event");
	n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 4);
	CHECK(n == 1 && ev[0].status == -EINVAL && ev[0].sm == 3 && ev[0].slot == 1 &&
	      ev[0].job == 7, "-EINVAL event (n %d status %d)", n, n > 0 ? ev[0].status : 0);
	vgpu_sim_job_end(e.sim, 7);
	/* 2: valid header, illegal instruction */
	pa = dalloc(&e, p.size);
	memcpy(e.vram + pa, p.image, p.size);
	{
		const struct vgpu_program_header *h = p.image;
		uint64_t bad = 0x7f;	/* opcode 127 */

		memcpy(e.vram + pa + h->code_offset + 8, &bad, 8);
	}
	d.job = 8;
	d.program_addr = pa;
	d.program_size = p.size;
	memcpy(e.vram + da, &d, sizeof(d));
	CHECK(vgpu_sim_job_begin(e.sim, 8, da) == 0, "job_begin");
	{
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 8, .tb = 0, .sm = 0, .slot = 0 };

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
		c.job = 99;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -ENOENT, "unknown job");
	}
	n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 4);
	CHECK(n == 1 && ev[0].status == -EILSEQ, "-EILSEQ event");
	vgpu_sim_job_end(e.sim, 8);
	/* 3: descriptor outside vram */
	CHECK(vgpu_sim_job_begin(e.sim, 9, e.size - 8) == 0, "job_begin");
	{
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 9, .tb = 0, .sm = 0, .slot = 0 };

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
	}
	n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 4);
	CHECK(n == 1 && ev[0].status == -EINVAL, "-EINVAL for a bad descriptor");
	vgpu_sim_job_end(e.sim, 9);
	CHECK(!vgpu_sim_busy(e.sim), "idle");
	free(p.image);
	env_fini(&e);
	return 0;
}

/* DISPATCH checks and step() semantics. */
static int t_dispatch_checks(void)
{
	struct env e;
	struct vgpu_evt ev[4];
	struct prog p;
	uint64_t da, out;
	int n;

	CHECK(env_init(&e, "fermi-gtx480", 8u << 20) == 0, "env");
	CHECK(load_ptx_text(&e, bar_ptx, strlen(bar_ptx), &p) == 0, "compile");
	out = dalloc(&e, 4096);
	da = bar_job_desc(&e, &p, 1, 4, out);
	CHECK(vgpu_sim_step(e.sim, 1000, ev, 4) == 0 && vgpu_sim_cycle(e.sim) == 0,
	      "idle: time does not move");
	CHECK(vgpu_sim_job_begin(e.sim, 1, da) == 0, "job_begin");
	{
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 1, .tb = 0, .sm = 0, .slot = 0 };

		c.shared_base = 48 * 1024 - 256;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "shared range beyond the SM");
		c.shared_base = 0;
		c.reg_base = 32768 - 64;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "registers beyond the SM");
		c.reg_base = 0;
		c.sm = 15;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "no such SM");
		c.sm = 0;
		c.slot = 8;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "no such slot");
		c.slot = 0;
		c.tb = 4;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "no such block");
		c.tb = 0;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "slot in use");
		c.slot = 1;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "overlapping shared range");
		c.shared_base = 512;
		c.reg_base = 0;
		CHECK(vgpu_sim_dispatch(e.sim, &c) == -EINVAL, "overlapping registers");
	}
	CHECK(vgpu_sim_step(e.sim, 5, ev, 4) == 0 && vgpu_sim_cycle(e.sim) == 5,
	      "limit reached: cycle %llu", (unsigned long long)vgpu_sim_cycle(e.sim));
	n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 4);
	CHECK(n == 1 && ev[0].status == 0 && ev[0].cycle == vgpu_sim_cycle(e.sim) &&
	      ev[0].tb_cycles == ev[0].cycle && ev[0].warp_insts > 0, "block done");
	CHECK(vgpu_sim_step(e.sim, UINT64_MAX, ev, 4) == 0, "idle again");
	CHECK(!vgpu_sim_busy(e.sim), "not busy");
	vgpu_sim_job_end(e.sim, 1);
	free(p.image);
	env_fini(&e);
	return 0;
}

static int t_job_end_discards(void)
{
	struct env e;
	struct prog p;
	uint64_t da, out;

	CHECK(env_init(&e, "fermi-gtx480", 8u << 20) == 0, "env");
	CHECK(load_ptx_text(&e, bar_ptx, strlen(bar_ptx), &p) == 0, "compile");
	out = dalloc(&e, 4096);
	da = bar_job_desc(&e, &p, 3, 2, out);
	CHECK(vgpu_sim_job_begin(e.sim, 3, da) == 0, "job_begin");
	for (uint32_t i = 0; i < 2; i++) {
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 3, .tb = i, .sm = i };

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
	}
	CHECK(vgpu_sim_busy(e.sim), "busy");
	vgpu_sim_job_end(e.sim, 3);
	CHECK(!vgpu_sim_busy(e.sim), "job_end discards the blocks");
	free(p.image);
	env_fini(&e);
	return 0;
}


/* Assorted constructs not in the nvcc kernels, checked per thread. */
static const char misc_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry misc(.param .u64 out)\n{\n"
	"	.reg .pred %p<6>;\n	.reg .b32 %r<30>;\n	.reg .b64 %rd<12>;\n"
	"	.reg .b16 %rs<4>;\n	.reg .f32 %f<4>;\n"
	"	.local .align 8 .b8 depot[32];\n"
	"	.shared .align 8 .b8 sh[256];\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	mov.u32 %r1, %tid.x;\n"
	"	mul.wide.u32 %rd2, %r1, 64;\n"
	"	add.s64 %rd3, %rd1, %rd2;\n"
	"	mov.u32 %r2, 0xdeadbeef;\n"
	"	bfe.u32 %r3, %r2, 4, 12;\n"
	"	add.s32 %r3, %r3, %r1;\n"
	"	st.global.u32 [%rd3], %r3;\n"
	"	bfe.s32 %r4, %r2, 28, 4;\n"
	"	st.global.u32 [%rd3+4], %r4;\n"
	"	mov.u32 %r5, -1;\n"
	"	bfi.b32 %r6, %r1, %r5, 8, 4;\n"
	"	st.global.u32 [%rd3+8], %r6;\n"
	"	mov.u64 %rd4, 0x123456789abcdef0;\n"
	"	cvt.u64.u32 %rd5, %r1;\n"
	"	add.s64 %rd6, %rd4, %rd5;\n"
	"	mov.b64 {%r7, %r8}, %rd6;\n"
	"	st.global.u32 [%rd3+12], %r8;\n"
	"	st.global.u32 [%rd3+16], %r7;\n"
	"	mov.u64 %rd7, depot;\n"
	"	cvta.local.u64 %rd8, %rd7;\n"
	"	mul.lo.s32 %r9, %r1, 3;\n"
	"	st.u32 [%rd8+8], %r9;\n"
	"	add.s64 %rd9, %rd7, 12;\n"
	"	ld.local.u32 %r10, [%rd9+-4];\n"
	"	st.global.u32 [%rd3+20], %r10;\n"
	"	mov.u64 %rd10, sh;\n"
	"	cvta.shared.u64 %rd11, %rd10;\n"
	"	red.shared.add.u32 [sh+4], %r1;\n"
	"	bar.sync 0;\n"
	"	ld.u32 %r11, [%rd11+4];\n"
	"	st.global.u32 [%rd3+24], %r11;\n"
	"	setp.lt.u32 %p1, %r1, 16;\n"
	"	vote.sync.uni.pred %p2, %p1, -1;\n"
	"	selp.u32 %r12, 7, 9, %p2;\n"
	"	st.global.u32 [%rd3+28], %r12;\n"
	"	setp.lt.s32 %p3|%p4, %r1, 40;\n"
	"	setp.ne.and.s32 %p5, %r1, 5, %p3;\n"
	"	xor.pred %p5, %p5, %p4;\n"
	"	selp.u32 %r13, 1, 0, %p5;\n"
	"	st.global.u32 [%rd3+32], %r13;\n"
	"	prmt.b32 %r14, %r2, %r1, 0x7340;\n"
	"	st.global.u32 [%rd3+36], %r14;\n"
	"	shfl.sync.idx.b32 %r15|%p1, %r1, 3, 0x101f, -1;\n"
	"	st.global.u32 [%rd3+40], %r15;\n"
	"	mov.u32 %r16, %laneid;\n"
	"	mov.u32 %r17, %nctaid.x;\n"
	"	mad.lo.s32 %r18, %r17, 1000, %r16;\n"
	"	st.global.u32 [%rd3+44], %r18;\n"
	"	mul.lo.s32 %r19, %r1, 10;\n"
	"	sub.s32 %r19, %r19, 100;\n"
	"	cvt.sat.u8.s32 %rs1, %r19;\n"
	"	cvt.u32.u16 %r20, %rs1;\n"
	"	st.global.u32 [%rd3+48], %r20;\n"
	"	cvt.rn.f32.u32 %f1, %r1;\n"
	"	mul.f32 %f2, %f1, 0fBF000000;\n"
	"	max.f32 %f3, %f2, 0fC1000000;\n"
	"	st.global.f32 [%rd3+52], %f3;\n"
	"	and.b32 %r21, %r1, 0;\n"
	"	div.u32 %r22, %r1, %r21;\n"
	"	rem.u32 %r23, %r1, %r21;\n"
	"	add.s32 %r24, %r22, %r23;\n"
	"	st.global.u32 [%rd3+56], %r24;\n"
	"	sub.s32 %r25, -64, %r1;\n"
	"	shr.s32 %r26, %r25, 40;\n"
	"	shl.b32 %r27, %r25, 33;\n"
	"	add.s32 %r28, %r26, %r27;\n"
	"	sub.s32 %r28, %r28, %r25;\n"
	"	st.global.u32 [%rd3+60], %r28;\n"
	"	ret;\n}\n";

static int t_misc(void)
{
	struct env e;
	struct result res;
	uint32_t *o;
	int r = run_inline(misc_ptx, "misc", 1, 64, 64 * 64, &o, &res, &e);

	if (!r && res.status) {
		printf("#   status %d\n", res.status);
		r = -1;
	}
	for (uint32_t t = 0; t < 64 && !r; t++) {
		uint32_t l = t % 32, w = t / 32, want[16];
		float f = fmaxf((float)t * -0.5f, -8.0f);
		int32_t c = (int32_t)t * 10 - 100;

		want[0] = 0xbee + t;
		want[1] = 0xfffffffd;
		want[2] = (0xffffffffu & ~(0xfu << 8)) | ((t & 0xf) << 8);
		want[3] = 0x12345678;
		want[4] = 0x9abcdef0 + t;
		want[5] = t * 3;
		want[6] = 2016;
		want[7] = w == 0 ? 9 : 7;
		want[8] = t != 5;
		want[9] = 0x00de00efu | t << 8;
		want[10] = w * 32 + ((l & 16) | 3);
		want[11] = 1000 + l;
		want[12] = c < 0 ? 0 : c > 255 ? 255 : (uint32_t)c;
		memcpy(&want[13], &f, 4);
		want[14] = t - 1;
		want[15] = 63 + t;
		for (int k = 0; k < 16; k++) {
			if (o[t * 16 + k] != want[k]) {
				printf("#   thread %u word %d: 0x%x, expected 0x%x\n", t, k,
				       o[t * 16 + k], want[k]);
				r = -1;
			}
		}
	}
	env_fini(&e);
	return r;
}

/* ------------------------------------------------------------------ */
/* real nvcc output of userspace/tests/ptx/kernels.cu */

struct kenv {
	struct env e;
	struct prog p;
	uint64_t data;		/* the data segment the driver placed */
	uint32_t data_size;
	struct vgpu_mem_range rg[8];
	uint32_t nrg;
};

static int kinit(struct kenv *k)
{
	size_t n;
	char *src;
	int r;

	memset(k, 0, sizeof(*k));
	if (env_init(&k->e, "fermi-gtx480", 32u << 20))
		goto fail;
	src = read_src("userspace/tests/ptx/kernels.ptx", &n);
	if (!src)
		goto fail;
	r = load_ptx_text(&k->e, src, n, &k->p);
	free(src);
	if (r || vgpu_local_program_data(k->p.vp, &k->data, &k->data_size))
		goto fail;
	return 0;
fail:
	free(k->p.image);
	env_fini(&k->e);
	return -1;
}

static void kfini(struct kenv *k)
{
	free(k->p.image);
	env_fini(&k->e);
}

static uint64_t kbuf(struct kenv *k, uint64_t size)
{
	uint64_t a = dalloc(&k->e, size);

	k->rg[k->nrg++] = (struct vgpu_mem_range){ a, size };
	return a;
}

/* The data segment, if any, is the driver's: it names it in the descriptor. */
static int krun(struct kenv *k, const char *entry, uint32_t gx, uint32_t gy, uint32_t bx,
		uint32_t by, const void *params, uint32_t psize)
{
	struct result res;
	struct launch L = {
		.prog = &k->p, .entry = entry, .grid = { gx, gy }, .block = { bx, by },
		.params = params, .params_size = psize, .ranges = k->rg, .nranges = k->nrg,
	};

	if (run(&k->e, &L, &res))
		return -1;
	if (res.status) {
		printf("#   %s: status %d fault_addr 0x%llx\n", entry, res.status,
		       (unsigned long long)res.fault_addr);
		return -1;
	}
	return 0;
}

#define VP(k, a) ((void *)((k)->e.vram + (a)))

static int t_intops(void)
{
	struct kenv k;
	const int n = 300;
	struct { uint64_t a, b, out; int32_t n; } prm;
	int32_t *a, *b, *o;

	CHECK(kinit(&k) == 0, "init");
	prm.a = kbuf(&k, n * 4);
	prm.b = kbuf(&k, n * 4);
	prm.out = kbuf(&k, n * 24 * 4);
	prm.n = n;
	a = VP(&k, prm.a);
	b = VP(&k, prm.b);
	o = VP(&k, prm.out);
	for (int i = 0; i < n; i++) {
		a[i] = (int32_t)(uint32_t)rnd();
		if (a[i] == INT32_MIN)
			a[i] = 5;
		b[i] = i % 3 ? (int32_t)(rnd() % 2000) - 1000 : (int32_t)(uint32_t)rnd();
		if (!b[i])
			b[i] = 7;
		if (i == 5)
			a[i] = 0;
	}
	CHECK(krun(&k, "intops", (n + 127) / 128, 1, 128, 1, &prm, 28) == 0, "run");
	for (int i = 0; i < n; i++) {
		int32_t x = a[i], y = b[i], r[24];
		uint32_t ux = (uint32_t)x, uy = (uint32_t)y, br = 0;
		long long lx = (long long)x * 1000003 + y;

		for (int q = 0; q < 32; q++)
			br |= ((ux >> q) & 1) << (31 - q);
		r[0] = x / y;
		r[1] = x % y;
		r[2] = (int32_t)(ux / uy);
		r[3] = (int32_t)(ux % uy);
		r[4] = x < y ? x : y;
		r[5] = (int32_t)(ux > uy ? ux : uy);
		r[6] = x < 0 ? -x : x;
		r[7] = x >> (y & 31);
		r[8] = (int32_t)(ux >> (uy & 31));
		r[9] = (int32_t)(ux << (y & 15));
		r[10] = __builtin_popcount(ux);
		r[11] = x ? __builtin_clz(ux) : 32;
		r[12] = (int32_t)br;
		r[13] = (int32_t)(((int64_t)x * y) >> 32);
		r[14] = (int32_t)(((uint64_t)ux * uy) >> 32);
		r[15] = (int32_t)((ux >> 4) & 0xff);
		{
			uint64_t xy = (uint64_t)uy << 32 | ux;
			uint32_t sel = 0x5140, pr = 0;

			for (int q = 0; q < 4; q++)
				pr |= (uint32_t)((xy >> (((sel >> (4 * q)) & 7) * 8)) & 0xff) << (8 * q);
			r[16] = (int32_t)pr;
		}
		r[17] = (int32_t)(lx / (y | 1));
		r[18] = (int32_t)(lx % 977);
		r[19] = (int32_t)((unsigned long long)lx >> 33);
		r[20] = x > y ? (int32_t)(ux - uy) : (int32_t)(uy * 3u);
		r[21] = (x & 0xf0f0) | (y ^ 0x1234) | ~x;
		r[22] = (int16_t)(uint16_t)(ux * 3u);
		r[23] = (int8_t)(uint8_t)uy + (uint8_t)ux;
		for (int q = 0; q < 24; q++)
			CHECK(o[i * 24 + q] == r[q], "i %d x %d y %d: o[%d] = %d, expected %d",
			      i, x, y, q, o[i * 24 + q], r[q]);
	}
	kfini(&k);
	return 0;
}

static int t_floatops(void)
{
	struct kenv k;
	const int n = 256;
	struct { uint64_t a, b, out, iout; int32_t n; } prm;
	float *a, *b, *o;
	int32_t *io;

	CHECK(kinit(&k) == 0, "init");
	prm.a = kbuf(&k, n * 4);
	prm.b = kbuf(&k, n * 4);
	prm.out = kbuf(&k, n * 14 * 4);
	prm.iout = kbuf(&k, n * 6 * 4);
	prm.n = n;
	a = VP(&k, prm.a);
	b = VP(&k, prm.b);
	o = VP(&k, prm.out);
	io = VP(&k, prm.iout);
	for (int i = 0; i < n; i++) {
		a[i] = (float)((int64_t)(rnd() % 2000001) - 1000000) / 997.0f;
		b[i] = (float)((int64_t)(rnd() % 2000001) - 1000000) / 1013.0f;
		if (i % 17 == 0)
			b[i] = a[i];
		if (i == 3)
			a[i] = b[i] = 0.0f;
		if (i == 4)
			a[i] = 2.5f, b[i] = -3.5f;
	}
	CHECK(krun(&k, "floatops", (n + 63) / 64, 1, 64, 1, &prm, 36) == 0, "run");
	for (int i = 0; i < n; i++) {
		float x = a[i], y = b[i], r[14];
		int32_t ir[6];

		r[0] = x + y;
		r[1] = x - y;
		r[2] = x * y;
		r[3] = x / y;
		r[4] = sqrtf(fabsf(x));
		r[5] = fmaf(x, y, 1.5f);
		r[6] = fminf(x, y);
		r[7] = fmaxf(x, y);
		r[8] = -fabsf(y);
		r[9] = (float)i * 0.25f;
		r[10] = (float)(unsigned)(i * 7919u);
		r[11] = rintf(x);
		r[12] = floorf(y) + truncf(x) + ceilf(x);
		r[13] = x > y ? x : 2.0f * y;
		ir[0] = (int)x;
		ir[1] = (int)(unsigned)fabsf(y);
		ir[2] = (int)nearbyintf(y);
		ir[3] = x < y;
		ir[4] = (int)((long long)(x * 1000.0f) >> 3);
		ir[5] = isnan(x / y) ? 1 : 0;
		for (int q = 0; q < 14; q++)
			CHECK(!memcmp(&o[i * 14 + q], &r[q], 4),
			      "i %d x %g y %g: o[%d] = %.9g, expected %.9g", i, x, y, q,
			      o[i * 14 + q], r[q]);
		for (int q = 0; q < 6; q++)
			CHECK(io[i * 6 + q] == ir[q], "i %d x %g y %g: io[%d] = %d, expected %d",
			      i, x, y, q, io[i * 6 + q], ir[q]);
	}
	kfini(&k);
	return 0;
}

static int t_dblops(void)
{
	struct kenv k;
	const int n = 200;
	struct { uint64_t a, b, out; int32_t n; } prm;
	double *a, *b, *o;

	CHECK(kinit(&k) == 0, "init");
	prm.a = kbuf(&k, n * 8);
	prm.b = kbuf(&k, n * 8);
	prm.out = kbuf(&k, n * 7 * 8);
	prm.n = n;
	a = VP(&k, prm.a);
	b = VP(&k, prm.b);
	o = VP(&k, prm.out);
	for (int i = 0; i < n; i++) {
		a[i] = (double)((int64_t)(rnd() % 20000001) - 10000000) / 9973.0;
		b[i] = (double)((int64_t)(rnd() % 20000001) - 10000000) / 7919.0 + 0.5;
	}
	CHECK(krun(&k, "dblops", (n + 63) / 64, 1, 64, 1, &prm, 28) == 0, "run");
	for (int i = 0; i < n; i++) {
		double x = a[i], y = b[i], r[7];

		r[0] = x + y;
		r[1] = x * y - y;
		r[2] = x / y;
		r[3] = sqrt(fabs(x));
		r[4] = fma(x, y, 0.125);
		r[5] = (double)(float)x;
		r[6] = (double)(long long)(x * 16.0);
		for (int q = 0; q < 7; q++)
			CHECK(!memcmp(&o[i * 7 + q], &r[q], 8), "i %d: o[%d] = %.17g, expected %.17g",
			      i, q, o[i * 7 + q], r[q]);
	}
	kfini(&k);
	return 0;
}

static int t_warpops(void)
{
	struct kenv k;
	struct { uint64_t in, out; } prm;
	int32_t *in, *o;

	CHECK(kinit(&k) == 0, "init");
	prm.in = kbuf(&k, 64 * 4);
	prm.out = kbuf(&k, 64 * 9 * 4);
	in = VP(&k, prm.in);
	o = VP(&k, prm.out);
	for (int t = 0; t < 64; t++)
		in[t] = (int32_t)(rnd() % 100);
	in[40] = 77;
	CHECK(krun(&k, "warpops", 1, 1, 64, 1, &prm, 16) == 0, "run");
	for (int t = 0; t < 64; t++) {
		int w = t & ~31, l = t & 31, r[9];
		uint32_t ballot = 0, odd2 = 0;
		int any = 0;

		for (int q = 0; q < 32; q++) {
			ballot |= (uint32_t)(in[w + q] & 1) << q;
			any |= in[w + q] == 77;
			odd2 += (in[w + q] & 2) != 0;
		}
		r[0] = l + 3 < 32 ? in[t + 3] : in[t];
		r[1] = l >= 5 ? in[t - 5] : in[t];
		r[2] = in[w + (l ^ 9)];
		r[3] = in[w + ((t * 7) & 31)];
		r[4] = (l & 7) + 2 < 8 ? in[t + 2] : in[t];
		r[5] = (int32_t)ballot;
		r[6] = any;
		r[7] = 1;
		r[8] = in[t] & 2 ? (int32_t)odd2 : -1;
		for (int q = 0; q < 9; q++)
			CHECK(o[t * 9 + q] == r[q], "t %d: o[%d] = %d, expected %d", t, q,
			      o[t * 9 + q], r[q]);
	}
	kfini(&k);
	return 0;
}

static int t_localarr(void)
{
	struct kenv k;
	const int n = 100;
	struct { uint64_t in, out; int32_t n; } prm;
	int32_t *in, *o;

	CHECK(kinit(&k) == 0, "init");
	prm.in = kbuf(&k, n * 4);
	prm.out = kbuf(&k, n * 4);
	prm.n = n;
	in = VP(&k, prm.in);
	o = VP(&k, prm.out);
	for (int t = 0; t < n; t++)
		in[t] = (int32_t)(rnd() % 1000);
	CHECK(krun(&k, "localarr", 2, 1, 64, 1, &prm, 20) == 0, "run");
	for (int t = 0; t < n; t++) {
		int arr[24];

		for (int q = 0; q < 24; q++)
			arr[q] = in[t] * q;
		for (int q = 0; q < 24; q++)
			arr[(q * 7 + in[t]) % 24] += q;
		CHECK(o[t] == arr[in[t] % 24] + arr[(in[t] + 5) % 24], "t %d", t);
	}
	kfini(&k);
	return 0;
}

static int t_vec_grid(void)
{
	struct kenv k;
	const int n = 70, w = 37, h = 19;
	struct { uint64_t in, out, pi, po; int32_t n; } prm;
	struct { uint64_t out; int32_t w, h; } g;
	float *in, *out;
	int32_t *pi, *po, *go;

	CHECK(kinit(&k) == 0, "init");
	prm.in = kbuf(&k, n * 16);
	prm.out = kbuf(&k, n * 16);
	prm.pi = kbuf(&k, n * 8);
	prm.po = kbuf(&k, n * 8);
	prm.n = n;
	in = VP(&k, prm.in);
	out = VP(&k, prm.out);
	pi = VP(&k, prm.pi);
	po = VP(&k, prm.po);
	for (int i = 0; i < n * 4; i++)
		in[i] = (float)(rnd() % 1000) / 8.0f;
	for (int i = 0; i < n * 2; i++)
		pi[i] = (int32_t)(rnd() % 100000);
	CHECK(krun(&k, "vec4", 3, 1, 32, 1, &prm, 36) == 0, "run vec4");
	for (int t = 0; t < n; t++) {
		float *v = &in[4 * t], *r = &out[4 * t];

		CHECK(r[0] == v[3] && r[1] == v[2] * 2.0f && r[2] == v[1] + 1.0f && r[3] == v[0],
		      "vec4 %d", t);
		CHECK(po[2 * t] == pi[2 * t + 1] && po[2 * t + 1] == pi[2 * t] + pi[2 * t + 1],
		      "int2 %d", t);
	}
	g.out = kbuf(&k, w * h * 4);
	g.w = w;
	g.h = h;
	go = VP(&k, g.out);
	CHECK(krun(&k, "grid2d", (w + 7) / 8, (h + 3) / 4, 8, 4, &g, 16) == 0, "run grid2d");
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			CHECK(go[y * w + x] == x * 1000 + y + (h + 3) / 4 * 1000000, "(%d,%d)", x, y);
	kfini(&k);
	return 0;
}

static int t_modvars(void)
{
	struct kenv k;
	const int n = 150;
	struct { uint64_t out; int32_t n; } prm;
	static const int table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 }, gdata[4] = { 10, 20, 30, 40 };
	int32_t *o;
	uint32_t counter;

	CHECK(kinit(&k) == 0, "init");
	CHECK(k.data_size >= 52, "data segment %u bytes", k.data_size);
	prm.out = kbuf(&k, n * 4);
	prm.n = n;
	o = VP(&k, prm.out);
	CHECK(krun(&k, "modvars", 3, 1, 64, 1, &prm, 12) == 0, "run");
	for (int t = 0; t < n; t++)
		CHECK(o[t] == table[t & 7] * 100 + gdata[t & 3], "t %d: %d", t, o[t]);
	memcpy(&counter, k.e.vram + k.data + 32, 4);
	CHECK(counter == (uint32_t)n, "counter %u", counter);
	kfini(&k);
	return 0;
}

static int t_atomics2(void)
{
	struct kenv k;
	const int n = 333;
	struct { uint64_t in, fsum, imax, u64; int32_t n; } prm;
	int32_t *in, *imax, mx = INT32_MIN;
	float *fsum;
	uint64_t *u64, sum = 0;

	CHECK(kinit(&k) == 0, "init");
	prm.in = kbuf(&k, n * 4);
	prm.fsum = kbuf(&k, 4);
	prm.imax = kbuf(&k, 4);
	prm.u64 = kbuf(&k, 8);
	prm.n = n;
	in = VP(&k, prm.in);
	fsum = VP(&k, prm.fsum);
	imax = VP(&k, prm.imax);
	u64 = VP(&k, prm.u64);
	*imax = INT32_MIN;
	for (int t = 0; t < n; t++) {
		in[t] = (int32_t)(rnd() % 100000) - 50000;
		mx = in[t] > mx ? in[t] : mx;
		sum += (uint64_t)(int64_t)in[t];
	}
	CHECK(krun(&k, "atomics2", 6, 1, 64, 1, &prm, 36) == 0, "run");
	CHECK(*fsum == n * 0.5f, "fsum %g", *fsum);
	CHECK(*imax == mx, "imax %d, expected %d", *imax, mx);
	CHECK(*u64 == sum, "u64 %llu, expected %llu", (unsigned long long)*u64,
	      (unsigned long long)sum);
	kfini(&k);
	return 0;
}

static int t_narrow(void)
{
	struct kenv k;
	const int n = 90;
	struct { uint64_t a, b, out; int32_t n; } prm;
	uint16_t *a;
	int8_t *b;
	int16_t *o;

	CHECK(kinit(&k) == 0, "init");
	prm.a = kbuf(&k, n * 2);
	prm.b = kbuf(&k, n);
	prm.out = kbuf(&k, n * 4);
	prm.n = n;
	a = VP(&k, prm.a);
	b = VP(&k, prm.b);
	o = VP(&k, prm.out);
	for (int t = 0; t < n; t++) {
		a[t] = (uint16_t)rnd();
		b[t] = (int8_t)rnd();
	}
	CHECK(krun(&k, "narrow", 3, 1, 32, 1, &prm, 28) == 0, "run");
	for (int t = 0; t < n; t++) {
		int16_t r0 = (int16_t)(uint16_t)(a[t] * 3 + b[t]);
		int16_t r1 = (int16_t)(uint16_t)((a[t] >> 3) ^ (uint16_t)(b[t] * b[t]));

		CHECK(o[2 * t] == r0 && o[2 * t + 1] == r1, "t %d: %d %d, expected %d %d", t,
		      o[2 * t], o[2 * t + 1], r0, r1);
	}
	kfini(&k);
	return 0;
}

/* ------------------------------------------------------------------ */
/* timing model: validation micro-benchmarks (userspace/tests/ptx/microbench.ptx) */

/* A model of @preset with "key", "value" overrides (NULL-terminated). */
static int mb_init(struct env *e, struct prog *p, const char *preset, const char *const *kv,
		   uint64_t size)
{
	size_t n;
	char *src;
	int r;

	memset(p, 0, sizeof(*p));
	if (env_init_kv(e, preset, kv, size))
		return -1;
	src = read_src("userspace/tests/ptx/microbench.ptx", &n);
	if (!src)
		return -1;
	r = load_ptx_text(e, src, n, p);
	free(src);
	return r;
}

static void mb_fini(struct env *e, struct prog *p)
{
	free(p->image);
	env_fini(e);
}

static bool within(double got, double want, double tol)
{
	return fabs(got - want) <= tol * want;
}

struct chase_params {
	uint64_t start;
	uint32_t n, pad;
	uint64_t out;
};

/*
 * Cycles per load of a pointer chase over @count elements @stride bytes
 * apart (@random: in a random cyclic order), 4 * @n loads timed after 4 * @n
 * warming ones.
 */
static int chase(const char *preset, uint32_t count, uint32_t stride, bool random, uint32_t n,
		 double *lat, uint32_t *want_l1, uint32_t *want_l2, uint32_t *want_mem)
{
	struct env e;
	struct prog p;
	struct result res;
	struct chase_params prm;
	uint32_t *perm = NULL;
	int r = -1;

	if (mb_init(&e, &p, preset, NULL, 64u << 20))
		goto out;
	*want_l1 = e.cfg.l1d_latency;
	*want_l2 = e.cfg.l2_latency;
	*want_mem = e.cfg.mem_latency + e.cfg.dram_row_miss;
	prm.start = dalloc(&e, (uint64_t)count * stride);
	prm.out = dalloc(&e, 16);
	prm.n = n;
	prm.pad = 0;
	perm = malloc(sizeof(*perm) * count);
	MCHECK(perm, "memory");
	for (uint32_t i = 0; i < count; i++)
		perm[i] = i;
	for (uint32_t i = count - 1; random && i > 0; i--) {
		uint32_t j = (uint32_t)(rnd() % (i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint32_t i = 0; i < count; i++) {
		uint64_t from = prm.start + (uint64_t)perm[i] * stride;
		uint64_t to = prm.start + (uint64_t)perm[(i + 1) % count] * stride;

		memcpy(e.vram + from, &to, 8);
	}
	{
		struct vgpu_mem_range rg[2] = { { prm.start, (uint64_t)count * stride },
						{ prm.out, 16 } };
		struct launch L = {
			.prog = &p, .entry = "chase", .grid = { 1 }, .block = { 1 },
			.params = &prm, .params_size = sizeof(prm), .ranges = rg, .nranges = 2,
		};

		MCHECK(run(&e, &L, &res) == 0 && res.status == 0, "chase run");
	}
	{
		uint64_t cyc;

		memcpy(&cyc, e.vram + prm.out, 8);
		*lat = (double)cyc / (4.0 * n);
	}
	r = 0;
out:
	free(perm);
	mb_fini(&e, &p);
	return r;
}

static int t_mb_latency(void)
{
	static const char *const gpus[] = { "fermi-gtx480", "maxwell-gtx980", "volta-v100" };

	for (size_t g = 0; g < sizeof(gpus) / sizeof(gpus[0]); g++) {
		uint32_t l1, l2, mem;
		double lat;

		/* 32 lines: L1D hits once warm */
		CHECK(chase(gpus[g], 32, 128, false, 64, &lat, &l1, &l2, &mem) == 0, "chase");
		printf("# %s: L1D hit %.1f cycles (configured %u)\n", gpus[g], lat, l1);
		CHECK(within(lat, l1, 0.05), "L1D latency %.1f, configured %u", lat, l1);
		/* thrash every L1D set, fit L2: 8 K lines (1 MB), 4 K on Fermi (768 KB L2) */
		{
			uint32_t lines = strcmp(gpus[g], "fermi-gtx480") ? 8192 : 4096;

			CHECK(chase(gpus[g], lines, 128, false, lines / 4, &lat, &l1, &l2, &mem) == 0,
			      "chase");
		}
		printf("# %s: L2 hit %.1f cycles (configured %u)\n", gpus[g], lat, l2);
		CHECK(within(lat, l2, 0.05), "L2 latency %.1f, configured %u", lat, l2);
		/* cold, random lines of 32 MB: DRAM, a row miss each */
		CHECK(chase(gpus[g], 1u << 18, 128, true, 128, &lat, &l1, &l2, &mem) == 0,
		      "chase");
		printf("# %s: DRAM %.1f cycles (configured %u incl. row miss)\n", gpus[g], lat,
		       mem);
		CHECK(within(lat, mem, 0.05), "DRAM latency %.1f, configured %u", lat, mem);
	}
	return 0;
}

struct sh_params {
	uint32_t stride, n;
	uint64_t out;
};

static int t_mb_shared(void)
{
	static const uint32_t strides[] = { 1, 2, 4, 8, 32, 3 };
	struct env e;
	struct prog p;
	struct result res;
	int r = -1;

	if (mb_init(&e, &p, "fermi-gtx480", NULL, 16u << 20))
		goto out;
	for (size_t i = 0; i < sizeof(strides) / sizeof(strides[0]); i++) {
		struct sh_params prm = { strides[i], 64, dalloc(&e, 16) };
		struct vgpu_mem_range rg[1] = { { prm.out, 16 } };
		struct launch L = {
			.prog = &p, .entry = "shchase", .grid = { 1 }, .block = { 32 },
			.params = &prm, .params_size = sizeof(prm), .ranges = rg, .nranges = 1,
		};
		uint32_t deg = 1;
		uint64_t cyc;
		double lat, want;

		while (deg < 32 && strides[i] % (deg * 2) == 0)
			deg *= 2;
		MCHECK(run(&e, &L, &res) == 0 && res.status == 0, "shchase run");
		memcpy(&cyc, e.vram + prm.out, 8);
		lat = (double)cyc / (4.0 * prm.n);
		want = e.cfg.shared_latency + deg - 1;
		printf("# shared stride %u: %.1f cycles per load (latency %u + %u-way conflict)\n",
		       strides[i], lat, e.cfg.shared_latency, deg);
		MCHECK(within(lat, want, 0.05), "stride %u: %.1f cycles, expected %.0f",
		       strides[i], lat, want);
	}
	r = 0;
out:
	mb_fini(&e, &p);
	return r;
}

struct tp_params {
	uint32_t n, pad;
	uint64_t out;
};

/*
 * Runs @entry with @n iterations on one block of 1024 threads per SM: its
 * unit's warp instructions (@units) and cycles, and the configured rate.
 */
static int throughput(const char *preset, const char *entry, uint32_t n, double *units,
		      double *cycles, double *want)
{
	struct env e;
	struct prog p;
	struct result res;
	struct vgpu_sim_stats st;
	/* round robin keeps the warps together: no lone warps at the end */
	static const char *const kv[] = { "scheduler", "lrr", NULL };
	int r = -1;

	if (mb_init(&e, &p, preset, kv, 16u << 20))
		goto out;
	{
		uint32_t nsm = e.cfg.desc.num_sms, ns = e.cfg.schedulers_per_sm;
		struct tp_params prm = { n, 0, dalloc(&e, 1024 * 4) };
		struct vgpu_mem_range rg[1] = { { prm.out, 1024 * 4 } };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { nsm }, .block = { 1024 },
			.params = &prm, .params_size = sizeof(prm), .ranges = rg, .nranges = 1,
		};

		MCHECK(run(&e, &L, &res) == 0 && res.status == 0, "%s run", entry);
		vgpu_sim_get_stats(e.sim, &st);
		if (!strcmp(entry, "alu")) {
			/* every instruction goes to the SP pipelines */
			*units = (double)st.warp_insts / nsm;
			*want = (double)ns / e.cfg.alu_ii;
		} else {
			*units = 32.0 * 8 * n;
			*want = (double)ns / e.cfg.sfu_ii;
		}
		*cycles = (double)res.cycles;
	}
	r = 0;
out:
	mb_fini(&e, &p);
	return r;
}

/*
 * Throughput from two runs of different lengths, so that the start (cold
 * instruction cache) and the end of the block cancel out.
 */
static int t_mb_throughput(void)
{
	static const char *const gpus[] = { "fermi-gtx480", "maxwell-gtx980", "volta-v100" };
	static const char *const units[] = { "alu", "sfu" };

	for (size_t g = 0; g < sizeof(gpus) / sizeof(gpus[0]); g++) {
		for (int u = 0; u < 2; u++) {
			double u1, c1, u2, c2, want, got;
			uint32_t n = u ? 16 : 64;

			CHECK(throughput(gpus[g], units[u], n, &u1, &c1, &want) == 0, "run");
			CHECK(throughput(gpus[g], units[u], 2 * n, &u2, &c2, &want) == 0, "run");
			got = (u2 - u1) / (c2 - c1);
			printf("# %s: %s %.3f warp-insts/cycle/SM (configured %.3f)\n", gpus[g],
			       u ? "SFU" : "SP", got, want);
			CHECK(within(got, want, 0.05), "%s throughput %.3f, configured %.3f",
			      units[u], got, want);
		}
	}
	return 0;
}

struct stream_params {
	uint64_t in;
	uint32_t n, pad;
	uint64_t out;
};

static int stream_bw(const char *preset, const char *const *kv, double *got, double *want,
		     struct vgpu_sim_stats *st)
{
	struct env e;
	struct prog p;
	struct result res;
	uint32_t n;
	int r = -1;

	if (mb_init(&e, &p, preset, kv, 64u << 20))
		goto out;
	{
		uint32_t nsm = e.cfg.desc.num_sms, grid = nsm * (e.cfg.desc.max_threads_per_sm / 256);

		/* about 16 MB, a multiple of the 4 loads of every thread */
		n = (4u << 20) / (4 * grid * 256) * (4 * grid * 256);
		struct stream_params prm = { dalloc(&e, (uint64_t)n * 4), n, 0,
					     dalloc(&e, (uint64_t)grid * 256 * 4) };
		struct vgpu_mem_range rg[2] = { { prm.in, (uint64_t)n * 4 },
						{ prm.out, (uint64_t)grid * 256 * 4 } };
		struct launch L = {
			.prog = &p, .entry = "stream", .grid = { grid }, .block = { 256 },
			.params = &prm, .params_size = sizeof(prm), .ranges = rg, .nranges = 2,
		};

		r = run(&e, &L, &res);
		MCHECK(r == 0 && res.status == 0, "stream run: %d, status %d", r, res.status);
		r = -1;
		vgpu_sim_get_stats(e.sim, st);
		*got = (double)st->dram_read_bytes / (double)res.cycles;
		*want = (double)e.cfg.dram_bandwidth_mbs * 1e3 / e.cfg.desc.core_clock_khz;
	}
	r = 0;
out:
	mb_fini(&e, &p);
	return r;
}

static int t_mb_bandwidth(void)
{
	/*
	 * Loads that bypass the L1D (as ld.global.cg would): its MSHRs and
	 * allocate-on-miss ways, not the DRAM bus, limit a cached stream.
	 */
	static const char *const kv[] = { "l1d_size", "0", NULL };
	static const char *const gpus[] = { "fermi-gtx480", "maxwell-gtx980" };
	struct vgpu_sim_stats st;

	for (size_t g = 0; g < sizeof(gpus) / sizeof(gpus[0]); g++) {
		double got, want;

		CHECK(stream_bw(gpus[g], kv, &got, &want, &st) == 0, "stream");
		printf("# %s: streaming %.1f B/cycle (configured %.1f), %llu DRAM bytes\n", gpus[g],
		       got, want, (unsigned long long)st.dram_read_bytes);
		CHECK(within(got, want, 0.05), "bandwidth %.1f B/cycle, configured %.1f", got, want);
	}
	return 0;
}

struct rb_params {
	uint32_t n, pad;
	uint64_t out;
};

/* rbsame and rbdiff: 64 mads, a sub, a setp and a bra per iteration */
#define RB_MADS 64
#define RB_INSTS (RB_MADS + 3)

/*
 * Runs @entry with @n iterations on volta-v100 with the overrides @kv, one
 * block of one warp per scheduler: the cycles and the warp instructions of
 * each scheduler.
 */
static int regbank_run(const char *const *kv, const char *entry, uint32_t n, double *cycles,
		       double *insts)
{
	struct env e;
	struct prog p;
	struct result res;
	struct vgpu_sim_stats st;
	int r = -1;

	if (mb_init(&e, &p, "volta-v100", kv, 16u << 20))
		goto out;
	{
		uint32_t ns = e.cfg.schedulers_per_sm;
		struct rb_params prm = { n, 0, dalloc(&e, 32 * ns * 4) };
		struct vgpu_mem_range rg[1] = { { prm.out, 32 * ns * 4 } };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { 1 }, .block = { 32 * ns },
			.params = &prm, .params_size = sizeof(prm), .ranges = rg, .nranges = 1,
		};

		MCHECK(run(&e, &L, &res) == 0 && res.status == 0, "%s run", entry);
		vgpu_sim_get_stats(e.sim, &st);
		*cycles = (double)res.cycles;
		*insts = (double)st.warp_insts / ns;
	}
	r = 0;
out:
	mb_fini(&e, &p);
	return r;
}

/*
 * Cycles per warp instruction of @entry from runs of 16 and 32 iterations,
 * so that the start and the end of the block cancel out.
 */
static int regbank_cpi(const char *const *kv, const char *entry, double *cpi)
{
	double c1, i1, c2, i2;

	if (regbank_run(kv, entry, 16, &c1, &i1) || regbank_run(kv, entry, 32, &c2, &i2))
		return -1;
	*cpi = (c2 - c1) / (i2 - i1);
	return 0;
}

/*
 * Register bank conflicts (collect() in userspace/sim/sim.c): an instruction
 * holds the operand collector it takes until its last source is read, one
 * read per bank per cycle. With one collector the collector is free again
 * max(1, most sources in one bank) cycles after it starts, whatever the
 * banks of the instructions before: the three reads of an rbsame mad, all
 * of one bank, take 3 cycles, the sub and the setp (one source each) 1; the
 * bra reads no register. Issue runs ahead of the collector (it waits for
 * results, not for collectors), so one iteration of rbsame takes
 * 3 * 64 + 2 cycles: 3 cycles per mad, 194 / 67 per warp instruction. The
 * mads of rbdiff read three different banks (1 cycle each), so the SP unit
 * (alu_ii = 1) limits them: 1 cycle per warp instruction. Without banks
 * (reg_banks = 0, ideal reads) both issue at the SP unit's rate. With two
 * collectors, consecutive rbsame mads read different banks (accumulators
 * R4-R11 in turn, four banks), so two collect at once: 1.5 cycles per mad,
 * and the sub and the setp. rbdiff and the two-collector figure depend on
 * the register allocation microbench.ptx describes.
 */
static int t_mb_regbank(void)
{
	static const char *const one[] = { "alu_ii", "1", "reg_banks", "4", "collectors", "1",
					   NULL };
	static const char *const two[] = { "alu_ii", "1", "reg_banks", "4", "collectors", "2",
					   NULL };
	static const char *const ideal[] = { "alu_ii", "1", "reg_banks", "0", NULL };
	const double per_mad = (double)RB_INSTS / RB_MADS;
	double same, diff, same2, same0, diff0, want;

	CHECK(regbank_cpi(one, "rbsame", &same) == 0, "rbsame run");
	CHECK(regbank_cpi(one, "rbdiff", &diff) == 0, "rbdiff run");
	want = (3.0 * RB_MADS + 2) / RB_INSTS;
	printf("# 4 banks, 1 collector: same bank %.3f cycles/warp-inst (expected %.3f),"
	       " %.3f cycles/mad (3 reads of one bank: 3)\n", same, want, same * per_mad);
	CHECK(within(same, want, 0.05), "same bank: %.3f cycles/warp-inst, expected %.3f", same,
	      want);
	CHECK(within(same * per_mad, 3.0, 0.05), "same bank: %.3f cycles/mad, expected 3",
	      same * per_mad);
	printf("# 4 banks, 1 collector: different banks %.3f cycles/warp-inst (SP unit: 1)\n",
	       diff);
	CHECK(within(diff, 1.0, 0.05),
	      "different banks: %.3f cycles/warp-inst, expected 1 (rbdiff's registers moved?)",
	      diff);
	CHECK(regbank_cpi(two, "rbsame", &same2) == 0, "rbsame run");
	printf("# 4 banks, 2 collectors: same bank %.3f cycles/mad (2 at once: 1.5 + loop)\n",
	       same2 * per_mad);
	CHECK(within(same2 * per_mad, 1.5, 0.05), "2 collectors: %.3f cycles/mad, expected 1.5",
	      same2 * per_mad);
	CHECK(regbank_cpi(ideal, "rbsame", &same0) == 0, "rbsame run");
	CHECK(regbank_cpi(ideal, "rbdiff", &diff0) == 0, "rbdiff run");
	printf("# ideal reads: same bank %.3f, different banks %.3f cycles/warp-inst (SP unit:"
	       " 1)\n", same0, diff0);
	CHECK(within(same0, 1.0, 0.05) && within(diff0, 1.0, 0.05) && within(same0, diff0, 0.05),
	      "ideal reads: %.3f and %.3f cycles/warp-inst, expected 1", same0, diff0);
	return 0;
}

struct gather_params {
	uint64_t off, base;
	uint32_t count, pad;
	uint64_t out;
};

/* @v joins the @*n distinct values of @set unless it is one. */
static void set_add(uint64_t *set, uint32_t *n, uint64_t v)
{
	uint32_t k;

	for (k = 0; k < *n && set[k] != v; k++)
		;
	if (k == *n)
		set[(*n)++] = v;
}

#define GATHER_SPAN	(64u << 10)	/* bytes the offsets reach into */
#define GATHER_WORD(i)	(0x5a000000u + (uint32_t)(i))	/* word i of the buffer */

/*
 * One warp loads the words at byte offsets @off (lanes below @count) of a
 * buffer on fermi-gtx480 with the L1D off: each line of the warp's load is
 * one transaction (l1d_accesses) and each sector one DRAM read of the cold
 * L2. *@lines and *@bytes are what the load adds to a run of the same
 * kernel whose lanes all skip it (the same instructions: the same fetches);
 * *@want_lines and *@want_bytes are the distinct lines and sectors of the
 * active lanes' addresses, counted here. The values loaded are checked.
 */
static int gather(const uint64_t *off, uint32_t count, uint64_t *lines, uint64_t *bytes,
		  uint64_t *want_lines, uint64_t *want_bytes)
{
	static const char *const kv[] = { "l1d_size", "0", NULL };
	uint64_t acc[2] = { 0, 0 }, rd[2] = { 0, 0 };

	for (uint32_t pass = 0; pass < 2; pass++) {
		struct vgpu_sim_stats st;
		struct result res;
		struct prog p;
		struct env e;
		int r = -1;

		if (mb_init(&e, &p, "fermi-gtx480", kv, 16u << 20))
			goto out;
		{
			struct gather_params prm = { dalloc(&e, 256), dalloc(&e, GATHER_SPAN),
						     pass ? count : 0, 0, dalloc(&e, 128) };
			struct vgpu_mem_range rg[3] = { { prm.off, 256 }, { prm.base, GATHER_SPAN },
							{ prm.out, 128 } };
			struct launch L = {
				.prog = &p, .entry = "gather", .grid = { 1 }, .block = { 32 },
				.params = &prm, .params_size = sizeof(prm), .ranges = rg,
				.nranges = 3,
			};
			uint64_t seen_l[32], seen_s[32];
			uint32_t nl = 0, ns = 0;

			memcpy(e.vram + prm.off, off, 32 * sizeof(*off));
			for (uint32_t i = 0; i < GATHER_SPAN / 4; i++) {
				uint32_t v = GATHER_WORD(i);

				memcpy(e.vram + prm.base + 4ull * i, &v, 4);
			}
			MCHECK(run(&e, &L, &res) == 0 && res.status == 0, "gather run");
			vgpu_sim_get_stats(e.sim, &st);
			acc[pass] = st.l1d_accesses;
			rd[pass] = st.dram_read_bytes;
			for (uint32_t l = 0; l < 32; l++) {
				uint32_t got, want = pass && l < count ? GATHER_WORD(off[l] / 4) : 0;

				memcpy(&got, e.vram + prm.out + 4 * l, 4);
				MCHECK(got == want, "lane %u loaded %#x, want %#x", l, got, want);
			}
			/* the reference: distinct lines and sectors, lane by lane */
			for (uint32_t l = 0; pass && l < count; l++) {
				set_add(seen_l, &nl, (prm.base + off[l]) >> 7);
				set_add(seen_s, &ns, (prm.base + off[l]) >> 5);
			}
			*want_lines = nl;
			*want_bytes = 32ull * ns;
		}
		r = 0;
out:
		mb_fini(&e, &p);
		if (r)
			return r;
	}
	*lines = acc[1] - acc[0];
	*bytes = rd[1] - rd[0];
	return 0;
}

/*
 * Coalescing (mem.c: coalesce_fast(), coalesce_runs() and the lane-by-lane
 * loop): a warp's load takes each 128-byte line it touches once, with the
 * 32-byte sectors its lanes touch, for the patterns the fast paths take
 * (consecutive words, one word, each half-warp on consecutive words or one
 * word, also with only some lanes) and for those they leave to the loop.
 */
static int t_coalesce(void)
{
	static const char *const names[] = {
		"consecutive words", "consecutive words from mid-line", "one word",
		"half-warps on a word each, rows apart", "half-warps on two words of a sector",
		"half-warps on consecutive words, rows apart", "half-warps on the same 16 words",
		"first half consecutive, second on a word", "first half on a word, second consecutive",
		"second half on a word within the first's", "every other word", "reversed words",
		"a column (a line a lane)", "random words",
	};
	static const uint32_t counts[] = { 32, 20, 17, 1 };
	const uint32_t np = sizeof(names) / sizeof(names[0]);

	for (uint32_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		for (uint32_t pt = 0; pt < np; pt++) {
			uint64_t off[32], lines, bytes, wl, wb;

			for (uint32_t l = 0; l < 32; l++) {
				uint32_t h = l / 16, i = l % 16;
				uint64_t o[] = {
					4 * l, 64 + 4 * l, 300,
					h * 1024 + 40, h ? 12 : 8,
					h * 4096 + 4 * i, 128 + 4 * i,
					h ? 2000 : 4 * i, h ? 4 * i + 512 : 2000,
					h ? 20 : 4 * i, 8 * l, 4 * (31 - l),
					512 * l, (rnd() % (GATHER_SPAN / 4)) * 4,
				};

				off[l] = o[pt];
			}
			CHECK(gather(off, counts[c], &lines, &bytes, &wl, &wb) == 0, "%s",
			      names[pt]);
			CHECK(lines == wl && bytes == wb,
			      "%s, %u lanes: %llu lines and %llu DRAM bytes, want %llu and %llu",
			      names[pt], counts[c], (unsigned long long)lines,
			      (unsigned long long)bytes, (unsigned long long)wl,
			      (unsigned long long)wb);
		}
	}
	return 0;
}

/* Counters add up; saxpy stalls mostly on memory, alu mostly not at all. */
static int t_stats(void)
{
	struct vgpu_sim_stats st;
	double got, want;
	uint64_t stalls;

	CHECK(stream_bw("fermi-gtx480", NULL, &got, &want, &st) == 0, "stream");
	stalls = st.stall_mem_conflict + st.stall_mem_dep + st.stall_fetch + st.stall_other;
	printf("# stream: %llu SM cycles, %llu issuing, stalls: mem conflict %llu, mem dep %llu,"
	       " fetch %llu, other %llu; C_mem %llu C_idle %llu; L1D %llu/%llu L2 %llu/%llu\n",
	       (unsigned long long)st.cycles, (unsigned long long)st.issue_cycles,
	       (unsigned long long)st.stall_mem_conflict, (unsigned long long)st.stall_mem_dep,
	       (unsigned long long)st.stall_fetch, (unsigned long long)st.stall_other,
	       (unsigned long long)st.c_mem, (unsigned long long)st.c_idle,
	       (unsigned long long)st.l1d_hits, (unsigned long long)st.l1d_accesses,
	       (unsigned long long)st.l2_hits, (unsigned long long)st.l2_accesses);
	CHECK(st.cycles == st.issue_cycles + stalls, "cycles %llu != issue %llu + stalls %llu",
	      (unsigned long long)st.cycles, (unsigned long long)st.issue_cycles,
	      (unsigned long long)stalls);
	CHECK(st.stall_mem_conflict + st.stall_mem_dep > st.stall_other + st.stall_fetch,
	      "a streaming kernel stalls on memory");
	CHECK(st.c_mem > 0 && st.c_mem <= st.cycles, "C_mem");
	CHECK(st.dram_read_bytes >= (3ull << 20) * 4, "DRAM bytes %llu",
	      (unsigned long long)st.dram_read_bytes);
	CHECK(st.l1d_accesses > 0 && st.l2_accesses > 0, "cache counters");
	return 0;
}

/* The key = value format, presets and schedulers. */
static int t_config(void)
{
	struct vgpu_sim_config c;
	char path[] = "/tmp/vgpu-cfg-XXXXXX", err[256], buf[4096];
	int fd;
	FILE *f;

	CHECK(vgpu_sim_preset("volta-v100", &c) == 0, "volta");
	CHECK(c.schedulers_per_sm == 4 && c.reg_banks == 2 && c.collectors == 2 &&
	      c.desc.num_sms == 80 && c.l2_size == 6u << 20 && c.l2_assoc == 24 &&
	      c.shared_banks == 32 && c.desc.max_threads_per_sm == 64 * 32, "Table II");
	CHECK(vgpu_sim_preset("fermi-gtx480", &c) == 0, "fermi");
	CHECK(c.desc.num_sms == 15 && c.l1d_size == 16384 && c.l1d_assoc == 4 &&
	      c.l1d_mshrs == 32 && c.l2_size == 768 * 1024 && c.mem_partitions == 6 &&
	      c.dram_bandwidth_mbs == 177400 && c.l1i_size == 2048, "Table 3.1");
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	f = fdopen(fd, "w");
	CHECK(f, "fdopen");
	fprintf(f, "# test\ngpu = maxwell-gtx980\n  scheduler = two-level # comment\n"
		"l1d_size = 32K\nnum_sms=4\n\n");
	fclose(f);
	CHECK(vgpu_sim_config_load(&c, path, err, sizeof(err)) == 0, "load: %s", err);
	CHECK(c.desc.num_sms == 4 && c.l1d_size == 32768 && c.scheduler == VGPU_SCHED_TWO_LEVEL &&
	      c.schedulers_per_sm == 4 && c.desc.core_clock_khz == 1126000, "values");
	CHECK(vgpu_sim_config_write(&c, buf, sizeof(buf)) > 0 && strstr(buf, "num_sms = 4\n") &&
	      strstr(buf, "scheduler = two-level\n"), "write");
	f = fopen(path, "w");
	CHECK(f, "reopen");
	fprintf(f, "num_sms = 2\nno_such_key = 1\n");
	fclose(f);
	CHECK(vgpu_sim_config_load(&c, path, err, sizeof(err)) == -ENOENT &&
	      strstr(err, ":2: unknown key"), "unknown key: %s", err);
	f = fopen(path, "w");
	CHECK(f, "reopen");
	fprintf(f, "l1d_size = lots\n");
	fclose(f);
	CHECK(vgpu_sim_config_load(&c, path, err, sizeof(err)) == -EINVAL, "bad value");
	unlink(path);
	CHECK(vgpu_sim_config_set(&c, "scheduler", "nope") == -EINVAL, "bad scheduler");
	return 0;
}

/* Every scheduler gives the right result, deterministically, in its own time. */
static int t_schedulers(void)
{
	static const char *const names[] = { "lrr", "gto", "two-level" };
	uint64_t cyc[3][2];

	for (int i = 0; i < 3; i++) {
		for (int rep = 0; rep < 2; rep++) {
			const char *kv[] = { "scheduler", names[i], NULL };
			struct env e;
			struct prog p;
			struct result res;
			uint32_t n = 8 * 4 * 30 * 256;
			int r = -1;

			if (mb_init(&e, &p, "fermi-gtx480", kv, 16u << 20))
				goto out;
			{
				uint32_t grid = 30;
				struct stream_params prm = { dalloc(&e, n * 4), n, 0,
							     dalloc(&e, grid * 256 * 4) };
				struct vgpu_mem_range rg[2] = { { prm.in, n * 4 },
								{ prm.out, grid * 256 * 4 } };
				struct launch L = {
					.prog = &p, .entry = "stream", .grid = { grid },
					.block = { 256 }, .params = &prm,
					.params_size = sizeof(prm), .ranges = rg, .nranges = 2,
				};
				uint32_t *in = (uint32_t *)(e.vram + prm.in), sum = 0, got = 0;

				for (uint32_t k = 0; k < n; k++)
					in[k] = k * 2654435761u;
				MCHECK(run(&e, &L, &res) == 0 && res.status == 0, "run");
				for (uint32_t k = 0; k < n; k++)
					sum += in[k];
				for (uint32_t k = 0; k < grid * 256; k++)
					got += ((uint32_t *)(e.vram + prm.out))[k];
				MCHECK(got == sum, "%s: sum %u, expected %u", names[i], got, sum);
				cyc[i][rep] = res.cycles;
			}
			r = 0;
out:
			mb_fini(&e, &p);
			if (r)
				return r;
		}
		printf("# %s: %llu cycles\n", names[i], (unsigned long long)cyc[i][0]);
		CHECK(cyc[i][0] == cyc[i][1], "%s not deterministic", names[i]);
	}
	/* two-level with a small active set and blocks synchronising at barriers */
	{
		static const char *const kv[] = { "scheduler", "two-level", "two_level_active", "2",
						  NULL };
		struct env e;
		struct prog p;
		struct red_params prm;
		struct result res;
		uint32_t n = 1u << 16, grid = n / 1024, sum = 0, got = 0;
		int r = -1;

		if (mb_init(&e, &p, "fermi-gtx480", kv, 16u << 20))
			goto out2;
		free(p.image);
		p.image = NULL;
		if (load_ptx_file(&e, "reduce.ptx", &p)) {
			printf("# reduce.ptx\n");
			goto out2;
		}
		prm.n = n;
		prm.in = dalloc(&e, n * 4);
		prm.out = dalloc(&e, grid * 4);
		for (uint32_t k = 0; k < n; k++) {
			((uint32_t *)(e.vram + prm.in))[k] = k * 7 + 1;
			sum += k * 7 + 1;
		}
		{
			struct vgpu_mem_range rg[2] = { { prm.in, n * 4 }, { prm.out, grid * 4 } };
			struct launch L = {
				.prog = &p, .entry = "reduce", .grid = { grid }, .block = { 512 },
				.dynamic_shared = 512 * 4, .params = &prm, .params_size = 20,
				.ranges = rg, .nranges = 2,
			};

			if (!(run(&e, &L, &res) == 0 && res.status == 0)) {
			printf("# reduce run\n");
			goto out2;
		}
		}
		for (uint32_t k = 0; k < grid; k++)
			got += ((uint32_t *)(e.vram + prm.out))[k];
		if (!(got == sum)) {
			printf("# two-level reduce: %u, expected %u\n", got, sum);
			goto out2;
		}
		printf("# two-level (2 active), reduce with barriers: %llu cycles\n",
		       (unsigned long long)res.cycles);
		r = 0;
out2:
		mb_fini(&e, &p);
		if (r)
			return r;
	}
	return 0;
}

static int capture_compare(const struct capture *a, const struct capture *b, uint32_t threads)
{
	CHECK(a->nev == b->nev && a->nsnap == b->nsnap,
	      "%u threads: %u events, %u models; 1 thread: %u, %u", threads, b->nev, b->nsnap,
	      a->nev, a->nsnap);
	for (uint32_t i = 0; i < a->nev; i++) {
		const struct vgpu_evt *x = &a->ev[i], *y = &b->ev[i];

		CHECK(!memcmp(x, y, sizeof(*x)),
		      "%u threads: event %u: job %u tb %u sm %u cycle %llu status %d"
		      " warp_insts %llu; 1 thread: job %u tb %u sm %u cycle %llu status %d"
		      " warp_insts %llu",
		      threads, i, y->job, y->tb, y->sm, (unsigned long long)y->cycle, y->status,
		      (unsigned long long)y->warp_insts, x->job, x->tb, x->sm,
		      (unsigned long long)x->cycle, x->status, (unsigned long long)x->warp_insts);
	}
	for (uint32_t i = 0; i < a->nsnap; i++) {
		const struct snapshot *x = &a->snap[i], *y = &b->snap[i];

		CHECK(x->cycle == y->cycle && x->events == y->events,
		      "%u threads: model %u ends at cycle %llu after %u events; 1 thread: %llu, %u",
		      threads, i, (unsigned long long)y->cycle, y->events,
		      (unsigned long long)x->cycle, x->events);
		CHECK(!memcmp(&x->st, &y->st, sizeof(x->st)), "%u threads: model %u: counters",
		      threads, i);
		CHECK(x->nsm == y->nsm && !memcmp(x->sm_st, y->sm_st, x->nsm * sizeof(*x->sm_st)),
		      "%u threads: model %u: SM counters", threads, i);
		CHECK(x->vram_hash == y->vram_hash, "%u threads: model %u: memory", threads, i);
	}
	return 0;
}

/*
 * Parallel simulation: the same tests on 1, 2 and 3 host threads give the
 * same events (every field), end cycles, counters (device and per SM) and
 * memory. Memory-bound (saxpy, stream), compute-bound (SP/SFU throughput),
 * atomics (histogram, atomics), barriers (reduce, bar), a fault and the
 * three schedulers, on several SMs.
 */
static int t_threads(void)
{
	static int (*const tests[])(void) = {
		t_saxpy, t_reduce, t_histogram, t_barrier, t_atomics, t_fault, t_schedulers,
		t_mb_throughput,
	};
	static const uint32_t counts[] = { 1, 2, 3 };
	struct capture cap[3];
	uint32_t saved = sim_threads, busy = 0;
	int r = -1;

	memset(cap, 0, sizeof(cap));
	for (size_t c = 0; c < 3; c++) {
		sim_threads = counts[c];
		capture = &cap[c];
		rng_state = 42;
		for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			MCHECK(tests[i]() == 0, "%u threads: test %zu failed", counts[c], i);
		capture = NULL;
	}
	/* the runs kept several SMs busy at once */
	for (uint32_t i = 0; i < cap[0].nsnap; i++) {
		uint32_t n = 0;

		for (uint32_t k = 0; k < cap[0].snap[i].nsm; k++)
			n += cap[0].snap[i].sm_st[k].warp_insts > 0;
		if (n > busy)
			busy = n;
	}
	MCHECK(cap[0].nev > 1000 && busy >= 15, "%u events, at most %u SMs busy", cap[0].nev,
	       busy);
	for (size_t c = 1; c < 3; c++)
		MCHECK(capture_compare(&cap[0], &cap[c], counts[c]) == 0, "%u threads differ",
		       counts[c]);
	printf("# 1, 2 and 3 threads: %u models, %u events identical\n", cap[0].nsnap,
	       cap[0].nev);
	r = 0;
out:
	capture = NULL;
	sim_threads = saved;
	for (size_t c = 0; c < 3; c++)
		capture_free(&cap[c]);
	return r;
}

/* ------------------------------------------------------------------ */
/* preemption (Documentation/model.rst, "Preemption") */

/* Cycles a context of @bytes takes to move: ceil(bytes / (DRAM B/cycle / SMs)). */
static uint64_t ctx_xfer(const struct vgpu_sim_config *c, uint64_t bytes)
{
	uint64_t num = bytes * c->desc.core_clock_khz * c->desc.num_sms;
	uint64_t den = (uint64_t)c->dram_bandwidth_mbs * 1000;

	return (num + den - 1) / den;
}

/* Loops with a per-lane, per-block trip count, two ways through the body, local memory. */
static const char divloop_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry divloop(.param .u64 out)\n{\n"
	"	.reg .pred %p<4>;\n	.reg .b32 %r<20>;\n	.reg .b64 %rd<8>;\n"
	"	.local .align 4 .b8 depot[64];\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mad.lo.s32 %r4, %r2, %r3, %r1;\n"
	"	rem.u32 %r5, %r1, 13;\n	rem.u32 %r6, %r2, 5;\n"
	"	mad.lo.s32 %r5, %r6, 9, %r5;\n"
	"	mov.u64 %rd2, depot;\n"
	"	mov.u32 %r14, 0;\n"
	"$Z:\n"
	"	setp.ge.u32 %p3, %r14, 16;\n	@%p3 bra $ZE;\n"
	"	shl.b32 %r15, %r14, 2;\n	cvt.u64.u32 %rd5, %r15;\n	add.s64 %rd6, %rd2, %rd5;\n"
	"	st.local.u32 [%rd6], 0;\n	add.s32 %r14, %r14, 1;\n	bra.uni $Z;\n"
	"$ZE:\n"
	"	mov.u32 %r7, 0;\n	mov.u32 %r8, %r4;\n"
	"$L:\n"
	"	setp.ge.u32 %p1, %r7, %r5;\n	@%p1 bra $E;\n"
	"	and.b32 %r9, %r7, 1;\n	setp.eq.s32 %p2, %r9, 0;\n	@%p2 bra $EVEN;\n"
	"	mul.lo.s32 %r8, %r8, 3;\n	add.s32 %r8, %r8, %r7;\n	bra.uni $NEXT;\n"
	"$EVEN:\n"
	"	xor.b32 %r8, %r8, 0x5bd1e995;\n	shr.u32 %r10, %r8, 3;\n	add.s32 %r8, %r8, %r10;\n"
	"$NEXT:\n"
	"	and.b32 %r11, %r7, 15;\n	shl.b32 %r11, %r11, 2;\n	cvt.u64.u32 %rd3, %r11;\n"
	"	add.s64 %rd4, %rd2, %rd3;\n	ld.local.u32 %r12, [%rd4];\n"
	"	add.s32 %r12, %r12, %r8;\n	st.local.u32 [%rd4], %r12;\n"
	"	add.s32 %r7, %r7, 1;\n	bra.uni $L;\n"
	"$E:\n"
	"	mov.u32 %r13, 0;\n	mov.u32 %r14, 0;\n"
	"$S:\n"
	"	setp.ge.u32 %p3, %r14, 16;\n	@%p3 bra $W;\n"
	"	shl.b32 %r15, %r14, 2;\n	cvt.u64.u32 %rd5, %r15;\n	add.s64 %rd6, %rd2, %rd5;\n"
	"	ld.local.u32 %r16, [%rd6];\n	add.s32 %r13, %r13, %r16;\n"
	"	add.s32 %r14, %r14, 1;\n	bra.uni $S;\n"
	"$W:\n"
	"	xor.b32 %r13, %r13, %r8;\n"
	"	cvta.to.global.u64 %rd1, %rd1;\n	mul.wide.u32 %rd7, %r4, 4;\n"
	"	add.s64 %rd7, %rd1, %rd7;\n	st.global.u32 [%rd7], %r13;\n"
	"	ret;\n}\n";

static uint32_t divloop_ref(uint32_t tid, uint32_t cta, uint32_t ntid)
{
	uint32_t depot[16] = { 0 }, acc = cta * ntid + tid, n = tid % 13 + cta % 5 * 9, sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (i & 1) {
			acc = acc * 3 + i;
		} else {
			acc ^= 0x5bd1e995u;
			acc += acc >> 3;
		}
		depot[i & 15] += acc;
	}
	for (int i = 0; i < 16; i++)
		sum += depot[i];
	return sum ^ acc;
}

/*
 * Virtual thread blocks (seed 003): a 2D grid of 128-thread blocks whose
 * warps do uneven work (the trip count depends on the block and the warp)
 * between a shared-memory exchange through a barrier and the read of a
 * sibling warp's value, a thread that returns early, and an output updated
 * by load-add-store (a (block, thread) pair run twice would show).
 */
static const char vtb_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry vt(.param .u64 out)\n{\n"
	"	.reg .pred %p<4>;\n	.reg .b32 %r<24>;\n	.reg .b64 %rd<6>;\n"
	"	.shared .align 4 .b8 buf[512];\n"
	"	ld.param.u64 %rd1, [out];\n	cvta.to.global.u64 %rd1, %rd1;\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ctaid.y;\n"
	"	mov.u32 %r4, %nctaid.x;\n	mad.lo.s32 %r5, %r3, %r4, %r2;\n"
	"	mov.u32 %r6, %ntid.x;\n	mad.lo.s32 %r7, %r5, %r6, %r1;\n"
	"	mad.lo.s32 %r9, %r7, 7, 3;\n"
	"	shl.b32 %r10, %r1, 2;\n	mov.u32 %r11, buf;\n	add.s32 %r12, %r11, %r10;\n"
	"	st.shared.u32 [%r12], %r9;\n"
	"	bar.sync 0;\n"
	"	setp.eq.u32 %p1, %r1, 100;\n	@%p1 ret;\n"
	"	shr.u32 %r13, %r1, 5;\n	mul.lo.s32 %r14, %r5, 7;\n"
	"	mad.lo.s32 %r14, %r13, 13, %r14;\n	rem.u32 %r14, %r14, 11;\n"
	"	shl.b32 %r14, %r14, 3;\n"
	"	mov.u32 %r15, 0;\n	mov.u32 %r16, %r7;\n"
	"$L:\n"
	"	setp.ge.u32 %p2, %r15, %r14;\n	@%p2 bra $E;\n"
	"	mad.lo.s32 %r16, %r16, 1103515245, 12345;\n	add.s32 %r15, %r15, 1;\n"
	"	bra.uni $L;\n"
	"$E:\n"
	"	add.s32 %r17, %r1, 37;\n	rem.u32 %r17, %r17, %r6;\n	shl.b32 %r17, %r17, 2;\n"
	"	add.s32 %r17, %r11, %r17;\n	ld.shared.u32 %r18, [%r17];\n"
	"	add.s32 %r19, %r18, %r16;\n"
	"	mul.wide.u32 %rd2, %r7, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	ld.global.u32 %r20, [%rd3];\n	add.s32 %r20, %r20, %r19;\n"
	"	st.global.u32 [%rd3], %r20;\n"
	"	ret;\n}\n";

static uint32_t vtb_ref(uint32_t b, uint32_t tid, uint32_t ntid)
{
	uint32_t g = b * ntid + tid, src = (tid + 37) % ntid;
	uint32_t n = (b * 7 + tid / 32 * 13) % 11 * 8, acc = g;

	if (tid == 100)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		acc = acc * 1103515245u + 12345u;
	return (b * ntid + src) * 7 + 3 + acc;
}

/*
 * Runs vtb_ptx (@opts) on a 9 x 7 grid on fermi-gtx480 cut to @sms SMs of
 * at most @tbs_per_sm blocks each; output in *@out. A virtualised entry gets
 * as many blocks as fill that device (vgpu_submit_validate()).
 */
static int vtb_run(struct env *e, unsigned int opts, const char *sms, const char *tbs_per_sm,
		   uint32_t **out, struct result *res)
{
	const uint32_t nt = 9 * 7 * 128;
	const char *const kv[] = { "num_sms", sms, "max_tbs_per_sm", tbs_per_sm, NULL };
	struct prog p;
	uint64_t prm;
	int r;

	if (env_init_kv(e, "fermi-gtx480", kv, 16u << 20))
		return -1;
	if (load_ptx_opts(e, vtb_ptx, strlen(vtb_ptx), opts, &p))
		return -1;
	prm = dalloc(e, nt * 4);
	memset(e->vram + prm, 0, nt * 4);
	*out = (uint32_t *)(e->vram + prm);
	{
		struct vgpu_mem_range rg = { prm, nt * 4 };
		struct launch L = {
			.prog = &p, .entry = "vt", .grid = { 9, 7 }, .block = { 128 },
			.params = &prm, .params_size = 8, .ranges = &rg, .nranges = 1,
		};

		r = run(e, &L, res);
	}
	free(p.image);
	return r ? r : res->status;
}

/*
 * The transformed kernel on 2 SMs of 3 blocks (6 virtual blocks for 63
 * logical ones) and on 1 SM of 1 block gives what the original gives on its
 * 63 blocks, and the CPU reference, bit for bit; the same cycles twice;
 * NEXTTB outside a virtualised entry does not decode.
 */
static int t_virtual_tb(void)
{
	const uint32_t nt = 9 * 7 * 128;
	struct result ro, rv, rv2, r1;
	uint32_t *orig = malloc(nt * 4), *o;
	struct env e;
	int r = -1;

	CHECK(orig, "memory");
	MCHECK(vtb_run(&e, 0, "2", "3", &o, &ro) == 0, "original");
	memcpy(orig, o, nt * 4);
	env_fini(&e);
	for (uint32_t i = 0; i < nt; i++)
		MCHECK(orig[i] == vtb_ref(i / 128, i % 128, 128), "original: out[%u] = %u, want %u",
		       i, orig[i], vtb_ref(i / 128, i % 128, 128));
	MCHECK(vtb_run(&e, VGPU_COMPILE_VIRTUAL_TB, "2", "3", &o, &rv) == 0, "virtual, 6 blocks");
	MCHECK(!memcmp(o, orig, nt * 4), "virtual output differs from the original");
	env_fini(&e);
	MCHECK(rv.tbs == 6 && ro.tbs == 63, "blocks: %u virtual, %u original", rv.tbs, ro.tbs);
	MCHECK(vtb_run(&e, VGPU_COMPILE_VIRTUAL_TB, "2", "3", &o, &rv2) == 0, "virtual again");
	env_fini(&e);
	MCHECK(rv2.cycles == rv.cycles && rv2.warp_insts == rv.warp_insts,
	       "repeat: %llu cycles, first %llu", (unsigned long long)rv2.cycles,
	       (unsigned long long)rv.cycles);
	MCHECK(vtb_run(&e, VGPU_COMPILE_VIRTUAL_TB, "1", "1", &o, &r1) == 0, "virtual, 1 block");
	MCHECK(!memcmp(o, orig, nt * 4), "one virtual block: output differs");
	MCHECK(r1.tbs == 1, "one SM of one block: %u virtual blocks", r1.tbs);
	env_fini(&e);
	printf("# 63 blocks: %llu cycles, %llu warp insts; 6 virtual: %llu, %llu; 1: %llu\n",
	       (unsigned long long)ro.cycles, (unsigned long long)ro.warp_insts,
	       (unsigned long long)rv.cycles, (unsigned long long)rv.warp_insts,
	       (unsigned long long)r1.cycles);
	/*
	 * LowestToHighestLane and SlowestLane (§4.2.2): warps run other warps'
	 * threads of a logical block, the output stays the original's (the
	 * barrier, the sibling's shared value, the early return are per logical
	 * warp), the cycles repeat, and they are not SameLane's.
	 */
	for (int k = 0; k < 2; k++) {
		unsigned int opts = VGPU_COMPILE_VIRTUAL_TB |
				    (k ? VGPU_COMPILE_VTB_SLOWEST : VGPU_COMPILE_VTB_LOWEST);
		const char *name = k ? "slowest" : "lowest";
		struct result rm, rm2, rm1;

		MCHECK(vtb_run(&e, opts, "2", "3", &o, &rm) == 0, "%s, 6 blocks", name);
		MCHECK(!memcmp(o, orig, nt * 4), "%s: output differs from the original", name);
		env_fini(&e);
		MCHECK(vtb_run(&e, opts, "2", "3", &o, &rm2) == 0, "%s again", name);
		env_fini(&e);
		MCHECK(rm2.cycles == rm.cycles && rm2.warp_insts == rm.warp_insts,
		       "%s repeat: %llu cycles, first %llu", name, (unsigned long long)rm2.cycles,
		       (unsigned long long)rm.cycles);
		MCHECK(vtb_run(&e, opts, "1", "1", &o, &rm1) == 0, "%s, 1 block", name);
		MCHECK(!memcmp(o, orig, nt * 4), "%s, one virtual block: output differs", name);
		env_fini(&e);
		MCHECK(rm.cycles != rv.cycles || rm1.cycles != r1.cycles,
		       "%s: the cycles of SameLane (%llu, %llu)", name,
		       (unsigned long long)rv.cycles, (unsigned long long)r1.cycles);
		printf("# %s: 6 virtual: %llu cycles, %llu warp insts; 1: %llu\n", name,
		       (unsigned long long)rm.cycles, (unsigned long long)rm.warp_insts,
		       (unsigned long long)rm1.cycles);
	}
	/* the flag cleared: NEXTTB is an illegal instruction there */
	{
		struct prog p = { 0 };
		struct vgpu_program_header *h;
		struct vgpu_program_entry *pe;
		struct result rb;
		char err[256];
		size_t size;
		uint64_t prm;

		MCHECK(env_init(&e, "fermi-gtx480", 8u << 20) == 0, "env");
		MCHECK(vgpu_compile_ptx_opts(vtb_ptx, strlen(vtb_ptx), VGPU_COMPILE_VIRTUAL_TB,
					     &p.image, &size, err, sizeof(err)) == 0,
		       "compile: %s", err);
		h = p.image;
		pe = (struct vgpu_program_entry *)((char *)p.image + h->entries_offset);
		MCHECK(pe->flags & VGPU_ENTRY_VIRTUAL_TB, "the compiler marks the entry");
		pe->flags &= ~(uint32_t)VGPU_ENTRY_VIRTUAL_TB;
		p.size = (uint32_t)size;
		MCHECK(vgpu_program_create_image(e.dev, p.image, size, &p.vp) == 0, "load");
		prm = dalloc(&e, nt * 4);
		{
			struct vgpu_mem_range rg = { prm, nt * 4 };
			struct launch L = {
				.prog = &p, .entry = "vt", .grid = { 2 }, .block = { 128 },
				.params = &prm, .params_size = 8, .ranges = &rg, .nranges = 1,
			};

			MCHECK(run(&e, &L, &rb) == 0 && rb.status == -EILSEQ,
			       "NEXTTB without the flag: status %d", rb.status);
		}
		vgpu_program_destroy(p.vp);
		free(p.image);
		env_fini(&e);
	}
	r = 0;
out:
	free(orig);
	return r;
}

/*
 * Thread-index assignment (seed 003 §4.2.2) seen from inside: blocks of two
 * warps, logical warp 0 of each does a long loop, warp 1 nothing; every
 * thread writes its physical warp (%warpid, the warp's slot) and its
 * result. One SM of one block runs the 8 logical blocks in order.
 */
static const char lanes_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry ln(.param .u64 out)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<12>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	cvta.to.global.u64 %rd1, %rd1;\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mad.lo.s32 %r4, %r2, %r3, %r1;\n	mov.u32 %r5, %warpid;\n"
	"	mov.u32 %r6, %r4;\n	mov.u32 %r7, 0;\n"
	"	setp.ge.u32 %p1, %r1, 32;\n	@%p1 bra $D;\n"
	"$L:\n"
	"	mad.lo.s32 %r6, %r6, 1103515245, 12345;\n	add.s32 %r7, %r7, 1;\n"
	"	setp.lt.u32 %p2, %r7, 300;\n	@%p2 bra $L;\n"
	"$D:\n"
	"	mul.wide.u32 %rd2, %r4, 8;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.v2.u32 [%rd3], {%r5, %r6};\n"
	"	ret;\n}\n";

#define LN_BLOCKS	8

/* *@phys[b] (b < LN_BLOCKS): the physical warp logical warp 0 of block b ran on */
static int lanes_run(unsigned int opts, uint32_t *phys, struct result *res)
{
	const uint32_t nt = LN_BLOCKS * 64;
	const char *const kv[] = { "num_sms", "1", "max_tbs_per_sm", "1", NULL };
	struct env e;
	struct prog p;
	uint32_t *out;
	uint64_t prm;
	int r = -1;

	if (env_init_kv(&e, "fermi-gtx480", kv, 16u << 20))
		return -1;
	if (load_ptx_opts(&e, lanes_ptx, strlen(lanes_ptx), opts, &p))
		goto out;
	prm = dalloc(&e, nt * 8);
	memset(e.vram + prm, 0, nt * 8);
	out = (uint32_t *)(e.vram + prm);
	{
		struct vgpu_mem_range rg = { prm, nt * 8 };
		struct launch L = {
			.prog = &p, .entry = "ln", .grid = { LN_BLOCKS }, .block = { 64 },
			.params = &prm, .params_size = 8, .ranges = &rg, .nranges = 1,
		};

		r = run(&e, &L, res);
		if (!r)
			r = res->status;
	}
	free(p.image);
	for (uint32_t b = 0; !r && b < LN_BLOCKS; b++) {
		phys[b] = out[b * 128];
		for (uint32_t t = 0; t < 64; t++) {
			uint32_t g = b * 64 + t, acc = g;

			for (uint32_t i = 0; t < 32 && i < 300; i++)
				acc = acc * 1103515245u + 12345u;
			/* a logical warp runs whole on one physical warp, the two differ */
			if (out[g * 2 + 1] != acc || out[g * 2] != out[(b * 64 + t / 32 * 32) * 2] ||
			    (t >= 32 && out[g * 2] == phys[b])) {
				fprintf(stderr, "block %u thread %u: warp %u value %u, want %u\n", b, t,
					out[g * 2], out[g * 2 + 1], acc);
				r = -1;
				break;
			}
		}
	}
out:
	env_fini(&e);
	return r;
}

/*
 * SameLane keeps the heavy logical warp 0 on one physical warp, its sibling
 * idles at each NEXTTB (at most one iteration ahead). LowestToHighestLane
 * gives index 0 to the first warp to take the next block: the one that ran
 * the light warp 1, so warp 0's physical warp alternates. SlowestLane gives
 * it the index of the warp with the least progress (instructions) in the
 * previous block when the first warp finishes it. The first block is
 * SameLane's; at its end both warps started together and the loop has
 * issued more than warp 1's few instructions. From then on the warp that
 * ran warp 1 waits at NEXTTB until the other takes its block, so its
 * sibling has the least progress when it finishes: warp 0 alternates from
 * block 2 on. Both take fewer cycles than SameLane, and differ.
 */
static int t_virtual_tb_lanes(void)
{
	static const unsigned int modes[3] = { VGPU_COMPILE_VIRTUAL_TB,
					       VGPU_COMPILE_VIRTUAL_TB | VGPU_COMPILE_VTB_LOWEST,
					       VGPU_COMPILE_VIRTUAL_TB | VGPU_COMPILE_VTB_SLOWEST };
	uint32_t phys[3][LN_BLOCKS];
	struct result res[3];

	for (int m = 0; m < 3; m++) {
		CHECK(lanes_run(modes[m], phys[m], &res[m]) == 0, "mode %d: run or output", m);
		printf("# lanes mode %d: %llu cycles; warp 0 on", m,
		       (unsigned long long)res[m].cycles);
		for (int b = 0; b < LN_BLOCKS; b++)
			printf(" %u", phys[m][b]);
		printf("\n");
	}
	for (int b = 1; b < LN_BLOCKS; b++) {
		CHECK(phys[0][b] == phys[0][0], "same: block %d's warp 0 on %u, block 0's on %u",
		      b, phys[0][b], phys[0][0]);
		CHECK(phys[1][b] != phys[1][b - 1], "lowest: blocks %d and %d on warp %u", b - 1,
		      b, phys[1][b]);
		CHECK(b < 2 || phys[2][b] != phys[2][b - 1], "slowest: blocks %d and %d on warp %u",
		      b - 1, b, phys[2][b]);
	}
	CHECK(phys[2][1] == phys[2][0], "slowest: block 1 on warp %u, block 0 on %u", phys[2][1],
	      phys[2][0]);
	CHECK(res[1].cycles != res[2].cycles, "lowest and slowest: %llu cycles",
	      (unsigned long long)res[1].cycles);
	CHECK(res[1].cycles < res[0].cycles && res[2].cycles < res[0].cycles,
	      "cycles: same %llu, lowest %llu, slowest %llu", (unsigned long long)res[0].cycles,
	      (unsigned long long)res[1].cycles, (unsigned long long)res[2].cycles);
	return 0;
}

/*
 * Sub-core assignment at dispatch (sub-core paper Sec. IV-B): the warp
 * slot each warp of two resident blocks got on one volta SM (4 sub-cores;
 * slot k belongs to sub-core k % 4), read back through %warpid.
 */
static const char subcore_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry sc(.param .u64 out)\n{\n"
	"	.reg .pred %p<2>;\n	.reg .b32 %r<8>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	cvta.to.global.u64 %rd1, %rd1;\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %laneid;\n"
	"	setp.ne.u32 %p1, %r3, 0;\n	@%p1 bra $D;\n"
	"	shr.u32 %r4, %r1, 5;\n	shl.b32 %r5, %r2, 4;\n	add.s32 %r4, %r4, %r5;\n"
	"	mov.u32 %r6, %warpid;\n"
	"	mul.wide.u32 %rd2, %r4, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r6;\n"
	"$D:\n"
	"	ret;\n}\n";

#define SC_WARPS	32	/* two blocks of 16 warps */

/*
 * One launch on one volta SM configured with @kv: @grid blocks of @block
 * threads of @entry in @ptx, whose one parameter points at @words 32-bit
 * words (filled with @fill bytes first); the words after it in @out, the
 * cycles in *@cycles (may be NULL).
 */
static int volta1_run(const char *const *kv, const char *ptx, const char *entry, uint32_t grid,
		      uint32_t block, uint32_t words, uint8_t fill, uint32_t *out,
		      uint64_t *cycles)
{
	struct env e;
	struct prog p;
	struct result res;
	uint64_t prm;
	int r = -1;

	if (env_init_kv(&e, "volta-v100", kv, 16u << 20))
		return -1;
	if (load_ptx_text(&e, ptx, strlen(ptx), &p))
		goto out;
	prm = dalloc(&e, words * 4);
	memset(e.vram + prm, fill, words * 4);
	{
		struct vgpu_mem_range rg = { prm, words * 4 };
		struct launch L = {
			.prog = &p, .entry = entry, .grid = { grid }, .block = { block },
			.params = &prm, .params_size = 8, .ranges = &rg, .nranges = 1,
		};

		r = run(&e, &L, &res);
		if (!r)
			r = res.status;
	}
	free(p.image);
	if (!r) {
		memcpy(out, e.vram + prm, words * 4);
		if (cycles)
			*cycles = res.cycles;
	}
out:
	env_fini(&e);
	return r;
}

static int subcore_run(const char *mode, uint32_t *slot)
{
	const char *const kv[] = { "num_sms", "1", "subcore_assign", mode, "subcore_seed", "7",
				   NULL };

	return volta1_run(kv, subcore_ptx, "sc", 2, 512, SC_WARPS, 0xff, slot, NULL);
}

/*
 * The slots dispatch gave the warps follow the assignment: warp id W (the
 * blocks are resident together, so block 1's warps are ids 16-31) lands on
 * sub-core W % 4 under round robin, (W + W / 4) % 4 under skewed round
 * robin, and under Shuffle on a permutation of the four sub-cores per group
 * of four ids, not round robin's, the same in a second run.
 */
static int t_subcore_dispatch(void)
{
	uint32_t rr[SC_WARPS], srr[SC_WARPS], sh[SC_WARPS], sh2[SC_WARPS];
	bool differs = false;

	CHECK(subcore_run("rr", rr) == 0, "rr: run");
	CHECK(subcore_run("srr", srr) == 0, "srr: run");
	CHECK(subcore_run("shuffle", sh) == 0, "shuffle: run");
	CHECK(subcore_run("shuffle", sh2) == 0, "shuffle again: run");
	printf("# sub-cores of warps 0-%u: rr", SC_WARPS - 1);
	for (uint32_t w = 0; w < SC_WARPS; w++)
		printf("%s%u", w ? " " : " ", rr[w] % 4);
	printf("; srr");
	for (uint32_t w = 0; w < SC_WARPS; w++)
		printf(" %u", srr[w] % 4);
	printf("; shuffle");
	for (uint32_t w = 0; w < SC_WARPS; w++)
		printf(" %u", sh[w] % 4);
	printf("\n");
	for (uint32_t w = 0; w < SC_WARPS; w++) {
		CHECK(rr[w] == w, "rr: warp %u in slot %u", w, rr[w]);
		CHECK(srr[w] < 64 && srr[w] % 4 == (w + w / 4) % 4,
		      "srr: warp %u in slot %u (sub-core %u), want sub-core %u", w, srr[w],
		      srr[w] % 4, (w + w / 4) % 4);
		CHECK(sh[w] < 64 && sh[w] == sh2[w], "shuffle: warp %u in slot %u, then %u", w,
		      sh[w], sh2[w]);
		CHECK(sh[w] % 4 == vgpu_sim_subcore_of(VGPU_SUBCORE_SHUFFLE, 7, 0, w, 4),
		      "shuffle: warp %u on sub-core %u, the assignment says %u", w, sh[w] % 4,
		      vgpu_sim_subcore_of(VGPU_SUBCORE_SHUFFLE, 7, 0, w, 4));
		differs |= sh[w] % 4 != w % 4;
	}
	for (uint32_t g = 0; g < SC_WARPS; g += 4) {
		uint32_t seen = 0;

		for (uint32_t w = g; w < g + 4; w++)
			seen |= 1u << (sh[w] % 4);
		CHECK(seen == 15, "shuffle: warps %u-%u on sub-cores 0x%x, not all four", g,
		      g + 3, seen);
	}
	CHECK(differs, "shuffle placed every warp as round robin does");
	return 0;
}

/*
 * A fully connected SM (fully_connected = 1; sub-core paper Sec. I): one
 * block of 8 warps on one volta SM, of which warps 0 and 4 alone run a
 * loop of independent FMAs (the others exit at once). Split into sub-cores
 * under round robin both sit on sub-core 0 and share its scheduler and SP
 * unit (alu_ii 2); fully connected, the second issues from another
 * scheduler to another SP unit, as the paper's monolithic SM lets it. The
 * results are the same; the assignment no longer matters.
 */
static const char fc_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry fc(.param .u64 out)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<8>;\n	.reg .f32 %f<8>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	cvta.to.global.u64 %rd1, %rd1;\n"
	"	mov.u32 %r1, %tid.x;\n	shr.u32 %r2, %r1, 5;\n	and.b32 %r3, %r2, 3;\n"
	"	setp.ne.u32 %p1, %r3, 0;\n	@%p1 bra $D;\n"
	"	cvt.rn.f32.u32 %f1, %r1;\n	mov.f32 %f2, %f1;\n	mov.f32 %f3, %f1;\n"
	"	mov.f32 %f4, %f1;\n	mov.u32 %r4, 0;\n"
	"$L:\n"
	"	fma.rn.f32 %f1, %f1, 0f3F000000, 0f3F800000;\n"
	"	fma.rn.f32 %f2, %f2, 0f3F000000, 0f40000000;\n"
	"	fma.rn.f32 %f3, %f3, 0f3F000000, 0f40400000;\n"
	"	fma.rn.f32 %f4, %f4, 0f3F000000, 0f40800000;\n"
	"	add.s32 %r4, %r4, 1;\n	setp.lt.u32 %p2, %r4, 256;\n	@%p2 bra $L;\n"
	"	add.f32 %f1, %f1, %f2;\n	add.f32 %f3, %f3, %f4;\n	add.f32 %f1, %f1, %f3;\n"
	"	mul.wide.u32 %rd2, %r1, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.f32 [%rd3], %f1;\n"
	"$D:\n"
	"	ret;\n}\n";

static int fc_run(const char *fc, const char *assign, uint32_t *out, uint64_t *cycles)
{
	const char *const kv[] = { "num_sms", "1", "fully_connected", fc, "subcore_assign",
				   assign, NULL };

	return volta1_run(kv, fc_ptx, "fc", 1, 256, 256, 0, out, cycles);
}

static int t_fully_connected(void)
{
	uint32_t split[256], fc[256], fc2[256];
	uint64_t c_split, c_fc, c_fc2;

	CHECK(fc_run("0", "rr", split, &c_split) == 0, "sub-cores: run");
	CHECK(fc_run("1", "rr", fc, &c_fc) == 0, "fully connected: run");
	CHECK(fc_run("1", "srr", fc2, &c_fc2) == 0, "fully connected, srr: run");
	printf("# two busy warps on sub-core 0: %llu cycles split, %llu fully connected\n",
	       (unsigned long long)c_split, (unsigned long long)c_fc);
	CHECK(!memcmp(split, fc, sizeof(fc)) && !memcmp(fc, fc2, sizeof(fc)), "results differ");
	CHECK(split[0] != 0 && split[128] != 0 && split[32] == 0, "the busy warps wrote");
	CHECK(c_fc * 4 < c_split * 3, "fully connected %llu cycles, split %llu: not faster",
	      (unsigned long long)c_fc, (unsigned long long)c_split);
	CHECK(c_fc == c_fc2, "fully connected: the assignment changed the cycles (%llu, %llu)",
	      (unsigned long long)c_fc, (unsigned long long)c_fc2);
	return 0;
}

/* What the stress driver saw of preemption. */
struct pstats {
	uint32_t switches, flushes, moved, boundary_refusals;
	uint64_t cycles;		/* the kernel's */
	uint64_t insts;			/* warp instructions of all its blocks */
	uint64_t xfer_min, xfer_max;	/* transfer cycles of the switches */
	uint64_t drain_min, drain_max;	/* switch latency beyond the transfer */
};

/* preemptions per stressed kernel */
#define PSTRESS_MAX	150

/* A block waiting for a slot: from its start, or from a saved context. */
struct pitem {
	uint32_t tb;
	bool restore;
	uint64_t addr;
	uint32_t sm, slot;	/* where it was switched out */
};

struct pslot {
	uint8_t state;		/* 0 free, 1 running, 2 being preempted */
	uint32_t tb;
	uint64_t cmd_cycle, addr;
};

static uint64_t prng(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Runs @L, commanding the model itself: the driver never preempts at an
 * arbitrary cycle (its preempt_stress acts at scheduling points only), so
 * the blocks go into free slots here, the driver's descriptor, occupancy
 * and block footprint (raw_layout()) at most @L->max_tbs_per_sm per SM,
 * and with @seed != 0 a random running block is preempted at pseudo-random
 * cycles: a SWITCH, whose block later resumes with
 * RESTORE in another slot where one frees up, or a FLUSH (only blocks that
 * have not crossed their idempotence boundary), whose block reruns from its
 * start. @insts[tb]: the warp instructions of each block's TB_DONE; with
 * @check set, they must equal those given (the blocks' totals are the same
 * however often they were preempted).
 */
static int pstress_run(struct env *e, const struct launch *L, uint64_t seed, uint64_t *insts,
		       bool check, struct pstats *ps)
{
	const struct vgpu_device_desc *dev = &e->cfg.desc;
	uint32_t job = e->next_job++, ntbs, threads, regs_tb, shared_tb, per_sm;
	uint32_t done = 0, nq = 0, nslots, running = 0;
	uint64_t t0 = vgpu_sim_cycle(e->sim);
	const struct vgpu_program_entry *pe = entry_of(L->prog, L->entry);
	struct vgpu_local_layout lay;
	struct vgpu_tb_status *status = NULL;
	struct pslot *sl = NULL;
	struct pitem *q = NULL;
	uint64_t *save = NULL;	/* per block: its save area, reused */
	uint8_t *times = NULL;	/* per block: how often it was preempted */
	uint64_t ctxb, xfer, rs = seed, total = 0;
	bool virt;
	int r = -1;

	/* the driver's descriptor, occupancy and block footprint */
	if (!pe || raw_layout(e, L, job, &lay) || vgpu_sim_job_begin(e->sim, job, lay.desc_addr))
		return -1;
	ntbs = L->num_tbs ? L->num_tbs : lay.num_tbs;
	virt = pe->flags & VGPU_ENTRY_VIRTUAL_TB;
	threads = (L->block[0] ? L->block[0] : 1) * (L->block[1] ? L->block[1] : 1) *
		  (L->block[2] ? L->block[2] : 1);
	regs_tb = lay.regs_per_tb;
	shared_tb = lay.shared_per_tb;
	ctxb = vgpu_ctx_bytes(threads, pe->regs_per_thread, pe->shared_static + L->dynamic_shared,
			      pe->local_per_thread);
	xfer = ctx_xfer(&e->cfg, ctxb);
	/* fewer slots than fit, by hand: blocks queue for slots freed by preemption */
	per_sm = L->max_tbs_per_sm && L->max_tbs_per_sm < lay.tbs_per_sm ? L->max_tbs_per_sm :
									 lay.tbs_per_sm;
	nslots = dev->num_sms * dev->max_tbs_per_sm;
	sl = calloc(nslots, sizeof(*sl));
	status = calloc(nslots, sizeof(*status));
	/* each block enters the queue at most once per preemption, plus once */
	q = calloc(ntbs + PSTRESS_MAX, sizeof(*q));
	save = calloc(ntbs, sizeof(*save));
	times = calloc(ntbs, 1);
	if (!sl || !status || !q || !save || !times || !per_sm)
		goto out;
	for (uint32_t i = 0; i < ntbs; i++)
		q[nq++] = (struct pitem){ .tb = i };
	for (;;) {
		struct vgpu_evt ev[16];
		uint64_t now = vgpu_sim_cycle(e->sim), limit = UINT64_MAX;
		int n;

		/* every free slot takes the first block waiting that did not just leave it */
		for (uint32_t k = 0; k < per_sm && nq; k++) {
			for (uint32_t s = 0; s < dev->num_sms && nq; s++) {
				struct pslot *p = &sl[s * dev->max_tbs_per_sm + k];
				uint32_t i;

				if (p->state)
					continue;
				for (i = 0; i < nq; i++)
					if (!q[i].restore || q[i].sm != s || q[i].slot != k)
						break;
				if (i == nq) {
					if (running)
						continue;
					i = 0;
				}
				{
					struct vgpu_cmd c = {
						.op = VGPU_CMD_DISPATCH, .job = job, .tb = q[i].tb,
						.sm = s, .slot = k, .reg_base = k * regs_tb,
						.shared_base = k * shared_tb, .addr = q[i].addr,
						.flags = q[i].restore ? VGPU_DISPATCH_RESTORE : 0,
					};

					n = vgpu_sim_dispatch(e->sim, &c);
					if (n) {
						printf("# dispatch of tb %u: %d\n", q[i].tb, n);
						goto out;
					}
				}
				ps->moved += q[i].restore && (q[i].sm != s || q[i].slot != k);
				p->state = 1;
				p->tb = q[i].tb;
				running++;
				memmove(q + i, q + i + 1, (nq - i - 1) * sizeof(*q));
				nq--;
			}
		}
		if (done == ntbs)
			break;
		if (seed && ps->switches + ps->flushes < PSTRESS_MAX)
			limit = now + 30 + prng(&rs) % 500;
		n = vgpu_sim_step(e->sim, limit, ev, 16);
		if (n < 0 || (n == 0 && vgpu_sim_cycle(e->sim) != limit)) {
			printf("# step: %d at cycle %llu, %u of %u blocks done\n", n,
			       (unsigned long long)vgpu_sim_cycle(e->sim), done, ntbs);
			goto out;
		}
		now = vgpu_sim_cycle(e->sim);
		if (n == 0) {
			/* a random running block */
			uint32_t pick = UINT32_MAX, cnt = 0, x;
			struct vgpu_cmd c = { .op = VGPU_CMD_PREEMPT, .job = job };
			struct vgpu_tb_status *ts;
			int pr;

			/* at most 3 times a block, or one could be preempted forever */
			for (uint32_t i = 0; i < nslots; i++)
				if (sl[i].state == 1 && times[sl[i].tb] < 3 && prng(&rs) % ++cnt == 0)
					pick = i;
			if (pick == UINT32_MAX)
				continue;
			vgpu_sim_tb_status(e->sim, status, dev->max_tbs_per_sm);
			ts = &status[pick];
			MCHECK(ts->job == job && ts->tb == sl[pick].tb, "status of slot %u: job %u tb %u",
			       pick, ts->job, ts->tb);
			c.tb = sl[pick].tb;
			times[c.tb]++;
			c.sm = pick / dev->max_tbs_per_sm;
			c.slot = pick % dev->max_tbs_per_sm;
			x = (uint32_t)(prng(&rs) % 2);
			if (x && (ts->flags & VGPU_TB_STATUS_CROSSED_BOUNDARY)) {
				ps->boundary_refusals++;
				x = 0;
			}
			if (x) {
				c.flags = VGPU_PREEMPT_FLUSH;
			} else {
				c.flags = VGPU_PREEMPT_SWITCH;
				if (!save[c.tb])
					save[c.tb] = dalloc(e, ctxb);
				c.addr = save[c.tb];
			}
			pr = vgpu_sim_preempt(e->sim, &c);
			MCHECK(pr == 0, "preempt: %d", pr);
			sl[pick].state = 2;
			sl[pick].cmd_cycle = now;
			sl[pick].addr = c.addr;
			if (c.flags == VGPU_PREEMPT_SWITCH)
				ps->switches++;
			else
				ps->flushes++;
			continue;
		}
		for (int i = 0; i < n; i++) {
			const struct vgpu_evt *v = &ev[i];
			struct pslot *p = &sl[v->sm * dev->max_tbs_per_sm + v->slot];

			capture_event(v);
			MCHECK(v->job == job && v->cycle == now && v->status == 0 && v->sm < dev->num_sms &&
			       v->slot < dev->max_tbs_per_sm && p->state && p->tb == v->tb,
			       "event type %u job %u tb %u sm %u slot %u cycle %llu status %d",
			       v->type, v->job, v->tb, v->sm, v->slot, (unsigned long long)v->cycle,
			       v->status);
			if (v->type == VGPU_EVT_TB_DONE) {
				total += v->warp_insts;
				/* which logical blocks a virtual block takes depends on timing */
				if (check && !virt)
					MCHECK(v->warp_insts == insts[v->tb],
					       "tb %u: %llu warp insts, %llu without preemption", v->tb,
					       (unsigned long long)v->warp_insts,
					       (unsigned long long)insts[v->tb]);
				insts[v->tb] = v->warp_insts;
				done++;
			} else {
				MCHECK(v->type == VGPU_EVT_PREEMPTED && p->state == 2, "event type %u",
				       v->type);
				MCHECK(v->tb_cycles == now - p->cmd_cycle, "latency %llu, %llu cycles since",
				       (unsigned long long)v->tb_cycles,
				       (unsigned long long)(now - p->cmd_cycle));
				if (v->flags == VGPU_PREEMPT_SWITCH) {
					uint64_t extra = v->tb_cycles - xfer;

					MCHECK(v->tb_cycles >= xfer, "switch took %llu cycles, transfer %llu",
					       (unsigned long long)v->tb_cycles, (unsigned long long)xfer);
					if (extra < ps->drain_min)
						ps->drain_min = extra;
					if (extra > ps->drain_max)
						ps->drain_max = extra;
					if (xfer < ps->xfer_min)
						ps->xfer_min = xfer;
					if (xfer > ps->xfer_max)
						ps->xfer_max = xfer;
					/* only a saved context can resume */
					q[nq++] = (struct pitem){ .tb = v->tb, .restore = true,
								  .addr = p->addr, .sm = v->sm,
								  .slot = v->slot };
				} else {
					MCHECK(v->flags == VGPU_PREEMPT_FLUSH && v->tb_cycles == 0,
					       "flush: flags %u latency %llu", v->flags,
					       (unsigned long long)v->tb_cycles);
					q[nq++] = (struct pitem){ .tb = v->tb };
				}
			}
			p->state = 0;
			running--;
		}
	}
	MCHECK(!vgpu_sim_busy(e->sim), "busy after the last block");
	/* every (logical block, warp) ran once however the blocks were preempted */
	if (check)
		MCHECK(total == ps->insts, "%llu warp insts, %llu without preemption",
		       (unsigned long long)total, (unsigned long long)ps->insts);
	ps->insts = total;
	ps->cycles = vgpu_sim_cycle(e->sim) - t0;
	vgpu_sim_job_end(e->sim, job);
	r = 0;
out:
	free(sl);
	free(status);
	free(q);
	free(save);
	free(times);
	return r;
}

/* the local device's idempotence in pstress_kernel() (NULL: its default) */
static const char *pstress_idem;

/* PK_V*: the same kernels compiled into virtual thread blocks */
enum { PK_SAXPY, PK_REDUCE, PK_HIST, PK_HIST_SHARED, PK_DIVLOOP, PK_VREDUCE, PK_VDIVLOOP, PK_N };

/*
 * One kernel of the stress on a fresh model: inputs from a fixed seed, the
 * run (preempted with @seed != 0), the result against the CPU reference.
 */
static int pstress_kernel(int kind, uint64_t seed, uint64_t *insts, bool check,
			  struct pstats *ps)
{
	static const char *const files[PK_N] = { "saxpy.ptx", "reduce.ptx", "histogram.ptx",
						 "histogram.ptx", NULL, "reduce.ptx", NULL };
	bool virt = kind >= PK_VREDUCE;
	struct env e;
	struct prog p = { 0 };
	uint64_t ds = 777 + (uint64_t)kind;
	char rel[64];
	size_t len = strlen(divloop_ptx);
	char *src = NULL;
	int r = -1;

	if (files[kind]) {
		snprintf(rel, sizeof(rel), "userspace/workloads/%s", files[kind]);
		src = read_src(rel, &len);
		if (!src)
			return -1;
	}
	if (env_init(&e, "fermi-gtx480", 64u << 20) ||
	    (pstress_idem && vgpu_local_attr_store(e.dev, "idempotence", pstress_idem)) ||
	    load_ptx_opts(&e, src ? src : divloop_ptx, len, virt ? VGPU_COMPILE_VIRTUAL_TB : 0,
			  &p)) {
		env_fini(&e);
		free(p.image);
		free(src);
		return -1;
	}
	free(src);
	switch (kind) {
	case PK_SAXPY: {
		uint32_t n = 60000;
		struct saxpy_params prm = { n, 2.5f, dalloc(&e, n * 4), dalloc(&e, n * 4) };
		float *x = (float *)(e.vram + prm.x), *y = (float *)(e.vram + prm.y), *ref;
		struct vgpu_mem_range rg[2] = { { prm.x, n * 4 }, { prm.y, n * 4 } };
		struct launch L = {
			.prog = &p, .entry = "saxpy_stride", .grid = { 60 }, .block = { 256 },
			.params = &prm, .params_size = 24, .ranges = rg, .nranges = 2,
			.max_tbs_per_sm = 3,
		};

		ref = malloc(n * 4);
		if (!ref)
			break;
		for (uint32_t i = 0; i < n; i++) {
			x[i] = (float)(prng(&ds) % 100000) / 77.0f - 300.0f;
			y[i] = (float)(prng(&ds) % 100000) / 13.0f;
			ref[i] = fmaf(x[i], prm.a, y[i]);
		}
		r = pstress_run(&e, &L, seed, insts, check, ps);
		for (uint32_t i = 0; i < n && !r; i++) {
			if (memcmp(&y[i], &ref[i], 4)) {
				printf("# saxpy: y[%u] = %.9g, expected %.9g\n", i, y[i], ref[i]);
				r = -1;
			}
		}
		free(ref);
		break;
	}
	case PK_REDUCE:
	case PK_VREDUCE: {
		uint32_t n = 40000, block = 256, per = 2 * block, grid = (n + per - 1) / per;
		struct red_params prm = { dalloc(&e, n * 4), dalloc(&e, grid * 4), n };
		uint32_t *in = (uint32_t *)(e.vram + prm.in), *out = (uint32_t *)(e.vram + prm.out);
		struct vgpu_mem_range rg[2] = { { prm.in, n * 4 }, { prm.out, grid * 4 } };
		struct launch L = {
			.prog = &p, .entry = "reduce", .grid = { grid }, .block = { block },
			.dynamic_shared = block * 4, .params = &prm, .params_size = 20,
			.ranges = rg, .nranges = 2, .max_tbs_per_sm = 3,
			.num_tbs = virt ? 30 : 0,
		};

		for (uint32_t i = 0; i < n; i++)
			in[i] = (uint32_t)prng(&ds);
		r = pstress_run(&e, &L, seed, insts, check, ps);
		for (uint32_t b = 0; b < grid && !r; b++) {
			uint32_t sum = 0;

			for (uint32_t i = b * per; i < (b + 1) * per && i < n; i++)
				sum += in[i];
			if (out[b] != sum) {
				printf("# reduce: out[%u] = %u, expected %u\n", b, out[b], sum);
				r = -1;
			}
		}
		break;
	}
	case PK_HIST:
	case PK_HIST_SHARED: {
		uint32_t n = 30000, ref[256] = { 0 }, *bins;
		struct red_params prm = { dalloc(&e, n), dalloc(&e, 256 * 4), n };
		uint8_t *in = e.vram + prm.in;
		struct vgpu_mem_range rg[2] = { { prm.in, n }, { prm.out, 256 * 4 } };
		struct launch L = {
			.prog = &p, .entry = kind == PK_HIST ? "histogram" : "histogram_shared",
			.grid = { 40 }, .block = { 128 }, .params = &prm, .params_size = 20,
			.ranges = rg, .nranges = 2, .max_tbs_per_sm = 2,
		};

		bins = (uint32_t *)(e.vram + prm.out);
		for (uint32_t i = 0; i < n; i++) {
			in[i] = (uint8_t)(prng(&ds) % 3 ? prng(&ds) % 16 : prng(&ds));
			ref[in[i]]++;
		}
		r = pstress_run(&e, &L, seed, insts, check, ps);
		for (int b = 0; b < 256 && !r; b++) {
			if (bins[b] != ref[b]) {
				printf("# %s: bin %d = %u, expected %u\n", L.entry, b, bins[b], ref[b]);
				r = -1;
			}
		}
		break;
	}
	default: {
		uint32_t grid = 150, block = 80, nt = grid * block, *out;
		uint64_t prm = dalloc(&e, nt * 4);
		struct vgpu_mem_range rg = { prm, nt * 4 };
		struct launch L = {
			.prog = &p, .entry = "divloop", .grid = { grid }, .block = { block },
			.params = &prm, .params_size = 8, .ranges = &rg, .nranges = 1,
			.max_tbs_per_sm = 4, .num_tbs = virt ? 30 : 0,
		};

		out = (uint32_t *)(e.vram + prm);
		r = pstress_run(&e, &L, seed, insts, check, ps);
		for (uint32_t i = 0; i < nt && !r; i++) {
			uint32_t want = divloop_ref(i % block, i / block, block);

			if (out[i] != want) {
				printf("# divloop: out[%u] = %u, expected %u\n", i, out[i], want);
				r = -1;
			}
		}
		break;
	}
	}
	free(p.image);
	env_fini(&e);
	return r;
}

/*
 * Preemption stress: saxpy, reduce (shared memory, barriers), histogram
 * (global atomics; shared and global atomics) and a divergent loop with
 * local memory, and reduce and the loop in virtual thread blocks (the
 * total of warp instructions, not each block's, is the undisturbed one),
 * each preempted at pseudo-random cycles (fixed seed) with
 * SWITCH (resumed elsewhere with RESTORE) or FLUSH (before the idempotence
 * boundary only, rerun from the start). Results bit-exact, every block's
 * warp instructions those of an undisturbed run, switch latency at least
 * the transfer, flush latency 0; on 1 and 2 host threads the same events,
 * cycles, counters and memory.
 */
static int t_preempt_stress(void)
{
	static const char *const names[PK_N] = { "saxpy", "reduce", "histogram",
						 "histogram_shared", "divloop", "virtual-tb reduce",
						 "virtual-tb divloop" };
	static const uint32_t counts[] = { 1, 2 };
	struct capture cap[2];
	uint32_t saved = sim_threads;
	uint64_t *insts = calloc(4096, sizeof(*insts));
	int r = -1;

	memset(cap, 0, sizeof(cap));
	if (!insts)
		return -1;
	for (size_t c = 0; c < 2; c++) {
		sim_threads = counts[c];
		for (int k = 0; k < PK_N; k++) {
			struct pstats ps = { .xfer_min = UINT64_MAX, .drain_min = UINT64_MAX };

			capture = NULL;
			memset(insts, 0, 4096 * sizeof(*insts));
			MCHECK(pstress_kernel(k, 0, insts, false, &ps) == 0, "%s undisturbed",
			       names[k]);
			capture = &cap[c];
			MCHECK(pstress_kernel(k, 0x5eed + (uint64_t)k, insts, true, &ps) == 0,
			       "%s preempted, %u thread(s)", names[k], counts[c]);
			if (c == 0)
				printf("# %s: %llu cycles, %u switches (%u resumed elsewhere), %u flushes, %u flushes"
				       " refused at the boundary; transfer %llu cycles, drain %llu..%llu"
				       " more\n", names[k], (unsigned long long)ps.cycles, ps.switches, ps.moved, ps.flushes,
				       ps.boundary_refusals, (unsigned long long)ps.xfer_min,
				       (unsigned long long)ps.drain_min,
				       (unsigned long long)ps.drain_max);
			/* a virtual block crosses its boundary (NEXTTB) at once: no flush */
			MCHECK(ps.switches >= 5 && ps.moved >= 3 &&
			       (k >= PK_VREDUCE ? ps.boundary_refusals >= 1 : ps.flushes >= 1),
			       "%s: %u switches, %u moved, %u flushes, %u refused", names[k],
			       ps.switches, ps.moved, ps.flushes, ps.boundary_refusals);
		}
		capture = NULL;
	}
	MCHECK(cap[0].nev > 100, "%u events", cap[0].nev);
	MCHECK(capture_compare(&cap[0], &cap[1], 2) == 0, "2 threads differ");
	r = 0;
out:
	capture = NULL;
	sim_threads = saved;
	for (size_t c = 0; c < 2; c++)
		capture_free(&cap[c]);
	free(insts);
	return r;
}

/*
 * One run of reduce.ptx (@n words, in @grid blocks) under idempotence
 * @idem: with @in_place its output lies in its input's buffer (the
 * 2nd half), else in a buffer of its own. *@crossed: the blocks that ended
 * past their boundary. The sums are checked against the CPU's.
 */
static int buffers_reduce(const char *idem, bool in_place, uint32_t n, uint32_t grid,
			  uint64_t *crossed)
{
	struct env e;
	struct prog p = { 0 };
	struct red_params prm;
	struct result res;
	uint32_t *in, *ref = NULL;
	int r = -1;

	if (env_init(&e, "fermi-gtx480", 16u << 20) ||
	    vgpu_local_attr_store(e.dev, "idempotence", idem) ||
	    load_ptx_file(&e, "reduce.ptx", &p))
		goto out;
	prm.n = n;
	prm.in = dalloc(&e, in_place ? (n + grid) * 4 : n * 4);
	prm.out = in_place ? prm.in + (uint64_t)n * 4 : dalloc(&e, grid * 4);
	in = (uint32_t *)(e.vram + prm.in);
	ref = calloc(grid, 4);
	if (!ref)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		in[i] = (uint32_t)rnd();
		ref[i / 512] += in[i];
	}
	{
		struct vgpu_mem_range rg[2] = {
			{ prm.in, (in_place ? n + grid : n) * 4 }, { prm.out, grid * 4 },
		};
		struct launch L = {
			.prog = &p, .entry = "reduce", .grid = { grid }, .block = { 256 },
			.dynamic_shared = 256 * 4, .params = &prm, .params_size = 20,
			.ranges = rg, .nranges = in_place ? 1 : 2,
		};

		if (run(&e, &L, &res) || res.status) {
			printf("# reduce under %s: status %d\n", idem, res.status);
			goto out;
		}
	}
	for (uint32_t b = 0; b < grid; b++) {
		if (((uint32_t *)(e.vram + prm.out))[b] != ref[b]) {
			printf("# reduce under %s: out[%u] wrong\n", idem, b);
			goto out;
		}
	}
	*crossed = e.crossed;
	r = 0;
out:
	free(ref);
	free(p.image);
	env_fini(&e);
	return r;
}

/*
 * Lanes on different buffers (each lane's range looked up on its own): even
 * threads store src[i] into a[i], odd ones into b[i] what they read from
 * src[i], or with @mix from a[i] (a's odd words, which nothing writes).
 */
static const char scatter_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry scatter(.param .u64 src, .param .u64 a, .param .u64 b,"
	" .param .u32 mix)\n{\n"
	"	.reg .pred %p<4>;\n	.reg .b32 %r<10>;\n	.reg .b64 %rd<12>;\n"
	"	ld.param.u64 %rd1, [src];\n	ld.param.u64 %rd2, [a];\n"
	"	ld.param.u64 %rd3, [b];\n	ld.param.u32 %r9, [mix];\n"
	"	cvta.to.global.u64 %rd1, %rd1;\n	cvta.to.global.u64 %rd2, %rd2;\n"
	"	cvta.to.global.u64 %rd3, %rd3;\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mad.lo.s32 %r4, %r2, %r3, %r1;\n	mul.wide.u32 %rd4, %r4, 4;\n"
	"	and.b32 %r5, %r4, 1;\n	setp.eq.s32 %p1, %r5, 0;\n"
	"	setp.ne.s32 %p2, %r9, 0;\n	and.pred %p3, %p2, !%p1;\n"
	"	selp.b64 %rd5, %rd2, %rd1, %p3;\n	add.s64 %rd6, %rd5, %rd4;\n"
	"	ld.global.u32 %r6, [%rd6];\n"
	"	selp.b64 %rd7, %rd2, %rd3, %p1;\n	add.s64 %rd8, %rd7, %rd4;\n"
	"	st.global.u32 [%rd8], %r6;\n"
	"	ret;\n}\n";

/* One run of scatter_ptx over @n words under idempotence @idem; *@crossed as buffers_reduce(). */
static int buffers_scatter(const char *idem, uint32_t mix, uint32_t n, uint64_t *crossed)
{
	struct {
		uint64_t src, a, b;
		uint32_t mix;
	} __attribute__((packed)) prm;
	uint32_t *src, *a, *b, *a0 = NULL;
	struct env e;
	struct prog p = { 0 };
	struct result res;
	int r = -1;

	if (env_init(&e, "fermi-gtx480", 16u << 20) ||
	    vgpu_local_attr_store(e.dev, "idempotence", idem) ||
	    load_ptx_opts(&e, scatter_ptx, strlen(scatter_ptx), 0, &p))
		goto out;
	prm.src = dalloc(&e, n * 4);
	prm.a = dalloc(&e, n * 4);
	prm.b = dalloc(&e, n * 4);
	prm.mix = mix;
	src = (uint32_t *)(e.vram + prm.src);
	a = (uint32_t *)(e.vram + prm.a);
	b = (uint32_t *)(e.vram + prm.b);
	a0 = malloc(n * 4);
	if (!a0)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		src[i] = (uint32_t)rnd();
		a[i] = a0[i] = (uint32_t)rnd();
		b[i] = 0;
	}
	{
		struct vgpu_mem_range rg[3] = {
			{ prm.src, n * 4 }, { prm.a, n * 4 }, { prm.b, n * 4 },
		};
		struct launch L = {
			.prog = &p, .entry = "scatter", .grid = { n / 256 }, .block = { 256 },
			.params = &prm, .params_size = sizeof(prm), .ranges = rg, .nranges = 3,
		};

		if (run(&e, &L, &res) || res.status) {
			printf("# scatter under %s: status %d\n", idem, res.status);
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t want = i % 2 ? (mix ? a0[i] : src[i]) : src[i];

		if ((i % 2 ? b[i] : a[i]) != want) {
			printf("# scatter under %s: word %u wrong\n", idem, i);
			goto out;
		}
	}
	*crossed = e.crossed;
	r = 0;
out:
	free(a0);
	free(p.image);
	env_fini(&e);
	return r;
}

/*
 * idempotence "buffers" (VGPU_JOB_BUFFER_BOUNDARIES): reduce reads one
 * buffer and stores its sums into another; the compiler must mark the store
 * as a boundary (the two pointers could name one buffer), so every block
 * crosses under relaxed, none under buffers, and every one again when the
 * sums go into the buffer read. The same with each warp's lanes on two
 * buffers (scatter_ptx), the read buffer stored into by half of them. saxpy reads y and writes it: every block
 * crosses under either. The preemption stress then flushes reduce's blocks
 * after their store, bit-exact, and refuses none.
 */
static int t_buffer_boundaries(void)
{
	uint32_t n = 20000, grid = (n + 511) / 512;
	struct pstats ps = { .xfer_min = UINT64_MAX, .drain_min = UINT64_MAX };
	uint64_t *insts = calloc(4096, sizeof(*insts));
	uint64_t crossed = 0;
	int r = -1;

	if (!insts)
		return -1;
	MCHECK(buffers_reduce("relaxed", false, n, grid, &crossed) == 0 && crossed == grid,
	       "relaxed: %llu of %u blocks crossed", (unsigned long long)crossed, grid);
	MCHECK(buffers_reduce("buffers", false, n, grid, &crossed) == 0 && crossed == 0,
	       "buffers, two buffers: %llu of %u blocks crossed", (unsigned long long)crossed,
	       grid);
	MCHECK(buffers_reduce("buffers", true, n, grid, &crossed) == 0 && crossed == grid,
	       "buffers, output in the input's buffer: %llu of %u blocks crossed",
	       (unsigned long long)crossed, grid);
	MCHECK(buffers_reduce("strict", false, n, grid, &crossed) == 0 && crossed == grid,
	       "strict: %llu of %u blocks crossed", (unsigned long long)crossed, grid);
	/* lanes on two buffers at once: the per-lane look-ups */
	MCHECK(buffers_scatter("relaxed", 0, 4096, &crossed) == 0 && crossed == 16,
	       "scatter, relaxed: %llu of 16 blocks crossed", (unsigned long long)crossed);
	MCHECK(buffers_scatter("buffers", 0, 4096, &crossed) == 0 && crossed == 0,
	       "scatter, buffers: %llu of 16 blocks crossed", (unsigned long long)crossed);
	MCHECK(buffers_scatter("buffers", 1, 4096, &crossed) == 0 && crossed == 16,
	       "scatter, buffers, odd lanes reading a: %llu of 16 blocks crossed",
	       (unsigned long long)crossed);
	pstress_idem = "buffers";
	MCHECK(pstress_kernel(PK_REDUCE, 0, insts, false, &ps) == 0, "reduce undisturbed");
	MCHECK(pstress_kernel(PK_REDUCE, 0x5eed + PK_REDUCE, insts, true, &ps) == 0,
	       "reduce preempted under buffers");
	MCHECK(ps.flushes >= 1 && ps.boundary_refusals == 0,
	       "reduce under buffers: %u flushes, %u refused", ps.flushes, ps.boundary_refusals);
	ps.boundary_refusals = ps.flushes = 0;
	memset(insts, 0, 4096 * sizeof(*insts));
	MCHECK(pstress_kernel(PK_SAXPY, 0, insts, false, &ps) == 0, "saxpy undisturbed");
	MCHECK(pstress_kernel(PK_SAXPY, 0x5eed + PK_SAXPY, insts, true, &ps) == 0,
	       "saxpy preempted under buffers");
	MCHECK(ps.boundary_refusals >= 1, "saxpy under buffers: %u refused",
	       ps.boundary_refusals);
	r = 0;
out:
	pstress_idem = NULL;
	free(insts);
	return r;
}

/*
 * The preemption tests' start: fermi-gtx480, job 1 of bar_ptx (4 blocks)
 * begun, its output buffer at *@out and the size of a block's context in
 * *@ctxb.
 */
static int bar_preempt_setup(struct env *e, struct prog *p, uint64_t *out, uint64_t *ctxb)
{
	const struct vgpu_program_entry *pe;
	uint64_t da;

	CHECK(env_init(e, "fermi-gtx480", 8u << 20) == 0, "env");
	CHECK(load_ptx_text(e, bar_ptx, strlen(bar_ptx), p) == 0, "compile");
	pe = entry_of(p, "bar");
	*out = dalloc(e, 4096);
	da = bar_job_desc(e, p, 1, 4, *out);
	*ctxb = vgpu_ctx_bytes(128, pe->regs_per_thread, 512, pe->local_per_thread);
	CHECK(vgpu_sim_job_begin(e->sim, 1, da) == 0, "job_begin");
	return 0;
}

/*
 * PREEMPT and RESTORE one by one on the barrier kernel: a switch of a block
 * with nothing in flight takes exactly the transfer, the block resumes in
 * another SM and slot and finishes right; a flush takes no time; refusals.
 */
static int t_preempt_cmds(void)
{
	struct env e;
	struct vgpu_evt ev[8];
	struct prog p;
	uint64_t out, ctxb, xfer, save, t0;
	uint32_t *o;
	int n;

	CHECK(bar_preempt_setup(&e, &p, &out, &ctxb) == 0, "setup");
	o = (uint32_t *)(e.vram + out);
	xfer = ctx_xfer(&e.cfg, ctxb);
	save = dalloc(&e, ctxb);
	{
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 1, .tb = 0, .sm = 0, .slot = 0 };
		struct vgpu_cmd x = { .op = VGPU_CMD_PREEMPT, .job = 1, .tb = 0, .sm = 0, .slot = 0,
				      .flags = VGPU_PREEMPT_SWITCH, .addr = save };

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
		/* refusals: each still answered with an event */
		x.flags = 0;
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EINVAL, "no technique");
		x.flags = VGPU_PREEMPT_IDEAL + 1;
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EINVAL, "unknown technique");
		x.flags = VGPU_PREEMPT_SWITCH;
		x.sm = 15;
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EINVAL, "no such SM");
		x.sm = 0;
		x.slot = 8;
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EINVAL, "no such slot");
		x.slot = 0;
		x.addr = e.size - ctxb + 1;
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EINVAL, "save area beyond device memory");
		x.addr = save;
		x.slot = 1;
		CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "empty slot: not an error of the call");
		x.slot = 0;
		x.tb = 1;
		CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "another block: not an error of the call");
		x.tb = 0;
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 7 && vgpu_sim_cycle(e.sim) == 0, "7 events at once: %d", n);
		for (int i = 0; i < 7; i++)
			CHECK(ev[i].type == VGPU_EVT_PREEMPTED && ev[i].cycle == 0 &&
			      ev[i].status == (i < 5 ? -EINVAL : -ENOENT),
			      "event %d: type %u status %d", i, ev[i].type, ev[i].status);
		CHECK(ev[5].slot == 1 && ev[6].tb == 1, "ENOENT events name the command's block");

		/* nothing issued, nothing in flight: exactly the transfer */
		CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "switch at dispatch");
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EBUSY, "switch under way");
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 1 && ev[0].status == -EBUSY, "EBUSY event");
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 1 && ev[0].type == VGPU_EVT_PREEMPTED && ev[0].status == 0 &&
		      ev[0].flags == VGPU_PREEMPT_SWITCH && ev[0].warp_insts == 0 &&
		      ev[0].tb_cycles == xfer && ev[0].cycle == xfer,
		      "switch: status %d latency %llu at %llu, transfer %llu (%llu bytes)",
		      ev[0].status, (unsigned long long)ev[0].tb_cycles,
		      (unsigned long long)ev[0].cycle, (unsigned long long)xfer,
		      (unsigned long long)ctxb);
		printf("# switch at dispatch: %llu context bytes, %llu cycles\n",
		       (unsigned long long)ctxb, (unsigned long long)ev[0].tb_cycles);
		CHECK(!vgpu_sim_busy(e.sim), "slot free, nothing resident");
		CHECK(vgpu_sim_step(e.sim, UINT64_MAX, ev, 8) == 0, "idle");

		/* run a while, switch again: the drain and the transfer */
		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch again");
		t0 = vgpu_sim_cycle(e.sim);
		CHECK(vgpu_sim_step(e.sim, t0 + 30, ev, 8) == 0, "runs 30 cycles");
		CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "switch while running");
		t0 = vgpu_sim_cycle(e.sim);
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 1 && ev[0].status == 0 && ev[0].warp_insts > 0 &&
		      ev[0].tb_cycles >= xfer && ev[0].cycle == t0 + ev[0].tb_cycles,
		      "switch: latency %llu, transfer %llu", (unsigned long long)ev[0].tb_cycles,
		      (unsigned long long)xfer);
		printf("# switch after 30 cycles: %llu warp insts kept, %llu cycles (%llu drain)\n",
		       (unsigned long long)ev[0].warp_insts, (unsigned long long)ev[0].tb_cycles,
		       (unsigned long long)(ev[0].tb_cycles - xfer));
		{
			uint64_t kept = ev[0].warp_insts;
			struct vgpu_cmd rc = c;

			rc.flags = VGPU_DISPATCH_RESTORE;
			rc.addr = save;
			rc.sm = 3;
			rc.slot = 5;
			rc.reg_base = 5000;
			rc.shared_base = 1024;
			rc.tb = 1;
			CHECK(vgpu_sim_dispatch(e.sim, &rc) == -EINVAL, "another block's context");
			rc.tb = 0;
			rc.flags = 2;
			CHECK(vgpu_sim_dispatch(e.sim, &rc) == -EINVAL, "unknown dispatch flag");
			rc.flags = VGPU_DISPATCH_RESTORE;
			e.vram[save] ^= 1;
			CHECK(vgpu_sim_dispatch(e.sim, &rc) == -EINVAL, "bad magic");
			e.vram[save] ^= 1;
			rc.addr = e.size - 16;
			CHECK(vgpu_sim_dispatch(e.sim, &rc) == -EINVAL, "save area beyond memory");
			rc.addr = save;
			t0 = vgpu_sim_cycle(e.sim);
			CHECK(vgpu_sim_dispatch(e.sim, &rc) == 0, "restore on sm 3 slot 5");
			/* a flush of another block: at once, all its work lost */
			c.tb = 2;
			CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch tb 2");
			CHECK(vgpu_sim_step(e.sim, t0 + 20, ev, 8) == 0, "runs 20 cycles");
			x.tb = 2;
			x.flags = VGPU_PREEMPT_FLUSH;
			x.addr = 0;
			CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "flush");
			n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
			CHECK(n == 1 && ev[0].type == VGPU_EVT_PREEMPTED &&
			      ev[0].flags == VGPU_PREEMPT_FLUSH && ev[0].status == 0 &&
			      ev[0].tb_cycles == 0 && ev[0].cycle == t0 + 20 && ev[0].warp_insts > 0,
			      "flush: latency %llu at %llu", (unsigned long long)ev[0].tb_cycles,
			      (unsigned long long)ev[0].cycle);
			/* the restored block: issues after the load, finishes with its total */
			n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
			CHECK(n == 1 && ev[0].type == VGPU_EVT_TB_DONE && ev[0].status == 0 &&
			      ev[0].sm == 3 && ev[0].slot == 5 && ev[0].warp_insts > kept &&
			      ev[0].tb_cycles == ev[0].cycle - t0 && ev[0].tb_cycles > xfer,
			      "restored block done: %llu insts (%llu before), %llu cycles",
			      (unsigned long long)ev[0].warp_insts, (unsigned long long)kept,
			      (unsigned long long)ev[0].tb_cycles);
		}
	}
	for (uint32_t t = 0; t < 128; t++)
		CHECK(o[t] == ((t + 37) % 128) * 3 + 7, "out[%u] = %u", t, o[t]);
	CHECK(!vgpu_sim_busy(e.sim), "idle at the end");
	vgpu_sim_job_end(e.sim, 1);
	free(p.image);
	env_fini(&e);
	return 0;
}

/*
 * Two blocks of one SM switched at once share the SM's bandwidth: the
 * second context is out one transfer after the first.
 */
static int t_preempt_shared_bw(void)
{
	struct env e;
	struct vgpu_evt ev[8];
	struct prog p;
	uint64_t out, ctxb, xfer, save[2];
	int n;

	CHECK(bar_preempt_setup(&e, &p, &out, &ctxb) == 0, "setup");
	xfer = ctx_xfer(&e.cfg, ctxb);
	save[0] = dalloc(&e, ctxb);
	save[1] = dalloc(&e, ctxb);
	for (uint32_t b = 0; b < 2; b++) {
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 1, .tb = b, .sm = 0,
				      .slot = b, .reg_base = b * 5000, .shared_base = b * 1024 };

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch %u", b);
	}
	for (uint32_t b = 0; b < 2; b++) {
		struct vgpu_cmd x = { .op = VGPU_CMD_PREEMPT, .job = 1, .tb = b, .sm = 0,
				      .slot = b, .flags = VGPU_PREEMPT_SWITCH, .addr = save[b] };

		CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "switch %u", b);
	}
	n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
	CHECK(n == 1 && ev[0].tb == 0 && ev[0].tb_cycles == xfer, "first out after one transfer: "
	      "tb %u, %llu cycles, transfer %llu", ev[0].tb, (unsigned long long)ev[0].tb_cycles,
	      (unsigned long long)xfer);
	n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
	CHECK(n == 1 && ev[0].tb == 1 && ev[0].tb_cycles == 2 * xfer,
	      "second out after two: %llu cycles", (unsigned long long)ev[0].tb_cycles);
	vgpu_sim_job_end(e.sim, 1);
	free(p.image);
	env_fini(&e);
	return 0;
}

/*
 * VGPU_PREEMPT_IDEAL: the reference switch. The slot is free the cycle
 * after the command, even with loads in flight, and the block, restored
 * in another slot, issues at once and finishes with the right results.
 */
static int t_preempt_ideal(void)
{
	struct env e;
	struct vgpu_evt ev[8];
	struct prog p;
	uint64_t out, ctxb, save, t0;
	uint32_t *o;
	int n;

	CHECK(bar_preempt_setup(&e, &p, &out, &ctxb) == 0, "setup");
	o = (uint32_t *)(e.vram + out);
	save = dalloc(&e, ctxb);
	{
		struct vgpu_cmd c = { .op = VGPU_CMD_DISPATCH, .job = 1, .tb = 0, .sm = 0, .slot = 0 };
		struct vgpu_cmd x = { .op = VGPU_CMD_PREEMPT, .job = 1, .tb = 0, .sm = 0, .slot = 0,
				      .flags = VGPU_PREEMPT_IDEAL, .addr = save };
		struct vgpu_cmd rc = c;
		uint64_t kept;

		CHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
		/* until it has issued (the first fetch misses to DRAM) */
		for (struct vgpu_sim_stats st = { 0 }; !st.warp_insts;) {
			t0 = vgpu_sim_cycle(e.sim);
			CHECK(vgpu_sim_step(e.sim, t0 + 10, ev, 8) == 0, "runs");
			CHECK(vgpu_sim_get_sm_stats(e.sim, 0, &st) == 0, "stats");
		}
		x.addr = e.size - ctxb + 1;
		CHECK(vgpu_sim_preempt(e.sim, &x) == -EINVAL, "save area beyond device memory");
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 1 && ev[0].status == -EINVAL, "refusal answered");
		x.addr = save;
		t0 = vgpu_sim_cycle(e.sim);
		CHECK(vgpu_sim_preempt(e.sim, &x) == 0, "ideal switch");
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 1 && ev[0].type == VGPU_EVT_PREEMPTED && ev[0].status == 0 &&
		      ev[0].flags == VGPU_PREEMPT_IDEAL && ev[0].tb_cycles == 1 &&
		      ev[0].cycle == t0 + 1 && ev[0].warp_insts > 0,
		      "ideal: type %u status %d insts %llu flags %u latency %llu at %llu", ev[0].type, ev[0].status, (unsigned long long)ev[0].warp_insts, ev[0].flags,
		      (unsigned long long)ev[0].tb_cycles, (unsigned long long)ev[0].cycle);
		kept = ev[0].warp_insts;
		rc.flags = VGPU_DISPATCH_RESTORE;
		rc.addr = save;
		rc.slot = 3;	/* SM 0: its L1I has the code */
		t0 = vgpu_sim_cycle(e.sim);
		CHECK(vgpu_sim_dispatch(e.sim, &rc) == 0, "restore in slot 3");
		/* no load cost: it issues in the next cycle */
		CHECK(vgpu_sim_step(e.sim, t0 + 1, ev, 8) == 0, "one cycle");
		{
			struct vgpu_sim_stats st;

			CHECK(vgpu_sim_get_sm_stats(e.sim, 0, &st) == 0 && st.warp_insts > kept,
			      "restored block issued in its first cycle");
		}
		n = vgpu_sim_step(e.sim, UINT64_MAX, ev, 8);
		CHECK(n == 1 && ev[0].type == VGPU_EVT_TB_DONE && ev[0].status == 0 &&
		      ev[0].slot == 3 && ev[0].warp_insts > kept,
		      "restored block done: %llu insts (%llu before)",
		      (unsigned long long)ev[0].warp_insts, (unsigned long long)kept);
	}
	for (uint32_t t = 0; t < 128; t++)
		CHECK(o[t] == ((t + 37) % 128) * 3 + 7, "out[%u] = %u", t, o[t]);
	vgpu_sim_job_end(e.sim, 1);
	free(p.image);
	env_fini(&e);
	return 0;
}

/* Thesis Fig. 3.2 style: where the SM cycles went. */
static void print_breakdown(const char *what, const struct vgpu_sim_stats *st)
{
	double c = st->cycles ? (double)st->cycles : 1.0;

	printf("# %s: IPC %.2f/SM; SM cycles: issue %.1f%%, stalls: mem conflict %.1f%%,"
	       " mem dependency %.1f%%, fetch %.1f%%, other %.1f%%; C_mem %.1f%%;"
	       " L1D hits %.1f%%, L2 hits %.1f%%, DRAM %.1f MB\n", what,
	       (double)st->warp_insts / c, 100.0 * st->issue_cycles / c,
	       100.0 * st->stall_mem_conflict / c, 100.0 * st->stall_mem_dep / c,
	       100.0 * st->stall_fetch / c, 100.0 * st->stall_other / c, 100.0 * st->c_mem / c,
	       st->l1d_accesses ? 100.0 * st->l1d_hits / st->l1d_accesses : 0.0,
	       st->l2_accesses ? 100.0 * st->l2_hits / st->l2_accesses : 0.0,
	       (st->dram_read_bytes + st->dram_write_bytes) / 1e6);
}

static int bench(void)
{
	struct result res;
	struct vgpu_sim_stats st;
	struct env e;
	struct prog p;
	struct red_params prm;
	struct timespec t0, t1;
	uint32_t n = 1 << 22;
	double s;

	/* reduce over 4M elements: arithmetic, shared memory, barriers, shuffles */
	if (env_init(&e, "fermi-gtx480", 64u << 20) || load_ptx_file(&e, "reduce.ptx", &p))
		return -1;
	prm.n = n;
	prm.in = dalloc(&e, n * 4);
	prm.out = dalloc(&e, n / 512 * 4);
	{
		struct vgpu_mem_range rg[2] = { { prm.in, n * 4 }, { prm.out, n / 512 * 4 } };
		struct launch L = {
			.prog = &p, .entry = "reduce", .grid = { n / 512 }, .block = { 256 },
			.dynamic_shared = 1024, .params = &prm, .params_size = 20, .ranges = rg,
			.nranges = 2,
		};

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (run(&e, &L, &res))
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
	}
	vgpu_sim_get_stats(e.sim, &st);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("# bench on %u host thread(s)\n", sim_threads > 1 ? sim_threads : 1);
	printf("# bench reduce: %llu warp-insts, %llu thread-insts, %llu cycles in %.3f s: "
	       "%.1f M thread-insts/s, %.2f M warp-insts/s\n",
	       (unsigned long long)st.warp_insts, (unsigned long long)st.thread_insts,
	       (unsigned long long)res.cycles, s, (double)st.thread_insts / s / 1e6,
	       (double)st.warp_insts / s / 1e6);
	print_breakdown("reduce", &st);
	free(p.image);
	env_fini(&e);
	/* saxpy over 4M elements: memory bound */
	{
		struct vgpu_sim_stats st2;

		if (env_init(&e, "fermi-gtx480", 64u << 20) || load_ptx_file(&e, "saxpy.ptx", &p))
			return -1;
		struct saxpy_params sp = { n, 2.0f, dalloc(&e, n * 4), dalloc(&e, n * 4) };
		struct vgpu_mem_range rg[2] = { { sp.x, n * 4 }, { sp.y, n * 4 } };
		struct launch L = {
			.prog = &p, .entry = "saxpy", .grid = { n / 256 }, .block = { 256 },
			.params = &sp, .params_size = 24, .ranges = rg, .nranges = 2,
		};

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (run(&e, &L, &res))
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		vgpu_sim_get_stats(e.sim, &st2);
		s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
		printf("# bench saxpy: %llu thread-insts, %llu cycles in %.3f s: "
		       "%.1f M thread-insts/s, %.2f M warp-insts/s\n",
		       (unsigned long long)st2.thread_insts, (unsigned long long)res.cycles, s,
		       (double)st2.thread_insts / s / 1e6, (double)st2.warp_insts / s / 1e6);
		print_breakdown("saxpy", &st2);
		free(p.image);
		env_fini(&e);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* kernel-aware warp scheduling (thesis §5.4.3, §5.5.2; model.rst) */

/* One job of a kernel-aware scenario: @tbs blocks of @entry per SM. */
struct ks_job {
	const char *entry;
	uint32_t tbs, iters;
	uint32_t id, regs_tb;
	uint64_t out, in;
	uint32_t n;
};

/* What a scenario did: per job, warp instructions in the window; the rest to compare. */
struct ks_out {
	uint64_t win[2];	/* warp instructions of each job from @window / 3 to @window */
	uint64_t end;		/* cycle the last block finished */
	uint64_t ev_hash;	/* every event */
	uint64_t out_hash[2];	/* each job's output */
	double x0;		/* job 0's issue cycles / cycles before job 1 came (@late) */
};

static uint64_t ks_hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Begins job @jb (2 SMs; alu: 256 threads; stream: 256 threads over @jb->n words). */
static int ks_begin(struct env *e, const struct prog *p, struct ks_job *jb, uint32_t nsm)
{
	bool stream = !strcmp(jb->entry, "stream");
	struct vgpu_mem_range rg[2];
	uint32_t grid = jb->tbs * nsm, nr;
	uint8_t prm[24] = { 0 };
	uint32_t psize;

	jb->id = e->next_job++;
	jb->out = dalloc(e, (uint64_t)grid * 256 * 4);
	if (stream) {
		struct stream_params sp = { 0, jb->n, 0, jb->out };

		jb->in = dalloc(e, (uint64_t)jb->n * 4);
		sp.in = jb->in;
		for (uint32_t k = 0; k < jb->n; k++)
			((uint32_t *)(e->vram + jb->in))[k] = k * 2654435761u;
		memcpy(prm, &sp, sizeof(sp));
		psize = sizeof(sp);
		rg[0] = (struct vgpu_mem_range){ jb->in, (uint64_t)jb->n * 4 };
		rg[1] = (struct vgpu_mem_range){ jb->out, (uint64_t)grid * 256 * 4 };
		nr = 2;
	} else {
		struct tp_params tp = { jb->iters, 0, jb->out };

		memcpy(prm, &tp, sizeof(tp));
		psize = sizeof(tp);
		rg[0] = (struct vgpu_mem_range){ jb->out, (uint64_t)grid * 256 * 4 };
		nr = 1;
	}
	{
		struct launch L = {
			.prog = p, .entry = jb->entry, .grid = { grid }, .block = { 256 },
			.params = prm, .params_size = psize, .ranges = rg, .nranges = nr,
		};
		struct vgpu_local_layout lay;

		if (raw_layout(e, &L, jb->id, &lay))
			return -1;
		jb->regs_tb = lay.regs_per_tb;
		return vgpu_sim_job_begin(e->sim, jb->id, lay.desc_addr);
	}
}

/*
 * Two kernels on each of 2 SMs of a fermi-gtx480 (GTO), kernel_sched
 * @mode: job 0's blocks are dispatched first (the older kernel), job 1's
 * right after, at the same cycle, each block in its own slot. Runs to the
 * end; @o gets each job's warp instructions in the first @window cycles.
 * With @one, job 1 is left out (one kernel alone).
 */
static int ks_run(const char *mode, struct ks_job *jobs, uint64_t window, bool one, bool prio,
		  uint64_t late, struct ks_out *o)
{
	static const uint32_t nsm = 2;
	const char *kv[] = { "num_sms", "2", "kernel_sched", mode, NULL };
	uint32_t njobs = one ? 1 : 2, left = 0, slot = 0, reg = 0, sent = 0;
	struct env e;
	struct prog p;
	int r = -1;

	memset(o, 0, sizeof(*o));
	o->ev_hash = 0xcbf29ce484222325ull;
	if (mb_init(&e, &p, "fermi-gtx480", kv, 16u << 20))
		goto out;
	for (uint32_t j = 0; j < njobs; j++)
		MCHECK(ks_begin(&e, &p, &jobs[j], nsm) == 0, "job %u", j);
	for (;;) {
		struct vgpu_evt ev[16];
		uint64_t now = vgpu_sim_cycle(e.sim), limit = UINT64_MAX;
		int n;

		/* job 0's blocks at cycle 0, job 1's at @late */
		for (; sent < njobs && (sent == 0 || now >= late); sent++) {
			uint32_t j = sent;

			if (j == 1 && late) {
				struct vgpu_sim_stats st;

				vgpu_sim_get_stats(e.sim, &st);
				o->x0 = (double)st.issue_cycles / (double)st.cycles;
			}

			for (uint32_t t = 0; t < jobs[j].tbs; t++, slot++) {
				for (uint32_t s = 0; s < nsm; s++) {
					struct vgpu_cmd c = {
						.op = VGPU_CMD_DISPATCH, .job = jobs[j].id,
						.tb = t * nsm + s, .sm = s, .slot = slot,
						.reg_base = reg,
					};

					struct vgpu_cmd pc = c;

					MCHECK(vgpu_sim_dispatch(e.sim, &c) == 0, "dispatch");
					/*
					 * @prio: job 1's blocks are picked first, given by
					 * the driver's command (another block's is refused)
					 */
					pc.op = VGPU_CMD_SET_TB_PRIORITY;
					pc.tb++;
					MCHECK(!prio || j != 1 ||
					       vgpu_sim_tb_priority_cmd(e.sim, &pc) == -ENOENT,
					       "prio, another block");
					pc.tb--;
					MCHECK(!prio || j != 1 ||
					       vgpu_sim_tb_priority_cmd(e.sim, &pc) == 0, "prio");
					left++;
				}
				reg += jobs[j].regs_tb;
			}
		}
		if (!left && sent == njobs)
			break;
		if (sent < njobs)
			limit = late;
		if (now < window / 3 && window / 3 < limit)
			limit = window / 3;
		else if (now >= window / 3 && now < window && window < limit)
			limit = window;
		n = vgpu_sim_step(e.sim, limit, ev, 16);
		if (n == 0 && limit != UINT64_MAX) {
			/* past the start (parameters, cold L1I): the window */
			if (limit != window / 3 && limit != window)
				continue;
			for (uint32_t j = 0; j < njobs; j++) {
				struct vgpu_sim_stats st = { 0 };

				if (j < sent)
					MCHECK(vgpu_sim_get_job_stats(e.sim, jobs[j].id, &st) == 0,
					       "stats");
				o->win[j] = st.warp_insts - (limit == window ? o->win[j] : 0);
			}
			continue;
		}
		MCHECK(n > 0, "step %d with %u blocks left", n, left);
		for (int i = 0; i < n; i++) {
			capture_event(&ev[i]);
			MCHECK(ev[i].type == VGPU_EVT_TB_DONE && ev[i].status == 0, "event");
			o->ev_hash = ks_hash(o->ev_hash, &ev[i], sizeof(ev[i]));
			left--;
		}
	}
	o->end = vgpu_sim_cycle(e.sim);
	for (uint32_t j = 0; j < njobs; j++) {
		o->out_hash[j] = hash_bytes(e.vram + jobs[j].out, jobs[j].tbs * nsm * 256 * 4ull);
		if (jobs[j].in) {
			/* stream: the grid's partial sums add up to the input's */
			uint32_t sum = 0, got = 0;

			for (uint32_t k = 0; k < jobs[j].n; k++)
				sum += ((uint32_t *)(e.vram + jobs[j].in))[k];
			for (uint32_t k = 0; k < jobs[j].tbs * nsm * 256; k++)
				got += ((uint32_t *)(e.vram + jobs[j].out))[k];
			MCHECK(got == sum, "%s: stream sum %u, expected %u", mode, got, sum);
		}
		vgpu_sim_job_end(e.sim, jobs[j].id);
	}
	r = 0;
out:
	mb_fini(&e, &p);
	return r;
}

/* Job 1's share of the two jobs' warp instructions in the window. */
static double ks_share(const struct ks_out *o)
{
	return (double)o->win[1] / (double)(o->win[0] + o->win[1]);
}

/*
 * Runs the pair @jobs under every mode on 1 and 2 host threads: results
 * bit-exact and the same as none's, the threads the same; job 1's share
 * of the window's issue slots per mode in @share.
 */
static int ks_modes(const char *what, struct ks_job *jobs, uint64_t window, uint64_t late,
		    double *share, double *x0)
{
	static const char *const modes[] = { "none", "lrr", "ipr", "fair" };
	struct ks_out base = { 0 };
	uint32_t saved = sim_threads;
	int r = -1;

	for (int m = 0; m < 4; m++) {
		struct ks_out o[2];

		for (int t = 0; t < 2; t++) {
			struct ks_job jb[2] = { jobs[0], jobs[1] };

			sim_threads = t + 1;
			MCHECK(ks_run(modes[m], jb, window, false, false, late, &o[t]) == 0,
			       "%s %s", what, modes[m]);
		}
		MCHECK(o[0].end == o[1].end && o[0].ev_hash == o[1].ev_hash &&
		       o[0].win[0] == o[1].win[0] && o[0].win[1] == o[1].win[1],
		       "%s %s: 2 threads end at %llu, 1 thread at %llu (or events differ)", what,
		       modes[m], (unsigned long long)o[1].end, (unsigned long long)o[0].end);
		if (!m)
			base = o[0];
		MCHECK(o[0].out_hash[0] == base.out_hash[0] && o[0].out_hash[1] == base.out_hash[1],
		       "%s %s: results differ from none's", what, modes[m]);
		MCHECK(o[0].win[0] && o[0].win[1] + o[0].win[0] > window / 3,
		       "%s %s: window %llu + %llu", what, modes[m],
		       (unsigned long long)o[0].win[0], (unsigned long long)o[0].win[1]);
		share[m] = ks_share(&o[0]);
		*x0 = o[0].x0;
		printf("# %s, %s: cycles %llu-%llu: older kernel %llu, newer %llu warp insts"
		       " (newer %.3f); all done at %llu\n", what, modes[m],
		       (unsigned long long)window / 3, (unsigned long long)window, (unsigned long long)o[0].win[0],
		       (unsigned long long)o[0].win[1], share[m], (unsigned long long)o[0].end);
	}
	r = 0;
out:
	sim_threads = saved;
	return r;
}

static int t_kernel_sched(void)
{
	static const char *const modes[] = { "none", "lrr", "ipr", "fair" };
	/* two compute-bound kernels, two blocks each per SM */
	struct ks_job com2[2] = { { "alu", 2, 120, 0, 0, 0, 0, 0 },
				  { "alu", 2, 120, 0, 0, 0, 0, 0 } };
	/*
	 * An older compute-bound kernel and a newer memory-bound one. (The
	 * other way round, none and lrr give the newer kernel the same share:
	 * a memory-bound kernel issues its instructions as its loads return
	 * whatever the mode, and leaves the rest to the other. Measured with
	 * ideal instruction fetch, none 0.777 and lrr 0.776, and with 2 to 4
	 * blocks of either kernel none - lrr between -0.026 and 0.006: what
	 * difference there was came from where the program and the buffers
	 * lie, the two kernels' code sharing the 2 KB L1I and the stream the
	 * DRAM partitions.)
	 */
	struct ks_job memcom[2] = { { "alu", 2, 120, 0, 0, 0, 0, 0 },
				    { "stream", 2, 0, 0, 0, 0, 0, 1u << 17 } };
	/* compute-bound, three blocks against one: Quota 3/4 and 1/4 */
	struct ks_job q31[2] = { { "alu", 3, 120, 0, 0, 0, 0, 0 },
				 { "alu", 1, 120, 0, 0, 0, 0, 0 } };
	double sh[4], x0;
	struct ks_out alone[4];
	struct vgpu_sim_config c;

	/* the key, written back */
	{
		char buf[4096];

		CHECK(vgpu_sim_preset("fermi-gtx480", &c) == 0 && c.kernel_sched == VGPU_KSCHED_NONE,
		      "default none");
		CHECK(vgpu_sim_config_set(&c, "kernel_sched", "ipr") == 0 &&
		      c.kernel_sched == VGPU_KSCHED_IPR, "kernel_sched = ipr");
		CHECK(vgpu_sim_config_set(&c, "kernel_sched", "gto") == -EINVAL, "bad mode");
		CHECK(vgpu_sim_config_write(&c, buf, sizeof(buf)) > 0 &&
		      strstr(buf, "kernel_sched = ipr\n"), "written");
	}
	/* GTO starves the newer kernel; LRR splits the issue slots evenly */
	CHECK(ks_modes("alu + alu", com2, 6000, 0, sh, &x0) == 0, "alu + alu");
	CHECK(sh[0] < 0.05, "none: the newer kernel got %.3f of the issue slots", sh[0]);
	CHECK(fabs(sh[1] - 0.5) < 0.03, "lrr: the newer kernel got %.3f", sh[1]);
	CHECK(fabs(sh[2] - 0.5) < 0.05, "ipr: the newer kernel got %.3f", sh[2]);
	CHECK(fabs(sh[3] - 0.5) < 0.03, "fair, equal quotas: the newer kernel got %.3f", sh[3]);
	/*
	 * The older compute-bound kernel starves the newer one under none;
	 * lrr gives it its turns; IPR favours the compute-bound kernel (more
	 * ready warps, lower IPR)
	 */
	CHECK(ks_modes("alu + stream", memcom, 6000, 0, sh, &x0) == 0, "alu + stream");
	CHECK(sh[1] > sh[0], "lrr %.3f not above none %.3f for the newer kernel", sh[1], sh[0]);
	CHECK(1 - sh[2] > 1 - sh[1], "ipr %.3f not above lrr %.3f for the compute-bound kernel",
	      1 - sh[2], 1 - sh[1]);
	/* Fair: Quota = S_k / T_k normalised, 3/4 and 1/4 (x% = 1, equal T_k) */
	CHECK(ks_modes("alu x3 + alu x1", q31, 6000, 0, sh, &x0) == 0, "3 + 1");
	CHECK(sh[0] < 0.05 && fabs(sh[1] - 0.5) < 0.03, "none %.3f, lrr %.3f", sh[0], sh[1]);
	CHECK(fabs(sh[3] - 0.25) < 0.03, "fair: the 1-block kernel got %.3f, quota 0.25", sh[3]);
	/* IPR: issued in proportion to ready warps, about 3 : 1 here too */
	CHECK(fabs(sh[2] - 0.25) < 0.05, "ipr: the 1-block kernel got %.3f", sh[2]);
	/*
	 * Fair's x%: the older kernel runs alone for 3000 cycles first and
	 * issues in a fraction x0 of them (the start is slow); the newer one
	 * never ran alone (x% = 1). Same S_k and T_k: Quota 1 / (1 + x0).
	 */
	CHECK(ks_modes("alu, alu 3000 cycles later", com2, 9000, 3000, sh, &x0) == 0, "late");
	printf("# x%% of the older kernel %.3f: the newer kernel's quota %.3f\n", x0,
	       1 / (1 + x0));
	CHECK(sh[0] < 0.05 && fabs(sh[1] - 0.5) < 0.03, "none %.3f, lrr %.3f", sh[0], sh[1]);
	CHECK(x0 > 0.05 && x0 < 0.9 && fabs(sh[3] - 1 / (1 + x0)) < 0.03,
	      "fair: the newer kernel got %.3f, quota %.3f", sh[3], 1 / (1 + x0));
	/* priority blocks: picked first in lrr, ignored in none */
	for (int m = 0; m < 2; m++) {
		struct ks_job jb[2] = { q31[0], q31[1] };
		struct ks_out o;

		CHECK(ks_run(modes[m], jb, 6000, false, true, 0, &o) == 0, "prio %s", modes[m]);
		printf("# alu x3 + alu x1 with priority, %s: the 1-block kernel got %.3f\n",
		       modes[m], ks_share(&o));
		CHECK(m ? ks_share(&o) > 0.9 : ks_share(&o) < 0.05, "priority, %s: %.3f",
		      modes[m], ks_share(&o));
	}
	/* the setters' refusals */
	{
		struct env e;
		int r;

		CHECK(env_init(&e, "fermi-gtx480", 1u << 20) == 0, "env");
		r = vgpu_sim_set_kernel_sched(e.sim, VGPU_KSCHED_COUNT) == -EINVAL &&
		    vgpu_sim_set_kernel_sched(e.sim, VGPU_KSCHED_FAIR) == 0 &&
		    vgpu_sim_set_tb_priority(e.sim, 15, 0, true) == -EINVAL &&
		    vgpu_sim_set_tb_priority(e.sim, 0, 8, true) == -EINVAL &&
		    vgpu_sim_set_tb_priority(e.sim, 0, 0, true) == -ENOENT &&
		    vgpu_sim_tb_priority_cmd(e.sim, &(struct vgpu_cmd){
			    .op = VGPU_CMD_SET_TB_PRIORITY, .sm = 15 }) == -EINVAL &&
		    vgpu_sim_tb_priority_cmd(e.sim, &(struct vgpu_cmd){
			    .op = VGPU_CMD_SET_TB_PRIORITY, .job = 1 }) == -ENOENT;
		env_fini(&e);
		CHECK(r, "set_kernel_sched / set_tb_priority refusals");
	}
	/* one kernel alone: every mode is none */
	for (int m = 0; m < 4; m++) {
		struct ks_job jb[2] = { com2[0], com2[1] };

		jb[0].tbs = 4;
		CHECK(ks_run(modes[m], jb, 2000, true, false, 0, &alone[m]) == 0, "alone %s",
		      modes[m]);
		CHECK(alone[m].end == alone[0].end && alone[m].ev_hash == alone[0].ev_hash &&
		      alone[m].win[0] == alone[0].win[0] &&
		      alone[m].out_hash[0] == alone[0].out_hash[0],
		      "one kernel: %s ends at %llu, none at %llu", modes[m],
		      (unsigned long long)alone[m].end, (unsigned long long)alone[0].end);
	}
	printf("# one kernel alone: %llu cycles in every mode\n",
	       (unsigned long long)alone[0].end);
	return 0;
}

int main(int argc, char **argv)
{
	bool do_bench = false, only_bench = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bench")) {
			do_bench = true;
		} else if (!strcmp(argv[i], "--bench-only")) {
			do_bench = only_bench = true;
		} else if (!strcmp(argv[i], "--kernel-sched-only")) {
			report("kernel-aware warp scheduling", t_kernel_sched());
			return test_summary();
		} else if (!strcmp(argv[i], "--virtual-tb-only")) {
			report("virtual thread blocks", t_virtual_tb());
			report("virtual thread blocks: thread-index assignment", t_virtual_tb_lanes());
			return test_summary();
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			sim_threads = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: test_sim [--bench | --bench-only | --kernel-sched-only |"
				" --virtual-tb-only]"
				" [--threads N]\n");
			return 2;
		}
	}
	if (only_bench) {
		report("bench", bench());
		return test_summary();
	}
	report("presets", t_presets());
	report("saxpy matches the CPU reference bit for bit", t_saxpy());
	report("two identical runs give identical cycles and warp_insts", t_deterministic());
	report("a job repeated after a reset takes the same cycles; without, it runs warm",
	       t_idle_reset());
	report("a 32-bit shared address wraps with its offset", t_shared_wrap());
	report("reduce matches the CPU reference", t_reduce());
	report("histogram (global and shared atomics) matches", t_histogram());
	report("divergence and reconvergence", t_divergence());
	report("barrier orders shared memory between warps", t_barrier());
	report("atomics: add/min/max/inc/exch/cas/red, shared and global", t_atomics());
	report("out-of-range store faults with fault_addr, writes nothing", t_fault());
	report("bad job descriptor/program ends blocks with -EINVAL/-EILSEQ", t_bad_job());
	report("dispatch checks and step semantics", t_dispatch_checks());
	report("job_end discards running blocks", t_job_end_discards());
	report("misc: bit fields, generic local/shared, 64-bit immediates, vote, shfl width",
	       t_misc());
	report("nvcc intops: integer arithmetic, 64-bit, bit operations", t_intops());
	report("nvcc floatops: f32 arithmetic and conversions, bit-exact", t_floatops());
	report("nvcc dblops: f64 arithmetic, bit-exact", t_dblops());
	report("nvcc warpops: shfl up/down/bfly/idx/width, vote, activemask", t_warpops());
	report("nvcc localarr: local memory", t_localarr());
	report("nvcc vec4/grid2d: vector memory ops, 2D grid", t_vec_grid());
	report("nvcc modvars: __constant__ and __device__ variables", t_modvars());
	report("nvcc atomics2: float add, signed max, 64-bit CAS loop", t_atomics2());
	report("nvcc narrow: 8/16-bit data", t_narrow());
	report("model: key = value configuration and presets", t_config());
	report("model: counters add up, streaming stalls on memory", t_stats());
	report("model: lrr, gto and two-level schedulers", t_schedulers());
	report("micro-benchmark: pointer chase reproduces L1D/L2/DRAM latency", t_mb_latency());
	report("micro-benchmark: shared memory bank conflicts", t_mb_shared());
	report("micro-benchmark: SP and SFU throughput", t_mb_throughput());
	report("micro-benchmark: streaming DRAM bandwidth", t_mb_bandwidth());
	report("micro-benchmark: register bank conflicts", t_mb_regbank());
	report("coalescing: a warp's load takes its lines and sectors once", t_coalesce());
	report("preemption: PREEMPT and RESTORE commands, latencies, refusals",
	       t_preempt_cmds());
	report("preemption: the ideal switch frees the slot at once and restores at no cost",
	       t_preempt_ideal());
	report("preemption: the switches of one SM share its bandwidth, one after another",
	       t_preempt_shared_bw());
	report("virtual thread blocks: 6 and 1 virtual blocks give the original's 63, bit-exact",
	       t_virtual_tb());
	report("virtual thread blocks: SameLane, LowestToHighestLane and SlowestLane place the"
	       " heavy warp as §4.2.2 says", t_virtual_tb_lanes());
	report("sub-core assignment: dispatch puts warps where rr, srr and shuffle say",
	       t_subcore_dispatch());
	report("fully connected SM: two warps of one sub-core issue on two schedulers' units",
	       t_fully_connected());
	report("preemption stress: switch and flush at random cycles, bit-exact, 1 = 2 threads",
	       t_preempt_stress());
	report("idempotence buffers: a store crosses only into a buffer read; flushes after it"
	       " bit-exact", t_buffer_boundaries());
	report("kernel-aware warp scheduling: none starves the newer kernel, lrr/ipr/fair shares,"
	       " bit-exact, 1 = 2 threads, one kernel as none", t_kernel_sched());
	report("parallel simulation: 1, 2 and 3 threads give identical results", t_threads());
	if (do_bench)
		report("bench", bench());
	return test_summary();
}
