#!/usr/bin/env bash
# A throwaway single-node Ceph cluster (RADOS, the RADOS gateway's S3 and a
# CephFS file system) for the tests of pario's S3, RADOS and CEPHFS backends.
#
#   scripts/test-object-servers.sh                 start, run `cargo test -p pario-backends`, stop
#   scripts/test-object-servers.sh CMD [ARGS...]   start, run CMD with the variables below exported, stop
#   scripts/test-object-servers.sh start           start; print `export ...` lines (for eval)
#   scripts/test-object-servers.sh stop            stop what `start` started and remove its directory
#
# One monitor, a manager, one OSD on memstore (data in memory), pools of size 1,
# radosgw and one metadata server (MDS) with a file system, on 127.0.0.1, all
# under PARIO_OBJ_SERVERS_DIR (default: a new directory in $TMPDIR for CMD, a
# fixed one for start/stop): a private ceph.conf and keyrings, no systemd;
# /etc/ceph is never read or written. The OSD holds PARIO_OBJ_SERVERS_STORE_MIB MiB
# (default 2048; writes fail once it is full). Exported:
#   PARIO_TEST_S3_ENDPOINT=http://127.0.0.1:PORT   PARIO_TEST_S3_REGION=us-east-1
#   PARIO_TEST_S3_ACCESS_KEY, PARIO_TEST_S3_SECRET_KEY (generated at each start)
#   PARIO_TEST_RADOS_CONF=DIR/ceph.conf   PARIO_TEST_RADOS_POOL=pario
#   PARIO_TEST_RADOS_USER=pario (client.pario)   PARIO_TEST_RADOS_KEYRING=DIR/keyring
#   PARIO_TEST_CEPHFS_CONF=DIR/ceph.conf   PARIO_TEST_CEPHFS_USER=pariofs (client.pariofs,
#   read-write on the whole file system)   PARIO_TEST_CEPHFS_KEYRING=DIR/keyring
#   PARIO_TEST_CEPHFS_NAME=pariofs (the file system)
# Needs Debian's ceph-mon, ceph-mgr, ceph-osd, ceph-mds, ceph-common and radosgw
# (scripts/setup.sh --test installs them). Without ceph-mds the file system is
# left out with a note (no PARIO_TEST_CEPHFS_*), except under CI=true, where
# that is a failure like any other daemon that does not start.
set -euo pipefail

STATE_DIR="${PARIO_OBJ_SERVERS_DIR:-${TMPDIR:-/tmp}/pario-obj-servers.$(id -u)}"
POOL=pario
# The CephFS file system and its client.
FS_NAME=pariofs
FS_USER=pariofs
# How long to wait for each daemon (seconds).
WAIT_S="${PARIO_OBJ_SERVERS_WAIT:-90}"
# The OSD's capacity in MiB (memstore: data is kept in memory, up to this).
STORE_MIB="${PARIO_OBJ_SERVERS_STORE_MIB:-2048}"

die() { echo "test-object-servers.sh: $*" >&2; exit 1; }
note() { echo "test-object-servers.sh: $*" >&2; }

# shellcheck source=scripts/lib/ports.sh
source "$(dirname "$0")/lib/ports.sh"

# A random string of N characters from [A-Za-z0-9].
random_word() {
  local n=$1 w=""
  while [ "${#w}" -lt "$n" ]; do
    w+=$(head -c 64 /dev/urandom | tr -dc 'A-Za-z0-9')
  done
  echo "${w:0:$n}"
}

need() {
  local b
  for b in "$@"; do
    command -v "$b" >/dev/null 2>&1 || die "$b not found; run scripts/setup.sh --test (Debian's ceph-mon, ceph-mgr, ceph-osd, ceph-common, radosgw)"
  done
}

# The admin command line against the private cluster, with short timeouts.
cephc() { timeout 60 ceph -c "$STATE_DIR/ceph.conf" --connect-timeout 30 "$@"; }

# Show the end of a daemon's log when it failed to come up.
show_log() {
  local f="$STATE_DIR/log/$1.log"
  [ -f "$f" ] && tail -n 30 "$f" >&2
  [ -f "$STATE_DIR/log/$1.out" ] && tail -n 30 "$STATE_DIR/log/$1.out" >&2
  return 0
}

