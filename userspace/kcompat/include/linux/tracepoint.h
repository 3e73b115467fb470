/* SPDX-License-Identifier: MIT */
/*
 * kcompat: tracepoints. TRACE_EVENT() defines trace_NAME() as an inline
 * function that counts the event (kcompat_trace_count()) and, when the
 * event is enabled (kcompat_trace_enable(), or the environment variable
 * VGPU_TRACE: "all" or a comma-separated list of event names), fills the
 * event's record as the kernel would and prints it, "NAME: " and its
 * TP_printk() format, on stderr.
 *
 * __string(item, src) fields keep the pointer: the record is printed
 * before the call returns. __assign_str(item) takes the value of the
 * parameter named @item, so a __string() field must be named after its
 * source parameter (the kernel does not need that).
 */
#ifndef VGPU_KCOMPAT_LINUX_TRACEPOINT_H
#define VGPU_KCOMPAT_LINUX_TRACEPOINT_H

#include <linux/compiler.h>
#include <linux/types.h>

/**
 * struct kcompat_trace_site - one place that fires an event.
 * @name: the event.
 * @state: 0 not yet registered, 1 counted only, 2 counted and printed.
 * @hits: times it fired.
 * @next: the next registered site.
 */
struct kcompat_trace_site {
	const char *name;
	int state;
	unsigned long hits;
	struct kcompat_trace_site *next;
};

/* Counts a hit of @site; true when its event is to be printed. */
bool kcompat_trace_hit(struct kcompat_trace_site *site);
void kcompat_trace_print(const char *name, const char *fmt, ...) __printf(2, 3);
/* Times event @name fired, over all sites, since the process started. */
unsigned long kcompat_trace_count(const char *name);
/* Prints the events of @spec ("all", or names separated by commas) from now on. */
void kcompat_trace_enable(const char *spec);

#define TP_PROTO(args...)		args
#define TP_ARGS(args...)		args
#define TP_STRUCT__entry(args...)	args
#define TP_fast_assign(args...)		args
#define TP_printk(fmt, args...)		fmt, ##args
#define TP_CONDITION(args...)		args

#define __field(type, item)		type item;
#define __field_struct(type, item)	type item;
#define __array(type, item, len)	type item[len];
#define __string(item, src)		const char *item;
#define __assign_str(item)		(__entry->item = (item))
#define __get_str(item)			(__entry->item)

#define TRACE_EVENT(event, proto, args, tstruct, assign, print)		\
	struct kcompat_trace_rec_##event { tstruct };			\
	static inline void trace_##event(proto)				\
	{								\
		static struct kcompat_trace_site site_ = { .name = #event }; \
		struct kcompat_trace_rec_##event rec_, *__entry = &rec_;	\
									\
		if (!kcompat_trace_hit(&site_))				\
			return;						\
		assign							\
		kcompat_trace_print(#event, print);			\
	}

#endif
