// SPDX-License-Identifier: MIT
/*
 * exec.c - functional execution of one warp instruction: the SIMT stack,
 * arithmetic, memory with range checks, atomics, warp-wide operations.
 *
 * Registers of a warp are laid out [register][lane], so an instruction is a
 * loop over the active lanes with the operands' rows in hand. 64-bit values
 * live in register pairs: row r is the low half, row r + 1 the high half.
 */
#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "sim_int.h"

#define LANES(mask) \
	for (uint32_t mm_ = (mask), l; mm_ && ((l = (uint32_t)__builtin_ctz(mm_)), 1); \
	     mm_ &= mm_ - 1)

/*
 * LANES_DO(mask, body): @body for each active lane l, lanes in ascending
 * order; a full warp takes a plain loop that the compiler can unroll and
 * vectorise (the same order, so the same results).
 */
#define LANES_DO(mask, ...) \
	do { \
		if ((mask) == 0xffffffffu) { \
			for (uint32_t l = 0; l < 32; l++) { \
				__VA_ARGS__; \
			} \
		} else { \
			LANES(mask) { \
				__VA_ARGS__; \
			} \
		} \
	} while (0)

/*
 * LANES_S64(mask, body): lane l's 64-bit result, set by @body in v_, into
 * the register pair D. A full warp computes every lane's result before it
 * writes any, in plain loops the compiler vectorises: a lane reads only its
 * own words of the operand rows, and rows overlap whole or not at all, so
 * no lane reads what another writes and the results are those of the
 * lane-by-lane loop.
 */
#define LANES_S64(mask, ...) \
	do { \
		if ((mask) == 0xffffffffu) { \
			uint64_t r_[32]; \
			for (uint32_t l = 0; l < 32; l++) { \
				uint64_t v_; \
				__VA_ARGS__; \
				r_[l] = v_; \
			} \
			for (uint32_t l = 0; l < 32; l++) \
				S64(D, l, r_[l]); \
		} else { \
			LANES(mask) { \
				uint64_t v_; \
				__VA_ARGS__; \
				S64(D, l, v_); \
			} \
		} \
	} while (0)

/*
 * LANES_REG(mask, body): LANES_DO for a body that reads only lane l of
 * register rows and writes only lane l of D. Two rows are the same row or
 * do not overlap, so no lane reads what another writes, even where D is a
 * source: the full-warp loop is vectorised without overlap checks.
 */
#define LANES_REG(mask, ...) \
	do { \
		if ((mask) == 0xffffffffu) { \
			_Pragma("GCC ivdep") \
			for (uint32_t l = 0; l < 32; l++) { \
				__VA_ARGS__; \
			} \
		} else { \
			LANES(mask) { \
				__VA_ARGS__; \
			} \
		} \
	} while (0)

static inline uint64_t G64(const uint32_t *p, uint32_t l)
{
	return p[l] | (uint64_t)p[l + 32] << 32;
}

static inline void S64(uint32_t *p, uint32_t l, uint64_t v)
{
	p[l] = (uint32_t)v;
	p[l + 32] = (uint32_t)(v >> 32);
}

static inline float GF(const uint32_t *p, uint32_t l)
{
	float f;

	memcpy(&f, &p[l], 4);
	return f;
}

static inline void SF(uint32_t *p, uint32_t l, float f)
{
	memcpy(&p[l], &f, 4);
}

static inline double GD(const uint32_t *p, uint32_t l)
{
	uint64_t u = G64(p, l);
	double d;

	memcpy(&d, &u, 8);
	return d;
}

static inline void SD(uint32_t *p, uint32_t l, double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	S64(p, l, u);
}

/*
 * Fused multiply-add over a full warp. The x86-64 baseline has no FMA
 * instruction, so fmaf() and fma() are library calls there; on a host
 * that has one, these loops use it, vectorised. A fused multiply-add is
 * exactly rounded either way: the results are the same.
 */
#if defined(__x86_64__) && defined(__GNUC__)
static inline bool host_fma(void)
{
	return __builtin_cpu_supports("fma");
}

__attribute__((target("fma")))
static void warp_fmaf(uint32_t *D, const uint32_t *A, const uint32_t *B, const uint32_t *C)
{
	for (uint32_t l = 0; l < 32; l++)
		SF(D, l, fmaf(GF(A, l), GF(B, l), GF(C, l)));
}

__attribute__((target("fma")))
static void warp_fma(uint32_t *D, const uint32_t *A, const uint32_t *B, const uint32_t *C)
{
	for (uint32_t l = 0; l < 32; l++)
		SD(D, l, fma(GD(A, l), GD(B, l), GD(C, l)));
}
#else
static inline bool host_fma(void)
{
	return false;
}

static void warp_fmaf(uint32_t *D, const uint32_t *A, const uint32_t *B, const uint32_t *C)
{
	for (uint32_t l = 0; l < 32; l++)
		SF(D, l, fmaf(GF(A, l), GF(B, l), GF(C, l)));
}

static void warp_fma(uint32_t *D, const uint32_t *A, const uint32_t *B, const uint32_t *C)
{
	for (uint32_t l = 0; l < 32; l++)
		SD(D, l, fma(GD(A, l), GD(B, l), GD(C, l)));
}
#endif

static inline float f_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static inline uint32_t u_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline double d_of(uint64_t u)
{
	double d;

	memcpy(&d, &u, 8);
	return d;
}

static inline uint64_t ud_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return u;
}

/* ------------------------------------------------------------------ */
/* float helpers */

static const int rmodes[4] = { FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD };

