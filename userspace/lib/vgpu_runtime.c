// SPDX-License-Identifier: MIT
/*
 * vgpu_runtime.c - the runtime of vgpu_runtime.h over libvgpu's buffers,
 * programs and launches (vgpu.c): contexts, device memory by address,
 * modules with the compiler's metadata (compiler/vgpu_compile_meta.h),
 * launches with cuLaunchKernel's arguments, and streams and events over
 * the launches' in-fences (&vgpu_launch.wait_syncobjs).
 */
#include "vgpu_runtime.h"
#include "vgpu_error.h"
#include "vgpu_runtime_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/vgpu_compile.h"
#include "compiler/vgpu_compile_meta.h"

struct vgpu_function {
	struct vgpu_module *mod;
	uint32_t entry;				/* index in the image */
	const struct vgpu_compile_kernel *meta;	/* NULL: loaded from an image */
};

struct vgpu_module {
	struct vgpu_context *ctx;
	struct vgpu_module *next;		/* the context's modules */
	char name[64];				/* file name, or "ptx" / "image" */
	struct vgpu_program *prog;
	struct vgpu_compile_meta *meta;		/* NULL: loaded from an image */
	uint32_t num_functions;
	struct vgpu_function *functions;
	bool direct;				/* its data is in this process (local) */
	int copy_entry, base_entry;		/* the runtime's entries, -1: none */
	bool have_data;				/* @data_addr and @data_size known */
	uint64_t data_addr;
	uint32_t data_size;
};

/*
 * The end of one submitted launch, shared by its stream, the stream's next
 * launch and the events that mark it. It owns the job's syncobj (taken out
 * of &vgpu_job.syncobj, so that vgpu_job_wait() leaves it) until the last
 * reference goes; the job record is released when the job is waited for.
 */
struct fence {
	unsigned int refs;
	struct vgpu_context *ctx;
	struct vgpu_job job;
	uint32_t syncobj;
	bool done;				/* waited for: @res and @msg hold */
	struct vgpu_job_result res;
	int err;				/* @res.error, or the wait's own */
	const struct vgpu_program *prog;	/* for @msg, until @done */
	uint32_t entry;
	char kernel[96];
	char msg[320];
};

struct vgpu_stream {
	struct vgpu_context *ctx;
	struct vgpu_stream *next;		/* the context's streams */
	bool sync;				/* the default stream */
	struct fence **pending;			/* launched, not yet synchronised */
	unsigned int num_pending, cap_pending;
	struct fence *last;			/* the last launch, for events */
	bool last_synced;			/* @last reported: no in-fence */
	struct fence *waits[DRM_VGPU_MAX_IN_SYNCOBJS - 1];	/* wait_event */
	unsigned int num_waits;
};

struct vgpu_event {
	struct vgpu_context *ctx;
	struct vgpu_event *next;		/* the context's events */
	bool recorded;
	struct fence *fence;			/* NULL: marks no launch */
};

struct vgpu_context {
	struct vgpu_device *dev;
	struct vgpu_bo **bos;			/* allocations, in no order */
	unsigned int num_bos, cap_bos;
	struct vgpu_module *modules;
	bool have_result;
	struct vgpu_job_result last;
	bool kernel_copy;			/* vgpu_ctx_set_kernel_copy() */
	struct vgpu_stream null_stream;		/* the default stream */
	struct vgpu_stream *streams;
	struct vgpu_event *events;
	unsigned int fences;			/* alive: vgpu_ctx_fences() */
};

/* ------------------------------------------------------------------ */
/* fences, and what streams and events share */

/*
 * The streams and events that exist, so that a destroyed one (or a stray
 * pointer) is an error naming it rather than a use after free.
 */
struct registry {
	const void **v;
	size_t n, cap;
};
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct registry reg_streams, reg_events;

static int reg_add(struct registry *r, const void *p)
{
	int ret = 0;

	pthread_mutex_lock(&reg_lock);
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		const void **n = realloc(r->v, cap * sizeof(*n));

		if (n) {
			r->v = n;
			r->cap = cap;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret)
		r->v[r->n++] = p;
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

static bool reg_has(struct registry *r, const void *p)
{
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < r->n && !found; i++)
		found = r->v[i] == p;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

static void reg_del(struct registry *r, const void *p)
{
	pthread_mutex_lock(&reg_lock);
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i] == p) {
			r->v[i] = r->v[--r->n];
			break;
		}
	}
	if (!r->n) {
		free(r->v);
		r->v = NULL;
		r->cap = 0;
	}
	pthread_mutex_unlock(&reg_lock);
}

static struct fence *fence_get(struct fence *f)
{
	if (f)
		f->refs++;
	return f;
}

/*
 * Waits for @f's job (@timeout_ns < 0: no limit) and keeps how it ended;
 * -EBUSY when it has not ended within @timeout_ns. Its error is not
 * reported here (fence_report()).
 */
static int fence_wait(struct fence *f, int64_t timeout_ns)
{
	int ret;

	if (f->done)
		return 0;
	ret = vgpu_job_wait(&f->job, timeout_ns, &f->res);
	if (ret == -ETIME && timeout_ns >= 0)
		return -EBUSY;
	if (ret) {
		memset(&f->res, 0, sizeof(f->res));
		f->res.error = ret;
		f->err = ret;
		snprintf(f->msg, sizeof(f->msg), "waiting for the launch of kernel %s: %s",
			 f->kernel, strerror(-ret));
	} else {
		f->err = f->res.error;
		f->ctx->last = f->res;
		f->ctx->have_result = true;
		if (f->err == -ECANCELED)
			snprintf(f->msg, sizeof(f->msg), "launch of kernel %s cancelled: a launch "
				 "it waited for (the one before it on its stream, or one of an "
				 "event) failed", f->kernel);
		else if (f->err)
			vgpu_job_describe(&f->res, f->prog, f->entry, f->msg, sizeof(f->msg));
	}
	f->done = true;
	f->prog = NULL;
	return 0;
}

/* How long a query lets the job run: the local device's model runs only in waits. */
static int64_t poll_ns(const struct vgpu_context *ctx)
{
	return vgpu_device_fd(ctx->dev) < 0 ? 1000000 : 0;
}

/* @f's error, with its message, once it is done. */
static int fence_report(const struct fence *f)
{
	return f->err ? vgpu_set_error(f->err, "%s", f->msg) : 0;
}

static void fence_put(struct fence *f)
{
	if (!f || --f->refs)
		return;
	fence_wait(f, -1);		/* a pending launch holds a reference: done */
	vgpu_syncobj_destroy(f->ctx->dev, f->syncobj);
	f->ctx->fences--;
	free(f);
}

/* @stream, NULL the default stream, as a stream of @ctx, for @what. */
static int stream_of(struct vgpu_context *ctx, struct vgpu_stream *stream, const char *what,
		     struct vgpu_stream **out)
{
	if (!stream) {
		*out = &ctx->null_stream;
		return 0;
	}
	if (!reg_has(&reg_streams, stream))
		return vgpu_set_error(-EINVAL, "%s: stream %p does not exist (destroyed, or never "
				      "created)", what, (void *)stream);
	if (stream->ctx != ctx)
		return vgpu_set_error(-EINVAL, "%s: stream %p belongs to another context", what,
				      (void *)stream);
	*out = stream;
	return 0;
}

