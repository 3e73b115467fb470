/*
 * backprop.cu - the two kernels of one training step of a fully connected
 * layer (n inputs, 16 hidden units).
 *
 * Stands for Rodinia "backprop" (BP in Tables 4.2 and 5.3; class COM):
 *   bp_forward  16 x 16 threads per block, one block per 16 inputs: the
 *               products w[i][j] * in[i] go to shared memory and a tree
 *               over the 16 inputs (__fadd_rn, strides 1, 2, 4, 8) leaves
 *               one partial sum per hidden unit and block in partial[];
 *               the host adds the partials and applies the activation
 *               (bpnn_layerforward);
 *   bp_adjust   one thread per weight: dw = eta * delta[j] * in[i] +
 *               momentum * olddw, w += dw, olddw = dw, with fmaf in a fixed
 *               order (bpnn_adjust_weights; it overwrites the weights it
 *               reads: not idempotent).
 * The CPU reference repeats the same operations: bit-exact.
 */
#define H 16

extern "C" __global__ void bp_forward(const float *in, const float *w,
				      float *partial, unsigned int n)
{
	__shared__ float s[H][H];
	unsigned int tx = threadIdx.x, ty = threadIdx.y;
	unsigned int i = blockIdx.x * H + ty;

	s[ty][tx] = i < n ? __fmul_rn(w[i * H + tx], in[i]) : 0.0f;
	__syncthreads();
	/* Not unrolled: nvcc's unrolled form moves a predicate immediate. */
#pragma unroll 1
	for (unsigned int st = 1; st < H; st *= 2) {
		if ((ty & (2 * st - 1)) == 0)
			s[ty][tx] = __fadd_rn(s[ty][tx], s[ty + st][tx]);
		__syncthreads();
	}
	if (ty == 0)
		partial[blockIdx.x * H + tx] = s[0][tx];
}

extern "C" __global__ void bp_adjust(const float *in, const float *delta,
				     float *w, float *olddw, unsigned int n,
				     float eta, float momentum)
{
	unsigned int tx = threadIdx.x;
	unsigned int i = blockIdx.x * blockDim.y + threadIdx.y;
	unsigned int idx = i * H + tx;
	float dw;

	if (i >= n)
		return;
	dw = fmaf(__fmul_rn(eta, delta[tx]), in[i], __fmul_rn(momentum, olddw[idx]));
	w[idx] = __fadd_rn(w[idx], dw);
	olddw[idx] = dw;
}
