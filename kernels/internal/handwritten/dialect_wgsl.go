package handwritten

// wgslSource is the built-in ops in WGSL for WebGPU: one module, one @compute
// entry point per op, named after it. Following the portable ABI, buffer
// arguments bind at @group(0) @binding(0..b-1) as read_write storage arrays
// (any two may be the same buffer) and the scalars sit in one uniform block
// at @binding(b), packed in argument order.
//
// # Launch geometry
//
// WGSL fixes the work-group size in the source and WebGPU dispatches at most
// 65535 groups per dimension, so the kernels do not take the launch's block
// and grid literally. The WebGPU backend appends the launch geometry to the
// uniform block, 16-byte aligned after the scalars (AgLaunch: the grid and
// block as launched); it folds a dispatch wider than 65535 groups into x and
// y, and a kernel finds its group's linear index with ag_linear. An entry
// point E may declare "const anygpu_coarsen_E: u32 = K;": the backend then
// dispatches one group for every K groups of the launch (rounded up), for
// kernels that do more work per group than the launch's block implies. Within
// that:
//
//   - the element-wise ops (K = 8) view their arrays as vec4s and give each
//     group chunks of 512 vec4s, two per thread, grid-stride over the
//     dispatched groups: a launch with one thread per element dispatches just
//     the groups with work, each moving 8 floats per thread;
//   - reduce_sum and dot keep the exact partials of the Go kernels: group g of
//     a grid of G groups of B threads sums elements c·G·B + g·B + t (t < B),
//     its 256 threads covering the B logical ones with four loads in flight,
//     and writes out[g]; groups whose y or z index is not 0 do nothing;
//   - transpose (16×16 tiles through workgroup memory) and sgemm (K = 16:
//     64×64 tiles of C, 4×4 per thread, k in steps of 16 through workgroup
//     memory) loop over the tiles of their output grid-stride over the
//     dispatched groups, whatever block the launch named.
//
// Every result is therefore the same for any block and grid, as the Go
// kernels define it. sgemm with beta == 0 does not read C. Like the Go
// kernels, a kernel whose buffers are too small for its sizes writes nothing
// (a reduction group whose out element is missing skips only its own).
const wgslSource = `
// AgLaunch is the launch geometry the WebGPU backend appends to the uniform
// block: the grid (in groups) and the block (in threads) as launched.
struct AgLaunch {
	grid: vec4<u32>,
	block: vec4<u32>,
}

// ag_linear is the linear index of this work group in the dispatch.
fn ag_linear(wg: vec3<u32>, nwg: vec3<u32>) -> u32 {
	return wg.x + nwg.x * (wg.y + nwg.y * wg.z);
}

// ---- element-wise ops ----
//
// The element-wise ops view their arrays as vec4<f32> and give each group
// chunks of 512 vec4s, two per thread, loaded before they are stored. A
// partial last vec4 (n not a multiple of 4) is merged lane by lane, keeping
// the elements at n and past it (buffers are padded to 16 bytes). Each
// dispatched group stands for 8 groups of 256 threads of the launch
// (anygpu_coarsen_*), so a launch with one thread per element dispatches
// just the groups that have work.

// ag_vec4s is how many vec4s n floats touch; ag_chunks how many chunks of 512
// vec4s those make.
fn ag_vec4s(n: u32) -> u32 { return n / 4u + select(0u, 1u, n % 4u != 0u); }
fn ag_chunks(nv: u32) -> u32 { return nv / 512u + select(0u, 1u, nv % 512u != 0u); }

// ag_fits reports whether an array of l elements holds r×c of them.
fn ag_fits(l: u32, r: u32, c: u32) -> bool { return r == 0u || c <= l / r; }

// ag_lanes reports which lanes of vec4 j hold one of the first n elements.
fn ag_lanes(j: u32, n: u32) -> vec4<bool> {
	let b = 4u * j;
	return vec4<bool>(b < n, b + 1u < n, b + 2u < n, b + 3u < n);
}

// ---- fill(y, n, value) ----

const anygpu_coarsen_fill: u32 = 8u;
struct FillParams { n: u32, value: f32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> fill_y: array<vec4<f32>>;
@group(0) @binding(1) var<uniform> fill_p: FillParams;

@compute @workgroup_size(256)
fn fill(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = fill_p.n;
	let nv = ag_vec4s(n);
	if (arrayLength(&fill_y) < nv) { return; } // buffers too small: write nothing
	let full = n / 4u;
	let chunks = ag_chunks(nv);
	let total = nwg.x * nwg.y * nwg.z;
	let v = vec4<f32>(fill_p.value);
	for (var c = ag_linear(wg, nwg); c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < full) {
			fill_y[i0] = v;
			fill_y[i1] = v;
		} else {
			if (i0 < nv) { fill_y[i0] = select(fill_y[i0], v, ag_lanes(i0, n)); }
			if (i1 < nv) { fill_y[i1] = select(fill_y[i1], v, ag_lanes(i1, n)); }
		}
		if (total > chunks - c) { break; }
	}
}

// ---- copy(y, x, n) ----

const anygpu_coarsen_copy: u32 = 8u;
struct CopyParams { n: u32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> copy_y: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> copy_x: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> copy_p: CopyParams;

@compute @workgroup_size(256)
fn copy(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = copy_p.n;
	let nv = ag_vec4s(n);
	if (arrayLength(&copy_y) < nv || arrayLength(&copy_x) < nv) { return; } // buffers too small: write nothing
	let full = n / 4u;
	let chunks = ag_chunks(nv);
	let total = nwg.x * nwg.y * nwg.z;
	for (var c = ag_linear(wg, nwg); c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < full) {
			let x0 = copy_x[i0];
			let x1 = copy_x[i1];
			copy_y[i0] = x0;
			copy_y[i1] = x1;
		} else {
			if (i0 < nv) { copy_y[i0] = select(copy_y[i0], copy_x[i0], ag_lanes(i0, n)); }
			if (i1 < nv) { copy_y[i1] = select(copy_y[i1], copy_x[i1], ag_lanes(i1, n)); }
		}
		if (total > chunks - c) { break; }
	}
}

// ---- scale(y, x, n, a) ----

const anygpu_coarsen_scale: u32 = 8u;
struct ScaleParams { n: u32, a: f32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> scale_y: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> scale_x: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> scale_p: ScaleParams;

@compute @workgroup_size(256)
fn scale(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = scale_p.n;
	let nv = ag_vec4s(n);
	if (arrayLength(&scale_y) < nv || arrayLength(&scale_x) < nv) { return; } // buffers too small: write nothing
	let full = n / 4u;
	let chunks = ag_chunks(nv);
	let total = nwg.x * nwg.y * nwg.z;
	let a = vec4<f32>(scale_p.a);
	for (var c = ag_linear(wg, nwg); c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < full) {
			let x0 = scale_x[i0];
			let x1 = scale_x[i1];
			scale_y[i0] = a * x0;
			scale_y[i1] = a * x1;
		} else {
			if (i0 < nv) { scale_y[i0] = select(scale_y[i0], a * scale_x[i0], ag_lanes(i0, n)); }
			if (i1 < nv) { scale_y[i1] = select(scale_y[i1], a * scale_x[i1], ag_lanes(i1, n)); }
		}
		if (total > chunks - c) { break; }
	}
}

// ---- axpy(y, x, n, a) ----

const anygpu_coarsen_axpy: u32 = 8u;
struct AxpyParams { n: u32, a: f32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> axpy_y: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> axpy_x: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> axpy_p: AxpyParams;

@compute @workgroup_size(256)
fn axpy(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = axpy_p.n;
	let nv = ag_vec4s(n);
	if (arrayLength(&axpy_y) < nv || arrayLength(&axpy_x) < nv) { return; } // buffers too small: write nothing
	let full = n / 4u;
	let chunks = ag_chunks(nv);
	let total = nwg.x * nwg.y * nwg.z;
	let a = vec4<f32>(axpy_p.a);
	for (var c = ag_linear(wg, nwg); c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < full) {
			let x0 = axpy_x[i0];
			let x1 = axpy_x[i1];
			let y0 = axpy_y[i0];
			let y1 = axpy_y[i1];
			axpy_y[i0] = fma(a, x0, y0);
			axpy_y[i1] = fma(a, x1, y1);
		} else {
			if (i0 < nv) { axpy_y[i0] = select(axpy_y[i0], fma(a, axpy_x[i0], axpy_y[i0]), ag_lanes(i0, n)); }
			if (i1 < nv) { axpy_y[i1] = select(axpy_y[i1], fma(a, axpy_x[i1], axpy_y[i1]), ag_lanes(i1, n)); }
		}
		if (total > chunks - c) { break; }
	}
}

// ---- add(z, x, y, n) and mul(z, x, y, n) ----

const anygpu_coarsen_add: u32 = 8u;
const anygpu_coarsen_mul: u32 = 8u;
struct BinaryParams { n: u32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> bin_z: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> bin_x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> bin_y: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> bin_p: BinaryParams;

@compute @workgroup_size(256)
fn add(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = bin_p.n;
	let nv = ag_vec4s(n);
	if (arrayLength(&bin_z) < nv || arrayLength(&bin_x) < nv || arrayLength(&bin_y) < nv) { return; } // buffers too small: write nothing
	let full = n / 4u;
	let chunks = ag_chunks(nv);
	let total = nwg.x * nwg.y * nwg.z;
	for (var c = ag_linear(wg, nwg); c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < full) {
			let x0 = bin_x[i0];
			let x1 = bin_x[i1];
			let y0 = bin_y[i0];
			let y1 = bin_y[i1];
			bin_z[i0] = x0 + y0;
			bin_z[i1] = x1 + y1;
		} else {
			if (i0 < nv) { bin_z[i0] = select(bin_z[i0], bin_x[i0] + bin_y[i0], ag_lanes(i0, n)); }
			if (i1 < nv) { bin_z[i1] = select(bin_z[i1], bin_x[i1] + bin_y[i1], ag_lanes(i1, n)); }
		}
		if (total > chunks - c) { break; }
	}
}

@compute @workgroup_size(256)
fn mul(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let n = bin_p.n;
	let nv = ag_vec4s(n);
	if (arrayLength(&bin_z) < nv || arrayLength(&bin_x) < nv || arrayLength(&bin_y) < nv) { return; } // buffers too small: write nothing
	let full = n / 4u;
	let chunks = ag_chunks(nv);
	let total = nwg.x * nwg.y * nwg.z;
	for (var c = ag_linear(wg, nwg); c < chunks; c += total) {
		let i0 = c * 512u + lid;
		let i1 = i0 + 256u;
		if (i1 < full) {
			let x0 = bin_x[i0];
			let x1 = bin_x[i1];
			let y0 = bin_y[i0];
			let y1 = bin_y[i1];
			bin_z[i0] = x0 * y0;
			bin_z[i1] = x1 * y1;
		} else {
			if (i0 < nv) { bin_z[i0] = select(bin_z[i0], bin_x[i0] * bin_y[i0], ag_lanes(i0, n)); }
			if (i1 < nv) { bin_z[i1] = select(bin_z[i1], bin_x[i1] * bin_y[i1], ag_lanes(i1, n)); }
		}
		if (total > chunks - c) { break; }
	}
}

// ---- reduce_sum(out, x, n) and dot(out, x, y, n) ----

struct ReduceParams { n: u32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> red_out: array<f32>;
@group(0) @binding(1) var<storage, read_write> red_x: array<f32>;
@group(0) @binding(2) var<uniform> red_p: ReduceParams;

@group(0) @binding(0) var<storage, read_write> dot_out: array<f32>;
@group(0) @binding(1) var<storage, read_write> dot_x: array<f32>;
@group(0) @binding(2) var<storage, read_write> dot_y: array<f32>;
@group(0) @binding(3) var<uniform> dot_p: ReduceParams;

var<workgroup> red_s: array<f32, 256>;

// ag_reduce_group returns the logical group of this work group for a
// one-dimensional reduction, or 0xffffffff when it has nothing to do (a
// folding pad, or a y or z index other than 0).
fn ag_reduce_group(l: AgLaunch, wg: vec3<u32>, nwg: vec3<u32>) -> u32 {
	let g = ag_linear(wg, nwg);
	if (g >= l.grid.x * l.grid.y * l.grid.z || g >= l.grid.x) {
		return 0xffffffffu;
	}
	return g;
}

// red_tree adds the 256 values of red_s; thread 0 gets the sum.
fn red_tree(lid: u32) {
	for (var s = 128u; s > 0u; s >>= 1u) {
		if (lid < s) {
			red_s[lid] += red_s[lid + s];
		}
		workgroupBarrier();
	}
}

@compute @workgroup_size(256)
fn reduce_sum(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let l = red_p.launch;
	let g = ag_reduce_group(l, wg, nwg);
	let n = red_p.n;
	// Buffers too small: this group (or every group) writes nothing.
	if (g == 0xffffffffu || g >= arrayLength(&red_out) || arrayLength(&red_x) < n) { return; }
	let G = l.grid.x;
	let B = max(l.block.x, 1u);
	var sum = 0.0;
	// Elements c·G·B + g·B + t; stride 0 means one chunk (G·B ≥ n).
	if (g <= n / B) {
		var stride = 0u;
		if (G <= (n - g * B) / B) { stride = G * B; }
		for (var t = lid; t < B; t += 256u) {
			var i = g * B + t;
			// Four chunks at a time while they exist: independent loads.
			if (stride != 0u) {
				loop {
					if (i >= n || (n - 1u - i) / 3u < stride) { break; }
					let a0 = red_x[i];
					let a1 = red_x[i + stride];
					let a2 = red_x[i + 2u * stride];
					let a3 = red_x[i + 3u * stride];
					sum += (a0 + a1) + (a2 + a3);
					if ((n - 1u - i) / 4u < stride) { i = n; break; }
					i += 4u * stride;
				}
			}
			loop {
				if (i >= n) { break; }
				sum += red_x[i];
				if (stride == 0u || stride > n - 1u - i) { break; }
				i += stride;
			}
		}
	}
	red_s[lid] = sum;
	workgroupBarrier();
	red_tree(lid);
	if (lid == 0u) {
		red_out[g] = red_s[0];
	}
}

@compute @workgroup_size(256)
fn dot(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_index) lid: u32) {
	let l = dot_p.launch;
	let g = ag_reduce_group(l, wg, nwg);
	let n = dot_p.n;
	if (g == 0xffffffffu || g >= arrayLength(&dot_out) || arrayLength(&dot_x) < n || arrayLength(&dot_y) < n) { return; }
	let G = l.grid.x;
	let B = max(l.block.x, 1u);
	var sum = 0.0;
	if (g <= n / B) {
		var stride = 0u;
		if (G <= (n - g * B) / B) { stride = G * B; }
		for (var t = lid; t < B; t += 256u) {
			var i = g * B + t;
			if (stride != 0u) {
				loop {
					if (i >= n || (n - 1u - i) / 3u < stride) { break; }
					let a0 = dot_x[i] * dot_y[i];
					let a1 = dot_x[i + stride] * dot_y[i + stride];
					let a2 = dot_x[i + 2u * stride] * dot_y[i + 2u * stride];
					let a3 = dot_x[i + 3u * stride] * dot_y[i + 3u * stride];
					sum += (a0 + a1) + (a2 + a3);
					if ((n - 1u - i) / 4u < stride) { i = n; break; }
					i += 4u * stride;
				}
			}
			loop {
				if (i >= n) { break; }
				sum = fma(dot_x[i], dot_y[i], sum);
				if (stride == 0u || stride > n - 1u - i) { break; }
				i += stride;
			}
		}
	}
	red_s[lid] = sum;
	workgroupBarrier();
	red_tree(lid);
	if (lid == 0u) {
		dot_out[g] = red_s[0];
	}
}

// ---- transpose(out, in, rows, cols) ----

struct TransposeParams { rows: u32, cols: u32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> tr_out: array<f32>;
@group(0) @binding(1) var<storage, read_write> tr_in: array<f32>;
@group(0) @binding(2) var<uniform> tr_p: TransposeParams;

var<workgroup> tr_tile: array<array<f32, 17>, 16>;

@compute @workgroup_size(16, 16)
fn transpose(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_id) lid: vec3<u32>) {
	let rows = tr_p.rows;
	let cols = tr_p.cols;
	if (!ag_fits(arrayLength(&tr_in), rows, cols) || !ag_fits(arrayLength(&tr_out), rows, cols)) { return; }
	let tx = cols / 16u + select(0u, 1u, cols % 16u != 0u);
	let ty = rows / 16u + select(0u, 1u, rows % 16u != 0u);
	let tiles = tx * ty;
	let total = nwg.x * nwg.y * nwg.z;
	for (var t = ag_linear(wg, nwg); t < tiles; t += total) {
		let c0 = (t % tx) * 16u;
		let r0 = (t / tx) * 16u;
		let r = r0 + lid.y;
		let c = c0 + lid.x;
		if (r < rows && c < cols) {
			tr_tile[lid.y][lid.x] = tr_in[r * cols + c];
		}
		workgroupBarrier();
		// Thread (x, y) writes out[(c0+y)·rows + r0+x] = in[(r0+x)·cols + c0+y].
		let oc = c0 + lid.y;
		let orow = r0 + lid.x;
		if (oc < cols && orow < rows) {
			tr_out[oc * rows + orow] = tr_tile[lid.x][lid.y];
		}
		workgroupBarrier();
		if (total > tiles - t) { break; }
	}
}

// ---- sgemm(c, a, b, m, n, k, alpha, beta) ----

// One dispatched group computes a 64×64 tile of C, which a launch with the
// usual 16×16 blocks covers with 16 groups.
const anygpu_coarsen_sgemm: u32 = 16u;
struct SgemmParams { m: u32, n: u32, k: u32, alpha: f32, beta: f32, launch: AgLaunch }
@group(0) @binding(0) var<storage, read_write> sg_c: array<f32>;
@group(0) @binding(1) var<storage, read_write> sg_a: array<f32>;
@group(0) @binding(2) var<storage, read_write> sg_b: array<f32>;
@group(0) @binding(3) var<uniform> sg_p: SgemmParams;

// A tile: 16 values of k × 64 rows, stored k-major with a row of 65 to spread
// the stores over the banks; B tile: 16 values of k × 64 columns.
var<workgroup> sg_as: array<f32, 1040>;
var<workgroup> sg_bs: array<f32, 1024>;

@compute @workgroup_size(16, 16)
fn sgemm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
		@builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let m = sg_p.m;
	let n = sg_p.n;
	let k = sg_p.k;
	if (!ag_fits(arrayLength(&sg_c), m, n) || !ag_fits(arrayLength(&sg_a), m, k) || !ag_fits(arrayLength(&sg_b), k, n)) { return; }
	let tilesN = n / 64u + select(0u, 1u, n % 64u != 0u);
	let tilesM = m / 64u + select(0u, 1u, m % 64u != 0u);
	let tiles = tilesN * tilesM;
	let total = nwg.x * nwg.y * nwg.z;
	let tx = lid.x;
	let ty = lid.y;
	for (var t = ag_linear(wg, nwg); t < tiles; t += total) {
		let row0 = (t / tilesN) * 64u;
		let col0 = (t % tilesN) * 64u;
		// Thread (tx, ty) owns rows row0 + ty + 16·i and columns col0 + tx + 16·j.
		var acc0 = vec4<f32>(0.0);
		var acc1 = vec4<f32>(0.0);
		var acc2 = vec4<f32>(0.0);
		var acc3 = vec4<f32>(0.0);
		for (var k0 = 0u; k0 < k; k0 += 16u) {
			for (var q = 0u; q < 4u; q++) {
				let e = li + 256u * q;
				// A: row e/16 of the tile, k offset e%16 (16 consecutive k of a row).
				let ar = row0 + e / 16u;
				let ak = k0 + e % 16u;
				var av = 0.0;
				if (ar < m && ak < k) { av = sg_a[ar * k + ak]; }
				sg_as[(e % 16u) * 65u + e / 16u] = av;
				// B: k offset e/64, column e%64 (64 consecutive columns of a row).
				let bk = k0 + e / 64u;
				let bc = col0 + e % 64u;
				var bv = 0.0;
				if (bk < k && bc < n) { bv = sg_b[bk * n + bc]; }
				sg_bs[e] = bv;
			}
			workgroupBarrier();
			for (var kk = 0u; kk < 16u; kk++) {
				let ab = kk * 65u + ty;
				let bb = kk * 64u + tx;
				let b = vec4<f32>(sg_bs[bb], sg_bs[bb + 16u], sg_bs[bb + 32u], sg_bs[bb + 48u]);
				acc0 = fma(vec4<f32>(sg_as[ab]), b, acc0);
				acc1 = fma(vec4<f32>(sg_as[ab + 16u]), b, acc1);
				acc2 = fma(vec4<f32>(sg_as[ab + 32u]), b, acc2);
				acc3 = fma(vec4<f32>(sg_as[ab + 48u]), b, acc3);
			}
			workgroupBarrier();
			if (16u > k - k0) { break; }
		}
		let alpha = sg_p.alpha;
		let beta = sg_p.beta;
		for (var i = 0u; i < 4u; i++) {
			let r = row0 + ty + 16u * i;
			var acc = acc0;
			if (i == 1u) { acc = acc1; }
			if (i == 2u) { acc = acc2; }
			if (i == 3u) { acc = acc3; }
			for (var j = 0u; j < 4u; j++) {
				let c = col0 + tx + 16u * j;
				if (r < m && c < n) {
					let idx = r * n + c;
					if (beta == 0.0) {
						sg_c[idx] = alpha * acc[j];
					} else {
						sg_c[idx] = fma(alpha, acc[j], beta * sg_c[idx]);
					}
				}
			}
		}
		if (total > tiles - t) { break; }
	}
}
`
