#!/bin/sh
# The memory of a job at each rank count (bench/footprint.c): the shared memory the
# machine gives it and each rank's own, after start-up and after a 1 MiB all-reduce.
#   bench/footprint.sh [BUILD] [RANKS...]     (default: build, 2 4 8 16 32 64 128 256)
# Run it on a quiet machine: other programs' shared memory moves the Shmem figures.
build=${1:-build}
[ $# -gt 0 ] && shift
ranks=${*:-2 4 8 16 32 64 128 256}
echo "| ranks | arena, MiB | shared memory after start, MiB | after a 1 MiB all-reduce, MiB | per rank's own memory, MiB |"
echo "|---:|---:|---:|---:|---:|"
for n in $ranks; do
    before=$(awk '/^Shmem:/ {print $2}' /proc/meminfo)
    SHMEM_BEFORE_KB=$before "$build/bin/shmrun" -n "$n" "$build/bench/footprint" |
        awk '{ printf "| %d | %.2f | %.2f | %.2f | %.2f |\n", $2, $4 / 1048576, $6 / 1024, $10 / 1024, $12 / 1024 }'
done
