//! `fallcost calibrate`: read request logs, write the scenario they measure
//! ([`crate::calibrate`]).

use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

use crate::calibrate::write::{WriteOptions, scenario};
use crate::calibrate::{Aggregator, LogFormat, Options, read_files};
use crate::cli::{CalibrateArgs, InputFormat};
use crate::error::{ExitStatus, InputError, InputErrorKind};
use crate::input::pricing::{PricingRef, default_name};

/// Read every log, write the scenario, and report on standard error: the warnings, the
/// models the price table lacks, the unreadable records and the throughput.
///
/// Errors (exit 2): an unreadable price table or log, a log with no readable record, a
/// warning under `--strict` (a figure from too few events, or no token counts); an output
/// that cannot be written.
pub fn run(args: &CalibrateArgs) -> anyhow::Result<ExitStatus> {
    let spec = args.pricing.as_deref().unwrap_or(default_name());
    let pricing_ref = PricingRef::parse(spec, None);
    let prices = pricing_ref.load()?;
    // The scenario names its table; a path is written absolute, since the scenario may be
    // written to another folder (a relative `pricing` is read relative to the scenario).
    let pricing = match &pricing_ref {
        PricingRef::Bundled(name) => name.clone(),
        PricingRef::Path(p) => std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.clone())
            .display()
            .to_string(),
    };
    let options = Options {
        format: args.input_format.map(|f| match f {
            InputFormat::Otlp => LogFormat::Otlp,
            InputFormat::Litellm => LogFormat::LiteLlmCsv,
            InputFormat::Csv => LogFormat::Plain,
        }),
        progress: std::io::stderr().is_terminal(),
    };
    let paths: Vec<&Path> = args.logs.iter().map(|p| p.as_path()).collect();
    let mut agg = Aggregator::default();
    let started = Instant::now();
    let files = read_files(&paths, &options, &mut agg)?;
    let elapsed = started.elapsed().as_secs_f64();
    let written = scenario(
        &agg,
        &files,
        &prices,
        &WriteOptions {
            pricing,
            timeout_s: args.timeout_s,
            min_events: args.min_events,
        },
    );
    if args.strict && !written.warnings.is_empty() {
        return Err(InputError::file(
            InputErrorKind::Invalid,
            paths[0].display().to_string(),
            format!(
                "--strict: {} warning(s) (a figure from too few events, or none measured), first: {}",
                written.warnings.len(),
                written.warnings[0]
            ),
        )
        .into());
    }
    crate::output::write(
        &crate::output::OutputTarget::parse(&args.output),
        written.text.as_bytes(),
    )?;
    let line = |s: &str| crate::error::printable_line(s).into_owned();
    for b in &agg.bad {
        eprintln!(
            "fallcost calibrate: {}:{}: unreadable record: {}",
            line(&b.file),
            b.line,
            line(&b.message)
        );
    }
    if agg.bad_count > agg.bad.len() as u64 {
        eprintln!(
            "fallcost calibrate: {} more unreadable records",
            agg.bad_count - agg.bad.len() as u64
        );
    }
    for w in &written.warnings {
        eprintln!("fallcost calibrate: warning: {}", line(w));
    }
    for m in &written.unknown_models {
        eprintln!(
            "fallcost calibrate: warning: model `{}` is not in price table {}: add its price before `compare` (an unknown price is never taken as zero)",
            line(m),
            prices.name
        );
    }
    let bytes: u64 = files.iter().map(|f| f.bytes).sum();
    eprintln!(
        "fallcost calibrate: {} records ({} unreadable) from {} file(s), {:.1} MB in {:.2} s ({:.0} MB/s)",
        agg.records,
        agg.bad_count,
        files.len(),
        bytes as f64 / 1e6,
        elapsed,
        bytes as f64 / 1e6 / elapsed.max(1e-9)
    );
    Ok(ExitStatus::Success)
}
