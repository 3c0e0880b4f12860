//! A base side read at a git ref: `git show REF:path` for each file into a temporary folder (no
//! checkout), files renamed since the ref (`git mv`) written at their HEAD names, and paths made
//! relative to the current folder as git's pathspecs name them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ops::OpsError;

/// `p` relative to the current folder, as git's pathspecs and `REF:./path` name files: an
/// absolute path anywhere in the repository becomes `sub/file` or `../other/file` (symbolic
/// links resolved on both sides); a relative path as written, tidied. An absolute path that
/// cannot be resolved stays absolute (git then says it is outside the repository).
pub(super) fn in_repo(p: &Path) -> PathBuf {
    if !p.is_absolute() {
        return crate::input::settings::tidy_path(p);
    }
    let resolve = |q: &Path| -> Option<PathBuf> {
        // a path deleted in HEAD has no file to resolve: resolve its folder
        q.canonicalize().ok().or_else(|| {
            let parent = q.parent()?.canonicalize().ok()?;
            Some(parent.join(q.file_name()?))
        })
    };
    let (Some(cwd), Some(abs)) = (
        std::env::current_dir().ok().and_then(|c| resolve(&c)),
        resolve(p),
    ) else {
        return p.to_path_buf();
    };
    let (c, a): (Vec<_>, Vec<_>) = (cwd.components().collect(), abs.components().collect());
    let common = c.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..c.len() {
        out.push("..");
    }
    for x in &a[common..] {
        out.push(x);
    }
    out
}

/// `paths` as they are at git ref `r`, written under a new temporary folder; the folder, the
/// paths there that exist at the ref (empty when none does) and the files renamed into them
/// since the ref (each written at its HEAD name).
///
/// Errors: git cannot be run, or refuses the ref (its message, exit 2).
pub(super) fn at_ref(
    r: &str,
    paths: &[PathBuf],
) -> crate::ops::OpsResult<(PathBuf, Vec<PathBuf>, Vec<Renamed>)> {
    let dir = std::env::temp_dir().join(format!(
        "fallcost-diff-{}-{}",
        std::process::id(),
        crate::sim::rng::fresh_seed()
    ));
    check_ref(r)?;
    let renames = renames(r)?;
    let mut out = Vec::new();
    let mut used = Vec::new();
    for p in paths {
        let p = &in_repo(p);
        if write_at_ref(r, &dir, p, &renames, &mut used)? {
            out.push(dir.join(safe(p)));
        }
    }
    Ok((dir, out, used))
}

/// The standard output of `git ARGS` (for `--base-ref r`).
///
/// Errors: git cannot be run, or fails (its message).
fn git(r: &str, args: &[&str]) -> crate::ops::OpsResult<Vec<u8>> {
    let out = Command::new("git")
        .args(args)
        .output()
        .map_err(|error| OpsError::GitRun {
            git_ref: r.to_string(),
            error,
        })?;
    if !out.status.success() {
        return Err(OpsError::GitFailed {
            git_ref: r.to_string(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// Check that `r` names a commit.
///
/// Errors: it does not, saying why: no repository here, or a ref this clone lacks (a shallow
/// clone said so).
fn check_ref(r: &str) -> crate::ops::OpsResult<()> {
    let git = |args: &[&str]| git(r, args);
    if git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("{r}^{{commit}}"),
    ])
    .is_ok()
    {
        return Ok(());
    }
    // say why: no repository here, or a ref this clone lacks
    git(&["rev-parse", "--is-inside-work-tree"]).map_err(|_| OpsError::NotARepository {
        git_ref: r.to_string(),
    })?;
    let shallow = git(&["rev-parse", "--is-shallow-repository"])
        .map(|o| String::from_utf8_lossy(&o).trim() == "true")
        .unwrap_or(false);
    Err(OpsError::NoCommit {
        git_ref: r.to_string(),
        shallow,
    })
}

/// Files renamed since the ref (`git mv`, a folder moved), as git's rename detection pairs
/// them (working tree against the ref; paths relative to the current folder): the ref's file
/// stands at its new name, so a moved config is the same chains, not a deletion and an
/// addition.
///
/// Errors: as [`git`]; a listing that is not UTF-8.
fn renames(r: &str) -> crate::ops::OpsResult<Vec<Renamed>> {
    let listed = git(
        r,
        &[
            "diff",
            "-M",
            "--name-status",
            "-z",
            "--diff-filter=R",
            "--relative",
            r,
        ],
    )?;
    let fields: Vec<&str> = std::str::from_utf8(&listed)?
        .split('\0')
        .filter(|f| !f.is_empty())
        .collect();
    Ok(fields
        .chunks_exact(3)
        .map(|c| Renamed {
            from: c[1].to_string(),
            to: c[2].to_string(),
        })
        .collect())
}

/// Write the files of path `p` at ref `r` under `dir`, and those renamed into it since
/// (each at its HEAD name, added to `used`); whether there was any.
///
/// Errors: as [`git`]; a file that cannot be written.
fn write_at_ref(
    r: &str,
    dir: &Path,
    p: &Path,
    renames: &[Renamed],
    used: &mut Vec<Renamed>,
) -> crate::ops::OpsResult<bool> {
    let listed = git(
        r,
        &[
            "ls-tree",
            "-r",
            "--name-only",
            r,
            "--",
            &p.display().to_string(),
        ],
    )?;
    let mut files: Vec<(String, String)> = std::str::from_utf8(&listed)?
        .lines()
        .map(|f| (f.to_string(), f.to_string()))
        .collect();
    for m in renames {
        let to = Path::new(&m.to);
        let inside = |q: &Path| q == p || q.starts_with(p);
        if inside(to) && !inside(Path::new(&m.from)) {
            files.push((m.from.clone(), m.to.clone()));
            used.push(m.clone());
        }
    }
    if files.is_empty() {
        return Ok(false);
    }
    for (f, at) in files {
        let body = git(r, &["show", &format!("{r}:./{f}")])?;
        let target = dir.join(safe(Path::new(&at)));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| OpsError::io(parent, e))?;
        }
        std::fs::write(&target, body).map_err(|e| OpsError::io(&target, e))?;
    }
    Ok(true)
}

/// A file git pairs as renamed between the base ref and the working tree (paths relative to
/// the current folder).
#[derive(Debug, Clone)]
pub(super) struct Renamed {
    /// Its path at the ref.
    pub(super) from: String,
    /// Its path in HEAD.
    pub(super) to: String,
}

/// `p` with `..` and root components made plain names, so it stays inside the folder
/// ([`unsafe_back`] undoes it).
pub(super) fn safe(p: &Path) -> PathBuf {
    use std::path::Component;
    p.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(PathBuf::from(n)),
            Component::ParentDir => Some(PathBuf::from(UP)),
            _ => None,
        })
        .collect()
}

/// What [`safe`] writes for `..`.
const UP: &str = "__up";

/// A path [`safe`] made, as git names it from the current folder (`__up` back to `..`).
pub(super) fn unsafe_back(p: &Path) -> PathBuf {
    p.components()
        .map(|c| match c.as_os_str().to_str() {
            Some(UP) => PathBuf::from(".."),
            _ => PathBuf::from(c.as_os_str()),
        })
        .collect()
}
