// SPDX-License-Identifier: MIT
/*
 * rt_task.cu - the synthetic real-time task of "vgpu bench chimera" (Park,
 * dissertation, Ch. IV §4.4.1: launched periodically, it needs half the SMs
 * and "is executed for 200 us"). Not a workload of the suite.
 *
 * One warp per block spins until its SM's clock has advanced by @cycles
 * since the block started, so that a block runs for the same time however
 * the kernel it preempted loads the memory system, and the task's lateness
 * is its preemption latency (the deadline of §4.4.1 is the run time plus
 * the latency budget). The launch asks for so much dynamic shared memory
 * that each block fills an SM, so the grid takes exactly as many SMs as it
 * has blocks.
 */

extern "C" __global__ void rt_spin(unsigned int cycles, float *out)
{
	extern __shared__ float pad[];
	long long t0 = clock64();
	float a = threadIdx.x, b = 1.0f;

	while (clock64() - t0 < (long long)cycles) {
		a = a * 0.9990234375f + b;
		b = b * 0.5f + 0.25f;
	}
	pad[threadIdx.x] = a;
	__syncwarp();
	out[blockIdx.x * blockDim.x + threadIdx.x] = pad[threadIdx.x] + b;
}
