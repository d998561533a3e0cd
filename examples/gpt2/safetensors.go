package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"github.com/anygpu/gpu/tensor"
)

// maxHeader bounds a safetensors header (the format's readers use 100 MB).
const maxHeader = 100 << 20

// stEntry is one tensor of a safetensors file: its dtype, shape and the
// byte range of its data, relative to the end of the header.
type stEntry struct {
	DType   string   `json:"dtype"`
	Shape   []int    `json:"shape"`
	Offsets [2]int64 `json:"data_offsets"`
}

// safetensors is an open safetensors file: an 8-byte little-endian header
// length, a JSON header naming each tensor's dtype, shape and data offsets,
// then the raw little-endian data.
type safetensors struct {
	f       *os.File
	base    int64 // where the data starts
	size    int64 // the data's length
	entries map[string]stEntry
}

// dtypeSizes are the element sizes of the dtypes read (converted to float32
// on the host).
var dtypeSizes = map[string]int{"F32": 4, "F16": 2, "BF16": 2}

// openSafetensors opens path and checks its header: every tensor's dtype is
// read here, its bytes match its shape, and its range lies in the file.
func openSafetensors(path string) (*safetensors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	st, err := readHeader(f, path)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return st, nil
}

func readHeader(f *os.File, path string) (*safetensors, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("safetensors %s: %w", path, err)
	}
	var lenBuf [8]byte
	if _, err := io.ReadFull(f, lenBuf[:]); err != nil {
		return nil, fmt.Errorf("safetensors %s: reading the header length: %w", path, err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > maxHeader || int64(n) > info.Size()-8 {
		return nil, fmt.Errorf("safetensors %s: header of %d bytes in a file of %d", path, n, info.Size())
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return nil, fmt.Errorf("safetensors %s: reading the header: %w", path, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, fmt.Errorf("safetensors %s: header: %w", path, err)
	}
	st := &safetensors{f: f, base: 8 + int64(n), size: info.Size() - 8 - int64(n), entries: map[string]stEntry{}}
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var e stEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, fmt.Errorf("safetensors %s: tensor %q: %w", path, name, err)
		}
		es, ok := dtypeSizes[e.DType]
		if !ok {
			return nil, fmt.Errorf("safetensors %s: tensor %q has dtype %q; this reader takes F32, F16 and BF16", path, name, e.DType)
		}
		count := int64(1)
		for _, d := range e.Shape {
			if d < 0 {
				return nil, fmt.Errorf("safetensors %s: tensor %q has shape %v", path, name, e.Shape)
			}
			count *= int64(d)
		}
		b, end := e.Offsets[0], e.Offsets[1]
		if b < 0 || end < b || end > st.size {
			return nil, fmt.Errorf("safetensors %s: tensor %q spans bytes %d..%d of %d", path, name, b, end, st.size)
		}
		if end-b != count*int64(es) {
			return nil, fmt.Errorf("safetensors %s: tensor %q: %d bytes for %d %s elements", path, name, end-b, count, e.DType)
		}
		st.entries[name] = e
	}
	return st, nil
}

// Close closes the file.
func (s *safetensors) Close() error { return s.f.Close() }

// names is the tensors' names, sorted.
func (s *safetensors) names() []string {
	out := make([]string, 0, len(s.entries))
	for n := range s.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// float32s reads tensor name as float32 values (F16 and BF16 converted
// exactly) and its shape.
func (s *safetensors) float32s(name string) ([]float32, []int, error) {
	e, ok := s.entries[name]
	if !ok {
		return nil, nil, fmt.Errorf("safetensors: no tensor %q", name)
	}
	raw := make([]byte, e.Offsets[1]-e.Offsets[0])
	if _, err := s.f.ReadAt(raw, s.base+e.Offsets[0]); err != nil {
		return nil, nil, fmt.Errorf("safetensors: reading %q: %w", name, err)
	}
	out := make([]float32, len(raw)/dtypeSizes[e.DType])
	for i := range out {
		switch e.DType {
		case "F32":
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		case "F16":
			out[i] = tensor.Float16ToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		case "BF16":
			out[i] = tensor.BFloat16ToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	}
	return out, e.Shape, nil
}