write_conf() {
  local mon_port=$1 rgw_port=$2 fsid=$3 d=$STATE_DIR
  cat >"$d/ceph.conf" <<EOF
# Private single-node test cluster made by scripts/test-object-servers.sh.
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $d/keyring
run dir = $d/run
admin socket = $d/run/\$cluster-\$name.asok
pid file = $d/run/\$name.pid
log file = $d/log/\$name.log
log to stderr = false
err to stderr = true
crash dir = $d/crash
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
client mount timeout = 30
rados mon op timeout = 30
rados osd op timeout = 30

[mgr]
mgr data = $d/mgr/\$id

[mon]
mon data = $d/mon/\$id
# The monitor's store is a few MiB: refuse to start only when the disk is
# nearly full (its default is below 5% free, a large disk's many GiB).
mon data avail crit = 1
mon cluster log file = $d/log/cluster.log

[osd]
osd data = $d/osd/\$id
osd objectstore = memstore
memstore device bytes = $((STORE_MIB * 1048576))
osd memory target = 939524096
osd max object name len = 460
osd max object namespace len = 64
osd crush update on start = true
osd op num shards = 1
osd op num threads per shard = 2

[mds]
mds data = $d/mds/\$id
mds cache memory limit = 268435456

[client.rgw.pario]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $d/rgw
rgw enable usage log = false
rgw dynamic resharding = false
rgw thread pool size = 64
EOF
}

start_mon() {
  local mon_port=$1 fsid=$2 d=$STATE_DIR
  ceph-authtool --create-keyring "$d/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$d/keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null
  ceph-authtool "$d/mon.keyring" --import-keyring "$d/keyring" >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$d/monmap" >/dev/null
  mkdir -p "$d/mon/a"
  ceph-mon -c "$d/ceph.conf" --mkfs -i a --monmap "$d/monmap" --keyring "$d/mon.keyring" \
    >"$d/log/mon.a.out" 2>&1 || { show_log mon.a; die "ceph-mon --mkfs failed"; }
  ceph-mon -c "$d/ceph.conf" -i a >>"$d/log/mon.a.out" 2>&1 || { show_log mon.a; die "ceph-mon did not start"; }
  cephc mon stat >/dev/null 2>&1 || { show_log mon.a; die "the monitor does not answer on 127.0.0.1:$mon_port"; }
}

# The manager: without it the cluster reports no usage (rados df, statfs).
start_mgr() {
  local d=$STATE_DIR
  mkdir -p "$d/mgr/x"
  cephc auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' -o "$d/mgr/x/keyring" 2>/dev/null \
    || die "could not create mgr.x"
  ceph-mgr -c "$d/ceph.conf" -i x --keyring "$d/mgr/x/keyring" >"$d/log/mgr.x.out" 2>&1 \
    || { show_log mgr.x; die "ceph-mgr did not start"; }
}

# Wait until the manager reports the cluster's capacity (statfs needs it).
wait_usage() {
  local i
  for i in $(seq 1 "$WAIT_S"); do
    cephc df -f json 2>/dev/null | grep -q '"total_bytes":[1-9]' && return 0
    sleep 1
  done
  show_log mgr.x
  die "the manager reported no cluster usage within ${WAIT_S}s"
}

start_osd() {
  local d=$STATE_DIR uuid secret id i
  uuid=$(uuidgen)
  secret=$(ceph-authtool --gen-print-key)
  id=$(echo "{\"cephx_secret\": \"$secret\"}" | cephc osd new "$uuid" -i -) || die "ceph osd new failed"
  mkdir -p "$d/osd/$id"
  ceph-authtool --create-keyring "$d/osd/$id/keyring" --name "osd.$id" --add-key "$secret" >/dev/null
  ceph-osd -c "$d/ceph.conf" -i "$id" --mkfs --osd-uuid "$uuid" --keyring "$d/osd/$id/keyring" \
    >"$d/log/osd.$id.out" 2>&1 || { show_log "osd.$id"; die "ceph-osd --mkfs failed"; }
  ceph-osd -c "$d/ceph.conf" -i "$id" --keyring "$d/osd/$id/keyring" >>"$d/log/osd.$id.out" 2>&1 \
    || { show_log "osd.$id"; die "ceph-osd did not start"; }
  for i in $(seq 1 "$WAIT_S"); do
    cephc osd dump 2>/dev/null | grep -q "^osd\.$id up" && return 0
    sleep 1
  done
  show_log "osd.$id"
  die "osd.$id did not come up within ${WAIT_S}s"
}

