// SPDX-License-Identifier: MIT
/*
 * libvgpu's local device: the GPU model (userspace/sim) in-process, with
 * no kernel and no daemon.
 *
 * What vgpu.ko and vgpud do together is done here in a simpler form: a
 * first-fit allocator hands out device memory (the first page never, so
 * address 0 means "none", as in vgpu_vram.c); programs are checked and
 * copied into device memory; a launch becomes a struct vgpu_job_desc with
 * its ranges and parameters in device memory, exactly as vgpu_job.c lays
 * it out. Waiting runs the model: jobs run one after another in submission
 * order, each job's thread blocks go in linear order to the first SM, from
 * a round-robin start, with a free slot, threads, registers and shared
 * memory (the FCFS policy of the kernel, without overlapping jobs; so
 * priorities and latency budgets make no difference here).
 *
 * Everything is deterministic: the same calls give the same cycles. A
 * device is not thread-safe; use it from one thread at a time.
 */
#include "vgpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <drm/vgpu_backend.h>

#include "vgpu_sim.h"

#define LOCAL_PAGE		4096ull
#define LOCAL_MAX_SLOTS		64	/* the slot bitmap of struct local_sm */
#define LOCAL_EVT_BATCH		256

/**
 * struct local_range - an allocated range of device memory.
 * @next: the next range by address.
 * @start: device address.
 * @size: bytes.
 * @refs: the owner's reference plus one per job that uses it.
 * @handle: BO handle for a buffer object, 0 otherwise.
 */
struct local_range {
	struct local_range *next;
	uint64_t start;
	uint64_t size;
	unsigned int refs;
	uint32_t handle;
};

/**
 * struct local_prog - a loaded program.
 * @next: list link.
 * @handle: program handle.
 * @refs: the handle's reference plus one per job that runs it.
 * @image: where the image lives in device memory.
 * @data: its data segment, or NULL.
 * @size: bytes of the image.
 * @data_size: bytes of the data segment (as the header says).
 * @num_entries: entries in @entries.
 * @entries: copies of the entry descriptors.
 */
struct local_prog {
	struct local_prog *next;
	uint32_t handle;
	unsigned int refs;
	struct local_range *image;
	struct local_range *data;
	uint32_t size;
	uint32_t data_size;
	uint32_t num_entries;
	struct vgpu_program_entry *entries;
};

/* What one thread block occupies on an SM (vgpu_tb_res_compute()). */
struct local_tb_res {
	uint32_t threads;
	uint32_t regs;
	uint32_t shared;
};

/**
 * struct local_job - a submitted launch.
 * @next: the next job in submission order.
 * @id: job id (also the model's).
 * @prog: the program (counted).
 * @bos: the buffers it may access (counted).
 * @num_bos: entries in @bos.
 * @desc: its descriptor in device memory.
 * @res: one TB's resources.
 * @num_tbs: thread blocks of the grid.
 * @next_tb: the next TB to dispatch.
 * @tbs_running: TBs on the SMs.
 * @not_before: no TB starts before this cycle.
 * @started: the first TB was dispatched.
 * @done: over; @result is final.
 * @result: what vgpu_job_wait() reports.
 */
struct local_job {
	struct local_job *next;
	uint32_t id;
	struct local_prog *prog;
	struct local_range **bos;
	unsigned int num_bos;
	struct local_range *desc;
	struct local_tb_res res;
	uint32_t num_tbs;
	uint32_t next_tb;
	uint32_t tbs_running;
	uint64_t not_before;
	bool started;
	bool done;
	struct vgpu_job_result result;
};

/* One TB slot of an SM: which TB runs there and the units it holds. */
struct local_slot {
	uint32_t tb;
	uint32_t reg_unit, reg_units;
	uint32_t shared_unit, shared_units;
};

/**
 * struct local_sm - what is free on one SM (the kernel's SMST, simplified).
 * @slot_map: bit i set while slot i is in use.
 * @free_threads: thread slots left.
 * @reg_map: one byte per register granule, non-zero when taken.
 * @shared_map: one byte per shared-memory unit, non-zero when taken.
 * @slots: the slots.
 */
struct local_sm {
	uint64_t slot_map;
	uint32_t free_threads;
	uint8_t *reg_map;
	uint8_t *shared_map;
	struct local_slot slots[LOCAL_MAX_SLOTS];
};

