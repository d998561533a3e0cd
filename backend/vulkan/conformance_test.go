package vulkan_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/vulkan"
)

func TestConformance(t *testing.T) {
	backendtest.Run(t, vulkan.Driver{})
	requireNoValidationMessages(t)
}
