#!/usr/bin/env bash
# The run step of action.yml: `fallcost check` from the action's inputs (INPUT_* variables).
# Runs anywhere bash does, so it is tested locally (tests/action.rs):
#   FALLCOST=target/debug/fallcost INPUT_PATHS=scenarios/ INPUT_FORMAT=text bash action/check.sh
# Exit code: fallcost's (0 clean, 1 findings, 2 input error); 2 for a bad input value here; 0
# for findings under mode: both (the diff step fails the job with them).
set -uo pipefail

fallcost="${FALLCOST:-fallcost}"
format="${INPUT_FORMAT:-github}"
max_ratio="${INPUT_MAX_RATIO:-2}"
output="${INPUT_OUTPUT:-}"

case "$format" in
  github|text|json|sarif) ;;
  *) echo "::error title=fallcost check::format must be github, text, json or sarif; got '$format'"
     exit 2 ;;
esac
case "${INPUT_DENY_WARNINGS:-false}" in
  true|false) ;;
  *) echo "::error title=fallcost check::deny-warnings must be true or false; got '${INPUT_DENY_WARNINGS}'"
     exit 2 ;;
esac

args=(check --max-ratio "$max_ratio" --format "$format" --color never)
if [ -n "${INPUT_PRICING:-}" ]; then args+=(--pricing "$INPUT_PRICING"); fi
if [ -n "${INPUT_PROFILE:-}" ]; then args+=(--profile "$INPUT_PROFILE"); fi
if [ "${INPUT_DENY_WARNINGS:-false}" = true ]; then args+=(--deny-warnings); fi
if [ -n "${INPUT_CONFIG_FILE:-}" ]; then args+=(--config-file "$INPUT_CONFIG_FILE"); fi
if [ -n "${INPUT_INCIDENT:-}" ]; then args+=(--incident "$INPUT_INCIDENT"); fi
allow=()
read -r -d '' -a allow <<< "${INPUT_ALLOW:-}"
for a in ${allow[@]+"${allow[@]}"}; do args+=(--allow "$a"); done
# Paths separated by spaces or newlines (a path holding a space cannot be given here).
paths=()
read -r -d '' -a paths <<< "${INPUT_PATHS:-.}"
if [ "${#paths[@]}" -eq 0 ]; then paths=(.); fi
args+=(-- "${paths[@]}")

if [ "$format" = sarif ] && [ -z "$output" ]; then output=fallcost.sarif; fi
if [ -n "$output" ]; then
  "$fallcost" "${args[@]}" > "$output"
  code=$?
  # The summary stays in the log.
  if [ "$format" = sarif ] || [ "$format" = json ]; then
    echo "fallcost check: report written to $output (exit $code)"
  else
    tail -n 1 "$output"
  fi
else
  "$fallcost" "${args[@]}"
  code=$?
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "report=$output"
  } >> "$GITHUB_OUTPUT"
fi
# mode: both: the diff step runs next and fails the job with this code (CHECK_EXIT_CODE).
if [ "${INPUT_MODE:-check}" = both ] && [ "$code" -ne 2 ]; then exit 0; fi
exit "$code"
