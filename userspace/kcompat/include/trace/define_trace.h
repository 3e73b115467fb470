/* SPDX-License-Identifier: MIT */
/*
 * kcompat: nothing to instantiate; <linux/tracepoint.h> defines each event
 * as an inline function where its header is included.
 */