/*
 * Waits for every pending launch of @s and forgets them: 0, or the first
 * failed one's error, reported. Its next launch waits for none of them.
 */
static int stream_sync(struct vgpu_stream *s)
{
	int ret = 0;

	for (unsigned int i = 0; i < s->num_pending; i++)
		fence_wait(s->pending[i], -1);
	for (unsigned int i = 0; i < s->num_pending; i++) {
		if (!ret)
			ret = fence_report(s->pending[i]);
		fence_put(s->pending[i]);
	}
	s->num_pending = 0;
	s->last_synced = true;
	return ret;
}

/* stream_sync(), then everything @s holds released. */
static int stream_release_ret(struct vgpu_stream *s)
{
	int ret = stream_sync(s);

	fence_put(s->last);
	s->last = NULL;
	for (unsigned int i = 0; i < s->num_waits; i++)
		fence_put(s->waits[i]);
	s->num_waits = 0;
	free(s->pending);
	s->pending = NULL;
	s->cap_pending = 0;
	return ret;
}

static void stream_release(struct vgpu_stream *s)
{
	stream_release_ret(s);
}

/*
 * Before a copy on @stream: its launches over (their first error
 * returned), and the launches of the events it waits for over, -ECANCELED
 * when one failed.
 */
static int stream_ready(struct vgpu_context *ctx, struct vgpu_stream *stream,
			const char *what)
{
	struct vgpu_stream *s;
	int ret = stream_of(ctx, stream, what, &s);

	if (!ret)
		ret = stream_sync(s);
	for (unsigned int i = 0; !ret && i < s->num_waits; i++) {
		struct fence *f = s->waits[i];

		fence_wait(f, -1);
		if (f->err)
			ret = vgpu_set_error(-ECANCELED, "%s cancelled: the stream waits for an "
					     "event whose launch failed (%s)", what, f->msg);
	}
	return ret;
}

/* Every pending launch of @ctx over; their errors stay for their streams. */
static void ctx_drain(struct vgpu_context *ctx)
{
	for (struct vgpu_stream *s = ctx->streams; s; s = s->next)
		for (unsigned int i = 0; i < s->num_pending; i++)
			fence_wait(s->pending[i], -1);
}

static void event_free(struct vgpu_event *ev)
{
	for (struct vgpu_event **p = &ev->ctx->events; *p; p = &(*p)->next) {
		if (*p == ev) {
			*p = ev->next;
			break;
		}
	}
	fence_put(ev->fence);
	reg_del(&reg_events, ev);
	free(ev);
}

/*
 * Module variables on the render node. The driver places a program's data
 * segment in device memory but neither tells userspace where nor maps it;
 * every launch of the program reaches it, though. So a module with
 * variables loaded on the render node is compiled with two entries of the
 * runtime's own appended to its PTX: __vgpu_rt_base stores the address of
 * __vgpu_rt_anchor, a variable of the segment, which gives the segment's
 * address, and __vgpu_rt_copy copies bytes between the segment and a
 * staging buffer, one thread a byte. On the local device the runtime reads
 * and writes the segment in place and compiles the PTX as it is.
 */
#define RT_PREFIX	"__vgpu_rt_"
static const char rt_ptx[] =
	"\n.global .align 8 .b8 __vgpu_rt_anchor[8];\n"
	".visible .entry __vgpu_rt_base(.param .u64 __vgpu_rt_out)\n"
	"{\n"
	"\t.reg .b64 %rd<3>;\n"
	"\tld.param.u64 %rd1, [__vgpu_rt_out];\n"
	"\tmov.u64 %rd2, __vgpu_rt_anchor;\n"
	"\tst.global.u64 [%rd1], %rd2;\n"
	"\tret;\n"
	"}\n"
	".visible .entry __vgpu_rt_copy(.param .u64 __vgpu_rt_dst, .param .u64 __vgpu_rt_src,\n"
	"\t.param .u32 __vgpu_rt_n)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b16 %rs<2>;\n"
	"\t.reg .b32 %r<6>;\n"
	"\t.reg .b64 %rd<6>;\n"
	"\tld.param.u64 %rd1, [__vgpu_rt_dst];\n"
	"\tld.param.u64 %rd2, [__vgpu_rt_src];\n"
	"\tld.param.u32 %r1, [__vgpu_rt_n];\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n"
	"\tmov.u32 %r4, %tid.x;\n"
	"\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"
	"\tsetp.ge.u32 %p1, %r5, %r1;\n"
	"\t@%p1 bra $__vgpu_rt_done;\n"
	"\tcvt.u64.u32 %rd3, %r5;\n"
	"\tadd.s64 %rd4, %rd2, %rd3;\n"
	"\tld.global.u8 %rs1, [%rd4];\n"
	"\tadd.s64 %rd5, %rd1, %rd3;\n"
	"\tst.global.u8 [%rd5], %rs1;\n"
	"$__vgpu_rt_done:\n"
	"\tret;\n"
	"}\n";

static bool is_internal(const char *name)
{
	return strncmp(name, RT_PREFIX, strlen(RT_PREFIX)) == 0;
}

void vgpu_ctx_set_kernel_copy(struct vgpu_context *ctx, bool on)
{
	ctx->kernel_copy = on;
}

unsigned int vgpu_ctx_fences(const struct vgpu_context *ctx)
{
	return ctx->fences;
}

int vgpu_ctx_create(struct vgpu_device *dev, struct vgpu_context **out)
{
	struct vgpu_context *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return vgpu_set_error(-ENOMEM, "context: out of memory");
	ctx->dev = dev;
	ctx->null_stream.ctx = ctx;
	ctx->null_stream.sync = true;
	*out = ctx;
	return 0;
}

void vgpu_ctx_destroy(struct vgpu_context *ctx)
{
	if (!ctx)
		return;
	while (ctx->streams)
		vgpu_stream_destroy(ctx->streams);
	stream_release(&ctx->null_stream);
	while (ctx->events)
		event_free(ctx->events);
	while (ctx->modules)
		vgpu_module_unload(ctx->modules);
	for (unsigned int i = 0; i < ctx->num_bos; i++)
		vgpu_bo_destroy(ctx->bos[i]);
	free(ctx->bos);
	free(ctx);
}

struct vgpu_device *vgpu_ctx_device(const struct vgpu_context *ctx)
{
	return ctx->dev;
}

int vgpu_ctx_last_result(const struct vgpu_context *ctx, struct vgpu_job_result *res)
{
	if (!ctx->have_result)
		return vgpu_set_error(-ENOENT, "the context has launched nothing yet");
	*res = ctx->last;
	return 0;
}

/* ------------------------------------------------------------------ */
/* device memory */

