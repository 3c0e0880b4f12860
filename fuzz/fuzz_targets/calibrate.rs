//! Fuzz `fallcost calibrate`'s readers and writer: any bytes as an OTLP/JSON, LiteLLM (CSV or
//! JSON), Langfuse or plain CSV log (the first byte picks the reader) must read without a panic or an
//! arithmetic overflow, and the scenario written from whatever was read must parse as TOML.
#![no_main]

use std::sync::OnceLock;

use fallcost::calibrate::write::{WriteOptions, scenario};
use fallcost::calibrate::{Aggregator, langfuse, litellm, otlp, plain};
use libfuzzer_sys::fuzz_target;

fn prices() -> &'static fallcost::model::PriceTable {
    static PRICES: OnceLock<fallcost::model::PriceTable> = OnceLock::new();
    PRICES.get_or_init(|| fallcost::input::pricing::bundled("2026-07").expect("bundled"))
}

fuzz_target!(|data: &[u8]| {
    let Some((which, log)) = data.split_first() else {
        return;
    };
    let mut agg = Aggregator::default();
    let mut reader = std::io::BufReader::new(log);
    let read = match which % 5 {
        0 => otlp::read("fuzz.jsonl", &mut reader, &mut agg),
        1 => litellm::read_csv("fuzz.csv", &mut reader, &mut agg),
        2 => litellm::read_json("fuzz.json", &mut reader, &mut agg),
        3 => langfuse::read("fuzz.json", &mut reader, &mut agg),
        _ => plain::read("fuzz.csv", &mut reader, &mut agg),
    };
    agg.close_all();
    if read.is_err() || agg.records == 0 {
        return;
    }
    let written = scenario(
        &agg,
        &[],
        prices(),
        &WriteOptions {
            pricing: "2026-07".into(),
            timeout_s: (which & 4 != 0).then_some(f64::from(*which)),
            min_events: 30,
        },
    );
    if let Err(e) = toml::from_str::<toml::Value>(&written.text) {
        panic!("the scenario does not parse: {e}\n{}", written.text);
    }
});
