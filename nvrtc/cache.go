package nvrtc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/anygpu/gpu/internal/keyhash"
)

// EnvCacheDir names the kernel cache's directory. The cache lives in its
// "nvrtc" subdirectory.
const EnvCacheDir = "ANYGPU_CACHE_DIR"

// DefaultCacheDir is $ANYGPU_CACHE_DIR, else os.UserCacheDir()/anygpu, else
// a directory under os.TempDir().
func DefaultCacheDir() string {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil && d != "" {
		return filepath.Join(d, "anygpu")
	}
	return filepath.Join(os.TempDir(), "anygpu-cache")
}

// memEntries bounds the in-process copy of the cache.
const memEntries = 512

// Cache is the kernel cache: compiled programs on disk, keyed by a hash of
// everything that determines the result (source, options, NVRTC version,
// architecture, driver version), plus an in-process copy.
//
// It is safe for concurrent use, and for many processes sharing one
// directory: an entry is written to a temporary file and renamed into place,
// so readers see a whole entry or none; each entry carries a CRC-32C of its
// contents and its own key, so a corrupt, truncated or swapped entry is
// detected, counted, and rebuilt. Within a process, concurrent requests for
// the same key compile once.
type Cache struct {
	dir string // where entries are: <root>/nvrtc

	mu      sync.Mutex
	flights map[string]*flight
	mem     map[string]*Result

	stamped atomic.Bool // the NVRTC version stamp was checked

	hits, diskHits, misses, corrupt   atomic.Int64
	compiles, compileErrors           atomic.Int64
	writes, writeErrors, compileNanos atomic.Int64
}

type flight struct {
	done chan struct{}
	res  *Result
	err  error
}

// CacheStats counts what a Cache did.
type CacheStats struct {
	Hits          int64         `json:"hits"`           // requests served without compiling (memory or disk)
	DiskHits      int64         `json:"disk_hits"`      // of Hits, those read from disk
	Misses        int64         `json:"misses"`         // requests that compiled
	Corrupt       int64         `json:"corrupt"`        // entries found corrupt or tampered with, then rebuilt
	Compiles      int64         `json:"compiles"`       // NVRTC runs
	CompileErrors int64         `json:"compile_errors"` // NVRTC runs that failed (not cached)
	Writes        int64         `json:"writes"`         // entries written
	WriteErrors   int64         `json:"write_errors"`   // entries that could not be written (the result is still returned)
	CompileTime   time.Duration `json:"compile_time"`   // total time spent compiling
}

// OpenCache returns the cache rooted at dir (DefaultCacheDir when empty).
// The directory is created on the first write; a cache that cannot write
// still compiles, and counts WriteErrors.
func OpenCache(dir string) *Cache {
	if dir == "" {
		dir = DefaultCacheDir()
	}
	return &Cache{dir: filepath.Join(dir, "nvrtc"), flights: map[string]*flight{}, mem: map[string]*Result{}}
}

// Dir is the directory holding the entries.
func (c *Cache) Dir() string { return c.dir }

// Stats returns the cache's counters.
func (c *Cache) Stats() CacheStats {
	return CacheStats{
		Hits: c.hits.Load(), DiskHits: c.diskHits.Load(), Misses: c.misses.Load(), Corrupt: c.corrupt.Load(),
		Compiles: c.compiles.Load(), CompileErrors: c.compileErrors.Load(),
		Writes: c.writes.Load(), WriteErrors: c.writeErrors.Load(),
		CompileTime: time.Duration(c.compileNanos.Load()),
	}
}

// ForgetMemory drops the in-process copy, so the next requests read the disk
// (as a new process would).
func (c *Cache) ForgetMemory() {
	c.mu.Lock()
	c.mem = map[string]*Result{}
	c.mu.Unlock()
}

