package gemm

// microKernel is one register-blocked kernel: run multiplies an mr×kc panel
// of packed A (kc groups of mr values of a column) by a kc×nr panel of packed
// B (kc rows of nr values) and writes alpha·A·B, plus beta·C when loadC, to
// the mr×nr tile of C at c[0], whose rows are ldc floats apart. C is not read
// when loadC is false.
type microKernel struct {
	name   string
	id     kernelID
	mr, nr int
}

// kernelID names a micro-kernel for run, which calls it directly: through a
// function value, the slices it is given (C, a group's shared tile on the
// CPU backend) would escape to the heap.
type kernelID uint8

// The micro-kernels.
const (
	idGeneric kernelID = iota // pure Go, 4×4, every architecture
	idAVX512                  // amd64, 8×32
	idAVX2                    // amd64 with FMA, 6×16
	idNEON                    // arm64, 8×12
)

// run runs the micro-kernel k (see microKernel).
func (k microKernel) run(kc int, a, b, c []float32, ldc int, alpha, beta float32, loadC bool) {
	if k.id != idGeneric && runArch(k.id, kc, a, b, c, ldc, alpha, beta, loadC) {
		return
	}
	genericKernel(kc, a, b, c, ldc, alpha, beta, loadC)
}

// generic is the pure-Go micro-kernel, present on every architecture.
var generic = microKernel{name: "generic", id: idGeneric, mr: genericMR, nr: genericNR}

// kernels lists the micro-kernels this CPU runs, fastest first; the pure-Go
// one is always last.
var kernels = append(archKernels(), generic)

// active is the micro-kernel Sgemm uses: the fastest, unless a test forces
// another with useKernel.
var active = kernels[0]

// Accelerated reports whether Sgemm runs an assembly micro-kernel on this
// CPU (not the pure-Go one): whether it is much faster than a plain loop.
func Accelerated() bool { return active.name != generic.name }
