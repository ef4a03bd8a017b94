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
#   hidden          with -ahead 2, (receive wait + write wait - Write Time) /
#                   receive wait of the aggregator (the max of each line): the
#                   part of the receive time spent while writes were in flight
#                   (rough: the max of each line may come from different ranks;
#                   negative values mean the estimate says nothing at that size)
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

machine_note
echo "# mpi_io_test: $MIOT; $NP ranks, $OBJ x 1 MiB per rank"

# First number of the "=== <label>" line of phase $1 (write|read): min
effective() { # phase
    awk -v ph="=== MPI $1" 'index($0, ph) == 1 { on = 1; next }
        on && /^=== Effective Bandwidth/ { split($0, a, ": "); split(a[2], b, " "); print b[1]; exit }'
}
field() { # phase label column (1=min, 2=avg, 3=max; ranks dropped)
    awk -v ph="=== MPI $1" -v lab="=== $2" -v c="$3" 'index($0, ph) == 1 { on = 1; next }
        on && index($0, lab) == 1 { split($0, a, "): "); gsub(/\[[0-9]+\]/, "", a[2]); split(a[2], b, " +"); print b[c]; exit }'
}
miot() { run_np "$NP" $SETSID "$MIOT" "$@" -nobj "$OBJ" -size 1M; }
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
    a2=$(miot -type 4 -num_io 1 -csize "${OBJ}M" -ahead 2 -target "$f.4" -deletefile -op write)
    b0=$(echo "$a0" | effective write); b2=$(echo "$a2" | effective write)
    wait2=$(echo "$a2" | field write "MPI File Write Wait" 3)
    op2=$(echo "$a2" | field write "Write Time" 3); recv2=$(echo "$a2" | field write "MPI Processor Receive Wait" 3)
    hidden=$(awk -v o="$op2" -v r="$recv2" -v w="$wait2" 'BEGIN { if (r > 0) printf("%.3f\n", (r + w - o) / r); else print "nan" }')
    R[t1w]+="$(ratio "$w1" "$iw") "; R[t1r]+="$(ratio "$r1" "$ir") "
    R[t2w]+="$(ratio "$w2" "$jw") "; R[t2r]+="$(ratio "$r2" "$jr") "
    R[a0]+="$(ratio "$b0" "$w2") "; R[a2]+="$(ratio "$b2" "$w2") "; R[hid]+="$hidden "
    echo "round $round: t1 w $w1/$iw r $r1/$ir  t2 w $w2/$jw r $r2/$jr  t4 a0 $b0 a2 $b2 (vs t2 $w2)  hidden $hidden"
done
rm -f "$f"*
echo
echo "ratio (min / median / max over $REPS rounds)"
for k in t1w t1r t2w t2r a0 a2 hid; do
    printf '%-5s %s\n' "$k" "$(echo "${R[$k]}" | tr ' ' '\n' | stats)"
done

echo
echo "max RSS (KiB) of the aggregator and the sender, -type 4 -num_io 1 -size 64K -ahead 1, -csize = nobj x 64K:"
for n in 4 64; do
    rss=$(run_np 2 /usr/bin/time -f 'RSS %M' "$MIOT" -type 4 -num_io 1 -nobj "$n" -size 64K -csize "$((n * 64))K" -ahead 1 -target "$f.m" -deletefile -op write 2>&1 >/dev/null | awk '/^RSS/ { print $2 }' | sort -n | tr '\n' ' ')
    echo "nobj $n (buffers $((2 * n * 64)) KiB): $rss"
done
rm -f "$f"*
