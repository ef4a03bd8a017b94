#!/usr/bin/env bash
# Build pario against MPICH instead of the default Open MPI, and check it runs.
#
#   scripts/build-mpich.sh        install, build into $CARGO_TARGET_DIR
#                                 (default /tmp/pario-mpich-target), smoke test
#
# Why: pario's default MPI is Debian's Open MPI, but it must build and run
# with MPICH too. Both can be installed side by side; this script builds with
# MPICH without changing which MPI `mpicc`/`mpirun` mean on the machine.
#
# What it does, idempotently:
#  1. Installs mpich + libmpich-dev (and the C/libclang toolchain the build
#     needs) when missing, as root or through sudo, like scripts/setup.sh.
#  2. Keeps the Debian alternatives mpi (mpicc), mpirun (mpirun, mpiexec) and
#     mpi-<triplet> (headers, libmpi.so, mpi.pc) on Open MPI when Open MPI is
#     installed: MPICH registers them at a lower priority, but one that points
#     elsewhere is set back (and said so).
#  3. Builds the release binaries with MPICC=mpicc.mpich, the variable rsmpi's
#     build probe (crate build-probe-mpi) reads; MPI_PKG_CONFIG and
#     CRAY_MPICH_DIR are unset because the probe tries them first. The target
#     directory must hold MPICH builds only: mpi-sys does not probe again when
#     MPICC changes, so a directory used for Open MPI builds would keep
#     linking Open MPI (checked before building). PARIO_NO_HDF5=1 and
#     PARIO_NO_PNETCDF=1 leave those backends out unless set to 0: Debian's
#     parallel HDF5 and PnetCDF are built against Open MPI, and loading them
#     into an MPICH process aborts at the first MPI call ("Invalid
#     communicator").
#  4. Checks that ior and mdtest link libmpich and no Open MPI library, then
#     runs ior (POSIX file per process, MPI-IO collective shared file) and
#     mdtest with mpirun.mpich -np 2, and ior as a singleton, in a temporary
#     directory removed afterwards (run records go there too, not to the
#     user's results store). Exits non-zero with a message on any failure.
#
# Overrides: CARGO_TARGET_DIR, PARIO_MPICH_MPICC (default mpicc.mpich),
# PARIO_MPICH_MPIRUN (default mpirun.mpich), PARIO_NO_HDF5, PARIO_NO_PNETCDF.
set -euo pipefail

for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "build-mpich.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
die() { echo "build-mpich.sh: $*" >&2; exit 1; }

# 1. Packages.
pkgs=(mpich libmpich-dev build-essential pkg-config libclang-dev clang)
# shellcheck source=scripts/lib/packages.sh
source scripts/lib/packages.sh
ensure_packages build-mpich.sh "${pkgs[@]}"

# 2. The system-wide MPI stays Open MPI.
keep_open_mpi_default build-mpich.sh || die "could not keep Open MPI the default MPI"

# 3. Build.
mpicc=${PARIO_MPICH_MPICC:-mpicc.mpich}
mpirun=${PARIO_MPICH_MPIRUN:-mpirun.mpich}
command -v "$mpicc" >/dev/null 2>&1 || die "$mpicc not found (Debian package libmpich-dev)"
command -v "$mpirun" >/dev/null 2>&1 || die "$mpirun not found (Debian package mpich)"
command -v cargo >/dev/null 2>&1 ||
  die "cargo not found; install the stable Rust toolchain (rustup) first"
"$mpicc" -show | grep -qw -- -lmpich || die "$mpicc -show does not link libmpich: not MPICH's wrapper?"

target=${CARGO_TARGET_DIR:-/tmp/pario-mpich-target}
for out in "$target"/release/build/mpi-sys-*/output; do
  [ -f "$out" ] || continue
  if ! grep -q '^cargo:rustc-link-lib=mpich$' "$out"; then
    die "$target holds an mpi-sys build for another MPI ($(grep -m1 '^cargo:rustc-link-lib=mpi' "$out" || echo '?')).
  mpi-sys does not probe again when MPICC changes: point CARGO_TARGET_DIR at a
  directory used only for MPICH builds, or remove $target/release/build/mpi-sys-*."
  fi
