//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vk

import (
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
	"github.com/ebitengine/purego"
)

// DebugMessage is one message delivered to a VK_EXT_debug_utils messenger.
type DebugMessage struct {
	Severity uint32 // VkDebugUtilsMessageSeverityFlagBitsEXT
	Types    uint32 // VkDebugUtilsMessageTypeFlagsEXT
	ID       string // pMessageIdName: the VUID or name
	Text     string // pMessage
}

var debugCallback struct {
	once sync.Once
	fn   uintptr
	sink func(DebugMessage)
}

// DebugCallback returns the PFN_vkDebugUtilsMessengerCallbackEXT that hands
// every message to sink and returns VK_FALSE (the call goes on). The process
// has one such callback (purego callbacks are never freed): the sink of the
// first call is the one used.
func DebugCallback(sink func(DebugMessage)) uintptr {
	debugCallback.once.Do(func() {
		debugCallback.sink = sink
		debugCallback.fn = purego.NewCallback(onDebugMessage)
	})
	return debugCallback.fn
}

// onDebugMessage is the callback's Go side.
func onDebugMessage(severity, types uint32, data *DebugUtilsMessengerCallbackDataEXT, _ unsafe.Pointer) uint32 {
	m := DebugMessage{Severity: severity, Types: types}
	if data != nil {
		m.ID = dl.GoStringN(uintptr(data.PMessageIdName), 1<<10)
		m.Text = dl.GoStringN(uintptr(data.PMessage), 1<<16)
	}
	debugCallback.sink(m)
	return 0
}
