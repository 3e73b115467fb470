// Kernels for test_spill.c (userspace/tests/ptx/spill.ptx is their
// nvcc -ptx -O3 -arch=sm_75 output).

// pred_many: an unrolled loop whose 16 comparisons are all live at once
// (-O3 computes them before the selects that use them).
extern "C" __global__ void pred_many(const int *in, int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	int v = in[t];
	bool c[16];
#pragma unroll
	for (int i = 0; i < 16; i++)
		c[i] = v > in[n + i];
	int acc = v;
#pragma unroll
	for (int i = 0; i < 16; i++)
		acc = c[15 - i] ? acc * 3 + i : acc ^ (i << 4);
	out[t] = acc;
}

// acc_many: 96 live accumulators across a loop (about 100 registers).
#define NACC 96
extern "C" __global__ void acc_many(const unsigned *in, unsigned *out, int n)
{
	unsigned a[NACC];
	int t = threadIdx.x;
#pragma unroll
	for (int k = 0; k < NACC; k++)
		a[k] = in[t] + k * 0x9e3779b9u;
	for (int i = 0; i < n; i++) {
		unsigned x = in[(t + i) & 255];
#pragma unroll
		for (int k = 0; k < NACC; k++)
			a[k] = (a[k] ^ x) * 2654435761u + (a[(k + 1) % NACC] >> 3);
	}
#pragma unroll
	for (int k = 0; k < NACC; k++)
		out[t * NACC + k] = a[k];
}
