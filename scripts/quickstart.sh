#!/usr/bin/env bash
# First command of the README: install what is missing, build, and run a real
# default benchmark: ior under mpirun with 2 ranks, write + read + verify,
# file per process, in a temporary directory that is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --bins
# Open MPI refuses to run as root unless told it is intended.
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pario-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT
mpirun --oversubscribe -np 2 target/release/ior \
  -w -r -W -R -C -e -F -t 1m -b 16m -s 4 -i 2 -o "$work/ior-test"
