// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu program images: validation and loading into device memory.
 *
 * An image (uapi vgpu_program.h) is a header, entry descriptors, code for
 * vgpud and an optional initialised data segment. The driver validates the
 * header and every entry against the attached device's limits (the
 * program's resource needs; Documentation/isa.rst, "The program image")
 * and copies the image into device memory where the daemon fetches the
 * code. Free of ioctl and file glue (vgpu_program.c), so that libvgpu's
 * local device loads programs with this same code (Documentation/design.rst,
 * "One command processor, two hosts").
 */

#include <linux/align.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xxhash.h>

#include <drm/vgpu_drm.h>

#include <kunit/visibility.h>

#include "vgpu_program_image.h"

#define VGPU_ENTRY_KNOWN_FLAGS	(VGPU_ENTRY_HAS_ATOMICS | VGPU_ENTRY_HAS_GLOBAL_RMW | \
				 VGPU_ENTRY_VIRTUAL_TB | VGPU_ENTRY_VTB_LOWEST | \
				 VGPU_ENTRY_VTB_SLOWEST)
#define VGPU_ENTRY_VTB_LANES	(VGPU_ENTRY_VTB_LOWEST | VGPU_ENTRY_VTB_SLOWEST)

struct vgpu_region {
	u64 start;
	u64 end;
};

