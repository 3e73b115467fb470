/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu tracepoints: every decision of the thread-block scheduler, for
 * trace-cmd / perf (events/vgpu/).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vgpu

#if !defined(_VGPU_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _VGPU_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

#include <drm/vgpu_backend.h>

TRACE_EVENT(vgpu_dispatch,
	    TP_PROTO(u32 job, u32 tb, u32 sm, u32 slot, u64 cycle),
	    TP_ARGS(job, tb, sm, slot, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(u32, tb)
			     __field(u32, sm)
			     __field(u32, slot)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->tb = tb;
			   __entry->sm = sm;
			   __entry->slot = slot;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u tb=%u sm=%u slot=%u cycle=%llu", __entry->job,
		      __entry->tb, __entry->sm, __entry->slot, __entry->cycle)
);

TRACE_EVENT(vgpu_tb_done,
	    TP_PROTO(u32 job, u32 tb, u32 sm, int status, u64 tb_cycles,
		     u64 cycle),
	    TP_ARGS(job, tb, sm, status, tb_cycles, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(u32, tb)
			     __field(u32, sm)
			     __field(int, status)
			     __field(u64, tb_cycles)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->tb = tb;
			   __entry->sm = sm;
			   __entry->status = status;
			   __entry->tb_cycles = tb_cycles;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u tb=%u sm=%u status=%d tb_cycles=%llu cycle=%llu",
		      __entry->job, __entry->tb, __entry->sm, __entry->status,
		      __entry->tb_cycles, __entry->cycle)
);

