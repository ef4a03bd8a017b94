#!/usr/bin/env bash
# A throwaway single-machine Slurm cluster for the tests that start pario
# with srun and sbatch.
#
#   scripts/test-slurm.sh                 start, run `cargo test -p pario-cli --test integration slurm::`, stop
#   scripts/test-slurm.sh CMD [ARGS...]   start, run CMD with the variables below exported, stop
#   scripts/test-slurm.sh start           start; print `export ...` lines (for eval)
#   scripts/test-slurm.sh stop            stop what `start` started and remove its directory
#
# munged, slurmctld and two slurmd (nodes n1 and n2, both this machine, each
# on its own port) on 127.0.0.1, with a private munge key and socket, a
# private slurm.conf, state, spool and logs under PARIO_SLURM_DIR (default:
# a new directory in $TMPDIR for CMD, a fixed one for start/stop). /etc/slurm,
# /etc/munge and systemd are never read or written. The plugins need no
# cgroups (proctrack/linuxproc, task/none), and steps start with
# --mpi=pmix by default (Debian's Open MPI 4.1 talks PMIx only: it has no
# PMI-1/PMI-2 client). Each node offers PARIO_SLURM_CPUS CPUs (default 8,
# whatever the machine has). Exported:
#   SLURM_CONF=DIR/slurm.conf (srun, sbatch, squeue... use it)
#   PARIO_TEST_SLURM_CONF=DIR/slurm.conf   PARIO_TEST_SLURM_NODES=n1,n2
# Needs Debian's slurmctld, slurmd, slurm-client and munge
# (scripts/setup.sh --test installs them), and root (slurmd starts the
# tasks as their user).
set -euo pipefail

STATE_DIR="${PARIO_SLURM_DIR:-${TMPDIR:-/tmp}/pario-slurm.$(id -u)}"
# How long to wait for each daemon (seconds) and how often to try starting it.
WAIT_S="${PARIO_SLURM_WAIT:-30}"
TRIES=3
CPUS="${PARIO_SLURM_CPUS:-8}"
NODES=(n1 n2)

die() { echo "test-slurm.sh: $*" >&2; exit 1; }
note() { echo "test-slurm.sh: $*" >&2; }

# shellcheck source=scripts/lib/ports.sh
source "$(dirname "$0")/lib/ports.sh"

need() {
  local b
  for b in "$@"; do
    command -v "$b" >/dev/null 2>&1 || die "$b not found; run scripts/setup.sh --test (Debian's slurmctld, slurmd, slurm-client, munge)"
  done
}

# Show the end of a daemon's log when it failed to come up.
show_log() {
  local f="$STATE_DIR/log/$1.log"
  [ -f "$f" ] && tail -n 30 "$f" >&2
  return 0
}

# Poll CMD... once a second for at most WAIT_S seconds; true when it succeeded.
wait_for() {
  local i
  for i in $(seq 1 "$WAIT_S"); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 1
  done
  "$@" >/dev/null 2>&1
}

# The daemons carry PARIO_SLURM_INSTANCE in their environment, and so does
# every slurmstepd they start: stop_all finds what is left by it, and by
# nothing broader.
daemon() { env PARIO_SLURM_INSTANCE="$STATE_DIR" "$@"; }

write_conf() {
  local ctld_port=$1 d=$STATE_DIR n
  cat >"$d/slurm.conf" <<EOF
# Private single-machine test cluster made by scripts/test-slurm.sh.
ClusterName=pario
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd-%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
TmpFS=$d/tmp/%n
PlugStackConfig=$d/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
MpiDefault=pmix
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
# Slurm's default grace between SIGTERM and SIGKILL (scancel, time limit):
# the interrupted runs of the tests keep their record and remove their
# files within it. OverTimeLimit stays 0: a limit ends the job at once.
KillWait=30
OverTimeLimit=0
# A step with more tasks than the cluster has is refused at once, not
# queued forever; a task that dies ends its step (no rank left waiting).
EnforcePartLimits=ALL
KillOnBadExit=1
TaskProlog=$d/task-prolog.sh
MessageTimeout=20
EOF
  for n in "${NODES[@]}"; do
    echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$(free_port) CPUs=$CPUS RealMemory=1000 State=UNKNOWN" >>"$d/slurm.conf"
  done
  echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES" >>"$d/slurm.conf"
  : >"$d/plugstack.conf"
  # Both nodes are this machine: Open MPI names its shared-memory segments
  # after the host and the local rank, so the ranks of n1 and n2 would
  # open each other's. Each node's tasks keep them in the node's own
  # directory (a task prolog's `export` lines reach the task).
  cat >"$d/task-prolog.sh" <<EOF
#!/bin/sh
echo "export OMPI_MCA_btl_vader_backing_directory=$d/tmp/\$SLURMD_NODENAME"
EOF
  chmod 755 "$d/task-prolog.sh"
}

