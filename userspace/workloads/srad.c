// SPDX-License-Identifier: MIT
/*
 * srad: 2 iterations of speckle-reducing anisotropic diffusion on a
 * size x size image (srad.cu). Before each iteration the host computes
 * q0sqr = var / mean^2 of the image in double precision (the same code
 * for the device's image and the reference's, which are bit-identical if
 * the kernels are right); srad_coef and srad_update then run. The
 * reference repeats the kernels' operations: bit-exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

#define ITERS 2

enum { J, C, DN, DS, DW, DE, NBO };

static float q0sqr_of(const float *img, uint32_t n)
{
	double sum = 0, sum2 = 0, mean, var;

	for (uint32_t i = 0; i < n; i++) {
		sum += img[i];
		sum2 += (double)img[i] * img[i];
	}
	mean = sum / n;
	var = sum2 / n - mean * mean;
	return (float)(var / (mean * mean));
}

static void ref_iter(float *j, float *c, float *d[4], uint32_t w, uint32_t h,
		     float q0sqr, float lambda)
{
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t i = y * w + x;
			float jc = j[i];
			float n = j[(y > 0 ? y - 1 : 0) * w + x] - jc;
			float s = j[(y < h - 1 ? y + 1 : y) * w + x] - jc;
			float wv = j[y * w + (x > 0 ? x - 1 : 0)] - jc;
			float e = j[y * w + (x < w - 1 ? x + 1 : x)] - jc;
			float g2 = fmaf(n, n, fmaf(s, s, fmaf(wv, wv, e * e))) / (jc * jc);
			float l = ((n + s) + (wv + e)) / jc;
			float num = fmaf(0.5f, g2, -0.0625f * (l * l));
			float den = fmaf(0.25f, l, 1.0f);
			float qsqr = num / (den * den);
			float cv;

			den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
			cv = 1.0f / (1.0f + den);
			c[i] = fminf(fmaxf(cv, 0.0f), 1.0f);
			d[0][i] = n;
			d[1][i] = s;
			d[2][i] = wv;
			d[3][i] = e;
		}
	for (uint32_t y = 0; y < h; y++)
		for (uint32_t x = 0; x < w; x++) {
			uint32_t i = y * w + x;
			float cn = c[i], cs = c[(y < h - 1 ? y + 1 : y) * w + x];
			float cw = c[i], ce = c[y * w + (x < w - 1 ? x + 1 : x)];
			float dd = fmaf(cn, d[0][i], fmaf(cs, d[1][i], fmaf(cw, d[2][i], ce * d[3][i])));

			j[i] = fmaf(0.25f * lambda, dd, j[i]);
		}
}

/* Defined at the end; its run checks sizes against its own entry. */
extern const struct vgpu_workload workload_srad;

static int srad_run(struct vgpu_device *dev, const struct workload_args *args,
		    struct workload_result *res, char *msg, size_t msglen)
{
	uint32_t side = (uint32_t)args->size, npx;
	uint64_t b, sizes[NBO];
	uint64_t seed = args->seed;
	float lambda = 0.5f;
	struct workload_ctx w;
	vgpu_deviceptr d[NBO];
	float *ref, *img = NULL, *rd[4];
	int ret;

	ret = workload_size_check(&workload_srad, args->size, msg, msglen);
	if (ret)
		return ret;
	npx = side * side;
	b = (uint64_t)npx * 4;
	for (int i = 0; i < NBO; i++)
		sizes[i] = b;
	ref = malloc(b * NBO);
	img = malloc(b);
	if (!ref || !img) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "out of memory");
		goto out_host;
	}
	ret = workload_open(&w, dev, "srad", res, msg, msglen);
	if (ret)
		goto out_host;
	ret = workload_alloc(&w, d, sizes, NBO);
	if (ret)
		goto out;
	for (int i = 0; i < 4; i++)
		rd[i] = ref + (size_t)(2 + i) * npx;
	/* exp(image) as Rodinia prepares it: positive, speckled. */
	for (uint32_t i = 0; i < npx; i++)
		ref[i] = 1.0f + 0.5f * (workload_randf(&seed) + 1.0f);
	ret = workload_htod(&w, d[J], ref, b);
	for (int it = 0; it < ITERS && !ret; it++) {
		float q0, rq0 = q0sqr_of(ref, npx);

		/* the statistic of the device's image, as the host reads it back */
		ret = workload_dtoh(&w, img, d[J], b);
		if (ret)
			break;
		q0 = q0sqr_of(img, npx);
		ret = workload_go(&w, "srad_coef", (side + 15) / 16, (side + 15) / 16, 16, 16, 0,
				  WORKLOAD_ARGS(&d[J], &d[C], &d[DN], &d[DS], &d[DW], &d[DE],
						&side, &side, &q0));
		if (!ret)
			ret = workload_go(&w, "srad_update", (side + 15) / 16, (side + 15) / 16, 16,
					  16, 0, WORKLOAD_ARGS(&d[J], &d[C], &d[DN], &d[DS], &d[DW],
							       &d[DE], &side, &side, &lambda));
		if (!ret)
			ref_iter(ref, ref + npx, rd, side, side, rq0, lambda);
	}
	if (!ret)
		ret = workload_check_f32(&w, "image", d[J], ref, npx);
out:
	workload_close(&w);
out_host:
	free(ref);
	free(img);
	return ret;
}

const struct vgpu_workload workload_srad = {
	.name = "srad",
	.paper = "Rodinia srad (SRAD)",
	.cls = "MEM",
	.kernels = "srad_coef srad_update (x2 iterations)",
	.small_size = 40,
	.medium_size = 128,
	.default_size = 512,
	.large_size = 2048,
	.size_unit = "image side",
	.min_size = 2,
	.max_size = 8192,
	.limits = (const struct vgpu_workload_limit[]){
		{ "srad_coef", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_REGS, LIM_REGS } },
		{ "srad_update", { LIM_REGS, LIM_REGS, LIM_THREADS, LIM_THREADS, LIM_THREADS } },
		{ NULL },
	},
	.run = srad_run,
};
