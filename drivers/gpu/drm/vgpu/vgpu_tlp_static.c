// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu TLP policy: a static TB limit per SM, tlp_static_tbs (at most the
 * kernel's N). The best static limit of each kernel, found by sweeping it,
 * is the "optimal TLP" DYNCTA is compared with (Kayiran et al., seed 001,
 * §3 and Fig. 10, "n = opt").
 */

#include <kunit/visibility.h>

#include "vgpu_sched.h"
#include "vgpu_tlp.h"

static u32 vgpu_tlp_static_limit(const struct vgpu_sched *s, u32 max)
{
	return s->tlp.static_tbs;
}

const struct vgpu_tlp_ops vgpu_tlp_static = {
	.name = "static",
	.first_limit = vgpu_tlp_static_limit,
};
EXPORT_SYMBOL_IF_KUNIT(vgpu_tlp_static);
