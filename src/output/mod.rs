//! Outputs: a human table, Markdown, CSV and JSON, written to stdout or atomically to a file.
//!
//! Every format is rendered to bytes first ([`render`]), so each can be snapshot-tested without
//! I/O, and a failed run never leaves a half-written file ([`write_file`]).

pub mod check;
pub mod color;
pub mod compare_plot;
pub mod csv;
pub mod diff;
pub mod error;
pub mod history;
pub mod json;
pub mod layout;
pub mod plot;
pub mod prices;
pub mod provenance;
pub mod reconcile;
pub mod sweep;
pub mod table;
pub mod tune;
pub mod ui;
pub mod workflow;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::report::Report;

pub use error::{OutputError, OutputResult};

/// An output format: `--format` of `compare`, `sweep` and `prices` (the variants' comments are
/// its `--help` text). CSV has one header line and one row per (section, chain, pattern), plain
/// numbers; JSON is one pretty-printed object with the keys of MODEL.md §10; Markdown is for
/// issues and pull requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned tables for a terminal.
    Table,
    /// CSV with one header line, for spreadsheets.
    Csv,
    /// One JSON object, for tooling.
    Json,
    /// GitHub-flavoured Markdown tables.
    Markdown,
}

/// Where output goes: standard output, or a file written atomically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputTarget {
    /// Standard output (`--output -`, the default).
    Stdout,
    /// A file path.
    File(PathBuf),
}

impl OutputTarget {
    /// `-` is standard output; anything else a path.
    pub fn parse(spec: &str) -> OutputTarget {
        if spec == "-" {
            OutputTarget::Stdout
        } else {
            OutputTarget::File(PathBuf::from(spec))
        }
    }
}

/// Render a compare report in `format`.
pub fn render(report: &Report, format: Format) -> OutputResult<Vec<u8>> {
    Ok(match format {
        Format::Table => {
            table::render(&layout::compare(report), table::Style::Terminal).into_bytes()
        }
        Format::Markdown => {
            table::render(&layout::compare(report), table::Style::Markdown).into_bytes()
        }
        Format::Csv => csv::compare(report)?,
        Format::Json => json::compare_bytes(report)?,
    })
}

/// Write `bytes` to `target`. A file is written to a temporary file beside it and renamed into
/// place, so a failed run never leaves a truncated file.
///
/// Errors: the file cannot be created, written or renamed (with the path); writing to a closed
/// standard output returns [`OutputError::Stdout`] with the `BrokenPipe` I/O error, for the
/// caller to treat as success ([`OutputError::is_broken_pipe`]).
pub fn write(target: &OutputTarget, bytes: &[u8]) -> OutputResult<()> {
    match target {
        OutputTarget::Stdout => write_stdout(bytes).map_err(OutputError::Stdout),
        // Colour is for the terminal: a file never gets it.
        OutputTarget::File(path) => write_file(path, &strip_sgr(bytes), "--output"),
    }
}

/// [`write()`] of the concatenation of `pieces`, written to standard output piece by piece (a
/// long document is not copied whole first).
///
/// Errors: as [`write()`].
pub fn write_pieces(target: &OutputTarget, pieces: &[Vec<u8>]) -> OutputResult<()> {
    match (target, pieces) {
        (_, [one]) => write(target, one),
        (OutputTarget::Stdout, _) => {
            let mut out = std::io::stdout().lock();
            pieces
                .iter()
                .try_for_each(|p| out.write_all(p))
                .and_then(|()| out.flush())
                .map_err(OutputError::Stdout)
        }
        (OutputTarget::File(_), _) => write(target, &pieces.concat()),
    }
}

