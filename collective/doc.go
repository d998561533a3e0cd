// Package collective runs collectives (all-reduce, broadcast, reduce,
// all-gather, reduce-scatter, send/receive) over the buffers of several CUDA
// devices, through NVIDIA's NCCL: the engine every multi-GPU framework uses,
// over NVLink, PCIe, shared memory and networks.
//
// # Loading
//
// NCCL is loaded at run time through purego, never linked: a program that
// imports this package builds with CGO_ENABLED=0 and starts where NCCL is
// missing, and then every call returns an error of category Unavailable with
// the places searched and a hint. Load order: $ANYGPU_NCCL_LIBRARY alone when
// set; libnccl.so.2 through the system's search (NVIDIA's libnccl2 package);
// $NCCL_HOME, $CUDA_HOME and /usr/local/cuda*; then the nvidia-nccl-cu13 and
// -cu12 Python wheels (site-packages/nvidia/nccl/lib, which PyTorch installs)
// of $VIRTUAL_ENV, $CONDA_PREFIX, the python3 environments on $PATH,
// ~/.local and the system Pythons. NCCL 2.10 or newer; creating ranks in
// several processes needs 2.23 (ncclCommInitRankScalable, which takes the id
// by pointer: purego cannot pass ncclCommInitRank's 128-byte struct by value).
// NCCL exists for Linux only; elsewhere the package builds and reports
// Unavailable.
//
// # One process, several GPUs
//
//	devs, _ := gpu.OpenAll(ctx, gpu.WithBackends("cuda"))
//	comms, _ := collective.NewLocal(ctx, devs) // comms[i] is rank i, on devs[i]
//	defer collective.CloseAll(comms)
//	err := collective.Group(func() error { // one goroutine, several ranks: one group
//		for i, c := range comms {
//			if err := c.AllReduce(streams[i], bufs[i], bufs[i], n, collective.Float32, collective.Sum); err != nil {
//				return err
//			}
//		}
//		return nil
//	})
//
// # Several processes or hosts
//
// Every process calls Join with its device, its rank and the communicator's
// size. Rank 0 makes the communicator's UniqueID and hands it to the others
// through a Bootstrap: File (a path every rank reads), TCP (rank 0 listens,
// the others dial), or the program's own channel (MPI, a job scheduler's
// key-value store). The same code runs across hosts: only the Bootstrap's
// address changes.
//
//	c, err := collective.Join(ctx, dev, rank, size, collective.TCP{Addr: "node0:29500", Ranks: size})
//	defer c.Close()
//	err = c.AllReduce(stream, buf, buf, n, collective.Float32, collective.Sum)
//
// # Semantics
//
// Collectives enqueue on a gpu.Stream of the rank's device and return at
// once; they run in that stream's order with its other work. Buffers are
// whole gpu.Buffers of the rank's device, counted in elements of a DataType
// (float32, float64, int32, ... bfloat16, fp8); reductions are Sum, Prod, Min,
// Max and Avg. Arguments are checked before NCCL sees them (a stream or
// buffer of another device, a buffer too small, an unknown type, a root out of
// range): errors of category InvalidArgument. NCCL's own failures are
// *errors.Error values with Backend "nccl", the ncclResult_t name, a
// category, NCCL's last-error text and a hint (ResultCodes lists them).
// Nothing panics; Close, Abort and CloseAll may be called more than once.
//
// # Profiling
//
// On a device opened with gpu.WithProfiler, every collective is a record of
// kind profiling.KindCollective on the profile's time axis, timed by the
// device: one per call outside a Group, named after the collective
// ("all-reduce"), and one per stream per Group, since NCCL launches a
// group's work at its end, named after the group's collectives in the order
// called ("group: send ×3, receive ×3"), with the bytes they move on that
// rank summed.
//
// On machines whose GPUs share NVLink switches, NVIDIA's NVLink SHARP
// (NVLS, multicast) may be disabled by the administrator with
// NCCL_NVLS_ENABLE=0: NCCL reads its variables from the process environment,
// so set them before the program starts.
package collective
