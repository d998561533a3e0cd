package cuda

import (
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
	"github.com/anygpu/gpu/kernel/internal/opt"
	"github.com/anygpu/gpu/nvrtc"
)

// ldmSrc is a FlashAttention-like tile: keys and values copied to shared
// arrays with CopyAsync (double-buffered), Q by LoadMatrices4, K's B
// fragments by LoadMatrices2 and V's by transposed LoadMatrices4, then
// MMAs.
const ldmSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:maxthreads 64
//gpu:kernel
func Tile(o []float32, q []uint32, kv []float32, tiles uint32) {
	qs := kernel.Shared[[1024]uint32]()
	ks := kernel.Shared[[2 * 1024]uint32]()
	tid := kernel.ThreadIndex()
	lane := tid % 32
	for i := tid; i < 1024; i += 64 {
		qs[i] = q[i]
	}
	kernel.CopyAsync(ks, tid, kv, tid)
	kernel.CopyAsyncCommit()
	kernel.Barrier()
	var qf [4]uint32
	kernel.LoadMatrices4(&qf, qs, (lane%16)*8+(lane/16)*4, false)
	var acc [2][4]float32
	for s := uint32(0); s < tiles; s++ {
		if s+1 < tiles {
			kernel.CopyAsync(ks, ((s+1)%2)*256+tid, kv, (s+1)*64+tid)
		}
		kernel.CopyAsyncCommit()
		kernel.CopyAsyncWait(1)
		kernel.Barrier()
		var kf [2]uint32
		kernel.LoadMatrices2(&kf, ks, (s%2)*1024+(lane%16)*8, false)
		var vf [4]uint32
		kernel.LoadMatrices4(&vf, ks, (s%2)*1024+(lane%16)*8+(lane/16)*4, true)
		var v2 [2]uint32
		kernel.LoadMatrices2(&v2, ks, (s%2)*1024+lane*8, true)
		kernel.MMA(&acc[0], &qf, &kf, kernel.PrecisionBFloat16)
		kernel.MMA(&acc[1], &vf, &v2, kernel.PrecisionFloat16)
		kernel.Barrier()
	}
	kernel.CopyAsyncWait(0)
	for j := 0; j < 2; j++ {
		for r := 0; r < 4; r++ {
			o[tid*8+uint32(j*4+r)] = acc[j][r]
		}
	}
}
`

// emitLdm translates ldmSrc as package kernel does for CUDA.
func emitLdm(t *testing.T) string {
	t.Helper()
	m, err := front.Load([]front.File{{Name: "ldm.go", Src: ldmSrc}})
	require.NoError(t, err)
	opt.Module(m)
	text, err := Emit(m)
	require.NoError(t, err)
	return text
}

// TestLoadMatricesText checks the emitted helpers and calls of
// LoadMatrices and CopyAsync: ldmatrix under sm_75's guard with the
// __shfl_sync emulation under #else, cp.async under sm_80's with a plain
// copy under #else, the shared arrays 16-byte aligned, no barrier but the
// kernel's own.
func TestLoadMatricesText(t *testing.T) {
	text := emitLdm(t)
	for _, tt := range []struct {
		name string
		has  []string
	}{
		{"anygpu_ldsm_x4", []string{"#if __CUDA_ARCH__ >= 750", "(unsigned)__cvta_generic_to_shared(s + at)",
			`asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a) : "memory");`,
			"#else", "r[i] = s[__shfl_sync(0xffffffffu, at, (int)(8u * i + g)) + t];"}},
		{"anygpu_ldsm_x2", []string{`"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a)`}},
		{"anygpu_ldsm_x4_trans", []string{"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
			"__shfl_sync(0xffffffffu, at, (int)(8u * i + 2u * t + 1u))"}},
		{"anygpu_ldsm_x2_trans", []string{"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"}},
		{"anygpu_cp_async16", []string{"#if __CUDA_ARCH__ >= 800",
			`asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" : : "r"((unsigned)__cvta_generic_to_shared(d)), "l"(s) : "memory");`,
			"*reinterpret_cast<uint4*>(d) = *reinterpret_cast<const uint4*>(s);"}},
		{"anygpu_cp_async_commit", []string{`asm volatile("cp.async.commit_group;" : : : "memory");`}},
		{"anygpu_cp_async_wait", []string{`asm volatile("cp.async.wait_group %0;" : : "n"(N) : "memory");`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := helperText(t, text, tt.name)
			for _, s := range tt.has {
				assert.Contains(t, body, s)
			}
			assert.NotContains(t, body, "__syncthreads")
		})
	}
	k := text[strings.Index(text, "extern \"C\" __global__"):]
	for _, s := range []string{"__shared__ __align__(16) unsigned qs[1024];", "__shared__ __align__(16) unsigned ks[2048];",
		"anygpu_ldsm_x4(qf, qs, ", "anygpu_ldsm_x2(kf, ks, ", "anygpu_ldsm_x4_trans(vf, ks, ", "anygpu_ldsm_x2_trans(v2, ks, ",
		"anygpu_cp_async16(ks + 4u * (tid), reinterpret_cast<const uint4*>(kv) + (tid));",
		"anygpu_cp_async_commit();", "anygpu_cp_async_wait<1>();", "anygpu_cp_async_wait<0>();"} {
		assert.Contains(t, k, s)
	}
	assert.Equal(t, 3, strings.Count(k, "__syncthreads()"), "the kernel's own barriers only")
}

