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
#include <execinfo.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "lockstep.h"
#include "vgpu_sim.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * SIGUSR1: where the daemon is, as a backtrace on stderr (addresses that
 * addr2line -f -e vgpud resolves), for a daemon that has stopped kicking
 * while it computes (vgpu_fuzz sends it when the device's cycle stands).
 * backtrace() is loaded once before the handler is installed, so that the
 * handler does not load libgcc; backtrace_symbols_fd() does not allocate.
 */
static const struct vgpu_lockstep *shown_ls;

/* @v in decimal after @p, async-signal-safe; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

static void on_backtrace(int sig)
{
	static const char head[] = "vgpud: backtrace (SIGUSR1):\n";
	char line[160], *p = line;
	void *pc[32];
	int n;

	(void)sig;
	n = backtrace(pc, 32);
	if (write(STDERR_FILENO, head, sizeof(head) - 1) < 0)
		return;
	backtrace_symbols_fd(pc, n, STDERR_FILENO);
	/* Where the model is against what the command processor asked for. */
	if (shown_ls) {
		p = put_str(p, "vgpud: model cycle ");
		p = put_u64(p, vgpu_sim_cycle(shown_ls->sim));
		p = put_str(p, ", wake-up asked for cycle ");
		p = shown_ls->wake_at == UINT64_MAX ? put_str(p, "none") :
			put_u64(p, shown_ls->wake_at);
		p = put_str(p, vgpu_sim_busy(shown_ls->sim) ? ", blocks resident\n" :
			    ", idle\n");
		if (write(STDERR_FILENO, line, (size_t)(p - line)) < 0)
			return;
	}
}

static int verbose;

static void vlogmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "vgpud: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlogmsg(fmt, ap);
	va_end(ap);
}

/* The backend's rings as the lock-step loop's transport (lockstep.h). */
static const struct vgpu_cmd *be_cmd_peek(void *ctx)
{
	return backend_cmd_peek(ctx);
}

static void be_cmd_pop(void *ctx)
{
	backend_cmd_pop(ctx);
}

static uint32_t be_evt_space(void *ctx)
{
	return backend_evt_space(ctx);
}

static void be_evt_push(void *ctx, const struct vgpu_evt *evt)
{
	backend_evt_push(ctx, evt);
}

static int be_kick(void *ctx, uint64_t cycle)
{
	return backend_kick(ctx, cycle);
}

static void be_log(void *ctx, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	va_start(ap, fmt);
	vlogmsg(fmt, ap);
	va_end(ap);
}

static const struct vgpu_lockstep_ops backend_ops = {
	.cmd_peek = be_cmd_peek,
	.cmd_pop = be_cmd_pop,
	.evt_space = be_evt_space,
	.evt_push = be_evt_push,
	.kick = be_kick,
	.log = be_log,
};

static int run(struct backend *be, struct vgpu_lockstep *ls)
{
	int ret;

	while (!stop_requested) {
		/*
		 * The synchronised clock: while a program of it runs on the
		 * host, time stands (uapi/drm/vgpu_drm.h, drm_vgpu_clock_sync).
		 * A hold may also have begun while the daemon slept in poll().
		 */
		ret = backend_wait_clock(be);
		if (ret == -EINTR)
			continue;
		if (ret)
			return ret;
		ret = vgpu_lockstep_apply(ls);
		if (ret < 0)
			return ret;
		if (ret > 0)
			continue;	/* the kick's commands and hold first */
		if (vgpu_lockstep_busy(ls)) {
			ret = vgpu_lockstep_turn(ls);
		} else {
			ret = backend_wait(be);
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
	static struct backend be;
	struct vgpu_lockstep ls;
	struct vgpu_sim *sim;
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
	{
		struct sigaction bt = { .sa_handler = on_backtrace, .sa_flags = SA_RESTART };
		void *pc[1];

		backtrace(pc, 1);
		sigaction(SIGUSR1, &bt, NULL);
	}

	/* The kernel's context-switch cost estimates use it (Chimera). */
	cfg.desc.mem_bandwidth_mbs = cfg.dram_bandwidth_mbs;
	ret = backend_attach(&be, device, &cfg.desc);
	if (ret) {
		logmsg("cannot attach to %s: %s", device, strerror(-ret));
		return 1;
	}
	sim = vgpu_sim_create(&cfg, be.vram, be.vram_size);
	if (!sim) {
		logmsg("cannot create the GPU model");
		backend_detach(&be);
		return 1;
	}
	vgpu_sim_set_cycle(sim, be.start_cycle);
	vgpu_lockstep_init(&ls, sim, &backend_ops, &be);
	shown_ls = &ls;
	ls.status = be.status;
	ls.slots_per_sm = be.slots_per_sm;
	ls.verbose = verbose;
	logmsg("attached as %s: %u SMs, %" PRIu64 " MiB device memory, cycle %" PRIu64
	       ", %u host thread(s)", cfg.desc.name, cfg.desc.num_sms, be.vram_size >> 20,
	       be.start_cycle, cfg.threads < 2 ? 1 :
	       cfg.threads < cfg.desc.num_sms ? cfg.threads : cfg.desc.num_sms);
	if (ready && *ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}

	ret = run(&be, &ls);
	shown_ls = NULL;

	vgpu_sim_get_stats(sim, &st);
	logmsg("%s at cycle %" PRIu64 ": %" PRIu64 " warp instructions, %" PRIu64
	       " thread blocks", ret ? strerror(-ret) : "stopped",
	       vgpu_sim_cycle(sim), st.warp_insts, st.tbs_done);
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
	vgpu_sim_destroy(sim);
	backend_detach(&be);
	return ret ? 1 : 0;
}
