#!/usr/bin/python3
"""torch.distributed side by side: the "shmc" backend (bindings/torch) against "gloo" and
torch's do-nothing backend "fake" (which measures torch's own dispatch), in one run.

Same method as bench/measure.c and bench/gloo_bench.py: latency is half a ping-pong round
trip of dist.send/dist.recv between ranks 0 and 1; collectives are float32 (SUM where they
reduce) with each rank's whole buffer of `bytes`; each figure is the median of --samples
samples after two warm-up samples, a sample timing `iters` back-to-back calls (iters
chosen from the first warm-up for about --sample-ms), a collective's sample being the
slowest rank's. Where there are as many CPUs as ranks, each rank of fake and shmc is bound
to its own (the C figures likewise, shmrun --bind-to core); gloo never is (its threads
would share the rank's core, which makes it slower); with more ranks than CPUs none is.
`ddp` is one DistributedDataParallel training step of a 4-layer MLP (1.1 M parameters,
batch 32), not on "fake" (whose futures DDP cannot use). Rounds alternate the backends
(A B C A B C ...), so that a shared machine's drift hits all alike. When deepspeed is
installed, its CPU shared-memory all-reduce (deepspeed.comm.inference_all_reduce) runs in
the rounds too, and beside it shmc's own call of that kind ("shmc-direct":
shmcomm_torch.inference_all_reduce, which skips torch.distributed's dispatch as
DeepSpeed's does). The C library's own latency and all-reduce
(build/bench/measure under shmrun) run in the same rounds.

    python3 bench/torch_bench.py [--ranks 2,4] [--rounds 2] [--quick] [--out FILE.csv]
        [--plot DIR]   (DIR/torch-latency.png, DIR/torch-allreduce-N.png, with gnuplot)
    python3 bench/torch_bench.py --summarize FILE.csv [--plot DIR]   (an earlier run's)

Output: CSV rows round,runtime,metric,ranks,bytes,value_us, then a table of the medians
over rounds with the ratios the speed targets are stated in, each the median over the
rounds of the ratio within a round.
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import time

import torch_timing


ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "torch"))

P2P_SIZES = [8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20]
AR_SIZES = [4, 64, 1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
COLL_SIZES = [4 << 10, 1 << 20, 16 << 20]
QUICK_P2P = [8, 4 << 10, 1 << 20]
QUICK_AR = [4, 4 << 10, 1 << 20]


def rank_main(rank, n, backend, port, args, q):
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)  # torch renames, not ours
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    cpus = sorted(os.sched_getaffinity(0))
    # As the C figures: each rank on its own core when there are enough; not gloo, whose
    # own threads would share that core (slower for it: bench/README.md).
    if n <= len(cpus) and backend != "gloo":
        os.sched_setaffinity(0, {cpus[rank]})
    if backend == "deepspeed":
        # DeepSpeed's CPU shared-memory all-reduce (its shm_comm op, built on first use),
        # beside a gloo group for everything else.
        os.environ.update(DS_ACCELERATOR="cpu", RANK=str(rank), WORLD_SIZE=str(n),
                          LOCAL_RANK=str(rank), LOCAL_SIZE=str(n), LOCAL_WORLD_SIZE=str(n),
                          MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        import deepspeed
        import deepspeed.comm as dscomm

        deepspeed.init_distributed(dist_backend="gloo", verbose=False)
    elif backend == "fake":
        from torch.testing._internal.distributed.fake_pg import FakeStore
        dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=n)
    else:
        if backend == "shmc":
            import shmcomm_torch  # noqa: F401
        dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=n)

    def measure(fn):
        return torch_timing.measure(fn, args.samples, args.sample_ms)

    timed = torch_timing.timed

    def emit(metric, nbytes, value, runtime=backend):
        if rank == 0:
            q.put((runtime, metric, n, nbytes, value))

    p2p, ar = (QUICK_P2P, QUICK_AR) if args.quick else (P2P_SIZES, AR_SIZES)
    if backend == "deepspeed":  # its all-reduce only
        for b in ar:
            buf = torch.ones(b // 4)
            emit("allreduce", b,
                 measure(timed(lambda buf=buf: dscomm.inference_all_reduce(buf))))
        dist.barrier()
        dist.destroy_process_group()
        return
    if n >= 2:
        for b in p2p:
            buf = torch.ones(b, dtype=torch.uint8)

            emit("latency", b, measure(torch_timing.pingpong(rank, buf)))
    for b in ar:
        buf = torch.ones(b // 4)
        emit("allreduce", b, measure(timed(lambda buf=buf: dist.all_reduce(buf))))
    if backend == "shmc":
        # The call that skips torch.distributed's dispatch, as DeepSpeed's does.
        import shmcomm_torch

        for b in ar:
            buf = torch.ones(b // 4)
            emit("allreduce", b, measure(timed(
                lambda buf=buf: shmcomm_torch.inference_all_reduce(buf))), "shmc-direct")
    for b in ([] if args.quick else COLL_SIZES):
        k = b // 4 // n
        inp, out = torch.ones(k), torch.empty(k * n)
        emit("allgather", b, measure(timed(lambda: dist.all_gather_into_tensor(out, inp))))
        big, small = torch.ones(k * n), torch.empty(k)
        emit("reduce_scatter", b, measure(timed(lambda: dist.reduce_scatter_tensor(small, big))))
        a, c = torch.ones(k * n), torch.empty(k * n)
        emit("alltoall", b, measure(timed(lambda: dist.all_to_all_single(c, a))))
        bb = torch.ones(b // 4)
        emit("broadcast", b, measure(timed(lambda: dist.broadcast(bb, 0))))
    if backend == "fake":  # its futures carry no tensors, which DDP needs
        dist.destroy_process_group()
        return
    emit("ddp_step", 0, measure(timed(torch_timing.ddp_step())))
    dist.barrier()
    dist.destroy_process_group()


def run_torch(backend, n, args):
    rows, codes, _, port = torch_timing.run_ranks(rank_main, n, backend, args)
    if backend == "deepspeed":
        # DeepSpeed leaves its shared-memory buffers in /dev/shm, named by the port.
        import glob

        for f in glob.glob(f"/dev/shm/deepspeed_allreduce_buffer_*_{port}_*"):
            os.unlink(f)
    if any(codes):
        raise SystemExit(f"torch_bench: a rank of {backend} at {n} ranks failed")
    return rows


def run_c(n, args):
    """The C library's own latency and all-reduce: build/bench/measure under shmrun."""
    shmrun = os.path.join(ROOT, "build", "bin", "shmrun")
    measure = os.path.join(ROOT, "build", "bench", "measure")
    if not (os.path.exists(shmrun) and os.path.exists(measure)):
        return []
    rows = []
    for test, sizes, metric in (("latency", [8], "latency"), ("allreduce", [4], "allreduce")):
        if test == "latency" and n < 2:
            continue
        bind = ["--bind-to", "core" if n <= len(os.sched_getaffinity(0)) else "none"]
        out = subprocess.run([shmrun, "-n", str(n)] + bind + [measure, "--tests", test, "--sizes",
                              ",".join(map(str, sizes)), "--samples", str(args.samples),
                              "--sample-ms", str(args.sample_ms)],
                             capture_output=True, text=True, check=True).stdout
        for r in csv.reader(io.StringIO(out)):
            if len(r) == 5 and r[0] == "shmcomm":
                rows.append(("C", metric, n, int(r[3]), float(r[4])))
    return rows


