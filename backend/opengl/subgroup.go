//go:build linux

package opengl

import (
	"os"
	"slices"
	"strings"

	"github.com/anygpu/gpu/backend"
)

// EnvSubgroups set to "off" runs every kernel with subgroups of one thread
// (the Source's portable GLSL), even where the context has the
// GL_KHR_shader_subgroup features a kernel's Source.Subgroups variant needs;
// it is read at each Compile. Tests set it to run both paths.
const EnvSubgroups = "ANYGPU_SUBGROUPS"

// subgroupsOff reports whether EnvSubgroups turns the subgroup variants off.
func subgroupsOff() bool {
	return strings.EqualFold(strings.TrimSpace(os.Getenv(EnvSubgroups)), "off")
}

// subgroupFeatures are GL_KHR_shader_subgroup's GLSL extensions in the
// order of their GL_SUBGROUP_FEATURE_*_BIT_KHR bits.
var subgroupFeatures = []string{"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"}

// subgroupOpsString lists the features of ops, for
// DeviceInfo.Extra["subgroup_ops"] ("" when none).
func subgroupOpsString(ops uint32) string {
	var names []string
	for i, n := range subgroupFeatures {
		if ops&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// subgroupNeeds is the features kernel name's section of text requires
// (its "#extension GL_KHR_shader_subgroup_<feature> : require" lines), and
// whether text has a section for it.
func subgroupNeeds(text, name string) (uint32, bool) {
	start := strings.Index(text, "#ifdef ANYGPU_KERNEL_"+name+"\n")
	if start < 0 {
		return 0, false
	}
	section := text[start:]
	if end := strings.Index(section, "#endif // ANYGPU_KERNEL_"+name+"\n"); end >= 0 {
		section = section[:end]
	}
	var need uint32
	for _, line := range strings.Split(section, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "#extension" {
			continue
		}
		feature, ok := strings.CutPrefix(f[1], "GL_KHR_shader_subgroup_")
		if !ok {
			continue
		}
		i := slices.Index(subgroupFeatures, feature)
		if i < 0 {
			return 0, false // a feature this backend does not know: keep the portable form
		}
		need |= 1 << i
	}
	return need, true
}

// subgroupDialect returns the dialect to compile kernel name from: src's
// subgroup variant where the context has every GL_KHR_shader_subgroup
// feature its section requires and EnvSubgroups is not "off", else main.
func (d *device) subgroupDialect(src backend.Source, name string, main dialect) dialect {
	if src.Subgroups == nil || d.lim.subgroupOps == 0 || subgroupsOff() {
		return main
	}
	sg, ok := dialectOf(*src.Subgroups, d.lim.es, d.lim.exts["GL_ARB_ES3_1_compatibility"])
	if !ok || sg.derived {
		return main
	}
	need, ok := subgroupNeeds(sg.text, name)
	if !ok || need&^d.lim.subgroupOps != 0 {
		return main
	}
	return sg
}

// retryPortable rebuilds, from the portable text main, the kernels whose
// subgroup variant (dialects[i] other than main) the driver refused, so that
// a driver whose GL_KHR_shader_subgroup falls short of what it reports runs
// them with subgroups of one; res and dialects are updated in place.
func (d *device) retryPortable(res []built, dialects []dialect, names []string, main dialect, opts backend.CompileOptions) error {
	var idx []int
	var texts []string
	for i := range res {
		if res[i].prog == nil && dialects[i].text != main.text {
			idx = append(idx, i)
			texts = append(texts, prepare(main.text, names[i], opts.Defines, nil, opts.Debug))
		}
	}
	if len(idx) == 0 {
		return nil
	}
	again, err := d.build(texts)
	if err != nil {
		return err
	}
	for j, i := range idx {
		res[i], dialects[i] = again[j], main
	}
	return nil
}
