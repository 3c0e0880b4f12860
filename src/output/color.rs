//! Colour where it helps: errors, warnings, notes, findings, and a premium in a table.
//!
//! Styles are anstyle's (what clap uses). Whether a stream is coloured is decided once per run
//! ([`super::ui`]: `--color`, `NO_COLOR`, `CLICOLOR_FORCE`, a terminal or not); CSV and JSON
//! never pass through here.

use anstyle::{AnsiColor, Style};

/// What a piece of text is, which decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An error (`error:`, an `above-ratio` finding): bold red.
    Error,
    /// A warning: bold yellow.
    Warning,
    /// A note: cyan.
    Note,
    /// A premium: a figure above the primary alone (`+12.3%`, `1.4×`): yellow.
    Premium,
    /// A saving: a figure below the primary alone: green.
    Saving,
}

/// The style of `role`.
pub fn style(role: Role) -> Style {
    match role {
        Role::Error => AnsiColor::Red.on_default().bold(),
        Role::Warning => AnsiColor::Yellow.on_default().bold(),
        Role::Note => AnsiColor::Cyan.on_default(),
        Role::Premium => AnsiColor::Yellow.on_default(),
        Role::Saving => AnsiColor::Green.on_default(),
    }
}

/// `text` in `role`'s colour when `on`, else `text` unchanged.
pub fn paint(on: bool, role: Role, text: &str) -> String {
    if on && !text.is_empty() {
        let s = style(role);
        format!("{}{text}{}", s.render(), s.render_reset())
    } else {
        text.to_string()
    }
}

/// The role of a table cell holding a change against the primary alone, as
/// [`crate::number::change`] writes it: `+12.30%` is a premium, `-4.00%` a saving, `+0.00%` and
/// any other cell `None`.
pub fn delta_role(cell: &str) -> Option<Role> {
    let t = cell.trim();
    let digits = t.get(1..)?.strip_suffix('%')?;
    if digits.is_empty()
        || !digits
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return None;
    }
    if digits.chars().all(|c| !c.is_ascii_digit() || c == '0') {
        return None;
    }
    match t.chars().next()? {
        '+' => Some(Role::Premium),
        '-' | '−' => Some(Role::Saving),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_wraps_in_sgr_codes_only_when_on() {
        assert_eq!(paint(false, Role::Error, "error:"), "error:");
        assert_eq!(
            paint(true, Role::Error, "error:"),
            "\x1b[1m\x1b[31merror:\x1b[0m"
        );
        assert_eq!(paint(true, Role::Note, "note"), "\x1b[36mnote\x1b[0m");
        assert_eq!(paint(true, Role::Note, ""), "");
    }

    #[test]
    fn deltas_are_premiums_or_savings() {
        assert_eq!(delta_role("+12.30%"), Some(Role::Premium));
        assert_eq!(delta_role(" +0.05% "), Some(Role::Premium));
        assert_eq!(delta_role("+1,234.00%"), Some(Role::Premium));
        assert_eq!(delta_role("+0.00%"), None);
        assert_eq!(delta_role("-4.00%"), Some(Role::Saving));
        assert_eq!(delta_role("0.00%"), None);
        assert_eq!(delta_role("+"), None);
        assert_eq!(delta_role("primary-only"), None);
        assert_eq!(delta_role("+12 req%"), None);
    }
}