int vgpu_mem_alloc(struct vgpu_context *ctx, size_t bytes, vgpu_deviceptr *dptr)
{
	struct vgpu_bo *bo;
	int ret;

	if (!bytes)
		return vgpu_set_error(-EINVAL, "allocation of 0 bytes");
	if (ctx->num_bos == ctx->cap_bos) {
		unsigned int cap = ctx->cap_bos ? ctx->cap_bos * 2 : 16;
		struct vgpu_bo **n = realloc(ctx->bos, cap * sizeof(*n));

		if (!n)
			return vgpu_set_error(-ENOMEM, "allocation: out of memory");
		ctx->bos = n;
		ctx->cap_bos = cap;
	}
	ret = vgpu_bo_create(ctx->dev, bytes, &bo);
	if (ret)
		return vgpu_set_error(ret, "allocation of %zu bytes of device memory: %s", bytes,
				      strerror(-ret));
	ctx->bos[ctx->num_bos++] = bo;
	*dptr = bo->addr;
	return 0;
}

int vgpu_mem_free(struct vgpu_context *ctx, vgpu_deviceptr dptr)
{
	ctx_drain(ctx);
	for (unsigned int i = 0; i < ctx->num_bos; i++) {
		if (ctx->bos[i]->addr == dptr) {
			vgpu_bo_destroy(ctx->bos[i]);
			ctx->bos[i] = ctx->bos[--ctx->num_bos];
			return 0;
		}
	}
	return vgpu_set_error(-EINVAL, "free of %#" PRIx64 ", which no allocation starts at",
			      dptr);
}

/* Runs one of the runtime's entries of @mod over @threads threads, reaching @bo. */
static int run_internal(struct vgpu_module *mod, int entry, const struct vgpu_params *p,
			uint32_t threads, struct vgpu_bo *bo)
{
	struct vgpu_bo *bos[1] = { bo };
	struct vgpu_launch l = {
		.entry = (uint32_t)entry,
		.grid = { (threads + 127) / 128, 1, 1 },
		.block = { 128, 1, 1 },
		.params = p,
		.bos = bos,
		.num_bos = 1,
	};
	struct vgpu_job_result res;
	char why[256];
	int ret = vgpu_run(mod->ctx->dev, mod->prog, &l, &res);

	if (ret)
		return vgpu_set_error(ret, "module %s: the runtime's copy kernel was refused: %s",
				      mod->name, strerror(-ret));
	if (res.error)
		return vgpu_set_error(res.error, "module %s: the runtime's copy kernel: %s",
				      mod->name, vgpu_job_describe(&res, mod->prog, l.entry, why,
								   sizeof(why)));
	return 0;
}

/* Where @mod's data segment is: in place, or through __vgpu_rt_base. */
static int module_data(struct vgpu_module *mod)
{
	struct vgpu_params p;
	struct vgpu_bo *bo;
	uint64_t anchor;
	int ret;

	if (mod->have_data)
		return 0;
	if (!mod->meta)
		return -ENODATA;
	if (mod->direct) {
		ret = vgpu_local_program_data(mod->prog, &mod->data_addr, &mod->data_size);
		if (ret)
			return vgpu_set_error(ret, "module %s: its data segment: %s", mod->name,
					      strerror(-ret));
	} else if (mod->base_entry >= 0) {
		ret = vgpu_bo_create(mod->ctx->dev, sizeof(anchor), &bo);
		if (ret)
			return vgpu_set_error(ret, "module %s: a staging buffer: %s", mod->name,
					      strerror(-ret));
		vgpu_params_init(&p);
		vgpu_params_u64(&p, bo->addr);
		ret = run_internal(mod, mod->base_entry, &p, 1, bo);
		memcpy(&anchor, bo->map, sizeof(anchor));
		vgpu_bo_destroy(bo);
		if (ret)
			return ret;
		ret = -EOPNOTSUPP;
		for (uint32_t i = 0; i < mod->meta->num_vars; i++) {
			if (strcmp(mod->meta->vars[i].name, RT_PREFIX "anchor") == 0) {
				mod->data_addr = anchor - mod->meta->vars[i].offset;
				ret = 0;
			}
		}
		if (ret)
			return vgpu_set_error(ret, "module %s: no %sanchor", mod->name, RT_PREFIX);
		mod->data_size = mod->meta->data_size;
	} else {
		return vgpu_set_error(-EOPNOTSUPP, "module %s: the render node does not let "
				      "userspace reach a program's data, and the module could not "
				      "take the runtime's copy kernel", mod->name);
	}
	mod->have_data = true;
	return 0;
}

/*
 * Bytes of device memory as a copy reaches them: a host view (a buffer
 * object's mapping, or the local device's memory), or a module's data
 * segment through its copy kernel.
 */
struct span {
	uint8_t *host;
	struct vgpu_module *mod;
	uint64_t addr;
};

/* @n bytes between @host and @addr of @mod's data segment, through a staging buffer. */
static int kernel_copy(struct vgpu_module *mod, uint64_t addr, void *host, size_t n,
		       bool to_device)
{
	struct vgpu_params p;
	struct vgpu_bo *bo;
	int ret;

	if (!n)
		return 0;
	if (n > UINT32_MAX)
		return vgpu_set_error(-E2BIG, "copy of %zu bytes: too many at once", n);
	ret = vgpu_bo_create(mod->ctx->dev, n, &bo);
	if (ret)
		return vgpu_set_error(ret, "module %s: a staging buffer of %zu bytes: %s",
				      mod->name, n, strerror(-ret));
	if (to_device)
		memcpy(bo->map, host, n);
	vgpu_params_init(&p);
	vgpu_params_u64(&p, to_device ? addr : bo->addr);
	vgpu_params_u64(&p, to_device ? bo->addr : addr);
	vgpu_params_u32(&p, (uint32_t)n);
	ret = run_internal(mod, mod->copy_entry, &p, (uint32_t)n, bo);
	if (!ret && !to_device)
		memcpy(host, bo->map, n);
	vgpu_bo_destroy(bo);
	return ret;
}

static int span_write(const struct span *sp, const void *src, size_t n)
{
	if (sp->host) {
		memmove(sp->host, src, n);
		return 0;
	}
	return kernel_copy(sp->mod, sp->addr, (void *)src, n, true);
}

static int span_read(const struct span *sp, void *dst, size_t n)
{
	if (sp->host) {
		memmove(dst, sp->host, n);
		return 0;
	}
	return kernel_copy(sp->mod, sp->addr, dst, n, false);
}

/* @mod's variable @name, the runtime's own left out. */
static const struct vgpu_compile_var *var_named(const struct vgpu_module *mod, const char *name)
{
	for (uint32_t i = 0; mod->meta && name && i < mod->meta->num_vars; i++) {
		const struct vgpu_compile_var *v = &mod->meta->vars[i];

		if (!is_internal(v->name) && strcmp(v->name, name) == 0)
			return v;
	}
	return NULL;
}

/* The span at @dptr, in a variable of @mod (whose data segment is known). */
static void var_span(struct vgpu_module *mod, uint64_t dptr, struct span *sp)
{
	uint64_t vram_size;

	memset(sp, 0, sizeof(*sp));
	if (mod->direct) {
		sp->host = vgpu_local_vram(mod->ctx->dev, &vram_size) + dptr;
	} else {
		sp->mod = mod;
		sp->addr = dptr;
	}
}

/*
 * The span of @bytes of device memory at @dptr: inside one allocation, or
 * one module variable. @what names the copy for the error.
 */
