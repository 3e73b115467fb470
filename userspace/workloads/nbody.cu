/*
 * nbody.cu - one time step of an all-pairs gravitational n-body system.
 *
 * Stands for the CUDA SDK "nbody" sample (compute-bound: ~20 flops per
 * pair, one shared-memory tile of bodies per block reused by every thread;
 * class COM). Bodies are float4 (x, y, z, mass), velocities float4.
 * nbody_step: each thread sums the acceleration of its body over all
 * bodies, tile by tile (tile = blockDim.x bodies in shared memory), then
 * integrates velocity and position into the output arrays (ping-pong: the
 * host swaps them between steps). The softened inverse distance uses
 * __fsqrt_rn and __fdiv_rn (IEEE, not rsqrtf's approximation), so the CPU
 * reference matches bit for bit. Dynamic shared memory: blockDim.x float4.
 */
extern "C" __global__ void nbody_step(const float4 *pos, const float4 *vel,
				      float4 *npos, float4 *nvel,
				      unsigned int n, float dt, float eps2)
{
	extern __shared__ float4 tile[];
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 p = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	float ax = 0.0f, ay = 0.0f, az = 0.0f;

	for (unsigned int t0 = 0; t0 < n; t0 += blockDim.x) {
		unsigned int j = t0 + threadIdx.x;

		tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
		__syncthreads();
		for (unsigned int k = 0; k < blockDim.x; k++) {
			float4 q = tile[k];
			float dx = __fsub_rn(q.x, p.x);
			float dy = __fsub_rn(q.y, p.y);
			float dz = __fsub_rn(q.z, p.z);
			float d2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
			float inv = __fdiv_rn(q.w, __fmul_rn(d2, __fsqrt_rn(d2)));

			ax = fmaf(dx, inv, ax);
			ay = fmaf(dy, inv, ay);
			az = fmaf(dz, inv, az);
		}
		__syncthreads();
	}
	if (i < n) {
		float4 v = vel[i];

		v.x = fmaf(ax, dt, v.x);
		v.y = fmaf(ay, dt, v.y);
		v.z = fmaf(az, dt, v.z);
		p.x = fmaf(v.x, dt, p.x);
		p.y = fmaf(v.y, dt, p.y);
		p.z = fmaf(v.z, dt, p.z);
		npos[i] = p;
		nvel[i] = v;
	}
}
