// SPDX-License-Identifier: MIT
/*
 * ioctl_test - every bad input to the vgpu ioctls gets its specific errno,
 * and the device still works afterwards.
 *
 * Runs in the test guest (tools/vgpu-vm). With vgpud attached:
 *	ioctl_test
 * Without a daemon (limits, PROGRAM_CREATE and SUBMIT give -ENODEV, buffer
 * objects still work):
 *	ioctl_test --no-daemon
 *
 * Both also check the backend device's own errors: with a daemon only what
 * does not disturb it (a second ATTACH is -EBUSY, a file that is not
 * attached cannot KICK or mmap); without one the test attaches a fake
 * backend itself, checks the description checks, the rings, KICK, poll(),
 * sees its launch's commands and then detaches with the job running: the
 * job fails with -EIO.
 *
 * Prints "ok - NAME" or "not ok - NAME" per check, then "N passed, N failed";
 * exits non-zero on any failure. The errno conventions are those of
 * uapi/drm/vgpu_drm.h.
 *
 * Launch dependencies and launches without a buffer list use kernels
 * compiled from PTX by libvgpu's compiler, so the Makefile links it in.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include <xf86drm.h>

#include <drm/vgpu_backend.h>
#include <drm/vgpu_drm.h>
#include <drm/vgpu_program.h>

#include "compiler/vgpu_compile.h"
#include "spin_ptx.h"

/* VGPU_OP_EXIT (userspace/include/vgpu/isa.h): every lane finishes. */
#define ISA_EXIT	UINT64_C(0x1)
#define ISA_TRAP	UINT64_C(0x5)	/* the block ends with -EILSEQ */

static int passed, failed;
static int fd = -1;

/* Device limits, read from GET_PARAM when a daemon is attached. */
static struct {
	uint64_t vram_size;
	uint64_t num_sms;
	uint64_t max_threads_per_tb;
	uint64_t max_regs_per_thread;
	uint64_t max_shared_per_tb;
	uint64_t regs_per_sm;
	uint64_t warp_size;
} lim;

static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

/* The ioctl's errno: 0 on success. */
static int vioctl(unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? errno : 0;
}

/* /dev/kmsg, to see the driver's debug-level line for each rejection. */
static int kmsg = -1;

static void kmsg_skip(void)
{
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
}

