//! Fuzz the input formats and the analytic engine: any bytes as a scenario, a price table
//! (TOML or LiteLLM JSON) or a gateway config (LiteLLM YAML, Portkey JSON)
//! must give an error or a value, never a panic; every accepted scenario must price to finite
//! numbers.
#![no_main]

use std::path::Path;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// The check options of every run: the bundled table is parsed once, not once per input.
fn options() -> &'static fallcost::check::CheckOptions {
    static OPTIONS: OnceLock<fallcost::check::CheckOptions> = OnceLock::new();
    OPTIONS.get_or_init(|| fallcost::check::CheckOptions {
        max_ratio: 2.0,
        profile: fallcost::model::Request {
            input_tokens: 2000.0,
            output_tokens: 500.0,
            prefix_tokens: 0.0,
            cache_hit_rate: 1.0,
        },
        prices: fallcost::input::pricing::bundled("2026-07").expect("bundled"),
        allow: Vec::new(),
        allow_from: None,
        incident: None,
        max_usd_per_1k: fallcost::check::DEFAULT_MAX_USD_PER_1K,
        own_prices: Vec::new(),
        env: fallcost::input::gateway::Env::default(),
        shares: Default::default(),
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(scenario) = fallcost::input::scenario::parse("fuzz.toml", text, Path::new("."), &[]) {
        let report = fallcost::ops::compare::analytic(&scenario);
        assert_eq!(report.first_non_finite(), None, "non-finite output for {text:?}");
    }
    let _ = fallcost::input::pricing::parse("fuzz-prices.toml", text);
    let _ = fallcost::input::litellm_prices::parse("fuzz-prices.json", text);
    let opts = options();
    for json in [false, true] {
        let mut report = fallcost::report::check::CheckReport {
            max_ratio: opts.max_ratio,
            profile: opts.profile,
            pricing: String::new(),
            checked: Vec::new(),
            skipped: Vec::new(),
            findings: Vec::new(),
            errors: Vec::new(),
        };
        fallcost::check::files::check_text("fuzz-config", json, text, opts, &mut report);
        for f in &report.findings {
            let _ = f.to_string();
        }
    }
});
