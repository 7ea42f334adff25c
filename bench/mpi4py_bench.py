"""mpi4py's own benchmarks (python -m mpi4py.bench) on shmcomm under shmrun beside the
same mpi4py built against Open MPI under mpirun, alternated round by round in one run:
pingpong of buffers and of pickled objects at 2 ranks, ringtest at 2 and 4 ranks. Prints
the median time of each row over the rounds and the ratio shmcomm / Open MPI (below 1:
shmcomm is faster), with the CPU model and the cache-line round trip (build/bench/line_rtt)
measured before the runs.

    python3 bench/mpi4py_bench.py --shmc-python VENV1/bin/python \\
        --ompi-python VENV2/bin/python [--rounds 5] [--max-size 1048576]

The first Python's mpi4py must be built with build/bin/shmcc, the second with Open MPI's
mpicc (docs/mpi.md says how), both at mpi4py's own optimisation: a build at -O0 (as .ci/run
makes, to save minutes) spends about half a microsecond more a call in mpi4py's own code, so
the script refuses a pair of which one was built without inlining (nm finds Python's inline
reference-count functions as functions of their own in its extension module). Open MPI runs with --oversubscribe --allow-run-as-root when
asked for more ranks than cores, as its users must.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get("SHMC_BUILD", os.path.join(HERE, "..", "build"))


def cpu_model():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def line_rtt():
    exe = os.path.join(BUILD, "bench", "line_rtt")
    if not os.path.exists(exe):
        return "line_rtt not built"
    out = subprocess.run([exe], capture_output=True, text=True).stdout.strip()
    return f"cache-line round trip {out.splitlines()[-1]} ns" if out else "line_rtt failed"


def extension_module(python):
    """The path of python's mpi4py extension module (importing mpi4py.MPI would start MPI)."""
    code = ("import glob, os, mpi4py; "
            "print(glob.glob(os.path.join(os.path.dirname(mpi4py.__file__), 'MPI.*.so'))[0])")
    r = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{python} has no mpi4py extension module:\n{r.stderr}")
    return r.stdout.strip()


def unoptimised(python):
    """True where python's mpi4py was compiled without inlining; None where nm cannot tell."""
    try:
        r = subprocess.run(["nm", extension_module(python)], capture_output=True, text=True)
    except FileNotFoundError:
        return None
    if r.returncode != 0:
        return None
    return any(line.split()[-1] == "Py_INCREF" for line in r.stdout.splitlines()
               if line.strip())


def launch(kind, python, n, args):
    if kind == "shmc":
        cmd = [os.path.join(BUILD, "bin", "shmrun"), "-n", str(n), "--timeout", "300"]
    else:
        cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-n", str(n)]
    cmd += [python, "-m", "mpi4py.bench"] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{kind}: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    return r.stdout


def pingpong_rows(out):
    """{size: mean seconds} from a pingpong table."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+[\d.]+\s+\|\s+([\d.e+-]+)", line)
        if m:
            rows[int(m.group(1))] = float(m.group(2))
    return rows


def ring_time(out):
    m = re.search(r"time for (\d+) loops = ([\d.e+-]+) seconds", out)
    return float(m.group(2)) / int(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shmc-python", required=True)
    ap.add_argument("--ompi-python", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-size", type=int, default=1 << 20)
    o = ap.parse_args()
    for python in (o.shmc_python, o.ompi_python):
        if unoptimised(python):
            sys.exit(f"{python}: its mpi4py was built without optimisation (CFLAGS=-O0?), which "
                     "would measure the compiler's flags, not the MPI: rebuild it without "
                     "CFLAGS (pip install --force-reinstall --no-deps --no-build-isolation "
                     "--no-binary mpi4py mpi4py, MPICC set as docs/mpi.md says)")
    cases = [
        ("pingpong buffers", 2, ["pingpong", "-n", str(o.max_size)]),
        ("pingpong pickle", 2, ["pingpong", "-p", "-n", str(o.max_size)]),
        ("ringtest", 2, ["ringtest", "-n", "8", "-l", "2000"]),
        ("ringtest", 4, ["ringtest", "-n", "8", "-l", "2000"]),
        ("ringtest 1 MiB", 4, ["ringtest", "-n", str(1 << 20), "-l", "100"]),
    ]
    print(f"# {cpu_model()}; {os.cpu_count()} CPUs; {line_rtt()}")
    print(f"# {o.rounds} rounds, shmcomm and Open MPI alternated; median time per row")
    results = {}
    for rnd in range(o.rounds):
        for name, n, args in cases:
            for kind, py in (("shmc", o.shmc_python), ("ompi", o.ompi_python)):
                out = launch(kind, py, n, args)
                if args[0] == "pingpong":
                    for size, t in pingpong_rows(out).items():
                        results.setdefault((name, n, size), {}).setdefault(kind, []).append(t)
                else:
                    results.setdefault((name, n, None), {}).setdefault(kind, []).append(
                        ring_time(out))
    print(f"# after the runs: {line_rtt()}")
    print(f"{'benchmark':18} {'ranks':>5} {'bytes':>8} {'shmcomm us':>11} {'Open MPI us':>12} "
          f"{'ratio':>6}")
    for (name, n, size), t in results.items():
        s, m = statistics.median(t["shmc"]) * 1e6, statistics.median(t["ompi"]) * 1e6
        size_s = str(size) if size is not None else "-"
        print(f"{name:18} {n:5d} {size_s:>8} {s:11.2f} {m:12.2f} {s / m:6.2f}")


if __name__ == "__main__":
    main()
