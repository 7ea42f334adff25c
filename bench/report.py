#!/usr/bin/python3
"""The table, target checks, summary CSV and plots of `make bench-compare`.

    bench/report.py RAW.csv OUTDIR MODE "machine description" [--state near|far]

RAW.csv holds rows round,runtime,metric,ranks,bytes,value from bench/measure (every
runtime), bench/gloo_bench.py, bench/limits ("bare") and bench/startup.py. Each figure
reported is the median over the rounds of the per-round medians. Rows that also carry
before,after (bench/measure --per-sample, which bench/compare.sh takes with BY_SAMPLE=1:
a sample's own round trips) are counted sample by sample instead: only the samples whose
two round trips were both in one state count, those of --state, or else of the state
with more of them, and each such figure is the median over its samples; a shmcomm
sample counts only where its job began in that state (the job_near or job_far row that
bench/compare.sh writes from measure --machine before the job's samples), since a job
takes its rules and eager limit from the state it began in. Ratios are shmcomm's
figure divided by the other's: below 1 is better for times, above 1 for bandwidths.

Writes OUTDIR/summary.csv, OUTDIR/table.md (the table and target checks, in Markdown,
for docs/performance.md) and, when gnuplot is installed, OUTDIR/latency.png,
bandwidth.png, allreduce-2.png, allreduce-4.png and scaling.png; prints the table.
"""
import collections
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys

from states import FAR_NS, NEAR_NS, state as state_of

PEERS = ["openmpi", "mpich", "gloo"]
RUNTIMES = ["shmcomm"] + PEERS
COLLS = ["barrier", "broadcast", "reduce", "allreduce", "gather", "allgather", "scatter",
         "reduce_scatter", "alltoall"]


def load(path, want=None):
    """The medians over the rounds kept, their counts, and a sentence on which rounds
    (and samples) those are. Rows with a sample's round trips (before, after) count by
    sample in the state `want` (or the one with more samples): see the module's text.
    Of the others, bench/compare.sh records the cache line's round trip before each command
    (runtime "machine"), and only the rounds in which every reading was in one state of
    the machine are kept, those of the state with more such rounds (bench/states.py's
    bounds); where no round was, all are kept, and the sentence says so."""
    rows, samples = [], []
    began = {}  # runtime -> the state its job now running began in (its job_* row)
    with open(path) as f:
        for row in csv.DictReader(f):
            try:
                r = (row["round"], row["runtime"], row["metric"], int(row["ranks"]),
                     int(row["bytes"]), float(row["value"]))
                if r[2] in ("job_near", "job_far"):
                    began[r[1]] = r[2][4:]
                elif row.get("before") and row.get("after"):
                    samples.append(r + (float(row["before"]), float(row["after"]),
                                        began.get(r[1])))
                else:
                    rows.append(r)
                if r[1] == "machine":
                    began.clear()  # (a new command: a job without a job_* row began in none)
            except (KeyError, TypeError, ValueError):
                continue  # a partial line from a failed run
    rtts = collections.defaultdict(list)
    for rnd, rt, metric, _, _, v in rows:
        if rt == "machine" and metric == "line_rtt_ns":
            rtts[rnd].append(v)
    state = {r: "near" if all(0 < x < NEAR_NS for x in v) else
             "far" if all(x > FAR_NS for x in v) else "mixed" for r, v in rtts.items()}
    clean = collections.Counter(st for st in state.values() if st != "mixed")
    note = ""
    if rtts:
        if clean:
            st = max(("near", "far"), key=lambda k: (clean[k], k == "near"))
            keep = {r for r, x in state.items() if x == st}
            seen = [x for r in keep for x in rtts[r]]
            note = (f" Rounds kept: {len(keep)} of {len(rtts)}, those in which the cache "
                    f"line's round trip read {st} ({min(seen):.0f}-{max(seen):.0f} ns) before "
                    "every command.")
            rows = [x for x in rows if x[0] in keep]
        else:
            seen = [x for v in rtts.values() for x in v]
            note = (f" No round had every reading of the cache line's round trip in one state "
                    f"({min(seen):.0f}-{max(seen):.0f} ns): all {len(rtts)} are kept.")
    per = collections.defaultdict(list)
    for _, rt, metric, ranks, nbytes, v in rows:
        if rt != "machine":
            per[(rt, metric, ranks, nbytes)].append(v)
    med = {k: statistics.median(v) for k, v in per.items()}
    count = {k: len(v) for k, v in per.items()}
    if samples:
        def st_of(s):
            return state_of(s[6], s[7], NEAR_NS, FAR_NS)
        by = collections.Counter(st_of(s) for s in samples)
        st = want or max(("near", "far"), key=lambda k: (by[k], k == "near"))
        # (a shmcomm sample counts only in the state its job began in, where known)
        kept = [s for s in samples if st_of(s) == st and s[8] in (None, st)]
        other = sum(1 for s in samples if st_of(s) == st and s[8] not in (None, st))
        sper = collections.defaultdict(list)
        for _, rt, metric, ranks, nbytes, v, _, _, _ in kept:
            sper[(rt, metric, ranks, nbytes)].append(v)
        for k, v in sper.items():
            med[k] = statistics.median(v)  # (count: the rounds of the other rows)
        seen = [x for s in kept for x in s[6:8]]
        span = f" ({min(seen):.0f}-{max(seen):.0f} ns)" if seen else ""
        note += (f" Sample by sample ({len(samples)} samples with their round trips: "
                 f"{by['near']} near, {by['far']} far, {by['neither']} in neither): these figures "
                 f"are the {st} samples'{span}"
                 + (f", less {other} of shmcomm's whose job began in the other state "
                    "(they ran that state's rules and eager limit)" if other else "")
                 + "; the rest (without round trips) as above.")
    return med, count, note


