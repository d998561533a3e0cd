// Package nvrtc compiles CUDA C++ to CUBIN or PTX at run time with NVIDIA's
// NVRTC library, loaded through purego (no cgo, no CUDA toolkit at build
// time), and keeps the results in an on-disk kernel cache.
//
//	r, err := nvrtc.Compile(src, nvrtc.Options{Arch: "sm_90"})
//	if errors.Is(err, errors.Compilation) { fmt.Println(errors.LogOf(err)) }
//	// r.CUBIN goes to cuModuleLoadData; the CUDA backend does this for you.
//
// # Finding NVRTC
//
// ANYGPU_NVRTC_LIBRARY, when set, is the only library tried. Otherwise, in
// order: libnvrtc.so.13 and libnvrtc.so.12 through the system's search
// (LD_LIBRARY_PATH, the ld.so cache); $CUDA_HOME and $CUDA_PATH (lib64,
// lib); /usr/local/cuda and /usr/local/cuda-X.Y, newest first; and NVIDIA's
// Python wheels (site-packages/nvidia/cu13/lib, nvidia/cuda_nvrtc/lib) of
// $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local and the system Pythons. On Windows
// the DLLs are nvrtc64_130_0.dll and nvrtc64_120_0.dll. The library is
// loaded on first use; a missing one is an error of category Unavailable,
// never a crash.
//
// # CUDA headers
//
// Programs include <cuda_fp16.h>, <cuda_bf16.h>, <cooperative_groups.h> and,
// with CUDA 13, <cuda/std/...> with no options: after Options.IncludePaths
// the compiler passes the CUDA header directory of the NVRTC it loaded
// (<lib>/../include; for the CUDA 12 wheels nvidia/cuda_runtime/include),
// else the first of $CUDA_HOME/include, $CUDA_PATH/include,
// /usr/local/cuda/include, /usr/local/cuda-X.Y/include (newest first), and
// the wheels' site-packages/nvidia/cu13/include and
// nvidia/cuda_runtime/include that holds cuda_fp16.h, with its CCCL
// directory (<dir>/cccl, or the CUDA 12 wheel nvidia/cuda_cccl/include).
// $ANYGPU_CUDA_INCLUDE (a path list) replaces the search;
// Options.NoCUDAIncludes turns it off. CUDAIncludePaths reports the result.
//
// # Options
//
// Options.Arch is required: "sm_XY" compiles to CUBIN for compute capability
// X.Y (and PTX), "compute_XY" or Options.PTX to PTX only. The other options
// map to NVRTC's: Std (--std), FastMath (--use_fast_math), MaxRegisters
// (--maxrregcount), LineInfo (--generate-line-info), Debug (-G), Defines
// (-D), IncludePaths (-I), Headers (in-memory headers), NameExpressions
// (mangled names of templates, returned in Result.LoweredNames), Flags
// (verbatim).
//
// # Kernel cache
//
// Compiled programs are kept under $ANYGPU_CACHE_DIR/nvrtc (default
// os.UserCacheDir()/anygpu/nvrtc), one file per program, named by the
// SHA-256 of the source, the options, the NVRTC version, the architecture
// and the driver version (Options.DriverVersion). Writes are atomic
// (temporary file and rename), so any number of processes can share the
// directory; every entry carries a CRC-32C checksum and its key, so a corrupt or
// tampered entry is detected and rebuilt. A warm hit in a new process costs
// a file read (well under a millisecond) instead of a compile (tens to
// hundreds of milliseconds), and loads no NVRTC: the cache keeps, per
// search environment, a stamp of the NVRTC version and library file (checked
// by size and modification time), and the CUDA header directories are found
// from that file's location, as the compiling process found them.
// Cache.Stats counts hits, misses, rebuilt entries and compile time.
//
// Headers are part of the key. NVRTC does not report which files a compile
// read, so the compiler follows the program's #include directives (and
// __has_include probes, and headers pre-included by Flags) itself,
// resolving each as NVRTC does (in-memory Headers, the including file's
// directory for "...", IncludePaths, the CUDA headers, then -I directories
// in Flags), and hashes
// every file found and every path where none was: an edited, added,
// shadowing or removed header is a miss, never a stale binary
// (Result.Dependencies lists them). A computed include (#include MACRO)
// cannot be followed: such a program is compiled every time and
// Result.Uncached says why.
//
// # Errors
//
// Every nvrtcResult maps to an *errors.Error through the errors package:
// NVRTC_ERROR_COMPILATION is category Compilation and carries the program
// log (errors.LogOf); a missing library is Unavailable; a bad Options.Arch is
// InvalidArgument.
package nvrtc
