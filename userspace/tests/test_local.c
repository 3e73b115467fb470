// SPDX-License-Identifier: MIT
/*
 * test_local.c - host tests of libvgpu's local device (vgpu_local.c): the
 * whole workload suite at the small size against its CPU references, twice
 * with identical figures, and the device's answers to bad input (unknown
 * buffers and programs, bad launches, faulting kernels, garbage images).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "vgpu.h"
#include "vgpu_sim.h"
#include "workloads/workload.h"

#define MAX_WORKLOADS	64

static struct vgpu_sim_config cfg;

static int open_local(struct vgpu_device **dev)
{
	return vgpu_device_open_local(&cfg, dev);
}

/* Each workload stores 32-bit words at out + tid * stride. */
static const char store_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry store(.param .u64 out, .param .u32 stride)\n{\n"
	"	.reg .b32 %r<4>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n"
	"	ld.param.u32 %r2, [stride];\n"
	"	mov.u32 %r1, %tid.x;\n"
	"	mul.wide.u32 %rd2, %r1, %r2;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r1;\n"
	"	ret;\n}\n";

/* A device, one page-sized buffer, the store kernel and its launch. */
struct fixture {
	struct vgpu_device *dev;
	struct vgpu_bo *bo;
	struct vgpu_program *prog;
	struct vgpu_params params;
	struct vgpu_launch launch;
};

static int fixture_init(struct fixture *f, uint32_t threads, uint32_t stride)
{
	char err[256] = "";

	memset(f, 0, sizeof(*f));
	CHECK(open_local(&f->dev) == 0, "open_local");
	CHECK(vgpu_bo_create(f->dev, 4096, &f->bo) == 0, "bo_create");
	CHECK(vgpu_program_create_ptx(f->dev, store_ptx, strlen(store_ptx), &f->prog, err,
				      sizeof(err)) == 0, "compile: %s", err);
	vgpu_params_init(&f->params);
	vgpu_params_ptr(&f->params, f->bo);
	vgpu_params_u32(&f->params, stride);
	f->launch = (struct vgpu_launch){
		.grid = { 1, 1, 1 }, .block = { threads, 1, 1 }, .params = &f->params,
		.bos = &f->bo, .num_bos = 1,
	};
	CHECK(vgpu_program_find_entry(f->prog, "store", &f->launch.entry) == 0, "entry");
	return 0;
}

static void fixture_fini(struct fixture *f)
{
	vgpu_program_destroy(f->prog);
	vgpu_bo_destroy(f->bo);
	vgpu_device_close(f->dev);
}

/* ------------------------------------------------------------------ */
/* the suite */

struct suite_run {
	int ret[MAX_WORKLOADS];
	struct workload_result res[MAX_WORKLOADS];
	char msg[MAX_WORKLOADS][256];
};

/* Every workload at its small size, each on a fresh device. */
static int run_suite(struct suite_run *s)
{
	int i = 0;

	memset(s, 0, sizeof(*s));
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		struct workload_args args = { .size = (*w)->small_size, .seed = 1 };
		struct vgpu_device *dev;

		CHECK(i < MAX_WORKLOADS, "more than %d workloads", MAX_WORKLOADS);
		CHECK(open_local(&dev) == 0, "open_local");
		s->ret[i] = (*w)->run(dev, &args, &s->res[i], s->msg[i], sizeof(s->msg[i]));
		vgpu_device_close(dev);
	}
	return 0;
}

static struct suite_run first, second;

static void t_suite(void)
{
	int i = 0;

	if (run_suite(&first)) {
		report("the suite runs on a local device", -1);
		return;
	}
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		char name[128];

		if (first.ret[i])
			printf("#   %s: %s\n", (*w)->name, first.msg[i]);
		snprintf(name, sizeof(name), "local fermi-gtx480: %s --size small matches its"
			 " CPU reference", (*w)->name);
		report(name, first.ret[i]);
	}
}

