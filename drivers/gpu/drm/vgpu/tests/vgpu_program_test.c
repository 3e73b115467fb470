// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: program header validation (vgpu_program_validate()).
 *
 * A well-formed image is accepted; each kind of malformed header or entry
 * is rejected with -EINVAL; resource needs beyond the device with -E2BIG.
 */

#include <kunit/test.h>

#include "vgpu_drv.h"
#include "vgpu_test.h"

#define IMG_ENTRIES	64
#define IMG_CODE	(IMG_ENTRIES + 2 * sizeof(struct vgpu_program_entry))
#define IMG_CODE_SIZE	32
#define IMG_DATA	(IMG_CODE + IMG_CODE_SIZE)
#define IMG_DATA_INIT	8
#define IMG_SIZE	(IMG_DATA + IMG_DATA_INIT)
#define IMG_BUF		512

struct prog_ctx {
	struct vgpu_device_desc desc;
	u8 *buf;
};

static struct vgpu_program_header *hdr(u8 *buf)
{
	return (struct vgpu_program_header *)buf;
}

static struct vgpu_program_entry *ent(u8 *buf, u32 i)
{
	return (struct vgpu_program_entry *)(buf + IMG_ENTRIES) + i;
}

/* Header, two entries, 32 bytes of code and 8 bytes of initialised data. */
static void build_image(u8 *buf)
{
	struct vgpu_program_header *h = hdr(buf);
	u32 i;

	memset(buf, 0, IMG_BUF);
	h->magic = VGPU_PROGRAM_MAGIC;
	h->version_major = VGPU_PROGRAM_VERSION_MAJOR;
	h->version_minor = VGPU_PROGRAM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->image_size = IMG_SIZE;
	h->num_entries = 2;
	h->entry_size = sizeof(struct vgpu_program_entry);
	h->entries_offset = IMG_ENTRIES;
	h->code_offset = IMG_CODE;
	h->code_size = IMG_CODE_SIZE;
	h->data_offset = IMG_DATA;
	h->data_init_size = IMG_DATA_INIT;
	h->data_size = 64;
	for (i = 0; i < 2; i++) {
		struct vgpu_program_entry *e = ent(buf, i);

		snprintf(e->name, sizeof(e->name), "kernel%u", i);
		e->code_start = i * 16;
		e->code_end = i * 16 + 16;
		e->regs_per_thread = 20;
		e->shared_static = 1024;
		e->param_size = 16;
		e->max_threads_per_tb = 256;
		e->flags = VGPU_ENTRY_HAS_ATOMICS;
	}
	memset(buf + IMG_CODE, 0xab, IMG_CODE_SIZE);
	memset(buf + IMG_DATA, 0x5a, IMG_DATA_INIT);
}

static int prog_init(struct kunit *test)
{
	struct prog_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->buf = kunit_kzalloc(test, IMG_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->buf);
	vgpu_test_desc(&c->desc);
	build_image(c->buf);
	test->priv = c;
	return 0;
}

static int validate(struct kunit *test, size_t size)
{
	struct prog_ctx *c = test->priv;
	const char *why = NULL;
	int ret;

	ret = vgpu_program_validate(c->buf, size, &c->desc, &why);
	if (ret)
		KUNIT_EXPECT_NOT_NULL(test, why);
	else
		KUNIT_EXPECT_NULL(test, why);
	return ret;
}

static void prog_good(struct kunit *test)
{
	struct prog_ctx *c = test->priv;

	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), 0);
	/* No data segment at all is fine too. */
	hdr(c->buf)->data_init_size = 0;
	hdr(c->buf)->data_size = 0;
	hdr(c->buf)->data_offset = 0;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), 0);
	/* A larger header and entry size (newer minor) are accepted. */
	build_image(c->buf);
	hdr(c->buf)->version_minor = VGPU_PROGRAM_VERSION_MINOR + 1;
	ent(c->buf, 1)->flags |= 1u << 31;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), 0);
	/* Virtual entries with a thread-index assignment each. */
	build_image(c->buf);
	ent(c->buf, 0)->flags = VGPU_ENTRY_VIRTUAL_TB | VGPU_ENTRY_VTB_LOWEST;
	ent(c->buf, 1)->flags = VGPU_ENTRY_VIRTUAL_TB | VGPU_ENTRY_VTB_SLOWEST;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), 0);
}

struct garbage {
	const char *name;
	void (*mutate)(u8 *buf, size_t *size);
};

#define H(buf) hdr(buf)
#define GARBAGE(n, body) \
	static void mut_##n(u8 *buf, size_t *size) { body; }

