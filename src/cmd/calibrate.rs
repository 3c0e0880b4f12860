//! `fallcost calibrate`: read request logs, write the scenario they measure
//! ([`crate::calibrate`]).

use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

use crate::calibrate::write::{WriteOptions, WrittenScenario, scenario};
use crate::calibrate::{Aggregator, FileReport, LogFormat, ReadOptions, read_files};
use crate::cli::{CalibrateArgs, InputFormat};
use crate::error::{ExitStatus, InputError, InputErrorKind};
use crate::input::pricing::{BUNDLED, PricingRef};
use crate::model::PriceTable;

/// The table the scenario names and its models are checked against: `--pricing`, or the
/// first bundled table that prices every logged model (the lookup `compare` does: exact, or
/// the same provider's bare name; never another provider's), else the one that prices most.
///
/// Errors: an unreadable `--pricing` table.
fn pick_pricing(spec: Option<&str>, agg: &Aggregator) -> Result<(String, PriceTable), InputError> {
    if let Some(spec) = spec {
        let r = PricingRef::parse(spec, None);
        let prices = r.load()?;
        // The scenario names its table; a path is written absolute, since the scenario may
        // be written to another folder (a relative `pricing` is read relative to the scenario).
        let name = match &r {
            PricingRef::Bundled(name) => name.clone(),
            PricingRef::Path(p) => std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.clone())
                .display()
                .to_string(),
        };
        return Ok((name, prices));
    }
    let mut best: Option<(usize, String, PriceTable)> = None;
    for b in BUNDLED {
        let prices = PricingRef::Bundled(b.name.to_string()).load()?;
        let priced = agg
            .model_ids
            .iter()
            .filter(|m| prices.get(m).is_some())
            .count();
        if priced == agg.model_ids.len() {
            return Ok((b.name.to_string(), prices));
        }
        if best.as_ref().is_none_or(|(n, _, _)| priced > *n) {
            best = Some((priced, b.name.to_string(), prices));
        }
    }
    let (_, name, prices) = best.expect("a bundled table");
    Ok((name, prices))
}

/// `--strict`: any warning or unreadable record is an error.
fn strict_error(agg: &Aggregator, written: &WrittenScenario, first: &Path) -> Option<InputError> {
    if let Some(b) = agg.bad.first() {
        return Some(InputError {
            file: b.file.clone(),
            location: Some(crate::error::Location {
                line: usize::try_from(b.line).unwrap_or(usize::MAX),
                col: 1,
            }),
            field: None,
            message: format!(
                "--strict: {} unreadable record(s), first: {}",
                agg.bad_count,
                crate::error::printable_line(&b.message)
            ),
            kind: InputErrorKind::Invalid,
        });
    }
    let w = written.warnings.first()?;
    Some(InputError::file(
        InputErrorKind::Invalid,
        first.display().to_string(),
        format!(
            "--strict: {} warning(s) (a figure from too few events, or none measured), first: {w}",
            written.warnings.len()
        ),
    ))
}

/// Read every log, write the scenario, and report on standard error: the warnings, the
/// models the price table lacks, the unreadable records and the throughput.
///
/// Errors (exit 2): an unreadable price table or log, a log with no readable record, times in
/// another unit than the format's; under `--strict` a warning (a figure from too few events,
/// or no token counts) or an unreadable record; an output that cannot be written.
pub fn run(args: &CalibrateArgs) -> anyhow::Result<ExitStatus> {
    let options = ReadOptions {
        format: args.input_format.map(|f| match f {
            InputFormat::Otlp => LogFormat::Otlp,
            InputFormat::Litellm => LogFormat::LiteLlmCsv,
            InputFormat::Csv => LogFormat::Plain,
            InputFormat::Langfuse => LogFormat::Langfuse,
        }),
        progress: std::io::stderr().is_terminal() && !crate::output::ui::get().quiet,
    };
    if let Some(spec) = args.pricing.as_deref() {
        // A bad table is refused before the logs are read.
        PricingRef::parse(spec, None).load()?;
    }
    let paths: Vec<&Path> = args.logs.iter().map(|p| p.as_path()).collect();
    let mut agg = Aggregator::default();
    let started = Instant::now();
    let files = read_files(&paths, &options, &mut agg)?;
    let elapsed = started.elapsed().as_secs_f64();
    let (pricing, prices) = pick_pricing(args.pricing.as_deref(), &agg)?;
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
    if args.strict
        && let Some(e) = strict_error(&agg, &written, paths[0])
    {
        return Err(e.into());
    }
    crate::output::write(
        &crate::output::OutputTarget::parse(&args.output),
        written.text.as_bytes(),
    )?;
    report(&agg, &files, &written, &prices, elapsed);
    Ok(ExitStatus::Success)
}

