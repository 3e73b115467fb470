// SPDX-License-Identifier: MIT
/*
 * libvgpu runtime: the vgpu render node through libdrm.
 */
#include "vgpu.h"
#include "local_cp.h"
#include "vgpu_local.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "compiler/vgpu_compile.h"

struct vgpu_device {
	int fd;
	struct vgpu_local *local;	/* in-process model (vgpu_local.c), or NULL */
};

static int vgpu_ioctl(struct vgpu_device *dev, unsigned long req, void *arg)
{
	return drmIoctl(dev->fd, req, arg) ? -errno : 0;
}

static bool is_vgpu_node(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	bool ok = v && v->name && strcmp(v->name, "vgpu") == 0;

	drmFreeVersion(v);
	return ok;
}

int vgpu_device_open(const char *path, struct vgpu_device **out)
{
	struct vgpu_device *dev;
	int fd = -1;

	if (path) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (!is_vgpu_node(fd)) {
			close(fd);
			return -ENODEV;
		}
	} else {
		for (int minor = 128; minor < 192 && fd < 0; minor++) {
			char node[64];

			snprintf(node, sizeof(node), "/dev/dri/renderD%d", minor);
			fd = open(node, O_RDWR | O_CLOEXEC);
			if (fd >= 0 && !is_vgpu_node(fd)) {
				close(fd);
				fd = -1;
			}
		}
		if (fd < 0)
			return -ENODEV;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		return -ENOMEM;
	}
	dev->fd = fd;
	*out = dev;
	return 0;
}

struct vgpu_device *vgpu_device_new_local(struct vgpu_local *local)
{
	struct vgpu_device *dev = calloc(1, sizeof(*dev));

	if (dev) {
		dev->fd = -1;
		dev->local = local;
	}
	return dev;
}

struct vgpu_local *vgpu_device_local(const struct vgpu_device *dev)
{
	return dev->local;
}

void vgpu_device_close(struct vgpu_device *dev)
{
	if (!dev)
		return;
	if (dev->local)
		vgpu_local_close(dev->local);
	else
		close(dev->fd);
	free(dev);
}

int vgpu_device_fd(const struct vgpu_device *dev)
{
	return dev->fd;
}

int vgpu_get_param(struct vgpu_device *dev, uint32_t param, uint64_t *value)
{
	struct drm_vgpu_get_param gp = { .param = param };
	int ret;

	if (dev->local)
		return local_cp_get_param(vgpu_local_file(dev->local), param, value);
	ret = vgpu_ioctl(dev, DRM_IOCTL_VGPU_GET_PARAM, &gp);
	if (!ret)
		*value = gp.value;
	return ret;
}

static void gem_close(struct vgpu_device *dev, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	vgpu_ioctl(dev, DRM_IOCTL_GEM_CLOSE, &gc);
}

int vgpu_bo_create(struct vgpu_device *dev, uint64_t size, struct vgpu_bo **out)
{
	struct drm_vgpu_bo_create create = { .size = size };
	struct drm_vgpu_bo_mmap_offset mo = { 0 };
	struct vgpu_bo *bo;
	int ret;

	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	if (dev->local) {
		struct local_file *f = vgpu_local_file(dev->local);
		uint64_t addr;

		ret = local_cp_bo_create(f, size, &create.handle, &addr);
		if (ret)
			goto err_free;
		create.device_address = addr;
		bo->map = local_cp_vram(local_file_cp(f)) + addr;
		goto done;
	}
	ret = vgpu_ioctl(dev, DRM_IOCTL_VGPU_BO_CREATE, &create);
	if (ret)
		goto err_free;
	mo.handle = create.handle;
	ret = vgpu_ioctl(dev, DRM_IOCTL_VGPU_BO_MMAP_OFFSET, &mo);
	if (ret)
		goto err_close;
	bo->map = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       dev->fd, (off_t)mo.offset);
	if (bo->map == MAP_FAILED) {
		ret = -errno;
		goto err_close;
	}