/**
 * struct vgpu_local - the local device.
 * @cfg: the model's configuration.
 * @sim: the model.
 * @vram: the device memory.
 * @vram_size: bytes of it.
 * @ranges: allocated ranges, by address.
 * @progs: loaded programs.
 * @jobs: submitted jobs not yet reported, in submission order.
 * @sms: placement state per SM.
 * @reg_granule: registers per allocation unit (warp size times
 *	reg_alloc_unit).
 * @reg_units: granules per SM.
 * @shared_units: shared-memory units per SM.
 * @rr_next: where the search for an SM starts.
 * @next_handle: next BO or program handle.
 * @next_job: next job id.
 * @model_ns: host time spent in the model (job begin and wait).
 */
struct vgpu_local {
	struct vgpu_sim_config cfg;
	struct vgpu_sim *sim;
	uint8_t *vram;
	uint64_t vram_size;
	struct local_range *ranges;
	struct local_prog *progs;
	struct local_job *jobs;
	struct local_sm *sms;
	uint32_t reg_granule;
	uint32_t reg_units;
	uint32_t shared_units;
	uint32_t rr_next;
	uint32_t next_handle;
	uint32_t next_job;
	uint64_t model_ns;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* device memory */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* First fit from the second page on; -EINVAL, -E2BIG or -ENOSPC. */
static int range_alloc(struct vgpu_local *l, uint64_t size, uint64_t align,
		       struct local_range **out)
{
	struct local_range **pp = &l->ranges, *r;
	uint64_t start = LOCAL_PAGE;

