#!/usr/bin/env bash
# pario's pfind against GNU find on a tree of about 200,000 entries in
# /dev/shm, and how the work divides between ranks (docs/pfind.md,
# "Measurements").
#
# SHAPE=big (default): one directory of 150,000 files beside 50 directories
# of 1,000; SHAPE=many: 200 directories of 1,000. Files are sparse, half of
# them 3901 bytes, two thirds newer than the timestamp file. Two queries:
# the IO500's hard one (-newer TS -size 3901c -name '*01*') and easy one
# (-name '*01*'), each REPS times (default 3) as: find | wc -l, then pfind
# -C with each rank count of NPS (default "1 2 4"), alternating. Each line:
# the wall time (mpirun's start included), pfind's own walk time (scanned
# files over its rate), the counts, and per rank the files and entries
# examined, the entries it read, the items stolen and the time idle
# (-P -v -v). The script stops if a count
# differs from find's.
#
# usage: bench/pfind_vs_find.sh   knobs: SHAPE, REPS, NPS, DIR, PFIND
set -euo pipefail
cd "$(dirname "$0")/.."
SHAPE=${SHAPE:-big}
REPS=${REPS:-3}
NPS=${NPS:-1 2 4}
DIR=${DIR:-/dev/shm/pario-pfind-bench}
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# Each pfind run is kept as a record: keep them beside the bench directory
# ($DIR.records), not in the user's store (PARIO_RESULTS_DIR, PARIO_DB override).
export PARIO_RESULTS_DIR=${PARIO_RESULTS_DIR:-$DIR.records} PARIO_DB=${PARIO_DB:-none}
if [ -z "${PFIND:-}" ]; then
  cargo build --release -q -p pario-pfind --bin pfind
  PFIND="${CARGO_TARGET_DIR:-target}/release/pfind"
fi
rm -rf "$DIR"
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR" "$SHAPE" <<'PY'
import os, sys
root, shape = sys.argv[1], sys.argv[2]
t0 = 1_700_000_000
os.makedirs(root + "/data")
open(root + "/timestampfile", "w").close()
os.utime(root + "/timestampfile", (t0, t0))
def tree(d, n, first=0):
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        p = f"{d}/file.mdtest.{first}.{i}"
        with open(p, "w") as f:
            f.truncate(3901 if i % 2 == 0 else 0)
        t = t0 + 3600 if i % 3 else t0 - 3600
        os.utime(p, (t, t))
if shape == "big":
    tree(root + "/data/big", 150_000)
    for d in range(50):
        tree(f"{root}/data/mdtest_tree.{d}.0", 1000, d)
else:
    for d in range(200):
        tree(f"{root}/data/mdtest_tree.{d}.0", 1000, d)
PY
D=$DIR/data
now() { date +%s.%N; }
echo "# $(find "$D" | wc -l) entries ($SHAPE); $(uptime)"
for q in hard easy; do
  if [ $q = hard ]; then A=(-newer "$DIR/timestampfile" -size 3901c -name '*01*'); else A=(-name '*01*'); fi
  for rep in $(seq 1 "$REPS"); do
    s=$(now); want=$(find "$D" "${A[@]}" | wc -l); e=$(now)
    printf "%s rep%d find         wall %.3fs count %s\n" $q "$rep" "$(echo "$e - $s" | bc)" "$want"
    for np in $NPS; do
      s=$(now); out=$(timeout 300 mpirun -np "$np" "$PFIND" "$D" "${A[@]}" -C -P -vv -D rates); e=$(now)
      matched=$(grep '^MATCHED' <<<"$out")
      rate=$(grep '^\[DONE\]' <<<"$out" | sed 's/.*rate: \([0-9.]*\) kiops.*/\1/')
      walk=$(echo "scale=4; ${matched#*/} / ($rate * 1000)" | bc)
      ranks=$(grep '^\[[0-9]' <<<"$out" | sed 's/^\[\([0-9]*\)\].*(scanned \([0-9]*\) files, scanned dirents: \([0-9]*\).*work items stolen: \([0-9]*\).*idle: \([0-9.]*\)s, dirents read: \([0-9]*\))/r\1:files=\2,dirents=\3,read=\6,stole=\4,idle=\5s/' | tr '\n' ' ')
      printf "%s rep%d pfind -np %d wall %.3fs walk %.3fs %s | %s\n" $q "$rep" "$np" "$(echo "$e - $s" | bc)" "$walk" "$matched" "$ranks"
      found=${matched#MATCHED }
      [ "${found%/*}" = "$want" ] || { echo "pfind found ${found%/*}, find $want" >&2; exit 1; }
    done
  done
done
echo "# $(uptime)"
