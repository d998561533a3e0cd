package prebuilt_test

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/prebuilt"
)

// BenchmarkKey is the lookup's hashing of the largest built-in program.
func BenchmarkKey(b *testing.B) {
	var src backend.Source
	for _, p := range builtinPrograms() {
		if len(p.src.CUDA) > len(src.CUDA) {
			src = p.src
		}
	}
	o := prebuilt.NVRTCOptions(src, backend.CompileOptions{}, nil)
	b.SetBytes(int64(len(src.CUDA)))
	for b.Loop() {
		_ = prebuilt.Key(src.CUDA, o)
	}
}

// BenchmarkImageBytes reads, inflates and checks a 512 KiB image whose
// bytes compress about as a CUBIN does (runs of zeros among varied words).
func BenchmarkImageBytes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	img := make([]byte, 512<<10)
	for i := 0; i < len(img); i += 16 {
		if rng.IntN(3) > 0 {
			for j := range 8 {
				img[i+j] = byte(rng.IntN(16))
			}
		}
	}
	dir := b.TempDir()
	if err := prebuilt.Write(dir, []prebuilt.Compiled{{Key: "k", Program: "p", Source: "s", Target: "sm_90", NVRTC: "13.0", Image: img}}); err != nil {
		b.Fatal(err)
	}
	set, err := prebuilt.Open(os.DirFS(dir))
	if err != nil {
		b.Fatal(err)
	}
	im := set.Images("k", 9, 0, 13000)[0]
	b.ReportMetric(float64(set.Entries()[0].Stored)/float64(len(img)), "stored/size")
	b.SetBytes(int64(len(img)))
	for b.Loop() {
		if _, err := im.Bytes(); err != nil {
			b.Fatal(err)
		}
	}
}
