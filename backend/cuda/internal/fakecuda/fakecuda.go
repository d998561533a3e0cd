// Package fakecuda builds a stand-in for libcuda.so.1 with the system C
// compiler, for tests of the CUDA backend's loader and probe on machines
// without an NVIDIA driver. The library exports every symbol the backend
// resolves; cuInit returns $FAKECUDA_INIT (default 0), cuDeviceGetCount
// $FAKECUDA_COUNT (default 1), cuDriverGetVersion $FAKECUDA_VERSION (default
// 13000); attributes are an H200's; every other function returns
// $FAKECUDA_DEFAULT, read once (default 801, CUDA_ERROR_NOT_SUPPORTED), and
// writes nothing.
package fakecuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
)

// Attributes are the attribute values the fake device reports (an H200's).
var Attributes = map[cu.Attribute]int{
	cu.AttrMaxThreadsPerBlock: 1024, cu.AttrMaxBlockDimX: 1024, cu.AttrMaxBlockDimY: 1024, cu.AttrMaxBlockDimZ: 64,
	cu.AttrMaxGridDimX: 2147483647, cu.AttrMaxGridDimY: 65535, cu.AttrMaxGridDimZ: 65535,
	cu.AttrMaxSharedMemoryPerBlock: 49152, cu.AttrTotalConstantMemory: 65536, cu.AttrWarpSize: 32,
	cu.AttrMaxRegistersPerBlock: 65536, cu.AttrClockRate: 1980000, cu.AttrMultiprocessorCount: 132,
	cu.AttrIntegrated: 0, cu.AttrCanMapHostMemory: 1, cu.AttrComputeMode: 0, cu.AttrConcurrentKernels: 1,
	cu.AttrECCEnabled: 1, cu.AttrPCIBusID: 0x3b, cu.AttrMemoryClockRate: 3201000, cu.AttrGlobalMemoryBusWidth: 6016,
	cu.AttrL2CacheSize: 62914560, cu.AttrMaxThreadsPerMultiprocessor: 2048, cu.AttrAsyncEngineCount: 3,
	cu.AttrUnifiedAddressing: 1, cu.AttrComputeCapabilityMajor: 9, cu.AttrComputeCapabilityMinor: 0,
	cu.AttrMaxSharedMemoryPerSM: 233472, cu.AttrMaxRegistersPerSM: 65536, cu.AttrManagedMemory: 1,
	cu.AttrCooperativeLaunch: 1, cu.AttrMaxSharedMemoryPerBlockOptin: 232448, cu.AttrMaxBlocksPerMultiprocessor: 32,
	cu.AttrReservedSharedMemoryPerBlock: 1024, cu.AttrClusterLaunch: 1, cu.AttrMemoryPoolsSupported: 1,
}

// Build compiles the fake library into dir and returns its path. It fails
// when no C compiler is available (tests skip then).
func Build(dir string) (string, error) { return BuildCustom(dir, nil, nil) }

// BuildCustom is Build with the functions in omit left out and those in
// extra (other exported names) added.
func BuildCustom(dir string, omit, extra []string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("the fake driver is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			return "", fmt.Errorf("no C compiler: %w", err)
		}
	}
	src := filepath.Join(dir, "fakecuda.c")
	if err := os.WriteFile(src, []byte(source(omit, extra)), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "libcuda.so.1")
	cmd := exec.Command(cc, "-shared", "-fPIC", "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cc, err, b)
	}
	return out, nil
}

// source is the C text of the fake library.
func source(omit, extra []string) string {
	var b strings.Builder
	b.WriteString(`#include <stdlib.h>
#include <string.h>
static int envint(const char *n, int d) { const char *v = getenv(n); return v ? atoi(v) : d; }
static int fallback = -1;
static int result(void) { if (fallback < 0) fallback = envint("FAKECUDA_DEFAULT", 801); return fallback; }
int cuInit(unsigned flags) { return envint("FAKECUDA_INIT", 0); }
int cuDriverGetVersion(int *v) { *v = envint("FAKECUDA_VERSION", 13000); return 0; }
int cuDeviceGetCount(int *n) { *n = envint("FAKECUDA_COUNT", 1); return 0; }
int cuDeviceGet(int *d, int ordinal) { *d = ordinal; return 0; }
int cuDeviceGetName(char *name, int len, int d) { strncpy(name, "Fake H200", len); return 0; }
int cuDeviceTotalMem_v2(unsigned long long *b, int d) { *b = 150109880320ULL; return 0; }
int cuDeviceGetUuid_v2(unsigned char *u, int d) { for (int i = 0; i < 16; i++) u[i] = (unsigned char)(i * 17); return 0; }
int cuDeviceGetPCIBusId(char *b, int len, int d) { strncpy(b, "0000:3B:00.0", len); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) {
	switch (a) {
`)
	for a, v := range Attributes {
		fmt.Fprintf(&b, "\tcase %d: *v = %d; return 0;\n", int(a), v)
	}
	b.WriteString("\t}\n\t*v = 0;\n\treturn 0;\n}\n")
	done := map[string]bool{"cuInit": true, "cuDriverGetVersion": true, "cuDeviceGetCount": true, "cuDeviceGet": true,
		"cuDeviceGetName": true, "cuDeviceTotalMem_v2": true, "cuDeviceGetUuid_v2": true, "cuDeviceGetPCIBusId": true,
		"cuDeviceGetAttribute": true}
	for _, n := range omit {
		done[n] = true
	}
	for _, n := range append(cu.AllSymbols(), extra...) {
		if !done[n] {
			done[n] = true
			fmt.Fprintf(&b, "int %s() { return result(); }\n", n)
		}
	}
	return b.String()
}
