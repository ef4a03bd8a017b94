#!/usr/bin/env bash
# What `pario suite run` adds over running its steps by hand: a scaled
# suite (ior file per process, ior shared file, ior random 64 KiB, mdtest;
# NP ranks, default 2, files on /dev/shm) run as one job
#   mpirun -np NP pario suite run bench.toml --set dir=...
# against the same resolved command lines (taken from its --dry-run) run one
# mpirun each, as a user would by hand; both keep every run (JSON + SQLite
# under a temporary directory). Rounds alternate which goes first.
# Target: suite wall time / by-hand wall time <= 1.01.
# Also printed: the suite's own share, 1 - (sum of its steps' recorded run
# times) / (suite wall time), an upper bound on what the suite itself costs
# inside the job (it also holds MPI start-up and each front end's set-up).
#
#   bench/suite_overhead.sh                       # NP=2 BLOCK=256m FILES=5000 REPS=5
#   BIN=/path/to/debug NP=4 REPS=9 bench/suite_overhead.sh
source "$(dirname "$0")/common.sh"

NP=${NP:-2}
BLOCK=${BLOCK:-256m}
FILES=${FILES:-5000}
BIN=${BIN:-$(dirname "$IOR")}
PARIO="$BIN/pario"
MDTEST="$BIN/mdtest"
if [ ! -x "$PARIO" ] || [ ! -x "$MDTEST" ]; then
    (cd "$ROOT" && cargo build --release -p pario-cli -p pario-mdtest >&2)
fi
data="$BENCH_DIR/suite"
trap 'rm -rf "$data" "$WORK"' EXIT

machine_note
echo "# pario: $PARIO; $NP ranks; block $BLOCK; mdtest $FILES files per rank; $REPS rounds"

cat >"$WORK/bench.toml" <<'TOML'
name = "bench"
[params]
dir = { help = "scratch" }
block = "256m"
files = "5000"
[[step]]
name = "ior-fpp"
tool = "ior"
args = "-w -r -F -t 1m -b ${block} -o ${dir}/fpp"
[[step]]
name = "ior-shared"
tool = "ior"
args = "-w -r -t 1m -b ${block} -o ${dir}/shared"
[[step]]
name = "ior-random"
tool = "ior"
args = "-w -r -F -z -t 64k -b ${block} -o ${dir}/rnd"
[[step]]
name = "mdtest"
tool = "mdtest"
args = "-F -n ${files} -d ${dir}/md"
TOML
sets=(--set "dir=$data" --set "block=$BLOCK" --set "files=$FILES")

# The resolved command lines, one per line, from the dry run.
run_np "$NP" "$PARIO" suite run "$WORK/bench.toml" "${sets[@]}" --dry-run \
    | sed -n 's/^  [^ ]* rep [0-9]*\/[0-9]*: //p' >"$WORK/steps"
[ -s "$WORK/steps" ] || { echo "no steps from the dry run" >&2; exit 1; }

now() { date +%s.%N; }

by_hand() { # prints wall seconds
    local t0 line
    t0=$(now)
    while read -r line; do
        line=${line/#ior /$IOR }
        line=${line/#mdtest /$MDTEST }
        eval "run_np $NP $SETSID $line" >/dev/null 2>>"$WORK/hand.err"
    done <"$WORK/steps"
    awk -v a="$t0" -v b="$(now)" 'BEGIN { printf("%.3f\n", b - a) }'
}

as_suite() { # prints "wall_seconds steps_seconds"
    local t0 t1 id
    t0=$(now)
    run_np "$NP" $SETSID "$PARIO" suite run "$WORK/bench.toml" "${sets[@]}" --format json >"$WORK/report.json" 2>"$WORK/suite.err"
    t1=$(now)
    id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suite_run"])' "$WORK/report.json")
    "$PARIO" runs --tag "suite_run=$id" --format json >"$WORK/runs.json"
    python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))
print("%.3f %.3f" % (float(sys.argv[3]) - float(sys.argv[2]), sum(r["finished"] - r["began"] for r in runs)))
' "$WORK/runs.json" "$t0" "$t1"
}

export PARIO_RESULTS_DIR="$WORK/results" PARIO_DB="$WORK/db.sqlite"
mkdir -p "$data"
printf '%-5s %10s %10s %10s %12s %12s\n' round hand_s suite_s steps_s suite/hand suite_share
: >"$WORK/r"
for rep in $(seq 1 "$REPS"); do
    if [ $((rep % 2)) = 1 ]; then
        h=$(by_hand); read -r s st < <(as_suite)
    else
        read -r s st < <(as_suite); h=$(by_hand)
    fi
    r=$(ratio "$s" "$h")
    share=$(awk -v s="$s" -v t="$st" 'BEGIN { printf("%.3f\n", 1 - t / s) }')
    printf '%-5s %10s %10s %10s %12s %12s\n' "$rep" "$h" "$s" "$st" "$r" "$share"
    echo "$r $share" >>"$WORK/r"
done
echo
echo "suite/hand  (min / median / max): $(cut -d' ' -f1 "$WORK/r" | stats)   target <= 1.010"
echo "suite share (min / median / max): $(cut -d' ' -f2 "$WORK/r" | stats)"
