#!/usr/bin/python3
"""torch.distributed across hosts: "shmc" (shared memory within each host, gloo between
them) against "gloo" on every rank, in one run, on hosts made of network namespaces
(bindings/torch/tests/hosts.py) whose links are made to behave like a network with tc
netem (--delay, --rate on each host's interface; each host's own loopback is untouched;
where the kernel has no netem, tbf limits the rate alone, and the table says so).

Each host runs torchrun with its ranks; rounds alternate the backends (A B, B A, ...). The
method is bench/torch_timing.py's (the median of --samples samples of back-to-back calls,
the slowest rank's): all_reduce of float32 SUM from 4 B to 64 MiB, all_gather_into_tensor
and broadcast at 4 KiB, 1 MiB and 16 MiB (each rank's whole buffer), and one
DistributedDataParallel step (torch_timing.ddp_step). Needs root, ip(8), unshare(1), tc(8).

    python3 bench/torch_hosts_bench.py [--layouts 2x1,2x2,2x4] [--rounds 3] [--delay 20us]
        [--rate 10gbit] [--quick] [--out FILE.csv] [--plot DIR]
    python3 bench/torch_hosts_bench.py --summarize FILE.csv [--plot DIR]   (an earlier run's)

--plot DIR draws DIR/torch-hosts-allreduce.png with gnuplot: the all-reduce of each
backend at each layout, log-log.

Output: CSV rows round,layout,backend,metric,bytes,value_us, then per layout a table of
the medians over rounds and gloo's time over shmc's (above 1: shmc faster), the median of
the per-round ratios.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bindings", "torch", "tests"))

AR_SIZES = [4, 64, 1 << 10, 16 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20]
COLL_SIZES = [4 << 10, 1 << 20, 16 << 20]
QUICK_AR = [4, 1 << 20]
QUICK_COLL = [1 << 20]


def worker(backend, samples, sample_ms, quick):
    """One rank, under torchrun: measures and, on rank 0, prints `row ...` lines."""
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)  # torch renames, not ours
    import torch
    import torch.distributed as dist

    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "bindings", "torch"))
    import shmcomm_torch  # noqa: F401
    import torch_timing

    torch.set_num_threads(1)
    dist.init_process_group(backend)
    rank, n = dist.get_rank(), dist.get_world_size()

    def emit(metric, nbytes, fn):
        v = torch_timing.measure(fn, samples, sample_ms)
        if rank == 0:
            sys.stdout.write(f"row {backend} {metric} {nbytes} {v:.3f}\n")
            sys.stdout.flush()

    timed = torch_timing.timed
    for b in QUICK_AR if quick else AR_SIZES:
        buf = torch.ones(max(1, b // 4))
        emit("allreduce", b, timed(lambda buf=buf: dist.all_reduce(buf)))
    for b in QUICK_COLL if quick else COLL_SIZES:
        k = max(1, b // 4 // n)
        inp, out = torch.ones(k), torch.empty(k * n)
        emit("allgather", b, timed(lambda: dist.all_gather_into_tensor(out, inp)))
        bb = torch.ones(b // 4)
        emit("broadcast", b, timed(lambda: dist.broadcast(bb, 0)))
    emit("ddp_step", 0, timed(torch_timing.ddp_step()))
    dist.barrier()
    if backend == "gloo":
        os._exit(0)  # (gloo's teardown now and then aborts: tests/progs/hosts_ddp.py)
    dist.destroy_process_group()


def shape(hs, delay, rate):
    """Each host's link: netem's delay and rate, or, on a kernel without netem, tbf's rate
    alone. Returns what was applied, for the table."""
    def tc(ns, *q):
        return subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "eth0",
                               "root", *q], capture_output=True, text=True)
    if all(tc(ns, "netem", "delay", delay, "rate", rate).returncode == 0 for ns in hs.names):
        return f"netem delay {delay}, rate {rate}"
    for ns in hs.names:
        subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "eth0", "root"],
                       capture_output=True)
        r = tc(ns, "tbf", "rate", rate, "burst", "256kb", "latency", "10ms")
        if r.returncode != 0:
            sys.exit(f"torch_hosts_bench: tc on {ns}: {r.stderr.strip()}")
    return f"tbf rate {rate} (this kernel has no netem: no added delay)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--layouts", default="2x1,2x2,2x4", help="HOSTSxRANKS, comma-separated")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--sample-ms", type=float, default=100)
    ap.add_argument("--delay", default="20us")
    ap.add_argument("--rate", default="10gbit")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--plot", metavar="DIR")
    ap.add_argument("--summarize", metavar="FILE")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.samples, args.sample_ms, args.quick)
        return
    if args.summarize:
        with open(args.summarize) as f:
            rows = [(int(r["round"]), r["layout"], r["backend"], r["metric"], int(r["bytes"]),
                     float(r["value_us"])) for r in csv.DictReader(f)]
        table(rows, "as recorded")
        if args.plot:
            plot(rows, args.plot)
        return
    import hosts

    why = hosts.why_not()
    if why or not subprocess.run(["sh", "-c", "command -v tc"], capture_output=True).stdout:
        sys.exit(f"torch_hosts_bench: hosts of network namespaces: {why or 'needs tc'}")
    rows = []
    for layout in args.layouts.split(","):
        nh, per = map(int, layout.split("x"))
        with hosts.Hosts(nh) as hs:
            link = shape(hs, args.delay, args.rate)
            for rnd in range(args.rounds):
                order = ["shmc", "gloo"] if rnd % 2 == 0 else ["gloo", "shmc"]
                for backend in order:
                    extra = ["--samples", args.samples, "--sample-ms", args.sample_ms]
                    if args.quick:
                        extra.append("--quick")
                    rcs, outs = hs.job([per] * nh, os.path.abspath(__file__), "--worker", backend,
                                       *extra, timeout=1800)
                    out = "\n".join(outs)
                    if rcs != [0] * nh:
                        sys.exit(f"torch_hosts_bench: {layout} {backend} failed:\n{out[-4000:]}")
                    for line in out.splitlines():
                        w = line.split()
                        if len(w) == 5 and w[0] == "row":
                            rows.append((rnd, layout, w[1], w[2], int(w[3]), float(w[4])))
                    print(f"round {rnd + 1}/{args.rounds} {layout} {backend}: done", flush=True)
    if args.out:
        with open(args.out, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["round", "layout", "backend", "metric", "bytes", "value_us"])
            wr.writerows(rows)
    table(rows, link)
    if args.plot:
        plot(rows, args.plot)


def plot(rows, out):
    """The all-reduce, every backend at every layout: medians over rounds, log-log."""
    import shutil
    import tempfile

    import torch_bench

    if not shutil.which("gnuplot"):
        print("torch_hosts_bench: gnuplot not installed; no plot", file=sys.stderr)
        return
    med = {}
    for _, layout, backend, metric, nbytes, v in rows:
        if metric == "allreduce":
            med.setdefault((layout, backend), {}).setdefault(nbytes, []).append(v)
    os.makedirs(out, exist_ok=True)
    data = tempfile.mkdtemp(prefix="torch-hosts-plot-")
    parts = []
    for i, ((layout, backend), pts) in enumerate(sorted(med.items())):
        path = os.path.join(data, f"{layout}-{backend}.dat")
        with open(path, "w") as f:
            f.writelines(f"{b} {statistics.median(v)}\n" for b, v in sorted(pts.items()))
        dash = "dt 2" if backend == "gloo" else "dt 1"
        parts.append(f"'{path}' using 1:2 with linespoints lw 2 pt {i + 5} {dash} "
                     f"title '{backend}, {layout}'")
    script = torch_bench.LOGLOG + [
        "set xlabel 'bytes per rank'",
        f"set output '{os.path.join(out, 'torch-hosts-allreduce.png')}'",
        "set title 'float32 all_reduce across two hosts (network namespaces)'",
        "plot " + ", ".join(parts)]
    torch_bench.gnuplot(script, data, "torch_hosts_bench")
    shutil.rmtree(data, ignore_errors=True)


def table(rows, link):
    by = {}
    for rnd, layout, backend, metric, nbytes, v in rows:
        by.setdefault((layout, metric, nbytes), {}).setdefault(backend, {})[rnd] = v
    print(f"\nlink: {link}; microseconds, medians over rounds")
    print("| layout | operation | bytes | shmc | gloo | gloo / shmc |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for (layout, metric, nbytes), d in sorted(by.items()):
        if "shmc" not in d or "gloo" not in d:
            continue
        s, g = d["shmc"], d["gloo"]
        ratio = statistics.median(g[r] / s[r] for r in s if r in g)
        print(f"| {layout} | {metric} | {nbytes if nbytes else '-'} | "
              f"{statistics.median(s.values()):.1f} | {statistics.median(g.values()):.1f} | "
              f"{ratio:.2f} |")


if __name__ == "__main__":
    main()
