//! What `fallcost check` reports: a [`Finding`] with its [`Severity`], and its message
//! (`Display`), with the ratio and the limit formatted as the message shows them.

use std::fmt;

use serde::Serialize;

use super::fit::FitProblem;
use super::{IncidentBill, IncidentCheck, Side};
use crate::input::gateway::Notice;
use crate::model::condition::{Condition, StatedShare};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the run (exit 1).
    Error,
    /// Fails the run only under `--deny-warnings`.
    Warning,
    /// Information; never fails the run.
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// Something `fallcost check` reports about a file. `Display` is the message, without the file
/// and line (renderers add them).
// A finding is built once per link and rendered once: two unboxed `Side`s in `AboveRatio` cost
// nothing worth the churn of boxing them (and keep the fields' types for the renderers).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// A fallback priced above `max_ratio` times its primary (an error).
    AboveRatio {
        /// File.
        file: String,
        /// Line of the fallback.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The primary, priced.
        primary: Side,
        /// The fallback, priced.
        fallback: Side,
        /// Worst-case ratio (dearest fallback / cheapest primary); `None` for a free primary.
        ratio: Option<f64>,
        /// The limit.
        max_ratio: f64,
        /// The absolute limit a fallback of a free primary was judged by (`--max-usd-per-1k`,
        /// USD per 1,000 requests); `None` when the primary is not free (or no such limit was
        /// set, and any paid fallback of a free primary is above).
        max_usd_per_1k: Option<f64>,
        /// The steps between the primary and this fallback.
        via: Vec<String>,
        /// The `--allow` entry that allows this link (it is then a note, not an error).
        allowed: Option<String>,
        /// The fallcost.toml that `allowed` came from; `None`: the `--allow` flag.
        allowed_from: Option<String>,
    },
    /// A fallback within the ratio at warm prices that is above it in an incident of the
    /// primary's provider (`check --incident`): its first failover of a session, or the
    /// window's multiplier. An error when the window's multiplier is above the limit; when only
    /// the first failover is, a warning, or a note when the outage costs no more than normal;
    /// a note when allowed.
    IncidentCost {
        /// File.
        file: String,
        /// Line of the fallback.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The primary, priced.
        primary: Side,
        /// The fallback, priced.
        fallback: Side,
        /// The warm like-for-like ratio (within the limit); `None` for a free primary.
        warm_ratio: Option<f64>,
        /// The incident figures.
        figures: IncidentBill,
        /// The incident.
        incident: IncidentCheck,
        /// The limit.
        max_ratio: f64,
        /// The `--allow` entry that allows this link.
        allowed: Option<String>,
        /// The fallcost.toml that `allowed` came from; `None`: the `--allow` flag.
        allowed_from: Option<String>,
    },
    /// A fallback above the ratio that takes only some requests (LiteLLM's
    /// `context_window_fallbacks`, `content_policy_fallbacks`): judged by the share of requests
    /// it takes where a request profile states it (an error when the chain then costs more
    /// than `max_ratio` times its primary alone, else a note), a warning saying it is
    /// conditional where none does; a note when allowed.
    Conditional {
        /// File.
        file: String,
        /// Line of the fallback.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The primary, priced.
        primary: Side,
        /// The fallback, priced.
        fallback: Side,
        /// Which requests it takes.
        condition: Condition,
        /// Worst-case ratio per request (dearest fallback / cheapest primary); `None` for a free
        /// primary.
        ratio: Option<f64>,
        /// The limit.
        max_ratio: f64,
        /// The share of requests it takes, where stated.
        share: Option<StatedShare>,
        /// What the chain costs over its primary alone at that share
        /// ([`crate::model::condition::chain_ratio`]); `None` without a share or a ratio.
        chain_ratio: Option<f64>,
        /// The `--allow` entry that allows this link.
        allowed: Option<String>,
        /// The fallcost.toml that `allowed` came from; `None`: the `--allow` flag.
        allowed_from: Option<String>,
    },
    /// A chain whose primary and fallbacks all run on one provider (a warning): it survives a
    /// deprecation, not an outage.
    SameProvider {
        /// File.
        file: String,
        /// Line of the chain.
        line: usize,
        /// The chain's name.
        chain: String,
        /// The provider (its family, see [`crate::model::prices::provider_family`]).
        providers: Vec<String>,
    },
    /// Something about a gateway config's structure (warning or note, see [`Notice`]).
    Config {
        /// File.
        file: String,
        /// Line.
        line: usize,
        /// What.
        notice: Notice,
    },
    /// Where a price was taken from, when it may not be what the config's provider bills (a
    /// note): an OpenAI-compatible model served through another `api_base`, or a provider whose
    /// model is priced from another provider's entry.
    PriceSource {
        /// File.
        file: String,
        /// Line of the model.
        line: usize,
        /// What was priced and from where.
        message: String,
    },
    /// A model the price table has no price for and the config sets no price for (an error: an
    /// unknown price is never taken as zero, so the gate fails closed, exit 1): the chains
    /// through it are not judged there. LiteLLM loads and serves such a config, so it is a
    /// finding, not an input error: every other file is still priced.
    Unpriced {
        /// File.
        file: String,
        /// Line of the model's first place.
        line: usize,
        /// The model as the config names it.
        model: String,
        /// Why it has no price, the nearest priced ids, and how to declare its price.
        message: String,
    },
    /// A fallback that cannot take a failover's load or serve its requests: retired or
    /// retiring, a context window or capability short of the request profile, a rate limit
    /// below the traffic an outage sends it ([`FitProblem`]; `--severity` may change its
    /// severity).
    Fit {
        /// File.
        file: String,
        /// Line of the fallback model (of the link where the model's line is not known).
        line: usize,
        /// The chain's name.
        chain: String,
        /// The fallback model, as the file names it.
        model: String,
        /// What keeps it from serving.
        problem: FitProblem,
        /// Its severity: [`FitProblem::default_severity`] or the `--severity` given.
        severity: Severity,
    },
    /// The run found no fallback chain at all (a warning, so `--deny-warnings` fails it): a CI
    /// gate pointed at the wrong folder would otherwise pass forever. It has no file and line.
    NoChains {
        /// The paths searched, as given.
        paths: Vec<String>,
        /// Whether chains were found but none could be judged (its models have no price or
        /// are read from the environment: the notes say how to give them), rather than none
        /// found.
        unjudged: bool,
    },
}

