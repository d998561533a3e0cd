package prebuilt

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// testImages are two programs' images: "a" for several targets, "b" for one.
func testImages() []Compiled {
	img := func(key, target string) Compiled {
		data := []byte("image of " + key + " for " + target + "\n" + string(bytes.Repeat([]byte{0, 1, 2, 3}, 64)))
		return Compiled{Key: key, Program: "prog-" + key, Origin: "test", Source: "source " + key, Target: target, NVRTC: "13.0", Image: data}
	}
	ptx := img("a", "compute_75")
	ptx.Image = append([]byte(".version 9.0\n.target sm_75\n"), 0) // a NUL-terminated PTX text, as NVRTC gives it
	return []Compiled{img("a", "sm_90"), img("a", "sm_80"), img("b", "sm_90"), ptx, img("a", "sm_75"), img("a", "sm_120")}
}

func writeSet(t *testing.T, images []Compiled) (*Set, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, Write(dir, images))
	s, err := Open(os.DirFS(dir))
	require.NoError(t, err)
	return s, dir
}

func TestWriteOpen(t *testing.T) {
	images := testImages()
	s, dir := writeSet(t, images)
	require.Equal(t, len(images), s.Len())
	require.Equal(t, []string{"compute_75", "sm_120", "sm_75", "sm_80", "sm_90"}, s.Targets("a"), "sorted by target")
	require.Equal(t, []string{"sm_90"}, s.Targets("b"))
	require.Empty(t, s.Targets("c"))
	for _, c := range images {
		var found bool
		for _, im := range s.Images(c.Key, 12, 9, 0) {
			if im.Entry().Target != c.Target {
				continue
			}
			found = true
			got, err := im.Bytes()
			require.NoError(t, err)
			require.Equal(t, c.Image, got, "%s %s: the bytes written, PTX NUL-terminated", c.Key, c.Target)
		}
		if c.Target == "compute_75" || c.Target == "sm_120" {
			require.True(t, found, "%s %s serves 12.9", c.Key, c.Target)
		}
	}
	var idx Index
	raw, err := os.ReadFile(filepath.Join(dir, IndexFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &idx))
	e := idx.Entries[0]
	require.Equal(t, "compute_75", e.Target)
	require.Equal(t, int64(len(".version 9.0\n.target sm_75\n")), e.Size, "the NUL is not stored")
	require.Len(t, e.SourceSHA256, 64)
	require.Equal(t, "13.0", e.NVRTC)

	// Deterministic: the same images in another order write the same files.
	rev := make([]Compiled, len(images))
	for i, c := range images {
		rev[len(images)-1-i] = c
	}
	dir2 := t.TempDir()
	require.NoError(t, Write(dir2, rev))
	for _, f := range []string{IndexFile, PackFile} {
		a, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir2, f))
		require.NoError(t, err)
		require.Equal(t, a, b, f)
	}
}

