"""The measurement method of the torch benchmarks (gloo_bench.py, torch_bench.py), the
same as bench/measure.c's: a sample times `iters` back-to-back calls after a barrier,
iters chosen from a first warm-up sample for about sample_ms and agreed by all ranks;
the figure is the median of `samples` samples after two warm-ups, a collective's sample
being the slowest rank's. Called inside a rank, after its process group is made. On CUDA
tensors (torch_cuda_bench.py) the agreement travels on `device` (NCCL takes no CPU
tensor) and `sync` (torch.cuda.synchronize) ends each timed region, so that work a
backend only queued is counted."""
import statistics
import time


def slowest(t, device="cpu"):
    """The largest of every rank's t (a MAX all-reduce, outside the timed region)."""
    import torch
    import torch.distributed as dist

    v = torch.tensor([t], dtype=torch.float64, device=device)
    dist.all_reduce(v, op=dist.ReduceOp.MAX)
    return float(v[0])


def measure(fn, samples, sample_ms, device="cpu"):
    """Microseconds per call of fn(iters), which returns seconds per call."""
    import torch
    import torch.distributed as dist

    first = slowest(fn(1), device)
    iters = int(sample_ms / 1000 / first) if first > 0 else 100000
    t = torch.tensor([max(1, min(iters, 100000))], dtype=torch.int64, device=device)
    dist.broadcast(t, 0)
    iters = int(t[0])
    return statistics.median([fn(iters) for _ in range(2 + samples)][2:]) * 1e6


def timed(op, device="cpu", sync=None):
    """fn(iters) for measure: op() back to back, the slowest rank's seconds per call."""
    import torch.distributed as dist

    def fn(iters):
        dist.barrier()
        if sync:
            sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            op()
        if sync:
            sync()
        return slowest((time.perf_counter() - t0) / iters, device)
    return fn


def pingpong(rank, buf, sync=None):
    """fn(iters) for measure: half a send/recv round trip between ranks 0 and 1."""
    import torch.distributed as dist

    def fn(iters):
        dist.barrier()
        if sync:
            sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            if rank == 0:
                dist.send(buf, 1)
                dist.recv(buf, 1)
            elif rank == 1:
                dist.recv(buf, 0)
                dist.send(buf, 0)
        if sync:
            sync()
        return (time.perf_counter() - t0) / iters / 2
    return fn


def free_port():
    """A free TCP port on the loopback, for a job's rendezvous."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(rank_main, n, name, args, start="fork", timeout=None):
    """rank_main(rank, n, name, port, args, q) in n processes ("spawn" where the children
    use CUDA), each waited for at most `timeout` seconds, then killed. Returns the rows the
    ranks put on q, their exit codes, how many were killed, and the port."""
    import torch.multiprocessing as mp

    ctx = mp.get_context(start)
    q = ctx.SimpleQueue()
    port = free_port()
    procs = [ctx.Process(target=rank_main, args=(r, n, name, port, args, q)) for r in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout)
    late = [p for p in procs if p.is_alive()]
    for p in late:
        p.kill()
        p.join()
    rows = []
    while not q.empty():
        rows.append(q.get())
    return rows, [p.exitcode for p in procs], len(late), port


def ddp_step():
    """One DistributedDataParallel training step of a 4-layer MLP (1.1 M parameters,
    batch 32) on the default group, made here: step() for timed."""
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(),
                          nn.Linear(512, 64), nn.ReLU(), nn.Linear(64, 1))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = torch.randn(32, 512), torch.randn(32, 1)

    def step():
        opt.zero_grad()
        nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
    return step
