// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the policy registries (vgpu_partition_policies[],
 * vgpu_preempt_policies[]) and the scheduler knobs (vgpu_knob.c) that the
 * sysfs attributes, their .defaults and libvgpu's local device share.
 */

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include <kunit/test.h>

#include "vgpu_knob.h"
#include "vgpu_policy_maestro.h"
#include "vgpu_sched.h"

/* The device attributes of Documentation/ABI/testing/sysfs-driver-vgpu, all. */
static const char * const knob_abi_names[] = {
	"partition_policy", "preempt_policy", "smst_alloc", "smk_quota_min",
	"idempotence", "latency_budget_us", "latency_margin_pct",
	"latency_feedback", "preempt_stress", "kernel_sched", "warp_sched",
	"subcore_assign", "job_timeout_us", "sync_quantum_cycles", "clock_hold_ms",
	"daemon_timeout_ms", "fair_slice_us", "file_max_tbs", "file_max_jobs",
	"file_vram_pct", "tlp_policy", "dyncta_t_idle", "dyncta_t_mem_l",
	"dyncta_t_mem_h", "dyncore_gate_sms", "dyncore_t_act_pct", "tlp_static_tbs",
	"virtual_thread", "maestro_epoch_cycles", "maestro_objective",
	"maestro_history", "maestro_pairing", "maestro_relaunch",
};

/**
 * struct knob_dev - a detached scheduler and its device lock.
 * @lock: the device lock.
 * @s: the scheduler.
 * @buf: a sysfs buffer (PAGE_SIZE, page aligned).
 */
struct knob_dev {
	struct mutex lock;	/* the device lock */
	struct vgpu_sched s;
	char *buf;
};

static struct knob_dev *knob_dev_new(struct kunit *test)
{
	struct knob_dev *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	/* kmalloc() aligns a power-of-two size to itself (sysfs_emit()). */
	d->buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d->buf);
	mutex_init(&d->lock);
	vgpu_sched_init(&d->s, &d->lock, NULL);
	return d;
}

static void knob_dev_free(struct knob_dev *d)
{
	vgpu_sched_fini(&d->s);
	mutex_destroy(&d->lock);
}

static int knob_store(struct knob_dev *d, const char *name, const char *value)
{
	int ret;

	mutex_lock(&d->lock);
	ret = vgpu_knob_store(&d->s, name, value);
	mutex_unlock(&d->lock);
	return ret;
}

/* The knob's value as sysfs shows it, "" for an error. */
static const char *knob_show(struct knob_dev *d, const char *name)
{
	int ret;

	mutex_lock(&d->lock);
	ret = vgpu_knob_show(&d->s, name, d->buf);
	mutex_unlock(&d->lock);
	if (ret < 0)
		d->buf[0] = '\0';
	return d->buf;
}

