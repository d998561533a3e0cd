package metal

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
)

// TestInternalMSL parses the backend's own kernels and checks their bindings
// against how stream.go binds them: anygpu_fill32(dst, {count,
// value}) and anygpu_copy8(dst, src, {count}). FaultMSL follows the
// conformance suite's fault(x buffer, n u32).
func TestInternalMSL(t *testing.T) {
	if _, err := mslcheck.Clang(); err != nil {
		if backendtest.Required("msl") {
			t.Fatal(err)
		}
		t.Skipf("MSL check skipped: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := mslcheck.CheckABI(ctx, "internalMSL", internalMSL, map[string][]mslcheck.Kind{
		kernelFill32: {"buffer", "u32", "u32"},
		kernelCopy8:  {"buffer", "buffer", "u32"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := mslcheck.CheckABI(ctx, "FaultMSL", FaultMSL, map[string][]mslcheck.Kind{"fault": {"buffer", "u32"}}); err != nil {
		t.Fatal(err)
	}
}

// TestInternalKernelsExecute runs the internal kernels on the CPU the way
// the stream dispatches them (one chunk, internalGroups groups of 256) and
// checks the result, including a grid too small for the data (grid-stride).
func TestInternalKernelsExecute(t *testing.T) {
	if _, err := mslcheck.Clang(); err != nil {
		t.Skipf("MSL check skipped: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prog, err := mslcheck.Build(ctx, "internalMSL", internalMSL)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()

	words := make([]byte, 4*1000)
	for i := range words {
		words[i] = 0xee
	}
	region := words[4*3 : 4*3+4*990] // Fill binds the buffer at the range's offset
	fillParams := []byte{0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12}
	binary.LittleEndian.PutUint32(fillParams, 990)
	src := make([]byte, 777)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, 800)
	copyParams := make([]byte, 8)
	binary.LittleEndian.PutUint32(copyParams, 775)
	err = prog.Run(ctx, []mslcheck.Launch{
		{Kernel: kernelFill32, Grid: [3]int{internalGroups(990, 256), 1, 1}, Block: [3]int{256, 1, 1}, Buffers: [][]byte{region}, Params: fillParams},
		{Kernel: kernelCopy8, Grid: [3]int{1, 1, 1}, Block: [3]int{64, 1, 1}, Buffers: [][]byte{dst[5:780], src[1:776]}, Params: copyParams},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		want := uint32(0xeeeeeeee)
		if i >= 3 && i < 993 {
			want = 0x12345678
		}
		if got := binary.LittleEndian.Uint32(words[4*i:]); got != want {
			t.Fatalf("word %d = %#x, want %#x", i, got, want)
		}
	}
	for i := range dst {
		want := byte(0)
		if i >= 5 && i < 780 {
			want = src[i-4]
		}
		if dst[i] != want {
			t.Fatalf("byte %d = %d, want %d", i, dst[i], want)
		}
	}
}
