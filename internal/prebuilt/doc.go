// Package prebuilt holds the built-in CUDA kernels compiled ahead of time, so
// that a fresh process on a fresh machine runs its first built-in kernel
// without loading or running NVRTC (1.2-1.6 s for the built-ins, before the
// kernel cache has them). The CUDA backend looks every CUDA program up here
// before compiling it; user kernels miss and go through NVRTC and the kernel
// cache as before.
//
// # Keys and lookup
//
// A program's Key is the SHA-256 of exactly what the CUDA backend hands
// NVRTC, less the target: the CUDA text and every field of nvrtc.Options
// that reaches the compiler (NVRTCOptions builds them from the backend's
// compile options, for the backend and the regeneration alike). Another
// option (a define, FastMath, launch bounds) is another key, hence NVRTC.
// Programs that include files are never served (Eligible): the key does not
// cover the files' contents.
//
// Per key the set has images for several targets (DefaultTargets): CUBINs
// for sm_75, sm_80, sm_90, sm_100 and sm_120, and PTX for compute_75. For a
// GPU of compute capability X.Y, Set.Images offers, best first: a CUBIN
// sm_XZ with Z ≤ Y, the highest Z first (a CUBIN runs on its major version
// at its own or a later minor version, never across majors: sm_80 serves
// A100, A10, RTX 30 and 40, sm_90 H100 and H200 only); then PTX compute_VW
// with V.W ≤ X.Y (the driver compiles PTX for its own or any later GPU),
// provided the driver's CUDA version is at least that of the NVRTC that
// wrote it (a driver compiles only the PTX versions it knows). A CUBIN the
// driver refuses (CUDA_ERROR_NO_BINARY_FOR_GPU, an image it cannot read)
// falls through to the next image, and past the last to NVRTC, as does a
// GPU nothing serves. ANYGPU_CUDA_PREBUILT=off (package backend/cuda) turns
// the lookup off.
//
// # Files
//
// The set is two files in data/, embedded in the module: index.json (Index:
// per image its key, program, origin, target, the SHA-256 of the CUDA text,
// the NVRTC version, where its bytes are in the pack, their size and
// SHA-256) and pack.bin (each image DEFLATE-compressed, back to back).
// Write makes them deterministically (entries sorted by key and target). An
// image is inflated and checked against its SHA-256 only when it is about to
// load; a damaged one is skipped. With no pack and an empty index (as
// committed before the first regeneration) the set is empty and everything
// compiles with NVRTC.
//
// # Regenerating
//
// The set must be regenerated whenever a built-in CUDA text changes
// (kernels.Source: a kernel, the CUDA emitter, go
// generate). TestBuiltinsPrebuilt reports built-ins without images: a
// failure where ANYGPU_TEST_REQUIRE names cuda (the GPU machine), a log
// line elsewhere. Regeneration needs NVRTC (CUDA 13), not a GPU; the GPU
// machine may have it and no Go, so the test binary travels there:
//
//  1. Build it: go test -c -o prebuilt.test ./internal/prebuilt
//  2. On the machine with NVRTC, from this package's directory:
//     ANYGPU_PREBUILT_WRITE=DIR ./prebuilt.test -test.run '^(TestRegenerate|TestColdStart)$' -test.v
//     TestRegenerate compiles every distinct built-in text for each target
//     of DefaultTargets the NVRTC offers (ANYGPU_PREBUILT_TARGETS=sm_90,compute_75
//     replaces the list) and writes DIR/index.json and DIR/pack.bin;
//     TestColdStart then measures that set from fresh processes.
//  3. Copy DIR/index.json and DIR/pack.bin into internal/prebuilt/data/,
//     run go test ./internal/prebuilt ./backend/cuda -count=1 and commit data/.
//  4. Check it shipped: build the test binary again and, on a CUDA machine,
//     run it with -test.run '^(TestBuiltinsPrebuilt|TestColdStart)$' and
//     ANYGPU_TEST_REQUIRE=cuda; the CUDA backend's conformance suite then
//     runs the built-ins from the set.
//
// # Measuring
//
// TestColdStart starts this package's test binary again as fresh processes
// (TestMain's child mode) that open the CUDA device, compile
// kernels.Source(), look up fill, launch it and read the result, and logs
// the milliseconds from process start (the parent's clock just before the
// start) to each step: with the prebuilt CUBIN (NVRTC made unloadable, so a
// miss fails), the prebuilt PTX alone, and NVRTC with an empty and a warm
// kernel cache; each child gets empty kernel and driver JIT caches
// (ANYGPU_CACHE_DIR, CUDA_CACHE_PATH). BenchmarkColdStart reports the
// prebuilt CUBIN's time to the first kernel as ms-to-kernel. It skips
// without a CUDA device.
package prebuilt
