//! The result of `fallcost diff`: two sides (BASE and HEAD) priced alike, chain by chain, with
//! the change, the thresholds crossed and the chains over budget. Result types only; the
//! operation that fills them is `ops::diff`, the formats are `output::diff`.
//!
//! Money is USD; steady figures per 1,000 requests and per month (a month of 730 hours), the
//! incident figures over the reference incident's window, the premium per year (MODEL.md §6,
//! docs/guide/incidents-and-histories.md).

use serde::Serialize;

use crate::model::Pattern;

/// The version of the JSON document (`version`): raised when a key is renamed or removed.
pub const DIFF_VERSION: u32 = 1;

/// One side's figures for one chain (or the total over the chains), each `None` where it does
/// not apply (no incident, no traffic, no history).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiffFigures {
    /// Steady state, USD per 1,000 requests (for a total: the traffic-weighted mean; `None`
    /// without traffic for every chain).
    pub per_1k_usd: Option<f64>,
    /// Requests per month (the usage assumptions).
    pub requests_per_month: Option<f64>,
    /// Steady state, USD per month: per 1,000 × requests / 1,000.
    pub per_month_usd: Option<f64>,
    /// The reference incident's bill, USD (window + cold starts + fail-back writes).
    pub incident_usd: Option<f64>,
    /// Its premium over the normal bill for the same requests, USD.
    pub incident_excess_usd: Option<f64>,
    /// Its failed requests (expected).
    pub incident_failed: Option<f64>,
    /// The expected annual incident premium from the history's simulated years, USD per year.
    pub premium_per_year_usd: Option<f64>,
    /// Its 95th-percentile year, USD.
    pub premium_p95_usd: Option<f64>,
    /// Requests failed on every link in the history's incidents, mean per simulated year
    /// (for a total: the sum).
    pub failed_per_year: Option<f64>,
    /// Share of the year's requests answered through those incidents: 1 − failed / requests
    /// (for a total: the mean weighted by requests per month).
    pub availability: Option<f64>,
    /// The dearest fallback's like-for-like price over the primary's (warm, per request);
    /// `None` for a free primary, a one-link chain and a total.
    pub worst_ratio: Option<f64>,
    /// The month the budget is judged on: per month + the reference incident's premium (or
    /// the p95 year's premium, with a history), USD.
    pub month_at_risk_usd: Option<f64>,
}

/// What a chain's change is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Only in HEAD.
    Added,
    /// Only in BASE.
    Removed,
    /// In both, with a different chain or different figures.
    Changed,
    /// In both under another name or in another file (matched by the traffic it serves),
    /// with the same chain and figures.
    Renamed,
    /// In both, the same chain and figures.
    Unchanged,
}

/// One setting that differs between BASE and HEAD.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The setting: `links`, `link 2 (openai/gpt-6-sol).failure_rate`, `policy.timeout_s`.
    pub what: String,
    /// Its value in BASE (`null`: absent).
    pub base: Option<String>,
    /// Its value in HEAD (`null`: absent).
    pub head: Option<String>,
}

/// A file and line of HEAD where a chain is written (for annotations).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct At {
    /// The file, as given.
    pub file: String,
    /// The line, from 1.
    pub line: usize,
}

/// A Monte Carlo difference: HEAD − BASE, with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct McDiff {
    /// The simulated mean difference.
    pub mean: f64,
    /// Its 95% interval (common random numbers: from the batches' paired differences).
    pub ci95: [f64; 2],
    /// The 95% interval the same budget gives from independent runs (each side's own
    /// standard error, added in quadrature), for comparison.
    pub independent_ci95: [f64; 2],
}

/// With `--mc`: a matched chain's simulated differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainMc {
    /// Steady state, USD per 1,000 requests.
    pub per_1k_usd: McDiff,
    /// The reference incident's bill, USD (`null` without an incident, or not simulated).
    pub incident_usd: Option<McDiff>,
}

/// One chain, both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainDiff {
    /// The chain's name (HEAD's; BASE's when removed).
    pub chain: String,
    /// BASE's name of the chain when it differs (a rename, a move to another file or format:
    /// BASE and HEAD are matched by the traffic they serve, then by name).
    pub base_chain: Option<String>,
    /// Added, removed, changed or unchanged.
    pub status: Status,
    /// Its links in BASE, primary first (`[]` when added).
    pub base_models: Vec<String>,
    /// Its links in HEAD (`[]` when removed).
    pub head_models: Vec<String>,
    /// BASE's figures (`null` when added).
    pub base: Option<DiffFigures>,
    /// HEAD's figures (`null` when removed).
    pub head: Option<DiffFigures>,
    /// HEAD − BASE for every figure both sides have (`null` when added or removed).
    pub diff: Option<DiffFigures>,
    /// The settings that differ (links, prices, rates, policy).
    pub changes: Vec<Change>,
    /// Where HEAD writes the chain, when known.
    pub at: Option<At>,
    /// Which assumption each figure rests on (`requests_per_month` from
    /// `fallcost.toml [usage] requests_per_month`).
    pub assumptions: Vec<Assumption>,
    /// With `--mc`: the simulated differences on common random numbers.
    pub mc: Option<ChainMc>,
}

/// A usage assumption a figure rests on, and where it was read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assumption {
    /// The figure or input: `requests_per_month`, `request`, `incident`, `history`, `budget`.
    pub key: String,
    /// Its value, as shown.
    pub value: String,
    /// Where it comes from: a file (and section), a flag, or a default.
    pub source: String,
}

