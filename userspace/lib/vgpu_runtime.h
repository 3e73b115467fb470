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
 * Launches on a stream (vgpu_stream_create()) are asynchronous: each is
 * submitted at once, and the device starts it when the stream's previous
 * launch ends. A launch on NULL, the default stream, is synchronous: it
 * returns when the kernel is over, and it is not ordered after other
 * streams' launches (as CUDA's per-thread default stream, not its legacy
 * one). Events mark a stream's last launch, for another stream to wait for
 * and for the simulated time between two of them.
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
struct vgpu_stream;	/* CUstream: launches in order; NULL: the default stream */
struct vgpu_event;	/* CUevent: a point of a stream, its last launch */

/*
 * A context on @dev, which the caller keeps open until after
 * vgpu_ctx_destroy(). Destroying it frees its memory and unloads its
 * modules.
 */
int vgpu_ctx_create(struct vgpu_device *dev, struct vgpu_context **out);
void vgpu_ctx_destroy(struct vgpu_context *ctx);
struct vgpu_device *vgpu_ctx_device(const struct vgpu_context *ctx);
/*
 * How the context's last launch to end ended (its cycles, its fault): the
 * last one the runtime waited for, on any stream; -ENOENT: none yet.
 */
int vgpu_ctx_last_result(const struct vgpu_context *ctx, struct vgpu_job_result *res);

/*
 * Device memory. Each allocation is a buffer object of the device; every
 * launch of the context may access all of them (a launch names no buffer
 * list, so there is no limit on their number). A copy must lie inside one
 * allocation or one module variable (-EFAULT otherwise, naming the
 * address). These copies are on the default stream: they wait for nothing
 * of the other streams (use the _async ones below, or synchronise the
 * stream first). vgpu_mem_free() and vgpu_module_unload() first wait for
 * every pending launch of the context, whose errors stay for their
 * streams' next synchronising call.
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
 * The same on @stream (NULL: the default stream) of @ctx: ordered after
 * the stream's launches, and after the events it was told to wait for.
 * The copy is done by the host, so it first waits on the host for those
 * launches, as vgpu_stream_synchronize() does: an error of theirs is
 * returned (and reported so) instead of copying, and -ECANCELED when an
 * event the stream waits for marks a launch that failed. The copy is over
 * when the call returns (cuMemcpyHtoDAsync and the others with memory
 * that is not page-locked).
 */
int vgpu_memcpy_htod_async(struct vgpu_context *ctx, vgpu_deviceptr dst, const void *src,
			   size_t bytes, struct vgpu_stream *stream);
int vgpu_memcpy_dtoh_async(struct vgpu_context *ctx, void *dst, vgpu_deviceptr src,
			   size_t bytes, struct vgpu_stream *stream);
int vgpu_memcpy_dtod_async(struct vgpu_context *ctx, vgpu_deviceptr dst, vgpu_deviceptr src,
			   size_t bytes, struct vgpu_stream *stream);
int vgpu_memset_d8_async(struct vgpu_context *ctx, vgpu_deviceptr dst, uint8_t value,
			 size_t n, struct vgpu_stream *stream);
int vgpu_memset_d32_async(struct vgpu_context *ctx, vgpu_deviceptr dst, uint32_t value,
			  size_t n, struct vgpu_stream *stream);

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
/*
 * vgpu_module_load_data() with compile options for PTX (cuModuleLoadDataEx
 * with JIT options): VGPU_COMPILE_* of vgpu_compile.h, virtual thread
 * blocks and their lane assignment; 0 is vgpu_module_load_data(). PTX the
 * options refuse is -EINVAL, the compiler's reason in vgpu_last_error()
 * ("ptx:48: virtual thread blocks: 'histogram' reads the result of a global
 * atomic ..."); so is an image with options other than 0 (it is compiled
 * already).
 */
int vgpu_module_load_data_opts(struct vgpu_context *ctx, const void *data, size_t len,
			       unsigned int opts, struct vgpu_module **out);
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
 * shared memory on @stream. On NULL, the default stream, it waits for the
 * kernel; on a stream it returns once the launch is submitted, and the
 * kernel's own error comes at the stream's next synchronising call. @args[i] points at the value of
 * parameter i, which is copied at the offset and with the size the PTX
 * declares (an 8-bit char, a 16-bit short, a struct passed by value alike).
 * @num_args must be the kernel's parameter count (cuLaunchKernel has no
 * such argument: here a wrong count is an error, not a wrong result).
 * On the default stream, returns the job's error when the kernel faulted
 * (-EFAULT, ...), with vgpu_job_describe()'s message in vgpu_last_error().
 * A launch the device refuses (a block too large, ...) is an error at
 * once on any stream.
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