static int t_suite_deterministic(void)
{
	int i = 0;

	CHECK(run_suite(&second) == 0, "second run");
	for (const struct vgpu_workload *const *w = vgpu_workloads; *w; w++, i++) {
		CHECK(first.res[i].cycles == second.res[i].cycles &&
		      first.res[i].warp_insts == second.res[i].warp_insts &&
		      first.res[i].tbs == second.res[i].tbs,
		      "%s: %" PRIu64 "/%" PRIu64 " cycles, %" PRIu64 "/%" PRIu64 " warp_insts",
		      (*w)->name, first.res[i].cycles, second.res[i].cycles,
		      first.res[i].warp_insts, second.res[i].warp_insts);
		CHECK(first.ret[i] || first.res[i].cycles > 0, "%s: no cycles", (*w)->name);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the device */

static int t_params(void)
{
	struct vgpu_device *dev;
	uint64_t v;

	CHECK(open_local(&dev) == 0, "open_local");
	CHECK(vgpu_device_fd(dev) == -1, "no file descriptor");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_NUM_SMS, &v) == 0 && v == cfg.desc.num_sms,
	      "num_sms");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_VRAM_SIZE, &v) == 0 &&
	      v == 256ull << 20, "vram_size: vgpu.ko's default, 256 MiB");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_BACKEND_ATTACHED, &v) == 0 && v == 1,
	      "attached");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_SHARED_PER_SM, &v) == 0 &&
	      v == cfg.desc.shared_per_sm, "shared_per_sm");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &v) == 0 && v == 0, "cycle 0");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_COUNT, &v) == -EINVAL, "unknown parameter");
	vgpu_device_close(dev);
	return 0;
}

static int t_bo_alloc(void)
{
	struct vgpu_device *dev;
	struct vgpu_bo *a, *b, *c, *d, *big;
	uint64_t vram;

	CHECK(open_local(&dev) == 0, "open_local");
	CHECK(vgpu_get_param(dev, DRM_VGPU_PARAM_VRAM_SIZE, &vram) == 0, "vram size");
	CHECK(vgpu_bo_create(dev, 0, &a) == -EINVAL, "size 0");
	CHECK(vgpu_bo_create(dev, vram + 1, &a) == -E2BIG, "beyond vram");
	CHECK(vgpu_bo_create(dev, vram, &a) == -ENOSPC,
	      "all of vram: the first page is never handed out");
	CHECK(vgpu_bo_create(dev, 100, &a) == 0, "a");
	CHECK(vgpu_bo_create(dev, 5000, &b) == 0, "b");
	CHECK(vgpu_bo_create(dev, 4096, &c) == 0, "c");
	CHECK(a->addr >= 4096, "address 0 stays unused (a at 0x%" PRIx64 ")", a->addr);
	CHECK(a->size == 100 && b->size == 5000, "sizes as asked, as the render node's");
	CHECK(a->addr % 4096 == 0 && b->addr % 4096 == 0 && c->addr % 4096 == 0,
	      "page aligned");
	CHECK(a->addr + 4096 <= b->addr && b->addr + 8192 <= c->addr,
	      "no overlap: whole pages each");
	CHECK(((uint8_t *)b->map)[0] == 0 && ((uint8_t *)b->map)[8191] == 0, "zeroed");
	memset(b->map, 0xab, 8192);
	vgpu_bo_destroy(b);
	/* best fit, as vgpu_vram.c asks drm_mm: b's hole is the smallest that fits */
	CHECK(vgpu_bo_create(dev, 4096, &d) == 0, "d");
	CHECK(d->addr == a->addr + 4096, "best fit reuses the hole (d at 0x%" PRIx64 ")",
	      d->addr);
	CHECK(((uint8_t *)d->map)[0] == 0, "reused memory zeroed");
	CHECK(vgpu_bo_create(dev, vram - 8192, &big) == -ENOSPC,
	      "no room for a buffer of nearly all vram");
	vgpu_bo_destroy(a);
	vgpu_bo_destroy(c);
	vgpu_bo_destroy(d);
	/* the first page is never used, the thread-block status table is in the second */
	CHECK(vgpu_bo_create(dev, vram - 8192, &big) == 0, "all but two pages, once free");
	vgpu_bo_destroy(big);
	vgpu_device_close(dev);
	return 0;
}

static int t_run_and_cycle(void)
{
	struct vgpu_job_result res;
	struct vgpu_sim_stats st;
	struct fixture f;
	uint32_t *out;
	uint64_t cycle;

	CHECK(fixture_init(&f, 64, 4) == 0, "fixture");
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0, "run");
	CHECK(res.error == 0 && res.tbs_done == 1 && res.warp_insts > 0, "result: error %d",
	      res.error);
	CHECK(res.end_cycle > res.start_cycle && res.cycles == res.end_cycle - res.start_cycle,
	      "cycles");
	out = f.bo->map;
	for (uint32_t t = 0; t < 64; t++)
		CHECK(out[t] == t, "word %u: %u", t, out[t]);
	CHECK(vgpu_get_param(f.dev, DRM_VGPU_PARAM_CURRENT_CYCLE, &cycle) == 0 &&
	      cycle == res.end_cycle, "current cycle %" PRIu64, cycle);
	CHECK(vgpu_local_stats(f.dev, &st) == 0, "stats");
	CHECK(st.warp_insts == res.warp_insts && st.tbs_done == 1, "stats match the job");
	/* the next launch starts where the last one ended */
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0 && !res.error, "second run");
	CHECK(res.start_cycle == cycle, "starts at %" PRIu64 ", not %" PRIu64,
	      res.start_cycle, cycle);
	fixture_fini(&f);
	return 0;
}

