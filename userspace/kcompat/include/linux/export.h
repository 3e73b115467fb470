/* SPDX-License-Identifier: MIT */
/* kcompat: a library exports everything it does not make static. */
#ifndef VGPU_KCOMPAT_LINUX_EXPORT_H
#define VGPU_KCOMPAT_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_NS(sym, ns)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)

#endif