// Do returns the entry for key, calling compile on a miss and storing its
// result. Concurrent calls for one key share one compile. The Result is
// shared: treat its fields as read-only (Cached and Duration are the
// caller's own).
func (c *Cache) Do(key string, compile func() (*Result, error)) (*Result, error) {
	start := time.Now()
	c.mu.Lock()
	if r, ok := c.mem[key]; ok {
		c.mu.Unlock()
		c.hits.Add(1)
		return hit(r, start), nil
	}
	if f, ok := c.flights[key]; ok {
		c.mu.Unlock()
		<-f.done
		if f.err != nil {
			return nil, f.err
		}
		c.hits.Add(1)
		return hit(f.res, start), nil
	}
	f := &flight{done: make(chan struct{})}
	c.flights[key] = f
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.flights, key)
		if f.err == nil && f.res != nil {
			c.remember(key, f.res)
		}
		c.mu.Unlock()
		close(f.done)
	}()

	if r, ok := c.read(key); ok {
		c.hits.Add(1)
		c.diskHits.Add(1)
		f.res = r
		return hit(r, start), nil
	}
	c.misses.Add(1)
	c.compiles.Add(1)
	t0 := time.Now()
	r, err := compile()
	c.compileNanos.Add(int64(time.Since(t0)))
	if err != nil {
		c.compileErrors.Add(1)
		f.err = err
		return nil, err
	}
	cp := *r
	cp.Cached = false
	f.res = &cp
	if err := c.write(key, &cp); err != nil {
		c.writeErrors.Add(1)
	} else {
		c.writes.Add(1)
	}
	out := cp
	out.Duration = time.Since(start)
	return &out, nil
}

// remember keeps r in memory; c.mu is held.
func (c *Cache) remember(key string, r *Result) {
	if len(c.mem) >= memEntries {
		for k := range c.mem { // evict one, arbitrarily
			delete(c.mem, k)
			break
		}
	}
	c.mem[key] = r
}

func hit(r *Result, start time.Time) *Result {
	out := *r
	out.Cached = true
	out.Duration = time.Since(start)
	return &out
}

func (c *Cache) path(key string) string { return filepath.Join(c.dir, key+".bin") }

// lookup returns key's entry from memory or disk, without compiling.
func (c *Cache) lookup(key string) (*Result, bool) {
	start := time.Now()
	c.mu.Lock()
	r, ok := c.mem[key]
	c.mu.Unlock()
	if !ok {
		if r, ok = c.read(key); !ok {
			return nil, false
		}
		c.diskHits.Add(1)
		c.mu.Lock()
		c.remember(key, r)
		c.mu.Unlock()
	}
	c.hits.Add(1)
	return hit(r, start), true
}

// versionStamp records which NVRTC a search environment loads, so a new
// process can compute cache keys without loading it.
type versionStamp struct {
	File         string `json:"file"`
	Size         int64  `json:"size"`
	ModTime      int64  `json:"mtime_ns"`
	Major, Minor int
}

// stampPath is the stamp of the current search environment: the variables
// that decide which library the search finds.
func (c *Cache) stampPath() string {
	h := sha256.New()
	for _, v := range []string{EnvLibrary, EnvInclude, "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH"} {
		fmt.Fprintf(h, "%s=%s\x00", v, os.Getenv(v))
	}
	return filepath.Join(c.dir, "version-"+hex.EncodeToString(h.Sum(nil))[:16]+".json")
}

// knownVersion returns the stamp when the library file it names is
// unchanged (same size and modification time).
func (c *Cache) knownVersion() (versionStamp, bool) {
	var st versionStamp
	data, err := os.ReadFile(c.stampPath())
	if err != nil {
		return st, false
	}
	if json.Unmarshal(data, &st) != nil || st.File == "" || st.Major <= 0 {
		return st, false
	}
	fi, err := os.Stat(st.File)
	if err != nil || fi.Size() != st.Size || fi.ModTime().UnixNano() != st.ModTime {
		return st, false
	}
	return st, true
}

// rememberVersion writes the stamp for lib once per Cache (when it differs).
func (c *Cache) rememberVersion(lib *library) {
	if lib.file == "" || !c.stamped.CompareAndSwap(false, true) {
		return
	}
	fi, err := os.Stat(lib.file)
	if err != nil {
		return
	}
	st := versionStamp{File: lib.file, Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Major: lib.major, Minor: lib.minor}
	if old, ok := c.knownVersion(); ok && old == st {
		return
	}
	data, _ := json.Marshal(st)
	_ = c.writeFile(c.stampPath(), data)
}

// read loads key's entry from disk. A missing entry is a miss; a damaged one
// is counted as corrupt and is a miss too (the compile that follows
// replaces it).
func (c *Cache) read(key string) (*Result, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	r, err := decodeEntry(data, key)
	if err != nil {
		c.corrupt.Add(1)
		return nil, false
	}
	return r, true
}

// write stores r under key atomically.
func (c *Cache) write(key string, r *Result) error {
	return c.writeFile(c.path(key), encodeEntry(key, r))
}

// writeFile writes data to path atomically: a temporary file in the same
// directory, renamed over path.
func (c *Cache) writeFile(path string, data []byte) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		_ = os.Remove(name)
	}
	return err
}