/*
 * Streams (CUstream). A stream's launches run one after the other: each
 * is submitted with the previous one's end as its in-fence
 * (&vgpu_launch.wait_syncobjs), so the device starts it at the cycle the
 * previous one ends, with no host wait between them. A launch whose
 * predecessor failed fails with -ECANCELED without running, and so does
 * one that waits (vgpu_stream_wait_event()) for a failed launch of
 * another stream.
 *
 * Errors. A failed launch's error is returned by the stream's next
 * synchronising call (vgpu_stream_synchronize(), an _async copy on the
 * stream, vgpu_stream_destroy()) with vgpu_job_describe()'s message
 * (kernel, block, instruction, address); a launch cancelled because one it
 * waited for failed is -ECANCELED, its message naming its kernel. The
 * first failed launch since the last synchronising call is the one
 * reported; once reported, the stream is clean again (the error is not
 * sticky, unlike CUDA's context) and later launches wait for nothing
 * before them.
 *
 * On the local device the model runs only while the host waits
 * (vgpu.h), so a stream's launches make progress in synchronising calls
 * and queries.
 */
int vgpu_stream_create(struct vgpu_context *ctx, struct vgpu_stream **out);
/*
 * On NULL, the default stream, vgpu_stream_synchronize() and
 * vgpu_stream_query() return 0: its launches are over when they return.
 * A stream destroyed (or never created) is -EINVAL, naming the call.
 */
/*
 * Waits for the stream's pending launches, then releases it: its job
 * records, its fences (events recorded on it keep what they mark). Returns
 * what vgpu_stream_synchronize() would have: the first error among them.
 * NULL is a no-op. A stream the context still has at vgpu_ctx_destroy()
 * is destroyed there.
 */
int vgpu_stream_destroy(struct vgpu_stream *stream);
/* Waits for every launch of the stream; 0, or the first failed one's error. */
int vgpu_stream_synchronize(struct vgpu_stream *stream);
/*
 * 0 when every launch of the stream is over (then as
 * vgpu_stream_synchronize(), with its error), -EBUSY when one is not
 * (CUDA_ERROR_NOT_READY). On the local device a query first runs the
 * model for up to a millisecond of host time, so a loop of queries ends.
 */
int vgpu_stream_query(struct vgpu_stream *stream);
/*
 * @stream's next launch (and its _async copies) waits for @event's launch:
 * a cross-stream dependency on the device, with no host wait. On the
 * default stream the next launch waits alike. An event never recorded is
 * -EINVAL; one that marks no launch is nothing to wait for.
 */
int vgpu_stream_wait_event(struct vgpu_stream *stream, struct vgpu_event *event);

/*
 * Events (CUevent) of @ctx. vgpu_event_record() marks @stream's last launch
 * (NULL: the default stream's), the one submitted last before the call; a
 * stream that has launched nothing yet gives an event that marks no launch,
 * which is complete at once and has no time. Recording again moves the
 * mark. Every call below but vgpu_event_destroy() is -EINVAL on an event
 * never recorded, naming the mistake.
 */
int vgpu_event_create(struct vgpu_context *ctx, struct vgpu_event **out);
int vgpu_event_destroy(struct vgpu_event *event);	/* NULL: a no-op */
int vgpu_event_record(struct vgpu_event *event, struct vgpu_stream *stream);
/*
 * Waits for the launch the event marks: 0, or its error with its message
 * (the error stays for its stream's next synchronising call as well).
 */
int vgpu_event_synchronize(struct vgpu_event *event);
/* 0 when the marked launch is over (as vgpu_event_synchronize()), -EBUSY if not. */
int vgpu_event_query(struct vgpu_event *event);
/*
 * Simulated time from @start to @end: the cycles between the ends of the
 * launches they mark (negative if @end's ended first) and the same in
 * microseconds at the device's core clock (DRM_VGPU_PARAM_CORE_CLOCK_KHZ);
 * either pointer may be NULL. Simulated time, not the host's: it does not
 * depend on how fast the host runs the model. Waits for both events
 * (CUDA answers CUDA_ERROR_NOT_READY instead). -ENODATA when an event marks
 * no launch; the marked launch's error when it failed.
 */
int vgpu_event_elapsed_time(const struct vgpu_event *start, const struct vgpu_event *end,
			    int64_t *cycles, double *us);
/*
 * How the launch the event marks ended (start and end cycles, fault), once
 * it has: waits for it. 0 even when it failed (@res->error says);
 * -ENODATA when the event marks no launch.
 */
int vgpu_event_result(const struct vgpu_event *event, struct vgpu_job_result *res);

#endif /* VGPU_RUNTIME_H */