static int resolve(struct vgpu_context *ctx, vgpu_deviceptr dptr, size_t bytes,
		   const char *what, struct span *sp)
{
	memset(sp, 0, sizeof(*sp));
	for (unsigned int i = 0; i < ctx->num_bos; i++) {
		struct vgpu_bo *bo = ctx->bos[i];

		if (dptr < bo->addr || dptr >= bo->addr + bo->size)
			continue;
		if (bytes > bo->addr + bo->size - dptr)
			return vgpu_set_error(-EFAULT,
					      "%s of %zu bytes at %#" PRIx64 " runs past the end of "
					      "its allocation (%#" PRIx64 ", %" PRIu64 " bytes)",
					      what, bytes, dptr, bo->addr, bo->size);
		sp->host = (uint8_t *)bo->map + (dptr - bo->addr);
		return 0;
	}
	for (struct vgpu_module *mod = ctx->modules; mod; mod = mod->next) {
		uint64_t addr;

		if (module_data(mod) || dptr < mod->data_addr ||
		    dptr >= mod->data_addr + mod->data_size)
			continue;
		addr = mod->data_addr;
		for (uint32_t i = 0; i < mod->meta->num_vars; i++) {
			const struct vgpu_compile_var *v = &mod->meta->vars[i];

			if (is_internal(v->name) || dptr < addr + v->offset ||
			    dptr >= addr + v->offset + v->size)
				continue;
			if (bytes > addr + v->offset + v->size - dptr)
				return vgpu_set_error(-EFAULT,
						      "%s of %zu bytes at %#" PRIx64 " runs past the "
						      "end of variable '%s' (%u bytes) of module %s",
						      what, bytes, dptr, v->name, v->size, mod->name);
			var_span(mod, dptr, sp);
			return 0;
		}
	}
	return vgpu_set_error(-EFAULT, "%s of %zu bytes at %#" PRIx64 ": no allocation or module "
			      "variable of the context holds that address", what, bytes, dptr);
}

int vgpu_memcpy_htod_async(struct vgpu_context *ctx, vgpu_deviceptr dst, const void *src,
			   size_t bytes, struct vgpu_stream *stream)
{
	struct span sp;
	int ret = stream_ready(ctx, stream, "copy to the device");

	if (!ret)
		ret = resolve(ctx, dst, bytes, "copy to the device", &sp);

	return ret ? ret : span_write(&sp, src, bytes);
}

int vgpu_memcpy_dtoh_async(struct vgpu_context *ctx, void *dst, vgpu_deviceptr src,
			   size_t bytes, struct vgpu_stream *stream)
{
	struct span sp;
	int ret = stream_ready(ctx, stream, "copy from the device");

	if (!ret)
		ret = resolve(ctx, src, bytes, "copy from the device", &sp);

	return ret ? ret : span_read(&sp, dst, bytes);
}

int vgpu_memcpy_dtod_async(struct vgpu_context *ctx, vgpu_deviceptr dst, vgpu_deviceptr src,
			   size_t bytes, struct vgpu_stream *stream)
{
	struct span d, s;
	uint8_t *tmp;
	int ret = stream_ready(ctx, stream, "copy on the device");

	if (!ret)
		ret = resolve(ctx, dst, bytes, "copy to the device", &d);

	if (!ret)
		ret = resolve(ctx, src, bytes, "copy from the device", &s);
	if (ret)
		return ret;
	if (d.host && s.host) {
		memmove(d.host, s.host, bytes);
		return 0;
	}
	/* a module variable through its copy kernel: by way of the host */
	tmp = malloc(bytes ? bytes : 1);
	if (!tmp)
		return vgpu_set_error(-ENOMEM, "copy of %zu bytes: out of memory", bytes);
	ret = span_read(&s, tmp, bytes);
	if (!ret)
		ret = span_write(&d, tmp, bytes);
	free(tmp);
	return ret;
}

/* Fills @n bytes at @dst with @n / @size copies of the @size bytes at @value. */
static int fill(struct vgpu_context *ctx, vgpu_deviceptr dst, const void *value, size_t size,
		size_t n)
{
	struct span sp;
	uint8_t *tmp;
	int ret = resolve(ctx, dst, n, "memset", &sp);

	if (ret)
		return ret;
	tmp = sp.host ? sp.host : malloc(n ? n : 1);
	if (!tmp)
		return vgpu_set_error(-ENOMEM, "memset of %zu bytes: out of memory", n);
	for (size_t i = 0; i < n; i += size)
		memcpy(tmp + i, value, size);
	if (!sp.host) {
		ret = span_write(&sp, tmp, n);
		free(tmp);
	}
	return ret;
}

int vgpu_memset_d8_async(struct vgpu_context *ctx, vgpu_deviceptr dst, uint8_t value,
			 size_t n, struct vgpu_stream *stream)
{
	int ret = stream_ready(ctx, stream, "memset");

	return ret ? ret : fill(ctx, dst, &value, 1, n);
}

int vgpu_memset_d32_async(struct vgpu_context *ctx, vgpu_deviceptr dst, uint32_t value,
			  size_t n, struct vgpu_stream *stream)
{
	int ret = stream_ready(ctx, stream, "memset");

	if (ret)
		return ret;
	if (dst % 4)
		return vgpu_set_error(-EINVAL, "memset of 32-bit words at %#" PRIx64
				      ", not 4-byte aligned", dst);
	if (n > SIZE_MAX / 4)
		return vgpu_set_error(-EINVAL, "memset of %zu words: too many", n);
	return fill(ctx, dst, &value, 4, n * 4);
}

int vgpu_memcpy_htod(struct vgpu_context *ctx, vgpu_deviceptr dst, const void *src,
		     size_t bytes)
{
	return vgpu_memcpy_htod_async(ctx, dst, src, bytes, NULL);
}

int vgpu_memcpy_dtoh(struct vgpu_context *ctx, void *dst, vgpu_deviceptr src, size_t bytes)
{
	return vgpu_memcpy_dtoh_async(ctx, dst, src, bytes, NULL);
}

int vgpu_memcpy_dtod(struct vgpu_context *ctx, vgpu_deviceptr dst, vgpu_deviceptr src,
		     size_t bytes)
{
	return vgpu_memcpy_dtod_async(ctx, dst, src, bytes, NULL);
}

int vgpu_memset_d8(struct vgpu_context *ctx, vgpu_deviceptr dst, uint8_t value, size_t n)
{
	return vgpu_memset_d8_async(ctx, dst, value, n, NULL);
}

int vgpu_memset_d32(struct vgpu_context *ctx, vgpu_deviceptr dst, uint32_t value, size_t n)
{
	return vgpu_memset_d32_async(ctx, dst, value, n, NULL);
}

/* ------------------------------------------------------------------ */
/* modules */

static bool is_image(const void *data, size_t len)
{
	uint32_t magic;

	if (len < sizeof(struct vgpu_program_header))
		return false;
	memcpy(&magic, data, sizeof(magic));
	return magic == VGPU_PROGRAM_MAGIC;
}

/*
 * @mod's PTX again with the runtime's entries appended (rt_ptx), for the
 * render node; on success *@image and @mod's metadata are replaced. A
 * module that cannot take them (32-bit PTX, ...) keeps its own image, and
 * its variables stay out of reach.
 */