static bool vgpu_in_bounds(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

static bool vgpu_regions_overlap(const struct vgpu_region *a,
				 const struct vgpu_region *b)
{
	if (a->start == a->end || b->start == b->end)
		return false;
	return a->start < b->end && b->start < a->end;
}

static bool vgpu_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static const struct vgpu_program_entry *
vgpu_image_entry(const void *image, const struct vgpu_program_header *h, u32 i)
{
	return image + h->entries_offset + (size_t)i * h->entry_size;
}

/* Everything the format requires; -EINVAL with a reason when broken. */
static int vgpu_program_check_format(const void *image, size_t size,
				     const char **why)
{
	const struct vgpu_program_header *h = image;
	struct vgpu_region r[5];
	u32 i, j;

	if (size < sizeof(*h)) {
		*why = "image smaller than the program header";
		return -EINVAL;
	}
	if (h->magic != VGPU_PROGRAM_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (h->version_major != VGPU_PROGRAM_VERSION_MAJOR) {
		*why = "unsupported major version";
		return -EINVAL;
	}
	if (h->header_size < sizeof(*h) || h->header_size > size) {
		*why = "header_size too small or beyond the image";
		return -EINVAL;
	}
	if (h->image_size != size) {
		*why = "image_size differs from the size passed";
		return -EINVAL;
	}
	if (!vgpu_all_zero(h->reserved, sizeof(h->reserved))) {
		*why = "reserved header field set";
		return -EINVAL;
	}
	if (!h->num_entries || h->num_entries > VGPU_PROGRAM_MAX_ENTRIES) {
		*why = "num_entries out of range";
		return -EINVAL;
	}
	if (h->entry_size < sizeof(struct vgpu_program_entry) ||
	    h->entry_size % 8) {
		*why = "entry_size too small or not a multiple of 8";
		return -EINVAL;
	}
	if (h->entries_offset % 8 || h->code_offset % 8) {
		*why = "entries or code not 8-byte aligned";
		return -EINVAL;
	}
	if (!vgpu_in_bounds(h->entries_offset,
			    (u64)h->num_entries * h->entry_size, size)) {
		*why = "entry descriptors beyond the image";
		return -EINVAL;
	}
	if (!h->code_size || h->code_size % 8) {
		*why = "code size zero or not a multiple of 8";
		return -EINVAL;
	}
	if (!vgpu_in_bounds(h->code_offset, h->code_size, size)) {
		*why = "code beyond the image";
		return -EINVAL;
	}
	if (h->data_init_size > h->data_size) {
		*why = "data_init_size larger than data_size";
		return -EINVAL;
	}
	/* Even with nothing initialised: the hardware checks the offset too. */
	if (!vgpu_in_bounds(h->data_offset, h->data_init_size, size)) {
		*why = "initialised data beyond the image";
		return -EINVAL;
	}

	/*
	 * The analysis section (minor 1) is advisory and unused here, but a
	 * header that describes one must describe it sanely: 8-byte aligned,
	 * inside the image, one record per entry, apart from the rest.
	 */
	if ((h->analysis_offset || h->analysis_size) &&
	    (!h->analysis_size || h->analysis_offset % 8 ||
	     h->analysis_size % h->num_entries ||
	     !vgpu_in_bounds(h->analysis_offset, h->analysis_size, size))) {
		*why = "analysis section misaligned, empty, outside or not per entry";
		return -EINVAL;
	}

	r[0] = (struct vgpu_region){ 0, h->header_size };
	r[1] = (struct vgpu_region){ h->entries_offset, h->entries_offset +
				     (u64)h->num_entries * h->entry_size };
	r[2] = (struct vgpu_region){ h->code_offset,
				     (u64)h->code_offset + h->code_size };
	r[3] = (struct vgpu_region){ h->data_offset,
				     (u64)h->data_offset + h->data_init_size };
	r[4] = (struct vgpu_region){ h->analysis_offset,
				     (u64)h->analysis_offset + h->analysis_size };
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		for (j = i + 1; j < ARRAY_SIZE(r); j++) {
			if (vgpu_regions_overlap(&r[i], &r[j])) {
				*why = "header, entries, code, data and analyses overlap";
				return -EINVAL;
			}
		}
	}

	for (i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e = vgpu_image_entry(image, h, i);

		if (!e->name[0] || !memchr(e->name, 0, sizeof(e->name))) {
			*why = "entry name empty or not NUL-terminated";
			return -EINVAL;
		}
		if (e->code_start % 8 || e->code_end % 8 ||
		    e->code_start >= e->code_end || e->code_end > h->code_size) {
			*why = "entry code range invalid";
			return -EINVAL;
		}
		if (!vgpu_all_zero(e->reserved, sizeof(e->reserved))) {
			*why = "reserved entry field set";
			return -EINVAL;
		}
		/* A newer minor version may define flags we do not know. */
		if (h->version_minor <= VGPU_PROGRAM_VERSION_MINOR &&
		    e->flags & ~VGPU_ENTRY_KNOWN_FLAGS) {
			*why = "unknown entry flags";
			return -EINVAL;
		}
		/* one thread-index assignment, and only for a virtual entry */
		if ((e->flags & VGPU_ENTRY_VTB_LANES) == VGPU_ENTRY_VTB_LANES ||
		    ((e->flags & VGPU_ENTRY_VTB_LANES) &&
		     !(e->flags & VGPU_ENTRY_VIRTUAL_TB))) {
			*why = "bad virtual thread block flags";
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * vgpu_program_validate() - check a program image.
 * @image: the image (a kernel copy), 8-byte aligned.
 * @size: its size in bytes.
 * @desc: the attached device.
 * @why: out, a static string saying what is wrong when the result is not 0.
 *
 * First the format: magic, major version, header and entry sizes at least
 * what this driver knows, every offset and size in bounds without
 * overflow, no two of header, entries, code and initialised data
 * overlapping, code a multiple of 8, entry code ranges inside the code,
 * names NUL-terminated, reserved fields zero. Then each entry's needs
 * against the device: registers per thread, static shared memory, .maxntid,
 * parameter bytes.
 *
 * Return: 0; -EINVAL for a malformed image; -E2BIG when the image is
 * larger than %VGPU_PROGRAM_MAX_SIZE or an entry needs more than the device
 * offers.
 */
int vgpu_program_validate(const void *image, size_t size,
			  const struct vgpu_device_desc *desc,
			  const char **why)
{
	const struct vgpu_program_header *h = image;
	u32 i;
	int ret;

	*why = NULL;
	if (size > VGPU_PROGRAM_MAX_SIZE) {
		*why = "image larger than VGPU_PROGRAM_MAX_SIZE";
		return -E2BIG;
	}
	ret = vgpu_program_check_format(image, size, why);
	if (ret)
		return ret;

	for (i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e = vgpu_image_entry(image, h, i);

		if (e->regs_per_thread > desc->max_regs_per_thread) {
			*why = "entry needs more registers per thread than the device has";
			return -E2BIG;
		}
		if (e->shared_static > desc->max_shared_per_tb) {
			*why = "entry needs more shared memory than a block may have";
			return -E2BIG;
		}
		if (e->local_per_thread > desc->max_local_per_thread) {
			*why = "entry needs more local memory per thread than the device allows";
			return -E2BIG;
		}
		if (e->max_threads_per_tb > desc->max_threads_per_tb) {
			*why = "entry .maxntid above the device's block limit";
			return -E2BIG;
		}
		if (e->param_size > DRM_VGPU_MAX_PARAM_BYTES) {
			*why = "entry parameter space above DRM_VGPU_MAX_PARAM_BYTES";
			return -E2BIG;
		}
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_program_validate);

static void vgpu_program_release(struct kref *ref)
{
	struct vgpu_program *prog = container_of(ref, struct vgpu_program, ref);

	vgpu_vram_free(prog->vram, &prog->image);
	vgpu_vram_free(prog->vram, &prog->data);
	kfree(prog);
}

/**
 * vgpu_program_put() - drop a program reference.
 * @prog: the program, or NULL.
 */
void vgpu_program_put(struct vgpu_program *prog)
{
	if (prog)
		kref_put(&prog->ref, vgpu_program_release);
}

/**
 * vgpu_program_load() - copy a validated image into device memory.
 * @vram: the device memory.
 * @arena: where to allocate (vgpu_vram_alloc()).
 * @image: the image, checked by vgpu_program_validate().
 * @size: its size in bytes.
 *
 * The image goes to a 64-byte aligned range, where the daemon fetches the
 * code; the data segment to whole pages of its own, initialised from the
 * image and zero beyond.
 *
 * Return: the program with one reference, or an ERR_PTR() of -ENOMEM or
 * -ENOSPC.
 */
struct vgpu_program *vgpu_program_load(struct vgpu_vram *vram, u32 arena,
				       const void *image, u32 size)
{
	const struct vgpu_program_header *h = image;
	struct vgpu_program *prog;
	u32 i;
	int ret;

	prog = kzalloc(struct_size(prog, entries, h->num_entries), GFP_KERNEL);
	if (!prog)
		return ERR_PTR(-ENOMEM);
	kref_init(&prog->ref);
	prog->vram = vram;
	prog->hash = xxh64(image, size, 0);
	prog->size = size;
	prog->data_size = h->data_size;
	prog->num_entries = h->num_entries;
	for (i = 0; i < h->num_entries; i++)
		memcpy(&prog->entries[i], vgpu_image_entry(image, h, i),
		       sizeof(prog->entries[i]));

	ret = vgpu_vram_alloc(vram, &prog->image, size, 64, arena);
	if (ret)
		goto err;
	memcpy(vgpu_vram_ptr(vram, prog->image.start), image, size);

	if (h->data_size) {
		/* Whole pages, so no other owner's data shares a page. */
		u64 len = PAGE_ALIGN((u64)h->data_size);
		void *data;

		ret = vgpu_vram_alloc(vram, &prog->data, len, PAGE_SIZE,
				      arena);
		if (ret)
			goto err;
		data = vgpu_vram_ptr(vram, prog->data.start);
		memcpy(data, image + h->data_offset, h->data_init_size);
		memset(data + h->data_init_size, 0, len - h->data_init_size);
	}
	return prog;

err:
	vgpu_program_put(prog);
	return ERR_PTR(ret);
}
