//! The steady-state rows of a report: one pattern on one chain, per 1,000 requests.

use serde::Serialize;

use crate::model::Pattern;

pub use crate::figures::Answered;
use crate::figures::{MeanCi, SteadyFigures, SteadyPolicyFigures};

/// One steady-state row: one pattern on one chain, per 1,000 requests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SteadyRow {
    /// The chain's name.
    pub chain: String,
    /// The pattern.
    pub pattern: Pattern,
    /// The analytic engine's figures: cost, baseline, ratio to it, failed and wasted.
    #[serde(flatten)]
    pub analytic: SteadyFigures<f64>,
    /// The analytic engine's policy figures (MODEL.md §8): expected attempts per request
    /// (retries, failovers and hedge legs included), the most any request can make, dead time
    /// before the answer (or the final error), attribution per model, cap hits.
    #[serde(flatten)]
    pub policy: SteadyPolicyFigures<f64>,
    /// The chain's models timed with the default latency model (p50 2 s, p99 12 s: no
    /// `[latency]` entry; [`crate::model::Chain::latency_defaults`]); absent when every model
    /// has an entry, and on blended rows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency_defaults: Vec<String>,
    /// The Monte Carlo figures, with `--mc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mc: Option<SteadyMc>,
}

impl SteadyRow {
    /// The healthy, warm primary alone, USD per 1,000 requests (0 where a row has none).
    pub fn baseline(&self) -> f64 {
        self.analytic.baseline_per_1k_usd.unwrap_or(0.0)
    }
}

/// The Monte Carlo figures of a steady-state row: the row's keys with simulated means, each with
/// its 95% interval as `KEY_ci95`, and the latency percentiles (MODEL.md §9, §10).
///
/// On a blended traffic-share row ([`BLENDED`](super::BLENDED)) every mean is Σ shareᵢ·meanᵢ over the chains'
/// own Monte Carlo figures, and its interval comes from the combined standard error
/// √(Σ shareᵢ²·SEᵢ²) (the chains are simulated on independent streams); the latency
/// percentiles are those of the mixture (the chains' latency histograms weighted by share).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SteadyMc {
    /// Requests simulated (a blended row: summed over its chains).
    pub requests: u64,
    /// The simulated figures, each with its 95% interval as `KEY_ci95` (no baseline: it is
    /// not random).
    #[serde(flatten)]
    pub figures: SteadyFigures<MeanCi>,
    /// Median latency the user sees (to the answer, or to the error of a failed request), s.
    pub latency_p50_s: f64,
    /// 95th-percentile latency, seconds.
    pub latency_p95_s: f64,
    /// 99th-percentile latency, seconds.
    pub latency_p99_s: f64,
    /// Under a non-default policy: attempts, dead time, attribution and cap hits, simulated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<SteadyPolicyFigures<MeanCi>>,
}