TRACE_EVENT(vgpu_job_end,
	    TP_PROTO(u32 job, int error, u32 tbs_done, u64 start_cycle,
		     u64 end_cycle),
	    TP_ARGS(job, error, tbs_done, start_cycle, end_cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(int, error)
			     __field(u32, tbs_done)
			     __field(u64, start_cycle)
			     __field(u64, end_cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->error = error;
			   __entry->tbs_done = tbs_done;
			   __entry->start_cycle = start_cycle;
			   __entry->end_cycle = end_cycle;),
	    TP_printk("job=%u error=%d tbs_done=%u start=%llu end=%llu",
		      __entry->job, __entry->error, __entry->tbs_done,
		      __entry->start_cycle, __entry->end_cycle)
);

TRACE_EVENT(vgpu_job_cancel,
	    TP_PROTO(u32 job, int error, u32 tbs_running, u64 start_cycle,
		     u64 cycle),
	    TP_ARGS(job, error, tbs_running, start_cycle, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(int, error)
			     __field(u32, tbs_running)
			     __field(u64, start_cycle)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->error = error;
			   __entry->tbs_running = tbs_running;
			   __entry->start_cycle = start_cycle;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u error=%d tbs_running=%u start=%llu cycle=%llu",
		      __entry->job, __entry->error, __entry->tbs_running,
		      __entry->start_cycle, __entry->cycle)
);

TRACE_EVENT(vgpu_fair_share,
	    TP_PROTO(u32 job, int pid, u64 waited, u32 share, u64 cycle),
	    TP_ARGS(job, pid, waited, share, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(int, pid)
			     __field(u64, waited)
			     __field(u32, share)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->pid = pid;
			   __entry->waited = waited;
			   __entry->share = share;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u pid=%d waited=%llu share=%u cycle=%llu",
		      __entry->job, __entry->pid, __entry->waited,
		      __entry->share, __entry->cycle)
);

TRACE_EVENT(vgpu_repartition,
	    TP_PROTO(u32 sm, u32 from, u32 to, u64 cycle),
	    TP_ARGS(sm, from, to, cycle),
	    TP_STRUCT__entry(__field(u32, sm)
			     __field(u32, from)
			     __field(u32, to)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->sm = sm;
			   __entry->from = from;
			   __entry->to = to;
			   __entry->cycle = cycle;),
	    TP_printk("sm=%u drain job=%u for job=%u cycle=%llu", __entry->sm,
		      __entry->from, __entry->to, __entry->cycle)
);

TRACE_EVENT(vgpu_maestro_epoch,
	    TP_PROTO(u32 trial_job, u32 other_job, int best, u32 fol_t,
		     u32 spatial, bool dedicated, u64 cycle),
	    TP_ARGS(trial_job, other_job, best, fol_t, spatial, dedicated,
		    cycle),
	    TP_STRUCT__entry(__field(u32, trial_job)
			     __field(u32, other_job)
			     __field(int, best)
			     __field(u32, fol_t)
			     __field(u32, spatial)
			     __field(bool, dedicated)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->trial_job = trial_job;
			   __entry->other_job = other_job;
			   __entry->best = best;
			   __entry->fol_t = fol_t;
			   __entry->spatial = spatial;
			   __entry->dedicated = dedicated;
			   __entry->cycle = cycle;),
	    TP_printk("trial_job=%u other_job=%u best=%d followers=%u spatial=%u dedicated=%d cycle=%llu",
		      __entry->trial_job, __entry->other_job, __entry->best,
		      __entry->fol_t, __entry->spatial, __entry->dedicated,
		      __entry->cycle)
);

TRACE_EVENT(vgpu_preempt_request,
	    TP_PROTO(u32 job, u32 nr_sms, u32 budget_us, u64 cycle),
	    TP_ARGS(job, nr_sms, budget_us, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(u32, nr_sms)
			     __field(u32, budget_us)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->nr_sms = nr_sms;
			   __entry->budget_us = budget_us;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u sms=%u budget_us=%u cycle=%llu", __entry->job,
		      __entry->nr_sms, __entry->budget_us, __entry->cycle)
);

TRACE_EVENT(vgpu_preempt_plan,
	    TP_PROTO(u32 sm, u32 job, u32 nr_tbs, u32 drains, u64 latency,
		     u64 overhead, bool meets, u64 cycle),
	    TP_ARGS(sm, job, nr_tbs, drains, latency, overhead, meets, cycle),
	    TP_STRUCT__entry(__field(u32, sm)
			     __field(u32, job)
			     __field(u32, nr_tbs)
			     __field(u32, drains)
			     __field(u64, latency)
			     __field(u64, overhead)
			     __field(bool, meets)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->sm = sm;
			   __entry->job = job;
			   __entry->nr_tbs = nr_tbs;
			   __entry->drains = drains;
			   __entry->latency = latency;
			   __entry->overhead = overhead;
			   __entry->meets = meets;
			   __entry->cycle = cycle;),
	    TP_printk("sm=%u job=%u tbs=%u drains=%u estimate=%llu overhead=%llu %s cycle=%llu",
		      __entry->sm, __entry->job, __entry->nr_tbs, __entry->drains,
		      __entry->latency, __entry->overhead,
		      __entry->meets ? "meets" : "misses", __entry->cycle)
);

TRACE_EVENT(vgpu_preempt_done,
	    TP_PROTO(u32 sm, u32 job, u64 latency, bool completed),
	    TP_ARGS(sm, job, latency, completed),
	    TP_STRUCT__entry(__field(u32, sm)
			     __field(u32, job)
			     __field(u64, latency)
			     __field(bool, completed)),
	    TP_fast_assign(__entry->sm = sm;
			   __entry->job = job;
			   __entry->latency = latency;
			   __entry->completed = completed;),
	    TP_printk("sm=%u for job=%u %s after %llu cycles", __entry->sm,
		      __entry->job, __entry->completed ? "done" : "called off",
		      __entry->latency)
);

TRACE_EVENT(vgpu_preempt_tb,
	    TP_PROTO(u32 job, u32 tb, u32 sm, u32 flags, u64 cycle),
	    TP_ARGS(job, tb, sm, flags, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(u32, tb)
			     __field(u32, sm)
			     __field(u32, flags)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->tb = tb;
			   __entry->sm = sm;
			   __entry->flags = flags;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u tb=%u sm=%u %s cycle=%llu", __entry->job,
		      __entry->tb, __entry->sm,
		      __entry->flags == VGPU_PREEMPT_FLUSH ? "flush" : "switch",
		      __entry->cycle)
);

TRACE_EVENT(vgpu_preempt_tb_done,
	    TP_PROTO(u32 job, u32 tb, u32 sm, u32 flags, u64 latency,
		     u64 insts),
	    TP_ARGS(job, tb, sm, flags, latency, insts),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(u32, tb)
			     __field(u32, sm)
			     __field(u32, flags)
			     __field(u64, latency)
			     __field(u64, insts)),
	    TP_fast_assign(__entry->job = job;
			   __entry->tb = tb;
			   __entry->sm = sm;
			   __entry->flags = flags;
			   __entry->latency = latency;
			   __entry->insts = insts;),
	    TP_printk("job=%u tb=%u sm=%u %s latency=%llu insts=%llu",
		      __entry->job, __entry->tb, __entry->sm,
		      __entry->flags == VGPU_PREEMPT_FLUSH ? "flushed, lost" :
		      "switched, kept", __entry->latency, __entry->insts)
);

