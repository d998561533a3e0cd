package front

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// loadFile loads one testdata file.
func loadFile(t *testing.T, name string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	m, err := Load([]File{{Name: name, Src: string(src)}})
	require.NoError(t, err)
	return m
}

// TestTestdata loads the realistic kernels of testdata and checks what each
// module holds.
func TestTestdata(t *testing.T) {
	tests := []struct {
		file     string
		funcs    []string // helpers first, then kernels
		barriers []string
		shared   map[string]int // kernel → number of shared arrays
		features map[string]ir.Features
	}{
		{file: "saxpy.go", funcs: []string{"Saxpy"}},
		{file: "reduce.go", funcs: []string{"Sum"}, barriers: []string{"Sum"}, shared: map[string]int{"Sum": 1}},
		{file: "transpose.go", funcs: []string{"Transpose"}, barriers: []string{"Transpose"}, shared: map[string]int{"Transpose": 1}},
		{file: "sgemm.go", funcs: []string{"Sgemm"}, barriers: []string{"Sgemm"}, shared: map[string]int{"Sgemm": 2}},
		{file: "histogram.go", funcs: []string{"Histogram"}, barriers: []string{"Histogram"}, shared: map[string]int{"Histogram": 1}},
		{file: "stencil.go", funcs: []string{"Jacobi", "Blur3"}},
		{file: "loops.go", funcs: []string{"FirstMatch", "Triangles"}},
		{file: "helpers.go", funcs: []string{"sigmoid", "gelu", "activate", "dot4", "poly", "Activate", "Dot4"}},
		{file: "wide.go", funcs: []string{"Axpy64", "Bits", "SumAtomic"},
			features: map[string]ir.Features{"Axpy64": ir.Float64 | ir.Int64, "SumAtomic": ir.AtomicFloat}},
		{file: "matmul.go", funcs: []string{"ScoresBF16", "AccumulateF16"}, barriers: []string{"ScoresBF16", "AccumulateF16"},
			shared: map[string]int{"ScoresBF16": 3, "AccumulateF16": 3}},
		{file: "scan.go", funcs: []string{"ScanBlock", "Softmax"}, barriers: []string{"ScanBlock", "Softmax"},
			shared: map[string]int{"ScanBlock": 1, "Softmax": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			m := loadFile(t, tt.file)
			var names, barriers []string
			for _, f := range m.Funcs {
				names = append(names, f.Name)
				if f.Barriers {
					barriers = append(barriers, f.Name)
				}
				assert.Equal(t, tt.shared[f.Name], len(f.Shared), "shared arrays of %s", f.Name)
				assert.Equal(t, tt.features[f.Name], f.Features, "features of %s", f.Name)
			}
			assert.Equal(t, tt.funcs, names)
			assert.Equal(t, tt.barriers, barriers)
		})
	}
}
