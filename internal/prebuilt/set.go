package prebuilt

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// The files of a set, in its directory.
const (
	IndexFile = "index.json" // the entries (Index), as JSON
	PackFile  = "pack.bin"   // every image, each compressed (DEFLATE), back to back
)

// indexFormat is Index.Format.
const indexFormat = 1

// Index is the contents of index.json.
type Index struct {
	Format  int     `json:"format"`  // 1
	Entries []Entry `json:"entries"` // sorted by Key, then Target
}

// Entry describes one prebuilt image.
type Entry struct {
	Key          string `json:"key"`           // the program's Key
	Program      string `json:"program"`       // its name (Source.Name)
	Origin       string `json:"origin"`        // where its text comes from ("kernels.Source")
	Target       string `json:"target"`        // "sm_90" (CUBIN) or "compute_75" (PTX)
	SourceSHA256 string `json:"source_sha256"` // SHA-256 of the CUDA text, hex
	NVRTC        string `json:"nvrtc"`         // the NVRTC version that compiled it ("13.0")
	Offset       int64  `json:"offset"`        // where its compressed bytes start in pack.bin
	Stored       int64  `json:"stored"`        // how many there are
	Size         int64  `json:"size"`          // the image's length (PTX: without a terminating NUL)
	SHA256       string `json:"sha256"`        // SHA-256 of the image, hex
}

// Set is a read-only set of prebuilt images: an index and a pack. Its
// methods are safe for concurrent use; the zero Set and a nil *Set are empty.
type Set struct {
	fsys    fs.FS
	entries []Entry
	targets []Target // parsed entries[i].Target
}

// Open reads the set in fsys (IndexFile and, when the index has entries,
// PackFile), checking that every entry is well formed and lies within the
// pack.
func Open(fsys fs.FS) (*Set, error) {
	raw, err := fs.ReadFile(fsys, IndexFile)
	if err != nil {
		return nil, fmt.Errorf("prebuilt: read the index: %w", err)
	}
	var idx Index
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("prebuilt: parse %s: %w", IndexFile, err)
	}
	if idx.Format != indexFormat {
		return nil, fmt.Errorf("prebuilt: %s has format %d, this build reads %d; regenerate the set", IndexFile, idx.Format, indexFormat)
	}
	s := &Set{fsys: fsys, entries: idx.Entries, targets: make([]Target, len(idx.Entries))}
	if len(idx.Entries) == 0 {
		return s, nil
	}
	st, err := fs.Stat(fsys, PackFile)
	if err != nil {
		return nil, fmt.Errorf("prebuilt: the index has %d entries but the pack is missing: %w", len(idx.Entries), err)
	}
	for i, e := range idx.Entries {
		t, err := ParseTarget(e.Target)
		if err != nil {
			return nil, fmt.Errorf("prebuilt: entry %d: %w", i, err)
		}
		if _, err := nvrtcVersion(e.NVRTC); err != nil {
			return nil, fmt.Errorf("prebuilt: entry %d: %w", i, err)
		}
		if e.Key == "" || e.Offset < 0 || e.Stored <= 0 || e.Size <= 0 || e.Offset+e.Stored > st.Size() {
			return nil, fmt.Errorf("prebuilt: entry %d (%s %s) is malformed or lies outside the %d-byte pack", i, e.Program, e.Target, st.Size())
		}
		if i > 0 && compareEntries(idx.Entries[i-1], e) >= 0 {
			return nil, fmt.Errorf("prebuilt: entries %d and %d are out of order or repeated (%s %s)", i-1, i, e.Key, e.Target)
		}
		s.targets[i] = t
	}
	return s, nil
}

func compareEntries(a, b Entry) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	return strings.Compare(a.Target, b.Target)
}

// Len is the number of images in the set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// Entries returns a copy of the set's entries, in index order.
func (s *Set) Entries() []Entry {
	if s == nil {
		return nil
	}
	return slices.Clone(s.entries)
}

// Targets lists the targets the set has for the program key, in index order.
func (s *Set) Targets(key string) []string {
	var out []string
	for i := range s.Len() {
		if s.entries[i].Key == key {
			out = append(out, s.entries[i].Target)
		}
	}
	return out
}

