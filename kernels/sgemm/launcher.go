// Package sgemm launches the built-in sgemm (package kernels) on a device:
// C = alpha·A·B + beta·C for row-major float32 matrices, through the
// device's matrix library where its streams answer Stream.MatMul in exact
// float32 (cuBLASLt on CUDA: no TF32), else through the built-in kernel and
// geometry that kernels.ChooseSgemm picks from the device's DeviceInfo and
// the matrix shape.
//
// It lives beside package kernels rather than in it because it needs the
// root package (gpu.Stream), whose own tests import package kernels.
package sgemm

import (
	"context"
	stderrors "errors"
	"math"
	"sync"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// The answers a device's library gave, remembered per Launcher and
// alignment class.
const (
	libraryUntried = iota // no product of the class has gone to the library yet
	libraryUsed           // the library multiplied a product of the class
	libraryAbsent         // Stream.MatMul said NotSupported for the class: the kernels take it
)

// alignment is a product's alignment class: whether k and n are multiples
// of 4, that is whether the rows of A, and of B and C, start 16 bytes
// apart. A library may have kernels for one class and not another (cuBLASLt
// answers NotSupported when its heuristic finds no algorithm for the
// alignments), so its answers are remembered per class.
type alignment struct{ k4, n4 bool }

// Launcher runs sgemm on one device. The first product of an alignment
// class (k and n multiples of 4 or not) that may go to the device's library
// asks Stream.MatMul; an answer of category NotSupported is remembered, and
// from then on every product of the class runs a built-in kernel: a device
// without a library costs at most one refused call per class. A Launcher is
// safe for concurrent use.
type Launcher struct {
	dev *gpu.Device

	mu       sync.Mutex
	builtins *gpu.Module // kernels.Source() compiled for dev (OpSgemm): given, or compiled on first need
	own      bool        // builtins was compiled here, and Close closes it
	variants *gpu.Module // kernels.SgemmSource() compiled for dev, on first need
	kernels  map[string]*gpu.Kernel
	library  map[alignment]int // libraryUntried (absent from the map), libraryUsed or libraryAbsent

	// matMul is Stream.MatMul; tests put a stand-in here.
	matMul func(*gpu.Stream, gpu.MatMul) error
}

// New returns a Launcher for dev. builtins is kernels.Source() compiled for
// dev, or nil: then the Launcher compiles it when a product first needs
// OpSgemm. sgemm's variants (kernels.SgemmSource) it compiles itself when a
// product first needs one. On a device whose library takes every product it
// compiles nothing.
func New(dev *gpu.Device, builtins *gpu.Module) (*Launcher, error) {
	if dev == nil {
		return nil, errors.E(errors.InvalidArgument, "", "sgemm.New", "nil device")
	}
	return &Launcher{dev: dev, builtins: builtins, kernels: map[string]*gpu.Kernel{}, library: map[alignment]int{},
		matMul: (*gpu.Stream).MatMul}, nil
}

// Close closes the modules the Launcher compiled itself (not one given to
// New). The Launcher is unusable afterwards.
func (l *Launcher) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if l.own && l.builtins != nil {
		errs = append(errs, l.builtins.Close())
	}
	if l.variants != nil {
		errs = append(errs, l.variants.Close())
	}
	l.builtins, l.variants, l.own, l.kernels, l.library = nil, nil, false, nil, nil
	return stderrors.Join(errs...)
}

// UsesLibrary reports whether the device's library has taken a product.
func (l *Launcher) UsesLibrary() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, state := range l.library {
		if state == libraryUsed {
			return true
		}
	}
	return false
}

