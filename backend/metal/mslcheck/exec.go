package mslcheck

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Execution: Execute compiles an MSL source as ordinary C++ (clang++, with
// include/exec/metal_stdlib in place of Metal's header) and runs its kernels
// on the CPU, one thread per work item and one threadgroup at a time, with a
// real barrier behind metal::threadgroup_barrier and threadgroup arrays
// shared by the threads of the group. Kernels can then be compared with a
// reference.
//
// What a run proves: the kernel's index arithmetic, grid-stride loops, bounds
// checks, barrier placement (a barrier some threads of a group miss
// deadlocks, which Execute reports as a timeout) and its use of threadgroup
// memory compute the right values under C++ semantics, for the launches
// tried. What it does not: anything about Metal's compiler, the GPU's memory
// model or its floating-point behaviour (fast math, FMA contraction,
// denormals), or performance.

//go:embed include/exec/metal_stdlib
var execHeader []byte

// Launch is one kernel launch for Execute.
type Launch struct {
	Kernel  string
	Grid    [3]int   // threadgroups per grid
	Block   [3]int   // threads per threadgroup (at most 1024 in all)
	Buffers [][]byte // bound at [[buffer(0..len-1)]]; Execute overwrites them with the results
	Params  []byte   // bound at [[buffer(len(Buffers))]] when not nil
}

// threadgroupVariable matches a threadgroup variable declared in a function
// body, an array ("threadgroup float partial[N];") or any other type (naga
// wraps arrays in structs: "threadgroup type_3 sh;"), which becomes a static
// variable: shared by the threads of the one threadgroup that runs at a
// time. The kernel must initialise it (naga's kernels zero it before a
// barrier), as threadgroup memory starts undefined on Metal.
var threadgroupVariable = regexp.MustCompile(`\bthreadgroup(\s+[A-Za-z_][\w:]*\s+[A-Za-z_]\w*\s*[\[;])`)

// Execute runs the launches in order on the CPU (see above): Build, Run,
// Close.
func Execute(ctx context.Context, name, src string, launches []Launch) error {
	p, err := Build(ctx, name, src)
	if err != nil {
		return err
	}
	defer p.Close()
	return p.Run(ctx, launches)
}

// Program is an MSL source built for execution on the CPU.
type Program struct {
	name    string
	dir     string
	bin     string
	kernels []string // the kernels with a wrapper, in entry order
	skipped map[string]error
}

// Build compiles src for execution. Every kernel function whose parameters
// Execute supports (each bound with [[buffer(n)]] or a position attribute it
// knows) can then be run; Run reports the others.
func Build(ctx context.Context, name, src string) (*Program, error) {
	clang, err := Clang()
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, name, src, true)
	if err != nil {
		return nil, err
	}
	var root astNode
	if err := json.Unmarshal(out, &root); err != nil {
		return nil, fmt.Errorf("mslcheck: %s: reading clang's AST: %w", name, err)
	}
	fns, records := map[string]astNode{}, map[string]astNode{}
	collect(root, fns, records)
	p := &Program{name: name, skipped: map[string]error{}}
	var all []string
	for k := range fns {
		all = append(all, k)
	}
	var wrappers strings.Builder
	for _, k := range sorted(all) {
		w, err := wrapper(len(p.kernels), k, fns[k])
		if err != nil {
			p.skipped[k] = err
			continue
		}
		p.kernels = append(p.kernels, k)
		wrappers.WriteString(w)
	}
	wrappers.WriteString("static anygpu_entry anygpu_entries[] = {")
	for i := range p.kernels {
		fmt.Fprintf(&wrappers, "anygpu_call_%d, ", i)
	}
	wrappers.WriteString("nullptr};\n")

	if p.dir, err = os.MkdirTemp("", "mslexec"); err != nil {
		return nil, fmt.Errorf("mslcheck: %w", err)
	}
	inc := filepath.Join(p.dir, "include")
	if err := os.Mkdir(inc, 0o755); err != nil {
		p.Close()
		return nil, fmt.Errorf("mslcheck: %w", err)
	}
	if err := writeHeaders(inc, execHeader); err != nil {
		p.Close()
		return nil, err
	}
	shared := threadgroupVariable.ReplaceAllString(eraseAddressSpaceOverloads(src), "static$1")
	prog := strings.Replace(execMain, "ANYGPU_SOURCE", shared, 1)
	prog = strings.Replace(prog, "ANYGPU_WRAPPERS", wrappers.String(), 1)
	file := filepath.Join(p.dir, "exec.cpp")
	p.bin = filepath.Join(p.dir, "exec")
	if err := os.WriteFile(file, []byte(prog), 0o644); err != nil {
		p.Close()
		return nil, fmt.Errorf("mslcheck: %w", err)
	}
	build := func(out string, extra ...string) ([]byte, error) {
		args := append([]string{"-std=c++17", "-O1", "-pthread", "-I", inc, "-o", out}, extra...)
		return exec.CommandContext(ctx, clang, append(args, file)...).CombinedOutput()
	}
	if msg, err := build(p.bin); err != nil {
		p.Close()
		return nil, fmt.Errorf("mslcheck: %s does not build for execution: %w\n%s", name, err, msg)
	}
	// With AddressSanitizer, where the toolchain has its runtime, an access
	// outside a buffer or a threadgroup array fails the run.
	if _, err := build(p.bin+"-asan", "-fsanitize=address", "-fno-omit-frame-pointer"); err == nil {
		p.bin += "-asan"
	}
	return p, nil
}

