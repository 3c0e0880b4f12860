//! Incident histories (issue 14): Atlassian Statuspage's `incidents.json` and a plain CSV,
//! merged on one calendar.
//!
//! **Statuspage** (the format of status.openai.com, status.anthropic.com and most providers'
//! status pages; `GET /api/v2/incidents.json`, developer.statuspage.io): an object with `page`
//! (`name`, `url`, …) and `incidents[]`, each with `name`, `impact` (`none | minor | major |
//! critical`), `created_at`, `started_at` (may be absent or null), `resolved_at` (null while the
//! incident is open) and `components[]` (`name`, …), timestamps in RFC 3339
//! (`2026-09-03T13:10:00.000Z`, `2013-04-21T13:07:16-06:00`). Other fields are ignored: the
//! format is a third party's and grows.
//!
//! - The provider is `--provider` when given, else the page URL's host without `status.`
//!   (`https://status.openai.com` → `openai`), else the page name in lower case with spaces as
//!   `-`.
//! - An incident starts at `started_at` (when the provider says the impact began), else
//!   `created_at` (when it was posted: later than the start, so a lower bound on the damage),
//!   and ends at `resolved_at`.
//! - `--component NAME` (repeatable) keeps the incidents that list one of those components (a
//!   page mixes chat apps and APIs); a name no incident lists is an error naming the ones that
//!   exist.
//! - `impact` maps to a failure model ([`ImpactModel`]): `major` and `critical` are down (error
//!   rate 1); `minor` is partial with error rate [`DEFAULT_MINOR_ERROR_RATE`] (settable);
//!   `none` is skipped (a notice, not an outage).
//! - An incident without `resolved_at` is open: an error listing every open incident, unless
//!   skipping them is asked ([`StatuspageOptions::skip_open`]).
//!
//! **CSV** (`provider,start,end,failure,error_rate`, one header line; `error_rate` may be left
//! empty for 1.0 and the column may be absent): incidents from your own monitoring, `start`
//! and `end` in RFC 3339, `failure` `fast | gray`.
//!
//! Errors name the file, line and column (of the incident's object in JSON, of the cell in
//! CSV) and the field, and say what is allowed.

use crate::error::{InputError, InputErrorKind, Location};
use crate::model::timeline::{Outage, OutageFailure, Target};

/// The error rate of a `minor` Statuspage incident when none is set: 0.5.
///
/// Why: Statuspage's `minor` covers "degraded performance" and "partial outage" of a component
/// and gives no share of failed requests; 0.5 is the midpoint of what it can mean (a few
/// percent of errors to most requests failing), so neither under- nor over-states by more than
/// half, and the report says it was assumed. Teams with their own error rates should set it.
pub const DEFAULT_MINOR_ERROR_RATE: f64 = 0.5;

/// How Statuspage impacts map to failures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpactModel {
    /// The error rate of a `minor` incident, in [0, 1] (default [`DEFAULT_MINOR_ERROR_RATE`]).
    pub minor_error_rate: f64,
    /// How failed requests fail (default `fast`: a status-page outage shows as 5xx/529 errors).
    pub failure: OutageFailure,
}

impl Default for ImpactModel {
    fn default() -> Self {
        ImpactModel {
            minor_error_rate: DEFAULT_MINOR_ERROR_RATE,
            failure: OutageFailure::Fast,
        }
    }
}

/// Options for reading a Statuspage file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatuspageOptions {
    /// `--provider`: the provider, instead of the one derived from the page.
    pub provider: Option<String>,
    /// `--component NAME`: keep incidents touching one of these (empty: all).
    pub components: Vec<String>,
    /// The impact → failure mapping.
    pub impact: ImpactModel,
    /// Skip open incidents (no `resolved_at`) instead of failing.
    pub skip_open: bool,
}

/// One incident on the calendar. Times are seconds since the Unix epoch (UTC).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryIncident {
    /// The provider that was down.
    pub provider: String,
    /// The incident's name (Statuspage) or `FILE:LINE` (CSV).
    pub name: String,
    /// Start, Unix seconds.
    pub start_s: f64,
    /// End, Unix seconds (> start).
    pub end_s: f64,
    /// How it failed.
    pub failure: OutageFailure,
    /// The share of requests that failed, in [0, 1].
    pub error_rate: f64,
    /// The file it came from, as given.
    pub file: String,
    /// Its line in that file.
    pub line: usize,
}

