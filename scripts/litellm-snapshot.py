#!/usr/bin/env python3
"""Regenerate pricing/litellm-VERSION.json from LiteLLM's model_prices_and_context_window.json.

Usage (the wheel carries the file as litellm/model_prices_and_context_window_backup.json):

    pip download litellm==VERSION --no-deps -d /tmp/litellm
    unzip -o /tmp/litellm/litellm-VERSION-*.whl \
        litellm/model_prices_and_context_window_backup.json -d /tmp/litellm/x
    python3 scripts/litellm-snapshot.py \
        /tmp/litellm/x/litellm/model_prices_and_context_window_backup.json \
        > pricing/litellm-VERSION.json

Keeps the entries whose `mode` is chat, completion or responses, and only the fields fallcost
reads (src/input/litellm_prices.rs: prices, and what a model can serve), one entry per line, keys in file order.
"""
import json
import re
import sys

MODES = {"chat", "completion", "responses"}
PRICE = re.compile(
    r"^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost"
    r"|cache_creation_input_token_cost(_above_1hr)?)"
    r"(_above_\d+k_tokens)?(_batches|_flex|_priority)?$"
)
OTHER = {"litellm_provider", "mode", "prompt_cache_min_tokens"}
# What a model can serve (`fallcost check`'s fit findings, src/model/fit.rs).
FIT = {
    "max_input_tokens",
    "max_output_tokens",
    "supports_function_calling",
    "supports_vision",
    "supports_response_schema",
    "deprecation_date",
    "successor_model",
}
TIER = {
    "range",
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
}


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    out = []
    for key, entry in data.items():
        if isinstance(entry, dict) and isinstance(entry.get("alias_of"), str):
            # A rolling alias (`claude-sonnet-latest`): billed as the entry it names.
            alias = {k: entry[k] for k in ("alias_of", "litellm_provider") if k in entry}
            out.append(json.dumps(key) + ": " + json.dumps(alias, separators=(",", ":")))
            continue
        if not isinstance(entry, dict) or entry.get("mode") not in MODES:
            continue
        kept = {k: v for k, v in entry.items() if k in OTHER or k in FIT or PRICE.match(k)}
        tiers = entry.get("tiered_pricing")
        if isinstance(tiers, list) and all(isinstance(t, dict) and "range" in t for t in tiers):
            kept["tiered_pricing"] = [{k: v for k, v in t.items() if k in TIER} for t in tiers]
        out.append(json.dumps(key) + ": " + json.dumps(kept, separators=(",", ":")))
    sys.stdout.write("{\n" + ",\n".join(out) + "\n}\n")


if __name__ == "__main__":
    main()
