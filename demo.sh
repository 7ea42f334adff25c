#!/bin/sh
# Quick start: installs what is missing (apt-get, as root or via sudo), builds shmcomm,
# and runs a demo job of 4 ranks exchanging messages around a ring.
set -e
cd "$(dirname "$0")"
scripts/deps.sh --install
make -s
echo "\$ build/bin/shmrun -n 4 --tag-output build/examples/ring"
build/bin/shmrun -n 4 --tag-output build/examples/ring
echo "\$ build/bin/shmrun -n 2 build/examples/pingpong"
build/bin/shmrun -n 2 build/examples/pingpong
