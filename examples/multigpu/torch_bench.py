"""PyTorch baselines for issue 9, on the same machine and in the same run as
anygpu's: peer copy bandwidth (tensor.to('cuda:1'), 256 MiB) and all-reduce
bus bandwidth (torch.distributed, NCCL, one process per GPU, 256 MiB float32).
Both timed the way anygpu's tests time theirs: 20 operations after warm-ups,
wall clock around a synchronize (and CUDA events for the all-reduce)."""
import os, socket, sys, time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

MiB = 1 << 20
SIZE = int(os.environ.get("BENCH_MIB", "256")) * MiB
ITERS = 20


def sync_all():
    for d in range(torch.cuda.device_count()):
        torch.cuda.synchronize(d)


def peer_copy():
    for src, dst in ((1, 0), (0, 1)):
        x = torch.full((SIZE,), 7, dtype=torch.uint8, device=f"cuda:{src}")
        for _ in range(3):
            y = x.to(f"cuda:{dst}")
        sync_all()
        t = time.perf_counter()
        for _ in range(ITERS):
            y = x.to(f"cuda:{dst}")
        sync_all()
        dt = time.perf_counter() - t
        assert int(y[-1]) == 7
        print(f"TORCH peer_copy cuda:{src} -> cuda:{dst}, {SIZE // MiB} MiB: {SIZE * ITERS / dt / 1e9:.1f} GB/s (wall clock); "
              f"can_device_access_peer {torch.cuda.can_device_access_peer(dst, src)}", flush=True)


def worker(rank, world, port):
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device(f"cuda:{rank}"))
    x = torch.zeros(SIZE // 4, dtype=torch.float32, device="cuda")
    for _ in range(5):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t = time.perf_counter()
    s.record()
    for _ in range(ITERS):
        dist.all_reduce(x)
    e.record()
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t) / ITERS
    ms = s.elapsed_time(e) / ITERS
    f = 2 * (world - 1) / world
    bus = SIZE / (ms / 1e3) / 1e9 * f
    print(f"TORCH nccl_allreduce rank {rank}: {SIZE // MiB} MiB float32, {world} processes: {ms:.3f} ms, "
          f"bus bandwidth {bus:.1f} GB/s (CUDA events; wall clock {SIZE / wall / 1e9 * f:.1f} GB/s)", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    print(f"torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, {torch.cuda.device_count()} GPUs, "
          f"NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE')}", flush=True)
    if torch.cuda.device_count() < 2:
        sys.exit("needs two GPUs")
    peer_copy()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(2, port), nprocs=2)
