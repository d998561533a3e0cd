package backend

// DeviceType tells discrete GPUs from integrated ones, software renderers and
// the CPU.
type DeviceType int

// Device types, best first.
const (
	TypeUnknown DeviceType = iota
	TypeDiscreteGPU
	TypeIntegratedGPU
	TypeVirtualGPU
	TypeSoftware // a software rasteriser/compute driver such as lavapipe or llvmpipe
	TypeCPU
	TypeSimulated // a simulated device of backend/sim
)

var deviceTypeNames = [...]string{"unknown", "discrete GPU", "integrated GPU", "virtual GPU", "software", "CPU", "simulated"}

func (t DeviceType) String() string {
	if t >= 0 && int(t) < len(deviceTypeNames) {
		return deviceTypeNames[t]
	}
	return "unknown"
}

// MarshalText makes DeviceType readable in JSON.
func (t DeviceType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// DeviceInfo is everything a user tunes for. Fields a backend cannot know are
// zero. Counts are per device unless they say otherwise; a "unit" is a CUDA SM,
// a Vulkan/GL compute unit where known, or a CPU core.
type DeviceInfo struct {
	Backend string     `json:"backend"`
	Ordinal int        `json:"ordinal"`
	Name    string     `json:"name"`
	Vendor  string     `json:"vendor,omitempty"`
	Type    DeviceType `json:"type"`
	UUID    string     `json:"uuid,omitempty"`
	PCIBus  string     `json:"pci_bus,omitempty"`

	DriverVersion string `json:"driver_version,omitempty"`
	APIVersion    string `json:"api_version,omitempty"`
	// ComputeMajor/Minor is the CUDA compute capability (9.0 for Hopper).
	ComputeMajor int `json:"compute_major,omitempty"`
	ComputeMinor int `json:"compute_minor,omitempty"`

	Units          int   `json:"units"`               // SMs, compute units or CPU cores
	ClockMHz       int   `json:"clock_mhz,omitempty"` // peak core clock
	MemoryBytes    int64 `json:"memory_bytes"`        // device (or host, for CPU) memory
	MemoryClockMHz int   `json:"memory_clock_mhz,omitempty"`
	MemoryBusBits  int   `json:"memory_bus_bits,omitempty"`
	// MemoryBandwidthGBps is the theoretical peak (2 x clock x bus width for
	// DDR memories), zero when unknown.
	MemoryBandwidthGBps float64 `json:"memory_bandwidth_gbps,omitempty"`
	L2CacheBytes        int64   `json:"l2_cache_bytes,omitempty"`

	MaxThreadsPerBlock     int   `json:"max_threads_per_block"`
	MaxBlockDim            Dim3  `json:"max_block_dim"`
	MaxGridDim             Dim3  `json:"max_grid_dim"`
	MaxThreadsPerUnit      int   `json:"max_threads_per_unit,omitempty"`
	MaxBlocksPerUnit       int   `json:"max_blocks_per_unit,omitempty"`
	WarpSize               int   `json:"warp_size,omitempty"` // warp, subgroup or SIMD width
	RegistersPerBlock      int   `json:"registers_per_block,omitempty"`
	RegistersPerUnit       int   `json:"registers_per_unit,omitempty"`
	SharedMemPerBlock      int   `json:"shared_mem_per_block,omitempty"`
	SharedMemPerBlockOptin int   `json:"shared_mem_per_block_optin,omitempty"`
	SharedMemPerUnit       int   `json:"shared_mem_per_unit,omitempty"`
	ReservedSharedPerBlock int   `json:"reserved_shared_per_block,omitempty"`
	MaxBufferBytes         int64 `json:"max_buffer_bytes,omitempty"` // largest single allocation/binding, when limited

	AsyncEngines      int  `json:"async_engines,omitempty"`
	ECC               bool `json:"ecc,omitempty"`
	UnifiedAddressing bool `json:"unified_addressing,omitempty"`
	UnifiedMemory     bool `json:"unified_memory,omitempty"` // host and device share memory
	ConcurrentKernels bool `json:"concurrent_kernels,omitempty"`
	FP16              bool `json:"fp16,omitempty"`
	BF16              bool `json:"bf16,omitempty"`
	FP8               bool `json:"fp8,omitempty"`
	FP64              bool `json:"fp64,omitempty"`
	// Peers lists the ordinals of the devices of the same backend this device
	// can copy to and from directly (peer-to-peer: NVLink or PCIe); copies
	// between others are staged through the host.
	Peers []int `json:"peers,omitempty"`
	// TimestampPeriodNs is the length of one device timestamp tick.
	TimestampPeriodNs float64 `json:"timestamp_period_ns,omitempty"`

	Features []string          `json:"features,omitempty"` // CPU features, extensions
	Extra    map[string]string `json:"extra,omitempty"`    // anything else worth showing
}
