//! `compare` on an incident timeline (issue 14), through the library: sept3.toml with its
//! incident replaced by outages (the scenario key `[[incident.outage]]` is parsed on another
//! branch), priced by the analytic engine and rendered in every format.

use crate::common;

use fallcost::model::timeline::{Outage, OutageFailure, OutageTarget, Timeline};
use fallcost::model::{Pattern, Scenario};
use fallcost::output::{Format, render};
use serde_json::Value;

fn sept3(outages: Vec<Outage>) -> Scenario {
    let mut s = fallcost::input::scenario::load(&common::root().join("scenarios/sept3.toml"), &[])
        .expect("sept3.toml loads");
    let i = s.incident.as_mut().unwrap();
    i.timeline = Some(Timeline::new(i.duration_s, outages).unwrap());
    s
}

fn down(provider: &str, start: f64, duration: Option<f64>) -> Outage {
    Outage::new(
        OutageTarget::Provider(provider.into()),
        start,
        duration,
        OutageFailure::Fast,
    )
}

fn text(s: &Scenario, format: Format) -> String {
    let report = fallcost::ops::compare::analytic(s);
    String::from_utf8(render(&report, format).unwrap()).unwrap()
}

/// Anthropic down all 3h6m, OpenAI 34 minutes inside it (docs/MODEL.md §6, "Timelines"): the
/// price-matched chain pays 9,120 × 0.0348 + 456.95 × (0.0972 + 0.1272) = 419.92 and fails
/// 2,040 requests; the table says what the timeline is and how far its figures may be off
/// (the fast failures' 0.5 s before the fallback: λ × the dead time before each cut), JSON
/// marks those rows approximate and follows its schema, CSV keeps its columns.
#[test]
fn compare_prices_a_timeline() {
    let s = sept3(vec![
        down("anthropic", 0.0, None),
        down("openai", 3600.0, Some(2040.0)),
    ]);
    let report = fallcost::ops::compare::analytic(&s);
    let row = report
        .incident
        .iter()
        .find(|r| r.chain == "price-matched" && r.pattern == Pattern::Sequential)
        .unwrap();
    assert_eq!(format!("{:.2}", row.analytic.total_usd), "419.92");
    assert_eq!(row.analytic.failed_requests, 2040.0);

    let table = text(&s, Format::Table);
    assert!(
        table.contains("timeline: anthropic down 0s-3h6m (fast); openai down 1h-1h34m (fast)"),
        "{table}"
    );
    let flat = table.replace("\n  ", " ");
    assert!(flat.contains("over the 2 cuts"), "{table}");
    assert!(
        flat.contains("cold starts and fail-back writes within that bound")
            && flat.contains("otherwise exact over where the sessions fall"),
        "{table}"
    );

    let json: Value = serde_json::from_str(&text(&s, Format::Json)).unwrap();
    let rows = json["incident"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["approximate"] == Value::Bool(true)));
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(common::root().join("schemas/compare.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = v
        .iter_errors(&json)
        .take(5)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");

    let plain =
        fallcost::input::scenario::load(&common::root().join("scenarios/sept3.toml"), &[]).unwrap();
    let header = |c: &str| c.lines().next().unwrap().to_string();
    assert_eq!(
        header(&text(&s, Format::Csv)),
        header(&text(&plain, Format::Csv))
    );
}

/// One outage of the primary's provider over the whole window is the shorthand: the same
/// figures (513.58, 1.32x), no cuts, so nothing approximate.
#[test]
fn the_one_outage_timeline_prints_the_shorthands_figures() {
    let s = sept3(vec![down("anthropic", 0.0, None)]);
    let plain =
        fallcost::input::scenario::load(&common::root().join("scenarios/sept3.toml"), &[]).unwrap();
    let (a, b) = (
        fallcost::ops::compare::analytic(&s),
        fallcost::ops::compare::analytic(&plain),
    );
    assert_eq!(a.incident, b.incident);
    let table = text(&s, Format::Table);
    assert!(
        table.contains("513.58") && table.contains("1.32"),
        "{table}"
    );
    assert!(!table.contains("cuts"), "{table}");
    let json: Value = serde_json::from_str(&text(&s, Format::Json)).unwrap();
    assert!(
        json["incident"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["approximate"] == Value::Bool(false))
    );
}
