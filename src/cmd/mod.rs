//! One module per subcommand: each takes its parsed arguments and the [`options::RunOptions`]
//! resolved once, calls its operation ([`crate::ops`]), renders the result ([`crate::output`])
//! and returns an [`ExitStatus`](crate::error::ExitStatus).

pub mod bench;
pub mod calibrate;
pub mod check;
pub mod compare;
pub mod completions;
pub mod diff;
pub mod history;
pub mod options;
pub mod prices;
pub mod reconcile;
pub mod simulate;
pub mod sweep;
pub mod tune;
pub mod version;

use std::path::Path;

use crate::cli::OutputArgs;
use crate::output::{Format, OutputTarget};

/// Refuse a `--plot` that names the `--output` file (`compare`, `sweep`), before any work.
///
/// Errors (exit 2): both flags name the same file.
pub fn plot_apart(plot: Option<&Path>, target: &OutputTarget) -> anyhow::Result<()> {
    if let (Some(plot), OutputTarget::File(out)) = (plot, target)
        && plot == out
    {
        anyhow::bail!(
            "--plot and --output both name {}; give them different files",
            plot.display()
        );
    }
    Ok(())
}

/// The format an output file's extension names: `.json`, `.csv`, `.md` (`.markdown`), and a
/// table for `.txt`, no extension or standard output (`-`). `Err` with the extension for any
/// other, which names no format fallcost writes ([`crate::error::ValueError::Unknown`], its
/// message the extension).
pub fn format_from_path(output: &str) -> Result<Option<Format>, crate::error::ValueError> {
    if output == "-" {
        return Ok(None);
    }
    let Some(ext) = Path::new(output).extension().and_then(|e| e.to_str()) else {
        return Ok(None);
    };
    match ext.to_ascii_lowercase().as_str() {
        "json" => Ok(Some(Format::Json)),
        "csv" => Ok(Some(Format::Csv)),
        "md" | "markdown" => Ok(Some(Format::Markdown)),
        "txt" | "text" => Ok(None),
        _ => Err(crate::error::ValueError::Unknown(ext.to_string())),
    }
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::Table => "table",
        Format::Csv => "csv",
        Format::Json => "json",
        Format::Markdown => "markdown",
    }
}

/// The format `args` asks for: an explicit `--format` wins; without one, the `--output`
/// file's extension decides ([`format_from_path`]); a table otherwise. `.txt` and no extension
/// take any format.
///
/// Errors (exit 2): a `--format` that contradicts the extension (`-o x.csv --format json`), or,
/// without `--format`, an extension that names no format (`-o x.yaml`).
pub fn format_of(args: &OutputArgs) -> anyhow::Result<Format> {
    let explicit = args.format;
    match (format_from_path(&args.output), explicit) {
        (Ok(Some(inferred)), Some(given)) if inferred != given => anyhow::bail!(
            "--output {} names {} (by its extension) but --format is {}; drop --format, or give the file a matching extension",
            args.output,
            format_name(inferred),
            format_name(given)
        ),
        (_, Some(given)) => Ok(given),
        (Ok(inferred), None) => Ok(inferred.unwrap_or(Format::Table)),
        (Err(ext), None) => anyhow::bail!(
            "--output {}: `.{ext}` names no format; allowed: .json, .csv, .md, .txt or no extension (a table), or give --format",
            args.output
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(format: Option<Format>, output: &str) -> OutputArgs {
        OutputArgs {
            format,
            output: output.to_string(),
        }
    }

    #[test]
    fn the_extension_picks_the_format_and_an_explicit_one_wins() {
        let f = |fmt, out| format_of(&args(fmt, out)).map_err(|e| e.to_string());
        assert_eq!(f(None, "-"), Ok(Format::Table));
        assert_eq!(f(None, "out.json"), Ok(Format::Json));
        assert_eq!(f(None, "dir/OUT.CSV"), Ok(Format::Csv));
        assert_eq!(f(None, "report.md"), Ok(Format::Markdown));
        assert_eq!(f(None, "report.txt"), Ok(Format::Table));
        assert_eq!(f(None, "report"), Ok(Format::Table));
        assert_eq!(f(None, "/dev/stdout"), Ok(Format::Table));
        assert_eq!(f(Some(Format::Json), "-"), Ok(Format::Json));
        assert_eq!(f(Some(Format::Csv), "x.csv"), Ok(Format::Csv));
        assert_eq!(f(Some(Format::Markdown), "x.txt"), Ok(Format::Markdown));
        assert_eq!(f(Some(Format::Csv), "x.yaml"), Ok(Format::Csv));
        assert_eq!(
            f(Some(Format::Json), "x.csv"),
            Err("--output x.csv names csv (by its extension) but --format is json; drop --format, or give the file a matching extension".into())
        );
        assert_eq!(
            f(None, "x.yaml"),
            Err("--output x.yaml: `.yaml` names no format; allowed: .json, .csv, .md, .txt or no extension (a table), or give --format".into())
        );
    }
}
