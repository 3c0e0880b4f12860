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
    "attempts_per_request",
    "attempts_max",
    "dead_time_mean_s",
    "call_cap_hits_per_1k",
    "cost_cap_hits_per_1k",
    "answered_by",
];

/// Columns added with `--mc`: the metadata to repeat the run, then per figure its mean and its
/// 95% interval (`_ci95_lo`, `_ci95_hi`), then the latency percentiles. Steady rows fill the
/// steady figures, incident rows the incident ones.
pub const MC_META_COLUMNS: &[&str] = &["mc_seed", "mc_requests", "mc_runs"];

/// The steady-state figures with a 95% interval, as `mc_KEY`.
pub const MC_STEADY: &[&str] = &[
    "cost_per_1k_usd",
    "vs_baseline",
    "failed_per_1k",
    "wasted_attempts_per_1k",
    "wasted_per_1k_usd",
];

/// The incident figures with a 95% interval, as `mc_KEY`.
pub const MC_INCIDENT: &[&str] = &[
    "total_usd",
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

/// The latency percentile columns (steady rows).
pub const MC_LATENCY: &[&str] = &["mc_latency_p50_s", "mc_latency_p95_s", "mc_latency_p99_s"];

fn mc_header() -> Vec<String> {
    let mut h: Vec<String> = MC_META_COLUMNS.iter().map(|c| c.to_string()).collect();
    for k in MC_STEADY.iter().chain(MC_INCIDENT) {
        h.push(format!("mc_{k}"));
        h.push(format!("mc_{k}_ci95_lo"));
        h.push(format!("mc_{k}_ci95_hi"));
    }
    h.extend(MC_LATENCY.iter().map(|c| c.to_string()));
    h
}

fn triple(mean: Option<f64>, ci: Option<[f64; 2]>) -> [String; 3] {
    [num(mean), num(ci.map(|c| c[0])), num(ci.map(|c| c[1]))]
}

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
    let mc = report.mc.as_ref();
    let mut header: Vec<String> = COMPARE_COLUMNS.iter().map(|c| c.to_string()).collect();
    if mc.is_some() {
        header.extend(mc_header());
    }
    w.write_record(&header)?;
    let blank = |n: usize| vec![String::new(); n];
    let meta = |rec: &mut Vec<String>| {
        if let Some(m) = mc {
            rec.extend([
                m.seed.to_string(),
                m.requests.to_string(),
                m.runs.to_string(),
            ]);
        }
    };
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
        let answered: Vec<String> = r
            .answered_by
            .iter()
            .map(|a| format!("{}={}", a.model, a.share))
            .collect();
        rec.extend([
            num(Some(r.attempts_per_request)),
            r.attempts_max.to_string(),
            num(Some(r.dead_time_mean_s)),
            num(Some(r.call_cap_hits_per_1k)),
            num(Some(r.cost_cap_hits_per_1k)),
            guard(&answered.join(";")),
        ]);
        meta(&mut rec);
        if mc.is_some() {
            match &r.mc {
                Some(m) => {
                    rec.extend(triple(
                        Some(m.cost_per_1k_usd),
                        Some(m.cost_per_1k_usd_ci95),
                    ));
                    rec.extend(triple(m.vs_baseline, m.vs_baseline_ci95));
                    rec.extend(triple(Some(m.failed_per_1k), Some(m.failed_per_1k_ci95)));
                    rec.extend(triple(
                        Some(m.wasted_attempts_per_1k),
                        Some(m.wasted_attempts_per_1k_ci95),
                    ));
                    rec.extend(triple(
                        Some(m.wasted_per_1k_usd),
                        Some(m.wasted_per_1k_usd_ci95),
                    ));
                    rec.extend(blank(3 * MC_INCIDENT.len()));
                    rec.extend([
                        num(Some(m.latency_p50_s)),
                        num(Some(m.latency_p95_s)),
                        num(Some(m.latency_p99_s)),
                    ]);
                }
                None => rec.extend(blank(3 * (MC_STEADY.len() + MC_INCIDENT.len()) + 3)),
            }
        }
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
            String::new(),
            String::new(),
            num(Some(r.dead_time_mean_s)),
            String::new(),
            String::new(),
            String::new(),
        ]);
        meta(&mut rec);
        if mc.is_some() {
            rec.extend(blank(3 * MC_STEADY.len()));
            match &r.mc {
                Some(m) => {
                    for (mean, ci) in [
                        (Some(m.total_usd), Some(m.total_usd_ci95)),
                        (m.multiplier, m.multiplier_ci95),
                        (Some(m.window_usd), Some(m.window_usd_ci95)),
                        (Some(m.cold_start_usd), Some(m.cold_start_usd_ci95)),
                        (Some(m.failback_usd), Some(m.failback_usd_ci95)),
                        (Some(m.failed_requests), Some(m.failed_requests_ci95)),
                        (Some(m.wasted_attempts), Some(m.wasted_attempts_ci95)),
                        (Some(m.wasted_usd), Some(m.wasted_usd_ci95)),
                        (Some(m.cold_starts), Some(m.cold_starts_ci95)),
                        (Some(m.failback_writes), Some(m.failback_writes_ci95)),
                    ] {
                        rec.extend(triple(mean, ci));
                    }
                }
                None => rec.extend(blank(3 * MC_INCIDENT.len())),
            }
            rec.extend(blank(MC_LATENCY.len()));
        }
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
