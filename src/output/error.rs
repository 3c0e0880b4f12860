//! The output layer's one error type, [`OutputError`]: a document that cannot be serialised,
//! or a file or stream it cannot be written to. Every variant's `Display` is the line the
//! binary prints (exit 2); writing to a closed standard output is not an error to the user
//! ([`OutputError::is_broken_pipe`]).

use std::path::PathBuf;

/// An output error: serialising a document (CSV, JSON) failed, a destination (`--output`,
/// `--plot`) cannot be written (with the flag and the path as the user gave it), or a chart
/// cannot be drawn from what it was given.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Writing a CSV record failed.
    #[error(transparent)]
    Csv(#[from] ::csv::Error),
    /// Finishing a CSV document in memory failed (flushing its last record).
    #[error(transparent)]
    CsvFinish(std::io::Error),
    /// Serialising or re-reading a JSON document failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// Writing to standard output failed (a closed pipe among others).
    #[error(transparent)]
    Stdout(std::io::Error),
    /// The file (or device, or link's target) cannot be created, written or renamed.
    #[error("{flag} {}: cannot write", .path.display())]
    Write {
        /// The flag that named it (`--output`, `--plot`).
        flag: String,
        /// The path as the user gave it.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A symbolic link on the way cannot be read.
    #[error("{flag} {}: cannot read the link", .path.display())]
    ReadLink {
        /// The flag that named it.
        flag: String,
        /// The path as the user gave it.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// More than 40 symbolic links in a row.
    #[error("{flag} {}: too many levels of symbolic links", .path.display())]
    TooManyLinks {
        /// The flag that named it.
        flag: String,
        /// The path as the user gave it.
        path: PathBuf,
    },
    /// The path is a folder.
    #[error("{flag} {}: is a directory; expected a file", .path.display())]
    IsDirectory {
        /// The flag that named it.
        flag: String,
        /// The path as the user gave it.
        path: PathBuf,
    },
    /// A symbolic link to a file whose folder does not exist.
    #[error("{flag} {}: a link to nothing ({})", .path.display(), .target.display())]
    DanglingLink {
        /// The flag that named it.
        flag: String,
        /// The path as the user gave it.
        path: PathBuf,
        /// Where the link leads.
        target: PathBuf,
    },
    /// The path names no file (it ends in `..` or is a root).
    #[error("{flag} {}: not a file path", .path.display())]
    NotAFilePath {
        /// The flag that named it.
        flag: String,
        /// The path as the user gave it.
        path: PathBuf,
    },
    /// `--plot` on a sweep of more or fewer than one parameter.
    #[error("--plot draws cost against one parameter; this sweep has {params}")]
    PlotNeedsOneParameter {
        /// The sweep's parameters.
        params: usize,
    },
}

impl From<::csv::IntoInnerError<::csv::Writer<Vec<u8>>>> for OutputError {
    /// The I/O error of a CSV writer that could not be finished (the writer is dropped).
    fn from(e: ::csv::IntoInnerError<::csv::Writer<Vec<u8>>>) -> Self {
        OutputError::CsvFinish(e.into_error())
    }
}

impl OutputError {
    /// Whether this is a write to a closed pipe (`fallcost … | head -1`), which the binary
    /// treats as success.
    pub fn is_broken_pipe(&self) -> bool {
        let io = match self {
            OutputError::Stdout(e) => e,
            OutputError::Write { source, .. } => source,
            _ => return false,
        };
        io.kind() == std::io::ErrorKind::BrokenPipe
    }
}

/// A result of the output layer.
pub type OutputResult<T, E = OutputError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_error_prints_the_flag_the_path_and_the_cause_on_one_line() {
        let e = OutputError::Write {
            flag: "--output".into(),
            path: "out/x.csv".into(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
        };
        assert_eq!(e.to_string(), "--output out/x.csv: cannot write");
        // as the binary prints it (`{:#}` of the anyhow error `cmd` makes of it)
        assert_eq!(
            format!("{:#}", anyhow::Error::from(e)),
            "--output out/x.csv: cannot write: denied"
        );
    }

    #[test]
    fn a_closed_standard_output_is_a_broken_pipe_through_anyhow() {
        let pipe = || std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert!(crate::is_broken_pipe(&anyhow::Error::from(
            OutputError::Stdout(pipe())
        )));
        assert!(crate::is_broken_pipe(&anyhow::Error::from(
            OutputError::Write {
                flag: "--output".into(),
                path: "/dev/stdout".into(),
                source: pipe(),
            }
        )));
        assert!(!crate::is_broken_pipe(&anyhow::Error::from(
            OutputError::PlotNeedsOneParameter { params: 2 }
        )));
    }
}
