//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

const validationLayer = "VK_LAYER_KHRONOS_validation"

// libraryNames are the loader names tried, in order.
func libraryNames() []string {
	if p := os.Getenv(EnvLibrary); p != "" {
		return []string{p}
	}
	switch runtime.GOOS {
	case "windows":
		return []string{"vulkan-1.dll"}
	case "darwin":
		return []string{"libvulkan.1.dylib", "libvulkan.dylib", "/usr/local/lib/libvulkan.1.dylib",
			"/opt/homebrew/lib/libvulkan.1.dylib", "libMoltenVK.dylib"}
	default:
		return []string{"libvulkan.so.1"}
	}
}

func loaderHint() string {
	switch runtime.GOOS {
	case "windows":
		return "install the GPU vendor's driver, which ships vulkan-1.dll, or the Vulkan runtime; or set " + EnvLibrary + " to its path"
	case "darwin":
		return "install MoltenVK and the Vulkan loader (brew install molten-vk vulkan-loader, or the LunarG SDK), or set " + EnvLibrary + " to libvulkan.1.dylib's path"
	}
	return "install the Vulkan loader and a driver (Debian/Ubuntu: apt install libvulkan1 mesa-vulkan-drivers, or the GPU vendor's driver), or set " + EnvLibrary + " to libvulkan.so.1's path"
}

// instance is the process's Vulkan instance, created on first use and kept:
// the loader and drivers stay loaded anyway, and creating an instance costs
// milliseconds (tens of them on some drivers).
type instance struct {
	lib        *vk.Library
	vki        *vk.Instance
	apiVersion uint32 // the version the instance was created for
	validation string // "" (off), "core" or "sync"
	note       string // why validation is off although asked for
	messenger  uint64
	devices    []*physicalDevice // in ordinal order
	skipped    []string          // devices left out, and why
}

var global struct {
	mu   sync.Mutex
	inst *instance
}

// getInstance returns the process's instance, creating it on first use. A
// failure is not remembered: the next call tries again.
func getInstance() (*instance, error) {
	global.mu.Lock()
	defer global.mu.Unlock()
	if global.inst != nil {
		return global.inst, nil
	}
	in, err := newInstance()
	if err != nil {
		return nil, err
	}
	global.inst = in
	return in, nil
}

func unavailable(op, reason, hint string) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.Unavailable, Msg: reason, Hint: hint}
}

func newInstance() (*instance, error) {
	lib, err := vk.Load(libraryNames())
	if err != nil {
		return nil, unavailable("load the Vulkan loader", err.Error(), loaderHint())
	}
	in := &instance{lib: lib}
	loaderVersion := lib.InstanceVersion()
	in.apiVersion = min(loaderVersion, vk.MakeAPIVersion(1, 3, 0))
	exts, _ := lib.InstanceExtensions("")
	has := func(name string) bool { return slices.Contains(exts, name) }

	var layers, extensions []string
	var flags uint32
	if has("VK_KHR_portability_enumeration") {
		extensions = append(extensions, "VK_KHR_portability_enumeration")
		flags |= vk.InstanceCreateEnumeratePortabilityBitKHR
	}
	if loaderVersion < vk.MakeAPIVersion(1, 1, 0) && has("VK_KHR_get_physical_device_properties2") {
		extensions = append(extensions, "VK_KHR_get_physical_device_properties2")
	}
	mode := validationMode()
	var chain unsafe.Pointer
	var messengerInfo *vk.DebugUtilsMessengerCreateInfoEXT
	if mode != "" {
		installed, _ := lib.InstanceLayers()
		layerExts, _ := lib.InstanceExtensions(validationLayer)
		switch {
		case !slices.Contains(installed, validationLayer):
			in.note = validationLayer + " is not installed (Debian: apt install vulkan-validationlayers)"
		case !has("VK_EXT_debug_utils") && !slices.Contains(layerExts, "VK_EXT_debug_utils"):
			in.note = "VK_EXT_debug_utils is not available to report messages"
		default:
			in.validation = mode
			layers = append(layers, validationLayer)
			extensions = append(extensions, "VK_EXT_debug_utils")
			messengerInfo = newMessengerInfo()
			chain = unsafe.Pointer(messengerInfo)
			if mode == "sync" {
				enables := []uint32{vk.ValidationFeatureEnableSynchronizationValidationEXT}
				features := &vk.ValidationFeaturesEXT{
					SType: vk.StructureTypeValidationFeaturesEXT, PNext: chain,
					EnabledValidationFeatureCount: 1, PEnabledValidationFeatures: unsafe.Pointer(&enables[0]),
				}
				chain = unsafe.Pointer(features)
				defer runtime.KeepAlive(enables)
			}
		}
	}
	app := &vk.ApplicationInfo{
		SType: vk.StructureTypeApplicationInfo, PApplicationName: unsafe.Pointer(vk.CString("anygpu")),
		PEngineName: unsafe.Pointer(vk.CString("anygpu")), ApiVersion: in.apiVersion,
	}
	layerPtrs, layerKeep := vk.CStrings(layers)
	extPtrs, extKeep := vk.CStrings(extensions)
	info := &vk.InstanceCreateInfo{
		SType: vk.StructureTypeInstanceCreateInfo, PNext: chain, Flags: flags,
		PApplicationInfo: unsafe.Pointer(app), EnabledLayerCount: uint32(len(layers)), PpEnabledLayerNames: layerPtrs,
		EnabledExtensionCount: uint32(len(extensions)), PpEnabledExtensionNames: extPtrs,
	}
	vki, r := lib.CreateInstance(info)
	runtime.KeepAlive(layerKeep)
	runtime.KeepAlive(extKeep)
	runtime.KeepAlive(messengerInfo)
	if r != vk.Success {
		err := FromVkResult(int64(r), "create instance")
		if r == vk.ErrorIncompatibleDriver {
			return nil, &errors.Error{Backend: Name, Op: "create instance", Code: int64(r), Name: "VK_ERROR_INCOMPATIBLE_DRIVER",
				Category: errors.Unavailable, Msg: "no Vulkan driver (ICD) found", Hint: errors.Hint(err)}
		}
		return nil, err
	}
	in.vki = vki
	if in.validation != "" {
		if !vki.HasDebugUtils() {
			in.validation, in.note = "", "vkCreateDebugUtilsMessengerEXT did not resolve"
		} else if h, r := vki.CreateDebugUtilsMessenger(messengerInfo); r == vk.Success {
			in.messenger = h
		} else {
			in.validation, in.note = "", "vkCreateDebugUtilsMessengerEXT failed: "+FromVkResult(int64(r), "").Error()
		}
	}
	if err := in.enumerate(); err != nil {
		in.destroy()
		return nil, err
	}
	return in, nil
}

