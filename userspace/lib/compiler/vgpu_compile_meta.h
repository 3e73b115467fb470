/* SPDX-License-Identifier: MIT */
/*
 * vgpu_compile_meta.h - what the PTX compiler knows of a module beyond its
 * program image: each entry's parameter list (names, offsets, sizes and
 * alignments in the .param space, as the PTX declares them) and the
 * module-scope .global and .const variables (names, offsets and sizes in
 * the program's data segment). libvgpu's runtime (vgpu_runtime.h) packs
 * kernel arguments and finds __constant__ and __device__ variables by name
 * with it. The program image does not carry it.
 */
#ifndef VGPU_COMPILE_META_H
#define VGPU_COMPILE_META_H

#include <stddef.h>
#include <stdint.h>

#define VGPU_COMPILE_NAME_LEN	128

/**
 * struct vgpu_compile_param - one parameter of an entry.
 * @name: its PTX name (nvcc: "_Z5saxpyifPKfPf_param_0").
 * @offset: byte offset in the parameter block.
 * @size: bytes (a struct passed by value: its whole size).
 * @align: alignment in bytes (.align, or the element size).
 */
struct vgpu_compile_param {
	char name[VGPU_COMPILE_NAME_LEN];
	uint32_t offset;
	uint32_t size;
	uint32_t align;
};

/**
 * struct vgpu_compile_kernel - one .entry, in image order.
 * @name: the .entry name.
 * @param_size: bytes of the parameter block.
 * @num_params: entries of @params.
 * @params: the parameters in declaration order.
 */
struct vgpu_compile_kernel {
	char name[VGPU_COMPILE_NAME_LEN];
	uint32_t param_size;
	uint32_t num_params;
	struct vgpu_compile_param *params;
};

/* &vgpu_compile_var.space */
#define VGPU_COMPILE_VAR_GLOBAL	1	/* .global: __device__ */
#define VGPU_COMPILE_VAR_CONST	2	/* .const: __constant__ */

/**
 * struct vgpu_compile_var - a module-scope variable of the data segment.
 * @name: its PTX name.
 * @space: %VGPU_COMPILE_VAR_GLOBAL or %VGPU_COMPILE_VAR_CONST.
 * @offset: byte offset in the program's data segment.
 * @size: bytes.
 */
struct vgpu_compile_var {
	char name[VGPU_COMPILE_NAME_LEN];
	uint32_t space;
	uint32_t offset;
	uint32_t size;
};

/**
 * struct vgpu_compile_meta - a compiled module's metadata.
 * @num_kernels: entries of @kernels (the image's entries, in order).
 * @kernels: the entries.
 * @num_vars: entries of @vars.
 * @vars: .global and .const variables in declaration order.
 * @data_size: bytes of the data segment.
 */
struct vgpu_compile_meta {
	uint32_t num_kernels;
	struct vgpu_compile_kernel *kernels;
	uint32_t num_vars;
	struct vgpu_compile_var *vars;
	uint32_t data_size;
};

/*
 * vgpu_compile_ptx_opts() that also returns the module's metadata in
 * *@meta (free it with vgpu_compile_meta_free()); the image is the same.
 */
int vgpu_compile_ptx_meta(const char *src, size_t len, unsigned int opts, void **image,
			  size_t *image_size, struct vgpu_compile_meta **meta, char *err,
			  size_t errlen);
/* The same for a device with limits @lim (vgpu_compile_ptx_limits()). */
struct vgpu_compile_limits;
int vgpu_compile_ptx_meta_limits(const char *src, size_t len, unsigned int opts,
				 const struct vgpu_compile_limits *lim, void **image,
				 size_t *image_size, struct vgpu_compile_meta **meta, char *err,
				 size_t errlen);
void vgpu_compile_meta_free(struct vgpu_compile_meta *meta);

#endif /* VGPU_COMPILE_META_H */
