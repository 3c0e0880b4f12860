//! Atlassian Statuspage's `incidents.json` (see the parent module's doc for the mapping).

use super::{Coverage, History, HistoryIncident, PeriodSource, StatuspageOptions, parse_rfc3339};
use crate::error::{InputError, InputErrorKind, Location};

#[derive(serde::Deserialize)]
struct SpFile {
    page: SpPage,
    incidents: Vec<SpIncident>,
}

#[derive(serde::Deserialize)]
struct SpPage {
    name: Option<String>,
    url: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
}

#[derive(serde::Deserialize)]
struct SpIncident {
    name: String,
    impact: String,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    resolved_at: Option<String>,
    #[serde(default)]
    updated_at: Option<String>,
    #[serde(default)]
    components: Vec<SpComponent>,
}

#[derive(serde::Deserialize)]
struct SpComponent {
    name: String,
}

/// Known status pages: a host (the page URL's, lower case, without `www.`) or a page name
/// (lower case) → the provider as the price tables spell it (`pricing/2026-07.toml`, LiteLLM's
/// `litellm_provider`). Anthropic's page moved from status.anthropic.com to status.claude.com
/// (named "Claude"); xAI's host `status.x.ai` would read `x`; Together's and Fireworks' price
/// tables write `together_ai` and `fireworks_ai`; Google's Gemini API is LiteLLM's `gemini`.
pub const KNOWN_PAGES: &[(&str, &str)] = &[
    ("status.claude.com", "anthropic"),
    ("status.anthropic.com", "anthropic"),
    ("claude", "anthropic"),
    ("anthropic", "anthropic"),
    ("status.openai.com", "openai"),
    ("openai", "openai"),
    ("status.cloud.google.com", "gemini"),
    ("aistudio.google.com", "gemini"),
    ("google", "gemini"),
    ("google cloud", "gemini"),
    ("google ai studio", "gemini"),
    ("gemini", "gemini"),
    ("status.x.ai", "xai"),
    ("xai", "xai"),
    ("x.ai", "xai"),
    ("status.deepseek.com", "deepseek"),
    ("deepseek", "deepseek"),
    ("status.mistral.ai", "mistral"),
    ("mistral ai", "mistral"),
    ("groqstatus.com", "groq"),
    ("status.groq.com", "groq"),
    ("groq", "groq"),
    ("status.together.ai", "together_ai"),
    ("together ai", "together_ai"),
    ("status.fireworks.ai", "fireworks_ai"),
    ("fireworks ai", "fireworks_ai"),
    ("status.cohere.com", "cohere"),
    ("cohere", "cohere"),
    ("status.perplexity.com", "perplexity"),
    ("perplexity", "perplexity"),
    ("status.deepinfra.com", "deepinfra"),
    ("deepinfra", "deepinfra"),
    ("status.cerebras.ai", "cerebras"),
    ("cerebras", "cerebras"),
];

/// A URL's host, lower case, without `www.` (`https://Status.Claude.com/x` →
/// `status.claude.com`).
fn host_of(url: &str) -> String {
    let host = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', ':', '?', '#'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    host.strip_prefix("www.")
        .map_or(host.clone(), str::to_string)
}

fn known(key: &str) -> Option<String> {
    KNOWN_PAGES
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, p)| p.to_string())
}

/// The provider a Statuspage page names: a known page's provider ([`KNOWN_PAGES`], by host,
/// then by name: `https://status.claude.com` → `anthropic`), else its URL's host without
/// `status.` and the domain (`https://status.acme.ai` → `acme`), else its name in lower case,
/// spaces as `-`.
pub fn provider_of_page(name: Option<&str>, url: Option<&str>) -> Option<String> {
    let host = url.map(host_of);
    let lower = name.map(|n| n.trim().to_lowercase());
    if let Some(p) = host.as_deref().and_then(known) {
        return Some(p);
    }
    if let Some(p) = lower.as_deref().and_then(known) {
        return Some(p);
    }
    if let Some(host) = host {
        let host = host.strip_prefix("status.").unwrap_or(&host);
        let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
        // "openai.com" → openai; "acme.statuspage.io" → acme
        if let Some(first) = labels.first()
            && labels.len() >= 2
        {
            return Some((*first).to_string());
        }
    }
    lower.map(|n| n.replace(' ', "-")).filter(|n| !n.is_empty())
}

