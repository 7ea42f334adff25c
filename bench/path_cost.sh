#!/usr/bin/env bash
# Instructions per 8-byte shmc_send and shmc_recv, exact, under valgrind's callgrind
# (bench/path_cost.c says what is counted); with COLL, per call of that collective on the
# world of 2 ranks, its nonblocking form (start, wait) and its blocking one, each made by
# the rank that comes last, and rank 0's start and wait, which comes first; with SPLIT=1
# in the environment, on a communicator split from the world (its calls are schedules);
# with ROOT=1, the rooted calls' root is the rank that comes last; with ALT=1, the calls
# alternate between two sizes (bench/path_cost.c); with STORES=1, each
# figure is followed by the stores the calls make (callgrind's cache simulation counts
# them): back to back, far, a call's stores set its pace (docs/performance.md).
#   bench/path_cost.sh [BUILD_DIR] [N] [COLL]     (build, 10000 by default; 1000 for COLL)
set -eu
B=$(cd "${1:-build}" && pwd)
COLL=${3:-}
N=${2:-$([ -n "$COLL" ] && echo 1000 || echo 10000)}
command -v valgrind >/dev/null || { echo "path_cost.sh: valgrind is needed" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
(cd "$T" && "$B/bin/shmrun" -n 2 --bind-to none sh -c \
    "valgrind --tool=callgrind ${STORES:+--cache-sim=yes} --callgrind-out-file=cg.\$SHMC_RANK $B/bench/path_cost $N $COLL" \
    >/dev/null 2>&1)
# The call line ("=> ...:shmc_send (10,000x)") holds the calls' whole inclusive cost,
# inlined header code included, wherever callgrind_annotate runs from.
per_call() {
    callgrind_annotate --inclusive=yes "$T/$1" | awk -v f=":$2 (" -v n="$N" -v st="${STORES:-}" \
        'index($0, "=> ") && index($0, f) {
            gsub(",", ""); gsub(/\([^)]*\)/, "")   # counts only: Ir, then Dr and Dw
            printf "%.1f", $1 / n
            if (st != "")
                printf " (%.1f stores)", $3 / n
            exit
        }'
}
if [ -n "$COLL" ]; then
    echo "shmc_i$COLL + shmc_wait, last rank: $(per_call cg.1 shmc_i$COLL) + $(per_call cg.1 shmc_wait)"
    echo "shmc_i$COLL + shmc_wait, first rank: $(per_call cg.0 shmc_i$COLL) + $(per_call cg.0 shmc_wait)"
    echo "shmc_$COLL, last rank: $(per_call cg.1 shmc_$COLL)"
    exit 0
fi
echo "shmc_send $(per_call cg.0 shmc_send) instructions per 8-byte message"
echo "shmc_recv $(per_call cg.1 shmc_recv) instructions per 8-byte message"
