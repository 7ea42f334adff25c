#!/usr/bin/python3
"""Measures every algorithm of every collective on this machine and writes dispatch rules
(lib/coll/dispatch.rules' format) for SHMC_TUNING_FILE: for each rank count asked for, on
the world and on a communicator split from it, the fastest algorithm at each size that
bench/coll_bench measures (sizes x4 apart, up to --max), as rules for exactly that rank
count and those sizes, and for each state the machine was in while it measured (near or
far: how far apart its CPUs run, as the library finds it when a job starts, and as
coll_bench --by-state tells each sample by the round trip around it). Each state is
measured by jobs made to take the machine to be in it as they begin (SHMC_LINE_RTT_NS), and
only their samples that ran in it count; the built-in rules follow for every other call.
The file's "# machine:" line is this machine's and its "# built-in:" line the digest of
the library's built-in rules, as shmrun --info gives them (the machine: its CPUs' name,
family, model and count): the library ignores the file on another machine, or once its
built-in rules have changed. A "# measured:" line says when and with what, and what a
single copy cost against a plain one as the tuner began (shmrun --info): every job it runs
assumes that cost (SHMC_SINGLE_COPY_COST), so that all send large messages the same way.

    python3 bench/tune.py [--ranks 2,4] [--max 16M] [--samples 5] [--margin 0.1]
        [--out FILE | --install] [--build build]

--install writes the user's tuned rules, which the library reads when SHMC_TUNING_FILE is
not set (the path shmrun --info names). Where the file written to is already a tuning of
this machine beside the same built-in rules, its rules for a state this run made none for
are kept: on a machine that stays in one state for minutes at a time, run it once in each
(build/bench/line_rtt tells them apart) for rules for both; on one that changes state
every few seconds, one run measures both.

At each size the built-in rules' algorithm (as the library picks it: coll_bench --picks)
stays unless another was faster by more than --margin in each of two runs, so that a
tuned table is not slower than the built-in one where they differ only by noise; a size
needs at least half of its samples in a state to count in it (with more ranks than CPUs,
where the round trip between two ranks is the scheduler's, every sample counts in the state
its job began in), and a state that either run has too few samples of gets no rules for
that rank count (run again in it). Then every
collective is measured again as the library runs it, with the rules made and with the
built-in ones, alternated, in pairs of runs in the state the rules are for (each job made
to take the machine to be in it, SHMC_LINE_RTT_NS, as the library picks its rules by the
state it finds as a job begins; only the samples that ran in it count), until two pairs
have samples of it (six at most, or the state's rules are not kept): one that is slower
with the rules made at some size, by more than --margin in the geometric mean of the two
pairs, keeps the built-in rules (the fastest algorithm at the sizes measured may still
lose between them, or its lead may not come back, or the two runs' samples were too few to
see it lose). Asking for it to be slower in both pairs let a clear loser through;
asking for either dropped nearly every rule for one pair's noise (docs/collectives.md).

Each call of coll_bench is a job of its own; run it on an otherwise idle machine (the
ranks share its CPUs when they outnumber them, which the rules record as the library
finds it: cpus shared or own).
"""
import argparse
import datetime
import math
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


STATES = ("near", "far")


def measure(build, n, split, max_bytes, samples, env, algo="each"):
    """{state: {(coll, bytes): {algo: median_us}}} of one coll_bench run (of every
    algorithm, or with algo "auto" the rules' choice, keyed "auto"), each sample in the
    state of the machine it ran in (coll_bench --by-state; a state counts at a size only
    with at least half the samples), and the state the job found the machine in as it
    began ("near" or "far"), by which the library chose its rules."""
    cmd = [os.path.join(build, "bin", "shmrun"), "-n", str(n),
           os.path.join(build, "bench", "coll_bench"), "--coll", "all", "--algo", algo,
           "--csv", "--by-state", "--min", "4", "--max", str(size(max_bytes)),
           "--samples", str(samples)]
    if split:
        cmd.append("--split")
    got, began = {}, None
    for line in run(cmd, env).splitlines():
        # collective,algo,ranks,bytes,median_us,min_us,max_us,state,samples
        w = line.split(",")
        if line.startswith("# machine "):
            began = line.split()[2]
        if len(w) != 9 or w[0] == "collective" or 2 * int(w[8]) < samples:
            continue
        got.setdefault(w[7], {}).setdefault((w[0], int(w[3])), {})[
            "auto" if algo == "auto" else w[1]] = float(w[4])
    if not began:
        sys.exit(f"tune: {' '.join(cmd)} measured nothing")
    return got, began