static void with_copy_kernel(struct vgpu_module *mod, const void *ptx, size_t len,
			     unsigned int opts, void **image, size_t *size)
{
	struct vgpu_compile_meta *meta = NULL;
	struct vgpu_compile_limits lim;
	size_t n = len + sizeof(rt_ptx);
	void *img2 = NULL;
	size_t size2 = 0;
	char *src = malloc(n);

	if (!src)
		return;
	memcpy(src, ptx, len);
	memcpy(src + len, rt_ptx, sizeof(rt_ptx));
	vgpu_device_compile_limits(mod->ctx->dev, &lim);
	if (!vgpu_compile_ptx_meta_limits(src, n - 1, opts, &lim, &img2, &size2, &meta, NULL,
					  0)) {
		free(*image);
		vgpu_compile_meta_free(mod->meta);
		*image = img2;
		*size = size2;
		mod->meta = meta;
		for (uint32_t i = 0; i < meta->num_kernels; i++) {
			if (strcmp(meta->kernels[i].name, RT_PREFIX "copy") == 0)
				mod->copy_entry = (int)i;
			if (strcmp(meta->kernels[i].name, RT_PREFIX "base") == 0)
				mod->base_entry = (int)i;
		}
	}
	free(src);
}

/*
 * Loads PTX, compiled with the VGPU_COMPILE_* options @opts, or an image
 * (@opts 0); @name names the module in messages.
 */
static int module_load(struct vgpu_context *ctx, const void *data, size_t len,
		       unsigned int opts, const char *name, struct vgpu_module **out)
{
	struct vgpu_module *mod = calloc(1, sizeof(*mod));
	const struct vgpu_program_header *hdr;
	void *image = NULL;
	size_t size = 0;
	int ret;

	if (!mod)
		return vgpu_set_error(-ENOMEM, "module %s: out of memory", name);
	snprintf(mod->name, sizeof(mod->name), "%s", name);
	mod->ctx = ctx;
	mod->copy_entry = -1;
	mod->base_entry = -1;
	{
		uint64_t vram_size;

		mod->direct = vgpu_local_vram(ctx->dev, &vram_size) && !ctx->kernel_copy;
	}
	if (is_image(data, len) && opts) {
		ret = vgpu_set_error(-EINVAL, "module %s: compile options 0x%x for a program "
				     "image, which is compiled already", name, opts);
		goto err;
	} else if (is_image(data, len)) {
		ret = vgpu_program_create_image(ctx->dev, data, len, &mod->prog);
		if (ret) {
			struct vgpu_compile_limits lim;
			char why[256] = "";

			/* -E2BIG: which entry needs what */
			vgpu_device_compile_limits(ctx->dev, &lim);
			if (ret != -E2BIG ||
			    vgpu_compile_check_limits(data, len, &lim, why, sizeof(why)) != -E2BIG)
				snprintf(why, sizeof(why), "%s", strerror(-ret));
			vgpu_set_error(ret, "module %s: program image rejected by the device: %s",
				       name, why);
			goto err;
		}
	} else {
		struct vgpu_compile_limits lim;
		char err[256];

		/* for the device: spilled to its registers, refused by name when an
		 * entry does not fit (vgpu_program_create_ptx() does the same) */
		vgpu_device_compile_limits(ctx->dev, &lim);
		ret = vgpu_compile_ptx_meta_limits(data, len, opts, &lim, &image, &size,
						   &mod->meta, err, sizeof(err));
		if (ret) {
			/* "ptx:LINE: message" as "NAME:LINE: message"; one without a
			 * line (an unknown option, ...) as "NAME: message" */
			if (strncmp(err, "ptx:", 4))
				vgpu_set_error(ret, "%s: %s", name, err);
			else
				vgpu_set_error(ret, "%s%s", name, err + 3);
			goto err;
		}
		if (!mod->direct && mod->meta->num_vars)
			with_copy_kernel(mod, data, len, opts, &image, &size);
		ret = vgpu_program_create_image(ctx->dev, image, size, &mod->prog);
		free(image);
		if (ret) {
			vgpu_set_error(ret, "module %s: program rejected by the device: %s", name,
				       strerror(-ret));
			goto err;
		}
	}
	hdr = mod->prog->image;
	mod->num_functions = hdr->num_entries;
	mod->functions = calloc(hdr->num_entries, sizeof(*mod->functions));
	if (!mod->functions) {
		ret = vgpu_set_error(-ENOMEM, "module %s: out of memory", name);
		goto err;
	}
	for (uint32_t i = 0; i < hdr->num_entries; i++) {
		mod->functions[i].mod = mod;
		mod->functions[i].entry = i;
		if (mod->meta && i < mod->meta->num_kernels)
			mod->functions[i].meta = &mod->meta->kernels[i];
	}
	mod->next = ctx->modules;
	ctx->modules = mod;
	*out = mod;
	return 0;
err:
	vgpu_program_destroy(mod->prog);
	vgpu_compile_meta_free(mod->meta);
	free(mod);
	return ret;
}

int vgpu_module_load_data_opts(struct vgpu_context *ctx, const void *data, size_t len,
			       unsigned int opts, struct vgpu_module **out)
{
	if (!data)
		return vgpu_set_error(-EINVAL, "module: no data");
	if (!len)
		len = strlen(data);	/* PTX text; an image comes with its size */
	return module_load(ctx, data, len, opts, is_image(data, len) ? "image" : "ptx", out);
}

int vgpu_module_load_data(struct vgpu_context *ctx, const void *data, size_t len,
			  struct vgpu_module **out)
{
	return vgpu_module_load_data_opts(ctx, data, len, 0, out);
}

int vgpu_module_load(struct vgpu_context *ctx, const char *path, struct vgpu_module **out)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;
	int ret;

	if (!f)
		return vgpu_set_error(-errno, "module %s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		ret = vgpu_set_error(-EIO, "module %s: cannot read it", path);
		goto out;
	}
	if ((unsigned long)len > VGPU_PROGRAM_MAX_SIZE * 4ul) {
		ret = vgpu_set_error(-E2BIG, "module %s: %ld bytes, too large", path, len);
		goto out;
	}
	buf = malloc((size_t)len + 1);
	if (!buf) {
		ret = vgpu_set_error(-ENOMEM, "module %s: out of memory", path);
		goto out;
	}
	if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
		ret = vgpu_set_error(-EIO, "module %s: cannot read it", path);
		goto out;
	}
	buf[len] = 0;
	ret = module_load(ctx, buf, (size_t)len, 0, base, out);
out:
	free(buf);
	fclose(f);
	return ret;
}

void vgpu_module_unload(struct vgpu_module *mod)
{
	struct vgpu_module **p;

	if (!mod)
		return;
	ctx_drain(mod->ctx);
	for (p = &mod->ctx->modules; *p; p = &(*p)->next) {
		if (*p == mod) {
			*p = mod->next;
			break;
		}
	}
	vgpu_program_destroy(mod->prog);
	vgpu_compile_meta_free(mod->meta);
	free(mod->functions);
	free(mod);
}