/* One entry per policy, each found by its name (with a newline too). */
static void knob_registries(struct kunit *test)
{
	const struct vgpu_partition_ops *const *p;
	const struct vgpu_preempt_ops *const *q;
	const struct vgpu_policy_conf *conf;
	char name[32];
	u32 n = 0, i, j, confs = 0;

	KUNIT_EXPECT_PTR_EQ(test, vgpu_partition_policies[0], &vgpu_policy_fcfs);
	for (p = vgpu_partition_policies; *p; p++, n++) {
		KUNIT_EXPECT_PTR_EQ(test, vgpu_partition_find((*p)->name), *p);
		snprintf(name, sizeof(name), "%s\n", (*p)->name);
		KUNIT_EXPECT_PTR_EQ(test, vgpu_partition_find(name), *p);
	}
	KUNIT_EXPECT_GE(test, n, 6);
	KUNIT_EXPECT_LE(test, n, VGPU_PARTITION_MAX);
	KUNIT_EXPECT_NULL(test, vgpu_partition_find("nosuch"));
	KUNIT_EXPECT_NULL(test, vgpu_partition_find(""));

	KUNIT_EXPECT_PTR_EQ(test, vgpu_preempt_policies[0], &vgpu_preempt_drain);
	for (q = vgpu_preempt_policies; *q; q++)
		KUNIT_EXPECT_PTR_EQ(test, vgpu_preempt_find((*q)->name), *q);
	KUNIT_EXPECT_NULL(test, vgpu_preempt_find("nosuch"));

	/*
	 * Each conf at its first policy only, nothing past the last: the SMK
	 * policies share one.
	 */
	KUNIT_EXPECT_PTR_EQ(test, vgpu_policy_smk_drf.conf,
			    vgpu_policy_smk_even.conf);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_policy_warped_slicer.conf,
			    vgpu_policy_smk_even.conf);
	for (i = 0; i < n; i++) {
		conf = vgpu_partition_policies[i]->conf;
		for (j = 0; j < i; j++)
			if (vgpu_partition_policies[j]->conf == conf)
				break;
		KUNIT_EXPECT_PTR_EQ(test, vgpu_partition_conf(i),
				    j < i ? NULL : conf);
		confs += !!vgpu_partition_conf(i);
	}
	for (i = n; i <= VGPU_PARTITION_MAX; i++)
		KUNIT_EXPECT_NULL(test, vgpu_partition_conf(i));
	KUNIT_EXPECT_GE(test, confs, 2);
}

/*
 * The knobs are the attributes of the ABI, each once (a sysfs attribute
 * each): every listed attribute is a knob, and there are no others.
 */
static void knob_names(struct kunit *test)
{
	const char *name, *other;
	u32 i, k, found;

	for (k = 0; k < ARRAY_SIZE(knob_abi_names); k++) {
		for (found = 0, i = 0; (name = vgpu_knob_name(i)); i++)
			found += !strcmp(name, knob_abi_names[k]);
		KUNIT_EXPECT_EQ_MSG(test, found, 1, "knob %s", knob_abi_names[k]);
	}
	for (i = 0; (name = vgpu_knob_name(i)); i++)
		for (k = 0; k < i; k++) {
			other = vgpu_knob_name(k);
			KUNIT_EXPECT_NE_MSG(test, strcmp(name, other), 0,
					    "knob %s twice", name);
		}
	KUNIT_EXPECT_EQ(test, i, ARRAY_SIZE(knob_abi_names));
}

/*
 * A new scheduler shows every knob at its default (.defaults), and taking
 * the default back changes nothing.
 */
static void knob_defaults(struct kunit *test)
{
	struct knob_dev *d = knob_dev_new(test);
	char def[64], shown[128];
	const char *name;
	u32 i;

	for (i = 0; (name = vgpu_knob_name(i)); i++) {
		const char *open;

		KUNIT_ASSERT_GT(test, vgpu_knob_default(name, d->buf), 0);
		strscpy(def, d->buf, sizeof(def));
		strscpy(shown, knob_show(d, name), sizeof(shown));
		open = strchr(shown, '[');
		if (open) {
			/* "a [b] c\n": the default is "b\n". */
			KUNIT_EXPECT_EQ_MSG(test, strncmp(open + 1, def,
							  strlen(def) - 1), 0,
					    "%s: %s against %s", name, shown, def);
			KUNIT_EXPECT_EQ(test, open[strlen(def)], ']');
		} else {
			KUNIT_EXPECT_STREQ_MSG(test, shown, def, "%s", name);
		}
		KUNIT_EXPECT_EQ_MSG(test, knob_store(d, name, def), 0, "%s",
				    name);
		KUNIT_EXPECT_STREQ(test, knob_show(d, name), shown);
	}
	KUNIT_EXPECT_EQ(test, vgpu_knob_default("nosuch", d->buf), -ENOENT);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "nosuch"), "");
	KUNIT_EXPECT_EQ(test, knob_store(d, "nosuch", "1"), -ENOENT);
	knob_dev_free(d);
}

