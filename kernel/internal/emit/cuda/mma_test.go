package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/kmath"
	"github.com/anygpu/gpu/kernel/internal/opt"
	"github.com/anygpu/gpu/nvrtc"
)

// mmaSrc is an attention-like use of MMA: Q fragments loaded once, a loop
// over four 16×8 tiles of scores, each the sum of two MMAs, then the scores
// repacked as the A fragments of a second product, in bfloat16 and float16.
const mmaSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:maxthreads 128
//gpu:kernel
func Attn(o []float32, q, k []uint32) {
	lane := kernel.ThreadIndex() % 32
	var qf [2][4]uint32
	var kf [4][2][2]uint32
	var s [4][4]float32
	for i := 0; i < 2; i++ {
		for r := 0; r < 4; r++ {
			qf[i][r] = q[lane*8+uint32(i*4+r)]
		}
	}
	for j := 0; j < 4; j++ {
		for i := 0; i < 2; i++ {
			kf[j][i][0] = k[lane*16+uint32(j*4+i*2)]
			kf[j][i][1] = k[lane*16+uint32(j*4+i*2+1)]
		}
	}
	for j := 0; j < 4; j++ {
		for i := 0; i < 2; i++ {
			kernel.MMA(&s[j], &qf[i], &kf[j][i], kernel.PrecisionBFloat16)
		}
	}
	var p [4]uint32
	p[0] = kernel.PackHalves(s[0][0], s[0][1], kernel.PrecisionFloat16)
	p[1] = kernel.PackHalves(s[0][2], s[0][3], kernel.PrecisionFloat16)
	p[2] = kernel.PackHalves(s[1][0], s[1][1], kernel.PrecisionFloat16)
	p[3] = kernel.PackHalves(s[1][2], s[1][3], kernel.PrecisionBFloat16)
	var acc [4]float32
	kernel.MMA(&acc, &p, &kf[2][0], kernel.PrecisionFloat16)
	for r := 0; r < 4; r++ {
		o[kernel.ThreadIndex()*4+uint32(r)] = acc[r] + s[3][r]
	}
}
`

// emitMMA translates mmaSrc as package kernel does for CUDA (its loops
// unrolled first) and returns the text.
func emitMMA(t *testing.T) string {
	t.Helper()
	m, err := front.Load([]front.File{{Name: "mma.go", Src: mmaSrc}})
	require.NoError(t, err)
	opt.Module(m)
	text, err := Emit(m)
	require.NoError(t, err)
	return text
}

// helperText is the definition of helper name in text.
func helperText(t *testing.T, text, name string) string {
	t.Helper()
	i := strings.Index(text, " "+name+"(")
	require.GreaterOrEqual(t, i, 0, "no helper %s in\n%s", name, text)
	i = strings.LastIndex(text[:i], "\n") + 1
	if c := strings.LastIndex(text[:i], "\n\n"); strings.HasPrefix(text[c+2:], "//") {
		i = c + 2 // with its comment
	}
	j := strings.Index(text[i:], "\n}\n")
	require.Positive(t, j)
	return text[i : i+j+3]
}

// TestMMAText checks the structure of emitted MMAs and PackHalves: one
// inlined helper per precision whose sm_80 path is a single mma.sync on
// "+f" and "r" operands, with the __shfl_sync emulation under #else; calls
// on the local arrays indexed by constants (the loops unrolled), which stay
// plain C arrays; no barrier anywhere; the packings' cvt with hi first.
func TestMMAText(t *testing.T) {
	text := emitMMA(t)
	tests := []struct {
		name       string
		has, hasnt []string
	}{
		{"anygpu_mma_bf16", []string{
			"__device__ __forceinline__ void anygpu_mma_bf16(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])",
			"#if __CUDA_ARCH__ >= 800",
			`asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"`,
			`: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])`,
			`: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));`,
			"#else", "__shfl_sync(0xffffffffu, upper ? a[2] : a[0], (int)(g * 4u + src))",
			"__shfl_sync(0xffffffffu, upper ? b[1] : b[0], (int)(8u * t + 4u + src))",
			"x0lo = __uint_as_float(w << 16); x0hi = __uint_as_float(w & 0xffff0000u);",
			"c[0] += x0lo * x2lo; c[0] += x0hi * x2hi;", "c[3] += x1lo * x3lo; c[3] += x1hi * x3hi;"},
			[]string{"__syncthreads", "f16.f16", "h2f"}},
		{"anygpu_mma_f16", []string{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
			"x1lo = anygpu_h2f((unsigned short)(w & 0xffffu)); x1hi = anygpu_h2f((unsigned short)(w >> 16));"},
			[]string{"__syncthreads", "bf16"}},
		{"anygpu_pack_bf16", []string{"#if __CUDA_ARCH__ >= 800",
			`asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));`, "anygpu_bf16_bits(lo) | (anygpu_bf16_bits(hi) << 16)"},
			nil},
		{"anygpu_pack_f16", []string{`asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));`,
			"(unsigned)anygpu_f2h(lo) | ((unsigned)anygpu_f2h(hi) << 16)"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := helperText(t, text, tt.name)
			for _, s := range tt.has {
				assert.Contains(t, body, s)
			}
			for _, s := range tt.hasnt {
				assert.NotContains(t, body, s)
			}
			assert.Equal(t, 1, strings.Count(text, " "+tt.name+"(float"), "one definition")
		})
	}
	k := text[strings.Index(text, "extern \"C\" __global__"):]
	assert.Contains(t, k, "__launch_bounds__(128) Attn(")
	for _, decl := range []string{"unsigned qf[2][4] = {};", "unsigned kf[4][2][2] = {};", "float s[4][4] = {};", "float acc[4] = {};"} {
		assert.Contains(t, k, decl, "the fragments are plain local arrays")
	}
	calls := []string{}
	for j := range 4 {
		for i := range 2 {
			calls = append(calls, fmt.Sprintf("anygpu_mma_bf16(s[%d], qf[%d], kf[%d][%d]);", j, i, j, i))
		}
	}
	calls = append(calls, "anygpu_mma_f16(acc, p, kf[2][0]);")
	last := 0
	for _, c := range calls {
		at := strings.Index(k, c)
		require.Greater(t, at, last, "%s, in order, indexed by constants, in\n%s", c, k)
		last = at
	}
	assert.Equal(t, len(calls), strings.Count(k, "anygpu_mma_"), "no other MMA call")
	assert.Contains(t, k, "p[0] = anygpu_pack_f16(s[0][0], s[0][1]);")
	assert.Contains(t, k, "p[3] = anygpu_pack_bf16(s[1][2], s[1][3]);")
	assert.NotContains(t, text, "__syncthreads", "MMA implies no barrier on CUDA")
	assert.NotContains(t, text, "__shared__")
	clangCheck(t, text)
	clangCheckArch(t, text, "sm_70")
}

