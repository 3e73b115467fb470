/*
 * srad.cu - speckle-reducing anisotropic diffusion of an image, one
 * iteration per pair of launches.
 *
 * Stands for Rodinia "srad" (SRAD in Table 5.3; class MEM) and its two
 * kernels:
 *   srad_coef    per pixel: the four directional differences, the
 *                normalised gradient and Laplacian, and the diffusion
 *                coefficient c, clamped to [0, 1];
 *   srad_update  per pixel: divergence of c * gradient, J += lambda/4 * div.
 * q0sqr (the speckle scale) comes from the host, computed from the image
 * statistics before each iteration as Rodinia does. Edges clamp. All
 * operations are explicit (__fadd_rn, __fmul_rn, __fdiv_rn, fmaf) so the
 * CPU reference matches bit for bit.
 */
extern "C" __global__ void srad_coef(const float *J, float *c, float *dn,
				     float *ds, float *dw, float *de,
				     unsigned int w, unsigned int h,
				     float q0sqr)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
	unsigned int i = y * w + x;
	float jc, n, s, wv, e, g2, l, num, den, qsqr, cv;

	if (x >= w || y >= h)
		return;
	jc = J[i];
	n = __fsub_rn(J[(y > 0 ? y - 1 : 0) * w + x], jc);
	s = __fsub_rn(J[(y < h - 1 ? y + 1 : y) * w + x], jc);
	wv = __fsub_rn(J[y * w + (x > 0 ? x - 1 : 0)], jc);
	e = __fsub_rn(J[y * w + (x < w - 1 ? x + 1 : x)], jc);
	g2 = __fdiv_rn(fmaf(n, n, fmaf(s, s, fmaf(wv, wv, __fmul_rn(e, e)))),
		       __fmul_rn(jc, jc));
	l = __fdiv_rn(__fadd_rn(__fadd_rn(n, s), __fadd_rn(wv, e)), jc);
	num = fmaf(0.5f, g2, __fmul_rn(-0.0625f, __fmul_rn(l, l)));
	den = fmaf(0.25f, l, 1.0f);
	qsqr = __fdiv_rn(num, __fmul_rn(den, den));
	den = __fdiv_rn(__fsub_rn(qsqr, q0sqr), __fmul_rn(q0sqr, __fadd_rn(1.0f, q0sqr)));
	cv = __fdiv_rn(1.0f, __fadd_rn(1.0f, den));
	c[i] = fminf(fmaxf(cv, 0.0f), 1.0f);
	dn[i] = n;
	ds[i] = s;
	dw[i] = wv;
	de[i] = e;
}

extern "C" __global__ void srad_update(float *J, const float *c,
				       const float *dn, const float *ds,
				       const float *dw, const float *de,
				       unsigned int w, unsigned int h,
				       float lambda)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
	unsigned int i = y * w + x;
	float cn, cs, cw, ce, d;

	if (x >= w || y >= h)
		return;
	cn = c[i];
	cs = c[(y < h - 1 ? y + 1 : y) * w + x];
	cw = c[i];
	ce = c[y * w + (x < w - 1 ? x + 1 : x)];
	d = fmaf(cn, dn[i], fmaf(cs, ds[i], fmaf(cw, dw[i], __fmul_rn(ce, de[i]))));
	J[i] = fmaf(__fmul_rn(0.25f, lambda), d, J[i]);
}