munge_ok() { munge -S "$STATE_DIR/munge/munge.socket" -n | unmunge -S "$STATE_DIR/munge/munge.socket"; }

start_munge() {
  local d=$STATE_DIR/munge try
  mkdir -p "$d"
  chmod 755 "$d"
  head -c 1024 /dev/urandom >"$d/munge.key"
  chmod 600 "$d/munge.key"
  for try in $(seq 1 "$TRIES"); do
    daemon munged --socket="$d/munge.socket" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
      --seed-file="$d/munged.seed" --log-file="$STATE_DIR/log/munged.log" --force \
      >>"$STATE_DIR/log/munged.out" 2>&1 || true
    wait_for munge_ok && return 0
    note "munged did not answer (try $try of $TRIES)"
    [ -f "$d/munged.pid" ] && kill "$(cat "$d/munged.pid")" 2>/dev/null || true
  done
  show_log munged
  die "munged did not start"
}

ctld_ok() { scontrol ping | grep -q 'is UP'; }

start_slurmctld() {
  local try
  for try in $(seq 1 "$TRIES"); do
    daemon slurmctld -f "$SLURM_CONF" -i >>"$STATE_DIR/log/slurmctld.out" 2>&1 || true
    wait_for ctld_ok && return 0
    note "slurmctld did not answer (try $try of $TRIES)"
    [ -f "$STATE_DIR/run/slurmctld.pid" ] && kill "$(cat "$STATE_DIR/run/slurmctld.pid")" 2>/dev/null || true
    sleep 1
  done
  show_log slurmctld
  die "slurmctld did not start"
}

node_idle() { sinfo -h -n "$1" -o '%t' | grep -qx 'idle'; }

start_slurmd() {
  local n=$1 try
  mkdir -p "$STATE_DIR/spool/$n" "$STATE_DIR/tmp/$n"
  for try in $(seq 1 "$TRIES"); do
    daemon slurmd -f "$SLURM_CONF" -N "$n" >>"$STATE_DIR/log/slurmd-$n.out" 2>&1 || true
    wait_for node_idle "$n" && return 0
    note "node $n not idle (try $try of $TRIES): $(sinfo -h -n "$n" -o '%t %E' 2>&1)"
    [ -f "$STATE_DIR/run/slurmd-$n.pid" ] && kill "$(cat "$STATE_DIR/run/slurmd-$n.pid")" 2>/dev/null || true
    scontrol update nodename="$n" state=resume >/dev/null 2>&1 || true
    sleep 1
  done
  show_log "slurmd-$n"
  die "slurmd for node $n did not start"
}

# A one-task step on every node: the cluster runs jobs, not only answers.
check_step() {
  local out
  out=$(timeout "$WAIT_S" srun --mpi=none -N "${#NODES[@]}" -n "${#NODES[@]}" printenv SLURMD_NODENAME 2>&1 | sort | tr '\n' ' ') \
    || { show_log slurmctld; die "a first step did not run: $out"; }
  [ "$out" = "$(printf '%s\n' "${NODES[@]}" | sort | tr '\n' ' ')" ] || die "a first step ran on '$out', not on ${NODES[*]}"
}