// TestMMANVRTC compiles the emitted MMAs with the installed NVRTC: the
// emulation before sm_80, mma.sync and the packed conversions from sm_80.
func TestMMANVRTC(t *testing.T) {
	if err := nvrtc.Available(); err != nil {
		if testreq.Required("nvrtc") {
			t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names nvrtc) but unavailable: %v", err)
		}
		t.Skipf("no NVRTC: %v", err)
	}
	text := emitMMA(t)
	for _, arch := range []string{"compute_75", "compute_80", "sm_80", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			r, err := nvrtc.Compile(text, nvrtc.Options{Arch: arch, PTX: strings.HasPrefix(arch, "compute"), NoCache: true})
			require.NoError(t, err, "NVRTC rejects the emitted text:\n%s", numbered(text))
			switch arch {
			case "compute_80":
				assert.Contains(t, r.PTX, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
				assert.Contains(t, r.PTX, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")
				assert.Contains(t, r.PTX, "cvt.rn.bf16x2.f32")
				assert.NotContains(t, r.PTX, "shfl")
				assert.NotContains(t, r.PTX, ".local", "the fragments stay in registers")
			case "compute_75":
				assert.NotContains(t, r.PTX, "mma.sync")
				assert.Contains(t, r.PTX, "shfl.sync")
			}
		})
	}
}

// mmaHostHarness runs the helper named fn (the emulation under #else) on 32
// host threads in lockstep: __shfl_sync exchanges the lanes' values through
// an array between two barriers. Each lane's a, b and c come from stdin (4,
// 2 and 4 words); it prints the lanes' c as bits.
const mmaHostHarness = `#include <barrier>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#define __device__
#define __forceinline__ inline
struct anygpu_dim { unsigned x, y, z; };
static thread_local anygpu_dim threadIdx;
static const anygpu_dim blockDim = {32, 1, 1};
static unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static float anygpu_h2f(unsigned short h) { return __uint_as_float(HALF_TABLE[h]); }
static std::barrier<> anygpu_bar(32);
static unsigned anygpu_slots[32];
static unsigned __shfl_sync(unsigned, unsigned v, int src) {
	anygpu_slots[threadIdx.x] = v;
	anygpu_bar.arrive_and_wait();
	unsigned r = anygpu_slots[src];
	anygpu_bar.arrive_and_wait();
	return r;
}
`