done:
	bo->dev = dev;
	bo->handle = create.handle;
	bo->size = create.size;
	bo->addr = create.device_address;
	*out = bo;
	return 0;

err_close:
	gem_close(dev, create.handle);
err_free:
	free(bo);
	return ret;
}

void vgpu_bo_destroy(struct vgpu_bo *bo)
{
	if (!bo)
		return;
	if (bo->dev->local) {
		local_cp_bo_destroy(vgpu_local_file(bo->dev->local), bo->handle);
	} else {
		munmap(bo->map, bo->size);
		gem_close(bo->dev, bo->handle);
	}
	free(bo);
}

int vgpu_program_create_image(struct vgpu_device *dev, const void *image,
			      size_t size, struct vgpu_program **out)
{
	struct drm_vgpu_program_create pc = {
		.data = (uintptr_t)image,
		.size = (uint32_t)size,
	};
	struct vgpu_program *prog;
	int ret;

	if (size > VGPU_PROGRAM_MAX_SIZE)
		return -E2BIG;
	prog = calloc(1, sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	prog->image = malloc(size);
	if (!prog->image) {
		free(prog);
		return -ENOMEM;
	}
	memcpy(prog->image, image, size);
	prog->image_size = size;
	if (dev->local)
		ret = local_cp_program_create(vgpu_local_file(dev->local), image, size, &pc.handle);
	else
		ret = vgpu_ioctl(dev, DRM_IOCTL_VGPU_PROGRAM_CREATE, &pc);
	if (ret) {
		free(prog->image);
		free(prog);
		return ret;
	}
	prog->dev = dev;
	prog->handle = pc.handle;
	*out = prog;
	return 0;
}

int vgpu_program_create_ptx(struct vgpu_device *dev, const char *ptx, size_t len,
			    struct vgpu_program **out, char *err, size_t errlen)
{
	return vgpu_program_create_ptx_opts(dev, ptx, len, 0, out, err, errlen);
}

void vgpu_device_compile_limits(struct vgpu_device *dev, struct vgpu_compile_limits *lim)
{
	static const uint32_t params[] = {
		DRM_VGPU_PARAM_MAX_REGS_PER_THREAD, DRM_VGPU_PARAM_MAX_SHARED_PER_TB,
		DRM_VGPU_PARAM_MAX_LOCAL_PER_THREAD, DRM_VGPU_PARAM_MAX_THREADS_PER_TB,
	};
	unsigned int *field[] = {
		&lim->regs_per_thread, &lim->shared_per_tb, &lim->local_per_thread,
		&lim->threads_per_tb,
	};

	memset(lim, 0, sizeof(*lim));
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		uint64_t v;

		if (!vgpu_get_param(dev, params[i], &v) && v <= UINT32_MAX)
			*field[i] = (unsigned int)v;
	}
	lim->param_bytes = DRM_VGPU_MAX_PARAM_BYTES;
}

int vgpu_program_create_ptx_opts(struct vgpu_device *dev, const char *ptx, size_t len,
				 unsigned int opts, struct vgpu_program **out, char *err,
				 size_t errlen)
{
	struct vgpu_compile_limits lim;
	void *image = NULL;
	size_t size = 0;
	int ret;

	/* compiled for the device: spills to its registers per thread, and an
	 * entry that needs more than it offers fails naming what */
	vgpu_device_compile_limits(dev, &lim);
	ret = vgpu_compile_ptx_limits(ptx, len, opts, &lim, &image, &size, err, errlen);
	if (ret)
		return ret;
	ret = vgpu_program_create_image(dev, image, size, out);
	if (ret && errlen) {
		char why[256] = "";

		if (ret == -E2BIG &&
		    vgpu_compile_check_limits(image, size, &lim, why, sizeof(why)) == -E2BIG)
			snprintf(err, errlen, "program rejected by the device: %s", why);
		else
			snprintf(err, errlen, "program rejected by the device: %s",
				 strerror(-ret));
	}
	free(image);
	return ret;
}

