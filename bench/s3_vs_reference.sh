#!/usr/bin/env bash
# pario's S3 PUT and GET rates at queue depth 16 against a reference client
# on the same server and the same object shape: the AWS CLI (PyPI's
# `awscli`; `aws s3 cp` with 16 concurrent requests and parts of the same
# size). One rank, one object of SIZE MiB moved in parts (pario: -t PART,
# --s3.queue-depth=16; aws: multipart_chunksize PART, max_concurrent_requests
# 16). Each round runs pario's write, aws's upload, pario's read, aws's
# download, alternating, wall clock of the whole command (both start a
# process; aws's Python start-up is in its figure, pario's MPI start-up in
# its own). Prints each round and the median ratio pario/aws (>1: pario faster).
#   PARIO_TEST_S3_ENDPOINT=... PARIO_TEST_S3_ACCESS_KEY=... PARIO_TEST_S3_SECRET_KEY=... \
#     bench/s3_vs_reference.sh [SIZE_MIB] [PART_MIB] [ROUNDS]
# (scripts/test-object-servers.sh bench/s3_vs_reference.sh starts a server;
# IOR=/path/to/ior skips the release build).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-256}
PART=${2:-8}
ROUNDS=${3:-5}
: "${PARIO_TEST_S3_ENDPOINT:?set it (scripts/test-object-servers.sh exports it)}"
AWS=${AWS_CLI:-aws}
command -v "$AWS" >/dev/null || { echo "no '$AWS': pip install awscli, or set AWS_CLI" >&2; exit 2; }
TGT=${CARGO_TARGET_DIR:-target}
# IOR=path/to/ior uses that binary (e.g. a debug build, opt-level 1) instead.
if [ -z "${IOR:-}" ]; then
  cargo build --release -q -p pario-ior
  IOR=$TGT/release/ior
fi
T=$(mktemp -d)
export AWS_ACCESS_KEY_ID=$PARIO_TEST_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$PARIO_TEST_S3_SECRET_KEY
export AWS_DEFAULT_REGION=${PARIO_TEST_S3_REGION:-us-east-1} AWS_CONFIG_FILE=$T/aws.cfg
export PARIO_RESULTS_DIR=$T/runs PARIO_DB=$T/db.sqlite
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
BUCKET=pario-bench-$$
EP=$PARIO_TEST_S3_ENDPOINT
trap '"$AWS" --endpoint-url "$EP" s3 rb --force "s3://$BUCKET" >/dev/null 2>&1 || true; rm -rf "$T"' EXIT
cat > "$T/aws.cfg" <<CFG
[default]
s3 =
  max_concurrent_requests = 16
  multipart_threshold = ${PART}MB
  multipart_chunksize = ${PART}MB
  addressing_style = path
CFG
"$AWS" --endpoint-url "$EP" s3 mb "s3://$BUCKET" >/dev/null
head -c $((SIZE << 20)) /dev/urandom > "$T/data"

ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
ior_s3() { mpirun -np 1 "$IOR" -a S3 --s3.endpoint="$EP" --s3.queue-depth=16 \
  -o "s3://$BUCKET/pario" -b "${SIZE}m" -t "${PART}m" -k "$@"; }

echo "object ${SIZE} MiB, parts ${PART} MiB, queue depth 16, $ROUNDS rounds (ms wall clock; MiB/s)"
ratios_w=(); ratios_r=()
for r in $(seq "$ROUNDS"); do
  pw=$(ms ior_s3 -w)
  aw=$(ms "$AWS" --endpoint-url "$EP" s3 cp "$T/data" "s3://$BUCKET/aws")
  pr=$(ms ior_s3 -r)
  ar=$(ms "$AWS" --endpoint-url "$EP" s3 cp "s3://$BUCKET/aws" "$T/back")
  rate() { awk -v s="$SIZE" -v m="$1" 'BEGIN { printf "%.1f", s * 1000 / m }'; }
  printf 'round %d  PUT pario %6s aws %6s  GET pario %6s aws %6s\n' "$r" \
    "$(rate "$pw")" "$(rate "$aw")" "$(rate "$pr")" "$(rate "$ar")"
  ratios_w+=("$(awk -v a="$aw" -v p="$pw" 'BEGIN { printf "%.3f", a / p }')")
  ratios_r+=("$(awk -v a="$ar" -v p="$pr" 'BEGIN { printf "%.3f", a / p }')")
done
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
echo "median rate ratio pario/aws: PUT $(median "${ratios_w[@]}")  GET $(median "${ratios_r[@]}")"
