#!/usr/bin/env bash
# Screenshots of a pario HTML report in headless Chromium, to look at.
#
#   scripts/report-screenshots.sh [OUT_DIR] [REPORT.html]
#
# Without REPORT.html, the demo report (every section, synthetic data from
# pario_report::demo) is built first with
# `cargo run -p pario-report --example demo_report`. The page is then shot
# at 1000 and 1400 px wide into OUT_DIR/report-1000.png and
# OUT_DIR/report-1400.png (full height of the page), and the plot files of
# the demo are in OUT_DIR/plots/. Open the PNG files and check: the verdict
# and the advisories above the table, the table not wider than the window,
# legends beside (never over) the data, tick labels with SI prefixes, even
# letter spacing in the PNG plots.
#
# Chromium: `scripts/setup.sh --report-check` installs it. Nothing is
# fetched from a network: the page is a local file and needs none.
set -euo pipefail

out=${1:-$(mktemp -d /tmp/pario-report-shots.XXXXXX)}
page=${2:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)

browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
  echo "report-screenshots.sh: no chromium on PATH (scripts/setup.sh --report-check installs it)" >&2
  exit 1
fi

if [ -z "$page" ]; then
  cd "$(dirname "$0")/.."
  cargo run -q -p pario-report --example demo_report -- "$out" >/dev/null
  page="$out/report.html"
fi
if [ ! -f "$page" ]; then
  echo "report-screenshots.sh: $page: no such file" >&2
  exit 2
fi
page=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

# The page's height at a width: Chromium lays it out and prints the DOM;
# a tall window is enough for our reports, so shoot at a fixed height.
shoot() {
  local width=$1 height=$2 file=$3
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --hide-scrollbars --user-data-dir="$profile" \
    --window-size="$width,$height" --screenshot="$file" "file://$page" \
    >/dev/null 2>&1
  [ -s "$file" ] || { echo "report-screenshots.sh: no screenshot at $width px" >&2; exit 1; }
  echo "$file"
}

height=${PARIO_SHOT_HEIGHT:-16000}
shoot 1000 "$height" "$out/report-1000.png"
shoot 1400 "$height" "$out/report-1400.png"
