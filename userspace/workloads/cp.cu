/*
 * cp.cu - Coulombic potential on a 2D lattice slice: every lattice point
 * sums q / r over all atoms.
 *
 * Stands for Parboil "cp" (Coulombic Potential, CP in Tables 4.2 and 5.3,
 * kernel cenergy; class COM): a compute-heavy per-element kernel, one
 * thread per lattice point, a long inner loop over the atoms with a
 * square root and a division each and no memory traffic but the (cached)
 * atom array. Atoms are float4 (x, y, z, charge); the slice lies at z = 0
 * with lattice spacing h. The kernel adds to energy[] (Parboil accumulates
 * slice by slice): reading and overwriting it makes it non-idempotent.
 * __fsqrt_rn / __fdiv_rn are IEEE, so the CPU reference matches exactly.
 */
extern "C" __global__ void cenergy(const float4 *atoms, unsigned int natoms,
				   float *energy, unsigned int w,
				   unsigned int hgt, float h)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
	float px, py, e = 0.0f;

	if (x >= w || y >= hgt)
		return;
	px = __fmul_rn((float)x, h);
	py = __fmul_rn((float)y, h);
	for (unsigned int a = 0; a < natoms; a++) {
		float4 at = atoms[a];
		float dx = __fsub_rn(px, at.x);
		float dy = __fsub_rn(py, at.y);
		float r2 = fmaf(dx, dx, fmaf(dy, dy, __fmul_rn(at.z, at.z)));

		e = __fadd_rn(e, __fdiv_rn(at.w, __fsqrt_rn(r2)));
	}
	energy[y * w + x] = __fadd_rn(energy[y * w + x], e);
}
