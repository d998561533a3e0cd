// Package health reports what NVIDIA GPUs are doing, live, through NVML
// (the NVIDIA Management Library that nvidia-smi uses), loaded at run time
// without cgo: utilisation, memory used, temperature, power draw and limit,
// clocks, why the clocks are held down (throttle reasons), ECC error counts,
// and each GPU's name, UUID and PCI bus id.
//
//	mon, err := health.Open() // Unavailable without an NVIDIA driver
//	if err != nil { ... }
//	defer mon.Close()
//	if d, ok := mon.Find(dev.Info()); ok { // dev: a *gpu.Device
//		s, err := mon.Sample(d.Index)
//		fmt.Println(s.GPUPercent, s.TemperatureC, s.PowerW, s.Throttle)
//	}
//
// NVML is searched for as libnvidia-ml.so.1 (nvml.dll on Windows), or taken
// from ANYGPU_NVML_LIBRARY. Its result codes become errors of the shared
// categories (errors.Is(err, errors.NotSupported)), each with NVML's code
// name and a hint; ReturnCodes lists them. The command `gpu info` prints a
// Sample of every NVIDIA device, and `gpu watch` samples them over time.
//
// Files: monitor.go (loading, Open, Monitor), sample.go (Sample and its
// metrics), throttle.go (ThrottleReasons), match.go (Monitor.Find),
// errors.go (the nvmlReturn_t table); the foreign calls are in
// internal/nvml.
package health