// Entry format: magic, CRC-32C of the body, body. The body holds the key,
// so an entry copied over another key's file is detected. CRC-32C (hardware
// accelerated) detects damage as well as a cryptographic hash would here —
// neither stops someone who rewrites both, and the key in the body already
// ties an entry to its inputs — at a twentieth of the cost on a warm hit.
var (
	entryMagic = []byte("AGNVRTC\x02")
	crcTable   = crc32.MakeTable(crc32.Castagnoli)
)

const crcSize = 4

func encodeEntry(key string, r *Result) []byte {
	var body bytes.Buffer
	putStr := func(s string) {
		_ = binary.Write(&body, binary.LittleEndian, uint32(len(s)))
		body.WriteString(s)
	}
	putStr(key)
	putStr(string(r.CUBIN))
	putStr(r.PTX)
	putStr(r.Log)
	putStr(r.Arch)
	names := sortedKeys(r.LoweredNames)
	_ = binary.Write(&body, binary.LittleEndian, uint32(len(names)))
	for _, n := range names {
		putStr(n)
		putStr(r.LoweredNames[n])
	}
	_ = binary.Write(&body, binary.LittleEndian, uint64(r.Duration))
	out := make([]byte, 0, len(entryMagic)+crcSize+body.Len())
	out = append(out, entryMagic...)
	out = binary.LittleEndian.AppendUint32(out, crc32.Checksum(body.Bytes(), crcTable))
	return append(out, body.Bytes()...)
}

// decodeEntry checks and parses an entry. The Result refers to data (no
// copies): data must not change afterwards.
func decodeEntry(data []byte, key string) (*Result, error) {
	if len(data) < len(entryMagic)+crcSize || !bytes.Equal(data[:len(entryMagic)], entryMagic) {
		return nil, fmt.Errorf("not a cache entry")
	}
	sum := binary.LittleEndian.Uint32(data[len(entryMagic):])
	body := data[len(entryMagic)+crcSize:]
	if crc32.Checksum(body, crcTable) != sum {
		return nil, fmt.Errorf("checksum mismatch")
	}
	pos := 0
	next := func() ([]byte, error) {
		if len(body)-pos < 4 {
			return nil, fmt.Errorf("truncated")
		}
		n := int(binary.LittleEndian.Uint32(body[pos:]))
		pos += 4
		if n > len(body)-pos {
			return nil, fmt.Errorf("truncated")
		}
		b := body[pos : pos+n : pos+n]
		pos += n
		return b, nil
	}
	str := func() (string, error) {
		b, err := next()
		if err != nil || len(b) == 0 {
			return "", err
		}
		return unsafe.String(&b[0], len(b)), nil
	}
	k, err := str()
	if err != nil || k != key {
		return nil, fmt.Errorf("entry of another key")
	}
	r := &Result{}
	cubin, err := next()
	if err != nil {
		return nil, err
	}
	if len(cubin) > 0 {
		r.CUBIN = cubin
	}
	for _, p := range []*string{&r.PTX, &r.Log, &r.Arch} {
		if *p, err = str(); err != nil {
			return nil, err
		}
	}
	if len(body)-pos < 4 {
		return nil, fmt.Errorf("truncated")
	}
	n := binary.LittleEndian.Uint32(body[pos:])
	pos += 4
	if n > 0 {
		r.LoweredNames = make(map[string]string, n)
		for i := uint32(0); i < n; i++ {
			a, err := str()
			if err != nil {
				return nil, err
			}
			b, err := str()
			if err != nil {
				return nil, err
			}
			r.LoweredNames[a] = b
		}
	}
	if len(body)-pos != 8 {
		return nil, fmt.Errorf("trailing data")
	}
	return r, nil
}

// keyOf hashes everything that determines a compile's result: the NVRTC
// version, the architecture, the options, the in-memory headers, the name
// expressions, the source, and every header file the source's includes
// reach (deps, with the paths where none was found).
func keyOf(major, minor int, src, arch string, args []string, o Options, deps []Dependency) string {
	k := keyhash.New()
	k.String("anygpu nvrtc cache v2")
	k.String(strconv.Itoa(major) + "." + strconv.Itoa(minor))
	k.String(arch)
	k.String(strconv.Itoa(o.DriverVersion))
	k.String(o.Name)
	k.List(args)
	k.Map(o.Headers)
	k.List(o.NameExpressions)
	k.String(src)
	k.String(strconv.Itoa(len(deps)))
	for _, d := range deps {
		k.String(d.Path)
		k.String(d.Hash) // "" for a path where no file was
	}
	return k.Hex()
}
