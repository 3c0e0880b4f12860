//! The bad-input corpus: every file in `tests/fixtures/bad/` must be refused with exit code 2
//! and one line `error: FILE[:LINE:COL]: field: message` that names the file and the field, and
//! never a panic. Adding a fixture without an expectation here fails `every_fixture_is_listed`.

use crate::common;

use common::fails;

/// (fixture, subcommand (`compare-drill`: compare --drill 30m), text the error must contain: the field or what is wrong)
const CASES: &[(&str, &str, &str)] = &[
    // incident timelines: [[incident.outage]] and --drill (issue 14)
    (
        "outage-outside-window.toml",
        "compare",
        "outage-outside-window.toml:13:12: incident.outage[0].duration: the outage runs from 3000s to 4200s, outside the window [0s, 3600s]; start and start + duration must lie in the window",
    ),
    (
        "outage-overlap.toml",
        "compare",
        "outage-overlap.toml:15:9: incident.outage[1].start: overlaps outage[0] (provider \"openai\", until 1800s); outages of one provider must not overlap",
    ),
    (
        "outage-error-rate.toml",
        "compare",
        "outage-error-rate.toml:12:14: incident.outage[0].error_rate: must be in [0, 1]; got 1.5",
    ),
    (
        "outage-unknown-provider.toml",
        "compare",
        "outage-unknown-provider.toml:11:12: incident.outage[0].provider: no chain uses provider `google`; the chains use: anthropic, openai",
    ),
    (
        "outage-unknown-model.toml",
        "compare",
        "outage-unknown-model.toml:11:9: incident.outage[0].model: no chain uses model `openai/gpt-6-astra` (did you mean `openai/gpt-6-sol`?); the chains use: anthropic/claude-sonnet-5, openai/gpt-6-sol",
    ),
    (
        "outage-both-targets.toml",
        "compare",
        "outage-both-targets.toml:12:9: incident.outage[0].model: give `provider` (every model of it) or `model` (one model), not both",
    ),
    (
        "outage-no-target.toml",
        "compare",
        "outage-no-target.toml:10:1: incident.outage[0]: an outage needs `provider` (every model of it) or `model` (one model)",
    ),
    (
        "outage-unknown-key.toml",
        "compare",
        "outage-unknown-key.toml:12:1: incident.outage[0].errror_rate: unknown field (did you mean `error_rate`?)",
    ),
    (
        "outage-failure-bad.toml",
        "compare",
        "outage-failure-bad.toml:12:11: incident.outage[0].failure: unknown variant `down`, expected one of `fast`, `gray`, `drill`",
    ),
    (
        "outage-drill-error-rate.toml",
        "compare",
        "outage-drill-error-rate.toml:13:14: incident.outage[0].error_rate: a drill opens the breaker by hand",
    ),
    (
        "outage-start-number.toml",
        "compare",
        "outage-start-number.toml:12:9: incident.outage[0].start: `600` has no unit",
    ),
    (
        "outage-latency-factor.toml",
        "compare",
        "outage-latency-factor.toml:12:18: incident.outage[0].latency_factor: must be a finite number > 0; got -2",
    ),
    (
        "drill-no-incident.toml",
        "compare-drill",
        "--drill 30m: tests/fixtures/bad/drill-no-incident.toml has no [incident]; a drill needs the traffic of the hour it runs in",
    ),
    // scenario files: syntax and encoding
    ("syntax.toml", "compare", "syntax.toml:2:9: invalid TOML"),
    (
        "duplicate-key.toml",
        "compare",
        "duplicate-key.toml:8:1: invalid TOML: duplicate key `failure_rate`; each key may appear once",
    ),
    (
        "empty.toml",
        "compare",
        "empty.toml:1:1: request: required field is missing",
    ),
    (
        "only-comment.toml",
        "compare",
        "only-comment.toml:1:1: request: required field is missing",
    ),
    (
        "binary-garbage.toml",
        "compare",
        "binary-garbage.toml: not UTF-8 text",
    ),
    // scenario files: schema
    (
        "unknown-field.toml",
        "compare",
        "steady.failur_rate: unknown field (did you mean `failure_rate`?)",
    ),
    (
        "top-unknown-field.toml",
        "compare",
        "nme: unknown field (did you mean `name`?)",
    ),
    (
        "request-unknown-field.toml",
        "compare",
        "request.prefx_tokens: unknown field (did you mean `prefix_tokens`?)",
    ),
    (
        "chain-unknown-field.toml",
        "compare",
        "chain[0].model: unknown field (did you mean `models`?)",
    ),
    (
        "chain-steady-typo.toml",
        "compare",
        "chain[0].steady.gray_fractoin: unknown field (did you mean `gray_fraction`?)",
    ),
    (
        "request-missing.toml",
        "compare",
        "request-missing.toml:1:1: request: required field is missing",
    ),
    (
        "output-tokens-missing.toml",
        "compare",
        "request.output_tokens: required field is missing",
    ),
    (
        "no-chain.toml",
        "compare",
        "no-chain.toml:1:1: chain: required field is missing",
    ),
    (
        "chain-not-array.toml",
        "compare",
        "chain: invalid type: string",
    ),
    (
        "chain-models-not-strings.toml",
        "compare",
        "chain[0].models[0]: invalid type: integer `1`, expected a string",
    ),
    (
        "tokens-float.toml",
        "compare",
        "request.output_tokens: invalid type: floating point `500.5`, expected a whole number >= 0",
    ),
    (
        "tokens-huge-float.toml",
        "compare",
        "tokens-huge-float.toml:2:17: request.output_tokens: invalid type: floating point `1e300`, expected a whole number >= 0\n",
    ),
    (
        "retries-negative.toml",
        "compare",
        "retries-negative.toml:4:11: policy.retries: invalid value: integer `-1`, expected a whole number >= 0 (at most 4294967295)\n",
    ),
    (
        "tokens-string.toml",
        "compare",
        "request.output_tokens: invalid type: string",
    ),
    (
        "negative-tokens.toml",
        "compare",
        "request.output_tokens: invalid value: integer `-5`, expected a whole number >= 0",
    ),
    (
        "pricing-not-string.toml",
        "compare",
        "pricing: invalid type: integer `2026`, expected a string",
    ),
    (
        "abandoned-billing-bad.toml",
        "compare",
        "steady.abandoned_billing: unknown variant `half`, expected `partial` or `full`",
    ),
    (
        "model-id-control-chars.toml",
        "compare",
        "chain[0].models[0]: unknown model `openai/gpt\\n-6-sol\\u{1b}[2J` (did you mean `openai/gpt-6-sol`?)",
    ),
    (
        "tokens-overflow.toml",
        "compare",
        "request.output_tokens: number too large for a float; allowed: a finite number",
    ),
    (
        "incident-failure-grey.toml",
        "compare",
        "incident.failure: unknown variant `grey`, expected `fast` or `gray` (did you mean `gray`?)",
    ),
    (
        "warm-fallback-extra-key.toml",
        "compare",
        "policy.warm_fallback.afterr: unknown field (did you mean `after`?); allowed: after",
    ),
    (
        "warm-fallback-word-typo.toml",
        "compare",
        "chain[0].policy.warm_fallback: unknown variant `alwyas`, expected `always` or `never` (did you mean `always`?)",
    ),
    (
        "chain-swapped-letters.toml",
        "compare",
        "chian: unknown field (did you mean `chain`?)",
    ),
    (
        "incident-failure-bad.toml",
        "compare",
        "incident.failure: unknown variant `slow`, expected `fast` or `gray`",
    ),
    (
        "incident-missing-rps.toml",
        "compare",
        "incident.requests_per_second: required field is missing",
    ),
    (
        "incident-duration-number.toml",
        "compare",
        "incident.duration: `90` has no unit",
    ),
    // scenario files: values
    (
        "tokens-too-large.toml",
        "compare",
        "request.output_tokens: 9007199254740993 tokens is beyond",
    ),
    (
        "hit-rate-above-one.toml",
        "compare",
        "request.cache_hit_rate: must be in [0, 1]; got 1.1",
    ),
    (
        "hit-rate-negative.toml",
        "compare",
        "request.cache_hit_rate: must be in [0, 1]; got -0.1",
    ),
    (
        "rate-out-of-range.toml",
        "compare",
        "steady.failure_rate: must be in [0, 1]; got 1.5",
    ),
    (
        "failure-rate-nan.toml",
        "compare",
        "steady.failure_rate: must be in [0, 1]; got NaN",
    ),
    (
        "failure-rate-inf.toml",
        "compare",
        "steady.failure_rate: must be in [0, 1]; got inf",
    ),
    (
        "failure-rate-negative.toml",
        "compare",
        "steady.failure_rate: must be in [0, 1]; got -0.01",
    ),
    (
        "failure-rates-wrong-length.toml",
        "compare",
        "steady.failure_rates: has 3 values for a chain of 2 models",
    ),
    (
        "failure-rates-element-bad.toml",
        "compare",
        "steady.failure_rates[1]: must be in [0, 1]; got 2",
    ),
    (
        "gray-fraction-bad.toml",
        "compare",
        "steady.gray_fraction: must be in [0, 1]; got 3",
    ),
    (
        "trip-rate-bad.toml",
        "compare",
        "steady.timeout_trip_rate: must be in [0, 1]; got 1.01",
    ),
    (
        "chain-steady-bad.toml",
        "compare",
        "chain[0].steady.failure_rate: must be in [0, 1]; got 7",
    ),
    (
        "chain-empty-models.toml",
        "compare",
        "chain[0].models: empty chain",
    ),
    (
        "chain-empty-name.toml",
        "compare",
        "chain[0].name: must not be empty",
    ),
    (
        "unknown-model.toml",
        "compare",
        "chain[0].models[1]: unknown model `openai/gpt-7-ultra`",
    ),
    (
        "incident-duration-no-unit.toml",
        "compare",
        "incident.duration: `90` has no unit",
    ),
    (
        "incident-duration-zero.toml",
        "compare",
        "incident.duration: `0s` must be a positive duration",
    ),
    (
        "incident-rps-negative.toml",
        "compare",
        "incident.requests_per_second: must be > 0",
    ),
    (
        "incident-session-zero.toml",
        "compare",
        "incident.session_length: must be at least 1",
    ),
    (
        "incident-too-many-requests.toml",
        "compare",
        "incident.duration: the window holds 3.154e17 requests",
    ),
    (
        "rate-and-rates.toml",
        "compare",
        "rate-and-rates.toml:5:16: steady.failure_rate: give either failure_rate (one value) or failure_rates (one per link), not both",
    ),
    (
        "name-with-control-char.toml",
        "compare",
        "name-with-control-char.toml:1:8: name: \"bell \\u{7} here\" contains a control character",
    ),
    (
        "chain-name-padded.toml",
        "compare",
        "chain[0].name: \" padded\" has leading or trailing spaces",
    ),
    (
        "incident-no-requests.toml",
        "compare",
        "incident.duration: the window holds no requests (requests_per_second × duration = 0.001)",
    ),
    (
        "backoff-base-above-cap.toml",
        "compare",
        "policy.backoff: base_s (10) is above cap_s (1)",
    ),
    // failover_on lists exactly what the loader accepts: quota errors stop the chain
    (
        "failover-on-quota.toml",
        "compare",
        "failover-on-quota.toml:7:15: policy.failover_on[1]: `quota`: quota and billing errors stop the chain, they never fail over; allowed: rate_limit, overload, server_error, timeout, client\n",
    ),
    (
        "failover-on-unknown.toml",
        "compare",
        "failover-on-unknown.toml:6:26: chain[0].policy.failover_on[0]: unknown error class `timout` (did you mean `timeout`?); allowed: rate_limit, overload, server_error, timeout, client\n",
    ),
    // a table given a value names it a table, not an internal type
    (
        "breaker-not-table.toml",
        "compare",
        "breaker-not-table.toml:7:11: policy.breaker: invalid type: integer `5`, expected a table\n",
    ),
    // scenario files: the price table they name
    (
        "missing-pricing.toml",
        "compare",
        "missing-pricing.toml:2:11: pricing: tests/fixtures/bad/no-such-prices.toml: no such file",
    ),
    (
        "pricing-unknown-name.toml",
        "compare",
        "pricing: tests/fixtures/bad/2024-01: no such file, and not a bundled price table (bundled: 2026-07, litellm-1.110.2; `latest` after `fallcost prices --update`)",
    ),
    (
        "pricing-is-directory.toml",
        "compare",
        "pricing: tests/fixtures/bad/.: is a directory",
    ),
    (
        "pricing-bad-file.toml",
        "compare",
        "prices-negative.toml:2:9: models.\"a/b\".input",
    ),
    // gateway configs (fallcost check)
    (
        "litellm-price-typo.yaml",
        "check",
        "litellm-price-typo.yaml:6:7: model_list[0].model_info.input_cost_per_tokn: unknown field (did you mean `input_cost_per_token`?)",
    ),
    (
        "litellm-fallback-typo.yaml",
        "check",
        "litellm-fallback-typo.yaml:9:3: router_settings.fallback: unknown field (did you mean `fallbacks`?)",
    ),
    (
        "litellm-python-syntax.yaml",
        "check",
        "litellm-python-syntax.yaml:6:3: content_policy_fallbacks: `content_policy_fallbacks=[...]` is Python keyword syntax",
    ),
    (
        "litellm-bad-yaml.yaml",
        "check",
        "litellm-bad-yaml.yaml:4:16: invalid YAML",
    ),
    (
        "portkey-target-typo.json",
        "check",
        "portkey-target-typo.json:2:2: config.target: unknown field (did you mean `targets`?)",
    ),
    (
        "portkey-mode-typo.json",
        "check",
        "portkey-mode-typo.json:1:15: config.strategy.mod: unknown field (did you mean `mode`?)",
    ),
    // check: a scenario is recognised by its keys, so a misspelled chain is reported, not skipped
    (
        "check-scenario-chains.toml",
        "check",
        "check-scenario-chains.toml:7:3: chains: unknown field (did you mean `chain`?)",
    ),
    (
        "check-scenario-chain-table.toml",
        "check",
        "check-scenario-chain-table.toml:7:1: chain: invalid type: a table, expected an array",
    ),
    // check: a file named on the command line that is no config fallcost reads
    (
        "check-empty.toml",
        "check",
        "check-empty.toml: not a file fallcost check reads (TOML without `chain` or other scenario keys: not a scenario); it reads fallcost scenarios",
    ),
    (
        "check-notes.txt",
        "check",
        "check-notes.txt: not a file fallcost check reads (not .toml, .yaml, .yml or .json)",
    ),
    (
        "portkey-model-typo.json",
        "check",
        "portkey-model-typo.json:2:57: config.targets[0].override_params.modle: unknown field (did you mean `model`?)",
    ),
    (
        "portkey-fallback-model-typo.json",
        "check",
        "portkey-fallback-model-typo.json:3:60: config.targets[1].override_params.mdel: unknown field (did you mean `model`?)",
    ),
    (
        "portkey-models-without-model.json",
        "check",
        "portkey-models-without-model.json:3:35: config.targets[1].override_params.models: unknown field (did you mean `model`?)",
    ),
    (
        "portkey-mode-value.json",
        "check",
        "portkey-mode-value.json:1:23: config.strategy.mode: \"fallbak\" is not a Portkey strategy mode (did you mean `fallback`?); one of: single, fallback, loadbalance, conditional",
    ),
    (
        "portkey-mode-case.json",
        "check",
        "portkey-mode-case.json:1:23: config.strategy.mode: \"Fallback\" is not a Portkey strategy mode (did you mean `fallback`?)",
    ),
    (
        "portkey-strategy-no-mode.json",
        "check",
        "portkey-strategy-no-mode.json:1:14: config.strategy.mode: required field is missing (Portkey requires it); one of: single, fallback, loadbalance, conditional",
    ),
    (
        "litellm-api-base-typo.yaml",
        "check",
        "litellm-api-base-typo.yaml:5:7: model_list[0].litellm_params.api_bse: unknown field (did you mean `api_base`?)",
    ),
    (
        "litellm-model-typo.yaml",
        "check",
        "litellm-model-typo.yaml:4:7: model_list[0].litellm_params.modle: unknown field (did you mean `model`?)",
    ),
    (
        "litellm-section-typos.yaml",
        "check",
        "litellm-section-typos.yaml:1:1: model_lst: unknown field (did you mean `model_list`?)",
    ),
    (
        "litellm-max-fallbacks-string.yaml",
        "check",
        "litellm-max-fallbacks-string.yaml:5:18: router_settings.max_fallbacks: expected a whole number >= 0; got \"x\"",
    ),
    (
        "portkey-bad-json.json",
        "check",
        "portkey-bad-json.json:2:1: invalid JSON: EOF while parsing a list",
    ),
    // price tables: LiteLLM's JSON
    (
        "litellm-prices-tier-no-base.json",
        "prices",
        "litellm-prices-tier-no-base.json:3:5: \"x/m\".input_cost_per_token_above_200k_tokens: a long-context tier price without its base price: the entry has no input_cost_per_token",
    ),
    (
        "litellm-prices-truncated.json",
        "prices",
        "litellm-prices-truncated.json:4:1: invalid JSON: EOF while parsing a value",
    ),
    (
        "litellm-prices-negative-tier.json",
        "prices",
        "litellm-prices-negative-tier.json:3:5: \"x/m\".output_cost_per_token_above_128k_tokens: USD per token must be a finite number in [0, 1]; got -4e-6",
    ),
    (
        "model-not-in-default-table.toml",
        "compare",
        "model-not-in-default-table.toml:5:11: chain[0].models[0]: unknown model `gpt-4o` (the scenario names no `pricing`, so it gets 2026-07, the posts' table; `pricing = \"litellm\"` prices it)",
    ),
    (
        "service-tier-unknown.toml",
        "compare",
        "service-tier-unknown.toml:2:16: service_tier: unknown variant `turbo`, expected one of `standard`, `batch`, `flex`, `priority`",
    ),
    (
        "service-tier-unpriced.toml",
        "compare",
        "service-tier-unpriced.toml:9:30: chain[0].service_tiers[1]: `claude-sonnet-4-5` has no flex price in the table (it has: standard, batch); an unknown price is never borrowed from another tier",
    ),
    (
        "litellm-prices-string.json",
        "prices",
        "litellm-prices-string.json:1:29: \"x/m\".input_cost_per_token: USD per token must be a number",
    ),
    (
        "litellm-prices-array.json",
        "prices",
        "litellm-prices-array.json: expected LiteLLM's model_prices_and_context_window.json",
    ),
    (
        "litellm-prices-negative.json",
        "prices",
        "\"x/m\".input_cost_per_token: USD per token must be a finite number in [0, 1]",
    ),
    (
        "litellm-prices-cache-write-typo.json",
        "prices",
        "litellm-prices-cache-write-typo.json:4:11: \"a/m\".cache_creation_input_token_costx: unknown field (did you mean `cache_creation_input_token_cost`?)",
    ),
    (
        "litellm-prices-cache-read-typo.json",
        "prices",
        "litellm-prices-cache-read-typo.json:3:9: \"m\".cache_read_input_token_cst: unknown field (did you mean `cache_read_input_token_cost`?)",
    ),
    (
        "litellm-prices-provider-typo.json",
        "prices",
        "litellm-prices-provider-typo.json:3:9: \"m\".litellm_providerx: unknown field (did you mean `litellm_provider`?)",
    ),
    // price tables
    (
        "prices-negative.toml",
        "prices",
        "models.\"a/b\".input: price in $/MTok must be in [0, 1000000]; got -1",
    ),
    (
        "prices-nan.toml",
        "prices",
        "models.\"a/b\".input: price in $/MTok must be in [0, 1000000]; got NaN",
    ),
    (
        "prices-huge.toml",
        "prices",
        "models.\"a/b\".input: price in $/MTok must be in [0, 1000000]; got 1e300",
    ),
    (
        "prices-unknown-field.toml",
        "prices",
        "models.\"a/b\".ouput: unknown field (did you mean `output`?)",
    ),
    (
        "prices-missing-output.toml",
        "prices",
        "models.\"a/b\".output: required field is missing",
    ),
    (
        "prices-no-provider.toml",
        "prices",
        "models.gpt: `gpt` has no `provider/` prefix",
    ),
    (
        "prices-bad-caching.toml",
        "prices",
        "models.\"a/b\".caching: unknown variant `sometimes`",
    ),
    (
        "prices-write-without-explicit.toml",
        "prices",
        "models.\"a/b\".cache_write: a cache-write price needs caching = \"explicit\"",
    ),
    (
        "prices-ttl-zero.toml",
        "prices",
        "models.\"a/b\".cache_ttl_s: must be a positive number of seconds",
    ),
    (
        "prices-empty-models.toml",
        "prices",
        "models: the table has no models",
    ),
    (
        "prices-control-char.toml",
        "prices",
        "model id \"a/b\\u{1b}[31m\" contains a control character",
    ),
    (
        "prices-read-above-input.toml",
        "prices",
        "models.\"a/b\".cached_input: a cache read (2) above the input price (1) is not a discount",
    ),
    (
        "prices-write-below-input.toml",
        "prices",
        "models.\"a/b\".cache_write: a cache write (0.5) below the input price (1)",
    ),
];

