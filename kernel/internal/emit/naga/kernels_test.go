package naga_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
)

// The test kernels: WGSL modules in the form the WGSL emitter produces for the
// native backends (see the package doc), each with a Go reference.

func itoa(v int) string { return strconv.Itoa(v) }

// header declares a module's block constants with their defaults.
func header(x, y int) string {
	return "const anygpu_block_x: u32 = " + strconv.Itoa(x) + "u;\nconst anygpu_block_y: u32 = " + strconv.Itoa(y) + "u;\nconst anygpu_block_z: u32 = 1u;\n"
}

const entry = "@compute @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)\n"

// ids are the built-ins every test kernel takes.
const ids = "@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>"

// testCase is one launch of a test kernel and what it must produce.
type testCase struct {
	grid    gpu.Dim3
	bufs    [][]uint32                  // the buffers' initial words
	scalars []uint32                    // the scalars' bits, in order (all 4-byte kinds)
	check   func(got [][]uint32) string // "" when got is right, else what is wrong
}

// testKernel is a kernel, its parameters and how to launch it for a block.
type testKernel struct {
	name   string
	wgsl   string
	params []backend.ArgKind
	blocks [2]gpu.Dim3 // the module's default block, then another
	launch func(block gpu.Dim3) testCase
}

func f32s(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = math.Float32bits(x)
	}
	return out
}

func floats(w []uint32) []float32 {
	out := make([]float32, len(w))
	for i, x := range w {
		out[i] = math.Float32frombits(x)
	}
	return out
}

// exact compares got with want word for word.
func exact(got, want []uint32) string {
	if len(got) != len(want) {
		return fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Sprintf("word %d is %#08x, want %#08x", i, got[i], want[i])
		}
	}
	return ""
}

// close compares floats with a relative tolerance.
func closeTo(got, want []float32, tol float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) || math.IsNaN(g) != math.IsNaN(w) {
			return fmt.Sprintf("element %d is %g, want %g", i, g, w)
		}
	}
	return ""
}

// rng is a small deterministic generator for test data.
type rng uint64

func (r *rng) next() uint32 {
	*r = *r*6364136223846793005 + 1442695040888963407
	return uint32(*r >> 33)
}