/// Where the incidents and keys of a Statuspage text are, for errors.
struct Places<'a> {
    file: &'a str,
    text: &'a str,
    starts: Vec<usize>,
    /// The line and column of each of `starts`, found in one pass over the text (a page as
    /// its API serves it is one line of megabytes: locating each incident from the start of
    /// the text was quadratic).
    locations: Vec<Location>,
}

/// The location `text[from..to]` moves `at` (the location of `from`) to: lines counted,
/// columns in characters.
fn advance(text: &str, from: usize, to: usize, at: Location) -> Location {
    let part = &text[from..to];
    match part.rfind('\n') {
        Some(nl) => Location {
            line: at.line + part.matches('\n').count(),
            col: part[nl + 1..].chars().count() + 1,
        },
        None => Location {
            line: at.line,
            col: at.col + part.chars().count(),
        },
    }
}

impl<'a> Places<'a> {
    /// The incidents of `text` and their locations. Linear in the text.
    fn new(file: &'a str, text: &'a str) -> Places<'a> {
        let starts = element_starts(text, "incidents");
        let mut locations = Vec::with_capacity(starts.len());
        let (mut from, mut at) = (0, Location { line: 1, col: 1 });
        for &s in &starts {
            // the starts are increasing, and each is an ASCII `{` (a char boundary)
            at = advance(text, from, s, at);
            from = s;
            locations.push(at);
        }
        Places {
            file,
            text,
            starts,
            locations,
        }
    }

    /// Incident `i`'s object (or its `key` in it).
    fn at(&self, i: usize, key: Option<&str>) -> Option<Location> {
        let start = *self.starts.get(i)?;
        let at = self.locations[i];
        Some(match key.and_then(|k| key_offset(self.text, start, k)) {
            Some(offset) => advance(self.text, start, offset, at),
            None => at,
        })
    }

    /// An `Invalid` error at incident `i`'s `key`.
    fn err(&self, i: usize, key: &str, message: String) -> InputError {
        InputError {
            file: self.file.to_string(),
            location: self.at(i, Some(key)),
            field: Some(format!("incidents[{i}].{key}")),
            message,
            kind: InputErrorKind::Invalid,
        }
    }
}

/// The parsed file, or a `Syntax` / `Schema` error with serde's line, column and path.
fn deserialize(file: &str, text: &str) -> Result<SpFile, InputError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return crate::input::json_syntax_error(file, &inner);
        }
        let message = inner.to_string();
        let message = match message.rfind(" at line ") {
            Some(at) => message[..at].to_string(),
            None => message,
        };
        InputError {
            file: file.to_string(),
            location: Some(Location {
                line: inner.line().max(1),
                col: inner.column().max(1),
            }),
            field: Some(path),
            message,
            kind: InputErrorKind::Schema,
        }
    })
}

/// The page's provider ([`provider_of_page`], or `--provider`), else an error at `page`.
fn page_provider(
    file: &str,
    text: &str,
    page: &SpPage,
    options: &StatuspageOptions,
) -> Result<String, InputError> {
    options
        .provider
        .clone()
        .or_else(|| provider_of_page(page.name.as_deref(), page.url.as_deref()))
        .ok_or_else(|| InputError {
            file: file.to_string(),
            location: Some(Location::of_offset(
                text,
                key_offset(text, 0, "page").unwrap_or(0),
            )),
            field: Some("page".into()),
            message:
                "the page has no usable `url` or `name` to name the provider; pass --provider NAME"
                    .into(),
            kind: InputErrorKind::Invalid,
        })
}

