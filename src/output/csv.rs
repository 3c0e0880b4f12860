//! CSV export: one header line, one row per (section, chain, pattern), plain numbers.
//!
//! NOTE: the columns mirror the fields of [`crate::report::SteadyRow`] and
//! [`crate::report::IncidentRow`]; keep them in step. Cells that do not apply to a row's
//! section are empty. Text cells (names) are guarded against spreadsheet formula injection.

use crate::report::Report;

/// The header of `fallcost compare --format csv`.
pub const COMPARE_COLUMNS: &[&str] = &[
    "scenario",
    "section",
    "chain",
    "pattern",
    "cost_per_1k_usd",
    "baseline_per_1k_usd",
    "vs_baseline",
    "failed_per_1k",
    "wasted_attempts_per_1k",
    "wasted_per_1k_usd",
    "total_usd",
    "normal_usd",
    "multiplier",
    "window_usd",
    "cold_start_usd",
    "failback_usd",
    "failed_requests",
    "wasted_attempts",
    "wasted_usd",
    "cold_starts",
    "failback_writes",
];

/// Neutralise a text cell that a spreadsheet would read as a formula (OWASP, "CSV Injection"):
/// a leading `=`, `+`, `-`, `@`, tab or carriage return gets a `'` in front.
pub fn guard(text: &str) -> String {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}"),
        _ => text.to_string(),
    }
}

/// A number as a plain decimal (`0.0003`, `-0.0015`, `11160`); empty for `None`.
pub fn num(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v}"),
        _ => String::new(),
    }
}

/// The compare report as CSV bytes.
pub fn compare(report: &Report) -> anyhow::Result<Vec<u8>> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(COMPARE_COLUMNS)?;
    let blank = |n: usize| vec![String::new(); n];
    for r in &report.steady {
        let mut rec = vec![
            guard(&report.scenario),
            "steady".into(),
            guard(&r.chain),
            r.pattern.as_str().into(),
            num(Some(r.cost_per_1k_usd)),
            num(Some(r.baseline_per_1k_usd)),
            num(r.vs_baseline),
            num(Some(r.failed_per_1k)),
            num(Some(r.wasted_attempts_per_1k)),
            num(Some(r.wasted_per_1k_usd)),
        ];
        rec.extend(blank(11));
        w.write_record(&rec)?;
    }
    for r in &report.incident {
        let mut rec = vec![
            guard(&report.scenario),
            "incident".into(),
            guard(&r.chain),
            r.pattern.as_str().into(),
        ];
        rec.extend(blank(6));
        rec.extend([
            num(Some(r.total_usd)),
            num(Some(r.normal_usd)),
            num(r.multiplier),
            num(Some(r.window_usd)),
            num(Some(r.cold_start_usd)),
            num(Some(r.failback_usd)),
            num(Some(r.failed_requests)),
            num(Some(r.wasted_attempts)),
            num(Some(r.wasted_usd)),
            num(Some(r.cold_starts)),
            num(Some(r.failback_writes)),
        ]);
        w.write_record(&rec)?;
    }
    Ok(w.into_inner()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_guarded() {
        assert_eq!(guard("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(guard("+1"), "'+1");
        assert_eq!(guard("-x"), "'-x");
        assert_eq!(guard("@cmd"), "'@cmd");
        assert_eq!(guard("\tx"), "'\tx");
        assert_eq!(guard("price-matched"), "price-matched");
    }

    #[test]
    fn numbers_are_plain() {
        assert_eq!(num(Some(-0.0015)), "-0.0015");
        assert_eq!(num(Some(11160.0)), "11160");
        assert_eq!(num(Some(1e-9)), "0.000000001");
        assert_eq!(num(None), "");
    }
}