// testKernels are the kernels every dialect runs.
var testKernels = []testKernel{
	{
		name: "saxpy",
		wgsl: header(64, 1) + `
struct Params { n: u32, a: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
` + entry + `fn saxpy(` + ids + `) {
	let stride = nwg.x * anygpu_block_x;
	for (var i = wg.x * anygpu_block_x + lid.x; i < params.n; i += stride) {
		y[i] = params.a * x[i] + y[i];
	}
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32, backend.ArgF32},
		blocks: [2]gpu.Dim3{gpu.D1(64), gpu.D1(96)},
		launch: func(block gpu.Dim3) testCase {
			const n = 1000
			r := rng(1)
			x, y := make([]float32, n+7), make([]float32, n+7)
			for i := range x {
				x[i], y[i] = float32(r.next()%1000)/8, float32(r.next()%1000)/4
			}
			want := append([]float32(nil), y...)
			for i := 0; i < n; i++ {
				want[i] = 2.5*x[i] + y[i]
			}
			return testCase{
				grid: gpu.D1(5), // fewer threads than elements: the grid-stride loop covers them
				bufs: [][]uint32{f32s(x), f32s(y)}, scalars: []uint32{n, math.Float32bits(2.5)},
				check: func(got [][]uint32) string { return closeTo(floats(got[1]), want, 1e-6) },
			}
		},
	},
	{
		name: "block_sum",
		wgsl: header(256, 1) + `
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
var<workgroup> partial: array<f32, 256>;
` + entry + `fn block_sum(` + ids + `) {
	let i = wg.x * anygpu_block_x + lid.x;
	var v = 0.0;
	if (i < params.n) { v = data[i]; }
	partial[lid.x] = v;
	workgroupBarrier();
	for (var s = anygpu_block_x / 2u; s > 0u; s = s / 2u) {
		if (lid.x < s) { partial[lid.x] = partial[lid.x] + partial[lid.x + s]; }
		workgroupBarrier();
	}
	if (lid.x == 0u) { sums[wg.x] = partial[0]; }
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32},
		blocks: [2]gpu.Dim3{gpu.D1(256), gpu.D1(64)},
		launch: func(block gpu.Dim3) testCase {
			const n = 2000
			r := rng(2)
			data := make([]float32, n)
			for i := range data {
				data[i] = float32(r.next() % 64) // integers: every order of addition is exact
			}
			groups := (n + block.X - 1) / block.X
			want := make([]float32, groups)
			for i, v := range data {
				want[i/block.X] += v
			}
			return testCase{
				grid: gpu.D1(groups), bufs: [][]uint32{f32s(data), make([]uint32, groups)}, scalars: []uint32{n},
				check: func(got [][]uint32) string { return closeTo(floats(got[1]), want, 0) },
			}
		},
	},
	{
		name: "histogram",
		wgsl: header(64, 1) + `
struct Params { n: u32, bins: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: Params;
` + entry + `fn histogram(` + ids + `) {
	let i = wg.x * anygpu_block_x + lid.x;
	if (i < params.n) {
		atomicAdd(&hist[data[i] % params.bins], 1u);
	}
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32, backend.ArgU32},
		blocks: [2]gpu.Dim3{gpu.D1(64), gpu.D1(128)},
		launch: func(block gpu.Dim3) testCase {
			const n, bins = 3000, 37
			r := rng(3)
			data := make([]uint32, n)
			want := make([]uint32, bins)
			for i := range data {
				data[i] = r.next()
				want[data[i]%bins]++
			}
			return testCase{
				grid: gpu.D1((n + block.X - 1) / block.X), bufs: [][]uint32{data, make([]uint32, bins)}, scalars: []uint32{n, bins},
				check: func(got [][]uint32) string { return exact(got[1], want) },
			}
		},
	},
	{
		name: "transpose",
		wgsl: header(8, 8) + `
struct Params { rows: u32, cols: u32 }
@group(0) @binding(0) var<storage, read_write> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;
` + entry + `fn transpose(` + ids + `) {
	let c = wg.x * anygpu_block_x + lid.x;
	let r = wg.y * anygpu_block_y + lid.y;
	if (r < params.rows && c < params.cols) {
		dst[c * params.rows + r] = src[r * params.cols + c];
	}
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32, backend.ArgU32},
		blocks: [2]gpu.Dim3{gpu.D2(8, 8), gpu.D2(16, 4)},
		launch: func(block gpu.Dim3) testCase {
			const rows, cols = 37, 53
			src := make([]uint32, rows*cols)
			want := make([]uint32, rows*cols)
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					src[r*cols+c] = uint32(r*1000 + c)
					want[c*rows+r] = uint32(r*1000 + c)
				}
			}
			return testCase{
				grid: gpu.D2((cols+block.X-1)/block.X, (rows+block.Y-1)/block.Y),
				bufs: [][]uint32{src, make([]uint32, rows*cols)}, scalars: []uint32{rows, cols},
				check: func(got [][]uint32) string { return exact(got[1], want) },
			}
		},
	},
	{
		name: "fmath",
		wgsl: header(64, 1) + `
struct Params { n: u32, k: f32 }
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;
` + entry + `fn fmath(` + ids + `) {
	let i = wg.x * anygpu_block_x + lid.x;
	if (i >= params.n) { return; }
	let v = x[i];
	y[i] = sqrt(abs(v)) + exp(v * 0.125) + sin(v) * cos(v) + floor(v * params.k) + fma(v, params.k, 1.0)
		+ min(v, 1.5) + max(v, -1.5) + clamp(v, -0.5, 0.5) + tanh(v) + pow(abs(v) + 1.0, 0.5);
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32, backend.ArgF32},
		blocks: [2]gpu.Dim3{gpu.D1(64), gpu.D1(32)},
		launch: func(block gpu.Dim3) testCase {
			const n, k = 500, 1.75
			x := make([]float32, n)
			want := make([]float32, n)
			for i := range x {
				v := float64(i-250) / 37
				x[i] = float32(v)
				v = float64(x[i])
				want[i] = float32(math.Sqrt(math.Abs(v)) + math.Exp(v*0.125) + math.Sin(v)*math.Cos(v) + math.Floor(float64(float32(v*k))) + (v*k + 1) +
					math.Min(v, 1.5) + math.Max(v, -1.5) + math.Max(-0.5, math.Min(v, 0.5)) + math.Tanh(v) + math.Pow(math.Abs(v)+1, 0.5))
			}
			return testCase{
				grid: gpu.D1((n + block.X - 1) / block.X), bufs: [][]uint32{f32s(x), make([]uint32, n)}, scalars: []uint32{n, math.Float32bits(k)},
				check: func(got [][]uint32) string { return closeTo(floats(got[1]), want, 2e-4) },
			}
		},
	},
	{
		name: "shifts",
		// Go's semantics written out in WGSL, as the emitter does: a count of
		// the width or more gives 0 (or the sign for a signed >>), x/0 == x,
		// x%0 == 0, and i32 arithmetic wraps.
		wgsl: header(64, 1) + `
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read_write> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;
` + entry + `fn shifts(` + ids + `) {
	let i = wg.x * anygpu_block_x + lid.x;
	if (i >= params.n) { return; }
	let x = a[i];
	let u = bitcast<u32>(x);
	let s = b[i];
	out[6u * i] = select(0u, u << s, s < 32u);
	out[6u * i + 1u] = select(0u, u >> s, s < 32u);
	out[6u * i + 2u] = bitcast<u32>(x >> min(s, 31u));
	out[6u * i + 3u] = bitcast<u32>(x * 65599 + 12345);
	let d = bitcast<i32>(s) - 16;
	out[6u * i + 4u] = bitcast<u32>(select(select(x / d, -x, d == -1), x, d == 0));
	out[6u * i + 5u] = select(u % s, 0u, s == 0u);
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32},
		blocks: [2]gpu.Dim3{gpu.D1(64), gpu.D1(128)},
		launch: func(block gpu.Dim3) testCase {
			const n = 300
			r := rng(6)
			a, b := make([]uint32, n), make([]uint32, n)
			want := make([]uint32, 6*n)
			for i := 0; i < n; i++ {
				x := int32(r.next())
				if i%7 == 0 {
					x = math.MinInt32
				}
				s := r.next() % 40
				a[i], b[i] = uint32(x), s
				u := uint32(x)
				want[6*i] = u << s
				want[6*i+1] = u >> s
				want[6*i+2] = uint32(x >> s)
				want[6*i+3] = uint32(x*65599 + 12345)
				d := int32(s) - 16
				q := x
				if d == -1 {
					q = -x
				} else if d != 0 {
					q = x / d
				}
				want[6*i+4] = uint32(q)
				if s != 0 {
					want[6*i+5] = u % s
				}
			}
			return testCase{
				grid: gpu.D1((n + block.X - 1) / block.X), bufs: [][]uint32{a, b, make([]uint32, 6*n)}, scalars: []uint32{n},
				check: func(got [][]uint32) string { return exact(got[2], want) },
			}
		},
	},
}