static int t_fault(void)
{
	struct vgpu_job_result res;
	struct fixture f;

	/* thread 1 stores one page past the start: outside the job's buffer */
	CHECK(fixture_init(&f, 32, 4096) == 0, "fixture");
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0, "run");
	CHECK(res.error == -EFAULT, "error %d, expected -EFAULT", res.error);
	CHECK(res.tbs_done == 0, "a faulted block is not done");
	/* the device goes on */
	vgpu_params_init(&f.params);
	vgpu_params_ptr(&f.params, f.bo);
	vgpu_params_u32(&f.params, 4);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0 && res.error == 0,
	      "a good launch after the fault: %d", res.error);
	fixture_fini(&f);
	return 0;
}

static int t_bad_submit(void)
{
	struct vgpu_bo bogus = { 0 }, *bos[2];
	struct vgpu_program fake = { 0 };
	struct vgpu_params big;
	struct vgpu_device *other;
	struct vgpu_bo *foreign;
	struct vgpu_launch l;
	struct vgpu_job job;
	struct fixture f;

	CHECK(fixture_init(&f, 32, 4) == 0, "fixture");
	/* a buffer the device never made */
	bogus = *f.bo;
	bogus.handle = 12345;
	bos[0] = f.bo;
	bos[1] = &bogus;
	l = f.launch;
	l.bos = bos;
	l.num_bos = 2;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -ENOENT, "bogus BO");
	/* a buffer of another device */
	CHECK(open_local(&other) == 0, "other device");
	CHECK(vgpu_bo_create(other, 4096, &foreign) == 0, "foreign bo");
	bos[1] = foreign;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -ENOENT, "BO of another device");
	vgpu_bo_destroy(foreign);
	vgpu_device_close(other);
	/* an unknown program */
	fake = *f.prog;
	fake.handle = 999;
	CHECK(vgpu_submit(f.dev, &fake, &f.launch, &job) == -ENOENT, "unknown program");
	/* launches the kernel would refuse */
	l = f.launch;
	l.grid[1] = 0;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "zero grid dimension");
	l = f.launch;
	l.block[0] = cfg.desc.max_threads_per_tb + 1;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -E2BIG, "block too large");
	l = f.launch;
	l.entry = 7;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "no such entry");
	l = f.launch;
	l.dynamic_shared = cfg.desc.max_shared_per_tb + 1;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -E2BIG, "too much shared memory");
	l = f.launch;
	l.priority = 99;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "unknown priority");
	vgpu_params_init(&big);
	vgpu_params_u64(&big, f.bo->addr);
	l = f.launch;
	l.params = &big;
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -EINVAL, "parameter size differs");
	for (int i = 0; i < DRM_VGPU_MAX_PARAM_BYTES / 8 + 1; i++)
		vgpu_params_u64(&big, 0);
	CHECK(vgpu_submit(f.dev, f.prog, &l, &job) == -E2BIG, "parameter overflow");
	/* a job id that does not exist */
	job = (struct vgpu_job){ .dev = f.dev, .id = 4242 };
	{
		struct vgpu_job_result res;

		CHECK(vgpu_job_wait(&job, -1, &res) == -ENOENT, "unknown job");
	}
	fixture_fini(&f);
	return 0;
}

static int t_bad_program(void)
{
	struct vgpu_job_result res;
	struct vgpu_program *prog;
	struct fixture f;
	uint8_t junk[256];
	uint8_t *image;
	const struct vgpu_program_header *h;

	CHECK(fixture_init(&f, 32, 4) == 0, "fixture");
	memset(junk, 0x5a, sizeof(junk));
	CHECK(vgpu_program_create_image(f.dev, junk, sizeof(junk), &prog) == -EINVAL,
	      "garbage image");
	CHECK(vgpu_program_create_image(f.dev, junk, 8, &prog) == -EINVAL, "truncated image");
	image = malloc(f.prog->image_size);
	CHECK(image, "malloc");
	memcpy(image, f.prog->image, f.prog->image_size);
	h = (const void *)image;
	CHECK(vgpu_program_create_image(f.dev, image, f.prog->image_size - 8, &prog) == -EINVAL,
	      "image_size differs");
	{
		struct vgpu_program_entry *e = (void *)(image + h->entries_offset);
		uint32_t regs = e->regs_per_thread;

		e->regs_per_thread = cfg.desc.max_regs_per_thread + 1;
		CHECK(vgpu_program_create_image(f.dev, image, f.prog->image_size, &prog) ==
		      -E2BIG, "too many registers");
		e->regs_per_thread = regs;
	}
	/* a header the device accepts, code the model refuses: the job fails */
	{
		uint64_t bad = 0x7f;	/* opcode 127 */

		memcpy(image + h->code_offset + 8, &bad, sizeof(bad));
	}
	CHECK(vgpu_program_create_image(f.dev, image, f.prog->image_size, &prog) == 0,
	      "valid header");
	free(image);
	CHECK(vgpu_run(f.dev, prog, &f.launch, &res) == 0, "run");
	CHECK(res.error == -EILSEQ, "error %d, expected -EILSEQ", res.error);
	vgpu_program_destroy(prog);
	CHECK(vgpu_run(f.dev, f.prog, &f.launch, &res) == 0 && res.error == 0,
	      "the device goes on: %d", res.error);
	fixture_fini(&f);
	return 0;
}

