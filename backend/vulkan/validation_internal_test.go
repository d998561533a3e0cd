//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"context"
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
)

// takeValidationMessages removes and returns the recorded messages.
func takeValidationMessages() []ValidationMessage {
	validationLog.mu.Lock()
	defer validationLog.mu.Unlock()
	msgs := validationLog.msgs
	validationLog.msgs = nil
	return msgs
}

// TestValidationLayerReports makes a call the validation layer must refuse
// (a buffer of size 0) and checks that the messenger recorded it: proof that
// a clean run really ran under the layer.
func TestValidationLayerReports(t *testing.T) {
	dev := openTestDevice(t)
	if on, why := ValidationEnabled(); !on {
		t.Skipf("validation layer off: %s", why)
	}
	before := takeValidationMessages()
	defer func() {
		validationLog.mu.Lock()
		validationLog.msgs = append(before, validationLog.msgs...)
		validationLog.mu.Unlock()
	}()
	info := vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: 0, Usage: vk.BufferUsageStorageBufferBit}
	dev.mu.RLock()
	h, r := dev.vd.CreateBuffer(&info)
	if r == vk.Success {
		dev.vd.DestroyBuffer(h)
	}
	dev.mu.RUnlock()
	got := takeValidationMessages()
	if len(got) == 0 {
		t.Fatal("the validation layer reported nothing for a buffer of size 0")
	}
	if !strings.Contains(got[0].ID+got[0].Message, "size") {
		t.Errorf("unexpected message: %v", got[0])
	}
	t.Logf("recorded as expected: %v", got[0])
}

func openTestDevice(t *testing.T) *device {
	t.Helper()
	devs, err := Driver{}.Probe(context.Background())
	if err != nil || len(devs) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	d, err := Driver{}.Open(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d.(*device)
}
