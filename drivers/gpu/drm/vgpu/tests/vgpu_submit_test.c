// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: launch validation (vgpu_submit_validate(), with the blocks of a
 * virtualised entry, vgpu_virtual_tbs()) and the check of the
 * hardware description a daemon attaches with
 * (vgpu_desc_validate()). Both are pure functions.
 */

#include <kunit/test.h>

#include "vgpu_drv.h"
#include "vgpu_test.h"

struct submit_ctx {
	struct vgpu_device_desc desc;
	struct vgpu_program_entry entries[2];
	struct drm_vgpu_submit args;
	struct vgpu_tb_res res;
	u32 num_tbs;
};

static int submit_init(struct kunit *test)
{
	struct submit_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct drm_vgpu_submit *a;

	KUNIT_ASSERT_NOT_NULL(test, c);
	vgpu_test_desc(&c->desc);
	strscpy(c->entries[0].name, "saxpy", sizeof(c->entries[0].name));
	c->entries[0].code_end = 64;
	c->entries[0].regs_per_thread = 21;
	c->entries[0].shared_static = 1000;
	c->entries[0].param_size = 24;
	strscpy(c->entries[1].name, "limited", sizeof(c->entries[1].name));
	c->entries[1].code_end = 64;
	c->entries[1].regs_per_thread = 63;
	c->entries[1].param_size = 0;
	c->entries[1].max_threads_per_tb = 128;

	a = &c->args;
	a->program = 1;
	a->entry = 0;
	a->grid[0] = 100;
	a->grid[1] = 2;
	a->grid[2] = 1;
	a->block[0] = 33;
	a->block[1] = 2;
	a->block[2] = 1;
	a->dynamic_shared = 100;
	a->params_size = 24;
	a->num_bos = 2;
	a->priority = DRM_VGPU_PRIORITY_HIGH;
	test->priv = c;
	return 0;
}

static int check(struct kunit *test)
{
	struct submit_ctx *c = test->priv;
	const char *why = NULL;
	int ret;

	ret = vgpu_submit_validate(&c->args, &c->desc, c->entries, 2, &c->res,
				   &c->num_tbs, &why);
	if (ret)
		KUNIT_EXPECT_NOT_NULL(test, why);
	return ret;
}

static void submit_good(struct kunit *test)
{
	struct submit_ctx *c = test->priv;

	KUNIT_ASSERT_EQ(test, check(test), 0);
	KUNIT_EXPECT_EQ(test, c->num_tbs, 200);
	/* 66 threads -> 3 warps; 22 registers each; 1100 -> 1152 bytes. */
	KUNIT_EXPECT_EQ(test, c->res.warps, 3);
	KUNIT_EXPECT_EQ(test, c->res.threads, 96);
	KUNIT_EXPECT_EQ(test, c->res.regs, 3 * 32 * 22);
	KUNIT_EXPECT_EQ(test, c->res.shared, 1152);

	c->args.flags = DRM_VGPU_SUBMIT_NOT_BEFORE;
	c->args.not_before_cycle = 12345;
	c->args.priority = DRM_VGPU_PRIORITY_REALTIME;
	c->args.num_bos = DRM_VGPU_MAX_SUBMIT_BOS;
	c->args.timeout_us = U32_MAX;
	KUNIT_EXPECT_EQ(test, check(test), 0);

	/* The largest grid that fits 32 bits. */
	c->args.grid[0] = U32_MAX;
	c->args.grid[1] = 1;
	c->args.grid[2] = 1;
	KUNIT_EXPECT_EQ(test, check(test), 0);
	KUNIT_EXPECT_EQ(test, c->num_tbs, U32_MAX);
}

/*
 * A virtualised entry runs with the blocks that fill the device: 8 slots of
 * each of the 2 SMs (threads would allow 16, registers 15), fewer when the
 * grid has fewer, 2 per SM when shared memory allows only 2.
 */
