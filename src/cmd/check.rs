//! `fallcost check`: the CI gate over every fallback chain under the given paths.

use std::io::Write;

use crate::check::render::{self, CheckFormat};
use crate::check::{Options, files};
use crate::cli::{self, CheckArgs};
use crate::error::ExitStatus;
use crate::input::pricing::{PricingRef, default_name};
use crate::model::Request;

/// Resolve the flags, check every file, print the findings (standard output) and the input
/// errors (standard error, one line each), and return the exit status: 0 clean, 1 findings (or
/// warnings under `--deny-warnings`), 2 input errors.
///
/// Errors: a `--pricing` table that cannot be loaded (before any file is read); an output that
/// cannot be written.
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    let spec = args.pricing.as_deref().unwrap_or(default_name());
    let prices = PricingRef::parse(spec, None).load()?;
    let (input_tokens, output_tokens) = args.profile;
    let opts = Options {
        max_ratio: args.max_ratio,
        profile: Request {
            input_tokens: input_tokens as f64,
            output_tokens: output_tokens as f64,
            prefix_tokens: 0.0,
            cache_hit_rate: 1.0,
        },
        prices,
    };
    let report = files::check_paths(&args.paths, &opts);
    let format = match args.format {
        cli::CheckFormat::Text => CheckFormat::Text,
        cli::CheckFormat::Json => CheckFormat::Json,
        cli::CheckFormat::Github => CheckFormat::Github,
        cli::CheckFormat::Sarif => CheckFormat::Sarif,
    };
    let ui = crate::output::ui::get();
    let out = render::render(&report, format, ui.verbose);
    let out = if format == CheckFormat::Text {
        render::colorize_text(&out, ui.color_stdout)
    } else {
        out
    };
    {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(out.as_bytes())?;
        stdout.flush()?;
    }
    let mut stderr = std::io::stderr().lock();
    for e in &report.errors {
        // One line each, whatever a config's names hold (newlines, terminal escapes).
        writeln!(
            stderr,
            "{}",
            crate::output::color::paint_stderr(
                crate::output::color::Role::Error,
                "error:",
                &crate::error::printable_line(&e.to_string())
            )
        )?;
    }
    Ok(report.exit_status(args.deny_warnings))
}
