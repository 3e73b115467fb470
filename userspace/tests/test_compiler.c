// SPDX-License-Identifier: MIT
/*
 * test_compiler.c - host tests of the PTX front end (userspace/lib/compiler):
 * the checked-in nvcc output compiles with the right entry metadata,
 * unsupported or malformed PTX fails with "ptx:LINE: ..." naming the line,
 * and garbage never crashes it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* readlink, open_memstream */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "compiler/vgpu_compile.h"
#include "tap.h"

struct img {
	void *p;
	size_t size;
	char err[256];
	int ret;
};

static int compile(const char *src, size_t len, struct img *im)
{
	im->ret = vgpu_compile_ptx(src, len, &im->p, &im->size, im->err, sizeof(im->err));
	return im->ret;
}

static int compile_str(const char *src, struct img *im)
{
	return compile(src, strlen(src), im);
}

static const struct vgpu_program_header *hdr(const struct img *im)
{
	return im->p;
}

static const struct vgpu_program_entry *entry(const struct img *im, const char *name)
{
	const struct vgpu_program_header *h = hdr(im);

	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e = (const void *)((const uint8_t *)im->p +
			h->entries_offset + (size_t)i * h->entry_size);

		if (!strncmp(e->name, name, sizeof(e->name)))
			return e;
	}
	return NULL;
}

/* Structural checks every image must pass (what vgpu.ko validates). */
static int check_image(const struct img *im)
{
	const struct vgpu_program_header *h = hdr(im);
	const uint64_t *code;

	CHECK(im->size >= sizeof(*h), "image too small");
	CHECK(h->magic == VGPU_PROGRAM_MAGIC, "magic");
	CHECK(h->version_major == VGPU_PROGRAM_VERSION_MAJOR, "version");
	CHECK(h->header_size == sizeof(*h) && h->entry_size == sizeof(struct vgpu_program_entry),
	      "sizes");
	CHECK(h->image_size == im->size, "image_size");
	CHECK(h->num_entries >= 1 && h->num_entries <= VGPU_PROGRAM_MAX_ENTRIES, "entries");
	CHECK(h->entries_offset % 8 == 0 && h->code_offset % 8 == 0 && h->code_size % 8 == 0,
	      "alignment");
	CHECK(h->entries_offset + h->num_entries * h->entry_size <= h->code_offset, "layout");
	CHECK(h->code_offset + h->code_size <= h->data_offset, "code");
	CHECK(h->data_offset + h->data_init_size <= h->analysis_offset, "data");
	CHECK(h->analysis_offset % 8 == 0 && h->analysis_size ==
	      h->num_entries * sizeof(struct vgpu_program_analysis) &&
	      h->analysis_offset + h->analysis_size == h->image_size, "analysis section");
	CHECK(h->version_minor == VGPU_PROGRAM_VERSION_MINOR && h->version_minor >= 1, "minor");
	CHECK(h->data_init_size <= h->data_size, "data size");
	for (int i = 0; i < 2; i++)
		CHECK(!h->reserved[i], "reserved");
	code = (const uint64_t *)((const uint8_t *)im->p + h->code_offset);
	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e = (const void *)((const uint8_t *)im->p +
			h->entries_offset + (size_t)i * h->entry_size);
		uint64_t last;

		CHECK(memchr(e->name, 0, sizeof(e->name)), "name terminated");
		CHECK(e->code_start % 8 == 0 && e->code_end % 8 == 0 &&
		      e->code_start < e->code_end && e->code_end <= h->code_size, "code range");
		CHECK(e->regs_per_thread <= VGPU_NUM_REGS, "regs");
		for (int k = 0; k < 8; k++)
			CHECK(!e->reserved[k], "entry reserved");
		last = code[e->code_end / 8 - 1];
		CHECK(VGPU_I_OP(last) == VGPU_OP_EXIT || (code[e->code_end / 8 - 2] & VGPU_I_X),
		      "entry %s ends with exit", e->name);
	}
	return 0;
}

static int t_workloads(void)
{
	static const char *const files[] = {
		"userspace/workloads/saxpy.ptx", "userspace/workloads/reduce.ptx",
		"userspace/workloads/histogram.ptx", "userspace/tests/ptx/kernels.ptx",
	};
	struct img im[4];
	const struct vgpu_program_entry *e;

	for (int i = 0; i < 4; i++) {
		size_t len;
		char *src = read_src(files[i], &len);

		CHECK(src, "read %s", files[i]);
		compile(src, len, &im[i]);
		free(src);
		CHECK(im[i].ret == 0, "%s: %s", files[i], im[i].err);
		CHECK(check_image(&im[i]) == 0, "%s: image", files[i]);
	}
	/* saxpy(u32 n, f32 a, u64 x, u64 y) */
	CHECK(hdr(&im[0])->num_entries == 2, "saxpy entries");
	e = entry(&im[0], "saxpy");
	CHECK(e && e->param_size == 24 && e->shared_static == 0 && e->local_per_thread == 0,
	      "saxpy metadata");
	CHECK(e->regs_per_thread >= 6 && e->regs_per_thread <= 16, "saxpy regs %u",
	      e->regs_per_thread);
	CHECK(e->flags == VGPU_ENTRY_HAS_GLOBAL_RMW, "saxpy reads and writes y: flags %x",
	      e->flags);
	CHECK(entry(&im[0], "saxpy_stride"), "saxpy_stride");
	/* reduce(u64 in, u64 out, u32 n): dynamic shared only */
	e = entry(&im[1], "reduce");
	CHECK(e && e->param_size == 20 && e->shared_static == 0, "reduce metadata");
	/* in and out are distinct parameters but may point into one buffer */
	CHECK(e->flags == VGPU_ENTRY_HAS_GLOBAL_RMW, "reduce: in and out may alias: flags %x",
	      e->flags);
	e = entry(&im[1], "reduce_static");
	CHECK(e && e->param_size == 20 && e->shared_static == 1024, "reduce_static metadata");
	/* histogram */
	e = entry(&im[2], "histogram");
	CHECK(e && e->shared_static == 0 && (e->flags & VGPU_ENTRY_HAS_ATOMICS), "histogram");
	CHECK(!(e->flags & VGPU_ENTRY_HAS_GLOBAL_RMW), "histogram: no plain global stores");
	e = entry(&im[2], "histogram_shared");
	CHECK(e && e->shared_static == 1024 && (e->flags & VGPU_ENTRY_HAS_ATOMICS),
	      "histogram_shared");
	/* coverage kernels */
	CHECK(hdr(&im[3])->data_size >= 52 && hdr(&im[3])->data_init_size >= 52, "data segment");
	e = entry(&im[3], "localarr");
	CHECK(e && e->local_per_thread == 96, "local memory %u", e ? e->local_per_thread : 0);
	for (int i = 0; i < 4; i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		CHECK(f, "memstream");
		CHECK(vgpu_disasm(im[i].p, im[i].size, f) == 0, "disasm");
		fclose(f);
		CHECK(n > 100 && strstr(buf, ".entry") && strstr(buf, "exit"), "listing");
		free(buf);
		free(im[i].p);
	}
	return 0;
}