/* Ranges and bad values: -EINVAL, nothing changed. */
static void knob_numbers(struct kunit *test)
{
	static const struct {
		const char *name, *bad_lo, *bad_hi, *lo, *hi;
	} r[] = {
		{ "latency_budget_us", "0", "1000001", "1", "1000000" },
		{ "latency_margin_pct", "-1", "91", "0", "90" },
		{ "preempt_stress", "-1", "100000001", "0", "100000000" },
		{ "smk_quota_min", "0", "65", "1", "64" },
		{ "job_timeout_us", "-1", "4294967296", "0", "4294967295" },
		{ "sync_quantum_cycles", "999", "100000001", "1000",
		  "100000000" },
		{ "clock_hold_ms", "-1", "3600001", "0", "3600000" },
		{ "daemon_timeout_ms", "99", "3600001", "100", "3600000" },
		{ "fair_slice_us", "-1", "10000001", "0", "10000000" },
		{ "file_max_tbs", "-1", "4294967296", "0", "4294967295" },
		{ "file_max_jobs", "0", "65537", "1", "65536" },
		{ "file_vram_pct", "0", "101", "1", "100" },
		{ "maestro_epoch_cycles", "99", "100000001", "100",
		  "100000000" },
		{ "dyncta_t_idle", "0", "2049", "1", "2048" },
		{ "dyncta_t_mem_l", "-1", "2049", "0", "2048" },
		{ "dyncta_t_mem_h", "0", "2049", "1", "2048" },
		{ "dyncore_gate_sms", "-1", "1024", "0", "1023" },
		{ "dyncore_t_act_pct", "0", "101", "1", "100" },
		{ "tlp_static_tbs", "0", "65", "1", "64" },
	};
	struct knob_dev *d = knob_dev_new(test);
	char before[32], want[32];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		strscpy(before, knob_show(d, r[i].name), sizeof(before));
		KUNIT_EXPECT_EQ(test, knob_store(d, r[i].name, r[i].bad_lo),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, knob_store(d, r[i].name, r[i].bad_hi),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, knob_store(d, r[i].name, "fast"),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, knob_store(d, r[i].name, ""), -EINVAL);
		KUNIT_EXPECT_STREQ(test, knob_show(d, r[i].name), before);
		KUNIT_EXPECT_EQ(test, knob_store(d, r[i].name, r[i].lo), 0);
		snprintf(want, sizeof(want), "%s\n", r[i].lo);
		KUNIT_EXPECT_STREQ(test, knob_show(d, r[i].name), want);
		snprintf(want, sizeof(want), "%s\n", r[i].hi);
		KUNIT_EXPECT_EQ(test, knob_store(d, r[i].name, want), 0);
		KUNIT_EXPECT_STREQ(test, knob_show(d, r[i].name), want);
	}
	/* Where the values land. */
	KUNIT_EXPECT_EQ(test, d->s.budget_us, 1000000);
	KUNIT_EXPECT_EQ(test, d->s.budget_margin_pct, 90);
	KUNIT_EXPECT_EQ(test, d->s.stress_period, 100000000);
	mutex_lock(&d->lock);
	KUNIT_EXPECT_EQ(test, vgpu_smk_quota_min(&d->s), 64);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_conf_of(&d->s)->epoch_cycles,
			100000000);
	mutex_unlock(&d->lock);
	KUNIT_EXPECT_EQ(test, knob_store(d, "latency_budget_us", "0x10"), 0);
	KUNIT_EXPECT_EQ(test, d->s.budget_us, 16);

	KUNIT_EXPECT_EQ(test, knob_store(d, "latency_feedback", "maybe"),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "latency_feedback"), "0\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "latency_feedback", "1\n"), 0);
	KUNIT_EXPECT_TRUE(test, d->s.latency_feedback);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "latency_feedback"), "1\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "latency_feedback", "n"), 0);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "latency_feedback"), "0\n");
	knob_dev_free(d);
}

/*
 * A knob of two names, @def the default: shown so, @other stored, @bad
 * refused with the value kept.
 */
