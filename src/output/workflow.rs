//! GitHub Actions workflow commands (`::error file=…,line=…::message`): the escaping of their
//! data and property values per GitHub's toolkit, shared by `check --format github` and
//! `diff --format github`.

/// Escape workflow-command data (`%`, CR, LF) per GitHub's toolkit.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property value (also `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}
