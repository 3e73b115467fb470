# vgpu - top-level build.
#
#   make            module (against the cached test kernel) + userspace
#   make demo       runs the three workloads in a QEMU guest
#   make check      every test: host unit tests, KUnit and end-to-end in QEMU
#   make checkpatch kernel style of the module sources
#
# The test kernel is built once by tools/build-kernel and cached outside the
# tree (~/.cache/vgpu, or $VGPU_CACHE).

.PHONY: all module userspace guest host-tests check demo checkpatch clean deps
.DEFAULT_GOAL := all

SHELL := /bin/bash
B := build
UAPI := uapi
DEPS_STAMP := $(B)/.deps

CC ?= cc
CSTD := -std=c11 -D_GNU_SOURCE
WARN := -Wall -Wextra -Werror
DRM_CFLAGS = $(shell pkg-config --cflags libdrm 2>/dev/null)
DRM_LIBS = $(shell pkg-config --libs libdrm 2>/dev/null)
INC := -I$(UAPI) -Iuserspace/include -Iuserspace -Iuserspace/lib -Iuserspace/sim
GUEST_CFLAGS := $(CSTD) $(WARN) -O2 -g $(INC)
HOST_CFLAGS := $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all $(INC)

COMPILER_SRCS := $(wildcard userspace/lib/compiler/*.c)
# local_cp.c hosts the kernel's command processor: it is built with it, below.
RUNTIME_SRCS := $(filter-out userspace/lib/local_cp.c,$(wildcard userspace/lib/*.c))
SIM_SRCS := $(wildcard userspace/sim/*.c)
DAEMON_SRCS := $(wildcard userspace/daemon/*.c)
WORKLOAD_SRCS := $(wildcard userspace/workloads/*.c)
TOOL_SRCS := $(wildcard userspace/tools/*.c)
WORKLOAD_PTX := $(sort $(wildcard userspace/workloads/*.ptx))
USER_HDRS := $(wildcard uapi/drm/*.h userspace/include/vgpu/*.h userspace/lib/*.h \
	userspace/lib/compiler/*.h userspace/sim/*.h userspace/daemon/*.h \
	userspace/workloads/*.h userspace/tools/*.h)
HOST_TESTS := $(patsubst userspace/tests/%.c,$(B)/host/%,$(wildcard userspace/tests/test_*.c))

all: module userspace

# The command processor of vgpu.ko, compiled unchanged for libvgpu's local
# device over kcompat (userspace/kcompat: the kernel interfaces these files
# use, on libc and pthreads), as the kernel's tools/testing/vma does. Kernel
# files get the kernel's own warnings (W=1 without its noisiest three).
include drivers/gpu/drm/vgpu/vgpu_cp.mk
CP_SRCS := $(addprefix drivers/gpu/drm/vgpu/,$(vgpu-cp-y:.o=.c))
KCOMPAT_SRCS := $(wildcard userspace/kcompat/*.c)
CP_LIB_SRCS := $(CP_SRCS) $(KCOMPAT_SRCS) userspace/lib/local_cp.c
CP_HDRS := $(wildcard drivers/gpu/drm/vgpu/*.h userspace/kcompat/include/*/*.h) \
	userspace/lib/local_cp.h
KCOMPAT_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers -Werror -include kcompat.h \
	-Iuserspace/kcompat/include -Idrivers/gpu/drm/vgpu $(INC) $(DRM_CFLAGS)
HOST_SAN := -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
vpath %.c drivers/gpu/drm/vgpu userspace/kcompat userspace/lib

$(B)/guest/cp/%.o: %.c $(CP_HDRS) $(USER_HDRS) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCOMPAT_CFLAGS) -O2 -g -c $< -o $@
$(B)/host/cp/%.o: %.c $(CP_HDRS) $(USER_HDRS) $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCOMPAT_CFLAGS) -O1 -g $(HOST_SAN) -c $< -o $@
CP_OBJS = $(patsubst %.c,$(B)/$(1)/cp/%.o,$(notdir $(CP_LIB_SRCS)))
$(B)/guest/libvgpu_cp.a: $(call CP_OBJS,guest)
	@rm -f $@
	ar rcs $@ $^
$(B)/host/libvgpu_cp.a: $(call CP_OBJS,host)
	@rm -f $@
	ar rcs $@ $^

# Debian packages the build needs; installed when missing.
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@. tools/lib.sh && vgpu_need_packages build-essential pkg-config libdrm-dev \
		linux-source-6.12 bc bison flex libelf-dev libssl-dev kmod cpio \
		qemu-system-x86 busybox-static file
	@mkdir -p $(B) && touch $@

module: $(DEPS_STAMP)
	@kdir=$$(tools/build-kernel) && \
		$(MAKE) -s -C "$$kdir" M=$(CURDIR) modules

# Embedded PTX of the workload suite, so the vgpu tool is self-contained.
$(B)/gen/workload_ptx.c: $(WORKLOAD_PTX) tools/embed-ptx
	@mkdir -p $(dir $@)
	tools/embed-ptx $(WORKLOAD_PTX) > $@

