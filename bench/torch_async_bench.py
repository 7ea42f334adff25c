#!/usr/bin/python3
"""Asynchronous collectives of the "shmc" torch backend, its two forms side by side in one
run: "shmc" (the library's nonblocking collectives, the default) and "shmc-worker" (the
backend's worker thread, SHMC_TORCH_WORKER=async), with gloo beside them.

Each rank runs, for the default group ("world") and for a group made of the same ranks
with new_group ("group", which the library serves as a communicator of its own):
  async      dist.all_reduce(t, async_op=True).wait() back to back (float32 SUM): what
             asynchrony costs when nothing runs meanwhile;
  overlap    OSU's overlap figure for that call: the call issued, then computation for
             as long as the async figure (a busy loop, holding Python's GIL as model code
             may), then the wait; overlap % = 100 - 100 (total - compute) / async
             (100: the collective hidden behind the computation; 0: none of it);
and one DistributedDataParallel step of bench/torch_bench.py's MLP ("ddp_step", whose
gradient all-reduces are asynchronous). Same method as torch_bench.py (medians of
--samples, the slowest rank's, rounds alternating the runtimes).

    python3 bench/torch_async_bench.py [--ranks 2,4] [--rounds 2] [--quick] [--ddp-only]
                                       [--out FILE.csv]

--ddp-only times the DDP step alone (no all-reduce loops before it in the process).
"""
import argparse
import csv
import os
import statistics
import sys
import time

import torch_timing


ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "torch"))

SIZES = [4, 1 << 10, 64 << 10, 1 << 20, 16 << 20]
QUICK = [4, 64 << 10, 1 << 20]
RUNTIMES = {"shmc": ("shmc", None), "shmc-worker": ("shmc", "async"), "gloo": ("gloo", None)}


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def rank_main(rank, n, runtime, port, args, q):
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    backend, worker = RUNTIMES[runtime]
    if worker:
        os.environ["SHMC_TORCH_WORKER"] = worker
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    if backend == "shmc":
        import shmcomm_torch  # noqa: F401
    dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=n)
    group = dist.new_group(list(range(n)))

    def emit(metric, nbytes, value):
        if rank == 0:
            q.put((runtime, metric, n, nbytes, value))

    for gname, g in (() if args.ddp_only else (("world", None), ("group", group))):
        for b in (QUICK if args.quick else SIZES):
            buf = torch.ones(b // 4)
            t_async = torch_timing.measure(torch_timing.timed(
                lambda: dist.all_reduce(buf, group=g, async_op=True).wait()),
                args.samples, args.sample_ms)
            emit(f"async_{gname}", b, t_async)
            compute = t_async / 1e6

            def with_compute(buf=buf, g=g, compute=compute):
                w = dist.all_reduce(buf, group=g, async_op=True)
                spin(compute)
                w.wait()
            t_total = torch_timing.measure(torch_timing.timed(with_compute), args.samples,
                                           args.sample_ms)
            emit(f"overlap_{gname}", b, max(0.0, 100 - 100 * (t_total - t_async) / t_async))
    emit("ddp_step", 0, torch_timing.measure(torch_timing.timed(torch_timing.ddp_step()), args.samples,
                                             args.sample_ms))
    dist.barrier()
    dist.destroy_process_group()


def run(runtime, n, args):
    rows, codes, _, _ = torch_timing.run_ranks(rank_main, n, runtime, args)
    if any(codes):
        raise SystemExit(f"torch_async_bench: a rank of {runtime} at {n} ranks failed")
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", default="2,4")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--samples", type=int, default=7)
    p.add_argument("--sample-ms", type=float, default=5.0)
    p.add_argument("--runtimes", default=",".join(RUNTIMES))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--ddp-only", action="store_true")
    p.add_argument("--out")
    args = p.parse_args()
    rows = []
    for rnd in range(1, args.rounds + 1):
        for n in [int(x) for x in args.ranks.split(",")]:
            for rt in args.runtimes.split(","):
                t0 = time.time()
                rows += [(rnd,) + r for r in run(rt, n, args)]
                print(f"# round {rnd}: {rt} at {n} ranks: {time.time() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    w = csv.writer(open(args.out, "w") if args.out else sys.stdout)
    w.writerow(["round", "runtime", "metric", "ranks", "bytes", "value"])
    for r in rows:
        w.writerow(r)
    keys = sorted({(r[2], r[3], r[4]) for r in rows})
    rts = args.runtimes.split(",")
    print("\n| metric | ranks | bytes | " + " | ".join(rts) + " |")
    print("|---|---:|---:|" + "---:|" * len(rts))
    for metric, n, nbytes in keys:
        vals = []
        for rt in rts:
            v = [r[5] for r in rows if (r[1], r[2], r[3], r[4]) == (rt, metric, n, nbytes)]
            vals.append(f"{statistics.median(v):.1f}" if v else "")
        print(f"| {metric} | {n} | {nbytes} | " + " | ".join(vals) + " |")


if __name__ == "__main__":
    main()
