package front

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// barrierHint is the hint of a Barrier under varying control flow.
const barrierHint = "; every thread of a group must reach the same Barrier: make the condition depend only on parameters, constants and group indices and sizes, or move the Barrier out"

// TestUniformity checks that every Barrier is reached by a whole group: the
// conditions around it are uniform and no thread returns early before it.
func TestUniformity(t *testing.T) {
	tests := []struct {
		name, src, want string // want "" loads
	}{
		{"varying if", "//gpu:kernel\nfunc K(y []float32) {\n\ti := kernel.GlobalX()\n\tif i < 4 {\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:11:3: kernel.Barrier inside the if at 10:2, whose condition varies between the threads of a group: it reads i, which comes from kernel.GlobalX() at 9:7" + barrierHint},
		{"varying loop bound", "//gpu:kernel\nfunc K(y []float32) {\n\tfor j := uint32(0); j < kernel.ThreadX(); j++ {\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:10:3: kernel.Barrier inside the for loop at 9:2, whose condition varies between the threads of a group: it reads kernel.ThreadX() at 9:26" + barrierHint},
		{"assigned under varying control", "//gpu:kernel\nfunc K(y []float32) {\n\tvar n uint32\n\tif y[0] > 0 {\n\t\tn = 4\n\t}\n\tfor j := uint32(0); j < n; j++ {\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:14:3: kernel.Barrier inside the for loop at 13:2, whose condition varies between the threads of a group: it reads n, which comes from an element of buffer y at 10:5" + barrierHint},
		{"through locals and shared loads", "//gpu:kernel\nfunc K(y []float32) {\n\ts := kernel.Shared[[4]float32]()\n\ta := s[1]\n\tb := a * 2\n\tif b > 0 {\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:13:3: kernel.Barrier inside the if at 12:2, whose condition varies between the threads of a group: it reads b, which comes from an element of shared array s at 10:7" + barrierHint},
		{"varying helper", "func tid() uint32 { return kernel.ThreadX() }\n//gpu:kernel\nfunc K(y []float32) {\n\tif tid() == 0 {\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:11:3: kernel.Barrier inside the if at 10:2, whose condition varies between the threads of a group: it reads helper tid, which comes from kernel.ThreadX() at 7:28" + barrierHint},
		{"atomic result", "//gpu:kernel\nfunc K(y []uint32) {\n\tif kernel.AtomicAdd(&y[0], 1) == 0 {\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:10:3: kernel.Barrier inside the if at 9:2, whose condition varies between the threads of a group: it reads the result of an atomic at 9:5" + barrierHint},
		{"varying break", "//gpu:kernel\nfunc K(y []float32) {\n\tfor j := 0; j < 4; j++ {\n\t\tif y[j] > 0 {\n\t\t\tbreak\n\t\t}\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:13:3: kernel.Barrier inside the for loop at 9:2, which some threads may leave early: a break at 11:4 under a condition that reads an element of buffer y at 10:6" + barrierHint},
		{"varying labelled continue", "//gpu:kernel\nfunc K(y []float32) {\nouter:\n\tfor j := 0; j < 4; j++ {\n\t\tfor range 2 {\n\t\t\tif y[j] > 0 {\n\t\t\t\tcontinue outer\n\t\t\t}\n\t\t}\n\t\tkernel.Barrier()\n\t}\n}",
			"t.go:16:3: kernel.Barrier inside the for loop at 10:2, which some threads may leave early: a continue at 13:5 under a condition that reads continue_outer, which comes from an element of buffer y at 12:7" + barrierHint},
		{"early return", "//gpu:kernel\nfunc K(y []float32) {\n\tif kernel.GlobalX() >= 4 {\n\t\treturn\n\t}\n\tkernel.Barrier()\n}",
			"t.go:10:3: a thread that returns early never reaches the Barrier at 12:2 (the return depends on kernel.GlobalX() at 9:5); guard the work with if instead"},
		{"early return in a loop", "//gpu:kernel\nfunc K(y []float32) {\n\tfor j := range 4 {\n\t\tkernel.Barrier()\n\t\tif y[j] > 0 {\n\t\t\treturn\n\t\t}\n\t}\n}",
			"t.go:12:4: a thread that returns early never reaches the Barrier at 10:3 (the return depends on an element of buffer y at 11:6); guard the work with if instead"},
		{"uniform conditions", "//gpu:kernel\nfunc K(y []float32, n uint32) {\n\tif kernel.GroupX() >= n {\n\t\treturn\n\t}\n\tsteps := n / kernel.GroupSizeX()\n\tfor s := range steps {\n\t\tif s%2 == 0 && kernel.GridY() > 1 {\n\t\t\tkernel.Barrier()\n\t\t}\n\t}\n}", ""},
		{"return after the last barrier", "//gpu:kernel\nfunc K(y []float32) {\n\tkernel.Barrier()\n\tif kernel.GlobalX() > 4 {\n\t\treturn\n\t}\n\ty[0] = 1\n}", ""},
		{"varying values, uniform control", "//gpu:kernel\nfunc K(y []float32) {\n\tv := y[kernel.GlobalX()]\n\tkernel.Barrier()\n\tif v > 0 {\n\t\ty[0] = v\n\t}\n}", ""},
		{"no barrier", "//gpu:kernel\nfunc K(y []float32) {\n\tif kernel.GlobalX() > 4 {\n\t\treturn\n\t}\n\ty[0] = 1\n}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := load(tt.src)
			if tt.want == "" {
				require.NoError(t, err)
				assert.True(t, m.Kernels()[0].Barriers || tt.name == "no barrier")
				return
			}
			list := errorsOf(t, err)
			assert.Equal(t, tt.want, list[0].Error(), "all: %v", err)
		})
	}
}