# The test pool and a client limited to it (client.pario), key in the shared keyring.
make_pool() {
  local d=$STATE_DIR i
  cephc osd pool create "$POOL" 8 8 >/dev/null 2>&1 || die "could not create pool $POOL"
  cephc osd pool application enable "$POOL" rados >/dev/null 2>&1 || true
  cephc auth get-or-create client.pario mon 'allow r' osd "allow rwx pool=$POOL" \
    >>"$d/keyring" 2>/dev/null || die "could not create client.pario"
  # The pool takes writes once its placement groups have peered.
  for i in $(seq 1 "$WAIT_S"); do
    echo ok | timeout 20 rados -c "$d/ceph.conf" -p "$POOL" put pario-ready - 2>/dev/null && break
    sleep 1
  done
  timeout 20 rados -c "$d/ceph.conf" -p "$POOL" rm pario-ready 2>/dev/null || die "pool $POOL takes no writes"
}

start_rgw() {
  local rgw_port=$1 d=$STATE_DIR i
  mkdir -p "$d/rgw"
  cephc auth get-or-create client.rgw.pario mon 'allow rw' osd 'allow rwx' >>"$d/keyring" 2>/dev/null \
    || die "could not create client.rgw.pario"
  radosgw -c "$d/ceph.conf" -n client.rgw.pario >"$d/log/rgw.out" 2>&1 \
    || { show_log client.rgw.pario; die "radosgw did not start"; }
  for i in $(seq 1 "$WAIT_S"); do
    (exec 3<>"/dev/tcp/127.0.0.1/$rgw_port") 2>/dev/null && break
    sleep 1
  done
  (exec 3<>"/dev/tcp/127.0.0.1/$rgw_port") 2>/dev/null \
    || { show_log client.rgw.pario; die "radosgw does not listen on 127.0.0.1:$rgw_port"; }
  S3_ACCESS=$(random_word 20)
  S3_SECRET=$(random_word 40)
  timeout 60 radosgw-admin -c "$d/ceph.conf" user create --uid=pario --display-name="pario tests" \
    --access-key="$S3_ACCESS" --secret-key="$S3_SECRET" >"$d/log/rgw-user.out" 2>&1 \
    || { cat "$d/log/rgw-user.out" >&2; die "radosgw-admin user create failed"; }
  s3_check "http://127.0.0.1:$rgw_port"
}

# The gateway takes the generated keys: create and remove a bucket (signed by curl).
s3_check() {
  local url=$1/pario-ready i
  command -v curl >/dev/null 2>&1 || { note "curl missing: S3 credentials not checked"; return 0; }
  s3_curl() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 20 --aws-sigv4 "aws:amz:us-east-1:s3" \
      --user "$S3_ACCESS:$S3_SECRET" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
  }
  for i in $(seq 1 "$WAIT_S"); do
    [ "$(s3_curl -X PUT "$url")" = 200 ] && break
    sleep 1
  done
  [ "$(s3_curl -X DELETE "$url")" = 204 ] || { show_log client.rgw.pario; die "radosgw refuses the generated S3 keys"; }
}

# One MDS and a file system on two new pools (metadata, data); a client
# with read-write caps on it (client.$FS_USER), key in the shared keyring.
start_mds_fs() {
  local d=$STATE_DIR i
  mkdir -p "$d/mds/a"
  cephc auth get-or-create mds.a mon 'allow profile mds' osd 'allow rwx' mds 'allow *' \
    -o "$d/mds/a/keyring" 2>/dev/null || die "could not create mds.a"
  ceph-mds -c "$d/ceph.conf" -i a --keyring "$d/mds/a/keyring" >"$d/log/mds.a.out" 2>&1 \
    || { show_log mds.a; die "ceph-mds did not start"; }
  cephc osd pool create "${FS_NAME}_metadata" 8 8 >/dev/null 2>&1 || die "could not create pool ${FS_NAME}_metadata"
  cephc osd pool create "${FS_NAME}_data" 8 8 >/dev/null 2>&1 || die "could not create pool ${FS_NAME}_data"
  cephc fs new "$FS_NAME" "${FS_NAME}_metadata" "${FS_NAME}_data" >/dev/null 2>&1 \
    || die "ceph fs new $FS_NAME failed"
  cephc fs authorize "$FS_NAME" "client.$FS_USER" / rw >>"$d/keyring" 2>/dev/null \
    || die "could not create client.$FS_USER"
  for i in $(seq 1 "$WAIT_S"); do
    cephc mds stat 2>/dev/null | grep -q 'up:active' && return 0
    sleep 1
  done
  show_log mds.a
  die "the MDS of $FS_NAME did not become active within ${WAIT_S}s"
}