#define HEAD ".version 7.0\n.target sm_75\n.address_size 64\n"

static int t_metadata(void)
{
	struct img im;
	const struct vgpu_program_entry *e;
	const char *src =
		HEAD
		".visible .entry k(.param .u32 a, .param .u64 b, .param .align 8 .b8 s[12],\n"
		"	.param .f32 c)\n"
		".maxntid 128, 2, 1\n"
		"{\n"
		"	.reg .b32 %r<3>;\n"
		"	.shared .align 8 .b8 x[10];\n"
		"	.shared .align 4 .b8 y[8];\n"
		"	ld.param.u32 %r1, [c];\n"
		"	st.shared.u32 [y+4], %r1;\n"
		"	ret;\n"
		"}\n";

	CHECK(compile_str(src, &im) == 0, "%s", im.err);
	CHECK(check_image(&im) == 0, "image");
	e = entry(&im, "k");
	/* a@0, b@8, s@16..28, c@28 */
	CHECK(e->param_size == 32, "param_size %u", e->param_size);
	CHECK(e->shared_static == 20, "shared_static %u", e->shared_static);
	CHECK(e->max_threads_per_tb == 256, "maxntid %u", e->max_threads_per_tb);
	CHECK(e->regs_per_thread == 1, "regs %u", e->regs_per_thread);
	free(im.p);
	return 0;
}

static int expect_error(const char *src, int line, const char *what)
{
	struct img im;
	char prefix[32];

	CHECK(compile_str(src, &im) == -EINVAL, "expected -EINVAL, got %d", im.ret);
	CHECK(!im.p && !im.size, "no image on error");
	snprintf(prefix, sizeof(prefix), "ptx:%d: ", line);
	CHECK(!strncmp(im.err, prefix, strlen(prefix)), "error '%s' does not start with '%s'",
	      im.err, prefix);
	CHECK(strstr(im.err, what), "error '%s' does not mention '%s'", im.err, what);
	return 0;
}

static int t_errors(void)
{
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
			   "\tbrkpt;\n\tret;\n}\n", 7,
			   "unsupported instruction 'brkpt'") == 0, "brkpt");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
			   "\tmov.u32 %r1, 1;\n\n\tbar.arrive 0, 32;\n\tret;\n}\n", 9,
			   "barrier") == 0, "bar.arrive");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\tcall.uni foo, ();\n\tret;\n}\n", 6,
			   "unknown function 'foo'") == 0, "call");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\tbra $nowhere;\n\tret;\n}\n", 6,
			   "undefined label '$nowhere'") == 0, "label");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
			   "\tmov.u32 %r7, 1;\n}\n", 7, "unknown register '%r7'") == 0, "register");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %h<2>;\n"
			   "\tadd.f16x2 %h1, %h1, %h1;\n}\n", 7, "unsupported type '.f16x2'") == 0,
	      "f16");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
			   "\tadd.cc.f32 %r1, %r1, %r1;\n}\n", 7, "unsupported modifier") == 0,
	      "carry");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
			   "\tld.global.u32 %r1, [%r0;\n}\n", 7, "expected ']'") == 0, "syntax");
	CHECK(expect_error(HEAD ".func f()\n{\n\tret;\n}\n", 8, "no .entry") == 0, "func");
	CHECK(expect_error(".version 7.0\n.target sm_75\n.address_size 32\n", 3,
			   ".address_size 64") == 0, "address size");
	CHECK(expect_error(".target sm_75\n.visible .entry k()\n{\n\tret;\n}\n", 2,
			   ".version") == 0, "no version");
	CHECK(expect_error(HEAD, 4, "no .entry") == 0, "no entry");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
			   "\tmov.u32 %r1, 1;\n", 8, "end of file") == 0, "truncated");
	CHECK(expect_error(HEAD ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
			   "\tbar.sync 0, %r1;\n\tret;\n}\n", 7, "thread count") == 0, "bar count");
	return 0;
}

static const uint64_t *code_of(const struct img *im, const char *name, uint32_t *n);

/* Local LD/ST (spill code) and SELP RZ, 1 (a predicate spilled) in @name. */
static void spill_ops(const struct img *im, const char *name, int *ld, int *st, int *selp)
{
	uint32_t n;
	const uint64_t *c = code_of(im, name, &n);

	*ld = *st = *selp = 0;
	for (uint32_t i = 0; i < n; i++) {
		unsigned int op = VGPU_I_OP(c[i]);

		if ((op == VGPU_OP_LD || op == VGPU_OP_ST) &&
		    VGPU_M_MEM_SP(VGPU_I_MOD(c[i])) == VGPU_SP_LOCAL)
			*(op == VGPU_OP_LD ? ld : st) += 1;
		if (op == VGPU_OP_SELP && VGPU_I_A(c[i]) == VGPU_RZ && (c[i] & VGPU_I_BI) &&
		    VGPU_I_B(c[i]) == 1)
			(*selp)++;
		i += !!(c[i] & VGPU_I_X);
	}
}