/// Warnings printed one per line on standard error; past this a count (the scenario lists all).
const WARNINGS_SHOWN: usize = 10;

/// Standard error: the unreadable records, duplicates, warnings, unpriced models, throughput.
fn report(
    agg: &Aggregator,
    files: &[FileReport],
    written: &WrittenScenario,
    prices: &PriceTable,
    elapsed: f64,
) {
    if crate::output::ui::get().quiet {
        // `-q`: one line for everything the scenario's header lists.
        let warnings = written.warnings.len() + written.unknown_models.len();
        if warnings > 0 || agg.bad_count > 0 || agg.bad_fields > 0 {
            eprintln!(
                "fallcost calibrate: {warnings} warning(s), {} unreadable record(s), {} unreadable field(s): listed in the scenario's header",
                agg.bad_count, agg.bad_fields
            );
        }
        return;
    }
    reading(agg, files);
    warnings(written, prices);
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
}

/// A text from the logs as one printable line.
fn line(s: &str) -> String {
    crate::error::printable_line(s).into_owned()
}

/// Standard error: what reading the logs left out or counted once (unreadable records and
/// fields, duplicate files and records, unparseable metadata).
fn reading(agg: &Aggregator, files: &[FileReport]) {
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
    for f in files {
        if let Some(first) = &f.duplicate_of {
            eprintln!(
                "fallcost calibrate: {}: the same file as {}: read once",
                line(&f.file),
                line(first)
            );
        }
    }
    if let Some((f, l)) = &agg.first_duplicate {
        eprintln!(
            "fallcost calibrate: {} duplicate records (a span, row or request id seen before) counted once, first at {}:{l}",
            agg.duplicates,
            line(f)
        );
    }
    if let Some((f, l)) = &agg.first_bad_metadata {
        eprintln!(
            "fallcost calibrate: warning: {} rows with an unparseable `metadata` read without it, first at {}:{l}",
            agg.bad_metadata,
            line(f)
        );
    }
    if let Some(l) = agg.left_out_summary() {
        eprintln!("fallcost calibrate: {l}");
    }
    if agg.bad_fields > 0 {
        let first = agg
            .bad_field_shown
            .first()
            .map(|b| {
                format!(
                    ", first at {}:{}: {}",
                    line(&b.file),
                    b.line,
                    line(&b.message)
                )
            })
            .unwrap_or_default();
        eprintln!(
            "fallcost calibrate: warning: {} unreadable field(s) dropped, their records kept{first}",
            agg.bad_fields
        );
    }
}

/// Standard error: the scenario's warnings and the models no price table prices (one line
/// each, past [`WARNINGS_SHOWN`] a count).
fn warnings(written: &WrittenScenario, prices: &PriceTable) {
    for w in written.warnings.iter().take(WARNINGS_SHOWN) {
        eprintln!("fallcost calibrate: warning: {}", line(w));
    }
    if written.warnings.len() > WARNINGS_SHOWN {
        eprintln!(
            "fallcost calibrate: and {} more warnings (every one is a `# WARNING` line in the scenario)",
            written.warnings.len() - WARNINGS_SHOWN
        );
    }
    if written.unknown_models.len() > WARNINGS_SHOWN {
        eprintln!(
            "fallcost calibrate: warning: {} models are not in price table {}: `compare` refuses the scenario until each has a price (an unknown price is never taken as zero); the scenario's header lists them; write a price table with [models.\"provider/model\"] input = ..., output = ... ($/MTok) and run calibrate again with --pricing PATH",
            written.unknown_models.len(),
            prices.name
        );
    }
    let each = if written.unknown_models.len() > WARNINGS_SHOWN {
        &[][..]
    } else {
        &written.unknown_models[..]
    };
    for m in each {
        eprintln!(
            "fallcost calibrate: warning: model `{}` is not in price table {}: `compare` refuses the scenario until it has a price (an unknown price is never taken as zero); write a price table with [models.\"{}\"] input = ..., output = ... ($/MTok) and run calibrate again with --pricing PATH (docs/guide/scenarios-and-prices.md)",
            line(m),
            prices.name,
            line(m)
        );
    }
}
