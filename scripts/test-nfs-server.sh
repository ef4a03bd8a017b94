#!/usr/bin/env bash
# A throwaway user-space NFS server (nfs-ganesha, VFS back end) for the
# LIBNFS backend's tests.
#
#   scripts/test-nfs-server.sh                 start, run the LIBNFS tests, stop
#   scripts/test-nfs-server.sh CMD [ARGS...]   start, run CMD with the URL exported, stop
#   scripts/test-nfs-server.sh start           start; print `export ...` lines (for eval)
#   scripts/test-nfs-server.sh stop            stop the server started by `start`
#
# ganesha.nfsd runs in the foreground of its own process with a private
# configuration, log, pid file and recovery directory in a temporary
# directory, exporting a temporary directory over NFSv3 (TCP only, no NLM,
# no rquota) on 127.0.0.1 at two free ports (NFS and MOUNT); nothing under
# /etc, no systemd, no D-Bus (its complaints about a missing system bus are
# harmless). NFSv3, not v4: Debian 12's libnfs (4.0) cannot write more than
# about 1000 bytes per call over NFSv4 ("Failed to encode COMPOUND4args").
# ganesha refuses to start NFSv3 when it cannot register with a portmapper,
# so when no rpcbind answers on this machine the script starts one
# (`rpcbind -f`, port 111, its socket /run/rpcbind.sock) and stops it and
# removes its socket and state files on stop; a running rpcbind is used as
# it is. Clients never ask the portmapper: the URL names both ports. Up in
# a few seconds; removed on stop. Exported:
#   PARIO_TEST_NFS_URL=nfs://127.0.0.1/EXPORT?nfsport=PORT&mountport=PORT
#   PARIO_TEST_NFS_EXPORT_DIR=<the exported directory, to check files locally>
# Needs the Debian packages nfs-ganesha and nfs-ganesha-vfs (scripts/setup.sh
# --test; rpcbind comes with them) and root (the VFS back end opens files
# by handle).
set -euo pipefail

STATE_DIR="${PARIO_NFS_SERVER_DIR:-${TMPDIR:-/tmp}/pario-nfs-server.$(id -u)}"

die() { echo "test-nfs-server.sh: $*" >&2; exit 1; }

# shellcheck source=scripts/lib/ports.sh
source "$(dirname "$0")/lib/ports.sh"