fn run(file: &str, command: &str) -> String {
    let path = format!("tests/fixtures/bad/{file}");
    match command {
        "compare" => fails(&["compare", "--scenario", &path]),
        "compare-drill" => fails(&["compare", "--scenario", &path, "--drill", "30m"]),
        "prices" => fails(&["prices", "--pricing", &path]),
        "check" => fails(&["check", &path]),
        other => panic!("no such command in the corpus: {other}"),
    }
}

#[test]
fn every_bad_input_is_refused_with_file_field_and_exit_2() {
    assert!(CASES.len() >= 40, "the corpus must hold at least 40 inputs");
    let mut failures = Vec::new();
    for (file, command, want) in CASES {
        let stderr = run(file, command);
        let stem = file
            .trim_end_matches(".toml")
            .trim_end_matches(".yaml")
            .trim_end_matches(".json");
        if !stderr.contains(want) || !(stderr.contains(stem) || stderr.contains("prices-negative"))
        {
            failures.push(format!("{file}: want `{want}`\n  got {stderr}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_fixture_is_listed() {
    let dir = common::root().join("tests/fixtures/bad");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            CASES.iter().any(|(f, _, _)| *f == name),
            "tests/fixtures/bad/{name} has no expectation in tests/it/bad_inputs.rs"
        );
    }
}
