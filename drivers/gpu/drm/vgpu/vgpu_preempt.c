// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu preemption core: what every preemption policy shares (Park,
 * dissertation, Ch. IV, Chimera).
 *
 * Cost estimation (§4.3.2) of context switch, drain and flush for every
 * resident TB of the kernel to preempt, and the preemption selection of
 * Algorithm 3 (§4.3.3) with the per-TB choice left to the policy
 * (vgpu_preempt_plan_sms()): per SM, each TB gets the technique the
 * policy picks from its three costs; then the SMs that meet the latency
 * budget are taken cheapest first. Latencies are in cycles, overheads in
 * warp instructions, so the two are compared in the same units across
 * techniques (§4.3.1). The policies themselves are Chimera's choice
 * (vgpu_preempt_chimera.c) and the single-technique baselines
 * (vgpu_preempt_simple.c); vgpu_preempt_policies[] below lists them.
 *
 * All arithmetic saturates at U64_MAX, which is also the cost of what
 * cannot be estimated for lack of statistics (§4.3.2).
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sort.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "vgpu_preempt.h"

static u64 sat_add(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

static u64 sat_mul(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

/*
 * floor(a * b / c), U64_MAX when it does not fit; c != 0. Split a = q c + r
 * so that the 128-bit step r * b / c is below b and cannot trap.
 */
static u64 sat_mul_div(u64 a, u64 b, u64 c)
{
	u64 r, q = div64_u64_rem(a, c, &r);

	return sat_add(sat_mul(q, b), mul_u64_u64_div_u64(r, b, c));
}

/**
 * vgpu_preempt_switch_latency() - cycles to save a context (§4.2.4).
 * @ctx_bytes: context size.
 * @sm_bw_fp: the SM's share of memory bandwidth, bytes per cycle, fixed
 *	point.
 *
 * An SM saves its context through its share of the memory bandwidth only
 * (§4.2.4; Table 4.2's switch time is context/TB × TBs over that share).
 * This is the save; the restore is paid later, when the TB runs again, and
 * counts in the overhead only.
 *
 * Return: @ctx_bytes / bandwidth, rounded down; U64_MAX for a zero
 * bandwidth or when it does not fit.
 */
u64 vgpu_preempt_switch_latency(u64 ctx_bytes, u64 sm_bw_fp)
{
	if (!sm_bw_fp)
		return U64_MAX;
	return sat_mul_div(ctx_bytes, VGPU_PREEMPT_FP_ONE, sm_bw_fp);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_switch_latency);

/**
 * vgpu_preempt_sm_bw_fp() - one SM's share of the memory bandwidth.
 * @mem_bandwidth_mbs: the device's DRAM bandwidth in MB/s.
 * @core_clock_khz: its core clock in kHz.
 * @num_sms: its SMs.
 *
 * §4.2.4: an SM saves its context through its share of the bandwidth
 * only. MB/s over kHz is bytes per cycle (x 1000).
 *
 * Return: bytes per cycle, fixed point (&vgpu_preempt_params.sm_bw_fp), at
 * least 1; Table 4.1's 4.22 (4325) when the device does not give its
 * bandwidth, clock or SMs.
 */
u64 vgpu_preempt_sm_bw_fp(u64 mem_bandwidth_mbs, u64 core_clock_khz,
			  u32 num_sms)
{
	u64 per_cycle;

	if (!mem_bandwidth_mbs || !core_clock_khz || !num_sms)
		return 4325;
	per_cycle = sat_mul_div(sat_mul(mem_bandwidth_mbs, 1000),
				VGPU_PREEMPT_FP_ONE,
				sat_mul(core_clock_khz, num_sms));
	return max(per_cycle, 1ull);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_sm_bw_fp);

/**
 * vgpu_preempt_cpi_fp() - cycles per warp instruction, fixed point.
 * @cycles: cycles of the TBs measured.
 * @insts: warp instructions they executed.
 *
 * The kernel's average CPI of a TB (&vgpu_preempt_kernel.tb_cpi_fp) from
 * its finished TBs' summed cycles and instructions (§4.3.2).
 *
 * Return: @cycles / @insts, fixed point, saturating; 0 when @insts is 0.
 */
u64 vgpu_preempt_cpi_fp(u64 cycles, u64 insts)
{
	if (!insts)
		return 0;
	return sat_mul_div(cycles, VGPU_PREEMPT_FP_ONE, insts);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_cpi_fp);

/**
 * vgpu_preempt_switch_overhead() - instructions a context switch costs.
 * @save_cycles: the save latency (vgpu_preempt_switch_latency()).
 * @sm_ipc_fp: the kernel's warp instructions per cycle on one SM, fixed
 *	point.
 *
 * §4.3.2: the SM's IPC times twice the latency, because the SM loses the
 * time of the save now and of the restore later.
 *
 * Return: 2 × @save_cycles × IPC, saturating.
 */
u64 vgpu_preempt_switch_overhead(u64 save_cycles, u64 sm_ipc_fp)
{
	return sat_mul_div(sat_mul(2, save_cycles), sm_ipc_fp,
			   VGPU_PREEMPT_FP_ONE);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_switch_overhead);

/**
 * vgpu_preempt_drain_latency() - cycles until a TB finishes.
 * @remaining_insts: warp instructions the TB still has to execute.
 * @tb_cpi_fp: the kernel's average cycles per warp instruction of a TB,
 *	fixed point.
 *
 * §4.3.2: remaining instructions times the kernel's average CPI (not the
 * average TB cycles, whose variance is larger).
 *
 * Return: @remaining_insts × CPI, saturating.
 */
u64 vgpu_preempt_drain_latency(u64 remaining_insts, u64 tb_cpi_fp)
{
	return sat_mul_div(remaining_insts, tb_cpi_fp, VGPU_PREEMPT_FP_ONE);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_drain_latency);

/**
 * vgpu_preempt_flush_allowed() - whether a TB may be dropped and rerun.
 * @tb: the TB.
 * @idem: the idempotence condition.
 *
 * §4.3.4: relaxed (and buffers, whose blocks cross by another rule): not
 * yet past the first atomic or overwrite of a global location it read;
 * strict: no global store or atomic at all.
 *
 * Return: true when flushing @tb now gives the same results.
 */
bool vgpu_preempt_flush_allowed(const struct vgpu_preempt_tb *tb,
				enum vgpu_preempt_idem idem)
{
	if (tb->crossed)
		return false;
	return idem != VGPU_PREEMPT_IDEM_STRICT || !tb->kernel_nonidem;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_flush_allowed);

/* What the estimates of one SM's TBs share. */
struct sm_totals {
	u64 ctx_bytes;		/* all TBs' contexts */
	u64 max_insts;		/* most instructions any known TB executed */
};

static void sm_totals(const struct vgpu_preempt_sm *sm, struct sm_totals *t)
{
	u32 i;

	t->ctx_bytes = 0;
	t->max_insts = 0;
	for (i = 0; i < sm->nr_tbs; i++) {
		const struct vgpu_preempt_tb *tb = &sm->tbs[i];

		t->ctx_bytes = sat_add(t->ctx_bytes, tb->ctx_bytes);
		if (tb->known)
			t->max_insts = max(t->max_insts, tb->insts);
	}
}

static const struct vgpu_preempt_cost cost_unknown = {
	.latency = U64_MAX,
	.overhead = U64_MAX,
	.allowed = true,
};

/*
 * A switch or drain latency as this kernel's past preemptions say it
 * comes out: times &vgpu_preempt_kernel.latency_scale_fp when set.
 */
static u64 scaled(const struct vgpu_preempt_kernel *k, u64 latency)
{
	if (!k->latency_scale_fp || latency == U64_MAX)
		return latency;
	return sat_mul_div(latency, k->latency_scale_fp, VGPU_PREEMPT_FP_ONE);
}

static void estimate(const struct vgpu_preempt_input *in,
		     const struct sm_totals *t, const struct vgpu_preempt_tb *tb,
		     struct vgpu_preempt_cost cost[VGPU_TECH_NR])
{
	const struct vgpu_preempt_kernel *k = &in->kernel;
	u64 bw = in->params.sm_bw_fp;
	u64 own_save = vgpu_preempt_switch_latency(tb->ctx_bytes, bw);
	struct vgpu_preempt_cost *c;

	/*
	 * Context switch. The latency a TB must meet is the save of the
	 * whole SM's context: the saves of the TBs switched share the SM's
	 * bandwidth, so if each TB meets the budget with the whole SM's
	 * save, any set of them switched together does. The overhead is the
	 * TB's own part, so that an SM's overheads add up to 2 × the SM's
	 * save × IPC.
	 */
	c = &cost[VGPU_TECH_SWITCH];
	c->allowed = true;
	c->latency = scaled(k, vgpu_preempt_switch_latency(t->ctx_bytes, bw));
	c->overhead = U64_MAX;
	if (k->known)
		c->overhead = vgpu_preempt_switch_overhead(own_save,
							   k->sm_ipc_fp);

	/*
	 * Drain. Latency: the TB's remaining instructions × CPI. §4.3.2 takes
	 * them from the kernel's average per TB; that underestimates the TBs
	 * of kernels whose TBs differ in length (boundary TBs, data-dependent
	 * loops), and a deadline is hard, so they are counted up to the
	 * longest TB the kernel has finished (a TB past it is taken to be
	 * finishing), and at the TB's own CPI so far where that is higher
	 * than the kernel's average (a TB slowed by memory stays slow).
	 * Overhead, as §4.3.2 words it: the difference between the most
	 * instructions executed by a TB of the SM and this TB's. Zero for
	 * TBs in step (§4.2.4 assumes draining costs nothing then); it grows
	 * with how far this TB lags the most advanced one, i.e. with the
	 * time the SM runs part empty. The maximum is over the TBs whose
	 * statistics are known.
	 */
	c = &cost[VGPU_TECH_DRAIN];
	if (tb->known && k->known) {
		u64 whole = max(k->avg_tb_insts, k->max_tb_insts);
		u64 left = whole > tb->insts ? whole - tb->insts : 0;
		u64 cpi = k->tb_cpi_fp;

		if (tb->insts)
			cpi = max(cpi, sat_mul_div(tb->cycles,
						   VGPU_PREEMPT_FP_ONE,
						   tb->insts));
		c->allowed = true;
		c->latency = scaled(k, vgpu_preempt_drain_latency(left, cpi));
		c->overhead = t->max_insts - tb->insts;
	} else {
		*c = cost_unknown;
	}

	/* Flush: about no time, the executed instructions are lost. */
	c = &cost[VGPU_TECH_FLUSH];
	if (tb->known) {
		c->latency = VGPU_PREEMPT_FLUSH_LATENCY;
		c->overhead = tb->insts;
	} else {
		*c = cost_unknown;
	}
	c->allowed = vgpu_preempt_flush_allowed(tb, in->params.idem);
}

/**
 * vgpu_preempt_estimate() - §4.3.2 costs of every technique for one TB.
 * @in: the request's input (device and kernel statistics).
 * @sm: the SM the TB runs on (the drain overhead and the switch latency
 *	depend on its other TBs).
 * @tb: index of the TB in @sm's TBs; must be valid.
 * @cost: out, indexed by &enum vgpu_preempt_tech.
 *
 * O(TBs of @sm); the policies compute the SM's totals once instead.
 */
void vgpu_preempt_estimate(const struct vgpu_preempt_input *in,
			   const struct vgpu_preempt_sm *sm, u32 tb,
			   struct vgpu_preempt_cost cost[VGPU_TECH_NR])
{
	struct sm_totals t;

	sm_totals(sm, &t);
	estimate(in, &t, &sm->tbs[tb], cost);
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_estimate);

static int validate(const struct vgpu_preempt_input *in,
		    const struct vgpu_preempt_request *req,
		    const struct vgpu_preempt_plan *plan)
{
	const struct vgpu_preempt_kernel *k = &in->kernel;
	u32 i;

	if (!in->sms || !in->nr_sms || !plan->sms ||
	    plan->max_sms < in->nr_sms)
		return -EINVAL;
	if (!req->nr_sms || req->nr_sms > in->nr_sms)
		return -EINVAL;
	if (!in->params.sm_bw_fp ||
	    (u32)in->params.idem > VGPU_PREEMPT_IDEM_BUFFERS)
		return -EINVAL;
	/* A kernel that ran has instructions, takes cycles, makes progress. */
	if (k->known && (!k->avg_tb_insts || !k->tb_cpi_fp || !k->sm_ipc_fp))
		return -EINVAL;
	for (i = 0; i < in->nr_sms; i++) {
		const struct vgpu_preempt_sm *sm = &in->sms[i];

		if (sm->nr_tbs > VGPU_PREEMPT_MAX_TBS ||
		    (sm->nr_tbs && !sm->tbs))
			return -EINVAL;
	}
	return 0;
}

/* Lines 1-18 of Algorithm 3 for one SM, with the per-TB choice of @pick. */
static void plan_sm(const struct vgpu_preempt_input *in, u32 idx, u64 budget,
		    enum vgpu_preempt_tech (*pick)
			(const struct vgpu_preempt_cost *cost, u64 budget),
		    struct vgpu_preempt_sm_plan *p)
{
	const struct vgpu_preempt_sm *sm = &in->sms[idx];
	struct vgpu_preempt_cost cost[VGPU_TECH_NR];
	u64 switched = 0, longest = 0;
	struct sm_totals t;
	u32 i;

	sm_totals(sm, &t);
	p->idx = idx;
	p->sm = sm->sm;
	p->nr_tbs = sm->nr_tbs;
	p->overhead = 0;
	memset(p->tech, VGPU_TECH_SWITCH, sizeof(p->tech));
	for (i = 0; i < sm->nr_tbs; i++) {
		const struct vgpu_preempt_tb *tb = &sm->tbs[i];
		enum vgpu_preempt_tech tech;

		estimate(in, &t, tb, cost);
		tech = pick(cost, budget);
		p->tech[i] = tech;
		p->overhead = sat_add(p->overhead, cost[tech].overhead);
		/*
		 * The TBs are preempted at once: the SM is free when the last
		 * is, except that the saves share the SM's bandwidth and are
		 * summed below.
		 */
		if (tech == VGPU_TECH_SWITCH)
			switched = sat_add(switched, tb->ctx_bytes);
		else
			longest = max(longest, cost[tech].latency);
	}
	if (switched)
		longest = max(longest,
			      vgpu_preempt_switch_latency(switched,
							  in->params.sm_bw_fp));
	p->latency = longest;
	p->meets = longest <= budget;
}

/*
 * Line 19 and the order in which lines 20-28 take the SMs: those that
 * meet the budget first, each group cheapest first. Taking the first
 * NumPreempts is then Algorithm 3's choice, filled up with the cheapest of
 * the rest when too few meet it. Ties go to the lower latency, then to the
 * lower input index, so that the unstable heapsort of sort() gives one
 * answer.
 */
static int cmp_sm_plan(const void *a, const void *b)
{
	const struct vgpu_preempt_sm_plan *x = a, *y = b;

	if (x->meets != y->meets)
		return x->meets ? -1 : 1;
	if (x->overhead != y->overhead)
		return x->overhead < y->overhead ? -1 : 1;
	if (x->latency != y->latency)
		return x->latency < y->latency ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return 0;
}

/**
 * vgpu_preempt_plan_sms() - Algorithm 3 with a given per-TB choice.
 * @in: the SMs, the kernel's and the device's parameters.
 * @req: how many SMs and the latency budget.
 * @plan: caller's storage; filled as &struct vgpu_preempt_plan says.
 * @pick: the technique for one TB from its costs and the budget.
 *
 * Time O(N T + N log N) for N SMs of T TBs: @pick looks at the three
 * costs of a TB, which is what the sort of lines 7-13 finds (for each TB
 * the first entry, by overhead, that meets the budget), within the
 * O(N T log T) of §4.3.3. No allocation; no state.
 *
 * Return: 0, or -EINVAL for a request that makes no sense (no SMs, more
 * SMs requested than given, or none; too little room in @plan; too many
 * TBs on an SM; zero bandwidth; known kernel statistics with a zero rate).
 */
int vgpu_preempt_plan_sms(const struct vgpu_preempt_input *in,
			  const struct vgpu_preempt_request *req,
			  struct vgpu_preempt_plan *plan,
			  enum vgpu_preempt_tech (*pick)
				(const struct vgpu_preempt_cost *cost,
				 u64 budget))
{
	u32 i;
	int ret;

	plan->nr_sms = 0;
	plan->latency = 0;
	plan->overhead = 0;
	plan->budget_met = false;
	ret = validate(in, req, plan);
	if (ret)
		return ret;

	for (i = 0; i < in->nr_sms; i++)
		plan_sm(in, i, req->budget, pick, &plan->sms[i]);
	sort(plan->sms, in->nr_sms, sizeof(*plan->sms), cmp_sm_plan, NULL);

	plan->nr_sms = req->nr_sms;
	plan->budget_met = true;
	for (i = 0; i < req->nr_sms; i++) {
		const struct vgpu_preempt_sm_plan *p = &plan->sms[i];

		plan->latency = max(plan->latency, p->latency);
		plan->overhead = sat_add(plan->overhead, p->overhead);
		plan->budget_met &= p->meets;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_plan_sms);

/*
 * Every preemption policy, in the order sysfs lists them (preempt_policy);
 * the first is the default. NULL-terminated. A new policy is a file of its
 * own with its &struct vgpu_preempt_ops, declared in vgpu_preempt.h, and
 * one line here (Documentation/driver.rst, "Writing a policy").
 */
const struct vgpu_preempt_ops *const vgpu_preempt_policies[] = {
	&vgpu_preempt_drain,
	&vgpu_preempt_switch,
	&vgpu_preempt_flush,
	&vgpu_preempt_chimera,
	&vgpu_preempt_ideal,
	NULL
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_policies);

/**
 * vgpu_preempt_find() - a preemption policy by name.
 * @name: the name of one of vgpu_preempt_policies[]; a trailing newline is
 *	ignored (sysfs_streq()).
 *
 * Return: the policy, or NULL.
 */
const struct vgpu_preempt_ops *vgpu_preempt_find(const char *name)
{
	const struct vgpu_preempt_ops *const *ops;

	for (ops = vgpu_preempt_policies; *ops; ops++)
		if (sysfs_streq(name, (*ops)->name))
			return *ops;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_find);

/* The idempotence conditions by &enum vgpu_preempt_idem; NULL-terminated. */
const char *const vgpu_preempt_idem_names[] = {
	[VGPU_PREEMPT_IDEM_RELAXED] = "relaxed",
	[VGPU_PREEMPT_IDEM_STRICT] = "strict",
	[VGPU_PREEMPT_IDEM_BUFFERS] = "buffers",
	NULL
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_idem_names);

/**
 * vgpu_preempt_idem_parse() - an idempotence condition by name.
 * @name: "relaxed", "strict" or "buffers" (sysfs_streq()).
 *
 * Return: the &enum vgpu_preempt_idem, or -EINVAL.
 */
int vgpu_preempt_idem_parse(const char *name)
{
	int i = sysfs_match_string(vgpu_preempt_idem_names, name);

	return i < 0 ? -EINVAL : i;
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_idem_parse);

/**
 * vgpu_preempt_idem_name() - name of an idempotence condition.
 * @idem: the condition.
 *
 * Return: its name, or "?" for a value out of range.
 */
const char *vgpu_preempt_idem_name(enum vgpu_preempt_idem idem)
{
	return (u32)idem <= VGPU_PREEMPT_IDEM_BUFFERS ?
	       vgpu_preempt_idem_names[idem] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_idem_name);

/**
 * vgpu_preempt_tech_name() - name of a technique.
 * @tech: the technique.
 *
 * Return: "switch", "drain" or "flush", or "?" for a value out of range.
 */
const char *vgpu_preempt_tech_name(enum vgpu_preempt_tech tech)
{
	static const char *const names[] = {
		[VGPU_TECH_SWITCH] = "switch",
		[VGPU_TECH_DRAIN] = "drain",
		[VGPU_TECH_FLUSH] = "flush",
	};

	return (u32)tech < ARRAY_SIZE(names) ? names[tech] : "?";
}
EXPORT_SYMBOL_IF_KUNIT(vgpu_preempt_tech_name);