TRACE_EVENT(vgpu_policy_change,
	    TP_PROTO(const char *old, const char *new, u64 cycle),
	    TP_ARGS(old, new, cycle),
	    TP_STRUCT__entry(__string(old, old)
			     __string(new, new)
			     __field(u64, cycle)),
	    TP_fast_assign(__assign_str(old);
			   __assign_str(new);
			   __entry->cycle = cycle;),
	    TP_printk("%s -> %s at cycle %llu", __get_str(old), __get_str(new),
		      __entry->cycle)
);

/* DYNCTA (vgpu_tlp_dyncta.c): the TB limit n of an SM changed. */
TRACE_EVENT(vgpu_tlp_limit,
	    TP_PROTO(u32 sm, u32 old, u32 limit, u32 max, u32 c_idle,
		     u32 c_mem, u64 cycle),
	    TP_ARGS(sm, old, limit, max, c_idle, c_mem, cycle),
	    TP_STRUCT__entry(__field(u32, sm)
			     __field(u32, old)
			     __field(u32, limit)
			     __field(u32, max)
			     __field(u32, c_idle)
			     __field(u32, c_mem)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->sm = sm;
			   __entry->old = old;
			   __entry->limit = limit;
			   __entry->max = max;
			   __entry->c_idle = c_idle;
			   __entry->c_mem = c_mem;
			   __entry->cycle = cycle;),
	    TP_printk("sm=%u n=%u->%u N=%u c_idle=%u c_mem=%u cycle=%llu",
		      __entry->sm, __entry->old, __entry->limit, __entry->max,
		      __entry->c_idle, __entry->c_mem, __entry->cycle)
);

/* CTA pausing (vgpu_tlp.c): a TB was paused or runs again. */
TRACE_EVENT(vgpu_tlp_pause,
	    TP_PROTO(u32 job, u32 tb, u32 sm, bool paused, u64 cycle),
	    TP_ARGS(job, tb, sm, paused, cycle),
	    TP_STRUCT__entry(__field(u32, job)
			     __field(u32, tb)
			     __field(u32, sm)
			     __field(bool, paused)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->job = job;
			   __entry->tb = tb;
			   __entry->sm = sm;
			   __entry->paused = paused;
			   __entry->cycle = cycle;),
	    TP_printk("job=%u tb=%u sm=%u %s cycle=%llu", __entry->job,
		      __entry->tb, __entry->sm,
		      __entry->paused ? "paused" : "resumed", __entry->cycle)
);

/* DYNCORE (vgpu_tlp_dyncore.c): the number of SMs turned off changed. */
TRACE_EVENT(vgpu_tlp_gate,
	    TP_PROTO(u32 off, u64 g_act, u64 cycle),
	    TP_ARGS(off, g_act, cycle),
	    TP_STRUCT__entry(__field(u32, off)
			     __field(u64, g_act)
			     __field(u64, cycle)),
	    TP_fast_assign(__entry->off = off;
			   __entry->g_act = g_act;
			   __entry->cycle = cycle;),
	    TP_printk("off=%u g_act=%llu cycle=%llu", __entry->off,
		      __entry->g_act, __entry->cycle)
);

#endif /* _VGPU_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vgpu_trace
#include <trace/define_trace.h>
