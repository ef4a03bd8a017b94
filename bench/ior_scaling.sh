#!/usr/bin/env bash
# Target 4, coordination: wall time of a 1 KiB ior job (write + read, shared
# file) on 8, 16, 32 and 64 ranks (oversubscribed), next to `mpirun true`
# (process launch only) and bench/mpi_hello.c (launch + MPI_Init + one
# barrier + finalize), interleaved. Start-up, clock sync and result gathering
# must not grow worse than linearly with the rank count: look at the
# "ior-hello" column (what pario adds to a bare MPI job) and its per-rank
# value, which must not grow with N.
#
#   bench/ior_scaling.sh                  # NPS="8 16 32 64" REPS=5
source "$(dirname "$0")/common.sh"
NPS=${NPS:-8 16 32 64}
hello=$(build_mpi_hello || true)

# Wall seconds of a command (stdout discarded).
wall() {
    local s e
    s=$(date +%s.%N)
    "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; return 1; }
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf("%.3f\n", e - s) }'
}
# `mpirun -np N true` with N >= 32: Open MPI 4.1.4's mpirun was seen to hang
# after the job ended now and then when the program exits at once (a race in
# its launcher, not seen with MPI programs). Give each try TRUE_TIMEOUT
# seconds and retry; a hung try is reported on stderr.
TRUE_TIMEOUT=${TRUE_TIMEOUT:-5}
wall_true() {
    local np=$1 try
    for try in 1 2 3 4 5; do
        if wall timeout "$TRUE_TIMEOUT" $MPIRUN -np "$np" true 2>/dev/null; then
            return 0
        fi
        echo "# mpirun -np $np true: no exit after ${TRUE_TIMEOUT}s (try $try), retrying" >&2
    done
    echo nan
}

machine_note
echo "# 1 KiB job: ior -w -r -t 1k -b 1k (POSIX, shared file in $BENCH_DIR); rounds: $REPS"
printf '%-5s %4s %9s %9s %9s %9s\n' round np true hello ior ior-hello
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    for np in $NPS; do
        t=$(wall_true "$np")
        h=0
        [ -n "$hello" ] && h=$(wall run_np "$np" "$hello")
        i=$(wall run_np "$np" "$IOR" -w -r -t 1k -b 1k -o "$BENCH_DIR/scale")
        d=$(awk -v a="$i" -v b="$h" 'BEGIN { printf("%.3f", a - b) }')
        printf '%-5s %4s %9s %9s %9s %9s\n' "$rep" "$np" "$t" "$h" "$i" "$d"
        echo "$np $t $h $i $d" >>"$WORK/r"
    done
done
rm -f "$BENCH_DIR"/scale*

echo
echo "## wall seconds, median over $REPS rounds (min-max of ior in brackets)"
printf '%4s %8s %8s %8s %15s %9s %9s %12s\n' np true hello ior "(ior min-max)" ior/true ior/hello "(ior-hello)/np"
for np in $NPS; do
    med() { awk -v n="$np" -v c="$1" '$1 == n && $c != "nan" { print $c }' "$WORK/r" | sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    t=$(med 2) h=$(med 3) i=$(med 4) d=$(med 5)
    range=$(awk -v n="$np" '$1 == n { print $4 }' "$WORK/r" | sort -g | sed -n '1p;$p' | paste -sd- -)
    printf '%4s %8.3f %8.3f %8.3f %15s %9s %9s %12s\n' "$np" "$t" "$h" "$i" "($range)" \
        "$(ratio "$i" "$t")" "$(ratio "$i" "$h")" "$(awk -v d="$d" -v n="$np" 'BEGIN { printf("%.4f", d / n) }')"
done
echo "(linear or better: (ior-hello)/np stays flat or falls as np doubles)"
