/* SPDX-License-Identifier: MIT */
/*
 * vgpu_runtime.h - libvgpu's runtime in the spirit of the CUDA driver API
 * (Documentation/runtime.rst): a context on a device, device memory by
 * address, modules loaded from PTX, kernels by their source name launched
 * with cuLaunchKernel's void **kernelParams, and module variables
 * (__constant__, __device__) by name.
 *
 * Every call returns 0 or a negative errno; after an error,
 * vgpu_last_error() (vgpu.h) says what was wrong ("kernel 'scale' takes 3
 * parameters (n, s, out), 2 given"). A failed launch's message is
 * vgpu_job_describe()'s: the fault, its kernel, block, instruction and
 * address. One context is used by one thread at a time.
 *
 * Launches are synchronous: vgpu_launch_kernel() returns when the kernel
 * is over. Streams and events are not there yet: every call that will take
 * a stream takes a struct vgpu_stream * that must be NULL, the default
 * stream.
 */
#ifndef VGPU_RUNTIME_H
#define VGPU_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "vgpu.h"

/* A device address, as CUdeviceptr. */
typedef uint64_t vgpu_deviceptr;

struct vgpu_context;	/* CUcontext: a device's allocations and modules */
struct vgpu_module;	/* CUmodule: a loaded program and its metadata */
struct vgpu_function;	/* CUfunction: one kernel (.entry) of a module */
struct vgpu_stream;	/* CUstream: a later addition; pass NULL */

/*
 * A context on @dev, which the caller keeps open until after
 * vgpu_ctx_destroy(). Destroying it frees its memory and unloads its
 * modules.
 */
int vgpu_ctx_create(struct vgpu_device *dev, struct vgpu_context **out);
void vgpu_ctx_destroy(struct vgpu_context *ctx);
struct vgpu_device *vgpu_ctx_device(const struct vgpu_context *ctx);
/* How the context's last launch ended (its cycles, its fault); -ENOENT: none. */
int vgpu_ctx_last_result(const struct vgpu_context *ctx, struct vgpu_job_result *res);

/*
 * Device memory. Each allocation is a buffer object of the device; every
 * launch of the context may access all of them (at most
 * DRM_VGPU_MAX_SUBMIT_BOS). A copy must lie inside one allocation or one
 * module variable (-EFAULT otherwise, naming the address).
 */
int vgpu_mem_alloc(struct vgpu_context *ctx, size_t bytes, vgpu_deviceptr *dptr);
int vgpu_mem_free(struct vgpu_context *ctx, vgpu_deviceptr dptr);
int vgpu_memcpy_htod(struct vgpu_context *ctx, vgpu_deviceptr dst, const void *src,
		     size_t bytes);
int vgpu_memcpy_dtoh(struct vgpu_context *ctx, void *dst, vgpu_deviceptr src, size_t bytes);
int vgpu_memcpy_dtod(struct vgpu_context *ctx, vgpu_deviceptr dst, vgpu_deviceptr src,
		     size_t bytes);
int vgpu_memset_d8(struct vgpu_context *ctx, vgpu_deviceptr dst, uint8_t value, size_t n);
int vgpu_memset_d32(struct vgpu_context *ctx, vgpu_deviceptr dst, uint32_t value, size_t n);

/*
 * Modules. vgpu_module_load() reads a file: PTX (nvcc -ptx), or a program
 * image (`vgpu compile`), told apart by the image's magic.
 * vgpu_module_load_data() takes the same in memory; PTX of @len 0 is
 * NUL-terminated. A module compiled here knows its kernels' parameter
 * lists and its variables; an image does not carry them, so its kernels
 * launch only with vgpu_launch_kernel_packed() and its variables are not
 * found by name (-ENODATA, saying so). A compile error is -EINVAL with
 * "FILE:LINE: message" in vgpu_last_error(). PTX is compiled for the
 * context's device (vgpu_device_compile_limits()): spilled to its registers
 * per thread; a kernel that still does not fit is -E2BIG, the message
 * naming the kernel, the resource, the need and the limit.
 */
int vgpu_module_load(struct vgpu_context *ctx, const char *path, struct vgpu_module **out);
int vgpu_module_load_data(struct vgpu_context *ctx, const void *data, size_t len,
			  struct vgpu_module **out);
void vgpu_module_unload(struct vgpu_module *mod);
/* The module's program (vgpu.h), for the lower-level calls. */
struct vgpu_program *vgpu_module_program(const struct vgpu_module *mod);