def picks(build, n, split, max_bytes, env):
    """{state: {(coll, bytes): algorithm}} the library's rules in effect choose in each
    state of the machine (coll_bench --picks: the built-in ones, as the tuner runs without
    SHMC_TUNING_FILE), "shared" or "own": whether the library finds the ranks sharing CPUs,
    and the round trip the job measured as it began (ns)."""
    cmd = [os.path.join(build, "bin", "shmrun"), "-n", str(n),
           os.path.join(build, "bench", "coll_bench"), "--picks", "--min", "4", "--max",
           str(size(max_bytes))]
    if split:
        cmd.append("--split")
    got, cpus, rtt = {}, None, None
    for line in run(cmd, env).splitlines():
        w = line.split(",")
        if line.startswith("# cpus "):
            cpus = line.split()[2]  # (whether the library sees the ranks share CPUs)
        elif line.startswith("# machine "):
            rtt = int(line.split()[3])
        elif len(w) == 5 and w[0] != "collective":
            got.setdefault(w[4], {})[(w[0], int(w[3]))] = w[1]
    return got, cpus, rtt


def rules_for(runs, picked, n, comm, cpus, machine, margin):
    """The rules of two runs of the same measurement, in one state of the machine: per
    collective, runs of sizes with the same chosen algorithm, each up to its largest size.
    At each size the built-in rules' algorithm (picked) stays unless the first run's fastest
    was faster than it by more than margin (a fraction) in both runs: a tuned table is meant
    never to be slower than the built-in one, and the noise of sub-microsecond calls moves
    one run's order by more than any margin that would still let real gains through. A
    size that either run has no samples of in this state keeps the built-in pick too."""
    first, second = runs
    out = {}
    for coll in sorted({c for c, _ in first}):
        sizes = sorted(b for c, b in picked if c == coll)
        best = []
        for b in sizes:
            t, u = first.get((coll, b), {}), second.get((coll, b), {})
            keep = picked.get((coll, b))
            fastest = min(t, key=t.get) if t else keep
            if keep in t and (t[fastest] > t[keep] * (1 - margin) or
                              keep not in u or fastest not in u or
                              u[fastest] > u[keep] * (1 - margin)):
                fastest = keep
            elif keep not in t and (not u or min(u, key=u.get) != fastest):
                fastest = keep  # (not confirmed: the built-in pick stays)
            if fastest is None:
                continue
            best.append((b, fastest))
        rows = []
        for i, (b, algo) in enumerate(best):
            if i + 1 < len(best) and best[i + 1][1] == algo:
                continue  # (the run goes on)
            # Up to the largest size measured, never beyond: the built-in rules take the
            # sizes not measured.
            # (host memory: coll_bench measures host buffers)
            rows.append(f"{coll:<16} {n:<6} {'<=' + str(b):<12} {comm:<6} {cpus:<6} "
                        f"{machine:<7} host    {algo}")
        out[coll] = rows
    return out


def slower(build, n, split, max_bytes, samples, env, path, margin, state, rtt):
    """The collectives that, with the rules of the file at path, took longer at some size
    measured in state `state` than with the built-in rules, by more than margin in the
    geometric mean of two pairs of runs of both, alternated (of one, at a size that only one
    measured); None if two such pairs could not be had (six pairs at most). Each run takes
    the machine to be in that state as it begins (rtt: a round trip of it, as
    SHMC_LINE_RTT_NS), so that the library uses its rules for it, and only the samples that
    ran in it count."""
    ratios, pairs = {}, 0  # (coll, bytes) -> [time with the rules made / with the built-in]
    for _ in range(6):
        t = {}
        for f in (path, "builtin"):
            got, _ = measure(build, n, split, max_bytes, samples,
                             dict(env, SHMC_TUNING_FILE=f, SHMC_LINE_RTT_NS=str(rtt)), "auto")
            t[f] = got.get(state, {})
        both = set(t[path]) & set(t["builtin"])
        if not both:
            continue
        for k in both:
            ratios.setdefault(k, []).append(t[path][k]["auto"] / t["builtin"][k]["auto"])
        pairs += 1
        if pairs == 2:
            return {c for (c, b), r in ratios.items() if math.prod(r) > (1 + margin) ** len(r)}
    return None


SAID = set()  # (files whose earlier rules were dropped, said once)


def slow_copy(clause):
    """Whether a single-copy clause (shmrun --info's, as a file's "# measured:" line holds
    it) says large messages go through the mailboxes, single copy being slow."""
    return "through the mailboxes" in clause


