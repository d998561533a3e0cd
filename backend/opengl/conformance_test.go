package opengl_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
)

// TestConformance runs the conformance suite once per client API: over a
// desktop OpenGL 4.3 core context, and over an OpenGL ES 3.1 context, where
// the built-in kernels (GLSL 430) compile as the GLSL ES derived from them.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		api  opengl.API
	}{
		{"GL", opengl.APIGL},
		{"GLES", opengl.APIGLES},
	} {
		t.Run(tc.name, func(t *testing.T) { backendtest.Run(t, opengl.Driver{API: tc.api}) })
	}
}
