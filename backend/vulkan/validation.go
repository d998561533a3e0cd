//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"sync"

	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
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

// newMessengerInfo describes the messenger: warnings and errors of every
// message type go to recordMessage.
func newMessengerInfo() *vk.DebugUtilsMessengerCreateInfoEXT {
	return &vk.DebugUtilsMessengerCreateInfoEXT{
		SType:           vk.StructureTypeDebugUtilsMessengerCreateInfoEXT,
		MessageSeverity: vk.DebugUtilsMessageSeverityWarningBitEXT | vk.DebugUtilsMessageSeverityErrorBitEXT,
		MessageType: vk.DebugUtilsMessageTypeGeneralBitEXT | vk.DebugUtilsMessageTypeValidationBitEXT |
			vk.DebugUtilsMessageTypePerformanceBitEXT,
		PfnUserCallback: vk.DebugCallback(recordMessage),
	}
}

// recordMessage records a message of the messenger.
func recordMessage(dm vk.DebugMessage) {
	m := ValidationMessage{Severity: "warning", Type: "general", ID: dm.ID, Message: dm.Text}
	if dm.Severity&vk.DebugUtilsMessageSeverityErrorBitEXT != 0 {
		m.Severity = "error"
	}
	switch {
	case dm.Types&vk.DebugUtilsMessageTypeValidationBitEXT != 0:
		m.Type = "validation"
	case dm.Types&vk.DebugUtilsMessageTypePerformanceBitEXT != 0:
		m.Type = "performance"
	}
	validationLog.mu.Lock()
	validationLog.msgs = append(validationLog.msgs, m)
	validationLog.mu.Unlock()
}
