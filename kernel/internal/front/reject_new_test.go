package front

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRejectSubgroupAndFloat16 checks the errors of misused subgroup
// operations and float16 values, at their positions (the sources start on
// line 7).
func TestRejectSubgroupAndFloat16(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"subgroup op on float64", "//gpu:kernel\nfunc K(y []float64) {\n\ty[0] = kernel.SubgroupAdd(y[1])\n}",
			"t.go:9:9: float64 does not satisfy kernel.Subgroupable (float64 missing in ~int32 | ~uint32 | ~float32)"},
		{"subgroup op under a varying if", "//gpu:kernel\nfunc K(y []float32) {\n\tif kernel.ThreadX() < 16 {\n\t\ty[0] = kernel.SubgroupMax(y[1])\n\t}\n}",
			"t.go:10:10: kernel.SubgroupMax inside the if at 9:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 9:5; every thread of a subgroup must call kernel.SubgroupMax together, in control flow that is the same for the whole group (as for Barrier): compute the value under the condition and call it outside"},
		{"subgroup op after a varying return", "//gpu:kernel\nfunc K(y []uint32, n uint32) {\n\ti := kernel.GlobalX()\n\tif i >= n {\n\t\treturn\n\t}\n\ty[i] = kernel.SubgroupAdd(y[i])\n}",
			"t.go:11:3: a thread that returns early never reaches the SubgroupAdd at 13:9 (the return depends on i, which comes from kernel.GlobalX() at 9:7); guard the work with if instead"},
		{"subgroup op in a helper", "func h(x float32) float32 { return kernel.SubgroupAdd(x) }\n//gpu:kernel\nfunc K(y []float32) { y[0] = h(y[1]) }",
			"t.go:7:36: kernel.SubgroupAdd in a helper is not allowed; do it in the kernel and pass the result to the helper"},
		{"atomic in a lane argument", "//gpu:kernel\nfunc K(y []float32, c []uint32) {\n\ty[0] = kernel.SubgroupShuffle(y[1], kernel.AtomicAdd(&c[0], 1))\n}",
			"t.go:9:38: an atomic in the lane argument of kernel.SubgroupShuffle is not allowed; do the atomic in a statement before and pass its result"},
		{"float16 arithmetic", "//gpu:kernel\nfunc K(y []kernel.Float16) {\n\ty[0] = y[1] + y[2]\n}",
			"t.go:9:9: float16 arithmetic or comparison (+) is not allowed; float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"},
		{"float16 compound assignment", "//gpu:kernel\nfunc K(y []kernel.Float16) {\n\ty[0]++\n}",
			"t.go:9:2: float16 arithmetic or comparison (+) is not allowed; float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"},
		{"float16 comparison", "//gpu:kernel\nfunc K(y []kernel.Float16, b []int32) {\n\tif y[0] < y[1] {\n\t\tb[0] = 1\n\t}\n}",
			"t.go:9:5: float16 arithmetic or comparison (<) is not allowed; float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"},
		{"float16 local", "//gpu:kernel\nfunc K(y []kernel.Float16) {\n\th := y[0]\n\ty[1] = h\n}",
			"t.go:9:2: variable h of type kernel.Float16 is not allowed; float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"},
		{"float16 constant", "//gpu:kernel\nfunc K(y []kernel.Float16) {\n\ty[0] = 1\n}",
			"t.go:9:9: a constant of type kernel.Float16 is not allowed: it would be the half's bits; write kernel.ToFloat16(1.5)"},
		{"float16 from a Go conversion", "//gpu:kernel\nfunc K(y []kernel.Float16, x []float32) {\n\ty[0] = kernel.Float16(x[0])\n}",
			"t.go:9:9: a conversion to kernel.Float16 is not allowed: it would take the number as the half's bits; round a float32 with kernel.ToFloat16(x)"},
		{"float16 to a Go conversion", "//gpu:kernel\nfunc K(y []kernel.Float16, x []float32) {\n\tx[0] = float32(y[0])\n}",
			"t.go:9:9: a conversion of a kernel.Float16 is not allowed: it would read the half's bits as an integer; convert with kernel.ToFloat32(h)"},
		{"float16 helper parameter", "func h(v kernel.Float16) float32 { return kernel.ToFloat32(v) }\n//gpu:kernel\nfunc K(y []kernel.Float16, x []float32) { x[0] = h(y[0]) }",
			"t.go:7:8: parameter v of type kernel.Float16 is not allowed; float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"},
		{"float16 shared array", "//gpu:kernel\nfunc K(y []kernel.Float16) {\n\tsh := kernel.Shared[[64]kernel.Float16]()\n\ty[0] = sh[0]\n}",
			"t.go:9:8: shared array sh of type kernel.Float16 is not allowed; float16 lives only in buffers: convert as you load and store, v := kernel.ToFloat32(x[i]) and x[i] = kernel.ToFloat16(v), and compute in float32"},
		{"atomic in a float16 index", "//gpu:kernel\nfunc K(y []kernel.Float16, c []uint32, x []float32) {\n\tx[0] = kernel.ToFloat32(y[kernel.AtomicAdd(&c[0], 1)])\n}",
			"t.go:9:28: an atomic in the index of a []kernel.Float16 is not allowed; do the atomic in a statement before and index with its result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(tt.src)
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}