void vgpu_program_destroy(struct vgpu_program *prog)
{
	struct drm_vgpu_program_destroy pd;

	if (!prog)
		return;
	if (prog->dev->local) {
		local_cp_program_destroy(vgpu_local_file(prog->dev->local), prog->handle);
	} else {
		pd = (struct drm_vgpu_program_destroy){ .handle = prog->handle };
		vgpu_ioctl(prog->dev, DRM_IOCTL_VGPU_PROGRAM_DESTROY, &pd);
	}
	free(prog->image);
	free(prog);
}

const struct vgpu_program_entry *
vgpu_program_entry(const struct vgpu_program *prog, uint32_t index)
{
	const struct vgpu_program_header *hdr = prog->image;

	if (index >= hdr->num_entries)
		return NULL;
	return (const void *)((const uint8_t *)prog->image + hdr->entries_offset +
			      (size_t)index * hdr->entry_size);
}

/* Does @mangled read "_Z<len><name>..." for @name? */
static bool mangles(const char *mangled, const char *name)
{
	size_t n = strlen(name);
	char prefix[32];
	int len = snprintf(prefix, sizeof(prefix), "_Z%zu", n);

	return strncmp(mangled, prefix, (size_t)len) == 0 &&
	       strncmp(mangled + len, name, n) == 0;
}

int vgpu_program_find_entry(const struct vgpu_program *prog, const char *name,
			    uint32_t *index)
{
	const struct vgpu_program_header *hdr = prog->image;
	uint32_t i;

	for (i = 0; i < hdr->num_entries; i++) {
		if (strcmp(vgpu_program_entry(prog, i)->name, name) == 0)
			goto found;
	}
	for (i = 0; i < hdr->num_entries; i++) {
		if (mangles(vgpu_program_entry(prog, i)->name, name))
			goto found;
	}
	return -ENOENT;
found:
	*index = i;
	return 0;
}

void vgpu_params_init(struct vgpu_params *p)
{
	p->size = 0;
	p->overflow = false;
}

static void params_put_aligned(struct vgpu_params *p, const void *v, uint32_t n,
			       uint32_t align)
{
	uint32_t off = (p->size + align - 1) & ~(align - 1);

	if (!align || align & (align - 1) || off < p->size || n > sizeof(p->bytes) ||
	    off > sizeof(p->bytes) - n) {
		p->overflow = true;
		return;
	}
	memset(p->bytes + p->size, 0, off - p->size);
	memcpy(p->bytes + off, v, n);
	p->size = off + n;
}

static void params_put(struct vgpu_params *p, const void *v, uint32_t n)
{
	params_put_aligned(p, v, n, n);
}

void vgpu_params_u8(struct vgpu_params *p, uint8_t v)
{
	params_put(p, &v, sizeof(v));
}

void vgpu_params_u16(struct vgpu_params *p, uint16_t v)
{
	params_put(p, &v, sizeof(v));
}

void vgpu_params_bytes(struct vgpu_params *p, const void *v, uint32_t size, uint32_t align)
{
	params_put_aligned(p, v, size, align);
}

void vgpu_params_u32(struct vgpu_params *p, uint32_t v)
{
	params_put(p, &v, sizeof(v));
}

void vgpu_params_u64(struct vgpu_params *p, uint64_t v)
{
	params_put(p, &v, sizeof(v));
}

void vgpu_params_f32(struct vgpu_params *p, float v)
{
	params_put(p, &v, sizeof(v));
}

void vgpu_params_f64(struct vgpu_params *p, double v)
{
	params_put(p, &v, sizeof(v));
}

void vgpu_params_ptr(struct vgpu_params *p, const struct vgpu_bo *bo)
{
	vgpu_params_u64(p, bo->addr);
}