static inline float ftz(float x)
{
	return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

static inline double satd(double x)
{
	return isnan(x) ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

static double fcompute(unsigned int op, double x, double y, double z, bool single)
{
	if (single) {
		float a = (float)x, b = (float)y, c = (float)z;
		volatile float r;

		switch (op) {
		case VGPU_OP_ADD: r = a + b; break;
		case VGPU_OP_SUB: r = a - b; break;
		case VGPU_OP_MUL: r = a * b; break;
		case VGPU_OP_MAD: r = fmaf(a, b, c); break;
		case VGPU_OP_DIV: r = a / b; break;
		case VGPU_OP_MIN: r = fminf(a, b); break;
		case VGPU_OP_MAX: r = fmaxf(a, b); break;
		case VGPU_OP_SQRT: r = sqrtf(a); break;
		case VGPU_OP_RSQRT: r = 1.0f / sqrtf(a); break;
		case VGPU_OP_RCP: r = 1.0f / a; break;
		case VGPU_OP_SIN: r = sinf(a); break;
		case VGPU_OP_COS: r = cosf(a); break;
		case VGPU_OP_LG2: r = log2f(a); break;
		case VGPU_OP_EX2: r = exp2f(a); break;
		case VGPU_OP_TANH: r = tanhf(a); break;
		case VGPU_OP_NEG: r = -a; break;
		case VGPU_OP_ABS: r = fabsf(a); break;
		default: r = 0; break;
		}
		return r;
	} else {
		volatile double r;

		switch (op) {
		case VGPU_OP_ADD: r = x + y; break;
		case VGPU_OP_SUB: r = x - y; break;
		case VGPU_OP_MUL: r = x * y; break;
		case VGPU_OP_MAD: r = fma(x, y, z); break;
		case VGPU_OP_DIV: r = x / y; break;
		case VGPU_OP_MIN: r = fmin(x, y); break;
		case VGPU_OP_MAX: r = fmax(x, y); break;
		case VGPU_OP_SQRT: r = sqrt(x); break;
		case VGPU_OP_RSQRT: r = 1.0 / sqrt(x); break;
		case VGPU_OP_RCP: r = 1.0 / x; break;
		case VGPU_OP_SIN: r = sin(x); break;
		case VGPU_OP_COS: r = cos(x); break;
		case VGPU_OP_LG2: r = log2(x); break;
		case VGPU_OP_EX2: r = exp2(x); break;
		case VGPU_OP_TANH: r = tanh(x); break;
		case VGPU_OP_NEG: r = -x; break;
		case VGPU_OP_ABS: r = fabs(x); break;
		default: r = 0; break;
		}
		return r;
	}
}

/* Float operation with rounding / ftz / sat modifiers (slow path). */
static double fop(unsigned int op, double x, double y, double z, unsigned int mod, bool single)
{
	int rnd = VGPU_M_RND(mod), old = 0;
	double r;

	if (single && (mod & VGPU_M_FTZ)) {
		x = ftz((float)x);
		y = ftz((float)y);
		z = ftz((float)z);
	}
	if (rnd) {
		old = fegetround();
		fesetround(rmodes[rnd]);
	}
	r = fcompute(op, x, y, z, single);
	if (rnd)
		fesetround(old);
	if (single && (mod & VGPU_M_FTZ))
		r = ftz((float)r);
	if (mod & VGPU_M_SAT)
		r = satd(r);
	return r;
}

/* ------------------------------------------------------------------ */
/* conversion */

static uint64_t cvt_f16(uint64_t in, unsigned int st, unsigned int dt, unsigned int mod);

/* CVT between integer types without saturation (the modifiers of floats ignored) */
static inline bool cvt_int_plain(unsigned int st, unsigned int dt, unsigned int mod)
{
	return st >= VGPU_T_U8 && st <= VGPU_T_S64 && dt >= VGPU_T_U8 && dt <= VGPU_T_S64 &&
	       !VGPU_M_CVT_SAT(mod);
}

/*
 * cvt1() of a float to a 32-bit integer, inline for the lane loop:
 * rounded, saturated, NaN -> 0.
 */
static inline uint32_t cvt_f2i32(double fv, int rnd, bool sgn)
{
	double r;

	if (isnan(fv))
		return 0;
	switch (rnd) {
	case VGPU_RND_RZ: r = trunc(fv); break;
	case VGPU_RND_RM: r = floor(fv); break;
	case VGPU_RND_RP: r = ceil(fv); break;
	default: r = nearbyint(fv); break;
	}
	if (sgn) {
		if (r < -0x1p31)
			return (uint32_t)INT32_MIN;
		if (r >= 0x1p31)
			return INT32_MAX;
		return (uint32_t)(int64_t)r;
	}
	if (r <= 0)
		return 0;
	if (r >= 0x1p32)
		return UINT32_MAX;
	return (uint32_t)(uint64_t)r;
}

/*
 * CVT_RINT(mask, fn, ftz, sat): cvt1() of a float to a float rounded to an
 * integer in the direction of @fn (truncf, floorf, ceilf or nearbyintf,
 * whose rounding is to nearest in the model's mode), per lane of D.
 */
#define CVT_RINT(mask, fn, ftzm, sat) \
	LANES_REG(mask, { \
		float f_ = GF(A, l); \
		\
		if (ftzm) \
			f_ = ftz(f_); \
		f_ = fn(f_); \
		if (ftzm) \
			f_ = ftz(f_); \
		if (sat) \
			f_ = (float)satd(f_); \
		SF(D, l, f_); \
	})

/* 2^@n exactly (ldexp(1.0, n)), for n <= 64 */
static inline double pow2(unsigned int n)
{
	return n < 64 ? (double)(1ull << n) : 0x1p64;
}

static uint64_t cvt1(uint64_t in, unsigned int st, unsigned int dt, unsigned int mod)
{
	bool sfloat = st == VGPU_T_F32 || st == VGPU_T_F64;
	bool dfloat = dt == VGPU_T_F32 || dt == VGPU_T_F64;
	int rnd = VGPU_M_CVT_RND(mod), old = 0;
	bool sat = VGPU_M_CVT_SAT(mod), ftzm = VGPU_M_CVT_FTZ(mod);
	unsigned int dbits = vgpu_type_bits(dt);
	int64_t sv = 0;
	uint64_t uv = 0, out;
	double fv = 0;
	bool ssigned = vgpu_type_signed(st);

	if (st == VGPU_T_F16 || dt == VGPU_T_F16)
		return cvt_f16(in, st, dt, mod);
	switch (st) {
	case VGPU_T_U8: uv = (uint8_t)in; break;
	case VGPU_T_S8: sv = (int8_t)in; break;
	case VGPU_T_U16: uv = (uint16_t)in; break;
	case VGPU_T_S16: sv = (int16_t)in; break;
	case VGPU_T_U32: uv = (uint32_t)in; break;
	case VGPU_T_S32: sv = (int32_t)in; break;
	case VGPU_T_U64: uv = in; break;
	case VGPU_T_S64: sv = (int64_t)in; break;
	case VGPU_T_F32:
		fv = f_of((uint32_t)in);
		if (ftzm)
			fv = ftz((float)fv);
		break;
	case VGPU_T_F64: fv = d_of(in); break;
	}
	if (ssigned)
		uv = (uint64_t)sv;
	if (dfloat) {
		if (rnd) {
			old = fegetround();
			fesetround(rmodes[rnd]);
		}
		if (!sfloat) {
			if (dt == VGPU_T_F32) {
				volatile float f = ssigned ? (float)sv : (float)uv;

				fv = f;
			} else {
				volatile double d = ssigned ? (double)sv : (double)uv;

				fv = d;
			}
		} else if (VGPU_M_CVT_RINT(mod)) {
			fv = dt == VGPU_T_F32 ? (double)nearbyintf((float)fv) : nearbyint(fv);
		} else if (dt == VGPU_T_F32) {
			volatile float f = (float)fv;

			fv = f;
		}
		if (rnd)
			fesetround(old);
		if (dt == VGPU_T_F32 && ftzm)
			fv = ftz((float)fv);
		if (sat)
			fv = satd(fv);
		return dt == VGPU_T_F32 ? u_of((float)fv) : ud_of(fv);
	}
	if (sfloat) {
		/* float -> integer: rounded, saturated, NaN -> 0 */
		double r, lo, hi;

		if (isnan(fv))
			return 0;
		switch (rnd) {
		case VGPU_RND_RZ: r = trunc(fv); break;
		case VGPU_RND_RM: r = floor(fv); break;
		case VGPU_RND_RP: r = ceil(fv); break;
		default: r = nearbyint(fv); break;
		}
		if (vgpu_type_signed(dt)) {
			lo = -pow2(dbits - 1);
			hi = pow2(dbits - 1);
			if (r < lo)
				sv = dbits == 64 ? INT64_MIN : (int64_t)lo;
			else if (r >= hi)
				sv = dbits == 64 ? INT64_MAX : (int64_t)hi - 1;
			else
				sv = (int64_t)r;
			uv = (uint64_t)sv;
		} else {
			hi = pow2(dbits);
			if (r <= 0)
				uv = 0;
			else if (r >= hi)
				uv = dbits == 64 ? UINT64_MAX : (uint64_t)hi - 1;
			else
				uv = (uint64_t)r;
		}
		out = uv;
	} else if (sat && dbits < 64) {
		int64_t dlo = vgpu_type_signed(dt) ? -((int64_t)1 << (dbits - 1)) : 0;
		int64_t dhi = vgpu_type_signed(dt) ? ((int64_t)1 << (dbits - 1)) - 1 :
			      (int64_t)(((uint64_t)1 << dbits) - 1);

		if (ssigned)
			out = (uint64_t)(sv < dlo ? dlo : sv > dhi ? dhi : sv);
		else
			out = uv > (uint64_t)dhi ? (uint64_t)dhi : uv;
	} else if (sat && vgpu_type_signed(dt) != ssigned) {
		if (ssigned)
			out = sv < 0 ? 0 : (uint64_t)sv;
		else
			out = uv > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : uv;
	} else {
		out = uv;
	}
	/* to the register: narrow types sign/zero-extended to 32 bits */
	switch (dt) {
	case VGPU_T_U8: return (uint8_t)out;
	case VGPU_T_S8: return (uint32_t)(int32_t)(int8_t)out;
	case VGPU_T_U16: return (uint16_t)out;
	case VGPU_T_S16: return (uint32_t)(int32_t)(int16_t)out;
	case VGPU_T_U32: case VGPU_T_S32: return (uint32_t)out;
	default: return out;
	}
}

/* ------------------------------------------------------------------ */
/* memory */

static bool global_ok(struct vgpu_sim *s, struct job *j, uint64_t addr, uint64_t size)
{
	const struct vgpu_mem_range *r;

	if (addr + size < addr || addr + size > s->vram_size)
		return false;
	if (j->nranges) {
		r = &j->ranges[j->last_range];
		if (addr >= r->start && addr + size <= r->start + r->size)
			return true;
		for (uint32_t i = 0; i < j->nranges; i++) {
			r = &j->ranges[i];
			if (addr >= r->start && addr + size <= r->start + r->size) {
				j->last_range = i;
				return true;
			}
		}
	}
	return j->desc.data_size && addr >= j->desc.data_addr &&
	       addr + size <= j->desc.data_addr + j->desc.data_size;
}

/* Pointer to @size bytes at @addr in space @sp for lane @l, or NULL. */
static uint8_t *mem_ptr(struct vgpu_sim *s, struct warp *w, unsigned int sp, uint64_t addr,
			uint32_t size, uint32_t l)
{
	struct tb *tb = w->tb;
	struct job *j = tb->job;

	if (addr & (size - 1))
		return NULL;
	if (sp == VGPU_SP_GENERIC) {
		if (addr - VGPU_GENERIC_SHARED < VGPU_GENERIC_WINDOW) {
			sp = VGPU_SP_SHARED;
			addr -= VGPU_GENERIC_SHARED;
		} else if (addr - VGPU_GENERIC_LOCAL < VGPU_GENERIC_WINDOW) {
			sp = VGPU_SP_LOCAL;
			addr -= VGPU_GENERIC_LOCAL;
		} else {
			sp = VGPU_SP_GLOBAL;
		}
	}
	switch (sp) {
	case VGPU_SP_GLOBAL:
		return global_ok(s, j, addr, size) ? s->vram + addr : NULL;
	case VGPU_SP_SHARED:
		if (addr > tb->shared_bytes || size > tb->shared_bytes - addr)
			return NULL;
		return tb->shared + addr;
	case VGPU_SP_LOCAL: {
		uint32_t lpt = j->entry.local_per_thread;

		if (addr > lpt || size > lpt - addr)
			return NULL;
		return tb->local + ((size_t)w->idx * 32 + l) * lpt + addr;
	}
	case VGPU_SP_PARAM:
		if (addr > j->desc.params_size || size > j->desc.params_size - addr)
			return NULL;
		return j->params + addr;
	case VGPU_SP_CONST:
		if (addr > j->desc.data_size || size > j->desc.data_size - addr)
			return NULL;
		addr += j->desc.data_addr;
		if (addr + size > s->vram_size)
			return NULL;
		return s->vram + addr;
	default:
		return NULL;
	}
}

static inline uint64_t load_n(const uint8_t *p, unsigned int lsz, bool sx)
{
	switch (lsz) {
	case 0: return sx ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
	case 1: {
		uint16_t v;

		memcpy(&v, p, 2);
		return sx ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 2: {
		uint32_t v;

		memcpy(&v, p, 4);
		return sx ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

static inline void store_n(uint8_t *p, unsigned int lsz, uint64_t v)
{
	switch (lsz) {
	case 0: p[0] = (uint8_t)v; break;
	case 1: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 2: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static inline const uint32_t *rrow(struct vgpu_sim *s, struct warp *w, unsigned int r)
{
	return r == VGPU_RZ ? s->zero : w->regs + (size_t)r * 32;
}

/* RZ's sink is the SM's: SMs may run on different threads */
static inline uint32_t *wrow(struct sm *sm, struct warp *w, unsigned int r)
{
	return r == VGPU_RZ ? sm->sink : w->regs + (size_t)r * 32;
}

static inline uint64_t lane_addr(const struct dinst *d, const uint32_t *A, uint32_t l,
				 const struct job *j)
{
	uint64_t a;

	/* A 32-bit address wraps at 2^32 with its offset, as in PTX. */
	if (VGPU_M_MEM_A64(d->mod))
		a = G64(A, l) + (uint64_t)(int64_t)d->off;
	else
		a = (uint32_t)(A[l] + (uint32_t)d->off);
	if (VGPU_M_MEM_REL(d->mod))
		a += j->desc.data_addr;
	return a;
}

/* timing hook: the lanes' addresses of a memory instruction, for mem.c */
static inline void mrec_set(struct sm *sm, uint32_t m, unsigned int sp, unsigned int size,
			    unsigned int kind, unsigned int rsp)
{
	sm->mrec.mask = m;
	sm->mrec.sp = (uint8_t)sp;
	sm->mrec.rsp = (uint8_t)rsp;
	sm->mrec.size = (uint8_t)size;
	sm->mrec.kind = (uint8_t)kind;
}

/* The lowest and highest of a warp's addresses, and their bitwise or. */
struct span {
	uint64_t lo, hi, any;
};

/*
 * VGPU_JOB_BUFFER_BOUNDARIES (Chimera's relaxed idempotence, thesis
 * §4.3.1, decided per buffer at run time instead of per program): the
 * first range that holds @size bytes at @addr, which global_ok() accepted
 * (loads and stores find the same one); nranges for the data segment
 * outside the ranges.
 */
static uint32_t range_index(const struct job *j, uint64_t addr, uint64_t size)
{
	for (uint32_t i = 0; i < j->nranges; i++) {
		const struct vgpu_mem_range *r = &j->ranges[i];

		if (addr >= r->start && addr + size <= r->start + r->size)
			return i;
	}
	return j->nranges;
}

/* Whether a lane's address @addr in space @sp is a global one. */
static bool lane_global(unsigned int sp, uint64_t addr)
{
	if (sp == VGPU_SP_GENERIC)
		return addr - VGPU_GENERIC_SHARED >= VGPU_GENERIC_WINDOW &&
		       addr - VGPU_GENERIC_LOCAL >= VGPU_GENERIC_WINDOW;
	return sp == VGPU_SP_GLOBAL;
}

/*
 * The ranges a warp's global access of @size bytes a lane touched: a load
 * (@load) marks them read; a store returns whether it wrote into one read
 * before, which crosses the block's boundary. @span_global: the whole
 * span lies in one global range (warp_span()); else each active lane of
 * @m is looked at.
 */
static bool ranges_touched(struct job *j, unsigned int sp, const uint64_t *addr, uint32_t m,
			   const struct span *sn, uint32_t size, bool span_global, bool load)
{
	uint64_t *bits = j->read_ranges;
	bool hit = false;
	uint32_t i;

	if (span_global) {
		i = range_index(j, sn->lo, sn->hi + size - sn->lo);
		if (load)
			bits[i / 64] |= 1ull << (i % 64);
		return !load && (bits[i / 64] >> (i % 64) & 1);
	}
	LANES(m) {
		if (!lane_global(sp, addr[l]))
			continue;
		i = range_index(j, addr[l], size);
		if (load)
			bits[i / 64] |= 1ull << (i % 64);
		else
			hit |= bits[i / 64] >> (i % 64) & 1;
	}
	return hit;
}

/*
 * The lanes' addresses of a warp's load or store, checked for the warp at
 * once (the per-lane check costs more than the copy): when every active
 * lane's address in @addr is aligned to @size and the span from the lowest
 * to the highest lies in one space and within what the block may access
 * there, returns the base to which lane l's address (less *@adj) is added;
 * local memory adds the lane's own area, *@lstride bytes a lane (0 for other
 * spaces). NULL: some lane needs the per-lane check (it faults, or the
 * lanes lie in different buffers), which then decides.
 */
static uint8_t *warp_span(struct vgpu_sim *s, struct warp *w, unsigned int sp,
			  const struct span *sn, uint32_t size, uint64_t *adj, uint64_t *lstride,
			  unsigned int *rsp)
{
	struct tb *tb = w->tb;
	struct job *j = tb->job;
	uint64_t lo = sn->lo, hi = sn->hi, lim;

	if (sn->any & (size - 1))
		return NULL;
	*adj = 0;
	*lstride = 0;
	if (sp == VGPU_SP_GENERIC) {
		if (lo - VGPU_GENERIC_SHARED < VGPU_GENERIC_WINDOW &&
		    hi - VGPU_GENERIC_SHARED < VGPU_GENERIC_WINDOW) {
			sp = VGPU_SP_SHARED;
			*adj = VGPU_GENERIC_SHARED;
		} else if (lo - VGPU_GENERIC_LOCAL < VGPU_GENERIC_WINDOW &&
			   hi - VGPU_GENERIC_LOCAL < VGPU_GENERIC_WINDOW) {
			sp = VGPU_SP_LOCAL;
			*adj = VGPU_GENERIC_LOCAL;
		} else {
			/* global: the span within device memory lies below both windows */
			sp = VGPU_SP_GLOBAL;
		}
		lo -= *adj;
		hi -= *adj;
	}
	*rsp = sp;
	switch (sp) {
	case VGPU_SP_GLOBAL:
		if (hi + size < hi || !global_ok(s, j, lo, hi + size - lo))
			return NULL;
		return s->vram;
	case VGPU_SP_SHARED:
		lim = tb->shared_bytes;
		if (hi > lim || size > lim - hi)
			return NULL;
		return tb->shared;
	case VGPU_SP_LOCAL:
		lim = j->entry.local_per_thread;
		if (hi > lim || size > lim - hi)
			return NULL;
		*lstride = lim;
		return tb->local + (size_t)w->idx * 32 * lim;
	case VGPU_SP_PARAM:
		lim = j->desc.params_size;
		if (hi > lim || size > lim - hi)
			return NULL;
		return j->params;
	case VGPU_SP_CONST:
		lim = j->desc.data_size;
		if (hi > lim || size > lim - hi || j->desc.data_addr + hi + size > s->vram_size)
			return NULL;
		return s->vram + j->desc.data_addr;
	default:
		return NULL;
	}
}

/*
 * The lanes' addresses of a memory instruction, into the timing record,
 * with their lowest, highest and bitwise or (for warp_span()).
 */
static inline void lane_addrs(struct sm *sm, const struct dinst *d, const uint32_t *A,
			      uint32_t m, const struct job *j, uint32_t size, struct span *sn)
{
	uint64_t *a = sm->mrec.addr, lo = UINT64_MAX, hi = 0, any = 0, diff = 0;
	uint64_t off = (uint64_t)(int64_t)d->off;
	uint64_t rel = VGPU_M_MEM_REL(d->mod) ? j->desc.data_addr : 0;
	bool a64 = VGPU_M_MEM_A64(d->mod);

	/* A 32-bit address wraps at 2^32 with its offset, as in PTX (lane_addr()). */
	if (m == 0xffffffffu) {
		/*
		 * The addresses, and whether they are consecutive (unit stride)
		 * or one (a broadcast): plain loops the compiler vectorises.
		 */
		uint64_t a0, same = 0, e;

		/* one pass: the address, its distance from unit stride and from lane 0's */
		if (a64) {
			a0 = e = G64(A, 0) + off + rel;
			for (uint32_t l = 0; l < 32; l++, e += size) {
				uint64_t v = G64(A, l) + off + rel;

				a[l] = v;
				diff |= v ^ e;
				same |= v ^ a0;
			}
		} else {
			a0 = e = (uint64_t)(uint32_t)(A[0] + (uint32_t)off) + rel;
			for (uint32_t l = 0; l < 32; l++, e += size) {
				uint64_t v = (uint64_t)(uint32_t)(A[l] + (uint32_t)off) + rel;

				a[l] = v;
				diff |= v ^ e;
				same |= v ^ a0;
			}
		}
		sm->mrec.unit = !diff && a0 + 31ull * size >= a0;
		if (sm->mrec.unit || !same) {
			sn->lo = a0;
			sn->hi = same ? a0 + 31ull * size : a0;
			sn->any = a0;
			return;
		}
		if (!a64) {
			/* rel is added to 32-bit values alike: their extremes, vectorised */
			uint32_t lo32 = UINT32_MAX, hi32 = 0;

			for (uint32_t l = 0; l < 32; l++) {
				uint32_t v = A[l] + (uint32_t)off;

				lo32 = v < lo32 ? v : lo32;
				hi32 = v > hi32 ? v : hi32;
				any |= a[l];
			}
			lo = lo32 + rel;
			hi = hi32 + rel;
		} else {
			for (uint32_t l = 0; l < 32; l++) {
				lo = a[l] < lo ? a[l] : lo;
				hi = a[l] > hi ? a[l] : hi;
				any |= a[l];
			}
		}
	} else {
		if (a64)
			LANES(m) a[l] = G64(A, l) + off + rel;
		else
			LANES(m) a[l] = (uint32_t)(A[l] + (uint32_t)off) + rel;
		LANES(m) {
			lo = a[l] < lo ? a[l] : lo;
			hi = a[l] > hi ? a[l] : hi;
			any |= a[l];
		}
		sm->mrec.unit = false;
	}
	sn->lo = lo;
	sn->hi = hi;
	sn->any = any;
}

/* Lane @l's @nv elements of 1 << @lsz bytes at @p into its registers @D. */
static inline void load_lane(uint32_t *const *D, uint32_t l, const uint8_t *p, unsigned int nv,
			     unsigned int lsz, bool sx, bool w64)
{
	for (unsigned int i = 0; i < nv; i++) {
		uint64_t v = load_n(p + (i << lsz), lsz, sx);

		if (w64)
			S64(D[i], l, v);
		else
			D[i][l] = (uint32_t)v;
	}
}

SIM_LANE_CLONES
static int exec_ld(struct vgpu_sim *s, struct sm *sm, struct warp *w, const struct dinst *d,
		   uint32_t m)
{
	struct job *j = w->tb->job;
	unsigned int lsz = VGPU_M_MEM_LSZ(d->mod), nv = 1u << VGPU_M_MEM_LVEC(d->mod);
	unsigned int esz = 1u << lsz, sp = VGPU_M_MEM_SP(d->mod);
	bool sx = VGPU_M_MEM_SX(d->mod), w64 = vgpu_type_is64(d->type);
	const uint32_t *A = rrow(s, w, d->a);
	const uint64_t *addr = sm->mrec.addr;
	unsigned int rsp = VGPU_SP_GENERIC;
	uint64_t adj, ls;
	const uint8_t *base;
	struct span sn;
	uint32_t *D[4];

	if (nv == 1) {
		D[0] = wrow(sm, w, d->d);
	} else {
		for (unsigned int i = 0; i < nv; i++)
			D[i] = wrow(sm, w, d->vec[i]);
	}
	lane_addrs(sm, d, A, m, j, esz * nv, &sn);	/* timing hook */
	base = m ? warp_span(s, w, sp, &sn, esz * nv, &adj, &ls, &rsp) : NULL;
	if (base && sm->mrec.unit && !ls && lsz == 2 && !w64) {
		/* 32-bit words of consecutive lanes: one copy per vector element */
		const uint8_t *p = base + (addr[0] - adj);

		if (nv == 1) {
			memcpy(D[0], p, 128);
		} else {
			for (uint32_t l = 0; l < 32; l++)
				for (unsigned int i = 0; i < nv; i++)
					memcpy(&D[i][l], p + 4 * (l * nv + i), 4);
		}
	} else if (base && !ls && sn.lo == sn.hi) {
		/* one address (a broadcast): read once, the other lanes take lane l0's */
		uint32_t l0 = (uint32_t)__builtin_ctz(m);

		load_lane(D, l0, base + (addr[l0] - adj), nv, lsz, sx, w64);
		for (unsigned int i = 0; i < nv; i++) {
			uint32_t lo = D[i][l0], hi = D[i][l0 + (w64 ? 32 : 0)];

			LANES_DO(m, D[i][l] = lo);
			if (w64)
				LANES_DO(m, D[i][l + 32] = hi);
		}
	} else if (base && !ls && nv == 1 && lsz == 2 && !w64 && m == 0xffffffffu) {
		/*
		 * a 32-bit word a lane, a full warp: by half-warps (blocks 16
		 * threads wide), each on consecutive words copied at once, or on
		 * one word read once
		 */
		for (uint32_t h = 0; h < 32; h += 16) {
			uint64_t a0 = addr[h], e = a0, unit = 0, same = 0;
			const uint8_t *p = base + (a0 - adj);

			/* kept a loop (not unrolled whole) so that it vectorises */
#pragma GCC unroll 1
			for (uint32_t l = 0; l < 16; l++, e += 4) {
				unit |= addr[h + l] ^ e;
				same |= addr[h + l] ^ a0;
			}
			if (!unit) {
				memcpy(&D[0][h], p, 64);
			} else if (!same) {
				uint32_t v;

				memcpy(&v, p, 4);
				for (uint32_t l = 0; l < 16; l++)
					D[0][h + l] = v;
			} else {
				for (uint32_t l = h; l < h + 16; l++)
					memcpy(&D[0][l], base + (addr[l] - adj), 4);
			}
		}
	} else if (base && !ls && nv == 1 && lsz == 2 && !w64) {
		/* a 32-bit word a lane */
		LANES_DO(m, memcpy(&D[0][l], base + (addr[l] - adj), 4));
	} else if (base && lsz == 2 && !w64) {
		/* 32-bit words, the common case */
		LANES_DO(m, {
			const uint8_t *p = base + (addr[l] - adj) + l * ls;

			for (unsigned int i = 0; i < nv; i++)
				memcpy(&D[i][l], p + 4 * i, 4);
		});
	} else if (base) {
		LANES_DO(m, {
			const uint8_t *p = base + (addr[l] - adj) + l * ls;

			load_lane(D, l, p, nv, lsz, sx, w64);
		});
	} else {
		LANES_DO(m, {
			const uint8_t *p = mem_ptr(s, w, sp, addr[l], esz * nv, l);

			if (!p) {
				w->tb->fault_addr = addr[l];
				return -EFAULT;
			}
			load_lane(D, l, p, nv, lsz, sx, w64);
		});
	}
	/* a span found in one other space touched no global range */
	if (j->buffer_bounds && m && (!base || rsp == VGPU_SP_GLOBAL))
		ranges_touched(j, sp, addr, m, &sn, esz * nv, base != NULL, true);
	mrec_set(sm, m, sp, esz * nv, MR_LD, base ? rsp : VGPU_SP_GENERIC);	/* timing hook */
	return 0;
}

SIM_LANE_CLONES
static int exec_st(struct vgpu_sim *s, struct sm *sm, struct warp *w, const struct dinst *d,
		   uint32_t m, bool *over)
{
	struct job *j = w->tb->job;
	unsigned int lsz = VGPU_M_MEM_LSZ(d->mod), nv = 1u << VGPU_M_MEM_LVEC(d->mod);
	unsigned int esz = 1u << lsz, sp = VGPU_M_MEM_SP(d->mod);
	bool w64 = vgpu_type_is64(d->type);
	const uint32_t *A = rrow(s, w, d->a);
	const uint64_t *addr = sm->mrec.addr;
	const uint32_t *V[4];
	uint8_t *ptr[32], *base;
	unsigned int rsp = VGPU_SP_GENERIC;
	uint64_t adj, ls;
	struct span sn;

	if (nv == 1) {
		V[0] = rrow(s, w, d->c);
	} else {
		for (unsigned int i = 0; i < nv; i++)
			V[i] = rrow(s, w, d->vec[i]);
	}
	lane_addrs(sm, d, A, m, j, esz * nv, &sn);	/* timing hook */
	base = m ? warp_span(s, w, sp, &sn, esz * nv, &adj, &ls, &rsp) : NULL;
	if (base) {
		/* lanes in order: of two on one address, the higher lane's value stays */
		if (sm->mrec.unit && !ls && nv == 1 && lsz == 2 && !w64) {
			memcpy(base + (addr[0] - adj), V[0], 128);
		} else if (!ls && nv == 1 && lsz == 2 && !w64) {
			/* a 32-bit word a lane */
			LANES_DO(m, memcpy(base + (addr[l] - adj), &V[0][l], 4));
		} else if (lsz == 2 && !w64) {
			LANES_DO(m, {
				uint8_t *p = base + (addr[l] - adj) + l * ls;

				for (unsigned int i = 0; i < nv; i++)
					memcpy(p + 4 * i, &V[i][l], 4);
			});
		} else {
			LANES_DO(m, {
				uint8_t *p = base + (addr[l] - adj) + l * ls;

				for (unsigned int i = 0; i < nv; i++)
					store_n(p + i * esz, lsz, w64 ? G64(V[i], l) : V[i][l]);
			});
		}
		if (j->buffer_bounds && rsp == VGPU_SP_GLOBAL)
			*over = ranges_touched(j, sp, addr, m, &sn, esz * nv, true, false);
		mrec_set(sm, m, sp, esz * nv, MR_ST, rsp);	/* timing hook */
		return 0;
	}
	/* check every lane first: a faulting store writes nothing */
	LANES_DO(m, {
		ptr[l] = mem_ptr(s, w, sp, addr[l], esz * nv, l);
		if (!ptr[l]) {
			w->tb->fault_addr = addr[l];
			return -EFAULT;
		}
	});
	LANES_DO(m, {
		for (unsigned int i = 0; i < nv; i++)
			store_n(ptr[l] + i * esz, lsz, w64 ? G64(V[i], l) : V[i][l]);
	});
	if (j->buffer_bounds)
		*over = ranges_touched(j, sp, addr, m, &sn, esz * nv, false, false);
	mrec_set(sm, m, sp, esz * nv, MR_ST, VGPU_SP_GENERIC);	/* timing hook */
	return 0;
}

static uint64_t atom1(unsigned int aop, unsigned int t, uint64_t old, uint64_t b, uint64_t c)
{
	switch (aop) {
	case VGPU_ATOM_ADD:
		if (t == VGPU_T_F32)
			return u_of(f_of((uint32_t)old) + f_of((uint32_t)b));
		if (t == VGPU_T_F64)
			return ud_of(d_of(old) + d_of(b));
		return old + b;
	case VGPU_ATOM_MIN:
		switch (t) {
		case VGPU_T_S32: return (int32_t)old < (int32_t)b ? old : b;
		case VGPU_T_S64: return (int64_t)old < (int64_t)b ? old : b;
		case VGPU_T_U32: return (uint32_t)old < (uint32_t)b ? old : b;
		default: return old < b ? old : b;
		}
	case VGPU_ATOM_MAX:
		switch (t) {
		case VGPU_T_S32: return (int32_t)old > (int32_t)b ? old : b;
		case VGPU_T_S64: return (int64_t)old > (int64_t)b ? old : b;
		case VGPU_T_U32: return (uint32_t)old > (uint32_t)b ? old : b;
		default: return old > b ? old : b;
		}
	case VGPU_ATOM_EXCH: return b;
	case VGPU_ATOM_CAS: return old == b ? c : old;
	case VGPU_ATOM_AND: return old & b;
	case VGPU_ATOM_OR: return old | b;
	case VGPU_ATOM_XOR: return old ^ b;
	case VGPU_ATOM_INC: return (uint32_t)old >= (uint32_t)b ? 0 : old + 1;
	case VGPU_ATOM_DEC:
		return (uint32_t)old == 0 || (uint32_t)old > (uint32_t)b ? b : old - 1;
	default: return old;
	}
}

static int exec_atom(struct vgpu_sim *s, struct sm *sm, struct warp *w, const struct dinst *d,
		     uint32_t m)
{
	struct job *j = w->tb->job;
	bool w64 = vgpu_type_is64(d->type);
	unsigned int lsz = w64 ? 3 : 2, sp = VGPU_M_MEM_SP(d->mod), aop = VGPU_M_ATOM_OP(d->mod);
	const uint32_t *A = rrow(s, w, d->a);
	const uint32_t *B = d->flags & DI_BI ? j->pool + (size_t)d->bslot * 64 : rrow(s, w, d->b);
	const uint32_t *C = d->flags & DI_CI ? j->pool + (size_t)d->cslot * 64 : rrow(s, w, d->c);
	uint32_t *D = wrow(sm, w, d->d);
	const uint64_t *addr = sm->mrec.addr;
	unsigned int rsp;
	uint8_t *ptr[32], *base;
	uint64_t old[32], adj, ls;
	struct span sn;

	/* the warp's span checked at once, as for loads; else lane by lane */
	lane_addrs(sm, d, A, m, j, 1u << lsz, &sn);	/* timing hook */
	sm->mrec.unit = false;
	base = m ? warp_span(s, w, sp, &sn, 1u << lsz, &adj, &ls, &rsp) : NULL;
	if (base) {
		LANES_DO(m, ptr[l] = base + (addr[l] - adj) + l * ls);
	} else {
		LANES_DO(m, {
			ptr[l] = mem_ptr(s, w, sp, addr[l], 1u << lsz, l);
			if (!ptr[l]) {
				w->tb->fault_addr = addr[l];
				return -EFAULT;
			}
		});
	}
	/* lanes in order: a deterministic serialisation */
	LANES_DO(m, {
		uint64_t b = w64 ? G64(B, l) : B[l], c = w64 ? G64(C, l) : C[l];

		old[l] = load_n(ptr[l], lsz, false);
		store_n(ptr[l], lsz, atom1(aop, d->type, old[l], b, c));
	});
	LANES_DO(m, {
		if (w64)
			S64(D, l, old[l]);
		else
			D[l] = (uint32_t)old[l];
	});
	mrec_set(sm, m, sp, 1u << lsz, MR_ATOM, VGPU_SP_GENERIC);	/* timing hook */
	return 0;
}

/* ------------------------------------------------------------------ */
/* comparisons */

static inline bool fcmp(unsigned int c, double x, double y)
{
	bool un = isnan(x) || isnan(y);

	switch (c) {
	case VGPU_CMP_EQ: return !un && x == y;
	case VGPU_CMP_NE: return !un && x != y;
	case VGPU_CMP_LT: return !un && x < y;
	case VGPU_CMP_LE: return !un && x <= y;
	case VGPU_CMP_GT: return !un && x > y;
	case VGPU_CMP_GE: return !un && x >= y;
	case VGPU_CMP_EQU: return un || x == y;
	case VGPU_CMP_NEU: return un || x != y;
	case VGPU_CMP_LTU: return un || x < y;
	case VGPU_CMP_LEU: return un || x <= y;
	case VGPU_CMP_GTU: return un || x > y;
	case VGPU_CMP_GEU: return un || x >= y;
	case VGPU_CMP_NUM: return !un;
	case VGPU_CMP_NAN: return un;
	default: return false;
	}
}

/*
 * Lanes' 0/1 results packed into a mask, lane l at bit l: eight lanes at a
 * time, the multiply moving byte j's low bit to bit 56 + j.
 */
static inline uint32_t lanes_pack(const uint8_t *c)
{
	uint32_t res = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (uint32_t i = 0; i < 4; i++) {
		uint64_t x;

		memcpy(&x, c + 8 * i, 8);
		res |= (uint32_t)((x * 0x0102040810204080ull) >> 56) << (8 * i);
	}
#else
	for (uint32_t l = 0; l < 32; l++)
		res |= (uint32_t)c[l] << l;
#endif
	return res;
}

/*
 * Integer comparisons of every lane, in plain loops the compiler
 * vectorises: SETP keeps only the active lanes' results.
 */
#define ICMP(get, T) \
	do { \
		uint8_t c_[32]; \
		switch (cmp) { \
		case VGPU_CMP_EQ: for (uint32_t l = 0; l < 32; l++) c_[l] = (T)get(A, l) == (T)get(B, l); break; \
		case VGPU_CMP_NE: for (uint32_t l = 0; l < 32; l++) c_[l] = (T)get(A, l) != (T)get(B, l); break; \
		case VGPU_CMP_LT: for (uint32_t l = 0; l < 32; l++) c_[l] = (T)get(A, l) < (T)get(B, l); break; \
		case VGPU_CMP_LE: for (uint32_t l = 0; l < 32; l++) c_[l] = (T)get(A, l) <= (T)get(B, l); break; \
		case VGPU_CMP_GT: for (uint32_t l = 0; l < 32; l++) c_[l] = (T)get(A, l) > (T)get(B, l); break; \
		case VGPU_CMP_GE: for (uint32_t l = 0; l < 32; l++) c_[l] = (T)get(A, l) >= (T)get(B, l); break; \
		default: memset(c_, 0, sizeof(c_)); break; \
		} \
		res = lanes_pack(c_); \
	} while (0)

#define G32(p, l) ((p)[l])

static inline uint32_t bop(unsigned int op, uint32_t x, uint32_t y)
{
	switch (op) {
	case VGPU_BOP_AND: return x & y;
	case VGPU_BOP_OR: return x | y;
	case VGPU_BOP_XOR: return x ^ y;
	default: return x;
	}
}

/* ------------------------------------------------------------------ */
/* bit field helpers */

/* The low @n bits set, n <= 64. */
static inline uint64_t low_bits(unsigned int n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

static uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, bool sgn, unsigned int bits)
{
	unsigned int msb = bits - 1, n;
	uint64_t d = 0;
	unsigned int sbit = 0;

	pos &= 0xff;
	len &= 0xff;
	if (sgn && len) {
		unsigned int top = pos + len - 1 > msb ? msb : pos + len - 1;

		sbit = (unsigned int)(a >> top) & 1;
	}
	/* bits 0 ... n - 1 from a at pos, the rest up to msb sbit */
	n = pos > msb ? 0 : len < bits - pos ? len : bits - pos;
	if (n)
		d = (a >> pos) & low_bits(n);
	if (sbit)
		d |= low_bits(bits) & ~low_bits(n);
	return d;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, unsigned int bits)
{
	unsigned int msb = bits - 1, n;
	uint64_t mask;

	pos &= 0xff;
	len &= 0xff;
	/* a's low n bits replace b's from pos: those at or below msb */
	n = pos > msb ? 0 : len < bits - pos ? len : bits - pos;
	if (!n)
		return b;
	mask = low_bits(n) << pos;
	return (b & ~mask) | ((a << pos) & mask);
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel)
{
	uint64_t x = (uint64_t)b << 32 | a;
	uint32_t r = 0;

	for (int i = 0; i < 4; i++) {
		unsigned int sv = (sel >> (4 * i)) & 15;
		uint32_t byte = (uint32_t)(x >> ((sv & 7) * 8)) & 0xff;

		if (sv & 8)
			byte = byte & 0x80 ? 0xff : 0;
		r |= byte << (8 * i);
	}
	return r;
}

/* IEEE binary16 -> float (exact). */
static float h2f(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	float v;

	if (e == 31)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexpf((float)m, -24);
	else
		v = ldexpf((float)(m | 1024), e - 25);
	return h & 0x8000 ? -v : v;
}

/* double -> binary16, rounded by @rnd (enum vgpu_rnd); NaN -> 0x7fff. */
static uint16_t f2h(double x, int rnd)
{
	uint16_t sign = signbit(x) ? 0x8000 : 0;
	double a = fabs(x), q, r, frac;
	int e, unb;
	bool up;

	if (isnan(x))
		return 0x7fff;
	up = (rnd == VGPU_RND_RP && !sign) || (rnd == VGPU_RND_RM && sign);
	if (isinf(a))
		return sign | 0x7c00;
	if (a == 0)
		return sign;
	frexp(a, &e);
	unb = e - 1 < -14 ? -14 : e - 1;
	q = ldexp(a, 10 - unb);		/* in units of the last place: exact */
	r = floor(q);
	frac = q - r;
	if (rnd == VGPU_RND_RN)
		r += frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0.0);
	else if (up && frac > 0)
		r += 1;
	if (ldexp(r, unb - 10) > 65504.0)
		return sign | (rnd == VGPU_RND_RN || up ? 0x7c00 : 0x7bff);
	if (unb == -14 && r < 1024)
		return sign | (uint16_t)r;	/* subnormal (or the least normal) */
	return sign | (uint16_t)(((unb + 15) << 10) + (int)r - 1024);
}

/* CVT with an f16 source or destination. */
static uint64_t cvt_f16(uint64_t in, unsigned int st, unsigned int dt, unsigned int mod)
{
	int rnd = VGPU_M_CVT_RND(mod);
	double v;

	if (st == VGPU_T_F16 && dt != VGPU_T_F16)
		return cvt1(u_of(h2f((uint16_t)in)), VGPU_T_F32, dt, mod);
	if (st == VGPU_T_F16)
		v = h2f((uint16_t)in);
	else if (st == VGPU_T_F64 || st == VGPU_T_F32)
		v = st == VGPU_T_F64 ? d_of(in) : f_of((uint32_t)in);
	else
		v = d_of(cvt1(in, st, VGPU_T_F64, mod & ~(VGPU_M_CVT(0, 0, 1, 1, 0))));
	if (st == VGPU_T_F32 && VGPU_M_CVT_FTZ(mod))
		v = ftz((float)v);
	if (VGPU_M_CVT_RINT(mod) && !isnan(v) && !isinf(v)) {
		switch (rnd) {
		case VGPU_RND_RZ: v = trunc(v); break;
		case VGPU_RND_RM: v = floor(v); break;
		case VGPU_RND_RP: v = ceil(v); break;
		default: v = v - floor(v) == 0.5 ? 2 * floor((v + 1) / 2) : round(v); break;
		}
	}
	if (VGPU_M_CVT_SAT(mod))
		v = satd(v);
	return f2h(v, rnd);
}

/* ------------------------------------------------------------------ */
/* special registers */

/* Whether special register @sr differs between the lanes of a warp (sreg()). */
static inline bool sreg_per_lane(unsigned int sr)
{
	switch (sr) {
	case VGPU_SR_TID_X: case VGPU_SR_TID_Y: case VGPU_SR_TID_Z: case VGPU_SR_LANEID:
	case VGPU_SR_LANEMASK_EQ: case VGPU_SR_LANEMASK_LT: case VGPU_SR_LANEMASK_LE:
	case VGPU_SR_LANEMASK_GT: case VGPU_SR_LANEMASK_GE:
		return true;
	default:
		return false;
	}
}

static uint64_t sreg(struct vgpu_sim *s, struct sm *sm, struct warp *w, unsigned int sr,
		     uint32_t l, uint32_t amask, uint64_t now)
{
	const struct vgpu_job_desc *jd = &w->tb->job->desc;
	uint32_t t = w->idx * 32 + l;

	switch (sr) {
	case VGPU_SR_TID_X: return t % jd->block[0];
	case VGPU_SR_TID_Y: return (t / jd->block[0]) % jd->block[1];
	case VGPU_SR_TID_Z: return t / (jd->block[0] * jd->block[1]);
	case VGPU_SR_NTID_X: case VGPU_SR_NTID_Y: case VGPU_SR_NTID_Z:
		return jd->block[sr - VGPU_SR_NTID_X];
	case VGPU_SR_CTAID_X: case VGPU_SR_CTAID_Y: case VGPU_SR_CTAID_Z:
		return w->tb->ctaid[sr - VGPU_SR_CTAID_X];
	case VGPU_SR_NCTAID_X: case VGPU_SR_NCTAID_Y: case VGPU_SR_NCTAID_Z:
		return jd->grid[sr - VGPU_SR_NCTAID_X];
	case VGPU_SR_LANEID: return l;
	case VGPU_SR_WARPID: return w->slot;
	case VGPU_SR_NWARPID: return sm->nws;
	case VGPU_SR_SMID: return sm->id;
	case VGPU_SR_NSMID: return s->cfg.desc.num_sms;
	case VGPU_SR_LANEMASK_EQ: return 1u << l;
	case VGPU_SR_LANEMASK_LT: return (1u << l) - 1;
	case VGPU_SR_LANEMASK_LE: return (uint32_t)((2ull << l) - 1);
	case VGPU_SR_LANEMASK_GT: return ~(uint32_t)((2ull << l) - 1);
	case VGPU_SR_LANEMASK_GE: return ~((1u << l) - 1);
	case VGPU_SR_CLOCK: return (uint32_t)now;
	case VGPU_SR_CLOCK64: return now;
	case VGPU_SR_DYN_SMEM: return jd->dynamic_shared;
	case VGPU_SR_TOTAL_SMEM: return w->tb->shared_bytes;
	case VGPU_SR_ACTIVEMASK: return amask;
	default: return 0;
	}
}

/* ------------------------------------------------------------------ */
/*
 * Virtual thread blocks (seed 003 §4.2.1). The first warp of a block to
 * ask for iteration i takes the next logical index from the job's counter
 * (GPU-wide, in the serial phase: SMs in index order, so the order is
 * deterministic); its siblings asking for iteration i get the same index.
 * Past the grid every warp gets vt_total, which the wrapper exits on.
 */
/*
 * SlowestLane (§4.2.2), when the first warp of @tb finishes its iteration:
 * the block's @nfull full warps sorted by their progress in that iteration
 * (warp instructions since their NEXTTB; least first, ties by the warp
 * index they ran); the k-th of them gives its index to the k-th warp to
 * start the next iteration. All of the block's warps are in the same
 * iteration here (they differ by at most 1 and none has started the next).
 */
static void vtb_order(struct tb *tb, uint32_t nfull)
{
	for (uint32_t i = 0; i < nfull; i++) {
		const struct warp *a = &tb->warps[i];
		uint64_t pa = a->insts - a->it_start;
		uint32_t r = 0;

		/* rank by counting: nfull is at most 32 and this runs once an iteration */
		for (uint32_t k = 0; k < nfull; k++) {
			const struct warp *b = &tb->warps[k];
			uint64_t pb = b->insts - b->it_start;

			r += pb < pa || (pb == pa && b->vt_widx < a->vt_widx);
		}
		tb->warps[r].vt_order = a->vt_widx;
	}
}

/*
 * The warp of its logical block @w runs in the iteration it starts (§4.2.2),
 * as NEXTTB.TID reads it. Only full warps change places: a block whose
 * threads are not a multiple of 32 keeps its last warp's lanes where they
 * are (the threads it lacks do not exist in any warp).
 */
static void vtb_lane(struct tb *tb, struct warp *w, bool first)
{
	uint32_t flags = tb->job->entry.flags, nfull = tb->job->threads / 32, k;

	if (!(flags & (VGPU_ENTRY_VTB_LOWEST | VGPU_ENTRY_VTB_SLOWEST)) || w->idx >= nfull)
		return;
	if (first) {
		/* the first logical block has no slowest warp yet: SameLane there */
		if (flags & VGPU_ENTRY_VTB_SLOWEST && w->vt_iter > 0)
			vtb_order(tb, nfull);
		tb->vt_started = 0;
	}
	k = tb->vt_started++;
	if (flags & VGPU_ENTRY_VTB_LOWEST)
		w->vt_widx = k;
	else if (w->vt_iter > 0)
		w->vt_widx = tb->warps[k].vt_order;
}

uint32_t vtb_next(struct tb *tb, struct warp *w)
{
	struct job *j = tb->job;
	uint32_t want = w->vt_iter + 1;
	bool first = want > tb->vt_hi;

	if (first) {
		tb->vt_idx[want & 1] = j->vt_next < j->vt_total ? j->vt_next++ : j->vt_total;
		tb->vt_hi = want;
	}
	vtb_lane(tb, w, first);
	w->vt_iter = want;
	w->it_start = w->insts;
	return tb->vt_idx[want & 1];
}

uint32_t vtb_min(const struct tb *tb)
{
	uint32_t m = UINT32_MAX;

	for (uint32_t i = 0; i < tb->nwarps; i++) {
		const struct warp *w = &tb->warps[i];

		if (w->state != W_DONE && w->sp && w->vt_iter < m)
			m = w->vt_iter;
	}
	return m;
}

bool vtb_wait(const struct tb *tb, const struct warp *w, const struct dinst *d)
{
	unsigned int sp;

	if (w->vt_iter <= tb->vt_min)
		return false;
	/* ahead of a sibling: a new index would make the difference 2 */
	if (d->op == VGPU_OP_NEXTTB && d->mod == VGPU_NEXTTB_TB)
		return w->vt_iter == tb->vt_hi;
	if (d->op != VGPU_OP_LD && d->op != VGPU_OP_ST && d->op != VGPU_OP_ATOM)
		return false;
	/* a generic address may be a shared one */
	sp = VGPU_M_MEM_SP(d->mod);
	return sp == VGPU_SP_SHARED || sp == VGPU_SP_GENERIC;
}

static int push(struct warp *w, uint32_t pc, uint32_t rpc, uint32_t mask)
{
	if (w->sp >= SIMT_STACK_MAX)
		return -ENOMEM;
	w->stack[w->sp++] = (struct simt){ pc, rpc, mask };
	return 0;
}

SIM_LANE_CLONES
int sim_exec(struct vgpu_sim *s, struct sm *sm, struct warp *w, uint64_t now)
{
	struct tb *tb = w->tb;
	struct job *j = tb->job;
	struct simt *top = &w->stack[w->sp - 1];
	uint32_t pc = top->pc, amask = top->mask, m = amask;
	const struct dinst *d;
	const uint32_t *A, *B, *C;
	uint32_t *D;
	unsigned int t, mod;
	int ret = 0;

	if (pc >= j->ncode)
		return -EILSEQ;
	d = &j->code[pc];
	if (d->flags & DI_GE) {
		uint32_t p = w->pred[d->gp];

		m &= d->flags & DI_GN ? ~p : p;
	}
	/* under VGPU_JOB_BUFFER_BOUNDARIES a store crosses only by what it overwrites */
	if ((d->flags & DI_IB) && m && !tb->crossed_boundary &&
	    !(j->buffer_bounds && d->op == VGPU_OP_ST)) {
		tb->crossed_boundary = true;
		tb->cross_cycles = now - tb->start;
		tb->cross_insts = tb->warp_insts;
	}
	tb->warp_insts++;
	w->insts++;
	w->ready = now + s->lat[d->lat];
	top->pc = pc + 1;
	t = d->type;
	mod = d->mod;
	A = rrow(s, w, d->a);
	B = d->flags & DI_BI ? j->pool + (size_t)d->bslot * 64 : rrow(s, w, d->b);
	C = d->flags & DI_CI ? j->pool + (size_t)d->cslot * 64 : rrow(s, w, d->c);
	D = wrow(sm, w, d->d);

	switch (d->op) {
	case VGPU_OP_NOP: case VGPU_OP_MEMBAR:
		break;
	case VGPU_OP_BRA: {
		uint32_t taken = d->flags & DI_GE ? m : amask, nt = amask & ~taken;

		if (!nt) {
			top->pc = d->target;
		} else if (taken) {
			uint32_t r = d->rpc;

			if (r == top->rpc)
				w->sp--;	/* the entry below already waits at r */
			else
				top->pc = r;
			if (pc + 1 != r && (ret = push(w, pc + 1, r, nt)))
				return ret;
			if (d->target != r && (ret = push(w, d->target, r, taken)))
				return ret;
		}
		break;
	}
	case VGPU_OP_EXIT: {
		uint32_t ex = d->flags & DI_GE ? m : amask;

		for (int i = 0; i < w->sp; i++)
			w->stack[i].mask &= ~ex;
		break;
	}
	case VGPU_OP_BAR:
		if (m) {
			w->state = W_BAR;
			tb->at_bar++;
		}
		break;
	case VGPU_OP_TRAP:
		if (m)
			return -EILSEQ;
		break;

	case VGPU_OP_MOV:
		if (vgpu_type_is64(t))
			LANES_S64(m, v_ = G64(B, l));
		else
			LANES_REG(m, D[l] = B[l]);
		break;
	case VGPU_OP_S2R:
		if (!sreg_per_lane(mod)) {
			/* the same for every lane: read once */
			uint64_t v = sreg(s, sm, w, mod, 0, amask, now);

			if (t == VGPU_T_U64)
				LANES_DO(m, S64(D, l, v));
			else
				LANES_DO(m, D[l] = (uint32_t)v);
		} else if (mod == VGPU_SR_TID_X && t != VGPU_T_U64) {
			uint32_t t0 = w->idx * 32, bx = j->desc.block[0], x0 = t0 % bx;

			/* without a division per lane where the warp is in one row, or rows are 2^k wide */
			if (x0 + 32 <= bx)
				LANES_DO(m, D[l] = x0 + l);
			else if (!(bx & (bx - 1)))
				LANES_DO(m, D[l] = (t0 + l) & (bx - 1));
			else
				LANES_DO(m, D[l] = (t0 + l) % bx);
		} else if (mod == VGPU_SR_TID_Y && t != VGPU_T_U64) {
			uint32_t t0 = w->idx * 32, bx = j->desc.block[0], by = j->desc.block[1];

			if (!(bx & (bx - 1)) && !(by & (by - 1))) {
				uint32_t sh = (uint32_t)__builtin_ctz(bx);

				LANES_DO(m, D[l] = ((t0 + l) >> sh) & (by - 1));
			} else {
				LANES_DO(m, D[l] = ((t0 + l) / bx) % by);
			}
		} else if (mod == VGPU_SR_TID_Z && t != VGPU_T_U64) {
			uint32_t t0 = w->idx * 32, bxy = j->desc.block[0] * j->desc.block[1];

			LANES_DO(m, D[l] = (t0 + l) / bxy);
		} else if (t == VGPU_T_U64) {
			LANES_DO(m, S64(D, l, sreg(s, sm, w, mod, l, amask, now)));
		} else {
			LANES_DO(m, D[l] = (uint32_t)sreg(s, sm, w, mod, l, amask, now));
		}
		break;
	case VGPU_OP_LEAD:
		LANES_S64(m, v_ = j->desc.data_addr + G64(B, l));
		break;
	case VGPU_OP_NEXTTB:
		if (mod == VGPU_NEXTTB_TID) {
			/* next_tIdxInBlk (§4.2.2): the lane of the logical warp it runs */
			LANES_DO(m, D[l] = w->vt_widx * 32 + l);
		} else if (m) {
			/* one fetch for the warp, every lane gets it (§4.2.1) */
			uint32_t v = vtb_next(tb, w);

			LANES_DO(m, D[l] = v);
		}
		break;
	case VGPU_OP_CVTA: {
		unsigned int sp = mod & 7;
		bool to = mod & 8;
		uint64_t base = sp == VGPU_SP_SHARED ? VGPU_GENERIC_SHARED :
				sp == VGPU_SP_LOCAL ? VGPU_GENERIC_LOCAL :
				sp == VGPU_SP_CONST ? j->desc.data_addr : 0;

		if (t == VGPU_T_U64)
			LANES_S64(m, v_ = to ? G64(A, l) - base : G64(A, l) + base);
		else
			LANES_DO(m, D[l] = A[l]);
		break;
	}
	case VGPU_OP_PACK:
		LANES_S64(m, v_ = A[l] | (uint64_t)B[l] << 32);
		break;
	case VGPU_OP_UNPK:
		LANES_DO(m, D[l] = mod ? A[l + 32] : A[l]);
		break;

#define ARITH(op32, op64, fl32, fl64) \
	switch (t) { \
	case VGPU_T_U32: case VGPU_T_S32: \
		LANES_REG(m, { uint32_t x = A[l], y = B[l]; D[l] = (op32); }); \
		break; \
	case VGPU_T_U64: case VGPU_T_S64: \
		LANES_S64(m, { uint64_t x = G64(A, l), y = G64(B, l); v_ = (op64); }); \
		break; \
	case VGPU_T_F32: \
		if (mod) { \
			LANES_DO(m, SF(D, l, (float)fop(d->op, GF(A, l), GF(B, l), 0, mod, true))); \
		} else { \
			LANES_REG(m, { float x = GF(A, l), y = GF(B, l); SF(D, l, (fl32)); }); \
		} \
		break; \
	case VGPU_T_F64: \
		if (mod) { \
			LANES_DO(m, SD(D, l, fop(d->op, GD(A, l), GD(B, l), 0, mod, false))); \
		} else { \
			LANES_DO(m, { double x = GD(A, l), y = GD(B, l); SD(D, l, (fl64)); }); \
		} \
		break; \
	}

	case VGPU_OP_ADD:
		if (t == VGPU_T_U64 || t == VGPU_T_S64) {
			/*
			 * on the register's two rows, the carry from the low
			 * words: 32-bit lanes, which vectorise without the
			 * 64-bit values put together and taken apart
			 */
			LANES_REG(m, {
				uint32_t lo = A[l] + B[l], hi = A[l + 32] + B[l + 32] + (lo < A[l]);

				D[l] = lo;
				D[l + 32] = hi;
			});
			break;
		}
		ARITH(x + y, x + y, x + y, x + y);
		break;
	case VGPU_OP_SUB:
		if (t == VGPU_T_U64 || t == VGPU_T_S64) {
			/* the same, with the borrow */
			LANES_REG(m, {
				uint32_t lo = A[l] - B[l], hi = A[l + 32] - B[l + 32] - (A[l] < B[l]);

				D[l] = lo;
				D[l + 32] = hi;
			});
			break;
		}
		ARITH(x - y, x - y, x - y, x - y);
		break;
	case VGPU_OP_MUL:
		ARITH(x * y, x * y, x * y, x * y);
		break;
	case VGPU_OP_MAD:
		switch (t) {
		case VGPU_T_U32: case VGPU_T_S32:
			LANES_REG(m, D[l] = A[l] * B[l] + C[l]);
			break;
		case VGPU_T_U64: case VGPU_T_S64:
			LANES_S64(m, v_ = G64(A, l) * G64(B, l) + G64(C, l));
			break;
		case VGPU_T_F32:
			if (mod)
				LANES_DO(m, SF(D, l, (float)fop(d->op, GF(A, l), GF(B, l), GF(C, l), mod, true)));
			else if (m == 0xffffffffu && host_fma())
				warp_fmaf(D, A, B, C);
			else
				LANES_DO(m, SF(D, l, fmaf(GF(A, l), GF(B, l), GF(C, l))));
			break;
		case VGPU_T_F64:
			if (mod)
				LANES_DO(m, SD(D, l, fop(d->op, GD(A, l), GD(B, l), GD(C, l), mod, false)));
			else if (m == 0xffffffffu && host_fma())
				warp_fma(D, A, B, C);
			else
				LANES_DO(m, SD(D, l, fma(GD(A, l), GD(B, l), GD(C, l))));
			break;
		}
		break;
	case VGPU_OP_MULHI: case VGPU_OP_MADHI: {
		bool mad = d->op == VGPU_OP_MADHI;

		switch (t) {
		case VGPU_T_U32:
			LANES_DO(m, D[l] = (uint32_t)(((uint64_t)A[l] * B[l]) >> 32) + (mad ? C[l] : 0));
			break;
		case VGPU_T_S32:
			LANES_DO(m, D[l] = (uint32_t)(uint64_t)(((int64_t)(int32_t)A[l] *
				(int32_t)B[l]) >> 32) + (mad ? C[l] : 0));
			break;
		case VGPU_T_U64:
			LANES_DO(m, S64(D, l, (uint64_t)(((unsigned __int128)G64(A, l) * G64(B, l)) >> 64) +
				     (mad ? G64(C, l) : 0)));
			break;
		case VGPU_T_S64:
			LANES_DO(m, S64(D, l, (uint64_t)(((__int128)(int64_t)G64(A, l) *
				(int64_t)G64(B, l)) >> 64) + (mad ? G64(C, l) : 0)));
			break;
		}
		break;
	}
	case VGPU_OP_MULWD: case VGPU_OP_MADWD: {
		bool mad = d->op == VGPU_OP_MADWD;

		/* without an addend, lane l's product into lane l of the two rows: 32-bit lanes */
		if (!mad && t == VGPU_T_U32)
			LANES_REG(m, S64(D, l, (uint64_t)A[l] * B[l]));
		else if (!mad)
			LANES_REG(m, S64(D, l, (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l])));
		else if (t == VGPU_T_U32)
			LANES_S64(m, v_ = (uint64_t)A[l] * B[l] + G64(C, l));
		else
			LANES_S64(m, v_ = (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]) +
				     G64(C, l));
		break;
	}
	case VGPU_OP_DIV:
		switch (t) {
		case VGPU_T_U32:
			LANES_DO(m, D[l] = B[l] ? A[l] / B[l] : 0xffffffffu);
			break;
		case VGPU_T_S32:
			LANES_DO(m, {
				int32_t x = (int32_t)A[l], y = (int32_t)B[l];

				D[l] = !y ? 0xffffffffu : (x == INT32_MIN && y == -1) ? (uint32_t)x :
				       (uint32_t)(x / y);
			});
			break;
		case VGPU_T_U64:
			LANES_DO(m, {
				uint64_t x = G64(A, l), y = G64(B, l);

				S64(D, l, y ? x / y : UINT64_MAX);
			});
			break;
		case VGPU_T_S64:
			LANES_DO(m, {
				int64_t x = (int64_t)G64(A, l), y = (int64_t)G64(B, l);

				S64(D, l, !y ? UINT64_MAX : (x == INT64_MIN && y == -1) ? (uint64_t)x :
				    (uint64_t)(x / y));
			});
			break;
		case VGPU_T_F32:
			if (mod)
				LANES_DO(m, SF(D, l, (float)fop(d->op, GF(A, l), GF(B, l), 0, mod, true)));
			else
				LANES_DO(m, SF(D, l, GF(A, l) / GF(B, l)));
			break;
		case VGPU_T_F64:
			LANES_DO(m, SD(D, l, fop(d->op, GD(A, l), GD(B, l), 0, mod, false)));
			break;
		}
		break;
	case VGPU_OP_REM:
		switch (t) {
		case VGPU_T_U32:
			LANES_DO(m, D[l] = B[l] ? A[l] % B[l] : A[l]);
			break;
		case VGPU_T_S32:
			LANES_DO(m, {
				int32_t x = (int32_t)A[l], y = (int32_t)B[l];

				D[l] = !y ? (uint32_t)x : y == -1 ? 0 : (uint32_t)(x % y);
			});
			break;
		case VGPU_T_U64:
			LANES_DO(m, {
				uint64_t x = G64(A, l), y = G64(B, l);

				S64(D, l, y ? x % y : x);
			});
			break;
		case VGPU_T_S64:
			LANES_DO(m, {
				int64_t x = (int64_t)G64(A, l), y = (int64_t)G64(B, l);

				S64(D, l, !y ? (uint64_t)x : y == -1 ? 0 : (uint64_t)(x % y));
			});
			break;
		}
		break;
	case VGPU_OP_MIN: case VGPU_OP_MAX: {
		bool mx = d->op == VGPU_OP_MAX;

		switch (t) {
		case VGPU_T_U32:
			LANES_DO(m, D[l] = (A[l] < B[l]) != mx ? A[l] : B[l]);
			break;
		case VGPU_T_S32:
			LANES_DO(m, D[l] = ((int32_t)A[l] < (int32_t)B[l]) != mx ? A[l] : B[l]);
			break;
		case VGPU_T_U64:
			LANES_DO(m, S64(D, l, (G64(A, l) < G64(B, l)) != mx ? G64(A, l) : G64(B, l)));
			break;
		case VGPU_T_S64:
			LANES_DO(m, S64(D, l, ((int64_t)G64(A, l) < (int64_t)G64(B, l)) != mx ?
				     G64(A, l) : G64(B, l)));
			break;
		case VGPU_T_F32:
			if (!mod && d->op == VGPU_OP_MIN)
				LANES_DO(m, SF(D, l, fminf(GF(A, l), GF(B, l))));
			else if (!mod)
				LANES_DO(m, SF(D, l, fmaxf(GF(A, l), GF(B, l))));
			else
				LANES_DO(m, SF(D, l, (float)fop(d->op, GF(A, l), GF(B, l), 0, mod, true)));
			break;
		case VGPU_T_F64:
			LANES_DO(m, SD(D, l, fop(d->op, GD(A, l), GD(B, l), 0, mod, false)));
			break;
		}
		break;
	}
	case VGPU_OP_NEG: case VGPU_OP_ABS: {
		bool ab = d->op == VGPU_OP_ABS;

		switch (t) {
		case VGPU_T_U32: case VGPU_T_S32:
			LANES_DO(m, {
				uint32_t x = A[l];

				D[l] = ab ? ((int32_t)x < 0 ? 0u - x : x) : 0u - x;
			});
			break;
		case VGPU_T_U64: case VGPU_T_S64:
			LANES_DO(m, {
				uint64_t x = G64(A, l);

				S64(D, l, ab ? ((int64_t)x < 0 ? 0 - x : x) : 0 - x);
			});
			break;
		case VGPU_T_F32:
			if (mod & VGPU_M_FTZ)
				LANES_DO(m, SF(D, l, (float)fop(d->op, GF(A, l), 0, 0, mod, true)));
			else
				LANES_DO(m, D[l] = ab ? A[l] & 0x7fffffffu : A[l] ^ 0x80000000u);
			break;
		case VGPU_T_F64:
			LANES_DO(m, S64(D, l, ab ? G64(A, l) & ~(1ull << 63) : G64(A, l) ^ (1ull << 63)));
			break;
		}
		break;
	}
	case VGPU_OP_SQRT: case VGPU_OP_RSQRT: case VGPU_OP_RCP: case VGPU_OP_SIN:
	case VGPU_OP_COS: case VGPU_OP_LG2: case VGPU_OP_EX2: case VGPU_OP_TANH:
		if (t == VGPU_T_F32 && d->op == VGPU_OP_SQRT && !mod)
			/* fop()'s square root without its modifiers, not called per lane */
			LANES_REG(m, SF(D, l, sqrtf(GF(A, l))));
		else if (t == VGPU_T_F32)
			LANES_DO(m, SF(D, l, (float)fop(d->op, GF(A, l), 0, 0, mod, true)));
		else
			LANES_DO(m, SD(D, l, fop(d->op, GD(A, l), 0, 0, mod, false)));
		break;

#define LOGIC(expr) \
	do { \
		if (vgpu_type_is64(t)) { \
			LANES_S64(m, { uint64_t x = G64(A, l), y = G64(B, l); (void)y; v_ = (expr); }); \
		} else { \
			LANES_REG(m, { uint32_t x = A[l], y = B[l]; (void)y; D[l] = (uint32_t)(expr); }); \
		} \
	} while (0)

	case VGPU_OP_AND:
		LOGIC(x & y);
		break;
	case VGPU_OP_OR:
		LOGIC(x | y);
		break;
	case VGPU_OP_XOR:
		LOGIC(x ^ y);
		break;
	case VGPU_OP_NOT:
		LOGIC(~x);
		break;
	case VGPU_OP_CNOT:
		LOGIC(x == 0);
		break;
	case VGPU_OP_SHL:
		if (vgpu_type_is64(t) && (d->flags & DI_BI)) {
			/* an immediate count: one shift for the warp, vectorised */
			uint32_t b = B[0];

			if (b >= 64)
				LANES_S64(m, v_ = 0);
			else
				LANES_S64(m, v_ = G64(A, l) << b);
		} else if (vgpu_type_is64(t)) {
			LANES_S64(m, v_ = B[l] >= 64 ? 0 : G64(A, l) << B[l]);
		} else if (d->flags & DI_BI) {
			/* an immediate count is every lane's: one shift for the warp */
			uint32_t b = B[0];

			if (b >= 32)
				LANES_DO(m, D[l] = 0);
			else
				LANES_REG(m, D[l] = A[l] << b);
		} else {
			LANES_DO(m, D[l] = B[l] >= 32 ? 0 : A[l] << B[l]);
		}
		break;
	case VGPU_OP_SHR:
		switch (t) {
		case VGPU_T_U32:
			if (d->flags & DI_BI) {
				uint32_t b = B[0];

				if (b >= 32)
					LANES_DO(m, D[l] = 0);
				else
					LANES_REG(m, D[l] = A[l] >> b);
			} else {
				LANES_DO(m, D[l] = B[l] >= 32 ? 0 : A[l] >> B[l]);
			}
			break;
		case VGPU_T_S32:
			if (d->flags & DI_BI) {
				uint32_t b = B[0] >= 32 ? 31 : B[0];

				LANES_REG(m, D[l] = (uint32_t)((int32_t)A[l] >> b));
			} else {
				LANES_DO(m, D[l] = (uint32_t)((int32_t)A[l] >> (B[l] >= 32 ? 31 : B[l])));
			}
			break;
		case VGPU_T_U64:
			if (d->flags & DI_BI) {
				uint32_t b = B[0];

				if (b >= 64)
					LANES_S64(m, v_ = 0);
				else
					LANES_S64(m, v_ = G64(A, l) >> b);
			} else {
				LANES_S64(m, v_ = B[l] >= 64 ? 0 : G64(A, l) >> B[l]);
			}
			break;
		case VGPU_T_S64:
			if (d->flags & DI_BI) {
				uint32_t b = B[0] >= 64 ? 63 : B[0];

				LANES_S64(m, v_ = (uint64_t)((int64_t)G64(A, l) >> b));
			} else {
				LANES_S64(m, v_ = (uint64_t)((int64_t)G64(A, l) >>
							     (B[l] >= 64 ? 63 : B[l])));
			}
			break;
		}
		break;
	case VGPU_OP_POPC:
		if (vgpu_type_is64(t))
			LANES_DO(m, D[l] = (uint32_t)__builtin_popcountll(G64(A, l)));
		else
			LANES_DO(m, D[l] = (uint32_t)__builtin_popcount(A[l]));
		break;
	case VGPU_OP_CLZ:
		if (vgpu_type_is64(t))
			LANES_DO(m, D[l] = G64(A, l) ? (uint32_t)__builtin_clzll(G64(A, l)) : 64);
		else
			LANES_DO(m, D[l] = A[l] ? (uint32_t)__builtin_clz(A[l]) : 32);
		break;
	case VGPU_OP_BREV:
		if (vgpu_type_is64(t)) {
			LANES_DO(m, {
				uint64_t x = G64(A, l), r = 0;

				for (int i = 0; i < 64; i++)
					r |= ((x >> i) & 1) << (63 - i);
				S64(D, l, r);
			});
		} else {
			LANES_DO(m, {
				uint32_t x = A[l], r = 0;

				for (int i = 0; i < 32; i++)
					r |= ((x >> i) & 1) << (31 - i);
				D[l] = r;
			});
		}
		break;
	case VGPU_OP_BFE:
		if (vgpu_type_is64(t))
			LANES_DO(m, S64(D, l, bfe(G64(A, l), B[l], C[l], vgpu_type_signed(t), 64)));
		else
			LANES_DO(m, D[l] = (uint32_t)bfe(A[l], B[l], C[l], vgpu_type_signed(t), 32));
		break;
	case VGPU_OP_BFI:
		if (vgpu_type_is64(t))
			LANES_DO(m, S64(D, l, bfi(G64(A, l), G64(B, l), C[l], mod, 64)));
		else
			LANES_DO(m, D[l] = (uint32_t)bfi(A[l], B[l], C[l], mod, 32));
		break;
	case VGPU_OP_PRMT:
		LANES_DO(m, D[l] = prmt(A[l], B[l], C[l]));
		break;

	case VGPU_OP_SETP: {
		unsigned int cmp = VGPU_M_SETP_CMP(mod), bo = VGPU_M_SETP_BOP(mod);
		uint32_t res = 0, pc = 0, p, q;

		switch (t) {
		case VGPU_T_U32: ICMP(G32, uint32_t); break;
		case VGPU_T_S32: ICMP(G32, int32_t); break;
		case VGPU_T_U64: ICMP(G64, uint64_t); break;
		case VGPU_T_S64: ICMP(G64, int64_t); break;
		case VGPU_T_F32:
			if (VGPU_M_SETP_FTZ(mod))
				LANES_DO(m, res |= (uint32_t)fcmp(cmp, ftz(GF(A, l)), ftz(GF(B, l))) << l);
			else
				LANES_DO(m, res |= (uint32_t)fcmp(cmp, GF(A, l), GF(B, l)) << l);
			break;
		case VGPU_T_F64:
			LANES_DO(m, res |= (uint32_t)fcmp(cmp, GD(A, l), GD(B, l)) << l);
			break;
		}
		if (bo) {
			pc = w->pred[d->c & 7];
			if (VGPU_M_SETP_CNEG(mod))
				pc = ~pc;
		}
		p = bop(bo, res, pc);
		q = bop(bo, ~res, pc);
		w->pred[d->d & 7] = (w->pred[d->d & 7] & ~m) | (p & m);
		if (VGPU_M_SETP_QON(mod)) {
			unsigned int qi = VGPU_M_SETP_Q(mod);

			w->pred[qi] = (w->pred[qi] & ~m) | (q & m);
		}
		break;
	}
	case VGPU_OP_SELP: {
		uint32_t p = w->pred[mod & 7];

		if (mod & 8)
			p = ~p;
		if (vgpu_type_is64(t))
			LANES_DO(m, S64(D, l, (p >> l & 1) ? G64(A, l) : G64(B, l)));
		else
			LANES_DO(m, D[l] = (p >> l & 1) ? A[l] : B[l]);
		break;
	}
	case VGPU_OP_PLOP: {
		uint32_t x = w->pred[d->a & 7], y = w->pred[d->b & 7], r;

		if (mod & 4)
			x = ~x;
		if (mod & 8)
			y = ~y;
		r = bop(mod & 3, x, y);
		w->pred[d->d & 7] = (w->pred[d->d & 7] & ~m) | (r & m);
		break;
	}
	case VGPU_OP_CVT: {
		unsigned int st = VGPU_M_CVT_ST(mod);
		bool s64 = vgpu_type_is64(st), d64 = vgpu_type_is64(t);

		if (cvt_int_plain(st, t, mod)) {
			/*
			 * integer to integer without saturation (cvt1()): the
			 * source's bits extended, the result's narrowed
			 */
			unsigned int ss = 64 - vgpu_type_bits(st), ds = 64 - vgpu_type_bits(t);
			bool ssg = vgpu_type_signed(st), dsg = vgpu_type_signed(t);

			LANES_DO(m, {
				uint64_t x = (s64 ? G64(A, l) : A[l]) << ss;

				x = ssg ? (uint64_t)((int64_t)x >> ss) : x >> ss;
				x <<= ds;
				x = dsg ? (uint64_t)((int64_t)x >> ds) : x >> ds;
				if (d64)
					S64(D, l, x);
				else
					D[l] = (uint32_t)x;
			});
			break;
		}
		if (st == VGPU_T_F32 && (t == VGPU_T_S32 || t == VGPU_T_U32)) {
			int rnd = VGPU_M_CVT_RND(mod);
			bool ftzm = VGPU_M_CVT_FTZ(mod), sgn = t == VGPU_T_S32;

			LANES_DO(m, {
				float f = GF(A, l);

				D[l] = cvt_f2i32(ftzm ? ftz(f) : f, rnd, sgn);
			});
			break;
		}
		if (st == VGPU_T_F32 && t == VGPU_T_F32 && VGPU_M_CVT_RINT(mod)) {
			/*
			 * a float rounded to an integer (cvt1()): the rounding
			 * mode's function itself, the mode left as it is
			 */
			bool ftzm = VGPU_M_CVT_FTZ(mod), sat = VGPU_M_CVT_SAT(mod);

			switch (VGPU_M_CVT_RND(mod)) {
			case VGPU_RND_RZ: CVT_RINT(m, truncf, ftzm, sat); break;
			case VGPU_RND_RM: CVT_RINT(m, floorf, ftzm, sat); break;
			case VGPU_RND_RP: CVT_RINT(m, ceilf, ftzm, sat); break;
			default: CVT_RINT(m, nearbyintf, ftzm, sat); break;
			}
			break;
		}
		if ((st == VGPU_T_S32 || st == VGPU_T_U32) && t == VGPU_T_F32 &&
		    VGPU_M_CVT_RND(mod) == VGPU_RND_RN && !VGPU_M_CVT_SAT(mod)) {
			/*
			 * a 32-bit integer to the nearest float (cvt1(); never
			 * subnormal, so .ftz changes nothing)
			 */
			if (st == VGPU_T_S32)
				LANES_REG(m, SF(D, l, (float)(int32_t)A[l]));
			else
				LANES_REG(m, SF(D, l, (float)A[l]));
			break;
		}
		LANES_DO(m, {
			uint64_t v = cvt1(s64 ? G64(A, l) : A[l], st, t, mod);

			if (d64)
				S64(D, l, v);
			else
				D[l] = (uint32_t)v;
		});
		break;
	}

	case VGPU_OP_LD:
		ret = exec_ld(s, sm, w, d, m);
		break;
	case VGPU_OP_ST: {
		bool over = false;

		ret = exec_st(s, sm, w, d, m, &over);
		if (over && (d->flags & DI_IB) && !tb->crossed_boundary) {
			/* as if the check above had taken it: before this instruction */
			tb->crossed_boundary = true;
			tb->cross_cycles = now - tb->start;
			tb->cross_insts = tb->warp_insts - 1;
		}
		break;
	}
	case VGPU_OP_ATOM:
		ret = exec_atom(s, sm, w, d, m);
		break;

	case VGPU_OP_SHFL: {
		uint32_t src[32], out[32], pv = 0;

		memcpy(src, A, sizeof(src));
		LANES_DO(m, {
			uint32_t bval = B[l] & 31, cval = C[l] & 31, seg = (C[l] >> 8) & 31;
			int32_t maxl = (int32_t)((l & seg) | (cval & ~seg));
			int32_t minl = (int32_t)(l & seg), jl;
			bool ok;

			switch (mod & 3) {
			case VGPU_SHFL_UP: jl = (int32_t)l - (int32_t)bval; ok = jl >= maxl; break;
			case VGPU_SHFL_DOWN: jl = (int32_t)(l + bval); ok = jl <= maxl; break;
			case VGPU_SHFL_BFLY: jl = (int32_t)(l ^ bval); ok = jl <= maxl; break;
			default: jl = minl | (int32_t)(bval & ~seg); ok = jl <= maxl; break;
			}
			if (!ok)
				jl = (int32_t)l;
			out[l] = src[jl & 31];
			pv |= (uint32_t)ok << l;
		});
		LANES_DO(m, D[l] = out[l]);
		if (mod & 32) {
			unsigned int qi = (mod >> 2) & 7;

			w->pred[qi] = (w->pred[qi] & ~m) | (pv & m);
		}
		break;
	}
	case VGPU_OP_VOTE: {
		uint32_t p = w->pred[(mod >> 2) & 7], v = 0;

		if (mod & 32)
			p = ~p;
		p &= m;
		switch (mod & 3) {
		case VGPU_VOTE_ALL: v = p == m ? m : 0; break;
		case VGPU_VOTE_ANY: v = p ? m : 0; break;
		case VGPU_VOTE_UNI: v = (p == 0 || p == m) ? m : 0; break;
		default:
			LANES_DO(m, D[l] = p);
			break;
		}
		if ((mod & 3) != VGPU_VOTE_BALLOT)
			w->pred[d->d & 7] = (w->pred[d->d & 7] & ~m) | v;
		break;
	}
	default:
		return -EILSEQ;
	}
	if (ret)
		return ret;
	/* reconvergence and finished paths */
	while (w->sp > 0) {
		struct simt *e = &w->stack[w->sp - 1];

		if (e->mask == 0 || e->pc == e->rpc)
			w->sp--;
		else
			break;
	}
	if (w->sp == 0)
		w->state = W_DONE;
	return 0;
}