// TestMMAEmulationOnHost runs the emitted pre-sm_80 emulation of both
// precisions on 32 host threads (clang++, C++20) and checks each lane's C
// against the product of the fragments in float64, with the fragments
// placed as kernel.MMA documents.
func TestMMAEmulationOnHost(t *testing.T) {
	cxx, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip("clang++ is not installed")
	}
	text := emitMMA(t)
	for _, tt := range []struct {
		fn     string
		decode func(uint16) float64
		encode func(float32) uint16
	}{
		{"anygpu_mma_bf16", func(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) },
			func(x float32) uint16 { return uint16(math.Float32bits(kmath.RoundBFloat16(x)) >> 16) }},
		{"anygpu_mma_f16", func(h uint16) float64 { return float64(kmath.Float32FromHalf(h)) }, kmath.HalfFromFloat32},
	} {
		t.Run(tt.fn, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(tt.fn))))
			var A [16][16]uint16
			var B [16][8]uint16
			var C [16][8]float32
			for i := range 16 {
				for k := range 16 {
					A[i][k] = tt.encode(float32(r.Float64()*4 - 2))
				}
			}
			for k := range 16 {
				for j := range 8 {
					B[k][j] = tt.encode(float32(r.Float64()*4 - 2))
				}
			}
			for i := range 16 {
				for j := range 8 {
					C[i][j] = float32(r.Float64()*2 - 1)
				}
			}
			pair := func(lo, hi uint16) uint32 { return uint32(lo) | uint32(hi)<<16 }
			var in strings.Builder
			for lane := range 32 {
				g, q := lane/4, lane%4
				words := []uint32{pair(A[g][2*q], A[g][2*q+1]), pair(A[g+8][2*q], A[g+8][2*q+1]),
					pair(A[g][2*q+8], A[g][2*q+9]), pair(A[g+8][2*q+8], A[g+8][2*q+9]),
					pair(B[2*q][g], B[2*q+1][g]), pair(B[2*q+8][g], B[2*q+9][g]),
					math.Float32bits(C[g][2*q]), math.Float32bits(C[g][2*q+1]), math.Float32bits(C[g+8][2*q]), math.Float32bits(C[g+8][2*q+1])}
				for _, w := range words {
					in.WriteString(strconv.FormatUint(uint64(w), 10) + " ")
				}
			}
			var table strings.Builder
			table.WriteString("static const unsigned HALF_TABLE[65536] = {")
			for h := range 65536 {
				table.WriteString(strconv.FormatUint(uint64(math.Float32bits(kmath.Float32FromHalf(uint16(h)))), 10) + "u,")
			}
			table.WriteString("};\n")
			harness := strings.Replace(mmaHostHarness, "#define __device__\n", "#define __device__\n"+table.String(), 1)
			main := `int main() {
	static unsigned in[32][10];
	for (int l = 0; l < 32; l++) for (int i = 0; i < 10; i++) if (scanf("%u", &in[l][i]) != 1) return 1;
	static float c[32][4];
	std::vector<std::thread> lanes;
	for (unsigned l = 0; l < 32; l++) lanes.emplace_back([l] {
		threadIdx = {l, 0, 0};
		const unsigned a[4] = {in[l][0], in[l][1], in[l][2], in[l][3]};
		const unsigned b[2] = {in[l][4], in[l][5]};
		for (int i = 0; i < 4; i++) c[l][i] = __uint_as_float(in[l][6 + i]);
		` + tt.fn + `(c[l], a, b);
	});
	for (auto& th : lanes) th.join();
	for (int l = 0; l < 32; l++) for (int i = 0; i < 4; i++) printf("%u ", __float_as_uint(c[l][i]));
	return 0;
}
`
			src := harness + helperText(t, text, tt.fn) + main
			dir := t.TempDir()
			file, exe := filepath.Join(dir, "mma.cc"), filepath.Join(dir, "mma")
			require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
			out, err := exec.Command(cxx, "-std=c++20", "-O1", "-pthread", "-Werror", "-Wno-unknown-pragmas", "-o", exe, file).CombinedOutput()
			require.NoError(t, err, "clang++:\n%s", out)
			cmd := exec.Command(exe)
			cmd.Stdin = strings.NewReader(in.String())
			out, err = cmd.Output()
			require.NoError(t, err)
			fields := strings.Fields(string(out))
			require.Len(t, fields, 128)
			for lane := range 32 {
				g, q := lane/4, lane%4
				for i, at := range [4][2]int{{g, 2 * q}, {g, 2*q + 1}, {g + 8, 2 * q}, {g + 8, 2*q + 1}} {
					want, mag := float64(C[at[0]][at[1]]), math.Abs(float64(C[at[0]][at[1]]))
					for k := range 16 {
						x := tt.decode(A[at[0]][k]) * tt.decode(B[k][at[1]])
						want += x
						mag += math.Abs(x)
					}
					bits, err := strconv.ParseUint(fields[lane*4+i], 10, 32)
					require.NoError(t, err)
					got := float64(math.Float32frombits(uint32(bits)))
					assert.InDelta(t, want, got, mag*0x1p-20, "lane %d c[%d] = C[%d][%d]", lane, i, at[0], at[1])
				}
			}
		})
	}
}