/// Every `--component` name must be listed by some incident of the file.
fn check_components(
    file: &str,
    incidents: &[SpIncident],
    wanted: &[String],
) -> Result<(), InputError> {
    let mut known: Vec<&str> = incidents
        .iter()
        .flat_map(|i| i.components.iter().map(|c| c.name.as_str()))
        .collect();
    known.sort_unstable();
    known.dedup();
    let Some(want) = wanted.iter().find(|w| !known.contains(&w.as_str())) else {
        return Ok(());
    };
    let near = crate::suggest::nearest(want, known.iter().copied())
        .map_or(String::new(), |n| format!(" (did you mean {n:?}?)"));
    let list = if known.is_empty() {
        "none".to_string()
    } else {
        known
            .iter()
            .map(|k| format!("{k:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(InputError {
        file: file.to_string(),
        location: None,
        field: Some("--component".into()),
        message: format!(
            "no incident lists a component {want:?}{near}; the components in this file: {list}"
        ),
        kind: InputErrorKind::Invalid,
    })
}

/// Incident `i`'s start: `started_at`, else `created_at` (posted later: a lower bound on the
/// damage); the key it came from and its text. Errors: neither is given, or it is no RFC 3339
/// time.
fn incident_start<'a>(
    places: &Places<'_>,
    i: usize,
    inc: &'a SpIncident,
) -> Result<(f64, &'static str, &'a str), InputError> {
    let (key, text) = match (&inc.started_at, &inc.created_at) {
        (Some(s), _) => ("started_at", s.as_str()),
        (None, Some(c)) => ("created_at", c.as_str()),
        (None, None) => {
            return Err(places.err(
                i,
                "started_at",
                "the incident has neither started_at nor created_at; an incident needs a start (started_at, or created_at when it was posted)".into(),
            ));
        }
    };
    let start = parse_rfc3339(text).map_err(|m| places.err(i, key, m.to_string()))?;
    Ok((start, key, text))
}

/// What one incident of the file is: priced, skipped (impact `none`, or a `--component` it
/// does not list) or open.
enum Read {
    Priced(HistoryIncident),
    Notice,
    Filtered,
    Open(String, Location),
}

/// Incident `i` read against `options`. Errors: an unknown impact, a bad time, `resolved_at`
/// not after the start.
fn read_incident(
    places: &Places<'_>,
    i: usize,
    inc: &SpIncident,
    provider: &str,
    options: &StatuspageOptions,
) -> Result<Read, InputError> {
    if !options.components.is_empty()
        && !inc
            .components
            .iter()
            .any(|c| options.components.contains(&c.name))
    {
        return Ok(Read::Filtered);
    }
    let error_rate = match inc.impact.as_str() {
        "none" => return Ok(Read::Notice),
        "minor" => options.impact.minor_error_rate,
        "major" | "critical" => 1.0,
        other => {
            return Err(places.err(
                i,
                "impact",
                format!("unknown impact {other:?}; expected none, minor, major or critical"),
            ));
        }
    };
    let (start_s, start_key, start_text) = incident_start(places, i, inc)?;
    let Some(resolved) = &inc.resolved_at else {
        let loc = places
            .at(i, Some("resolved_at"))
            .unwrap_or(Location { line: 1, col: 1 });
        return Ok(Read::Open(inc.name.clone(), loc));
    };
    let end_s = parse_rfc3339(resolved).map_err(|m| places.err(i, "resolved_at", m.to_string()))?;
    if end_s <= start_s {
        return Err(places.err(
            i,
            "resolved_at",
            format!(
                "{resolved} is not after the start {start_text} ({start_key}); an incident must end after it starts"
            ),
        ));
    }
    Ok(Read::Priced(HistoryIncident {
        provider: provider.to_string(),
        name: inc.name.clone(),
        start_s,
        end_s,
        failure: options.impact.failure,
        error_rate,
        file: places.file.to_string(),
        line: places.at(i, None).map_or(0, |l| l.line),
    }))
}

/// The error listing the open incidents (no `resolved_at`).
fn open_error(file: &str, open: &[(String, Location)]) -> InputError {
    let list: Vec<String> = open
        .iter()
        .map(|(n, loc)| format!("{n:?} (line {})", loc.line))
        .collect();
    InputError {
        file: file.to_string(),
        location: Some(open[0].1),
        field: Some("resolved_at".into()),
        message: format!(
            "{} incident(s) still open (no resolved_at): {}; an open incident has no duration to price: wait until it is resolved, or skip open incidents (--skip-open)",
            open.len(),
            list.join(", ")
        ),
        kind: InputErrorKind::Invalid,
    }
}

