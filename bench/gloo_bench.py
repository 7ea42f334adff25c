#!/usr/bin/python3
"""The torch.distributed (gloo backend) twin of bench/measure.c, for `make bench-compare`.

Same method and output as measure.c: latency is half a ping-pong round trip of
dist.send/dist.recv between ranks 0 and 1; all-reduce is float32 SUM of a vector of
`bytes`; barrier is dist.barrier. Each figure is the median of --samples samples after
two warm-up samples; a sample times `iters` back-to-back operations after a barrier,
iters chosen from the first warm-up sample for about --sample-ms, and a collective's
sample is the slowest rank's (a MAX all-reduce outside the timed region).

    /usr/bin/python3 bench/gloo_bench.py --ranks 2 --pin [--tests latency,allreduce,barrier]
        [--sizes LIST] [--samples N] [--sample-ms MS]

It starts its own ranks (multiprocessing, one process per rank, rendezvous over TCP on
127.0.0.1) as torchrun would, one thread per rank for torch's own work; --pin binds rank
r to the r-th CPU it may use, as the other runtimes' 2-rank runs are bound.
Output: CSV rows runtime,metric,ranks,bytes,value with runtime "gloo".
"""
import argparse
import multiprocessing as mp
import os
import sys

import torch_timing


def parse_size(s):
    mult = {"k": 1 << 10, "m": 1 << 20}.get(s[-1].lower(), 1)
    return int(float(s.rstrip("kKmM")) * mult)


def default_sizes(p2p, top):
    out, b = [], 1 if p2p else 4
    while b <= top:
        out.append(b)
        b *= 2 if p2p else 4
    return out


def run_rank(rank, args, port):
    out = sys.stdout
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[rank % len(cpus)]})
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=args.ranks)
    n = args.ranks

    def measure(fn):
        return torch_timing.measure(fn, args.samples, args.sample_ms)

    def emit(metric, nbytes, value):
        if rank == 0:
            out.write(f"gloo,{metric},{n},{nbytes},{value:.4f}\n")
            out.flush()

    tests = args.tests.split(",")
    if "latency" in tests and n >= 2:
        for b in args.sizes or default_sizes(True, args.max):
            buf = torch.ones(max(b, 1), dtype=torch.uint8)
            emit("latency_us", b, measure(torch_timing.pingpong(rank, buf)))
    if "allreduce" in tests:
        for b in args.sizes or default_sizes(False, args.max):
            if b < 4:
                continue
            buf = torch.ones(b // 4, dtype=torch.float32)
            emit("allreduce_us", b, measure(torch_timing.timed(lambda buf=buf: dist.all_reduce(buf))))
    if "barrier" in tests:
        emit("barrier_us", 0, measure(torch_timing.timed(dist.barrier)))
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--pin", action="store_true")
    p.add_argument("--tests", default="latency,allreduce,barrier")
    p.add_argument("--sizes", type=lambda s: [parse_size(x) for x in s.split(",")])
    p.add_argument("--max", type=parse_size, default=64 << 20)
    p.add_argument("--samples", type=int, default=11)
    p.add_argument("--sample-ms", type=float, default=5.0)
    args = p.parse_args()
    if args.ranks < 1 or not 1 <= args.samples <= 64 or args.sample_ms <= 0:
        p.error("--ranks >= 1, --samples 1..64, --sample-ms > 0")
    try:
        import torch.distributed as dist
        if not dist.is_available() or not dist.is_gloo_available():
            raise ImportError("torch.distributed without gloo")
    except ImportError as e:
        print(f"gloo_bench: {e}; install Debian's python3-torch", file=sys.stderr)
        return 3
    port = torch_timing.free_port()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=run_rank, args=(r, args, port))
             for r in range(args.ranks)]
    for pr in procs:
        pr.start()
    for pr in procs:
        pr.join()
    bad = [pr.exitcode for pr in procs if pr.exitcode != 0]
    if bad:
        print(f"gloo_bench: a rank exited with {bad[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