def _has_deepspeed():
    try:
        import importlib.util
        return importlib.util.find_spec("deepspeed") is not None
    except Exception:
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", default="2,4")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--samples", type=int, default=7)
    p.add_argument("--sample-ms", type=float, default=5.0)
    p.add_argument("--backends", default="fake,gloo,shmc" + (",deepspeed" if _has_deepspeed() else ""))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out")
    p.add_argument("--plot")
    p.add_argument("--summarize", metavar="CSV", help="print the table of an earlier run's CSV")
    args = p.parse_args()
    if args.summarize:
        with open(args.summarize) as f:
            rows = [(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), float(r[5]))
                    for r in list(csv.reader(f))[1:]]
        med = summary(rows)
        if args.plot:
            plot(med, args.plot)
        return
    rows = []
    for rnd in range(1, args.rounds + 1):
        for n in [int(x) for x in args.ranks.split(",")]:
            for b in args.backends.split(","):
                t0 = time.time()
                rows += [(rnd,) + r for r in run_torch(b, n, args)]
                print(f"# round {rnd}: {b} at {n} ranks: {time.time() - t0:.0f} s",
                      file=sys.stderr, flush=True)
            rows += [(rnd,) + r for r in run_c(n, args)]
    w = csv.writer(open(args.out, "w") if args.out else sys.stdout)
    w.writerow(["round", "runtime", "metric", "ranks", "bytes", "value_us"])
    for r in rows:
        w.writerow(r)
    med = summary(rows)
    if args.plot:
        plot(med, args.plot)


