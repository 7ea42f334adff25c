#!/usr/bin/env python3
"""Tables and a plot from bench/osu_compare.sh's raw OSU output.

    bench/osu_report.py OUT [--state near|far] [--near NS] [--far NS]

Reads OUT/raw/RUNTIME.PROG.N.ROUND.txt (the OSU programs' own output), takes each size's
median over the rounds, leaving out runs made in a host's slow spell (bench/line_rtt's
reading before the run, raw/line-RUNTIME.PROG.N.ROUND.txt, or before the program's round,
raw/line.PROG.N.ROUND.txt, above SPELL_FACTOR times the median reading; a runtime keeps
all its runs of a program if every one was slow), and writes OUT/summary.csv (one row
per program, rank count and size: each runtime's median and shmcomm's lead over the better
of Open MPI and MPICH, above 1 where shmcomm is ahead), OUT/tables.md (a table of each
program's leads, then the rows as markdown tables, sizes where shmcomm is behind in bold,
with a list of them), and, when gnuplot is installed, OUT/osu.png (latency, bandwidth,
all-reduce at 2 and 4 ranks, broadcast and all-to-all at 4).

--state takes only the runs made in one state of the machine, its two vCPUs near each
other or far apart (docs/performance.md, "Machine"): those whose readings just before and
just after (raw/after-RUNTIME.PROG.N.ROUND.txt) are both below --near ns, or both above
--far (bench/states.py's rule and bounds by default); no slow spell is then left out, and
the files are OUT/summary-STATE.csv and OUT/tables-STATE.md, each size's row naming how
many runs of each runtime it took (no plot).
"""
import argparse
import csv
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

from states import FAR_NS, NEAR_NS, state as state_of

RUNTIMES = ["shmcomm", "openmpi", "mpich"]
HIGHER_IS_BETTER = {"osu_bw", "osu_bibw", "osu_mbw_mr", "osu_put_bw", "osu_get_bw"}
UNITS = {p: "MB/s" for p in HIGHER_IS_BETTER}


def parse(path):
    """{size: value} from one OSU output; osu_barrier's single figure is size 0."""
    got = {}
    with open(path, errors="replace") as f:
        for line in f:
            fields = line.split()
            if not fields or not re.fullmatch(r"[0-9.]+", fields[0]):
                continue
            try:
                nums = [float(x) for x in fields[:2]]
            except ValueError:
                continue
            if len(nums) == 2:
                got[int(nums[0])] = nums[1]
            else:
                got[0] = nums[0]
    return got


# A run whose cache-line round trip (bench/line_rtt, taken just before it) read more than
# this many times the median of all the readings ran in a host's slow spell: the two vCPUs
# far apart (docs/performance.md, "Machine"). It is left out, for every runtime
# alike, as long as the runtime has another run of that program at that rank count.
SPELL_FACTOR = 2.0


