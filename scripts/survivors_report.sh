#!/bin/sh
# Summarises the survivor log of tests/robustness/check_survivors (SHMC_SURVIVOR_LOG, one
# line per case: index, collective, algorithm, ranks, bytes, the death visible after the
# kill in ms, the last survivor's return after the death was visible in ms): the
# figures docs/reliability.md quotes. Measured, not asserted.
#   scripts/survivors_report.sh LOG
log=${1:?usage: scripts/survivors_report.sh LOG}
[ -s "$log" ] || { echo "survivors_report: $log is empty or missing" >&2; exit 1; }
sort -g -k7 "$log" | awk '
    { w[NR] = $7; if ($6 > vmax) vmax = $6; if ($7 > 100) over++ }
    END {
        p90 = int(NR * 0.9); if (p90 < 1) p90 = 1
        printf "survivors: %d jobs; the last survivor returned, after the death became visible:\n", NR
        printf "  median %.2f ms, 90th percentile %.2f ms, largest %.2f ms; %d over 100 ms\n",
               w[int((NR + 1) / 2)], w[p90], w[NR], over + 0
        printf "  (the death became visible up to %.1f ms after the kill)\n", vmax
    }'