impl HistoryIncident {
    /// Its duration, seconds.
    pub fn duration_s(&self) -> f64 {
        self.end_s - self.start_s
    }
}

/// Incidents of one or more files on one calendar, sorted by start (then provider).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// The incidents.
    pub incidents: Vec<HistoryIncident>,
    /// Open incidents skipped under [`StatuspageOptions::skip_open`] (names).
    pub skipped_open: Vec<String>,
    /// Incidents skipped for `impact = "none"`, counted.
    pub skipped_none: usize,
}

impl History {
    /// Several histories (several providers' files) on one calendar: all incidents sorted by
    /// start, so overlapping incidents overlap.
    pub fn merge(parts: Vec<History>) -> History {
        let mut out = History::default();
        for p in parts {
            out.incidents.extend(p.incidents);
            out.skipped_open.extend(p.skipped_open);
            out.skipped_none += p.skipped_none;
        }
        out.sort();
        out
    }

    fn sort(&mut self) {
        self.incidents.sort_by(|a, b| {
            a.start_s
                .total_cmp(&b.start_s)
                .then_with(|| a.provider.cmp(&b.provider))
                .then_with(|| a.end_s.total_cmp(&b.end_s))
        });
    }

    /// Overlapping incidents of one provider joined into one (a status page often posts two
    /// incidents for one outage, e.g. the API and the chat app): the union of their times, the
    /// highest error rate, `gray` if either is gray, the names joined with ` + `. A timeline
    /// does not allow overlapping outages of one provider; this is what a replay feeds it.
    pub fn coalesced(&self) -> History {
        let mut out: Vec<HistoryIncident> = Vec::new();
        for inc in &self.incidents {
            if let Some(prev) = out
                .iter_mut()
                .rev()
                .find(|p| p.provider == inc.provider && p.end_s > inc.start_s)
            {
                prev.end_s = prev.end_s.max(inc.end_s);
                prev.error_rate = prev.error_rate.max(inc.error_rate);
                if inc.failure == OutageFailure::Gray {
                    prev.failure = OutageFailure::Gray;
                }
                prev.name = format!("{} + {}", prev.name, inc.name);
            } else {
                out.push(inc.clone());
            }
        }
        History {
            incidents: out,
            skipped_open: self.skipped_open.clone(),
            skipped_none: self.skipped_none,
        }
    }

    /// The calendar span the history covers: the first start to the last end, seconds (0 for
    /// none). A rate estimated over it is biased high when the export covers a longer period
    /// than its incidents; pass the export's real span when it is known.
    pub fn span_s(&self) -> f64 {
        let start = self
            .incidents
            .iter()
            .map(|i| i.start_s)
            .fold(f64::INFINITY, f64::min);
        let end = self
            .incidents
            .iter()
            .map(|i| i.end_s)
            .fold(f64::NEG_INFINITY, f64::max);
        if end > start { end - start } else { 0.0 }
    }

    /// The incidents that touch the window [`window_start_s`, `window_start_s + window_s`)
    /// (Unix seconds) as timeline outages on providers, clipped to the window, coalesced
    /// first (a timeline refuses overlapping outages of one provider). A replay prices one
    /// window per incident this way, so incidents of other providers overlapping it overlap.
    pub fn outages_in(&self, window_start_s: f64, window_s: f64) -> Vec<Outage> {
        let end = window_start_s + window_s;
        self.coalesced()
            .incidents
            .iter()
            .filter(|i| i.end_s > window_start_s && i.start_s < end)
            .map(|i| {
                let start = i.start_s.max(window_start_s) - window_start_s;
                let stop = i.end_s.min(end) - window_start_s;
                Outage {
                    target: Target::Provider(i.provider.clone()),
                    start_s: start,
                    duration_s: Some(stop - start),
                    failure: i.failure,
                    error_rate: i.error_rate,
                    latency_factor: None,
                }
            })
            .collect()
    }

    /// The providers in the history, sorted, each once.
    pub fn providers(&self) -> Vec<&str> {
        let mut p: Vec<&str> = self.incidents.iter().map(|i| i.provider.as_str()).collect();
        p.sort_unstable();
        p.dedup();
        p
    }
}

