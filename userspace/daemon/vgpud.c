// SPDX-License-Identifier: MIT
/*
 * vgpud - the hardware of the vgpu virtual GPU.
 *
 * Attaches to vgpu.ko as its backend, maps the rings and the device memory,
 * and runs the GPU model (userspace/sim) in lock-step with the driver:
 * commands are applied at the current cycle, the model runs to the next
 * cycle at which something happens, the events of that cycle are posted and
 * the kernel answers before time moves on (uapi/drm/vgpu_backend.h). With
 * nothing resident, the daemon sleeps and simulated time stands still.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "vgpu_sim.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int verbose;

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "vgpud: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/**
 * struct daemon - the daemon's state.
 * @be: the attached backend.
 * @sim: the GPU model.
 * @wake_at: earliest WAKE_AT cycle requested, UINT64_MAX for none.
 */
struct daemon {
	struct backend be;
	struct vgpu_sim *sim;
	uint64_t wake_at;
};

/* Queues an event; the ring only fills up if the kernel stops consuming. */
static int post_event(struct daemon *d, const struct vgpu_evt *evt)
{
	if (backend_evt_space(&d->be) == 0) {
		int ret = backend_kick(&d->be, vgpu_sim_cycle(d->sim));

		if (ret)
			return ret;
		if (backend_evt_space(&d->be) == 0)
			return -ENOSPC;
	}
	backend_evt_push(&d->be, evt);
	return 0;
}

/* A DISPATCH the model refused still owes the kernel a completion. */
static int refuse_dispatch(struct daemon *d, const struct vgpu_cmd *cmd, int err)
{
	struct vgpu_evt evt = {
		.type = VGPU_EVT_TB_DONE,
		.job = cmd->job,
		.cycle = vgpu_sim_cycle(d->sim),
		.tb = cmd->tb,
		.sm = cmd->sm,
		.slot = cmd->slot,
		.status = err,
	};

	logmsg("dispatch of job %u tb %u to sm %u slot %u refused: %s",
	       cmd->job, cmd->tb, cmd->sm, cmd->slot, strerror(-err));
	return post_event(d, &evt);
}

