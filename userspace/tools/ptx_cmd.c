// SPDX-License-Identifier: MIT
/*
 * ptx_cmd.c - "vgpu ptx FILE.ptx": compiles a PTX file the way a launch
 * does and prints, per entry, what ptxas -v users expect (registers, shared
 * memory, parameter and local bytes, instructions) and the compiler's
 * analyses from the image's analysis section (uapi/drm/vgpu_program.h):
 * the idempotence boundary, the idempotent fraction, the reconvergence
 * points of the divergent branches and ELF's program points. On a
 * compilation error it prints "FILE: ptx:LINE: message" and exits 1.
 * "vgpu ptx --gpu PRESET FILE" compiles for the preset's device (spilling
 * registers beyond its registers per thread, as a launch there does) and
 * exits 1 naming the entry, the resource, the need and the limit when the
 * program does not fit it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>
#include <vgpu/isa.h>

#include "compiler/vgpu_compile.h"
#include "ptx_cmd.h"
#include "vgpu_sim.h"

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = 0;
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

/* Reconvergence points of the entry's conditional branches. */
static void print_reconv(FILE *o, const uint64_t *code, const struct vgpu_program_entry *e)
{
	uint32_t first = e->code_start / 8, last = e->code_end / 8, n = 0;

	fprintf(o, "  reconvergence:");
	for (uint32_t k = first; k < last; k++) {
		uint64_t w = code[k];

		if (VGPU_I_OP(w) == VGPU_OP_BRA && (w & VGPU_I_GE) && (w & VGPU_I_X) &&
		    k + 1 < last) {
			uint64_t ext = code[k + 1];
			uint32_t rpc = (uint32_t)(ext >> 32);

			if (n++ < 16) {
				if (rpc == VGPU_NO_RECONV)
					fprintf(o, " %u->exit", k - first);
				else
					fprintf(o, " %u->%u", k - first, rpc - first);
			}
		}
		k += !!(w & VGPU_I_X);
	}
	if (n > 16)
		fprintf(o, " ... (%u branches)", n);
	fprintf(o, n ? "\n" : " none (no divergent branch)\n");
}

int vgpu_ptx_report(const void *image, size_t size, FILE *o)
{
	const uint8_t *img = image;
	const struct vgpu_program_header *h = image;
	const uint64_t *code;

	if (size < sizeof(*h) || h->magic != VGPU_PROGRAM_MAGIC || h->image_size > size ||
	    (uint64_t)h->entries_offset + (uint64_t)h->num_entries * h->entry_size > size ||
	    (uint64_t)h->code_offset + h->code_size > size)
		return -EINVAL;
	code = (const uint64_t *)(img + h->code_offset);
	for (uint32_t i = 0; i < h->num_entries; i++) {
		const struct vgpu_program_entry *e =
			(const void *)(img + h->entries_offset + (size_t)i * h->entry_size);
		const struct vgpu_program_analysis *a = NULL;
		char name[VGPU_PROGRAM_NAME_LEN + 1];

		if (e->code_end > h->code_size || e->code_start >= e->code_end)
			return -EINVAL;
		if (h->version_minor >= 1 && h->analysis_size >= (uint64_t)(i + 1) * sizeof(*a) &&
		    (uint64_t)h->analysis_offset + h->analysis_size <= size)
			a = (const void *)(img + h->analysis_offset + (size_t)i * sizeof(*a));
		memcpy(name, e->name, VGPU_PROGRAM_NAME_LEN);
		name[VGPU_PROGRAM_NAME_LEN] = 0;
		fprintf(o, "entry %s\n", name);
		fprintf(o, "  Used %u registers, %u bytes smem, %u bytes param, %u bytes lmem"
			" (local per thread)\n", e->regs_per_thread, e->shared_static,
			e->param_size, e->local_per_thread);
		if (e->max_threads_per_tb)
			fprintf(o, "  max threads per block %u\n", e->max_threads_per_tb);
		fprintf(o, "  code: %u words", (e->code_end - e->code_start) / 8);
		if (a)
			fprintf(o, ", %u instructions", a->insts);
		fprintf(o, "; flags:%s%s%s\n", e->flags & VGPU_ENTRY_HAS_ATOMICS ? " atomics" : "",
			e->flags & VGPU_ENTRY_HAS_GLOBAL_RMW ? " global-rmw" : "",
			e->flags ? "" : " none");
		if (!a) {
			fprintf(o, "  (no analysis section in this image)\n");
			continue;
		}
		if (a->first_boundary == VGPU_NO_BOUNDARY)
			fprintf(o, "  idempotence: no boundary, the whole kernel is idempotent"
				" (%u/%u instructions, 100.0%%)\n", a->idem_insts, a->insts);
		else
			fprintf(o, "  idempotence: %u boundary instruction(s), first at %u;"
				" idempotent %u/%u instructions (%.1f%%)\n", a->num_boundaries,
				a->first_boundary, a->idem_insts, a->insts,
				a->insts ? 100.0 * a->idem_insts / a->insts : 100.0);
		fprintf(o, "  branches: %u conditional, %u reconverge before exit\n",
			a->num_branches, a->num_reconv);
		print_reconv(o, code, e);
		fprintf(o, "  ELF program points: %u (%u before merging)", a->num_elf_points,
			a->elf_points_before_merge);
		for (uint32_t k = 0; k < a->num_elf_points && k < VGPU_ELF_SLOTS; k++)
			fprintf(o, "%s%s@%u:%u", k % 8 ? " " : "\n    ",
				a->elf[k].flags & VGPU_ELF_BRANCH ? "br" : "ld", a->elf[k].pc,
				a->elf[k].score);
		fprintf(o, "\n");
	}
	return 0;
}

