#!/usr/bin/env bash
# Everything docs/performance.md records from a GPU, in one run on a machine with one:
# the build with CUDA, the CUDA suites (make check-cuda) and the device example, then
# without and with the CUDA MPS daemon the device point-to-point and all-reduce
# (dev_bench) and the torch backend on CUDA tensors beside NCCL and gloo
# (torch_cuda_bench.py). Each step has a time limit and the next runs whatever the last
# gave, so one run answers as much as it can.
#
#   bench/gpu_report.sh OUTDIR     (OUTDIR/gpu.log, OUTDIR/torch_cuda-{nomps,mps}.csv)
#
# Needs what make check needs (hwloc, Check, pkg-config), the CUDA Toolkit, and torch
# with CUDA and pytest for the torch steps. On a machine without Check and without a
# network, unpack Debian's check and libsubunit-dev packages (dpkg -x) into a folder
# that travels with the tree and set PKG_CONFIG_PATH to a check.pc naming their static
# libraries (libcheck_pic.a libsubunit.a -lrt -lm -pthread): the build takes Check's
# flags from pkg-config only.
set -u
out=${1:?usage: bench/gpu_report.sh OUTDIR}
mkdir -p "$out"
cd "$(dirname "$0")/.."
B=build
log=$out/gpu.log
exec > >(tee -a "$log") 2>&1

step() {
    local name=$1 limit=$2 t0=$SECONDS rc
    shift 2
    echo "== $name ($limit s at most): $*"
    timeout -k 5 "$limit" "$@"
    rc=$?
    echo "== $name: exit $rc after $((SECONDS - t0)) s"
}

mps() {
    if [ "$1" = on ]; then
        nvidia-cuda-mps-control -d && echo "== MPS daemon started"
    else
        echo quit | nvidia-cuda-mps-control && echo "== MPS daemon stopped"
    fi
}

echo "== machine: $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
grep -m1 "model name" /proc/cpuinfo
nproc
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
"nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
git log -1 --format='== commit %h %s' 2>/dev/null

step build 240 make -j"$(nproc)" CUDA=1 all torch
step line_rtt 30 $B/bench/line_rtt
step check-cuda 200 make CUDA=1 check-cuda
for n in 2 4 8; do
    step device_ring-$n 30 $B/bin/shmrun -n $n $B/examples/cuda/device_ring
done
# NCCL refuses two ranks on one GPU: on a one-GPU machine it runs at 1 rank only.
for m in nomps mps; do
    [ $m = mps ] && mps on
    step p2p-2-$m 90 $B/bin/shmrun -n 2 $B/bench/dev_bench --mode p2p
    step allreduce-4-$m 60 $B/bin/shmrun -n 4 $B/bench/dev_bench --mode allreduce
    step allreduce-8-$m 60 $B/bin/shmrun -n 8 $B/bench/dev_bench --mode allreduce
    step torch-cuda-$m 150 python3 bench/torch_cuda_bench.py --ranks 1,2,4 --timeout 40 \
        --out "$out/torch_cuda-$m.csv"
done
mps off
echo "== done"