impl Finding {
    /// Error, warning or note.
    pub fn severity(&self) -> Severity {
        match self {
            Finding::AboveRatio { allowed: None, .. } => Severity::Error,
            Finding::AboveRatio { .. } => Severity::Note,
            // The severity follows the outage's bill: an error only when the outage as a whole
            // costs more than the limit allows; a first failover above it in an outage that
            // costs less than normal is a note, one that costs more (within the limit) a warning.
            Finding::IncidentCost {
                allowed: None,
                figures,
                max_ratio,
                ..
            } => {
                if figures.window_above(*max_ratio) {
                    Severity::Error
                } else if figures.no_dearer_than_normal() {
                    Severity::Note
                } else {
                    Severity::Warning
                }
            }
            Finding::IncidentCost { .. } => Severity::Note,
            Finding::Conditional {
                allowed: None,
                share: None,
                ..
            } => Severity::Warning,
            Finding::Conditional {
                allowed: None,
                chain_ratio: Some(r),
                max_ratio,
                ..
            } if *r > *max_ratio * (1.0 + crate::model::cost::PRICE_RATIO_REL_TOL) => {
                Severity::Error
            }
            Finding::Conditional { .. } => Severity::Note,
            Finding::Unpriced { .. } => Severity::Error,
            Finding::Fit { severity, .. } => *severity,
            Finding::SameProvider { .. } | Finding::NoChains { .. } => Severity::Warning,
            Finding::Config { notice, .. } if notice.is_warning() => Severity::Warning,
            Finding::Config { .. } | Finding::PriceSource { .. } => Severity::Note,
        }
    }

