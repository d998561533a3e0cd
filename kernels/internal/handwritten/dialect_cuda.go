package handwritten

// cudaSource is the built-in ops in CUDA C++ for NVRTC: one extern "C"
// __global__ function per op, named as the op, parameters in Params order
// (buffers as float pointers, n/m/k/rows/cols as unsigned, scalars as float).
//
// Semantics are those of the Go kernels (gokernels.go): every op is correct
// for any grid and block; the 1-D ops use x only (groups or threads with a y
// or z index do nothing) and loop grid-stride; reductions write one partial
// sum per group; sgemm never reads C when beta is 0.
//
// Speed:
//   - element-wise ops move float4s (16-byte loads and stores) when every
//     buffer is 16-byte aligned, which device allocations are; a grid-stride
//     launch has each thread take float4s four strides at a time, the loads
//     of all four issued before the first store (8 independent 16-byte loads
//     in flight per thread for saxpy); a launch of one thread per element
//     spreads the float4s so that every group has work; otherwise element by
//     element. Other spreads are kept behind ANYGPU_CUDA_EW_MODE for
//     measurement.
//   - reduce_sum and dot keep four float4 loads in flight per thread, sum in
//     registers, then across the block with warp shuffles (any block size).
//   - transpose goes through a padded 32×33 shared-memory tile.
//   - sgemm computes 128×128 tiles of C with 256 threads, 8×8 results per
//     thread held in registers, A and B staged through double-buffered shared
//     memory 16 deep in k (A transposed, so both are read as float4), the
//     next tiles' global loads issued before the current ones' arithmetic.
//     Tiles are spread over the launch's groups grid-stride, grouped 8 tile
//     rows at a time for L2 reuse, so any grid works; a launch whose blocks
//     do not have exactly 256 threads takes a simple path, one thread per
//     element of C. Blocks of up to 512 threads are accepted (the kernel is
//     limited to 128 registers per thread).
const cudaSource = `
// anygpu built-in kernels, CUDA dialect.

typedef unsigned long long u64;

__device__ __forceinline__ bool aligned16(const void* p) { return ((u64)p & 15) == 0; }
__device__ __forceinline__ float4 mk4(float a, float b, float c, float d) { float4 r; r.x = a; r.y = b; r.z = c; r.w = d; return r; }
__device__ __forceinline__ unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }

// ANYGPU_CUDA_EW_MODE picks how element-wise ops spread float4s over the
// threads (a tuning switch, measured on an H200 with TestKernelSweep in
// backend/cuda; saxpy over 64 Mi floats, GB/s, one run, grids of 8 or 16
// groups of 256 per SM, n/1024 and n/256 groups of 256):
//   7 (default): with no more threads than float4s (a grid-stride launch),
//      mode 3; with more (one thread per element), mode 2's spread, so that
//      every group has work;
//   3: float4 index i for global thread i, grid-stride, unrolled four
//      strides deep with every load issued before the first store
//      (3948 / 3998 / 4191 / 2528);
//   4: as 3, with streaming cache hints, ld/st.global.cs
//      (3938 / 3981 / 4189 / 2601);
//   6: tiles of 4·blockDim.x float4s per group, grid-stride over tiles,
//      with the hints; mode 2's spread for one thread per element
//      (3818 / 4023 / 4237 / 3161);
//   2: each group keeps the chunks of blockDim.x elements the grid-stride
//      semantics give it and moves each as blockDim.x/4 float4s, four chunks
//      at a time (3937 / 3919 / 4162 / 3839);
//   0: float4 index i for global thread i, grid-stride, one at a time;
//   1: one float per thread, grid-stride.
// PyTorch's y.add_(x, alpha=2) ran at 4154 in the same run.
#ifndef ANYGPU_CUDA_EW_MODE
#define ANYGPU_CUDA_EW_MODE 7
#endif

#if ANYGPU_CUDA_EW_MODE == 4 || ANYGPU_CUDA_EW_MODE == 6
__device__ __forceinline__ float4 ld4(const float4* p) { return __ldcs(p); }
__device__ __forceinline__ void st4(float4* p, float4 v) { __stcs(p, v); }
#else
__device__ __forceinline__ float4 ld4(const float4* p) { return *p; }
__device__ __forceinline__ void st4(float4* p, float4 v) { *p = v; }
#endif

// ewu runs out[i] = op(a[i], b[i]) over n elements, for NIN inputs (0, 1 or
// 2; a missing input reads as zeros): the float4 paths of modes 3, 4, 6 and
// 7 when every buffer is 16-byte aligned, else one float at a time. 1-D: only
// x indices work. Every element is read and then written by one thread, so
// out may be one of the inputs.
template <int NIN, typename Op4, typename Op1>
__device__ __forceinline__ void ewu(float* out, const float* a, const float* b, unsigned n, Op4 op4, Op1 op1) {
	if (threadIdx.y | threadIdx.z | blockIdx.y | blockIdx.z) return;
	const u64 B = blockDim.x, G = gridDim.x, S = G * B;
	const u64 t = (u64)blockIdx.x * B + threadIdx.x;
	u64 start = 0;
	if (aligned16(out) && (NIN < 1 || aligned16(a)) && (NIN < 2 || aligned16(b))) {
		const u64 n4 = n >> 2;
		float4* o4 = reinterpret_cast<float4*>(out);
		const float4* a4 = reinterpret_cast<const float4*>(a);
		const float4* b4 = reinterpret_cast<const float4*>(b);
		const float4 z = mk4(0, 0, 0, 0);
		auto one = [&](u64 i) { st4(o4 + i, op4(NIN > 0 ? ld4(a4 + i) : z, NIN > 1 ? ld4(b4 + i) : z)); };
		constexpr int U = 4;
#if ANYGPU_CUDA_EW_MODE == 6 || ANYGPU_CUDA_EW_MODE == 7
		if (S > n4 && (B & 3) == 0) {
			// More threads than float4s: mode 2's spread. Chunk c of B
			// elements goes to group c % G, quarter (c / G) % 4 of its threads.
			const u64 q = B >> 2, sub = threadIdx.x / q, lane = threadIdx.x - sub * q;
			for (u64 base = (u64)blockIdx.x * B + sub * S; base < n; base += 4 * S) {
				u64 e = base + 4 * lane;
				if (e + 3 < n) {
					one(e >> 2);
				} else {
					for (; e < n; e++) out[e] = op1(NIN > 0 ? a[e] : 0.0f, NIN > 1 ? b[e] : 0.0f);
				}
			}
			return;
		}
#endif
#if ANYGPU_CUDA_EW_MODE == 6
		// Tiles of U·B float4s, tile k to group k % G, in whole rounds of G
		// tiles (every group the same number), then the rest float4 by float4.
		const u64 TB = U * B, rounds = n4 / (G * TB);
		for (u64 tile = blockIdx.x; tile < rounds * G; tile += G) {
			const u64 base = tile * TB + threadIdx.x;
			float4 x[U], y[U];
			#pragma unroll
			for (int u = 0; u < U; u++) {
				x[u] = NIN > 0 ? ld4(a4 + base + u * B) : z;
				y[u] = NIN > 1 ? ld4(b4 + base + u * B) : z;
			}
			#pragma unroll
			for (int u = 0; u < U; u++) st4(o4 + base + u * B, op4(x[u], y[u]));
		}
		for (u64 i = rounds * G * TB + t; i < n4; i += S) one(i);
#else
		u64 i = t;
		for (; i + (U - 1) * S < n4; i += U * S) {
			float4 x[U], y[U];
			#pragma unroll
			for (int u = 0; u < U; u++) {
				x[u] = NIN > 0 ? ld4(a4 + i + u * S) : z;
				y[u] = NIN > 1 ? ld4(b4 + i + u * S) : z;
			}
			#pragma unroll
			for (int u = 0; u < U; u++) st4(o4 + i + u * S, op4(x[u], y[u]));
		}
		for (; i < n4; i += S) one(i);
#endif
		start = n4 << 2;
	}
	for (u64 i = start + t; i < n; i += S) out[i] = op1(NIN > 0 ? a[i] : 0.0f, NIN > 1 ? b[i] : 0.0f);
}

#define EW_UNROLLED (ANYGPU_CUDA_EW_MODE >= 3)


// ew runs an element-wise op: f4 over float4 index i when vec, f1 over
// single elements. 1-D: only x indices work.
template <typename F4, typename F1>
__device__ __forceinline__ void ew(unsigned n, bool vec, F4 f4, F1 f1) {
	if (threadIdx.y | threadIdx.z | blockIdx.y | blockIdx.z) return;
	const u64 B = blockDim.x, G = gridDim.x;
#if ANYGPU_CUDA_EW_MODE == 2
	if (vec && (B & 3) == 0) {
		const u64 q = B >> 2, sub = threadIdx.x / q, lane = threadIdx.x - sub * q;
		for (u64 base = (u64)blockIdx.x * B + sub * G * B; base < n; base += 4 * G * B) {
			u64 e = base + 4 * lane;
			if (e + 3 < n) {
				f4(e >> 2);
			} else {
				for (; e < n; e++) f1(e);
			}
		}
		return;
	}
#elif ANYGPU_CUDA_EW_MODE == 1
	vec = false;
#endif
	u64 t = (u64)blockIdx.x * B + threadIdx.x;
	u64 stride = G * B;
	u64 start = 0;
	if (vec) {
		u64 n4 = n >> 2;
		for (u64 i = t; i < n4; i += stride) f4(i);
		start = n4 << 2;
	}
	for (u64 i = start + t; i < n; i += stride) f1(i);
}

extern "C" __global__ void fill(float* y, unsigned n, float value) {
	float4 v = mk4(value, value, value, value);
#if EW_UNROLLED
	ewu<0>(y, nullptr, nullptr, n, [&](float4, float4) { return v; }, [&](float, float) { return value; });
#else
	ew(n, aligned16(y),
		[&](u64 i) { reinterpret_cast<float4*>(y)[i] = v; },
		[&](u64 i) { y[i] = value; });
#endif
}

extern "C" __global__ void copy(float* y, const float* x, unsigned n) {
#if EW_UNROLLED
	ewu<1>(y, x, nullptr, n, [&](float4 u, float4) { return u; }, [&](float u, float) { return u; });
#else
	ew(n, aligned16(y) && aligned16(x),
		[&](u64 i) { reinterpret_cast<float4*>(y)[i] = reinterpret_cast<const float4*>(x)[i]; },
		[&](u64 i) { y[i] = x[i]; });
#endif
}

extern "C" __global__ void scale(float* y, const float* x, unsigned n, float a) {
#if EW_UNROLLED
	ewu<1>(y, x, nullptr, n,
		[&](float4 v, float4) { return mk4(a * v.x, a * v.y, a * v.z, a * v.w); },
		[&](float v, float) { return a * v; });
#else
	ew(n, aligned16(y) && aligned16(x),
		[&](u64 i) {
			float4 v = reinterpret_cast<const float4*>(x)[i];
			reinterpret_cast<float4*>(y)[i] = mk4(a * v.x, a * v.y, a * v.z, a * v.w);
		},
		[&](u64 i) { y[i] = a * x[i]; });
#endif
}

extern "C" __global__ void axpy(float* y, const float* x, unsigned n, float a) {
#if EW_UNROLLED
	ewu<2>(y, x, y, n,
		[&](float4 v, float4 w) { return mk4(fmaf(a, v.x, w.x), fmaf(a, v.y, w.y), fmaf(a, v.z, w.z), fmaf(a, v.w, w.w)); },
		[&](float v, float w) { return fmaf(a, v, w); });
#else
	ew(n, aligned16(y) && aligned16(x),
		[&](u64 i) {
			float4 v = reinterpret_cast<const float4*>(x)[i];
			float4 w = reinterpret_cast<float4*>(y)[i];
			reinterpret_cast<float4*>(y)[i] = mk4(fmaf(a, v.x, w.x), fmaf(a, v.y, w.y), fmaf(a, v.z, w.z), fmaf(a, v.w, w.w));
		},
		[&](u64 i) { y[i] = fmaf(a, x[i], y[i]); });
#endif
}

extern "C" __global__ void add(float* z, const float* x, const float* y, unsigned n) {
#if EW_UNROLLED
	ewu<2>(z, x, y, n,
		[&](float4 u, float4 v) { return mk4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w); },
		[&](float u, float v) { return u + v; });
#else
	ew(n, aligned16(z) && aligned16(x) && aligned16(y),
		[&](u64 i) {
			float4 u = reinterpret_cast<const float4*>(x)[i];
			float4 v = reinterpret_cast<const float4*>(y)[i];
			reinterpret_cast<float4*>(z)[i] = mk4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
		},
		[&](u64 i) { z[i] = x[i] + y[i]; });
#endif
}

extern "C" __global__ void mul(float* z, const float* x, const float* y, unsigned n) {
#if EW_UNROLLED
	ewu<2>(z, x, y, n,
		[&](float4 u, float4 v) { return mk4(u.x * v.x, u.y * v.y, u.z * v.z, u.w * v.w); },
		[&](float u, float v) { return u * v; });
#else
	ew(n, aligned16(z) && aligned16(x) && aligned16(y),
		[&](u64 i) {
			float4 u = reinterpret_cast<const float4*>(x)[i];
			float4 v = reinterpret_cast<const float4*>(y)[i];
			reinterpret_cast<float4*>(z)[i] = mk4(u.x * v.x, u.y * v.y, u.z * v.z, u.w * v.w);
		},
		[&](u64 i) { z[i] = x[i] * y[i]; });
#endif
}

// warp_sum adds v over the first lanes lanes of the warp (the others do not
// exist); lane 0 gets the total.
__device__ __forceinline__ float warp_sum(float v, unsigned lane, unsigned lanes) {
	unsigned mask = lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u);
	#pragma unroll
	for (unsigned off = 16; off > 0; off >>= 1) {
		float o = __shfl_down_sync(mask, v, off);
		if (lane + off < lanes) v += o;
	}
	return v;
}

// block_sum adds v over every thread of the block, any block size; thread 0
// gets the total. Every thread must call it.
__device__ float block_sum(float v) {
	__shared__ float partial[32];
	unsigned nt = blockDim.x * blockDim.y * blockDim.z;
	unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	unsigned warp = tid >> 5, lane = tid & 31;
	unsigned nw = (nt + 31) >> 5;
	v = warp_sum(v, lane, umin(32u, nt - (warp << 5)));
	if (lane == 0) partial[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < nw ? partial[lane] : 0.0f;
		v = warp_sum(v, lane, umin(32u, nt));
	}
	return v;
}

// reduce1 is reduce_sum (y == nullptr) or dot: group g writes the sum of its
// grid-stride share to out[g].
__device__ __forceinline__ void reduce1(float* out, const float* x, const float* y, unsigned n) {
	if (blockIdx.y | blockIdx.z) return; // the whole group does nothing
	float s = 0.0f;
	if ((threadIdx.y | threadIdx.z) == 0) {
		u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x;
		u64 stride = (u64)gridDim.x * blockDim.x;
		u64 start = 0;
		if (aligned16(x) && (y == nullptr || aligned16(y))) {
			const float4* x4 = reinterpret_cast<const float4*>(x);
			const float4* y4 = reinterpret_cast<const float4*>(y);
			u64 n4 = n >> 2;
			float4 a0 = mk4(0, 0, 0, 0), a1 = a0, a2 = a0, a3 = a0;
			u64 i = t;
			if (y == nullptr) {
				for (; i + 3 * stride < n4; i += 4 * stride) {
					float4 p = x4[i], q = x4[i + stride], r = x4[i + 2 * stride], u = x4[i + 3 * stride];
					a0.x += p.x; a0.y += p.y; a0.z += p.z; a0.w += p.w;
					a1.x += q.x; a1.y += q.y; a1.z += q.z; a1.w += q.w;
					a2.x += r.x; a2.y += r.y; a2.z += r.z; a2.w += r.w;
					a3.x += u.x; a3.y += u.y; a3.z += u.z; a3.w += u.w;
				}
				for (; i < n4; i += stride) {
					float4 p = x4[i];
					a0.x += p.x; a0.y += p.y; a0.z += p.z; a0.w += p.w;
				}
			} else {
				for (; i + stride < n4; i += 2 * stride) {
					float4 p = x4[i], q = x4[i + stride], u = y4[i], v = y4[i + stride];
					a0.x = fmaf(p.x, u.x, a0.x); a0.y = fmaf(p.y, u.y, a0.y); a0.z = fmaf(p.z, u.z, a0.z); a0.w = fmaf(p.w, u.w, a0.w);
					a1.x = fmaf(q.x, v.x, a1.x); a1.y = fmaf(q.y, v.y, a1.y); a1.z = fmaf(q.z, v.z, a1.z); a1.w = fmaf(q.w, v.w, a1.w);
				}
				for (; i < n4; i += stride) {
					float4 p = x4[i], u = y4[i];
					a0.x = fmaf(p.x, u.x, a0.x); a0.y = fmaf(p.y, u.y, a0.y); a0.z = fmaf(p.z, u.z, a0.z); a0.w = fmaf(p.w, u.w, a0.w);
				}
			}
			s = ((a0.x + a0.y) + (a0.z + a0.w)) + ((a1.x + a1.y) + (a1.z + a1.w)) +
			    ((a2.x + a2.y) + (a2.z + a2.w)) + ((a3.x + a3.y) + (a3.z + a3.w));
			start = n4 << 2;
		}
		for (u64 i = start + t; i < n; i += stride) s += y == nullptr ? x[i] : x[i] * y[i];
	}
	s = block_sum(s); // reads of x are done before out is written (out may be x)
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) out[blockIdx.x] = s;
}

extern "C" __global__ void reduce_sum(float* out, const float* x, unsigned n) { reduce1(out, x, nullptr, n); }

extern "C" __global__ void dot(float* out, const float* x, const float* y, unsigned n) { reduce1(out, x, y, n); }

extern "C" __global__ void transpose(float* out, const float* in, unsigned rows, unsigned cols) {
	if (blockIdx.z) return;
	__shared__ float tile[32][33];
	bool active = threadIdx.z == 0;
	unsigned tilesX = (cols + 31) / 32, tilesY = (rows + 31) / 32;
	for (unsigned ty = blockIdx.y; ty < tilesY; ty += gridDim.y) {
		for (unsigned tx = blockIdx.x; tx < tilesX; tx += gridDim.x) {
			unsigned r0 = ty * 32, c0 = tx * 32;
			if (active) {
				for (unsigned i = threadIdx.y; i < 32; i += blockDim.y)
					for (unsigned j = threadIdx.x; j < 32; j += blockDim.x) {
						unsigned r = r0 + i, c = c0 + j;
						if (r < rows && c < cols) tile[i][j] = in[(u64)r * cols + c];
					}
			}
			__syncthreads();
			if (active) {
				for (unsigned i = threadIdx.y; i < 32; i += blockDim.y)
					for (unsigned j = threadIdx.x; j < 32; j += blockDim.x) {
						unsigned c = c0 + i, r = r0 + j; // out[c][r] = in[r][c]
						if (r < rows && c < cols) out[(u64)c * rows + r] = tile[j][i];
					}
			}
			__syncthreads();
		}
	}
}

// ---- sgemm ----

#define SG_BM 128
#define SG_BN 128
#define SG_BK 16
#define SG_APAD 4
#define SG_GROUP 8

// sgemm_simple: one thread per element of C, grid-stride, for launches whose
// blocks do not have 256 threads.
__device__ void sgemm_simple(float* C, const float* A, const float* B, unsigned m, unsigned n, unsigned k, float alpha, float beta) {
	if (threadIdx.z | blockIdx.z) return;
	for (unsigned i = blockIdx.y * blockDim.y + threadIdx.y; i < m; i += gridDim.y * blockDim.y) {
		for (unsigned j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
			float acc = 0.0f;
			const float* a = A + (u64)i * k;
			for (unsigned p = 0; p < k; p++) acc = fmaf(a[p], B[(u64)p * n + j], acc);
			float* c = C + (u64)i * n + j;
			*c = beta == 0.0f ? alpha * acc : fmaf(alpha, acc, beta * *c);
		}
	}
}

extern "C" __global__ void __launch_bounds__(512) sgemm(float* C, const float* A, const float* B,
		unsigned m, unsigned n, unsigned k, float alpha, float beta) {
	if (blockDim.x * blockDim.y * blockDim.z != 256) {
		sgemm_simple(C, A, B, m, n, k, alpha, beta);
		return;
	}
	if (blockIdx.z) return;
	__shared__ __align__(16) float As[2][SG_BK][SG_BM + SG_APAD];
	__shared__ __align__(16) float Bs[2][SG_BK][SG_BN];

	const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	const unsigned tx = tid & 15, ty = tid >> 4; // this thread's 8x8: rows ty*4+{0..3}, 64+ty*4+{0..3}; cols likewise with tx
	const bool vecA = (k & 3) == 0 && aligned16(A);
	const bool vecB = (n & 3) == 0 && aligned16(B);
	const bool vecC = (n & 3) == 0 && aligned16(C);
	const unsigned tilesM = (m + SG_BM - 1) / SG_BM, tilesN = (n + SG_BN - 1) / SG_BN;
	const unsigned tiles = tilesM * tilesN;
	const unsigned ktiles = (k + SG_BK - 1) / SG_BK;
	const unsigned groups = gridDim.x * gridDim.y;

	// What this thread loads of each tile: A rows aRow and aRow+64 at column
	// aCol..aCol+3; B rows bRow and bRow+8 at columns bCol..bCol+3.
	const unsigned aRow = tid >> 2, aCol = (tid & 3) << 2;
	const unsigned bRow = tid >> 5, bCol = (tid & 31) << 2;

	for (unsigned t = blockIdx.y * gridDim.x + blockIdx.x; t < tiles; t += groups) {
		// Grouped order: SG_GROUP tile rows side by side share B in L2.
		unsigned inGroup = SG_GROUP * tilesN;
		unsigned first = (t / inGroup) * SG_GROUP;
		unsigned gsize = umin(tilesM - first, SG_GROUP);
		unsigned tm = first + (t % inGroup) % gsize;
		unsigned tn = (t % inGroup) / gsize;
		unsigned row0 = tm * SG_BM, col0 = tn * SG_BN;

		float acc[8][8];
		#pragma unroll
		for (int i = 0; i < 8; i++)
			#pragma unroll
			for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

		float4 ra[2], rb[2];
		auto loadA = [&](unsigned k0) {
			#pragma unroll
			for (int h = 0; h < 2; h++) {
				unsigned r = row0 + aRow + h * 64, c = k0 + aCol;
				if (vecA) {
					ra[h] = (r < m && c < k) ? *reinterpret_cast<const float4*>(A + (u64)r * k + c) : mk4(0, 0, 0, 0);
				} else {
					const float* a = A + (u64)r * k;
					bool ok = r < m;
					ra[h].x = ok && c < k ? a[c] : 0.0f;
					ra[h].y = ok && c + 1 < k ? a[c + 1] : 0.0f;
					ra[h].z = ok && c + 2 < k ? a[c + 2] : 0.0f;
					ra[h].w = ok && c + 3 < k ? a[c + 3] : 0.0f;
				}
			}
		};
		auto loadB = [&](unsigned k0) {
			#pragma unroll
			for (int h = 0; h < 2; h++) {
				unsigned r = k0 + bRow + h * 8, c = col0 + bCol;
				if (vecB) {
					rb[h] = (r < k && c < n) ? *reinterpret_cast<const float4*>(B + (u64)r * n + c) : mk4(0, 0, 0, 0);
				} else {
					const float* b = B + (u64)r * n;
					bool ok = r < k;
					rb[h].x = ok && c < n ? b[c] : 0.0f;
					rb[h].y = ok && c + 1 < n ? b[c + 1] : 0.0f;
					rb[h].z = ok && c + 2 < n ? b[c + 2] : 0.0f;
					rb[h].w = ok && c + 3 < n ? b[c + 3] : 0.0f;
				}
			}
		};
		auto store = [&](int buf) {
			#pragma unroll
			for (int h = 0; h < 2; h++) {
				unsigned r = aRow + h * 64;
				As[buf][aCol + 0][r] = ra[h].x;
				As[buf][aCol + 1][r] = ra[h].y;
				As[buf][aCol + 2][r] = ra[h].z;
				As[buf][aCol + 3][r] = ra[h].w;
				*reinterpret_cast<float4*>(&Bs[buf][bRow + h * 8][bCol]) = rb[h];
			}
		};

		if (ktiles > 0) {
			loadA(0);
			loadB(0);
			store(0);
			__syncthreads();
		}
		for (unsigned kt = 0; kt < ktiles; kt++) {
			const int cur = kt & 1;
			const bool more = kt + 1 < ktiles;
			if (more) {
				loadA((kt + 1) * SG_BK);
				loadB((kt + 1) * SG_BK);
			}
			#pragma unroll
			for (int kk = 0; kk < SG_BK; kk++) {
				float4 a0 = *reinterpret_cast<const float4*>(&As[cur][kk][ty * 4]);
				float4 a1 = *reinterpret_cast<const float4*>(&As[cur][kk][64 + ty * 4]);
				float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][kk][tx * 4]);
				float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][kk][64 + tx * 4]);
				float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
				float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
				#pragma unroll
				for (int i = 0; i < 8; i++)
					#pragma unroll
					for (int j = 0; j < 8; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
			}
			if (more) store(cur ^ 1);
			__syncthreads();
		}

		// C = alpha*acc + beta*C; C is not read when beta is 0.
		#pragma unroll
		for (int i = 0; i < 8; i++) {
			unsigned r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
			if (r >= m) continue;
			float* crow = C + (u64)r * n;
			#pragma unroll
			for (int h = 0; h < 2; h++) {
				unsigned c = col0 + h * 64 + tx * 4;
				float v[4];
				#pragma unroll
				for (int j = 0; j < 4; j++) v[j] = alpha * acc[i][h * 4 + j];
				if (vecC && c < n) {
					float4* p = reinterpret_cast<float4*>(crow + c);
					if (beta != 0.0f) {
						float4 o = *p;
						v[0] = fmaf(beta, o.x, v[0]); v[1] = fmaf(beta, o.y, v[1]); v[2] = fmaf(beta, o.z, v[2]); v[3] = fmaf(beta, o.w, v[3]);
					}
					*p = mk4(v[0], v[1], v[2], v[3]);
				} else {
					#pragma unroll
					for (int j = 0; j < 4; j++) {
						if (c + j < n) crow[c + j] = beta == 0.0f ? v[j] : fmaf(beta, crow[c + j], v[j]);
					}
				}
			}
		}
	}
}
`
