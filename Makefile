# vgpu - top-level build.
#
#   make            module (against the cached test kernel) + userspace (the
#                   model with profile-guided optimisation; PGO=0: without)
#   make demo       runs the three workloads in a QEMU guest
#   make check      every test: host unit tests, KUnit and end-to-end in QEMU
#   make fuzz-long  a long fuzzing campaign in QEMU (hours; not part of check)
#   make checkpatch kernel style of the module sources
#   make kunit-tree the KUnit suites through kunit.py, the driver in a kernel
#                   tree (UML; KUNIT_ARGS="..." for more kunit.py options)
#   make htmldocs   Documentation/ as HTML in build/htmldocs (Sphinx)
#   make dkms       vgpu.ko through DKMS for the running kernel (a host; root)
#   make host-install  vgpud, vgpu, vgpud's systemd unit and the udev rule
#   make install    libvgpu for applications: libvgpu.so.0, libvgpu.a, the
#                   headers and vgpu.pc (PREFIX, DESTDIR; Documentation/runtime.rst)
#
# The test kernel is built once by tools/build-kernel and cached outside the
# tree (~/.cache/vgpu, or $VGPU_CACHE).

.PHONY: all module userspace guest host-tests check demo checkpatch clean deps fuzz-long \
	dkms host-install htmldocs kunit-tree lib install
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
KCOMPAT_CFLAGS = -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers -Werror -include kcompat.h \
	-Iuserspace/kcompat/include -Idrivers/gpu/drm/vgpu $(INC) $(DRM_CFLAGS)
HOST_SAN := -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
vpath %.c drivers/gpu/drm/vgpu userspace/kcompat userspace/lib

$(B)/guest/cp/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCOMPAT_CFLAGS) -O2 -g -MMD -MP -c $< -o $@
$(B)/host/cp/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCOMPAT_CFLAGS) -O1 -g $(HOST_SAN) -MMD -MP -c $< -o $@
CP_OBJS = $(patsubst %.c,$(B)/$(1)/cp/%.o,$(notdir $(CP_LIB_SRCS)))
$(B)/guest/libvgpu_cp.a: $(call CP_OBJS,guest)
$(B)/host/libvgpu_cp.a: $(call CP_OBJS,host)
$(B)/pic/cp/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(KCOMPAT_CFLAGS) -O2 -g -fPIC -MMD -MP -c $< -o $@

# Debian packages the build needs; installed when missing.
deps: $(DEPS_STAMP)
$(DEPS_STAMP):
	@. tools/lib.sh && vgpu_need_packages build-essential pkg-config libdrm-dev \
		linux-source-6.12 bc bison flex libelf-dev libssl-dev kmod cpio \
		qemu-system-x86 busybox-static file trinity python3-sphinx
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

# Userspace: one object per source, with its dependency file (-MMD), and a
# static library per component, so that touching one .c rebuilds one object
# and relinks. Two flavours: guest (optimised; the programs the guest runs,
# and the tool) and host (AddressSanitizer + UBSan; the host unit tests).
FLAVOR_CFLAGS_guest = $(GUEST_CFLAGS) $(DRM_CFLAGS)
FLAVOR_CFLAGS_host = $(HOST_CFLAGS) $(DRM_CFLAGS)
$(B)/guest/obj/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(FLAVOR_CFLAGS_guest) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@
$(B)/host/obj/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(FLAVOR_CFLAGS_host) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@
# A third flavour, pic: the guest's, position independent, for the library
# applications link (lib, below).
$(B)/pic/obj/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(FLAVOR_CFLAGS_guest) -fPIC $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@
# The GPU model's hot loops run over the 32 lanes of a warp: -O3 lets the
# compiler vectorise them (with runtime alias checks, which -O2's cheap cost
# model refuses). No -ffast-math: results stay bit-exact.
SIM_CFLAGS := -O3
# Profile-guided optimisation of the model (Documentation/model.rst, "Model
# speed"): its files are built once instrumented, into $(B)/pgo, linked
# into a vgpu that runs PGO_TRAIN, and built again with the counts of that
# run. Both builds of a file name the same -dumpdir and -dumpbase, which
# GCC derives the counts' file and its static functions' ids from. The
# training run is single-threaded and deterministic, so the build is too;
# PGO=0 builds without it. Neither changes a cycle or a result.
# (GCC's options: with another compiler PGO is 0.)
PGO ?= $(if $(shell $(CC) --version 2>/dev/null | grep 'Free Software Foundation'),1,0)
PGO_TRAIN := run --all --local --size medium --gpu fermi-gtx480 --threads 1 -j 1
PGO_TRAIN2 := run --all --local --size small --gpu volta-v100 --threads 1 -j 1
ifeq ($(PGO),1)
PGO_STAMP := $(B)/pgo/profile.stamp
pgo_dump = -dumpdir $(B)/pgo/counts/ -dumpbase $(notdir $<)
SIM_CFLAGS += -fprofile-use -fprofile-partial-training
FLAVOR_CFLAGS_pgo = $(FLAVOR_CFLAGS_guest) -fprofile-generate
$(B)/pgo/obj/userspace/sim/%.o: userspace/sim/%.c $(DEPS_STAMP)
	@mkdir -p $(dir $@) $(B)/pgo/counts
	$(CC) $(FLAVOR_CFLAGS_pgo) -O3 -fprofile-update=single $(pgo_dump) -MMD -MP -c $< -o $@
