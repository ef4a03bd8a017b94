#!/usr/bin/env bash
# Memory per rank of pario's ior against upstream IOR on the same job,
# `ior -w -r -F -t 1m -b 8m` on $BENCH_DIR, at 1, 16 and 64 ranks
# (oversubscribed is fine: memory does not depend on speed).
#
# Two figures per rank, min / median / max over the ranks of one run:
#   max RSS   /usr/bin/time -f %M around each rank (VmHWM): every page the
#             rank had mapped at its peak, shared library and binary pages
#             included. File-backed pages are only mapped when they are in
#             the page cache (fault-around), so this moves by a few hundred
#             KiB from run to run on a machine short of memory.
#   USS/PSS   /proc/PID/smaps_rollup read while the job sleeps between its
#             two iterations (`-i 2 -d DELAY`): USS = private pages (what the
#             rank alone costs), PSS = private pages plus its share of the
#             pages it shares with the other ranks (binary, libraries). At
#             many ranks per node PSS and USS are what the node pays.
#
#   UPSTREAM_IOR=/path/to/ior bench/ior_rss_vs_upstream.sh
#   knobs: NPS (default "1 16 64"), DELAY (the -d of the USS/PSS job,
#   default 20 s; smaps is read 4 s after the last rank wrote), IOR (our
#   binary), BENCH_DIR
source "$(dirname "$0")/common.sh"
: "${UPSTREAM_IOR:?set UPSTREAM_IOR to an upstream ior binary}"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
NPS=${NPS:-1 16 64}
DELAY=${DELAY:-20}
export PARIO_RESULTS_DIR="$WORK/runs" PARIO_DB="$WORK/db.sqlite"
JOB=(-w -r -F -t 1m -b 8m)

# "min median max" of the numbers on stdin, KiB -> MiB.
mib3() {
    sort -n | awk '{ v[NR] = $1 } END { printf("%.1f / %.1f / %.1f", v[1] / 1024, v[int((NR + 1) / 2)] / 1024, v[NR] / 1024) }'
}

# max_rss NP BIN: max RSS of every rank.
max_rss() {
    rm -f "$WORK"/rss.*
    run_np "$1" sh -c 'exec /usr/bin/time -f %M -o "$0.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"' \
        "$WORK/rss" "$2" "${JOB[@]}" -o "$BENCH_DIR/rss" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; return 1; }
    rm -f "$BENCH_DIR"/rss*
    cat "$WORK"/rss.* | mib3
}

# uss_pss NP BIN: "USS | PSS" of every rank, read during the -d delay.
uss_pss() {
    local np=$1 m n p
    $MPIRUN -np "$np" "$2" "${JOB[@]}" -i 2 -d "$DELAY" -o "$BENCH_DIR/pss" </dev/null >"$WORK/out" 2>&1 &
    m=$!
    # every rank has written its file: the job is in its read or its delay
    for _ in $(seq 1 120); do
        n=$(find "$BENCH_DIR" -maxdepth 1 -name 'pss*' | wc -l)
        [ "$n" -ge "$np" ] && break
        sleep 1
    done
    sleep 4
    : >"$WORK/s"
    for p in $(ps -o pid= --ppid "$m"); do
        awk '/^Pss:/ { s = $2 } /^Private_(Clean|Dirty):/ { u += $2 } END { print u, s }' "/proc/$p/smaps_rollup" >>"$WORK/s"
    done
    kill "$m" 2>/dev/null || true
    wait "$m" 2>/dev/null || true
    rm -f "$BENCH_DIR"/pss*
    echo "$(cut -d' ' -f1 "$WORK/s" | mib3) | $(cut -d' ' -f2 "$WORK/s" | mib3)"
}

machine_note
echo "# job: ior ${JOB[*]} on $BENCH_DIR; MiB per rank, min / median / max over the ranks"
echo
echo "| ranks | tool | max RSS | USS (private) | PSS |"
echo "|---:|---|---|---|---|"
for np in $NPS; do
    for tool in upstream pario; do
        bin=$IOR
        [ "$tool" = upstream ] && bin=$UPSTREAM_IOR
        echo "| $np | $tool | $(max_rss "$np" "$bin") | $(uss_pss "$np" "$bin") |"
    done
done
