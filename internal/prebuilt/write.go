package prebuilt

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Compiled is one image to write: a program compiled for one target.
type Compiled struct {
	Key     string // the program's Key
	Program string // its name (Source.Name)
	Origin  string // where its text comes from ("kernels.Source")
	Source  string // the CUDA text (its hash goes to the index)
	Target  string // "sm_90" or "compute_75"
	NVRTC   string // the NVRTC version that compiled it ("13.0")
	Image   []byte // the CUBIN, or the PTX (a terminating NUL is dropped)
}

// Write writes the set of images into dir (created if needed) as IndexFile
// and PackFile, replacing those there. The output depends only on the
// images: entries sorted by key and target, each image compressed at the best
// level. A repeated key and target, or an invalid target, is an error.
func Write(dir string, images []Compiled) error {
	images = slices.Clone(images)
	slices.SortFunc(images, func(a, b Compiled) int {
		return compareEntries(Entry{Key: a.Key, Target: a.Target}, Entry{Key: b.Key, Target: b.Target})
	})
	var pack bytes.Buffer
	idx := Index{Format: indexFormat, Entries: []Entry{}}
	for i, c := range images {
		t, err := ParseTarget(c.Target)
		if err != nil {
			return err
		}
		if _, err := nvrtcVersion(c.NVRTC); err != nil {
			return fmt.Errorf("prebuilt: %s %s: %w", c.Program, c.Target, err)
		}
		if c.Key == "" || len(c.Image) == 0 {
			return fmt.Errorf("prebuilt: %s %s: no key or no image", c.Program, c.Target)
		}
		if i > 0 && images[i-1].Key == c.Key && images[i-1].Target == c.Target {
			return fmt.Errorf("prebuilt: %s %s given twice", c.Program, c.Target)
		}
		img := c.Image
		if t.PTX {
			img = bytes.TrimRight(img, "\x00")
		}
		off := int64(pack.Len())
		w, err := flate.NewWriter(&pack, flate.BestCompression)
		if err != nil {
			return fmt.Errorf("prebuilt: %w", err)
		}
		if _, err := w.Write(img); err != nil {
			return fmt.Errorf("prebuilt: compress %s %s: %w", c.Program, c.Target, err)
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("prebuilt: compress %s %s: %w", c.Program, c.Target, err)
		}
		srcSum, imgSum := sha256.Sum256([]byte(c.Source)), sha256.Sum256(img)
		idx.Entries = append(idx.Entries, Entry{
			Key: c.Key, Program: c.Program, Origin: c.Origin, Target: c.Target,
			SourceSHA256: hex.EncodeToString(srcSum[:]), NVRTC: c.NVRTC,
			Offset: off, Stored: int64(pack.Len()) - off, Size: int64(len(img)), SHA256: hex.EncodeToString(imgSum[:]),
		})
	}
	raw, err := json.MarshalIndent(idx, "", "\t")
	if err != nil {
		return fmt.Errorf("prebuilt: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("prebuilt: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, PackFile), pack.Bytes(), 0o644); err != nil {
		return fmt.Errorf("prebuilt: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("prebuilt: %w", err)
	}
	return nil
}