$(PGO_STAMP): $(B)/pgo/vgpu
	@rm -f $(B)/pgo/counts/*.gcda
	@{ $(B)/pgo/vgpu $(PGO_TRAIN) && $(B)/pgo/vgpu $(PGO_TRAIN2); } >$(B)/pgo/train.log 2>&1 || \
		{ cat $(B)/pgo/train.log; echo "PGO: the training run failed" >&2; exit 1; }
	@touch $@
endif
$(B)/guest/obj/userspace/sim/%.o: userspace/sim/%.c $(DEPS_STAMP) $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(FLAVOR_CFLAGS_guest) $(SIM_CFLAGS) $(pgo_dump) -MMD -MP -c $< -o $@
$(B)/pic/obj/userspace/sim/%.o: userspace/sim/%.c $(DEPS_STAMP) $(PGO_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(FLAVOR_CFLAGS_guest) -fPIC -fno-semantic-interposition $(SIM_CFLAGS) $(pgo_dump) \
		-MMD -MP -c $< -o $@
# test_kcompat includes kcompat's kernel headers.
$(B)/host/obj/userspace/tests/test_kcompat.o: EXTRA_CFLAGS := -Iuserspace/kcompat/include -std=gnu11
# test_smst calls the driver's vgpu_smst.c, through the same headers.
$(B)/host/obj/userspace/tests/test_smst.o: EXTRA_CFLAGS := -Iuserspace/kcompat/include -std=gnu11

objs = $(patsubst %.c,$(B)/$(1)/obj/%.o,$(2))
define component_libs
$(B)/$(1)/libvgpu_compiler.a: $(call objs,$(1),$(COMPILER_SRCS))
$(B)/$(1)/libvgpu_sim.a: $(call objs,$(1),$(SIM_SRCS))
$(B)/$(1)/libvgpu_runtime.a: $(call objs,$(1),$(RUNTIME_SRCS))
$(B)/$(1)/libvgpu_workloads.a: $(call objs,$(1),$(WORKLOAD_SRCS) $(B)/gen/workload_ptx.c)
endef
$(foreach f,guest host,$(eval $(call component_libs,$(f))))
$(B)/%.a:
	@rm -f $@
	ar rcs $@ $^

# Every library of a flavour, in one group: a program takes what it uses.
LIBS = $(addprefix $(B)/$(1)/,libvgpu_workloads.a libvgpu_runtime.a libvgpu_cp.a \
	libvgpu_compiler.a libvgpu_sim.a)
define link
	@mkdir -p $(dir $@)
	$(CC) $(FLAVOR_CFLAGS_$(1)) -o $@ $(filter %.o,$^) -Wl,--start-group \
		$(filter %.a,$^) -Wl,--end-group $(DRM_LIBS) -lm -lpthread
endef

ifeq ($(PGO),1)
# the model instrumented (PGO, above), in the vgpu that runs PGO_TRAIN
$(B)/pgo/libvgpu_sim.a: $(call objs,pgo,$(SIM_SRCS))
$(B)/pgo/vgpu: $(call objs,guest,$(TOOL_SRCS)) $(B)/pgo/libvgpu_sim.a \
		$(filter-out %/libvgpu_sim.a,$(call LIBS,guest))
	$(call link,pgo)
endif

# Guest programs (optimised, no sanitizers).
$(B)/guest/vgpud: $(call objs,guest,$(DAEMON_SRCS)) $(B)/guest/libvgpu_sim.a
	$(call link,guest)
$(B)/guest/vgpu: $(call objs,guest,$(TOOL_SRCS)) $(call LIBS,guest)
	$(call link,guest)
$(B)/guest/ioctl_test: $(call objs,guest,userspace/tests/ioctl_test.c) $(call LIBS,guest)
	$(call link,guest)
$(B)/guest/%: $(B)/guest/obj/userspace/tests/guest/%.o $(call LIBS,guest)
	$(call link,guest)
# The runtime's port of runtime.cu, also run on the guest's render node
# (test_runtime --device); its PTX under /share/vgpu/src there.
$(B)/guest/test_runtime: $(call objs,guest,userspace/tests/test_runtime.c \
		userspace/tests/tap.c) $(call LIBS,guest)
	$(call link,guest)
$(B)/share/src/%.ptx: %.ptx
	@mkdir -p $(dir $@)
	cp $< $@

GUEST_PROGS := $(B)/guest/vgpud $(B)/guest/vgpu $(B)/guest/ioctl_test $(B)/guest/test_runtime \
	$(patsubst userspace/tests/guest/%.c,$(B)/guest/%,$(wildcard userspace/tests/guest/*.c))
GUEST_SCRIPTS := $(patsubst userspace/tests/guest/%.sh,$(B)/guest/%,\
	$(wildcard userspace/tests/guest/*.sh))
$(B)/guest/%: userspace/tests/guest/%.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

userspace: $(GUEST_PROGS) host-tests lib

# libvgpu as applications link it (Documentation/runtime.rst): the runtime,
# the local device's command processor, the compiler and the model, position
# independent, first linked into one relocatable object whose only global
# symbols are the public API (userspace/lib/libvgpu.sym: everything else,
# kcompat's kernel names included, becomes local), then made libvgpu.so.0
# and libvgpu.a. make install puts them, the public headers and vgpu.pc
# under $(DESTDIR)$(PREFIX).
LIBVGPU_VERSION := 0.1.0
LIBVGPU_SOVERSION := 0
LIBVGPU_SO := libvgpu.so.$(LIBVGPU_SOVERSION)
LIBVGPU_PIC_OBJS = $(call objs,pic,$(RUNTIME_SRCS) $(COMPILER_SRCS) $(SIM_SRCS)) \
	$(call CP_OBJS,pic)
LIBVGPU_HEADERS := userspace/lib/vgpu.h userspace/lib/vgpu_local_launch.h userspace/lib/vgpu_runtime.h \
	userspace/lib/compiler/vgpu_compile.h
LIBVGPU_UAPI := uapi/drm/vgpu_drm.h uapi/drm/vgpu_program.h
$(B)/lib/libvgpu.o: $(LIBVGPU_PIC_OBJS) userspace/lib/libvgpu.sym
	@mkdir -p $(dir $@)
	$(LD) -r -o $@.all $(LIBVGPU_PIC_OBJS)
	objcopy --keep-global-symbols=userspace/lib/libvgpu.sym $@.all $@
	@rm -f $@.all
$(B)/lib/libvgpu.so.$(LIBVGPU_VERSION): $(B)/lib/libvgpu.o
	$(CC) -shared -Wl,-soname,$(LIBVGPU_SO) -Wl,--no-undefined -o $@ $< \
		$(DRM_LIBS) -lm -lpthread
$(B)/lib/libvgpu.a: $(B)/lib/libvgpu.o
	@rm -f $@
	ar rcs $@ $^
lib: $(B)/lib/libvgpu.so.$(LIBVGPU_VERSION) $(B)/lib/libvgpu.a

# Everything the guest image needs (tools/vgpu-vm calls this).
guest: module $(GUEST_PROGS) $(GUEST_SCRIPTS) $(B)/share/src/userspace/tests/ptx/runtime.ptx

# Host unit tests, under AddressSanitizer and UBSan; each links what it
# uses of the libraries (test_local: the workload suite on the local device;
# test_kcompat: kcompat against the kernel's checksums in
# drivers/gpu/drm/vgpu/tests/vgpu_kcompat_cases.h).
$(B)/host/test_%: $(B)/host/obj/userspace/tests/test_%.o $(B)/host/obj/userspace/tests/tap.o \
		$(call LIBS,host)
	$(call link,host)
# test_preempt_cost checks what vgpu bench preempt-cost measures.
$(B)/host/test_preempt_cost: $(B)/host/obj/userspace/tools/preempt_cost.o

-include $(shell find $(B) -name '*.d' 2>/dev/null)
# Objects made through pattern rules are kept, not deleted as intermediates.
.SECONDARY:

host-tests: $(HOST_TESTS)

# make check -jN: up to N test guests at once (tools/check -j N); '+' hands
# the jobserver to the build inside.
check: $(DEPS_STAMP)
	+@tools/check

# The long fuzzing campaign (Documentation/testing.rst): vgpu_fuzz in rounds
# of FUZZ_CALLS / FUZZ_ROUNDS calls (seeds FUZZ_SEED, FUZZ_SEED + 1, ...),
# then TRINITY_COUNT trinity syscalls, then kmemleak; in one guest with KASAN
# and lockdep. FUZZ_TIMEOUT seconds at most (the guest is stopped then).
FUZZ_CALLS ?= 1000000
FUZZ_ROUNDS ?= 20
FUZZ_SEED ?= 1
TRINITY_COUNT ?= 100000
FUZZ_TIMEOUT ?= 43200
fuzz-long: $(DEPS_STAMP)
	@tools/vgpu-vm --kmemleak --timeout $(FUZZ_TIMEOUT) -- fuzz --calls $(FUZZ_CALLS) \
		--rounds $(FUZZ_ROUNDS) --seed $(FUZZ_SEED) --trinity $(TRINITY_COUNT) --hang-limit 120

demo: $(DEPS_STAMP)
	@tools/vgpu-vm -- sh -c 'vgpu run saxpy && vgpu run reduce && vgpu run histogram'

checkpatch:
	@kdir=$$(tools/build-kernel) && "$$kdir/scripts/checkpatch.pl" --no-tree --strict \
		--terse -f $(filter-out %.mod.c,$(wildcard drivers/gpu/drm/vgpu/*.[ch] \
		drivers/gpu/drm/vgpu/tests/*.[ch])) drivers/gpu/drm/vgpu/Kconfig uapi/drm/*.h

# The KUnit suites as a kernel developer runs them: drivers/gpu/drm/vgpu/
# (with tests/) and the uapi headers copied into a kernel tree of its own
# (Linux 6.12 from linux-source-6.12, cached beside the test kernel, which it
# leaves alone), then ./tools/testing/kunit/kunit.py run
# --kunitconfig=drivers/gpu/drm/vgpu there (Documentation/testing.rst).
KUNIT_ARGS ?=
kunit-tree: $(DEPS_STAMP)
	@tools/kunit-tree $(KUNIT_ARGS)

# Documentation/ with the uapi and the driver's kernel-doc pulled in by the
# kernel's own kernel-doc Sphinx extension (from the test kernel's source);
# a warning fails the build.
htmldocs: $(DEPS_STAMP)
	@kdir=$$(tools/build-kernel) && VGPU_KDIR="$$kdir" \
		sphinx-build -q -W --keep-going -b html Documentation $(B)/htmldocs
	@echo "htmldocs: $(B)/htmldocs/index.html"

# On a host (Documentation/host.rst): the module through DKMS for the
# running kernel, then the daemon, the tool, vgpud's systemd unit and the
# udev rule for the render node.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
DESTDIR ?=
dkms:
	@tools/dkms install

host-install: $(B)/guest/vgpud $(B)/guest/vgpu
	install -D -m 755 $(B)/guest/vgpud $(DESTDIR)$(PREFIX)/sbin/vgpud
	install -D -m 755 $(B)/guest/vgpu $(DESTDIR)$(PREFIX)/bin/vgpu
	install -D -m 644 Documentation/host.rst $(DESTDIR)$(PREFIX)/share/doc/vgpu/host.rst
	@mkdir -p $(DESTDIR)/etc/systemd/system
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@DOCDIR@|$(PREFIX)/share/doc/vgpu|g' \
		tools/host/vgpud.service > $(DESTDIR)/etc/systemd/system/vgpud.service
	install -D -m 644 tools/host/70-vgpu.rules $(DESTDIR)/etc/udev/rules.d/70-vgpu.rules

install: lib
	install -D -m 755 $(B)/lib/libvgpu.so.$(LIBVGPU_VERSION) \
		$(DESTDIR)$(LIBDIR)/libvgpu.so.$(LIBVGPU_VERSION)
	ln -sf libvgpu.so.$(LIBVGPU_VERSION) $(DESTDIR)$(LIBDIR)/$(LIBVGPU_SO)
	ln -sf $(LIBVGPU_SO) $(DESTDIR)$(LIBDIR)/libvgpu.so
	install -m 644 $(B)/lib/libvgpu.a $(DESTDIR)$(LIBDIR)/libvgpu.a
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
		-e 's|@VERSION@|$(LIBVGPU_VERSION)|g' userspace/lib/vgpu.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/vgpu.pc
	install -d $(DESTDIR)$(PREFIX)/include/vgpu/drm
	install -m 644 $(LIBVGPU_HEADERS) $(DESTDIR)$(PREFIX)/include/vgpu/
	install -m 644 $(LIBVGPU_UAPI) $(DESTDIR)$(PREFIX)/include/vgpu/drm/

clean:
	rm -rf $(B)
	@kdir=$$(tools/build-kernel 2>/dev/null) && $(MAKE) -s -C "$$kdir" M=$(CURDIR) clean || true
