// SPDX-License-Identifier: MIT
/*
 * config.c - hardware presets and the "key = value" configuration format of
 * the GPU model (Documentation/model.rst).
 *
 * The presets follow the machines of the papers the schedulers come from:
 * fermi-gtx480 (thesis Table 3.1), fermi-30sm (Table 4.1), kepler-like
 * (Virtual Thread, Sec. II: Fermi with Kepler's SM limits), maxwell-gtx980
 * (Table 5.2) and volta-v100 (sub-core paper, Table II). The tables give
 * sizes, not latencies; the latencies are the load-to-use figures reported
 * by pointer-chase microbenchmarks of those generations (Wong et al. 2010,
 * Mei & Chu 2017 "Dissecting GPU memory hierarchy", Jia et al. 2018
 * "Dissecting the NVIDIA Volta GPU architecture"), so that the validation
 * micro-benchmarks of test_sim reproduce them.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vgpu_sim.h"

#define FERMI_DESC(nsm) { \
	.num_sms = nsm, .warp_size = 32, .max_threads_per_sm = 1536, \
	.max_tbs_per_sm = 8, .regs_per_sm = 32768, \
	.shared_per_sm = 48 * 1024, .max_threads_per_tb = 1024, \
	.max_regs_per_thread = 63, .max_shared_per_tb = 48 * 1024, \
	.core_clock_khz = 1400000, .reg_alloc_unit = 2, \
	.shared_alloc_unit = 128, .max_local_per_thread = VGPU_SIM_LOCAL_MAX, \
}

/*
 * Fermi (GF100, GTX480): 2 schedulers per SM, each with 16 SP lanes (a warp
 * instruction every 2 cycles); 4 SFUs and 1/8-rate DP shared by the two;
 * one LD/ST unit. Table 3.1: 16 KB/4-way/128 B L1D with 32 MSHRs, 2 KB
 * 4-way L1I, 768 KB/16-way L2, 6 memory partitions, FR-FCFS, 177.4 GB/s.
 */
#define FERMI_TIMING \
	.schedulers_per_sm = 2, .alu_latency = 18, .sfu_latency = 28, \
	.mem_latency = 600, .shared_latency = 38, \
	.scheduler = VGPU_SCHED_GTO, .two_level_active = 8, \
	.alu_ii = 2, .sfu_ii = 16, .dp_latency = 36, .dp_ii = 16, \
	.const_latency = 20, .shared_banks = 32, \
	.l1d_size = 16 * 1024, .l1d_assoc = 4, .l1d_mshrs = 32, .l1d_latency = 45, \
	.l2_size = 768 * 1024, .l2_assoc = 16, .l2_latency = 310, \
	.mem_partitions = 6, .dram_bandwidth_mbs = 177400, \
	.dram_banks = 16, .dram_row_bytes = 2048, .dram_row_miss = 40, \
	.icnt_latency = 20, .atomic_latency = 4, \
	.l1i_size = 2048, .l1i_assoc = 4

