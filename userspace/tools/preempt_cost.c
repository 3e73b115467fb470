// SPDX-License-Identifier: MIT
/*
 * preempt_cost.c - Park's Table 4.2 (dissertation, Ch. IV §4.4) for one
 * workload on a local device: per kernel, the blocks per SM, the mean
 * block time, the estimated drain time, the context of a block, the
 * estimated switch time, and whether its blocks stay idempotent.
 *
 * What is measured comes from the run: the launches as the driver's code
 * took them (context, occupancy: vgpu_local_set_launch_hook()) and every
 * block that ended, with the cycle it crossed its idempotence boundary if
 * it did (vgpu_sim_set_tb_hook()). What is estimated is estimated by the
 * driver's own code, as Chimera's scheduler does (§4.2.4, §4.3.2;
 * vgpu_local_preempt_estimate()): the drain time of a block preempted at a
 * point uniformly distributed over its execution, half the mean block's
 * instructions at the kernel's CPI, and the switch time, the context of
 * the SM's resident blocks over the SM's share of the DRAM bandwidth.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preempt_cost.h"
#include "vgpu_sim.h"

/**
 * struct pc_job - which row a job's blocks count in.
 * @job: the job id.
 * @row: index into &pc_workload.k, or -1 (beyond %PC_MAX_KERNELS).
 */
struct pc_job {
	uint32_t job;
	int row;
};

/**
 * struct pc_collect - what the hooks fill during one run.
 * @lock: the hooks may run on different threads (submitting, driving).
 * @out: the rows.
 * @jobs: every launch's job and row, in launch order.
 * @njobs: entries of @jobs.
 * @cap: room in @jobs.
 * @err: -ENOMEM when a launch could not be noted.
 */
struct pc_collect {
	pthread_mutex_t lock;
	struct pc_workload *out;
	struct pc_job *jobs;
	size_t njobs, cap;
	int err;
};

static int pc_row(struct pc_workload *out, const struct vgpu_local_launch *l)
{
	struct pc_kernel *k;

	for (unsigned int i = 0; i < out->nk; i++) {
		k = &out->k[i];
		if (!strcmp(k->kernel, l->kernel) && k->ctx_bytes == l->ctx_bytes &&
		    k->tbs_per_sm == l->tbs_per_sm)
			return (int)i;
	}
	if (out->nk == PC_MAX_KERNELS)
		return -1;
	k = &out->k[out->nk];
	memset(k, 0, sizeof(*k));
	snprintf(k->kernel, sizeof(k->kernel), "%s", l->kernel);
	k->threads = l->threads;
	k->regs_per_thread = l->regs_per_thread;
	k->shared = l->shared;
	k->local_per_thread = l->local_per_thread;
	k->tbs_per_sm = l->tbs_per_sm;
	k->ctx_bytes = l->ctx_bytes;
	k->idempotent = l->idempotent;
	return (int)out->nk++;
}

static void pc_launch(void *ctx, const struct vgpu_local_launch *l)
{
	struct pc_collect *c = ctx;
	int row;

	pthread_mutex_lock(&c->lock);
	if (c->njobs == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct pc_job *j = realloc(c->jobs, cap * sizeof(*j));

		if (!j) {
			c->err = -ENOMEM;
			goto out;
		}
		c->jobs = j;
		c->cap = cap;
	}
	row = pc_row(c->out, l);
	c->jobs[c->njobs++] = (struct pc_job){ .job = l->job, .row = row };
	if (row < 0) {
		c->out->lost_launches++;
		goto out;
	}
	c->out->k[row].launches++;
	c->out->k[row].tbs += l->num_tbs;
out:
	pthread_mutex_unlock(&c->lock);
}

static double share(uint64_t part, uint64_t whole)
{
	if (!whole || part >= whole)
		return 1.0;
	return (double)part / (double)whole;
}

static void pc_tb_end(void *ctx, const struct vgpu_sim_tb_end *e)
{
	struct pc_collect *c = ctx;
	struct pc_kernel *k;
	int row = -2;

	pthread_mutex_lock(&c->lock);
	/* the job that ends is most likely one of the last launched */
	for (size_t i = c->njobs; i-- > 0;) {
		if (c->jobs[i].job == e->job) {
			row = c->jobs[i].row;
			break;
		}
	}
	if (row == -2)
		c->out->unknown_tbs++;
	if (row < 0)
		goto out;
	k = &c->out->k[row];
	k->done++;
	k->tb_cycles += e->cycles;
	k->warp_insts += e->warp_insts;
	if (e->crossed) {
		k->crossed++;
		k->idem_frac += share(e->cross_cycles, e->cycles);
		k->idem_frac_insts += share(e->cross_insts, e->warp_insts);
	} else {
		k->idem_frac += 1.0;
		k->idem_frac_insts += 1.0;
	}
out:
	pthread_mutex_unlock(&c->lock);
}

int pc_measure(struct vgpu_device *dev, const struct vgpu_workload *w,
	       const struct workload_args *args, struct pc_workload *out)
{
	struct pc_collect c = { .out = out };
	struct vgpu_sim *sim = vgpu_local_sim(dev);
	int ret;

	memset(out, 0, sizeof(*out));
	if (!sim)
		return -ENODEV;
	pthread_mutex_init(&c.lock, NULL);
	ret = vgpu_local_set_launch_hook(dev, pc_launch, &c);
	if (ret)
		goto out;
	vgpu_sim_set_tb_hook(sim, pc_tb_end, &c);
	out->ret = w->run(dev, args, &out->res, out->msg, sizeof(out->msg));
	if (out->ret && !out->msg[0])
		snprintf(out->msg, sizeof(out->msg), "%s", strerror(-out->ret));
	vgpu_sim_set_tb_hook(sim, NULL, NULL);
	vgpu_local_set_launch_hook(dev, NULL, NULL);
	ret = c.err;
	for (unsigned int i = 0; !ret && i < out->nk; i++) {
		struct pc_kernel *k = &out->k[i];
		struct vgpu_local_preempt_est est;
		/* §4.2.4: preempted uniformly over a block's run, half remains */
		uint64_t half = k->done ? (k->warp_insts + k->done) / (2 * k->done) : 0;

		ret = vgpu_local_preempt_estimate(dev, k->ctx_bytes * k->tbs_per_sm, half,
						  k->tb_cycles, k->warp_insts, &est);
		k->sm_bw_fp = est.sm_bw_fp;
		k->switch_cycles = est.switch_cycles;
		k->drain_cycles = k->done ? est.drain_cycles : 0;
	}
out:
	free(c.jobs);
	pthread_mutex_destroy(&c.lock);
	return ret;
}

double pc_tb_cycles(const struct pc_kernel *k)
{
	return k->done ? (double)k->tb_cycles / (double)k->done : 0.0;
}

bool pc_idempotent(const struct pc_kernel *k)
{
	return !k->crossed;
}

double pc_idem_pct(const struct pc_kernel *k)
{
	return k->done ? 100.0 * k->idem_frac / (double)k->done : 100.0;
}
