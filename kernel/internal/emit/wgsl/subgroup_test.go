package wgsl

import (
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A kernel whose subgroup operations were kept (opt.KeepSubgroups) is
// emitted with WGSL's subgroups: the directive, the built-in parameters,
// the built-in functions, and Go's float min and max as a butterfly; every
// module passes naga, and a module without subgroup operations has none of
// it.
func TestEmitSubgroups(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
		not        []string
	}{
		{"size and lane", "out[i] = float32(kernel.SubgroupSize() + kernel.SubgroupInvocationID())",
			[]string{"ag_sgsize + ag_sglane", "@builtin(subgroup_size) ag_sgsize: u32, @builtin(subgroup_invocation_id) ag_sglane: u32"}, nil},
		{"float add", "out[i] = kernel.SubgroupAdd(x[i])", []string{"subgroupAdd("}, []string{"ag_sg_"}},
		{"float min", "out[i] = kernel.SubgroupMin(x[i])", []string{"ag_sg_min_f32(", "fn ag_sg_min_f32(v: f32, size: u32) -> f32", "ag_min_f32(m, subgroupShuffleXor(m, d))"}, []string{"subgroupMin("}},
		{"float max", "out[i] = kernel.SubgroupMax(x[i])", []string{"ag_sg_max_f32(", "ag_max_f32(m, subgroupShuffleXor(m, d))"}, []string{"subgroupMax("}},
		{"int min and max", "out[i] = float32(kernel.SubgroupMin(int32(i)) + kernel.SubgroupMax(int32(i)))", []string{"subgroupMin(", "subgroupMax("}, []string{"ag_sg_"}},
		{"shuffles", "out[i] = kernel.SubgroupShuffle(x[i], 0) + kernel.SubgroupShuffleXor(x[i], 1)", []string{"subgroupShuffle(", "subgroupShuffleXor("}, nil},
		{"broadcast", "out[i] = kernel.SubgroupBroadcastFirst(x[i])", []string{"subgroupBroadcastFirst("}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package k\n\nimport \"github.com/anygpu/gpu/kernel\"\n\n//gpu:kernel\nfunc K(out, x []float32) {\n\ti := kernel.GlobalX()\n\t" + tc.body + "\n}\n"
			m, err := front.Load([]front.File{{Name: "k.go", Src: src}})
			require.NoError(t, err)
			out, err := Emit(m)
			require.NoError(t, err)
			for name, text := range map[string]string{"All": out.All, "module": out.Modules["K"], "native": out.Native["K"]} {
				assert.Contains(t, text, header+enableSubgroups, "%s: the directive right after the header", name)
				for _, w := range tc.want {
					assert.Contains(t, text, w, name)
				}
				for _, w := range tc.not {
					assert.NotContains(t, text, w, name)
				}
				nagaCheck(t, name, text, name == "All")
			}
		})
	}
	m, err := front.Load([]front.File{{Name: "k.go", Src: "package k\n\nimport \"github.com/anygpu/gpu/kernel\"\n\n//gpu:kernel\nfunc K(out []float32) {\n\tout[kernel.GlobalX()] = 1\n}\n"}})
	require.NoError(t, err)
	out, err := Emit(m)
	require.NoError(t, err)
	assert.NotContains(t, out.All, "subgroup")
	assert.NotContains(t, out.Native["K"], "subgroup")
}
