#!/usr/bin/env python3
"""Nonblocking collectives started and waited for at once, beside the blocking call, on
the world of 2 ranks (or --ranks; --split: a communicator split from it), in both states of the machine: the tables of
docs/perf/nb-*.md.

Each round runs bench/coll_bench twice, blocking and --nonblocking, with --by-state, which
tells each sample near or far by the round trips around it. A row of a run counts only
where most of its samples ran in the state its job began in (the state that chose the
job's rules and eager limit). For each state, a row's figures are the medians over the
rounds in which both forms counted it, and its ratio the median of the per-round ratios.

    python3 bench/nb_table.py [--rounds 16] [--min 8] [--max 512k] [--samples 7]
                              [--ranks 2] [--split] [--build build] [--raw FILE]
    python3 bench/nb_table.py --from RAW...     (the tables of runs kept by --raw)
"""
import argparse
import statistics
import subprocess
import sys
from collections import defaultdict


def parse(args, out):
    """The job's state and its counted rows {(coll, bytes): median} of one run's output."""
    state, rows = None, {}
    for line in out.splitlines():
        if line.startswith("# machine"):
            state = line.split()[2]
        elif line and line[0].isalpha() and not line.startswith("collective,"):
            coll, _algo, _n, size, med, _lo, _hi, st, samples = line.split(",")
            # the row's samples in the job's own state, most of them
            if st == state and 2 * int(samples) > args.samples:
                rows[(coll, int(size))] = float(med)
    return state, rows


def run(args, nonblocking):
    cmd = [f"{args.build}/bin/shmrun", "-n", str(args.ranks), "--bind-to", "core",
           f"{args.build}/bench/coll_bench", "--coll", "all", "--min", args.min, "--max",
           args.max, "--samples", str(args.samples), "--csv", "--by-state"]
    if nonblocking:
        cmd.append("--nonblocking")
    if args.split:
        cmd.append("--split")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return parse(args, out) + (out,)


def from_raw(args, paths):
    """The rounds that --raw files hold: (blocking, nonblocking) parses, in order."""
    for path in paths:
        runs, cur = [], None
        for line in open(path):
            if line.startswith("# round "):
                cur = []
                runs.append(cur)
            elif cur is not None:
                cur.append(line)
        for b, n in zip(runs[0::2], runs[1::2]):
            yield parse(args, "".join(b)), parse(args, "".join(n))


def size_name(b):
    if b == 0:
        return "—"
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if b >= 1 << shift and b % (1 << shift) == 0:
            return f"{b >> shift} {unit}"
    return f"{b} B"


def fmt(v):
    return f"{v:.3g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=16)
    ap.add_argument("--min", default="8")
    ap.add_argument("--max", default="512k")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--split", action="store_true",
                    help="on a communicator split from the world (its calls are schedules)")
    ap.add_argument("--build", default="build")
    ap.add_argument("--raw", help="append each run's output to this file")
    ap.add_argument("--from", dest="sources", nargs="+", metavar="RAW",
                    help="make the tables from --raw files instead of running")
    args = ap.parse_args()
    # (state, coll, bytes) -> list of (blocking, nonblocking) of the rounds that had both
    pairs = defaultdict(list)
    order = []
    raw = open(args.raw, "a") if args.raw else None

    def rounds():
        if args.sources:
            yield from from_raw(args, args.sources)
            return
        for r in range(args.rounds):
            sb, blk, out_b = run(args, False)
            sn, nb, out_n = run(args, True)
            if raw:
                raw.write(f"# round {r} blocking\n{out_b}# round {r} nonblocking\n{out_n}")
                raw.flush()
            print(f"round {r + 1}: blocking began {sb}, nonblocking {sn}", file=sys.stderr)
            yield (sb, blk), (sn, nb)

    for (sb, blk), (sn, nb) in rounds():
        if sb != sn:
            continue
        for key in blk:
            if key in nb:
                if key not in order:
                    order.append(key)
                pairs[(sb,) + key].append((blk[key], nb[key]))
    for state in ("near", "far"):
        # (each collective's rows together, by size, whichever round first had a row)
        colls = list(dict.fromkeys(c for c, _ in order))
        keys = sorted((k for k in order if (state,) + k in pairs),
                      key=lambda k: (colls.index(k[0]), k[1]))
        if not keys:
            continue
        print(f"## {state.capitalize()}\n")
        print("| collective | bytes | rounds | blocking | nonblocking + wait | ratio |")
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        for coll, size in keys:
            p = pairs[(state, coll, size)]
            b = statistics.median(x for x, _ in p)
            n = statistics.median(y for _, y in p)
            ratio = statistics.median(y / x for x, y in p)
            print(f"| {coll} | {size_name(size)} | {len(p)} | {fmt(b)} | {fmt(n)} | "
                  f"{ratio:.2f} |")
        print()


if __name__ == "__main__":
    main()
