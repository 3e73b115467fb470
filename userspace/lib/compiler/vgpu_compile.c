// SPDX-License-Identifier: MIT
/*
 * vgpu_compile.c - vgpu_compile_ptx(): error handling and memory of one
 * compilation around the parser (ptx_parse.c) and code generator
 * (ptx_codegen.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_int.h"
#include "vgpu_compile.h"

void cc_error(struct compiler *cc, int line, const char *fmt, ...)
{
	va_list ap;

	if (cc->errlen && cc->err) {
		int n = snprintf(cc->err, cc->errlen, "ptx:%d: ", line);

		if (n >= 0 && (size_t)n < cc->errlen) {
			va_start(ap, fmt);
			vsnprintf(cc->err + n, cc->errlen - n, fmt, ap);
			va_end(ap);
		}
	}
	longjmp(cc->jb, cc->errcode ? cc->errcode : EINVAL);
}

static _Noreturn void cc_oom(struct compiler *cc)
{
	cc->errcode = ENOMEM;
	cc_error(cc, 0, "out of memory");
}

void *cc_alloc(struct compiler *cc, size_t size)
{
	void *p;

	cc->scratch = cc_grow(cc, cc->scratch, &cc->scap, cc->nscratch + 1,
			      sizeof(*cc->scratch));
	p = calloc(1, size ? size : 1);
	if (!p)
		cc_oom(cc);
	cc->scratch[cc->nscratch++] = p;
	return p;
}

void cc_free(struct compiler *cc, void *p)
{
	for (size_t i = cc->nscratch; i-- > 0;) {
		if (cc->scratch[i] == p) {
			cc->scratch[i] = cc->scratch[--cc->nscratch];
			free(p);
			return;
		}
	}
}

void *cc_grow(struct compiler *cc, void *p, size_t *cap, size_t n, size_t elem)
{
	size_t nc;
	void *np;

	if (n <= *cap)
		return p;
	nc = *cap ? *cap * 2 : 16;
	while (nc < n)
		nc *= 2;
	if (nc > ((size_t)1 << 40) / elem)
		cc_oom(cc);
	np = realloc(p, nc * elem);
	if (!np)
		cc_oom(cc);
	memset((char *)np + *cap * elem, 0, (nc - *cap) * elem);
	*cap = nc;
	return np;
}

void ins_init(struct ins *in, int op, int type, int line)
{
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->type = type;
	in->g = -1;
	in->d = -1;
	in->q = -1;
	in->p = -1;
	in->p2 = -1;
	in->label = -1;
	in->line = line;
	for (int i = 0; i < 4; i++)
		in->vec[i] = -1;
}

static void cleanup(struct compiler *cc)
{
	for (size_t i = 0; i < cc->nentries; i++) {
		struct entry *e = &cc->entries[i];

		free(e->ins);
		free(e->vregs);
		free(e->labels);
		free(e->params);
	}
	free(cc->entries);
	free(cc->mvars);
	free(cc->data);
	for (size_t i = 0; i < cc->nscratch; i++)
		free(cc->scratch[i]);
	free(cc->scratch);
}

static int compile(struct compiler *cc, const char *src, size_t len, void **image,
		   size_t *image_size)
{
	int ret = setjmp(cc->jb);

	if (ret)
		return -ret;
	ret = ptx_parse(cc, src, len);
	for (size_t i = 0; !ret && i < cc->nentries; i++)
		cc_check_entry_limits(cc, &cc->entries[i]);
	if (!ret)
		ret = cg_image(cc, image, image_size);
	if (!ret && cc->meta) {
		ret = cc_meta(cc, cc->meta);
		if (ret) {
			free(*image);
			*image = NULL;
			*image_size = 0;
		}
	}
	return ret;
}

/*
 * The first resource of an entry that does not fit @lim: its name, the
 * need and the limit. Returns false when everything fits.
 */
static bool entry_misfit(const struct vgpu_compile_limits *lim, uint32_t regs,
			 uint32_t shared, uint32_t local, uint32_t threads, uint32_t params,
			 const char **what, uint32_t *need, uint32_t *max)
{
	const struct { uint32_t need, max; const char *what; } r[] = {
		{ regs, lim->regs_per_thread, "registers per thread" },
		{ shared, lim->shared_per_tb, "bytes of static shared memory per block" },
		{ local, lim->local_per_thread, "bytes of local memory per thread" },
		{ threads, lim->threads_per_tb, "threads per block (.maxntid/.reqntid)" },
		{ params, lim->param_bytes, "bytes of parameters" },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		if (r[i].max && r[i].need > r[i].max) {
			*what = r[i].what;
			*need = r[i].need;
			*max = r[i].max;
			return true;
		}
	}
	return false;
}

