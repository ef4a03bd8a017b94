#!/usr/bin/env bash
# pario's mdtest against upstream mdtest on the same workload: per phase,
# the ratio of the rates the two print (ours / upstream).
#
# Both run `mdtest -n N -i I -d DIR` with NP ranks (default -n 5000 -i 3,
# 2 ranks, DIR under /dev/shm), alternating, PAIRS times (default 6); the
# order inside a pair flips every pair (A B, B A, ...) so that a drift of
# the machine's load does not favour one tool. Each pair prints the ratio
# of the "Mean" column of every phase of the rate summary; the end prints
# min / median / max of each phase's ratios. Ratios near 1 mean both time
# the same interval (see crates/engine/src/mdtest.rs, "The timed interval").
#
# Upstream mdtest is not part of this repository: build IOR/mdtest from the
# public hpc/ior sources (the commit the IO500 pins) with the same MPI
# library, outside this tree, and give its path in UPSTREAM_MDTEST.
#
# usage: UPSTREAM_MDTEST=/path/to/mdtest bench/mdtest_vs_upstream.sh
#   knobs: NP, N, ITERS, PAIRS, DIR, MDTEST (our binary; default: release
#   build in $CARGO_TARGET_DIR), EXTRA (more mdtest options for both).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${UPSTREAM_MDTEST:?set UPSTREAM_MDTEST to an upstream mdtest binary}"
[ -x "$UPSTREAM_MDTEST" ] || { echo "UPSTREAM_MDTEST=$UPSTREAM_MDTEST: not executable" >&2; exit 2; }
NP=${NP:-2}
N=${N:-5000}
ITERS=${ITERS:-3}
PAIRS=${PAIRS:-6}
DIR=${DIR:-/dev/shm/pario-mdtest-vs-upstream}
EXTRA=${EXTRA:-}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/tgt-mdtest}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ -z "${MDTEST:-}" ]; then
  cargo build --release -q -p pario-mdtest --bin mdtest
  MDTEST="$CARGO_TARGET_DIR/release/mdtest"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK" "$DIR"' EXIT
# Our runs keep their records in the scratch directory, not the user's store.
export PARIO_RESULTS_DIR="$WORK/results" PARIO_DB="$WORK/results.sqlite"

# "phase<TAB>mean" for every row of the first rate summary on stdin.
means() {
  awk '/^SUMMARY rate/ { on = 1; next }
       /^SUMMARY time/ { on = 0 }
       on && $1 ~ /^(Directory|File|Tree)$/ && $3 ~ /^[0-9.]+$/ { print $1 " " $2 "\t" $5 }'
}

# run TOOL NAME: one run of TOOL into a fresh directory; means into WORK/NAME.
run() {
  rm -rf "$DIR" && mkdir -p "$DIR"
  # shellcheck disable=SC2086
  mpirun -np "$NP" "$1" -n "$N" -i "$ITERS" -d "$DIR/t" $EXTRA </dev/null >"$WORK/out" 2>&1 ||
    { echo "$1 failed:" >&2; cat "$WORK/out" >&2; exit 1; }
  means <"$WORK/out" >"$WORK/$2"
}

echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ours: $MDTEST"
echo "# upstream: $UPSTREAM_MDTEST"
echo "# workload: mpirun -np $NP mdtest -n $N -i $ITERS -d $DIR/t $EXTRA; $PAIRS pairs"
: >"$WORK/ratios"
for pair in $(seq "$PAIRS"); do
  if [ $((pair % 2)) = 1 ]; then
    run "$MDTEST" ours; run "$UPSTREAM_MDTEST" up
  else
    run "$UPSTREAM_MDTEST" up; run "$MDTEST" ours
  fi
  awk -F'\t' -v pair="$pair" 'FNR == NR { up[$1] = $2; next }
    ($1 in up) && up[$1] > 0 { printf "%s\t%d\t%.3f\t%s\t%s\n", $1, pair, $2 / up[$1], $2, up[$1] }' \
    "$WORK/up" "$WORK/ours" | tee -a "$WORK/ratios"
done
echo
printf '%-20s %8s %8s %8s   (ours / upstream, mean rate of %s iterations)\n' phase min median max "$ITERS"
awk -F'\t' '!($1 in seen) { seen[$1] = 1; order[++k] = $1 } { print $1 "\t" $3 }' "$WORK/ratios" |
  sort -t$'\t' -k1,1 -k2,2g |
  awk -F'\t' '{ v[$1, ++c[$1]] = $2 }
    END {
      n = split("Directory creation,Directory stat,Directory rename,Directory removal,File creation,File stat,File read,File removal,Tree creation,Tree removal", p, ",")
      for (i = 1; i <= n; i++) {
        m = c[p[i]]; if (!m) continue
        med = (m % 2) ? v[p[i], (m + 1) / 2] : (v[p[i], m / 2] + v[p[i], m / 2 + 1]) / 2
        printf "%-20s %8.3f %8.3f %8.3f\n", p[i], v[p[i], 1], med, v[p[i], m]
      }
    }'
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
