package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/prebuilt"
	"github.com/anygpu/gpu/kernels"
)

// builtinsOrigin says where a CUDA device's built-in kernels come from on
// first use: the precompiled image the CUDA backend would load (no NVRTC),
// or NVRTC when the shipped set has none for this GPU, driver and the
// built-ins as they are now. It is empty for other backends.
func builtinsOrigin(st gpu.BackendStatus, d gpu.DeviceInfo) string {
	if st.Name != "cuda" || d.ComputeMajor == 0 {
		return ""
	}
	set, err := prebuilt.Default()
	if err != nil {
		return "NVRTC on first use (the precompiled set is unreadable: " + err.Error() + ")"
	}
	src := kernels.Source()
	key := prebuilt.Key(src.CUDA, prebuilt.NVRTCOptions(src, backend.CompileOptions{}, nil))
	images := set.Images(key, d.ComputeMajor, d.ComputeMinor, driverAPI(d.APIVersion))
	if len(images) == 0 {
		return fmt.Sprintf("NVRTC on first use (no precompiled image for compute capability %d.%d)", d.ComputeMajor, d.ComputeMinor)
	}
	return "precompiled, " + images[0].String()
}

// driverAPI turns DeviceInfo.APIVersion ("13.0") into cuDriverGetVersion's
// form (13000); 0 when it is not in that form.
func driverAPI(s string) int {
	major, minor, ok := strings.Cut(s, ".")
	if !ok {
		return 0
	}
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return 0
	}
	return a*1000 + b*10
}
