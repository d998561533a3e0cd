package handwritten

// glslSource is the built-in ops in GLSL 430 for OpenGL: one text, compiled
// once per op with "#define ANYGPU_KERNEL_<op> 1" after the #version line.
// Buffers are std430 storage blocks at bindings 0..b-1 in argument order; the
// scalars are a std140 uniform block at binding b (the portable ABI).
//
// The work-group size follows the launch: each kernel declares
// local_size = ANYGPU_BLOCK_X/Y/Z, defaulting to 256×1×1 for the 1-D ops and
// 16×16×1 for transpose and sgemm, and the OpenGL backend builds a variant
// per launch block size (backend/opengl). Every loop is grid-stride and
// overflow-free, so any grid and block give the Go kernels' results; in a
// 1-D op, work items with a y or z index other than 0 do nothing, as in
// gokernels.go.
//
// Fast paths: the element-wise ops and the reductions move whole vec4s (one
// work item a vec4, then grid-stride), the last n%4 elements through a float
// view of the same binding; reduce_sum and dot then sum per group in shared
// memory. transpose goes through a padded shared tile when the block is
// square. sgemm computes a (BY·TM)×(BX·TN) tile of C per group from shared
// tiles of A and B, TM×TN elements per work item in registers (8×8 when
// BX+BY <= 48, 4×4 when BX+BY <= 96, else one element per work item without
// tiles); with beta 0 it never reads C.
const glslSource = `#version 430
// anygpu built-in kernels: GLSL 430 compute (see kernels/dialect_glsl.go).

#if defined(ANYGPU_KERNEL_transpose) || defined(ANYGPU_KERNEL_sgemm)
#define ANYGPU_DEFAULT_X 16
#define ANYGPU_DEFAULT_Y 16
#else
#define ANYGPU_DEFAULT_X 256
#define ANYGPU_DEFAULT_Y 1
#endif
#ifndef ANYGPU_BLOCK_X
#define ANYGPU_BLOCK_X ANYGPU_DEFAULT_X
#endif
#ifndef ANYGPU_BLOCK_Y
#define ANYGPU_BLOCK_Y ANYGPU_DEFAULT_Y
#endif
#ifndef ANYGPU_BLOCK_Z
#define ANYGPU_BLOCK_Z 1
#endif
#define BX ANYGPU_BLOCK_X
#define BY ANYGPU_BLOCK_Y
layout(local_size_x = ANYGPU_BLOCK_X, local_size_y = ANYGPU_BLOCK_Y, local_size_z = ANYGPU_BLOCK_Z) in;

const uint UMAX = 0xFFFFFFFFu;

// satMul is a*b, saturated at UMAX.
uint satMul(uint a, uint b) { return (b != 0u && a > UMAX / b) ? UMAX : a * b; }

// advance returns v+s, or lim when that reaches lim (v < lim): loops never
// overflow.
uint advance(uint v, uint s, uint lim) { return (lim - v <= s) ? lim : v + s; }

// vec1 starts a 1-D grid-stride loop over the n4 = n/4 whole vec4s of n
// elements: j is this work item's first vec4 and stride the grid's width
// (its number of work items), cut to n4+1 so that j + 2*stride never
// overflows; the loop "for (; j < n4; j += stride)" then visits every vec4
// exactly once over all work items, and exactly one work item leaves it with
// j == n4: that one handles the scalar tail 4*n4 .. n-1. It returns false for
// a work item whose y or z index is not 0, or whose index does not fit in 32
// bits (it has nothing to do).
bool vec1(uint n4, out uint j, out uint stride) {
	uint b = gl_WorkGroupSize.x;
	j = 0u;
	stride = 0u;
	if (gl_LocalInvocationID.y != 0u || gl_LocalInvocationID.z != 0u ||
		gl_WorkGroupID.y != 0u || gl_WorkGroupID.z != 0u || gl_WorkGroupID.x > UMAX / b - 1u) {
		return false;
	}
	j = gl_WorkGroupID.x * b + gl_LocalInvocationID.x;
	stride = min(satMul(gl_NumWorkGroups.x, b), n4 + 1u);
	return true;
}

// fits reports whether r*c elements fit in l, without overflowing.
bool fits(uint l, uint r, uint c) { return r == 0u || c <= l / r; }

// ---------------------------------------------------------------- element-wise
//
// Each op reads and writes whole vec4s (16-byte loads and stores: the buffers
// are bound at offset 0) through a vec4 view of its buffers, and the last
// n%4 elements through a float view of the same binding.

#ifdef ANYGPU_KERNEL_fill
layout(std430, binding = 0) writeonly buffer Y4 { vec4 y4[]; };
layout(std430, binding = 0) writeonly buffer Y { float y[]; };
layout(std140, binding = 1) uniform Params { uint n; float value; };
void main() {
	uint j, s, n4 = n >> 2;
	if (uint(y.length()) < n || !vec1(n4, j, s)) return;
	vec4 v = vec4(value);
	for (; j < n4; j += s) y4[j] = v;
	if (j == n4) for (uint i = 4u * n4; i < n; i++) y[i] = value;
}
#endif

#ifdef ANYGPU_KERNEL_copy
layout(std430, binding = 0) writeonly buffer Y4 { vec4 y4[]; };
layout(std430, binding = 0) writeonly buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std140, binding = 2) uniform Params { uint n; };
void main() {
	uint j, s, n4 = n >> 2;
	if (uint(y.length()) < n || uint(x.length()) < n || !vec1(n4, j, s)) return;
	for (; j < n4; j += s) y4[j] = x4[j];
	if (j == n4) for (uint i = 4u * n4; i < n; i++) y[i] = x[i];
}
#endif

#ifdef ANYGPU_KERNEL_scale
layout(std430, binding = 0) buffer Y4 { vec4 y4[]; };
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std140, binding = 2) uniform Params { uint n; float a; };
void main() {
	uint j, s, n4 = n >> 2;
	if (uint(y.length()) < n || uint(x.length()) < n || !vec1(n4, j, s)) return;
	for (; j < n4; j += s) y4[j] = a * x4[j];
	if (j == n4) for (uint i = 4u * n4; i < n; i++) y[i] = a * x[i];
}
#endif

#ifdef ANYGPU_KERNEL_axpy
layout(std430, binding = 0) buffer Y4 { vec4 y4[]; };
layout(std430, binding = 0) buffer Y { float y[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std140, binding = 2) uniform Params { uint n; float a; };
void main() {
	uint j, s, n4 = n >> 2;
	if (uint(y.length()) < n || uint(x.length()) < n || !vec1(n4, j, s)) return;
	for (; j < n4; j += s) y4[j] = a * x4[j] + y4[j];
	if (j == n4) for (uint i = 4u * n4; i < n; i++) y[i] = a * x[i] + y[i];
}
#endif

#ifdef ANYGPU_KERNEL_add
layout(std430, binding = 0) buffer Z4 { vec4 z4[]; };
layout(std430, binding = 0) buffer Z { float z[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Y4 { vec4 y4[]; };
layout(std430, binding = 2) readonly buffer Y { float y[]; };
layout(std140, binding = 3) uniform Params { uint n; };
void main() {
	uint j, s, n4 = n >> 2;
	if (uint(z.length()) < n || uint(x.length()) < n || uint(y.length()) < n || !vec1(n4, j, s)) return;
	for (; j < n4; j += s) z4[j] = x4[j] + y4[j];
	if (j == n4) for (uint i = 4u * n4; i < n; i++) z[i] = x[i] + y[i];
}
#endif

#ifdef ANYGPU_KERNEL_mul
layout(std430, binding = 0) buffer Z4 { vec4 z4[]; };
layout(std430, binding = 0) buffer Z { float z[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) readonly buffer Y4 { vec4 y4[]; };
layout(std430, binding = 2) readonly buffer Y { float y[]; };
layout(std140, binding = 3) uniform Params { uint n; };
void main() {
	uint j, s, n4 = n >> 2;
	if (uint(z.length()) < n || uint(x.length()) < n || uint(y.length()) < n || !vec1(n4, j, s)) return;
	for (; j < n4; j += s) z4[j] = x4[j] * y4[j];
	if (j == n4) for (uint i = 4u * n4; i < n; i++) z[i] = x[i] * y[i];
}
#endif

// ---------------------------------------------------------------- reductions

#if defined(ANYGPU_KERNEL_reduce_sum) || defined(ANYGPU_KERNEL_dot)
layout(std430, binding = 0) buffer Out { float sums[]; };
layout(std430, binding = 1) readonly buffer X4 { vec4 x4[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
#ifdef ANYGPU_KERNEL_dot
layout(std430, binding = 2) readonly buffer Y4 { vec4 y4[]; };
layout(std430, binding = 2) readonly buffer Y { float y[]; };
layout(std140, binding = 3) uniform Params { uint n; };
#define TERM4(j) (x4[j] * y4[j])
#define TERM(i) (x[i] * y[i])
#else
layout(std140, binding = 2) uniform Params { uint n; };
#define TERM4(j) (x4[j])
#define TERM(i) (x[i])
#endif

// P2 is the smallest power of two at least BX: the tree's width.
#if BX > 512
#define P2 1024
#elif BX > 256
#define P2 512
#elif BX > 128
#define P2 256
#elif BX > 64
#define P2 128
#elif BX > 32
#define P2 64
#elif BX > 16
#define P2 32
#elif BX > 8
#define P2 16
#elif BX > 4
#define P2 8
#elif BX > 2
#define P2 4
#elif BX > 1
#define P2 2
#else
#define P2 1
#endif

shared float partial[BX];

void main() {
	// Only the work items of row 0 and of groups in row 0 take part; every
	// work item reaches every barrier (uniform control flow).
	uint lane = gl_LocalInvocationID.x;
	bool row0 = gl_LocalInvocationID.y == 0u && gl_LocalInvocationID.z == 0u;
	bool group0 = gl_WorkGroupID.y == 0u && gl_WorkGroupID.z == 0u;
#ifdef ANYGPU_KERNEL_dot
	bool sized = uint(x.length()) >= n && uint(y.length()) >= n;
#else
	bool sized = uint(x.length()) >= n;
#endif
	float acc = 0.0;
	uint j, s, n4 = n >> 2;
	if (sized && vec1(n4, j, s)) {
		// Two vec4 sums in flight overlap the loads' latency.
		vec4 a0 = vec4(0.0), a1 = vec4(0.0);
		for (; j + s < n4; j += 2u * s) {
			a0 += TERM4(j);
			a1 += TERM4(j + s);
		}
		if (j < n4) {
			a0 += TERM4(j);
			j += s;
		}
		a0 += a1;
		acc = (a0.x + a0.y) + (a0.z + a0.w);
		if (j == n4) {
			for (uint i = 4u * n4; i < n; i++) acc += TERM(i);
		}
	}
	if (row0) {
		partial[lane] = acc;
	}
	memoryBarrierShared();
	barrier();
	for (uint w = uint(P2) / 2u; w > 0u; w >>= 1u) {
		if (row0 && lane < w && lane + w < uint(BX)) {
			partial[lane] += partial[lane + w];
		}
		memoryBarrierShared();
		barrier();
	}
	if (row0 && lane == 0u && group0 && sized && gl_WorkGroupID.x < uint(sums.length())) {
		sums[gl_WorkGroupID.x] = partial[0];
	}
}
#endif

// ---------------------------------------------------------------- transpose

#ifdef ANYGPU_KERNEL_transpose
layout(std430, binding = 0) writeonly buffer Out { float dst[]; };
layout(std430, binding = 1) readonly buffer In { float src[]; };
layout(std140, binding = 2) uniform Params { uint rows; uint cols; };

#if BX == BY && BX * (BX + 1) <= 4096
// A square block moves a BX×BX tile through shared memory, so both the reads
// of src and the writes of dst are along rows. The padding column keeps the
// column reads free of bank conflicts.
shared float tile[BX][BX + 1];
void main() {
	uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
	bool working = gl_LocalInvocationID.z == 0u;
	if (gl_WorkGroupID.z != 0u || !fits(uint(src.length()), rows, cols) || !fits(uint(dst.length()), rows, cols) ||
		rows == 0u || cols == 0u) {
		return; // uniform for the whole group
	}
	uint b = uint(BX);
	if (gl_WorkGroupID.y > (rows - 1u) / b || gl_WorkGroupID.x > (cols - 1u) / b) return;
	uint sr = satMul(gl_NumWorkGroups.y, b), sc = satMul(gl_NumWorkGroups.x, b);
	for (uint r0 = gl_WorkGroupID.y * b; r0 < rows; r0 = advance(r0, sr, rows)) {
		for (uint c0 = gl_WorkGroupID.x * b; c0 < cols; c0 = advance(c0, sc, cols)) {
			if (working && ly < rows - r0 && lx < cols - c0) {
				tile[ly][lx] = src[(r0 + ly) * cols + c0 + lx];
			}
			memoryBarrierShared();
			barrier();
			// dst row c0+ly is src column c0+ly; its element r0+lx is src row r0+lx.
			if (working && ly < cols - c0 && lx < rows - r0) {
				dst[(c0 + ly) * rows + r0 + lx] = tile[lx][ly];
			}
			barrier();
		}
	}
}
#else
void main() {
	if (gl_LocalInvocationID.z != 0u || gl_WorkGroupID.z != 0u ||
		!fits(uint(src.length()), rows, cols) || !fits(uint(dst.length()), rows, cols) || rows == 0u || cols == 0u) {
		return;
	}
	uint bx = gl_WorkGroupSize.x, by = gl_WorkGroupSize.y;
	if (gl_WorkGroupID.y > (rows - 1u) / by || gl_WorkGroupID.x > (cols - 1u) / bx) return;
	uint r0 = gl_WorkGroupID.y * by, c0 = gl_WorkGroupID.x * bx;
	if (gl_LocalInvocationID.y > rows - 1u - r0 || gl_LocalInvocationID.x > cols - 1u - c0) return;
	uint sr = satMul(gl_NumWorkGroups.y, by), sc = satMul(gl_NumWorkGroups.x, bx);
	for (uint r = r0 + gl_LocalInvocationID.y; r < rows; r = advance(r, sr, rows)) {
		for (uint c = c0 + gl_LocalInvocationID.x; c < cols; c = advance(c, sc, cols)) {
			dst[c * rows + r] = src[r * cols + c];
		}
	}
}
#endif
#endif

// ---------------------------------------------------------------- sgemm

#ifdef ANYGPU_KERNEL_sgemm
layout(std430, binding = 0) buffer C { float c[]; };
layout(std430, binding = 1) readonly buffer A { float a[]; };
layout(std430, binding = 2) readonly buffer B { float b[]; };
layout(std140, binding = 3) uniform Params { uint M; uint N; uint K; float alpha; float beta; };

// store writes one element of C: alpha*acc, plus beta*C when beta is not 0
// (C is not read when beta is 0).
void store(uint idx, float acc) {
	if (beta == 0.0) {
		c[idx] = alpha * acc;
	} else {
		c[idx] = alpha * acc + beta * c[idx];
	}
}

bool sized() {
	return fits(uint(c.length()), M, N) && fits(uint(a.length()), M, K) && fits(uint(b.length()), K, N);
}

#if BX + BY <= 48
#define TM 8
#define TN 8
#elif BX + BY <= 96
#define TM 4
#define TN 4
#endif

#ifdef TM
// Tiled: a group computes a (BY*TM)×(BX*TN) tile of C, the work item (tx, ty)
// the rows ty + m*BY and columns tx + q*BX of it, accumulating over K in
// slices of KT through shared tiles of A (stored transposed) and B.
#define KT 16
#define TILE_M (BY * TM)
#define TILE_N (BX * TN)
shared float As[KT][TILE_M];
shared float Bs[KT][TILE_N];

void main() {
	if (gl_WorkGroupID.z != 0u || !sized() || M == 0u || N == 0u) return; // uniform per group
	uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
	bool working = gl_LocalInvocationID.z == 0u;
	uint tid = ty * uint(BX) + tx;
	uint nthreads = uint(BX * BY);
	uint tm = uint(TILE_M), tn = uint(TILE_N);
	if (gl_WorkGroupID.y > (M - 1u) / tm || gl_WorkGroupID.x > (N - 1u) / tn) return;
	uint si = satMul(gl_NumWorkGroups.y, tm), sj = satMul(gl_NumWorkGroups.x, tn);
	for (uint i0 = gl_WorkGroupID.y * tm; i0 < M; i0 = advance(i0, si, M)) {
		for (uint j0 = gl_WorkGroupID.x * tn; j0 < N; j0 = advance(j0, sj, N)) {
			float acc[TM][TN];
			for (int m = 0; m < TM; m++) {
				for (int q = 0; q < TN; q++) {
					acc[m][q] = 0.0;
				}
			}
			for (uint k0 = 0u; k0 < K; k0 += uint(KT)) {
				if (working) {
					// A tile: rows i0.., columns k0..k0+KT, stored As[kk][r].
					for (uint e = tid; e < uint(KT) * tm; e += nthreads) {
						uint r = e / uint(KT), kk = e % uint(KT);
						float v = 0.0;
						if (r < M - i0 && kk < K - k0) {
							v = a[(i0 + r) * K + k0 + kk];
						}
						As[kk][r] = v;
					}
					// B tile: rows k0..k0+KT, columns j0...
					for (uint e = tid; e < uint(KT) * tn; e += nthreads) {
						uint kk = e / tn, q = e % tn;
						float v = 0.0;
						if (kk < K - k0 && q < N - j0) {
							v = b[(k0 + kk) * N + j0 + q];
						}
						Bs[kk][q] = v;
					}
				}
				memoryBarrierShared();
				barrier();
				if (working) {
					for (int kk = 0; kk < KT; kk++) {
						float av[TM];
						float bv[TN];
						for (int m = 0; m < TM; m++) {
							av[m] = As[kk][ty + uint(m * BY)];
						}
						for (int q = 0; q < TN; q++) {
							bv[q] = Bs[kk][tx + uint(q * BX)];
						}
						for (int m = 0; m < TM; m++) {
							for (int q = 0; q < TN; q++) {
								acc[m][q] += av[m] * bv[q];
							}
						}
					}
				}
				barrier();
			}
			if (working) {
				// No early exits: the loops unroll and acc stays in registers.
				for (int m = 0; m < TM; m++) {
					uint r = ty + uint(m * BY);
					for (int q = 0; q < TN; q++) {
						uint col = tx + uint(q * BX);
						if (r < M - i0 && col < N - j0) {
							store((i0 + r) * N + j0 + col, acc[m][q]);
						}
					}
				}
			}
		}
	}
}
#else
// One element of C per work item and step, for blocks too large for the tiles.
void main() {
	if (gl_LocalInvocationID.z != 0u || gl_WorkGroupID.z != 0u || !sized() || M == 0u || N == 0u) return;
	uint bx = gl_WorkGroupSize.x, by = gl_WorkGroupSize.y;
	if (gl_WorkGroupID.y > (M - 1u) / by || gl_WorkGroupID.x > (N - 1u) / bx) return;
	uint i0 = gl_WorkGroupID.y * by, j0 = gl_WorkGroupID.x * bx;
	if (gl_LocalInvocationID.y > M - 1u - i0 || gl_LocalInvocationID.x > N - 1u - j0) return;
	uint si = satMul(gl_NumWorkGroups.y, by), sj = satMul(gl_NumWorkGroups.x, bx);
	for (uint i = i0 + gl_LocalInvocationID.y; i < M; i = advance(i, si, M)) {
		for (uint j = j0 + gl_LocalInvocationID.x; j < N; j = advance(j, sj, N)) {
			float acc = 0.0;
			for (uint p = 0u; p < K; p++) {
				acc += a[i * K + p] * b[p * N + j];
			}
			store(i * N + j, acc);
		}
	}
}
#endif
#endif
`
