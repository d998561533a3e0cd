// Command vkgen writes the Go mirrors of the Vulkan structs that the binding
// backend/vulkan/internal/vk uses (structs_gen.go), read from vulkan_core.h,
// and testdata/layout.c, a C program that prints the size and field offsets
// the C compiler gives each of them. internal/vk runs it with go generate:
//
//	go run ../vkgen -header /usr/include/vulkan/vulkan_core.h
//
// The output depends only on the struct definitions in the header (which
// Vulkan never changes once released), so any header that has them all
// writes the same files. To refresh layout_data_test.go, which the layout
// test checks the Go structs against, compile and run layout.c (any C
// compiler that finds vulkan_core.h):
//
//	cc -o /tmp/layout testdata/layout.c && /tmp/layout > layout_data_test.go
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// structs are the C structs mirrored, in the order written.
var structs = strings.Fields(`
VkApplicationInfo VkInstanceCreateInfo VkDebugUtilsMessengerCreateInfoEXT
VkDebugUtilsMessengerCallbackDataEXT VkValidationFeaturesEXT VkExtensionProperties VkLayerProperties
VkPhysicalDeviceLimits VkPhysicalDeviceSparseProperties VkPhysicalDeviceProperties VkPhysicalDeviceProperties2
VkPhysicalDeviceSubgroupProperties VkPhysicalDeviceIDProperties VkPhysicalDeviceDriverProperties
VkConformanceVersion VkPhysicalDeviceMaintenance3Properties VkPhysicalDeviceMaintenance4Properties
VkPhysicalDevicePCIBusInfoPropertiesEXT VkPhysicalDeviceShaderSMBuiltinsPropertiesNV
VkPhysicalDeviceShaderCorePropertiesAMD VkPhysicalDevicePushDescriptorPropertiesKHR
VkPhysicalDeviceSubgroupSizeControlProperties
VkMemoryType VkMemoryHeap VkPhysicalDeviceMemoryProperties VkPhysicalDeviceMemoryProperties2
VkPhysicalDeviceMemoryBudgetPropertiesEXT VkExtent3D VkQueueFamilyProperties
VkPhysicalDeviceFeatures VkPhysicalDeviceFeatures2 VkPhysicalDeviceTimelineSemaphoreFeatures
VkPhysicalDeviceShaderFloat16Int8Features VkPhysicalDeviceMaintenance4Features VkPhysicalDeviceHostQueryResetFeatures
VkPhysicalDeviceSubgroupSizeControlFeatures
VkDeviceQueueCreateInfo VkDeviceCreateInfo VkBufferCreateInfo VkMemoryRequirements VkMemoryAllocateInfo
VkCommandPoolCreateInfo VkCommandBufferAllocateInfo VkCommandBufferBeginInfo VkBufferCopy VkMemoryBarrier
VkSubmitInfo VkTimelineSemaphoreSubmitInfo VkSemaphoreCreateInfo VkSemaphoreTypeCreateInfo VkSemaphoreWaitInfo
VkFenceCreateInfo VkQueryPoolCreateInfo VkShaderModuleCreateInfo VkDescriptorSetLayoutBinding
VkDescriptorSetLayoutCreateInfo VkPushConstantRange VkPipelineLayoutCreateInfo VkSpecializationMapEntry
VkSpecializationInfo VkPipelineShaderStageCreateInfo VkComputePipelineCreateInfo VkPipelineCacheCreateInfo
VkDescriptorPoolSize VkDescriptorPoolCreateInfo VkDescriptorSetAllocateInfo VkDescriptorBufferInfo
VkWriteDescriptorSet
`)

// dispatchable are the handles that are pointers (uintptr in Go); the
// others are 64-bit integers on every platform the binding supports.
var dispatchable = []string{"VkInstance", "VkPhysicalDevice", "VkDevice", "VkQueue", "VkCommandBuffer"}

// arraySizes are the values of the constants that size arrays.
var arraySizes = map[string]string{
	"VK_MAX_PHYSICAL_DEVICE_NAME_SIZE": "256", "VK_UUID_SIZE": "16", "VK_LUID_SIZE": "8",
	"VK_MAX_EXTENSION_NAME_SIZE": "256", "VK_MAX_DESCRIPTION_SIZE": "256", "VK_MAX_MEMORY_TYPES": "32",
	"VK_MAX_MEMORY_HEAPS": "16", "VK_MAX_DRIVER_NAME_SIZE": "256", "VK_MAX_DRIVER_INFO_SIZE": "256",
}

var (
	reHandle = regexp.MustCompile(`VK_DEFINE_NON_DISPATCHABLE_HANDLE\((\w+)\)`)
	reEnum   = regexp.MustCompile(`typedef enum (\w+) \{`)
	reFlags  = regexp.MustCompile(`typedef VkFlags(?:64)? (\w+);`)
	reField  = regexp.MustCompile(`^(.+?)\s*(\b\w+)((?:\[\w+\])*)$`)
	reDim    = regexp.MustCompile(`\[(\w+)\]`)
)

// header is what the generator reads from vulkan_core.h.
type header struct {
	src                   string
	handles, enums, flags map[string]bool
}