def size_name(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return f"{b // div} {unit}"
    return f"{b} B"


def num(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}" if v >= 0.001 else f"{v:.2g}"


# The bare forms of the 4-rank all-reduce that bench/limits measures.
AR_FLOORS = ("1step", "shm", "cma", "mixed")
# The bare 4-process barriers of bench/limits.c: plain yield, and CPU-aware.
BAR_FLOORS = ("yield", "cpu")


def ratio(a, b):
    return a / b if a is not None and b else None


def floor(out, what, value, limit):
    """A row under a target: where a bare program doing only the unavoidable work already
    misses the target's ratio, the target is out of reach for any runtime on this
    machine, and the row says so."""
    if value is None:
        out.append((f"  floor: {what}", "-", limit, "n/a"))
    else:
        out.append((f"  floor: {what}", f"{value:.3g}", limit,
                    "BOUND" if value > limit else "reachable"))


class Report:
    def __init__(self, med, count):
        self.med, self.count = med, count

    def get(self, rt, metric, ranks, nbytes):
        return self.med.get((rt, metric, ranks, nbytes))

    def sizes(self, metric, ranks):
        return sorted({k[3] for k in self.med if k[1] == metric and k[2] == ranks
                       and k[0] in RUNTIMES})

    def bound(self, metric, nbytes, ranks=2):
        """The physical limit beside a figure: the bare two-copy ping-pong for latency,
        single-thread memcpy for bandwidth, the bare pair barrier for the 2-rank barrier,
        the faster bare barrier (plain yield or CPU-aware) for the 4-rank barrier, the
        fastest bare form of the 4-rank all-reduce (bench/floor_allreduce.c)."""
        if metric == "barrier_us" and ranks == 2:
            return self.get("bare", "pair_barrier_us", 2, 0)
        if metric == "barrier_us" and ranks == 4:
            forms = [self.get("bare", f"{f}_barrier_us", 4, 0) for f in BAR_FLOORS]
            return min([x for x in forms if x is not None], default=None)
        if metric == "allreduce_us" and ranks == 4:
            forms = [self.get("bare", f"allreduce_{f}_us", 4, nbytes) for f in AR_FLOORS]
            return min([x for x in forms if x is not None], default=None)
        if metric == "latency_us":
            return self.get("bare", "shm_pingpong_us", 2, max(nbytes, 1))
        if metric == "bw_MBps":
            return self.get("bare", "memcpy_MBps", 2, nbytes)
        return None

    def rows(self):
        order = [("latency_us", 2), ("relay_us", 2), ("bw_MBps", 2), ("bibw_MBps", 2)]
        order += [(f"{c}_us", 2) for c in COLLS] + [(f"{c}_us", 4) for c in COLLS]
        order += [("start_ms", 2)]
        for metric, ranks in order:
            for b in self.sizes(metric, ranks):
                v = {rt: self.get(rt, metric, ranks, b) for rt in RUNTIMES}
                bd = self.bound(metric, b, ranks)
                yield [metric, ranks, b, v, bd]

    def table(self):
        head = ["metric", "ranks", "size", "shmcomm", "Open MPI", "MPICH", "gloo", "bound",
                "/OMPI", "/MPICH", "/gloo", "/bound"]
        lines = []
        for metric, ranks, b, v, bd in self.rows():
            s = v["shmcomm"]
            lines.append([metric, str(ranks), size_name(b) if metric != "start_ms" else "-",
                          num(s), num(v["openmpi"]), num(v["mpich"]), num(v["gloo"]),
                          num(bd), num(ratio(s, v["openmpi"])), num(ratio(s, v["mpich"])),
                          num(ratio(s, v["gloo"])), num(ratio(s, bd))])
        return head, lines

    # ---- the targets of the benchmark issue ----
    def targets(self):
        g = self.get
        out = []

        def check(what, value, limit, le=True):
            if value is None:
                out.append((what, "-", limit, "n/a"))
            else:
                ok = value <= limit if le else value >= limit
                out.append((what, f"{value:.3g}", limit, "PASS" if ok else "MISS"))

        lat = lambda rt, b: g(rt, "latency_us", 2, b)
        best = lambda *xs: min([x for x in xs if x is not None], default=None)
        check("8 B latency / Open MPI", ratio(lat("shmcomm", 8), lat("openmpi", 8)), 0.6)
        floor(out, "bare cache-line ping-pong / Open MPI, 8 B",
              ratio(g("bare", "line_pingpong_us", 2, 8), lat("openmpi", 8)), 0.6)
        check("8 B latency / bare cache-line ping-pong",
              ratio(lat("shmcomm", 8), g("bare", "line_pingpong_us", 2, 8)), 1.6)
        for b in (4096, 65536):
            check(f"{size_name(b)} latency / best of Open MPI, MPICH",
                  ratio(lat("shmcomm", b), best(lat("openmpi", b), lat("mpich", b))), 0.8)
        floor(out, "bare two-copy 4 KiB ping-pong / best of Open MPI, MPICH",
              ratio(g("bare", "shm_pingpong_us", 2, 4096), best(lat("openmpi", 4096),
                                                               lat("mpich", 4096))), 0.8)
        bw = lambda rt, b: g(rt, "bw_MBps", 2, b)
        for b in (65536, 4194304):
            check(f"{size_name(b)} bandwidth / Open MPI",
                  ratio(bw("shmcomm", b), bw("openmpi", b)), 1.25, le=False)
        check("4 MiB bandwidth / single-thread memcpy",
              ratio(bw("shmcomm", 4194304), g("bare", "memcpy_MBps", 2, 4194304)), 0.8, le=False)
        ar = lambda rt, n, b: g(rt, "allreduce_us", n, b)
        for n, lim in ((2, 0.7), (4, 0.5)):
            sizes = [b for b in self.sizes("allreduce_us", n) if 4 <= b <= 16 << 20]
            worst = max((ratio(ar("shmcomm", n, b), ar("openmpi", n, b)) or 0 for b in sizes),
                        default=None)
            check(f"all-reduce {n} ranks / Open MPI, worst of {len(sizes)} sizes", worst or None,
                  lim)
        sizes4 = [b for b in self.sizes("allreduce_us", 4) if 4 <= b <= 16 << 20]
        worst = max((ratio(ar("shmcomm", 4, b), ar("mpich", 4, b)) or 0 for b in sizes4),
                    default=None)
        check(f"all-reduce 4 ranks / MPICH, worst of {len(sizes4)} sizes", worst or None, 0.01)
        for rt, name, lim in (("openmpi", "Open MPI", 0.5), ("mpich", "MPICH", 0.01)):
            fl = [(ratio(self.bound("allreduce_us", b, 4), ar(rt, 4, b)), b) for b in sizes4]
            fl = [(v, b) for v, b in fl if v is not None]
            v, b = max(fl, default=(None, 0))
            floor(out, f"fastest bare 4-rank all-reduce / {name}, worst size ({size_name(b)})",
                  v, lim)
        for n, lim in ((2, 0.7), (4, 0.5)):
            check(f"barrier {n} ranks / Open MPI",
                  ratio(g("shmcomm", "barrier_us", n, 0), g("openmpi", "barrier_us", n, 0)), lim)
        floor(out, "bare pair barrier / Open MPI, 2 ranks",
              ratio(self.bound("barrier_us", 0, 2), g("openmpi", "barrier_us", 2, 0)), 0.7)
        floor(out, "fastest bare barrier / Open MPI, 4 ranks",
              ratio(self.bound("barrier_us", 0, 4), g("openmpi", "barrier_us", 4, 0)), 0.5)
        check("start-up, shmrun / mpirun.mpich",
              ratio(g("shmcomm", "start_ms", 2, 0), g("mpich", "start_ms", 2, 0)), 0.5)
        small = 8  # the small-message latency every runtime reports
        check(f"gloo / shmcomm, {size_name(small)} latency",
              ratio(lat("gloo", small), lat("shmcomm", small)), 50, le=False)
        ar4 = min((b for b in self.sizes("allreduce_us", 2) if g("gloo", "allreduce_us", 2, b)),
                  default=4)
        check(f"gloo / shmcomm, {size_name(ar4)} all-reduce, 2 ranks",
              ratio(ar("gloo", 2, ar4), ar("shmcomm", 2, ar4)), 50, le=False)
        return out

    # ---- scaling ----
    def scaling(self):
        """shmcomm's all-reduce by ranks beside the cost model of docs/collectives.md,
        with alpha and the bandwidth term taken from the 2-rank points."""
        rt = "shmcomm_scaling"
        ranks = sorted({k[2] for k in self.med if k[0] == rt})
        if 2 not in ranks:
            return []
        a2 = self.get(rt, "allreduce_us", 2, 8)  # one-step at 2 ranks: one synchronisation
        big = 1 << 20
        t2 = self.get(rt, "allreduce_us", 2, big)
        bw2 = t2 - 2 * a2 if t2 and a2 else None  # stage at 2 ranks: 2 syncs + bytes

        def syncs_small(n):  # 8 bytes on the world: the one-step form (coll/wsync.c)
            return 1, "1step"

        def syncs_big(n):  # 1 MiB: stage, two rounds per chunk of its staging buffer
            buf = 1 << 20  # shm/arena.h: 1 MiB halved until 2n buffers fit 16 MiB, >= 32 KiB
            while buf > (32 << 10) and 2 * buf * n > (16 << 20):
                buf //= 2
            return 2 * -(-big // buf), "stage"

        # Ranks beyond the CPUs share them: the bytes of n ranks are copied by P cores.
        cpus = len(os.sched_getaffinity(0))
        rows = []
        for n in ranks:
            s_small, algo = syncs_small(n)
            m_small = self.get(rt, "allreduce_us", n, 8)
            p_small = s_small * a2
            s_big, algo_big = syncs_big(n)
            share = max(1.0, n / cpus)
            bw_n = (2 * (n - 1) / n) * bw2 * share if bw2 else None
            p_big = s_big * a2 + bw_n if bw2 else None
            m_big = self.get(rt, "allreduce_us", n, big)
            eff_small = m_small / s_small if m_small else None
            eff_big = (m_big - bw_n) / s_big if m_big and bw2 else None
            rows.append((n, algo, m_small, p_small, eff_small, algo_big, m_big, p_big, eff_big))
        return rows


def write_table(rep, out, mode, machine, raw):
    head, lines = rep.table()
    widths = [max(len(head[i]), *(len(l[i]) for l in lines)) for i in range(len(head))] \
        if lines else [len(h) for h in head]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for l in lines:
        print("  ".join(c.rjust(w) if i >= 3 else c.ljust(w)
                        for i, (c, w) in enumerate(zip(l, widths))))
    targets = rep.targets()
    print("\ntargets:")
    for what, value, limit, verdict in targets:
        rel = "<=" if "gloo" not in what and "bandwidth" not in what else ">="
        if "floor:" in what:
            rel = ">" if verdict == "BOUND" else "<="
        print(f"  {verdict:4}  {what}: {value} ({rel} {limit})")
    scal = rep.scaling()
    if scal:
        print("\nscaling, shmcomm all-reduce (us): ranks, 8 B measured/model, 1 MiB measured/model")
        for n, algo, ms, ps, es, ab, mb, pb, eb in scal:
            print(f"  {n:3}  {algo:5}  {num(ms):>8} {num(ps):>8}   {ab:6} {num(mb):>8} "
                  f"{num(pb):>8}")

    rounds = max(rep.count.values(), default=0)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(f"Mode `{mode}`, {rounds} rounds, on {machine}. Median over rounds of each "
                "round's median. Times in µs (start-up in ms), bandwidths in MB/s; ratios are "
                "shmcomm's figure over the other's (below 1 is better for times, above 1 for "
                "bandwidths). bound: the bare two-copy ping-pong for latency, single-thread "
                "memcpy for bandwidth, the bare pair barrier for the 2-rank barrier, the faster "
                "bare barrier (plain or CPU-aware yield) for the 4-rank barrier, the fastest "
                "bare form of the 4-rank all-reduce.\n\n")
        f.write("| " + " | ".join(head) + " |\n|" + "---|" * 3 + "---:|" * (len(head) - 3) + "\n")
        for l in lines:
            f.write("| " + " | ".join(l) + " |\n")
        f.write("\n**Targets**\n\n| target | measured | limit | verdict |\n|---|---:|---:|---|\n")
        for what, value, limit, verdict in targets:
            rel = ">=" if ("gloo" in what or "bandwidth" in what) else "<="
            f.write(f"| {what} | {value} | {rel} {limit} | {verdict} |\n")
        if scal:
            f.write("\n**Scaling**: shmcomm all-reduce, float32, µs per call, ranks unbound "
                    "on the CPUs. Model: docs/collectives.md with α = the 2-rank 8-byte "
                    "time and the bandwidth term from the 2-rank 1 MiB time, scaled by n/P "
                    "when n ranks share P CPUs; effective α = (measured − bandwidth term) / "
                    "synchronisations (1step: 1; stage: 2 per chunk of its staging buffer).\n\n"
                    "| ranks | 8 B algorithm | 8 B measured | 8 B model | effective α | "
                    "1 MiB algorithm | 1 MiB measured | 1 MiB model | effective α |\n"
                    "|---:|---|---:|---:|---:|---|---:|---:|---:|\n")
            for n, algo, ms, ps, es, ab, mb, pb, eb in scal:
                f.write(f"| {n} | {algo} | {num(ms)} | {num(ps)} | {num(es)} | {ab} | "
                        f"{num(mb)} | {num(pb)} | {num(eb)} |\n")
    with open(os.path.join(out, "summary.csv"), "w") as f:
        w = csv.writer(f)
        w.writerow(["metric", "ranks", "bytes"] + RUNTIMES + ["bound"])
        for metric, ranks, b, v, bd in rep.rows():
            w.writerow([metric, ranks, b] + [v[r] if v[r] is not None else "" for r in RUNTIMES]
                       + [bd if bd is not None else ""])
    return targets


def plot(rep, out):
    if not shutil.which("gnuplot"):
        print("report: gnuplot not installed; no plots", file=sys.stderr)
        return
    data = os.path.join(out, "plot-data")
    os.makedirs(data, exist_ok=True)
    script = ["set terminal pngcairo size 900,560 font ',10'", "set key left top",
              "set grid", "set logscale x 2", "set logscale y 10", "set format x '%.0b %BB'",
              "set termoption noenhanced"]

    def series(name, rt, metric, ranks):
        pts = sorted((k[3], v) for k, v in rep.med.items()
                     if k[0] == rt and k[1] == metric and k[2] == ranks and k[3] > 0)
        if not pts:
            return None
        path = os.path.join(data, f"{name}.dat")
        with open(path, "w") as f:
            f.writelines(f"{x} {y}\n" for x, y in pts)
        return path

    def chart(png, title, ylabel, lines):
        parts = []
        for label, path, style in lines:
            if path:
                parts.append(f"'{path}' using 1:2 with linespoints {style} title '{label}'")
        if not parts:
            return
        script.extend([f"set output '{os.path.join(out, png)}'", f"set title '{title}'",
                       "set xlabel 'message size'", f"set ylabel '{ylabel}'",
                       "plot " + ", ".join(parts)])

    peer_lines = lambda metric, ranks: [
        (rt, series(f"{rt}-{metric}-{ranks}", rt, metric, ranks), f"lw 2 pt {i + 5}")
        for i, rt in enumerate(RUNTIMES)]
    chart("latency.png", "Ping-pong latency, 2 ranks on 2 cores", "µs one way (log)",
          peer_lines("latency_us", 2) +
          [("bare two-copy", series("bare-pp", "bare", "shm_pingpong_us", 2), "dt 2 lc 'gray'")])
    script.append("set key right bottom")
    chart("bandwidth.png", "Streaming bandwidth, 2 ranks on 2 cores", "MB/s (log)",
          peer_lines("bw_MBps", 2)[:3] +
          [("memcpy, one thread", series("bare-memcpy", "bare", "memcpy_MBps", 2),
            "dt 2 lc 'gray'"),
           ("bare process_vm_readv", series("bare-cma", "bare", "cma_MBps", 2),
            "dt 3 lc 'black'")])
    script.append("set key left top")
    chart("allreduce-2.png", "float32 all-reduce, 2 ranks on 2 cores", "µs per call (log)",
          peer_lines("allreduce_us", 2))
    floor4 = None
    pts = [(b, rep.bound("allreduce_us", b, 4)) for b in rep.sizes("allreduce_us", 4)]
    pts = [(b, v) for b, v in pts if v is not None]
    if pts:
        floor4 = os.path.join(data, "bare-allreduce-4.dat")
        with open(floor4, "w") as f:
            f.writelines(f"{x} {y}\n" for x, y in pts)
    chart("allreduce-4.png", "float32 all-reduce, 4 ranks on 2 cores", "µs per call (log)",
          peer_lines("allreduce_us", 4) +
          [("fastest bare form", floor4, "dt 2 lc 'gray'")])
    scal = rep.scaling()
    if scal:
        path = os.path.join(data, "scaling.dat")
        with open(path, "w") as f:
            for r in scal:
                f.write(" ".join(str(r[i]) if r[i] is not None else "NaN"
                                 for i in (0, 2, 3, 6, 7)) + "\n")
        script.extend(["set logscale x 2", "set format x '%g'", "set key left top",
                       f"set output '{os.path.join(out, 'scaling.png')}'",
                       "set title 'shmcomm all-reduce by ranks (2 CPUs, oversubscribed from 4)'",
                       "set xlabel 'ranks'", "set ylabel 'µs per call (log)'",
                       f"plot '{path}' using 1:2 with linespoints lw 2 title '8 B measured', "
                       f"'{path}' using 1:3 with lines dt 2 title '8 B model (α from 2 ranks)', "
                       f"'{path}' using 1:4 with linespoints lw 2 title '1 MiB measured', "
                       f"'{path}' using 1:5 with lines dt 2 title '1 MiB model'"])
    gp = os.path.join(out, "plots.gp")
    with open(gp, "w") as f:
        f.write("\n".join(script) + "\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"report: gnuplot failed: {r.stderr[-500:]}", file=sys.stderr)


def main():
    args = sys.argv[1:]
    want = None
    if len(args) == 6 and args[4] == "--state" and args[5] in ("near", "far"):
        want = args[5]
        args = args[:4]
    if len(args) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    raw, out, mode, machine = args
    med, count, note = load(raw, want)
    if not med:
        print(f"report: no figures in {raw}", file=sys.stderr)
        return 1
    rep = Report(med, count)
    write_table(rep, out, mode, machine + "." + note.rstrip(".") if note else machine, raw)
    plot(rep, out)
    print(f"\nwritten: {out}/table.md, {out}/summary.csv, {out}/*.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