GARBAGE(bad_magic, H(buf)->magic ^= 1)
GARBAGE(bad_major, H(buf)->version_major = VGPU_PROGRAM_VERSION_MAJOR + 1)
GARBAGE(header_small, H(buf)->header_size = sizeof(struct vgpu_program_header) - 4)
GARBAGE(header_beyond, H(buf)->header_size = IMG_SIZE + 8)
GARBAGE(image_size_mismatch, H(buf)->image_size = IMG_SIZE - 8)
GARBAGE(truncated, *size = sizeof(struct vgpu_program_header) - 1)
GARBAGE(truncated_entries, { *size = IMG_ENTRIES + 8; H(buf)->image_size = *size; })
GARBAGE(hdr_reserved, H(buf)->reserved[1] = 1)
GARBAGE(no_entries, H(buf)->num_entries = 0)
GARBAGE(too_many_entries, H(buf)->num_entries = VGPU_PROGRAM_MAX_ENTRIES + 1)
GARBAGE(entry_size_small, H(buf)->entry_size = sizeof(struct vgpu_program_entry) - 8)
GARBAGE(entry_size_odd, H(buf)->entry_size = sizeof(struct vgpu_program_entry) + 4)
GARBAGE(entries_misaligned, H(buf)->entries_offset = IMG_ENTRIES + 4)
GARBAGE(entries_beyond, H(buf)->num_entries = 3)
GARBAGE(entries_offset_huge, H(buf)->entries_offset = 0xfffffff8u)
GARBAGE(code_misaligned, H(buf)->code_offset = IMG_CODE + 4)
GARBAGE(code_size_zero, H(buf)->code_size = 0)
GARBAGE(code_size_odd, H(buf)->code_size = IMG_CODE_SIZE - 4)
GARBAGE(code_beyond, H(buf)->code_size = IMG_CODE_SIZE + 64)
GARBAGE(code_wraps, { H(buf)->code_offset = 0xfffffff8u; H(buf)->code_size = 16; })
GARBAGE(data_init_gt_size, H(buf)->data_init_size = H(buf)->data_size + 1)
GARBAGE(data_beyond, H(buf)->data_offset = IMG_SIZE - 4)
GARBAGE(data_wraps, H(buf)->data_offset = 0xfffffffcu)
/* vgpud refused what the driver took (a job ended with -EINVAL): vgpu_fuzz. */
GARBAGE(data_offset_beyond_empty, { H(buf)->data_offset = IMG_SIZE + 8;
				    H(buf)->data_init_size = 0; })
GARBAGE(code_overlaps_entries, H(buf)->code_offset = IMG_ENTRIES + 128)
GARBAGE(data_overlaps_code, H(buf)->data_offset = IMG_CODE + 8)
GARBAGE(entries_overlap_header, H(buf)->entries_offset = 8)
GARBAGE(name_unterminated, memset(ent(buf, 1)->name, 'x', VGPU_PROGRAM_NAME_LEN))
GARBAGE(name_empty, ent(buf, 0)->name[0] = 0)
GARBAGE(entry_code_empty, ent(buf, 0)->code_end = ent(buf, 0)->code_start)
GARBAGE(entry_code_beyond, ent(buf, 1)->code_end = IMG_CODE_SIZE + 8)
GARBAGE(entry_code_misaligned, ent(buf, 1)->code_start = 20)
GARBAGE(entry_reserved, ent(buf, 1)->reserved[7] = 1)
GARBAGE(entry_unknown_flags, ent(buf, 0)->flags = 1u << 5)
GARBAGE(entry_vtb_two_lanes, ent(buf, 1)->flags = VGPU_ENTRY_VIRTUAL_TB |
	VGPU_ENTRY_VTB_LOWEST | VGPU_ENTRY_VTB_SLOWEST)
GARBAGE(entry_vtb_lanes_not_virtual, ent(buf, 0)->flags = VGPU_ENTRY_VTB_SLOWEST)
GARBAGE(analysis_beyond, { H(buf)->analysis_offset = IMG_SIZE; H(buf)->analysis_size = 16; })
GARBAGE(analysis_misaligned, { H(buf)->analysis_offset = IMG_DATA + 4; H(buf)->analysis_size = 2; })
GARBAGE(analysis_not_per_entry, { H(buf)->analysis_offset = IMG_DATA; H(buf)->analysis_size = 3; })
GARBAGE(analysis_no_size, H(buf)->analysis_offset = IMG_DATA)
GARBAGE(analysis_overlaps_code, { H(buf)->analysis_offset = IMG_CODE; H(buf)->analysis_size = 16; })