done

unset MPI_PKG_CONFIG CRAY_MPICH_DIR
export CARGO_TARGET_DIR=$target MPICC=$mpicc
export PARIO_NO_HDF5=${PARIO_NO_HDF5:-1} PARIO_NO_PNETCDF=${PARIO_NO_PNETCDF:-1}
echo "build-mpich.sh: building into $target (MPICC=$MPICC PARIO_NO_HDF5=$PARIO_NO_HDF5 PARIO_NO_PNETCDF=$PARIO_NO_PNETCDF)"
start=$SECONDS
cargo build --workspace --bins --release || die "cargo build against MPICH failed"
echo "build-mpich.sh: built in $((SECONDS - start)) s"

# 4. Smoke test.
bin=$target/release
for b in ior mdtest; do
  [ -x "$bin/$b" ] || die "$bin/$b was not built"
  libs=$(ldd "$bin/$b") || die "ldd $bin/$b failed"
  grep -q 'libmpich\.so' <<<"$libs" || die "$bin/$b does not link libmpich:
$(grep -i mpi <<<"$libs")"
  if grep -qE 'libmpi\.so|libmpi_|libopen-(pal|rte)' <<<"$libs"; then
    die "$bin/$b links Open MPI as well as MPICH (mixed MPIs):
$(grep -iE 'mpi|open-' <<<"$libs")"
  fi
  echo "build-mpich.sh: $b links $(grep -o 'libmpich\.so[.0-9]*' <<<"$libs" | head -1), no Open MPI"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pario-mpich-smoke.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PARIO_RESULTS_DIR=$work/runs PARIO_DB=none
unset PARIO_TASKS_PER_NODE PARIO_FAULTS

n=0
# smoke NAME EXPECTED-TEXT COMMAND...: run, require exit 0 and EXPECTED-TEXT
# (a task count, which also catches ranks started as separate singletons).
smoke() {
  local name=$1 expect=$2 log
  shift 2
  n=$((n + 1))
  log=$work/smoke-$n.log
  if ! timeout 300 "$@" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "smoke test '$name' failed: $*"
  fi
  grep -qE "$expect" "$log" || { tail -n 30 "$log" >&2
    die "smoke test '$name': output lacks /$expect/: $*"; }
  echo "build-mpich.sh: ok  $name"
}

smoke "ior POSIX, file per process, 2 ranks" 'tasks +: 2$' \
  "$mpirun" -np 2 "$bin/ior" -w -r -W -R -F -t 64k -b 1m -o "$work/fpp"
smoke "ior MPIIO collective, shared file, -C, 2 ranks" 'tasks +: 2$' \
  "$mpirun" -np 2 "$bin/ior" -a MPIIO -c -C -w -r -W -R -t 64k -b 1m -o "$work/shared"
smoke "mdtest, 2 ranks" 'launched with 2 total task' \
  "$mpirun" -np 2 "$bin/mdtest" -n 10 -d "$work/md"
smoke "ior singleton (no mpirun)" 'tasks +: 1$' \
  "$bin/ior" -w -r -W -R -t 64k -b 1m -o "$work/single"

# Every run record names the MPI the process really ran on.
records=$(grep -h '"mpi_library"' "$work"/runs/*.json 2>/dev/null || true)
[ "$(grep -c . <<<"$records")" -eq "$n" ] ||
  die "expected $n run records in $work/runs, found: $records"
if grep -v '"mpi_library": *"MPICH' <<<"$records" >&2; then
  die "a run record names another MPI than MPICH (above)"
fi
echo "build-mpich.sh: all $n smoke tests passed on $(grep -m1 -o 'MPICH[^"]*' <<<"$records"); binaries in $bin"
