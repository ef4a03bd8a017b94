# Shared helpers for the bench/ scripts (sourced, not run).
#
# Environment (all optional):
#   IOR        path of the ior binary (default: built with cargo into
#              $CARGO_TARGET_DIR, or target/, if missing)
#   REPS       interleaved repetitions (default 5)
#   BENCH_DIR  scratch directory for test files (default /dev/shm/pario-bench)
#   MPIRUN     mpirun command (default: mpirun --oversubscribe)
#   SESSIONS   1 (default): run every measured process (ior rank, dd, pread
#              loop) in its own session, as fio does with its job processes.
#              Linux groups CPU time by session (sched autogroup), so on a
#              busy machine a tool that does not do this gets a smaller share
#              and looks slower. 0: leave sessions alone.

set -euo pipefail

BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_SRC/.." && pwd)
REPS=${REPS:-5}
BENCH_DIR=${BENCH_DIR:-/dev/shm/pario-bench}
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
SESSIONS=${SESSIONS:-1}
SETSID=""
if [ "$SESSIONS" = 1 ] && command -v setsid >/dev/null 2>&1; then
    SETSID="setsid -w"
fi
WORK=$(mktemp -d /tmp/pario-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

if [ -z "${IOR:-}" ]; then
    IOR="${CARGO_TARGET_DIR:-$ROOT/target}/release/ior"
    if [ ! -x "$IOR" ]; then
        (cd "$ROOT" && cargo build --release -p pario-ior >&2)
    fi
fi
[ -x "$IOR" ] || { echo "no ior binary at $IOR" >&2; exit 1; }

mkdir -p "$BENCH_DIR"

# mpirun with N ranks: run_np N cmd...
run_np() {
    local n=$1
    shift
    # shellcheck disable=SC2086
    $MPIRUN -np "$n" "$@" </dev/null
}

# Compile bench/pread_loop.c into $WORK; prints the binary's path.
build_pread_loop() {
    cc -O2 -o "$WORK/pread_loop" "$BENCH_SRC/pread_loop.c"
    echo "$WORK/pread_loop"
}

# Column $2 of the first results row of operation $1 ("write"/"read") in ior
# text output on stdin: $2 = 2 for MiB/s, 3 for IOPS.
ior_field() {
    awk -v op="$1" -v col="$2" '$1 == op && $2 ~ /^[0-9.]+$/ { print $col; exit }'
}

# min / median / max of the numbers on stdin (other lines, e.g. nan, are
# skipped), formatted with $1 (printf).
stats() {
    { grep -E '^[0-9.eE+-]+$' || true; } | sort -g | awk -v f="${1:-%.3f}" '
        { v[NR] = $1 }
        END {
            if (NR == 0) { print "n/a"; exit }
            med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf(f " / " f " / " f "\n", v[1], med, v[NR])
        }'
}

# a / b with 3 decimals.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.eE+-]+$/ && b ~ /^[0-9.eE+-]+$/ && b + 0 > 0) printf("%.3f\n", a / b); else print "nan" }'
}

have() { command -v "$1" >/dev/null 2>&1; }

machine_note() {
    echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# ior: $IOR"
    echo "# own session per measured process: ${SETSID:-no} (sched_autogroup_enabled=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo '?'))"
}

# Compile bench/mpi_hello.c with mpicc into $WORK; prints its path, or
# nothing when mpicc is missing.
build_mpi_hello() {
    if have mpicc; then
        mpicc -O2 -o "$WORK/mpi_hello" "$BENCH_SRC/mpi_hello.c" && echo "$WORK/mpi_hello"
    fi
}

# The geometric mean of the ratios on stdin with its 95% confidence interval
# (Student's t on the logarithms, which treats a ratio and its inverse
# alike): "geomean G, 95% CI [L, H], N ratios". A CI that contains 1.000
# means the tools could not be told apart.
ratio_ci() {
    { grep -E '^[0-9.eE+-]+$' || true; } | awk '
        BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 " \
                      "2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 " \
                      "2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ") }
        $1 > 0 { l[++n] = log($1); s += l[n] }
        END {
            if (n < 2) { print "n/a (fewer than 2 ratios)"; exit }
            m = s / n
            for (i = 1; i <= n; i++) v += (l[i] - m) ^ 2
            se = sqrt(v / (n - 1) / n)
            q = (n - 1 <= 30) ? t[n - 1] : 1.96 + 2.4 / (n - 1)
            printf("geomean %.3f, 95%% CI [%.3f, %.3f], %d ratios\n",
                   exp(m), exp(m - q * se), exp(m + q * se), n)
        }'
}