    /// A stable kebab-case identifier: `above-ratio`, `same-provider`, `price-source`,
    /// `no-chains`, `unpriced`, or the notice's kind (`not-a-group`, `loop`, `self-fallback`,
    /// `empty-fallbacks`, `no-model`, `ignored`, `wildcard`).
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::AboveRatio { .. } => "above-ratio",
            Finding::IncidentCost { .. } => "incident-cost",
            Finding::Conditional { .. } => "conditional-fallback",
            Finding::SameProvider { .. } => "same-provider",
            Finding::Config { notice, .. } => notice.kind(),
            Finding::PriceSource { .. } => "price-source",
            Finding::NoChains { .. } => "no-chains",
            Finding::Unpriced { .. } => "unpriced",
            Finding::Fit { problem, .. } => problem.kind(),
        }
    }

    /// The file the finding is about (empty for [`Finding::NoChains`]).
    pub fn file(&self) -> &str {
        match self {
            Finding::AboveRatio { file, .. }
            | Finding::IncidentCost { file, .. }
            | Finding::Conditional { file, .. }
            | Finding::SameProvider { file, .. }
            | Finding::Config { file, .. }
            | Finding::PriceSource { file, .. }
            | Finding::Unpriced { file, .. }
            | Finding::Fit { file, .. } => file,
            Finding::NoChains { .. } => "",
        }
    }

    /// The line the finding is about (0 for [`Finding::NoChains`]).
    pub fn line(&self) -> usize {
        match self {
            Finding::AboveRatio { line, .. }
            | Finding::IncidentCost { line, .. }
            | Finding::Conditional { line, .. }
            | Finding::SameProvider { line, .. }
            | Finding::Config { line, .. }
            | Finding::PriceSource { line, .. }
            | Finding::Unpriced { line, .. }
            | Finding::Fit { line, .. } => *line,
            Finding::NoChains { .. } => 0,
        }
    }
}

