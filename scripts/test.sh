#!/usr/bin/env bash
# Second command of the README (and what CI runs): install what the tests
# need, check formatting and lints, and run the whole test suite, including
# the integration tests that start the binaries under mpirun with 1, 2 and 4
# ranks; then test the second configuration, MPICH without any of the
# optional I/O libraries (scripts/test-mpich-minimal.sh), built beside the
# first one's tests. Both run beside a throwaway single-node Ceph on
# loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Oversubscribing 4 ranks on 2 cores: let ranks yield instead of spinning.
export OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Four tests at a time in each test binary, not one per core: most of a
# test's time is spent waiting (mpirun's start, the file system, the
# servers), so on an idle 2-core machine the suite without servers took
# 2 min 54 s instead of about 4 minutes at two; at eight, the tests' ranks
# crowded each other out (the ior tests took longer than at two).
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-4}
# At least eight compile jobs, not one per core: on a 2-core machine that
# other work loads, cargo's two jobs got a third of the CPU beside four busy
# loops of the same session (the cold build took 10 min 24 s); eight get
# two thirds. Idle, eight cost 12% more CPU-seconds than two. Machines with
# more cores keep cargo's default.
cores=$(nproc)
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-$((cores > 8 ? cores : 8))}
cargo fmt --all -- --check
# Clippy lints every target of the workspace while it is built for the
# tests, as `cargo clippy --workspace --all-targets -- -D warnings` would:
# clippy-driver compiles the workspace's crates (RUSTC_WORKSPACE_WRAPPER,
# how cargo-clippy itself runs it; CLIPPY_ARGS carries `-D warnings` in
# cargo-clippy's own encoding), so no second, check-only build of every
# dependency (158 CPU-seconds of an idle 2-core machine; the lints cost 24
# in a build of the workspace at opt-level 0). No incremental state either:
# a cold build writes it for nothing (the workspace's crates at opt-level
# 0: 103 against 139 CPU-seconds). Every
# cargo command below runs with the same three variables, or it would
# compile the workspace again.
command -v clippy-driver >/dev/null || { echo "test.sh: clippy-driver not found (rustup component add clippy)" >&2; exit 1; }
export RUSTC_WORKSPACE_WRAPPER
RUSTC_WORKSPACE_WRAPPER=$(command -v clippy-driver)
export CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
export CARGO_INCREMENTAL=0
# No function over 80 lines in any crate, but those marked as tables
# (`// long-function: table (why)` above the fn line). The check's own
# self-test first: whole files are read, only test modules are skipped.
python3 scripts/test-long-functions.py
python3 scripts/long-functions.py --check
# README.md's crate diagram is drawn from `cargo metadata`: it must match.
python3 scripts/crate-diagram.py --check
# Every repository path the README and docs/ name exists.
python3 scripts/check-doc-paths.py
# Every tests/*.rs file is compiled by a test target (merged crates list
# their files as modules of tests/integration.rs; docs/CONTRIBUTING.md).
python3 scripts/check-test-targets.py
# --all-targets, not --bins: the tests' dev-dependencies change the features
# some dependencies are built with, so a --bins build compiled them a second
# time with other features for nothing; this build is the one the tests use.
cargo build --workspace --all-targets
logs=$(mktemp -d)
# The MPICH stage's build runs beside the first stage's tests, which mostly
# wait (mpirun's start, the servers); its stage below waits for it, shows
# its output and then runs its tests. Its own target directory: no lock
# shared with the first stage's cargo.
(
  status=0
  bash scripts/test-mpich-minimal.sh --build-only >"$logs/mpich-build.log" 2>&1 || status=$?
  echo "$status" >"$logs/mpich-build.status"
) &
mpich_build=$!
# On the way out (an interruption included), that build's whole tree ends.
kill_tree() {
  local p
  for p in $(pgrep -P "$1"); do kill_tree "$p"; done
  kill "$1" 2>/dev/null || true
}
trap 'kill_tree "$mpich_build"; rm -rf "$logs"' EXIT
# A throwaway single-node Ceph (RADOS, its S3 gateway and a CephFS with
# its MDS) on loopback serves the object-store and CephFS backends' tests
# of both configurations below (scripts/test-object-servers.sh exports
# PARIO_TEST_RADOS_*, PARIO_TEST_S3_*, PARIO_TEST_CEPHFS_*).
# PostgreSQL and MariaDB run as throwaway servers on loopback for the
# store's tests; the same test functions run against SQLite, both servers.
# A throwaway two-node Slurm (scripts/test-slurm.sh: munged, slurmctld,
# two slurmd on loopback) runs the srun and sbatch tests of
# crates/cli/tests/slurm.rs (SLURM_CONF, PARIO_TEST_SLURM_*); another one
# runs the MPICH stage's srun test.
# A throwaway user-space NFS server (scripts/test-nfs-server.sh: nfs-ganesha,
# NFSv3 on loopback, with its own rpcbind when none runs) serves the LIBNFS
# tests of both (PARIO_TEST_NFS_*).
# Then the same code built against MPICH, without libaio, HDF5 or PnetCDF.
# Every test runs even after a failure (--no-fail-fast, and the MPICH stage
# after a failing first stage), so one CI run lists every failure; the
# exit status is still non-zero when anything failed.
# Each stage's output is also kept, and after a failure the end of the
# output repeats each failed test's section (its panic message and
# stderr), so that the tail of a long CI log says what failed.
export PARIO_CI_LOGS=$logs
status=0
bash scripts/test-object-servers.sh bash scripts/test-nfs-server.sh bash -c '
  status=0
  bash scripts/test-db-servers.sh bash scripts/test-slurm.sh \
    cargo test --workspace --no-fail-fast 2>&1 |
    tee "$PARIO_CI_LOGS/main.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  while [ ! -f "$PARIO_CI_LOGS/mpich-build.status" ]; do sleep 2; done
  cat "$PARIO_CI_LOGS/mpich-build.log"
  bash scripts/test-slurm.sh bash scripts/test-mpich-minimal.sh 2>&1 | tee "$PARIO_CI_LOGS/mpich.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  exit $status' || status=$?
if [ "$status" != 0 ]; then
  echo
  echo "=== test.sh: failed (status $status); the failures again ==="
  for stage in main mpich; do
    f=$logs/$stage.log
    [ -f "$f" ] || { echo "[$stage] no output (the stage did not start)"; continue; }
    grep -E '^test .* FAILED$|^error: |panicked at' "$f" | sed "s/^/[$stage] /" | head -40
    sed -n '/^failures:$/,/^test result:/p' "$f" | sed "s/^/[$stage] /" | head -150
  done
fi
exit "$status"
