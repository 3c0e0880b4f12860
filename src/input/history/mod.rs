//! Incident histories (issue 14): Atlassian Statuspage's `incidents.json` and a plain CSV,
//! merged on one calendar.
//!
//! **Statuspage** (the format of status.openai.com, status.claude.com and most providers'
//! status pages; `GET /api/v2/incidents.json`, developer.statuspage.io): an object with `page`
//! (`name`, `url`, `updated_at`, …) and `incidents[]`, each with `name`, `impact` (`none |
//! minor | major | critical`), `started_at` and/or `created_at` (one of them), `resolved_at`
//! (null while the incident is open) and `components[]` (`name`, …), timestamps in RFC 3339
//! (`2026-09-03T13:10:00.000Z`, `2013-04-21T13:07:16-06:00`). Other fields are ignored: the
//! format is a third party's and grows.
//!
//! - The provider is `--provider` when given, else a known page's ([`KNOWN_PAGES`]:
//!   `https://status.claude.com` → `anthropic`), else the page URL's host without `status.`
//!   (`https://status.acme.ai` → `acme`), else the page name in lower case with spaces as `-`.
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
//! - The file's period ([`Coverage`]) is its earliest incident (any, kept or not) to the
//!   page's `updated_at` (else to the latest time the file holds): what the page covers, not
//!   what a filter kept.
//!
//! **CSV** (`provider,start,end,failure,error_rate`, one header line; `error_rate` may be left
//! empty for 1.0 and the column may be absent): incidents from your own monitoring, `start`
//! and `end` in RFC 3339, `failure` `fast | gray`. A line `# period: START/END` before the
//! header states the period the monitoring covered (every incident must lie in it); without
//! it the period is the first start to the last end, and the report says so.
//!
//! Errors name the file, line and column (of the incident's object in JSON, of the cell in
//! CSV) and the field, and say what is allowed.

mod csv;
mod statuspage;
mod time;

pub use csv::parse_csv;
pub use statuspage::{KNOWN_PAGES, parse_statuspage, provider_of_page};
pub use time::{format_rfc3339, parse_rfc3339};

use crate::error::ValueError;
use crate::error::{InputError, InputErrorKind, Location};
use crate::model::timeline::{Outage, OutageFailure, OutageTarget};

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

/// Where a file's period (the time it covers) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeriodSource {
    /// A Statuspage page: its earliest incident to the page's `updated_at`.
    PageUpdated,
    /// A Statuspage page without `updated_at`: its earliest incident to the latest time it
    /// holds.
    PageTimes,
    /// A CSV's `# period: START/END` line.
    Stated,
    /// A CSV that states none: its first start to its last end (a lower bound on the period
    /// its monitoring covered, so the rates are upper bounds).
    Incidents,
    /// `--since` / `--until`.
    Flags,
}

impl PeriodSource {
    /// How the report names it.
    pub fn as_str(self) -> &'static str {
        match self {
            PeriodSource::PageUpdated => "page updated_at",
            PeriodSource::PageTimes => "page incidents",
            PeriodSource::Stated => "stated",
            PeriodSource::Incidents => "incidents",
            PeriodSource::Flags => "since-until",
        }
    }
}