func (in *instance) destroy() {
	if in.messenger != 0 {
		in.vki.DestroyDebugUtilsMessenger(in.messenger)
		in.messenger = 0
	}
	in.vki.Destroy()
}

// validationMode reads EnvValidation: "" (off), "core" or "sync".
func validationMode() string {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvValidation))) {
	case "", "0", "false", "off", "no":
		return ""
	case "sync", "synchronization":
		return "sync"
	}
	return "core"
}

// enumerate lists the physical devices that can run anygpu and orders them.
func (in *instance) enumerate() error {
	handles, r := in.vki.PhysicalDevices()
	if r != vk.Success {
		return FromVkResult(int64(r), "enumerate physical devices")
	}
	if len(handles) == 0 {
		return unavailable("enumerate physical devices", "the Vulkan loader found no physical device (no driver, or none that sees a device)",
			"install mesa-vulkan-drivers or the GPU vendor's driver and check VK_DRIVER_FILES / VK_ICD_FILENAMES; `vulkaninfo --summary` shows what the loader finds")
	}
	var devs []*physicalDevice
	for _, h := range handles {
		pd, why := in.describe(h)
		if why != "" {
			in.skipped = append(in.skipped, why)
			continue
		}
		devs = append(devs, pd)
	}
	if len(devs) == 0 {
		return unavailable("enumerate physical devices", "no usable Vulkan device: "+strings.Join(in.skipped, "; "),
			"anygpu needs Vulkan 1.1 with a compute queue: update the GPU driver or install mesa-vulkan-drivers (lavapipe)")
	}
	slices.SortStableFunc(devs, func(a, b *physicalDevice) int { return typeRank(a.props.DeviceType) - typeRank(b.props.DeviceType) })
	for i, d := range devs {
		d.info.Ordinal = i
	}
	in.devices = devs
	return nil
}

// typeRank orders device types: discrete, integrated, virtual, CPU, other.
func typeRank(t uint32) int {
	switch t {
	case vk.PhysicalDeviceTypeDiscreteGPU:
		return 0
	case vk.PhysicalDeviceTypeIntegratedGPU:
		return 1
	case vk.PhysicalDeviceTypeVirtualGPU:
		return 2
	case vk.PhysicalDeviceTypeCPU:
		return 3
	}
	return 4
}

func deviceType(t uint32) backend.DeviceType {
	switch t {
	case vk.PhysicalDeviceTypeDiscreteGPU:
		return backend.TypeDiscreteGPU
	case vk.PhysicalDeviceTypeIntegratedGPU:
		return backend.TypeIntegratedGPU
	case vk.PhysicalDeviceTypeVirtualGPU:
		return backend.TypeVirtualGPU
	case vk.PhysicalDeviceTypeCPU:
		return backend.TypeSoftware
	}
	return backend.TypeUnknown
}

func versionString(v uint32) string {
	major, minor, patch := vk.APIVersionParts(v)
	return fmt.Sprintf("%d.%d.%d", major, minor, patch)
}
