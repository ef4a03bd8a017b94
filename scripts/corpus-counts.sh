#!/usr/bin/env bash
# Counts the project's bad-input corpus by how the binaries answer it:
# clear (refused with a message that meets the table's rules), unclear
# (refused or killed, breaking a rule: words missing, several lines, panic
# text, files touched), accepted (exit 0) and hang (killed at the time
# limit). The corpus is the front ends' bad-input tables (ior, mdtest,
# pario, mpi_io_test, md-workbench), run by pario_testkit::bad_input.
#
#   scripts/corpus-counts.sh            this build's binaries
#   scripts/corpus-counts.sh BIN_DIR    the binaries of an older build (its
#                                       target/debug), same tables
#
# Against an older build the tests fail (that is what is counted); the
# script prints the counts either way and exits 0 unless it could not run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp /tmp/pario-corpus.XXXXXX)
trap 'rm -f "$out"' EXIT
export PARIO_CORPUS_COUNTS=$out
if [ -n "${1:-}" ]; then
  [ -d "$1" ] || { echo "corpus-counts.sh: $1: not a directory" >&2; exit 2; }
  PARIO_CORPUS_BIN_DIR=$(cd "$1" && pwd)
  export PARIO_CORPUS_BIN_DIR
fi
run() { # package, test filter
  cargo test -q -p "$1" --test integration "$2" >/dev/null 2>&1 || true
}
run pario-ior bad_input::
run pario-mdtest bad_input::
run pario-cli bad_input::
run pario-mpi-io-test mpirun::bad_input
run pario-mpi-io-test mpirun::special_files_and_symbolic_links
run pario-md-workbench mpirun::bad_input
[ -s "$out" ] || { echo "corpus-counts.sh: no case ran" >&2; exit 1; }
echo "binaries: ${PARIO_CORPUS_BIN_DIR:-this build}"
awk -F'\t' '{ n[$1 FS $2]++; t[$1]++; c[$2]++; all++ }
  END {
    printf "%-14s %6s %6s %8s %5s %6s\n", "tool", "clear", "unclear", "accepted", "hang", "cases"
    for (k in t) printf "%-14s %6d %6d %8d %5d %6d\n", k, n[k FS "clear"], n[k FS "unclear"], n[k FS "accepted"], n[k FS "hang"], t[k]
    printf "%-14s %6d %6d %8d %5d %6d\n", "all", c["clear"], c["unclear"], c["accepted"], c["hang"], all
  }' "$out"