/* Applies every queued command at the current cycle. */
static int apply_commands(struct daemon *d)
{
	const struct vgpu_cmd *cmd;
	int ret = 0;

	while ((cmd = backend_cmd_peek(&d->be))) {
		struct vgpu_cmd c = *cmd;

		backend_cmd_pop(&d->be);
		switch (c.op) {
		case VGPU_CMD_NOP:
			break;
		case VGPU_CMD_JOB_BEGIN:
			ret = vgpu_sim_job_begin(d->sim, c.job, c.addr);
			if (ret)
				logmsg("job %u: begin failed: %s", c.job, strerror(-ret));
			ret = 0;
			break;
		case VGPU_CMD_DISPATCH:
			ret = vgpu_sim_dispatch(d->sim, &c);
			if (ret)
				ret = refuse_dispatch(d, &c, ret);
			break;
		case VGPU_CMD_PREEMPT:
			/*
			 * The model answers every PREEMPT with a PREEMPTED
			 * event, a refusal too (negative status); only when it
			 * could not queue that does the daemon post it.
			 */
			ret = vgpu_sim_preempt(d->sim, &c);
			if (ret == -ENOMEM) {
				struct vgpu_evt evt = {
					.type = VGPU_EVT_PREEMPTED, .flags = c.flags,
					.job = c.job, .cycle = vgpu_sim_cycle(d->sim),
					.tb = c.tb, .sm = c.sm, .slot = c.slot, .status = ret,
				};

				ret = post_event(d, &evt);
			} else if (ret) {
				logmsg("preempt of job %u tb %u on sm %u slot %u refused: %s",
				       c.job, c.tb, c.sm, c.slot, strerror(-ret));
				ret = 0;
			}
			break;
		case VGPU_CMD_JOB_END:
			vgpu_sim_job_end(d->sim, c.job);
			break;
		case VGPU_CMD_RESET:
			vgpu_sim_reset(d->sim);
			break;
		case VGPU_CMD_SET_KERNEL_SCHED:
			/* kernel-aware warp scheduling (model.rst) from this cycle on */
			if (vgpu_sim_set_kernel_sched(d->sim, c.flags))
				logmsg("kernel-aware scheduling mode %u refused", c.flags);
			else if (verbose)
				logmsg("kernel-aware scheduling mode %u at cycle %" PRIu64, c.flags,
				       vgpu_sim_cycle(d->sim));
			break;
		case VGPU_CMD_SET_TB_PRIORITY:
			/* a block another kernel waits for (model.rst) issues first */
			if (vgpu_sim_tb_priority_cmd(d->sim, &c) && verbose)
				logmsg("priority for job %u tb %u on sm %u slot %u: no such block",
				       c.job, c.tb, c.sm, c.slot);
			break;
		case VGPU_CMD_WAKE_AT:
			if (c.addr < d->wake_at)
				d->wake_at = c.addr;
			break;
		default:
			logmsg("unknown command %u ignored", c.op);
			break;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* One turn: simulate to the next event cycle, post, hand over to the kernel. */
static int simulate_turn(struct daemon *d)
{
	struct vgpu_evt evts[256];
	uint64_t cycle;
	int n, ret;

	n = vgpu_sim_step(d->sim, d->wake_at, evts, 256);
	if (n < 0)
		return n;
	cycle = vgpu_sim_cycle(d->sim);
	if (n == 0 && d->wake_at != UINT64_MAX) {
		/* Nothing happened before the wake-up: time jumps there. */
		if (cycle < d->wake_at) {
			vgpu_sim_set_cycle(d->sim, d->wake_at);
			cycle = d->wake_at;
		}
	}
	for (int i = 0; i < n; i++) {
		ret = post_event(d, &evts[i]);
		if (ret)
			return ret;
	}
	if (d->wake_at != UINT64_MAX && cycle >= d->wake_at) {
		struct vgpu_evt wake = { .type = VGPU_EVT_WAKE, .cycle = cycle };

		d->wake_at = UINT64_MAX;
		ret = post_event(d, &wake);
		if (ret)
			return ret;
	}
	if (verbose > 1)
		logmsg("cycle %" PRIu64 ": %d events", cycle, n);
	/* What the kernel may read of running blocks while it has the turn. */
	if (d->be.status)
		vgpu_sim_tb_status(d->sim, d->be.status, d->be.slots_per_sm);
	return backend_kick(&d->be, cycle);
}

static int run(struct daemon *d)
{
	int ret;

	while (!stop_requested) {
		/*
		 * The synchronised clock: while a program of it runs on the
		 * host, time stands (uapi/drm/vgpu_drm.h, drm_vgpu_clock_sync).
		 * A hold may also have begun while the daemon slept in poll().
		 */
		ret = backend_wait_clock(&d->be);
		if (ret == -EINTR)
			continue;
		if (ret)
			return ret;
		ret = apply_commands(d);
		if (ret)
			return ret;
		if (vgpu_sim_busy(d->sim) || d->wake_at != UINT64_MAX) {
			ret = simulate_turn(d);
		} else {
			ret = backend_wait(&d->be);
			if (ret == -EINTR)
				ret = 0;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static void usage(FILE *f)
{
	const char *const *names = vgpu_sim_preset_names();

	fprintf(f,
		"usage: vgpud [--gpu NAME] [--config FILE] [--threads N] [--device PATH]\n"
		"             [--ready-file PATH] [-v]\n"
		"  --gpu NAME         hardware preset (default fermi-gtx480):");
	for (; *names; names++)
		fprintf(f, " %s", *names);
	fprintf(f,
		"\n  --config FILE      model settings, key = value (Documentation/model.rst),"
		"\n                     applied over the preset"
		"\n  --threads N        host threads simulating the SMs (same results for"
		"\n                     any N; default: the config's threads, else 1)"
		"\n  --device PATH      backend device (default %s)\n"
		"  --ready-file PATH  created once attached, removed on exit\n"
		"  -v                 log more (twice: every turn)\n",
		VGPU_BACKEND_DEVICE);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gpu", required_argument, NULL, 'g' },
		{ "config", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *gpu = "fermi-gtx480", *config = NULL;
	const char *device = VGPU_BACKEND_DEVICE;
	const char *ready = "/run/vgpud.ready";
	struct vgpu_sim_config cfg;
	struct sigaction sa = { .sa_handler = on_signal };
	static struct daemon d;
	struct vgpu_sim_stats st;
	long threads = -1;
	char *end;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "g:c:t:d:r:vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'g': gpu = optarg; break;
		case 'c': config = optarg; break;
		case 't':
			threads = strtol(optarg, &end, 10);
			if (*end || end == optarg || threads < 0 || threads > 1024) {
				logmsg("bad thread count '%s'", optarg);
				return 2;
			}
			break;
		case 'd': device = optarg; break;
		case 'r': ready = optarg; break;
		case 'v': verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (vgpu_sim_preset(gpu, &cfg)) {
		logmsg("unknown GPU preset '%s'", gpu);
		usage(stderr);
		return 2;
	}
	if (config) {
		char err[256];

		if (vgpu_sim_config_load(&cfg, config, err, sizeof(err))) {
			logmsg("%s", err);
			return 2;
		}
	}
	if (threads >= 0)
		cfg.threads = (uint32_t)threads;
	/* No SA_RESTART: a signal must interrupt poll() so that we exit. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	/* The kernel's context-switch cost estimates use it (Chimera). */
	cfg.desc.mem_bandwidth_mbs = cfg.dram_bandwidth_mbs;
	ret = backend_attach(&d.be, device, &cfg.desc);
	if (ret) {
		logmsg("cannot attach to %s: %s", device, strerror(-ret));
		return 1;
	}
	d.sim = vgpu_sim_create(&cfg, d.be.vram, d.be.vram_size);
	if (!d.sim) {
		logmsg("cannot create the GPU model");
		backend_detach(&d.be);
		return 1;
	}
	vgpu_sim_set_cycle(d.sim, d.be.start_cycle);
	d.wake_at = UINT64_MAX;
	logmsg("attached as %s: %u SMs, %" PRIu64 " MiB device memory, cycle %" PRIu64
	       ", %u host thread(s)", cfg.desc.name, cfg.desc.num_sms, d.be.vram_size >> 20,
	       d.be.start_cycle, cfg.threads < 2 ? 1 :
	       cfg.threads < cfg.desc.num_sms ? cfg.threads : cfg.desc.num_sms);
	if (ready && *ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}

	ret = run(&d);

	vgpu_sim_get_stats(d.sim, &st);
	logmsg("%s at cycle %" PRIu64 ": %" PRIu64 " warp instructions, %" PRIu64
	       " thread blocks", ret ? strerror(-ret) : "stopped",
	       vgpu_sim_cycle(d.sim), st.warp_insts, st.tbs_done);
	logmsg("SM cycles %" PRIu64 ": issuing %" PRIu64 ", stalled on memory conflicts %"
	       PRIu64 ", memory data %" PRIu64 ", fetch %" PRIu64 ", other %" PRIu64
	       "; C_idle %" PRIu64 ", C_mem %" PRIu64 "; L1D %" PRIu64 "/%" PRIu64
	       " hits, L2 %" PRIu64 "/%" PRIu64 " hits, DRAM %" PRIu64 " bytes",
	       st.cycles, st.issue_cycles, st.stall_mem_conflict, st.stall_mem_dep,
	       st.stall_fetch, st.stall_other, st.c_idle, st.c_mem, st.l1d_hits,
	       st.l1d_accesses, st.l2_hits, st.l2_accesses,
	       st.dram_read_bytes + st.dram_write_bytes);
	if (ready && *ready)
		unlink(ready);
	vgpu_sim_destroy(d.sim);
	backend_detach(&d.be);
	return ret ? 1 : 0;
}