/* More values live at once than the register file has: spilled. */
static int t_pressure(void)
{
	char *src = malloc(200000), *p = src;
	struct img im;
	int r = 0, ld, st, selp;

	p += sprintf(p, HEAD ".visible .entry k(.param .u64 o)\n{\n"
		     "\t.reg .b32 %%r<400>;\n\t.reg .b64 %%rd<2>;\n"
		     "\tld.param.u64 %%rd1, [o];\n");
	for (int i = 0; i < 300; i++)
		p += sprintf(p, "\tld.global.u32 %%r%d, [%%rd1+%d];\n", i, i * 4);
	for (int i = 1; i < 300; i++)
		p += sprintf(p, "\tadd.s32 %%r0, %%r0, %%r%d;\n", i);
	p += sprintf(p, "\tst.global.u32 [%%rd1], %%r0;\n\tret;\n}\n");
	if (compile_str(src, &im) != 0) {
		printf("#   300 live: %s\n", im.err);
		r = -1;
	} else {
		const struct vgpu_program_entry *e = entry(&im, "k");

		spill_ops(&im, "k", &ld, &st, &selp);
		if (e->regs_per_thread > VGPU_NUM_REGS || e->local_per_thread < 4 * 45 ||
		    ld < 45 || st < 45) {
			printf("#   300 live: regs %u, local %u, %d spill loads, %d stores\n",
			       e->regs_per_thread, e->local_per_thread, ld, st);
			r = -1;
		}
		free(im.p);
	}
	/* 200 live values fit: no spill */
	p = src;
	p += sprintf(p, HEAD ".visible .entry k(.param .u64 o)\n{\n"
		     "\t.reg .b32 %%r<400>;\n\t.reg .b64 %%rd<2>;\n"
		     "\tld.param.u64 %%rd1, [o];\n");
	for (int i = 0; i < 200; i++)
		p += sprintf(p, "\tld.global.u32 %%r%d, [%%rd1+%d];\n", i, i * 4);
	for (int i = 1; i < 200; i++)
		p += sprintf(p, "\tadd.s32 %%r0, %%r0, %%r%d;\n", i);
	p += sprintf(p, "\tst.global.u32 [%%rd1], %%r0;\n\tret;\n}\n");
	if (!r && compile_str(src, &im) != 0) {
		printf("#   200 live: %s\n", im.err);
		r = -1;
	}
	if (!r) {
		const struct vgpu_program_entry *e = entry(&im, "k");

		spill_ops(&im, "k", &ld, &st, &selp);
		if (e->regs_per_thread < 202 || e->regs_per_thread > 203 || ld || st ||
		    e->local_per_thread) {
			printf("#   regs %u for 200 live + a pointer pair, %d/%d spills\n",
			       e->regs_per_thread, ld, st);
			r = -1;
		}
		free(im.p);
	}
	/* nine predicates live at once: one goes to a register */
	p = src;
	p += sprintf(p, HEAD ".visible .entry k(.param .u32 v)\n{\n"
		     "\t.reg .pred %%p<10>;\n\t.reg .b32 %%r<12>;\n"
		     "\tld.param.u32 %%r0, [v];\n");
	for (int i = 0; i < 9; i++)
		p += sprintf(p, "\tsetp.eq.s32 %%p%d, %%r0, %d;\n", i, i);
	for (int i = 0; i < 9; i++)
		p += sprintf(p, "\t@%%p%d add.s32 %%r0, %%r0, 1;\n", i);
	p += sprintf(p, "\tret;\n}\n");
	if (!r && compile_str(src, &im) != 0) {
		printf("#   9 predicates: %s\n", im.err);
		r = -1;
	} else if (!r) {
		spill_ops(&im, "k", &ld, &st, &selp);
		if (selp < 1 || ld || st) {
			printf("#   9 predicates: %d predicate spills, %d/%d local\n", selp, ld, st);
			r = -1;
		}
		free(im.p);
	}
	free(src);
	return r;
}

/* Constructs nvcc emits that the workloads do not contain. */
static int t_constructs(void)
{
	struct img im;
	const char *src =
		HEAD
		"// comment\n/* block\n comment */\n"
		".global .align 4 .b8 g[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
		".const .align 8 .f64 cd = 0d3FF0000000000000;\n"
		".extern .shared .align 16 .b8 dyn[];\n"
		".visible .entry k(.param .u64 .ptr .global .align 8 k_p)\n"
		".reqntid 64\n"
		"{\n"
		"	.reg .pred %p<4>;\n	.reg .b16 %rs<3>;\n	.reg .b32 %r<10>;\n"
		"	.reg .f32 %f<4>;\n	.reg .b64 %rd<6>;\n	.reg .f64 %fd<3>;\n"
		"	.local .align 4 .b8 __local_depot0[16];\n"
		"	.reg .b64 %SP;\n	.reg .b64 %SPL;\n"
		"	mov.u64 %SPL, __local_depot0;\n"
		"	cvta.local.u64 %SP, %SPL;\n"
		"	ld.param.u64 %rd1, [k_p];\n"
		"	{\n	.reg .b32 tmp;\n	mov.u32 tmp, 5;\n	mov.u32 %r1, tmp;\n	}\n"
		"	mov.u64 %rd2, g;\n"
		"	ld.global.u32 %r2, [g+4];\n"
		"	ld.const.f64 %fd1, [cd];\n"
		"	mov.u32 %r3, dyn;\n"
		"	ld.shared.v4.u32 {%r4, %r5, _, %r6}, [dyn+16];\n"
		"	setp.lt.s32 %p1|%p2, %r1, %r2;\n"
		"	setp.ne.and.s32 %p3, %r1, 0, %p1;\n"
		"	selp.b32 %r7, 1, %r2, %p3;\n"
		"	and.pred %p1, %p1, %p3;\n"
		"	not.pred %p2, %p2;\n"
		"	@!%p2 bra.uni $L1;\n"
		"	mov.b32 %f1, 0f3F800000;\n"
		"	add.rz.ftz.f32 %f2, %f1, 0f40000000;\n"
		"	cvt.rn.f32.s32 %f3, %r7;\n"
		"	cvt.rzi.s32.f32 %r8, %f3;\n"
		"	mov.b64 %rd3, {%r1, %r2};\n"
		"	mov.b64 {%r1, %r2}, %rd3;\n"
		"	mov.b32 %r9, {%rs1, %rs2};\n"
		"	cvt.u16.u32 %rs1, %r9;\n"
		"	shl.b64 %rd4, %rd3, 3;\n"
		"	mov.u64 %rd5, 0x123456789abcdef0;\n"
		"	st.local.u32 [%SPL+-4], %r8;\n"
		"	bfe.u32 %r9, %r8, 4, 8;\n"
		"	bfi.b32 %r9, %r8, %r9, 8, 4;\n"
		"	vote.sync.uni.pred %p1, %p2, -1;\n"
		"	shfl.sync.idx.b32 %r9|%p1, %r9, 0, 0x1f, -1;\n"
		"	atom.global.cas.b64 %rd4, [%rd1], %rd4, %rd5;\n"
		"	red.shared.add.u32 [dyn], 1;\n"
		"	atom.add.f32 %f2, [%rd1], %f1;\n"
		"	membar.gl;\n"
		"	fence.acq_rel.gpu;\n"
		"$L1:\n"
		"	@%p1 exit;\n"
		"	bar.warp.sync -1;\n"
		"	barrier.sync.aligned 0;\n"
		"	ld.global.nc.L1::no_allocate.f32 %f1, [%rd1];\n"
		"	ret;\n"
		"}\n";

	CHECK(compile_str(src, &im) == 0, "%s", im.err);
	CHECK(check_image(&im) == 0, "image");
	{
		const struct vgpu_program_entry *e = entry(&im, "k");

		CHECK(e->local_per_thread == 16, "local %u", e->local_per_thread);
		CHECK(e->max_threads_per_tb == 64, "reqntid");
		CHECK(e->param_size == 8, "params");
		CHECK(e->shared_static == 0, "shared %u", e->shared_static);
		CHECK(e->flags & VGPU_ENTRY_HAS_ATOMICS, "atomics");
		CHECK(hdr(&im)->data_size == 16 && hdr(&im)->data_init_size == 16, "data %u/%u",
		      hdr(&im)->data_size, hdr(&im)->data_init_size);
	}
	free(im.p);
	return 0;
}

