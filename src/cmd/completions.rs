//! `fallcost completions SHELL` (clap_complete) and `fallcost man` (clap_mangen).

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, Shell};
use crate::error::ExitStatus;

/// The completion script for `shell`, completing every subcommand, flag and value.
pub fn script(shell: Shell) -> Vec<u8> {
    use clap_complete::Shell as S;
    let shell = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Powershell => S::PowerShell,
        Shell::Elvish => S::Elvish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "fallcost", &mut out);
    out
}

/// The manual page, in roff: `fallcost(1)` with every subcommand's options and help.
///
/// Errors: none in practice (the page is rendered to memory).
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let cmd = super::version::command();
    let mut out = Vec::new();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    // One section per subcommand, with its options, so `man fallcost` documents them all.
    for sub in cmd.get_subcommands() {
        let name = format!("fallcost {}", sub.get_name());
        let sub = sub.clone().bin_name(name);
        let sub_man = clap_mangen::Man::new(sub.clone());
        writeln!(out, ".SH \"{}\"", sub.get_name().to_uppercase())?;
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            writeln!(out, "{}", roff_text(&about.to_string()))?;
        }
        let mut opts = Vec::new();
        sub_man.render_options_section(&mut opts)?;
        // Its options under the subcommand's heading, not a second OPTIONS heading.
        let opts = String::from_utf8_lossy(&opts).replacen(".SH OPTIONS\n", "", 1);
        out.extend_from_slice(opts.as_bytes());
        if let Some(after) = sub.get_after_help() {
            writeln!(out, ".PP\n.nf\n{}\n.fi", roff_text(&after.to_string()))?;
        }
    }
    man.render_extra_section(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// Plain text made safe for roff: backslashes doubled, and a line starting with `.` or `'`
/// (a roff request) prefixed with `\&`.
fn roff_text(s: &str) -> String {
    s.replace('\\', "\\e")
        .lines()
        .map(|l| {
            if l.starts_with(['.', '\'']) {
                format!("\\&{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Print `shell`'s completion script on standard output.
///
/// Errors: standard output cannot be written.
pub fn run_completions(shell: Shell) -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    out.write_all(&script(shell))?;
    out.flush()?;
    Ok(ExitStatus::Success)
}

/// Print the manual page on standard output.
///
/// Errors: standard output cannot be written.
pub fn run_man() -> anyhow::Result<ExitStatus> {
    let page = man_page()?;
    let mut out = std::io::stdout().lock();
    out.write_all(&page)?;
    out.flush()?;
    Ok(ExitStatus::Success)
}