/* The SUBMIT arguments of @launch, its buffers' handles into @handles. */
static int submit_args(struct vgpu_device *dev, const struct vgpu_program *prog,
		       const struct vgpu_launch *launch, struct drm_vgpu_submit *s,
		       uint32_t *handles)
{
	if (launch->params && launch->params->overflow)
		return -E2BIG;
	if (launch->num_bos > DRM_VGPU_MAX_SUBMIT_BOS)
		return -E2BIG;
	if (launch->num_wait_syncobjs > DRM_VGPU_MAX_IN_SYNCOBJS)
		return -E2BIG;
	for (unsigned int i = 0; i < launch->num_bos; i++) {
		if (launch->bos[i]->dev != dev)
			return -ENOENT;	/* another device's buffer */
		handles[i] = launch->bos[i]->handle;
	}
	if (prog->dev != dev)
		return -ENOENT;
	memset(s, 0, sizeof(*s));
	s->program = prog->handle;
	s->entry = launch->entry;
	memcpy(s->grid, launch->grid, sizeof(s->grid));
	memcpy(s->block, launch->block, sizeof(s->block));
	s->dynamic_shared = launch->dynamic_shared;
	if (launch->params) {
		s->params = (uintptr_t)launch->params->bytes;
		s->params_size = launch->params->size;
	}
	s->bo_handles = (uintptr_t)handles;
	s->num_bos = launch->num_bos;
	s->priority = launch->priority;
	s->latency_budget_us = launch->latency_budget_us;
	s->timeout_us = launch->timeout_us;
	if (launch->not_before) {
		s->flags |= DRM_VGPU_SUBMIT_NOT_BEFORE;
		s->not_before_cycle = launch->not_before_cycle;
	}
	s->in_syncobjs = (uintptr_t)launch->wait_syncobjs;
	s->num_in_syncobjs = launch->num_wait_syncobjs;
	return 0;
}

int vgpu_submit(struct vgpu_device *dev, const struct vgpu_program *prog,
		const struct vgpu_launch *launch, struct vgpu_job *job)
{
	uint32_t handles[DRM_VGPU_MAX_SUBMIT_BOS];
	struct drm_vgpu_submit s;
	uint32_t syncobj = 0;
	int ret;

	ret = submit_args(dev, prog, launch, &s, handles);
	if (ret)
		return ret;
	if (dev->local) {
		struct local_file *f = vgpu_local_file(dev->local);
		uint32_t id = 0;

		ret = local_cp_syncobj_create(f, &syncobj);
		if (ret)
			return ret;
		s.out_syncobj = syncobj;
		ret = local_cp_submit(f, &s, handles, launch->wait_syncobjs,
				      launch->params ? launch->params->bytes : NULL, &id);
		if (ret)
			local_cp_syncobj_destroy(f, syncobj);
		s.job_id = id;
	} else {
		if (drmSyncobjCreate(dev->fd, 0, &syncobj))
			return -errno;
		s.out_syncobj = syncobj;
		ret = vgpu_ioctl(dev, DRM_IOCTL_VGPU_SUBMIT, &s);
		if (ret)
			drmSyncobjDestroy(dev->fd, syncobj);
	}
	if (ret)
		return ret;
	job->dev = dev;
	job->id = s.job_id;
	job->syncobj = syncobj;
	return 0;
}

void vgpu_syncobj_destroy(struct vgpu_device *dev, uint32_t syncobj)
{
	if (!syncobj)
		return;
	if (dev->local)
		local_cp_syncobj_destroy(vgpu_local_file(dev->local), syncobj);
	else
		drmSyncobjDestroy(dev->fd, syncobj);
}

int vgpu_local_job_desc(struct vgpu_device *dev, const struct vgpu_program *prog,
			const struct vgpu_launch *launch, uint32_t job,
			struct vgpu_local_layout *out)
{
	uint32_t handles[DRM_VGPU_MAX_SUBMIT_BOS];
	struct local_cp_layout l;
	struct drm_vgpu_submit s;
	int ret;

	if (!dev->local)
		return -ENODEV;
	ret = submit_args(dev, prog, launch, &s, handles);
	if (!ret)
		ret = local_cp_job_desc(vgpu_local_file(dev->local), &s, handles,
					launch->params ? launch->params->bytes : NULL, job, &l);
	if (ret)
		return ret;
	out->desc_addr = l.desc_addr;
	out->num_tbs = l.num_tbs;
	out->tbs_per_sm = l.tbs_per_sm;
	out->regs_per_tb = l.regs_per_tb;
	out->shared_per_tb = l.shared_per_tb;
	return 0;
}

