#!/usr/bin/env bash
# Prints every shipped scenario in every format, analytic and with a seeded Monte Carlo, into
# one folder, so that two builds can be compared byte for byte:
#
#   scripts/snapshot-outputs.sh target/release/fallcost /tmp/before
#   ... change, cargo build --release ...
#   scripts/snapshot-outputs.sh target/release/fallcost /tmp/after
#   diff -r /tmp/before /tmp/after
#
# A restructuring must leave the two folders identical; a fix shows exactly the figures it moves.
set -euo pipefail
bin=${1:?usage: snapshot-outputs.sh FALLCOST_BINARY OUT_DIR}
out=${2:?usage: snapshot-outputs.sh FALLCOST_BINARY OUT_DIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
for s in scenarios/*.toml; do
  n=$(basename "$s" .toml)
  for f in table csv json markdown; do
    "$bin" compare --scenario "$s" --format "$f" > "$out/$n.$f" 2>&1 || echo "exit $?" >> "$out/$n.$f"
    "$bin" compare --scenario "$s" --format "$f" --mc 200000 --mc-runs 20 --seed 7 \
      > "$out/$n.mc.$f" 2>&1 || echo "exit $?" >> "$out/$n.mc.$f"
  done
done
"$bin" prices --format csv > "$out/prices.csv" 2>&1 || true
"$bin" check scenarios/ --format json > "$out/check.json" 2>&1 || true
echo "wrote $(ls "$out" | wc -l) files to $out"
