#!/usr/bin/env bash
# pario's ior and upstream IOR reading the SAME files: 1 MiB transfers, file
# per process, tmpfs; read-only runs (-r -k) alternating between the tools,
# the order flipping every pair; the ratio of the mean read bandwidths each
# prints in its summary (ours / upstream).
#
# Why the same files: on tmpfs, where a file's pages land depends on when it
# was written, and a file written earlier can read some 10% slower than one
# written later, by either tool (seen here: both tools read the first-written
# of two files 10-12% slower). A comparison in which each tool reads the
# file it has just written measures that placement as well as the tool.
#
# usage: UPSTREAM_IOR=/path/to/ior bench/ior_read_same_file.sh
#   knobs: NP (1), BLOCK (256m), ITERS (4), PAIRS (8), BENCH_DIR, IOR.
source "$(dirname "$0")/common.sh"
: "${UPSTREAM_IOR:?set UPSTREAM_IOR to an upstream ior binary}"
[ -x "$UPSTREAM_IOR" ] || { echo "UPSTREAM_IOR=$UPSTREAM_IOR: not executable" >&2; exit 2; }
NP=${NP:-1}
BLOCK=${BLOCK:-256m}
ITERS=${ITERS:-4}
PAIRS=${PAIRS:-8}
export OMPI_MCA_rmaps_base_oversubscribe=1
export PARIO_RESULTS_DIR="$WORK/results" PARIO_DB="$WORK/results.sqlite"

# Mean MiB/s of the read phase from the "Summary of all tests" table on stdin.
read_mean() {
    awk '/^Summary of all tests/ { on = 1; next }
        on && $1 == "read" && $2 ~ /^[0-9.]+$/ { print $4; exit }'
}

# run TOOL ARGS...: one job on $BENCH_DIR/s/f; prints its read mean.
run() {
    local tool=$1
    shift
    # shellcheck disable=SC2086
    $SETSID $MPIRUN -np "$NP" "$tool" "$@" -F -t 1m -b "$BLOCK" -o "$BENCH_DIR/s/f" \
        </dev/null >"$WORK/out" 2>&1 || { echo "$tool failed:" >&2; cat "$WORK/out" >&2; exit 1; }
    read_mean <"$WORK/out"
}

machine_note
echo "# upstream: $UPSTREAM_IOR"
echo "# job: $MPIRUN -np $NP ior -r -k -F -t 1m -b $BLOCK -i $ITERS (files written once by ours)"
rm -rf "$BENCH_DIR/s" && mkdir -p "$BENCH_DIR/s"
run "$IOR" -w -k >/dev/null
printf '%-6s %10s %10s %8s\n' pair "r ours" "r up" ratio
: >"$WORK/ratios"
for p in $(seq 1 "$PAIRS"); do
    if [ $((p % 2)) = 1 ]; then
        a=$(run "$IOR" -r -k -i "$ITERS"); b=$(run "$UPSTREAM_IOR" -r -k -i "$ITERS")
    else
        b=$(run "$UPSTREAM_IOR" -r -k -i "$ITERS"); a=$(run "$IOR" -r -k -i "$ITERS")
    fi
    r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
    echo "$r" >>"$WORK/ratios"
    printf '%-6s %10s %10s %8s\n' "$p" "$a" "$b" "$r"
done
rm -rf "$BENCH_DIR/s"
echo
echo "read ratio (ours/upstream) min / median / max: $(stats <"$WORK/ratios")"
echo "read ratio: $(ratio_ci <"$WORK/ratios")"
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
