#!/bin/bash
# shmcomm side by side with Open MPI, MPICH and torch.distributed (gloo): `make
# bench-compare` runs this.
#
#   bench/compare.sh [quick|full]      (default full; OUT=dir to write elsewhere)
#
# It installs what is missing (Debian packages, when run as root with apt-get), builds
# the one measurement source for each runtime (bench/measure.c with rt_shmcomm.c, and
# with rt_mpi.c through mpicc.openmpi and mpicc.mpich), and runs, in ROUNDS rounds, every
# runtime one after the other (A B C D A B C D, so that drift of this machine hits all
# alike):
#   2 ranks, one per core (bound): latency, bandwidth, bidirectional bandwidth, every
#            collective; gloo: latency, all-reduce, barrier
#   4 ranks, oversubscribed (unbound, every runtime alike): every collective; gloo:
#            all-reduce and barrier
#   the physical limits (bench/limits) and launcher start-up (bench/startup.py)
# then (full mode) shmcomm's all-reduce at 2 to 64 ranks (scaling). Before every command
# it records the cache line's round trip (build/bench/line_rtt), and bench/report.py
# keeps the rounds run in one state of the machine; it makes the table, the target
# checks, summary CSV and the plots from the raw rows. On a host whose state changes every
# few seconds no round stays in one: BY_SAMPLE=1 runs the 2-rank measurements with
# `measure --per-sample`, which records the round trip just before and after each sample,
# and `--machine`, the state a shmcomm job took its settings by as it began (a row
# shmcomm,job_near|job_far,2,0,RTT before its samples), and bench/report.py then counts
# those sample by sample, a shmcomm sample only in its job's state, in the state with more samples
# (`bench/report.py $OUT/raw.csv DIR MODE MACHINE --state far` tables the other; a
# runtime's run of a few seconds may fall wholly in one state, so give it more rounds
# there: ROUNDS=N, default 2):
#   $OUT/raw.csv  $OUT/summary.csv  $OUT/table.md  $OUT/*.png
# A runtime that cannot be installed or fails is left out of the table with a message.
set -u -o pipefail
cd "$(dirname "$0")/.."
MODE=${1:-full}
OUT=${OUT:-build/compare}
B=build/bench
case $MODE in
quick)
    ROUNDS=${ROUNDS:-2}
    P2P=(--tests latency,bw,bibw --sizes 8,4096,65536,4194304 --samples 5)
    COLL2=(--tests allreduce,barrier --sizes 4,4096,65536,1048576,16777216 --samples 5)
    COLL4=(--tests allreduce,barrier --sizes 4,4096,65536,1048576 --samples 5)
    GLOO_SIZES=(--sizes 4,8,4096,65536,1048576 --samples 5)
    SCALE_RANKS=(2 8)
    STARTS=10
    LIMITS=(--max 4194304 --samples 5)
    ;;
full)
    ROUNDS=${ROUNDS:-2}
    P2P=(--tests latency,relay,bw,bibw --min 1 --max 64M --samples 11)
    COLL2=(--tests coll --max 64M --samples 11)
    COLL4=(--tests coll --max 16M --samples 7)
    GLOO_SIZES=(--max 16M --samples 7)
    SCALE_RANKS=(2 4 8 16 32 64)
    STARTS=30
    LIMITS=(--max 64M --samples 11)
    ;;
*)
    echo "usage: bench/compare.sh [quick|full]" >&2
    exit 2
    ;;
esac
# limits takes plain byte counts
LIMITS=("${LIMITS[@]/64M/67108864}")

log() { echo "bench-compare: $*" >&2; }

# ---- what is needed: scripts/deps.sh installs it (as root, with apt-get) ----
mkdir -p "$OUT"
scripts/deps.sh --bench >/dev/null 2>&1 ||
    scripts/deps.sh --install --bench >"$OUT/apt.log" 2>&1 ||
    log "could not install everything (see $OUT/apt.log); going on with what there is"

targets=(all)
command -v mpicc.openmpi >/dev/null && targets+=("$B/measure-openmpi")
command -v mpicc.mpich >/dev/null && targets+=("$B/measure-mpich")
make -s "${targets[@]}" >&2 || { log "build failed"; exit 1; }

RAW=$OUT/raw.csv
echo "round,runtime,metric,ranks,bytes,value,before,after" >"$RAW"
SAMPLE=()
[ "${BY_SAMPLE:-0}" = 1 ] && SAMPLE=(--per-sample --machine)
: >"$OUT/errors.log"