// Close removes the program's files.
func (p *Program) Close() {
	if p.dir != "" {
		_ = os.RemoveAll(p.dir)
	}
}

// aliasMark, minus i, is sent as the length of a buffer that is the same Go
// slice as buffer i of the launch: the harness binds one memory block twice,
// as the Metal backend binds one MTLBuffer twice.
const aliasMark = 1<<64 - 1

// Run executes the launches in order; each launch's buffers hold the results
// afterwards. A buffer that is the same slice as an earlier one of its launch
// is bound to the same memory.
func (p *Program) Run(ctx context.Context, launches []Launch) error {
	var in bytes.Buffer
	le := binary.LittleEndian
	put := func(v uint64) { _ = binary.Write(&in, le, v) }
	put(uint64(len(launches)))
	for li, l := range launches {
		idx := indexOf(p.kernels, l.Kernel)
		if idx < 0 {
			if err, ok := p.skipped[l.Kernel]; ok {
				return fmt.Errorf("mslcheck: launch %d: %w", li, err)
			}
			return fmt.Errorf("mslcheck: launch %d: %s has no kernel function %q", li, p.name, l.Kernel)
		}
		put(uint64(idx))
		for _, v := range append(l.Grid[:], l.Block[:]...) {
			put(uint64(max(v, 1)))
		}
		put(uint64(len(l.Buffers)))
		for j, b := range l.Buffers {
			if a := aliasOf(l.Buffers, j); a >= 0 {
				put(aliasMark - uint64(a))
				continue
			}
			put(uint64(len(b)))
			in.Write(b)
		}
		put(uint64(len(l.Params)))
		in.Write(l.Params)
	}
	cmd := exec.CommandContext(ctx, p.bin)
	cmd.Stdin = &in
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("mslcheck: running %s timed out (a barrier not every thread of a group reaches deadlocks): %w", p.name, ctx.Err())
		}
		return fmt.Errorf("mslcheck: running %s failed: %w\n%s", p.name, err, stderr.String())
	}
	for i, l := range launches {
		for j, b := range l.Buffers {
			if aliasOf(l.Buffers, j) >= 0 {
				continue
			}
			if _, err := io.ReadFull(&stdout, b); err != nil {
				return fmt.Errorf("mslcheck: reading buffer %d of launch %d: %w", j, i, err)
			}
		}
	}
	return nil
}

// aliasOf returns the index of an earlier buffer that is the same slice as
// bufs[j], or -1.
func aliasOf(bufs [][]byte, j int) int {
	b := bufs[j]
	if len(b) == 0 {
		return -1
	}
	for i := 0; i < j; i++ {
		if len(bufs[i]) == len(b) && &bufs[i][0] == &b[0] {
			return i
		}
	}
	return -1
}

// builtins maps the shim's attribute codes to the harness's position fields.
var builtins = map[string]string{
	"1": "gid",    // thread_position_in_grid
	"2": "lid",    // thread_position_in_threadgroup
	"3": "lindex", // thread_index_in_threadgroup (scalar)
	"4": "group",  // threadgroup_position_in_grid
	"5": "groups", // threadgroups_per_grid
	"6": "bsize",  // threads_per_threadgroup
	"7": "gsize",  // threads_per_grid
}

// wrapper generates anygpu_call_<i>, which calls kernel fn with its buffers,
// params and position arguments.
func wrapper(i int, name string, fn astNode) (string, error) {
	var args []string
	for _, p := range fn.Inner {
		if p.Kind != "ParmVarDecl" {
			continue
		}
		t := strings.TrimSpace(p.qualType())
		if idx, ok := bufferIndex(p); ok {
			switch {
			case strings.HasSuffix(t, "&"):
				base := strings.TrimSpace(strings.TrimSuffix(t, "&"))
				args = append(args, fmt.Sprintf("*(%s*)a->buf[%d]", base, idx))
			case strings.HasSuffix(t, "*"):
				args = append(args, fmt.Sprintf("(%s)a->buf[%d]", t, idx))
			default:
				return "", fmt.Errorf("kernel %s: parameter %s bound at [[buffer(%d)]] has type %q", name, p.Name, idx, t)
			}
			continue
		}
		code, ok := builtinCode(p)
		field, known := builtins[code]
		if !ok || !known {
			return "", fmt.Errorf("kernel %s: parameter %s has no attribute Execute supports", name, p.Name)
		}
		switch {
		case field == "lindex":
			args = append(args, "a->lindex")
		case strings.HasSuffix(t, "3"):
			args = append(args, "a->"+field)
		case strings.HasSuffix(t, "2"):
			args = append(args, fmt.Sprintf("%s{a->%s.x, a->%s.y}", t, field, field))
		default:
			args = append(args, fmt.Sprintf("(%s)a->%s.x", t, field))
		}
	}
	return fmt.Sprintf("static void anygpu_call_%d(const anygpu_args* a) { %s(%s); }\n", i, name, strings.Join(args, ", ")), nil
}

