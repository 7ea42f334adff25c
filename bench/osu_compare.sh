#!/bin/bash
# The OSU Micro-Benchmarks' own tables for shmcomm, Open MPI and MPICH from one run:
# each program runs under the three runtimes one after the other, in an order that turns
# every round (A B C, B C A, C A B, ...), so that the drift of a shared machine hits all
# of them alike; bench/osu_report.py then takes each size's median over the rounds,
# writes the tables and draws the plot.
#
#   bench/osu_compare.sh SHMCOMM_OSU OPENMPI_OSU MPICH_OSU [OUT]
#
# Each *_OSU is the build directory of the OSU Micro-Benchmarks (7.x) configured with that
# runtime's compiler wrapper (CC=shmcc, mpicc.openmpi, mpicc.mpich; docs/performance.md,
# "OSU Micro-Benchmarks" has the commands): the programs are under c/mpi/ there. This
# script builds nothing. OUT (default build/osu-compare) gets raw/RUNTIME.PROG.N.ROUND.txt,
# the runtimes' own output, raw/line-RUNTIME.PROG.N.ROUND.txt and
# raw/after-RUNTIME.PROG.N.ROUND.txt (build/bench/line_rtt's cache-line round trip in ns,
# taken just before and just after each run, where `make bench` built it), and what
# osu_report.py makes from them.
#
# Environment: ROUNDS (default 3), NS (rank counts, default "2 4"), P2P2 / P2P4 / COLL
# (the programs; set empty for none; the one-sided ones, osu_put_latency and the rest, go
# in P2P2), OSU_ARGS (extra options for every program, e.g. "-m 1:65536"),
# OSU_ARGS_OVER (extra options above 2 ranks, default "-i 100 -x 10": oversubscribed, MPICH
# takes about a millisecond per message, and OSU's default 10000 iterations would take
# hours), TMO (seconds per run, default 300; a run past it keeps the sizes it printed).
# 2 ranks are bound to a core each; 4 ranks on 2 cores run unbound and oversubscribed.
set -u
if [ $# -lt 3 ]; then
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
DIRS=("$1" "$2" "$3")
NAMES=(shmcomm openmpi mpich)
OUT=${4:-build/osu-compare}
ROUNDS=${ROUNDS:-3}
NS=${NS:-2 4}
P2P2=${P2P2-osu_latency osu_bw osu_bibw}
P2P4=${P2P4-osu_multi_lat osu_mbw_mr}
COLL=${COLL-osu_allreduce osu_bcast osu_reduce osu_allgather osu_alltoall osu_gather osu_scatter osu_reduce_scatter osu_barrier}
TMO=${TMO:-300}
HERE=$(cd "$(dirname "$0")/.." && pwd)
SHMRUN=$HERE/build/bin/shmrun
for i in 0 1 2; do
    [ -d "${DIRS[$i]}/c/mpi" ] || { echo "osu_compare: ${DIRS[$i]}/c/mpi: no OSU build there" >&2; exit 2; }
done
[ -x "$SHMRUN" ] || { echo "osu_compare: $SHMRUN is missing: run make first" >&2; exit 2; }
mkdir -p "$OUT/raw"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

launcher() { # runtime index, ranks
    local bind=core
    [ "$2" -gt 2 ] && bind=none
    case $1 in
    0) echo "$SHMRUN -n $2 --bind-to $bind" ;;
    1) if [ $bind = none ]; then echo "mpirun.openmpi -np $2 --oversubscribe --bind-to none"
       else echo "mpirun.openmpi -np $2 --bind-to core"; fi ;;
    2) echo "mpirun.mpich -np $2 -bind-to $bind" ;;
    esac
}

path_of() { # OSU dir, program
    local p
    for p in pt2pt/standard collective/blocking collective/non_blocking pt2pt one-sided; do
        [ -x "$1/c/mpi/$p/$2" ] && { echo "$1/c/mpi/$p/$2"; return; }
    done
    echo "osu_compare: $2 not built in $1" >&2
}

for ((r = 1; r <= ROUNDS; r++)); do
    for n in $NS; do
        progs="$COLL"
        [ "$n" -eq 2 ] && progs="$P2P2 $progs"
        [ "$n" -gt 2 ] && progs="$P2P4 $progs"
        for prog in $progs; do
            for k in 0 1 2; do
                i=$(((k + r - 1) % 3))
                exe=$(path_of "${DIRS[$i]}" "$prog")
                [ -n "$exe" ] || continue
                f="$OUT/raw/${NAMES[$i]}.$prog.$n.$r.txt"
                # The machine's state just before the run: a cache line's round trip
                # between two CPUs (bench/line_rtt.c; several times the usual in a host's
                # slow spell, when osu_report.py leaves the run out).
                [ -x "$HERE/build/bench/line_rtt" ] &&
                    "$HERE/build/bench/line_rtt" > "$OUT/raw/line-${NAMES[$i]}.$prog.$n.$r.txt" 2>&1
                # shellcheck disable=SC2086
                args="${OSU_ARGS:-}"
                [ "$n" -gt 2 ] && args="$args ${OSU_ARGS_OVER--i 100 -x 10}"
                timeout "$TMO" $(launcher $i "$n") "$exe" $args > "$f" 2>&1
                rc=$?
                # ... and just after it: a run whose two readings are in one state ran in
                # it, as far as two readings tell (osu_report.py --state).
                [ -x "$HERE/build/bench/line_rtt" ] &&
                    "$HERE/build/bench/line_rtt" \
                        > "$OUT/raw/after-${NAMES[$i]}.$prog.$n.$r.txt" 2>&1
                [ $rc -eq 0 ] || echo "osu_compare: round $r: ${NAMES[$i]} $prog at $n ranks: exit $rc" >&2
                echo "round $r/$ROUNDS  $n ranks  $prog  ${NAMES[$i]}: exit $rc"
            done
        done
    done
done
python3 "$HERE/bench/osu_report.py" "$OUT"