/// Parse an RFC 3339 timestamp (`2026-09-03T13:10:00Z`, `…T13:10:00.123+02:00`; `t`/space for
/// `T`, `z` for `Z`) into Unix seconds.
///
/// Errors: a message saying what is allowed, for any other shape or an out-of-range part
/// (month 13, February 30, hour 24, minute 60, an offset beyond ±23:59).
pub fn parse_rfc3339(text: &str) -> Result<f64, String> {
    let allowed = "an RFC 3339 time such as 2026-09-03T13:10:00Z or 2026-09-03T15:10:00.000+02:00";
    let bad = || format!("{text:?} is not {allowed}");
    let b = text.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Result<i64, String> {
        let s = text.get(r).ok_or_else(bad)?;
        if s.bytes().all(|c| c.is_ascii_digit()) && !s.is_empty() {
            s.parse::<i64>().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut i = 19;
    let mut frac = 0.0;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(bad());
        }
        frac = format!("0.{}", &text[start..i])
            .parse::<f64>()
            .map_err(|_| bad())?;
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return Err(format!("{text:?}: the UTC offset must be within ±23:59"));
            }
            let o = oh * 3600 + om * 60;
            if *sign == b'+' { o } else { -o }
        }
        _ => return Err(bad()),
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo) || d < 1 || d > days_in[(mo - 1) as usize] {
        return Err(format!("{text:?}: no such date ({y:04}-{mo:02}-{d:02})"));
    }
    // second 60: a leap second, as RFC 3339 allows
    if h > 23 || mi > 59 || s > 60 {
        return Err(format!(
            "{text:?}: no such time of day ({h:02}:{mi:02}:{s:02})"
        ));
    }
    let days = days_from_civil(y, mo, d);
    Ok((days * 86_400 + h * 3600 + mi * 60 + s - offset) as f64 + frac)
}

