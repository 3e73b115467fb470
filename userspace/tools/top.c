// SPDX-License-Identifier: MIT
/*
 * top.c - "vgpu top": a live view of the vgpu device for a person watching a
 * run. Each frame shows the device cycle and how fast it advances, the
 * scheduler knobs, one row per SM (TB slots, threads, registers and shared
 * memory in use, and a bar of the slots with one letter per kernel), and the
 * KCB entries with their IPC.
 *
 * Everything comes from the driver's debugfs dumps ("kcb" and "smst", in the
 * format of drivers/gpu/drm/vgpu/vgpu_debugfs.c) and its sysfs knobs, read
 * afresh for every frame. The render node is opened once at the start, for
 * the per-SM totals (GET_PARAM) and the node's minor, and closed at once:
 * an open file keeps the device from starting afresh when it goes idle,
 * which would change the cycles of the runs being watched.
 *
 * The hidden option --root DIR reads DIR/kcb, DIR/smst, the knobs from
 * DIR/partition_policy, DIR/preempt_policy, DIR/smst_alloc, DIR/smk_quota_min
 * and DIR/kernel_sched, and the totals from DIR/info (saved "vgpu info"
 * output) instead of a device, so that the parsing can be tried on saved
 * dumps.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "top.h"
#include "vgpu.h"

#define DEBUGFS_DRI "/sys/kernel/debug/dri"
#define MOUNT_HINT "mount -t debugfs none /sys/kernel/debug"
#define MAX_TOKENS 160 /* an smst line: 18 fields and up to 64 kernels */
#define MAX_SLOTS 64 /* VGPU_SMST_MAX_SLOTS: slot_map is a u64 */
#define MAX_SM_KERNELS 64

/* The per-SM totals; 0 where unknown. */
struct top_params {
	uint64_t num_sms;
	uint64_t max_tbs;
	uint64_t max_threads;
	uint64_t regs;
	uint64_t shared;
	uint64_t clock_khz;
};

/* Columns of the kcb dump that top shows, found by name in its header line. */
enum kcb_col {
	KCB_ID, KCB_PID, KCB_STATE, KCB_PRIO, KCB_TBS, KCB_DONE, KCB_RUNNING,
	KCB_SMS, KCB_IPC_MILLI, KCB_AVG_TB_INSTS, KCB_NCOLS
};

static const char *const kcb_col_names[KCB_NCOLS] = {
	[KCB_ID] = "id", [KCB_PID] = "pid", [KCB_STATE] = "state",
	[KCB_PRIO] = "prio", [KCB_TBS] = "tbs", [KCB_DONE] = "done",
	[KCB_RUNNING] = "running", [KCB_SMS] = "sms",
	[KCB_IPC_MILLI] = "ipc_milli", [KCB_AVG_TB_INSTS] = "avg_tb_insts",
};

/* One KCB entry; -1 in @v where the dump lacks the column. */
struct top_job {
	int64_t v[KCB_NCOLS];
	char state[16];
};

struct top_sm {
	int64_t index, owner, free_slots, free_threads, free_regs, free_shared;
	uint32_t nr_kernels;
	uint32_t kernel_id[MAX_SM_KERNELS], kernel_tbs[MAX_SM_KERNELS];
	bool have_slots;
	uint32_t slot_job[MAX_SLOTS]; /* 0: free */
};

struct top_frame {
	bool have_cycle;
	uint64_t cycle;
	struct top_job *jobs;
	size_t nr_jobs, cap_jobs;
	bool attached;
	struct top_sm *sms;
	size_t nr_sms, cap_sms;
	struct timespec wall;
};

/* What the previous frame saw, for the rates between frames. */
struct top_prev {
	bool valid;
	uint64_t cycle;
	struct timespec wall;
	size_t nr;
	uint32_t *id;
	int64_t *insts;
};

struct top_source {
	char debugfs[512];	/* directory with kcb and smst */
	char sysfs[512];	/* directory with the knobs */
	struct top_params params;
};

