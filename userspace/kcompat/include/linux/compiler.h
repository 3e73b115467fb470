/* SPDX-License-Identifier: MIT */
/* kcompat: compiler attributes and access helpers of <linux/compiler.h>. */
#ifndef VGPU_KCOMPAT_LINUX_COMPILER_H
#define VGPU_KCOMPAT_LINUX_COMPILER_H

#include <assert.h>	/* static_assert */

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __always_unused		__attribute__((__unused__))
#define __maybe_unused		__attribute__((__unused__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __cold			__attribute__((__cold__))
#define __counted_by(member)
#define __user
#define __iomem
#define __rcu
#define __init
#define __exit
#define __read_mostly
#ifndef fallthrough
#define fallthrough		__attribute__((__fallthrough__))
#endif

/* One access the compiler may neither tear, merge nor repeat. */
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	(*(volatile __typeof__(x) *)&(x) = (val))

#define barrier()		__asm__ __volatile__("" ::: "memory")

#endif