static void submit_virtual(struct kunit *test)
{
	struct submit_ctx *c = test->priv;

	c->entries[0].flags = VGPU_ENTRY_VIRTUAL_TB;
	KUNIT_ASSERT_EQ(test, check(test), 0);
	KUNIT_EXPECT_EQ(test, c->num_tbs, 16);
	KUNIT_EXPECT_EQ(test, vgpu_virtual_tbs(&c->desc, &c->res), 16);
	c->args.grid[0] = 5;
	KUNIT_ASSERT_EQ(test, check(test), 0);
	KUNIT_EXPECT_EQ(test, c->num_tbs, 10);
	c->args.grid[0] = 100;
	c->args.dynamic_shared = 20000;
	KUNIT_ASSERT_EQ(test, check(test), 0);
	KUNIT_EXPECT_EQ(test, c->res.shared, 21120);
	KUNIT_EXPECT_EQ(test, c->num_tbs, 4);
}

static void submit_einval(struct kunit *test)
{
	struct submit_ctx *c = test->priv;
	struct drm_vgpu_submit good = c->args;
	u32 i;

	c->args.flags = 1u << 1;
	KUNIT_EXPECT_EQ(test, check(test), -EINVAL);
	c->args = good;
	c->args.priority = DRM_VGPU_PRIORITY_REALTIME + 1;
	KUNIT_EXPECT_EQ(test, check(test), -EINVAL);
	for (i = 0; i < 3; i++) {
		c->args = good;
		c->args.grid[i] = 0;
		KUNIT_EXPECT_EQ_MSG(test, check(test), -EINVAL, "grid[%u]", i);
		c->args = good;
		c->args.block[i] = 0;
		KUNIT_EXPECT_EQ_MSG(test, check(test), -EINVAL, "block[%u]", i);
	}
	c->args = good;
	c->args.entry = 2;
	KUNIT_EXPECT_EQ(test, check(test), -EINVAL);
	c->args = good;
	c->args.params_size = 16;
	KUNIT_EXPECT_EQ(test, check(test), -EINVAL);
	c->args = good;
	c->args.params_size = 0;
	KUNIT_EXPECT_EQ(test, check(test), -EINVAL);
}

static void submit_e2big(struct kunit *test)
{
	struct submit_ctx *c = test->priv;
	struct drm_vgpu_submit good = c->args;

	/* Block above the device limit, and a product that would wrap. */
	c->args.block[0] = 1025;
	c->args.block[1] = 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args.block[0] = 65536;
	c->args.block[1] = 65536;
	c->args.block[2] = 65536;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	/* Block above the entry's .maxntid. */
	c->args = good;
	c->args.entry = 1;
	c->args.params_size = 0;
	c->args.block[0] = 129;
	c->args.block[1] = 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args.block[0] = 128;
	KUNIT_EXPECT_EQ(test, check(test), 0);
	/* Grid beyond 2^32-1 blocks, also when one dimension alone fits. */
	c->args = good;
	c->args.grid[0] = 65536;
	c->args.grid[1] = 65536;
	c->args.grid[2] = 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args.grid[0] = U32_MAX;
	c->args.grid[1] = 1;
	c->args.grid[2] = 2;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	/* Registers: 1024 threads x round_up(63, 2) > 32768. */
	c->args = good;
	c->entries[0].regs_per_thread = 63;
	c->args.block[0] = 1024;
	c->args.block[1] = 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args.block[0] = 512;	/* exactly 32768 */
	KUNIT_EXPECT_EQ(test, check(test), 0);
	KUNIT_EXPECT_EQ(test, c->res.regs, 32768);
	/* A device whose per-thread limit shrank. */
	c->desc.max_regs_per_thread = 32;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	vgpu_test_desc(&c->desc);
	/* Shared memory: static + dynamic beyond the block limit. */
	c->args = good;
	c->args.dynamic_shared = c->desc.max_shared_per_tb - 1000 + 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args.dynamic_shared = c->desc.max_shared_per_tb - 1000;
	KUNIT_EXPECT_EQ(test, check(test), 0);
	c->args.dynamic_shared = U32_MAX;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	/* ... and when rounding to the allocation unit crosses it. */
	c->desc.max_shared_per_tb = 49000;
	c->args.dynamic_shared = 49000 - 1000;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	vgpu_test_desc(&c->desc);
	/* Parameter bytes and buffer count. */
	c->args = good;
	c->args.params_size = DRM_VGPU_MAX_PARAM_BYTES + 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args = good;
	c->args.num_bos = DRM_VGPU_MAX_SUBMIT_BOS + 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	/* In-syncobjs: the limit is allowed, one more is not; in_pad. */
	c->args = good;
	c->args.num_in_syncobjs = DRM_VGPU_MAX_IN_SYNCOBJS;
	KUNIT_EXPECT_EQ(test, check(test), 0);
	c->args.num_in_syncobjs = DRM_VGPU_MAX_IN_SYNCOBJS + 1;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args.num_in_syncobjs = U32_MAX;
	KUNIT_EXPECT_EQ(test, check(test), -E2BIG);
	c->args = good;
	c->args.in_pad = 1;
	KUNIT_EXPECT_EQ(test, check(test), -EINVAL);
}

