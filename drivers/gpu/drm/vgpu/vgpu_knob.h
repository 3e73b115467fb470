/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu scheduler knobs (vgpu_knob.c): every setting of the command
 * processor that is an attribute of the device in sysfs, described once -
 * its name, the values it takes, how it shows, its default - and shown and
 * set by name. The core's knobs are in vgpu_knob.c, a partition policy's
 * in its &struct vgpu_policy_conf. Pure: vgpu_sysfs.c builds the device's
 * attributes and their .defaults from it, and libvgpu's local device sets
 * knobs by name with the same ranges and errors.
 */
#ifndef _VGPU_KNOB_H_
#define _VGPU_KNOB_H_

#include <linux/types.h>

struct vgpu_policy_conf;
struct vgpu_sched;

/**
 * enum vgpu_knob_kind - the values a knob takes and how it shows them.
 * @VGPU_KNOB_U32: a number, as kstrtou32() with base 0 reads it, from
 *	&vgpu_knob.min to &vgpu_knob.max; shown in decimal.
 * @VGPU_KNOB_BOOL: a boolean, as kstrtobool() reads it; shown as 0 or 1.
 * @VGPU_KNOB_CHOICE: the name of one of its choices (sysfs_streq()); its
 *	value is the choice's index. Shown as every choice, the active one in
 *	brackets ("[fcfs] spatial ..."), as the block layer's scheduler
 *	attribute.
 */
enum vgpu_knob_kind {
	VGPU_KNOB_U32,
	VGPU_KNOB_BOOL,
	VGPU_KNOB_CHOICE,
};

/*
 * Longest value, white space included, that a knob with &vgpu_knob.trim
 * takes, plus one.
 */
#define VGPU_KNOB_TRIM_MAX	32

/**
 * struct vgpu_knob - one scheduler knob.
 * @name: its name: the sysfs attribute's, and that of vgpu_knob_store().
 * @kind: &enum vgpu_knob_kind.
 * @min: %VGPU_KNOB_U32: the smallest value.
 * @max: %VGPU_KNOB_U32: the largest value.
 * @def: the default: the number, 0 or 1, or the index of the choice.
 * @choices: %VGPU_KNOB_CHOICE: the choices' names by value, NULL-terminated.
 * @choice: %VGPU_KNOB_CHOICE, instead of @choices: the name of choice @i,
 *	NULL for the first index past the last (a registry's names).
 * @trim: %VGPU_KNOB_CHOICE: white space around the name is ignored (at
 *	most %VGPU_KNOB_TRIM_MAX - 1 bytes in all); without it, one trailing
 *	newline.
 * @offset: without @get and @set, where the value is: a u32 (a bool for
 *	%VGPU_KNOB_BOOL) at this offset in &struct vgpu_sched for the core's
 *	knobs, in the policy's area (vgpu_sched_policy_conf()) for those of a
 *	&struct vgpu_policy_conf.
 * @get: optional, for the core's knobs: the value. Device lock held.
 * @set: optional, for the core's knobs: take a value that is in range.
 *	Device lock held.
 */
struct vgpu_knob {
	const char *name;
	enum vgpu_knob_kind kind;
	u32 min;
	u32 max;
	u32 def;
	const char *const *choices;
	const char *(*choice)(u32 i);
	bool trim;
	size_t offset;
	u32 (*get)(const struct vgpu_sched *s);
	void (*set)(struct vgpu_sched *s, u32 v);
};

int vgpu_knob_store(struct vgpu_sched *s, const char *name, const char *value);
int vgpu_knob_show(struct vgpu_sched *s, const char *name, char *buf);
int vgpu_knob_default(const char *name, char *buf);
const char *vgpu_knob_name(unsigned int i);
void vgpu_knob_conf_init(const struct vgpu_policy_conf *conf, void *area);

#endif /* _VGPU_KNOB_H_ */
