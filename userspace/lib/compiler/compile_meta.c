// SPDX-License-Identifier: MIT
/*
 * compile_meta.c - the metadata of a compiled module
 * (vgpu_compile_meta.h): the parser's parameter lists and module-scope
 * variables, copied out before the compilation's memory goes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_int.h"
#include "vgpu_compile_meta.h"

_Static_assert(sizeof(((struct param *)0)->name) == VGPU_COMPILE_NAME_LEN, "param name");
_Static_assert(sizeof(((struct var *)0)->name) == VGPU_COMPILE_NAME_LEN, "var name");
_Static_assert(sizeof(((struct entry *)0)->name) == VGPU_COMPILE_NAME_LEN, "entry name");

void vgpu_compile_meta_free(struct vgpu_compile_meta *meta)
{
	if (!meta)
		return;
	for (uint32_t i = 0; i < meta->num_kernels; i++)
		free(meta->kernels[i].params);
	free(meta->kernels);
	free(meta->vars);
	free(meta);
}

int cc_meta(const struct compiler *cc, struct vgpu_compile_meta **out)
{
	struct vgpu_compile_meta *m = calloc(1, sizeof(*m));
	size_t nvars = 0;

	if (!m)
		return -ENOMEM;
	m->kernels = calloc(cc->nentries ? cc->nentries : 1, sizeof(*m->kernels));
	m->vars = calloc(cc->nmvars ? cc->nmvars : 1, sizeof(*m->vars));
	if (!m->kernels || !m->vars)
		goto oom;
	for (size_t i = 0; i < cc->nentries; i++) {
		const struct entry *e = &cc->entries[i];
		struct vgpu_compile_kernel *k = &m->kernels[i];

		m->num_kernels++;
		memcpy(k->name, e->name, sizeof(k->name));
		k->param_size = e->param_size;
		k->params = calloc(e->nparams ? e->nparams : 1, sizeof(*k->params));
		if (!k->params)
			goto oom;
		k->num_params = (uint32_t)e->nparams;
		for (size_t j = 0; j < e->nparams; j++) {
			memcpy(k->params[j].name, e->params[j].name, sizeof(k->params[j].name));
			k->params[j].offset = e->params[j].offset;
			k->params[j].size = e->params[j].size;
			k->params[j].align = e->params[j].align;
		}
	}
	for (size_t i = 0; i < cc->nmvars; i++) {
		const struct var *v = &cc->mvars[i];
		struct vgpu_compile_var *o = &m->vars[nvars];

		if (v->space != VGPU_SP_GLOBAL && v->space != VGPU_SP_CONST)
			continue;
		memcpy(o->name, v->name, sizeof(o->name));
		o->space = v->space == VGPU_SP_GLOBAL ? VGPU_COMPILE_VAR_GLOBAL :
							VGPU_COMPILE_VAR_CONST;
		o->offset = v->offset;
		o->size = v->size;
		nvars++;
	}
	m->num_vars = (uint32_t)nvars;
	m->data_size = cc->data_size;
	*out = m;
	return 0;
oom:
	vgpu_compile_meta_free(m);
	return -ENOMEM;
}

int vgpu_compile_ptx_meta(const char *src, size_t len, unsigned int opts, void **image,
			  size_t *image_size, struct vgpu_compile_meta **meta, char *err,
			  size_t errlen)
{
	*meta = NULL;
	return cc_compile(src, len, opts, NULL, image, image_size, meta, err, errlen);
}

int vgpu_compile_ptx_meta_limits(const char *src, size_t len, unsigned int opts,
				 const struct vgpu_compile_limits *lim, void **image,
				 size_t *image_size, struct vgpu_compile_meta **meta, char *err,
				 size_t errlen)
{
	*meta = NULL;
	return cc_compile(src, len, opts, lim, image, image_size, meta, err, errlen);
}