# Regenerates userspace/workloads/*.ptx from the .cu next to each, as they
# are checked in (nvcc -O3 -ptx -arch=sm_75). Needs nvcc (NVCC=... to pick one).
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) nvcc)
.PHONY: ptx
ptx:
	@if ! command -v "$(NVCC)" >/dev/null 2>&1; then \
		echo "make ptx: nvcc not found (install the CUDA toolkit or set NVCC=/path/to/nvcc);" \
			"the checked-in userspace/workloads/*.ptx stay as they are" >&2; \
		exit 1; \
	fi
	@for cu in userspace/workloads/*.cu; do \
		echo "  NVCC    $${cu%.cu}.ptx"; \
		"$(NVCC)" -O3 -ptx -arch=sm_75 "$$cu" -o "$${cu%.cu}.ptx" || exit 1; \
	done

define link
	@mkdir -p $(dir $@)
	$(CC) $(1) -o $@ $(2) $(3)
endef

# Guest programs (optimised, no sanitizers).
$(B)/guest/vgpud: $(DAEMON_SRCS) $(SIM_SRCS) $(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(GUEST_CFLAGS),$(DAEMON_SRCS) $(SIM_SRCS),-lm -lpthread)
$(B)/guest/vgpu: $(TOOL_SRCS) $(WORKLOAD_SRCS) $(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS) \
		$(B)/gen/workload_ptx.c $(B)/guest/libvgpu_cp.a $(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(GUEST_CFLAGS) $(DRM_CFLAGS),$(TOOL_SRCS) $(WORKLOAD_SRCS) \
		$(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS) $(B)/gen/workload_ptx.c,\
		$(B)/guest/libvgpu_cp.a $(DRM_LIBS) -lm -lpthread)
$(B)/guest/ioctl_test: userspace/tests/ioctl_test.c $(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(GUEST_CFLAGS) $(DRM_CFLAGS),userspace/tests/ioctl_test.c,$(DRM_LIBS))
$(B)/guest/%: userspace/tests/guest/%.c $(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS) \
		$(B)/guest/libvgpu_cp.a $(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(GUEST_CFLAGS) $(DRM_CFLAGS),$< $(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS),\
		$(B)/guest/libvgpu_cp.a $(DRM_LIBS) -lm -lpthread)

GUEST_PROGS := $(B)/guest/vgpud $(B)/guest/vgpu $(B)/guest/ioctl_test \
	$(patsubst userspace/tests/guest/%.c,$(B)/guest/%,$(wildcard userspace/tests/guest/*.c))
GUEST_SCRIPTS := $(wildcard userspace/tests/guest/*.sh)

userspace: $(GUEST_PROGS) host-tests

# Everything the guest image needs (tools/vgpu-vm calls this).
guest: module $(GUEST_PROGS)
	@mkdir -p $(B)/guest
	@for s in $(GUEST_SCRIPTS); do install -m 755 $$s $(B)/guest/$$(basename $$s .sh); done

# Host unit tests, under AddressSanitizer and UBSan.
$(B)/host/test_%: userspace/tests/test_%.c userspace/tests/tap.c userspace/tests/tap.h \
		$(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS) $(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(HOST_CFLAGS) $(DRM_CFLAGS),$< userspace/tests/tap.c $(COMPILER_SRCS) \
		$(SIM_SRCS),-lm -lpthread)

# test_local runs the workload suite on the in-process device, so it also
# links the runtime (libdrm), the workloads and their embedded PTX.
$(B)/host/test_local: userspace/tests/test_local.c userspace/tests/tap.c userspace/tests/tap.h \
		$(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS) $(WORKLOAD_SRCS) \
		$(B)/gen/workload_ptx.c $(B)/host/libvgpu_cp.a $(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(HOST_CFLAGS) $(DRM_CFLAGS),$< userspace/tests/tap.c $(RUNTIME_SRCS) \
		$(COMPILER_SRCS) $(SIM_SRCS) $(WORKLOAD_SRCS) $(B)/gen/workload_ptx.c,\
		$(B)/host/libvgpu_cp.a $(DRM_LIBS) -lm -lpthread)

# test_sim runs its models as local devices: the runtime and the command
# processor of vgpu.ko place and schedule the launches.
$(B)/host/test_sim: userspace/tests/test_sim.c userspace/tests/tap.c userspace/tests/tap.h \
		$(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS) $(B)/host/libvgpu_cp.a \
		$(USER_HDRS) $(DEPS_STAMP)
	$(call link,$(HOST_CFLAGS) $(DRM_CFLAGS),$< userspace/tests/tap.c $(RUNTIME_SRCS) \
		$(COMPILER_SRCS) $(SIM_SRCS),$(B)/host/libvgpu_cp.a $(DRM_LIBS) -lm -lpthread)

# test_kcompat checks kcompat's drm_mm, XArray and sort() (through Algorithm 3)
# against the checksums the KUnit suite vgpu_kcompat gets from the kernel
# (kunit/vgpu_kcompat_cases.h).
$(B)/host/test_kcompat: userspace/tests/test_kcompat.c userspace/tests/tap.c \
		userspace/tests/tap.h kunit/vgpu_kcompat_cases.h $(B)/host/libvgpu_cp.a \
		$(CP_HDRS) $(DEPS_STAMP)
	$(call link,$(HOST_CFLAGS) -Iuserspace/kcompat/include -std=gnu11,\
		$< userspace/tests/tap.c,$(B)/host/libvgpu_cp.a -lpthread)

host-tests: $(HOST_TESTS)

check: $(DEPS_STAMP)
	@tools/check

demo: $(DEPS_STAMP)
	@tools/vgpu-vm -- sh -c 'vgpu run saxpy && vgpu run reduce && vgpu run histogram'

checkpatch:
	@kdir=$$(tools/build-kernel) && "$$kdir/scripts/checkpatch.pl" --no-tree --strict \
		--terse -f $(filter-out %.mod.c,$(wildcard drivers/gpu/drm/vgpu/*.[ch] kunit/*.c)) \
		uapi/drm/*.h

clean:
	rm -rf $(B)
	@kdir=$$(tools/build-kernel 2>/dev/null) && $(MAKE) -s -C "$$kdir" M=$(CURDIR) clean || true