// TestLoadMatricesNVRTC compiles the emitted LoadMatrices and CopyAsyncs
// with the installed NVRTC: the emulations before sm_75 (ldmatrix) and
// sm_80 (cp.async), the instructions from there.
func TestLoadMatricesNVRTC(t *testing.T) {
	if err := nvrtc.Available(); err != nil {
		if testreq.Required("nvrtc") {
			t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names nvrtc) but unavailable: %v", err)
		}
		t.Skipf("no NVRTC: %v", err)
	}
	text := emitLdm(t)
	for _, arch := range []string{"compute_70", "compute_75", "compute_80", "sm_80", "sm_90"} {
		t.Run(arch, func(t *testing.T) {
			r, err := nvrtc.Compile(text, nvrtc.Options{Arch: arch, PTX: strings.HasPrefix(arch, "compute"), NoCache: true})
			require.NoError(t, err, "NVRTC rejects the emitted text:\n%s", numbered(text))
			switch arch {
			case "compute_80":
				for _, s := range []string{"ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
					"ldmatrix.sync.aligned.m8n8.x2.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
					"cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group 1", "cp.async.wait_group 0"} {
					assert.Contains(t, r.PTX, s)
				}
				assert.NotContains(t, r.PTX, ".local", "the fragments stay in registers")
			case "compute_75":
				assert.Contains(t, r.PTX, "ldmatrix.sync.aligned.m8n8.x4")
				assert.NotContains(t, r.PTX, "cp.async")
			case "compute_70":
				assert.NotContains(t, r.PTX, "ldmatrix")
				assert.NotContains(t, r.PTX, "cp.async")
				assert.Contains(t, r.PTX, "shfl.sync")
			}
		})
	}
}

// TestLoadMatricesEmulationOnHost runs the emitted pre-sm_75 emulations of
// the four ldmatrix helpers on 32 host threads (clang++, C++20, the MMA
// harness's __shfl_sync) and checks each lane's words against
// kernel.LoadMatrices' documented layout: lane l gives row l%8 of matrix
// l/8; lane (g, t) gets word t of row g of matrix i, or, transposed, the
// halves (2t, g) and (2t+1, g).
func TestLoadMatricesEmulationOnHost(t *testing.T) {
	cxx, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip("clang++ is not installed")
	}
	text := emitLdm(t)
	r := rand.New(rand.NewPCG(11, 12))
	var s [256]uint32
	for i := range s {
		s[i] = r.Uint32()
	}
	var at [32]uint32
	for l := range at {
		at[l] = 4 * uint32(r.IntN(64))
	}
	for _, tt := range []struct {
		fn    string
		n     int
		trans bool
	}{{"anygpu_ldsm_x4", 4, false}, {"anygpu_ldsm_x4_trans", 4, true}, {"anygpu_ldsm_x2", 2, false}, {"anygpu_ldsm_x2_trans", 2, true}} {
		t.Run(tt.fn, func(t *testing.T) {
			var in strings.Builder
			for _, w := range append(s[:], at[:]...) {
				in.WriteString(strconv.FormatUint(uint64(w), 10) + " ")
			}
			harness := strings.Replace(mmaHostHarness, "#define __device__\n", "#define __device__\nstatic const unsigned HALF_TABLE[1] = {0};\n", 1)
			n := strconv.Itoa(tt.n)
			main := `int main() {
	static unsigned s[256], at[32], r[32][` + n + `];
	for (int i = 0; i < 256; i++) if (scanf("%u", &s[i]) != 1) return 1;
	for (int l = 0; l < 32; l++) if (scanf("%u", &at[l]) != 1) return 1;
	std::vector<std::thread> lanes;
	for (unsigned l = 0; l < 32; l++) lanes.emplace_back([l] {
		threadIdx = {l, 0, 0};
		` + tt.fn + `(r[l], s, at[l]);
	});
	for (auto& th : lanes) th.join();
	for (int l = 0; l < 32; l++) for (int i = 0; i < ` + n + `; i++) printf("%u ", r[l][i]);
	return 0;
}
`
			src := harness + helperText(t, text, tt.fn) + main
			dir := t.TempDir()
			file, exe := filepath.Join(dir, "ldm.cc"), filepath.Join(dir, "ldm")
			require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
			out, err := exec.Command(cxx, "-std=c++20", "-O1", "-pthread", "-Werror", "-Wno-unknown-pragmas", "-Wno-unused-function", "-o", exe, file).CombinedOutput()
			require.NoError(t, err, "clang++:\n%s", out)
			cmd := exec.Command(exe)
			cmd.Stdin = strings.NewReader(in.String())
			out, err = cmd.Output()
			require.NoError(t, err)
			fields := strings.Fields(string(out))
			require.Len(t, fields, 32*tt.n)
			row := func(i, r int) []uint32 { a := at[8*i+r]; return s[a : a+4] }
			half := func(i, r, c int) uint32 { return row(i, r)[c/2] >> (16 * (c % 2)) & 0xffff }
			for l := range 32 {
				g, q := l/4, l%4
				for i := range tt.n {
					want := row(i, g)[q]
					if tt.trans {
						want = half(i, 2*q, g) | half(i, 2*q+1, g)<<16
					}
					got, err := strconv.ParseUint(fields[l*tt.n+i], 10, 32)
					require.NoError(t, err)
					assert.Equal(t, want, uint32(got), "lane %d r[%d]", l, i)
				}
			}
		})
	}
}