start_all() {
  need munged munge unmunge slurmctld slurmd srun sbatch scontrol sinfo squeue scancel
  [ "$(id -u)" = 0 ] || die "slurmd must run as root (it starts the tasks as their user)"
  [[ "$CPUS" =~ ^[1-9][0-9]*$ ]] || die "PARIO_SLURM_CPUS=$CPUS: expected a number of CPUs"
  [ -e "$STATE_DIR" ] && die "$STATE_DIR exists: Slurm already running? (run '$0 stop' first)"
  mkdir -p "$STATE_DIR"/{log,run,state,spool,tmp}
  chmod 755 "$STATE_DIR"
  local t0 n
  t0=$(date +%s)
  export SLURM_CONF="$STATE_DIR/slurm.conf"
  write_conf "$(free_port)"
  start_munge
  start_slurmctld
  for n in "${NODES[@]}"; do start_slurmd "$n"; done
  check_step
  {
    echo "export SLURM_CONF='$SLURM_CONF'"
    echo "export PARIO_TEST_SLURM_CONF='$SLURM_CONF'"
    echo "export PARIO_TEST_SLURM_NODES='$(IFS=,; echo "${NODES[*]}")'"
  } >"$STATE_DIR/env"
  # shellcheck disable=SC1091
  source "$STATE_DIR/env"
  note "Slurm up in $(($(date +%s) - t0))s: nodes ${NODES[*]} ($CPUS CPUs each), SLURM_CONF=$SLURM_CONF"
}

# The processes started for this instance: the daemons, their slurmstepd
# and any task left behind (found by PARIO_SLURM_INSTANCE in their environment).
instance_pids() {
  local e pid
  for e in /proc/[0-9]*/environ; do
    pid=${e#/proc/}
    pid=${pid%/environ}
    [ "$pid" = $$ ] && continue
    { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "PARIO_SLURM_INSTANCE=$STATE_DIR" && echo "$pid"
  done
  return 0
}

# Cancel every job, shut the daemons down, then end whatever is left of
# this instance (SIGTERM, a few seconds, SIGKILL) and remove the directory.
stop_all() {
  [ -d "$STATE_DIR" ] || return 0
  export SLURM_CONF="$STATE_DIR/slurm.conf"
  local pids pid i
  if [ -f "$SLURM_CONF" ] && timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; then
    timeout 10 scancel --full --quiet $(timeout 10 squeue -h -o %i 2>/dev/null) 2>/dev/null || true
    for i in $(seq 1 50); do
      [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
    timeout 10 scontrol shutdown >/dev/null 2>&1 || true
  fi
  [ -f "$STATE_DIR/munge/munged.pid" ] && kill "$(cat "$STATE_DIR/munge/munged.pid")" 2>/dev/null || true
  for i in $(seq 1 50); do
    pids=$(instance_pids)
    [ -z "$pids" ] && break
    [ "$i" = 30 ] && kill -TERM $pids 2>/dev/null
    [ "$i" = 45 ] && kill -KILL $pids 2>/dev/null
    sleep 0.2
  done
  pids=$(instance_pids)
  [ -z "$pids" ] || note "processes of this instance still there: $pids"
  rm -rf "$STATE_DIR"
}

case "${1:-}" in
  -h|--help) sed -n '2,23p' "$0" ;;
  start)
    trap 'stop_all' EXIT
    start_all
    trap - EXIT
    cat "$STATE_DIR/env"
    note "started (state in $STATE_DIR); stop with '$0 stop'"
    ;;
  stop) stop_all ;;
  *)
    [ $# -gt 0 ] || set -- cargo test -p pario-cli --test integration slurm::
    # A run that wraps a command gets its own directory unless one is named,
    # so that several can run side by side.
    if [ -z "${PARIO_SLURM_DIR:-}" ]; then
      STATE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pario-slurm.XXXXXX")
      rmdir "$STATE_DIR"
    fi
    trap stop_all EXIT
    trap 'exit 130' INT TERM
    # A Slurm that does not start does not keep CMD from running: its
    # Slurm tests then fail under CI=true (and say "skipped" elsewhere),
    # and every other test still runs.
    if (start_all); then
      # shellcheck disable=SC1091
      source "$STATE_DIR/env"
    else
      note "Slurm did not start: running '$*' without it"
    fi
    "$@"
    ;;
esac
