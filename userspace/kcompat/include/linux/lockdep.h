/* SPDX-License-Identifier: MIT */
/* kcompat: lockdep's assertions, for mutexes. */
#ifndef VGPU_KCOMPAT_LINUX_LOCKDEP_H
#define VGPU_KCOMPAT_LINUX_LOCKDEP_H

#include <linux/bug.h>
#include <linux/mutex.h>

#define lockdep_assert_held(m)		WARN_ON(!kcompat_mutex_held(m))
#define lockdep_assert_not_held(m)	WARN_ON(kcompat_mutex_held(m))

#endif