def line_reading(out, rt, prog, ranks, rnd, when="line"):
    """bench/line_rtt's ns before the run (per run, else per program round), or with when
    "after" just after it (per run only), or None."""
    names = [f"{when}-{rt}.{prog}.{ranks}.{rnd}.txt"]
    if when == "line":
        names.append(f"line.{prog}.{ranks}.{rnd}.txt")
    for name in names:
        try:
            with open(os.path.join(out, "raw", name)) as f:
                return float(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return None


def load(out, state=None, near=NEAR_NS, far=FAR_NS):
    """{(prog, ranks, size, runtime): median}, the programs, the runs left out, the slow
    spell's limit (None with a state) and {(prog, ranks, size, runtime): runs counted}."""
    samples = {}  # (prog, ranks, size, runtime) -> [values]
    progs = {}
    runs = {}  # (rt, prog, ranks) -> [(round, path, line ns or None)]
    for path in glob.glob(os.path.join(out, "raw", "*.txt")):
        m = re.fullmatch(r"(\w+)\.(osu_\w+)\.(\d+)\.(\d+)\.txt", os.path.basename(path))
        if not m or m.group(1) == "line":  # line.*: bench/line_rtt's figure, not OSU's
            continue
        rt, prog, ranks, rnd = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        progs[(prog, ranks)] = True
        runs.setdefault((rt, prog, ranks), []).append(
            (rnd, path, line_reading(out, rt, prog, ranks, rnd)))
    lines = [ln for rs in runs.values() for _, _, ln in rs if ln is not None]
    limit = SPELL_FACTOR * statistics.median(lines) if lines and not state else None
    dropped = []
    for (rt, prog, ranks), rs in runs.items():
        if state:  # (a reading missing counts as -1: in neither state)
            keep = [r for r in rs if state_of(
                r[2] or -1, line_reading(out, rt, prog, ranks, r[0], "after") or -1,
                near, far) == state]
        else:
            keep = [r for r in rs if limit is None or r[2] is None or r[2] <= limit]
            if not keep:  # every run in a spell: keep them all rather than nothing
                keep = rs
            dropped += [f"{rt} {prog} {ranks} ranks round {r[0]} ({r[2]:.0f} ns)"
                        for r in rs if r not in keep]
        for _, path, _ in keep:
            for size, v in parse(path).items():
                samples.setdefault((prog, ranks, size, rt), []).append(v)
    med = {k: statistics.median(v) for k, v in samples.items()}
    count = {k: len(v) for k, v in samples.items()}
    return med, sorted(progs, key=lambda p: (p[1], p[0])), sorted(dropped), limit, count


def lead(prog, vals):
    """shmcomm's lead over the better peer (above 1: ahead), or None."""
    me = vals.get("shmcomm")
    peers = [vals[r] for r in ("openmpi", "mpich") if vals.get(r)]
    if not me or not peers:
        return None
    if prog in HIGHER_IS_BETTER:
        return me / max(peers)
    return min(peers) / me


# A lead that shows as 1.00 (two decimals) is level, not behind.
LEVEL = 0.995


def summary(rows):
    """The markdown table of each program's rows: sizes, how many at or ahead of the
    better peer, the median lead and the lowest (with its size)."""
    out = ["| program | ranks | sizes | shmcomm ahead or level at | median lead | "
           "lowest lead (size) |", "| --- | ---: | ---: | ---: | ---: | --- |"]
    for prog, ranks in sorted({(r[0], r[1]) for r in rows}):
        got = [(r[4], r[2]) for r in rows if (r[0], r[1]) == (prog, ranks) and r[4]]
        if not got:
            continue
        low = min(got)
        out.append(f"| {prog} | {ranks} | {len(got)} | {sum(ld >= LEVEL for ld, _ in got)} | "
                   f"{statistics.median(ld for ld, _ in got):.2f} | {low[0]:.2f} ({low[1]} B) |")
    ahead = sum(1 for r in rows if r[4] and r[4] >= LEVEL)
    return out + ["", f"Ahead or level at {ahead} of the {sum(1 for r in rows if r[4])} rows.",
                  ""]


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.2f}" if v < 100 else f"{v:.0f}"