/* Truncated, mutated and random input fails cleanly, never crashes. */
static int t_garbage(void)
{
	static const char *const junk[] = {
		"", "}", "{{{{", ".version", ".version 7.0\n.entry", "\x01\x02\x03",
		".version 7.0\n.visible .entry k(\n", ".version 7.0\n.entry k() { @ }",
		".version 7.0\n.entry k() { ld.global.v8.u32 {%r1}, [0]; }",
		".version 7.0\n.entry k() { .reg .b32 %r<99999999999>; }",
		".version 7.0\n.entry k() { .reg .b32 %r<2>; mov.u32 %r1, 0f; }",
		".version 7.0\n.entry k() { .reg .b32 %r<2>; mov.u32 %r1, 99999999999999999999999; }",
		".version 7.0\n.global .b8 x[4] = {1,2,3,4,5};",
		".version 7.0\n/* open comment",
		".version 7.0\n.entry k() { $L: $L: ret; }",
	};
	size_t len;
	char *src = read_src("userspace/workloads/reduce.ptx", &len), *mut;
	struct img im;
	uint64_t seed = 12345;

	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		compile(junk[i], strlen(junk[i]), &im);
		CHECK(im.ret == -EINVAL, "junk %zu: %d", i, im.ret);
		CHECK(!strncmp(im.err, "ptx:", 4), "junk %zu: '%s'", i, im.err);
	}
	CHECK(src, "read");
	for (size_t cut = 0; cut < len; cut += 97) {
		compile(src, cut, &im);
		CHECK(im.ret == -EINVAL && !strncmp(im.err, "ptx:", 4), "cut at %zu: %d '%s'", cut,
		      im.ret, im.err);
	}
	mut = malloc(len);
	for (int round = 0; round < 400; round++) {
		memcpy(mut, src, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			mut[(seed >> 33) % len] = (char)(seed >> 20);
		}
		compile(mut, len, &im);
		CHECK(im.ret == 0 || (im.ret == -EINVAL && !strncmp(im.err, "ptx:", 4)),
		      "mutation %d: %d '%s'", round, im.ret, im.err);
		if (!im.ret) {
			CHECK(check_image(&im) == 0, "mutation %d image", round);
			free(im.p);
		}
	}
	free(mut);
	free(src);
	/* a NULL error buffer is allowed */
	CHECK(vgpu_compile_ptx("x", 1, &im.p, &im.size, NULL, 0) == -EINVAL, "no err buffer");
	/* disasm of a non-image */
	{
		char buf[64] = { 0 };
		FILE *f = fopen("/dev/null", "w");

		CHECK(f, "/dev/null");
		CHECK(vgpu_disasm(buf, sizeof(buf), f) == -EINVAL, "disasm garbage");
		fclose(f);
	}
	return 0;
}


/* ---- analyses (the image's analysis section) ---- */

static const struct vgpu_program_analysis *analysis(const struct img *im, const char *name)
{
	const struct vgpu_program_header *h = hdr(im);
	const struct vgpu_program_entry *e = entry(im, name);
	size_t i;

	if (!e || h->analysis_size < h->num_entries * sizeof(struct vgpu_program_analysis))
		return NULL;
	i = (size_t)((const uint8_t *)e - ((const uint8_t *)im->p + h->entries_offset)) /
	    h->entry_size;
	return (const void *)((const uint8_t *)im->p + h->analysis_offset +
			      i * sizeof(struct vgpu_program_analysis));
}

static const uint64_t *code_of(const struct img *im, const char *name, uint32_t *n)
{
	const struct vgpu_program_entry *e = entry(im, name);

	*n = (e->code_end - e->code_start) / 8;
	return (const uint64_t *)((const uint8_t *)im->p + hdr(im)->code_offset + e->code_start);
}

/* Word indices of the instructions marked as boundaries; their count. */
static int boundaries(const struct img *im, const char *name, uint32_t *at, int max)
{
	uint32_t n;
	const uint64_t *c = code_of(im, name, &n);
	int k = 0;

	for (uint32_t i = 0; i < n; i++) {
		if ((c[i] & VGPU_I_BOUNDARY) && k < max)
			at[k++] = i;
		i += !!(c[i] & VGPU_I_X);
	}
	return k;
}

#define KPRO(name) \
	".visible .entry " name "(.param .u64 a, .param .u64 b)\n{\n" \
	"\t.reg .pred %p<4>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<10>;\n" \
	"\tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [b];\n" \
	"\tcvta.to.global.u64 %rd1, %rd1;\n\tcvta.to.global.u64 %rd2, %rd2;\n" \
	"\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n" \
	"\tadd.s64 %rd4, %rd1, %rd3;\n\tadd.s64 %rd5, %rd2, %rd3;\n"

