//go:build !cgo

package dlpack

import (
	"unsafe"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// Exported is a Buffer handed out as a DLManagedTensor (cgo builds only).
type Exported struct{}

// Pointer is nil without cgo.
func (e *Exported) Pointer() unsafe.Pointer { return nil }

// Deleted is false without cgo.
func (e *Exported) Deleted() bool { return false }

// Imported is a DLManagedTensor as a borrowed Buffer (cgo builds only).
type Imported struct {
	Buffer *gpu.Buffer
	Shape  []int64
	DType  DataType
}

// Close does nothing without cgo.
func (in *Imported) Close() error { return nil }

func noCgo(op string) error {
	return &errors.Error{Backend: "dlpack", Op: op, Category: errors.NotSupported,
		Msg: "built without cgo: DLPack's deleter is a C function pointer", Hint: "build with CGO_ENABLED=1 and a C compiler"}
}

// Export needs cgo: NotSupported.
func Export(b *gpu.Buffer, dtype DataType, shape []int64) (*Exported, error) {
	return nil, noCgo("export")
}

// Import needs cgo: NotSupported.
func Import(dev *gpu.Device, p unsafe.Pointer) (*Imported, error) {
	return nil, noCgo("import")
}

// ExportOwned needs cgo: NotSupported.
func ExportOwned(b *gpu.Buffer, dtype DataType, shape []int64) (*Exported, error) {
	return nil, noCgo("export")
}
