package kernelfuzz

import (
	"testing"

	"github.com/anygpu/gpu/kernel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGenerateIsDeterministic checks that a seed names one program and
// that seeds differ.
func TestGenerateIsDeterministic(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2, 12345} {
		a, b := Generate(seed, Default()), Generate(seed, Default())
		require.Equal(t, a.Source, b.Source, "seed %d", seed)
		require.Equal(t, a.Cases, b.Cases, "seed %d", seed)
		assert.NotEqual(t, a.Source, Generate(seed+1, Default()).Source, "seeds %d and %d", seed, seed+1)
	}
}

// TestGeneratedProgramsTranslate translates many generated programs under
// several option sets: every one must be valid Go and valid kernel
// language, with one case per kernel whose name the translation knows.
func TestGeneratedProgramsTranslate(t *testing.T) {
	all := Default()
	noFloats := all
	noFloats.Floats = false
	minimal := Options{}
	tests := []struct {
		name  string
		opt   Options
		seeds uint64
	}{
		{"default", all, 100},
		{"no floats", noFloats, 50},
		{"straight-line integers", minimal, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range tt.seeds {
				p := Generate(seed, tt.opt)
				src, err := kernel.Translate(p.Source)
				require.NoError(t, err, "seed %d:\n%s", seed, p.Source)
				require.NotEmpty(t, p.Cases, "seed %d", seed)
				for _, c := range p.Cases {
					require.Contains(t, src.Params, c.Kernel, "seed %d", seed)
					require.Len(t, c.Args, len(src.Params[c.Kernel]), "seed %d: %s's arguments", seed, c.Kernel)
				}
			}
		})
	}
}