static int t_idempotence(void)
{
	static const char src[] = HEAD
		/* reads a, writes b: a and b may alias, so the store is a boundary */
		KPRO("copy") "\tld.global.u32 %r2, [%rd4];\n\tst.global.u32 [%rd5], %r2;\n"
		"\tret;\n}\n"
		/* reads a through .nc (read-only for the whole kernel): idempotent */
		KPRO("copy_nc") "\tld.global.nc.u32 %r2, [%rd4];\n\tst.global.u32 [%rd5], %r2;\n"
		"\tret;\n}\n"
		/* a global atomic in the middle: the boundary */
		KPRO("atom") "\tld.global.nc.u32 %r2, [%rd4];\n"
		"\tatom.global.add.u32 %r3, [%rd5], %r2;\n"
		"\tadd.s32 %r4, %r3, 1;\n\tst.global.u32 [%rd5+4], %r4;\n\tret;\n}\n"
		/* overwrites what it reads: the store is the boundary */
		KPRO("inplace") "\tld.global.u32 %r2, [%rd4];\n\tadd.s32 %r2, %r2, 1;\n"
		"\tst.global.u32 [%rd4], %r2;\n\tret;\n}\n"
		/* shared atomics only: no boundary */
		KPRO("shatom") "\t.shared .u32 cnt;\n\tld.global.nc.u32 %r2, [%rd4];\n"
		"\tatom.shared.add.u32 %r3, [cnt], %r2;\n\tst.global.u32 [%rd5], %r3;\n\tret;\n}\n"
		/* store through a pointer loaded from memory: may alias a */
		KPRO("indirect") "\tld.global.u32 %r2, [%rd4];\n\tld.global.u64 %rd6, [%rd5];\n"
		"\tst.global.u32 [%rd6], %r2;\n\tret;\n}\n"
		/* a boundary inside a loop: everything from the loop on is tainted */
		KPRO("loop") "\tmov.u32 %r5, 0;\n\tld.global.u32 %r2, [%rd4];\n"
		"$L:\n\tatom.global.add.u32 %r3, [%rd5], 1;\n\tadd.s32 %r5, %r5, 1;\n"
		"\tsetp.lt.u32 %p1, %r5, %r2;\n\t@%p1 bra $L;\n\tret;\n}\n";
	struct img im;
	const struct vgpu_program_analysis *a;
	uint32_t at[4], n;
	const uint64_t *c;

	CHECK(compile_str(src, &im) == 0, "%s", im.err);
	CHECK(check_image(&im) == 0, "image");

	a = analysis(&im, "copy");
	CHECK(a && a->size == sizeof(*a) && a->num_boundaries == 1 &&
	      boundaries(&im, "copy", at, 4) == 1 && a->first_boundary == at[0],
	      "copy: %u boundaries", a->num_boundaries);
	c = code_of(&im, "copy", &n);
	CHECK(VGPU_I_OP(c[at[0]]) == VGPU_OP_ST, "copy: the mark is on the store");
	CHECK(entry(&im, "copy")->flags == VGPU_ENTRY_HAS_GLOBAL_RMW, "copy flags");

	a = analysis(&im, "copy_nc");
	CHECK(a && a->num_boundaries == 0 && a->first_boundary == VGPU_NO_BOUNDARY &&
	      a->idem_insts == a->insts && a->insts,
	      "copy_nc: %u boundaries, %u/%u", a->num_boundaries, a->idem_insts, a->insts);
	CHECK(boundaries(&im, "copy_nc", at, 4) == 0, "copy_nc: no marks");
	CHECK(entry(&im, "copy_nc")->flags == 0, "copy_nc flags");

	a = analysis(&im, "atom");
	CHECK(a->num_boundaries == 1 && boundaries(&im, "atom", at, 4) == 1 &&
	      a->first_boundary == at[0], "atom: %u boundaries", a->num_boundaries);
	c = code_of(&im, "atom", &n);
	CHECK(VGPU_I_OP(c[at[0]]) == VGPU_OP_ATOM, "atom: the mark is on the atomic");
	/* the atomic, the add and the store after it, and the exit are not idempotent */
	CHECK(a->insts - a->idem_insts == 4, "atom: %u/%u idempotent", a->idem_insts, a->insts);
	CHECK(entry(&im, "atom")->flags & VGPU_ENTRY_HAS_ATOMICS, "atom flags");

	a = analysis(&im, "inplace");
	CHECK(a->num_boundaries == 1 && boundaries(&im, "inplace", at, 4) == 1, "inplace");
	c = code_of(&im, "inplace", &n);
	CHECK(VGPU_I_OP(c[at[0]]) == VGPU_OP_ST && a->insts - a->idem_insts == 2,
	      "inplace: the store, %u/%u", a->idem_insts, a->insts);

	a = analysis(&im, "shatom");
	CHECK(a->num_boundaries == 0 && a->idem_insts == a->insts, "shared atomics");
	CHECK(entry(&im, "shatom")->flags & VGPU_ENTRY_HAS_ATOMICS, "shatom flags");

	a = analysis(&im, "indirect");
	CHECK(a->num_boundaries == 1, "indirect store: %u boundaries", a->num_boundaries);

	a = analysis(&im, "loop");
	CHECK(a->num_boundaries == 1 && a->insts - a->idem_insts == 5,
	      "loop: %u/%u idempotent", a->idem_insts, a->insts);
	free(im.p);
	return 0;
}

/* Conditional branches in code order: word index and reconvergence word. */
static int branches(const struct img *im, const char *name, uint32_t *pc, uint32_t *rpc,
		    uint32_t *tgt, int max)
{
	uint32_t n, base = entry(im, name)->code_start / 8;
	const uint64_t *c = code_of(im, name, &n);
	int k = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (VGPU_I_OP(c[i]) == VGPU_OP_BRA && (c[i] & VGPU_I_GE) && k < max) {
			pc[k] = i;
			tgt[k] = (uint32_t)c[i + 1] - base;
			rpc[k] = (uint32_t)(c[i + 1] >> 32) == VGPU_NO_RECONV ? VGPU_NO_RECONV :
				 (uint32_t)(c[i + 1] >> 32) - base;
			k++;
		}
		i += !!(c[i] & VGPU_I_X);
	}
	return k;
}

/* Word index of the first instruction with opcode @op at or after @from. */
static uint32_t find_op(const struct img *im, const char *name, unsigned int op, uint32_t from)
{
	uint32_t n;
	const uint64_t *c = code_of(im, name, &n);

	for (uint32_t i = 0; i < n; i++) {
		if (i >= from && VGPU_I_OP(c[i]) == op)
			return i;
		i += !!(c[i] & VGPU_I_X);
	}
	return ~0u;
}

/*
 * Reconvergence on nested divergent loops: an outer loop with a per-thread
 * trip count, an inner loop with another, an if/else inside the inner one
 * and a break out of the outer one. Each branch must reconverge at the
 * immediate post-dominator: the if at the inner latch (xor), the inner
 * loop's exit at the outer latch (not), the outer loop and the break after
 * the outer loop (popc).
 */
static int t_reconvergence(void)
{
	static const char src[] = HEAD
		KPRO("nest")
		"\tand.b32 %r2, %r1, 3;\n\tshr.u32 %r3, %r1, 2;\n\tand.b32 %r3, %r3, 3;\n"
		"\tmov.u32 %r4, 0;\n\tmov.u32 %r6, 0;\n"
		"$OUTER:\n"
		"\tmov.u32 %r5, 0;\n"
		"$INNER:\n"
		"\tand.b32 %r7, %r5, 1;\n\tsetp.eq.u32 %p1, %r7, 0;\n"
		"\t@%p1 bra $EVEN;\n"				/* branch 0: if */
		"\tadd.s32 %r6, %r6, 3;\n\tbra.uni $LATCH;\n"
		"$EVEN:\n"
		"\tmul.lo.s32 %r6, %r6, 5;\n"
		"$LATCH:\n"
		"\txor.b32 %r6, %r6, %r5;\n\tadd.s32 %r5, %r5, 1;\n"
		"\tsetp.lt.u32 %p2, %r5, %r3;\n\t@%p2 bra $INNER;\n"	/* branch 1: inner */
		"\tnot.b32 %r8, %r6;\n\tsetp.gt.u32 %p3, %r8, 1000000;\n"
		"\t@%p3 bra $DONE;\n"				/* branch 2: break */
		"\tadd.s32 %r4, %r4, 1;\n\tsetp.lt.u32 %p1, %r4, %r2;\n"
		"\t@%p1 bra $OUTER;\n"				/* branch 3: outer */
		"$DONE:\n"
		"\tpopc.b32 %r9, %r6;\n\tst.global.u32 [%rd5], %r9;\n\tret;\n}\n";
	struct img im;
	uint32_t pc[8], rpc[8], tgt[8], xor_at, not_at, popc_at;
	const struct vgpu_program_analysis *a;
	int nb;

	CHECK(compile_str(src, &im) == 0, "%s", im.err);
	nb = branches(&im, "nest", pc, rpc, tgt, 8);
	CHECK(nb == 4, "%d conditional branches", nb);
	xor_at = find_op(&im, "nest", VGPU_OP_XOR, 0);
	not_at = find_op(&im, "nest", VGPU_OP_NOT, 0);
	popc_at = find_op(&im, "nest", VGPU_OP_POPC, 0);
	CHECK(rpc[0] == xor_at, "if: reconverges at %u, expected the latch %u", rpc[0], xor_at);
	CHECK(rpc[1] == not_at && tgt[1] < pc[1], "inner loop: reconverges at %u, expected %u",
	      rpc[1], not_at);
	CHECK(rpc[2] == popc_at, "break: reconverges at %u, expected %u", rpc[2], popc_at);
	CHECK(rpc[3] == popc_at && tgt[3] < pc[3], "outer loop: reconverges at %u, expected %u",
	      rpc[3], popc_at);
	a = analysis(&im, "nest");
	CHECK(a->num_branches == 4 && a->num_reconv == 4, "analysis: %u branches, %u reconverge",
	      a->num_branches, a->num_reconv);
	free(im.p);
	return 0;
}

