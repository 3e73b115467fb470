// SPDX-License-Identifier: MIT
/*
 * rt_task.cu - the synthetic real-time task of "vgpu bench chimera" (Park,
 * dissertation, Ch. IV §4.4.1: launched periodically, it needs half the SMs
 * for a fixed time). Not a workload of the suite.
 *
 * One warp per block spins on a dependent floating-point chain, so that its
 * run time is set by @iters alone (no memory traffic to be slowed by the
 * kernel it preempts) and it costs the model little to simulate. The
 * launch asks for so much dynamic shared memory that each block fills an
 * SM, so the grid takes exactly as many SMs as it has blocks.
 */

extern "C" __global__ void rt_spin(unsigned int iters, float *out)
{
	extern __shared__ float pad[];
	float a = threadIdx.x, b = 1.0f;

	for (unsigned int i = 0; i < iters; i++) {
		a = a * 0.9990234375f + b;
		b = b * 0.5f + 0.25f;
	}
	pad[threadIdx.x] = a;
	__syncwarp();
	out[blockIdx.x * blockDim.x + threadIdx.x] = pad[threadIdx.x] + b;
}