static void knob_two_choices(struct kunit *test, struct knob_dev *d,
			     const char *name, const char *def,
			     const char *other, const char *bad)
{
	char before[32], after[32];

	snprintf(before, sizeof(before), "[%s] %s\n", def, other);
	snprintf(after, sizeof(after), "%s [%s]\n", def, other);
	KUNIT_EXPECT_STREQ_MSG(test, knob_show(d, name), before, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, knob_store(d, name, other), 0, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, knob_store(d, name, bad), -EINVAL, "%s",
			    name);
	KUNIT_EXPECT_STREQ_MSG(test, knob_show(d, name), after, "%s", name);
}

/* Choices: exact names (one trailing newline); partition_policy trims. */
static void knob_choices(struct kunit *test)
{
	struct knob_dev *d = knob_dev_new(test);

	KUNIT_EXPECT_STREQ(test, knob_show(d, "partition_policy"),
			   "[fcfs] spatial smk-even smk-drf warped-slicer maestro\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "partition_policy", " smk-even\t\n"),
			0);
	KUNIT_EXPECT_PTR_EQ(test, d->s.policy, &vgpu_policy_smk_even);
	KUNIT_EXPECT_EQ(test, knob_store(d, "partition_policy", "nosuch"),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, knob_store(d, "partition_policy",
					 "                                fcfs"),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, d->s.policy, &vgpu_policy_smk_even);
	KUNIT_EXPECT_EQ(test, knob_store(d, "partition_policy", "maestro"), 0);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "smst_alloc"),
			   "first-fit [2-way]\n");
	KUNIT_EXPECT_EQ(test, d->s.alloc_mode, VGPU_SMST_FIRST_FIT);
	KUNIT_EXPECT_EQ(test, knob_store(d, "partition_policy", "fcfs"), 0);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "smst_alloc"),
			   "[first-fit] 2-way\n");
	KUNIT_EXPECT_EQ(test, d->s.policy_changes, 3);

	KUNIT_EXPECT_STREQ(test, knob_show(d, "preempt_policy"),
			   "[drain] switch flush chimera ideal\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "preempt_policy", "chimera\n"), 0);
	KUNIT_EXPECT_PTR_EQ(test, d->s.preempt_ops, &vgpu_preempt_chimera);
	KUNIT_EXPECT_EQ(test, knob_store(d, "preempt_policy", " ideal"),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "preempt_policy"),
			   "drain switch flush [chimera] ideal\n");

	KUNIT_EXPECT_EQ(test, knob_store(d, "idempotence", "buffers"), 0);
	KUNIT_EXPECT_EQ(test, d->s.idem, VGPU_PREEMPT_IDEM_BUFFERS);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "idempotence"),
			   "relaxed strict [buffers]\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "idempotence", "strict"), 0);
	KUNIT_EXPECT_EQ(test, d->s.idem, VGPU_PREEMPT_IDEM_STRICT);
	KUNIT_EXPECT_EQ(test, knob_store(d, "idempotence", "lax"), -EINVAL);
	KUNIT_EXPECT_EQ(test, knob_store(d, "kernel_sched", "lrr\n"), 0);
	KUNIT_EXPECT_EQ(test, d->s.kernel_sched, VGPU_KSCHED_LRR);
	KUNIT_EXPECT_EQ(test, knob_store(d, "kernel_sched", "gto"), -EINVAL);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "kernel_sched"),
			   "none [lrr] ipr fair\n");
	KUNIT_EXPECT_STREQ(test, knob_show(d, "warp_sched"),
			   "[config] lrr gto two-level elf elf-newcar elf++ rba progress\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "warp_sched", "elf++\n"), 0);
	KUNIT_EXPECT_EQ(test, d->s.warp_sched, VGPU_WARP_SCHED_ELF_PP);
	KUNIT_EXPECT_EQ(test, knob_store(d, "warp_sched", "elf+"), -EINVAL);
	KUNIT_EXPECT_EQ(test, d->s.warp_sched, VGPU_WARP_SCHED_ELF_PP);
	KUNIT_EXPECT_EQ(test, knob_store(d, "subcore_assign", "srr"), 0);
	KUNIT_EXPECT_EQ(test, d->s.subcore_assign, VGPU_SUBCORE_ASSIGN_SRR);
	KUNIT_EXPECT_EQ(test, knob_store(d, "subcore_assign", "random"),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "subcore_assign"),
			   "config rr [srr] shuffle\n");
	KUNIT_EXPECT_STREQ(test, knob_show(d, "virtual_thread"),
			   "[off] on max\n");
	KUNIT_EXPECT_EQ(test, knob_store(d, "virtual_thread", "max\n"), 0);
	KUNIT_EXPECT_EQ(test, d->s.virtual_thread, VGPU_VT_MAX);
	KUNIT_EXPECT_EQ(test, knob_store(d, "virtual_thread", "yes"), -EINVAL);
	KUNIT_EXPECT_EQ(test, d->s.virtual_thread, VGPU_VT_MAX);
	KUNIT_EXPECT_EQ(test, knob_store(d, "smst_alloc", "2-way"), 0);
	KUNIT_EXPECT_EQ(test, d->s.alloc_mode, VGPU_SMST_TWO_WAY);
	KUNIT_EXPECT_EQ(test, knob_store(d, "maestro_objective", "antt"), 0);
	KUNIT_EXPECT_EQ(test, knob_store(d, "maestro_objective", "wips"),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, knob_show(d, "maestro_objective"),
			   "stp [antt]\n");
	knob_two_choices(test, d, "maestro_pairing", "dispatch", "resident",
			 "running");
	knob_two_choices(test, d, "maestro_relaunch", "known", "new", "fresh");
	knob_dev_free(d);
}

