package suggest_test

import (
	"testing"

	"github.com/anygpu/gpu/internal/suggest"
	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"cuda", "cuda", 0},
		{"", "cuda", 4},
		{"cuda", "", 4},
		{"cdua", "cuda", 1}, // a swap
		{"cudaa", "cuda", 1},
		{"cud", "cuda", 1},
		{"vulcan", "vulkan", 1},
		{"webgou", "webgpu", 1},
		{"opngel", "opengl", 2},
		{"CUDA", "cuda", 4}, // case-sensitive
		{"abc", "xyz", 3},
	} {
		assert.Equal(t, c.want, suggest.Distance(c.a, c.b), "%q %q", c.a, c.b)
		assert.Equal(t, c.want, suggest.Distance(c.b, c.a), "%q %q (reversed)", c.b, c.a)
	}
}

func TestClosest(t *testing.T) {
	names := []string{"cuda", "metal", "vulkan", "webgpu", "opengl", "cpu"}
	for _, c := range []struct {
		name string
		want string
		ok   bool
	}{
		{"cdua", "cuda", true},
		{"CDUA", "cuda", true},
		{"vulcan", "vulkan", true},
		{"metl", "metal", true},
		{"opengles", "opengl", true},
		{"cu", "", false}, // too short to guess
		{"nonsense", "", false},
		{"sim", "", false},
		{"", "", false},
	} {
		got, ok := suggest.Closest(c.name, names)
		assert.Equal(t, c.ok, ok, c.name)
		if c.ok {
			assert.Equal(t, c.want, got, c.name)
			assert.Equal(t, `; did you mean "`+c.want+`"?`, suggest.DidYouMean(c.name, names))
		} else {
			assert.Empty(t, suggest.DidYouMean(c.name, names), c.name)
		}
	}
}
