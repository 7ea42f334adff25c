#!/usr/bin/python3
"""torch.distributed on CUDA tensors: the "shmc" backend beside "nccl" and "gloo", one
process per rank, rank r on GPU r mod (the GPUs torch sees).

Same method as torch_bench.py (torch_timing.py), with every timed region ended by
torch.cuda.synchronize(), so that work NCCL only queued on its stream is counted as shmc's
synchronous calls are: all_reduce is float32 SUM of each rank's whole buffer, latency half
a send/recv round trip between ranks 0 and 1 (not measured on gloo, whose send/recv
this benchmark does not try on CUDA tensors). Each rank first checks one all_reduce's
result. A backend that cannot run at a rank count (NCCL refuses two ranks on one GPU)
gives a row "refused" with its message, and a rank count whose processes outlive
--timeout seconds a row "timeout"; the other runs go on.

    python3 bench/torch_cuda_bench.py [--ranks 1,2,4] [--backends shmc,nccl,gloo]
        [--samples 7] [--sample-ms 20] [--timeout 120] [--out FILE.csv]

Output: CSV rows backend,metric,ranks,bytes,value_us (value_us empty for refused and
timeout rows, whose message is in the last column), then a table of the figures with
nccl/shmc and gloo/shmc where both ran.
"""
import argparse
import csv
import os
import sys

import torch_timing


ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "torch"))

AR_SIZES = [4, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]
P2P_SIZES = [8, 64 << 10, 1 << 20, 16 << 20]


def rank_main(rank, n, backend, port, args, q):
    import warnings

    warnings.filterwarnings("ignore")  # torch's renames and NCCL's barrier advice
    import torch
    import torch.distributed as dist

    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    if backend == "shmc":
        import shmcomm_torch  # noqa: F401
    sync = torch.cuda.synchronize

    def emit(metric, nbytes, value, note=""):
        if rank == 0:
            q.put((backend, metric, n, nbytes, value, note))

    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=n)
    try:
        check = torch.ones(1000, device=dev)
        dist.all_reduce(check)
        sync()
    except Exception as e:  # NCCL's refusals arrive at the first collective
        emit("refused", 0, None, " ".join(str(e).split())[:300])
        return
    if not bool((check == n).all()):
        raise SystemExit(f"torch_cuda_bench: {backend} at {n} ranks: wrong all_reduce sum")

    def measure(fn):
        return torch_timing.measure(fn, args.samples, args.sample_ms, dev)

    for b in AR_SIZES:
        buf = torch.ones(b // 4, device=dev)
        emit("allreduce", b, measure(torch_timing.timed(lambda buf=buf: dist.all_reduce(buf),
                                                        dev, sync)))
    if n >= 2 and backend != "gloo":
        for b in P2P_SIZES:
            buf = torch.ones(b, dtype=torch.uint8, device=dev)
            emit("latency", b, measure(torch_timing.pingpong(rank, buf, sync)))
    dist.barrier()
    dist.destroy_process_group()


def run(backend, n, args):
    # spawn: CUDA in the children only
    rows, codes, late, _ = torch_timing.run_ranks(rank_main, n, backend, args, "spawn",
                                                  args.timeout)
    if late:
        rows.append((backend, "timeout", n, 0, None, f"{late} ranks still running"))
    elif any(codes) and not any(r[1] == "refused" for r in rows):
        rows.append((backend, "failed", n, 0, None,
                     "exit codes " + ",".join(str(c) for c in codes)))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", default="1,2,4")
    p.add_argument("--backends", default="shmc,nccl,gloo")
    p.add_argument("--samples", type=int, default=7)
    p.add_argument("--sample-ms", type=float, default=20.0)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--out")
    args = p.parse_args()
    rows = []
    for n in [int(x) for x in args.ranks.split(",")]:
        for b in args.backends.split(","):
            got = run(b, n, args)
            for r in got:
                if r[4] is None:
                    print(f"# {b} at {n} ranks: {r[1]}: {r[5]}", file=sys.stderr, flush=True)
            rows += got
    w = csv.writer(open(args.out, "w") if args.out else sys.stdout)
    w.writerow(["backend", "metric", "ranks", "bytes", "value_us", "note"])
    w.writerows(rows)
    fig = {(r[0], r[1], r[2], r[3]): r[4] for r in rows if r[4] is not None}
    print("\n| metric | ranks | bytes | shmc µs | nccl µs | gloo µs | nccl/shmc | gloo/shmc |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    fmt = lambda v: f"{v:.2f}" if v is not None else ""  # noqa: E731
    for metric, n, nbytes in sorted({k[1:] for k in fig}):
        s, c, g = (fig.get((b, metric, n, nbytes)) for b in ("shmc", "nccl", "gloo"))
        print(f"| {metric} | {n} | {nbytes} | {fmt(s)} | {fmt(c)} | {fmt(g)} | "
              f"{fmt(c / s) if s and c else ''} | {fmt(g / s) if s and g else ''} |")


if __name__ == "__main__":
    main()
