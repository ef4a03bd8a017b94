#!/usr/bin/env bash
# MPI-IO against our POSIX backend: 1 MiB transfers, one shared file on
# /dev/shm (BENCH_DIR), NP ranks (default 2), SIZE per rank (default 512m),
# write then read in one ior run per tool:
#   ior -a POSIX          (pwrite/pread)
#   ior -a MPIIO          (independent: MPI_File_write_at / read_at)
#   ior -a MPIIO -c       (collective: MPI_File_write_at_all / read_at_all,
#                          every transfer agreed by all ranks, see the engine)
# in interleaved rounds (order rotated). Target: MPI-IO independent within
# 10% of POSIX (ratio >= 0.90); collective is reported, not targeted (its
# two-phase I/O and per-transfer agreement cost more on one node).
#
#   bench/mpiio_vs_posix.sh                  # NP=2 SIZE=512m REPS=5
#   NP=4 SIZE=256m REPS=9 bench/mpiio_vs_posix.sh
source "$(dirname "$0")/common.sh"

NP=${NP:-2}
SIZE=${SIZE:-512m}
file="$BENCH_DIR/mpiio"
trap 'rm -f "$file"; rm -rf "$WORK"' EXIT

machine_note
echo "# $NP ranks, one shared file in $BENCH_DIR, 1 MiB transfers, $SIZE per rank, write then read"

run_tool() { # ior options...; prints "write_MiB/s read_MiB/s"
    local out
    # shellcheck disable=SC2086
    out=$(run_np "$NP" $SETSID "$IOR" "$@" -w -r -t 1m -b "$SIZE" -o "$file")
    echo "$(ior_field write 2 <<<"$out") $(ior_field read 2 <<<"$out")"
}
tools=(posix mpiio coll)

printf '%-5s %10s %10s %10s %10s %10s %10s %9s %9s %9s %9s\n' round posix_w mpiio_w coll_w \
    posix_r mpiio_r coll_r ind/px_w ind/px_r col/px_w col/px_r
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    declare -A got=()
    n=${#tools[@]}
    for k in $(seq 0 $((n - 1))); do
        t=${tools[$(((rep + k) % n))]}
        case $t in
        posix) got[posix]=$(run_tool -a POSIX) ;;
        mpiio) got[mpiio]=$(run_tool -a MPIIO) ;;
        coll) got[coll]=$(run_tool -a MPIIO -c) ;;
        esac
    done
    read -r pw pr <<<"${got[posix]}"
    read -r iw ir <<<"${got[mpiio]}"
    read -r cw cr <<<"${got[coll]}"
    line="$pw $iw $cw $pr $ir $cr $(ratio "$iw" "$pw") $(ratio "$ir" "$pr") $(ratio "$cw" "$pw") $(ratio "$cr" "$pr")"
    # shellcheck disable=SC2086
    printf '%-5s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %9s %9s %9s %9s\n' "$rep" $line
    echo "$line" >>"$WORK/r"
done

echo
echo "# MiB/s and ratios: min / median / max over $REPS rounds"
names=(posix_write mpiio_write collective_write posix_read mpiio_read collective_read
    independent/posix_write independent/posix_read collective/posix_write collective/posix_read)
for c in $(seq 1 10); do
    f=%.1f
    [ "$c" -gt 6 ] && f=%.3f
    printf '%-26s %s\n' "${names[$((c - 1))]}" "$(awk -v c="$c" '{ print $c }' "$WORK/r" | stats "$f")"
done
