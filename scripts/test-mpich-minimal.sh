#!/usr/bin/env bash
# The second configuration CI tests: pario built against MPICH instead of
# Open MPI, and with none of the optional I/O libraries (libaio, parallel
# HDF5, PnetCDF; io_uring needs no library, only a kernel that allows it).
#
#   scripts/test-mpich-minimal.sh        install MPICH if missing, build, test
#   scripts/test-mpich-minimal.sh --build-only
#                                        the same up to the build and its
#                                        link checks (scripts/test.sh runs
#                                        it beside the first stage's tests)
#
# One build covers both, because Debian's parallel HDF5 and PnetCDF are built
# against Open MPI and cannot be loaded into an MPICH process anyway. The
# build script is told the libraries are absent (PARIO_NO_AIO, PARIO_NO_HDF5,
# PARIO_NO_PNETCDF), which is what it concludes on a machine that lacks them,
# so this is the build such a machine gets. The target directory is
# target/mpich-minimal: mpi-sys does not probe again when MPICC changes, so
# MPICH builds need a directory of their own.
#
# Tested here: the unit tests of the crates with optional parts (backends,
# engine), and the integration tests of backends, engine, comm, ior and
# mdtest; the latter start the binaries under MPICH's launcher
# (PARIO_MPIRUN=mpirun.mpich, read by pario-testkit). Not the doctests and
# examples (--lib --test '*'): they use no MPI and no optional library, so
# they would repeat the Open MPI stage, at one compile and link each. The
# unit tests of comm, ior and mdtest repeat it too (no MPI, no optional
# library), but they stay: one cargo invocation cannot leave out one
# package's unit tests, and a second invocation for them would resolve
# features differently (serde, regex: without ior's dev-dependencies) and
# compile every dependency a second time.
# Under a Slurm or CI, `srun --mpi=pmi2` of this build's ior as well.
# PARIO_LEFT_OUT tells the backend-matrix test which backends this build
# leaves out on purpose, so that only those may be missing.
set -euo pipefail
cd "$(dirname "$0")/.."

build_only=0
for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    --build-only) build_only=1 ;;
    *) echo "test-mpich-minimal.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

# shellcheck source=scripts/lib/packages.sh
source scripts/lib/packages.sh
ensure_packages test-mpich-minimal.sh mpich libmpich-dev
keep_open_mpi_default test-mpich-minimal.sh

# The Open MPI build's target directory (the srun test below runs from it).
main_target=${CARGO_TARGET_DIR:-$PWD/target}
unset MPI_PKG_CONFIG CRAY_MPICH_DIR
export MPICC=mpicc.mpich
export CARGO_TARGET_DIR=${PARIO_MPICH_TARGET_DIR:-$PWD/target/mpich-minimal}
export PARIO_NO_AIO=1 PARIO_NO_HDF5=1 PARIO_NO_PNETCDF=1
export PARIO_LEFT_OUT=AIO,HDF5,NCMPI
export PARIO_MPIRUN=mpirun.mpich
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
command -v mpirun.mpich >/dev/null || { echo "test-mpich-minimal.sh: mpirun.mpich not found" >&2; exit 1; }

# Third-party crates that do not use MPI compile the same for both targets:
# a first MPICH build copies them from the Open MPI target instead of
# compiling every dependency a second time (3 min 35 s of an idle 2-core
# machine before). Cargo still decides from their fingerprints whether they
# are fresh, so one built with other features here is compiled as before.
# Left out: pario's own crates, and rsmpi's (mpi, mpi-sys, mpi-derive,
# build-probe-mpi), which must be built against MPICH and would not notice
# the change of MPICC. Copies, not hard links: a build here must never
# write into the Open MPI target.
seed_from_main() {
  local src=$main_target/debug dst=$CARGO_TARGET_DIR/debug e name
  [ -d "$src/.fingerprint" ] && [ ! -e "$dst/.fingerprint" ] || return 0
  mkdir -p "$dst/deps" "$dst/build" "$dst/.fingerprint"
  for e in "$src"/.fingerprint/* "$src"/build/* "$src"/deps/lib*; do
    name=$(basename "$e")
    case "$name" in
      pario[-_]* | libpario_* | mpi[-_]* | libmpi[-_]* | *build[-_]probe[-_]mpi*) continue ;;
    esac
    cp -a "$e" "$dst/${e#"$src"/}"
  done
  echo "test-mpich-minimal.sh: third-party artifacts copied from $src"
}

echo "test-mpich-minimal.sh: MPICH, no libaio/HDF5/PnetCDF, target $CARGO_TARGET_DIR"
seed_from_main
crates=(-p pario-backends -p pario-engine -p pario-comm -p pario-ior -p pario-mdtest)
# Builds the tests and the ior/mdtest binaries they start, nothing more.
cargo test "${crates[@]}" --lib --test '*' --no-run
# The binaries must link MPICH and nothing of Open MPI, and none of the
# optional libraries.
for b in ior mdtest; do
  libs=$(ldd "$CARGO_TARGET_DIR/debug/$b")
  grep -q 'libmpich\.so' <<<"$libs" || { echo "test-mpich-minimal.sh: $b does not link MPICH" >&2; exit 1; }
  if grep -qE 'libmpi\.so|libopen-(pal|rte)|libaio|libhdf5|libpnetcdf' <<<"$libs"; then
    echo "test-mpich-minimal.sh: $b links a library this build leaves out:" >&2
    grep -E 'libmpi\.so|libopen-|libaio|libhdf5|libpnetcdf' <<<"$libs" >&2
    exit 1
  fi
done
[ "$build_only" = 0 ] || exit 0
status=0
cargo test "${crates[@]}" --lib --test '*' --no-fail-fast || status=$?
# Under a Slurm (scripts/test-slurm.sh, as scripts/test.sh runs this) and
# under CI: `srun --mpi=pmi2` of this build's ior on two nodes
# (crates/cli/tests/slurm.rs, srun_of_the_mpich_build_launches_with_pmi2).
# The test harness is the Open MPI build's, started without this build's
# variables so that its target directory is not rebuilt for MPICH, and
# with --workspace as scripts/test.sh built it: `-p pario-cli` alone
# resolves features differently and compiled serde, hyper, reqwest and
# more again (4 min 25 s of a fresh clone's run under load); each other
# crate's integration binary runs no test of that name.
if [ -n "${PARIO_TEST_SLURM_CONF:-}" ] || [ "${CI:-}" = true ]; then
  env -u MPICC -u PARIO_NO_AIO -u PARIO_NO_HDF5 -u PARIO_NO_PNETCDF -u PARIO_LEFT_OUT -u PARIO_MPIRUN \
    CARGO_TARGET_DIR="$main_target" PARIO_TEST_MPICH_BIN_DIR="$CARGO_TARGET_DIR/debug" \
    cargo test --workspace --test integration slurm::srun_of_the_mpich_build || status=$?
fi
exit "$status"
