#!/usr/bin/env bash
# Instructions per 8-byte shmc_send and shmc_recv, exact, under valgrind's callgrind
# (bench/path_cost.c says what is counted).
#   bench/path_cost.sh [BUILD_DIR] [N]     (build, 10000 by default)
set -eu
B=$(cd "${1:-build}" && pwd)
N=${2:-10000}
command -v valgrind >/dev/null || { echo "path_cost.sh: valgrind is needed" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
(cd "$T" && "$B/bin/shmrun" -n 2 --bind-to none sh -c \
    "valgrind --tool=callgrind --callgrind-out-file=cg.\$SHMC_RANK $B/bench/path_cost $N" \
    >/dev/null 2>&1)
# The call line ("=> ...:shmc_send (10,000x)") holds the calls' whole inclusive cost,
# inlined header code included, wherever callgrind_annotate runs from.
per_call() {
    callgrind_annotate --inclusive=yes "$T/$1" | awk -v f=":$2 (" -v n="$N" \
        'index($0, "=> ") && index($0, f) { gsub(",", "", $1); printf "%.1f", $1 / n; exit }'
}
echo "shmc_send $(per_call cg.0 shmc_send) instructions per 8-byte message"
echo "shmc_recv $(per_call cg.1 shmc_recv) instructions per 8-byte message"