static int top_usage(FILE *f, int status)
{
	fprintf(f, "usage: vgpu top [--interval MS] [--once] [--count N]\n");
	return status;
}

/* Reads a whole file (debugfs files report no size); -errno on failure. */
static int read_text(const char *path, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0 || !buf) {
		err = fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger) {
				err = -ENOMEM;
				goto fail;
			}
			buf = bigger;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return err;
}

static int split(char *line, char **tok, int max)
{
	int n = 0;

	for (char *p = strtok(line, " \t"); p && n < max; p = strtok(NULL, " \t"))
		tok[n++] = p;
	return n;
}

/* A decimal number, or -1 (the dumps print no negative values we use). */
static int64_t number(const char *s)
{
	char *end;
	long long v;

	if (!isdigit((unsigned char)*s) && *s != '-')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || *end ? -1 : v;
}

/* Calls @fn on each line of @text, cut into tokens; @text is consumed. */
static void for_each_line(char *text, void (*fn)(char **tok, int n, void *ctx), void *ctx)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok[MAX_TOKENS];
		int n = split(line, tok, MAX_TOKENS);

		if (n)
			fn(tok, n, ctx);
	}
}

struct kcb_parse {
	struct top_frame *f;
	int col[KCB_NCOLS];
	int ncols; /* 0 until the header line */
};

static void kcb_line(char **tok, int n, void *ctx)
{
	struct kcb_parse *p = ctx;
	struct top_frame *f = p->f;
	struct top_job *j;

	if (strcmp(tok[0], "cycle") == 0 && n >= 2) {
		int64_t c = number(tok[1]);

		f->have_cycle = c >= 0;
		f->cycle = (uint64_t)c;
		return;
	}
	if (strcmp(tok[0], "id") == 0) {
		p->ncols = n;
		for (int c = 0; c < KCB_NCOLS; c++) {
			p->col[c] = -1;
			for (int i = 0; i < n; i++)
				if (strcmp(tok[i], kcb_col_names[c]) == 0)
					p->col[c] = i;
		}
		return;
	}
	/* An entry has as many fields as the header names; anything else is skipped. */
	if (!p->ncols || n != p->ncols || number(tok[0]) < 0)
		return;
	if (f->nr_jobs == f->cap_jobs) {
		size_t cap = f->cap_jobs ? 2 * f->cap_jobs : 16;
		struct top_job *bigger = realloc(f->jobs, cap * sizeof(*bigger));

		if (!bigger)
			return;
		f->jobs = bigger;
		f->cap_jobs = cap;
	}
	j = &f->jobs[f->nr_jobs++];
	for (int c = 0; c < KCB_NCOLS; c++)
		j->v[c] = p->col[c] < 0 ? -1 : number(tok[p->col[c]]);
	snprintf(j->state, sizeof(j->state), "%s",
		 p->col[KCB_STATE] < 0 ? "?" : tok[p->col[KCB_STATE]]);
}