def plot(med, out):
    """Latency at 2 ranks and all-reduce at each rank count, every runtime, log-log."""
    import shutil

    if not shutil.which("gnuplot"):
        print("torch_bench: gnuplot not installed; no plots", file=sys.stderr)
        return
    import tempfile

    os.makedirs(out, exist_ok=True)
    data = tempfile.mkdtemp(prefix="torch-plot-")
    script = LOGLOG + ["set xlabel 'bytes'"]
    charts = [("torch-latency.png", "latency", 2, "send/recv latency (one way), 2 processes")]
    charts += [(f"torch-allreduce-{n}.png", "allreduce", n, f"float32 all_reduce, {n} processes")
               for n in sorted({k[2] for k in med if k[1] == "allreduce"})]
    for png, metric, n, title in charts:
        parts = []
        for i, rt in enumerate(("gloo", "deepspeed", "shmc", "shmc-direct", "fake")):
            pts = sorted((k[3], v) for k, v in med.items()
                         if k[0] == rt and k[1] == metric and k[2] == n and k[3] > 0)
            if not pts:
                continue
            path = os.path.join(data, f"{rt}-{metric}-{n}.dat")
            with open(path, "w") as f:
                f.writelines(f"{x} {y}\n" for x, y in pts)
            label = {"fake": "torch dispatch alone (fake)",
                     "shmc-direct": "shmc, inference_all_reduce"}.get(rt, rt)
            style = "dt 2 lc 'gray'" if rt == "fake" else f"lw 2 pt {i + 5}"
            parts.append(f"'{path}' using 1:2 with linespoints {style} title '{label}'")
        if parts:
            script += [f"set output '{os.path.join(out, png)}'", f"set title '{title}'",
                       "plot " + ", ".join(parts)]
    gnuplot(script, data, "torch_bench")


# The charts' common settings: microseconds against bytes, both logarithmic.
LOGLOG = ["set terminal pngcairo size 900,560 font ',10'", "set key left top", "set grid",
          "set logscale x 2", "set logscale y 10", "set format x '%.0b %BB'",
          "set termoption noenhanced", "set ylabel 'µs per call (log)'"]


def gnuplot(script, data, who):
    """Runs script (lines) with gnuplot, its file in the directory data; says if it failed."""
    gp = os.path.join(data, "plots.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode:
        print(f"{who}: gnuplot failed: {r.stderr[-300:]}", file=sys.stderr)


def summary(rows):
    """Medians over rounds of each figure, and of each ratio taken within its round: the
    machine's speed moves between rounds (docs/performance.md), so a ratio compares
    backends measured minutes apart only when it must."""
    med, per = {}, {}
    for r in rows:
        per[(r[0], r[1], r[2], r[3], r[4])] = r[5]
    for key in {(r[1], r[2], r[3], r[4]) for r in rows}:
        med[key] = statistics.median(r[5] for r in rows if (r[1], r[2], r[3], r[4]) == key)
    rounds = sorted({r[0] for r in rows})

    def ratio(f, metric, n, nbytes):
        """Median over the rounds that have every figure f needs of f(get)."""
        vals = []
        for rnd in rounds:
            v = f(lambda rt: per.get((rnd, rt, metric, n, nbytes)))  # noqa: B023
            if v is not None:
                vals.append(v)
        return statistics.median(vals) if vals else None

    def over(get):
        s, c, f = get("shmc"), get("C"), get("fake")
        return s / (c + f) if None not in (s, c, f) else None

    def times(peer, ours="shmc"):
        return lambda get: get(peer) / get(ours) if get(peer) and get(ours) else None

    print("\n| metric | ranks | bytes | fake µs | gloo µs | deepspeed µs | shmc µs | shmc direct µs "
          "| gloo/shmc | deepspeed/shmc | deepspeed/direct | shmc/(C+fake) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for metric, n, nbytes in sorted({(k[1], k[2], k[3]) for k in med}, key=lambda k: k):
        get = lambda rt: med.get((rt, metric, n, nbytes))  # noqa: E731
        fake, gloo, shmc, ds = get("fake"), get("gloo"), get("shmc"), get("deepspeed")
        if shmc is None:
            continue
        fmt = lambda v, d=2: f"{v:.{d}f}" if v is not None else ""  # noqa: E731
        key = (metric, n, nbytes)
        print(f"| {metric} | {n} | {nbytes} | {fmt(fake)} | {fmt(gloo)} | {fmt(ds)} | "
              f"{fmt(shmc)} | {fmt(get('shmc-direct'))} | {fmt(ratio(times('gloo'), *key), 1)} | "
              f"{fmt(ratio(times('deepspeed'), *key), 1)} | {fmt(ratio(times('deepspeed', 'shmc-direct'), *key), 1)} | "
              f"{fmt(ratio(over, *key))} |")
    return med


if __name__ == "__main__":
    main()