/// One side of the diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideMeta {
    /// The side's label: the paths as given (`REF:path` for `--base-ref`).
    pub label: String,
    /// Its scenario's name.
    pub scenario: String,
    /// Its price table.
    pub pricing: String,
}

/// A threshold crossed (`--fail-above`) or a budget exceeded (`--budget`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Crossed {
    /// `percent`, `percent_from_zero` (a rise from a month of $0: `value` is the rise in
    /// USD per month), `per_month_usd`, `per_incident_usd`, `failed_per_incident`,
    /// `availability` (percentage points, negative for a fall), `ratio` or `budget`.
    pub kind: &'static str,
    /// The limit given.
    pub limit: f64,
    /// The value that crossed it.
    pub value: f64,
    /// The chain, for `ratio` and `budget` (`null` for the totals).
    pub chain: Option<String>,
    /// One line saying so.
    pub message: String,
}

/// A free or local primary with a paid fallback: what an outage of the primary costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FreePrimary {
    /// The chain (HEAD's).
    pub chain: String,
    /// The primary.
    pub primary: String,
    /// The first paid fallback.
    pub fallback: String,
    /// The reference incident's bill on HEAD, USD (`null` without an incident).
    pub outage_usd: Option<f64>,
}

/// With `--mc`: how the differences were simulated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffMcMeta {
    /// The seed.
    pub seed: u64,
    /// Requests simulated per chain and side.
    pub requests: u64,
    /// Incident windows simulated per chain and side.
    pub runs: u64,
    /// Batches the budget is cut into; each batch has its own seed, the same on both sides.
    pub batches: u64,
    /// How the draws are shared.
    pub method: &'static str,
}

/// Everything `fallcost diff` computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// [`DIFF_VERSION`].
    pub version: u32,
    /// The fallcost version that computed it.
    pub fallcost_version: &'static str,
    /// The pattern every chain is priced under (`sequential`, what gateways run).
    pub pattern: Pattern,
    /// BASE.
    pub base: SideMeta,
    /// HEAD.
    pub head: SideMeta,
    /// The reference incident, as shown (`anthropic down for 3h, 10,800 requests`), when both
    /// sides have one.
    pub incident: Option<String>,
    /// The assumptions every figure rests on (request, incident, history, budget).
    pub assumptions: Vec<Assumption>,
    /// Settings of the scenario (request, incident) that differ between the sides: they move
    /// every chain.
    pub scenario_changes: Vec<Change>,
    /// Every chain that was added, removed or changed, in HEAD's order, then the removed ones.
    pub chains: Vec<ChainDiff>,
    /// The chains in both sides with nothing changed (names only).
    pub unchanged: Vec<String>,
    /// Every chain of BASE, added up.
    pub base_total: DiffFigures,
    /// Every chain of HEAD, added up.
    pub head_total: DiffFigures,
    /// HEAD − BASE of the totals.
    pub diff_total: DiffFigures,
    /// The steady monthly change over BASE's month (0.18 for +18%); `null` without traffic or
    /// with a BASE month of 0.
    pub diff_month_ratio: Option<f64>,
    /// HEAD's chains with a free or local primary and a paid fallback.
    pub free_primaries: Vec<FreePrimary>,
    /// `--budget` USD per month, when given.
    pub budget_usd: Option<f64>,
    /// Thresholds crossed and budgets exceeded (exit 1 when any).
    pub crossed: Vec<Crossed>,
    /// With `--mc`: the simulation's seed and budget.
    pub mc: Option<DiffMcMeta>,
    /// What the reader must know about the inputs: a `[usage.chains]` key that matches no
    /// chain, a renamed group's traffic carried over, each side priced with its own usage.
    pub warnings: Vec<String>,
    /// The usage assumptions (`fallcost.toml [usage]`, its scenario) that differ between the
    /// refs with `--base-ref`: each side is then priced with its own (`--usage head` holds
    /// HEAD's).
    pub usage_changes: Vec<Change>,
}

impl DiffReport {
    /// Whether some chain (or the total) costs more or fails more in HEAD: per month, per
    /// 1,000 requests, per incident, per year, more failed requests per incident or per year,
    /// or a lower availability (`--only-increases` prints nothing otherwise).
    pub fn has_increase(&self) -> bool {
        self.diff_total_up()
            || self.chains.iter().any(|c| match (&c.diff, c.status) {
                (Some(d), _) => up(d),
                (None, Status::Added) => true,
                _ => false,
            })
    }

    fn diff_total_up(&self) -> bool {
        up(&self.diff_total)
    }
}

/// Whether a difference costs more or fails more.
pub fn up(d: &DiffFigures) -> bool {
    costs_more(d) || fails_more(d)
}

/// Whether a difference costs more: per month, per 1,000, per incident or per year.
pub fn costs_more(d: &DiffFigures) -> bool {
    [
        d.per_month_usd,
        d.per_1k_usd,
        d.incident_usd,
        d.premium_per_year_usd,
    ]
    .iter()
    .any(|v| v.is_some_and(|x| x > 0.0))
}

/// Whether a difference fails more: failed requests per incident or per year up, or the
/// availability down.
pub fn fails_more(d: &DiffFigures) -> bool {
    d.incident_failed.is_some_and(|x| x > 0.0)
        || d.failed_per_year.is_some_and(|x| x > 0.0)
        || d.availability.is_some_and(|x| x < 0.0)
}
