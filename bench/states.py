#!/usr/bin/python3
"""shmcomm beside Open MPI and MPICH in both states of a shared host: the minutes in which
the hypervisor runs this machine's two vCPUs near each other and those in which it runs
them far apart (a cache line's round trip, build/bench/line_rtt, about 100 ns or 300 ns
and more). Each round measures the round trip, runs build/bench/measure on every runtime
one after the other (the order turning from round to round), at 2 ranks bound one per
core, and measures the round trip again; a round whose two readings are both below --near
or both above --far counts for that state, any other for neither. The table gives each
runtime's median per state and shmcomm's time over Open MPI's and over the better of the
two MPIs. Rounds go on until each state has --rounds of them or --minutes pass (a state
the machine never entered has no rows).

On a host that moves the vCPUs every few seconds few rounds stay in one state:
--by-sample then runs build/bench/measure --per-sample, which measures the round trip
just before and just after each sample, counts each sample for the state both its
readings are in, and goes on until every runtime has --rounds samples of each state at
every operation and size (or --minutes pass); the table gives the median over a state's
samples and, in its samples column, the fewest samples any runtime's figure of that row
rests on. A shmcomm job takes its rules and eager limit from the state it began in
(measure --machine prints it): its samples count only where they ran in that state, so
that each state's figures are that state's settings (--any-start counts them all, as a
program that starts in one state and runs on into the other meets them). --tuned FILE
adds shmcomm with the dispatch rules
of FILE (SHMC_TUNING_FILE; bench/tune.py writes them) to every round, and the table its
time over the built-in rules'.

    python3 bench/states.py [--rounds 5] [--minutes 30] [--tests allreduce,barrier]
        [--sizes 4,65536,16777216] [--near 150] [--far 250] [--tuned RULES] [--out FILE.csv]
        [--by-sample [--samples 11] [--any-start]]
    python3 bench/states.py --summarize FILE.csv [--by-sample]

Needs the measurement programs of bench/compare.sh (make bench-compare builds them:
build/bench/measure, measure-openmpi, measure-mpich); a runtime without one is left out.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
B = os.path.join(ROOT, "build", "bench")

# A round trip below NEAR_NS is the near state, above FAR_NS the far one (bench/report.py
# classifies the rounds of bench/compare.sh by the same bounds).
NEAR_NS, FAR_NS = 150, 250

RUNTIMES = {
    "shmcomm": [os.path.join(ROOT, "build", "bin", "shmrun"), "-n", "2", "--bind-to", "core",
                "-x", "SHMC_TUNING_FILE=builtin", os.path.join(B, "measure")],
    "openmpi": ["mpirun.openmpi", "--allow-run-as-root", "-np", "2", "--bind-to", "core",
                os.path.join(B, "measure-openmpi")],
    "mpich": ["mpirun.mpich", "-np", "2", "-bind-to", "core", os.path.join(B, "measure-mpich")],
}


def rtt():
    r = subprocess.run([os.path.join(B, "line_rtt"), "5000"], capture_output=True, text=True)
    return int(r.stdout.strip()) if r.returncode == 0 and r.stdout.strip().isdigit() else -1


def state(a, b, near, far):
    if 0 < a < near and 0 < b < near:
        return "near"
    if a > far and b > far:
        return "far"
    return "neither"


def run_measure(rt, args, extra):
    """Runtime rt's build/bench/measure on the tests and sizes asked for, with extra
    options: its rows, each split at its commas ([] after a failure, which is reported)."""
    cmd = RUNTIMES[rt] + ["--tests", args.tests, "--sizes", args.sizes] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"states: {rt} failed ({r.returncode}): {r.stderr[-500:]}\n")
        return []
    return [line.split(",") for line in r.stdout.splitlines()]


def job_state(rows):
    """The state a shmcomm job took its settings by (measure --machine's first line), or
    None (an MPI's, or no such line)."""
    for w in rows:
        if len(w) == 1 and w[0].startswith("# machine "):
            return w[0].split()[2]
    return None


def measure(args):
    if args.tuned:
        RUNTIMES["tuned"] = [a if a != "SHMC_TUNING_FILE=builtin" else
                             "SHMC_TUNING_FILE=" + os.path.abspath(args.tuned)
                             for a in RUNTIMES["shmcomm"]]
    have = [k for k, cmd in RUNTIMES.items() if os.access(cmd[-1], os.X_OK)]
    if "shmcomm" not in have:
        sys.exit("states: build/bench/measure is missing (make bench-compare builds it)")
    if args.by_sample:
        return by_sample(args, have)
    rows, count, rnd = [], {"near": 0, "far": 0}, 0
    end = time.time() + args.minutes * 60
    while time.time() < end and min(count.values()) < args.rounds:
        before = rtt()
        order = have[rnd % len(have):] + have[:rnd % len(have)]
        got = []
        for rt in order:
            for w in run_measure(rt, args, ["--samples", "5"]):
                if len(w) == 5 and w[1].endswith("_us"):
                    got.append((rt, w[1][:-3], int(w[3]), float(w[4])))
        after = rtt()
        st = state(before, after, args.near, args.far)
        if st in count and count[st] < args.rounds:
            count[st] += 1
            rows += [[rnd, st, before, after, rt, metric, b, v] for rt, metric, b, v in got]
            sys.stderr.write(f"states: round {rnd}: {st} ({before}, {after} ns)\n")
        rnd += 1
    return rows


def by_sample(args, have):
    """Rows as measure() makes them, one per sample in a state (its round trips the two
    measured around it), until every runtime has args.rounds samples of each state at
    every operation and size, or args.minutes pass."""
    rows, rnd, last = [], 0, -1
    count = {}  # (runtime, metric, bytes, state) -> samples
    end = time.time() + args.minutes * 60
    while time.time() < end:
        order = have[rnd % len(have):] + have[:rnd % len(have)]
        for rt in order:
            got = run_measure(rt, args,
                              ["--samples", str(args.samples), "--per-sample", "--machine"])
            began = None if args.any_start else job_state(got)
            for w in got:
                if len(w) != 7 or not w[1].endswith("_us"):
                    continue
                a, b = int(w[5]), int(w[6])
                st = state(a, b, args.near, args.far)
                if st == "neither" or (began and st != began):
                    continue
                key = (rt, w[1][:-3], int(w[3]), st)
                count[key] = count.get(key, 0) + 1
                rows.append([rnd, st, a, b, rt, w[1][:-3], int(w[3]), float(w[4])])
        ops = {(k[1], k[2]) for k in count}
        short = [(rt, m, b, st) for rt in have for m, b in ops for st in ("near", "far")
                 if count.get((rt, m, b, st), 0) < args.rounds]
        if len(short) != last:
            sys.stderr.write(f"states: after round {rnd}: {len(short)} figures short of "
                             f"{args.rounds} samples in a state\n")
            last = len(short)
        rnd += 1
        if ops and not short:
            break
    return rows


def table(rows, by_sample=False):
    med = {}
    for _, st, _, _, rt, metric, b, v in rows:
        med.setdefault((st, metric, int(b)), {}).setdefault(rt, []).append(float(v))
    rtts = {}
    for _, st, a, b, *_ in rows:
        rtts.setdefault(st, set()).update([int(a), int(b)])
    tuned = any(r[4] == "tuned" for r in rows)
    out = ["| state (round trip) | " + ("samples" if by_sample else "rounds") + " | operation | bytes | shmcomm µs | Open MPI µs | "
           "MPICH µs | shmcomm / Open MPI | shmcomm / best MPI |" +
           (" tuned µs | tuned / built-in |" if tuned else ""),
           "|---|---:|---|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if tuned else "")]
    for st in ("near", "far"):
        if st not in rtts:
            continue
        n = len({r[0] for r in rows if r[1] == st})
        for (s, metric, b) in sorted(k for k in med if k[0] == st):
            m = {rt: statistics.median(v) for rt, v in med[(s, metric, b)].items()}
            if by_sample:
                n = min(len(v) for v in med[(s, metric, b)].values())
            sh, om, mp = m.get("shmcomm"), m.get("openmpi"), m.get("mpich")
            best = min(x for x in (om, mp) if x) if (om or mp) else None
            f = lambda x: f"{x:.2f}" if x else "-"
            tu = m.get("tuned")
            out.append(f"| {st} ({min(rtts[st])}-{max(rtts[st])} ns) | {n} | {metric} | {b} | "
                       f"{f(sh)} | {f(om)} | {f(mp)} | {f(sh / om) if sh and om else '-'} | "
                       f"{f(sh / best) if sh and best else '-'} |" +
                       (f" {f(tu)} | {f(tu / sh) if tu and sh else '-'} |" if tuned else ""))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--tests", default="allreduce,barrier")
    ap.add_argument("--sizes", default="4,65536,16777216")
    ap.add_argument("--near", type=int, default=NEAR_NS)
    ap.add_argument("--far", type=int, default=FAR_NS)
    ap.add_argument("--tuned")
    ap.add_argument("--by-sample", action="store_true")
    ap.add_argument("--any-start", action="store_true",
                    help="--by-sample: count a shmcomm job's samples in either state")
    ap.add_argument("--samples", type=int, default=11)
    ap.add_argument("--out")
    ap.add_argument("--summarize")
    args = ap.parse_args()
    if args.summarize:
        with open(args.summarize) as f:
            rows = [r for r in csv.reader(f)][1:]
    else:
        rows = measure(args)
        if args.out:
            with open(args.out, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["round", "state", "rtt_before", "rtt_after", "runtime", "metric",
                            "bytes", "us"])
                w.writerows(rows)
    print(table(rows, args.by_sample))


if __name__ == "__main__":
    main()
