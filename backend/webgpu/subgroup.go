//go:build cgo

package webgpu

import (
	"os"
	"slices"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// EnvSubgroups set to "off" runs every kernel with subgroups of one thread
// (the Source's portable WGSL), even where the device has WGSL's subgroups;
// it is read at each Compile. Tests set it to run both paths.
const EnvSubgroups = "ANYGPU_SUBGROUPS"

// subgroupsOff reports whether EnvSubgroups turns the subgroup variants off.
func subgroupsOff() bool {
	return strings.EqualFold(strings.TrimSpace(os.Getenv(EnvSubgroups)), "off")
}

// subgroupFeature is the feature that lets WGSL "enable subgroups;" on the
// adapter: WebGPU's "subgroups", else wgpu-native's own (which wgpu-native
// v25 reports instead), or 0 when the adapter has neither.
func subgroupFeature(e adapterEntry) wgpu.FeatureName {
	for _, f := range []wgpu.FeatureName{wgpu.FeatureNameSubgroups, wgpu.NativeFeatureSubgroup} {
		if e.has(f) {
			return f
		}
	}
	return 0
}

// subgroupWGSL is the subgroup variant's WGSL as wgpu-native takes it:
// without the "enable subgroups;" directive, which its WGSL front end (v25
// here) refuses as "not yet supported" while it accepts the subgroup
// built-ins on a device with its subgroup feature.
func subgroupWGSL(text string) string {
	return strings.Replace(text, "\nenable subgroups;\n", "\n", 1)
}

// subgroupKernels are the kernels of names that Compile builds from src's
// subgroup variant: those with an entry point in its WGSL, where the source
// itself is WGSL, the device has subgroups and EnvSubgroups is not "off".
func (d *device) subgroupKernels(src backend.Source, names []string) []string {
	if src.Subgroups == nil || src.Subgroups.WGSL == "" || src.WGSL == "" || !d.subgroups || subgroupsOff() {
		return nil
	}
	var out []string
	for _, m := range wgslEntryRE.FindAllStringSubmatch(src.Subgroups.WGSL, -1) {
		if strings.Contains(m[1], "@compute") && slices.Contains(names, m[2]) {
			out = append(out, m[2])
		}
	}
	slices.Sort(out)
	return out
}
