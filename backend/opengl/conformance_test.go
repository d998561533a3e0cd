package opengl_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
)

func TestConformance(t *testing.T) { backendtest.Run(t, opengl.Driver{}) }
