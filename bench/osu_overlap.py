#!/usr/bin/env python3
"""The nonblocking collectives' table of OSU's pure communication time and overlap, by
state of the machine, from bench/osu_compare.sh's raw output.

    NS=2 ROUNDS=30 P2P2= COLL=osu_iallreduce OSU_ARGS="-i 200 -x 20" \\
        bench/osu_compare.sh OSU-SHMCC OSU-OPENMPI OSU-MPICH OUT
    bench/osu_overlap.py OUT [OUT...] [--prog osu_iallreduce] [--ranks 2]

OSU's nonblocking programs (osu_iallreduce and the rest) print, for each size, the call's
time when started and waited for at once ("Pure Comm.") and how much of it a computation
as long, made between the start and the wait, hid ("Overlap"). Each run counts in the
state its bench/line_rtt readings just before and just after it agree on
(bench/states.py); each cell is the median over those runs of each runtime (of every OUT
given): pure (µs) / overlap (%); the line after the table counts the runs.
"""
import argparse
import glob
import os
import re
import statistics

from osu_report import line_reading
from states import FAR_NS, NEAR_NS, state as state_of

RUNTIMES = ["shmcomm", "openmpi", "mpich"]
NAMES = {"shmcomm": "shmcomm", "openmpi": "Open MPI", "mpich": "MPICH"}


def parse(path):
    """{size: (pure, overlap)} from one run's output (the columns named by its header)."""
    got, cols = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("# Size"):
                heads = re.split(r"\s{2,}", line[1:].strip())
                cols = (heads.index("Pure Comm.(us)"), heads.index("Overlap(%)"))
                continue
            fields = line.split()
            if cols and fields and fields[0].isdigit() and len(fields) > max(cols):
                got[int(fields[0])] = (float(fields[cols[0]]), float(fields[cols[1]]))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="+")
    ap.add_argument("--prog", default="osu_iallreduce")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--near", type=float, default=NEAR_NS)
    ap.add_argument("--far", type=float, default=FAR_NS)
    args = ap.parse_args()
    cells = {}  # (state, runtime, size) -> [(pure, overlap)]
    runs = {}  # (state, runtime) -> runs counted
    paths = [(out, path) for out in args.out
             for path in glob.glob(os.path.join(out, "raw", f"*.{args.prog}.{args.ranks}.*.txt"))]
    for out, path in paths:
        m = re.fullmatch(r"(\w+)\.(osu_\w+)\.(\d+)\.(\d+)\.txt", os.path.basename(path))
        if not m or m.group(1) not in RUNTIMES:
            continue
        rt, rnd = m.group(1), int(m.group(4))
        before, after = (line_reading(out, rt, args.prog, args.ranks, rnd, when)
                         for when in ("line", "after"))
        # (a reading missing counts as -1: in neither state, as bench/osu_report.py has it)
        st = state_of(before or -1, after or -1, args.near, args.far)
        if st not in ("near", "far"):
            continue
        runs[(st, rt)] = runs.get((st, rt), 0) + 1
        for size, v in parse(path).items():
            cells.setdefault((st, rt, size), []).append(v)
    states = ["near", "far"]
    head = ["bytes"] + [f"{s}: {NAMES[r]}" for s in states for r in RUNTIMES]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join("---:" for _ in head) + " |")
    for size in sorted({k[2] for k in cells}):
        row = [str(size)]
        for s in states:
            for r in RUNTIMES:
                v = cells.get((s, r, size))
                row.append(f"{statistics.median(p for p, _ in v):.2f} / "
                           f"{statistics.median(o for _, o in v):.1f}" if v else "")
        print("| " + " | ".join(row) + " |")
    print()
    print("runs counted: " + ", ".join(f"{s} {NAMES[r]} {runs.get((s, r), 0)}"
                                       for s in states for r in RUNTIMES))


if __name__ == "__main__":
    main()
