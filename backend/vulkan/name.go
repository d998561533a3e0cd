package vulkan

import "strconv"

// Name is the backend's registered name.
const Name = "vulkan"

func itoa(i int) string { return strconv.Itoa(i) }

// Environment variables read by the backend.
const (
	// EnvLibrary names the Vulkan loader to open instead of the platform's.
	EnvLibrary = "ANYGPU_VULKAN_LIBRARY"
	// EnvValidation enables the Khronos validation layer: "1" (or "true")
	// for core validation, "sync" to add synchronization validation.
	EnvValidation = "ANYGPU_VULKAN_VALIDATION"
	// EnvCacheDir is where pipeline caches are kept (shared with the other
	// backends' kernel caches).
	EnvCacheDir = "ANYGPU_CACHE_DIR"
)

// ValidationMessage is one message of the validation layer (or of the loader
// and drivers) delivered to the VK_EXT_debug_utils messenger.
type ValidationMessage struct {
	Severity string // "warning" or "error"
	Type     string // "general", "validation" or "performance"
	ID       string // the message's VUID or name
	Message  string // the text, as the layer wrote it
}

// String is the message on one line: severity, type, ID and text.
func (m ValidationMessage) String() string {
	return m.Severity + " " + m.Type + " " + m.ID + ": " + m.Message
}

// EnvShaderc names the libshaderc to open instead of the platform's, for
// GLSL sources compiled at run time.
const EnvShaderc = "ANYGPU_SHADERC_LIBRARY" // shaderc.Env

// EnvGLSLC names the glslc executable used for GLSL sources when libshaderc
// cannot be loaded (default: glslc on PATH).
const EnvGLSLC = "ANYGPU_GLSLC"

// EnvSPIRVVal names the spirv-val executable used to validate SPIR-V where
// libshaderc's validator cannot be loaded (default: spirv-val on PATH; "off"
// skips it).
const EnvSPIRVVal = "ANYGPU_SPIRV_VAL"
