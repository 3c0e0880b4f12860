//! `fallcost prices --update`: download LiteLLM's newest price file into the user's cache
//! directory, where `--pricing latest` (and a scenario's `pricing = "latest"`) finds it.
//!
//! The file goes to `$FALLCOST_CACHE_DIR/model_prices_and_context_window.json` when that
//! variable is set, else to the platform's cache directory (`$XDG_CACHE_HOME/fallcost` or
//! `~/.cache/fallcost` on Linux, `~/Library/Caches/fallcost` on macOS, `%LOCALAPPDATA%\fallcost`
//! on Windows). A download is checked to be a LiteLLM price file fallcost reads before it
//! replaces the cached one, through a temporary file and a rename, so a failed or cut-off
//! download never leaves a half-written cache.

use std::io::Write;
use std::path::PathBuf;

use crate::error::InputError;
use crate::model::PriceTable;

/// Why `fallcost prices --update` failed; the cached price file is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// The platform has no cache directory and `FALLCOST_CACHE_DIR` is not set.
    #[error("no cache directory on this platform; set FALLCOST_CACHE_DIR")]
    NoCacheDir,
    /// The download failed (network, HTTP status, or an answer over [`MAX_BYTES`]).
    #[error(
        "cannot download {url}: {error}; the cached price file is unchanged (offline? pass a file with --pricing PATH)"
    )]
    Download {
        /// The URL.
        url: String,
        /// What the HTTP client said.
        error: Box<ureq::Error>,
    },
    /// The answer is not a LiteLLM price file fallcost reads.
    #[error("{error}; {url} is not a LiteLLM price file fallcost reads, the cache is unchanged")]
    NotAPriceFile {
        /// The URL.
        url: String,
        /// What reading it as a price file found.
        error: Box<InputError>,
    },
    /// The cache directory cannot be created.
    #[error("cannot create {}: {error}", .dir.display())]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The cached file cannot be written (through its temporary file and the rename).
    #[error("cannot write {}: {error}", .path.display())]
    Write {
        /// The cached file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
}

/// Where `fallcost prices --update` downloads from by default: LiteLLM's file on GitHub.
pub const DEFAULT_URL: &str =
    "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json";

/// The cached file's name.
pub const FILE_NAME: &str = "model_prices_and_context_window.json";

/// The most a download may be, in bytes (the file is 3.4 MB; a larger answer is not it).
pub const MAX_BYTES: u64 = super::MAX_INPUT_BYTES;

/// The cached LiteLLM file's path (it may not exist yet); `None` when the platform has no cache
/// directory and `FALLCOST_CACHE_DIR` is not set.
pub fn cache_file() -> Option<PathBuf> {
    let dir = match std::env::var_os("FALLCOST_CACHE_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => dirs::cache_dir()?.join("fallcost"),
    };
    Some(dir.join(FILE_NAME))
}

/// Download `url` (default [`DEFAULT_URL`]), check that it is a LiteLLM price file, and write it
/// to [`cache_file`] through a temporary file and a rename. Returns the path written and the
/// table read from it.
///
/// Errors (the cached file is left as it was): no cache directory; a network failure or an HTTP
/// error status, naming the URL; an answer over [`MAX_BYTES`]; an answer that is not a price
/// file fallcost reads (with the error it gives); a cache directory that cannot be written.
pub fn update(url: Option<&str>) -> Result<(PathBuf, PriceTable), UpdateError> {
    let url = url.unwrap_or(DEFAULT_URL);
    let target = cache_file().ok_or(UpdateError::NoCacheDir)?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(std::time::Duration::from_secs(60)))
        .build()
        .into();
    let text = agent
        .get(url)
        .call()
        .and_then(|mut r| r.body_mut().with_config().limit(MAX_BYTES).read_to_string())
        .map_err(|e| UpdateError::Download {
            url: url.to_string(),
            error: Box::new(e),
        })?;
    let table =
        super::litellm_prices::parse(url, &text).map_err(|e| UpdateError::NotAPriceFile {
            url: url.to_string(),
            error: Box::new(e),
        })?;
    let dir = target.parent().expect("the cache file has a folder");
    std::fs::create_dir_all(dir).map_err(|error| UpdateError::CreateDir {
        dir: dir.to_path_buf(),
        error,
    })?;
    let tmp = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(text.as_bytes())?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &target)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(UpdateError::Write {
            path: target,
            error: e,
        });
    }
    Ok((target, table))
}
