//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// cacheDir is ANYGPU_CACHE_DIR, or os.UserCacheDir()/anygpu ("" when there
// is none).
func cacheDir() string {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "anygpu")
}

// pipelineCachePath is where the device's VkPipelineCache is kept: one file
// per vendor, device and pipelineCacheUUID (which changes with the driver).
func pipelineCachePath(pd *physicalDevice) string {
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	p := &pd.props
	return filepath.Join(dir, "vulkan", fmt.Sprintf("%04x-%04x-%x.bin", p.VendorID, p.DeviceID, p.PipelineCacheUUID[:]))
}

// loadPipelineCache reads the cache file if its header matches the device
// (VkPipelineCacheHeaderVersionOne); anything else is ignored.
func loadPipelineCache(path string, pd *physicalDevice) []byte {
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 32 {
		return nil
	}
	le := binary.LittleEndian
	if le.Uint32(data[0:]) < 32 || le.Uint32(data[4:]) != 1 || le.Uint32(data[8:]) != pd.props.VendorID ||
		le.Uint32(data[12:]) != pd.props.DeviceID || !bytes.Equal(data[16:32], pd.props.PipelineCacheUUID[:]) {
		return nil
	}
	return data
}

// savePipelineCache writes data atomically (a temporary file renamed).
func savePipelineCache(path string, data []byte) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pipeline-cache-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
