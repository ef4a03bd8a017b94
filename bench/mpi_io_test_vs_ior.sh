#!/usr/bin/env bash
# mpi_io_test against ior on the same bytes, and the cost of aggregation.
# Interleaved rounds, ratios per round; files in $BENCH_DIR (/dev/shm).
#
# Rows (aggregate MiB/s; mpi_io_test's is its "Effective Bandwidth" min,
# i.e. all bytes / the slowest rank's open-to-close time, like ior's):
#   t1 write/read   mpi_io_test -type 1 vs ior -a MPIIO -F   (target: >= 0.97)
#   t2 write/read   mpi_io_test -type 2 vs ior -a MPIIO      (target: >= 0.97)
#   t4 a0 / a2      -type 4 -num_io 1 (-ahead 0 / 2) vs -type 2: the cost
#                   of moving the data to one aggregator first
#   hid             the part of the aggregator's receive time hidden by
#                   writes in flight: (T0 - T2) / R0, from its pipeline
#                   figures in the kept run records (parameters.pipeline.write,
#                   the aggregator = rank 0): T = its transfer loop, R = its
#                   time blocked receiving, W = its time blocked starting and
#                   waiting for writes; 0 = the -ahead 0 run of the same round,
#                   2 = the -ahead 2 run. With one buffer nothing overlaps on
#                   the aggregator (T0 = R0 + W0 + filling its own objects),
#                   so whatever -ahead 2 saves is receive time spent while a
#                   write was in flight. 0 = no overlap (negative: -ahead 2
#                   was slower, i.e. noise or contention);
#   ceil            min(R0, W0) / R0, what a complete overlap could hide;
#   wleft           W2 / W0, the part of the write-blocked time left with
#                   -ahead 2.
# Memory: max RSS per rank for -nobj 4 and -nobj 64 (64 KiB objects, one
# sender per buffer, -ahead 1): the sender's must not grow with -nobj, the
# aggregator's by the two buffers only (-csize must hold a sender's objects).
#
#   bench/mpi_io_test_vs_ior.sh        # NP=4 ranks, OBJ=16 objects of 1 MiB per rank, REPS=5
source "$(dirname "$0")/common.sh"

NP=${NP:-4}
OBJ=${OBJ:-16}
if [ -z "${MIOT:-}" ]; then
    MIOT="${CARGO_TARGET_DIR:-$ROOT/target}/release/mpi_io_test"
    if [ ! -x "$MIOT" ]; then
        (cd "$ROOT" && cargo build --release -p pario-mpi-io-test >&2)
    fi
fi
export LC_ALL=C PARIO_RESULTS_DIR="$WORK/runs" PARIO_DB="$WORK/db.sqlite"
f="$BENCH_DIR/miot"

have jq || { echo "mpi_io_test_vs_ior.sh needs jq (the aggregator's figures are read from the run records)" >&2; exit 1; }
machine_note
echo "# mpi_io_test: $MIOT; $NP ranks, $OBJ x 1 MiB per rank"

# First number of the "=== <label>" line of phase $1 (write|read): min
effective() { # phase
    awk -v ph="=== MPI $1" 'index($0, ph) == 1 { on = 1; next }
        on && /^=== Effective Bandwidth/ { split($0, a, ": "); split(a[2], b, " "); print b[1]; exit }'
}
miot() { run_np "$NP" $SETSID "$MIOT" "$@" -nobj "$OBJ" -size 1M; }
# Field $1 (recv_wait, write_blocked, transfer) of the aggregator (rank 0)
# in the newest kept run record (run ids sort by time).
pipe() {
    local rec
    rec=$(find "$PARIO_RESULTS_DIR" -name '*.json' | sort | tail -1)
    jq -r ".tests[0].parameters.pipeline.write[] | select(.rank == 0) | .$1" "$rec"
}
ior_run() { run_np "$NP" $SETSID "$IOR" -a MPIIO -t 1m -b "${OBJ}m" -w -r "$@" -o "$f.ior"; }

