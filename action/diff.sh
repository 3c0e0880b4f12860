#!/usr/bin/env bash
# The diff step of action.yml: `fallcost diff --base-ref BASE PATHS...` on a pull request, the
# Markdown posted as ONE sticky comment (found again by its hidden marker and updated on every
# push), the changed lines annotated. Runs anywhere bash, git, jq and gh do, so it is tested
# locally with a fake `gh` and a recorded pull_request event (tests/action.rs):
#   FALLCOST=target/debug/fallcost GITHUB_EVENT_PATH=event.json GITHUB_REPOSITORY=o/r \
#     INPUT_PATHS=gateway/ bash action/diff.sh
# Exit code: fallcost diff's (0 within thresholds, 1 a threshold crossed, 2 input error); 2
# for a bad input value here or an event without a pull request and no base-ref. A comment
# that cannot be posted (a fork's pull request: the job's token is read-only) is a notice or a
# warning, never the exit code. Portable to macOS runners: bash 3.2 (no bash 4 features; an
# empty array is expanded as ${a[@]+"${a[@]}"} under set -u), no GNU-only tools.
set -uo pipefail

marker='<!-- fallcost-diff -->'
fallcost="${FALLCOST:-fallcost}"
fail() { echo "::error title=fallcost diff::$1"; exit 2; }

case "${INPUT_COMMENT:-true}" in true|false) ;; *) fail "comment must be true or false; got '${INPUT_COMMENT}'" ;; esac
case "${INPUT_ONLY_INCREASES:-false}" in true|false) ;; *) fail "only-increases must be true or false; got '${INPUT_ONLY_INCREASES}'" ;; esac

event="${GITHUB_EVENT_PATH:-}"
pr=""
fork=false
base="${INPUT_BASE_REF:-}"
if [ -n "$event" ] && [ -f "$event" ]; then
  pr=$(jq -r '.pull_request.number // empty' "$event")
  if [ -z "$base" ]; then base=$(jq -r '.pull_request.base.sha // empty' "$event"); fi
  # A pull request from a fork: the job's token cannot write to this repository.
  head_repo=$(jq -r '.pull_request.head.repo.full_name // empty' "$event")
  base_repo=$(jq -r '.pull_request.base.repo.full_name // empty' "$event")
  if [ -n "$head_repo" ] && [ -n "$base_repo" ] && [ "$head_repo" != "$base_repo" ]; then fork=true; fi
fi
[ -n "$base" ] || fail "no base to diff against: run on a pull_request event or give base-ref"
# actions/checkout fetches one commit by default: fetch the base commit when it is missing.
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  git fetch --no-tags --depth=1 origin "$base" >/dev/null 2>&1 || fail "cannot fetch the base commit $base (use actions/checkout with fetch-depth: 0)"
fi

args=(diff --base-ref "$base" --color never)
if [ -n "${INPUT_SCENARIO:-}" ]; then args+=(--scenario "$INPUT_SCENARIO"); fi
if [ -n "${INPUT_PROFILE:-}" ]; then args+=(--profile "$INPUT_PROFILE"); fi
if [ -n "${INPUT_CONFIG_FILE:-}" ]; then args+=(--config-file "$INPUT_CONFIG_FILE"); fi
if [ -n "${INPUT_PATTERN:-}" ]; then args+=(--pattern "$INPUT_PATTERN"); fi
if [ -n "${INPUT_REQUESTS_PER_MONTH:-}" ]; then args+=(--requests-per-month "$INPUT_REQUESTS_PER_MONTH"); fi
if [ -n "${INPUT_BUDGET:-}" ]; then args+=(--budget "$INPUT_BUDGET"); fi
if [ -n "${INPUT_MC:-}" ]; then args+=(--mc "$INPUT_MC"); fi
if [ -n "${INPUT_SEED:-}" ]; then args+=(--seed "$INPUT_SEED"); fi
limits=()
read -r -d '' -a limits <<< "${INPUT_FAIL_ABOVE:-}"
for l in ${limits[@]+"${limits[@]}"}; do args+=(--fail-above "$l"); done
incidents=()
read -r -d '' -a incidents <<< "${INPUT_INCIDENTS:-}"
for f in ${incidents[@]+"${incidents[@]}"}; do args+=(--incidents "$f"); done
if [ "${INPUT_ONLY_INCREASES:-false}" = true ]; then args+=(--only-increases); fi
# Paths separated by spaces or newlines (a path holding a space cannot be given here).
paths=()
read -r -d '' -a paths <<< "${INPUT_PATHS:-.}"
if [ "${#paths[@]}" -eq 0 ]; then paths=(.); fi

report="${INPUT_OUTPUT:-${RUNNER_TEMP:-/tmp}/fallcost-diff.md}"
"$fallcost" "${args[@]}" --format markdown --output "$report" -- "${paths[@]}"
code=$?
if [ "$code" -eq 2 ]; then exit 2; fi
# Annotations on the changed lines, in the log (the thresholds' exit code is the run above's).
"$fallcost" "${args[@]}" --format github -- "${paths[@]}"

# The job summary and the outputs first: they appear whatever happens to the comment.
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -s "$report" ]; then cat "$report" >> "$GITHUB_STEP_SUMMARY"; fi

comment_id=""
warn() { echo "::warning title=fallcost diff::$1"; }
if [ "${INPUT_COMMENT:-true}" = true ] && [ -n "$pr" ] && [ "$fork" = true ]; then
  echo "::notice title=fallcost diff::pull request #$pr comes from a fork: the job's token cannot comment, so the report is in the job summary only"
elif [ "${INPUT_COMMENT:-true}" = true ] && [ -n "$pr" ]; then
  repo="${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}"
  if ! comments=$(gh api "repos/$repo/issues/$pr/comments" --paginate \
    --jq ".[] | select(.body | startswith(\"$marker\")) | .id"); then
    warn "cannot read the comments of pull request #$pr (does the token have pull-requests: write?): the report is in the job summary"
    comments=""
    pr=""
  fi
  comment_id=$(printf '%s\n' "$comments" | sed -n '1p')
  body="${RUNNER_TEMP:-/tmp}/fallcost-diff-comment.md"
  if [ -s "$report" ]; then
    { echo "$marker"; cat "$report"; } > "$body"
  else
    # --only-increases and nothing costs more: say so in the comment if there is one.
    printf '%s\n### fallcost diff\n\nNo chain costs or fails more than on the base branch.\n' "$marker" > "$body"
  fi
  if [ -z "$pr" ]; then
    :
  elif [ -n "$comment_id" ]; then
    if gh api -X PATCH "repos/$repo/issues/comments/$comment_id" -F "body=@$body" >/dev/null; then
      echo "fallcost diff: updated comment $comment_id on pull request #$pr"
    else
      warn "cannot update comment $comment_id: the report is in the job summary"
    fi
  elif [ -s "$report" ]; then
    if comment_id=$(gh api -X POST "repos/$repo/issues/$pr/comments" -F "body=@$body" --jq .id); then
      echo "fallcost diff: commented on pull request #$pr (comment $comment_id)"
    else
      comment_id=""
      warn "cannot comment on pull request #$pr: the report is in the job summary"
    fi
  fi
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "diff-exit-code=$code"
    echo "diff-report=$report"
    echo "comment-id=$comment_id"
  } >> "$GITHUB_OUTPUT"
fi
# mode: both: the check's findings fail the job too.
if [ "${CHECK_EXIT_CODE:-0}" -gt "$code" ] 2>/dev/null; then code="$CHECK_EXIT_CODE"; fi
exit "$code"
