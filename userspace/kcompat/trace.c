// SPDX-License-Identifier: MIT
/*
 * kcompat tracepoints: counting every event and printing the enabled ones
 * (<linux/tracepoint.h>). Sites register themselves at their first hit.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/tracepoint.h>

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kcompat_trace_site *sites;	/* under trace_lock */
static char *enabled;				/* ",a,b," or ",all,"; under trace_lock */
static bool env_read;				/* under trace_lock */

static bool name_enabled(const char *name)
{
	char key[80];

	if (!enabled)
		return false;
	if (strstr(enabled, ",all,"))
		return true;
	snprintf(key, sizeof(key), ",%s,", name);
	return strstr(enabled, key);
}

static void set_spec(const char *spec)
{
	size_t len = strlen(spec);
	char *s = malloc(len + 3);

	if (!s)
		return;
	snprintf(s, len + 3, ",%s,", spec);
	free(enabled);
	enabled = s;
	for (struct kcompat_trace_site *p = sites; p; p = p->next)
		__atomic_store_n(&p->state, name_enabled(p->name) ? 2 : 1, __ATOMIC_RELAXED);
}

bool kcompat_trace_hit(struct kcompat_trace_site *site)
{
	int state = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);

	if (!state) {
		pthread_mutex_lock(&trace_lock);
		if (!env_read) {
			const char *e = getenv("VGPU_TRACE");

			env_read = true;
			if (e && *e)
				set_spec(e);
		}
		if (!site->state) {
			site->next = sites;
			sites = site;
			__atomic_store_n(&site->state, name_enabled(site->name) ? 2 : 1,
					 __ATOMIC_RELEASE);
		}
		state = site->state;
		pthread_mutex_unlock(&trace_lock);
	}
	__atomic_fetch_add(&site->hits, 1, __ATOMIC_RELAXED);
	return state == 2;
}

void kcompat_trace_print(const char *name, const char *fmt, ...)
{
	va_list ap;

	flockfile(stderr);
	fprintf(stderr, "%s: ", name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

unsigned long kcompat_trace_count(const char *name)
{
	unsigned long n = 0;

	pthread_mutex_lock(&trace_lock);
	for (struct kcompat_trace_site *p = sites; p; p = p->next)
		if (!strcmp(p->name, name))
			n += __atomic_load_n(&p->hits, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&trace_lock);
	return n;
}

void kcompat_trace_enable(const char *spec)
{
	pthread_mutex_lock(&trace_lock);
	env_read = true;
	set_spec(spec);
	pthread_mutex_unlock(&trace_lock);
}