/// Unix seconds as RFC 3339 UTC, to the second (`2026-09-03T13:10:00Z`; a fraction is
/// rounded to the nearest second). The inverse of [`parse_rfc3339`] on whole seconds.
pub fn format_rfc3339(unix_s: f64) -> String {
    let t = unix_s.round() as i64;
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[derive(serde::Deserialize)]
struct SpFile {
    page: SpPage,
    incidents: Vec<SpIncident>,
}

#[derive(serde::Deserialize)]
struct SpPage {
    name: Option<String>,
    url: Option<String>,
}

#[derive(serde::Deserialize)]
struct SpIncident {
    name: String,
    impact: String,
    created_at: String,
    #[serde(default)]
    started_at: Option<String>,
    #[serde(default)]
    resolved_at: Option<String>,
    #[serde(default)]
    components: Vec<SpComponent>,
}

#[derive(serde::Deserialize)]
struct SpComponent {
    name: String,
}

/// The provider a Statuspage page names: its URL's host without `status.` and the domain
/// (`https://status.openai.com` → `openai`), else its name in lower case, spaces as `-`.
pub fn provider_of_page(name: Option<&str>, url: Option<&str>) -> Option<String> {
    if let Some(url) = url {
        let host = url
            .split_once("://")
            .map_or(url, |(_, rest)| rest)
            .split(['/', ':', '?', '#'])
            .next()
            .unwrap_or("");
        let host = host.strip_prefix("status.").unwrap_or(host);
        let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
        // "openai.com" → openai; "acme.statuspage.io" → acme
        if let Some(first) = labels.first()
            && labels.len() >= 2
        {
            return Some(first.to_ascii_lowercase());
        }
    }
    name.map(|n| n.trim().to_lowercase().replace(' ', "-"))
        .filter(|n| !n.is_empty())
}

/// Read a Statuspage `incidents.json` (`file` is the name used in messages).
///
/// Errors ([`InputErrorKind`]): `Syntax` for invalid JSON; `Schema` for a missing or mistyped
/// field (`incidents[3].created_at`), with serde_json's line and column; `Invalid` for an
/// unknown impact, a bad timestamp, `resolved_at` not after the start, a provider that cannot
/// be derived, a `--component` no incident lists, an error rate outside [0, 1], and open
/// incidents (all of them listed) unless `skip_open`.
pub fn parse_statuspage(
    file: &str,
    text: &str,
    options: &StatuspageOptions,
) -> Result<History, InputError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed: SpFile = serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return super::json_syntax_error(file, &inner);
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
    })?;
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
    let starts = element_starts(text, "incidents");
    let at = |i: usize, key: Option<&str>| -> Option<Location> {
        let start = *starts.get(i)?;
        let offset = key
            .and_then(|k| key_offset(text, start, k))
            .unwrap_or(start);
        Some(Location::of_offset(text, offset))
    };
    let err = |i: usize, key: &str, message: String| InputError {
        file: file.to_string(),
        location: at(i, Some(key)),
        field: Some(format!("incidents[{i}].{key}")),
        message,
        kind: InputErrorKind::Invalid,
    };
    let provider = match options
        .provider
        .clone()
        .or_else(|| provider_of_page(parsed.page.name.as_deref(), parsed.page.url.as_deref()))
    {
        Some(p) => p,
        None => {
            return Err(InputError {
                file: file.to_string(),
                location: Some(Location::of_offset(
                    text,
                    key_offset(text, 0, "page").unwrap_or(0),
                )),
                field: Some("page".into()),
                message: "the page has no usable `url` or `name` to name the provider; pass --provider NAME".into(),
                kind: InputErrorKind::Invalid,
            });
        }
    };
    // --component names must exist
    let mut known: Vec<&str> = parsed
        .incidents
        .iter()
        .flat_map(|i| i.components.iter().map(|c| c.name.as_str()))
        .collect();
    known.sort_unstable();
    known.dedup();
    for want in &options.components {
        if !known.contains(&want.as_str()) {
            let near = crate::suggest::nearest(want, known.iter().copied())
                .map_or(String::new(), |n| format!(" (did you mean {n:?}?)"));
            return Err(InputError {
                file: file.to_string(),
                location: None,
                field: Some("--component".into()),
                message: format!(
                    "no incident lists a component {want:?}{near}; the components in this file: {}",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known
                            .iter()
                            .map(|k| format!("{k:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
                kind: InputErrorKind::Invalid,
            });
        }
    }
    let mut out = History::default();
    let mut open = Vec::new();
    for (i, inc) in parsed.incidents.iter().enumerate() {
        if !options.components.is_empty()
            && !inc
                .components
                .iter()
                .any(|c| options.components.contains(&c.name))
        {
            continue;
        }
        let error_rate = match inc.impact.as_str() {
            "none" => {
                out.skipped_none += 1;
                continue;
            }
            "minor" => rate,
            "major" | "critical" => 1.0,
            other => {
                return Err(err(
                    i,
                    "impact",
                    format!("unknown impact {other:?}; expected none, minor, major or critical"),
                ));
            }
        };
        let (start_key, start_text) = match &inc.started_at {
            Some(s) => ("started_at", s),
            None => ("created_at", &inc.created_at),
        };
        let start_s = parse_rfc3339(start_text).map_err(|m| err(i, start_key, m))?;
        let Some(resolved) = &inc.resolved_at else {
            let loc = at(i, Some("resolved_at")).unwrap_or(Location { line: 1, col: 1 });
            open.push((inc.name.clone(), loc));
            continue;
        };
        let end_s = parse_rfc3339(resolved).map_err(|m| err(i, "resolved_at", m))?;
        if end_s <= start_s {
            return Err(err(
                i,
                "resolved_at",
                format!(
                    "{resolved} is not after the start {start_text} ({start_key}); an incident must end after it starts"
                ),
            ));
        }
        out.incidents.push(HistoryIncident {
            provider: provider.clone(),
            name: inc.name.clone(),
            start_s,
            end_s,
            failure: options.impact.failure,
            error_rate,
            file: file.to_string(),
            line: at(i, None).map_or(0, |l| l.line),
        });
    }
    if !open.is_empty() {
        if options.skip_open {
            out.skipped_open = open.into_iter().map(|(n, _)| n).collect();
        } else {
            let list: Vec<String> = open
                .iter()
                .map(|(n, loc)| format!("{n:?} (line {})", loc.line))
                .collect();
            return Err(InputError {
                file: file.to_string(),
                location: Some(open[0].1),
                field: Some("resolved_at".into()),
                message: format!(
                    "{} incident(s) still open (no resolved_at): {}; an open incident has no duration to price: wait until it is resolved, or skip open incidents (--skip-open)",
                    open.len(),
                    list.join(", ")
                ),
                kind: InputErrorKind::Invalid,
            });
        }
    }
    out.sort();
    Ok(out)
}

/// The format of a history file, told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryFormat {
    /// A Statuspage `incidents.json` (the text starts with `{`).
    Statuspage,
    /// The plain CSV (the first line starts with `provider,`).
    Csv,
}

/// Tell a history file's format from its content: JSON when the first non-blank character
/// (after a byte-order mark) is `{`, the CSV when its first line starts with `provider,`.
///
/// Errors: `Schema` at line 1 naming both formats, for any other content (an empty file, a
/// JSON array, another CSV's header).
pub fn detect(file: &str, text: &str) -> Result<HistoryFormat, InputError> {
    let body = text.trim_start_matches('\u{feff}');
    let first = body.trim_start();
    if first.starts_with('{') {
        return Ok(HistoryFormat::Statuspage);
    }
    let line = first.lines().next().unwrap_or("").trim();
    if line.starts_with("provider,") {
        return Ok(HistoryFormat::Csv);
    }
    let offset = text.len() - first.len();
    let shown: String = line.chars().take(40).collect();
    Err(InputError {
        file: file.to_string(),
        location: Some(Location::of_offset(text, offset)),
        field: None,
        message: format!(
            "neither an incident history format: {}; expected a Statuspage incidents.json (an object with `page` and `incidents`) or the CSV provider,start,end,failure,error_rate (that header line first)",
            if first.is_empty() {
                "the file is empty".to_string()
            } else {
                format!("it starts with {shown:?}")
            }
        ),
        kind: InputErrorKind::Schema,
    })
}

/// Read one history file of either format ([`detect`]): a Statuspage file with `options`, a
/// CSV as it is (`options.provider` and `options.components` apply to Statuspage pages only;
/// `file` is the name used in messages).
///
/// Errors: those of [`detect`], [`parse_statuspage`] and [`parse_csv`].
pub fn parse_any(
    file: &str,
    text: &str,
    options: &StatuspageOptions,
) -> Result<History, InputError> {
    match detect(file, text)? {
        HistoryFormat::Statuspage => parse_statuspage(file, text, options),
        HistoryFormat::Csv => parse_csv(file, text),
    }
}

/// The component names a Statuspage file's incidents list (empty if it does not parse: the
/// parser then says why).
fn statuspage_components(text: &str) -> Vec<String> {
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

/// Read the history files `paths` and merge them on one calendar ([`History::merge`]).
///
/// With several Statuspage files, `--component` names apply to the files that list them (a
/// page names its API `API`, another `claude API`): each file keeps its incidents listing one
/// of the names it knows. A file that knows none of the names, and a name no file lists, are
/// errors (the first naming the components the file has).
///
/// Errors: a file that cannot be read ([`super::read_text`]), any error of [`parse_any`] for
/// the first file that has one, and the component errors above.
pub fn load(
    paths: &[std::path::PathBuf],
    options: &StatuspageOptions,
) -> Result<History, InputError> {
    let mut parts = Vec::with_capacity(paths.len());
    let mut used = vec![false; options.components.len()];
    for path in paths {
        let text = super::read_text(path)?;
        let file = super::shown_path(path);
        let mut own = options.clone();
        let statuspage = detect(&file, &text)? == HistoryFormat::Statuspage;
        if statuspage && paths.len() == 1 {
            // one page: every name must be its own (the parser says which is not, and why)
            used.iter_mut().for_each(|u| *u = true);
        } else if statuspage && !options.components.is_empty() {
            let known = statuspage_components(&text);
            let mine: Vec<String> = options
                .components
                .iter()
                .enumerate()
                .filter(|(_, c)| known.contains(c))
                .map(|(i, c)| {
                    used[i] = true;
                    c.clone()
                })
                .collect();
            // none known here: the parser's error names the first and this file's components
            if !mine.is_empty() {
                own.components = mine;
            }
        }
        parts.push(parse_any(&file, &text, &own)?);
    }
    if let Some(i) = used.iter().position(|u| !u) {
        return Err(InputError {
            file: paths
                .iter()
                .map(|p| super::shown_path(p))
                .collect::<Vec<_>>()
                .join(", "),
            location: None,
            field: Some("--component".into()),
            message: format!(
                "no incident of these files lists a component {:?}; --component selects the incidents of Statuspage files (a CSV has no components)",
                options.components[i]
            ),
            kind: InputErrorKind::Invalid,
        });
    }
    Ok(History::merge(parts))
}

/// Byte offsets of the elements of the array under top-level key `key` of a JSON object
/// (empty if there is none). A small scanner: it tracks strings and nesting only, enough to
/// point errors at an incident's line.
fn element_starts(text: &str, key: &str) -> Vec<usize> {
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
fn key_offset(text: &str, start: usize, key: &str) -> Option<usize> {
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

/// Read the plain CSV `provider,start,end,failure,error_rate` (`file` is the name used in
/// messages): one header line with those columns in that order (`error_rate` may be absent),
/// `start`/`end` RFC 3339, `failure` `fast | gray`, `error_rate` in [0, 1] or empty (1.0).
///
/// Errors: `Schema` for a wrong header or a row with the wrong number of cells; `Invalid` for
/// an empty provider, a bad time, `end` not after `start`, an unknown failure, an error rate
/// outside [0, 1]; each naming line, column and field.
pub fn parse_csv(file: &str, text: &str) -> Result<History, InputError> {
    const COLUMNS: [&str; 5] = ["provider", "start", "end", "failure", "error_rate"];
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let schema = |line: usize, message: String| InputError {
        file: file.to_string(),
        location: Some(Location { line, col: 1 }),
        field: None,
        message,
        kind: InputErrorKind::Schema,
    };
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| schema(1, format!("cannot read the header: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let width = header.len();
    if !(width == 4 || width == 5) || header.iter().zip(COLUMNS).any(|(h, c)| h != c) {
        return Err(schema(
            1,
            format!(
                "the header is {:?}; expected provider,start,end,failure,error_rate (error_rate may be left out)",
                header.join(",")
            ),
        ));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = History::default();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(1, |p| p.line() as usize);
            schema(line, format!("cannot read the row: {e}"))
        })?;
        let line = record.position().map_or(1, |p| p.line() as usize);
        if record.len() != width {
            return Err(schema(
                line,
                format!(
                    "the row has {} cells; the header has {width} ({})",
                    record.len(),
                    COLUMNS[..width].join(",")
                ),
            ));
        }
        // column of cell `c`: counted on the raw line (cells with quoted commas shift it)
        let raw = lines.get(line - 1).copied().unwrap_or("");
        let col = |c: usize| -> usize {
            let mut n = 0;
            for (k, piece) in raw.split(',').enumerate() {
                if k == c {
                    return n + 1 + (piece.len() - piece.trim_start().len());
                }
                n += piece.chars().count() + 1;
            }
            1
        };
        let bad = |c: usize, message: String| InputError {
            file: file.to_string(),
            location: Some(Location { line, col: col(c) }),
            field: Some(COLUMNS[c].to_string()),
            message,
            kind: InputErrorKind::Invalid,
        };
        let provider = &record[0];
        super::check_name(provider).map_err(|m| bad(0, m))?;
        let start_s = parse_rfc3339(&record[1]).map_err(|m| bad(1, m))?;
        let end_s = parse_rfc3339(&record[2]).map_err(|m| bad(2, m))?;
        if end_s <= start_s {
            return Err(bad(
                2,
                format!(
                    "{} is not after start {}; an incident must end after it starts",
                    &record[2], &record[1]
                ),
            ));
        }
        let failure = match &record[3] {
            "fast" => OutageFailure::Fast,
            "gray" => OutageFailure::Gray,
            other => {
                return Err(bad(
                    3,
                    format!("unknown failure {other:?}; expected fast or gray"),
                ));
            }
        };
        let error_rate = match record.get(4).unwrap_or("") {
            "" => 1.0,
            t => {
                let v: f64 = t
                    .parse()
                    .map_err(|_| bad(4, format!("{t:?} is not a number; expected a share in [0, 1] or an empty cell (1.0)")))?;
                super::check_range(v, 0.0, 1.0).map_err(|m| bad(4, m))?;
                v
            }
        };
        out.incidents.push(HistoryIncident {
            provider: provider.to_string(),
            name: format!("{file}:{line}"),
            start_s,
            end_s,
            failure,
            error_rate,
            file: file.to_string(),
            line,
        });
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: f64 = 1_788_441_000.0; // 2026-09-03T13:10:00Z

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/fixtures/history/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn rfc3339_by_hand() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Ok(0.0));
        // 2026-09-03: 20,699 days after 1970-01-01 (56 years incl. 14 leap days = 20,454, +
        // Jan..Aug 2026 = 243, + 2) → 20,699 × 86,400 + 47,400 (13:10) = 1,788,441,000
        assert_eq!(parse_rfc3339("2026-09-03T13:10:00Z"), Ok(T0));
        assert_eq!(parse_rfc3339("2026-09-03T15:10:00.000+02:00"), Ok(T0));
        assert_eq!(parse_rfc3339("2026-09-03t07:10:00.5-06:00"), Ok(T0 + 0.5));
        assert_eq!(parse_rfc3339("2024-02-29T00:00:00Z"), Ok(1_709_164_800.0));
        assert!(
            parse_rfc3339("2026-02-29T00:00:00Z")
                .unwrap_err()
                .contains("no such date")
        );
        assert!(parse_rfc3339("2026-09-03T24:00:00Z").is_err());
        assert!(
            parse_rfc3339("2026-09-03T13:10:00")
                .unwrap_err()
                .contains("RFC 3339")
        );
        assert!(parse_rfc3339("2026-09-03").is_err());
        assert!(parse_rfc3339("2026-09-03T13:10:00+2:00").is_err());
    }

    #[test]
    fn rfc3339_formats_back() {
        assert_eq!(format_rfc3339(0.0), "1970-01-01T00:00:00Z");
        assert_eq!(format_rfc3339(T0), "2026-09-03T13:10:00Z");
        // 2024-02-29 00:00 (a leap day) and one second before it
        assert_eq!(format_rfc3339(1_709_164_800.0), "2024-02-29T00:00:00Z");
        assert_eq!(format_rfc3339(1_709_164_799.0), "2024-02-28T23:59:59Z");
        assert_eq!(format_rfc3339(T0 + 11_160.4), "2026-09-03T16:16:00Z");
    }

    #[test]
    fn the_format_is_told_by_content() {
        assert_eq!(
            detect("a", " \n{\"page\": {}}"),
            Ok(HistoryFormat::Statuspage)
        );
        assert_eq!(
            detect("a", "provider,start,end,failure\n"),
            Ok(HistoryFormat::Csv)
        );
        let e = detect("h.txt", "\nwho,when\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "h.txt:2:1: neither an incident history format: it starts with \"who,when\"; expected a Statuspage incidents.json (an object with `page` and `incidents`) or the CSV provider,start,end,failure,error_rate (that header line first)"
        );
        assert!(
            detect("e", "")
                .unwrap_err()
                .message
                .contains("the file is empty")
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
            r#"{"page": {}, "incidents": [{"name": "a", "impact": "major"}]}"#,
            &StatuspageOptions::default(),
        )
        .unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Schema);
        assert_eq!(e.field.as_deref(), Some("incidents[0]"));
        assert!(e.message.contains("created_at"), "{e}");
        let e = parse_statuspage("x.json", "{", &StatuspageOptions::default()).unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Syntax);
    }

    #[test]
    fn csv_reads_and_merges_on_one_calendar() {
        let csv = parse_csv("mine.csv", &fixture("monitoring.csv")).unwrap();
        let got: Vec<(&str, f64, f64, OutageFailure, f64, usize)> = csv
            .incidents
            .iter()
            .map(|i| {
                (
                    i.provider.as_str(),
                    i.start_s - T0,
                    i.duration_s(),
                    i.failure,
                    i.error_rate,
                    i.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("openai", 3600.0, 2040.0, OutageFailure::Fast, 1.0, 2),
                ("xai", 4800.0, 3600.0, OutageFailure::Gray, 0.8, 3),
            ]
        );
        let sp = parse_statuspage(
            "anthropic.json",
            &fixture("anthropic.json"),
            &StatuspageOptions::default(),
        )
        .unwrap();
        let all = History::merge(vec![csv, sp]);
        let order: Vec<(&str, f64)> = all
            .incidents
            .iter()
            .filter(|i| (i.start_s - T0).abs() < 86_400.0)
            .map(|i| (i.provider.as_str(), i.start_s - T0))
            .collect();
        assert_eq!(
            order,
            vec![("anthropic", 0.0), ("openai", 3600.0), ("xai", 4800.0)]
        );
        assert_eq!(all.providers(), vec!["anthropic", "openai", "xai"]);
    }

    #[test]
    fn csv_errors_name_line_column_and_field() {
        let e = parse_csv(
            "m.csv",
            "provider,start,end,failure\nopenai,2026-09-03T13:10:00Z,2026-09-03T13:00:00Z,fast\n",
        )
        .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("end"));
        assert_eq!(e.location, Some(Location { line: 2, col: 29 }));
        let e = parse_csv("m.csv", "provider,start,end,failure,error_rate\nopenai,2026-09-03T13:10:00Z,2026-09-03T14:00:00Z,grey,0.5\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.csv:2:50: failure: unknown failure \"grey\"; expected fast or gray"
        );
        let e = parse_csv("m.csv", "provider,start,end,failure,error_rate\nopenai,2026-09-03T13:10:00Z,2026-09-03T14:00:00Z,fast,1.5\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.csv:2:55: error_rate: must be in [0, 1]; got 1.5"
        );
        let e = parse_csv("m.csv", "who,when\n").unwrap_err();
        assert_eq!(e.kind, InputErrorKind::Schema);
        assert_eq!(e.location, Some(Location { line: 1, col: 1 }));
        let e = parse_csv("m.csv", "provider,start,end,failure\nopenai,x\n").unwrap_err();
        assert!(e.message.contains("the row has 2 cells"), "{e}");
    }

    #[test]
    fn a_window_around_an_incident_holds_the_overlapping_ones() {
        // Sept 3: the Anthropic incident (13:10-16:16) and the CSV's OpenAI (14:10-14:44) and
        // xAI (14:30-15:30): the timeline of sept3 in model::timeline's tests.
        let sp = parse_statuspage(
            "anthropic.json",
            &fixture("anthropic.json"),
            &StatuspageOptions::default(),
        )
        .unwrap();
        let csv = parse_csv("mine.csv", &fixture("monitoring.csv")).unwrap();
        let all = History::merge(vec![sp, csv]);
        let outages = all.outages_in(T0, 11_160.0);
        let got: Vec<(String, f64, Option<f64>, f64)> = outages
            .iter()
            .map(|o| (o.target.to_string(), o.start_s, o.duration_s, o.error_rate))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "provider \"anthropic\"".to_string(),
                    0.0,
                    Some(11_160.0),
                    1.0
                ),
                ("provider \"openai\"".to_string(), 3600.0, Some(2040.0), 1.0),
                ("provider \"xai\"".to_string(), 4800.0, Some(3600.0), 0.8),
            ]
        );
        let t = crate::model::timeline::Timeline::new(11_160.0, outages).unwrap();
        assert_eq!(t.segments().len(), 5);
        // a window cut short clips: the first hour holds Anthropic only
        let first = all.outages_in(T0, 3600.0);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].duration_s, Some(3600.0));
    }

    #[test]
    fn overlapping_incidents_of_one_provider_coalesce() {
        let text = "provider,start,end,failure,error_rate\n\
            openai,2026-09-03T13:00:00Z,2026-09-03T14:00:00Z,fast,0.5\n\
            openai,2026-09-03T13:30:00Z,2026-09-03T14:30:00Z,gray,1\n\
            xai,2026-09-03T13:30:00Z,2026-09-03T13:40:00Z,fast,\n\
            openai,2026-09-03T14:30:00Z,2026-09-03T15:00:00Z,fast,0.2\n";
        let h = parse_csv("m.csv", text).unwrap().coalesced();
        let got: Vec<(&str, f64, OutageFailure, f64)> = h
            .incidents
            .iter()
            .map(|i| (i.provider.as_str(), i.duration_s(), i.failure, i.error_rate))
            .collect();
        // 13:00-14:30 joined (touching 14:30 is not an overlap), xai apart, 14:30-15:00 apart
        assert_eq!(
            got,
            vec![
                ("openai", 5400.0, OutageFailure::Gray, 1.0),
                ("xai", 600.0, OutageFailure::Fast, 1.0),
                ("openai", 1800.0, OutageFailure::Fast, 0.2),
            ]
        );
        assert_eq!(h.incidents[0].name, "m.csv:2 + m.csv:3");
        assert_eq!(h.span_s(), 7200.0);
    }
}