plugins_dir() {
  local d
  for d in /usr/lib/x86_64-linux-gnu/ganesha /usr/lib/*/ganesha /usr/lib64/ganesha /usr/lib/ganesha; do
    [ -e "$d/libfsalvfs.so" ] && { echo "$d"; return; }
  done
  die "ganesha's VFS back end (libfsalvfs.so) not found; run scripts/setup.sh --test"
}

write_config() {
  local port=$1 mnt_port=$2
  cat >"$STATE_DIR/ganesha.conf" <<EOF
NFS_CORE_PARAM {
  NFS_Port = $port;
  MNT_Port = $mnt_port;
  Bind_addr = 127.0.0.1;
  Protocols = 3;
  Enable_NLM = false;
  Enable_RQUOTA = false;
  Enable_UDP = false;
  Plugins_Dir = $(plugins_dir);
}
NFSV4 {
  Graceless = true;
  RecoveryBackend = fs;
  RecoveryRoot = $STATE_DIR/recovery;
  Only_Numeric_Owners = true;
}
EXPORT {
  Export_Id = 1;
  Path = $STATE_DIR/export;
  Pseudo = /pario;
  Access_Type = RW;
  Squash = No_Root_Squash;
  SecType = sys;
  Protocols = 3;
  Transports = TCP;
  FSAL { Name = VFS; }
}
EOF
}

# Wait until the server accepts connections on 127.0.0.1:$1.
wait_listening() {
  local port=$1 pid=$2 i
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || return 1
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

RPCBIND_FILES=(/run/rpcbind.sock /run/rpcbind.lock /run/rpcbind/portmap.xdr /run/rpcbind/rpcbind.xdr)

rpcbind_answers() { timeout 5 rpcinfo -p 127.0.0.1 >/dev/null 2>&1; }

# A portmapper for ganesha to register with: the running one, else our own.
start_rpcbind() {
  rpcbind_answers && return 0
  command -v rpcbind >/dev/null 2>&1 || die "rpcbind not found; run scripts/setup.sh --test"
  rm -f "${RPCBIND_FILES[@]}"  # a stale socket of a dead rpcbind: nobody answers on it
  rpcbind -f >"$STATE_DIR/rpcbind.log" 2>&1 &
  echo $! >"$STATE_DIR/rpcbind.pid"
  local i
  for i in $(seq 1 50); do rpcbind_answers && return 0; sleep 0.2; done
  cat "$STATE_DIR/rpcbind.log" >&2
  die "rpcbind did not start"
}

stop_rpcbind() {
  [ -f "$STATE_DIR/rpcbind.pid" ] || return 0
  local pid i
  pid=$(cat "$STATE_DIR/rpcbind.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 25); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "${RPCBIND_FILES[@]}"
}

start_server() {
  [ -e "$STATE_DIR" ] && die "$STATE_DIR exists: server already running? (run '$0 stop' first)"
  command -v ganesha.nfsd >/dev/null 2>&1 || die "ganesha.nfsd not found; run scripts/setup.sh --test"
  [ "$(id -u)" = 0 ] || die "nfs-ganesha's VFS back end needs root"
  mkdir -p "$STATE_DIR/export" "$STATE_DIR/recovery"
  local port mnt_port pid
  port=$(free_port)
  mnt_port=$(free_port)
  write_config "$port" "$mnt_port"
  start_rpcbind
  ganesha.nfsd -F -f "$STATE_DIR/ganesha.conf" -L "$STATE_DIR/ganesha.log" \
    -p "$STATE_DIR/ganesha.pid" -N NIV_EVENT >"$STATE_DIR/stdout.log" 2>&1 &
  pid=$!
  echo "$pid" >"$STATE_DIR/server.pid"
  wait_listening "$port" "$pid" || {
    grep -v DBUS "$STATE_DIR/ganesha.log" | tail -n 8 >&2 || true
    tail -n 8 "$STATE_DIR/stdout.log" >&2 || true
    die "nfs-ganesha did not start (log above)"
  }
  PARIO_TEST_NFS_URL="nfs://127.0.0.1$STATE_DIR/export?nfsport=$port&mountport=$mnt_port"
  PARIO_TEST_NFS_EXPORT_DIR="$STATE_DIR/export"
  {
    echo "export PARIO_TEST_NFS_URL='$PARIO_TEST_NFS_URL'"
    echo "export PARIO_TEST_NFS_EXPORT_DIR='$PARIO_TEST_NFS_EXPORT_DIR'"
  } >"$STATE_DIR/env"
  export PARIO_TEST_NFS_URL PARIO_TEST_NFS_EXPORT_DIR
}

stop_server() {
  [ -d "$STATE_DIR" ] || return 0
  local pid i
  if [ -f "$STATE_DIR/server.pid" ]; then
    pid=$(cat "$STATE_DIR/server.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  stop_rpcbind
  rm -rf "$STATE_DIR"
}

case "${1:-}" in
  -h|--help) sed -n '2,28p' "$0" ;;
  start)
    start_server
    cat "$STATE_DIR/env"
    echo "test-nfs-server.sh: started (state in $STATE_DIR); stop with '$0 stop'" >&2
    ;;
  stop) stop_server ;;
  *)
    [ $# -gt 0 ] || set -- cargo test -p pario-backends --test integration libnfs_conformance::
    trap stop_server EXIT
    trap 'exit 130' INT TERM
    start_server
    echo "test-nfs-server.sh: NFS server at $PARIO_TEST_NFS_URL" >&2
    "$@"
    ;;
esac
