#!/bin/bash
# Alternates pario's io500 and the IO500 harness on the same config and
# prints each phase's figure and the score as the ratio pario / harness
# (mean, min and max over the pairs). Usage:
#   scripts/io500-agreement.sh PARIO_IO500 HARNESS_IO500 RANKS PAIRS ROOT
# ROOT (for example /dev/shm/io500cmp) is created and used for data,
# results and pario's kept runs; the config is written there. The sizes
# per rank come from EASY_BLOCK (ior-easy blockSize, default 512m),
# HARD_SEGMENTS (ior-hard segmentCount, 4000), MD_EASY_N (20000) and
# MD_HARD_N (5000); the defaults make phases of well under a second on
# /dev/shm, too short to compare (see docs/io500.md).
set -eu
pario=$1 harness=$2 np=$3 pairs=$4 root=$5
mkdir -p "$root"
cat > "$root/config.ini" <<INI
[global]
datadir = $root/data
resultdir = $root/res
timestamp-datadir = FALSE
timestamp-resultdir = TRUE
[debug]
stonewall-time = 3
[ior-easy]
transferSize = 1m
blockSize = ${EASY_BLOCK:-512m}
[ior-hard]
segmentCount = ${HARD_SEGMENTS:-4000}
[mdtest-easy]
n = ${MD_EASY_N:-20000}
[mdtest-hard]
n = ${MD_HARD_N:-5000}
INI
export PARIO_RESULTS_DIR=$root/keep PARIO_DB=none
for i in $(seq 1 "$pairs"); do
  for prog in pario harness; do
    bin=$pario; [ $prog = harness ] && bin=$harness
    rm -rf "$root/data"; mkdir -p "$root/data"
    mpirun -np "$np" "$bin" "$root/config.ini" --timestamp="$prog-$i" \
      > "$root/$prog-$i.out" 2>&1 || true
    echo "$prog $i: $(grep '^\[SCORE ' "$root/$prog-$i.out")"
  done
done
python3 - "$root" "$pairs" <<'PY'
import sys, re, statistics as st
root, pairs = sys.argv[1], int(sys.argv[2])
def scores(prog, i):
    t = open(f"{root}/res/{prog}-{i}/result.txt").read()
    out, secs, name = {}, {}, None
    for l in t.splitlines():
        m = re.match(r"\[(.+)\]$", l)
        if m: name = m.group(1)
        m = re.match(r"(score|SCORE|MD|BW)\s*= ([0-9.]+)", l)
        if m and name:
            key = name if m.group(1) == "score" else m.group(1)
            out[key] = float(m.group(2))
        m = re.match(r"t_delta\s*= ([0-9.]+)", l)
        if m and name:
            secs[name] = float(m.group(1))
    return out, secs
rows, secs = {}, {}
for i in range(1, pairs + 1):
    (p, ps), (h, hs) = scores("pario", i), scores("harness", i)
    for k in h:
        if k in p and h[k] > 0 and p[k] > 0:
            rows.setdefault(k, []).append((p[k], h[k], p[k] / h[k]))
        if k in ps and k in hs:
            secs.setdefault(k, []).append((ps[k], hs[k]))
print("| phase | pario (mean) | harness (mean) | pario/harness mean | min | max "
      "| phase seconds pario / harness (mean) |")
print("|---|---|---|---|---|---|---|")
for k, v in rows.items():
    r = [x[2] for x in v]
    d = secs.get(k)
    t = f"{st.mean(x[0] for x in d):.2f} / {st.mean(x[1] for x in d):.2f}" if d else ""
    print(f"| {k} | {st.mean(x[0] for x in v):.4f} | {st.mean(x[1] for x in v):.4f} "
          f"| {st.mean(r):.3f} | {min(r):.3f} | {max(r):.3f} | {t} |")
PY
