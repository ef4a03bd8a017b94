#!/usr/bin/env bash
# Time the SQLite results store at 10,000 runs: insert, list, filtered list,
# and the query behind `pario compare` (see crates/store/examples/bench_10k.rs).
#   bench/store_10k.sh [RUNS] [DB_PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p pario-store --example bench_10k -- "$@"
