#!/usr/bin/env bash
# Target 1, per-transfer overhead: 4 KiB random reads from the page cache on
# 2 ranks. ior (-r -z -F) against a plain pread loop (bench/pread_loop.c) and
# fio's psync engine, all reading the same two files (one per process), in
# interleaved rounds. Target: ior IOPS >= 95% of the pread loop's.
#
# Part 2 (when `perf stat` works): the same comparison in CPU time per
# transfer on 1 rank, which a busy shared machine disturbs much less than
# wall-clock IOPS: task-clock of the full run minus that of a 1-transfer run
# of the same program (removes MPI start-up, file open and set-up), divided
# by the transfers. The ratio pread/ior is the IOPS ratio a CPU-bound run
# would see.
#
#   bench/ior_iops_vs_pread.sh            # SIZE=512m per rank, REPS=5
#   SIZE=1g REPS=9 bench/ior_iops_vs_pread.sh
source "$(dirname "$0")/common.sh"

SIZE=${SIZE:-512m}
NP=2
bytes=$(numfmt --from=iec "${SIZE^^}")
file="$BENCH_DIR/iops"
files=()
for r in $(seq 0 $((NP - 1))); do files+=("$(printf '%s.%08d' "$file" "$r")"); done
pread_loop=$(build_pread_loop)

machine_note
echo "# $NP ranks, 4 KiB random reads over $SIZE per rank (file per process), files in $BENCH_DIR"
# Write the files once (1 MiB transfers), then only read them: page cache.
run_np $NP "$IOR" -w -F -k -t 1m -b "$SIZE" -o "$file" >/dev/null

run_ior() {
    # shellcheck disable=SC2086
    run_np $NP $SETSID "$IOR" -r -z -F -E -k -t 4k -b "$SIZE" -o "$file" | ior_field read 3
}
run_pread() {
    "$pread_loop" read 4096 "$bytes" rand "${files[@]}" | sed -n 's/.* iops=\([0-9.]*\).*/\1/p'
}
run_fio() {
    local jobs=()
    for f in "${files[@]}"; do jobs+=("--name=$(basename "$f")" "--filename=$f"); done
    fio --ioengine=psync --rw=randread --bs=4k --size="$bytes" --invalidate=0 \
        --group_reporting --output-format=json "${jobs[@]}" | jq '.jobs[0].read.iops'
}
tools=(ior pread)
have fio && have jq && tools+=(fio)

printf '%-5s %12s %12s %12s %10s %10s\n' round ior_iops pread_iops fio_iops ior/pread ior/fio
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    declare -A got=()
    # Rotate the order so that no tool always runs first.
    n=${#tools[@]}
    for k in $(seq 0 $((n - 1))); do
        t=${tools[$(((rep + k) % n))]}
        got[$t]=$("run_$t")
    done
    rp=$(ratio "${got[ior]}" "${got[pread]}")
    rf=$(ratio "${got[ior]}" "${got[fio]:-0}")
    printf '%-5s %12.0f %12.0f %12.0f %10s %10s\n' "$rep" "${got[ior]}" "${got[pread]}" "${got[fio]:-0}" "$rp" "$rf"
    echo "${got[ior]} ${got[pread]} ${got[fio]:-0} $rp $rf" >>"$WORK/r"
    unset got
done

cpu_rounds=0
if have perf && perf stat -x, -e task-clock -o "$WORK/ps" true 2>/dev/null; then
    cpu_rounds=$REPS
fi
# task-clock in ms of: cpu_ms NP cmd... (NP=0: no mpirun)
cpu_ms() {
    local np=$1
    shift
    if [ "$np" = 0 ]; then
        perf stat -x, -e task-clock -o "$WORK/ps" -- "$@" >/dev/null
    else
        run_np "$np" perf stat -x, -e task-clock -o "$WORK/ps" -- "$@" >/dev/null
    fi
    awk -F, '$3 == "task-clock" { print $1 }' "$WORK/ps"
}
ops=$((bytes / 4096))
if [ "$cpu_rounds" -gt 0 ]; then
    echo
    echo "# CPU time per 4 KiB random read, 1 rank, $ops transfers (task-clock, minus a 1-transfer run)"
    printf '%-5s %14s %14s %12s\n' round ior_ns/op pread_ns/op pread/ior
    : >"$WORK/c"
    for rep in $(seq 1 "$cpu_rounds"); do
        if [ $((rep % 2)) = 1 ]; then
            p_big=$(cpu_ms 0 "$pread_loop" read 4096 "$bytes" rand "${files[0]}")
            i_big=$(cpu_ms 1 "$IOR" -r -z -F -E -k -t 4k -b "$SIZE" -o "$file")
        else
            i_big=$(cpu_ms 1 "$IOR" -r -z -F -E -k -t 4k -b "$SIZE" -o "$file")
            p_big=$(cpu_ms 0 "$pread_loop" read 4096 "$bytes" rand "${files[0]}")
        fi
        i_small=$(cpu_ms 1 "$IOR" -r -z -F -E -k -t 4k -b 4k -o "$file")
        p_small=$(cpu_ms 0 "$pread_loop" read 4096 4096 rand "${files[0]}")
        i_ns=$(awk -v a="$i_big" -v b="$i_small" -v n="$ops" 'BEGIN { printf("%.1f", (a - b) * 1e6 / n) }')
        p_ns=$(awk -v a="$p_big" -v b="$p_small" -v n="$ops" 'BEGIN { printf("%.1f", (a - b) * 1e6 / n) }')
        r=$(ratio "$p_ns" "$i_ns")
        printf '%-5s %14s %14s %12s\n' "$rep" "$i_ns" "$p_ns" "$r"
        echo "$i_ns $p_ns $r" >>"$WORK/c"
    done
fi
rm -f "${files[@]}"

echo
echo "## 4 KiB random read IOPS, $NP ranks, min / median / max over $REPS rounds"
printf '%-22s %s\n' "ior" "$(cut -d' ' -f1 "$WORK/r" | stats %.0f)"
printf '%-22s %s\n' "pread loop" "$(cut -d' ' -f2 "$WORK/r" | stats %.0f)"
printf '%-22s %s\n' "fio psync" "$(cut -d' ' -f3 "$WORK/r" | stats %.0f)"
printf '%-22s %s   (target >= 0.95)\n' "ratio ior/pread" "$(cut -d' ' -f4 "$WORK/r" | stats)"
printf '%-22s %s\n' "ratio ior/fio" "$(cut -d' ' -f5 "$WORK/r" | stats)"
if [ "$cpu_rounds" -gt 0 ]; then
    echo "## CPU ns per transfer, 1 rank, min / median / max over $cpu_rounds rounds"
    printf '%-22s %s\n' "ior" "$(cut -d' ' -f1 "$WORK/c" | stats %.0f)"
    printf '%-22s %s\n' "pread loop" "$(cut -d' ' -f2 "$WORK/c" | stats %.0f)"
    printf '%-22s %s   (target >= 0.95)\n' "ratio pread/ior" "$(cut -d' ' -f3 "$WORK/c" | stats)"
fi