/* Did the driver log a debug-level (priority 7) line since kmsg_skip()? */
static bool kmsg_logged_debug(void)
{
	char rec[2048];
	bool found = false;
	ssize_t n;

	while ((n = read(kmsg, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;	/* overwritten records: keep reading */
		rec[n] = '\0';
		if (!strncmp(rec, "7,", 2) && strstr(rec, "vgpu"))
			found = true;
	}
	return found;
}

/* Is @req one of vgpu.ko's own ioctls (not the DRM core's)? */
static bool driver_ioctl(unsigned long req)
{
	return _IOC_TYPE(req) == VGPU_BACKEND_IOC_MAGIC ||
	       (_IOC_TYPE(req) == DRM_IOCTL_BASE && _IOC_NR(req) >= DRM_COMMAND_BASE);
}

/*
 * Checks that an ioctl fails with @want (0: succeeds); a rejection by the
 * driver must also leave a line in the kernel log at debug level.
 */
static bool expect(const char *name, unsigned long req, void *arg, int want)
{
	int got;

	kmsg_skip();
	got = vioctl(req, arg);
	if (got == want && want && kmsg >= 0 && driver_ioctl(req) && !kmsg_logged_debug()) {
		result(false, "%s: %s, but no debug line in the kernel log", name,
		       strerror(want));
		return false;
	}
	if (got == want) {
		result(true, "%s", name);
		return true;
	}
	result(false, "%s: got %s (%d), want %s (%d)", name,
	       got ? strerror(got) : "success", got,
	       want ? strerror(want) : "success", want);
	return false;
}

static int open_render_node(void)
{
	for (int i = 128; i < 192; i++) {
		char path[64];
		drmVersionPtr v;
		int f;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		f = open(path, O_RDWR | O_CLOEXEC);
		if (f < 0)
			continue;
		v = drmGetVersion(f);
		if (v && !strcmp(v->name, "vgpu")) {
			drmFreeVersion(v);
			return f;
		}
		if (v)
			drmFreeVersion(v);
		close(f);
	}
	return -1;
}

static int get_param(uint32_t param, uint64_t *value)
{
	struct drm_vgpu_get_param gp = { .param = param };
	int err = vioctl(DRM_IOCTL_VGPU_GET_PARAM, &gp);

	if (!err)
		*value = gp.value;
	return err;
}

static int bo_create(uint64_t size, uint32_t *handle, uint64_t *addr)
{
	struct drm_vgpu_bo_create bc = { .size = size };
	int err = vioctl(DRM_IOCTL_VGPU_BO_CREATE, &bc);

	if (!err) {
		*handle = bc.handle;
		if (addr)
			*addr = bc.device_address;
	}
	return err;
}

static void bo_close(uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

/* ---- program images, built by hand -------------------------------------- */

#define IMG_MAX_ENTRIES	2

struct image {
	uint8_t buf[4096] __attribute__((aligned(8)));
	uint32_t size;
};

static struct vgpu_program_header *img_hdr(struct image *im)
{
	return (struct vgpu_program_header *)im->buf;
}

static struct vgpu_program_entry *img_entry(struct image *im, uint32_t i)
{
	return (struct vgpu_program_entry *)(im->buf + img_hdr(im)->entries_offset) + i;
}

/*
 * A valid image: one entry "k" (param_size 16, 8 registers, 256 bytes of
 * static shared memory) whose code is a single EXIT, and 16 bytes of
 * initialised data in a 64-byte data segment.
 */
static void img_build(struct image *im)
{
	struct vgpu_program_header *h = img_hdr(im);
	struct vgpu_program_entry *e;
	uint64_t code = ISA_EXIT;

	memset(im, 0, sizeof(*im));
	h->magic = VGPU_PROGRAM_MAGIC;
	h->version_major = VGPU_PROGRAM_VERSION_MAJOR;
	h->version_minor = VGPU_PROGRAM_VERSION_MINOR;
	h->header_size = sizeof(*h);
	h->num_entries = 1;
	h->entry_size = sizeof(*e);
	h->entries_offset = sizeof(*h);
	h->code_offset = h->entries_offset + IMG_MAX_ENTRIES * sizeof(*e);
	h->code_size = 8;
	h->data_offset = h->code_offset + h->code_size;
	h->data_init_size = 16;
	h->data_size = 64;
	im->size = h->data_offset + h->data_init_size;
	h->image_size = im->size;

	e = img_entry(im, 0);
	strcpy(e->name, "k");
	e->code_start = 0;
	e->code_end = 8;
	e->regs_per_thread = 8;
	e->shared_static = 256;
	e->param_size = 16;
	memcpy(im->buf + h->code_offset, &code, sizeof(code));
	memset(im->buf + h->data_offset, 0x42, h->data_init_size);
}

static int program_create(struct image *im, uint32_t *handle)
{
	struct drm_vgpu_program_create pc = {
		.data = (uintptr_t)im->buf,
		.size = im->size,
	};
	int err = vioctl(DRM_IOCTL_VGPU_PROGRAM_CREATE, &pc);

	if (!err && handle)
		*handle = pc.handle;
	return err;
}

static void program_expect(const char *name, struct image *im, int want)
{
	uint32_t handle = 0;
	int got = program_create(im, &handle);

	if (got == want)
		result(true, "PROGRAM_CREATE %s", name);
	else
		result(false, "PROGRAM_CREATE %s: got %s (%d), want %s (%d)", name,
		       got ? strerror(got) : "success", got,
		       want ? strerror(want) : "success", want);
	if (!got) {
		struct drm_vgpu_program_destroy pd = { .handle = handle };

		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
}

/* ---- checks --------------------------------------------------------------- */

static void check_get_param(bool daemon)
{
	struct drm_vgpu_get_param gp = { 0 };
	uint64_t v = 0;

	result(!get_param(DRM_VGPU_PARAM_VRAM_SIZE, &lim.vram_size) &&
	       lim.vram_size > 0, "GET_PARAM VRAM_SIZE");
	result(!get_param(DRM_VGPU_PARAM_BACKEND_ATTACHED, &v) && v == daemon,
	       "GET_PARAM BACKEND_ATTACHED is %d", daemon);

	gp.param = DRM_VGPU_PARAM_COUNT;
	expect("GET_PARAM unknown parameter -> EINVAL",
	       DRM_IOCTL_VGPU_GET_PARAM, &gp, EINVAL);
	gp.param = 0xffffffffu;
	expect("GET_PARAM parameter 0xffffffff -> EINVAL",
	       DRM_IOCTL_VGPU_GET_PARAM, &gp, EINVAL);
	gp.param = DRM_VGPU_PARAM_VRAM_SIZE;
	gp.pad = 1;
	expect("GET_PARAM non-zero pad -> EINVAL",
	       DRM_IOCTL_VGPU_GET_PARAM, &gp, EINVAL);

	if (!daemon) {
		for (uint32_t p = DRM_VGPU_PARAM_NUM_SMS; p < DRM_VGPU_PARAM_COUNT; p++) {
			int err = get_param(p, &v);

			result(err == ENODEV, "GET_PARAM %u without a daemon -> ENODEV (got %d)",
			       p, err);
		}
		return;
	}
	result(!get_param(DRM_VGPU_PARAM_NUM_SMS, &lim.num_sms) && lim.num_sms >= 1,
	       "GET_PARAM NUM_SMS");
	result(!get_param(DRM_VGPU_PARAM_WARP_SIZE, &lim.warp_size) &&
	       lim.warp_size == 32, "GET_PARAM WARP_SIZE");
	result(!get_param(DRM_VGPU_PARAM_MAX_THREADS_PER_TB, &lim.max_threads_per_tb) &&
	       lim.max_threads_per_tb > 0, "GET_PARAM MAX_THREADS_PER_TB");
	result(!get_param(DRM_VGPU_PARAM_MAX_REGS_PER_THREAD, &lim.max_regs_per_thread) &&
	       lim.max_regs_per_thread > 0, "GET_PARAM MAX_REGS_PER_THREAD");
	result(!get_param(DRM_VGPU_PARAM_MAX_SHARED_PER_TB, &lim.max_shared_per_tb) &&
	       lim.max_shared_per_tb > 0, "GET_PARAM MAX_SHARED_PER_TB");
	result(!get_param(DRM_VGPU_PARAM_REGS_PER_SM, &lim.regs_per_sm) &&
	       lim.regs_per_sm > 0, "GET_PARAM REGS_PER_SM");
	for (uint32_t p = DRM_VGPU_PARAM_NUM_SMS; p < DRM_VGPU_PARAM_COUNT; p++)
		result(!get_param(p, &v), "GET_PARAM %u with a daemon", p);
}

/* Creates a buffer, writes it through mmap, maps it again and reads back. */
static void check_bo_mmap(const char *when)
{
	struct drm_vgpu_bo_mmap_offset mo = { 0 };
	const size_t size = 3 * 4096 + 100;
	uint32_t handle;
	uint64_t addr = 0;
	uint32_t *p;
	bool ok = true;
	int err;

	err = bo_create(size, &handle, &addr);
	result(!err && addr != 0 && addr % 4096 == 0,
	       "BO_CREATE %s (device address %#llx)", when, (unsigned long long)addr);
	if (err)
		return;
	mo.handle = handle;
	if (!expect("BO_MMAP_OFFSET", DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, 0))
		goto out;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mo.offset);
	if (p == MAP_FAILED) {
		result(false, "mmap of a BO %s: %s", when, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < size / 4; i++)
		ok &= p[i] == 0;
	result(ok, "a new BO reads as zero");
	for (size_t i = 0; i < size / 4; i++)
		p[i] = 0xc0de0000u + (uint32_t)i;
	munmap(p, size);
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)mo.offset);
	if (p == MAP_FAILED) {
		result(false, "second mmap of a BO %s: %s", when, strerror(errno));
		goto out;
	}
	ok = true;
	for (size_t i = 0; i < size / 4; i++)
		ok &= p[i] == 0xc0de0000u + (uint32_t)i;
	result(ok, "a BO written through mmap reads back %s", when);
	munmap(p, size);
	/* A mapping larger than the (page-rounded) object is refused. */
	p = mmap(NULL, 5 * 4096, PROT_READ, MAP_SHARED, fd, (off_t)mo.offset);
	result(p == MAP_FAILED, "mmap beyond the end of a BO fails");
	if (p != MAP_FAILED)
		munmap(p, 5 * 4096);
out:
	bo_close(handle);
}

static void check_bo_errors(void)
{
	struct drm_vgpu_bo_create bc = { 0 };
	struct drm_vgpu_bo_mmap_offset mo = { 0 };

	bc.size = 0;
	expect("BO_CREATE size 0 -> EINVAL", DRM_IOCTL_VGPU_BO_CREATE, &bc, EINVAL);
	bc.size = lim.vram_size + 1;
	expect("BO_CREATE larger than device memory -> E2BIG",
	       DRM_IOCTL_VGPU_BO_CREATE, &bc, E2BIG);
	bc.size = UINT64_MAX;
	expect("BO_CREATE size 2^64-1 -> E2BIG", DRM_IOCTL_VGPU_BO_CREATE, &bc, E2BIG);
	bc.size = lim.vram_size;	/* the first page is never handed out */
	expect("BO_CREATE of all device memory -> ENOSPC",
	       DRM_IOCTL_VGPU_BO_CREATE, &bc, ENOSPC);
	/* one file may hold file_vram_pct (75 %) of the device memory */
	bc.size = lim.vram_size / 100 * 80;
	expect("BO_CREATE of 80 % of device memory, beyond the file's 75 % -> ENOSPC",
	       DRM_IOCTL_VGPU_BO_CREATE, &bc, ENOSPC);
	bc.size = lim.vram_size / 100 * 70;
	expect("BO_CREATE of 70 % of device memory, within the file's 75 %",
	       DRM_IOCTL_VGPU_BO_CREATE, &bc, 0);
	if (bc.handle) {
		uint32_t first = bc.handle;

		bc.size = lim.vram_size / 100 * 10;
		expect("a second BO_CREATE of 10 %, to 80 % -> ENOSPC",
		       DRM_IOCTL_VGPU_BO_CREATE, &bc, ENOSPC);
		bo_close(first);
		expect("once the first is closed, 10 % fits",
		       DRM_IOCTL_VGPU_BO_CREATE, &bc, 0);
		bo_close(bc.handle);
	}
	bc.size = 4096;
	bc.flags = 1;
	expect("BO_CREATE non-zero flags -> EINVAL", DRM_IOCTL_VGPU_BO_CREATE, &bc, EINVAL);

	mo.handle = 0xdeadbeef;
	expect("BO_MMAP_OFFSET unknown handle -> ENOENT",
	       DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, ENOENT);
	mo.pad = 1;
	expect("BO_MMAP_OFFSET non-zero pad -> EINVAL",
	       DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo, EINVAL);
}

static void check_programs(void)
{
	struct drm_vgpu_program_create pc = { 0 };
	struct drm_vgpu_program_destroy pd = { 0 };
	struct image im;

	img_build(&im);
	program_expect("valid image", &im, 0);

	img_build(&im);
	img_hdr(&im)->magic ^= 0xff;
	program_expect("bad magic -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->version_major = VGPU_PROGRAM_VERSION_MAJOR + 1;
	program_expect("bad major version -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->header_size = 16;
	program_expect("header_size too small -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->entries_offset = im.size;
	program_expect("entries out of bounds -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->code_offset = 0xfffffff8u;
	program_expect("code offset out of bounds -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->code_size = 12;
	program_expect("code size not a multiple of 8 -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->data_offset = im.size - 4;
	program_expect("data out of bounds -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->num_entries = 0;
	program_expect("no entries -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_hdr(&im)->reserved[0] = 1;
	program_expect("reserved header field set -> EINVAL", &im, EINVAL);
	img_build(&im);
	memset(img_entry(&im, 0)->name, 'x', VGPU_PROGRAM_NAME_LEN);
	program_expect("entry name not NUL-terminated -> EINVAL", &im, EINVAL);
	img_build(&im);
	img_entry(&im, 0)->code_end = 16;
	program_expect("entry code beyond the code -> EINVAL", &im, EINVAL);
	img_build(&im);
	im.size -= 8;
	program_expect("image_size larger than the data passed -> EINVAL", &im, EINVAL);
	img_build(&im);
	im.size = sizeof(struct vgpu_program_header) - 1;
	program_expect("truncated to less than a header -> EINVAL", &im, EINVAL);
	img_build(&im);
	im.size = 0;
	program_expect("size 0 -> EINVAL", &im, EINVAL);

	img_build(&im);
	img_entry(&im, 0)->regs_per_thread = (uint32_t)lim.max_regs_per_thread + 1;
	program_expect("more registers per thread than the device -> E2BIG", &im, E2BIG);
	img_build(&im);
	img_entry(&im, 0)->shared_static = (uint32_t)lim.max_shared_per_tb + 1;
	program_expect("more shared memory than a block may have -> E2BIG", &im, E2BIG);
	img_build(&im);
	img_entry(&im, 0)->max_threads_per_tb = (uint32_t)lim.max_threads_per_tb + 1;
	program_expect(".maxntid above the device limit -> E2BIG", &im, E2BIG);
	img_build(&im);
	im.size = VGPU_PROGRAM_MAX_SIZE + 1;
	program_expect("larger than VGPU_PROGRAM_MAX_SIZE -> E2BIG", &im, E2BIG);

	pc.data = 8;	/* unmapped */
	pc.size = 4096;
	expect("PROGRAM_CREATE unreadable pointer -> EFAULT",
	       DRM_IOCTL_VGPU_PROGRAM_CREATE, &pc, EFAULT);

	pd.handle = 0xdeadbeef;
	expect("PROGRAM_DESTROY unknown handle -> ENOENT",
	       DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd, ENOENT);
	pd.handle = 1;
	pd.pad = 1;
	expect("PROGRAM_DESTROY non-zero pad -> EINVAL",
	       DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd, EINVAL);
}

struct launch {
	struct drm_vgpu_submit s;
	uint8_t params[DRM_VGPU_MAX_PARAM_BYTES + 64];
	uint32_t bos[DRM_VGPU_MAX_SUBMIT_BOS + 1];
};

/* A valid one-block launch of entry 0 of @prog with one buffer. */
static void launch_init(struct launch *l, uint32_t prog, uint32_t bo)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < sizeof(l->params); i++)
		l->params[i] = (uint8_t)i;
	for (size_t i = 0; i < DRM_VGPU_MAX_SUBMIT_BOS + 1; i++)
		l->bos[i] = bo;
	l->s.program = prog;
	l->s.entry = 0;
	l->s.grid[0] = l->s.grid[1] = l->s.grid[2] = 1;
	l->s.block[0] = 32;
	l->s.block[1] = l->s.block[2] = 1;
	l->s.params = (uintptr_t)l->params;
	l->s.params_size = 16;
	l->s.bo_handles = (uintptr_t)l->bos;
	l->s.num_bos = 1;
}

static void submit_expect(const char *name, struct launch *l, int want)
{
	char full[160];

	snprintf(full, sizeof(full), "SUBMIT %s", name);
	expect(full, DRM_IOCTL_VGPU_SUBMIT, &l->s, want);
}

/* Waits for a job through its syncobj and reads its record. */
static bool wait_job(uint32_t syncobj, uint64_t job_id,
		     struct drm_vgpu_job_info *ji)
{
	struct timespec now;
	int64_t deadline;
	int err;

	memset(ji, 0, sizeof(*ji));
	/* drmSyncobjWait takes an absolute CLOCK_MONOTONIC time. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec +
		   (int64_t)120 * 1000000000;
	err = drmSyncobjWait(fd, &syncobj, 1, deadline,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (err)
		return false;
	ji->job_id = job_id;
	return !vioctl(DRM_IOCTL_VGPU_JOB_INFO, ji);
}

static void check_submit(void)
{
	static struct launch l;
	struct drm_vgpu_job_info ji;
	uint32_t prog, prog_regs = 0, bo, syncobj = 0;
	uint64_t regs_unit, threads;
	struct image im;
	int err;

	img_build(&im);
	err = program_create(&im, &prog);
	result(!err, "PROGRAM_CREATE for the launches");
	err |= bo_create(4096, &bo, NULL);
	if (err) {
		result(false, "setup for the SUBMIT checks");
		return;
	}

	launch_init(&l, prog, bo);
	l.s.program = 0xdeadbeef;
	submit_expect("unknown program -> ENOENT", &l, ENOENT);
	launch_init(&l, prog, bo);
	l.bos[0] = 0xdeadbeef;
	submit_expect("unknown BO handle -> ENOENT", &l, ENOENT);
	launch_init(&l, prog, bo);
	l.s.out_syncobj = 0xdeadbeef;
	submit_expect("unknown syncobj -> ENOENT", &l, ENOENT);
	for (int i = 0; i < 3; i++) {
		char name[64];

		launch_init(&l, prog, bo);
		l.s.grid[i] = 0;
		snprintf(name, sizeof(name), "grid[%d] = 0 -> EINVAL", i);
		submit_expect(name, &l, EINVAL);
		launch_init(&l, prog, bo);
		l.s.block[i] = 0;
		snprintf(name, sizeof(name), "block[%d] = 0 -> EINVAL", i);
		submit_expect(name, &l, EINVAL);
	}
	launch_init(&l, prog, bo);
	l.s.block[0] = (uint32_t)lim.max_threads_per_tb + 1;
	submit_expect("block above the device limit -> E2BIG", &l, E2BIG);
	launch_init(&l, prog, bo);
	l.s.block[0] = 65536;
	l.s.block[1] = 65536;
	l.s.block[2] = 65536;
	submit_expect("block whose thread count overflows -> E2BIG", &l, E2BIG);
	launch_init(&l, prog, bo);
	l.s.grid[0] = 65536;
	l.s.grid[1] = 65536;
	submit_expect("grid of 2^32 blocks -> E2BIG", &l, E2BIG);
	launch_init(&l, prog, bo);
	l.s.dynamic_shared = (uint32_t)lim.max_shared_per_tb - 256 + 1;
	submit_expect("too much shared memory -> E2BIG", &l, E2BIG);

	/* A program whose blocks need more registers than an SM has. */
	regs_unit = lim.max_regs_per_thread;
	threads = lim.max_threads_per_tb;
	if (threads * regs_unit > lim.regs_per_sm) {
		img_build(&im);
		img_entry(&im, 0)->regs_per_thread = (uint32_t)lim.max_regs_per_thread;
		err = program_create(&im, &prog_regs);
		result(!err, "PROGRAM_CREATE with max_regs_per_thread registers");
		launch_init(&l, prog_regs, bo);
		l.s.block[0] = (uint32_t)threads;
		submit_expect("too many registers for an SM -> E2BIG", &l, E2BIG);
	} else {
		result(true, "too many registers for an SM # SKIP the device cannot be over-asked");
	}

	launch_init(&l, prog, bo);
	l.s.params_size = 8;
	submit_expect("parameter size mismatch -> EINVAL", &l, EINVAL);
	launch_init(&l, prog, bo);
	l.s.params_size = DRM_VGPU_MAX_PARAM_BYTES + 1;
	submit_expect("parameter size > 4096 -> E2BIG", &l, E2BIG);
	launch_init(&l, prog, bo);
	l.s.num_bos = DRM_VGPU_MAX_SUBMIT_BOS + 1;
	submit_expect("more than 256 buffers -> E2BIG", &l, E2BIG);
	launch_init(&l, prog, bo);
	l.s.entry = 1;
	submit_expect("no such entry -> EINVAL", &l, EINVAL);
	launch_init(&l, prog, bo);
	l.s.flags = 1u << 7;
	submit_expect("unknown flags -> EINVAL", &l, EINVAL);
	/* Not-before cycles out of reach: the device clock cannot be moved far. */
	{
		uint64_t now = 0;

		result(!get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &now), "GET_PARAM CURRENT_CYCLE");
		launch_init(&l, prog, bo);
		l.s.flags = DRM_VGPU_SUBMIT_NOT_BEFORE;
		l.s.not_before_cycle = UINT64_MAX;
		submit_expect("not-before cycle 2^64-1 -> EINVAL", &l, EINVAL);
		launch_init(&l, prog, bo);
		l.s.flags = DRM_VGPU_SUBMIT_NOT_BEFORE;
		/* margin: the clock only moves forward meanwhile */
		l.s.not_before_cycle = now + DRM_VGPU_NOT_BEFORE_AHEAD + (1u << 24);
		submit_expect("not-before cycle 2^32 + 2^24 cycles ahead -> EINVAL", &l, EINVAL);
	}
	launch_init(&l, prog, bo);
	l.s.priority = DRM_VGPU_PRIORITY_REALTIME + 1;
	submit_expect("unknown priority -> EINVAL", &l, EINVAL);
	launch_init(&l, prog, bo);
	l.s.params = 8;
	submit_expect("unreadable parameters -> EFAULT", &l, EFAULT);
	launch_init(&l, prog, bo);
	l.s.bo_handles = 8;
	submit_expect("unreadable BO handle array -> EFAULT", &l, EFAULT);

	/* A good launch runs to the end and is reported. */
	if (drmSyncobjCreate(fd, 0, &syncobj)) {
		result(false, "drmSyncobjCreate: %s", strerror(errno));
		goto out;
	}
	launch_init(&l, prog, bo);
	l.s.grid[0] = 4;
	l.s.out_syncobj = syncobj;
	l.s.num_bos = 3;	/* the same buffer three times is allowed */
	submit_expect("valid launch", &l, 0);
	if (l.s.job_id) {
		bool ok = wait_job(syncobj, l.s.job_id, &ji);

		result(ok && ji.state == DRM_VGPU_JOB_DONE,
		       "the job finishes and signals its syncobj (error %d, %llu TBs, cycles %llu..%llu)",
		       ji.error, (unsigned long long)ji.tbs_done,
		       (unsigned long long)ji.start_cycle,
		       (unsigned long long)ji.end_cycle);
		result(ok && ji.error == 0 && ji.tbs_done == 4,
		       "the job succeeded with 4 thread blocks");
		ji.flags = DRM_VGPU_JOB_INFO_RELEASE;
		expect("JOB_INFO RELEASE of a finished job", DRM_IOCTL_VGPU_JOB_INFO, &ji, 0);
		ji.flags = 0;
		expect("JOB_INFO of a released job -> ENOENT", DRM_IOCTL_VGPU_JOB_INFO, &ji,
		       ENOENT);
	}

	/*
	 * RELEASE of a job that has not finished: a launch of many blocks is
	 * still running right after SUBMIT. When the daemon beats us to it
	 * the check cannot be made and is skipped.
	 */
	drmSyncobjReset(fd, &syncobj, 1);
	launch_init(&l, prog, bo);
	l.s.grid[0] = 20000;
	l.s.out_syncobj = syncobj;
	if (!vioctl(DRM_IOCTL_VGPU_SUBMIT, &l.s)) {
		memset(&ji, 0, sizeof(ji));
		ji.job_id = l.s.job_id;
		ji.flags = DRM_VGPU_JOB_INFO_RELEASE;
		err = vioctl(DRM_IOCTL_VGPU_JOB_INFO, &ji);
		if (err == EBUSY)
			result(true, "JOB_INFO RELEASE of an unfinished job -> EBUSY");
		else if (!err && ji.state == DRM_VGPU_JOB_DONE)
			result(true, "JOB_INFO RELEASE of an unfinished job # SKIP it finished first");
		else
			result(false, "JOB_INFO RELEASE of an unfinished job: %s", strerror(err));
		if (err == EBUSY) {
			bool ok = wait_job(syncobj, l.s.job_id, &ji);

			result(ok && ji.state == DRM_VGPU_JOB_DONE && ji.error == 0 &&
			       ji.tbs_done == 20000,
			       "a 20000-block job completes (error %d, %llu TBs)", ji.error,
			       (unsigned long long)ji.tbs_done);
		}
	} else {
		result(false, "SUBMIT of a 20000-block job");
	}

	memset(&ji, 0, sizeof(ji));
	ji.job_id = 0xfffffff0u;
	expect("JOB_INFO unknown job -> ENOENT", DRM_IOCTL_VGPU_JOB_INFO, &ji, ENOENT);
	ji.job_id = UINT64_MAX;
	expect("JOB_INFO job id above 2^32 -> ENOENT", DRM_IOCTL_VGPU_JOB_INFO, &ji, ENOENT);
	ji.job_id = 1;
	ji.flags = 1u << 5;
	expect("JOB_INFO unknown flags -> EINVAL", DRM_IOCTL_VGPU_JOB_INFO, &ji, EINVAL);

	/*
	 * A block that traps fails the job with EILSEQ, and JOB_INFO names the
	 * block and the instruction (word 1: a NOP, then the TRAP); a caller
	 * with the structure of older headers (no fault fields) still works.
	 */
	{
		uint64_t code[2] = { 0, ISA_TRAP };
		uint32_t prog_trap = 0;
		struct image tim;

		img_build(&tim);
		img_hdr(&tim)->code_size = sizeof(code);
		img_hdr(&tim)->data_offset = img_hdr(&tim)->code_offset + sizeof(code);
		tim.size = img_hdr(&tim)->data_offset + img_hdr(&tim)->data_init_size;
		img_hdr(&tim)->image_size = tim.size;
		img_entry(&tim, 0)->code_end = sizeof(code);
		memcpy(tim.buf + img_hdr(&tim)->code_offset, code, sizeof(code));
		memset(tim.buf + img_hdr(&tim)->data_offset, 0x42, img_hdr(&tim)->data_init_size);
		result(!program_create(&tim, &prog_trap), "PROGRAM_CREATE of a NOP, TRAP kernel");
		drmSyncobjReset(fd, &syncobj, 1);
		launch_init(&l, prog_trap, bo);
		l.s.out_syncobj = syncobj;
		if (prog_trap && !vioctl(DRM_IOCTL_VGPU_SUBMIT, &l.s)) {
			bool ok = wait_job(syncobj, l.s.job_id, &ji);
			struct drm_vgpu_job_info old = { .job_id = l.s.job_id };
			unsigned long old_req = DRM_IOC(DRM_IOC_READ | DRM_IOC_WRITE, DRM_IOCTL_BASE,
						       DRM_COMMAND_BASE + DRM_VGPU_JOB_INFO,
						       offsetof(struct drm_vgpu_job_info,
								fault_flags));

			result(ok && ji.error == -EILSEQ &&
			       ji.fault_flags == (DRM_VGPU_FAULT_TB | DRM_VGPU_FAULT_PC) &&
			       ji.fault_tb == 0 && ji.fault_pc == 1 && ji.fault_addr == 0,
			       "a trapping block: EILSEQ, block 0, instruction 1 (error %d, flags %#x, "
			       "block %u, instruction %u)", ji.error, ji.fault_flags, ji.fault_tb,
			       ji.fault_pc);
			old.fault_flags = 0xdead;
			result(!vioctl(old_req, &old) && old.error == -EILSEQ &&
			       old.fault_flags == 0xdead,
			       "JOB_INFO with the shorter structure of older headers");
		} else {
			result(false, "SUBMIT of a trapping kernel");
		}
	}

	/* After all of that the device still runs launches. */
	drmSyncobjReset(fd, &syncobj, 1);
	launch_init(&l, prog, bo);
	l.s.out_syncobj = syncobj;
	if (!vioctl(DRM_IOCTL_VGPU_SUBMIT, &l.s)) {
		bool ok = wait_job(syncobj, l.s.job_id, &ji);

		result(ok && ji.state == DRM_VGPU_JOB_DONE && ji.error == 0,
		       "a launch after the bad calls completes");
	} else {
		result(false, "a launch after the bad calls is accepted");
	}
	drmSyncobjDestroy(fd, syncobj);
out:
	if (prog_regs) {
		struct drm_vgpu_program_destroy pd = { .handle = prog_regs };

		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
	{
		struct drm_vgpu_program_destroy pd = { .handle = prog };

		expect("PROGRAM_DESTROY", DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd, 0);
		expect("PROGRAM_DESTROY twice -> ENOENT", DRM_IOCTL_VGPU_PROGRAM_DESTROY,
		       &pd, ENOENT);
	}
	bo_close(bo);
}

/* ---- WAIT and the synchronised clock ----------------------------------------- */

static int job_state(uint64_t job_id, struct drm_vgpu_job_info *ji)
{
	memset(ji, 0, sizeof(*ji));
	ji->job_id = job_id;
	return vioctl(DRM_IOCTL_VGPU_JOB_INFO, ji);
}

static int clock_sync(uint32_t flags, uint32_t rank)
{
	struct drm_vgpu_clock_sync cs = { .flags = flags, .rank = rank };

	return vioctl(DRM_IOCTL_VGPU_CLOCK_SYNC, &cs);
}

static int wait_for(uint64_t job_id, int64_t timeout_ns)
{
	struct drm_vgpu_wait w = { .job_id = job_id, .timeout_ns = timeout_ns };

	return vioctl(DRM_IOCTL_VGPU_WAIT, &w);
}

static void check_wait_and_clock(void)
{
	static struct launch l;
	struct drm_vgpu_clock_sync cs = { 0 };
	struct drm_vgpu_wait w = { 0 };
	struct drm_vgpu_job_info ji;
	uint64_t c0 = 0, c1 = 0;
	uint32_t prog, bo;
	struct image im;
	int main_fd = fd, other_fd;

	img_build(&im);
	if (program_create(&im, &prog) || bo_create(4096, &bo, NULL)) {
		result(false, "program and buffer for the WAIT checks");
		return;
	}

	w.job_id = 1;
	w.flags = 1;
	expect("WAIT unknown flags -> EINVAL", DRM_IOCTL_VGPU_WAIT, &w, EINVAL);
	w.flags = 0;
	w.pad = 1;
	expect("WAIT pad set -> EINVAL", DRM_IOCTL_VGPU_WAIT, &w, EINVAL);
	w.pad = 0;
	w.job_id = 0xfffffff0u;
	expect("WAIT unknown job -> ENOENT", DRM_IOCTL_VGPU_WAIT, &w, ENOENT);
	w.job_id = UINT64_MAX;
	expect("WAIT job id above 2^32 -> ENOENT", DRM_IOCTL_VGPU_WAIT, &w, ENOENT);

	launch_init(&l, prog, bo);
	l.s.grid[0] = 4;
	if (!vioctl(DRM_IOCTL_VGPU_SUBMIT, &l.s)) {
		result(!wait_for(l.s.job_id, 120000000000LL) && !job_state(l.s.job_id, &ji) &&
		       ji.state == DRM_VGPU_JOB_DONE && ji.error == 0 && ji.tbs_done == 4,
		       "WAIT returns once the job has ended");
		result(!wait_for(l.s.job_id, 0), "WAIT on an ended job returns at once");
	} else {
		result(false, "SUBMIT for WAIT");
	}

	cs.flags = 1u << 7;
	expect("CLOCK_SYNC unknown flags -> EINVAL", DRM_IOCTL_VGPU_CLOCK_SYNC, &cs, EINVAL);
	cs.flags = 0;
	cs.rank = 2;
	expect("CLOCK_SYNC leave with a rank -> EINVAL", DRM_IOCTL_VGPU_CLOCK_SYNC, &cs, EINVAL);
	result(!clock_sync(0, 0), "CLOCK_SYNC leave without having joined");

	/*
	 * Joined and running on the host: the device clock stands and the
	 * scheduler takes no decision, however long we take.
	 */
	result(!clock_sync(DRM_VGPU_CLOCK_SYNC_JOIN, 3), "CLOCK_SYNC join");
	get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &c0);
	launch_init(&l, prog, bo);
	l.s.grid[0] = 2000;
	if (!vioctl(DRM_IOCTL_VGPU_SUBMIT, &l.s)) {
		usleep(300000);
		get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &c1);
		result(!job_state(l.s.job_id, &ji) && ji.state == DRM_VGPU_JOB_QUEUED && c1 == c0,
		       "while a joined file runs, its job stays queued and the clock stands (%llu)",
		       (unsigned long long)c1);
		/* Woken by the timeout, not by the job: the clock stands again. */
		result(wait_for(l.s.job_id, 1) == ETIME, "WAIT with a 1 ns timeout -> ETIME");
		result(!wait_for(l.s.job_id, 120000000000LL) && !job_state(l.s.job_id, &ji) &&
		       ji.state == DRM_VGPU_JOB_DONE && ji.error == 0 && ji.tbs_done == 2000,
		       "the job runs while its file waits, and ends");
		result(ji.start_cycle >= c0, "it starts no earlier than the held cycle");
		get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &c1);
		usleep(100000);
		get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &c0);
		result(c1 == ji.end_cycle && c0 == c1,
		       "after the wait the clock stands at the job's end (%llu, end %llu)",
		       (unsigned long long)c1, (unsigned long long)ji.end_cycle);
	} else {
		result(false, "SUBMIT while joined");
	}

	/*
	 * A joined file that runs does not hold back a file that did not
	 * join: the hold is fenced, and comes back once that job has ended.
	 */
	other_fd = open_render_node();
	if (other_fd >= 0) {
		uint32_t other_prog, other_bo;

		/* Programs and buffers are per file. */
		fd = other_fd;
		if (!program_create(&im, &other_prog) && !bo_create(4096, &other_bo, NULL)) {
			launch_init(&l, other_prog, other_bo);
			if (!vioctl(DRM_IOCTL_VGPU_SUBMIT, &l.s)) {
				result(!wait_for(l.s.job_id, 120000000000LL) &&
				       !job_state(l.s.job_id, &ji) &&
				       ji.state == DRM_VGPU_JOB_DONE && ji.error == 0,
				       "another file's job runs while a joined file runs");
				get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &c1);
				usleep(100000);
				get_param(DRM_VGPU_PARAM_CURRENT_CYCLE, &c0);
				result(c0 == c1,
				       "once it has ended, the joined file holds the clock again (%llu)",
				       (unsigned long long)c1);
				fd = main_fd;
				result(!clock_sync(0, 0), "CLOCK_SYNC leave");
				fd = other_fd;
			} else {
				result(false, "SUBMIT in a second file");
			}
		} else {
			result(false, "program and buffer in a second file");
		}
		fd = main_fd;
		close(other_fd);
	} else {
		result(false, "open a second render node file");
	}
	clock_sync(0, 0);
	{
		struct drm_vgpu_program_destroy pd = { .handle = prog };

		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
	bo_close(bo);
}

/* ---- launch dependencies and launches without a buffer list ------------------- */

/* poke(addr, v): thread 0 of block 0 stores @v at device address @addr. */
static const char poke_ptx[] =
	".version 7.0\n.target sm_75\n.address_size 64\n"
	".visible .entry poke(.param .u64 poke_param_0, .param .u32 poke_param_1)\n"
	"{\n"
	"	.reg .pred %p<2>;\n	.reg .b32 %r<4>;\n	.reg .b64 %rd<3>;\n"
	"	mov.u32 %r2, %tid.x;\n	mov.u32 %r3, %ctaid.x;\n	or.b32 %r2, %r2, %r3;\n"
	"	setp.ne.u32 %p1, %r2, 0;\n	@%p1 bra $L_done;\n"
	"	ld.param.u64 %rd1, [poke_param_0];\n"
	"	ld.param.u32 %r1, [poke_param_1];\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	st.global.u32 [%rd2], %r1;\n"
	"$L_done:\n"
	"	ret;\n"
	"}\n";

/* Compiles @ptx with libvgpu's compiler and loads it into the current file. */
static int program_create_ptx(const char *ptx, size_t len, uint32_t *handle)
{
	struct drm_vgpu_program_create pc = { 0 };
	void *image = NULL;
	size_t size = 0;
	char err[256];
	int ret;

	if (vgpu_compile_ptx(ptx, len, &image, &size, err, sizeof(err))) {
		printf("# compile: %s\n", err);
		return EINVAL;
	}
	pc.data = (uintptr_t)image;
	pc.size = (uint32_t)size;
	ret = vioctl(DRM_IOCTL_VGPU_PROGRAM_CREATE, &pc);
	free(image);
	if (!ret)
		*handle = pc.handle;
	return ret;
}

/* The image of img_build() whose code is a NOP then a TRAP: -EILSEQ. */
static void img_build_trap(struct image *im)
{
	uint64_t code[2] = { 0, ISA_TRAP };

	img_build(im);
	img_hdr(im)->code_size = sizeof(code);
	img_hdr(im)->data_offset = img_hdr(im)->code_offset + sizeof(code);
	im->size = img_hdr(im)->data_offset + img_hdr(im)->data_init_size;
	img_hdr(im)->image_size = im->size;
	img_entry(im, 0)->code_end = sizeof(code);
	memcpy(im->buf + img_hdr(im)->code_offset, code, sizeof(code));
	memset(im->buf + img_hdr(im)->data_offset, 0x42, img_hdr(im)->data_init_size);
}

/*
 * A launch of spin (spin_ptx.h): @blocks blocks of 32 threads, @loops
 * loops, storing nothing.
 */
static void spin_launch(struct launch *l, uint32_t prog, uint64_t loops, uint32_t blocks)
{
	uint64_t out = 0;
	uint32_t n = 0;

	launch_init(l, prog, 0);
	memcpy(l->params, &loops, 8);
	memcpy(l->params + 8, &out, 8);
	memcpy(l->params + 16, &n, 4);
	l->s.params_size = 20;
	l->s.grid[0] = blocks;
	l->s.num_bos = 0;	/* every buffer of the file */
}

/* A launch of poke storing @v at @addr, without a buffer list. */
static void poke_launch(struct launch *l, uint32_t prog, uint64_t addr, uint32_t v)
{
	launch_init(l, prog, 0);
	memcpy(l->params, &addr, 8);
	memcpy(l->params + 8, &v, 4);
	l->s.params_size = 12;
	l->s.num_bos = 0;
}

/* SUBMIT of @l waiting for @n syncobjs at @in, its fence into @out. */
static int submit_deps(struct launch *l, const uint32_t *in, uint32_t n, uint32_t out)
{
	l->s.in_syncobjs = (uintptr_t)in;
	l->s.num_in_syncobjs = n;
	l->s.out_syncobj = out;
	return vioctl(DRM_IOCTL_VGPU_SUBMIT, &l->s);
}

/* Runs @l (fence into @syncobj) to its end; its record in @ji. */
static bool run_job(struct launch *l, uint32_t syncobj, struct drm_vgpu_job_info *ji)
{
	memset(ji, 0, sizeof(*ji));
	drmSyncobjReset(fd, &syncobj, 1);
	return !submit_deps(l, NULL, 0, syncobj) && wait_job(syncobj, l->s.job_id, ji) &&
	       ji->state == DRM_VGPU_JOB_DONE;
}

static void check_deps(void)
{
	bool done;
	static struct launch l;
	static uint32_t hs[DRM_VGPU_MAX_IN_SYNCOBJS + 1];
	struct drm_vgpu_job_info ja, jb, jc;
	uint32_t prog, prog_spin = 0, prog_trap = 0, bo, sa, sb, sc, empty;
	uint64_t ida, idb, idc;
	struct image im;

	img_build(&im);
	if (program_create(&im, &prog) || bo_create(4096, &bo, NULL) ||
	    program_create_ptx(spin_ptx, sizeof(spin_ptx) - 1, &prog_spin) ||
	    drmSyncobjCreate(fd, 0, &sa) || drmSyncobjCreate(fd, 0, &sb) ||
	    drmSyncobjCreate(fd, 0, &sc) || drmSyncobjCreate(fd, 0, &empty)) {
		result(false, "programs, buffer and syncobjs for the dependency checks");
		return;
	}
	img_build_trap(&im);
	result(!program_create(&im, &prog_trap), "PROGRAM_CREATE of a NOP, TRAP kernel");

	/* Bad in-syncobj arrays. */
	for (int i = 0; i <= DRM_VGPU_MAX_IN_SYNCOBJS; i++)
		hs[i] = sa;
	launch_init(&l, prog, bo);
	l.s.in_syncobjs = (uintptr_t)hs;
	l.s.num_in_syncobjs = DRM_VGPU_MAX_IN_SYNCOBJS + 1;
	submit_expect("65 in-syncobjs -> E2BIG", &l, E2BIG);
	launch_init(&l, prog, bo);
	l.s.in_syncobjs = 8;	/* unmapped */
	l.s.num_in_syncobjs = 1;
	submit_expect("unreadable in-syncobj array -> EFAULT", &l, EFAULT);
	launch_init(&l, prog, bo);
	hs[0] = 0xdeadbeef;
	l.s.in_syncobjs = (uintptr_t)hs;
	l.s.num_in_syncobjs = 1;
	submit_expect("unknown in-syncobj handle -> ENOENT", &l, ENOENT);
	hs[0] = empty;
	submit_expect("in-syncobj without a fence -> EINVAL", &l, EINVAL);
	launch_init(&l, prog, bo);
	l.s.in_pad = 1;
	submit_expect("in_pad set -> EINVAL", &l, EINVAL);

	/*
	 * A caller built with older headers passes the structure without the
	 * in-syncobj fields: the kernel zero-fills them, so whatever lies
	 * beyond in its memory is not read, and the launch waits for nothing.
	 */
	{
		unsigned long old_req = DRM_IOC(DRM_IOC_READ | DRM_IOC_WRITE, DRM_IOCTL_BASE,
					       DRM_COMMAND_BASE + DRM_VGPU_SUBMIT,
					       offsetof(struct drm_vgpu_submit, in_syncobjs));

		launch_init(&l, prog, bo);
		l.s.in_syncobjs = 8;
		l.s.num_in_syncobjs = DRM_VGPU_MAX_IN_SYNCOBJS + 1;
		l.s.in_pad = 7;
		l.s.out_syncobj = sa;
		done = !vioctl(old_req, &l.s) && l.s.job_id && wait_job(sa, l.s.job_id, &ja);
		result(done && ja.error == 0 && ja.tbs_done == 1,
		       "SUBMIT with the shorter structure of older headers runs (%d)", ja.error);
		drmSyncobjDestroy(fd, sa);
		if (drmSyncobjCreate(fd, 0, &sa)) {
			result(false, "drmSyncobjCreate");
			goto out;
		}
	}

	/*
	 * A -> B -> C: B, submitted while A runs, waits queued and starts at
	 * the cycle A ended; C at the cycle B ended.
	 */
	spin_launch(&l, prog_spin, 400, 96);
	memset(&ja, 0, sizeof(ja));
	if (submit_deps(&l, NULL, 0, sa)) {
		result(false, "SUBMIT of A");
		goto out;
	}
	ida = l.s.job_id;
	spin_launch(&l, prog_spin, 200, 16);
	if (submit_deps(&l, &sa, 1, sb)) {
		result(false, "SUBMIT of B waiting for A");
		goto out;
	}
	idb = l.s.job_id;
	if (!job_state(ida, &ja) && !job_state(idb, &jb)) {
		if (ja.state != DRM_VGPU_JOB_DONE)
			result(jb.state == DRM_VGPU_JOB_QUEUED && jb.start_cycle == 0,
			       "B waits queued while A runs (state %u)", jb.state);
		else
			result(true, "B waits queued while A runs # SKIP A ended first");
	}
	launch_init(&l, prog, bo);
	l.s.grid[0] = 4;
	if (submit_deps(&l, &sb, 1, sc)) {
		result(false, "SUBMIT of C waiting for B");
		goto out;
	}
	idc = l.s.job_id;
	if (!wait_job(sc, idc, &jc) || job_state(ida, &ja) || job_state(idb, &jb)) {
		result(false, "the chain A -> B -> C ends");
		goto out;
	}
	result(ja.error == 0 && jb.error == 0 && jc.error == 0 && ja.tbs_done == 96 &&
	       jb.tbs_done == 16 && jc.tbs_done == 4,
	       "A, B and C succeed (errors %d %d %d)", ja.error, jb.error, jc.error);
	result(jb.start_cycle == ja.end_cycle && jb.start_cycle > ja.start_cycle,
	       "B starts at the cycle A ended (A %llu..%llu, B from %llu)",
	       (unsigned long long)ja.start_cycle, (unsigned long long)ja.end_cycle,
	       (unsigned long long)jb.start_cycle);
	result(jc.start_cycle == jb.end_cycle,
	       "C starts at the cycle B ended (B ..%llu, C %llu..%llu)",
	       (unsigned long long)jb.end_cycle, (unsigned long long)jc.start_cycle,
	       (unsigned long long)jc.end_cycle);

	/* A' traps: B' and C' fail with ECANCELED at its end, without a block run. */
	launch_init(&l, prog_trap, bo);
	l.s.grid[0] = 8;
	if (!prog_trap || submit_deps(&l, NULL, 0, sa)) {
		result(false, "SUBMIT of a trapping A'");
		goto out;
	}
	ida = l.s.job_id;
	spin_launch(&l, prog_spin, 10, 4);
	result(!submit_deps(&l, &sa, 1, sb), "SUBMIT of B' waiting for A'");
	idb = l.s.job_id;
	launch_init(&l, prog, bo);
	result(!submit_deps(&l, &sb, 1, sc), "SUBMIT of C' waiting for B'");
	idc = l.s.job_id;
	if (!wait_job(sc, idc, &jc) || job_state(ida, &ja) || job_state(idb, &jb)) {
		result(false, "the failing chain ends");
		goto out;
	}
	result(ja.error == -EILSEQ, "A' fails with EILSEQ (%d)", ja.error);
	result(jb.error == -ECANCELED && jb.tbs_done == 0 && jb.warp_insts == 0 &&
	       jb.start_cycle == 0 && jb.end_cycle == ja.end_cycle,
	       "B' fails with ECANCELED at A's end without running (error %d, %llu blocks, "
	       "end %llu, A' end %llu)", jb.error, (unsigned long long)jb.tbs_done,
	       (unsigned long long)jb.end_cycle, (unsigned long long)ja.end_cycle);
	result(jc.error == -ECANCELED && jc.tbs_done == 0 && jc.start_cycle == 0,
	       "C' fails with ECANCELED too (%d)", jc.error);
	/* A fence that signalled with an error before the SUBMIT counts at once. */
	launch_init(&l, prog, bo);
	if (!submit_deps(&l, &sc, 1, sa) && wait_job(sa, l.s.job_id, &ja))
		result(ja.error == -ECANCELED && ja.tbs_done == 0,
		       "a launch waiting for a failed job's syncobj fails with ECANCELED (%d)",
		       ja.error);
	else
		result(false, "a launch waiting for a failed job's syncobj");
	/* and one that signalled without error lets the launch run at once */
	launch_init(&l, prog, bo);
	if (run_job(&l, sb, &jb)) {
		launch_init(&l, prog, bo);
		done = !submit_deps(&l, &sb, 1, sc) && wait_job(sc, l.s.job_id, &jc);
		result(done && jc.error == 0 && jc.tbs_done == 1,
		       "a launch waiting for a finished job's syncobj runs (%d)", jc.error);
	} else {
		result(false, "a job to wait for");
	}
out:
	drmSyncobjDestroy(fd, sa);
	drmSyncobjDestroy(fd, sb);
	drmSyncobjDestroy(fd, sc);
	drmSyncobjDestroy(fd, empty);
	{
		struct drm_vgpu_program_destroy pd = { .handle = prog };

		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
		pd.handle = prog_spin;
		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
		pd.handle = prog_trap;
		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
	bo_close(bo);
}

/* A syncobj of file @from imported into file @to; 0 on failure. */
static uint32_t syncobj_share(int from, uint32_t handle, int to)
{
	uint32_t imported = 0;
	int sfd = -1;

	if (drmSyncobjHandleToFD(from, handle, &sfd))
		return 0;
	if (drmSyncobjFDToHandle(to, sfd, &imported))
		imported = 0;
	close(sfd);
	return imported;
}

/*
 * Dependencies across files: a job of another file, through a syncobj
 * shared by file descriptor, is waited for like one of this file; when that
 * file is closed with a job that never ends and a job waiting for it, both
 * are cancelled, and this file's job that waits for them fails with
 * ECANCELED without running. The device goes on.
 */
static void check_deps_other_file(void)
{
	bool done;
	static struct launch l;
	struct drm_vgpu_job_info ji, jx;
	uint32_t prog, bo, sm, other_prog = 0, other_spin = 0, s_hang = 0, s_wait = 0, s_x = 0;
	uint32_t imported;
	int main_fd = fd, other_fd;
	uint64_t id_x;
	struct image im;

	img_build(&im);
	if (program_create(&im, &prog) || bo_create(4096, &bo, NULL) ||
	    drmSyncobjCreate(fd, 0, &sm)) {
		result(false, "program, buffer and syncobj for the cross-file checks");
		return;
	}
	other_fd = open_render_node();
	if (other_fd < 0) {
		result(false, "open a second render node file");
		goto out;
	}
	fd = other_fd;
	if (program_create(&im, &other_prog) ||
	    program_create_ptx(spin_ptx, sizeof(spin_ptx) - 1, &other_spin) ||
	    drmSyncobjCreate(fd, 0, &s_hang) || drmSyncobjCreate(fd, 0, &s_wait) ||
	    drmSyncobjCreate(fd, 0, &s_x)) {
		fd = main_fd;
		result(false, "programs and syncobjs in the second file");
		close(other_fd);
		goto out;
	}
	/* X in the other file; M in this one waits for it. */
	launch_init(&l, other_prog, 0);
	l.s.num_bos = 0;
	l.s.grid[0] = 64;
	result(!submit_deps(&l, NULL, 0, s_x), "SUBMIT of X in the other file");
	id_x = l.s.job_id;
	fd = main_fd;
	imported = syncobj_share(other_fd, s_x, fd);
	result(imported != 0, "X's syncobj shared into this file");
	launch_init(&l, prog, bo);
	if (imported && !submit_deps(&l, &imported, 1, sm) && wait_job(sm, l.s.job_id, &ji)) {
		fd = other_fd;
		done = wait_job(s_x, id_x, &jx);
		result(done && jx.error == 0, "X succeeds");
		fd = main_fd;
		result(ji.error == 0 && ji.start_cycle >= jx.end_cycle,
		       "a job waiting for another file's job runs after it (from %llu, X ended %llu)",
		       (unsigned long long)ji.start_cycle, (unsigned long long)jx.end_cycle);
	} else {
		result(false, "a job waiting for another file's job");
	}
	if (imported)
		drmSyncobjDestroy(fd, imported);

	/* H never ends (the device's time limit is far); W waits for it. */
	fd = other_fd;
	spin_launch(&l, other_spin, UINT64_C(1) << 40, 1);
	result(!submit_deps(&l, NULL, 0, s_hang), "SUBMIT of a kernel that never ends (H)");
	launch_init(&l, other_prog, 0);
	l.s.num_bos = 0;
	result(!submit_deps(&l, &s_hang, 1, s_wait), "SUBMIT of W waiting for H");
	fd = main_fd;
	imported = syncobj_share(other_fd, s_wait, fd);
	result(imported != 0, "W's syncobj shared into this file");
	launch_init(&l, prog, bo);
	drmSyncobjReset(fd, &sm, 1);
	if (!imported || submit_deps(&l, &imported, 1, sm)) {
		result(false, "SUBMIT of M waiting for W");
		close(other_fd);
		goto out;
	}
	done = !job_state(l.s.job_id, &ji);
	result(done && ji.state == DRM_VGPU_JOB_QUEUED,
	       "M waits queued (state %u)", ji.state);
	close(other_fd);	/* H and W are cancelled */
	done = wait_job(sm, l.s.job_id, &ji);
	result(done && ji.error == -ECANCELED && ji.tbs_done == 0 &&
	       ji.start_cycle == 0,
	       "closing the other file fails M with ECANCELED without running (error %d)",
	       ji.error);
	drmSyncobjDestroy(fd, imported);
	/* The device goes on: nothing of H is left on the SMs. */
	launch_init(&l, prog, bo);
	l.s.grid[0] = 64;
	done = run_job(&l, sm, &ji);
	result(done && ji.error == 0 && ji.tbs_done == 64,
	       "a launch after the close completes (%d)", ji.error);
out:
	fd = main_fd;
	drmSyncobjDestroy(fd, sm);
	{
		struct drm_vgpu_program_destroy pd = { .handle = prog };

		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
	bo_close(bo);
}

/* A mapping of buffer @handle of @size bytes in the current file, or NULL. */
static uint32_t *bo_map(uint32_t handle, uint64_t size)
{
	struct drm_vgpu_bo_mmap_offset mo = { .handle = handle };
	void *p;

	if (vioctl(DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)mo.offset);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * Launches without a buffer list may touch every buffer of their file, and
 * nothing else: an address outside every buffer of the file and another
 * file's buffer still fault with EFAULT; a launch that names a list is as
 * strict as before.
 */
static void check_no_bo_list(void)
{
	bool done;
	static struct launch l;
	struct drm_vgpu_job_info ji;
	uint32_t prog = 0, bo1, bo2, bo3, s, other_bo;
	uint64_t a1, a2, a3, other_addr;
	uint32_t *m2 = NULL, *other_map = NULL;
	int main_fd = fd, other_fd;

	if (program_create_ptx(poke_ptx, sizeof(poke_ptx) - 1, &prog) ||
	    bo_create(4096, &bo1, &a1) || bo_create(8192, &bo2, &a2) ||
	    bo_create(4096, &bo3, &a3) || drmSyncobjCreate(fd, 0, &s) ||
	    !(m2 = bo_map(bo2, 8192))) {
		result(false, "program, buffers and syncobj for the buffer-list checks");
		return;
	}
	other_fd = open_render_node();
	fd = other_fd;
	if (other_fd < 0 || bo_create(4096, &other_bo, &other_addr) ||
	    !(other_map = bo_map(other_bo, 4096))) {
		fd = main_fd;
		result(false, "a buffer in a second file");
		goto out;
	}
	fd = main_fd;
	other_map[0] = 0x5a5a5a5a;

	poke_launch(&l, prog, a2 + 4100, 0x1234abcd);
	done = run_job(&l, s, &ji);
	result(done && ji.error == 0 && m2[4100 / 4] == 0x1234abcd,
	       "no buffer list: a store into the file's own buffer lands (error %d, %#x)",
	       ji.error, m2[4100 / 4]);
	poke_launch(&l, prog, a2 + 8, 0x77);
	l.bos[0] = bo1;
	l.s.num_bos = 1;
	done = run_job(&l, s, &ji);
	result(done && ji.error == -EFAULT && m2[2] == 0,
	       "a buffer list still confines: a store into an unnamed buffer of the file "
	       "-> EFAULT (%d)", ji.error);
	poke_launch(&l, prog, 0x10, 1);
	done = run_job(&l, s, &ji);
	result(done && ji.error == -EFAULT && ji.fault_addr == 0x10,
	       "no buffer list: a store outside every buffer of the file -> EFAULT at %#llx (%d)",
	       (unsigned long long)ji.fault_addr, ji.error);
	poke_launch(&l, prog, other_addr, 0x66);
	done = run_job(&l, s, &ji);
	result(done && ji.error == -EFAULT && other_map[0] == 0x5a5a5a5a,
	       "no buffer list: another file's buffer -> EFAULT, untouched (%d, %#x)",
	       ji.error, other_map[0]);
	/* The snapshot keeps a buffer closed right after the SUBMIT. */
	poke_launch(&l, prog, a3 + 64, 0x99);
	drmSyncobjReset(fd, &s, 1);
	if (!submit_deps(&l, NULL, 0, s)) {
		bo_close(bo3);
		bo3 = 0;
		done = wait_job(s, l.s.job_id, &ji);
		result(done && ji.error == 0,
		       "a buffer closed after the SUBMIT stays the job's (%d)", ji.error);
	} else {
		result(false, "SUBMIT of a store into a buffer about to be closed");
	}
out:
	fd = main_fd;
	if (other_map)
		munmap(other_map, 4096);
	if (other_fd >= 0)
		close(other_fd);
	if (m2)
		munmap(m2, 8192);
	drmSyncobjDestroy(fd, s);
	{
		struct drm_vgpu_program_destroy pd = { .handle = prog };

		vioctl(DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
	bo_close(bo1);
	bo_close(bo2);
	if (bo3)
		bo_close(bo3);
}

/* ---- the backend device ---------------------------------------------------- */

/* A small valid device: 2 SMs of a Fermi-like machine. */
static void fake_desc(struct vgpu_device_desc *d)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->name, "ioctl-test");
	d->num_sms = 2;
	d->warp_size = 32;
	d->max_threads_per_sm = 1536;
	d->max_tbs_per_sm = 8;
	d->regs_per_sm = 32768;
	d->shared_per_sm = 49152;
	d->max_threads_per_tb = 1024;
	d->max_regs_per_thread = 63;
	d->max_shared_per_tb = 49152;
	d->core_clock_khz = 1400000;
	d->reg_alloc_unit = 2;
	d->shared_alloc_unit = 128;
}

static int bioctl(int bfd, unsigned long req, void *arg)
{
	return ioctl(bfd, req, arg) ? errno : 0;
}

static void bexpect(const char *name, int bfd, unsigned long req, void *arg,
		    int want)
{
	int got = bioctl(bfd, req, arg);

	if (got == want)
		result(true, "%s", name);
	else
		result(false, "%s: got %s (%d), want %s (%d)", name,
		       got ? strerror(got) : "success", got,
		       want ? strerror(want) : "success", want);
}

/* Opening the backend without CAP_SYS_ADMIN fails with EPERM. */
static void check_backend_perm(void)
{
	pid_t pid = fork();
	int status = 0;

	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct data[2];
		int bfd;

		if (syscall(SYS_capget, &hdr, data))
			_exit(3);
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
		if (syscall(SYS_capset, &hdr, data))
			_exit(3);
		bfd = open(VGPU_BACKEND_DEVICE, O_RDWR);
		_exit(bfd < 0 && errno == EPERM ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "backend open without CAP_SYS_ADMIN -> EPERM");
}

static void check_backend_attached_elsewhere(void)
{
	struct vgpu_backend_attach at = { .abi_version = VGPU_BACKEND_ABI_VERSION };
	struct vgpu_backend_kick k = { 0 };
	struct pollfd pfd;
	void *m;
	int bfd;

	bfd = open(VGPU_BACKEND_DEVICE, O_RDWR | O_CLOEXEC);
	if (bfd < 0) {
		result(false, "open %s: %s", VGPU_BACKEND_DEVICE, strerror(errno));
		return;
	}
	fake_desc(&at.desc);
	bexpect("ATTACH while vgpud is attached -> EBUSY", bfd,
		VGPU_BACKEND_IOC_ATTACH, &at, EBUSY);
	at.abi_version = VGPU_BACKEND_ABI_VERSION + 1;
	bexpect("ATTACH with a wrong ABI version -> EINVAL", bfd,
		VGPU_BACKEND_IOC_ATTACH, &at, EINVAL);
	k.cycle = UINT64_MAX;
	bexpect("KICK on a file that is not attached -> EINVAL", bfd,
		VGPU_BACKEND_IOC_KICK, &k, EINVAL);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, bfd, 0);
	result(m == MAP_FAILED, "mmap of a file that is not attached fails");
	if (m != MAP_FAILED)
		munmap(m, 4096);
	pfd = (struct pollfd){ .fd = bfd, .events = POLLIN };
	result(poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR),
	       "poll() of a file that is not attached reports POLLERR");
	close(bfd);
}

static void check_backend_own(void)
{
	struct vgpu_backend_attach at = { .abi_version = VGPU_BACKEND_ABI_VERSION };
	struct vgpu_backend_kick k = { 0 };
	struct drm_vgpu_job_info ji;
	static struct launch l;
	uint32_t prog, bo, syncobj = 0, nr = 0;
	uint8_t *cmd = MAP_FAILED;
	struct pollfd pfd;
	struct image im;
	uint64_t v = 0;
	int bfd, bfd2;

	bfd = open(VGPU_BACKEND_DEVICE, O_RDWR | O_CLOEXEC);
	if (bfd < 0) {
		result(false, "open %s: %s", VGPU_BACKEND_DEVICE, strerror(errno));
		return;
	}
#define BAD_DESC(name, stmt) do {					\
		fake_desc(&at.desc);					\
		stmt;							\
		bexpect("ATTACH " name " -> EINVAL", bfd,		\
			VGPU_BACKEND_IOC_ATTACH, &at, EINVAL);		\
	} while (0)
	BAD_DESC("with 0 SMs", at.desc.num_sms = 0);
	BAD_DESC("with 1025 SMs", at.desc.num_sms = 1025);
	BAD_DESC("with warp size 64", at.desc.warp_size = 64);
	BAD_DESC("with 65 TB slots per SM", at.desc.max_tbs_per_sm = 65);
	BAD_DESC("with no registers", at.desc.regs_per_sm = 0);
	BAD_DESC("with a block larger than an SM", at.desc.max_threads_per_tb = 2048);
	BAD_DESC("with a reserved field set", at.desc.reserved[2] = 1);
	BAD_DESC("with flags set", at.flags = 1);
	at.flags = 0;
	fake_desc(&at.desc);
	at.abi_version = 0;
	bexpect("ATTACH with ABI version 0 -> EINVAL", bfd, VGPU_BACKEND_IOC_ATTACH,
		&at, EINVAL);
	at.abi_version = VGPU_BACKEND_ABI_VERSION;
	if (bioctl(bfd, VGPU_BACKEND_IOC_ATTACH, &at)) {
		result(false, "ATTACH of a fake backend: %s", strerror(errno));
		close(bfd);
		return;
	}
	result(at.cmd.entry_size == sizeof(struct vgpu_cmd) &&
	       at.evt.entry_size == sizeof(struct vgpu_evt) &&
	       at.vram_size == lim.vram_size, "ATTACH of a fake backend");
	bexpect("a second ATTACH on the same file -> EBUSY", bfd,
		VGPU_BACKEND_IOC_ATTACH, &at, EBUSY);
	bfd2 = open(VGPU_BACKEND_DEVICE, O_RDWR | O_CLOEXEC);
	bexpect("ATTACH of a second backend -> EBUSY", bfd2, VGPU_BACKEND_IOC_ATTACH,
		&at, EBUSY);
	close(bfd2);
	result(!get_param(DRM_VGPU_PARAM_BACKEND_ATTACHED, &v) && v == 1,
	       "GET_PARAM BACKEND_ATTACHED is 1 with the fake backend");
	result(!get_param(DRM_VGPU_PARAM_NUM_SMS, &v) && v == 2,
	       "GET_PARAM NUM_SMS reports the fake backend's");

	result(mmap(NULL, at.cmd.map_size + 4096, PROT_READ, MAP_SHARED, bfd,
		    VGPU_BACKEND_OFF_CMD_RING) == MAP_FAILED,
	       "mmap of a ring with the wrong size fails");
	result(mmap(NULL, 4096, PROT_READ, MAP_SHARED, bfd, 0x1000) == MAP_FAILED,
	       "mmap at an unknown offset fails");
	result(mmap(NULL, at.cmd.map_size, PROT_READ, MAP_PRIVATE, bfd,
		    VGPU_BACKEND_OFF_CMD_RING) == MAP_FAILED,
	       "a private mapping of a ring fails");
	cmd = mmap(NULL, at.cmd.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, bfd,
		   VGPU_BACKEND_OFF_CMD_RING);
	result(cmd != MAP_FAILED &&
	       *(uint32_t *)(cmd + at.cmd.ring_entries) == 4096 &&
	       *(uint32_t *)(cmd + at.cmd.ring_mask) == 4095,
	       "mmap of the command ring");
	if (cmd == MAP_FAILED)
		goto out;
	/* Attaching hands the new backend the kernel-aware warp scheduling mode. */
	nr = __atomic_load_n((uint32_t *)(cmd + at.cmd.tail), __ATOMIC_ACQUIRE) -
	     *(uint32_t *)(cmd + at.cmd.head);
	{
		const struct vgpu_cmd *c = (const struct vgpu_cmd *)(cmd + at.cmd.entries);

		result(nr == 1 && c[0].op == VGPU_CMD_SET_KERNEL_SCHED &&
		       c[0].flags < VGPU_KSCHED_COUNT,
		       "attach queues one SET_KERNEL_SCHED with the sysfs mode");
	}
	__atomic_store_n((uint32_t *)(cmd + at.cmd.head),
			 *(uint32_t *)(cmd + at.cmd.head) + nr, __ATOMIC_RELEASE);

	k.cycle = at.start_cycle + 1;
	bexpect("KICK", bfd, VGPU_BACKEND_IOC_KICK, &k, 0);
	result(k.pending_cmds == 0, "KICK with no work leaves no commands");
	k.cycle = at.start_cycle;
	bexpect("KICK with a cycle going backwards -> EINVAL", bfd,
		VGPU_BACKEND_IOC_KICK, &k, EINVAL);
	k.cycle = at.start_cycle + 1;
	k.flags = 1;
	bexpect("KICK with flags set -> EINVAL", bfd, VGPU_BACKEND_IOC_KICK, &k, EINVAL);
	pfd = (struct pollfd){ .fd = bfd, .events = POLLIN };
	result(poll(&pfd, 1, 0) == 0, "poll() without commands does not report POLLIN");

	/* A launch shows up as JOB_BEGIN and DISPATCH and wakes the poller. */
	img_build(&im);
	if (program_create(&im, &prog) || bo_create(4096, &bo, NULL) ||
	    drmSyncobjCreate(fd, 0, &syncobj)) {
		result(false, "setup of a launch on the fake backend");
		goto out;
	}
	launch_init(&l, prog, bo);
	l.s.grid[0] = 3;
	l.s.out_syncobj = syncobj;
	submit_expect("on the fake backend", &l, 0);
	pfd = (struct pollfd){ .fd = bfd, .events = POLLIN };
	result(poll(&pfd, 1, 1000) == 1 && (pfd.revents & POLLIN),
	       "poll() reports POLLIN when commands are queued");
	nr = __atomic_load_n((uint32_t *)(cmd + at.cmd.tail), __ATOMIC_ACQUIRE) -
	     *(uint32_t *)(cmd + at.cmd.head);
	if (nr == 5) {
		/* after the SET_KERNEL_SCHED of the attach */
		struct vgpu_cmd *c = (struct vgpu_cmd *)(cmd + at.cmd.entries) +
				     (*(uint32_t *)(cmd + at.cmd.head) & 4095);

		result(c[0].op == VGPU_CMD_JOB_BEGIN && c[0].job == l.s.job_id &&
		       c[0].addr != 0 && c[1].op == VGPU_CMD_DISPATCH &&
		       c[1].tb == 0 && c[2].tb == 1 && c[3].tb == 2,
		       "the launch is JOB_BEGIN then one DISPATCH per block");
		/* blocks run: the daemon must come back within a sync quantum */
		result(c[4].op == VGPU_CMD_WAKE_AT && c[4].addr == at.start_cycle + 1 + 10000,
		       "then a WAKE_AT one sync quantum ahead (%llu)",
		       (unsigned long long)c[4].addr);
	} else {
		result(false, "the launch queued %u commands, want 5", nr);
	}
	memset(&ji, 0, sizeof(ji));
	ji.job_id = l.s.job_id;
	result(!vioctl(DRM_IOCTL_VGPU_JOB_INFO, &ji) && ji.state == DRM_VGPU_JOB_RUNNING,
	       "the job is running");

	/* The backend goes away: the job fails with EIO. */
	munmap(cmd, at.cmd.map_size);
	cmd = MAP_FAILED;
	close(bfd);
	bfd = -1;
	result(wait_job(syncobj, l.s.job_id, &ji) && ji.state == DRM_VGPU_JOB_DONE &&
	       ji.error == -EIO, "detaching fails the running job with EIO (error %d)",
	       ji.error);
	result(!get_param(DRM_VGPU_PARAM_BACKEND_ATTACHED, &v) && v == 0,
	       "no backend is attached after the detach");
	launch_init(&l, prog, bo);
	submit_expect("after the detach -> ENODEV", &l, ENODEV);
	drmSyncobjDestroy(fd, syncobj);
	bo_close(bo);
	{
		struct drm_vgpu_program_destroy pd = { .handle = prog };

		expect("PROGRAM_DESTROY after the detach", DRM_IOCTL_VGPU_PROGRAM_DESTROY,
		       &pd, 0);
	}
out:
	if (cmd != MAP_FAILED)
		munmap(cmd, at.cmd.map_size);
	if (bfd >= 0)
		close(bfd);
}

static void check_no_daemon(void)
{
	static struct launch l;
	struct image im;
	uint32_t bo;

	img_build(&im);
	program_expect("without a daemon -> ENODEV", &im, ENODEV);
	if (bo_create(4096, &bo, NULL)) {
		result(false, "BO_CREATE for the SUBMIT without a daemon");
		return;
	}
	launch_init(&l, 1, bo);
	submit_expect("without a daemon -> ENODEV", &l, ENODEV);
	bo_close(bo);
}

int main(int argc, char **argv)
{
	bool daemon = true;
	uint32_t bo;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-daemon")) {
			daemon = false;
		} else {
			fprintf(stderr, "usage: %s [--no-daemon]\n", argv[0]);
			return 2;
		}
	}
	fd = open_render_node();
	if (fd < 0) {
		printf("not ok - open the vgpu render node\n0 passed, 1 failed\n");
		return 1;
	}
	result(true, "open the vgpu render node");
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	result(kmsg >= 0, "open /dev/kmsg to see the driver's debug lines");

	check_get_param(daemon);
	check_bo_mmap("before the bad calls");
	check_bo_errors();
	check_backend_perm();
	if (daemon) {
		check_programs();
		check_submit();
		check_wait_and_clock();
		check_deps();
		check_deps_other_file();
		check_no_bo_list();
		check_backend_attached_elsewhere();
	} else {
		check_no_daemon();
		check_backend_own();
	}

	/* The device still works after all the bad calls. */
	result(!bo_create(1 << 20, &bo, NULL), "BO_CREATE after the bad calls");
	bo_close(bo);
	check_bo_mmap("after the bad calls");

	close(fd);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
