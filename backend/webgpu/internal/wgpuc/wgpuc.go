//go:build cgo

package wgpuc

// The C side: declarations of webgpu.h, the callbacks and the wrappers the
// Go side calls.

/*
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;
typedef uint32_t WGPUBool;

typedef struct WGPUStringView {
	char const * data;
	size_t length;
} WGPUStringView;

typedef struct WGPUChainedStruct {
	struct WGPUChainedStruct * next;
	uint32_t sType;
} WGPUChainedStruct;

typedef struct WGPUFuture { uint64_t id; } WGPUFuture;

typedef struct WGPULimits {
	WGPUChainedStruct * nextInChain;
	uint32_t maxTextureDimension1D;
	uint32_t maxTextureDimension2D;
	uint32_t maxTextureDimension3D;
	uint32_t maxTextureArrayLayers;
	uint32_t maxBindGroups;
	uint32_t maxBindGroupsPlusVertexBuffers;
	uint32_t maxBindingsPerBindGroup;
	uint32_t maxDynamicUniformBuffersPerPipelineLayout;
	uint32_t maxDynamicStorageBuffersPerPipelineLayout;
	uint32_t maxSampledTexturesPerShaderStage;
	uint32_t maxSamplersPerShaderStage;
	uint32_t maxStorageBuffersPerShaderStage;
	uint32_t maxStorageTexturesPerShaderStage;
	uint32_t maxUniformBuffersPerShaderStage;
	uint64_t maxUniformBufferBindingSize;
	uint64_t maxStorageBufferBindingSize;
	uint32_t minUniformBufferOffsetAlignment;
	uint32_t minStorageBufferOffsetAlignment;
	uint32_t maxVertexBuffers;
	uint64_t maxBufferSize;
	uint32_t maxVertexAttributes;
	uint32_t maxVertexBufferArrayStride;
	uint32_t maxInterStageShaderVariables;
	uint32_t maxColorAttachments;
	uint32_t maxColorAttachmentBytesPerSample;
	uint32_t maxComputeWorkgroupStorageSize;
	uint32_t maxComputeInvocationsPerWorkgroup;
	uint32_t maxComputeWorkgroupSizeX;
	uint32_t maxComputeWorkgroupSizeY;
	uint32_t maxComputeWorkgroupSizeZ;
	uint32_t maxComputeWorkgroupsPerDimension;
	uint32_t maxImmediateSize;
} WGPULimits;

typedef void (*WGPUDeviceLostCallback)(WGPUDevice const * device, uint32_t reason, WGPUStringView message, void* userdata1, void* userdata2);
typedef void (*WGPUUncapturedErrorCallback)(WGPUDevice const * device, uint32_t type, WGPUStringView message, void* userdata1, void* userdata2);
typedef void (*WGPURequestDeviceCallback)(uint32_t status, WGPUDevice device, WGPUStringView message, void* userdata1, void* userdata2);
typedef void (*WGPUPopErrorScopeCallback)(uint32_t status, uint32_t type, WGPUStringView message, void* userdata1, void* userdata2);

typedef struct WGPUQueueDescriptor {
	WGPUChainedStruct * nextInChain;
	WGPUStringView label;
} WGPUQueueDescriptor;

typedef struct WGPUDeviceLostCallbackInfo {
	WGPUChainedStruct * nextInChain;
	uint32_t mode;
	WGPUDeviceLostCallback callback;
	void* userdata1;
	void* userdata2;
} WGPUDeviceLostCallbackInfo;

typedef struct WGPUUncapturedErrorCallbackInfo {
	WGPUChainedStruct * nextInChain;
	WGPUUncapturedErrorCallback callback;
	void* userdata1;
	void* userdata2;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPURequestDeviceCallbackInfo {
	WGPUChainedStruct * nextInChain;
	uint32_t mode;
	WGPURequestDeviceCallback callback;
	void* userdata1;
	void* userdata2;
} WGPURequestDeviceCallbackInfo;

typedef struct WGPUPopErrorScopeCallbackInfo {
	WGPUChainedStruct * nextInChain;
	uint32_t mode;
	WGPUPopErrorScopeCallback callback;
	void* userdata1;
	void* userdata2;
} WGPUPopErrorScopeCallbackInfo;

typedef struct WGPUDeviceDescriptor {
	WGPUChainedStruct * nextInChain;
	WGPUStringView label;
	size_t requiredFeatureCount;
	uint32_t const * requiredFeatures;
	WGPULimits const * requiredLimits;
	WGPUQueueDescriptor defaultQueue;
	WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
	WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(WGPULimits) == 152, "WGPULimits layout");
_Static_assert(offsetof(WGPULimits, maxStorageBufferBindingSize) == 72, "WGPULimits layout");
_Static_assert(offsetof(WGPULimits, maxBufferSize) == 96, "WGPULimits layout");
_Static_assert(offsetof(WGPULimits, maxComputeWorkgroupsPerDimension) == 144, "WGPULimits layout");
_Static_assert(sizeof(WGPUDeviceDescriptor) == 144, "WGPUDeviceDescriptor layout");
_Static_assert(offsetof(WGPUDeviceDescriptor, requiredLimits) == 40, "WGPUDeviceDescriptor layout");
_Static_assert(offsetof(WGPUDeviceDescriptor, deviceLostCallbackInfo) == 72, "WGPUDeviceDescriptor layout");
_Static_assert(offsetof(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo) == 112, "WGPUDeviceDescriptor layout");
_Static_assert(sizeof(WGPUPopErrorScopeCallbackInfo) == 40, "WGPUPopErrorScopeCallbackInfo layout");
_Static_assert(sizeof(WGPURequestDeviceCallbackInfo) == 40, "WGPURequestDeviceCallbackInfo layout");
#endif

typedef struct WGPUShaderModuleImpl* WGPUShaderModule;

typedef struct WGPUShaderSourceSPIRV {
	WGPUChainedStruct chain;
	uint32_t codeSize; // in 32-bit words
	uint32_t const * code;
} WGPUShaderSourceSPIRV;

typedef struct WGPUShaderModuleDescriptor {
	WGPUChainedStruct * nextInChain;
	WGPUStringView label;
} WGPUShaderModuleDescriptor;

#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(WGPUShaderSourceSPIRV) == 32, "WGPUShaderSourceSPIRV layout");
_Static_assert(offsetof(WGPUShaderSourceSPIRV, code) == 24, "WGPUShaderSourceSPIRV layout");
_Static_assert(sizeof(WGPUShaderModuleDescriptor) == 24, "WGPUShaderModuleDescriptor layout");
#endif

WGPUShaderModule wgpuDeviceCreateShaderModule(WGPUDevice device, WGPUShaderModuleDescriptor const * descriptor);

// ag_spirv creates a shader module from SPIR-V words. (The binding passes
// the code size in bytes where webgpu.h wants words.)
static WGPUShaderModule ag_spirv(WGPUDevice d, uint32_t const* words, uint32_t n) {
	WGPUShaderSourceSPIRV src;
	memset(&src, 0, sizeof src);
	src.chain.sType = 1; // WGPUSType_ShaderSourceSPIRV
	src.codeSize = n;
	src.code = words;
	WGPUShaderModuleDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.nextInChain = &src.chain;
	return wgpuDeviceCreateShaderModule(d, &desc);
}

typedef struct WGPUShaderSourceWGSL {
	WGPUChainedStruct chain;
	WGPUStringView code;
} WGPUShaderSourceWGSL;

#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(WGPUShaderSourceWGSL) == 32, "WGPUShaderSourceWGSL layout");
_Static_assert(offsetof(WGPUShaderSourceWGSL, code) == 16, "WGPUShaderSourceWGSL layout");
#endif

// WGPUShaderRuntimeChecks of wgpu.h (WGPUFlags).
WGPUShaderModule wgpuDeviceCreateShaderModuleTrusted(WGPUDevice device, WGPUShaderModuleDescriptor const * descriptor, uint64_t runtimeChecks);

// ag_wgsl_trusted creates a shader module from WGSL text (n bytes) with only
// the runtime checks given (wgpu.h's WGPUShaderRuntimeChecks).
static WGPUShaderModule ag_wgsl_trusted(WGPUDevice d, char const* code, size_t n, char const* label, size_t labelLen, uint64_t checks) {
	WGPUShaderSourceWGSL src;
	memset(&src, 0, sizeof src);
	src.chain.sType = 2; // WGPUSType_ShaderSourceWGSL
	src.code.data = code;
	src.code.length = n;
	WGPUShaderModuleDescriptor desc;
	memset(&desc, 0, sizeof desc);
	desc.nextInChain = &src.chain;
	desc.label.data = label;
	desc.label.length = labelLen;
	return wgpuDeviceCreateShaderModuleTrusted(d, &desc, checks);
}

WGPUFuture wgpuAdapterRequestDevice(WGPUAdapter adapter, WGPUDeviceDescriptor const * descriptor, WGPURequestDeviceCallbackInfo callbackInfo);
void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
WGPUFuture wgpuDevicePopErrorScope(WGPUDevice device, WGPUPopErrorScopeCallbackInfo callbackInfo);
void wgpuDeviceRelease(WGPUDevice device);

enum {
	agCallbackModeAllowSpontaneous = 3,
	agErrorTypeNoError = 1,
	agErrorFilterValidation = 1,
	agErrorFilterOutOfMemory = 2,
	agRequestDeviceSuccess = 1,
	agMessageMax = 4096,
};

// ag_result receives the outcome of an asynchronous call that wgpu-native
// completes before returning (callback mode AllowSpontaneous).
typedef struct ag_result {
	uint32_t called;
	uint32_t status; // RequestDevice: WGPURequestDeviceStatus; error scopes: WGPUPopErrorScopeStatus
	uint32_t type;   // error scopes: WGPUErrorType
	WGPUDevice device;
	char message[agMessageMax];
} ag_result;

// ag_copy copies a message into dst, a buffer of cap bytes, truncated and
// NUL-terminated.
static void ag_copy(char* dst, size_t cap, WGPUStringView m) {
	size_t n = m.length;
	if (m.data == NULL) {
		n = 0;
	} else if (n == SIZE_MAX) {
		n = strlen(m.data);
	}
	if (n > cap - 1) {
		n = cap - 1;
	}
	if (n > 0) {
		memcpy(dst, m.data, n);
	}
	dst[n] = 0;
}

static void ag_request_device_cb(uint32_t status, WGPUDevice device, WGPUStringView message, void* u1, void* u2) {
	ag_result* r = (ag_result*)u1;
	r->called = 1;
	r->status = status;
	r->device = device;
	ag_copy(r->message, agMessageMax, message);
}

// ag_sink collects a device's uncaptured errors and its loss. The callbacks
// that fill it are plain C: wgpu may raise them inside any call, and most
// calls of the binding are marked "#cgo nocallback", so calling back into Go
// from there would crash the runtime. Go drains it after its calls. A sink is
// never freed: wgpu may report the loss of a device after the device was
// released (when its last buffer goes).
enum { agSinkErrors = 8, agSinkMsg = 512 };
typedef struct ag_sink {
	volatile char lock;
	uint64_t seq;                          // uncaptured errors and losses so far
	uint32_t count;                        // errors queued, at most agSinkErrors
	uint32_t types[agSinkErrors];          // their WGPUErrorType
	char msgs[agSinkErrors][agSinkMsg];
	uint32_t lost;                         // the WGPUDeviceLostReason, once lost
	char lostMsg[agSinkMsg];
} ag_sink;

static void ag_lock(ag_sink* s) { while (__sync_lock_test_and_set(&s->lock, 1)) { } }
static void ag_unlock(ag_sink* s) { __sync_lock_release(&s->lock); }

static void ag_uncaptured_cb(WGPUDevice const * device, uint32_t type, WGPUStringView message, void* u1, void* u2) {
	ag_sink* s = (ag_sink*)u1;
	ag_lock(s);
	s->seq++;
	if (s->count < agSinkErrors) {
		s->types[s->count] = type;
		ag_copy(s->msgs[s->count], agSinkMsg, message);
		s->count++;
	}
	ag_unlock(s);
}

static void ag_lost_cb(WGPUDevice const * device, uint32_t reason, WGPUStringView message, void* u1, void* u2) {
	ag_sink* s = (ag_sink*)u1;
	ag_lock(s);
	s->seq++;
	if (s->lost == 0) {
		s->lost = reason;
		ag_copy(s->lostMsg, agSinkMsg, message);
	}
	ag_unlock(s);
}

static ag_sink* ag_new_sink(void) { return (ag_sink*)calloc(1, sizeof(ag_sink)); }

static uint64_t ag_sink_seq(ag_sink* s) {
	ag_lock(s);
	uint64_t n = s->seq;
	ag_unlock(s);
	return n;
}

// ag_sink_take moves the sink's queued errors and loss to out (a zeroed
// copy) and empties its queue.
static void ag_sink_take(ag_sink* s, ag_sink* out) {
	ag_lock(s);
	memcpy(out, s, sizeof *s);
	s->count = 0;
	ag_unlock(s);
	out->lock = 0;
}

// ag_request_device creates a device on adapter with the given limits and
// features, and the uncaptured-error and device-lost callbacks reporting to
// sink.
static void ag_request_device(WGPUAdapter adapter, WGPULimits* limits, uint32_t* features, size_t nfeatures, ag_sink* sink, ag_result* r) {
	WGPUDeviceDescriptor desc;
	memset(&desc, 0, sizeof desc);
	static char const label[] = "anygpu";
	desc.label.data = label;
	desc.label.length = sizeof label - 1;
	desc.requiredFeatureCount = nfeatures;
	desc.requiredFeatures = features;
	desc.requiredLimits = limits;
	desc.deviceLostCallbackInfo.mode = agCallbackModeAllowSpontaneous;
	desc.deviceLostCallbackInfo.callback = ag_lost_cb;
	desc.deviceLostCallbackInfo.userdata1 = sink;
	desc.uncapturedErrorCallbackInfo.callback = ag_uncaptured_cb;
	desc.uncapturedErrorCallbackInfo.userdata1 = sink;
	WGPURequestDeviceCallbackInfo cb;
	memset(&cb, 0, sizeof cb);
	cb.mode = agCallbackModeAllowSpontaneous;
	cb.callback = ag_request_device_cb;
	cb.userdata1 = r;
	memset(r, 0, sizeof *r);
	wgpuAdapterRequestDevice(adapter, &desc, cb);
}

static void ag_pop_cb(uint32_t status, uint32_t type, WGPUStringView message, void* u1, void* u2) {
	ag_result* r = (ag_result*)u1;
	r->called = 1;
	r->status = status;
	if (type != agErrorTypeNoError && r->type == 0) {
		r->type = type;
		ag_copy(r->message, agMessageMax, message);
	}
}

// ag_push pushes the two error scopes (out-of-memory outermost, validation
// innermost) that ag_pop pops. wgpu-native 29 refuses the internal-error
// filter (it panics: "invalid error filter"); internal errors reach the
// uncaptured-error callback instead.
static void ag_push(WGPUDevice d) {
	wgpuDevicePushErrorScope(d, agErrorFilterOutOfMemory);
	wgpuDevicePushErrorScope(d, agErrorFilterValidation);
}

// ag_pop pops the scopes of ag_push and leaves the first error in r (type 0
// when there was none).
static void ag_pop(WGPUDevice d, ag_result* r) {
	r->called = 0;
	r->status = 0;
	r->type = 0;
	r->message[0] = 0;
	WGPUPopErrorScopeCallbackInfo cb;
	memset(&cb, 0, sizeof cb);
	cb.mode = agCallbackModeAllowSpontaneous;
	cb.callback = ag_pop_cb;
	cb.userdata1 = r;
	for (int i = 0; i < 2; i++) {
		wgpuDevicePopErrorScope(d, cb);
	}
}

static ag_result* ag_new_result(void) { return (ag_result*)calloc(1, sizeof(ag_result)); }
static void ag_free_result(ag_result* r) { free(r); }

typedef struct WGPUAdapterInfo {
	WGPUChainedStruct * nextInChain;
	WGPUStringView vendor;
	WGPUStringView architecture;
	WGPUStringView device;
	WGPUStringView description;
	uint32_t backendType;
	uint32_t adapterType;
	uint32_t vendorID;
	uint32_t deviceID;
	uint32_t subgroupMinSize;
	uint32_t subgroupMaxSize;
} WGPUAdapterInfo;

uint32_t wgpuAdapterGetInfo(WGPUAdapter adapter, WGPUAdapterInfo * info);
void wgpuAdapterInfoFreeMembers(WGPUAdapterInfo adapterInfo);

// ag_subgroup_sizes reads the adapter's subgroup sizes (0, 0 when wgpu
// does not report them).
static void ag_subgroup_sizes(WGPUAdapter a, uint32_t* mn, uint32_t* mx) {
	WGPUAdapterInfo info;
	memset(&info, 0, sizeof info);
	*mn = 0;
	*mx = 0;
	if (wgpuAdapterGetInfo(a, &info) != 1) { // WGPUStatus_Success
		return;
	}
	*mn = info.subgroupMinSize;
	*mx = info.subgroupMaxSize;
	wgpuAdapterInfoFreeMembers(info);
}
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// limitsC converts binding limits to the C struct; a zero maxBindGroupsPlus…
// stays undefined.
func limitsC(l wgpu.Limits) C.WGPULimits {
	const u32 = C.uint32_t(0xffffffff)
	return C.WGPULimits{
		maxTextureDimension1D:                     C.uint32_t(l.MaxTextureDimension1D),
		maxTextureDimension2D:                     C.uint32_t(l.MaxTextureDimension2D),
		maxTextureDimension3D:                     C.uint32_t(l.MaxTextureDimension3D),
		maxTextureArrayLayers:                     C.uint32_t(l.MaxTextureArrayLayers),
		maxBindGroups:                             C.uint32_t(l.MaxBindGroups),
		maxBindGroupsPlusVertexBuffers:            u32,
		maxBindingsPerBindGroup:                   C.uint32_t(l.MaxBindingsPerBindGroup),
		maxDynamicUniformBuffersPerPipelineLayout: C.uint32_t(l.MaxDynamicUniformBuffersPerPipelineLayout),
		maxDynamicStorageBuffersPerPipelineLayout: C.uint32_t(l.MaxDynamicStorageBuffersPerPipelineLayout),
		maxSampledTexturesPerShaderStage:          C.uint32_t(l.MaxSampledTexturesPerShaderStage),
		maxSamplersPerShaderStage:                 C.uint32_t(l.MaxSamplersPerShaderStage),
		maxStorageBuffersPerShaderStage:           C.uint32_t(l.MaxStorageBuffersPerShaderStage),
		maxStorageTexturesPerShaderStage:          C.uint32_t(l.MaxStorageTexturesPerShaderStage),
		maxUniformBuffersPerShaderStage:           C.uint32_t(l.MaxUniformBuffersPerShaderStage),
		maxUniformBufferBindingSize:               C.uint64_t(l.MaxUniformBufferBindingSize),
		maxStorageBufferBindingSize:               C.uint64_t(l.MaxStorageBufferBindingSize),
		minUniformBufferOffsetAlignment:           C.uint32_t(l.MinUniformBufferOffsetAlignment),
		minStorageBufferOffsetAlignment:           C.uint32_t(l.MinStorageBufferOffsetAlignment),
		maxVertexBuffers:                          C.uint32_t(l.MaxVertexBuffers),
		maxBufferSize:                             C.uint64_t(l.MaxBufferSize),
		maxVertexAttributes:                       C.uint32_t(l.MaxVertexAttributes),
		maxVertexBufferArrayStride:                C.uint32_t(l.MaxVertexBufferArrayStride),
		maxInterStageShaderVariables:              C.uint32_t(l.MaxInterStageShaderVariables),
		maxColorAttachments:                       C.uint32_t(l.MaxColorAttachments),
		maxColorAttachmentBytesPerSample:          C.uint32_t(l.MaxColorAttachmentBytesPerSample),
		maxComputeWorkgroupStorageSize:            C.uint32_t(l.MaxComputeWorkgroupStorageSize),
		maxComputeInvocationsPerWorkgroup:         C.uint32_t(l.MaxComputeInvocationsPerWorkgroup),
		maxComputeWorkgroupSizeX:                  C.uint32_t(l.MaxComputeWorkgroupSizeX),
		maxComputeWorkgroupSizeY:                  C.uint32_t(l.MaxComputeWorkgroupSizeY),
		maxComputeWorkgroupSizeZ:                  C.uint32_t(l.MaxComputeWorkgroupSizeZ),
		maxComputeWorkgroupsPerDimension:          C.uint32_t(l.MaxComputeWorkgroupsPerDimension),
		maxImmediateSize:                          C.uint32_t(l.MaxImmediateSize),
	}
}

// rawHandle returns the C handle a binding object wraps: every object type of
// github.com/oliverbestmann/webgpu v1.36.0 holds it as its first field.
func rawHandle[T any](obj *T) unsafe.Pointer {
	if obj == nil {
		return nil
	}
	return *(*unsafe.Pointer)(unsafe.Pointer(obj))
}

// wrap makes a binding object of type T around a C handle this package
// created; the caller releases it with the object's Release.
func wrap[T any](h unsafe.Pointer) *T {
	obj := new(T)
	*(*unsafe.Pointer)(unsafe.Pointer(obj)) = h
	return obj
}

// Handle returns the C handle (WGPUBuffer, WGPUDevice, ...) that a binding
// object wraps, 0 for nil.
func Handle[T any](obj *T) uintptr { return uintptr(rawHandle(obj)) }

// Sink is a device's C-side record of uncaptured errors and loss, filled by
// the callbacks RequestDevice installs. It is never freed: wgpu may report
// the loss of a device after the device was released.
type Sink struct{ c *C.ag_sink }

// NewSink allocates an empty sink.
func NewSink() Sink { return Sink{C.ag_new_sink()} }

// Seq counts the uncaptured errors and losses reported so far.
func (s Sink) Seq() uint64 { return uint64(C.ag_sink_seq(s.c)) }

// UncapturedError is one error raised outside any error scope.
type UncapturedError struct {
	Type wgpu.ErrorType
	Msg  string
}

// Take returns and removes the queued uncaptured errors (at most 8 are
// kept between calls), and reports the device's loss: lostReason is 0 while
// the device is not lost.
func (s Sink) Take() (errs []UncapturedError, lostReason wgpu.DeviceLostReason, lostMsg string) {
	out := (*C.ag_sink)(C.malloc(C.size_t(unsafe.Sizeof(C.ag_sink{}))))
	defer C.free(unsafe.Pointer(out))
	C.ag_sink_take(s.c, out)
	for i := 0; i < int(out.count); i++ {
		errs = append(errs, UncapturedError{wgpu.ErrorType(out.types[i]), C.GoString(&out.msgs[i][0])})
	}
	if out.lost != 0 {
		lostReason, lostMsg = wgpu.DeviceLostReason(out.lost), C.GoString(&out.lostMsg[0])
	}
	return errs, lostReason, lostMsg
}

// SubgroupSizes is the adapter's least and greatest subgroup size (WebGPU's
// AdapterInfo.subgroupMinSize and subgroupMaxSize), 0 and 0 when wgpu does
// not report them.
func SubgroupSizes(adapter *wgpu.Adapter) (minSize, maxSize uint32) {
	var mn, mx C.uint32_t
	C.ag_subgroup_sizes(C.WGPUAdapter(rawHandle(adapter)), &mn, &mx)
	return uint32(mn), uint32(mx)
}

// RequestDevice creates a device on adapter with the given limits and
// features, whose uncaptured errors and loss go to sink. It returns the
// device (nil on failure), the request's status and wgpu's message.
func RequestDevice(adapter *wgpu.Adapter, limits wgpu.Limits, features []wgpu.FeatureName, sink Sink) (*wgpu.Device, wgpu.RequestDeviceStatus, string) {
	r := C.ag_new_result()
	defer C.ag_free_result(r)
	cl := (*C.WGPULimits)(C.malloc(C.size_t(unsafe.Sizeof(C.WGPULimits{}))))
	defer C.free(unsafe.Pointer(cl))
	*cl = limitsC(limits)
	var cf *C.uint32_t
	if len(features) > 0 {
		cf = (*C.uint32_t)(C.malloc(C.size_t(4 * len(features))))
		defer C.free(unsafe.Pointer(cf))
		fs := unsafe.Slice(cf, len(features))
		for i, f := range features {
			fs[i] = C.uint32_t(f)
		}
	}
	C.ag_request_device(C.WGPUAdapter(rawHandle(adapter)), cl, cf, C.size_t(len(features)), sink.c, r)
	if r.called == 0 {
		return nil, 0, "the device request did not complete"
	}
	status, msg := wgpu.RequestDeviceStatus(r.status), C.GoString(&r.message[0])
	if status != wgpu.RequestDeviceStatusSuccess || r.device == nil {
		if r.device != nil {
			C.wgpuDeviceRelease(r.device)
		}
		return nil, status, msg
	}
	return wrap[wgpu.Device](unsafe.Pointer(r.device)), status, msg
}

// CreateShaderModuleSPIRV creates a shader module from SPIR-V (whole 32-bit
// words, in the machine's byte order); nil when code holds no word or wgpu
// returns none. Call it inside error scopes, which catch wgpu's report.
func CreateShaderModuleSPIRV(dev *wgpu.Device, code []byte) *wgpu.ShaderModule {
	n := len(code) / 4
	if n == 0 {
		return nil
	}
	words := C.malloc(C.size_t(4 * n))
	defer C.free(words)
	copy(unsafe.Slice((*byte)(words), 4*n), code[:4*n])
	h := C.ag_spirv(C.WGPUDevice(rawHandle(dev)), (*C.uint32_t)(words), C.uint32_t(n))
	if h == nil {
		return nil
	}
	return wrap[wgpu.ShaderModule](unsafe.Pointer(h))
}

// CreateShaderModuleWGSL creates a shader module from WGSL text with only
// the runtime checks given, through wgpu-native's
// wgpuDeviceCreateShaderModuleTrusted (the binding's CreateShaderModule
// turns every check on); nil when code is empty or wgpu returns none. Call
// it inside error scopes, which catch wgpu's report.
func CreateShaderModuleWGSL(dev *wgpu.Device, label, code string, checks wgpu.ShaderRuntimeChecks) *wgpu.ShaderModule {
	if code == "" {
		return nil
	}
	c := C.CBytes([]byte(code))
	defer C.free(c)
	var l unsafe.Pointer
	if label != "" {
		l = C.CBytes([]byte(label))
		defer C.free(l)
	}
	h := C.ag_wgsl_trusted(C.WGPUDevice(rawHandle(dev)), (*C.char)(c), C.size_t(len(code)), (*C.char)(l), C.size_t(len(label)), C.uint64_t(checks))
	if h == nil {
		return nil
	}
	return wrap[wgpu.ShaderModule](unsafe.Pointer(h))
}

// Scopes pushes and pops typed error scopes (out of memory, validation) on
// one device. Error scopes of wgpu are per thread, so Push locks the calling
// goroutine to its OS thread until Pop.
type Scopes struct {
	dev unsafe.Pointer // C.WGPUDevice
	mu  sync.Mutex     // guards res
	res *C.ag_result
}

// NewScopes returns the scopes of dev; Free releases them.
func NewScopes(dev *wgpu.Device) *Scopes {
	return &Scopes{dev: rawHandle(dev), res: C.ag_new_result()}
}

// Free releases the scopes' C memory; Pop then reports nothing.
func (s *Scopes) Free() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.res != nil {
		C.ag_free_result(s.res)
		s.res = nil
	}
}

// Push opens the scopes on the calling thread, which it locks.
func (s *Scopes) Push() {
	runtime.LockOSThread()
	C.ag_push(C.WGPUDevice(s.dev))
}

// Pop closes the scopes of Push and returns the first error they caught:
// its type (0 when none) and wgpu's message.
func (s *Scopes) Pop() (wgpu.ErrorType, string) {
	defer runtime.UnlockOSThread()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.res == nil {
		return 0, ""
	}
	C.ag_pop(C.WGPUDevice(s.dev), s.res)
	if s.res._type == 0 {
		return 0, ""
	}
	return wgpu.ErrorType(s.res._type), C.GoString(&s.res.message[0])
}
