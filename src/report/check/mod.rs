//! The result of `fallcost check`: the [`CheckReport`] of one run (the files checked and
//! skipped, the [`Finding`]s, the input errors) and the types a finding holds ([`Side`],
//! [`PricedModel`], [`IncidentCheck`], [`IncidentBill`]). Result types only: the rules that
//! produce them are [`crate::check`], the operation [`crate::ops::check`], the exporters
//! [`crate::output::check`].

mod finding;
pub mod fit;
mod side;

use serde::Serialize;

use crate::error::{ExitStatus, InputError};
use crate::model::Request;

pub use finding::{Finding, Severity, format_limit, format_ratio};
pub use side::{PricedModel, Side};

/// An outage of a chain's primary provider, for `check --incident` (MODEL.md §6 with instant
/// detection: every request of the window fails over at once).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IncidentCheck {
    /// D: how long the primary's provider is down, seconds.
    pub duration_s: f64,
    /// λ: requests per second (default 1).
    pub requests_per_second: f64,
    /// L: requests per session, each session with its own cache (default 20).
    pub session_length: u64,
}

/// What one link costs in an incident of the primary's provider (MODEL.md §6): money in USD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IncidentBill {
    /// A session's first failover (cold cache, or a cache write) against the primary warm.
    pub first_ratio: Option<f64>,
    /// total / normal over the window; `None` for a free primary.
    pub multiplier: Option<f64>,
    /// N: requests in the window.
    pub requests: u64,
    /// S: sessions in the window.
    pub sessions: u64,
    /// The window's total: fallback warm, cold starts, fail-back writes.
    pub total: f64,
    /// The same requests on the primary, warm.
    pub normal: f64,
}

impl IncidentBill {
    /// Whether the outage as a whole costs more than `max_ratio` times the primary's normal
    /// bill for the same requests (the window's multiplier above the limit, with
    /// [`crate::model::cost::above_ratio`]'s tolerance).
    pub fn window_above(&self, max_ratio: f64) -> bool {
        self.normal > 0.0 && crate::model::cost::above_ratio(self.total, self.normal, max_ratio)
    }

    /// Whether the outage costs no more than the primary's normal bill (multiplier at most 1).
    pub fn no_dearer_than_normal(&self) -> bool {
        self.multiplier.is_some_and(|m| m <= 1.0)
    }
}

/// What kind of file was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// A fallcost scenario (`[[chain]]`).
    Scenario,
    /// A LiteLLM proxy config.
    Litellm,
    /// A Portkey config.
    Portkey,
    /// An OpenRouter request body (`models` fallback list).
    Openrouter,
}

/// A file that was checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    /// The path.
    pub path: String,
    /// What it is.
    pub format: FileKind,
    /// Chains judged.
    pub chains: usize,
    /// Fallback links judged.
    pub links: usize,
}

/// A file that was not checked, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// The path.
    pub path: String,
    /// Why it was skipped.
    pub reason: String,
}

/// Everything one run of `fallcost check` found.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// The limit used.
    pub max_ratio: f64,
    /// The gateway request profile used.
    pub profile: Request,
    /// The name of the price table used for gateway configs.
    pub pricing: String,
    /// Files checked, in path order.
    pub checked: Vec<Checked>,
    /// Files skipped, in path order.
    pub skipped: Vec<Skipped>,
    /// Findings, by file then line.
    pub findings: Vec<Finding>,
    /// Input errors (unreadable or invalid files, models with no known price).
    pub errors: Vec<InputError>,
}

impl CheckReport {
    /// Count of findings of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity() == severity)
            .count()
    }

    /// The exit status: 2 if any input error, else 1 if any error finding (or any warning under
    /// `deny_warnings`), else 0.
    pub fn exit_status(&self, deny_warnings: bool) -> ExitStatus {
        if !self.errors.is_empty() {
            ExitStatus::Error
        } else if self.count(Severity::Error) > 0
            || (deny_warnings && self.count(Severity::Warning) > 0)
        {
            ExitStatus::Findings
        } else {
            ExitStatus::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::InputErrorKind;

    #[test]
    fn exit_status_orders_input_errors_findings_and_warnings() {
        let mut r = CheckReport {
            max_ratio: 2.0,
            profile: Request {
                input_tokens: 1.0,
                output_tokens: 1.0,
                prefix_tokens: 0.0,
                cache_hit_rate: 1.0,
            },
            pricing: "t".into(),
            checked: vec![],
            skipped: vec![],
            findings: vec![],
            errors: vec![],
        };
        assert_eq!(r.exit_status(true), ExitStatus::Success);
        r.findings.push(Finding::SameProvider {
            file: "f".into(),
            line: 1,
            chain: "c".into(),
            providers: vec!["openai".into()],
        });
        assert_eq!(r.exit_status(false), ExitStatus::Success);
        assert_eq!(r.exit_status(true), ExitStatus::Findings);
        r.errors
            .push(InputError::file(InputErrorKind::Read, "f", "no such file"));
        assert_eq!(r.exit_status(false), ExitStatus::Error);
    }
}