static const struct preset {
	const char *name;
	struct vgpu_sim_config cfg;
} presets[] = {
	{ "fermi-gtx480", { .desc = FERMI_DESC(15), FERMI_TIMING } },
	/* Table 4.1 (Chimera): the same SM, 30 of them. */
	{ "fermi-30sm", { .desc = FERMI_DESC(30), FERMI_TIMING } },
	{
		/*
		 * Kepler-like (Virtual Thread, Yoon et al. Sec. II): the
		 * Fermi machine with Kepler's SM limits, 2,048 threads, 16
		 * blocks, 64 K registers, 48 KB shared memory; the paper
		 * changes nothing else.
		 */
		"kepler-like",
		{
			.desc = {
				.num_sms = 15, .warp_size = 32, .max_threads_per_sm = 2048,
				.max_tbs_per_sm = 16, .regs_per_sm = 65536,
				.shared_per_sm = 48 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 63, .max_shared_per_tb = 48 * 1024,
				.core_clock_khz = 1400000, .reg_alloc_unit = 2,
				.shared_alloc_unit = 128,
				.max_local_per_thread = VGPU_SIM_LOCAL_MAX,
			},
			FERMI_TIMING
		},
	},
	{
		/*
		 * Maxwell GTX980, Table 5.2: 16 SMs at 1126 MHz, 4 warp
		 * schedulers with 32 SP lanes and 8 SFUs each, 2K threads,
		 * 32 blocks, 64K registers, 96 KB shared, 2 KB L1I, 48 KB
		 * L1D, 2 MB L2, 4 partitions, 224 GB/s.
		 */
		"maxwell-gtx980",
		{
			.desc = {
				.num_sms = 16, .warp_size = 32, .max_threads_per_sm = 2048,
				.max_tbs_per_sm = 32, .regs_per_sm = 65536,
				.shared_per_sm = 96 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 255,
				.max_local_per_thread = VGPU_SIM_LOCAL_MAX, .max_shared_per_tb = 48 * 1024,
				.core_clock_khz = 1126000, .reg_alloc_unit = 8,
				.shared_alloc_unit = 256,
			},
			.schedulers_per_sm = 4, .alu_latency = 6, .sfu_latency = 20,
			.mem_latency = 500, .shared_latency = 28,
			.scheduler = VGPU_SCHED_GTO, .two_level_active = 8,
			.alu_ii = 1, .sfu_ii = 4, .dp_latency = 48, .dp_ii = 32,
			.const_latency = 20, .shared_banks = 32,
			.l1d_size = 48 * 1024, .l1d_assoc = 6, .l1d_mshrs = 64, .l1d_latency = 82,
			.l2_size = 2048 * 1024, .l2_assoc = 16, .l2_latency = 216,
			.mem_partitions = 4, .dram_bandwidth_mbs = 224000,
			.dram_banks = 16, .dram_row_bytes = 2048, .dram_row_miss = 40,
			.icnt_latency = 16, .atomic_latency = 4,
			.l1i_size = 2048, .l1i_assoc = 4,
		},
	},
	{
		/*
		 * Volta V100, Table II of the sub-core paper: 80 SMs, 4
		 * sub-cores (each a scheduler with 16 FP32 lanes, 4 SFUs,
		 * 8 DP lanes, 2 register banks and 2 operand collectors), 64
		 * warps, 32 shared banks, 128 KB L1/shared (96 KB shared +
		 * 32 KB L1D here), 128 KB L1I, 6 MB/24-way L2, HBM2 (32
		 * channels, 900 GB/s).
		 */
		"volta-v100",
		{
			.desc = {
				.num_sms = 80, .warp_size = 32, .max_threads_per_sm = 2048,
				.max_tbs_per_sm = 32, .regs_per_sm = 65536,
				.shared_per_sm = 96 * 1024, .max_threads_per_tb = 1024,
				.max_regs_per_thread = 255,
				.max_local_per_thread = VGPU_SIM_LOCAL_MAX, .max_shared_per_tb = 96 * 1024,
				.core_clock_khz = 1530000, .reg_alloc_unit = 8,
				.shared_alloc_unit = 256,
			},
			.schedulers_per_sm = 4, .alu_latency = 4, .sfu_latency = 21,
			.mem_latency = 375, .shared_latency = 19,
			.scheduler = VGPU_SCHED_GTO, .two_level_active = 8,
			.alu_ii = 2, .sfu_ii = 8, .dp_latency = 8, .dp_ii = 4,
			.const_latency = 8, .shared_banks = 32,
			.l1d_size = 32 * 1024, .l1d_assoc = 4, .l1d_mshrs = 256, .l1d_latency = 28,
			.l2_size = 6144 * 1024, .l2_assoc = 24, .l2_latency = 193,
			.mem_partitions = 32, .dram_bandwidth_mbs = 900000,
			.dram_banks = 16, .dram_row_bytes = 1024, .dram_row_miss = 30,
			.icnt_latency = 10, .atomic_latency = 4,
			.l1i_size = 128 * 1024, .l1i_assoc = 8,
			.reg_banks = 2, .collectors = 2,
		},
	},
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

int vgpu_sim_preset(const char *name, struct vgpu_sim_config *cfg)
{
	for (size_t i = 0; i < NPRESETS; i++) {
		if (!strcmp(presets[i].name, name)) {
			*cfg = presets[i].cfg;
			memset(cfg->desc.name, 0, sizeof(cfg->desc.name));
			memcpy(cfg->desc.name, presets[i].name, strlen(presets[i].name));
			return 0;
		}
	}
	return -ENOENT;
}

const char *const *vgpu_sim_preset_names(void)
{
	static const char *names[NPRESETS + 1];

	for (size_t i = 0; i < NPRESETS; i++)
		names[i] = presets[i].name;
	names[NPRESETS] = NULL;
	return names;
}

void vgpu_sim_config_defaults(struct vgpu_sim_config *c)
{
#define DEF(f, v) do { if (!c->f) c->f = (v); } while (0)
	DEF(schedulers_per_sm, 2);
	DEF(alu_latency, 1);
	DEF(sfu_latency, 1);
	DEF(mem_latency, 1);
	DEF(shared_latency, 1);
	DEF(two_level_active, 8);
	DEF(alu_ii, 1);
	DEF(sfu_ii, 1);
	DEF(dp_latency, c->alu_latency);
	DEF(dp_ii, c->alu_ii);
	DEF(const_latency, c->shared_latency);
	DEF(shared_banks, 32);
	DEF(l1d_assoc, 4);
	DEF(l1d_mshrs, 32);
	DEF(l1d_latency, 1);
	DEF(l2_assoc, 16);
	DEF(l2_latency, c->l1d_latency);
	DEF(mem_partitions, 1);
	DEF(dram_banks, 16);
	DEF(dram_row_bytes, 2048);
	DEF(atomic_latency, 1);
	DEF(l1i_assoc, 4);
#undef DEF
}

/* ------------------------------------------------------------------ */
/* key = value */

#define DK(f) { #f, offsetof(struct vgpu_device_desc, f), 1 }
#define CK(f) { #f, offsetof(struct vgpu_sim_config, f), 0 }

static const struct key {
	const char *name;
	size_t off;
	int in_desc;
} keys[] = {
	DK(num_sms), DK(max_threads_per_sm), DK(max_tbs_per_sm), DK(regs_per_sm),
	DK(shared_per_sm), DK(max_threads_per_tb), DK(max_regs_per_thread),
	DK(max_shared_per_tb), DK(core_clock_khz), DK(reg_alloc_unit), DK(shared_alloc_unit),
	DK(max_local_per_thread),
	CK(schedulers_per_sm), CK(alu_latency), CK(alu_ii), CK(sfu_latency), CK(sfu_ii),
	CK(dp_latency), CK(dp_ii), CK(shared_latency), CK(shared_banks), CK(const_latency),
	CK(two_level_active), CK(l1d_size), CK(l1d_assoc), CK(l1d_mshrs), CK(l1d_latency),
	CK(l2_size), CK(l2_assoc), CK(l2_latency), CK(mem_partitions), CK(mem_latency),
	CK(dram_bandwidth_mbs), CK(dram_banks), CK(dram_row_bytes), CK(dram_row_miss),
	CK(icnt_latency), CK(atomic_latency), CK(l1i_size), CK(l1i_assoc), CK(reg_banks),
	CK(collectors), CK(threads), CK(newcar), CK(l1i_prefetch), CK(subcore_seed),
	CK(fully_connected), CK(l2_calendar), CK(dram_calendar),
	CK(collector_stall),
};

static const char *const sched_names[VGPU_SCHED_COUNT_] = {
	"lrr", "gto", "two-level", "elf", "rba", "progress",
};
/* subcore_assign (enum vgpu_subcore_assign; sub-core paper Sec. IV-B) */
static const char *const subcore_names[VGPU_SUBCORE_COUNT_] = { "rr", "srr", "shuffle" };
/* kernel_sched (enum vgpu_kernel_sched; thesis §5.4.3, §5.5.2) */
static const char *const ksched_names[VGPU_KSCHED_COUNT] = { "none", "lrr", "ipr", "fair" };

static int parse_u32(const char *v, uint32_t *out)
{
	char *end;
	unsigned long long x;
	uint64_t mul = 1;

	if (!isdigit((unsigned char)*v))
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mul = 1024, end++;
	else if (*end == 'M')
		mul = 1024 * 1024, end++;
	if (*end || x * mul > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)(x * mul);
	return 0;
}

int vgpu_sim_config_set(struct vgpu_sim_config *c, const char *key, const char *value)
{
	if (!strcmp(key, "gpu")) {
		uint32_t threads = c->threads;

		/* how to simulate is not part of the hardware */
		if (vgpu_sim_preset(value, c))
			return -EINVAL;
		c->threads = threads;
		return 0;
	}
	if (!strcmp(key, "name")) {
		size_t n = strlen(value);

		if (n >= sizeof(c->desc.name))
			return -EINVAL;
		memset(c->desc.name, 0, sizeof(c->desc.name));
		memcpy(c->desc.name, value, n);
		return 0;
	}
	if (!strcmp(key, "scheduler")) {
		for (uint32_t i = 0; i < VGPU_SCHED_COUNT_; i++) {
			if (!strcmp(value, sched_names[i])) {
				c->scheduler = i;
				return 0;
			}
		}
		return -EINVAL;
	}
	if (!strcmp(key, "subcore_assign")) {
		for (uint32_t i = 0; i < VGPU_SUBCORE_COUNT_; i++) {
			if (!strcmp(value, subcore_names[i])) {
				c->subcore_assign = i;
				return 0;
			}
		}
		return -EINVAL;
	}
	if (!strcmp(key, "kernel_sched")) {
		for (uint32_t i = 0; i < VGPU_KSCHED_COUNT; i++) {
			if (!strcmp(value, ksched_names[i])) {
				c->kernel_sched = i;
				return 0;
			}
		}
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint32_t v, *p;

		if (strcmp(key, keys[i].name))
			continue;
		if (parse_u32(value, &v))
			return -EINVAL;
		p = (uint32_t *)((char *)(keys[i].in_desc ? (void *)&c->desc : (void *)c) +
				 keys[i].off);
		*p = v;
		return 0;
	}
	return -ENOENT;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int vgpu_sim_config_load(struct vgpu_sim_config *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int lineno = 0, ret = 0;

	if (!f) {
		ret = -errno;
		if (err)
			snprintf(err, errlen, "%s: cannot open", path);
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *k, *v;

		lineno++;
		if (hash)
			*hash = 0;
		k = trim(line);
		if (!*k)
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			ret = -EINVAL;
			if (err)
				snprintf(err, errlen, "%s:%d: expected key = value", path, lineno);
			break;
		}
		*eq = 0;
		k = trim(k);
		v = trim(eq + 1);
		ret = vgpu_sim_config_set(c, k, v);
		if (ret) {
			if (err)
				snprintf(err, errlen, "%s:%d: %s '%s'", path, lineno,
					 ret == -ENOENT ? "unknown key" : "bad value for", k);
			break;
		}
	}
	fclose(f);
	return ret;
}

int vgpu_sim_config_write(const struct vgpu_sim_config *c, char *buf, size_t len)
{
	size_t n = 0;
	int r;

	r = snprintf(buf, len, "name = %.*s\nscheduler = %s\nkernel_sched = %s\n"
		     "subcore_assign = %s\n",
		     (int)sizeof(c->desc.name), c->desc.name,
		     c->scheduler < VGPU_SCHED_COUNT_ ? sched_names[c->scheduler] : "lrr",
		     c->kernel_sched < VGPU_KSCHED_COUNT ? ksched_names[c->kernel_sched] :
		     "none",
		     c->subcore_assign < VGPU_SUBCORE_COUNT_ ? subcore_names[c->subcore_assign] :
		     "rr");
	if (r < 0)
		return -EINVAL;
	n = (size_t)r;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const uint32_t *p = (const uint32_t *)((const char *)(keys[i].in_desc ?
			(const void *)&c->desc : (const void *)c) + keys[i].off);

		r = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s = %u\n",
			     keys[i].name, *p);
		if (r < 0)
			return -EINVAL;
		n += (size_t)r;
	}
	return n < len ? (int)n : -ENOSPC;
}