struct vgpu_program *vgpu_module_program(const struct vgpu_module *mod)
{
	return mod->prog;
}

/* "a, b, c" of the module's kernels (@vars false) or variables into @buf. */
static const char *list_names(const struct vgpu_module *mod, bool vars, char *buf, size_t len)
{
	uint32_t n = vars ? (mod->meta ? mod->meta->num_vars : 0) : mod->num_functions;
	size_t used = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < n && used < len; i++) {
		const char *name = vars ? mod->meta->vars[i].name :
				   vgpu_program_entry(mod->prog, i)->name;

		if (!is_internal(name))
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 name);
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

int vgpu_module_get_function(struct vgpu_module *mod, const char *name,
			     struct vgpu_function **out)
{
	char names[256];
	uint32_t index;

	if (!name || vgpu_program_find_entry(mod->prog, name, &index) ||
	    is_internal(vgpu_program_entry(mod->prog, index)->name))
		return vgpu_set_error(-ENOENT, "no kernel '%s' in module %s (kernels: %s)",
				      name ? name : "(null)", mod->name,
				      list_names(mod, false, names, sizeof(names)));
	*out = &mod->functions[index];
	return 0;
}

static int find_global(struct vgpu_module *mod, const char *name,
		       const struct vgpu_compile_var **var)
{
	char names[256];

	if (!mod->meta)
		return vgpu_set_error(-ENODATA, "module %s was loaded from a program image, which "
				      "does not name its variables: load it from PTX to reach "
				      "'%s'", mod->name, name ? name : "(null)");
	*var = var_named(mod, name);
	if (!*var)
		return vgpu_set_error(-ENOENT, "no variable '%s' in module %s (variables: %s)",
				      name ? name : "(null)", mod->name,
				      list_names(mod, true, names, sizeof(names)));
	return module_data(mod);
}

int vgpu_module_get_global(struct vgpu_module *mod, const char *name, vgpu_deviceptr *dptr,
			   size_t *bytes)
{
	const struct vgpu_compile_var *v;
	int ret = find_global(mod, name, &v);

	if (ret)
		return ret;
	if (dptr)
		*dptr = mod->data_addr + v->offset;
	if (bytes)
		*bytes = v->size;
	return 0;
}

/* The span of @bytes at @offset of variable @name. */
static int symbol_span(struct vgpu_module *mod, const char *name, size_t bytes, size_t offset,
		       const char *what, struct span *sp)
{
	const struct vgpu_compile_var *v;
	int ret = find_global(mod, name, &v);

	if (ret)
		return ret;
	if (offset > v->size || bytes > v->size - offset)
		return vgpu_set_error(-EFAULT, "%s of %zu bytes at offset %zu of variable '%s' "
				      "of module %s runs past its end (%u bytes)", what, bytes,
				      offset, name, mod->name, v->size);
	var_span(mod, mod->data_addr + v->offset + offset, sp);
	return 0;
}

int vgpu_memcpy_to_symbol(struct vgpu_module *mod, const char *name, const void *src,
			  size_t bytes, size_t offset)
{
	struct span sp;
	int ret = symbol_span(mod, name, bytes, offset, "copy to the device", &sp);

	return ret ? ret : span_write(&sp, src, bytes);
}

int vgpu_memcpy_from_symbol(struct vgpu_module *mod, const char *name, void *dst,
			    size_t bytes, size_t offset)
{
	struct span sp;
	int ret = symbol_span(mod, name, bytes, offset, "copy from the device", &sp);

	return ret ? ret : span_read(&sp, dst, bytes);
}

/* ------------------------------------------------------------------ */
/* functions and launches */

const char *vgpu_func_name(const struct vgpu_function *f)
{
	return vgpu_program_entry(f->mod->prog, f->entry)->name;
}

static int no_params(const struct vgpu_function *f)
{
	return vgpu_set_error(-ENODATA, "kernel %s of module %s, loaded from a program image, "
			      "has no parameter list: load the module from PTX, or launch with "
			      "vgpu_launch_kernel_packed()", vgpu_func_name(f), f->mod->name);
}

int vgpu_func_get_attribute(const struct vgpu_function *f, enum vgpu_func_attribute attr,
			    int *value)
{
	const struct vgpu_program_entry *e = vgpu_program_entry(f->mod->prog, f->entry);
	uint64_t v = 0;
	int ret;

	switch (attr) {
	case VGPU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
		v = e->max_threads_per_tb;
		if (!v) {
			ret = vgpu_get_param(f->mod->ctx->dev, DRM_VGPU_PARAM_MAX_THREADS_PER_TB,
					     &v);
			if (ret)
				return vgpu_set_error(ret, "the device's block limit: %s",
						      strerror(-ret));
		}
		break;
	case VGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
		v = e->shared_static;
		break;
	case VGPU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
		v = e->local_per_thread;
		break;
	case VGPU_FUNC_ATTRIBUTE_NUM_REGS:
		v = e->regs_per_thread;
		break;
	case VGPU_FUNC_ATTRIBUTE_PARAM_SIZE_BYTES:
		v = e->param_size;
		break;
	case VGPU_FUNC_ATTRIBUTE_NUM_PARAMS:
		if (!f->meta)
			return no_params(f);
		v = f->meta->num_params;
		break;
	default:
		return vgpu_set_error(-EINVAL, "unknown function attribute %d", (int)attr);
	}
	*value = (int)v;
	return 0;
}

int vgpu_func_get_param_info(const struct vgpu_function *f, unsigned int index,
			     size_t *offset, size_t *size)
{
	if (!f->meta)
		return no_params(f);
	if (index >= f->meta->num_params)
		return vgpu_set_error(-EINVAL, "kernel %s has %u parameters, no parameter %u",
				      vgpu_func_name(f), f->meta->num_params, index);
	if (offset)
		*offset = f->meta->params[index].offset;
	if (size)
		*size = f->meta->params[index].size;
	return 0;
}

/* "n, s, out" of @f's parameters, nvcc's "_Z..._param_" prefix left out. */
static const char *param_names(const struct vgpu_function *f, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < f->meta->num_params && used < len; i++) {
		const char *n = f->meta->params[i].name;
		const char *p = strstr(n, "_param_");

		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 p ? p + 1 : n);
	}
	return buf;
}

/*
 * Submits @f with the parameter block @params on @stream (NULL: the
 * default stream), after the stream's last launch and the events it waits
 * for; on the default stream, waits for it.
 */
