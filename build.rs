//! Build script: records the git commit the binary is built from, for `fallcost --version`.
//!
//! `FALLCOST_GIT_COMMIT` set in the environment wins (a packager building from a tarball can
//! name the commit); otherwise `git rev-parse` is asked; a build outside a git checkout (a
//! source tarball, `cargo install` from crates.io) records `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=FALLCOST_GIT_COMMIT");
    let commit = std::env::var("FALLCOST_GIT_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    // Rebuild when HEAD moves (a worktree's git dir is not ./.git, so ask git where it is).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or(dir);
        if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={common}/{head}");
        }
        println!("cargo:rerun-if-changed={common}/packed-refs");
    }
    println!("cargo:rustc-env=FALLCOST_GIT_COMMIT={commit}");
}
