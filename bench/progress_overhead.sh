#!/usr/bin/env bash
# The cost of live progress (issue 11: "with progress on, 4 KiB page-cache
# IOPS and mdtest create rates within 1% of progress off, and at 64 ranks
# oversubscribed no slowdown of the job's wall time beyond noise").
#
# Every comparison is paired: in each round the same workload runs with
# progress off and on (`--progress=lines --progress-interval 0.25 --live-json`,
# so every rank sends its counts to rank 0 four times a second and rank 0 renders
# and writes JSON), the order alternating between rounds; the figure is the
# per-round ratio on/off, reported as min / median / max.
#
#   1. ior 4 KiB random reads from the page cache (-r -z -F, files in
#      $BENCH_DIR, 2 ranks): IOPS ratio.
#   2. mdtest file creation (-C -F -n $ITEMS, 2 ranks, in $BENCH_DIR):
#      creation rate ratio.
#   3. 64 ranks oversubscribed, a small ior write+read (-F -t 64k -b 1m):
#      wall-clock time ratio of the whole mpirun.
#
#   bench/progress_overhead.sh                 # REPS=5 SIZE=1g ITEMS=50000
#   REPS=9 SIZE=512m bench/progress_overhead.sh
source "$(dirname "$0")/common.sh"

SIZE=${SIZE:-1g}
ITEMS=${ITEMS:-50000}
NP=2
BIG=${BIG:-64}
if [ -z "${MDTEST:-}" ]; then
    MDTEST="$(dirname "$IOR")/mdtest"
    [ -x "$MDTEST" ] || (cd "$ROOT" && cargo build --release -p pario-mdtest >&2)
fi
export PARIO_RESULTS_DIR=$WORK/runs PARIO_DB=$WORK/results.sqlite
ON=(--progress=lines --progress-interval 0.25 --live-json "$WORK/live.json")

machine_note
echo "# mdtest: $MDTEST"
echo "# progress on: ${ON[*]}"
file="$BENCH_DIR/progress"
run_np $NP "$IOR" -w -F -k -t 1m -b "$SIZE" -o "$file" >/dev/null

iops() { # iops on|off
    local extra=()
    [ "$1" = on ] && extra=("${ON[@]}")
    # shellcheck disable=SC2086
    run_np $NP $SETSID "$IOR" -r -z -F -E -k -t 4k -b "$SIZE" -o "$file" "${extra[@]}" 2>/dev/null |
        ior_field read 3
}
creates() { # creates on|off
    local extra=()
    [ "$1" = on ] && extra=("${ON[@]}")
    rm -rf "$BENCH_DIR/md"
    # shellcheck disable=SC2086
    run_np $NP $SETSID "$MDTEST" -C -F -n "$ITEMS" -d "$BENCH_DIR/md" "${extra[@]}" 2>/dev/null |
        awk '/File creation/ { print $4; exit }'
}
wall() { # wall on|off: seconds of the whole mpirun
    local extra=() t0 t1
    [ "$1" = on ] && extra=("${ON[@]}")
    t0=$(date +%s%N)
    run_np "$BIG" "$IOR" -w -r -F -t 64k -b 1m -o "$BENCH_DIR/big" "${extra[@]}" >/dev/null 2>&1
    t1=$(date +%s%N)
    awk -v d=$((t1 - t0)) 'BEGIN { printf("%.3f\n", d / 1e9) }'
}

# paired NAME FUNC: REPS rounds of off/on (alternating order), per-round
# ratio on/off; prints the rounds and the ratio's min / median / max.
paired() {
    local name=$1 f=$2 off on
    : >"$WORK/$name"
    printf '%-8s %-5s %14s %14s %8s\n' "$name" round off on on/off
    for rep in $(seq 1 "$REPS"); do
        if [ $((rep % 2)) = 1 ]; then
            off=$("$f" off); on=$("$f" on)
        else
            on=$("$f" on); off=$("$f" off)
        fi
        r=$(ratio "$on" "$off")
        printf '%-8s %-5s %14s %14s %8s\n' "$name" "$rep" "$off" "$on" "$r"
        echo "$r" >>"$WORK/$name"
    done
    echo "$name on/off ratio min / median / max: $(stats <"$WORK/$name")"
}

paired iops iops
paired creates creates
paired wall64 wall
rm -rf "$BENCH_DIR/md" "$file".* "$BENCH_DIR"/big*