static void smst_line(char **tok, int n, void *ctx)
{
	struct top_frame *f = ctx;
	struct top_sm *sm;

	if (strcmp(tok[0], "sms") == 0) {
		f->attached = true;
		return;
	}
	if (strcmp(tok[0], "slot") == 0 && f->nr_sms) {
		int64_t slot = n >= 2 ? number(tok[1]) : -1, job = -1;

		for (int i = 2; i + 1 < n; i += 2)
			if (strcmp(tok[i], "job") == 0)
				job = number(tok[i + 1]);
		sm = &f->sms[f->nr_sms - 1];
		if (slot >= 0 && slot < MAX_SLOTS && job > 0) {
			sm->have_slots = true;
			sm->slot_job[slot] = (uint32_t)job;
		}
		return;
	}
	if (strcmp(tok[0], "sm") != 0 || n < 2 || number(tok[1]) < 0)
		return;
	f->attached = true;
	if (f->nr_sms == f->cap_sms) {
		size_t cap = f->cap_sms ? 2 * f->cap_sms : 32;
		struct top_sm *bigger = realloc(f->sms, cap * sizeof(*bigger));

		if (!bigger)
			return;
		f->sms = bigger;
		f->cap_sms = cap;
	}
	sm = &f->sms[f->nr_sms++];
	memset(sm, 0, sizeof(*sm));
	sm->index = number(tok[1]);
	sm->owner = sm->free_slots = sm->free_threads = sm->free_regs = sm->free_shared = -1;
	/* "key value" pairs, then "kernels" and its "id:tbs" list to the end. */
	for (int i = 2; i < n; i += 2) {
		if (strcmp(tok[i], "kernels") == 0) {
			for (i++; i < n && sm->nr_kernels < MAX_SM_KERNELS; i++) {
				unsigned int id, tbs;

				if (sscanf(tok[i], "%u:%u", &id, &tbs) == 2) {
					sm->kernel_id[sm->nr_kernels] = id;
					sm->kernel_tbs[sm->nr_kernels++] = tbs;
				}
			}
			break;
		}
		if (i + 1 >= n)
			break;
		if (strcmp(tok[i], "owner") == 0)
			sm->owner = number(tok[i + 1]);
		else if (strcmp(tok[i], "free_slots") == 0)
			sm->free_slots = number(tok[i + 1]);
		else if (strcmp(tok[i], "free_threads") == 0)
			sm->free_threads = number(tok[i + 1]);
		else if (strcmp(tok[i], "free_regs") == 0)
			sm->free_regs = number(tok[i + 1]);
		else if (strcmp(tok[i], "free_shared") == 0)
			sm->free_shared = number(tok[i + 1]);
	}
}

/* The active choice of a knob: "a [b] c" gives b, a plain "b" gives b. */
static void read_knob(const char *dir, const char *name, char *out, size_t len)
{
	char path[600], *text, *open_br, *close_br;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_text(path, &text))
		return;
	open_br = strchr(text, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (open_br && close_br) {
		*close_br = '\0';
		snprintf(out, len, "%s", open_br + 1);
	} else {
		text[strcspn(text, " \t\n")] = '\0';
		if (text[0])
			snprintf(out, len, "%s", text);
	}
	free(text);
}

static void frame_free(struct top_frame *f)
{
	free(f->jobs);
	free(f->sms);
	memset(f, 0, sizeof(*f));
}

static void report_read_error(const char *path, int err)
{
	fprintf(stderr, "vgpu top: %s: %s", path, strerror(-err));
	if (err == -EACCES || err == -EPERM)
		fprintf(stderr, " (debugfs is readable by root only)");
	else if (err == -ENOENT)
		fprintf(stderr, " (is debugfs mounted? %s)", MOUNT_HINT);
	fputc('\n', stderr);
}

static int frame_read(const struct top_source *src, struct top_frame *f)
{
	struct kcb_parse kp = { .f = f };
	char path[600], *text;
	int err;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/kcb", src->debugfs);
	err = read_text(path, &text);
	if (err) {
		report_read_error(path, err);
		return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &f->wall);
	for_each_line(text, kcb_line, &kp);
	free(text);
	snprintf(path, sizeof(path), "%s/smst", src->debugfs);
	err = read_text(path, &text);
	if (err) {
		report_read_error(path, err);
		frame_free(f);
		return err;
	}
	for_each_line(text, smst_line, f);
	free(text);
	return 0;
}

/* One letter per kernel, by job id, so a kernel keeps its letter between frames. */
static char job_letter(int64_t id)
{
	static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

	return id > 0 ? letters[(id - 1) % (int64_t)(sizeof(letters) - 1)] : '?';
}

/*
 * Warp instructions of an entry's finished TBs: the kcb dump has their
 * average per finished TB, so this is exact to within one per TB.
 */
static int64_t job_insts(const struct top_job *j)
{
	if (j->v[KCB_AVG_TB_INSTS] < 0 || j->v[KCB_DONE] < 0)
		return -1;
	return j->v[KCB_AVG_TB_INSTS] * j->v[KCB_DONE];
}

