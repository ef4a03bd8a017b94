#!/usr/bin/env bash
# io_uring queue depth: 4 KiB random O_DIRECT reads of one file of FILE_SIZE
# (default 4 GiB) on the local disk (never tmpfs: O_DIRECT must reach the
# device), 1 rank, for SECS seconds each (ior: -D stonewall; fio:
# --runtime). At each queue depth in DEPTHS (default 1 8 32):
#   ior -a URING --uring.odirect --uring.depth=D   (the engine keeps D in flight)
#   fio --ioengine=io_uring --iodepth=D             (same file, same sizes)
# and, once per round, our synchronous POSIX backend (--posix.odirect), which
# is depth 1 whatever D. Rounds interleave the tools (order rotated).
# Targets: ior >= fio at every depth; ior at depth 32 >= 2x POSIX.
#
#   bench/uring_vs_fio.sh                       # REPS=3, SECS=8, /var/tmp
#   URING_DIR=/data/tmp SECS=15 REPS=5 bench/uring_vs_fio.sh
#
# The file is written once (ior, 1 MiB O_DIRECT writes, so its blocks are
# allocated and hold data) and removed at the end, also on failure.
#
# mpirun binds a rank to a core by default while fio runs unbound; bound to
# core 0 (where this VM's disk interrupts land) fio itself loses ~10% at
# depth 1. So ior runs unbound too (--bind-to none), like for like.
MPIRUN=${MPIRUN:-mpirun --oversubscribe --bind-to none}
source "$(dirname "$0")/common.sh"

URING_DIR=${URING_DIR:-/var/tmp/pario-uring-bench}
FILE_SIZE=${FILE_SIZE:-4g}
SECS=${SECS:-8}
DEPTHS=${DEPTHS:-"1 8 32"}
REPS=${REPS:-3}

have fio || { echo "fio is needed: apt-get install -y fio" >&2; exit 1; }
have jq || { echo "jq is needed: apt-get install -y jq" >&2; exit 1; }
mkdir -p "$URING_DIR"
fstype=$(stat -f -c %T "$URING_DIR")
if [ "$fstype" = tmpfs ] || [ "$fstype" = ramfs ]; then
    echo "URING_DIR=$URING_DIR is on $fstype: O_DIRECT reads need a real disk" >&2
    exit 1
fi
file="$URING_DIR/randread"
trap 'rm -f "$file"; rmdir "$URING_DIR" 2>/dev/null; rm -rf "$WORK"' EXIT

machine_note
echo "# 4 KiB random O_DIRECT reads, 1 rank, $FILE_SIZE file on $fstype ($URING_DIR), ${SECS}s per run, depths: $DEPTHS"
run_np 1 "$IOR" -a POSIX --posix.odirect -w -k -t 1m -b "$FILE_SIZE" -o "$file" >/dev/null

run_ior() { # backend options...
    # shellcheck disable=SC2086
    run_np 1 $SETSID "$IOR" "$@" -r -E -k -z -t 4k -b "$FILE_SIZE" -D "$SECS" -o "$file" |
        ior_field read 3
}
run_fio() { # depth
    $SETSID fio --name=randread --filename="$file" --rw=randread --bs=4k --direct=1 \
        --ioengine=io_uring --iodepth="$1" --size="$FILE_SIZE" --runtime="$SECS" \
        --time_based --output-format=json | jq '.jobs[0].read.iops'
}

printf '%-5s %5s %12s %12s %12s %8s %10s\n' round depth ior_uring fio_uring ior_posix ior/fio ior/posix
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    posix=""
    for d in $DEPTHS; do
        tools=(ior fio)
        [ -z "$posix" ] && tools+=(posix)
        declare -A got=()
        n=${#tools[@]}
        for k in $(seq 0 $((n - 1))); do
            case ${tools[$(((rep + k) % n))]} in
            ior) got[ior]=$(run_ior -a URING --uring.odirect --uring.depth="$d") ;;
            fio) got[fio]=$(run_fio "$d") ;;
            posix) posix=$(run_ior -a POSIX --posix.odirect) ;;
            esac
        done
        rf=$(ratio "${got[ior]}" "${got[fio]}")
        rp=$(ratio "${got[ior]}" "$posix")
        printf '%-5s %5s %12.0f %12.0f %12.0f %8s %10s\n' "$rep" "$d" "${got[ior]}" "${got[fio]}" "$posix" "$rf" "$rp"
        echo "$d ${got[ior]} ${got[fio]} $posix $rf $rp" >>"$WORK/r"
    done
done

echo
echo "# min / median / max over $REPS rounds"
printf '%5s  %-28s %-28s %-28s %-20s %-20s\n' depth ior_uring_iops fio_uring_iops ior_posix_iops ior/fio ior/posix
for d in $DEPTHS; do
    col() { awk -v d="$d" -v c="$1" '$1 == d { print $c }' "$WORK/r" | stats "$2"; }
    printf '%5s  %-28s %-28s %-28s %-20s %-20s\n' "$d" "$(col 2 %.0f)" "$(col 3 %.0f)" \
        "$(col 4 %.0f)" "$(col 5 %.3f)" "$(col 6 %.3f)"
done