void cc_check_entry_limits(struct compiler *cc, const struct entry *e)
{
	const char *what;
	uint32_t need, max;

	if (!entry_misfit(&cc->lim, e->regs, e->shared_static, e->local_size, e->max_threads,
			  e->param_size, &what, &need, &max))
		return;
	cc->errcode = E2BIG;
	if (e->spilled_regs && e->local_size == need)
		cc_error(cc, e->line, "entry '%s' needs %u %s (%u registers spilled); the device "
			 "allows %u", e->name, need, what, e->spilled_regs, max);
	cc_error(cc, e->line, "entry '%s' needs %u %s; the device allows %u", e->name, need,
		 what, max);
}

int vgpu_compile_check_limits(const void *image, size_t size,
			      const struct vgpu_compile_limits *lim, char *err, size_t errlen)
{
	const struct vgpu_program_header *h = image;

	if (errlen && err)
		err[0] = 0;
	if (size < sizeof(*h) || h->entry_size < sizeof(struct vgpu_program_entry) ||
	    h->entries_offset > size ||
	    (size - h->entries_offset) / h->entry_size < h->num_entries) {
		if (errlen && err)
			snprintf(err, errlen, "malformed program image");
		return -EINVAL;
	}
	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *pe = (const void *)((const uint8_t *)image +
			h->entries_offset + (size_t)i * h->entry_size);
		char name[VGPU_PROGRAM_NAME_LEN + 1];
		const char *what;
		uint32_t need, max;

		if (!entry_misfit(lim, pe->regs_per_thread, pe->shared_static,
				  pe->local_per_thread, pe->max_threads_per_tb, pe->param_size,
				  &what, &need, &max))
			continue;
		memcpy(name, pe->name, VGPU_PROGRAM_NAME_LEN);
		name[VGPU_PROGRAM_NAME_LEN] = 0;
		if (errlen && err)
			snprintf(err, errlen, "entry '%s' needs %u %s; the device allows %u", name,
				 need, what, max);
		return -E2BIG;
	}
	return 0;
}

int vgpu_compile_ptx(const char *src, size_t len, void **image, size_t *image_size,
		     char *err, size_t errlen)
{
	return vgpu_compile_ptx_opts(src, len, 0, image, image_size, err, errlen);
}

int vgpu_compile_vtb_mode(const char *name, unsigned int *opts)
{
	unsigned int lanes;

	if (!name || strcmp(name, "same") == 0)
		lanes = 0;
	else if (strcmp(name, "lowest") == 0)
		lanes = VGPU_COMPILE_VTB_LOWEST;
	else if (strcmp(name, "slowest") == 0)
		lanes = VGPU_COMPILE_VTB_SLOWEST;
	else
		return -EINVAL;
	*opts = (*opts & ~(VGPU_COMPILE_VTB_LOWEST | VGPU_COMPILE_VTB_SLOWEST)) |
		VGPU_COMPILE_VIRTUAL_TB | lanes;
	return 0;
}

int vgpu_compile_ptx_opts(const char *src, size_t len, unsigned int opts, void **image,
			  size_t *image_size, char *err, size_t errlen)
{
	return cc_compile(src, len, opts, NULL, image, image_size, NULL, err, errlen);
}

int vgpu_compile_ptx_limits(const char *src, size_t len, unsigned int opts,
			    const struct vgpu_compile_limits *lim, void **image,
			    size_t *image_size, char *err, size_t errlen)
{
	return cc_compile(src, len, opts, lim, image, image_size, NULL, err, errlen);
}

int cc_compile(const char *src, size_t len, unsigned int opts,
	       const struct vgpu_compile_limits *lim, void **image, size_t *image_size,
	       struct vgpu_compile_meta **meta, char *err, size_t errlen)
{
	struct compiler *cc;
	int ret;

	*image = NULL;
	*image_size = 0;
	if (errlen && err)
		err[0] = 0;
	if (opts & ~VGPU_COMPILE_OPTS) {
		if (errlen && err)
			snprintf(err, errlen, "unknown compile options 0x%x",
				 opts & ~VGPU_COMPILE_OPTS);
		return -EINVAL;
	}
	if ((opts & VGPU_COMPILE_VTB_LOWEST && opts & VGPU_COMPILE_VTB_SLOWEST) ||
	    (opts & (VGPU_COMPILE_VTB_LOWEST | VGPU_COMPILE_VTB_SLOWEST) &&
	     !(opts & VGPU_COMPILE_VIRTUAL_TB))) {
		if (errlen && err)
			snprintf(err, errlen,
				 "a thread-index assignment needs virtual thread blocks, one at most");
		return -EINVAL;
	}
	cc = calloc(1, sizeof(*cc));
	if (!cc)
		return -ENOMEM;
	cc->opts = opts;
	cc->meta = meta;
	if (lim)
		cc->lim = *lim;
	cc->err = err;
	cc->errlen = err ? errlen : 0;
	ret = compile(cc, src, len, image, image_size);
	if (ret == -ENOMEM && errlen && err && !err[0])
		snprintf(err, errlen, "ptx:0: out of memory");
	cleanup(cc);
	free(cc);
	return ret;
}
