package nvrtc

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// How the kernel cache sees headers. NVRTC does not say which files a
// compile read, so before compiling the package follows the program's
// #include directives itself, resolving each as NVRTC does (in-memory
// Headers by name; for "..." the including file's directory; then every
// include path in order) and recording every path it looked at: the files
// found, with a hash of their contents, and the paths that did not exist,
// since a header created there later would be read instead. The cache key
// covers all of them, so an edited, added or removed header is a miss.
//
// The walk over-approximates: it follows #include lines in #if branches the
// preprocessor would skip, and __has_include probes, so it may record files
// the compile never read (harmless: an edit to one of those is a needless
// miss). What it cannot follow is a computed include (#include MACRO): a
// program with one is compiled without the cache, and Result.Uncached says
// why.

// Dependency is one path a compile's #include directives looked at.
type Dependency struct {
	Path    string    // absolute path
	Exists  bool      // a file is there
	Size    int64     // its size; 0 when missing
	ModTime time.Time // its modification time; zero when missing
	Hash    string    // SHA-256 of its contents (hex); "" when missing

	// racy: the file was modified so shortly before it was read that an
	// edit of the same size within the file system's timestamp granularity
	// would keep its modification time: Changed compares contents then.
	racy bool
}

// racyWindow is the timestamp granularity the cheap checks allow for:
// coarser than any common file system's (ext4 and APFS: 1 ns; HFS+ and
// some network file systems: 1 s; FAT: 2 s).
const racyWindow = 2 * time.Second

// Changed reports whether the file at d.Path is no longer what d recorded:
// by existence, size and modification time (a cheap check, for caches that
// already hold the result of a compile), and by contents when the file had
// been modified just before it was read.
func (d Dependency) Changed() bool {
	fi, err := os.Stat(d.Path)
	if err != nil || fi.IsDir() {
		return d.Exists
	}
	if !d.Exists || fi.Size() != d.Size || !fi.ModTime().Equal(d.ModTime) {
		return true
	}
	if !d.racy {
		return false
	}
	data, err := os.ReadFile(d.Path)
	if err != nil {
		return true
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]) != d.Hash
}

// includeRE finds #include and #include_next directives: the delimiter and
// the name, or, for a computed include, the first token.
var (
	includeRE    = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include(?:_next)?[ \t]*(?:([<"])([^>"\n]+)[>"]|([A-Za-z_][A-Za-z0-9_]*))`)
	hasIncludeRE = regexp.MustCompile(`__has_include(?:_next)?\s*\(\s*([<"])([^>"\n]+)[>"]\s*\)`)
)

// depWalk follows a program's includes.
type depWalk struct {
	headers map[string]string // in-memory headers by include name
	dirs    []string          // include paths, in order
	deps    map[string]Dependency
	seenMem map[string]bool
	reason  string // why the program cannot be cached; "" when it can
}

// dependencies walks src's includes and returns every path looked at,
// sorted, or the reason the walk cannot vouch for what the compile reads.
func dependencies(src string, headers map[string]string, dirs []string) ([]Dependency, string) {
	w := &depWalk{headers: headers, deps: map[string]Dependency{}, seenMem: map[string]bool{}}
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			w.dirs = append(w.dirs, abs)
		}
	}
	cwd, _ := os.Getwd()
	w.text(src, cwd)
	if w.reason != "" {
		return nil, w.reason
	}
	out := make([]Dependency, 0, len(w.deps))
	for _, d := range w.deps {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, ""
}

// text follows the includes of one file's text; dir is its directory.
func (w *depWalk) text(text, dir string) {
	if w.reason != "" || !strings.Contains(text, "include") {
		return
	}
	for _, m := range includeRE.FindAllStringSubmatch(text, -1) {
		if m[3] != "" {
			w.reason = "computed #include " + m[3] + " (the cache cannot tell which file it reads)"
			return
		}
		w.include(m[2], m[1] == `"`, dir)
	}
	for _, m := range hasIncludeRE.FindAllStringSubmatch(text, -1) {
		w.include(m[2], m[1] == `"`, dir)
	}
}

// include resolves one include name and follows the file it finds.
func (w *depWalk) include(name string, quoted bool, dir string) {
	if w.reason != "" {
		return
	}
	if h, ok := w.headers[name]; ok { // in the key already, by content
		if !w.seenMem[name] {
			w.seenMem[name] = true
			w.text(h, "")
		}
		return
	}
	var probes []string
	if filepath.IsAbs(name) {
		probes = []string{filepath.Clean(name)}
	} else {
		if quoted && dir != "" {
			probes = append(probes, filepath.Join(dir, name))
		}
		for _, d := range w.dirs {
			probes = append(probes, filepath.Join(d, name))
		}
	}
	for _, p := range probes {
		if d, ok := w.deps[p]; ok {
			if d.Exists {
				return // followed already
			}
			continue
		}
		d, text, err := readHeader(p)
		if err != nil {
			w.deps[p] = Dependency{Path: p}
			continue
		}
		w.deps[p] = d
		w.text(text, filepath.Dir(p))
		return
	}
}

// header is a header file as read once: its dependency record and text.
type header struct {
	dep  Dependency
	text string
}

// headers keeps the headers read in this process, by path, so that a
// program's next compile (another option, another source including the same
// CUDA headers) costs a stat per header instead of a read and a hash; an
// entry is used only while the file's size and modification time are
// unchanged.
var headers sync.Map // path -> *header

// readHeader returns the dependency record and text of the regular file p.
func readHeader(p string) (Dependency, string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return Dependency{}, "", err
	}
	if fi.IsDir() {
		return Dependency{}, "", os.ErrNotExist
	}
	if v, ok := headers.Load(p); ok {
		h := v.(*header)
		if !h.dep.racy && h.dep.Size == fi.Size() && h.dep.ModTime.Equal(fi.ModTime()) {
			return h.dep, h.text, nil
		}
	}
	readAt := time.Now()
	data, err := os.ReadFile(p)
	if err != nil {
		return Dependency{}, "", err
	}
	sum := sha256.Sum256(data)
	h := &header{dep: Dependency{Path: p, Exists: true, Size: fi.Size(), ModTime: fi.ModTime(), Hash: hex.EncodeToString(sum[:]),
		racy: readAt.Sub(fi.ModTime()) < racyWindow}, text: string(data)}
	if int64(len(data)) != fi.Size() {
		// Changed while being read: use it, but keep no memo of it.
		h.dep.Size = -1
		return h.dep, h.text, nil
	}
	headers.Store(p, h)
	return h.dep, h.text, nil
}
