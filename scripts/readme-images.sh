#!/usr/bin/env bash
# Redraws the documentation's images with the commands it documents (every
# `fallcost ... --plot docs/img/X.svg` line of the sh blocks of README.md and docs/guide/*.md), so they are what the binary draws:
#
#   cargo build --release && scripts/readme-images.sh target/release/fallcost
#
# tests/it/readme.rs (readme_images_are_current) fails when an image is not current.
set -euo pipefail
bin=${1:?usage: readme-images.sh FALLCOST_BINARY}
bin=$(realpath "$bin")
cd "$(dirname "$0")/.."
# the sh blocks of README.md and the guide, continued lines joined, then the plot commands
awk '/^```sh$/{on=1; next} /^```/{on=0} on' README.md docs/guide/*.md \
  | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' \
  | grep -E '^fallcost .*--plot docs/img/' \
  | while read -r line; do
      read -ra words <<< "$line"
      echo "${line}"
      "$bin" "${words[@]:1}" > /dev/null
    done
