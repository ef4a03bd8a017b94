#!/usr/bin/env bash
# mdtest's phase rates against a tight loop of the same system calls.
#
# On /dev/shm with 2 ranks and -n 20000 (override: NP, N, DIR, REPS), runs
# alternately `mdtest -d DIR -n N -i 1` (release build) and md_syscall_loop
# (bench/md_syscall_loop.c: the same names, one mkdir/stat/rename/rmdir/
# open+close/unlink per item, barriers between phases, the same rate
# formula), REPS times each, and prints per phase the best rate of each and
# their ratio. Also prints the peak memory (max RSS) of an mdtest rank at
# N and at 10 x N, to show that memory does not grow with the item count.
#
# usage: bench/mdtest_vs_syscalls.sh        (from anywhere; builds what it needs)
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${NP:-2}
N=${N:-20000}
REPS=${REPS:-3}
DIR=${DIR:-/dev/shm/pario-mdtest-bench}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/tgt-mdtest}
# On a machine shared with builds, both programs run at the highest
# priority we may give them (the same for both), so that the comparison
# measures them rather than the neighbours.
PRIO=()
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  PRIO=(nice -n -20)
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

cargo build --release -q -p pario-mdtest --bin mdtest
MDTEST="$CARGO_TARGET_DIR/release/mdtest"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK" "$DIR"' EXIT
mpicc -O2 -o "$WORK/md_syscall_loop" bench/md_syscall_loop.c

rm -rf "$DIR" && mkdir -p "$DIR"
for rep in $(seq "$REPS"); do
  # mdtest: rates from its CSV summary (one row per phase).
  "${PRIO[@]}" mpirun -np "$NP" "$MDTEST" -d "$DIR/md" -n "$N" -i 1 \
    --summary-format=csv --summary-file="$WORK/md.$rep.csv" > /dev/null
  awk -F, 'NR > 1 { print $6 "," $9 }' "$WORK/md.$rep.csv" >> "$WORK/md.all"
  # The loop, in a fresh directory of its own.
  mkdir -p "$DIR/loop"
  "${PRIO[@]}" mpirun -np "$NP" "$WORK/md_syscall_loop" "$DIR/loop" "$N" >> "$WORK/loop.all"
  rm -rf "$DIR/loop"
done

echo "mdtest vs system-call loop: $NP ranks, -n $N, $DIR, best of $REPS"
printf '%-20s %14s %14s %8s\n' "phase" "mdtest ops/s" "loop ops/s" "ratio"
awk -F, '
  FNR == NR { if ($2 > md[$1]) md[$1] = $2; next }
  { if ($2 > lp[$1]) lp[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    for (i = 1; i <= k; i++) {
      p = order[i]
      printf "%-20s %14.0f %14.0f %7.1f%%\n", p, md[p], lp[p], 100 * md[p] / lp[p]
    }
  }' "$WORK/md.all" "$WORK/loop.all"

# Memory per rank at N and 10 x N items (files only, create + remove).
for n in "$N" "$((N * 10))"; do
  mpirun -np "$NP" sh -c '/usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
    "$WORK/rss.$n" "$MDTEST" -d "$DIR/mem" -n "$n" -F -C -r > /dev/null 2>&1 || true
  rss=$(cat "$WORK"/rss."$n".* 2>/dev/null | sort -n | tail -1)
  echo "peak RSS of an mdtest rank with -n $n: ${rss:-?} KiB"
done
