#!/usr/bin/env bash
# Install the system packages pario needs on Debian 12, idempotently.
#
#   scripts/setup.sh            build + run requirements (Open MPI, compilers, libclang, a font)
#   scripts/setup.sh --test     also what the test suite needs (servers, browser)
#   scripts/setup.sh --report-check   also Chromium, for scripts/report-screenshots.sh
#
# Runs as root, or through sudo when it is available. Packages that are
# already installed are skipped, so a second run does nothing.
set -euo pipefail

want_test=0
want_report_check=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1 ;;
    --report-check) want_report_check=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

# Build and run: Open MPI (the default MPI), a C toolchain for -sys crates,
# libclang for the bindgen step of the mpi crate, and the I/O libraries the
# optional backends link against.
pkgs=(
  build-essential pkg-config
  openmpi-bin libopenmpi-dev
  libclang-dev clang
  libhdf5-openmpi-dev libpnetcdf-dev
  liburing-dev libaio-dev
  # Loaded at run time by -a PMDK and -a LIBNFS (issue 21), never linked.
  libpmem1 libnfs13
  # The font pario-report embeds for the text of its plots (build.rs).
  fonts-dejavu-core
)
if [ "$want_test" = 1 ]; then
  pkgs+=(python3 coreutils util-linux)
  # Database servers for pario-store's PostgreSQL and MySQL/MariaDB tests
  # (started as throwaway instances by scripts/test-db-servers.sh).
  pkgs+=(postgresql mariadb-server)
  # A real browser for the HTML report test (pario-cli, headless).
  pkgs+=(chromium)
  # --- ceph (issue 13): a single-node Ceph for the RADOS and S3 backends'
  # tests (scripts/test-object-servers.sh), librados for -a RADOS (loaded at
  # run time, not linked), curl for the gateway's credentials check.
  pkgs+=(ceph-mon ceph-mgr ceph-osd ceph-common radosgw librados-dev uuid-runtime curl)
  # The MDS of the test cluster's CephFS, and libcephfs for -a CEPHFS
  # (loaded at run time, not linked).
  pkgs+=(ceph-mds libcephfs2)
  # --- end ceph
  # --- slurm (issue 21): a throwaway single-machine Slurm for the srun and
  # sbatch tests (scripts/test-slurm.sh); the packages' services are never
  # started, the script runs its own daemons.
  pkgs+=(slurmctld slurmd slurm-client munge)
  # --- end slurm
  # --- nfs (issue 21): a user-space NFS server for the LIBNFS backend's
  # tests (scripts/test-nfs-server.sh runs its own, with an rpcbind of its
  # own when none runs; the services are never started).
  pkgs+=(nfs-ganesha nfs-ganesha-vfs rpcbind)
  # --- end nfs
  # The second configuration's MPI (scripts/test-mpich-minimal.sh), here so
  # that its build can run beside the first stage's tests with no apt-get
  # of its own; Open MPI stays the default (below).
  pkgs+=(mpich libmpich-dev)
fi
# --- report check (h/report): a headless browser to shoot the HTML report.
if [ "$want_report_check" = 1 ]; then
  pkgs+=(chromium)
fi

# shellcheck source=scripts/lib/packages.sh
source "$(dirname "$0")/lib/packages.sh"
ensure_packages setup.sh "${pkgs[@]}"
if [ "$want_test" = 1 ]; then
  keep_open_mpi_default setup.sh
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup.sh: cargo not found; install the stable Rust toolchain (rustup) first" >&2
  exit 1
fi
