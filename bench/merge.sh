#!/bin/bash
# Merges two runs of bench/compare.sh into one table: the rounds of the second run are
# renumbered after the first run's, and bench/report.py takes the medians over all.
#
#   bench/merge.sh OUT RUN1 RUN2      (RUN1, RUN2: the OUT folders of the two runs)
set -eu -o pipefail
cd "$(dirname "$0")/.."
[ $# -eq 3 ] || { echo "usage: bench/merge.sh OUT RUN1 RUN2" >&2; exit 2; }
out=$1 a=$2/raw.csv b=$3/raw.csv
for f in "$a" "$b"; do [ -s "$f" ] || { echo "bench/merge.sh: $f is missing or empty" >&2; exit 1; }; done
mkdir -p "$out"
rounds=$(tail -n +2 "$a" | cut -d, -f1 | sort -n | tail -1)
{ cat "$a"; tail -n +2 "$b" | awk -F, -v OFS=, -v k="$rounds" '{ $1 = $1 + k; print }'; } >"$out/raw.csv"
machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, $(uname -sr)"
/usr/bin/python3 bench/report.py "$out/raw.csv" "$out" "full, two runs" "$machine"