static const struct garbage garbage_cases[] = {
#define G(n) { #n, mut_##n }
	G(bad_magic), G(bad_major), G(header_small), G(header_beyond),
	G(image_size_mismatch), G(truncated), G(truncated_entries),
	G(hdr_reserved), G(no_entries), G(too_many_entries),
	G(entry_size_small), G(entry_size_odd), G(entries_misaligned),
	G(entries_beyond), G(entries_offset_huge), G(code_misaligned),
	G(code_size_zero), G(code_size_odd), G(code_beyond), G(code_wraps),
	G(data_init_gt_size), G(data_beyond), G(data_wraps),
	G(data_offset_beyond_empty),
	G(code_overlaps_entries), G(data_overlaps_code),
	G(entries_overlap_header), G(name_unterminated), G(name_empty),
	G(entry_code_empty), G(entry_code_beyond), G(entry_code_misaligned),
	G(entry_reserved), G(entry_unknown_flags), G(entry_vtb_two_lanes),
	G(entry_vtb_lanes_not_virtual), G(analysis_beyond),
	G(analysis_misaligned), G(analysis_not_per_entry), G(analysis_no_size),
	G(analysis_overlaps_code),
#undef G
};

static void garbage_desc(const struct garbage *g, char *desc)
{
	strscpy(desc, g->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(garbage, garbage_cases, garbage_desc);

static void prog_garbage(struct kunit *test)
{
	const struct garbage *g = test->param_value;
	struct prog_ctx *c = test->priv;
	size_t size = IMG_SIZE;

	g->mutate(c->buf, &size);
	KUNIT_EXPECT_EQ_MSG(test, validate(test, size), -EINVAL, "%s", g->name);
}

/* An analysis section after the data, one 8-byte record per entry, is fine. */
static void prog_analysis_section(struct kunit *test)
{
	struct prog_ctx *c = test->priv;

	BUILD_BUG_ON(IMG_SIZE % 8 || IMG_SIZE + 16 > IMG_BUF);
	hdr(c->buf)->analysis_offset = IMG_SIZE;
	hdr(c->buf)->analysis_size = 16;
	hdr(c->buf)->image_size = IMG_SIZE + 16;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE + 16), 0);
}

static void prog_over_limit(struct kunit *test)
{
	struct prog_ctx *c = test->priv;

	ent(c->buf, 1)->regs_per_thread = c->desc.max_regs_per_thread + 1;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);
	build_image(c->buf);
	ent(c->buf, 1)->regs_per_thread = c->desc.max_regs_per_thread;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), 0);

	build_image(c->buf);
	ent(c->buf, 0)->shared_static = c->desc.max_shared_per_tb + 1;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);

	build_image(c->buf);
	ent(c->buf, 0)->max_threads_per_tb = c->desc.max_threads_per_tb + 1;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);

	build_image(c->buf);
	ent(c->buf, 0)->param_size = DRM_VGPU_MAX_PARAM_BYTES + 1;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);

	/* Larger than VGPU_PROGRAM_MAX_SIZE: refused before it is read. */
	build_image(c->buf);
	KUNIT_EXPECT_EQ(test, validate(test, VGPU_PROGRAM_MAX_SIZE + 1), -E2BIG);
}

static void prog_garbage_wins(struct kunit *test)
{
	struct prog_ctx *c = test->priv;

	/* Malformed and over a limit: the malformation is reported. */
	ent(c->buf, 0)->regs_per_thread = 1000;
	ent(c->buf, 1)->name[0] = 0;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -EINVAL);
}

static void prog_device_limits(struct kunit *test)
{
	struct prog_ctx *c = test->priv;

	/* The same image against a smaller device. */
	c->desc.max_regs_per_thread = 16;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);
	vgpu_test_desc(&c->desc);
	c->desc.max_shared_per_tb = 512;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);
	vgpu_test_desc(&c->desc);
	c->desc.max_threads_per_tb = 128;
	KUNIT_EXPECT_EQ(test, validate(test, IMG_SIZE), -E2BIG);
}

static struct kunit_case vgpu_program_cases[] = {
	KUNIT_CASE(prog_good),
	KUNIT_CASE_PARAM(prog_garbage, garbage_gen_params),
	KUNIT_CASE(prog_over_limit),
	KUNIT_CASE(prog_garbage_wins),
	KUNIT_CASE(prog_analysis_section),
	KUNIT_CASE(prog_device_limits),
	{}
};

static struct kunit_suite vgpu_program_suite = {
	.name = "vgpu_program",
	.init = prog_init,
	.test_cases = vgpu_program_cases,
};

kunit_test_suite(vgpu_program_suite);