static int launch(struct vgpu_function *f, const uint32_t grid[3], const uint32_t block[3],
		  unsigned int shared_bytes, struct vgpu_stream *stream,
		  const struct vgpu_params *params)
{
	struct vgpu_context *ctx = f->mod->ctx;
	uint32_t waits[DRM_VGPU_MAX_IN_SYNCOBJS];
	struct vgpu_launch l = {
		.entry = f->entry,
		.dynamic_shared = shared_bytes,
		.params = params,
		.wait_syncobjs = waits,
	};
	struct vgpu_stream *s;
	struct fence *fc;
	char what[160];
	int ret;

	snprintf(what, sizeof(what), "launch of kernel %s", vgpu_func_name(f));
	ret = stream_of(ctx, stream, what, &s);
	if (ret)
		return ret;
	if (s->num_pending == s->cap_pending) {
		unsigned int cap = s->cap_pending ? s->cap_pending * 2 : 8;
		struct fence **n = realloc(s->pending, cap * sizeof(*n));

		if (!n)
			return vgpu_set_error(-ENOMEM, "%s: out of memory", what);
		s->pending = n;
		s->cap_pending = cap;
	}
	fc = calloc(1, sizeof(*fc));
	if (!fc)
		return vgpu_set_error(-ENOMEM, "%s: out of memory", what);
	if (s->last && !s->last_synced)
		waits[l.num_wait_syncobjs++] = s->last->syncobj;
	for (unsigned int i = 0; i < s->num_waits; i++) {
		if (s->waits[i] != s->last || s->last_synced)
			waits[l.num_wait_syncobjs++] = s->waits[i]->syncobj;
	}
	memcpy(l.grid, grid, sizeof(l.grid));
	memcpy(l.block, block, sizeof(l.block));
	ret = vgpu_submit(ctx->dev, f->mod->prog, &l, &fc->job);
	if (ret) {
		free(fc);
		return vgpu_set_error(ret, "launch of kernel %s (grid %ux%ux%u, block %ux%ux%u, "
				      "%u bytes of dynamic shared memory) refused: %s",
				      vgpu_func_name(f), grid[0], grid[1], grid[2], block[0],
				      block[1], block[2], shared_bytes, strerror(-ret));
	}
	fc->refs = 2;				/* @s's pending list and @s->last */
	fc->ctx = ctx;
	ctx->fences++;
	fc->syncobj = fc->job.syncobj;
	fc->job.syncobj = 0;			/* the fence's, past the job's wait */
	fc->prog = f->mod->prog;
	fc->entry = f->entry;
	snprintf(fc->kernel, sizeof(fc->kernel), "%s", vgpu_func_name(f));
	s->pending[s->num_pending++] = fc;
	fence_put(s->last);
	s->last = fc;
	s->last_synced = false;
	for (unsigned int i = 0; i < s->num_waits; i++)
		fence_put(s->waits[i]);
	s->num_waits = 0;
	return s->sync ? stream_sync(s) : 0;
}

/* The parameter block from @num_args values (@sizes NULL: unchecked). */
static int pack(struct vgpu_function *f, const void *const *values, const size_t *sizes,
		unsigned int num_args, struct vgpu_params *p)
{
	char names[256];

	if (!f->meta)
		return no_params(f);
	if (num_args != f->meta->num_params)
		return vgpu_set_error(-EINVAL, "kernel %s takes %u parameters (%s), %u given",
				      vgpu_func_name(f), f->meta->num_params,
				      param_names(f, names, sizeof(names)), num_args);
	vgpu_params_init(p);
	memset(p->bytes, 0, f->meta->param_size);
	p->size = f->meta->param_size;
	for (unsigned int i = 0; i < num_args; i++) {
		const struct vgpu_compile_param *pm = &f->meta->params[i];

		if (sizes && sizes[i] != pm->size)
			return vgpu_set_error(-EINVAL, "parameter %u (%s) of kernel %s is %u bytes, "
					      "%zu given", i, strstr(pm->name, "_param_") ?
					      strstr(pm->name, "_param_") + 1 : pm->name,
					      vgpu_func_name(f), pm->size, sizes[i]);
		if (!values || !values[i])
			return vgpu_set_error(-EINVAL, "parameter %u of kernel %s: no value (NULL)",
					      i, vgpu_func_name(f));
		memcpy(p->bytes + pm->offset, values[i], pm->size);
	}
	return 0;
}

int vgpu_launch_kernel(struct vgpu_function *f, unsigned int grid_x, unsigned int grid_y,
		       unsigned int grid_z, unsigned int block_x, unsigned int block_y,
		       unsigned int block_z, unsigned int shared_bytes,
		       struct vgpu_stream *stream, void **args, unsigned int num_args)
{
	const uint32_t grid[3] = { grid_x, grid_y, grid_z };
	const uint32_t block[3] = { block_x, block_y, block_z };
	struct vgpu_params *p = malloc(sizeof(*p));
	int ret;

	if (!p)
		return vgpu_set_error(-ENOMEM, "launch: out of memory");
	ret = pack(f, (const void *const *)args, NULL, num_args, p);
	if (!ret)
		ret = launch(f, grid, block, shared_bytes, stream, p);
	free(p);
	return ret;
}