/* The limits of preset @gpu's device description; -ENOENT for another name. */
static int preset_limits(const char *gpu, struct vgpu_compile_limits *lim)
{
	struct vgpu_sim_config cfg;

	if (vgpu_sim_preset(gpu, &cfg)) {
		fprintf(stderr, "vgpu: unknown GPU preset '%s'; presets:", gpu);
		for (const char *const *n = vgpu_sim_preset_names(); *n; n++)
			fprintf(stderr, " %s", *n);
		fprintf(stderr, "\n");
		return -ENOENT;
	}
	*lim = (struct vgpu_compile_limits){
		.regs_per_thread = cfg.desc.max_regs_per_thread,
		.shared_per_tb = cfg.desc.max_shared_per_tb,
		.local_per_thread = cfg.desc.max_local_per_thread,
		.threads_per_tb = cfg.desc.max_threads_per_tb,
		.param_bytes = DRM_VGPU_MAX_PARAM_BYTES,
	};
	return 0;
}

int vgpu_ptx_cmd(int argc, char **argv)
{
	struct vgpu_compile_limits lim;
	const char *gpu = NULL;
	char err[512] = "";
	void *image = NULL;
	size_t size = 0, len = 0;
	int ret, status = 0, nfiles = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--gpu") || !strncmp(argv[i], "--gpu=", 6)) {
			if (argv[i][5] == '=') {
				gpu = argv[i] + 6;
			} else if (i + 1 < argc) {
				gpu = argv[++i];
			} else {
				fprintf(stderr, "vgpu: --gpu needs a preset name\n");
				return 2;
			}
			argv[i] = NULL;
			if (argv[i - 1] && !strcmp(argv[i - 1], "--gpu"))
				argv[i - 1] = NULL;
		} else {
			nfiles++;
		}
	}
	if (!nfiles) {
		fprintf(stderr, "usage: vgpu ptx [--gpu PRESET] FILE.ptx ...\n");
		return 2;
	}
	if (gpu && preset_limits(gpu, &lim))
		return 2;
	for (int i = 1; i < argc; i++) {
		char *src;

		if (!argv[i])
			continue;
		src = read_file(argv[i], &len);
		if (!src) {
			fprintf(stderr, "vgpu: %s: %s\n", argv[i], strerror(errno ? errno : EIO));
			status = 1;
			continue;
		}
		ret = vgpu_compile_ptx_limits(src, len, 0, gpu ? &lim : NULL, &image, &size, err,
					      sizeof(err));
		free(src);
		if (ret) {
			fprintf(stderr, "%s: %s%s%s\n", argv[i], err[0] ? err : strerror(-ret),
				ret == -E2BIG ? ": does not fit " : "", ret == -E2BIG ? gpu : "");
			status = 1;
			continue;
		}
		if (nfiles > 1)
			printf("%s:\n", argv[i]);
		if (vgpu_ptx_report(image, size, stdout)) {
			fprintf(stderr, "%s: malformed image\n", argv[i]);
			status = 1;
		} else if (gpu) {
			printf("fits %s\n", gpu);
		}
		free(image);
	}
	return status;
}
