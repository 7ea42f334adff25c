#!/usr/bin/python3
"""Start-to-exit time of a launcher running `/bin/true` on 2 ranks, for bench-compare.

    bench/startup.py [--runs N] NAME=COMMAND ...

Runs the commands one after the other, N times round (A B A B ...), timing each from
just before it is started to just after it exits (time.perf_counter around
subprocess.run), and prints each one's median as a CSV row: NAME,start_ms,2,0,value.
A command that fails is reported on stderr and gets no row.
"""
import shlex
import statistics
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    runs = 30
    if len(args) >= 2 and args[0] == "--runs":
        runs, args = int(args[1]), args[2:]
    cmds = [a.split("=", 1) for a in args]
    if not cmds or any(len(c) != 2 for c in cmds) or runs < 1:
        print(__doc__, file=sys.stderr)
        return 2
    times = {name: [] for name, _ in cmds}
    failed = set()
    for _ in range(runs):
        for name, cmd in cmds:
            if name in failed:
                continue
            t0 = time.perf_counter()
            r = subprocess.run(shlex.split(cmd), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            t = time.perf_counter() - t0
            if r.returncode != 0:
                print(f"startup: {cmd} exited {r.returncode}: {r.stderr.decode()[-300:]}",
                      file=sys.stderr)
                failed.add(name)
            times[name].append(t)
    for name, _ in cmds:
        if name not in failed:
            print(f"{name},start_ms,2,0,{statistics.median(times[name]) * 1e3:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
