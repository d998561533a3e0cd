package cuda

import (
	"os"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/prebuilt"
)

// EnvPrebuilt, set to "off" (or "0", "false"), turns off the prebuilt
// images: every CUDA program is compiled with NVRTC.
const EnvPrebuilt = "ANYGPU_CUDA_PREBUILT"

// prebuiltOff reports whether EnvPrebuilt turns the prebuilt images off.
func prebuiltOff() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvPrebuilt))) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

// loadPrebuilt loads src from the prebuilt set (package internal/prebuilt:
// the built-in kernels, compiled ahead of time and shipped in the module),
// so that NVRTC is neither loaded nor run: the program's key is the hash of
// what compileCUDA would hand NVRTC (text and options, not the target), and
// the images of that key are tried best first (prebuilt.Set.Images: a CUBIN
// for the device's major version at its minor version or an earlier one,
// then PTX for an architecture up to the device's that the driver is new
// enough to compile). An image the driver refuses as not for this device
// falls through to the next, and past the last to NVRTC. It returns nil and
// no error when there is nothing to load: no entry, a forced architecture
// (opts.Arch), a program that includes files, EnvPrebuilt off.
func (d *device) loadPrebuilt(op string, src backend.Source, opts backend.CompileOptions, names []string) (*loadedModule, error) {
	set, _ := prebuilt.Default() // a set that does not read is empty; its tests report why
	if set.Len() == 0 || opts.Arch != "" || prebuiltOff() {
		return nil, nil
	}
	o := prebuilt.NVRTCOptions(src, opts, names)
	if ok, _ := prebuilt.Eligible(src.CUDA, o); !ok {
		return nil, nil
	}
	for _, im := range set.Images(prebuilt.Key(src.CUDA, o), d.info.ComputeMajor, d.info.ComputeMinor, d.lib.Version) {
		data, err := im.Bytes()
		if err != nil {
			continue // a damaged entry: the next image, or NVRTC
		}
		h, err := d.loadImage(op+": load prebuilt "+im.String(), data, im.PTX(), opts)
		if err == nil {
			return &loadedModule{h: h, refs: 1, prebuilt: im.String()}, nil
		}
		if !wrongImage(err) {
			return nil, err
		}
	}
	return nil, nil
}
