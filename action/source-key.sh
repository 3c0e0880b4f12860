#!/usr/bin/env bash
# The cache key of the fallcost binary this action builds: the package version and a hash of
# everything compiled into it (Cargo.toml, Cargo.lock, build.rs, src/, pricing/, the bundled
# LiteLLM snapshot), so a new release or commit of the action builds once and every later run
# on the same runner OS and architecture restores the binary instead (about 10 minutes saved).
#   bash action/source-key.sh [ACTION_DIR]   # prints fallcost-0.1.0-<sha256 prefix>
set -euo pipefail
dir="${1:-${GITHUB_ACTION_PATH:-.}}"
cd "$dir"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
# sha256sum is GNU coreutils; macOS runners have shasum (Perl) instead.
if command -v sha256sum >/dev/null 2>&1; then sha() { sha256sum "$@"; }; else sha() { shasum -a 256 "$@"; }; fi
hash=$(find Cargo.toml Cargo.lock build.rs src pricing -type f 2>/dev/null | LC_ALL=C sort \
  | while IFS= read -r f; do sha "$f"; done | sha | cut -c1-16)
echo "fallcost-${version}-${hash}"
