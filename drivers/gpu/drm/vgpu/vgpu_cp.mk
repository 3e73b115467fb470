# SPDX-License-Identifier: GPL-2.0
#
# The command processor: the files of vgpu.ko that libvgpu's local device
# compiles unchanged too (Documentation/design.rst, "One command processor,
# two hosts"). Kbuild links them into vgpu.ko; the top-level Makefile builds
# them over userspace/kcompat. A new policy's file goes here, once.

vgpu-cp-y := \
	vgpu_kcb.o \
	vgpu_smst.o \
	vgpu_sched.o \
	vgpu_sched_preempt.o \
	vgpu_sched_cancel.o \
	vgpu_sched_deps.o \
	vgpu_sched_fair.o \
	vgpu_sched_prio.o \
	vgpu_knob.o \
	vgpu_vram.o \
	vgpu_desc.o \
	vgpu_launch.o \
	vgpu_program_image.o \
	vgpu_clock_hold.o \
	vgpu_preempt.o \
	vgpu_preempt_chimera.o \
	vgpu_preempt_simple.o \
	vgpu_policy_fcfs.o \
	vgpu_policy_spatial.o \
	vgpu_policy_smk_even.o \
	vgpu_policy_smk_drf.o \
	vgpu_policy_warped_slicer.o \
	vgpu_policy_maestro.o \
	vgpu_tlp.o \
	vgpu_tlp_dyncta.o \
	vgpu_tlp_dyncore.o \
	vgpu_tlp_static.o