func init() {
	// ids has no scalars (no uniform block) and a 3D block: every thread
	// writes its ids and the grid's size where its linear index says.
	testKernels = append(testKernels, testKernel{
		name: "ids",
		wgsl: strings.Replace(header(4, 2), "anygpu_block_z: u32 = 1u", "anygpu_block_z: u32 = 2u", 1) + `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
` + entry + `fn ids(` + ids + `) {
	let group = (wg.z * nwg.y + wg.y) * nwg.x + wg.x;
	let size = anygpu_block_x * anygpu_block_y * anygpu_block_z;
	let t = (lid.z * anygpu_block_y + lid.y) * anygpu_block_x + lid.x;
	out[group * size + t] = lid.x | (lid.y << 4u) | (lid.z << 8u) | (wg.x << 12u) | (wg.y << 16u) | (wg.z << 20u) |
		(nwg.x << 24u) | (nwg.y << 28u);
}
`,
		params: []backend.ArgKind{backend.ArgBuffer},
		blocks: [2]gpu.Dim3{{X: 4, Y: 2, Z: 2}, {X: 2, Y: 3, Z: 4}},
		launch: func(block gpu.Dim3) testCase {
			grid := gpu.Dim3{X: 3, Y: 2, Z: 2}
			size := block.X * block.Y * block.Z
			want := make([]uint32, grid.X*grid.Y*grid.Z*size)
			for gz := 0; gz < grid.Z; gz++ {
				for gy := 0; gy < grid.Y; gy++ {
					for gx := 0; gx < grid.X; gx++ {
						for tz := 0; tz < block.Z; tz++ {
							for ty := 0; ty < block.Y; ty++ {
								for tx := 0; tx < block.X; tx++ {
									g := (gz*grid.Y+gy)*grid.X + gx
									th := (tz*block.Y+ty)*block.X + tx
									want[g*size+th] = uint32(tx | ty<<4 | tz<<8 | gx<<12 | gy<<16 | gz<<20 | grid.X<<24 | grid.Y<<28)
								}
							}
						}
					}
				}
			}
			return testCase{
				grid: grid, bufs: [][]uint32{make([]uint32, len(want))},
				check: func(got [][]uint32) string { return exact(got[0], want) },
			}
		},
	})
}