def report(out, state=None, near=NEAR_NS, far=FAR_NS):
    med, progs, dropped, limit, count = load(out, state, near, far)
    tail = f"-{state}" if state else ""
    rows = []
    for prog, ranks in progs:
        sizes = sorted({k[2] for k in med if k[0] == prog and k[1] == ranks})
        for size in sizes:
            vals = {rt: med.get((prog, ranks, size, rt)) for rt in RUNTIMES}
            rows.append((prog, ranks, size, vals, lead(prog, vals)))
    with open(os.path.join(out, f"summary{tail}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["program", "ranks", "bytes"] + RUNTIMES + ["shmcomm_lead"])
        for prog, ranks, size, vals, ld in rows:
            w.writerow([prog, ranks, size] + [vals[r] if vals[r] is not None else ""
                                              for r in RUNTIMES]
                       + [f"{ld:.3f}" if ld else ""])
    md = summary(rows)
    behind = []
    for prog, ranks in progs:
        if not any((r[0], r[1]) == (prog, ranks) for r in rows):
            continue  # (no run of it in this state)
        unit = UNITS.get(prog, "µs")
        md += [f"### {prog}, {ranks} ranks ({unit}; lead: shmcomm against the better "
               "peer, above 1 ahead)", "",
               "| bytes | shmcomm | Open MPI | MPICH | lead |" + (" runs |" if state else ""),
               "| ---: | ---: | ---: | ---: | ---: |" + (" ---: |" if state else "")]
        for p, r, size, vals, ld in rows:
            if (p, r) != (prog, ranks):
                continue
            cell = "—" if ld is None else f"{ld:.2f}"
            if ld is not None and ld < LEVEL:
                cell = f"**{cell}**"
                behind.append(f"{prog} {ranks} ranks {size} B ({ld:.2f})")
            runs = "/".join(str(count.get((prog, ranks, size, rt), 0)) for rt in RUNTIMES)
            md.append(f"| {size} | {fmt(vals['shmcomm'])} | {fmt(vals['openmpi'])} | "
                      f"{fmt(vals['mpich'])} | {cell} |" + (f" {runs} |" if state else ""))
        md.append("")
    md += ["### Where shmcomm is behind", ""]
    md += [f"- {b}" for b in behind] or ["- nowhere"]
    if limit is not None:
        md += ["", f"### Runs left out: in a host's slow spell (line round trip above "
                   f"{limit:.0f} ns)", ""]
        md += [f"- {d}" for d in dropped] or ["- none"]
    with open(os.path.join(out, f"tables{tail}.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    if not state:
        plot(med, out)
    print(f"osu_report: {len(rows)} rows, shmcomm behind at {len(behind)}; "
          + (f"runs {state} only" if state else f"{len(dropped)} runs left out (slow spells)")
          + f"; {os.path.join(out, f'tables{tail}.md')}")


def plot(med, out):
    if not shutil.which("gnuplot"):
        print("osu_report: gnuplot not installed; no plot", file=sys.stderr)
        return
    data = os.path.join(out, "plot-data")
    os.makedirs(data, exist_ok=True)
    panels = [("osu_latency", 2, "osu\\_latency, 2 ranks", "µs (log)"),
              ("osu_bw", 2, "osu\\_bw, 2 ranks", "MB/s (log)"),
              ("osu_allreduce", 2, "osu\\_allreduce, 2 ranks", "µs (log)"),
              ("osu_allreduce", 4, "osu\\_allreduce, 4 ranks on 2 cores", "µs (log)"),
              ("osu_bcast", 4, "osu\\_bcast, 4 ranks on 2 cores", "µs (log)"),
              ("osu_alltoall", 4, "osu\\_alltoall, 4 ranks on 2 cores", "µs (log)")]
    script = ["set terminal pngcairo size 1200,1300 font ',10'",
              f"set output '{os.path.join(out, 'osu.png')}'",
              "set multiplot layout 3,2 title 'OSU Micro-Benchmarks 7.4, medians over rounds'",
              "set grid", "set logscale x 2", "set logscale y 10", "set format x '%.0b %BB'",
              "set xlabel 'message size'"]
    for prog, ranks, title, ylabel in panels:
        parts = []
        for i, rt in enumerate(RUNTIMES):
            pts = sorted((k[2], v) for k, v in med.items()
                         if k[0] == prog and k[1] == ranks and k[3] == rt and k[2] > 0)
            if not pts:
                continue
            path = os.path.join(data, f"{rt}-{prog}-{ranks}.dat")
            with open(path, "w") as f:
                f.writelines(f"{x} {y}\n" for x, y in pts)
            parts.append(f"'{path}' using 1:2 with linespoints lw 2 pt {i + 5} title '{rt}'")
        script += [f"set title '{title}'", f"set ylabel '{ylabel}'",
                   "set key " + ("right bottom" if prog in HIGHER_IS_BETTER else "left top")]
        script.append("plot " + ", ".join(parts) if parts else "clear")
    script.append("unset multiplot")
    gp = os.path.join(out, "osu.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"osu_report: gnuplot failed: {r.stderr[-500:]}", file=sys.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("out")
    ap.add_argument("--state", choices=("near", "far"))
    ap.add_argument("--near", type=float, default=NEAR_NS)
    ap.add_argument("--far", type=float, default=FAR_NS)
    a = ap.parse_args()
    report(a.out, a.state, a.near, a.far)
