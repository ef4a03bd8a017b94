# Sourced by the scripts in scripts/: install the Debian packages that are
# missing, idempotently, and keep Open MPI the system's default MPI when
# MPICH is installed beside it.
#
#   ensure_packages WHO PACKAGE...
#
# Packages already installed are skipped (nothing at all runs when none is
# missing). Installs as root, or through sudo when it is available; fails
# with a message naming the packages otherwise. WHO prefixes the messages.
ensure_packages() {
  local who=$1
  shift
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "$who: all system packages present"
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=sudo
    else
      echo "$who: need root or sudo to install: ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "$who: installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# keep_open_mpi_default WHO: the Debian alternatives mpi (mpicc), mpirun
# (mpirun, mpiexec) and mpi-<triplet> (headers, libmpi.so, mpi.pc) stay on
# Open MPI when it is installed. MPICH registers them at a lower priority,
# but one that points elsewhere is set back (and said so).
keep_open_mpi_default() {
  local who=$1 group want now sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  for group in $(update-alternatives --get-selections 2>/dev/null |
                 awk '$1 == "mpi" || $1 == "mpirun" || $1 ~ /^mpi-/ { print $1 }'); do
    want=$(update-alternatives --list "$group" 2>/dev/null | grep -m1 openmpi || true)
    now=$(update-alternatives --query "$group" | sed -n 's/^Value: //p')
    if [ -z "$want" ]; then
      echo "$who: alternative $group -> $now (no Open MPI choice: left alone)"
    elif [ "$now" = "$want" ]; then
      echo "$who: alternative $group -> $now (Open MPI)"
    else
      echo "$who: alternative $group points to $now, not Open MPI: setting it back to $want" >&2
      $sudo update-alternatives --set "$group" "$want" || {
        echo "$who: could not set alternative $group back to $want" >&2
        return 1
      }
    fi
  done
}
