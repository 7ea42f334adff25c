#!/usr/bin/python3
"""Measures every algorithm of every collective on this machine and writes dispatch rules
(lib/coll/dispatch.rules' format) for SHMC_TUNING_FILE: for each rank count asked for, on
the world and on a communicator split from it, the fastest algorithm at each size that
bench/coll_bench measures (sizes x4 apart, up to --max), as rules for exactly that rank
count and those sizes; the built-in rules follow for every other call. The file's
"# machine:" line is this machine's as shmrun --info gives it (the library ignores the
file elsewhere), and a "# measured:" line says when and with what.

    python3 bench/tune.py [--ranks 2,4] [--max 16M] [--samples 5] [--margin 0.1]
        [--out FILE] [--build build]

At each size the built-in rules' algorithm (as the library picks it: coll_bench --picks)
stays unless another was faster by more than --margin, so that a tuned table is not
slower than the built-in one where they differ only by noise.

Each call of coll_bench is a job of its own; run it on an otherwise idle machine (the
ranks share its CPUs when they outnumber them, which the rules record as the library
finds it: cpus shared or own).
"""
import argparse
import datetime
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, env):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"tune: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def size(text):
    """Bytes of "16M", "64k", "4096" (powers of 1024), as the library reads sizes."""
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(text[-1:].lower(), 1)
    try:
        return int(text[:-1] if mult > 1 else text) * mult
    except ValueError:
        sys.exit(f"tune: --max {text}: give bytes, with k, M or G")


def measure(build, n, split, max_bytes, samples, env):
    """{(coll, bytes): {algo: median_us}} of one coll_bench run."""
    cmd = [os.path.join(build, "bin", "shmrun"), "-n", str(n),
           os.path.join(build, "bench", "coll_bench"), "--coll", "all", "--algo", "each",
           "--csv", "--min", "4", "--max", str(size(max_bytes)), "--samples", str(samples)]
    if split:
        cmd.append("--split")
    got = {}
    for line in run(cmd, env).splitlines():
        # collective,algo,ranks,bytes,median_us,min_us,max_us
        w = line.split(",")
        if len(w) != 7 or w[0] == "collective":
            continue
        got.setdefault((w[0], int(w[3])), {})[w[1]] = float(w[4])
    if not got:
        sys.exit(f"tune: {' '.join(cmd)} measured nothing")
    return got


def picks(build, n, split, max_bytes, env):
    """{(coll, bytes): algorithm} the library's rules in effect choose (coll_bench --picks:
    the built-in ones, as the tuner runs without SHMC_TUNING_FILE), and "shared" or "own":
    whether the library finds the ranks sharing CPUs."""
    cmd = [os.path.join(build, "bin", "shmrun"), "-n", str(n),
           os.path.join(build, "bench", "coll_bench"), "--picks", "--min", "4", "--max",
           str(size(max_bytes))]
    if split:
        cmd.append("--split")
    got, cpus = {}, None
    for line in run(cmd, env).splitlines():
        w = line.split(",")
        if line.startswith("# cpus "):
            cpus = line.split()[2]  # (whether the library sees the ranks share CPUs)
        elif len(w) == 4 and w[0] != "collective":
            got[(w[0], int(w[3]))] = w[1]
    return got, cpus


def rules_for(got, picked, n, comm, cpus, margin):
    """The rules of one run: per collective, runs of sizes with the same chosen algorithm,
    each up to its largest size. At each size the built-in rules' algorithm stays unless
    another was faster by more than margin (a fraction): a tuned table is meant never to
    be slower than the built-in one, and one sample's noise should not move it."""
    out = {}
    for coll in sorted({c for c, _ in got}):
        sizes = sorted(b for c, b in got if c == coll)
        best = []
        for b in sizes:
            t = got[(coll, b)]
            fastest = min(t, key=t.get)
            keep = picked.get((coll, b))
            if keep in t and t[fastest] > t[keep] * (1 - margin):
                fastest = keep
            best.append((b, fastest))
        rows = []
        for i, (b, algo) in enumerate(best):
            if i + 1 < len(best) and best[i + 1][1] == algo:
                continue  # (the run goes on)
            # Up to the largest size measured, never beyond: the built-in rules take the
            # sizes not measured.
            rows.append(f"{coll:<16} {n:<6} {'<=' + str(b):<12} {comm:<6} {cpus:<6} {algo}")
        out[coll] = rows
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--max", default="16M")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--margin", type=float, default=0.1,
                    help="how much faster another algorithm must be than the built-in "
                         "rules' to replace it (a fraction; default 0.1)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHMC_ALGO_")}
    env.pop("SHMC_TUNING_FILE", None)
    info = run([os.path.join(args.build, "bin", "shmrun"), "--info"], env).splitlines()[0]
    machine = info.split("on this machine: ", 1)[1]
    with open(os.path.join(ROOT, "lib", "coll", "dispatch.rules")) as f:
        shipped = [l.split("#")[0].rstrip() for l in f if l.split("#")[0].strip()]
    tuned = {}
    for n in map(int, args.ranks.split(",")):
        for split, comm in ((False, "world"), (True, "other")):
            got = measure(args.build, n, split, args.max, args.samples, env)
            picked, state = picks(args.build, n, split, args.max, env)
            for coll, rows in rules_for(got, picked, n, comm, state, args.margin).items():
                tuned.setdefault(coll, []).extend(rows)
    lines = [f"# machine: {machine}",
             f"# measured: {datetime.datetime.now().isoformat(timespec='minutes')}, "
             f"bench/tune.py --ranks {args.ranks} --max {args.max} --samples {args.samples} "
             f"--margin {args.margin}",
             "# collective     ranks  bytes        comm   cpus   algorithm"]
    colls = []
    for l in shipped:
        if l.split()[0] not in colls:
            colls.append(l.split()[0])
    for coll in colls:
        lines.extend(tuned.get(coll, []))
        lines.extend(l for l in shipped if l.split()[0] == coll)  # (every other call)
        lines.append("")
    text = "\n".join(lines)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
