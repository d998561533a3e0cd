package vulkan_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/vulkan"
)

// requireNoValidationMessages fails t if the validation layer reported
// anything so far.
func requireNoValidationMessages(t *testing.T) {
	t.Helper()
	if on, why := vulkan.ValidationEnabled(); !on {
		t.Logf("validation layer off: %s", why)
		return
	}
	msgs := vulkan.ValidationMessages()
	for i, m := range msgs {
		if i == 20 {
			t.Errorf("... and %d more", len(msgs)-i)
			break
		}
		t.Errorf("validation: %s", m)
	}
}