/*
 * ELF program points: a loop whose first instruction is a global load
 * gives two points, the load (score 0) and the loop branch (score 1: one
 * instruction to the load when taken; the fall-through reaches no load).
 * Straight-line code with 40 loads is merged down to 32 slots.
 */
static int t_elf(void)
{
	static const char loop_src[] = HEAD
		KPRO("loop")
		"\tld.shared.u32 %r9, [0];\n"		/* shared: not a point */
		"\tmov.u32 %r2, 0;\n\tmov.u32 %r3, 16;\n"
		"$L:\n"
		"\tld.global.u32 %r4, [%rd4];\n\tadd.s32 %r2, %r2, %r4;\n"
		"\tadd.s64 %rd4, %rd4, 4;\n\tadd.s32 %r3, %r3, -1;\n"
		"\tsetp.ne.s32 %p1, %r3, 0;\n\t@%p1 bra $L;\n"
		"\tadd.s32 %r2, %r2, %r9;\n\tst.global.u32 [%rd5], %r2;\n\tret;\n}\n";
	char *src = malloc(20000), *p = src;
	struct img im;
	const struct vgpu_program_analysis *a;
	uint32_t ld_at, br_at[2], rpc[2], tgt[2], n;
	const uint64_t *c;
	bool merged = false;

	CHECK(compile_str(loop_src, &im) == 0, "%s", im.err);
	a = analysis(&im, "loop");
	CHECK(branches(&im, "loop", br_at, rpc, tgt, 2) == 1, "one branch");
	c = code_of(&im, "loop", &n);
	ld_at = tgt[0];
	CHECK(VGPU_I_OP(c[ld_at]) == VGPU_OP_LD, "the loop starts with the load");
	CHECK(a->num_elf_points == 2 && a->elf_points_before_merge == 2,
	      "%u points", a->num_elf_points);
	CHECK(a->elf[0].pc == ld_at && a->elf[0].flags == 0 && a->elf[0].score == 0,
	      "load point pc %u flags %u score %u", a->elf[0].pc, a->elf[0].flags,
	      a->elf[0].score);
	CHECK(a->elf[1].pc == br_at[0] && a->elf[1].flags == VGPU_ELF_BRANCH &&
	      a->elf[1].score == 1, "branch point pc %u flags %u score %u", a->elf[1].pc,
	      a->elf[1].flags, a->elf[1].score);
	free(im.p);

	CHECK(src, "malloc");
	p += sprintf(p, "%s", HEAD KPRO("many"));
	for (int i = 0; i < 40; i++)
		p += sprintf(p, "\tld.global.u32 %%r2, [%%rd4+%d];\n\tadd.s32 %%r3, %%r3, %%r2;\n"
			     "%s", i * 4, i % 3 ? "" : "\tadd.s32 %r3, %r3, 7;\n");
	p += sprintf(p, "\tst.global.u32 [%%rd5], %%r3;\n\tret;\n}\n");
	CHECK(compile(src, strlen(src), &im) == 0, "%s", im.err);
	free(src);
	a = analysis(&im, "many");
	CHECK(a->elf_points_before_merge == 40 && a->num_elf_points == VGPU_ELF_SLOTS,
	      "%u points, %u before merging", a->num_elf_points, a->elf_points_before_merge);
	for (uint32_t i = 0; i < a->num_elf_points; i++) {
		CHECK(!i || a->elf[i].pc > a->elf[i - 1].pc, "ordered by pc");
		CHECK(a->elf[i].flags == 0, "loads only");
		merged |= a->elf[i].score > 0;
	}
	CHECK(merged, "a merged point carries the distance of the one it absorbed");
	free(im.p);
	return 0;
}


/*
 * Registers and shared memory against ptxas -v -arch=sm_75, when the CUDA
 * toolkit is installed (skipped otherwise): both are printed; shared memory
 * must agree exactly, registers differ by design (Documentation/isa.rst).
 */
static int ptxas_compare(const char *ptxas, const char *rel)
{
	static const char *const dirs[] = { "", "../", "../../", "../../../" };
	char path[1024], cmd[2200], line[512], name[256] = "";
	struct img im;
	size_t len;
	char *src = read_src(rel, &len);
	FILE *f = NULL;
	int seen = 0;

	CHECK(src, "read %s", rel);
	CHECK(compile(src, len, &im) == 0, "%s: %s", rel, im.err);
	free(src);
	for (int i = 0; i < 4 && !f; i++) {
		snprintf(path, sizeof(path), "%s%s", dirs[i], rel);
		f = fopen(path, "rb");
	}
	CHECK(f, "path of %s", rel);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -v -arch=sm_75 %s -o /dev/null 2>&1", ptxas, path);
	f = popen(cmd, "r");
	CHECK(f, "popen");
	while (fgets(line, sizeof(line), f)) {
		char *q = strstr(line, "Compiling entry function '");
		unsigned int regs = 0, smem = 0;
		const struct vgpu_program_entry *e;

		if (q) {
			q += strlen("Compiling entry function '");
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(q, "'"), q);
			continue;
		}
		q = strstr(line, "Used ");
		if (!q || !name[0] || sscanf(q, "Used %u registers", &regs) != 1)
			continue;
		q = strstr(line, " bytes smem");
		if (q) {
			while (q > line && q[-1] >= '0' && q[-1] <= '9')
				q--;
			smem = (unsigned int)strtoul(q, NULL, 10);
		}
		e = entry(&im, name);
		if (!e)
			continue;
		printf("#   %-22.22s registers: vgpu %3u ptxas %3u   shared: vgpu %5u ptxas %5u\n",
		       name, e->regs_per_thread, regs, e->shared_static, smem);
		if (e->shared_static != smem || !regs || !e->regs_per_thread) {
			pclose(f);
			free(im.p);
			CHECK(0, "%s: shared memory %u vs ptxas %u", name, e->shared_static, smem);
		}
		seen++;
		name[0] = 0;
	}
	pclose(f);
	CHECK(seen == (int)hdr(&im)->num_entries, "%s: ptxas reported %d of %u entries", rel,
	      seen, hdr(&im)->num_entries);
	free(im.p);
	return 0;
}