/// The period the file covers: its earliest incident's start (of every incident listed, kept
/// or not) to the page's `updated_at`, else to the latest time the file holds (an incident's
/// `resolved_at`, `updated_at`, `created_at` or start); never before the latest of those.
/// `None` for a file without incidents. Times that do not parse are left out (the incident's
/// own error names them when it is read).
fn coverage(file: &str, parsed: &SpFile) -> Option<Coverage> {
    let t = |s: &Option<String>| s.as_deref().and_then(|s| parse_rfc3339(s).ok());
    let starts = parsed
        .incidents
        .iter()
        .filter_map(|i| t(&i.started_at).or_else(|| t(&i.created_at)));
    let start_s = starts.fold(f64::INFINITY, f64::min);
    let latest = parsed
        .incidents
        .iter()
        .flat_map(|i| [&i.resolved_at, &i.updated_at, &i.created_at, &i.started_at])
        .filter_map(t)
        .fold(f64::NEG_INFINITY, f64::max);
    if !start_s.is_finite() {
        return None;
    }
    let (end_s, source) = match t(&parsed.page.updated_at) {
        Some(u) => (u.max(latest), PeriodSource::PageUpdated),
        None => (latest, PeriodSource::PageTimes),
    };
    Some(Coverage {
        file: file.to_string(),
        start_s,
        end_s,
        source,
    })
}

/// Read a Statuspage `incidents.json` (`file` is the name used in messages).
///
/// Errors ([`InputErrorKind`]): `Syntax` for invalid JSON; `Schema` for a missing or mistyped
/// field (`incidents[3].name`), with serde_json's line and column; `Invalid` for an unknown
/// impact, an incident with neither `started_at` nor `created_at`, a bad timestamp,
/// `resolved_at` not after the start, a provider that cannot be derived, a `--component` no
/// incident lists, an error rate outside [0, 1], and open incidents (all of them listed) unless
/// `skip_open`.
pub fn parse_statuspage(
    file: &str,
    text: &str,
    options: &StatuspageOptions,
) -> Result<History, InputError> {
    let parsed = deserialize(file, text)?;
    let rate = options.impact.minor_error_rate;
    if !(rate.is_finite() && (0.0..=1.0).contains(&rate)) {
        return Err(InputError {
            file: file.to_string(),
            location: None,
            field: Some("--minor-error-rate".into()),
            message: format!("must be in [0, 1]; got {rate}"),
            kind: InputErrorKind::Invalid,
        });
    }
    let places = Places::new(file, text);
    let provider = page_provider(file, text, &parsed.page, options)?;
    check_components(file, &parsed.incidents, &options.components)?;
    let mut out = History::default();
    let mut open = Vec::new();
    for (i, inc) in parsed.incidents.iter().enumerate() {
        match read_incident(&places, i, inc, &provider, options)? {
            Read::Priced(incident) => out.incidents.push(incident),
            Read::Notice => out.skipped_none += 1,
            Read::Filtered => {}
            Read::Open(name, loc) => open.push((name, loc)),
        }
    }
    if !open.is_empty() {
        if !options.skip_open {
            return Err(open_error(file, &open));
        }
        out.skipped_open = open.into_iter().map(|(n, _)| n).collect();
    }
    out.coverage.extend(coverage(file, &parsed));
    out.sort();
    Ok(out)
}

/// The component names a Statuspage file's incidents list (empty if it does not parse: the
/// parser then says why).
pub(super) fn statuspage_components(text: &str) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Names {
        #[serde(default)]
        incidents: Vec<Comps>,
    }
    #[derive(serde::Deserialize)]
    struct Comps {
        #[serde(default)]
        components: Vec<SpComponent>,
    }
    serde_json::from_str::<Names>(text)
        .map(|n| {
            n.incidents
                .into_iter()
                .flat_map(|i| i.components.into_iter().map(|c| c.name))
                .collect()
        })
        .unwrap_or_default()
}

/// Byte offsets of the elements of the array under top-level key `key` of a JSON object
/// (empty if there is none). A small scanner: it tracks strings and nesting only, enough to
/// point errors at an incident's line.
pub(super) fn element_starts(text: &str, key: &str) -> Vec<usize> {
    let Some(k) = key_offset(text, 0, key) else {
        return Vec::new();
    };
    let b = text.as_bytes();
    // skip the key string, the colon, whitespace, to the '['
    let mut i = k + key.len() + 2;
    while i < b.len() && b[i] != b'[' {
        i += 1;
    }
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut in_str = false;
    let mut esc = false;
    let mut expect = true;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
        } else {
            match c {
                b'[' | b'{' => {
                    if depth == 1 && expect {
                        out.push(i);
                        expect = false;
                    }
                    depth += 1;
                    if depth == 1 {
                        expect = true;
                    }
                }
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => expect = true,
                b'"' => {
                    if depth == 1 && expect {
                        out.push(i);
                        expect = false;
                    }
                    in_str = true;
                }
                c if !c.is_ascii_whitespace() && depth == 1 && expect => {
                    out.push(i);
                    expect = false;
                }
                _ => {}
            }
        }
        i += 1;
    }
    out
}

