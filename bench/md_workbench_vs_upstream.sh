#!/usr/bin/env bash
# pario's md-workbench against upstream md-workbench on the same workload:
# per phase, the ratio of the rates the two print (ours / upstream).
#
# Both run `md-workbench -o DIR -D D -P P -I I -R R -S S` with NP ranks
# (default -D 10 -P 2000 -I 2000 -R 3 -S 3901, 2 ranks, DIR under /dev/shm),
# alternating, PAIRS times (default 6); the order inside a pair flips every
# pair so that a drift of the machine's load does not favour one tool. Each
# pair prints the ratio of every phase's "rate:... iops/s" figure (benchmark:
# the mean over the R iterations); the end prints min / median / max per
# phase. Measurements on a shared machine are noisy: compare the ratios, not
# the rates.
#
# Upstream md-workbench is not part of this repository: build it from the
# public hpc/ior sources (the commit the IO500 pins) with the same MPI
# library, outside this tree, and give its path in UPSTREAM_MDWB.
#
# usage: UPSTREAM_MDWB=/path/to/md-workbench bench/md_workbench_vs_upstream.sh
#   knobs: NP, D, P, I, R, S, PAIRS, DIR, MDWB (our binary; default: release
#   build in $CARGO_TARGET_DIR), EXTRA (more options for both).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${UPSTREAM_MDWB:?set UPSTREAM_MDWB to an upstream md-workbench binary}"
[ -x "$UPSTREAM_MDWB" ] || { echo "UPSTREAM_MDWB=$UPSTREAM_MDWB: not executable" >&2; exit 2; }
NP=${NP:-2}
D=${D:-10}
P=${P:-2000}
I=${I:-2000}
R=${R:-3}
S=${S:-3901}
PAIRS=${PAIRS:-6}
DIR=${DIR:-/dev/shm/pario-mdwb-vs-upstream}
EXTRA=${EXTRA:-}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/tmp/tgt-mdwb}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
if [ -z "${MDWB:-}" ]; then
  cargo build --release -q -p pario-md-workbench --bin md-workbench
  MDWB="$CARGO_TARGET_DIR/release/md-workbench"
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK" "$DIR"' EXIT
# Our runs keep their records in the scratch directory, not the user's store.
export PARIO_RESULTS_DIR="$WORK/results" PARIO_DB="$WORK/results.sqlite"

# "phase<TAB>mean rate" of the all-rank phase lines on stdin.
rates() {
  awk '$1 ~ /^(precreate|benchmark|cleanup)$/ && $2 == "process" {
         for (i = 3; i <= NF; i++) if ($i ~ /^rate:/ && $(i + 1) == "iops/s") {
           sub(/^rate:/, "", $i); sum[$1] += $i; n[$1]++; break } }
       END { for (p in sum) printf "%s\t%f\n", p, sum[p] / n[p] }'
}

# run TOOL NAME: one run of TOOL into a fresh directory; rates into WORK/NAME.
run() {
  rm -rf "$DIR" && mkdir -p "$DIR"
  # shellcheck disable=SC2086
  (cd "$WORK" && mpirun -np "$NP" "$1" -o "$DIR/t" -D "$D" -P "$P" -I "$I" -R "$R" -S "$S" -G 1 $EXTRA) \
    </dev/null >"$WORK/out" 2>&1 || { echo "$1 failed:" >&2; cat "$WORK/out" >&2; exit 1; }
  rates <"$WORK/out" >"$WORK/$2"
}

echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ours: $MDWB"
echo "# upstream: $UPSTREAM_MDWB"
echo "# workload: mpirun -np $NP md-workbench -o $DIR/t -D $D -P $P -I $I -R $R -S $S $EXTRA; $PAIRS pairs"
: >"$WORK/ratios"
for pair in $(seq "$PAIRS"); do
  if [ $((pair % 2)) = 1 ]; then
    run "$MDWB" ours; run "$UPSTREAM_MDWB" up
  else
    run "$UPSTREAM_MDWB" up; run "$MDWB" ours
  fi
  awk -F'\t' -v pair="$pair" 'FNR == NR { up[$1] = $2; next }
    ($1 in up) && up[$1] > 0 { printf "%s\t%d\t%.3f\t%.0f\t%.0f\n", $1, pair, $2 / up[$1], $2, up[$1] }' \
    "$WORK/up" "$WORK/ours" | sort | tee -a "$WORK/ratios"
done
echo
printf '%-10s %8s %8s %8s   (ours / upstream, rate in iops/s)\n' phase min median max
cut -f1,3 "$WORK/ratios" | sort -t$'\t' -k1,1 -k2,2g |
  awk -F'\t' '{ v[$1, ++c[$1]] = $2 }
    END {
      n = split("precreate,benchmark,cleanup", p, ",")
      for (i = 1; i <= n; i++) {
        m = c[p[i]]; if (!m) continue
        med = (m % 2) ? v[p[i], (m + 1) / 2] : (v[p[i], m / 2] + v[p[i], m / 2 + 1]) / 2
        printf "%-10s %8.3f %8.3f %8.3f\n", p[i], v[p[i], 1], med, v[p[i], m]
      }
    }'
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
