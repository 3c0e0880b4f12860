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
run() { # run NAME ARGS...: one output file, the exit code appended when it is not 0
  local name=$1; shift
  "$bin" "$@" > "$out/$name" 2>&1 || echo "exit $?" >> "$out/$name"
}
for f in table csv json markdown; do
  run "prices.$f" prices --format "$f"
  run "prices-2026-07.$f" prices --pricing 2026-07 --format "$f"
  run "sweep-sept3.$f" sweep -s scenarios/sept3.toml --param incident.duration=30m:3h:30m --format "$f"
  run "sweep-failure.$f" sweep -s scenarios/policies.toml --param steady.failure_rate=0:0.05:0.025 --format "$f"
  run "sweep-failure.mc.$f" sweep -s scenarios/failover-chains.toml --param steady.failure_rate=0:0.05:0.025 --mc 20000 --seed 7 --format "$f"
  for c in tests/fixtures/compare/*.yaml tests/fixtures/compare/*.json; do
    run "config-$(basename "$c").$f" compare --config "$c" --scenario tests/fixtures/compare/steady.toml --format "$f"
    run "config-$(basename "$c").mc.$f" compare --config "$c" --scenario tests/fixtures/compare/steady-gray.toml --mc 20000 --seed 7 --format "$f"
  done
done
run prices-list.txt prices --list
for f in text json github sarif; do
  run "check-scenarios.$f" check scenarios/ --format "$f"
  run "check-fixtures.$f" check tests/fixtures/check --format "$f"
  run "check-incident.$f" check scenarios/ --incident 30m --profile 2000/400 --format "$f"
done
echo "wrote $(ls "$out" | wc -l) files to $out"