# Whether to start the MDS: ceph-mds installed, or CI (where it must be).
want_cephfs() {
  command -v ceph-mds >/dev/null 2>&1 && return 0
  [ "${CI:-}" = true ] && die "ceph-mds not found (CI=true: CephFS must start); run scripts/setup.sh --test"
  note "ceph-mds not found: no CephFS (PARIO_TEST_CEPHFS_* unset); run scripts/setup.sh --test"
  return 1
}

start_all() {
  need ceph ceph-mon ceph-mgr ceph-osd ceph-authtool monmaptool radosgw radosgw-admin rados uuidgen
  [[ "$STORE_MIB" =~ ^[1-9][0-9]*$ ]] || die "PARIO_OBJ_SERVERS_STORE_MIB=$STORE_MIB: expected a number of MiB"
  [ -e "$STATE_DIR" ] && die "$STATE_DIR exists: servers already running? (run '$0 stop' first)"
  mkdir -p "$STATE_DIR"/{log,run,mon,osd,mds,crash}
  chmod 755 "$STATE_DIR"
  local t0 mon_port rgw_port fsid
  t0=$(date +%s)
  mon_port=$(free_port)
  rgw_port=$(free_port)
  fsid=$(uuidgen)
  write_conf "$mon_port" "$rgw_port" "$fsid"
  start_mon "$mon_port" "$fsid"
  start_mgr
  start_osd
  make_pool
  start_rgw "$rgw_port"
  local cephfs=0 t1
  if want_cephfs; then
    t1=$(date +%s)
    start_mds_fs
    cephfs=1
    note "CephFS $FS_NAME active in $(($(date +%s) - t1))s"
  fi
  wait_usage
  {
    echo "export PARIO_TEST_S3_ENDPOINT='http://127.0.0.1:$rgw_port'"
    echo "export PARIO_TEST_S3_ACCESS_KEY='$S3_ACCESS'"
    echo "export PARIO_TEST_S3_SECRET_KEY='$S3_SECRET'"
    echo "export PARIO_TEST_S3_REGION='us-east-1'"
    echo "export PARIO_TEST_RADOS_CONF='$STATE_DIR/ceph.conf'"
    echo "export PARIO_TEST_RADOS_POOL='$POOL'"
    echo "export PARIO_TEST_RADOS_USER='pario'"
    echo "export PARIO_TEST_RADOS_KEYRING='$STATE_DIR/keyring'"
    if [ "$cephfs" = 1 ]; then
      echo "export PARIO_TEST_CEPHFS_CONF='$STATE_DIR/ceph.conf'"
      echo "export PARIO_TEST_CEPHFS_USER='$FS_USER'"
      echo "export PARIO_TEST_CEPHFS_KEYRING='$STATE_DIR/keyring'"
      echo "export PARIO_TEST_CEPHFS_NAME='$FS_NAME'"
    fi
  } >"$STATE_DIR/env"
  # shellcheck disable=SC1091
  source "$STATE_DIR/env"
  note "Ceph up in $(($(date +%s) - t0))s: RADOS pool $POOL via $PARIO_TEST_RADOS_CONF, S3 at $PARIO_TEST_S3_ENDPOINT$([ "$cephfs" = 1 ] && echo ", CephFS $FS_NAME")"
}

# Stop every daemon whose pid file is in the run directory, then remove it all.
stop_all() {
  [ -d "$STATE_DIR" ] || return 0
  local f pid pids=() i
  for f in "$STATE_DIR"/run/*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && pids+=("$pid")
  done
  # A few seconds' grace, then SIGKILL (the data is in memory and thrown
  # away anyway), and wait until every daemon is gone.
  for pid in "${pids[@]}"; do
    for i in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$STATE_DIR"
}

case "${1:-}" in
  -h|--help) sed -n '2,26p' "$0" ;;
  start)
    trap 'stop_all' EXIT
    start_all
    trap - EXIT
    cat "$STATE_DIR/env"
    note "started (state in $STATE_DIR); stop with '$0 stop'"
    ;;
  stop) stop_all ;;
  *)
    [ $# -gt 0 ] || set -- cargo test -p pario-backends
    # A run that wraps a command gets its own directory unless one is named,
    # so that several can run side by side.
    if [ -z "${PARIO_OBJ_SERVERS_DIR:-}" ]; then
      STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pario-obj-servers.XXXXXX")
      rmdir "$STATE_DIR"
    fi
    trap stop_all EXIT
    trap 'exit 130' INT TERM
    start_all
    "$@"
    ;;
esac