/*
 * A kernel by its source name: the .entry name, or the name of the
 * function nvcc mangled into it ("scale" finds "_Z5scaleiPf"). -ENOENT
 * names the module's kernels.
 */
int vgpu_module_get_function(struct vgpu_module *mod, const char *name,
			     struct vgpu_function **out);
/*
 * A module variable (__device__: .global, __constant__: .const) by its PTX
 * name: its device address and size (either pointer may be NULL). Copy to
 * and from it with vgpu_memcpy_*() at that address, or by name below.
 * -ENOENT names the module's variables. On the local device the copies
 * read and write the program's data in place; on the render node, which
 * does not map a program's data for userspace, through a copy kernel the
 * runtime adds to the module (a launch of its own per copy:
 * Documentation/runtime.rst).
 */
int vgpu_module_get_global(struct vgpu_module *mod, const char *name, vgpu_deviceptr *dptr,
			   size_t *bytes);
/* cudaMemcpyToSymbol / FromSymbol: @bytes at @offset of the variable @name. */
int vgpu_memcpy_to_symbol(struct vgpu_module *mod, const char *name, const void *src,
			  size_t bytes, size_t offset);
int vgpu_memcpy_from_symbol(struct vgpu_module *mod, const char *name, void *dst,
			    size_t bytes, size_t offset);

/* What vgpu_func_get_attribute() reports (CUfunction_attribute). */
enum vgpu_func_attribute {
	VGPU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,	/* .maxntid, else the device's */
	VGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,		/* static __shared__ bytes */
	VGPU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,		/* local memory per thread */
	VGPU_FUNC_ATTRIBUTE_NUM_REGS,			/* registers per thread */
	VGPU_FUNC_ATTRIBUTE_PARAM_SIZE_BYTES,		/* bytes of the parameter block */
	VGPU_FUNC_ATTRIBUTE_NUM_PARAMS,			/* parameters (-ENODATA: image) */
};
int vgpu_func_get_attribute(const struct vgpu_function *f, enum vgpu_func_attribute attr,
			    int *value);
/* Parameter @index's offset and size in the block (cuFuncGetParamInfo). */
int vgpu_func_get_param_info(const struct vgpu_function *f, unsigned int index,
			     size_t *offset, size_t *size);
/* The kernel's name in the module (the .entry name). */
const char *vgpu_func_name(const struct vgpu_function *f);

/*
 * cuLaunchKernel: runs @f on a grid of @grid_x x @grid_y x @grid_z blocks
 * of @block_x x @block_y x @block_z threads with @shared_bytes of dynamic
 * shared memory, and waits for it. @args[i] points at the value of
 * parameter i, which is copied at the offset and with the size the PTX
 * declares (an 8-bit char, a 16-bit short, a struct passed by value alike).
 * @num_args must be the kernel's parameter count (cuLaunchKernel has no
 * such argument: here a wrong count is an error, not a wrong result).
 * Returns the job's error when the kernel faulted (-EFAULT, ...), with
 * vgpu_job_describe()'s message in vgpu_last_error().
 */
int vgpu_launch_kernel(struct vgpu_function *f, unsigned int grid_x, unsigned int grid_y,
		       unsigned int grid_z, unsigned int block_x, unsigned int block_y,
		       unsigned int block_z, unsigned int shared_bytes,
		       struct vgpu_stream *stream, void **args, unsigned int num_args);

/*
 * The same with each argument's size, checked against the parameter's:
 * vgpu_launch_kernel_args(f, ..., (struct vgpu_arg[]){ VGPU_ARG(n),
 * VGPU_ARG(out) }, 2).
 */
struct vgpu_arg {
	const void *ptr;
	size_t size;
};
#define VGPU_ARG(x)	((struct vgpu_arg){ &(x), sizeof(x) })
int vgpu_launch_kernel_args(struct vgpu_function *f, unsigned int grid_x,
			    unsigned int grid_y, unsigned int grid_z, unsigned int block_x,
			    unsigned int block_y, unsigned int block_z,
			    unsigned int shared_bytes, struct vgpu_stream *stream,
			    const struct vgpu_arg *args, unsigned int num_args);

/*
 * The same with the parameter block packed by the caller
 * (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE): @size must be the kernel's
 * parameter block size. The one form for a module loaded from an image.
 */
int vgpu_launch_kernel_packed(struct vgpu_function *f, unsigned int grid_x,
			      unsigned int grid_y, unsigned int grid_z, unsigned int block_x,
			      unsigned int block_y, unsigned int block_z,
			      unsigned int shared_bytes, struct vgpu_stream *stream,
			      const void *params, size_t size);

#endif /* VGPU_RUNTIME_H */
