//go:build linux

package opengl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in           string
		es           bool
		major, minor int
		ok           bool
	}{
		{in: "4.5 (Core Profile) Mesa 22.3.6", major: 4, minor: 5, ok: true},
		{in: "4.3.0 NVIDIA 580.1", major: 4, minor: 3, ok: true},
		{in: "OpenGL ES 3.2 Mesa 22.3.6", es: true, major: 3, minor: 2, ok: true},
		{in: "OpenGL ES 3.1 v1.r38p1", es: true, major: 3, minor: 1, ok: true},
		{in: "OpenGL ES 3.2 V@0502.0 (GIT@...)", es: true, major: 3, minor: 2, ok: true},
		{in: "OpenGL ES-CM 1.1", ok: false},
		{in: "", ok: false},
		{in: "garbage", ok: false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			es, major, minor, ok := parseVersion(tc.in)
			assert.Equal(t, tc.ok, ok)
			if tc.ok {
				assert.Equal(t, []any{tc.es, tc.major, tc.minor}, []any{es, major, minor})
			}
		})
	}
}