def earlier(path, machine, builtin, made, shipped, single_copy):
    """{coll: [rule]} of the tuned rules in the file at path, if it is a tuning of this
    machine beside the same built-in rules, measured while large messages went the way
    they go now (single_copy: this run's clause), that this run made none in place of:
    those for a (collective, ranks, comm, state) it did not measure; {} otherwise."""
    try:
        with open(path) as f:
            text = f.read().splitlines()
    except OSError:
        return {}
    if f"# machine: {machine}" not in text or f"# built-in: {builtin}" not in text:
        return {}
    measured = next((l for l in text if l.startswith("# measured:")), "")
    if slow_copy(measured) != slow_copy(single_copy):
        if path not in SAID:
            SAID.add(path)
            sys.stderr.write(f"tune: {path} was tuned while large messages went the other way "
                             "(single copy): its rules for the states not measured now are "
                             "not kept\n")
        return {}
    kept = {}
    for l in text:
        w = l.split("#")[0].split()
        # (the built-in rules follow the tuned ones in the file; they are written anew)
        if len(w) == 8 and " ".join(w) not in shipped and (w[0], w[1], w[3], w[5]) not in made:
            kept.setdefault(w[0], []).append(l.split("#")[0].rstrip())
    return kept


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
    ap.add_argument("--install", action="store_true",
                    help="write the user's tuned rules (the file shmrun --info names)")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHMC_ALGO_")}
    env["SHMC_TUNING_FILE"] = "builtin"  # (beside the built-in rules, whatever the user's)
    info = run([os.path.join(args.build, "bin", "shmrun"), "--info"], env).splitlines()
    machine = info[0].split("on this machine: ", 1)[1]
    # (SHMC_FAR_NS as the library reads it: its setting's current value in the listing)
    at = info.index("SHMC_FAR_NS")
    far_ns = int(info[at + 1].split("default: ", 1)[1].split()[0])
    if os.environ.get("SHMC_FAR_NS", "").isdigit():
        far_ns = int(os.environ["SHMC_FAR_NS"])
    state_rtt = {"near": max(1, far_ns // 2), "far": 2 * far_ns}  # (as SHMC_LINE_RTT_NS)
    # Every job assumes the single copy's cost measured here (unless the user gives one or
    # the sizes outright): each job measures it as it begins, and one that read it on the
    # other side of SHMC_SINGLE_COPY_COST's threshold would send large messages the other
    # way (docs/design.md, "Message protocols"), timing algorithms no other run times.
    sc = next((line for line in info if line.startswith("a single copy of ")), "")
    sc_pct = sc.split(": ", 1)[1].split("%", 1)[0] if ": " in sc else ""
    if sc_pct.isdigit() and not any(k in env for k in ("SHMC_SINGLE_COPY_COST",
                                                       "SHMC_SINGLE_COPY_MIN")):
        env["SHMC_SINGLE_COPY_COST"] = sc_pct
    # (what --info says of it: its cost, and how large messages go, "... through the
    # mailboxes" where single copy is slow)
    single_copy = "a single copy " + (sc.split(": ", 1)[-1] or "not said")
    rules = next(line for line in info if line.startswith("built-in dispatch rules: "))
    builtin = rules.split("built-in dispatch rules: ", 1)[1].split(";")[0]
    if args.install:
        args.out = rules.split("the user's tuned rules: ", 1)[1].split(" (")[0]
        if not args.out.startswith("/"):
            sys.exit("tune: --install: neither XDG_CACHE_HOME nor HOME names a directory")
    with open(os.path.join(ROOT, "lib", "coll", "dispatch.rules")) as f:
        shipped = [l.split("#")[0].rstrip() for l in f if l.split("#")[0].strip()]
    tuned, rtts, done = {}, [], []
    for n in map(int, args.ranks.split(",")):
        for split, comm in ((False, "world"), (True, "other")):
            picked, cpus, rtt = picks(args.build, n, split, args.max, env)
            rtts.append(rtt)
            # Rules for each state of the machine (near or far) that both runs have samples
            # of: a file tuned in one state leaves calls in the other to the rules that
            # follow, or to those an earlier run made for it. Each run takes the machine to
            # be in the state measured as it begins, as a job that began in it would: an
            # algorithm's own choices follow that state (how the point-to-point layer sends,
            # say), and a sample of a job begun in the other state would time a call that
            # no job in this one makes.
            for state in STATES:
                senv = dict(env, SHMC_LINE_RTT_NS=str(state_rtt[state]))
                got = []
                for _ in range(2):
                    got.append(measure(args.build, n, split, args.max, args.samples,
                                       senv)[0].get(state, {}))
                    if not got[-1]:
                        break  # (the machine was not in it: no second run)
                if len(got) < 2 or not got[1]:
                    sys.stderr.write(f"tune: {n} ranks ({comm}) ran too little in the {state} "
                                     "state: no rules for it (run again then)\n")
                    continue
                for coll, rows in rules_for(got, picked[state], n, comm, cpus, state,
                                            args.margin).items():
                    tuned.setdefault(coll, []).extend(rows)
                done.append((n, split, comm, state))
    if not done:
        sys.exit("tune: nothing measured long enough in one state; nothing written (run again)")
    text = rules_text(args, tuned, shipped, machine, builtin, rtts, single_copy)
    if args.out == "-":
        sys.stdout.write(text)
        return
    write_checked(args, env, text)
    # Measured again with the file and with the built-in rules: a collective that is
    # slower with the file at some size (two runs' measurements can agree on a winner
    # that the rules' choice, made again, does not bear out) keeps the built-in rules, and
    # rules that could not be measured again in their state are not kept.
    for n, split, comm, state in done:
        slow = slower(args.build, n, split, args.max, args.samples, env, args.out + ".new",
                      args.margin, state, state_rtt[state])
        if slow is None:
            sys.stderr.write(f"tune: the rules for {n} ranks ({comm}) in the {state} state could "
                             "not be checked (the machine was seldom in that state): not kept\n")
        for coll in sorted(tuned if slow is None else slow):
            if slow is not None:
                sys.stderr.write(f"tune: {coll} on {n} ranks ({comm}) was slower in the {state} "
                                 "state with the rules made than with the built-in ones: the "
                                 "built-in rules serve it\n")
            tuned[coll] = [r for r in tuned.get(coll, [])
                           if (r.split()[1], r.split()[3], r.split()[5]) != (str(n), comm, state)]
    write_checked(args, env, rules_text(args, tuned, shipped, machine, builtin, rtts,
                                        single_copy))
    os.replace(args.out + ".new", args.out)  # (a job starting now reads one or the other)
    made = sorted({r.split()[5] for rows in tuned.values() for r in rows})
    if made:
        sys.stderr.write(f"tune: rules for a {' and '.join(made)} machine written to "
                         f"{args.out}\n")
    else:
        sys.stderr.write(f"tune: no rule made was faster than the built-in ones; {args.out} "
                         "written with the built-in rules (and those kept for the other "
                         "state)\n")


def rules_text(args, tuned, shipped, machine, builtin, rtts, single_copy):
    """The file's text: the rules made, those of an earlier run kept, the built-in ones."""
    made = {(w[0], w[1], w[3], w[5]) for rows in tuned.values() for w in map(str.split, rows)}
    kept = earlier(args.out, machine, builtin, made, {" ".join(l.split()) for l in shipped},
                   single_copy)
    lines = [f"# machine: {machine}",
             f"# built-in: {builtin}",
             f"# measured: {datetime.datetime.now().isoformat(timespec='minutes')}, "
             f"bench/tune.py --ranks {args.ranks} --max {args.max} --samples {args.samples} "
             f"--margin {args.margin}; line round trips {min(rtts)}-{max(rtts)} ns; "
             f"{single_copy}",
             "# collective     ranks  bytes        comm   cpus   machine memory  algorithm"]
    colls = []
    for l in shipped:
        if l.split()[0] not in colls:
            colls.append(l.split()[0])
    for coll in colls:
        lines.extend(tuned.get(coll, []))
        lines.extend(kept.get(coll, []))  # (after: where both have a state, this run's)
        lines.extend(l for l in shipped if l.split()[0] == coll)  # (every other call)
        lines.append("")
    return "\n".join(lines)


def write_checked(args, env, text):
    """text into args.out + ".new", once the library has read it: a fault (too many rules,
    say) must never stop every job of the user."""
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".new", "w") as f:
        f.write(text)
    check = dict(env, SHMC_TUNING_FILE=args.out + ".new")
    r = subprocess.run([os.path.join(args.build, "bin", "shmrun"), "-n", "1",
                        os.path.join(args.build, "bench", "coll_bench"), "--picks",
                        "--max", "4"], capture_output=True, text=True, env=check)
    if r.returncode != 0:
        sys.exit(f"tune: the library refuses the rules made (left in {args.out}.new, "
                 f"{args.out} unchanged):\n{r.stdout}{r.stderr}")


if __name__ == "__main__":
    main()