static double seconds_between(struct timespec a, struct timespec b)
{
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

/* Instructions of @j since the previous frame; an entry new since then started at 0. */
static int64_t insts_since(const struct top_prev *prev, const struct top_job *j)
{
	int64_t now = job_insts(j);

	if (now < 0)
		return -1;
	for (size_t i = 0; i < prev->nr; i++)
		if (prev->id[i] == (uint32_t)j->v[KCB_ID])
			return prev->insts[i] < 0 || prev->insts[i] > now ? -1 : now - prev->insts[i];
	return now;
}

static void fmt_rate(char *buf, size_t len, double per_s)
{
	if (per_s >= 1e6)
		snprintf(buf, len, "%.2f Mcycles/s", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(buf, len, "%.1f kcycles/s", per_s / 1e3);
	else
		snprintf(buf, len, "%.0f cycles/s", per_s);
}

/* "used/total", or "free N" where the total is unknown; "-" without data. */
static void fmt_use(char *buf, size_t len, int64_t free_now, uint64_t total, bool kib)
{
	if (free_now < 0)
		snprintf(buf, len, "-");
	else if (!total)
		snprintf(buf, len, "free %" PRId64, free_now);
	else if (kib && total % 1024 == 0)
		snprintf(buf, len, "%" PRIu64 "/%" PRIu64 "K",
			 (total - (uint64_t)free_now + 1023) / 1024, total / 1024);
	else
		snprintf(buf, len, "%" PRIu64 "/%" PRIu64, total - (uint64_t)free_now, total);
}

static void print_header(FILE *out, const struct top_source *src, const struct top_frame *f,
			 const struct top_prev *prev)
{
	char partition[32], preempt[32], alloc[32], quota[32], ksched[32];

	fprintf(out, "vgpu top - cycle ");
	if (f->have_cycle)
		fprintf(out, "%" PRIu64, f->cycle);
	else
		fprintf(out, "?");
	if (prev->valid && f->have_cycle && f->cycle >= prev->cycle) {
		uint64_t advanced = f->cycle - prev->cycle;
		double secs = seconds_between(prev->wall, f->wall);
		double per_s = secs > 0 ? (double)advanced / secs : 0;
		double clock_hz = (double)src->params.clock_khz * 1e3;
		int64_t insts = 0;
		char rate[48];

		fmt_rate(rate, sizeof(rate), per_s);
		fprintf(out, "  +%" PRIu64 " in %.2f s = %s", advanced, secs, rate);
		if (clock_hz > 0 && per_s > 0) {
			if (per_s < clock_hz)
				fprintf(out, " (1/%.0f of real time)", clock_hz / per_s);
			else
				fprintf(out, " (%.1fx real time)", per_s / clock_hz);
		}
		for (size_t i = 0; i < f->nr_jobs; i++) {
			int64_t d = insts_since(prev, &f->jobs[i]);

			insts += d > 0 ? d : 0;
		}
		if (advanced)
			fprintf(out, "  IPC %.2f", (double)insts / (double)advanced);
	}
	fputc('\n', out);
	read_knob(src->sysfs, "partition_policy", partition, sizeof(partition));
	read_knob(src->sysfs, "preempt_policy", preempt, sizeof(preempt));
	read_knob(src->sysfs, "smst_alloc", alloc, sizeof(alloc));
	read_knob(src->sysfs, "smk_quota_min", quota, sizeof(quota));
	read_knob(src->sysfs, "kernel_sched", ksched, sizeof(ksched));
	fprintf(out, "partition_policy %s  preempt_policy %s  smst_alloc %s  smk_quota_min %s"
		"  kernel_sched %s\n", partition, preempt, alloc, quota, ksched);
}

static void print_sms(FILE *out, const struct top_source *src, const struct top_frame *f)
{
	const struct top_params *pr = &src->params;
	int bar_width = pr->max_tbs && pr->max_tbs <= MAX_SLOTS ? (int)pr->max_tbs : 8;

	if (!f->attached) {
		fprintf(out, "\nSMs: no backend attached (is vgpud running?)\n");
		return;
	}
	fprintf(out, "\n%-4s %-7s %-11s %-13s %-9s %-3s %-*s %s\n", "SM", "TBS", "THREADS",
		"REGS", "SHARED", "OWN", bar_width, "SLOTS", "KERNELS (id:TBs)");
	for (size_t s = 0; s < f->nr_sms; s++) {
		const struct top_sm *sm = &f->sms[s];
		char tbs[48], threads[48], regs[48], shared[48], bar[MAX_SLOTS + 1];
		uint64_t used = 0, nslots = pr->max_tbs;
		size_t k, pos = 0;

		for (k = 0; k < sm->nr_kernels; k++)
			used += sm->kernel_tbs[k];
		/* Without GET_PARAM the slots are those in use plus the free ones. */
		if (!nslots && sm->free_slots >= 0)
			nslots = used + (uint64_t)sm->free_slots;
		if (nslots > MAX_SLOTS)
			nslots = MAX_SLOTS;
		memset(bar, '.', nslots);
		bar[nslots] = '\0';
		if (sm->have_slots) {
			/* Slot positions show where the 2-way allocator put blocks. */
			for (k = 0; k < nslots; k++)
				if (sm->slot_job[k])
					bar[k] = job_letter(sm->slot_job[k]);
		} else {
			for (k = 0; k < sm->nr_kernels; k++)
				for (uint32_t t = 0; t < sm->kernel_tbs[k] && pos < nslots; t++)
					bar[pos++] = job_letter(sm->kernel_id[k]);
		}
		fmt_use(tbs, sizeof(tbs), sm->free_slots, pr->max_tbs, false);
		fmt_use(threads, sizeof(threads), sm->free_threads, pr->max_threads, false);
		fmt_use(regs, sizeof(regs), sm->free_regs, pr->regs, false);
		fmt_use(shared, sizeof(shared), sm->free_shared, pr->shared, true);
		fprintf(out, "%-4" PRId64 " %-7s %-11s %-13s %-9s %-3c %-*s", sm->index, tbs,
			threads, regs, shared, sm->owner > 0 ? job_letter(sm->owner) : '-',
			bar_width, bar);
		for (k = 0; k < sm->nr_kernels; k++)
			fprintf(out, " %u:%u", sm->kernel_id[k], sm->kernel_tbs[k]);
		fputc('\n', out);
	}
}

static void print_cell(FILE *out, int width, int64_t v)
{
	if (v < 0)
		fprintf(out, " %*s", width, "-");
	else
		fprintf(out, " %*" PRId64, width, v);
}

static void print_kcb(FILE *out, const struct top_frame *f, const struct top_prev *prev)
{
	uint64_t cycles = prev->valid && f->have_cycle && f->cycle > prev->cycle ?
			  f->cycle - prev->cycle : 0;

	fprintf(out, "\nKCB: %zu entr%s (IPC: warp instructions of finished TBs per cycle"
		" since the last frame; IPC-RUN: since the kernel began)\n",
		f->nr_jobs, f->nr_jobs == 1 ? "y" : "ies");
	fprintf(out, "%-2s %6s %7s %-8s %4s %7s %7s %7s %4s %7s %7s\n", "K", "ID", "PID",
		"STATE", "PRIO", "TBS", "DONE", "RUNNING", "SMS", "IPC", "IPC-RUN");
	for (size_t i = 0; i < f->nr_jobs; i++) {
		const struct top_job *j = &f->jobs[i];
		int64_t d = cycles ? insts_since(prev, j) : -1;

		fprintf(out, "%-2c", job_letter(j->v[KCB_ID]));
		print_cell(out, 6, j->v[KCB_ID]);
		print_cell(out, 7, j->v[KCB_PID]);
		fprintf(out, " %-8s", j->state);
		print_cell(out, 4, j->v[KCB_PRIO]);
		print_cell(out, 7, j->v[KCB_TBS]);
		print_cell(out, 7, j->v[KCB_DONE]);
		print_cell(out, 7, j->v[KCB_RUNNING]);
		print_cell(out, 4, j->v[KCB_SMS]);
		if (d >= 0)
			fprintf(out, " %7.2f", (double)d / (double)cycles);
		else
			fprintf(out, " %7s", "-");
		if (j->v[KCB_IPC_MILLI] >= 0)
			fprintf(out, " %7.2f\n", (double)j->v[KCB_IPC_MILLI] / 1000.0);
		else
			fprintf(out, " %7s\n", "-");
	}
}

static void remember(struct top_prev *prev, const struct top_frame *f)
{
	free(prev->id);
	free(prev->insts);
	prev->nr = 0;
	prev->id = calloc(f->nr_jobs ? f->nr_jobs : 1, sizeof(*prev->id));
	prev->insts = calloc(f->nr_jobs ? f->nr_jobs : 1, sizeof(*prev->insts));
	prev->valid = f->have_cycle && prev->id && prev->insts;
	if (!prev->valid)
		return;
	for (size_t i = 0; i < f->nr_jobs; i++) {
		prev->id[i] = (uint32_t)f->jobs[i].v[KCB_ID];
		prev->insts[i] = job_insts(&f->jobs[i]);
	}
	prev->nr = f->nr_jobs;
	prev->cycle = f->cycle;
	prev->wall = f->wall;
}

/* "name value" lines as "vgpu info" prints them. */
static void read_info_params(const char *dir, struct top_params *pr)
{
	char path[600], *text, *save = NULL;

	snprintf(path, sizeof(path), "%s/info", dir);
	if (read_text(path, &text))
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[64];
		uint64_t v;

		if (sscanf(line, "%63s %" SCNu64, name, &v) != 2)
			continue;
		if (strcmp(name, "num_sms") == 0)
			pr->num_sms = v;
		else if (strcmp(name, "max_tbs_per_sm") == 0)
			pr->max_tbs = v;
		else if (strcmp(name, "max_threads_per_sm") == 0)
			pr->max_threads = v;
		else if (strcmp(name, "regs_per_sm") == 0)
			pr->regs = v;
		else if (strcmp(name, "shared_per_sm") == 0)
			pr->shared = v;
		else if (strcmp(name, "core_clock_khz") == 0)
			pr->clock_khz = v;
	}
	free(text);
}

static bool has_kcb(const char *dir)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/kcb", dir);
	return access(path, F_OK) == 0;
}