static void desc_good(struct kunit *test)
{
	struct vgpu_device_desc d;
	const char *why;

	vgpu_test_desc(&d);
	KUNIT_EXPECT_EQ(test, vgpu_desc_validate(&d, &why), 0);
	d.num_sms = 1024;
	d.max_tbs_per_sm = 64;
	KUNIT_EXPECT_EQ(test, vgpu_desc_validate(&d, &why), 0);
}

static void desc_bad(struct kunit *test)
{
	struct vgpu_device_desc d;
	const char *why;

#define BAD(stmt) do {							\
		vgpu_test_desc(&d);					\
		stmt;							\
		why = NULL;						\
		KUNIT_EXPECT_EQ_MSG(test, vgpu_desc_validate(&d, &why), \
				    -EINVAL, "%s", #stmt);		\
		KUNIT_EXPECT_NOT_NULL(test, why);			\
	} while (0)

	BAD(d.num_sms = 0);
	BAD(d.num_sms = 1025);
	BAD(d.warp_size = 64);
	BAD(d.max_tbs_per_sm = 0);
	BAD(d.max_tbs_per_sm = 65);
	BAD(d.max_threads_per_sm = 0);
	BAD(d.regs_per_sm = 0);
	BAD(d.shared_per_sm = 0);
	BAD(d.max_threads_per_tb = 0);
	BAD(d.max_regs_per_thread = 0);
	BAD(d.max_shared_per_tb = 0);
	BAD(d.core_clock_khz = 0);
	BAD(d.reg_alloc_unit = 0);
	BAD(d.shared_alloc_unit = 0);
	BAD(d.shared_alloc_unit = 96);
	BAD(d.max_threads_per_sm = 1000);
	BAD(d.max_threads_per_tb = 2048);
	BAD(d.max_shared_per_tb = 49153);
	BAD(d.max_regs_per_thread = 1025);
	BAD(d.reserved[0] = 1);
	BAD(memset(d.name, 'a', sizeof(d.name)));
	BAD(d.shared_alloc_unit = 1u << 31);
	BAD(d.shared_alloc_unit = 1; d.shared_per_sm = 1u << 20;
	    d.max_shared_per_tb = 1024);
#undef BAD
}

static struct kunit_case vgpu_submit_cases[] = {
	KUNIT_CASE(submit_good),
	KUNIT_CASE(submit_virtual),
	KUNIT_CASE(submit_einval),
	KUNIT_CASE(submit_e2big),
	KUNIT_CASE(desc_good),
	KUNIT_CASE(desc_bad),
	{}
};

static struct kunit_suite vgpu_submit_suite = {
	.name = "vgpu_submit",
	.init = submit_init,
	.test_cases = vgpu_submit_cases,
};

kunit_test_suite(vgpu_submit_suite);