// Sgemm enqueues C = alpha·A(m×k)·B(k×n) + beta·C(m×n) on st, all matrices
// row-major and packed, with the semantics of kernels.OpSgemm: C is not
// read when beta is 0, and k = 0 gives beta·C. The product goes to the
// device's library unless the library said NotSupported before to a
// product of its alignment class, or alpha and beta are both 0, or k is 0
// (the library's MatMul reads those differently); otherwise to the kernel
// kernels.ChooseSgemm picks. Errors: InvalidArgument for a nil Launcher,
// a stream or buffer of another device, a nil buffer, a negative size or
// one beyond 2³²-1, or a buffer too small for its matrix; the library's,
// the stream's and the compiler's errors as they come; Closed after Close.
func (l *Launcher) Sgemm(st *gpu.Stream, c, a, b *gpu.Buffer, m, n, k int, alpha, beta float32) error {
	if err := l.check(st, c, a, b, m, n, k); err != nil {
		return err
	}
	if m == 0 || n == 0 {
		return nil
	}
	class := alignment{k4: k%4 == 0, n4: n%4 == 0}
	if k > 0 && (alpha != 0 || beta != 0) && l.tryLibrary(class) {
		err := l.matMul(st, gpu.MatMul{M: m, N: n, K: k, A: a, B: b, C: c, In: gpu.MatMulFloat32, Alpha: alpha, Beta: beta})
		if errors.CategoryOf(err) != errors.NotSupported {
			if err == nil {
				l.setLibrary(class, libraryUsed)
			}
			return err
		}
		l.setLibrary(class, libraryAbsent)
	}
	plan := kernels.ChooseSgemm(l.dev.Info(), m, n, k)
	kern, err := l.kernel(plan.Kernel)
	if err != nil {
		return err
	}
	u := func(v int) gpu.Arg { return gpu.U32(uint32(v)) }
	return st.Launch(kern, plan.Grid, plan.Block, gpu.Buf(c), gpu.Buf(a), gpu.Buf(b), u(m), u(n), u(k), gpu.F32(alpha), gpu.F32(beta))
}

// check validates Sgemm's arguments.
func (l *Launcher) check(st *gpu.Stream, c, a, b *gpu.Buffer, m, n, k int) error {
	if l == nil {
		return errors.E(errors.InvalidArgument, "", "sgemm", "nil launcher")
	}
	bad := func(format string, args ...any) error {
		return errors.E(errors.InvalidArgument, l.dev.Backend(), "sgemm", format, args...)
	}
	l.mu.Lock()
	closed := l.kernels == nil
	l.mu.Unlock()
	if closed {
		return errClosed(l.dev)
	}
	if st == nil || st.Device() != l.dev {
		return bad("the stream is not of the launcher's device %s", l.dev)
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"m", m}, {"n", n}, {"k", k}} {
		if s.v < 0 || s.v > math.MaxUint32 {
			return bad("%s = %d is outside 0..2³²-1", s.name, s.v)
		}
	}
	for _, op := range []struct {
		name       string
		buf        *gpu.Buffer
		rows, cols int
	}{{"c", c, m, n}, {"a", a, m, k}, {"b", b, k, n}} {
		if op.buf == nil {
			return bad("buffer %s is nil", op.name)
		}
		if op.buf.Device() != l.dev {
			return bad("buffer %s is not of the launcher's device %s", op.name, l.dev)
		}
		if have := op.buf.Size() / 4; op.rows > 0 && int64(op.cols) > have/int64(op.rows) {
			return bad("buffer %s holds %d float32s, need %d×%d", op.name, have, op.rows, op.cols)
		}
	}
	return nil
}

// errClosed is the error of a call on a closed Launcher.
func errClosed(dev *gpu.Device) error {
	return errors.E(errors.Closed, dev.Backend(), "sgemm", "the launcher is closed")
}

// tryLibrary reports whether a product of a class may go to the library:
// it has not said NotSupported to the class.
func (l *Launcher) tryLibrary(class alignment) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.library[class] != libraryAbsent
}

// setLibrary records the library's answer for a class. A closed Launcher
// records nothing.
func (l *Launcher) setLibrary(class alignment, state int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.library != nil {
		l.library[class] = state
	}
}

// kernel returns the entry point name: OpSgemm from the built-ins, a
// variant from kernels.SgemmSource, each module compiled on first need.
func (l *Launcher) kernel(name string) (*gpu.Kernel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kernels == nil {
		return nil, errClosed(l.dev)
	}
	if k, ok := l.kernels[name]; ok {
		return k, nil
	}
	mod, src := &l.variants, kernels.SgemmSource
	if name == kernels.OpSgemm {
		mod, src = &l.builtins, kernels.Source
	}
	if *mod == nil {
		source := src()
		m, err := l.dev.Compile(context.Background(), source)
		if err != nil {
			return nil, errors.Wrap(err, l.dev.Backend(), "sgemm: compile "+source.Name)
		}
		*mod = m
		if name == kernels.OpSgemm {
			l.own = true
		}
	}
	k, err := (*mod).Kernel(name)
	if err != nil {
		return nil, err
	}
	l.kernels[name] = k
	return k, nil
}
