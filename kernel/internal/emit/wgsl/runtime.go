package wgsl

// The emitter's own WGSL declarations, shared by every kernel of a module:
// the launch geometry's struct and the helpers that give WGSL's operators
// Go's semantics. Each is declared once, in this order, when some emitted
// kernel needs it.

// blockConsts declares the work-group size every entry point takes; the
// WebGPU backend rewrites the three values to the launch's block.
const blockConsts = `const anygpu_block_x: u32 = 64u;
const anygpu_block_y: u32 = 1u;
const anygpu_block_z: u32 = 1u;
`

// launchStruct is the launch geometry the WebGPU backend appends to the
// uniform block, at the next 16-byte boundary after the scalars: the grid
// (in groups) and the block (in threads) as launched.
const launchStruct = `struct ag_Launch {
	grid: vec4<u32>,
	block: vec4<u32>,
}
`

// runtimeHelper is one helper: its name, what it needs, and its text.
type runtimeHelper struct {
	name  string
	needs []string
	text  string
}

// runtimeHelpers are the helpers, dependencies first.
var runtimeHelpers = []runtimeHelper{
	{name: "ag_group", text: `// ag_group is this group's index in the launch's grid (xyz) and whether the group
// is one of the launch's (w = 1) or pads a folded dispatch (w = 0). A grid
// wider than WebGPU's dispatch limit is dispatched folded into x and y; a
// folded one-dimensional grid (the common case) is unfolded without a
// division, any other with two.
fn ag_group(grid: vec3<u32>, wg: vec3<u32>, nwg: vec3<u32>) -> vec4<u32> {
	if (all(nwg == grid)) {
		return vec4<u32>(wg, 1u);
	}
	let lin = wg.x + nwg.x * (wg.y + nwg.y * wg.z);
	if (grid.y == 1u && grid.z == 1u) {
		return vec4<u32>(lin, 0u, 0u, select(0u, 1u, lin < grid.x));
	}
	let yz = lin / grid.x;
	let z = yz / grid.y;
	return vec4<u32>(lin - yz * grid.x, yz - z * grid.y, z, select(0u, 1u, z < grid.z));
}
`},
	{name: "ag_div_i32", text: `// ag_div_i32 is Go's a / b, with a / 0 == a (as WGSL) and MinInt32 / -1 ==
// MinInt32, never dividing by 0 or -1 in a way a native dialect leaves undefined.
fn ag_div_i32(a: i32, b: i32) -> i32 {
	let d = select(b, 1i, b == 0i || (a == bitcast<i32>(0x80000000u) && b == -1i));
	return a / d;
}
`},
	{name: "ag_rem_i32", text: `// ag_rem_i32 is Go's a % b (the sign of a), with a % 0 == 0 and
// MinInt32 % -1 == 0, from a truncating division.
fn ag_rem_i32(a: i32, b: i32) -> i32 {
	let d = select(b, 1i, b == 0i || (a == bitcast<i32>(0x80000000u) && b == -1i));
	return a - (a / d) * d;
}
`},
	{name: "ag_div_u32", text: `// ag_div_u32 is Go's a / b, with a / 0 == a.
fn ag_div_u32(a: u32, b: u32) -> u32 {
	return a / select(b, 1u, b == 0u);
}
`},
	{name: "ag_rem_u32", text: `// ag_rem_u32 is Go's a % b, with a % 0 == 0.
fn ag_rem_u32(a: u32, b: u32) -> u32 {
	let d = select(b, 1u, b == 0u);
	return a - (a / d) * d;
}
`},
	{name: "ag_abs_i32", text: `// ag_abs_i32 is |x| with Go's wrap-around (|MinInt32| == MinInt32), written
// with bit operations: drivers assume abs() is never negative (Mesa folded
// (abs(x) >> 38) % 32 of MinInt32 to -33).
fn ag_abs_i32(x: i32) -> i32 {
	let m = bitcast<u32>(x >> 31u);
	return bitcast<i32>((bitcast<u32>(x) ^ m) - m);
}
`},
	{name: "ag_isnan", text: `// ag_isnan reports whether x is a NaN, from its bits (a compiler may assume
// that x != x is false).
fn ag_isnan(x: f32) -> bool {
	return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}
`},
	{name: "ag_min_f32", needs: []string{"ag_isnan"}, text: `// ag_min_f32 is Go's min: NaN if either is NaN, and -0 below +0.
fn ag_min_f32(a: f32, b: f32) -> f32 {
	if (ag_isnan(a)) { return a; }
	if (ag_isnan(b)) { return b; }
	if (a == b) { return bitcast<f32>(bitcast<u32>(a) | bitcast<u32>(b)); }
	return select(b, a, a < b);
}
`},
	{name: "ag_max_f32", needs: []string{"ag_isnan"}, text: `// ag_max_f32 is Go's max: NaN if either is NaN, and +0 above -0.
fn ag_max_f32(a: f32, b: f32) -> f32 {
	if (ag_isnan(a)) { return a; }
	if (ag_isnan(b)) { return b; }
	if (a == b) { return bitcast<f32>(bitcast<u32>(a) & bitcast<u32>(b)); }
	return select(b, a, a > b);
}
`},
	{name: "ag_sg_min_f32", needs: []string{"ag_min_f32"}, text: `// ag_sg_min_f32 is SubgroupMin of a float with Go's min, the same in every
// lane: a butterfly over the subgroup's size lanes.
fn ag_sg_min_f32(v: f32, size: u32) -> f32 {
	var m = v;
	for (var d = 1u; d < size; d = d << 1u) {
		m = ag_min_f32(m, subgroupShuffleXor(m, d));
	}
	return m;
}
`},
	{name: "ag_sg_max_f32", needs: []string{"ag_max_f32"}, text: `// ag_sg_max_f32 is SubgroupMax of a float with Go's max, the same in every
// lane: a butterfly over the subgroup's size lanes.
fn ag_sg_max_f32(v: f32, size: u32) -> f32 {
	var m = v;
	for (var d = 1u; d < size; d = d << 1u) {
		m = ag_max_f32(m, subgroupShuffleXor(m, d));
	}
	return m;
}
`},
	{name: "ag_f32_to_i32", needs: []string{"ag_isnan"}, text: `// ag_f32_to_i32 truncates x toward zero, saturating (NaN is 0).
fn ag_f32_to_i32(x: f32) -> i32 {
	if (ag_isnan(x)) { return 0i; }
	if (x >= 2147483648.0f) { return 2147483647i; }
	if (x <= -2147483648.0f) { return -2147483647i - 1i; }
	return i32(x);
}
`},
	{name: "ag_f32_to_u32", needs: []string{"ag_isnan"}, text: `// ag_f32_to_u32 truncates x toward zero, saturating (NaN is 0).
fn ag_f32_to_u32(x: f32) -> u32 {
	if (ag_isnan(x) || x <= 0.0f) { return 0u; }
	if (x >= 4294967296.0f) { return 4294967295u; }
	return u32(x);
}
`},
	{name: "ag_shl_i32", text: `// ag_shl_i32 is Go's x << s: 0 once s reaches the width.
fn ag_shl_i32(x: i32, s: u32) -> i32 {
	return select(0i, x << (s & 31u), s < 32u);
}
`},
	{name: "ag_shl_u32", text: `// ag_shl_u32 is Go's x << s: 0 once s reaches the width.
fn ag_shl_u32(x: u32, s: u32) -> u32 {
	return select(0u, x << (s & 31u), s < 32u);
}
`},
	{name: "ag_shr_i32", text: `// ag_shr_i32 is Go's x >> s: the sign once s reaches the width.
fn ag_shr_i32(x: i32, s: u32) -> i32 {
	return x >> min(s, 31u);
}
`},
	{name: "ag_shr_u32", text: `// ag_shr_u32 is Go's x >> s: 0 once s reaches the width.
fn ag_shr_u32(x: u32, s: u32) -> u32 {
	return select(0u, x >> (s & 31u), s < 32u);
}
`},
	{name: "ag_round_bf16", text: `// ag_round_bf16 is x rounded to the nearest bfloat16, ties to even (NaN kept).
fn ag_round_bf16(x: f32) -> f32 {
	let b = bitcast<u32>(x);
	if ((b & 0x7fffffffu) > 0x7f800000u) {
		return x;
	}
	return bitcast<f32>((b + 0x7fffu + ((b >> 16u) & 1u)) & 0xffff0000u);
}
`},
	{name: "ag_round_f16", text: `// ag_round_f16 is x rounded to the nearest float16, ties to even, as a float32:
// beyond 65504 by half a step or more an infinity, subnormal halves kept (multiples
// of 2**-24), NaN kept.
fn ag_round_f16(x: f32) -> f32 {
	let b = bitcast<u32>(x);
	let sign = b & 0x80000000u;
	let a = b & 0x7fffffffu;
	if (a > 0x7f800000u) {
		return x;
	}
	if (a >= 0x477ff000u) {
		return bitcast<f32>(sign | 0x7f800000u);
	}
	if (a >= 0x38800000u) {
		return bitcast<f32>(sign | ((a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u));
	}
	let e = a >> 23u;
	if (e < 102u) {
		return bitcast<f32>(sign);
	}
	let m = (a & 0x7fffffu) | 0x800000u;
	let sh = 126u - e;
	let q = (m + (1u << (sh - 1u)) - 1u + ((m >> sh) & 1u)) >> sh;
	return bitcast<f32>(sign | bitcast<u32>(f32(q) * bitcast<f32>(0x33800000u)));
}
`},
}

// runtimeIndex is runtimeHelpers by name.
var runtimeIndex = func() map[string]int {
	m := map[string]int{}
	for i, h := range runtimeHelpers {
		m[h.name] = i
	}
	return m
}()

// addNeed adds helper name and what it needs to set.
func addNeed(set map[string]bool, name string) {
	if set[name] {
		return
	}
	set[name] = true
	for _, n := range runtimeHelpers[runtimeIndex[name]].needs {
		addNeed(set, n)
	}
}

// runtimeText is the text of the helpers in set, in table order.
func runtimeText(set map[string]bool) string {
	var out string
	for _, h := range runtimeHelpers {
		if set[h.name] {
			out += "\n" + h.text
		}
	}
	return out
}
