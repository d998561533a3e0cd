//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/ebitengine/purego"
)

var validationLog struct {
	mu   sync.Mutex
	msgs []ValidationMessage
}

// ValidationMessages returns every warning and error the validation layer
// reported since the process started (ANYGPU_VULKAN_VALIDATION). It is empty
// when validation is off.
func ValidationMessages() []ValidationMessage {
	validationLog.mu.Lock()
	defer validationLog.mu.Unlock()
	return append([]ValidationMessage(nil), validationLog.msgs...)
}

// ValidationEnabled reports whether the process's Vulkan instance runs with
// the validation layer, and if it was asked for but is off, why. It creates
// the instance if there is none yet.
func ValidationEnabled() (bool, string) {
	in, err := getInstance()
	if err != nil {
		return false, err.Error()
	}
	return in.validation != "", in.note
}

var messengerCallback struct {
	once sync.Once
	fn   uintptr
}

// newMessengerInfo describes the messenger: warnings and errors of every
// message type go to debugCallback.
func newMessengerInfo() *vk.DebugUtilsMessengerCreateInfoEXT {
	messengerCallback.once.Do(func() { messengerCallback.fn = purego.NewCallback(debugCallback) })
	return &vk.DebugUtilsMessengerCreateInfoEXT{
		SType:           vk.StructureTypeDebugUtilsMessengerCreateInfoEXT,
		MessageSeverity: vk.DebugUtilsMessageSeverityWarningBitEXT | vk.DebugUtilsMessageSeverityErrorBitEXT,
		MessageType: vk.DebugUtilsMessageTypeGeneralBitEXT | vk.DebugUtilsMessageTypeValidationBitEXT |
			vk.DebugUtilsMessageTypePerformanceBitEXT,
		PfnUserCallback: messengerCallback.fn,
	}
}

// debugCallback is the PFN_vkDebugUtilsMessengerCallbackEXT: it records the
// message and returns VK_FALSE (the call goes on).
func debugCallback(severity, types uint32, data *vk.DebugUtilsMessengerCallbackDataEXT, _ unsafe.Pointer) uint32 {
	m := ValidationMessage{Severity: "warning", Type: "general"}
	if severity&vk.DebugUtilsMessageSeverityErrorBitEXT != 0 {
		m.Severity = "error"
	}
	switch {
	case types&vk.DebugUtilsMessageTypeValidationBitEXT != 0:
		m.Type = "validation"
	case types&vk.DebugUtilsMessageTypePerformanceBitEXT != 0:
		m.Type = "performance"
	}
	if data != nil {
		m.ID = vk.GoString(data.PMessageIdName, 1<<10)
		m.Message = vk.GoString(data.PMessage, 1<<16)
	}
	validationLog.mu.Lock()
	validationLog.msgs = append(validationLog.msgs, m)
	validationLog.mu.Unlock()
	return 0
}
