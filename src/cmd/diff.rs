//! `fallcost diff`: price BASE and HEAD ([`crate::ops::diff`]), render the change
//! ([`crate::output::diff`]), exit 1 when a threshold is crossed.

use crate::cli::DiffArgs;
use crate::cmd::options::RunOptions;
use crate::error::ExitStatus;
use crate::ops::diff::{DiffRequest, Threshold};
use crate::output::{self, OutputTarget, ui};

/// Parse a `--fail-above` limit: `10%`, `$500/month` (or `500/month`), `$1000/incident`, `3x`,
/// `+100failed/incident` (failed requests per reference incident), `-0.01%availability`
/// (percentage points of availability through the history's incidents).
///
/// Errors: anything else, naming the forms allowed.
pub fn parse_threshold(s: &str) -> Result<Threshold, String> {
    let allowed = "expected 10% (the steady monthly total), $500/month, $1000/incident, 3x (a chain's worst fallback ratio), +100failed/incident (failed requests per reference incident) or -0.01%availability (percentage points a year, with a history)";
    let t = s.trim();
    let num = |x: &str| -> Result<f64, String> {
        let x = x.trim().trim_start_matches('$').replace(['_', ','], "");
        match x.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(format!("{allowed}; got `{s}`")),
        }
    };
    if let Some(f) = t.strip_suffix("failed/incident") {
        return num(f.trim_start_matches('+')).map(Threshold::FailedPerIncident);
    }
    if let Some(a) = t.strip_suffix("%availability") {
        return num(a.trim_start_matches('-')).map(Threshold::Availability);
    }
    if let Some(p) = t.strip_suffix('%') {
        return num(p).map(Threshold::Percent);
    }
    if let Some(m) = t.strip_suffix("/month") {
        return num(m).map(Threshold::PerMonth);
    }
    if let Some(i) = t.strip_suffix("/incident") {
        return num(i).map(Threshold::PerIncident);
    }
    if let Some(r) = t.strip_suffix('x') {
        return num(r).map(Threshold::Ratio);
    }
    Err(format!("{allowed}; got `{s}`"))
}

/// Run the diff and print it.
///
/// Errors (exit 2): without --base-ref, a number of paths other than two; everything
/// [`crate::ops::diff::diff`] refuses; an output that cannot be written.
pub fn run(args: &DiffArgs, _opts: &RunOptions) -> anyhow::Result<ExitStatus> {
    let (base, head) = match (&args.base_ref, args.paths.as_slice()) {
        (Some(_), paths) => (Vec::new(), paths.to_vec()),
        (None, [b, h]) => (vec![b.clone()], vec![h.clone()]),
        (None, p) => anyhow::bail!(
            "fallcost diff takes two paths, BASE and HEAD (got {}); or HEAD's paths with --base-ref REF",
            p.len()
        ),
    };
    let req = DiffRequest {
        base,
        head,
        base_ref: args.base_ref.clone(),
        scenario: args.scenario.clone(),
        profile: args.profile,
        set: &args.set,
        config_file: args.config_file.as_deref(),
        pattern: args.pattern,
        requests_per_month: args.requests_per_month.map(|n| n as f64),
        budget: args.budget,
        incidents: args.incidents.clone(),
        years: args.years,
        seed: args.seed,
        thresholds: args.fail_above.clone(),
        hold_usage: args.usage == crate::cli::UsageSide::Head,
        mc: args.mc.map(|requests| crate::sim::McOptions {
            requests,
            runs: args.mc_runs.unwrap_or(crate::sim::DEFAULT_RUNS),
            seed: args.seed,
        }),
    };
    let report = crate::ops::diff::diff(&req)?;
    let text = if args.only_increases && !report.has_increase() && report.crossed.is_empty() {
        ui::note(
            "--only-increases: no chain costs or fails more in HEAD and no threshold is crossed; nothing printed",
        );
        String::new()
    } else {
        output::diff::render_diff(&report, args.format)?
    };
    output::write(&OutputTarget::parse(&args.output), text.as_bytes())?;
    Ok(if report.crossed.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Findings
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_parse_in_each_form_and_refuse_others() {
        assert_eq!(parse_threshold("10%"), Ok(Threshold::Percent(10.0)));
        assert_eq!(
            parse_threshold("$500/month"),
            Ok(Threshold::PerMonth(500.0))
        );
        assert_eq!(
            parse_threshold("1,000/month"),
            Ok(Threshold::PerMonth(1000.0))
        );
        assert_eq!(
            parse_threshold("$1000/incident"),
            Ok(Threshold::PerIncident(1000.0))
        );
        assert_eq!(parse_threshold("2.5x"), Ok(Threshold::Ratio(2.5)));
        assert_eq!(
            parse_threshold("+100failed/incident"),
            Ok(Threshold::FailedPerIncident(100.0))
        );
        assert_eq!(
            parse_threshold("-0.01%availability"),
            Ok(Threshold::Availability(0.01))
        );
        let e = parse_threshold("10").unwrap_err();
        assert!(
            e.starts_with("expected 10% (the steady monthly total)"),
            "{e}"
        );
        assert!(parse_threshold("-1%").is_err());
    }
}
