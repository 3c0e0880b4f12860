//! Fuzz the input formats and the analytic engine: any bytes as a scenario or a price table
//! must give an error or a value, never a panic; every accepted scenario must price to finite
//! numbers.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(scenario) = fallcost::input::scenario::parse("fuzz.toml", text, Path::new("."), &[]) {
        let report = fallcost::report::Report::analytic(&scenario);
        assert_eq!(report.first_non_finite(), None, "non-finite output for {text:?}");
    }
    let _ = fallcost::input::pricing::parse("fuzz-prices.toml", text);
});