/// `--max-ratio` as given: the shortest decimal that reads back as the same number (`2`, `1.5`,
/// `1.99999999`), with an exponent for very large or small values (`1e308`).
pub fn format_limit(max_ratio: f64) -> String {
    let s = format!("{max_ratio:?}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// A ratio above `max_ratio`, as shown: two decimals (`5.00x`), or as many more as it takes for
/// the number shown to be above the limit (`2.004x` above 2, `2.0000000001x` above
/// 1.9999999999), so the message never reads as a ratio at or below the limit.
pub fn format_ratio(ratio: f64, max_ratio: f64) -> String {
    (2..=17)
        .map(|d| format!("{ratio:.d$}"))
        .find(|s| s.parse::<f64>().is_ok_and(|shown| shown > max_ratio))
        .map_or_else(|| format!("{ratio:?}x"), |s| format!("{s}x"))
}

/// `; allowed by --allow ollama`, or, for an entry of a settings file, `; allowed by `ollama`
/// in fallcost.toml [check] allow`.
fn allowed_by(entry: &str, from: Option<&str>) -> String {
    match from {
        Some(file) => format!("; allowed by `{entry}` in {file} [check] allow"),
        None => format!("; allowed by --allow {entry}"),
    }
}

/// `allowed_by` for an allowed finding; empty when it is not allowed.
fn allowed_suffix(allowed: &Option<String>, from: &Option<String>) -> String {
    allowed
        .as_ref()
        .map_or(String::new(), |a| allowed_by(a, from.as_deref()))
}

/// ` (reached via `a`, `b`)` for the steps between a primary and its fallback; empty for none.
fn via_suffix(via: &[String]) -> String {
    if via.is_empty() {
        String::new()
    } else {
        format!(
            " (reached via {})",
            via.iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Which models a ratio's worst case compares, when a side ranges over several models (a
/// mix is priced as one); empty when neither does.
fn worst_case(primary: &Side, fallback: &Side) -> &'static str {
    let ranged = |s: &Side| s.models.len() > 1 && !s.is_mix();
    match (ranged(primary), ranged(fallback)) {
        (true, true) => " (worst case: dearest fallback model against cheapest primary model)",
        (true, false) => " (worst case: against the cheapest primary model)",
        (false, true) => " (worst case: the dearest fallback model)",
        (false, false) => "",
    }
}

/// How a primary with no ratio is free: wholly, or through its cheapest model.
fn how_free(primary: &Side) -> &'static str {
    if primary.max_per_1k_usd > 0.0 && !primary.is_mix() {
        "can be free: its cheapest model is"
    } else {
        "is free"
    }
}

/// The limit a paid fallback of a free primary is above: `--max-usd-per-1k`, or any price
/// under `--max-ratio` (`limit`, as [`format_limit`] shows it).
fn free_primary_limit(max_usd_per_1k: Option<f64>, limit: &str) -> String {
    match max_usd_per_1k {
        Some(usd) => format!(
            "above --max-usd-per-1k {} for a paid fallback of a free primary",
            crate::number::trim(usd, 6)
        ),
        None => format!("any paid fallback is above --max-ratio {limit}"),
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::AboveRatio {
                chain,
                primary,
                fallback,
                ratio,
                max_ratio,
                max_usd_per_1k,
                via,
                allowed,
                allowed_from,
                ..
            } => {
                let tail = format!(
                    "{}{}",
                    via_suffix(via),
                    allowed_suffix(allowed, allowed_from)
                );
                match ratio {
                    Some(r) => above_ratio(f, chain, (primary, fallback), *r, *max_ratio, &tail),
                    None => {
                        let limit = free_primary_limit(*max_usd_per_1k, &format_limit(*max_ratio));
                        free_primary(f, chain, (primary, fallback), &limit, &tail)
                    }
                }
            }
            Finding::IncidentCost {
                chain,
                primary,
                fallback,
                warm_ratio,
                figures,
                incident,
                max_ratio,
                allowed,
                allowed_from,
                ..
            } => {
                let tail = allowed_suffix(allowed, allowed_from);
                incident_cost(
                    f,
                    chain,
                    (primary, fallback),
                    *warm_ratio,
                    (figures, incident, *max_ratio),
                    &tail,
                )
            }
            Finding::Conditional { .. } => conditional(f, self),
            Finding::SameProvider {
                chain, providers, ..
            } => write!(
                f,
                "chain `{chain}`: every fallback runs on the primary's provider ({}); it survives a deprecation, not an outage",
                providers.join(", ")
            ),
            Finding::Config { notice, .. } => write!(f, "{notice}"),
            Finding::PriceSource { message, .. } | Finding::Unpriced { message, .. } => {
                write!(f, "{message}")
            }
            Finding::NoChains {
                paths,
                unjudged: true,
            } => write!(
                f,
                "no fallback chain under {} could be judged: the chains found go through models with no price or read from the environment (the notes say how to give them)",
                paths.join(" ")
            ),
            Finding::NoChains { paths, .. } => write!(
                f,
                "no fallback chains found under {}: no fallback was judged (is the path right? --verbose lists what was skipped)",
                paths.join(" ")
            ),
            Finding::Fit {
                chain,
                model,
                problem,
                ..
            } => super::fit::message(f, chain, model, problem),
        }
    }
}

/// [`Finding::AboveRatio`]'s sentence when the primary has a price: the fallback costs `ratio`
/// times it, above `max_ratio`; `tail` is the via and allowed suffixes.
fn above_ratio(
    f: &mut fmt::Formatter<'_>,
    chain: &str,
    (primary, fallback): (&Side, &Side),
    ratio: f64,
    max_ratio: f64,
    tail: &str,
) -> fmt::Result {
    let worst = worst_case(primary, fallback);
    let limit = format_limit(max_ratio);
    write!(
        f,
        "chain `{chain}`: fallback `{}` costs {} per 1,000 requests, {} its primary `{}` at {}{worst}; above --max-ratio {limit}{tail}",
        fallback.name,
        fallback.price(),
        format_ratio(ratio, max_ratio),
        primary.name,
        primary.price(),
    )
}

/// [`Finding::AboveRatio`]'s sentence for a free primary: the paid fallback's price and the
/// `limit` it is above; `tail` is the via and allowed suffixes.
fn free_primary(
    f: &mut fmt::Formatter<'_>,
    chain: &str,
    (primary, fallback): (&Side, &Side),
    limit: &str,
    tail: &str,
) -> fmt::Result {
    write!(
        f,
        "chain `{chain}`: fallback `{}` costs {} per 1,000 requests and its primary `{}` {} ({}): {limit}{tail}",
        fallback.name,
        fallback.price(),
        primary.name,
        how_free(primary),
        primary.price(),
    )
}

/// [`Finding::Conditional`]'s sentence: the fallback's price and ratio, which requests it
/// takes, and, with a share, what the chain costs over its primary alone at it (above or within
/// the limit); without one, how to state it.
fn conditional(f: &mut fmt::Formatter<'_>, finding: &Finding) -> fmt::Result {
    let Finding::Conditional {
        chain,
        primary,
        fallback,
        condition,
        ratio,
        max_ratio,
        share,
        chain_ratio,
        allowed,
        allowed_from,
        ..
    } = finding
    else {
        return Ok(());
    };
    let limit = format_limit(*max_ratio);
    let per_request = ratio.map_or_else(
        || {
            format!(
                "and its primary `{}` {} ({})",
                primary.name,
                how_free(primary),
                primary.price()
            )
        },
        |r| {
            format!(
                "{} its primary `{}` at {}",
                format_ratio(r, *max_ratio),
                primary.name,
                primary.price()
            )
        },
    );
    write!(
        f,
        "chain `{chain}`: fallback `{}` costs {} per 1,000 requests, {per_request}{}, but a {} link takes only {}, not every failure",
        fallback.name,
        fallback.price(),
        worst_case(primary, fallback),
        condition.key(),
        condition.takes(),
    )?;
    let tail = allowed_suffix(allowed, allowed_from);
    match (share, chain_ratio) {
        (Some(s), Some(r)) => {
            let verdict = if *r > *max_ratio * (1.0 + crate::model::cost::PRICE_RATIO_REL_TOL) {
                "above"
            } else {
                "within"
            };
            write!(
                f,
                ": at {} of requests ({}) the chain costs {r:.2}x its primary alone; {verdict} --max-ratio {limit}{tail}",
                crate::number::percent(s.share, crate::number::Digits::AtMost(4), false),
                s.from,
            )
        }
        (Some(s), None) => write!(
            f,
            ": it takes {} of requests ({}){tail}",
            crate::number::percent(s.share, crate::number::Digits::AtMost(4), false),
            s.from,
        ),
        (None, _) => write!(
            f,
            "; its share of requests is not stated, so it is not judged as a general fallback: state it as fallcost.toml [usage] {} (0 to 1) to judge it{tail}",
            condition.share_key(),
        ),
    }
}

/// [`Finding::IncidentCost`]'s sentence: the warm ratio, the first failover's cost and the
/// outage's multiplier, the one above `max_ratio` said to be (the finding's severity follows
/// the outage's); `tail` is the allowed suffix.
fn incident_cost(
    f: &mut fmt::Formatter<'_>,
    chain: &str,
    (primary, fallback): (&Side, &Side),
    warm_ratio: Option<f64>,
    (figures, incident, max_ratio): (&IncidentBill, &IncidentCheck, f64),
    tail: &str,
) -> fmt::Result {
    let show = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.2}x"));
    let limit = format_limit(max_ratio);
    let outage = format!(
        "a {} outage ({} requests in {} sessions, {} req/s) costs {} the primary's normal bill",
        crate::number::format_seconds(incident.duration_s),
        crate::number::group(&figures.requests.to_string()),
        crate::number::group(&figures.sessions.to_string()),
        crate::number::count(incident.requests_per_second),
        show(figures.multiplier),
    );
    let first = format!(
        "${} per 1,000 requests, {}",
        crate::number::money(fallback.first(true)),
        show(figures.first_ratio),
    );
    let (fb, warm, p) = (&fallback.name, show(warm_ratio), &primary.name);
    if figures.window_above(max_ratio) {
        return write!(
            f,
            "chain `{chain}`: fallback `{fb}` is {warm} its primary `{p}` at warm prices, but a session's first failover (cold cache or write) costs {first}, and {outage}; above --max-ratio {limit}{tail}",
        );
    }
    let less = if figures.no_dearer_than_normal() {
        ", no more than normal"
    } else {
        ""
    };
    write!(
        f,
        "chain `{chain}`: fallback `{fb}` is {warm} its primary `{p}` at warm prices and {outage}{less}, within --max-ratio {limit}; only a session's first failover (cold cache or write) is above it: {first}{tail}",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_show_enough_digits_to_be_above_the_limit_shown() {
        assert_eq!(format_limit(2.0), "2");
        assert_eq!(format_limit(1.5), "1.5");
        assert_eq!(format_limit(1.99999999), "1.99999999");
        assert_eq!(format_limit(1e308), "1e308");
        assert_eq!(format_ratio(5.0, 2.0), "5.00x");
        assert_eq!(format_ratio(2.004, 2.0), "2.004x");
        assert_eq!(format_ratio(2.0, 1.99999999), "2.00x");
        assert_eq!(format_ratio(2.0000000001, 2.0), "2.0000000001x");
        assert_eq!(format_ratio(2.0049, 2.0), "2.005x");
    }
}