static int t_queue(void)
{
	struct vgpu_job_result ra, rb;
	struct vgpu_job a, b;
	struct fixture f;
	uint32_t *out;

	CHECK(fixture_init(&f, 64, 4) == 0, "fixture");
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &a) == 0, "submit a");
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &b) == 0, "submit b");
	CHECK(a.id != b.id, "job ids differ");
	/* nothing has run yet: a zero timeout expires, the job stays */
	CHECK(vgpu_job_wait(&a, 0, &ra) == -ETIME, "zero timeout");
	/* the program and buffer handles go; queued jobs keep what they use */
	out = malloc(f.bo->size);
	if (!out)
		return -1;
	vgpu_program_destroy(f.prog);
	f.prog = NULL;
	/* waiting for b runs a too: FCFS (the driver's policy) starts a's block first */
	CHECK(vgpu_job_wait(&b, -1, &rb) == 0 && rb.error == 0, "wait b: %d", rb.error);
	CHECK(vgpu_job_wait(&a, 0, &ra) == 0 && ra.error == 0, "a is over too: %d", ra.error);
	CHECK(ra.start_cycle <= rb.start_cycle, "a (%" PRIu64 "-%" PRIu64 ") starts before b (%"
	      PRIu64 "-)", ra.start_cycle, ra.end_cycle, rb.start_cycle);
	CHECK(ra.warp_insts == rb.warp_insts, "same work");
	CHECK(vgpu_job_wait(&a, -1, &ra) == -ENOENT, "a job is reported once");
	memcpy(out, f.bo->map, f.bo->size);
	for (uint32_t t = 0; t < 64; t++)
		CHECK(out[t] == t, "word %u", t);
	free(out);
	fixture_fini(&f);
	return 0;
}

static int t_bo_kept_by_job(void)
{
	struct vgpu_job_result res;
	struct vgpu_bo *other;
	struct vgpu_job job;
	struct fixture f;
	uint64_t addr;

	CHECK(fixture_init(&f, 64, 4) == 0, "fixture");
	addr = f.bo->addr;
	CHECK(vgpu_submit(f.dev, f.prog, &f.launch, &job) == 0, "submit");
	vgpu_bo_destroy(f.bo);
	f.bo = NULL;
	/* the memory is still the queued job's: a new buffer goes elsewhere */
	CHECK(vgpu_bo_create(f.dev, 4096, &other) == 0, "bo");
	CHECK(other->addr != addr, "the job's buffer was handed out again");
	CHECK(vgpu_job_wait(&job, -1, &res) == 0 && res.error == 0, "wait: %d", res.error);
	vgpu_bo_destroy(other);
	fixture_fini(&f);
	return 0;
}

int main(void)
{
	if (vgpu_sim_preset("fermi-gtx480", &cfg)) {
		printf("not ok - the fermi-gtx480 preset exists\n");
		return 1;
	}
	t_suite();
	report("a second run of the suite gives identical cycles and warp_insts",
	       t_suite_deterministic());
	report("get_param answers from the configuration and the model", t_params());
	report("buffer objects: best fit, page aligned, zeroed, address 0 unused",
	       t_bo_alloc());
	report("a launch runs, its result and the device cycle agree", t_run_and_cycle());
	report("an out-of-range store fails the job with -EFAULT", t_fault());
	report("bad BO lists, programs, launches and job ids are refused", t_bad_submit());
	report("bad images are refused; code the model rejects fails the job",
	       t_bad_program());
	report("queued jobs run by FCFS and keep their program", t_queue());
	report("a queued job keeps its buffer's memory", t_bo_kept_by_job());
	return test_summary();
}
