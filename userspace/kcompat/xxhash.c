// SPDX-License-Identifier: MIT
/*
 * kcompat xxh64(): XXH64 as its specification defines it, so that a program
 * image hashes (and its kernels are recognised, &vgpu_kcb_entry.kernel_key)
 * the same on both hosts.
 */
#include <string.h>

#include <linux/xxhash.h>

#define P1	0x9e3779b185ebca87ULL
#define P2	0xc2b2ae3d27d4eb4fULL
#define P3	0x165667b19e3779f9ULL
#define P4	0x85ebca77c2b2ae63ULL
#define P5	0x27d4eb2f165667c5ULL

static u64 rotl(u64 x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static u64 read64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));	/* the hosts are little-endian */
	return v;
}

static u32 read32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 round64(u64 acc, u64 input)
{
	return rotl(acc + input * P2, 31) * P1;
}

static u64 merge(u64 acc, u64 val)
{
	return (acc ^ round64(0, val)) * P1 + P4;
}

u64 xxh64(const void *input, size_t len, u64 seed)
{
	const u8 *p = input, *end = p + len;
	u64 h;

	if (len >= 32) {
		u64 v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;

		for (; end - p >= 32; p += 32) {
			v1 = round64(v1, read64(p));
			v2 = round64(v2, read64(p + 8));
			v3 = round64(v3, read64(p + 16));
			v4 = round64(v4, read64(p + 24));
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge(h, v1);
		h = merge(h, v2);
		h = merge(h, v3);
		h = merge(h, v4);
	} else {
		h = seed + P5;
	}
	h += len;
	for (; end - p >= 8; p += 8)
		h = rotl(h ^ round64(0, read64(p)), 27) * P1 + P4;
	if (end - p >= 4) {
		h = rotl(h ^ (read32(p) * P1), 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ (*p * P5), 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}