declare -A R
for round in $(seq 1 "$REPS"); do
    rm -f "$f"*
    # alternate which tool goes first, so that neither always meets a
    # freshly emptied /dev/shm
    t1() { out=$(miot -type 1 -target "$f.1.%r" -deletefile); w1=$(echo "$out" | effective write); r1=$(echo "$out" | effective read); }
    i1() { out=$(ior_run -F); iw=$(echo "$out" | ior_field write 2); ir=$(echo "$out" | ior_field read 2); rm -f "$f"*; }
    t2() { out=$(miot -type 2 -target "$f.2" -deletefile); w2=$(echo "$out" | effective write); r2=$(echo "$out" | effective read); }
    i2() { out=$(ior_run); jw=$(echo "$out" | ior_field write 2); jr=$(echo "$out" | ior_field read 2); rm -f "$f"*; }
    if [ $((round % 2)) = 1 ]; then t1; i1; t2; i2; else i1; t1; i2; t2; fi
    a0=$(miot -type 4 -num_io 1 -csize "${OBJ}M" -ahead 0 -target "$f.4" -deletefile -op write)
    at0=$(pipe transfer); ar0=$(pipe recv_wait); aw0=$(pipe write_blocked)
    a2=$(miot -type 4 -num_io 1 -csize "${OBJ}M" -ahead 2 -target "$f.4" -deletefile -op write)
    at2=$(pipe transfer); ar2=$(pipe recv_wait); aw2=$(pipe write_blocked)
    b0=$(echo "$a0" | effective write); b2=$(echo "$a2" | effective write)
    hidden=$(awk -v t0="$at0" -v t2="$at2" -v r="$ar0" 'BEGIN { if (r > 0) printf("%.3f\n", (t0 - t2) / r); else print "nan" }')
    ceil=$(awk -v r="$ar0" -v w="$aw0" 'BEGIN { if (r > 0) printf("%.3f\n", (w < r ? w : r) / r); else print "nan" }')
    R[t1w]+="$(ratio "$w1" "$iw") "; R[t1r]+="$(ratio "$r1" "$ir") "
    R[t2w]+="$(ratio "$w2" "$jw") "; R[t2r]+="$(ratio "$r2" "$jr") "
    R[a0]+="$(ratio "$b0" "$w2") "; R[a2]+="$(ratio "$b2" "$w2") "; R[hid]+="$hidden "; R[ceil]+="$ceil "
    R[wleft]+="$(ratio "$aw2" "$aw0") "
    echo "round $round: t1 w $w1/$iw r $r1/$ir  t2 w $w2/$jw r $r2/$jr  t4 a0 $b0 a2 $b2 (vs t2 $w2)  aggregator T0 $at0 R0 $ar0 W0 $aw0 T2 $at2 R2 $ar2 W2 $aw2 hidden $hidden"
done
rm -f "$f"*
echo
echo "ratio (min / median / max over $REPS rounds)"
for k in t1w t1r t2w t2r a0 a2 hid ceil wleft; do
    printf '%-5s %s\n' "$k" "$(echo "${R[$k]}" | tr ' ' '\n' | stats)"
done

echo
echo "max RSS (KiB) of the aggregator and the sender, -type 4 -num_io 1 -size 64K -ahead 1, -csize = nobj x 64K:"
for n in 4 64; do
    rss=$(run_np 2 /usr/bin/time -f 'RSS %M' "$MIOT" -type 4 -num_io 1 -nobj "$n" -size 64K -csize "$((n * 64))K" -ahead 1 -target "$f.m" -deletefile -op write 2>&1 >/dev/null | awk '/^RSS/ { print $2 }' | sort -n | tr '\n' ' ')
    echo "nobj $n (buffers $((2 * n * 64)) KiB): $rss"
done
rm -f "$f"*
