//! `fallcost reconcile`'s result: the price table (and a scenario) held against a provider's
//! own bill. Money is USD; shares are fractions (0.02 is 2%); days are UTC `YYYY-MM-DD`.

use serde::Serialize;

/// An export read, with its format and the provider's documentation of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadFile {
    /// The file, as given.
    pub file: String,
    /// `openai-usage`, `openai-costs`, `anthropic-usage`, `anthropic-costs`,
    /// `openrouter-activity` or `csv`.
    pub format: &'static str,
    /// Where the format is documented.
    pub source: &'static str,
}

/// One model on one day: its tokens priced with the table beside what was billed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillRow {
    /// The UTC day.
    pub day: String,
    /// `provider/model` as the export names it.
    pub model: String,
    /// The price-table entry it was priced with (`None`: the table lacks it).
    pub priced_as: Option<String>,
    /// Requests, when the exports count them.
    pub requests: Option<f64>,
    /// Input tokens at the input price.
    pub uncached_input_tokens: f64,
    /// Cache reads.
    pub cache_read_input_tokens: f64,
    /// Cache writes, 5-minute TTL.
    pub cache_write_5m_input_tokens: f64,
    /// Cache writes, 1-hour TTL.
    pub cache_write_1h_input_tokens: f64,
    /// Output tokens.
    pub output_tokens: f64,
    /// The tokens at the table's prices (service tier, long context and cache TTL as the
    /// export states them), USD; `None` when unpriced.
    pub table_usd: Option<f64>,
    /// The `[pricing.discounts]` share off, USD (≤ 0).
    pub discount_usd: f64,
    /// What `[[pricing.change]]` prices add to the table's, USD.
    pub price_change_usd: f64,
    /// table + discount + price change, USD; `None` when unpriced.
    pub expected_usd: Option<f64>,
    /// What the provider billed, USD; `None` when no cost export covers the row.
    pub billed_usd: Option<f64>,
    /// billed − expected, USD (an unpriced row: its whole bill).
    pub residual_usd: Option<f64>,
    /// residual / billed; `None` without a bill (or a bill of 0).
    pub residual_share: Option<f64>,
    /// Whether |residual| ≤ the band × billed.
    pub within: bool,
    /// What the residual is put down to, in words (discount, dated price, unpriced model,
    /// non-token cost, no cache split), or empty.
    pub attribution: Vec<String>,
}

/// The period's totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BillTotals {
    /// First and last day.
    pub first_day: String,
    /// Last day.
    pub last_day: String,
    /// Billed, USD.
    pub billed_usd: f64,
    /// Expected by the table (with discounts and changes) on the priced rows, USD.
    pub expected_usd: f64,
    /// billed − expected over the rows with both, USD.
    pub residual_usd: f64,
    /// residual / billed of those rows.
    pub residual_share: Option<f64>,
    /// Billed USD on rows within the band.
    pub explained_usd: f64,
    /// explained / billed: the headline.
    pub explained_share: Option<f64>,
    /// Billed USD on rows the table cannot price (a model it lacks, a tier it does not price).
    pub unpriced_billed_usd: f64,
    /// The discounts over the period, USD (≤ 0).
    pub discount_usd: f64,
    /// The price changes over the period, USD.
    pub price_change_usd: f64,
}

/// The scenario's prediction for one day beside the chain's bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioDay {
    /// The UTC day.
    pub day: String,
    /// Requests answered by the chain's models (the exports' counts).
    pub requests: f64,
    /// Billed for the chain's models, USD.
    pub billed_usd: f64,
    /// requests × the scenario's steady cost per request, USD.
    pub predicted_steady_usd: f64,
    /// The incident premium predicted for the day's incident windows, USD (0 without one).
    pub predicted_premium_usd: f64,
    /// steady + premium, USD.
    pub predicted_usd: f64,
    /// (predicted − billed) / billed.
    pub error_share: Option<f64>,
    /// With an incident: billed − requests × the billed cost per request of the days without
    /// one, USD.
    pub billed_excess_usd: Option<f64>,
    /// The incident windows starting this day (names), or empty.
    pub incidents: Vec<String>,
}

/// The scenario held against the bill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioCheck {
    /// The scenario's name.
    pub scenario: String,
    /// The chain compared.
    pub chain: String,
    /// The pattern compared (`sequential`).
    pub pattern: &'static str,
    /// Its models, primary first.
    pub models: Vec<String>,
    /// The steady cost per request the scenario predicts, USD.
    pub steady_per_request_usd: f64,
    /// The billed cost per request on the days without an incident, USD.
    pub billed_per_request_usd: Option<f64>,
    /// Day by day.
    pub days: Vec<ScenarioDay>,
    /// Billed over the period, USD.
    pub billed_usd: f64,
    /// Predicted over the period, USD.
    pub predicted_usd: f64,
    /// (predicted − billed) / billed over the period.
    pub error_share: Option<f64>,
    /// Predicted incident premium over the period, USD.
    pub predicted_premium_usd: f64,
    /// Billed incident excess over the period, USD (the incident days').
    pub billed_excess_usd: Option<f64>,
    /// (predicted premium − billed excess) / billed excess.
    pub premium_error_share: Option<f64>,
}

/// The whole reconciliation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReconcileReport {
    /// The fallcost version.
    pub fallcost_version: &'static str,
    /// The price table: bundled name or path.
    pub pricing: String,
    /// The settings file whose `[pricing]` applied, or `None`.
    pub settings: Option<String>,
    /// The band a row must be within to count as explained (0.02 is ±2%).
    pub band: f64,
    /// The exports read.
    pub files: Vec<ReadFile>,
    /// Model and day rows, by day then model.
    pub rows: Vec<BillRow>,
    /// The period's totals.
    pub totals: BillTotals,
    /// With `--scenario`: the prediction against the bill.
    pub scenario: Option<ScenarioCheck>,
    /// Notes for the reader (more pages to fetch, rows without a bill).
    pub notes: Vec<String>,
}