func TestWriteRefuses(t *testing.T) {
	ok := testImages()[0]
	for _, tc := range []struct {
		name string
		mod  func(c *Compiled)
		want string
	}{
		{"a bad target", func(c *Compiled) { c.Target = "sm9" }, "invalid target"},
		{"a bad NVRTC version", func(c *Compiled) { c.NVRTC = "13" }, "NVRTC version"},
		{"no image", func(c *Compiled) { c.Image = nil }, "no image"},
		{"no key", func(c *Compiled) { c.Key = "" }, "no key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mod(&c)
			err := Write(t.TempDir(), []Compiled{c})
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	err := Write(t.TempDir(), []Compiled{ok, ok})
	require.ErrorContains(t, err, "given twice")
}

// TestImagesOrder: what the lookup offers a GPU, best first.
func TestImagesOrder(t *testing.T) {
	s, _ := writeSet(t, testImages())
	for _, tc := range []struct {
		name          string
		key           string
		major, minor  int
		driverVersion int
		want          []string
	}{
		{"H200: its CUBIN, then the PTX", "a", 9, 0, 13000, []string{"sm_90", "compute_75"}},
		{"A100", "a", 8, 0, 13000, []string{"sm_80", "compute_75"}},
		{"RTX 4090 (8.9): the sm_80 CUBIN", "a", 8, 9, 13000, []string{"sm_80", "compute_75"}},
		{"T4", "a", 7, 5, 13000, []string{"sm_75", "compute_75"}},
		{"B200 (no sm_100 entry): the PTX", "a", 10, 0, 13000, []string{"compute_75"}},
		{"GB10 (12.1): sm_120", "a", 12, 1, 13020, []string{"sm_120", "compute_75"}},
		{"V100 (7.0): nothing", "a", 7, 0, 13000, nil},
		{"a CUDA 12.8 driver: CUBINs only, it cannot compile NVRTC 13.0's PTX", "a", 10, 0, 12080, nil},
		{"a CUDA 12.8 driver on an H200", "a", 9, 0, 12080, []string{"sm_90"}},
		{"an unknown driver version", "a", 10, 0, 0, []string{"compute_75"}},
		{"another program", "b", 8, 0, 13000, nil},
		{"an unknown program", "c", 9, 0, 13000, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, im := range s.Images(tc.key, tc.major, tc.minor, tc.driverVersion) {
				got = append(got, im.Entry().Target)
				require.Equal(t, im.Target().PTX, im.PTX())
			}
			require.Equal(t, tc.want, got)
		})
	}
	im := s.Images("a", 9, 0, 13000)
	require.Equal(t, "sm_90 CUBIN (NVRTC 13.0)", im[0].String())
	require.Equal(t, "compute_75 PTX (NVRTC 13.0)", im[1].String())
}

func TestEmptySet(t *testing.T) {
	var nilSet *Set
	require.Zero(t, nilSet.Len())
	require.Empty(t, nilSet.Images("a", 9, 0, 13000))
	require.Empty(t, nilSet.Targets("a"))
	require.Empty(t, nilSet.Entries())
	s, dir := writeSet(t, nil)
	require.Zero(t, s.Len())
	// An empty index needs no pack.
	require.NoError(t, os.Remove(filepath.Join(dir, PackFile)))
	s, err := Open(os.DirFS(dir))
	require.NoError(t, err)
	require.Zero(t, s.Len())
}

// TestShippedSetReads: the set embedded in the module reads (empty until
// regenerated), and Default returns it unless SetDefault replaced it.
func TestShippedSetReads(t *testing.T) {
	shipped, err := Shipped()
	require.NoError(t, err)
	for _, e := range shipped.Entries() {
		tg, err := ParseTarget(e.Target)
		require.NoError(t, err)
		require.Equal(t, e.Target, tg.String())
	}
	d, err := Default()
	require.NoError(t, err)
	require.Same(t, shipped, d)
	other, _ := writeSet(t, testImages())
	restore := SetDefault(other)
	d, _ = Default()
	require.Same(t, other, d)
	restore()
	d, _ = Default()
	require.Same(t, shipped, d)
}

func TestOpenRefuses(t *testing.T) {
	_, dir := writeSet(t, testImages())
	index, err := os.ReadFile(filepath.Join(dir, IndexFile))
	require.NoError(t, err)
	pack, err := os.ReadFile(filepath.Join(dir, PackFile))
	require.NoError(t, err)
	var idx Index
	require.NoError(t, json.Unmarshal(index, &idx))
	edit := func(f func(*Index)) []byte {
		var c Index
		require.NoError(t, json.Unmarshal(index, &c))
		f(&c)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		return b
	}
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  string
	}{
		{"no index", fstest.MapFS{PackFile: {Data: pack}}, "read the index"},
		{"not JSON", fstest.MapFS{IndexFile: {Data: []byte("{")}}, "parse"},
		{"another format", fstest.MapFS{IndexFile: {Data: []byte(`{"format": 2}`)}}, "format 2"},
		{"no pack", fstest.MapFS{IndexFile: {Data: index}}, "pack is missing"},
		{"a short pack", fstest.MapFS{IndexFile: {Data: index}, PackFile: {Data: pack[:len(pack)-1]}}, "outside"},
		{"a bad target", fstest.MapFS{IndexFile: {Data: edit(func(i *Index) { i.Entries[0].Target = "x" })}, PackFile: {Data: pack}}, "invalid target"},
		{"a bad NVRTC version", fstest.MapFS{IndexFile: {Data: edit(func(i *Index) { i.Entries[0].NVRTC = "" })}, PackFile: {Data: pack}}, "NVRTC version"},
		{"out of order", fstest.MapFS{IndexFile: {Data: edit(func(i *Index) { i.Entries[0], i.Entries[1] = i.Entries[1], i.Entries[0] })}, PackFile: {Data: pack}}, "out of order"},
		{"no key", fstest.MapFS{IndexFile: {Data: edit(func(i *Index) { i.Entries[0].Key = "" })}, PackFile: {Data: pack}}, "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.files)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestDamagedPack: an image whose bytes do not match the index is an error
// of Bytes (the backend then tries the next image), never wrong code.
func TestDamagedPack(t *testing.T) {
	_, dir := writeSet(t, testImages())
	index, err := os.ReadFile(filepath.Join(dir, IndexFile))
	require.NoError(t, err)
	pack, err := os.ReadFile(filepath.Join(dir, PackFile))
	require.NoError(t, err)
	var idx Index
	require.NoError(t, json.Unmarshal(index, &idx))
	e := idx.Entries[len(idx.Entries)-1] // b sm_90
	for _, tc := range []struct {
		name string
		mod  func(p []byte, idx *Index)
		want string
	}{
		{"a flipped byte", func(p []byte, _ *Index) { p[e.Offset+e.Stored/2] ^= 0x55 }, ""},
		{"a wrong size", func(_ []byte, i *Index) { i.Entries[len(i.Entries)-1].Size-- }, "longer"},
		{"a wrong checksum", func(_ []byte, i *Index) { i.Entries[len(i.Entries)-1].SHA256 = "00" }, "checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := bytes.Clone(pack)
			var c Index
			require.NoError(t, json.Unmarshal(index, &c))
			tc.mod(p, &c)
			raw, err := json.Marshal(c)
			require.NoError(t, err)
			s, err := Open(fstest.MapFS{IndexFile: {Data: raw}, PackFile: {Data: p}})
			require.NoError(t, err)
			ims := s.Images("b", 9, 0, 13000)
			require.Len(t, ims, 1)
			_, err = ims[0].Bytes()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			// The other images are unharmed.
			for _, im := range s.Images("a", 9, 0, 13000) {
				_, err := im.Bytes()
				require.NoError(t, err)
			}
		})
	}
}