/*
 * debugfs has dri/<unique name>/ with a link dri/<minor>/ for each of the
 * device's minors, the render minor included; another directory holding a
 * kcb is taken when that link is missing.
 */
static int find_debugfs(unsigned int minor, char *out, size_t len)
{
	struct dirent *de;
	DIR *d;

	snprintf(out, len, DEBUGFS_DRI "/%u", minor);
	if (has_kcb(out))
		return 0;
	d = opendir(DEBUGFS_DRI);
	if (!d) {
		int err = errno;

		fprintf(stderr, "vgpu top: " DEBUGFS_DRI ": %s", strerror(err));
		if (err == EACCES || err == EPERM)
			fprintf(stderr, " (debugfs is readable by root only)\n");
		else
			fprintf(stderr, " (is debugfs mounted? %s)\n", MOUNT_HINT);
		return -err;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(out, len, DEBUGFS_DRI "/%s", de->d_name);
		if (has_kcb(out)) {
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	fprintf(stderr, "vgpu top: no kcb dump under " DEBUGFS_DRI "/ (is vgpu.ko loaded?)\n");
	return -ENOENT;
}

/* Opens the device only for its totals and its node's numbers (see the top). */
static int open_source(struct top_source *src)
{
	static const struct {
		uint32_t param;
		size_t offset;
	} wanted[] = {
		{ DRM_VGPU_PARAM_NUM_SMS, offsetof(struct top_params, num_sms) },
		{ DRM_VGPU_PARAM_MAX_TBS_PER_SM, offsetof(struct top_params, max_tbs) },
		{ DRM_VGPU_PARAM_MAX_THREADS_PER_SM, offsetof(struct top_params, max_threads) },
		{ DRM_VGPU_PARAM_REGS_PER_SM, offsetof(struct top_params, regs) },
		{ DRM_VGPU_PARAM_SHARED_PER_SM, offsetof(struct top_params, shared) },
		{ DRM_VGPU_PARAM_CORE_CLOCK_KHZ, offsetof(struct top_params, clock_khz) },
	};
	struct vgpu_device *dev;
	struct stat st;
	int ret = vgpu_device_open(NULL, &dev);

	if (ret) {
		fprintf(stderr, "vgpu top: no vgpu device: %s\n", strerror(-ret));
		return ret;
	}
	if (vgpu_device_fd(dev) < 0 || fstat(vgpu_device_fd(dev), &st)) {
		fprintf(stderr, "vgpu top: cannot stat the render node\n");
		vgpu_device_close(dev);
		return -ENODEV;
	}
	/* Without a backend these are 0, and top shows free amounts only. */
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		uint64_t v;

		if (vgpu_get_param(dev, wanted[i].param, &v) == 0)
			*(uint64_t *)((char *)&src->params + wanted[i].offset) = v;
	}
	vgpu_device_close(dev);
	snprintf(src->sysfs, sizeof(src->sysfs), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	return find_debugfs(minor(st.st_rdev), src->debugfs, sizeof(src->debugfs));
}

static int parse_count(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end || *out < min || *out > max ? -EINVAL : 0;
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, '1' },
		{ "count", required_argument, NULL, 'n' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct top_source src = { 0 };
	struct top_prev prev = { 0 };
	const char *root = NULL;
	long interval_ms = 1000, count = 0; /* 0: until interrupted */
	bool tty = isatty(STDOUT_FILENO);
	int opt, status = 0;

	optind = 1;
	opterr = 0; /* said below as "vgpu top: ..." rather than as "top: ..." */
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			if (parse_count(optarg, 1, 3600 * 1000, &interval_ms))
				return top_usage(stderr, 2);
			break;
		case '1':
			count = 1;
			break;
		case 'n':
			if (parse_count(optarg, 1, 1000000000, &count))
				return top_usage(stderr, 2);
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			return top_usage(stdout, 0);
		default:
			fprintf(stderr, "vgpu top: bad option '%s'\n", argv[optind - 1]);
			return top_usage(stderr, 2);
		}
	}
	if (optind != argc)
		return top_usage(stderr, 2);

	if (root) {
		snprintf(src.debugfs, sizeof(src.debugfs), "%s", root);
		snprintf(src.sysfs, sizeof(src.sysfs), "%s", root);
		read_info_params(root, &src.params);
	} else if (open_source(&src)) {
		return 1;
	}

	for (long n = 0; count == 0 || n < count; n++) {
		struct top_frame f;
		char *text = NULL;
		size_t len = 0;
		FILE *out;

		if (n) {
			struct timespec ts = { interval_ms / 1000, (interval_ms % 1000) * 1000000L };

			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
		if (frame_read(&src, &f)) {
			status = 1;
			break;
		}
		/* The frame is written in one go so that a terminal does not flicker. */
		out = open_memstream(&text, &len);
		if (!out) {
			frame_free(&f);
			status = 1;
			break;
		}
		print_header(out, &src, &f, &prev);
		print_sms(out, &src, &f);
		print_kcb(out, &f, &prev);
		fclose(out);
		if (tty)
			fputs("\033[H\033[2J", stdout);
		else if (n)
			fputc('\n', stdout);
		fwrite(text, 1, len, stdout);
		fflush(stdout);
		free(text);
		remember(&prev, &f);
		frame_free(&f);
	}
	free(prev.id);
	free(prev.insts);
	return status;
}