/*
 * A policy's knobs and statistics stay with the device whichever policy
 * is active; its debugfs text comes from them.
 */
static void knob_policy_conf(struct kunit *test)
{
	struct knob_dev *d = knob_dev_new(test);
	struct vgpu_maestro_conf *mc;

	KUNIT_EXPECT_EQ(test, knob_store(d, "maestro_epoch_cycles", "1234"), 0);
	KUNIT_EXPECT_EQ(test, knob_store(d, "smk_quota_min", "3"), 0);
	mutex_lock(&d->lock);
	mc = vgpu_maestro_conf_of(&d->s);
	mc->stats.epochs = 7;
	mc->stats.preempted_tbs = 2;
	vgpu_sched_set_policy(&d->s, &vgpu_policy_maestro);
	vgpu_sched_set_policy(&d->s, &vgpu_policy_warped_slicer);
	KUNIT_EXPECT_EQ(test, vgpu_smk_quota_min(&d->s), 3);
	vgpu_sched_set_policy(&d->s, &vgpu_policy_fcfs);
	KUNIT_EXPECT_PTR_EQ(test, vgpu_maestro_conf_of(&d->s), mc);
	KUNIT_EXPECT_EQ(test, mc->epoch_cycles, 1234);
	KUNIT_EXPECT_EQ(test, mc->stats.epochs, 7);
	KUNIT_EXPECT_EQ(test, vgpu_maestro_policy_conf.show(mc, d->buf),
			(int)strlen(d->buf));
	mutex_unlock(&d->lock);
	KUNIT_EXPECT_STREQ(test, d->buf,
			   "epoch_cycles 1234\nepochs 7\nspatial 0\nsmk_even 0\nsmk_other 0\nrepartitions 0\npreempted_tbs 2\n");
	KUNIT_EXPECT_STREQ(test, knob_show(d, "smk_quota_min"), "3\n");
	knob_dev_free(d);
}

static struct kunit_case vgpu_knob_cases[] = {
	KUNIT_CASE(knob_registries),
	KUNIT_CASE(knob_names),
	KUNIT_CASE(knob_defaults),
	KUNIT_CASE(knob_numbers),
	KUNIT_CASE(knob_choices),
	KUNIT_CASE(knob_policy_conf),
	{}
};

static struct kunit_suite vgpu_knob_suite = {
	.name = "vgpu_knob",
	.test_cases = vgpu_knob_cases,
};

kunit_test_suite(vgpu_knob_suite);
