// Package profiling measures what a program does on a device and explains
// it: an event-based profiler with summaries and reports, and the CUDA
// occupancy calculator.
//
// # Profiler
//
// A Profiler collects Records: one per stream operation (kernel launch,
// copy, fill, allocation, compilation, collective), with its device, stream,
// start and end time, bytes, grid, block and theoretical occupancy. The root
// package github.com/anygpu/gpu fills it when a profiler is attached with
// gpu.WithProfiler, timing each operation with a pair of backend events
// (CUDA events, Vulkan/GL/WebGPU timestamp queries) or the host's monotonic
// clock (Record.HostTimed). Every record is on one time axis, time since the
// profiler's Epoch, whatever device it ran on: each device's clock is placed
// on the host's when the profiler is attached (see Record), so work done on
// two devices one after the other shows one after the other. Package
// collective records its collectives as KindCollective records through
// gpu.Stream.ProfileNative (a Group's, one record per stream, around the
// group's launch). With no profiler attached nothing is recorded
// and nothing is paid. A Profiler is safe for concurrent use; Add only
// appends under a mutex.
//
// Range marks a stretch of the program (a training step, a phase) as a
// KindRange record, like PyTorch's record_function; where the NVTX library
// loads, the range is also an NVTX range that Nsight Systems shows:
//
//	p := profiling.New()
//	dev, _ := gpu.Open(ctx, gpu.WithProfiler(p))
//	end := p.Range("step")
//	... work ...
//	end()
//	p.WriteText(os.Stdout)                 // table per kernel/kind
//	p.WriteChromeTrace(f)                  // open in ui.perfetto.dev
//	p.WritePprof(g)                        // go tool pprof -top g's file
//
// Summaries (and Summarize, the same over any []Record) aggregate per
// (Kind, Name): count, total, min, max, mean, nearest-rank p50 and p95, bytes
// and GB/s. Reports: WriteText (an aligned table), WriteJSON (records and
// summaries, durations as integer nanoseconds in *_ns fields),
// WriteChromeTrace (the Chrome trace event format: one process per device,
// one named thread per stream and one for the device's host work, times in
// microseconds) and WritePprof (a pprof profile of device time by device,
// stream, kind and kernel).
//
// # Occupancy
//
// Occupancy is the calculation of NVIDIA's cuda_occupancy.h, which
// cuOccupancyMaxActiveBlocksPerMultiprocessor performs: how many blocks of a
// kernel fit on one SM, given its registers, shared memory and block size,
// and which resource limits them. SuggestBlockSize is
// cuOccupancyMaxPotentialBlockSize and AvailableDynamicSharedMem is
// cuOccupancyAvailableDynamicSMemPerBlock. They need no GPU: Limits come
// from a DeviceInfo (LimitsFrom) or from a data sheet, KernelAttrs from a
// compiled kernel (AttrsFrom) or by hand. Compute capabilities 5.x to 9.0
// follow the CUDA 12.6 header; 10.x is treated as 9.0 and 12.x as 9.0 with
// the 100 KB carveouts of 8.6, as NVIDIA documents them. Devices without a
// compute capability (every non-CUDA backend) get a NotSupported error.
package profiling