	if (!size)
		return -EINVAL;
	if (size > l->vram_size)
		return -E2BIG;
	for (;;) {
		uint64_t end = *pp ? (*pp)->start : l->vram_size;

		start = align_up(start, align);
		if (start <= end && end - start >= size)
			break;
		if (!*pp)
			return -ENOSPC;
		start = (*pp)->start + (*pp)->size;
		pp = &(*pp)->next;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->start = start;
	r->size = size;
	r->refs = 1;
	r->next = *pp;
	*pp = r;
	*out = r;
	return 0;
}

static void range_put(struct vgpu_local *l, struct local_range *r)
{
	struct local_range **pp;

	if (!r || --r->refs)
		return;
	for (pp = &l->ranges; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	free(r);
}

/* ------------------------------------------------------------------ */
/* the device */

static uint32_t new_handle(struct vgpu_local *l)
{
	if (!++l->next_handle)
		l->next_handle = 1;
	return l->next_handle;
}

int vgpu_device_open_local(const struct vgpu_sim_config *cfg, struct vgpu_device **out)
{
	const struct vgpu_device_desc *d = &cfg->desc;
	struct vgpu_local *l;
	struct vgpu_device *dev;

	if (!d->num_sms || d->warp_size != 32 || !d->max_tbs_per_sm ||
	    d->max_tbs_per_sm > LOCAL_MAX_SLOTS || !d->reg_alloc_unit ||
	    !d->shared_alloc_unit || !d->max_threads_per_sm ||
	    d->regs_per_sm < d->warp_size * d->reg_alloc_unit ||
	    d->shared_per_sm < d->shared_alloc_unit) {
		fprintf(stderr, "libvgpu: local device: the hardware description of '%.*s'"
			" is not usable (SMs, warp size 32, 1..%d TB slots, allocation units)\n",
			VGPU_DEVICE_NAME_LEN, d->name, LOCAL_MAX_SLOTS);
		return -EINVAL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->cfg = *cfg;
	l->vram_size = VGPU_LOCAL_VRAM_SIZE;
	l->reg_granule = d->warp_size * d->reg_alloc_unit;
	l->reg_units = d->regs_per_sm / l->reg_granule;
	l->shared_units = d->shared_per_sm / d->shared_alloc_unit;
	l->next_job = 1;
	/* calloc: untouched pages of the device memory cost nothing */
	l->vram = calloc(1, l->vram_size);
	l->sms = calloc(d->num_sms, sizeof(*l->sms));
	if (!l->vram || !l->sms)
		goto err;
	for (uint32_t i = 0; i < d->num_sms; i++) {
		l->sms[i].free_threads = d->max_threads_per_sm;
		l->sms[i].reg_map = calloc(l->reg_units, 1);
		l->sms[i].shared_map = calloc(l->shared_units, 1);
		if (!l->sms[i].reg_map || !l->sms[i].shared_map)
			goto err;
	}
	l->sim = vgpu_sim_create(&l->cfg, l->vram, l->vram_size);
	if (!l->sim)
		goto err;
	dev = vgpu_device_new_local(l);
	if (!dev)
		goto err;
	*out = dev;
	return 0;
err:
	vgpu_local_close(l);
	return -ENOMEM;
}

static void job_release(struct vgpu_local *l, struct local_job *j);

void vgpu_local_close(struct vgpu_local *l)
{
	if (!l)
		return;
	while (l->jobs) {
		struct local_job *j = l->jobs;

		l->jobs = j->next;
		if (l->sim)
			vgpu_sim_job_end(l->sim, j->id);
		job_release(l, j);
	}
	while (l->progs) {
		struct local_prog *p = l->progs;

		l->progs = p->next;
		free(p->entries);
		free(p);
	}
	while (l->ranges) {
		struct local_range *r = l->ranges;

		l->ranges = r->next;
		free(r);
	}
	if (l->sim)
		vgpu_sim_destroy(l->sim);
	for (uint32_t i = 0; l->sms && i < l->cfg.desc.num_sms; i++) {
		free(l->sms[i].reg_map);
		free(l->sms[i].shared_map);
	}
	free(l->sms);
	free(l->vram);
	free(l);
}

int vgpu_local_stats(struct vgpu_device *dev, struct vgpu_sim_stats *st)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	vgpu_sim_get_stats(l->sim, st);
	return 0;
}

int vgpu_local_model_ns(struct vgpu_device *dev, uint64_t *ns)
{
	struct vgpu_local *l = vgpu_device_local(dev);

	if (!l)
		return -ENODEV;
	*ns = l->model_ns;
	return 0;
}

int vgpu_local_get_param(struct vgpu_local *l, uint32_t param, uint64_t *value)
{
	const struct vgpu_device_desc *d = &l->cfg.desc;

	switch (param) {
	case DRM_VGPU_PARAM_VRAM_SIZE: *value = l->vram_size; break;
	case DRM_VGPU_PARAM_BACKEND_ATTACHED: *value = 1; break;
	case DRM_VGPU_PARAM_NUM_SMS: *value = d->num_sms; break;
	case DRM_VGPU_PARAM_WARP_SIZE: *value = d->warp_size; break;
	case DRM_VGPU_PARAM_MAX_THREADS_PER_SM: *value = d->max_threads_per_sm; break;
	case DRM_VGPU_PARAM_MAX_TBS_PER_SM: *value = d->max_tbs_per_sm; break;
	case DRM_VGPU_PARAM_REGS_PER_SM: *value = d->regs_per_sm; break;
	case DRM_VGPU_PARAM_SHARED_PER_SM: *value = d->shared_per_sm; break;
	case DRM_VGPU_PARAM_MAX_THREADS_PER_TB: *value = d->max_threads_per_tb; break;
	case DRM_VGPU_PARAM_MAX_REGS_PER_THREAD: *value = d->max_regs_per_thread; break;
	case DRM_VGPU_PARAM_MAX_SHARED_PER_TB: *value = d->max_shared_per_tb; break;
	case DRM_VGPU_PARAM_CORE_CLOCK_KHZ: *value = d->core_clock_khz; break;
	case DRM_VGPU_PARAM_CURRENT_CYCLE: *value = vgpu_sim_cycle(l->sim); break;
	default: return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* buffer objects */

int vgpu_local_bo_create(struct vgpu_local *l, struct vgpu_device *dev, uint64_t size,
			 struct vgpu_bo **out)
{
	struct local_range *r;
	struct vgpu_bo *bo;
	int ret;

	if (!size)
		return -EINVAL;
	if (size > l->vram_size)
		return -E2BIG;
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	ret = range_alloc(l, align_up(size, LOCAL_PAGE), LOCAL_PAGE, &r);
	if (ret) {
		free(bo);
		return ret;
	}
	r->handle = new_handle(l);
	memset(l->vram + r->start, 0, r->size);
	bo->dev = dev;
	bo->handle = r->handle;
	bo->size = r->size;
	bo->addr = r->start;
	bo->map = l->vram + r->start;
	*out = bo;
	return 0;
}

/* The live range of BO handle @handle, or NULL. */
static struct local_range *bo_lookup(struct vgpu_local *l, uint32_t handle)
{
	for (struct local_range *r = l->ranges; r; r = r->next)
		if (handle && r->handle == handle)
			return r;
	return NULL;
}

void vgpu_local_bo_destroy(struct vgpu_local *l, struct vgpu_bo *bo)
{
	struct local_range *r = bo_lookup(l, bo->handle);

	if (r) {
		/* a job still queued keeps the memory; the handle dies now */
		r->handle = 0;
		range_put(l, r);
	}
	free(bo);
}

/* ------------------------------------------------------------------ */
/* programs */

static bool in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static const struct vgpu_program_entry *image_entry(const void *image, uint32_t i)
{
	const struct vgpu_program_header *h = image;

	return (const void *)((const uint8_t *)image + h->entries_offset +
			      (size_t)i * h->entry_size);
}

/*
 * The format and the device limits, as vgpu_program_validate() checks
 * them (without the overlap and reserved-field checks); -EINVAL, -E2BIG.
 */
static int program_check(const struct vgpu_local *l, const void *image, size_t size,
			 const char **why)
{
	const struct vgpu_program_header *h = image;
	const struct vgpu_device_desc *d = &l->cfg.desc;

	if (size > VGPU_PROGRAM_MAX_SIZE) {
		*why = "image larger than VGPU_PROGRAM_MAX_SIZE";
		return -E2BIG;
	}
	if (size < sizeof(*h) || h->magic != VGPU_PROGRAM_MAGIC ||
	    h->version_major != VGPU_PROGRAM_VERSION_MAJOR) {
		*why = "truncated image, bad magic or unsupported version";
		return -EINVAL;
	}
	if (h->header_size < sizeof(*h) || h->header_size > size || h->image_size != size) {
		*why = "header_size or image_size wrong";
		return -EINVAL;
	}
	if (!h->num_entries || h->num_entries > VGPU_PROGRAM_MAX_ENTRIES ||
	    h->entry_size < sizeof(struct vgpu_program_entry) || h->entry_size % 8 ||
	    h->entries_offset % 8 || h->code_offset % 8 ||
	    !in_bounds(h->entries_offset, (uint64_t)h->num_entries * h->entry_size, size)) {
		*why = "entry descriptors malformed or beyond the image";
		return -EINVAL;
	}
	if (!h->code_size || h->code_size % 8 || !in_bounds(h->code_offset, h->code_size, size)) {
		*why = "code empty, not a multiple of 8 or beyond the image";
		return -EINVAL;
	}
	if (h->data_init_size > h->data_size ||
	    (h->data_init_size && !in_bounds(h->data_offset, h->data_init_size, size))) {
		*why = "initialised data beyond the image or the data segment";
		return -EINVAL;
	}
	if ((h->analysis_offset || h->analysis_size) &&
	    (!h->analysis_size || h->analysis_offset % 8 ||
	     h->analysis_size % h->num_entries ||
	     !in_bounds(h->analysis_offset, h->analysis_size, size))) {
		*why = "analysis section misaligned, empty, outside or not per entry";
		return -EINVAL;
	}
	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e = image_entry(image, i);

		if (!e->name[0] || !memchr(e->name, 0, sizeof(e->name)) ||
		    e->code_start % 8 || e->code_end % 8 || e->code_start >= e->code_end ||
		    e->code_end > h->code_size) {
			*why = "entry name or code range invalid";
			return -EINVAL;
		}
		if (e->regs_per_thread > d->max_regs_per_thread ||
		    e->shared_static > d->max_shared_per_tb ||
		    e->max_threads_per_tb > d->max_threads_per_tb ||
		    e->param_size > DRM_VGPU_MAX_PARAM_BYTES) {
			*why = "an entry needs more than the device offers";
			return -E2BIG;
		}
	}
	return 0;
}

static void prog_put(struct vgpu_local *l, struct local_prog *p)
{
	struct local_prog **pp;

	if (!p || --p->refs)
		return;
	for (pp = &l->progs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	range_put(l, p->image);
	range_put(l, p->data);
	free(p->entries);
	free(p);
}

int vgpu_local_program_create(struct vgpu_local *l, struct vgpu_device *dev,
			      const void *image, size_t size, struct vgpu_program **out)
{
	const struct vgpu_program_header *h = image;
	struct vgpu_program *prog = NULL;
	struct local_prog *p;
	const char *why = NULL;
	int ret;

	ret = program_check(l, image, size, &why);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: program rejected: %s\n", why);
		return ret;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->refs = 1;
	p->size = (uint32_t)size;
	p->data_size = h->data_size;
	p->num_entries = h->num_entries;
	p->entries = calloc(h->num_entries, sizeof(*p->entries));
	prog = calloc(1, sizeof(*prog));
	if (prog)
		prog->image = malloc(size);
	if (!p->entries || !prog || !prog->image) {
		ret = -ENOMEM;
		goto err;
	}
	for (uint32_t i = 0; i < h->num_entries; i++)
		memcpy(&p->entries[i], image_entry(image, i), sizeof(p->entries[i]));
	ret = range_alloc(l, size, 64, &p->image);
	if (ret)
		goto err;
	memcpy(l->vram + p->image->start, image, size);
	if (h->data_size) {
		/* whole pages, as the kernel does */
		ret = range_alloc(l, align_up(h->data_size, LOCAL_PAGE), LOCAL_PAGE, &p->data);
		if (ret)
			goto err;
		memcpy(l->vram + p->data->start, (const uint8_t *)image + h->data_offset,
		       h->data_init_size);
		memset(l->vram + p->data->start + h->data_init_size, 0,
		       p->data->size - h->data_init_size);
	}
	p->handle = new_handle(l);
	p->next = l->progs;
	l->progs = p;

	memcpy(prog->image, image, size);
	prog->image_size = size;
	prog->dev = dev;
	prog->handle = p->handle;
	*out = prog;
	return 0;
err:
	range_put(l, p->image);
	range_put(l, p->data);
	free(p->entries);
	free(p);
	if (prog)
		free(prog->image);
	free(prog);
	return ret;
}

static struct local_prog *prog_lookup(struct vgpu_local *l, uint32_t handle)
{
	for (struct local_prog *p = l->progs; p; p = p->next)
		if (p->handle == handle)
			return p;
	return NULL;
}

void vgpu_local_program_destroy(struct vgpu_local *l, struct vgpu_program *prog)
{
	struct local_prog *p = prog_lookup(l, prog->handle);

	if (p) {
		p->handle = 0;	/* queued jobs keep it alive */
		prog_put(l, p);
	}
	free(prog->image);
	free(prog);
}

/* ------------------------------------------------------------------ */
/* submission */

/* vgpu_submit_validate() of the kernel: the launch against entry and device. */
static int launch_check(const struct vgpu_local *l, const struct local_prog *p,
			const struct vgpu_launch *launch, struct local_tb_res *res,
			uint32_t *num_tbs, const char **why)
{
	const struct vgpu_device_desc *d = &l->cfg.desc;
	const struct vgpu_program_entry *e;
	uint32_t params_size = launch->params ? launch->params->size : 0;
	uint64_t threads, tbs, shared, warps;

	if (launch->priority > DRM_VGPU_PRIORITY_REALTIME) {
		*why = "unknown priority";
		return -EINVAL;
	}
	for (int i = 0; i < 3; i++) {
		if (!launch->grid[i] || !launch->block[i]) {
			*why = "zero grid or block dimension";
			return -EINVAL;
		}
	}
	if (launch->entry >= p->num_entries) {
		*why = "no such entry point";
		return -EINVAL;
	}
	e = &p->entries[launch->entry];
	if (params_size != e->param_size) {
		*why = "parameter size differs from the entry's";
		return -EINVAL;
	}
	threads = (uint64_t)launch->block[0] * launch->block[1] * launch->block[2];
	if (threads > d->max_threads_per_tb ||
	    (e->max_threads_per_tb && threads > e->max_threads_per_tb)) {
		*why = "block larger than the device's or the entry's limit";
		return -E2BIG;
	}
	tbs = (uint64_t)launch->grid[0] * launch->grid[1];
	if (tbs <= UINT32_MAX)
		tbs *= launch->grid[2];
	if (tbs > UINT32_MAX) {
		*why = "grid of more than 2^32-1 blocks";
		return -E2BIG;
	}
	shared = align_up((uint64_t)e->shared_static + launch->dynamic_shared,
			  d->shared_alloc_unit);
	if ((uint64_t)e->shared_static + launch->dynamic_shared > d->max_shared_per_tb ||
	    shared > d->max_shared_per_tb) {
		*why = "shared memory of a block beyond the device's limit";
		return -E2BIG;
	}
	warps = (threads + d->warp_size - 1) / d->warp_size;
	res->threads = (uint32_t)(warps * d->warp_size);
	res->regs = (uint32_t)(warps * d->warp_size *
			       align_up(e->regs_per_thread, d->reg_alloc_unit));
	res->shared = (uint32_t)shared;
	if (e->regs_per_thread > d->max_regs_per_thread || res->regs > d->regs_per_sm) {
		*why = "registers of a block beyond an SM's register file";
		return -E2BIG;
	}
	if (res->threads > d->max_threads_per_sm) {
		*why = "block larger than an SM's thread slots";
		return -E2BIG;
	}
	*num_tbs = (uint32_t)tbs;
	return 0;
}

static void job_release(struct vgpu_local *l, struct local_job *j)
{
	for (unsigned int i = 0; i < j->num_bos; i++)
		range_put(l, j->bos[i]);
	free(j->bos);
	range_put(l, j->desc);
	prog_put(l, j->prog);
	free(j);
}

/* The descriptor, ranges and parameters, as vgpu_job_write_desc() lays them out. */
static void job_write_desc(struct vgpu_local *l, const struct local_job *j,
			   const struct vgpu_launch *launch)
{
	struct vgpu_job_desc *d = (void *)(l->vram + j->desc->start);
	struct vgpu_mem_range *r = (void *)(d + 1);
	const struct local_prog *p = j->prog;
	uint32_t nr = 0;

	memset(d, 0, j->desc->size);
	for (unsigned int i = 0; i < j->num_bos; i++, nr++) {
		r[nr].start = j->bos[i]->start;
		r[nr].size = j->bos[i]->size;
	}
	if (p->data_size) {
		r[nr].start = p->data->start;
		r[nr].size = p->data_size;
		nr++;
	}
	d->abi_version = VGPU_BACKEND_ABI_VERSION;
	d->job = j->id;
	d->program_addr = p->image->start;
	d->program_size = p->size;
	d->entry = launch->entry;
	memcpy(d->grid, launch->grid, sizeof(d->grid));
	memcpy(d->block, launch->block, sizeof(d->block));
	d->shared_bytes = p->entries[launch->entry].shared_static + launch->dynamic_shared;
	d->dynamic_shared = launch->dynamic_shared;
	d->ranges_offset = sizeof(*d);
	d->num_ranges = nr;
	d->params_offset = sizeof(*d) + nr * sizeof(*r);
	d->params_size = launch->params ? launch->params->size : 0;
	if (p->data_size) {
		d->data_addr = p->data->start;
		d->data_size = p->data_size;
	}
	d->priority = launch->priority;
	if (d->params_size)
		memcpy((uint8_t *)d + d->params_offset, launch->params->bytes, d->params_size);
}

int vgpu_local_submit(struct vgpu_local *l, struct vgpu_device *dev,
		      const struct vgpu_program *prog, const struct vgpu_launch *launch,
		      struct vgpu_job *job)
{
	struct local_prog *p;
	struct local_job *j, **tail;
	const char *why = NULL;
	uint64_t desc_size;
	int64_t t0;
	int ret;

	if (launch->params && launch->params->overflow)
		return -E2BIG;
	if (launch->num_bos > DRM_VGPU_MAX_SUBMIT_BOS)
		return -E2BIG;
	p = prog->dev == dev ? prog_lookup(l, prog->handle) : NULL;
	if (!p) {
		fprintf(stderr, "libvgpu: local device: unknown program handle %u\n",
			prog->handle);
		return -ENOENT;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	ret = launch_check(l, p, launch, &j->res, &j->num_tbs, &why);
	if (ret) {
		fprintf(stderr, "libvgpu: local device: launch rejected: %s\n", why);
		free(j);
		return ret;
	}
	j->prog = p;
	p->refs++;
	j->bos = calloc(launch->num_bos ? launch->num_bos : 1, sizeof(*j->bos));
	if (!j->bos) {
		ret = -ENOMEM;
		goto err;
	}
	for (unsigned int i = 0; i < launch->num_bos; i++) {
		const struct vgpu_bo *bo = launch->bos[i];
		struct local_range *r = bo && bo->dev == dev ? bo_lookup(l, bo->handle) : NULL;

		if (!r) {
			fprintf(stderr, "libvgpu: local device: unknown buffer object (index %u)\n",
				i);
			ret = -ENOENT;
			goto err;
		}
		r->refs++;
		j->bos[j->num_bos++] = r;
	}
	desc_size = sizeof(struct vgpu_job_desc) +
		    (launch->num_bos + (p->data_size ? 1 : 0)) * sizeof(struct vgpu_mem_range) +
		    (launch->params ? launch->params->size : 0);
	ret = range_alloc(l, desc_size, 64, &j->desc);
	if (ret)
		goto err;
	j->id = l->next_job++;
	if (!l->next_job)
		l->next_job = 1;
	if (launch->not_before)
		j->not_before = launch->not_before_cycle;
	job_write_desc(l, j, launch);
	/* a program the model rejects is not an error here: its blocks fail */
	t0 = now_ns();
	ret = vgpu_sim_job_begin(l->sim, j->id, j->desc->start);
	l->model_ns += (uint64_t)(now_ns() - t0);
	if (ret)
		goto err;
	for (tail = &l->jobs; *tail; tail = &(*tail)->next)
		;
	*tail = j;
	job->dev = dev;
	job->id = j->id;
	job->syncobj = 0;
	return 0;
err:
	job_release(l, j);
	return ret;
}

/* ------------------------------------------------------------------ */
/* running: placement, dispatch, events */

/* First run of @n free units in @map; -1 when none. */
static int64_t first_fit(const uint8_t *map, uint32_t len, uint32_t n)
{
	uint32_t run = 0;

	if (!n)
		return 0;
	for (uint32_t i = 0; i < len; i++) {
		run = map[i] ? 0 : run + 1;
		if (run == n)
			return (int64_t)i + 1 - n;
	}
	return -1;
}

/* Places one TB of @j on @sm if it fits; the slot index or -ENOSPC. */
static int sm_place(struct vgpu_local *l, struct local_sm *sm, const struct local_job *j,
		    uint32_t tb)
{
	uint32_t reg_units = j->res.regs / l->reg_granule;
	uint32_t shared_units = j->res.shared / l->cfg.desc.shared_alloc_unit;
	int64_t reg_unit, shared_unit;
	struct local_slot *s;
	int slot;

	if (sm->free_threads < j->res.threads)
		return -ENOSPC;
	for (slot = 0; slot < (int)l->cfg.desc.max_tbs_per_sm; slot++)
		if (!(sm->slot_map >> slot & 1))
			break;
	if (slot == (int)l->cfg.desc.max_tbs_per_sm)
		return -ENOSPC;
	reg_unit = first_fit(sm->reg_map, l->reg_units, reg_units);
	shared_unit = first_fit(sm->shared_map, l->shared_units, shared_units);
	if (reg_unit < 0 || shared_unit < 0)
		return -ENOSPC;
	s = &sm->slots[slot];
	s->tb = tb;
	s->reg_unit = (uint32_t)reg_unit;
	s->reg_units = reg_units;
	s->shared_unit = (uint32_t)shared_unit;
	s->shared_units = shared_units;
	memset(sm->reg_map + reg_unit, 1, reg_units);
	memset(sm->shared_map + shared_unit, 1, shared_units);
	sm->slot_map |= 1ull << slot;
	sm->free_threads -= j->res.threads;
	return slot;
}

static void sm_free(struct vgpu_local *l, struct local_sm *sm, uint32_t slot, uint32_t threads)
{
	struct local_slot *s = &sm->slots[slot];

	(void)l;
	memset(sm->reg_map + s->reg_unit, 0, s->reg_units);
	memset(sm->shared_map + s->shared_unit, 0, s->shared_units);
	sm->slot_map &= ~(1ull << slot);
	sm->free_threads += threads;
}

static void job_fail(struct local_job *j, int error)
{
	if (!j->result.error)
		j->result.error = error;
}

/* Dispatches TBs of @j while an SM has room. */
static void job_fill(struct vgpu_local *l, struct local_job *j)
{
	uint32_t nsm = l->cfg.desc.num_sms;

	while (!j->result.error && j->next_tb < j->num_tbs) {
		struct vgpu_cmd cmd = { .op = VGPU_CMD_DISPATCH, .job = j->id };
		int slot = -ENOSPC;
		uint32_t i, smi = 0;
		int ret;

		for (i = 0; i < nsm && slot < 0; i++) {
			smi = (l->rr_next + i) % nsm;
			slot = sm_place(l, &l->sms[smi], j, j->next_tb);
		}
		if (slot < 0)
			return;
		cmd.tb = j->next_tb;
		cmd.sm = smi;
		cmd.slot = (uint32_t)slot;
		cmd.reg_base = l->sms[smi].slots[slot].reg_unit * l->reg_granule;
		cmd.shared_base = l->sms[smi].slots[slot].shared_unit *
				  l->cfg.desc.shared_alloc_unit;
		ret = vgpu_sim_dispatch(l->sim, &cmd);
		if (ret) {
			/* as vgpud: a refused dispatch is a failed block */
			fprintf(stderr, "libvgpu: local device: dispatch of job %u tb %u to sm %u"
				" refused: %s\n", j->id, cmd.tb, smi, strerror(-ret));
			sm_free(l, &l->sms[smi], (uint32_t)slot, j->res.threads);
			job_fail(j, ret);
			return;
		}
		j->next_tb++;
		j->tbs_running++;
		l->rr_next = (smi + 1) % nsm;
	}
}

/* A TB_DONE of the running job: free its place, account it (vgpu_sched_tb_done()). */
static void job_tb_done(struct vgpu_local *l, struct local_job *j, const struct vgpu_evt *e)
{
	struct local_sm *sm;

	if (e->type != VGPU_EVT_TB_DONE || e->job != j->id || e->sm >= l->cfg.desc.num_sms ||
	    e->slot >= l->cfg.desc.max_tbs_per_sm)
		return;
	sm = &l->sms[e->sm];
	if (!(sm->slot_map >> e->slot & 1) || sm->slots[e->slot].tb != e->tb)
		return;
	sm_free(l, sm, e->slot, j->res.threads);
	j->tbs_running--;
	j->result.warp_insts += e->warp_insts;
	if (!e->status)
		j->result.tbs_done++;
	else
		job_fail(j, e->status > 0 ? -EIO : e->status);
}

static bool job_can_end(const struct local_job *j)
{
	return !j->tbs_running && (j->result.error || j->next_tb >= j->num_tbs);
}

/* The job is over: its result is final, the model and placement forget it. */
static void job_end(struct vgpu_local *l, struct local_job *j)
{
	if (j->tbs_running) {
		/* the model drops its blocks; so does the placement */
		for (uint32_t i = 0; i < l->cfg.desc.num_sms; i++) {
			struct local_sm *sm = &l->sms[i];

			for (uint32_t s = 0; s < l->cfg.desc.max_tbs_per_sm; s++)
				if (sm->slot_map >> s & 1)
					sm_free(l, sm, s, j->res.threads);
		}
		j->tbs_running = 0;
	}
	vgpu_sim_job_end(l->sim, j->id);
	j->result.end_cycle = vgpu_sim_cycle(l->sim);
	j->result.cycles = j->result.end_cycle - j->result.start_cycle;
	j->done = true;
	l->rr_next = 0;	/* an idle device places the same way every time */
	/* memory and program references go now, as in the kernel */
	for (unsigned int i = 0; i < j->num_bos; i++)
		range_put(l, j->bos[i]);
	j->num_bos = 0;
	range_put(l, j->desc);
	j->desc = NULL;
	prog_put(l, j->prog);
	j->prog = NULL;
}

/*
 * Runs job @j (the first one not done) until it is over; -ETIME when the
 * host deadline passes first (it can be run on later).
 */
static int job_run(struct vgpu_local *l, struct local_job *j, int64_t deadline)
{
	struct vgpu_evt evts[LOCAL_EVT_BATCH];

	if (!j->started) {
		if (j->not_before > vgpu_sim_cycle(l->sim))
			vgpu_sim_set_cycle(l->sim, j->not_before);
		j->started = true;
		j->result.start_cycle = vgpu_sim_cycle(l->sim);
	}
	job_fill(l, j);
	while (!job_can_end(j)) {
		int n;

		if (deadline != INT64_MAX && now_ns() >= deadline)
			return -ETIME;
		n = vgpu_sim_step(l->sim, UINT64_MAX, evts, LOCAL_EVT_BATCH);
		if (n < 0) {
			job_fail(j, n);
			break;
		}
		if (n == 0) {
			/* blocks resident, yet nothing can ever happen (a barrier nobody reaches) */
			fprintf(stderr, "libvgpu: local device: job %u can make no progress\n",
				j->id);
			job_fail(j, -EDEADLK);
			break;
		}
		for (int i = 0; i < n; i++)
			job_tb_done(l, j, &evts[i]);
		job_fill(l, j);
	}
	job_end(l, j);
	return 0;
}

int vgpu_local_job_wait(struct vgpu_local *l, struct vgpu_job *job, int64_t timeout_ns,
			struct vgpu_job_result *res)
{
	int64_t t0 = now_ns();
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : t0 + timeout_ns;
	struct local_job **pp, *j;
	int ret = 0;

	for (pp = &l->jobs; *pp && (*pp)->id != job->id; pp = &(*pp)->next)
		;
	if (!*pp)
		return -ENOENT;
	j = *pp;
	/* jobs run in submission order: the earlier ones first */
	for (struct local_job *x = l->jobs; !j->done && !ret; x = x->next)
		ret = x->done ? 0 : job_run(l, x, deadline);
	l->model_ns += (uint64_t)(now_ns() - t0);
	if (ret)
		return ret;
	*res = j->result;
	*pp = j->next;
	job_release(l, j);
	return 0;
}
