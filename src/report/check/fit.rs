//! Whether a fallback can take the load and serve the request: the problems `fallcost check`
//! reports as [`super::Finding::Fit`] (docs/MODEL.md §11; the rules in [`crate::check::fit`]).

use std::fmt;

use serde::Serialize;

use super::Severity;
use crate::model::fit::Capability;
use crate::number::{Digits, percent};

/// What keeps a fallback from taking a failover's requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FitProblem {
    /// Retired: its `deprecation_date` is today or past.
    Retired {
        /// The date, `YYYY-MM-DD`.
        deprecation_date: String,
        /// Days since (0: today).
        days_ago: i64,
        /// The model the table names to move to.
        successor: Option<String>,
    },
    /// Retiring within `--deprecation-days`.
    Retiring {
        /// The date, `YYYY-MM-DD`.
        deprecation_date: String,
        /// Days until.
        days_left: i64,
        /// The window it falls in, days.
        deprecation_days: i64,
        /// The model the table names to move to.
        successor: Option<String>,
    },
    /// The request profile's prompt or answer does not fit.
    ContextWindow {
        /// Prompt tokens per request (cached prefix and fresh input).
        prompt_tokens: u64,
        /// The model's `max_input_tokens`, when the prompt is above it.
        max_input_tokens: Option<u64>,
        /// Output tokens per request.
        output_tokens: u64,
        /// The model's `max_output_tokens`, when the answer is above it.
        max_output_tokens: Option<u64>,
    },
    /// A capability `--requires` names that the model lacks, or that the table does not state.
    Capability {
        /// Stated as missing (`supports_… = false`).
        lacks: Vec<Capability>,
        /// Not stated in the table.
        unknown: Vec<Capability>,
    },
    /// Its rate limit refuses part of the traffic an outage of the primary's provider sends it.
    Capacity {
        /// The requests one minute admits.
        limit_per_minute: u64,
        /// Which limit binds: `rpm` or `tpm`.
        binds: &'static str,
        /// The requests a minute the outage sends it (the incident's rate × its share).
        arrivals_per_minute: f64,
        /// Its share of its step's traffic.
        share: f64,
        /// The share refused (429, billed 0): E\[(N − c)⁺\] / E\[N\].
        refused_share: f64,
    },
}

impl FitProblem {
    /// The finding kind: `retired`, `retiring`, `context-window`, `capability`, `capacity`.
    pub fn kind(&self) -> &'static str {
        match self {
            FitProblem::Retired { .. } => "retired",
            FitProblem::Retiring { .. } => "retiring",
            FitProblem::ContextWindow { .. } => "context-window",
            FitProblem::Capability { .. } => "capability",
            FitProblem::Capacity { .. } => "capacity",
        }
    }

    /// Its severity unless `--severity` says otherwise: a retiring model is a warning, a
    /// capability the table does not state a note, every other problem an error (the requests
    /// that fail over to it fail there).
    pub fn default_severity(&self) -> Severity {
        match self {
            FitProblem::Retiring { .. } => Severity::Warning,
            FitProblem::Capability { lacks, .. } if lacks.is_empty() => Severity::Note,
            _ => Severity::Error,
        }
    }
}

pub use crate::model::fit::FIT_KINDS;

fn names(caps: &[Capability]) -> String {
    caps.iter()
        .map(|c| format!("{} ({})", c.as_str(), c.table_field()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn successor(s: &Option<String>) -> String {
    match s {
        Some(m) => format!("; the table names `{m}` to move to"),
        None => String::new(),
    }
}

/// The message of a fit finding on fallback `model` of chain `chain`.
pub fn message(
    f: &mut fmt::Formatter<'_>,
    chain: &str,
    model: &str,
    problem: &FitProblem,
) -> fmt::Result {
    write!(f, "chain `{chain}`: fallback `{model}` ")?;
    match problem {
        FitProblem::Retired {
            deprecation_date,
            days_ago,
            successor: s,
        } => {
            let when = match days_ago {
                0 => "today".to_string(),
                1 => "1 day ago".to_string(),
                d => format!("{d} days ago"),
            };
            write!(
                f,
                "was retired on {deprecation_date} ({when}; the price table's deprecation_date): the requests that fail over to it fail there{}",
                successor(s)
            )
        }
        FitProblem::Retiring {
            deprecation_date,
            days_left,
            deprecation_days,
            successor: s,
        } => write!(
            f,
            "retires on {deprecation_date}, in {days_left} day{} (within --deprecation-days {deprecation_days}; the price table's deprecation_date){}",
            if *days_left == 1 { "" } else { "s" },
            successor(s)
        ),
        FitProblem::ContextWindow {
            prompt_tokens,
            max_input_tokens,
            output_tokens,
            max_output_tokens,
        } => {
            let mut over = Vec::new();
            if let Some(m) = max_input_tokens {
                over.push(format!(
                    "takes at most {} prompt tokens (max_input_tokens) and the profile's requests carry {}",
                    thousands(*m),
                    thousands(*prompt_tokens)
                ));
            }
            if let Some(m) = max_output_tokens {
                over.push(format!(
                    "answers with at most {} tokens (max_output_tokens) and the profile asks for {}",
                    thousands(*m),
                    thousands(*output_tokens)
                ));
            }
            write!(
                f,
                "{}: every request that fails over to it is refused there (a client error, billed 0, not retried)",
                over.join(", and ")
            )
        }
        FitProblem::Capability { lacks, unknown } => {
            if lacks.is_empty() {
                write!(
                    f,
                    "may not serve the requests: the price table does not say whether it supports {} (--requires, a scenario's [request] requires)",
                    names(unknown)
                )
            } else {
                write!(
                    f,
                    "does not support {} (false in the price table), which the requests need (--requires, a scenario's [request] requires): the provider refuses every request that reaches it (a client error){}",
                    names(lacks),
                    if unknown.is_empty() {
                        String::new()
                    } else {
                        format!("; not stated: {}", names(unknown))
                    }
                )
            }
        }
        FitProblem::Capacity {
            limit_per_minute,
            binds,
            arrivals_per_minute,
            share,
            refused_share,
        } => {
            let share_note = if *share < 1.0 {
                format!(
                    ", {} of its step's traffic",
                    percent(*share, Digits::Significant(3), false)
                )
            } else {
                String::new()
            };
            write!(
                f,
                "admits {} requests a minute ({binds}); an outage of the primary's provider sends it {} a minute{share_note}: {} of them are refused (429; a fixed one-minute window with Poisson arrivals, MODEL.md §11; a sliding window refuses more)",
                thousands(*limit_per_minute),
                crate::number::count(*arrivals_per_minute),
                percent(*refused_share, Digits::Significant(3), false)
            )
        }
    }
}

/// `n` with thousands separators.
fn thousands(n: u64) -> String {
    crate::number::group(&n.to_string())
}
