//! `fallcost --version`: the version, the git commit it was built from, and the bundled price
//! tables with their dates.

use crate::input::pricing;

/// The git commit the binary was built from (12 hex digits), `FALLCOST_GIT_COMMIT` if the
/// build set it, or `unknown` for a build outside a git checkout (see `build.rs`).
pub const GIT_COMMIT: &str = env!("FALLCOST_GIT_COMMIT");

/// One bundled price table as `--version` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundledTable {
    /// Its name (`2026-07`), as `--pricing` takes it.
    pub name: String,
    /// The date its prices were checked, when the table says.
    pub verified: Option<String>,
    /// Where its prices come from, when the table says.
    pub source: Option<String>,
    /// What it is the default for (`fallcost check` and `fallcost prices`).
    pub default_for: String,
}

/// The bundled price tables, in the registry's order: the one place `--version` reads the
/// [`pricing::BUNDLED`] registry (nothing is parsed).
pub fn bundled_tables() -> Vec<BundledTable> {
    pricing::BUNDLED
        .iter()
        .map(|b| BundledTable {
            name: b.name.to_string(),
            verified: Some(b.date.to_string()),
            source: Some(b.source.to_string()),
            default_for: b.default_for.to_string(),
        })
        .collect()
}

/// The text after `fallcost ` that `--version` prints: the version, then one line for the
/// commit and one per bundled price table (with its date, what it is the default for and its
/// source).
pub fn long_version() -> String {
    long_version_at(crate::output::ui::width())
}

/// [`long_version`] for a terminal `width` columns wide: each table's line and its source
/// (on its own line) wrapped at spaces, continuation indented.
pub fn long_version_at(width: usize) -> String {
    let wrap = |text: &str| crate::output::table::wrap(text, width, 4);
    let mut s = format!(
        "{}\ncommit {}\nbundled price tables:",
        env!("CARGO_PKG_VERSION"),
        GIT_COMMIT
    );
    for t in bundled_tables() {
        let mut line = format!("  {}", t.name);
        match &t.verified {
            Some(d) => line.push_str(&format!(", verified {d}")),
            None => line.push_str(", no verification date"),
        }
        line.push_str(&format!(" (the default for {})", t.default_for));
        s.push('\n');
        s.push_str(&wrap(&line));
        if let Some(src) = &t.source {
            s.push('\n');
            s.push_str(&wrap(&format!("    source: {src}")));
        }
    }
    s
}

/// [`long_version`], computed once.
pub fn long_version_static() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(long_version)
}

/// The command line as `main` parses it: the derived [`crate::cli::Cli`] with the long
/// version, and help wrapped to the terminal's width ([`crate::output::ui::width`]).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    crate::cli::Cli::command()
        .long_version(long_version_static())
        .term_width(crate::output::ui::width())
        .max_term_width(crate::output::ui::width())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_version_names_the_commit_and_each_bundled_table() {
        let v = long_version();
        let mut lines = v.lines();
        assert_eq!(lines.next(), Some(env!("CARGO_PKG_VERSION")));
        let commit = lines.next().unwrap().strip_prefix("commit ").unwrap();
        assert!(
            commit == "unknown"
                || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
            "{commit}"
        );
        assert_eq!(lines.next(), Some("bundled price tables:"));
        let tables = bundled_tables();
        assert!(!tables.is_empty());
        assert!(v.contains("  2026-07, verified 2026-07-18"), "{v}");
        assert!(
            v.contains("  litellm-1.110.2, verified 2026-12-01 (the default for `fallcost check`"),
            "{v}"
        );
        assert_eq!(v.matches(" (the default for ").count(), tables.len(), "{v}");
    }

    #[test]
    fn the_long_version_fits_80_columns() {
        let v = long_version_at(80);
        for l in v.lines() {
            assert!(
                l.chars().count() <= 80,
                "{} columns: {l}\n{v}",
                l.chars().count()
            );
        }
        assert_eq!(
            v.matches("\n    source: ").count(),
            bundled_tables().len(),
            "{v}"
        );
    }
}
