// Package wgpuc is the WebGPU backend's C API shim: the few entry points of
// wgpu-native's webgpu.h that github.com/oliverbestmann/webgpu does not
// expose, or gets wrong, called through cgo. It offers:
//
//   - RequestDevice: a device with uncaptured-error and device-lost
//     callbacks, which report into a Sink (without the first, wgpu-native
//     panics across the FFI boundary, aborting the process, on the first
//     error raised outside an error scope);
//   - Scopes: typed error scopes (the binding's Try… calls capture
//     validation errors only, as text);
//   - CreateShaderModuleSPIRV: SPIR-V shader modules (the binding passes the
//     code size in bytes where webgpu.h wants 32-bit words);
//   - CreateShaderModuleWGSL: WGSL shader modules with chosen runtime checks
//     (wgpu.h's wgpuDeviceCreateShaderModuleTrusted; the binding turns every
//     check on, the loop-bounding counters included);
//   - Handle: the C handle a binding object wraps.
//
// The declarations mirror webgpu.h of wgpu-native 29 as shipped with the
// binding's v1.36.0; static assertions pin their layout to that header's,
// and the library itself is linked by the binding's libs-* packages. Built
// without cgo the package is empty: the backend then reports that it was not
// compiled in.
package wgpuc
