#!/bin/sh
# Checks that what shmcomm builds and tests with is installed (Debian/Ubuntu names).
#   scripts/deps.sh            say what is missing and how to install it; exit 1 if any
#   scripts/deps.sh --install  install what is missing with apt-get (as root, or via sudo)
#   scripts/deps.sh --mpi      also Open MPI and MPICH (optional: tests and benchmarks use
#                              them when present)
#   scripts/deps.sh --bench    also what make bench-compare compares with and plots with:
#                              Open MPI, MPICH, torch (gloo) and gnuplot
#   scripts/deps.sh --fuzz     also clang and its libFuzzer runtime, for make fuzz
set -u
install=0
mpi=0
bench=0
fuzz=0
for a in "$@"; do
    case "$a" in
    --install) install=1 ;;
    --mpi) mpi=1 ;;
    --bench) mpi=1; bench=1 ;;
    --fuzz) fuzz=1 ;;
    *) echo "usage: scripts/deps.sh [--install] [--mpi] [--bench] [--fuzz]" >&2; exit 2 ;;
    esac
done

missing=""
command -v cc >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || missing="$missing build-essential"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
if command -v pkg-config >/dev/null 2>&1; then
    pkg-config --exists hwloc 2>/dev/null || missing="$missing libhwloc-dev"
    pkg-config --exists check 2>/dev/null || missing="$missing check"
else
    missing="$missing libhwloc-dev check"
fi
command -v unshare >/dev/null 2>&1 || missing="$missing util-linux"
if [ "$mpi" = 1 ]; then
    command -v mpirun.openmpi >/dev/null 2>&1 || missing="$missing openmpi-bin libopenmpi-dev"
    command -v mpirun.mpich >/dev/null 2>&1 || missing="$missing mpich libmpich-dev"
fi
if [ "$bench" = 1 ]; then
    command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
    /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null || missing="$missing python3-torch"
fi

if [ "$fuzz" = 1 ]; then
    command -v clang >/dev/null 2>&1 || missing="$missing clang"
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
        missing="$missing libclang-rt-dev"
fi

[ -z "$missing" ] && exit 0
cmd="apt-get install -y$missing"
if [ "$install" = 0 ]; then
    echo "shmcomm needs:$missing" >&2
    echo "install them with:  sudo apt-get update && sudo $cmd" >&2
    echo "(or run scripts/deps.sh --install, which does that)" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "shmcomm needs:$missing; run as root: apt-get update && $cmd" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q && $sudo $cmd
