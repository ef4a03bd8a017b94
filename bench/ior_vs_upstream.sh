#!/usr/bin/env bash
# pario's ior against upstream IOR on the same job: file-per-process 1 MiB
# transfers on tmpfs, write then read, 2 ranks; the ratio of the mean
# bandwidths each tool prints in its summary (ours / upstream).
#
# Both run `ior -w -r -F -t 1m -b BLOCK -i ITERS -o DIR/f` (default
# BLOCK=64m: 64 transfers of 1 MiB per file and phase, ITERS=3), alternating,
# PAIRS times (default 8); the order inside a pair flips every pair. Each
# pair prints write and read ratios; the end prints min / median / max.
# OPTS replaces the job's options (keep -o out of it).
#
# Upstream IOR is not part of this repository: build IOR from the public
# hpc/ior sources (the commit the IO500 pins) with the same MPI library,
# outside this tree, and give its path in UPSTREAM_IOR.
#
# usage: UPSTREAM_IOR=/path/to/ior bench/ior_vs_upstream.sh
#   knobs: NP, BLOCK, ITERS, PAIRS, OPTS, BENCH_DIR, IOR (our binary).
source "$(dirname "$0")/common.sh"
: "${UPSTREAM_IOR:?set UPSTREAM_IOR to an upstream ior binary}"
[ -x "$UPSTREAM_IOR" ] || { echo "UPSTREAM_IOR=$UPSTREAM_IOR: not executable" >&2; exit 2; }
NP=${NP:-2}
BLOCK=${BLOCK:-64m}
ITERS=${ITERS:-3}
PAIRS=${PAIRS:-8}
OPTS=${OPTS:--w -r -F -t 1m -b $BLOCK -i $ITERS}
export OMPI_MCA_rmaps_base_oversubscribe=1
# Our runs keep their records in the scratch directory, not the user's store.
export PARIO_RESULTS_DIR="$WORK/results" PARIO_DB="$WORK/results.sqlite"

# Mean MiB/s of operation $1 from the "Summary of all tests" table on stdin.
summary_mean() {
    awk -v op="$1" '/^Summary of all tests/ { on = 1; next }
        on && $1 == op && $2 ~ /^[0-9.]+$/ { print $4; exit }'
}

# run TOOL NAME: one job; "write read" means into $WORK/NAME.
run() {
    rm -rf "$BENCH_DIR/u" && mkdir -p "$BENCH_DIR/u"
    # shellcheck disable=SC2086
    if ! $SETSID $MPIRUN -np "$NP" "$1" $OPTS -o "$BENCH_DIR/u/f" </dev/null >"$WORK/out" 2>&1; then
        echo "$1 failed:" >&2
        cat "$WORK/out" >&2
        exit 1
    fi
    echo "$(summary_mean write <"$WORK/out") $(summary_mean read <"$WORK/out")" >"$WORK/$2"
}

machine_note
echo "# upstream: $UPSTREAM_IOR"
echo "# job: $MPIRUN -np $NP ior $OPTS -o $BENCH_DIR/u/f; $PAIRS pairs"
printf '%-5s %10s %10s %10s %10s %8s %8s\n' pair "w ours" "w up" "r ours" "r up" "w ratio" "r ratio"
: >"$WORK/w" && : >"$WORK/r"
for pair in $(seq "$PAIRS"); do
    if [ $((pair % 2)) = 1 ]; then
        run "$IOR" ours && run "$UPSTREAM_IOR" up
    else
        run "$UPSTREAM_IOR" up && run "$IOR" ours
    fi
    read -r wo ro <"$WORK/ours"
    read -r wu ru <"$WORK/up"
    wr=$(ratio "${wo:-x}" "${wu:-x}")
    rr=$(ratio "${ro:-x}" "${ru:-x}")
    echo "$wr" >>"$WORK/w"
    echo "$rr" >>"$WORK/r"
    printf '%-5s %10s %10s %10s %10s %8s %8s\n' "$pair" "${wo:--}" "${wu:--}" "${ro:--}" "${ru:--}" "$wr" "$rr"
done
rm -rf "$BENCH_DIR/u"
echo
echo "write ratio (ours/upstream) min / median / max: $(stats <"$WORK/w")"
echo "read  ratio (ours/upstream) min / median / max: $(stats <"$WORK/r")"
echo "write ratio: $(ratio_ci <"$WORK/w")"
echo "read  ratio: $(ratio_ci <"$WORK/r")"
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
