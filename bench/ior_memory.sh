#!/usr/bin/env bash
# Target 3, peak memory per rank: max RSS of every rank (/usr/bin/time -f %M
# around each rank) for small and huge blocks, sequential, -z, -z -z, many
# segments and a large transfer size. DUMMY (-a DUMMY) does no I/O, so a
# 16 GiB block of 4 KiB transfers (4 Mi transfers per rank and phase) costs
# only the engine's own work, -z planning included. Target: max RSS <=
# transfer size (one buffer) + 16 MiB, whatever the block size.
# Reference rows: the smallest ior job and an MPI program that only
# initialises (bench/mpi_hello.c), i.e. what MPI itself costs.
# Part 2 (with valgrind): heap allocations for 8x more transfers must be the
# same number (nothing allocated per transfer).
#
#   bench/ior_memory.sh          # REPS=3
REPS=${REPS:-3}
source "$(dirname "$0")/common.sh"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
NP=2
hello=$(build_mpi_hello || true)

# Max RSS in KiB of each rank, space separated: rss NP cmd...
rss() {
    local np=$1
    shift
    rm -f "$WORK"/rss.*
    run_np "$np" sh -c 'exec /usr/bin/time -f %M -o "$0.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" "$@"' \
        "$WORK/rss" "$@" >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; return 1; }
    cat "$WORK"/rss.* | tr '\n' ' '
}

# name|transfer size in bytes|ior arguments
cases=(
    "tiny job (4k/4k)|4096|-a DUMMY -w -r -t 4k -b 4k"
    "seq 16g block, 4k xfer|4096|-a DUMMY -w -r -t 4k -b 16g"
    "-z 16g block, 4k xfer|4096|-a DUMMY -w -r -z -t 4k -b 16g"
    "-z -z 16g block, 4k xfer|4096|-a DUMMY -w -r -z -z -t 4k -b 16g"
    "-z 4096 segs of 4m, 4k|4096|-a DUMMY -w -r -z -t 4k -b 4m -s 4096"
    "-z 16384 segs, t=b=1m|1048576|-a DUMMY -w -r -z -t 1m -b 1m -s 16384"
    "seq 16g block, 64m xfer|67108864|-a DUMMY -w -r -t 64m -b 16g"
    "POSIX -z -W -R 256m, 4k|4096|-w -r -W -R -z --random-offset-seed=7 -F -t 4k -b 256m"
)
machine_note
echo "# $NP ranks; max RSS per rank in MiB; rounds: $REPS"
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    if [ -n "$hello" ]; then
        echo "mpi_hello (MPI only)|0|$(rss $NP "$hello")" >>"$WORK/r"
    fi
    for c in "${cases[@]}"; do
        IFS='|' read -r name xfer args <<<"$c"
        # shellcheck disable=SC2086
        echo "$name|$xfer|$(rss $NP "$IOR" $args -o "$BENCH_DIR/mem")" >>"$WORK/r"
    done
    rm -f "$BENCH_DIR"/mem*
done

echo
echo "## max RSS per rank (MiB), min / max over ranks and $REPS rounds"
printf '%-28s %6s %15s %10s %8s %8s\n' case xfer "rss min/max" "+tiny" limit max/lim
names=()
[ -n "$hello" ] && names+=("mpi_hello (MPI only)")
for c in "${cases[@]}"; do names+=("${c%%|*}"); done
tiny=$(awk -F'|' '$1 ~ /^tiny/ { n = split($3, v, " "); for (i = 1; i <= n; i++) if (v[i] > m) m = v[i] } END { print m + 0 }' "$WORK/r")
for name in "${names[@]}"; do
    awk -F'|' -v n="$name" -v tiny="$tiny" '
        $1 == n {
            x = $2
            k = split($3, v, " ")
            for (i = 1; i <= k; i++) {
                if (!(seen++) || v[i] < lo) lo = v[i]
                if (v[i] > hi) hi = v[i]
            }
        }
        END {
            if (!seen) { printf("%-28s (failed)\n", n); exit }
            if (x == 0) { printf("%-28s %6s %6.1f /%6.1f %10s %8s %8s\n", n, "-", lo / 1024, hi / 1024, "-", "-", "-"); exit }
            lim = x / 1048576 + 16
            xs = (x >= 1048576) ? sprintf("%dm", x / 1048576) : sprintf("%dk", x / 1024)
            printf("%-28s %6s %6.1f /%6.1f %+10.1f %8.1f %8.3f\n", n, xs, lo / 1024, hi / 1024, (hi - tiny) / 1024, lim, hi / 1024 / lim)
        }' "$WORK/r"
done
echo "(+tiny: growth over the 4k/4k job, i.e. what block size, ordering and"
echo " transfer size add; limit = transfer size + 16 MiB; max/lim <= 1 meets it."
echo " RSS counts shared-library pages too: MPI alone is the mpi_hello row.)"

if have valgrind; then
    echo
    echo "## heap allocations, 1 rank, -a DUMMY -w -r -z -t 4k (valgrind memcheck)"
    for b in 64m 512m; do
        n=$(valgrind --tool=memcheck --leak-check=no "$IOR" -a DUMMY -w -r -z -t 4k -b $b -o "$BENCH_DIR/mem" 2>&1 |
            sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p')
        printf '%-6s %8d transfers per phase: %s allocations\n' "-b $b" $(($(numfmt --from=iec ${b^^}) / 4096)) "$n"
    done
    echo "(equal counts: nothing is allocated per transfer)"
fi
