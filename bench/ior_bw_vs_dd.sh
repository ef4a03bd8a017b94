#!/usr/bin/env bash
# Target 2, large transfers: 1 MiB file-per-process writes and reads on
# /dev/shm, 2 ranks. ior against dd (one dd per file, started together) and
# fio's psync engine, in interleaved rounds. Target: ior >= 95% of dd/fio.
#
# Rows:
#   write      fresh files: ior -w (removes old files first, untimed) vs dd
#              into removed files (fio cannot: it lays files out first)
#   overwrite  existing files: ior -w -E vs dd conv=notrunc vs fio rw=write
#   read       ior -r vs dd to /dev/null vs fio rw=read
# Bandwidths are aggregate MiB/s. ior's is bytes / (last close - first open);
# dd's is bytes / the longest dd's own elapsed time (its start-up excluded),
# fio's its group bandwidth.
#
#   bench/ior_bw_vs_dd.sh                  # SIZE=1g per rank, REPS=5
source "$(dirname "$0")/common.sh"

SIZE=${SIZE:-1g}
NP=2
bytes=$(numfmt --from=iec "${SIZE^^}")
mib=$((bytes / 1048576))
file="$BENCH_DIR/bw"
files=()
for r in $(seq 0 $((NP - 1))); do files+=("$(printf '%s.%08d' "$file" "$r")"); done
export LC_ALL=C

machine_note
echo "# $NP ranks, 1 MiB transfers, $SIZE per rank (file per process), files in $BENCH_DIR"

ior_bw() { # op args...
    local op=$1
    shift
    # shellcheck disable=SC2086
    run_np $NP $SETSID "$IOR" "$@" -F -k -t 1m -b "$SIZE" -o "$file" | ior_field "$op" 2
}
# Aggregate MiB/s of one dd per file run together: dd_bw if|of extra-args...
dd_bw() {
    local dir=$1 pids=() i=0
    shift
    for f in "${files[@]}"; do
        if [ "$dir" = of ]; then
            $SETSID dd if=/dev/zero of="$f" bs=1M count="$mib" "$@" 2>"$WORK/dd.$i" &
        else
            $SETSID dd if="$f" of=/dev/null bs=1M "$@" 2>"$WORK/dd.$i" &
        fi
        pids+=($!)
        i=$((i + 1))
    done
    wait "${pids[@]}"
    cat "$WORK"/dd.* | sed -n 's/.*copied, \([0-9.e+-]*\) s,.*/\1/p' |
        awk -v b="$((bytes * NP))" '$1 > m { m = $1 } END { printf("%.2f\n", b / m / 1048576) }'
    rm -f "$WORK"/dd.*
}
fio_bw() { # rw
    local jobs=()
    for f in "${files[@]}"; do jobs+=("--name=$(basename "$f")" "--filename=$f"); done
    fio --ioengine=psync --rw="$1" --bs=1m --size="$bytes" --invalidate=0 \
        --group_reporting --output-format=json "${jobs[@]}" |
        jq --arg rw "${1}" '.jobs[0][$rw].bw_bytes / 1048576'
}
use_fio=0
have fio && have jq && use_fio=1

# Runs "$1" then "$2" on odd rounds, the other way round on even ones.
both() {
    if [ $((rep % 2)) = 1 ]; then eval "$1"; eval "$2"; else eval "$2"; eval "$1"; fi
}
run_round() {
    fow=0 fr=0
    # write: fresh files (ior removes them itself, untimed)
    both 'iw=$(ior_bw write -w)' 'rm -f "${files[@]}"; dw=$(dd_bw of)'
    # overwrite, after one untimed overwrite: the first overwrite that
    # follows the fresh writes above runs ~30% slower whoever does it (seen
    # on tmpfs), which alternating the order turned into a bimodal ratio.
    dd_bw of conv=notrunc >/dev/null
    both 'iow=$(ior_bw write -w -E)' 'dow=$(dd_bw of conv=notrunc)'
    [ $use_fio = 1 ] && fow=$(fio_bw write)
    # read
    both 'ir=$(ior_bw read -r -E)' 'dr=$(dd_bw if)'
    [ $use_fio = 1 ] && fr=$(fio_bw read)
    return 0
}

printf '%-5s %-9s %10s %10s %10s %8s %8s\n' round op ior dd fio ior/dd ior/fio
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    run_round
    for row in "write $iw $dw 0" "overwrite $iow $dow $fow" "read $ir $dr $fr"; do
        set -- $row
        a=$(ratio "$2" "$3")
        b=$(ratio "$2" "$4")
        printf '%-5s %-9s %10.0f %10.0f %10.0f %8s %8s\n' "$rep" "$1" "$2" "$3" "$4" "$a" "$b"
        echo "$1 $2 $3 $4 $a $b" >>"$WORK/r"
    done
done
rm -f "${files[@]}"

echo
echo "## 1 MiB transfers, $NP ranks, MiB/s and ratios: min / median / max over $REPS rounds"
for op in write overwrite read; do
    sel() { awk -v op="$op" -v c="$1" '$1 == op { print $c }' "$WORK/r"; }
    printf '%-9s ior        %s\n' "$op" "$(sel 2 | stats %.0f)"
    printf '%-9s dd         %s\n' "$op" "$(sel 3 | stats %.0f)"
    printf '%-9s ior/dd     %s   (target >= 0.95)\n' "$op" "$(sel 5 | stats)"
    if [ "$op" != write ] && [ $use_fio = 1 ]; then
        printf '%-9s fio        %s\n' "$op" "$(sel 4 | stats %.0f)"
        printf '%-9s ior/fio    %s   (target >= 0.95)\n' "$op" "$(sel 6 | stats)"
    fi
done