int vgpu_launch_kernel_args(struct vgpu_function *f, unsigned int grid_x,
			    unsigned int grid_y, unsigned int grid_z, unsigned int block_x,
			    unsigned int block_y, unsigned int block_z,
			    unsigned int shared_bytes, struct vgpu_stream *stream,
			    const struct vgpu_arg *args, unsigned int num_args)
{
	const uint32_t grid[3] = { grid_x, grid_y, grid_z };
	const uint32_t block[3] = { block_x, block_y, block_z };
	const void **values = calloc(num_args ? num_args : 1, sizeof(*values));
	size_t *sizes = calloc(num_args ? num_args : 1, sizeof(*sizes));
	struct vgpu_params *p = malloc(sizeof(*p));
	int ret;

	if (!values || !sizes || !p) {
		ret = vgpu_set_error(-ENOMEM, "launch: out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < num_args; i++) {
		values[i] = args[i].ptr;
		sizes[i] = args[i].size;
	}
	ret = pack(f, values, sizes, num_args, p);
	if (!ret)
		ret = launch(f, grid, block, shared_bytes, stream, p);
out:
	free(values);
	free(sizes);
	free(p);
	return ret;
}

int vgpu_launch_kernel_packed(struct vgpu_function *f, unsigned int grid_x,
			      unsigned int grid_y, unsigned int grid_z, unsigned int block_x,
			      unsigned int block_y, unsigned int block_z,
			      unsigned int shared_bytes, struct vgpu_stream *stream,
			      const void *params, size_t size)
{
	const struct vgpu_program_entry *e = vgpu_program_entry(f->mod->prog, f->entry);
	const uint32_t grid[3] = { grid_x, grid_y, grid_z };
	const uint32_t block[3] = { block_x, block_y, block_z };
	struct vgpu_params *p;
	int ret;

	if (size != e->param_size)
		return vgpu_set_error(-EINVAL, "kernel %s takes a parameter block of %u bytes, "
				      "%zu given", e->name, e->param_size, size);
	if (size && !params)
		return vgpu_set_error(-EINVAL, "kernel %s: no parameter block (NULL)", e->name);
	p = malloc(sizeof(*p));
	if (!p)
		return vgpu_set_error(-ENOMEM, "launch: out of memory");
	vgpu_params_init(p);
	if (size)
		memcpy(p->bytes, params, size);
	p->size = (uint32_t)size;
	ret = launch(f, grid, block, shared_bytes, stream, p);
	free(p);
	return ret;
}

/* ------------------------------------------------------------------ */
/* streams and events */

int vgpu_stream_create(struct vgpu_context *ctx, struct vgpu_stream **out)
{
	struct vgpu_stream *s;

	if (!ctx || !out)
		return vgpu_set_error(-EINVAL, "stream: %s is NULL", ctx ? "out" : "the context");
	s = calloc(1, sizeof(*s));
	if (!s || reg_add(&reg_streams, s)) {
		free(s);
		return vgpu_set_error(-ENOMEM, "stream: out of memory");
	}
	s->ctx = ctx;
	s->next = ctx->streams;
	ctx->streams = s;
	*out = s;
	return 0;
}

int vgpu_stream_destroy(struct vgpu_stream *stream)
{
	int ret;

	if (!stream)
		return 0;
	if (!reg_has(&reg_streams, stream))
		return vgpu_set_error(-EINVAL, "destroy of stream %p, which does not exist "
				      "(destroyed already, or never created)", (void *)stream);
	for (struct vgpu_stream **p = &stream->ctx->streams; *p; p = &(*p)->next) {
		if (*p == stream) {
			*p = stream->next;
			break;
		}
	}
	ret = stream_release_ret(stream);
	reg_del(&reg_streams, stream);
	free(stream);
	return ret;
}

/* @stream itself, for @what; NULL, the default stream, is *@out NULL. */
static int stream_check(struct vgpu_stream *stream, const char *what)
{
	if (stream && !reg_has(&reg_streams, stream))
		return vgpu_set_error(-EINVAL, "%s: stream %p does not exist (destroyed, or never "
				      "created)", what, (void *)stream);
	return 0;
}

int vgpu_stream_synchronize(struct vgpu_stream *stream)
{
	int ret = stream_check(stream, "stream synchronize");

	if (ret || !stream)
		return ret;	/* the default stream has nothing pending */
	return stream_sync(stream);
}

int vgpu_stream_query(struct vgpu_stream *stream)
{
	int ret = stream_check(stream, "stream query");

	if (ret || !stream)
		return ret;
	for (unsigned int i = 0; i < stream->num_pending; i++) {
		if (fence_wait(stream->pending[i], poll_ns(stream->ctx)) == -EBUSY)
			return -EBUSY;
	}
	return stream_sync(stream);
}

static int event_check(const struct vgpu_event *ev, const char *what, bool recorded)
{
	if (!ev)
		return vgpu_set_error(-EINVAL, "%s: the event is NULL", what);
	if (!reg_has(&reg_events, ev))
		return vgpu_set_error(-EINVAL, "%s: event %p does not exist (destroyed, or never "
				      "created)", what, (const void *)ev);
	if (recorded && !ev->recorded)
		return vgpu_set_error(-EINVAL, "%s: event %p was never recorded "
				      "(vgpu_event_record() first)", what, (const void *)ev);
	return 0;
}

int vgpu_stream_wait_event(struct vgpu_stream *stream, struct vgpu_event *event)
{
	struct vgpu_stream *s;
	int ret = event_check(event, "stream wait for an event", true);

	if (!ret)
		ret = stream_of(event->ctx, stream, "stream wait for an event", &s);
	if (ret || !event->fence)
		return ret;
	for (unsigned int i = 0; i < s->num_waits; i++) {
		if (s->waits[i] == event->fence)
			return 0;
	}
	if (s->num_waits == DRM_VGPU_MAX_IN_SYNCOBJS - 1)
		return vgpu_set_error(-E2BIG, "stream wait for an event: the stream's next launch "
				      "waits for %u events already, the most it can",
				      s->num_waits);
	s->waits[s->num_waits++] = fence_get(event->fence);
	return 0;
}

int vgpu_event_create(struct vgpu_context *ctx, struct vgpu_event **out)
{
	struct vgpu_event *ev;

	if (!ctx || !out)
		return vgpu_set_error(-EINVAL, "event: %s is NULL", ctx ? "out" : "the context");
	ev = calloc(1, sizeof(*ev));
	if (!ev || reg_add(&reg_events, ev)) {
		free(ev);
		return vgpu_set_error(-ENOMEM, "event: out of memory");
	}
	ev->ctx = ctx;
	ev->next = ctx->events;
	ctx->events = ev;
	*out = ev;
	return 0;
}

int vgpu_event_destroy(struct vgpu_event *event)
{
	int ret;

	if (!event)
		return 0;
	ret = event_check(event, "event destroy", false);
	if (!ret)
		event_free(event);
	return ret;
}

int vgpu_event_record(struct vgpu_event *event, struct vgpu_stream *stream)
{
	struct vgpu_stream *s;
	int ret = event_check(event, "event record", false);

	if (!ret)
		ret = stream_of(event->ctx, stream, "event record", &s);
	if (ret)
		return ret;
	fence_get(s->last);
	fence_put(event->fence);
	event->fence = s->last;
	event->recorded = true;
	return 0;
}

int vgpu_event_synchronize(struct vgpu_event *event)
{
	int ret = event_check(event, "event synchronize", true);

	if (ret || !event->fence)
		return ret;
	fence_wait(event->fence, -1);
	return fence_report(event->fence);
}

int vgpu_event_query(struct vgpu_event *event)
{
	int ret = event_check(event, "event query", true);

	if (ret || !event->fence)
		return ret;
	if (fence_wait(event->fence, poll_ns(event->ctx)) == -EBUSY)
		return -EBUSY;
	return fence_report(event->fence);
}

/* The launch @ev marks, over, for @what: -ENODATA when none. */
static int event_done(const struct vgpu_event *ev, const char *what)
{
	int ret = event_check(ev, what, true);

	if (ret)
		return ret;
	if (!ev->fence)
		return vgpu_set_error(-ENODATA, "%s: event %p marks no launch (recorded on a "
				      "stream that had launched nothing)", what, (const void *)ev);
	return fence_wait(ev->fence, -1);
}

int vgpu_event_elapsed_time(const struct vgpu_event *start, const struct vgpu_event *end,
			    int64_t *cycles, double *us)
{
	const char *what = "event elapsed time";
	int64_t c;
	uint64_t khz;
	int ret = event_done(start, what);

	if (!ret)
		ret = event_done(end, what);
	if (ret)
		return ret;
	if (start->ctx != end->ctx)
		return vgpu_set_error(-EINVAL, "%s: the events belong to different contexts", what);
	for (int i = 0; i < 2; i++) {
		const struct fence *f = i ? end->fence : start->fence;

		if (f->err)
			return vgpu_set_error(f->err, "%s: the %s event marks a launch that failed: "
					      "%s", what, i ? "end" : "start", f->msg);
	}
	c = (int64_t)(end->fence->res.end_cycle - start->fence->res.end_cycle);
	if (us) {
		ret = vgpu_get_param(start->ctx->dev, DRM_VGPU_PARAM_CORE_CLOCK_KHZ, &khz);
		if (ret || !khz)
			return vgpu_set_error(ret ? ret : -EIO, "%s: the device's core clock: %s",
					      what, strerror(ret ? -ret : EIO));
		*us = (double)c * 1000.0 / (double)khz;
	}
	if (cycles)
		*cycles = c;
	return 0;
}

int vgpu_event_result(const struct vgpu_event *event, struct vgpu_job_result *res)
{
	int ret = event_done(event, "event result");

	if (ret)
		return ret;
	if (!res)
		return vgpu_set_error(-EINVAL, "event result: @res is NULL");
	*res = event->fence->res;
	return 0;
}
