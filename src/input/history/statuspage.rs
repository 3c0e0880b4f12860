//! Atlassian Statuspage's `incidents.json` (see the parent module's doc for the mapping).

use super::{History, HistoryIncident, StatuspageOptions, parse_rfc3339};
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

    const T0: f64 = 1_788_441_000.0; // 2026-09-03T13:10:00Z

    fn fixture(name: &str) -> String {
        let path = format!(
            "{}/tests/fixtures/history/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(path).unwrap()
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
}