/// The period one file (or `--since`/`--until`) covers. Unix seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// The file, as given (`--since/--until` for the flags).
    pub file: String,
    /// Its start, Unix seconds.
    pub start_s: f64,
    /// Its end, Unix seconds (≥ start).
    pub end_s: f64,
    /// Where it came from.
    pub source: PeriodSource,
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
    /// The period each file covers (its own, whatever incidents a filter kept).
    pub coverage: Vec<Coverage>,
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
            out.coverage.extend(p.coverage);
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
    /// Linear: the incidents are sorted by start, so an incident can only join its provider's
    /// latest joined one.
    pub fn coalesced(&self) -> History {
        let mut out: Vec<HistoryIncident> = Vec::with_capacity(self.incidents.len());
        let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for inc in &self.incidents {
            match last.get(inc.provider.as_str()) {
                Some(&k) if out[k].end_s > inc.start_s => {
                    let prev = &mut out[k];
                    prev.end_s = prev.end_s.max(inc.end_s);
                    prev.error_rate = prev.error_rate.max(inc.error_rate);
                    if inc.failure == OutageFailure::Gray {
                        prev.failure = OutageFailure::Gray;
                    }
                    prev.name = format!("{} + {}", prev.name, inc.name);
                }
                _ => {
                    last.insert(inc.provider.as_str(), out.len());
                    out.push(inc.clone());
                }
            }
        }
        History {
            incidents: out,
            skipped_open: self.skipped_open.clone(),
            skipped_none: self.skipped_none,
            coverage: self.coverage.clone(),
        }
    }

    /// The calendar span of the incidents: the first start to the last end, seconds (0 for
    /// none). Not the history's period ([`History::period`]): a file covers more than the
    /// time from its first to its last incident.
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

    /// The period the history covers, Unix seconds: from the earliest to the latest bound of
    /// its files' coverages (`None` without any).
    pub fn period(&self) -> Option<(f64, f64)> {
        let start = self
            .coverage
            .iter()
            .map(|c| c.start_s)
            .fold(f64::INFINITY, f64::min);
        let end = self
            .coverage
            .iter()
            .map(|c| c.end_s)
            .fold(f64::NEG_INFINITY, f64::max);
        (start.is_finite() && end.is_finite()).then_some((start, end))
    }

    /// The history within `--since` / `--until` (Unix seconds; either may be absent: the
    /// files' own bound then): incidents wholly outside are left out, one that straddles a
    /// bound is clipped to it, and the period is exactly the given bounds.
    ///
    /// Errors: the bounds leave no period (until not after since), or one is absent and the
    /// files give none.
    pub fn within(&self, since: Option<f64>, until: Option<f64>) -> Result<History, ValueError> {
        if since.is_none() && until.is_none() {
            return Ok(self.clone());
        }
        let own = self.period();
        let (Some(start), Some(end)) = (since.or(own.map(|p| p.0)), until.or(own.map(|p| p.1)))
        else {
            return Err(ValueError::Time(
                "the files give no period to complete --since/--until: give both".into(),
            ));
        };
        if end <= start {
            return Err(ValueError::Time(format!(
                "--until {} is not after --since {}: the period must be longer than zero",
                format_rfc3339(end),
                format_rfc3339(start)
            )));
        }
        let incidents = self
            .incidents
            .iter()
            .filter(|i| i.end_s > start && i.start_s < end)
            .map(|i| HistoryIncident {
                start_s: i.start_s.max(start),
                end_s: i.end_s.min(end),
                ..i.clone()
            })
            .collect();
        Ok(History {
            incidents,
            skipped_open: self.skipped_open.clone(),
            skipped_none: self.skipped_none,
            coverage: vec![Coverage {
                file: "--since/--until".into(),
                start_s: start,
                end_s: end,
                source: PeriodSource::Flags,
            }],
        })
    }

    /// `incidents` (coalesced per provider: a timeline refuses overlapping outages of one
    /// provider) as timeline outages of a window starting at `window_start_s` (Unix seconds)
    /// and lasting `window_s`, clipped to it.
    pub fn outages_of<'a>(
        incidents: impl IntoIterator<Item = &'a HistoryIncident>,
        window_start_s: f64,
        window_s: f64,
    ) -> Vec<Outage> {
        let end = window_start_s + window_s;
        incidents
            .into_iter()
            .filter(|i| i.end_s > window_start_s && i.start_s < end)
            .map(|i| {
                let start = i.start_s.max(window_start_s) - window_start_s;
                let stop = i.end_s.min(end) - window_start_s;
                Outage {
                    target: OutageTarget::Provider(i.provider.clone()),
                    start_s: start,
                    duration_s: Some(stop - start),
                    failure: i.failure,
                    error_rate: i.error_rate,
                    latency_factor: None,
                }
            })
            .collect()
    }

    /// The incidents that touch the window [`window_start_s`, `window_start_s + window_s`)
    /// (Unix seconds) as timeline outages on providers, clipped to the window, coalesced
    /// first ([`History::outages_of`] over the whole history).
    pub fn outages_in(&self, window_start_s: f64, window_s: f64) -> Vec<Outage> {
        Self::outages_of(&self.coalesced().incidents, window_start_s, window_s)
    }

    /// The providers in the history, sorted, each once.
    pub fn providers(&self) -> Vec<&str> {
        let mut p: Vec<&str> = self.incidents.iter().map(|i| i.provider.as_str()).collect();
        p.sort_unstable();
        p.dedup();
        p
    }
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
/// (after a byte-order mark) is `{`, the CSV when its first line (after `#` lines) starts with
/// `provider,`.
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
    // a CSV may state its period (`# period: …`) before the header
    let header = first
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    if header.starts_with("provider,") && (line.starts_with('#') || line == header) {
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
    // the files read and parsed in parallel; their errors taken in the files' order (the first
    // file's error, as a run one by one gives)
    let read = |path: &std::path::PathBuf| -> Result<(_, Vec<usize>), InputError> {
        let text = super::read_text(path)?;
        let file = super::shown_path(path);
        let mut own = options.clone();
        let mut mine_at = Vec::new();
        let statuspage = detect(&file, &text)? == HistoryFormat::Statuspage;
        if statuspage && paths.len() == 1 {
            // one page: every name must be its own (the parser says which is not, and why)
            mine_at = (0..options.components.len()).collect();
        } else if statuspage && !options.components.is_empty() {
            let known = statuspage::statuspage_components(&text);
            mine_at = (0..options.components.len())
                .filter(|&i| known.contains(&options.components[i]))
                .collect();
            // none known here: the parser's error names the first and this file's components
            if !mine_at.is_empty() {
                own.components = mine_at
                    .iter()
                    .map(|&i| options.components[i].clone())
                    .collect();
            }
        }
        Ok((parse_any(&file, &text, &own)?, mine_at))
    };
    let read: Vec<_> = {
        use rayon::prelude::*;
        paths.par_iter().map(read).collect()
    };
    let mut parts = Vec::with_capacity(paths.len());
    let mut used = vec![false; options.components.len()];
    for r in read {
        let (part, mine_at) = r?;
        for i in mine_at {
            used[i] = true;
        }
        parts.push(part);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 2026-09-03T13:10:00Z, the Sept 3 window's start: the readers' tests' epoch.
    pub(crate) const T0: f64 = 1_788_441_000.0;

    /// A file of `tests/fixtures/history/`, whole.
    pub(crate) fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/fixtures/history/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(path).unwrap()
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