// builtinCode returns the built-in attribute code of a parameter (the
// shim's clang::annotate("metal.builtin", 2, code)).
func builtinCode(p astNode) (string, bool) { return annotation(p, "2") }

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// execMain is the harness: the MSL source, the generated wrappers, and a
// main that reads launches from stdin and writes the buffers back.
const execMain = `// anygpu MSL execution harness (generated by mslcheck.Execute)
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

// A reusable barrier for the threads of one threadgroup.
struct anygpu_barrier {
    std::mutex mu;
    std::condition_variable cv;
    unsigned count = 0, waiting = 0, generation = 0;
    void wait() {
        std::unique_lock<std::mutex> lock(mu);
        unsigned gen = generation;
        if (++waiting == count) {
            waiting = 0;
            ++generation;
            cv.notify_all();
            return;
        }
        cv.wait(lock, [&] { return gen != generation; });
    }
};
static thread_local anygpu_barrier* anygpu_current_barrier;
void anygpu_threadgroup_barrier() { anygpu_current_barrier->wait(); }

ANYGPU_SOURCE

#undef device
#undef thread
#undef threadgroup
#undef constant
#undef kernel

struct anygpu_args {
    unsigned char** buf;
    uint3 gid, lid, group, groups, bsize, gsize;
    uint lindex;
};
typedef void (*anygpu_entry)(const anygpu_args*);

ANYGPU_WRAPPERS

static uint64_t get64() {
    uint64_t v;
    if (fread(&v, 8, 1, stdin) != 1) { fprintf(stderr, "short input\n"); exit(2); }
    return v;
}

static uint3 vec3(uint64_t x, uint64_t y, uint64_t z) {
    uint3 v;
    v.x = (uint)x; v.y = (uint)y; v.z = (uint)z;
    return v;
}

int main() {
    uint64_t nlaunch = get64();
    std::vector<std::vector<std::vector<unsigned char>>> all;
    for (uint64_t l = 0; l < nlaunch; l++) {
        uint64_t k = get64();
        uint64_t g[3], b[3];
        for (int i = 0; i < 3; i++) g[i] = get64();
        for (int i = 0; i < 3; i++) b[i] = get64();
        uint64_t nbuf = get64();
        std::vector<std::vector<unsigned char>> bufs(nbuf + 1);
        std::vector<unsigned char*> ptrs(nbuf + 1);
        for (uint64_t i = 0; i <= nbuf; i++) {
            uint64_t len = get64();
            if (i < nbuf && len > UINT64_MAX - nbuf) { // an alias of buffer UINT64_MAX - len
                ptrs[i] = ptrs[UINT64_MAX - len];
                continue;
            }
            bufs[i].resize(len);
            if (len > 0 && fread(bufs[i].data(), 1, len, stdin) != len) { fprintf(stderr, "short input\n"); return 2; }
            ptrs[i] = bufs[i].data();
        }
        uint64_t threads = b[0] * b[1] * b[2];
        for (uint64_t gz = 0; gz < g[2]; gz++)
        for (uint64_t gy = 0; gy < g[1]; gy++)
        for (uint64_t gx = 0; gx < g[0]; gx++) {
            anygpu_barrier bar;
            bar.count = (unsigned)threads;
            std::vector<std::thread> workers;
            for (uint64_t t = 0; t < threads; t++) {
                uint64_t lx = t % b[0], ly = (t / b[0]) % b[1], lz = t / (b[0] * b[1]);
                anygpu_args a;
                a.buf = ptrs.data();
                a.lid = vec3(lx, ly, lz);
                a.group = vec3(gx, gy, gz);
                a.groups = vec3(g[0], g[1], g[2]);
                a.bsize = vec3(b[0], b[1], b[2]);
                a.gsize = vec3(g[0] * b[0], g[1] * b[1], g[2] * b[2]);
                a.gid = vec3(gx * b[0] + lx, gy * b[1] + ly, gz * b[2] + lz);
                a.lindex = (uint)t;
                workers.emplace_back([a, &bar, k] {
                    anygpu_current_barrier = &bar;
                    anygpu_entries[k](&a);
                });
            }
            for (auto& w : workers) w.join();
        }
        bufs.pop_back();
        all.push_back(std::move(bufs));
    }
    for (auto& bufs : all)
        for (auto& v : bufs)
            if (!v.empty()) fwrite(v.data(), 1, v.size(), stdout);
    return 0;
}
`