int vgpu_local_program_data(const struct vgpu_program *prog, uint64_t *addr, uint32_t *size)
{
	if (!prog->dev->local)
		return -ENODEV;
	return local_cp_program_data(vgpu_local_file(prog->dev->local), prog->handle, addr, size);
}

int vgpu_clock_sync(struct vgpu_device *dev, bool join, uint32_t rank)
{
	struct drm_vgpu_clock_sync cs = {
		.flags = join ? DRM_VGPU_CLOCK_SYNC_JOIN : 0,
		.rank = join ? rank : 0,
	};

	if (dev->local)
		return local_cp_clock_sync(vgpu_local_file(dev->local), join, cs.rank);
	return vgpu_ioctl(dev, DRM_IOCTL_VGPU_CLOCK_SYNC, &cs);
}

int vgpu_job_wait(struct vgpu_job *job, int64_t timeout_ns,
		  struct vgpu_job_result *res)
{
	struct drm_vgpu_job_info info = {
		.job_id = job->id,
		.flags = DRM_VGPU_JOB_INFO_RELEASE,
	};
	/*
	 * The driver's own wait rather than the syncobj's: a process of the
	 * synchronised clock lets simulated time run only while it waits here.
	 */
	struct drm_vgpu_wait wait = { .job_id = job->id, .timeout_ns = timeout_ns };
	int ret;

	if (job->dev->local) {
		ret = vgpu_local_wait(job->dev->local, (uint32_t)job->id, timeout_ns);
		if (!ret)
			ret = local_cp_job_info(vgpu_local_file(job->dev->local), &info);
		if (ret)
			return ret;
	} else {
		ret = vgpu_ioctl(job->dev, DRM_IOCTL_VGPU_WAIT, &wait);
		if (ret)
			return ret;
		ret = vgpu_ioctl(job->dev, DRM_IOCTL_VGPU_JOB_INFO, &info);
		if (ret)
			return ret;
	}
	vgpu_syncobj_destroy(job->dev, job->syncobj);
	job->syncobj = 0;
	res->error = info.error;
	res->start_cycle = info.start_cycle;
	res->end_cycle = info.end_cycle;
	res->cycles = info.end_cycle - info.start_cycle;
	res->warp_insts = info.warp_insts;
	res->tbs_done = info.tbs_done;
	res->fault_flags = info.fault_flags;
	res->fault_tb = info.fault_tb;
	res->fault_pc = info.fault_pc;
	res->fault_addr = info.fault_addr;
	return 0;
}

const char *vgpu_job_describe(const struct vgpu_job_result *res,
			      const struct vgpu_program *prog, uint32_t entry,
			      char *buf, size_t len)
{
	const struct vgpu_program_entry *e = prog ? vgpu_program_entry(prog, entry) : NULL;
	size_t n;

	n = (size_t)snprintf(buf, len, "%s", res->error ? strerror(-res->error) : "no error");
	if (e && n < len)
		n += (size_t)snprintf(buf + n, len - n, " in kernel %s", e->name);
	if (res->fault_flags & DRM_VGPU_FAULT_TB && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", block %" PRIu32, res->fault_tb);
	if (res->fault_flags & DRM_VGPU_FAULT_PC && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", instruction %" PRIu32, res->fault_pc);
	if (res->fault_flags & DRM_VGPU_FAULT_ADDR && n < len)
		snprintf(buf + n, len - n, ", address %#" PRIx64, res->fault_addr);
	return buf;
}

int vgpu_run(struct vgpu_device *dev, const struct vgpu_program *prog,
	     const struct vgpu_launch *launch, struct vgpu_job_result *res)
{
	struct vgpu_job job;
	int ret = vgpu_submit(dev, prog, launch, &job);

	if (ret)
		return ret;
	return vgpu_job_wait(&job, -1, res);
}