/// The byte offset of key `"key"` directly inside the JSON object starting at `start`.
pub(super) fn key_offset(text: &str, start: usize, key: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = start;
    while i < b.len() && b[i] != b'{' {
        i += 1;
    }
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let s = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && text.get(s + 1..i) == Some(key) {
                    let mut j = i + 1;
                    while j < b.len() && b[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if b.get(j) == Some(&b':') {
                        return Some(s);
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::history::ImpactModel;

    use crate::input::history::tests::{T0, fixture};

    #[test]
    fn known_pages_name_their_price_table_provider() {
        // issue 21 item 10: Anthropic's page is status.claude.com, named "Claude" (the host
        // rule read "claude", which no price table has); xAI's host would read "x"
        let p = |name: Option<&str>, url: Option<&str>| provider_of_page(name, url);
        assert_eq!(
            p(Some("Claude"), Some("https://status.claude.com")).as_deref(),
            Some("anthropic")
        );
        assert_eq!(p(Some("Claude"), None).as_deref(), Some("anthropic"));
        assert_eq!(
            p(None, Some("https://STATUS.OPENAI.COM/history")).as_deref(),
            Some("openai")
        );
        assert_eq!(
            p(
                Some("Google Cloud"),
                Some("https://status.cloud.google.com/")
            )
            .as_deref(),
            Some("gemini")
        );
        assert_eq!(
            p(Some("xAI"), Some("https://status.x.ai")).as_deref(),
            Some("xai")
        );
        assert_eq!(
            p(None, Some("https://status.together.ai")).as_deref(),
            Some("together_ai")
        );
        assert_eq!(
            p(None, Some("https://status.deepseek.com")).as_deref(),
            Some("deepseek")
        );
        // every provider a known page maps to is one the bundled tables spell so
        let bundled = include_str!("../../../pricing/2026-07.toml");
        for provider in ["anthropic", "openai", "deepseek", "xai"] {
            assert!(bundled.contains(&format!("\"{provider}/")), "{provider}");
        }
        let litellm = include_str!("../../../pricing/litellm-1.110.2.json");
        for (_, provider) in KNOWN_PAGES {
            assert!(
                litellm.contains(&format!("\"litellm_provider\":\"{provider}\"")),
                "{provider} is not a LiteLLM provider"
            );
        }
        // a page fallcost does not know: its host, as before
        assert_eq!(
            p(Some("Acme"), Some("https://status.acme.ai")).as_deref(),
            Some("acme")
        );
    }

    #[test]
    fn started_at_alone_is_a_start() {
        let text = r#"{"page": {"name": "Claude", "url": "https://status.claude.com"},
 "incidents": [
  {"name": "a", "impact": "major", "started_at": "2026-09-03T13:10:00Z",
   "resolved_at": "2026-09-03T16:16:00Z", "components": []}
 ]}"#;
        let h = parse_statuspage("c.json", text, &StatuspageOptions::default()).unwrap();
        assert_eq!(h.incidents[0].provider, "anthropic");
        assert_eq!(h.incidents[0].start_s, T0);
        assert_eq!(h.incidents[0].duration_s(), 11_160.0);
    }

    #[test]
    fn the_period_is_the_pages_coverage_not_the_filters() {
        // three incidents; --component keeps the two 22 days apart in March; the page covers
        // 2026-01-05 (its earliest incident, a claude.ai one) to its updated_at, 2026-12-31
        let text = r#"{"page": {"name": "Anthropic", "url": "https://status.anthropic.com",
            "updated_at": "2026-12-31T00:00:00Z"},
 "incidents": [
  {"name": "c", "impact": "major", "created_at": "2026-03-23T10:00:00Z",
   "resolved_at": "2026-03-23T11:00:00Z", "components": [{"name": "Claude API"}]},
  {"name": "b", "impact": "major", "created_at": "2026-03-01T10:00:00Z",
   "resolved_at": "2026-03-01T11:00:00Z", "components": [{"name": "Claude API"}]},
  {"name": "a", "impact": "minor", "created_at": "2026-01-05T00:00:00Z",
   "resolved_at": "2026-01-05T02:00:00Z", "components": [{"name": "claude.ai"}]}
 ]}"#;
        let opts = StatuspageOptions {
            components: vec!["Claude API".into()],
            ..Default::default()
        };
        let h = parse_statuspage("a.json", text, &opts).unwrap();
        assert_eq!(h.incidents.len(), 2);
        let (start, end) = h.period().unwrap();
        assert_eq!(
            crate::input::history::format_rfc3339(start),
            "2026-01-05T00:00:00Z"
        );
        assert_eq!(
            crate::input::history::format_rfc3339(end),
            "2026-12-31T00:00:00Z"
        );
        assert_eq!(h.coverage[0].source, PeriodSource::PageUpdated);
        // 360 days, where first-to-last kept incident is 22 days + 1 h
        assert_eq!((end - start) / 86_400.0, 360.0);
        assert_eq!(h.span_s(), 22.0 * 86_400.0 + 3600.0);
        // without updated_at: to the latest time the file holds
        let h = parse_statuspage(
            "a.json",
            &text.replace(r#""updated_at": "2026-12-31T00:00:00Z""#, r#""id": "p""#),
            &opts,
        )
        .unwrap();
        assert_eq!(h.coverage[0].source, PeriodSource::PageTimes);
        assert_eq!(
            crate::input::history::format_rfc3339(h.period().unwrap().1),
            "2026-03-23T11:00:00Z"
        );
    }

    #[test]
    fn providers_come_from_the_page() {
        assert_eq!(
            provider_of_page(Some("OpenAI"), Some("https://status.openai.com")).as_deref(),
            Some("openai")
        );
        assert_eq!(
            provider_of_page(Some("Anthropic"), Some("https://status.anthropic.com/")).as_deref(),
            Some("anthropic")
        );
        assert_eq!(
            provider_of_page(Some("Acme AI"), Some("not a url")).as_deref(),
            Some("acme-ai")
        );
        assert_eq!(provider_of_page(None, None), None);
    }

    #[test]
    fn statuspage_maps_impacts_and_times() {
        let h = parse_statuspage(
            "anthropic.json",
            &fixture("anthropic.json"),
            &StatuspageOptions::default(),
        )
        .unwrap();
        // 4 incidents: one `none` (skipped), one minor (0.5), one major, one critical
        assert_eq!(h.skipped_none, 1);
        let got: Vec<(&str, f64, f64, f64)> = h
            .incidents
            .iter()
            .map(|i| {
                (
                    i.provider.as_str(),
                    i.start_s - T0,
                    i.duration_s(),
                    i.error_rate,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                // Aug 20, 09:00-09:45 minor; started_at absent: created_at
                (
                    "anthropic",
                    -14.0 * 86_400.0 - 4.0 * 3600.0 - 600.0,
                    2700.0,
                    0.5
                ),
                // Sept 3: started_at 13:10, resolved 16:16
                ("anthropic", 0.0, 11_160.0, 1.0),
                // Sept 10, 02:00-02:20 critical
                (
                    "anthropic",
                    7.0 * 86_400.0 - 11.0 * 3600.0 - 600.0,
                    1200.0,
                    1.0
                ),
            ]
        );
        assert_eq!(h.incidents[1].name, "Elevated errors on the API");
        assert_eq!(h.incidents[1].line, 18);
    }

    #[test]
    fn components_filter_and_unknown_components_are_named() {
        let opts = StatuspageOptions {
            components: vec!["claude.ai".into()],
            ..Default::default()
        };
        let h = parse_statuspage("a.json", &fixture("anthropic.json"), &opts).unwrap();
        assert_eq!(h.incidents.len(), 1);
        assert_eq!(h.incidents[0].start_s, T0);
        let opts = StatuspageOptions {
            components: vec!["Claude API".into()],
            ..Default::default()
        };
        let e = parse_statuspage("a.json", &fixture("anthropic.json"), &opts).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.json: --component: no incident lists a component \"Claude API\" (did you mean \"claude API\"?); the components in this file: \"claude API\", \"claude.ai\""
        );
    }

    #[test]
    fn open_incidents_are_listed_unless_skipped() {
        let text = fixture("openai-open.json");
        let e = parse_statuspage("openai.json", &text, &StatuspageOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "openai.json:15:7: resolved_at: 1 incident(s) still open (no resolved_at): \"Increased latency\" (line 15); an open incident has no duration to price: wait until it is resolved, or skip open incidents (--skip-open)"
        );
        let opts = StatuspageOptions {
            skip_open: true,
            impact: ImpactModel {
                minor_error_rate: 0.2,
                ..Default::default()
            },
            ..Default::default()
        };
        let h = parse_statuspage("openai.json", &text, &opts).unwrap();
        assert_eq!(h.skipped_open, vec!["Increased latency".to_string()]);
        assert_eq!(h.incidents.len(), 1);
        assert_eq!(h.incidents[0].provider, "openai");
        assert_eq!(h.incidents[0].duration_s(), 2040.0);
    }

    #[test]
    fn a_one_line_page_names_each_incidents_column() {
        // as the API serves it: one line; incident k's object and its key located in one pass
        let inc = |k: usize, impact: &str| {
            format!(
                r#"{{"name":"i{k}","impact":"{impact}","started_at":"2026-09-0{k}T13:10:00Z","resolved_at":"2026-09-0{k}T14:10:00Z","components":[{{"name":"API"}}]}}"#
            )
        };
        let text = format!(
            r#"{{"page":{{"name":"Claude","url":"https://status.claude.com"}},"incidents":[{},{},{}]}}"#,
            inc(1, "major"),
            inc(2, "minor"),
            inc(3, "severe")
        );
        let e = parse_statuspage("c.json", &text, &StatuspageOptions::default()).unwrap_err();
        let col = text.find(r#""impact":"severe""#).unwrap() + 1;
        assert_eq!(e.location, Some(Location { line: 1, col }));
        let text = text.replace("severe", "major");
        let h = parse_statuspage("c.json", &text, &StatuspageOptions::default()).unwrap();
        assert_eq!(h.incidents.len(), 3);
        assert!(h.incidents.iter().all(|i| i.line == 1));
        // a multi-byte name before an incident counts as one column, a newline as a line
        let text = text.replacen(r#""i1""#, "\"é\n\"", 1);
        let places = Places::new("c.json", &text);
        let second = places.starts[1];
        let nl = text.find('\n').unwrap();
        let col = text[nl + 1..second].chars().count() + 1;
        assert_eq!(places.at(1, None), Some(Location { line: 2, col }));
        assert_eq!(
            places.at(1, Some("impact")),
            Some(Location::of_offset(
                &text,
                key_offset(&text, second, "impact").unwrap()
            ))
        );
    }

    #[test]
    fn statuspage_errors_name_line_and_field() {
        let text = r#"{"page": {"name": "X", "url": "https://status.x.ai"},
 "incidents": [
  {"name": "a", "impact": "major", "created_at": "2026-09-03T13:10:00Z",
   "resolved_at": "2026-09-03T13:00:00Z", "components": []},
  {"name": "b", "impact": "severe", "created_at": "2026-09-03T13:10:00Z",
   "resolved_at": null}
 ]}"#;
        let e = parse_statuspage("x.json", text, &StatuspageOptions::default()).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("incidents[0].resolved_at"));
        assert_eq!(e.location, Some(Location { line: 4, col: 4 }));
        assert!(e.message.contains("is not after the start"), "{e}");
        let text = text.replace("13:00:00Z", "14:00:00Z");
        let e = parse_statuspage("x.json", &text, &StatuspageOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.json:5:17: incidents[1].impact: unknown impact \"severe\"; expected none, minor, major or critical"
        );
        let e = parse_statuspage(
            "x.json",
            r#"{"page": {"name": "X"}, "incidents": [{"name": "a", "impact": "major"}]}"#,
            &StatuspageOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Invalid);
        assert_eq!(e.field.as_deref(), Some("incidents[0].started_at"));
        assert!(
            e.message.contains("neither started_at nor created_at"),
            "{e}"
        );
        let e = parse_statuspage(
            "x.json",
            r#"{"page": {}, "incidents": [{"impact": "major"}]}"#,
            &StatuspageOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Schema);
        assert!(e.message.contains("name"), "{e}");
        let e = parse_statuspage("x.json", "{", &StatuspageOptions::default()).unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Syntax);
    }
}
