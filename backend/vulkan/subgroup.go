//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"os"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
)

// EnvSubgroups set to "off" runs every kernel with subgroups of one thread
// (the Source's portable SPIR-V), even where the device has the subgroup
// operations a kernel's Source.Subgroups variant needs; it is read at each
// Compile. Tests set it to run both paths.
const EnvSubgroups = "ANYGPU_SUBGROUPS"

// subgroupsOff reports whether EnvSubgroups turns the subgroup variants off.
func subgroupsOff() bool {
	return strings.EqualFold(strings.TrimSpace(os.Getenv(EnvSubgroups)), "off")
}

// SPIR-V's GroupNonUniform capabilities, by the VkSubgroupFeatureFlagBits a
// device must have for them.
var subgroupCapabilities = map[uint32]uint32{
	61: 0x01, // GroupNonUniform: basic
	62: 0x02, // GroupNonUniformVote
	63: 0x04, // GroupNonUniformArithmetic
	64: 0x08, // GroupNonUniformBallot
	65: 0x10, // GroupNonUniformShuffle
	66: 0x20, // GroupNonUniformShuffleRelative
	67: 0x40, // GroupNonUniformClustered
	68: 0x80, // GroupNonUniformQuad
}

// subgroupOpNames are the VkSubgroupFeatureFlagBits' names, in bit order.
var subgroupOpNames = []string{"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"}

// subgroupOpsString lists the subgroup operations a device has in the
// compute stage, for DeviceInfo.Extra["subgroup_ops"] ("" when none).
func subgroupOpsString(ops, stages uint32) string {
	if stages&vk.ShaderStageComputeBit == 0 {
		return ""
	}
	var names []string
	for i, n := range subgroupOpNames {
		if ops&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ",")
}

// subgroupOpsOf is the VkSubgroupFeatureFlags a SPIR-V module's
// GroupNonUniform capabilities need.
func subgroupOpsOf(blob []byte) (uint32, error) {
	words, err := spvWords(blob)
	if err != nil {
		return 0, err
	}
	var need uint32
	for i := spvHeaderWords; i < len(words); {
		count := int(words[i] >> 16)
		op := words[i] & 0xffff
		if count == 0 || i+count > len(words) {
			return 0, fmt.Errorf("instruction at word %d (opcode %d) has word count %d, past the end of the module", i, op, count)
		}
		if op == 17 && count == 2 { // OpCapability
			need |= subgroupCapabilities[words[i+1]]
		}
		i += count
	}
	return need, nil
}

// subgroupUnits replaces, in units (from src's portable SPIR-V), the
// kernels of src.Subgroups whose subgroup operations the device runs in the
// compute stage by their subgroup variant, unless EnvSubgroups is "off" or
// the device's subgroup size is not one package kernel allows.
func (d *device) subgroupUnits(src backend.Source, units []unit) ([]unit, error) {
	size := d.pd.subgroupSize
	if src.Subgroups == nil || len(src.Subgroups.SPIRVKernels) == 0 || subgroupsOff() ||
		d.pd.subgroupStages&vk.ShaderStageComputeBit == 0 || size == 0 || size > 128 || size&(size-1) != 0 {
		// (package kernel promises a power of two from 1 to 128)
		return units, nil
	}
	for i, u := range units {
		blob, ok := src.Subgroups.SPIRVKernels[u.kernel]
		if !ok || u.entry != "main" {
			continue
		}
		need, err := subgroupOpsOf(blob)
		if err != nil {
			return nil, fmt.Errorf("the subgroup SPIR-V of kernel %q: %w", u.kernel, err)
		}
		if need&^d.pd.subgroupOps == 0 {
			units[i].blob, units[i].subgroups, units[i].portable = blob, true, u.blob
		}
	}
	return units, nil
}

// forBlock is the kernel a launch of block runs: k, or, for a subgroup
// variant whose block's thread count is not a multiple of the device's
// subgroup size (which package kernel's contract asks of a group, and a
// kernel written for a warp of 32 meets on a device of 64 only by chance),
// its portable form, which is right for any block.
func (k *kernel) forBlock(block backend.Dim3, size uint32) *kernel {
	if k.portable == nil || size == 0 || (block.X*block.Y*block.Z)%int(size) == 0 {
		return k
	}
	return k.portable
}