# run ROUND NAME COMMAND...: appends the command's CSV rows, prefixed with the round,
# after a row with the cache line's round trip between the two CPUs just before it
# (runtime "machine"): bench/report.py keeps only rounds run in one state of the machine.
run() {
    local round=$1 name=$2
    shift 2
    echo "$round,machine,line_rtt_ns,2,0,$($B/line_rtt 5000 2>/dev/null || echo -1)" >>"$RAW"
    local t0=$SECONDS
    local as=${RENAME:-}
    if ! timeout 600 "$@" 2>>"$OUT/errors.log" |
        sed -e 's/^# machine \(near\|far\) \([0-9]*\)$/shmcomm,job_\1,2,0,\2/' -e "s/^/$round,/" \
            ${as:+-e "s/^$round,shmcomm,/$round,$as,/"} >>"$RAW"; then
        log "round $round: $name failed: $* (see $OUT/errors.log)"
    fi
    log "round $round: $name done ($((SECONDS - t0)) s)"
}

SHMRUN=build/bin/shmrun
export SHMC_TUNING_FILE=builtin # (the built-in rules, whatever the user tuned)
OMPI="mpirun.openmpi --allow-run-as-root"
MPICH=mpirun.mpich
have_ompi() { [ -x $B/measure-openmpi ] && command -v mpirun.openmpi >/dev/null; }
have_mpich() { [ -x $B/measure-mpich ] && command -v mpirun.mpich >/dev/null; }
have_gloo() { /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; }

start=$SECONDS
for r in $(seq 1 $ROUNDS); do
    # 2 ranks, one per core.
    run "$r" "shmcomm 2 ranks" $SHMRUN -n 2 --bind-to core $B/measure "${P2P[@]}" "${SAMPLE[@]}"
    run "$r" "shmcomm 2 ranks" $SHMRUN -n 2 --bind-to core $B/measure "${COLL2[@]}" "${SAMPLE[@]}"
    if have_ompi; then
        run "$r" "openmpi 2 ranks" $OMPI -np 2 --bind-to core $B/measure-openmpi "${P2P[@]}" \
            "${SAMPLE[@]}"
        run "$r" "openmpi 2 ranks" $OMPI -np 2 --bind-to core $B/measure-openmpi "${COLL2[@]}" \
            "${SAMPLE[@]}"
    fi
    if have_mpich; then
        run "$r" "mpich 2 ranks" $MPICH -np 2 -bind-to core $B/measure-mpich "${P2P[@]}" \
            "${SAMPLE[@]}"
        run "$r" "mpich 2 ranks" $MPICH -np 2 -bind-to core $B/measure-mpich "${COLL2[@]}" \
            "${SAMPLE[@]}"
    fi
    if have_gloo; then
        run "$r" "gloo 2 ranks" /usr/bin/python3 bench/gloo_bench.py --ranks 2 "${GLOO_SIZES[@]}"
    fi
    # 4 ranks on 2 cores, nobody bound.
    run "$r" "shmcomm 4 ranks" $SHMRUN -n 4 --bind-to none $B/measure "${COLL4[@]}"
    have_ompi && run "$r" "openmpi 4 ranks" $OMPI -np 4 --oversubscribe --bind-to none \
        $B/measure-openmpi "${COLL4[@]}"
    have_mpich && run "$r" "mpich 4 ranks" $MPICH -np 4 -bind-to none $B/measure-mpich "${COLL4[@]}"
    have_gloo && run "$r" "gloo 4 ranks" /usr/bin/python3 bench/gloo_bench.py --ranks 4 \
        --tests allreduce,barrier "${GLOO_SIZES[@]}"
    # The limits, and start-up.
    run "$r" "limits" $B/limits "${LIMITS[@]}"
    # shmrun against mpirun.mpich alternately; mpirun.openmpi (ten times slower to start,
    # and busy for a while after it exits) on its own, so it slows neither of them.
    starts=("shmcomm=$SHMRUN -n 2 /bin/true")
    have_mpich && starts+=("mpich=$MPICH -np 2 /bin/true")
    run "$r" "start-up" /usr/bin/python3 bench/startup.py --runs $STARTS "${starts[@]}"
    have_ompi && run "$r" "start-up" /usr/bin/python3 bench/startup.py --runs $STARTS \
        "openmpi=$OMPI -np 2 /bin/true"
    # Scaling: shmcomm's all-reduce of 8 bytes and 1 MiB by ranks.
    for n in "${SCALE_RANKS[@]}"; do
        RENAME=shmcomm_scaling run "$r" "shmcomm $n ranks (scaling)" $SHMRUN -n "$n" --bind-to none $B/measure \
            --tests allreduce --sizes 8,1M --samples 7
    done
done
log "measured in $((SECONDS - start)) s"

machine="$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, $(uname -sr)"
/usr/bin/python3 bench/report.py "$RAW" "$OUT" "$MODE" "$machine"