/// `bytes` without the SGR colour sequences (`ESC [ … m`) that [`color`] and the tables add.
/// CSV and JSON never hold a raw escape character (JSON writes it `\u001b`), so only a
/// coloured table changes.
pub fn strip_sgr(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !bytes.contains(&0x1b) {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if bytes.get(j) == Some(&b'm') {
                i = j + 1;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

/// Write `bytes` to the file at `path`, named `flag` in errors (`--output`, `--plot`).
///
/// A regular file (or a new one) is written through a temporary file in the same folder and a
/// rename, so it is replaced whole or not at all. A symbolic link is followed and its target
/// replaced the same way. A path into `/dev` or `/proc` (`/dev/stdout`, `/dev/fd/N`,
/// `/proc/self/fd/N`, `/dev/null`), or anything else that already exists and is not a regular
/// file or a folder (a FIFO, a device), is written straight through: it cannot be replaced
/// atomically, and replacing it would break it for everyone else. `/dev/stdout` and
/// `/dev/stderr` are this process's own streams, so `-o /dev/stdout > log` appends to the log
/// the shell opened instead of replacing it.
///
/// Errors: a folder, a dangling link, a chain of more than 40 links, or a file that cannot be
/// created, written or renamed.
pub fn write_file(path: &Path, bytes: &[u8], flag: &str) -> OutputResult<()> {
    write_file_via(path, bytes, flag, path, 0)
}

/// [`write_file`] after following `hops` symbolic links from `asked`, the path the user gave.
fn write_file_via(
    path: &Path,
    bytes: &[u8],
    flag: &str,
    asked: &Path,
    hops: usize,
) -> OutputResult<()> {
    // the flag and the path as the user gave them, for every error
    let at = || (flag.to_string(), asked.to_path_buf());
    let cannot_write = |source| {
        let (flag, path) = at();
        OutputError::Write { flag, path, source }
    };
    if path.starts_with("/dev") || path.starts_with("/proc") {
        return write_through(path, bytes).map_err(cannot_write);
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            if hops >= 40 {
                let (flag, path) = at();
                return Err(OutputError::TooManyLinks { flag, path });
            }
            let target = std::fs::read_link(path).map_err(|source| {
                let (flag, path) = at();
                OutputError::ReadLink { flag, path, source }
            })?;
            let next = match path.parent() {
                Some(dir) => dir.join(&target),
                None => target,
            };
            return write_file_via(&next, bytes, flag, asked, hops + 1);
        }
        Ok(m) if m.is_dir() => {
            let (flag, path) = at();
            return Err(OutputError::IsDirectory { flag, path });
        }
        Ok(m) if !m.is_file() => {
            return write_through(path, bytes).map_err(cannot_write);
        }
        // A link to a file that does not exist yet is created, as a shell's `>` would,
        // unless its folder is missing too.
        Err(e)
            if hops > 0
                && e.kind() == std::io::ErrorKind::NotFound
                && path
                    .parent()
                    .is_some_and(|d| !d.as_os_str().is_empty() && !d.is_dir()) =>
        {
            let target = path.to_path_buf();
            let (flag, path) = at();
            return Err(OutputError::DanglingLink { flag, path, target });
        }
        _ => {}
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().ok_or_else(|| {
        let (flag, path) = at();
        OutputError::NotAFilePath { flag, path }
    })?;
    let (mut f, tmp) = create_temp(&dir, &name.to_string_lossy()).map_err(cannot_write)?;
    let result = (|| -> std::io::Result<()> {
        // Keep the permissions of the file being replaced (a 600 file stays 600).
        let mode = std::fs::metadata(path).ok().map(|m| m.permissions());
        f.write_all(bytes)?;
        f.sync_all()?;
        if let Some(mode) = mode {
            std::fs::set_permissions(&tmp, mode)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(cannot_write(e));
    }
    Ok(())
}

/// Create a new temporary file beside the output, `.NAME.fallcost-PID-NANOS.tmp`, exclusively
/// (`O_EXCL`: a file or symbolic link already at that name is never opened, so a link planted
/// there cannot redirect the write), trying a few names. Returns the open file and its path.
fn create_temp(dir: &Path, name: &str) -> std::io::Result<(std::fs::File, PathBuf)> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    create_temp_from(dir, name, nanos)
}

/// [`create_temp`] with the names derived from `nanos`.
fn create_temp_from(
    dir: &Path,
    name: &str,
    nanos: u32,
) -> std::io::Result<(std::fs::File, PathBuf)> {
    let mut last = None;
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(
            ".{name}.fallcost-{}-{}.tmp",
            std::process::id(),
            nanos.wrapping_add(attempt.wrapping_mul(7919))
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary file name")))
}

/// Write `bytes` to standard output and flush it.
fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Write `bytes` to a device, a FIFO or a stream, opened where it is: this process's standard
/// output or error for `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1` (and 2), appended to
/// anything else.
fn write_through(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let stream = path.to_str().and_then(|p| match p {
        "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(1),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(2),
        _ => None,
    });
    match stream {
        Some(1) => write_stdout(bytes),
        Some(_) => {
            let mut err = std::io::stderr().lock();
            err.write_all(bytes)?;
            err.flush()
        }
        None => {
            let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
            f.write_all(bytes)?;
            f.flush()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_is_stripped_and_other_bytes_kept() {
        assert_eq!(
            &*strip_sgr(b"\x1b[1m\x1b[31merror\x1b[0m: a \x1b[2J b"),
            b"error: a \x1b[2J b"
        );
        assert_eq!(&*strip_sgr(b"plain"), b"plain");
    }

    /// A symbolic link planted at the temporary file's name is never written through: the
    /// next name is used and the link's target keeps its content.
    #[test]
    fn a_planted_link_at_the_temporary_name_is_not_followed() {
        let dir = std::env::temp_dir().join(format!("fallcost-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let planted = dir.join(format!(".o.csv.fallcost-{}-1000.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let (mut f, tmp) = create_temp_from(&dir, "o.csv", 1000).unwrap();
        f.write_all(b"csv").unwrap();
        assert_ne!(tmp, planted);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&tmp).unwrap(), "csv");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
