#!/usr/bin/env bash
# pario's ior and mdtest against upstream IOR and mdtest built with CephFS
# (`./configure --with-cephfs`), both through libcephfs on the same test
# file system, paired and alternating: per job, the ratio of what the two
# print (ours / upstream).
#
# Jobs, for NP in NPS (default "2 4"):
#   ior fpp:    ior -a CEPHFS -w -r -F -t 1m -b BLOCK -i ITERS (default 32m, 2)
#   ior shared: the same without -F
#   mdtest:     mdtest -a CEPHFS -F -C -T -r -n N -i ITERS -u (default N=500)
# Both tools make the same libcephfs calls; each rank reads back what it
# wrote, so the file-per-process reads may come from the rank's own
# libcephfs cache for both (no -C/-Z: the two tools' reorderings differ).
# Each job runs PAIRS times (default 4) per tool, alternating, the order
# flipping every pair; the end prints min / median / max of each ratio.
#
# The file system: CEPHFS_CONF and CEPHFS_USER (default: the test cluster's
# PARIO_TEST_CEPHFS_CONF / PARIO_TEST_CEPHFS_USER, from
# `eval "$(bash scripts/test-object-servers.sh start)"`). Upstream needs
# --cephfs.prefix: both tools get --cephfs.prefix=/cephfs and paths under
# it, which are the file system's root.
#
# usage: UPSTREAM_IOR=/path/to/ior UPSTREAM_MDTEST=/path/to/mdtest \
#          bench/cephfs_vs_upstream.sh
#   knobs: NPS, BLOCK, ITERS, N, PAIRS, IOR and MDTEST (our binaries).
source "$(dirname "$0")/common.sh"
: "${UPSTREAM_IOR:?set UPSTREAM_IOR to an upstream ior built --with-cephfs}"
: "${UPSTREAM_MDTEST:?set UPSTREAM_MDTEST to an upstream mdtest built --with-cephfs}"
CEPHFS_CONF=${CEPHFS_CONF:-${PARIO_TEST_CEPHFS_CONF:?set CEPHFS_CONF (or start scripts/test-object-servers.sh)}}
CEPHFS_USER=${CEPHFS_USER:-${PARIO_TEST_CEPHFS_USER:-admin}}
NPS=${NPS:-2 4}
BLOCK=${BLOCK:-32m}
ITERS=${ITERS:-2}
N=${N:-500}
PAIRS=${PAIRS:-4}
if [ -z "${MDTEST:-}" ]; then
    MDTEST="$(dirname "$IOR")/mdtest"
    [ -x "$MDTEST" ] || (cd "$ROOT" && cargo build --release -p pario-mdtest --bin mdtest >&2)
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
export PARIO_RESULTS_DIR="$WORK/results" PARIO_DB="$WORK/results.sqlite"
CEPH="-a CEPHFS --cephfs.conf=$CEPHFS_CONF --cephfs.user=$CEPHFS_USER --cephfs.prefix=/cephfs"

# Mean MiB/s of operation $1 from the "Summary of all tests" table on stdin.
summary_mean() {
    awk -v op="$1" '/^Summary of all tests/ { on = 1; next }
        on && $1 == op && $2 ~ /^[0-9.]+$/ { print $4; exit }'
}

# Mean rate of mdtest phase "$1 $2" (File creation, ...) on stdin.
mdtest_mean() {
    awk -v a="$1" -v b="$2" '/^SUMMARY rate/ { on = 1; next } /^SUMMARY time/ { on = 0 }
        on && $1 == a && $2 == b && $5 ~ /^[0-9.]+$/ { print $5; exit }'
}

# job NP KIND TOOL: one run; prints its figures (space-separated).
job() {
    local np=$1 kind=$2 tool=$3 tag=$RANDOM$RANDOM
    # shellcheck disable=SC2086
    case "$kind" in
    fpp | shared)
        local f=""
        [ "$kind" = fpp ] && f=-F
        $SETSID $MPIRUN -np "$np" "$tool" $CEPH -w -r $f -t 1m -b "$BLOCK" -i "$ITERS" \
            -o "/cephfs/bench-$tag" </dev/null >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; exit 1; }
        echo "$(summary_mean write <"$WORK/out") $(summary_mean read <"$WORK/out")"
        ;;
    mdtest)
        $SETSID $MPIRUN -np "$np" "$tool" $CEPH -F -C -T -r -n "$N" -i "$ITERS" -u \
            -d "/cephfs/md-$tag" </dev/null >"$WORK/out" 2>&1 || { cat "$WORK/out" >&2; exit 1; }
        echo "$(mdtest_mean File creation <"$WORK/out") $(mdtest_mean File stat <"$WORK/out") $(mdtest_mean File removal <"$WORK/out")"
        ;;
    esac
}

machine_note
echo "# ours: $IOR, $MDTEST"
echo "# upstream: $UPSTREAM_IOR, $UPSTREAM_MDTEST"
echo "# file system: $CEPHFS_CONF as client.$CEPHFS_USER; $PAIRS pairs per job"
: >"$WORK/ratios"
for np in $NPS; do
    for kind in fpp shared mdtest; do
        for pair in $(seq "$PAIRS"); do
            if [ $((pair % 2)) = 1 ]; then
                ours=$(job "$np" "$kind" "$([ $kind = mdtest ] && echo "$MDTEST" || echo "$IOR")")
                up=$(job "$np" "$kind" "$([ $kind = mdtest ] && echo "$UPSTREAM_MDTEST" || echo "$UPSTREAM_IOR")")
            else
                up=$(job "$np" "$kind" "$([ $kind = mdtest ] && echo "$UPSTREAM_MDTEST" || echo "$UPSTREAM_IOR")")
                ours=$(job "$np" "$kind" "$([ $kind = mdtest ] && echo "$MDTEST" || echo "$IOR")")
            fi
            if [ "$kind" = mdtest ]; then names="create stat remove"; else names="write read"; fi
            read -r -a o <<<"$ours"
            read -r -a u <<<"$up"
            i=0
            for name in $names; do
                r=$(ratio "${o[$i]:-x}" "${u[$i]:-x}")
                printf 'np=%s %-6s %-6s pair %s: ours %10s up %10s ratio %s\n' "$np" "$kind" "$name" \
                    "$pair" "${o[$i]:--}" "${u[$i]:--}" "$r"
                echo "np=$np $kind $name $r" >>"$WORK/ratios"
                i=$((i + 1))
            done
        done
    done
done
echo
echo "job (ours/upstream)          min / median / max"
awk '{ print $1 " " $2 " " $3 }' "$WORK/ratios" | sort -u | while read -r a b c; do
    printf '%-28s %s\n' "$a $b $c" "$(awk -v k="$a $b $c" '$1 " " $2 " " $3 == k { print $4 }' "$WORK/ratios" | stats)"
done
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
