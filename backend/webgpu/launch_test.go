//go:build cgo

package webgpu_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// literalWGSL is a kernel that takes its block literally: one thread per
// element from the global invocation id, at the work-group size of its
// source, and no launch geometry in its uniform.
const literalWGSL = `
struct P { n: u32, k: u32 }
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@group(0) @binding(1) var<uniform> p: P;

@compute @workgroup_size(64)
fn add(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x < p.n) { y[gid.x] = y[gid.x] + p.k; }
}

// conflict reads x and writes y: the same buffer for both is a usage
// conflict that WebGPU's validation rejects.
@group(0) @binding(0) var<storage, read> cx: array<u32>;
@group(0) @binding(1) var<storage, read_write> cy: array<u32>;

@compute @workgroup_size(64)
fn conflict(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x < arrayLength(&cy)) { cy[gid.x] = cx[gid.x]; }
}
`

// literalGLSL is literalWGSL's add in GLSL.
const literalGLSL = `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { uint y[]; };
layout(std140, binding = 1) uniform P { uint n; uint k; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < n) y[i] += k;
}
`

func literalKernel(t testing.TB, dev *gpu.Device, src gpu.Source, name string) *gpu.Kernel {
	t.Helper()
	mod, err := dev.Compile(context.Background(), src)
	require.NoError(t, err)
	t.Cleanup(func() { _ = mod.Close() })
	k, err := mod.Kernel(name)
	require.NoError(t, err)
	return k
}

// TestLaunchBlockMismatch launches kernels whose source fixes a work-group
// size of 64 with other blocks: refused at Launch, naming both sizes, and
// nothing of them runs; the kernel's own size runs whole.
func TestLaunchBlockMismatch(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		src  gpu.Source
	}{
		{"WGSL", gpu.Source{Name: "lit", WGSL: literalWGSL, Params: map[string][]gpu.ArgKind{"add": {gpu.KindBuffer, gpu.KindU32, gpu.KindU32}}}},
		{"WGSL without Params", gpu.Source{Name: "lit", WGSL: literalWGSL}},
		{"GLSL", gpu.Source{Name: "add", GLSL: literalGLSL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := literalKernel(t, dev, tc.src, "add")
			const n = 256
			y, err := gpu.FromSlice(ctx, dev, make([]uint32, n))
			require.NoError(t, err)
			defer y.Close()
			st := dev.DefaultStream()
			for _, geo := range []struct{ grid, block gpu.Dim3 }{
				{gpu.D1(2), gpu.D1(128)},
				{gpu.D1(8), gpu.D1(32)},
				{gpu.D1(4), gpu.D2(64, 2)},
			} {
				err := st.Launch(k, geo.grid, geo.block, gpu.Buf(y), gpu.U32(n), gpu.U32(1))
				require.Error(t, err, "block %v", geo.block)
				assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
				assert.Contains(t, err.Error(), "64", "names the kernel's size")
				assert.Contains(t, err.Error(), fmt.Sprint(geo.block.X), "names the launch's block")
			}
			got, err := gpu.ToSlice[uint32](ctx, y)
			require.NoError(t, err)
			require.Equal(t, make([]uint32, n), got, "a refused launch runs nothing")
			require.NoError(t, st.Launch(k, gpu.D1(n/64), gpu.D1(64), gpu.Buf(y), gpu.U32(n), gpu.U32(3)))
			got, err = gpu.ToSlice[uint32](ctx, y)
			require.NoError(t, err)
			for i := range got {
				require.Equal(t, uint32(3), got[i], "element %d", i)
			}
		})
	}
}

// TestInvalidLaunchAlone has 64 goroutines launch on one device, one of
// them a launch WebGPU's validation rejects (a buffer bound read-only and
// read-write in one dispatch): that launch alone is refused, at Launch, with
// InvalidArgument, and every other goroutine's work lands.
func TestInvalidLaunchAlone(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	add := literalKernel(t, dev, gpu.Source{Name: "lit", WGSL: literalWGSL}, "add")
	conflict := literalKernel(t, dev, gpu.Source{Name: "lit2", WGSL: literalWGSL}, "conflict")
	const goroutines, n, rounds = 64, 1024, 20
	var wg sync.WaitGroup
	errs := make([]error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g] = func() error {
				st, err := dev.NewStream()
				if err != nil {
					return err
				}
				defer st.Close()
				y, err := gpu.FromSlice(ctx, dev, make([]uint32, n))
				if err != nil {
					return err
				}
				defer y.Close()
				want := uint32(0)
				for r := range rounds {
					if g == 7 && r == rounds/2 {
						err := st.Launch(conflict, gpu.D1(n/64), gpu.D1(64), gpu.Buf(y), gpu.Buf(y))
						if errors.CategoryOf(err) != errors.InvalidArgument {
							return fmt.Errorf("the conflicting launch: want InvalidArgument, got %v", err)
						}
					}
					k := uint32(g*rounds + r + 1)
					if err := st.Launch(add, gpu.D1(n/64), gpu.D1(64), gpu.Buf(y), gpu.U32(n), gpu.U32(k)); err != nil {
						return err
					}
					want += k
				}
				if err := st.Synchronize(ctx); err != nil {
					return err
				}
				raw := make([]byte, 4*n)
				if err := st.Read(raw, y, 0); err != nil {
					return err
				}
				if err := st.Synchronize(ctx); err != nil {
					return err
				}
				for i := range n {
					if v := binary.LittleEndian.Uint32(raw[4*i:]); v != want {
						return fmt.Errorf("element %d is %d, want %d", i, v, want)
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for g, err := range errs {
		assert.NoError(t, err, "goroutine %d", g)
	}
}

// TestGarbageSource compiles random bytes as each dialect: a Compilation
// error with the compiler's log, never a module.
func TestGarbageSource(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(14, 4))
	for i := range 8 {
		garbage := make([]byte, 256+4*i)
		for j := range garbage {
			garbage[j] = byte(r.Uint32())
		}
		for _, src := range []gpu.Source{
			{Name: "garbage", WGSL: string(garbage)},
			{Name: "garbage", WGSL: string(garbage), Params: map[string][]gpu.ArgKind{"garbage": {gpu.KindBuffer}}},
			{Name: "garbage", GLSL: string(garbage)},
			{Name: "garbage", SPIRV: garbage},
			{Name: "garbage", SPIRVKernels: map[string][]byte{"garbage": garbage}},
		} {
			mod, err := dev.Compile(ctx, src)
			if mod != nil {
				_ = mod.Close()
			}
			require.Error(t, err, "%d: %+v", i, src)
			assert.Equal(t, errors.Compilation, errors.CategoryOf(err), "%v", err)
			assert.NotEmpty(t, errors.LogOf(err), "%v", err)
		}
	}
}