// Images returns the images of the program key that can load on a GPU of
// compute capability major.minor under a driver of API version
// driverVersion (cuDriverGetVersion: 13000 for 13.0; 0 when unknown), best
// first: CUBINs that run on the GPU (Target.RunsOn), the newest
// architecture first, then PTX, the newest first. PTX is left out when the
// driver is older than the NVRTC that produced it: a driver compiles only the
// PTX versions its CUDA release knows. A CUBIN is always offered; a driver
// that refuses it makes the caller try the next.
func (s *Set) Images(key string, major, minor, driverVersion int) []Image {
	var out []Image
	for i := range s.Len() {
		e, t := s.entries[i], s.targets[i]
		if e.Key != key || !t.RunsOn(major, minor) {
			continue
		}
		if v, _ := nvrtcVersion(e.NVRTC); t.PTX && driverVersion > 0 && driverVersion < v {
			continue
		}
		out = append(out, Image{set: s, entry: e, target: t})
	}
	slices.SortStableFunc(out, func(a, b Image) int {
		switch {
		case a.target.better(b.target):
			return -1
		case b.target.better(a.target):
			return 1
		}
		return 0
	})
	return out
}

// nvrtcVersion parses "13.0" as a driver API version (13000).
func nvrtcVersion(s string) (int, error) {
	major, minor, ok := strings.Cut(s, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if !ok || err1 != nil || err2 != nil || ma <= 0 || mi < 0 || mi > 99 {
		return 0, fmt.Errorf("invalid NVRTC version %q; want MAJOR.MINOR", s)
	}
	return ma*1000 + mi*10, nil
}

// Image is one prebuilt image of a Set.
type Image struct {
	set    *Set
	entry  Entry
	target Target
}

// Entry is the image's index entry.
func (im Image) Entry() Entry { return im.entry }

// Target is the image's parsed target.
func (im Image) Target() Target { return im.target }

// PTX reports whether the image is PTX (the driver compiles it as it loads).
func (im Image) PTX() bool { return im.target.PTX }

// String describes the image for logs: "sm_90 CUBIN (NVRTC 13.0)".
func (im Image) String() string {
	kind := "CUBIN"
	if im.target.PTX {
		kind = "PTX"
	}
	return fmt.Sprintf("%s %s (NVRTC %s)", im.entry.Target, kind, im.entry.NVRTC)
}

// Bytes reads, inflates and checks the image, and returns what
// cuModuleLoadData takes: the CUBIN, or the PTX with a terminating NUL.
func (im Image) Bytes() ([]byte, error) {
	e := im.entry
	stored, err := im.set.read(e.Offset, e.Stored)
	if err != nil {
		return nil, fmt.Errorf("prebuilt: %s of %s: %w", e.Target, e.Program, err)
	}
	out := make([]byte, e.Size, e.Size+1)
	r := flate.NewReader(bytes.NewReader(stored))
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("prebuilt: %s of %s: inflate: %w", e.Target, e.Program, err)
	}
	if n, _ := r.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("prebuilt: %s of %s: longer than the index's %d bytes", e.Target, e.Program, e.Size)
	}
	if sum := sha256.Sum256(out); hex.EncodeToString(sum[:]) != e.SHA256 {
		return nil, fmt.Errorf("prebuilt: %s of %s: the checksum does not match the index (a damaged pack)", e.Target, e.Program)
	}
	if im.target.PTX {
		out = append(out, 0)
	}
	return out, nil
}

// read returns n bytes of the pack from off.
func (s *Set) read(off, n int64) ([]byte, error) {
	f, err := s.fsys.Open(PackFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	if ra, ok := f.(io.ReaderAt); ok {
		if _, err := ra.ReadAt(buf, off); err != nil {
			return nil, fmt.Errorf("read the pack: %w", err)
		}
		return buf, nil
	}
	if _, err := io.CopyN(io.Discard, f, off); err != nil {
		return nil, fmt.Errorf("read the pack: %w", err)
	}
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, fmt.Errorf("read the pack: %w", err)
	}
	return buf, nil
}
