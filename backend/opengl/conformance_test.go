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

// TestConformanceHardwarePaths runs the suite over a desktop context with the
// transfer paths of hardware devices forced on a software renderer: large
// Writes and Reads through the staging ring, Copy through the copy shader.
func TestConformanceHardwarePaths(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Setenv(opengl.EnvStaging, "on")
	t.Setenv(opengl.EnvCopy, "shader")
	backendtest.Run(t, opengl.Driver{API: opengl.APIGL})
}
