//! `fallcost check`: the CI gate over every fallback chain under the given paths.

use std::io::Write;

use crate::check::render::{self, CheckFormat};
use crate::check::{IncidentCheck, Options, files};
use crate::cli::{self, CheckArgs};
use crate::error::ExitStatus;
use crate::input::pricing::{PricingRef, broad_name};
use crate::input::settings::{self, CheckSettings};
use crate::model::Request;

/// Resolve the flags, check every file, print the findings (standard output) and the input
/// errors (standard error, one line each), and return the exit status: 0 clean, 1 findings (or
/// warnings under `--deny-warnings`), 2 input errors.
///
/// Errors: a `--pricing` table that cannot be loaded (before any file is read); an output that
/// cannot be written.
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitStatus> {
    // Project settings (fallcost.toml): every flag given wins over them.
    let settings = match &args.config_file {
        Some(path) => settings::load(path)?,
        None => match std::env::current_dir()
            .ok()
            .and_then(|cwd| settings::find(&cwd))
        {
            Some(path) => settings::load(&path)?,
            None => CheckSettings::default(),
        },
    };
    let spec = args
        .pricing
        .as_deref()
        .or(settings.pricing.as_deref())
        .unwrap_or(broad_name());
    let prices = PricingRef::parse(spec, None).load()?;
    let (input_tokens, output_tokens) = args.profile.or(settings.profile).unwrap_or((2000, 500));
    let (allow, allow_from) = if args.allow.is_empty() {
        (
            settings.allow.clone().unwrap_or_default(),
            settings.allow.as_ref().map(|_| settings.file.clone()),
        )
    } else {
        (args.allow.clone(), None)
    };
    let paths = match (&args.paths, &settings.paths) {
        (given, _) if !given.is_empty() => given.clone(),
        (_, Some(from_file)) => from_file.clone(),
        _ => Vec::new(),
    };
    let incident = match &args.incident {
        Some(d) => Some(IncidentCheck {
            duration_s: crate::input::duration::parse_seconds(d).map_err(|e| {
                crate::error::InputError::file(
                    crate::error::InputErrorKind::Invalid,
                    "--incident",
                    e,
                )
            })?,
            requests_per_second: args.rate,
            session_length: args.session_length,
        }),
        None => None,
    };
    let deny_warnings = args.deny_warnings || settings.deny_warnings.unwrap_or(false);
    let opts = Options {
        max_ratio: args.max_ratio.or(settings.max_ratio).unwrap_or(2.0),
        profile: Request {
            input_tokens: input_tokens as f64,
            output_tokens: output_tokens as f64,
            prefix_tokens: args.prefix as f64,
            cache_hit_rate: args.hit_rate,
        },
        prices,
        allow,
        allow_from,
        incident,
    };
    let report = files::check_paths(&paths, &opts);
    let format = match args.format {
        cli::CheckFormat::Text => CheckFormat::Text,
        cli::CheckFormat::Json => CheckFormat::Json,
        cli::CheckFormat::Github => CheckFormat::Github,
        cli::CheckFormat::Sarif => CheckFormat::Sarif,
    };
    let ui = crate::output::ui::get();
    let out = render::render(&report, format, ui.verbose);
    let out = if format == CheckFormat::Text {
        // On a terminal each finding wraps to its width (continuing indented); in a pipe or a
        // file it stays one line, for grep and problem matchers.
        let out = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            crate::output::table::wrap(&out, crate::output::ui::width(), 2)
        } else {
            out
        };
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
    Ok(report.exit_status(deny_warnings))
}