/* A 2D-grid kernel with an early return: what the transformation rewrites. */
static const char vtb_src[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry v(.param .u64 out, .param .u32 n)\n{\n"
	"	.reg .pred %p<2>;\n	.reg .b32 %r<8>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r1, [n];\n"
	"	mov.u32 %r2, %ctaid.x;\n	mov.u32 %r3, %ctaid.y;\n	mov.u32 %r4, %tid.x;\n"
	"	mad.lo.s32 %r5, %r3, 1000, %r2;\n	mad.lo.s32 %r5, %r5, 64, %r4;\n"
	"	setp.ge.u32 %p1, %r5, %r1;\n	@%p1 ret;\n"
	"	mul.wide.u32 %rd2, %r5, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r5;\n	ret;\n}\n";

/* @body wrapped into an entry with a pointer parameter, compiled with @opts. */
static int vtb_compile_opts(const char *body, unsigned int opts, struct img *im)
{
	char src[2048];

	snprintf(src, sizeof(src),
		 ".version 7.0\n.target sm_75\n.address_size 64\n"
		 ".visible .entry k(.param .u64 p)\n{\n"
		 "	.reg .b32 %%r<4>;\n	.reg .b64 %%rd<2>;\n"
		 "	ld.param.u64 %%rd1, [p];\n%s	ret;\n}\n", body);
	im->ret = vgpu_compile_ptx_opts(src, strlen(src), opts, &im->p, &im->size, im->err,
					sizeof(im->err));
	return im->ret;
}

/* ...virtualised (SameLane). */
static int vtb_compile(const char *body, struct img *im)
{
	return vtb_compile_opts(body, VGPU_COMPILE_VIRTUAL_TB, im);
}

/*
 * --virtual-tb: the entry is flagged; one NEXTTB (an idempotence boundary)
 * heads the loop; %ctaid is no longer read; the one EXIT is the guarded one
 * after NEXTTB and both returns branch back to it. Kernels whose blocks may
 * synchronise with each other are refused, naming the line.
 */
static int t_virtual_tb(void)
{
	const struct vgpu_program_header *h;
	const struct vgpu_program_entry *e;
	const uint64_t *code;
	uint32_t nexttb = 0, at = 0, exits = 0, ctaid = 0, back = 0;
	struct img im = { 0 }, plain = { 0 };
	int r = -1;

	MCHECK(compile_str(vtb_src, &plain) == 0, "plain: %s", plain.err);
	MCHECK(!(entry(&plain, "v")->flags & VGPU_ENTRY_VIRTUAL_TB), "plain entry flagged");
	im.ret = vgpu_compile_ptx_opts(vtb_src, strlen(vtb_src), VGPU_COMPILE_VIRTUAL_TB, &im.p,
				       &im.size, im.err, sizeof(im.err));
	MCHECK(im.ret == 0, "virtual: %s", im.err);
	MCHECK(check_image(&im) == 0, "image");
	h = hdr(&im);
	e = entry(&im, "v");
	MCHECK(e->flags & VGPU_ENTRY_VIRTUAL_TB, "flag");
	code = (const uint64_t *)((const uint8_t *)im.p + h->code_offset);
	for (uint32_t k = e->code_start / 8; k < e->code_end / 8; k++) {
		uint64_t w = code[k];

		if (VGPU_I_OP(w) == VGPU_OP_NEXTTB) {
			nexttb++;
			at = k;
			MCHECK(w & VGPU_I_BOUNDARY, "NEXTTB is not a boundary");
		}
		exits += VGPU_I_OP(w) == VGPU_OP_EXIT;
		MCHECK(VGPU_I_OP(w) != VGPU_OP_EXIT || (w & VGPU_I_GE), "unguarded EXIT at %u", k);
		ctaid += VGPU_I_OP(w) == VGPU_OP_S2R && VGPU_I_MOD(w) >= VGPU_SR_CTAID_X &&
			 VGPU_I_MOD(w) <= VGPU_SR_CTAID_Z;
		if (VGPU_I_OP(w) == VGPU_OP_BRA && (uint32_t)code[k + 1] == at && nexttb)
			back++;
		if (w & VGPU_I_X)
			k++;
	}
	MCHECK(nexttb == 1 && exits == 1 && ctaid == 0 && back == 2,
	       "NEXTTB %u, EXIT %u, %%ctaid reads %u, branches back %u", nexttb, exits, ctaid,
	       back);
	free(im.p);
	im.p = NULL;

	MCHECK(vtb_compile("	atom.global.add.u32 %r1, [%rd1], 1;\n", &im) == -EINVAL &&
	       strstr(im.err, "ptx:9: virtual thread blocks:") &&
	       strstr(im.err, "global atomic"), "atom result: %d '%s'", im.ret, im.err);
	MCHECK(vtb_compile("	membar.gl;\n", &im) == -EINVAL &&
	       strstr(im.err, "ptx:9: virtual thread blocks:") && strstr(im.err, "fence"),
	       "membar.gl: %d '%s'", im.ret, im.err);
	MCHECK(vtb_compile("	red.global.add.u32 [%rd1], 1;\n	membar.cta;\n", &im) == 0,
	       "red and membar.cta: %s", im.err);
	free(im.p);
	im.p = NULL;
	MCHECK(vgpu_compile_ptx_opts(vtb_src, strlen(vtb_src), 0x80, &im.p, &im.size, im.err,
				     sizeof(im.err)) == -EINVAL &&
	       strstr(im.err, "unknown compile options"), "unknown option: '%s'", im.err);
	r = 0;
out:
	free(im.p);
	free(plain.p);
	return r;
}

/*
 * --virtual-tb=lowest|slowest (§4.2.2): the entry carries its mode; after
 * the NEXTTB that takes the block (the boundary) one NEXTTB.TID, not a
 * boundary, gives the thread index and %tid is no longer read (%ntid is);
 * SameLane has no NEXTTB.TID and reads %tid. Mode names other than same,
 * lowest and slowest, both modes, or a mode without virtual thread blocks
 * are refused; so is a 64-bit read of %tid, which the loop computes in 32.
 */
static int t_virtual_tb_lanes(void)
{
	static const char *const names[3] = { "same", "lowest", "slowest" };
	static const uint32_t flag[3] = { 0, VGPU_ENTRY_VTB_LOWEST, VGPU_ENTRY_VTB_SLOWEST };
	struct img im = { 0 };
	int r = -1;

	for (int m = 0; m < 3; m++) {
		const struct vgpu_program_entry *e;
		const uint64_t *code;
		uint32_t tb = 0, tid = 0, tid_reads = 0, ntid = 0, order = 0;
		unsigned int opts = VGPU_COMPILE_VTB_SLOWEST;

		MCHECK(vgpu_compile_vtb_mode(names[m], &opts) == 0, "mode '%s'", names[m]);
		MCHECK(opts == (VGPU_COMPILE_VIRTUAL_TB |
				(m == 1 ? VGPU_COMPILE_VTB_LOWEST : m == 2 ? VGPU_COMPILE_VTB_SLOWEST :
				 0)), "mode '%s': options 0x%x", names[m], opts);
		im.ret = vgpu_compile_ptx_opts(vtb_src, strlen(vtb_src), opts, &im.p, &im.size,
					       im.err, sizeof(im.err));
		MCHECK(im.ret == 0, "%s: %s", names[m], im.err);
		MCHECK(check_image(&im) == 0, "%s: image", names[m]);
		e = entry(&im, "v");
		MCHECK((e->flags & (VGPU_ENTRY_VIRTUAL_TB | VGPU_ENTRY_VTB_LOWEST |
				    VGPU_ENTRY_VTB_SLOWEST)) == (VGPU_ENTRY_VIRTUAL_TB | flag[m]),
		       "%s: flags 0x%x", names[m], e->flags);
		code = (const uint64_t *)((const uint8_t *)im.p + hdr(&im)->code_offset);
		for (uint32_t k = e->code_start / 8; k < e->code_end / 8; k++) {
			uint64_t w = code[k];

			if (VGPU_I_OP(w) == VGPU_OP_NEXTTB && VGPU_I_MOD(w) == VGPU_NEXTTB_TB) {
				tb++;
				MCHECK(w & VGPU_I_BOUNDARY, "%s: NEXTTB not a boundary", names[m]);
			}
			if (VGPU_I_OP(w) == VGPU_OP_NEXTTB && VGPU_I_MOD(w) == VGPU_NEXTTB_TID) {
				tid++;
				order += tb == 1;
				MCHECK(!(w & VGPU_I_BOUNDARY), "%s: NEXTTB.TID a boundary", names[m]);
			}
			tid_reads += VGPU_I_OP(w) == VGPU_OP_S2R && VGPU_I_MOD(w) <= VGPU_SR_TID_Z;
			ntid += VGPU_I_OP(w) == VGPU_OP_S2R && VGPU_I_MOD(w) == VGPU_SR_NTID_X;
			if (w & VGPU_I_X)
				k++;
		}
		if (m == 0)
			MCHECK(tb == 1 && tid == 0 && tid_reads == 1,
			       "same: NEXTTB %u, NEXTTB.TID %u, %%tid reads %u", tb, tid, tid_reads);
		else
			MCHECK(tb == 1 && tid == 1 && order == 1 && tid_reads == 0 && ntid == 1,
			       "%s: NEXTTB %u, NEXTTB.TID %u (after it %u), %%tid reads %u, %%ntid %u",
			       names[m], tb, tid, order, tid_reads, ntid);
		free(im.p);
		im.p = NULL;
	}
	{
		unsigned int opts = 0x10;

		MCHECK(vgpu_compile_vtb_mode("fastest", &opts) == -EINVAL && opts == 0x10,
		       "mode 'fastest' accepted");
		MCHECK(vgpu_compile_vtb_mode("", &opts) == -EINVAL && opts == 0x10,
		       "mode '' accepted");
		MCHECK(vgpu_compile_vtb_mode(NULL, &opts) == 0 &&
		       opts == (0x10 | VGPU_COMPILE_VIRTUAL_TB), "no mode: 0x%x", opts);
	}
	MCHECK(vtb_compile_opts("", VGPU_COMPILE_VIRTUAL_TB | VGPU_COMPILE_VTB_LOWEST |
				VGPU_COMPILE_VTB_SLOWEST, &im) == -EINVAL, "both modes");
	MCHECK(vtb_compile_opts("", VGPU_COMPILE_VTB_LOWEST, &im) == -EINVAL,
	       "lowest without virtual thread blocks");
	MCHECK(vtb_compile_opts("	mov.u64 %rd1, %tid.x;\n",
				VGPU_COMPILE_VIRTUAL_TB | VGPU_COMPILE_VTB_LOWEST, &im) == -EINVAL &&
	       strstr(im.err, "ptx:9: virtual thread blocks: 64-bit read of %tid"),
	       "64-bit %%tid: %d '%s'", im.ret, im.err);
	r = 0;
out:
	free(im.p);
	return r;
}

static int t_ptxas(void)
{
	static const char *const files[] = {
		"userspace/workloads/saxpy.ptx", "userspace/workloads/reduce.ptx",
		"userspace/workloads/histogram.ptx",
	};
	const char *ptxas = getenv("PTXAS") ? getenv("PTXAS") : "/usr/local/cuda/bin/ptxas";

	if (access(ptxas, X_OK)) {
		printf("#   %s not found: comparison skipped\n", ptxas);
		return 0;
	}
	for (int i = 0; i < 3; i++)
		CHECK(ptxas_compare(ptxas, files[i]) == 0, "%s", files[i]);
	return 0;
}

int main(void)
{
	report("workload PTX compiles with the right entry metadata", t_workloads());
	report("params, shared layout, maxntid, registers", t_metadata());
	report("unsupported/invalid PTX names the line", t_errors());
	report("register and predicate pressure: spills to local memory and registers only when needed", t_pressure());
	report("assorted nvcc constructs", t_constructs());
	report("garbage, truncated and mutated input fails cleanly", t_garbage());
	report("idempotence boundary: atomics, overwrites, aliasing; idempotent fraction",
	       t_idempotence());
	report("reconvergence points on nested divergent loops", t_reconvergence());
	report("ELF program points: a loop with loads; merging to 32 slots", t_elf());
	report("virtual thread blocks: the rewritten entry; refusals name the line", t_virtual_tb());
	report("virtual thread blocks: lowest and slowest lanes read NEXTTB.TID; bad modes refused",
	       t_virtual_tb_lanes());
	report("registers and shared memory printed next to ptxas -v (when installed)", t_ptxas());
	return test_summary();
}
