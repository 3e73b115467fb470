/*
 * regbank.cu - integer multiply-add chains whose three source operands
 * share a register bank.
 *
 * Stands for the register-file-bound kernels of the sub-core paper (seed
 * 002, Sec. II and VI-B: "applications highly sensitive to register file
 * throughput"). Each thread keeps eight 32-bit values v0..v7 live in
 * registers and updates them, rounds times, with three-source IMADs: eight
 * t from the v, then eight new v from the t, each of three values. The
 * project's compiler allocates registers by linear scan, lowest free
 * first, so the v and, in the order they are defined, the t sit in
 * consecutive registers; the operand triples are chosen so that the three
 * registers of an IMAD have the same parity (the even-indexed t and v
 * first, then the odd), and four IMADs in a row read the same parity. With
 * two banks per sub-core (bank (reg + warp slot) mod 2) an IMAD reads its
 * three operands from one bank one after another, and the next three
 * IMADs queue at that bank while the other idles; with the eight banks of
 * a fully connected SM the three operands fall in three banks. A
 * shift-xor every round keeps the low bits from running to zero. Class
 * COM. out[t] = v0 ^ v1 ^ ... ^ v7 of thread t after @rounds rounds, from
 * in[8t .. 8t+7].
 */
extern "C" __global__ void regbank(const unsigned int *in, unsigned int *out, int n,
				   int rounds)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int v0, v1, v2, v3, v4, v5, v6, v7;

	if (t >= n)
		return;
	v0 = in[8 * t + 0];
	v1 = in[8 * t + 1];
	v2 = in[8 * t + 2];
	v3 = in[8 * t + 3];
	v4 = in[8 * t + 4];
	v5 = in[8 * t + 5];
	v6 = in[8 * t + 6];
	v7 = in[8 * t + 7];
#pragma unroll 1
	for (int r = 0; r < rounds; r++) {
		unsigned int t0, t1, t2, t3, t4, t5, t6, t7;

		t0 = v0 * v2 + v4;
		t2 = v2 * v4 + v6;
		t4 = v4 * v6 + v0;
		t6 = v6 * v0 + v2;
		t1 = v1 * v3 + v5;
		t3 = v3 * v5 + v7;
		t5 = v5 * v7 + v1;
		t7 = v7 * v1 + v3;
		v0 = t0 * t4 + t1;
		v1 = t4 * t1 + t5;
		v2 = t1 * t5 + t0;
		v3 = t5 * t0 + t4;
		v4 = t2 * t6 + t3;
		v5 = t6 * t3 + t7;
		v6 = t3 * t7 + t2;
		v7 = t7 * t2 + t6;
		v0 ^= v7 >> 11;
	}
	out[t] = v0 ^ v1 ^ v2 ^ v3 ^ v4 ^ v5 ^ v6 ^ v7;
}
