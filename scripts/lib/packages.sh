# Sourced by scripts/setup.sh and scripts/build-mpich.sh: install the Debian
# packages that are missing, idempotently.
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