func init() {
	// vec_eq uses all() and any() (which the SPIR-V translation restores as
	// OpAll and OpAny).
	testKernels = append(testKernels, testKernel{
		name: "vec_eq",
		wgsl: header(64, 1) + `
struct Params { n: u32 }
@group(0) @binding(0) var<storage, read_write> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<uniform> params: Params;
` + entry + `fn vec_eq(` + ids + `) {
	let i = wg.x * anygpu_block_x + lid.x;
	if (i >= params.n) { return; }
	let v = vec3<u32>(a[i], a[i] + 1u, 7u);
	let w = vec3<u32>(b[i], b[i] + 1u, 7u);
	out[2u * i] = select(0u, 1u, all(v == w));
	out[2u * i + 1u] = select(0u, 1u, any(vec2<bool>(a[i] > 12u, b[i] > 12u)));
}
`,
		params: []backend.ArgKind{backend.ArgBuffer, backend.ArgBuffer, backend.ArgBuffer, backend.ArgU32},
		blocks: [2]gpu.Dim3{gpu.D1(64), gpu.D1(32)},
		launch: func(block gpu.Dim3) testCase {
			const n = 200
			r := rng(9)
			a, b := make([]uint32, n), make([]uint32, n)
			want := make([]uint32, 2*n)
			for i := range a {
				a[i], b[i] = r.next()%16, r.next()%16
				if a[i] == b[i] {
					want[2*i] = 1
				}
				if a[i] > 12 || b[i] > 12 {
					want[2*i+1] = 1
				}
			}
			return testCase{
				grid: gpu.D1((n + block.X - 1) / block.X), bufs: [][]uint32{a, b, make([]uint32, 2*n)}, scalars: []uint32{n},
				check: func(got [][]uint32) string { return exact(got[2], want) },
			}
		},
	})
}

// modules returns the test kernels' WGSL modules.
func modules() map[string]string {
	out := map[string]string{}
	for _, k := range testKernels {
		out[k.name] = k.wgsl
	}
	return out
}

// params returns the test kernels' parameter lists.
func params() map[string][]backend.ArgKind {
	out := map[string][]backend.ArgKind{}
	for _, k := range testKernels {
		out[k.name] = k.params
	}
	return out
}