func parseHeader(src string) *header {
	set := func(re *regexp.Regexp) map[string]bool {
		m := map[string]bool{}
		for _, g := range re.FindAllStringSubmatch(src, -1) {
			m[g[1]] = true
		}
		return m
	}
	return &header{src: src, handles: set(reHandle), enums: set(reEnum), flags: set(reFlags)}
}

// field is one member of a C struct.
type field struct {
	name, ctype string
	dims        []string
}

// fields returns the members of struct name.
func (h *header) fields(name string) ([]field, error) {
	re := regexp.MustCompile(`(?s)typedef struct ` + name + ` \{\n(.*?)\n\} ` + name + `;`)
	m := re.FindStringSubmatch(h.src)
	if m == nil {
		return nil, fmt.Errorf("struct %s not found", name)
	}
	var out []field
	for _, line := range strings.Split(m[1], "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), ";")
		fm := reField.FindStringSubmatch(line)
		if fm == nil {
			return nil, fmt.Errorf("struct %s: cannot read member %q", name, line)
		}
		f := field{name: fm[2], ctype: fm[1]}
		for _, d := range reDim.FindAllStringSubmatch(fm[3], -1) {
			if v, ok := arraySizes[d[1]]; ok {
				f.dims = append(f.dims, v)
			} else {
				f.dims = append(f.dims, d[1])
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// goType is the Go type of a member of C type ctype with array dims.
func (h *header) goType(ctype string, dims []string) (string, error) {
	ctype = strings.TrimSpace(strings.ReplaceAll(ctype, "const ", ""))
	var t string
	switch {
	case strings.Contains(ctype, "*"):
		t = "unsafe.Pointer"
	case strings.HasPrefix(ctype, "PFN_"):
		t = "uintptr"
	case ctype == "uint32_t" || ctype == "VkBool32" || ctype == "VkSampleMask" || h.enums[ctype] || h.flags[ctype]:
		t = "uint32"
	case ctype == "int32_t":
		t = "int32"
	case ctype == "uint64_t" || ctype == "VkDeviceSize" || ctype == "VkDeviceAddress":
		t = "uint64"
	case ctype == "size_t":
		t = "uintptr"
	case ctype == "float":
		t = "float32"
	case ctype == "char":
		t = "byte"
	case ctype == "uint8_t":
		t = "uint8"
	case h.handles[ctype]:
		t = "uint64"
	case slices.Contains(dispatchable, ctype):
		t = "uintptr"
	case slices.Contains(structs, ctype):
		t = ctype[2:]
	default:
		return "", fmt.Errorf("unknown C type %s", ctype)
	}
	for i := len(dims) - 1; i >= 0; i-- {
		t = "[" + dims[i] + "]" + t
	}
	return t, nil
}

// generate returns structs_gen.go and testdata/layout.c for the header
// text src.
func generate(src string) (goFile, cFile []byte, err error) {
	h := parseHeader(src)
	var g, c bytes.Buffer
	g.WriteString("// Code generated by vkgen from vulkan_core.h; DO NOT EDIT.\n\npackage vk\n\nimport \"unsafe\"\n\n")
	c.WriteString(`#include <stdio.h>
#include <stddef.h>
#include <vulkan/vulkan_core.h>

int main(void) {
  printf("// Code generated by testdata/layout.c (sizes and offsets from the C compiler and vulkan_core.h %d); DO NOT EDIT.\n\n", VK_HEADER_VERSION);
  printf("package vk\n\n");
  printf("// cLayouts holds sizeof and offsetof of every field, as the C compiler lays the structs out.\n");
  printf("var cLayouts = map[string]cLayout{\n");
`)
	for _, s := range structs {
		fs, err := h.fields(s)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(&g, "// %s mirrors %s.\ntype %s struct {\n", s[2:], s, s[2:])
		var offs []string
		for _, f := range fs {
			t, err := h.goType(f.ctype, f.dims)
			if err != nil {
				return nil, nil, fmt.Errorf("%s.%s: %w", s, f.name, err)
			}
			fmt.Fprintf(&g, "\t%s %s\n", strings.ToUpper(f.name[:1])+f.name[1:], t)
			offs = append(offs, fmt.Sprintf(`printf("%%zu, ", offsetof(%s, %s));`, s, f.name))
		}
		g.WriteString("}\n\n")
		fmt.Fprintf(&c, "  printf(\"\\t\\\"%s\\\": {Size: %%zu, Offsets: []uintptr{\", sizeof(%s)); %s printf(\"}},\\n\");\n",
			s[2:], s, strings.Join(offs, " "))
	}
	c.WriteString("  printf(\"}\\n\");\n  return 0;\n}\n")
	goFile, err = format.Source(g.Bytes())
	if err != nil {
		return nil, nil, err
	}
	return goFile, c.Bytes(), nil
}

func main() {
	headerPath := flag.String("header", "/usr/include/vulkan/vulkan_core.h", "vulkan_core.h to read")
	dir := flag.String("dir", ".", "the internal/vk directory to write structs_gen.go and testdata/layout.c in")
	flag.Parse()
	if err := run(*headerPath, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "vkgen:", err)
		os.Exit(1)
	}
}

func run(headerPath, dir string) error {
	src, err := os.ReadFile(headerPath)
	if err != nil {
		return err
	}
	goFile, cFile, err := generate(string(src))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "structs_gen.go"), goFile, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "testdata", "layout.c"), cFile, 0o644)
}
