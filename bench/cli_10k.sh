#!/usr/bin/env bash
# Time the `pario` command itself at 10,000 stored runs (the brief: compare
# answers in under a second; `pario runs` lists without per-rank data).
# Fills a SQLite database with the store benchmark's synthetic runs (2
# releases x 4 workloads, 3 iterations of write and read, 8 ranks each;
# crates/store/examples/bench_10k.rs), then times the release `pario`
# binary end to end (process start, database open, query, statistics,
# rendering), best and median of REPEATS runs each.
#   bench/cli_10k.sh [RUNS] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10000}
REPEATS=${2:-5}
TGT=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p pario-cli
cargo build --release -q -p pario-store --example bench_10k
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DB=$T/bench.sqlite
echo "== filling $DB with $RUNS runs (store-level timings follow)"
"$TGT/release/examples/bench_10k" "$RUNS" "$DB"
export PARIO_DB=$DB PARIO_RESULTS_DIR=$T/runs
P=$TGT/release/pario
ONE=$("$P" runs -n 1 --format json | sed -n 's/.*"run_id": "\([^"]*\)".*/\1/p' | head -1)

# timed LABEL CMD...: wall-clock milliseconds, best and median.
timed() {
  local label=$1; shift
  local times=() out
  for _ in $(seq "$REPEATS"); do
    local t0 t1
    t0=$(date +%s%N)
    out=$("$@" 2>&1 >/dev/null) || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  printf '%-58s best %5d ms  median %5d ms\n' "$label" \
    "$(echo "$sorted" | head -1)" "$(echo "$sorted" | sed -n "$(( (REPEATS + 1) / 2 ))p")"
}

echo "== pario at $RUNS runs ($REPEATS repeats each)"
timed "pario runs (all $RUNS, table)" "$P" runs
timed "pario runs -n 20" "$P" runs -n 20
timed "pario runs --tag release=2.16 --param transfer_size=1m" "$P" runs --tag release=2.16 --param transfer_size=1m
timed "pario compare release=2.15 release=2.16 (table)" "$P" compare release=2.15 release=2.16
timed "pario compare ... --format json" "$P" compare release=2.15 release=2.16 --format json
timed "pario compare ... --per iteration (7,500 values per side)" "$P" compare release=2.15 release=2.16 --per iteration
timed "pario show ONE_RUN" "$P" show "$ONE"
timed "pario report release=2.15 release=2.16 (HTML with its plots)" "$P" report release=2.15 release=2.16 -o "$T/r.html"
echo "== the comparison itself"
"$P" compare release=2.15 release=2.16 | tail -4 || true
