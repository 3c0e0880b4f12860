//! What every subcommand shares about talking to a person: `-q/--quiet`, `-v/--verbose`,
//! `--color`, and the terminal's width.
//!
//! The global flags are set once, before the subcommand runs ([`init`]), and read anywhere
//! through [`get`], so the subcommands keep their signatures.
//!
//! - `--quiet`: notes (`fallcost: note: …`, the drawn Monte Carlo seed) and progress bars off;
//!   warnings and errors still print.
//! - `--verbose`: more detail on standard error (which price table, how many requests were
//!   simulated, how long it took; `check` also lists the files checked and skipped).
//! - `--color auto|always|never`: colour on standard output and standard error. `auto` colours
//!   a terminal only, and honours `NO_COLOR` (any non-empty value: never) and `CLICOLOR_FORCE`
//!   (any value but `0`: always, even in a pipe). CSV and JSON are never coloured.

use std::io::IsTerminal;
use std::sync::OnceLock;

/// `--color`: when to colour standard output and standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// Colour a terminal, honouring `NO_COLOR` and `CLICOLOR_FORCE`.
    Auto,
    /// Always colour (even in a pipe).
    Always,
    /// Never colour.
    Never,
}

/// The global output settings of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ui {
    /// `--quiet`: no notes, no progress.
    pub quiet: bool,
    /// `--verbose`: more detail on standard error.
    pub verbose: bool,
    /// Whether standard output is coloured (tables and text findings; never CSV or JSON).
    pub color_stdout: bool,
    /// Whether standard error is coloured (errors, warnings, notes).
    pub color_stderr: bool,
}

static UI: OnceLock<Ui> = OnceLock::new();

/// Set the run's settings (the first call wins; later calls are ignored).
pub fn init(ui: Ui) {
    let _ = UI.set(ui);
}

/// The run's settings: those given to [`init`], or the defaults (no colour, no quiet, no
/// verbose) when nothing was set, as in library use and unit tests.
pub fn get() -> Ui {
    UI.get().copied().unwrap_or_default()
}

/// Whether to colour a stream under `--color when`, given whether the stream is a terminal
/// and the values of `NO_COLOR` and `CLICOLOR_FORCE` (`None` when unset).
///
/// `always` and `never` win over the environment; under `auto`, a non-empty `NO_COLOR` turns
/// colour off, then a `CLICOLOR_FORCE` other than `0` (or empty) turns it on, and otherwise a
/// terminal is coloured and a pipe or file is not.
pub fn color_for(
    when: ColorWhen,
    is_terminal: bool,
    no_color: Option<&str>,
    clicolor_force: Option<&str>,
) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            if no_color.is_some_and(|v| !v.is_empty()) {
                false
            } else if clicolor_force.is_some_and(|v| !v.is_empty() && v != "0") {
                true
            } else {
                is_terminal
            }
        }
    }
}

/// The settings for `quiet`, `verbose` and `--color when`, reading the environment and
/// whether standard output and error are terminals.
pub fn from_flags(quiet: bool, verbose: bool, when: ColorWhen) -> Ui {
    let no_color = std::env::var("NO_COLOR").ok();
    let force = std::env::var("CLICOLOR_FORCE").ok();
    Ui {
        quiet,
        verbose,
        color_stdout: color_for(
            when,
            std::io::stdout().is_terminal(),
            no_color.as_deref(),
            force.as_deref(),
        ),
        color_stderr: color_for(
            when,
            std::io::stderr().is_terminal(),
            no_color.as_deref(),
            force.as_deref(),
        ),
    }
}

/// The width text output is laid out for, in columns: the terminal's (standard output's, else
/// standard error's), else `COLUMNS`, else 80. At least 40.
pub fn width() -> usize {
    let tty = terminal_size::terminal_size_of(std::io::stdout())
        .or_else(|| terminal_size::terminal_size_of(std::io::stderr()))
        .map(|(w, _)| w.0 as usize);
    width_from(tty, std::env::var("COLUMNS").ok().as_deref())
}

/// [`width`] from the terminal's width (`None` when not a terminal) and `COLUMNS`.
pub fn width_from(tty: Option<usize>, columns: Option<&str>) -> usize {
    tty.filter(|w| *w > 0)
        .or_else(|| {
            columns
                .and_then(|c| c.trim().parse().ok())
                .filter(|w| *w > 0)
        })
        .unwrap_or(80)
        .max(40)
}

/// Print a note on standard error (`fallcost: note: …`), unless `--quiet`.
pub fn note(message: &str) {
    if !get().quiet {
        eprintln!(
            "{}",
            paint_stderr(super::color::Role::Note, "fallcost: note:", message)
        );
    }
}

/// Print an informational line on standard error (`fallcost: …`, such as the drawn seed),
/// unless `--quiet`.
pub fn info(message: &str) {
    if !get().quiet {
        eprintln!("fallcost: {message}");
    }
}

/// Print a warning on standard error (`fallcost: warning: …`), even under `--quiet`.
pub fn warn(message: &str) {
    eprintln!(
        "{}",
        paint_stderr(super::color::Role::Warning, "fallcost: warning:", message)
    );
}

/// Print a detail line on standard error (`fallcost: …`), only under `--verbose`.
pub fn detail(message: &str) {
    if get().verbose {
        eprintln!("fallcost: {message}");
    }
}

/// Whether progress bars may be drawn: not under `--quiet`, and only on a terminal.
pub fn progress_allowed() -> bool {
    !get().quiet && std::io::stderr().is_terminal()
}

/// `label message` for standard error, the label coloured (in `role`'s colour) when standard
/// error is ([`get`]'s `color_stderr`).
pub fn paint_stderr(role: super::color::Role, label: &str, message: &str) -> String {
    format!(
        "{} {message}",
        super::color::paint(get().color_stderr, role, label)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_flag_then_environment_then_terminal() {
        use ColorWhen::*;
        assert!(color_for(Always, false, Some("1"), None));
        assert!(!color_for(Never, true, None, Some("1")));
        assert!(color_for(Auto, true, None, None));
        assert!(!color_for(Auto, false, None, None));
        assert!(!color_for(Auto, true, Some("1"), None));
        // an empty NO_COLOR is as if unset
        assert!(color_for(Auto, true, Some(""), None));
        assert!(color_for(Auto, false, None, Some("1")));
        assert!(!color_for(Auto, false, None, Some("0")));
        // NO_COLOR wins over CLICOLOR_FORCE
        assert!(!color_for(Auto, false, Some("1"), Some("1")));
    }

    #[test]
    fn width_is_the_terminal_then_columns_then_80() {
        assert_eq!(width_from(Some(120), Some("60")), 120);
        assert_eq!(width_from(None, Some("60")), 60);
        assert_eq!(width_from(None, Some(" 132 ")), 132);
        assert_eq!(width_from(None, Some("wide")), 80);
        assert_eq!(width_from(None, None), 80);
        assert_eq!(width_from(None, Some("10")), 40);
        assert_eq!(width_from(Some(0), None), 80);
    }
}
