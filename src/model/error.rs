//! The model layer's one error type, [`ModelError`]: a timeline that is not valid, or a
//! price the table in use lacks. The input layer places it in its file (an
//! [`crate::error::InputError`]).

/// The model layer's error: a problem with a timeline, or a price the table in use lacks.
/// For a timeline, `outage` is the outage's index (0-based, file order) and the field names are
/// the `[[incident.outage]]` keys, so the input layer only adds file and line; a missing price
/// names the model and what the table lacks (an unknown price is never borrowed).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A model is billed at a service tier the table does not price for it.
    #[error(
        "`{model}` has no {service} price in the table (it has: {have}); an unknown price is never borrowed from another tier"
    )]
    NoServicePrice {
        /// The model id.
        model: String,
        /// The tier billed (`batch`, `priority`, ...).
        service: &'static str,
        /// The tiers the table prices, comma-separated.
        have: String,
    },
    /// A 1-hour cache TTL on a model whose table has no 1-hour write price.
    #[error(
        "`{model}` has no 1-hour cache-write price in the table; use cache_ttl = \"5m\" or a table with cache_creation_input_token_cost_above_1hr"
    )]
    NoHourWrite {
        /// The model id.
        model: String,
    },
    /// A billed usage line needs a price the table lacks (a tier, the long context, a 1-hour
    /// write).
    #[error("the table has no {what} price for {model}{note}")]
    TableLacks {
        /// What is not priced: `batch`, `long-context (above 200k tokens)`, `1-hour cache-write`.
        what: String,
        /// The model id.
        model: String,
        /// What in the line needs it, e.g. ` (cache_write_1h)`, or empty.
        note: &'static str,
    },
    /// A model with no input or output rate.
    #[error("no {rate} price for {model}")]
    NoRate {
        /// `input` or `output`.
        rate: &'static str,
        /// The model id.
        model: String,
    },
    /// The window is not a finite positive number of seconds.
    #[error("incident.duration: must be a finite duration > 0; got {0}s")]
    Window(f64),
    /// `start`, `duration` or `latency_factor` is not a finite number in its range.
    #[error("outage[{outage}].{field}: {message}")]
    Field {
        /// The outage's index.
        outage: usize,
        /// `start`, `duration` or `latency_factor`.
        field: &'static str,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The outage starts at or after the window's end D.
    #[error(
        "outage[{outage}].start: the outage starts at {start_s}s, at or after the window's end (the window is [0s, {window_s}s]); start must lie in the window"
    )]
    StartsAfterWindow {
        /// The outage's index.
        outage: usize,
        /// Its start, seconds from the window's start.
        start_s: f64,
        /// The window's length D, seconds.
        window_s: f64,
    },
    /// The outage ends after the window's end D.
    #[error(
        "outage[{outage}].{field}: the outage runs from {start_s}s to {end_s}s, outside the window [0s, {window_s}s]; start and start + duration must lie in the window"
    )]
    OutsideWindow {
        /// The outage's index.
        outage: usize,
        /// `start` or `duration`, the one that puts it outside.
        field: &'static str,
        /// Its start, seconds.
        start_s: f64,
        /// Its end, seconds.
        end_s: f64,
        /// D, seconds.
        window_s: f64,
    },
    /// The error rate is outside [0, 1].
    #[error("outage[{outage}].error_rate: must be in [0, 1]; got {value}")]
    ErrorRate {
        /// The outage's index.
        outage: usize,
        /// The rate given.
        value: f64,
    },
    /// Two outages of one provider (or of one model and its provider) overlap in time.
    #[error(
        "outage[{second}].start: overlaps outage[{first}] ({target}, until {first_end_s}s); outages of one provider must not overlap: join them into one, or start this one at or after {first_end_s}s"
    )]
    Overlap {
        /// The earlier outage's index.
        first: usize,
        /// The later one's index.
        second: usize,
        /// The earlier outage's target.
        target: String,
        /// Where the earlier one ends, seconds.
        first_end_s: f64,
    },
}

impl ModelError {
    /// The field path the input layer names for a timeline's problem (`outage[1].start`,
    /// `incident.duration`); `None` for a missing price.
    pub fn field(&self) -> Option<String> {
        Some(match self {
            ModelError::Window(_) => "incident.duration".into(),
            ModelError::Field { outage, field, .. } => format!("outage[{outage}].{field}"),
            ModelError::OutsideWindow { outage, field, .. } => {
                format!("outage[{outage}].{field}")
            }
            ModelError::StartsAfterWindow { outage, .. } => format!("outage[{outage}].start"),
            ModelError::ErrorRate { outage, .. } => format!("outage[{outage}].error_rate"),
            ModelError::Overlap { second, .. } => format!("outage[{second}].start"),
            ModelError::NoServicePrice { .. }
            | ModelError::NoHourWrite { .. }
            | ModelError::TableLacks { .. }
            | ModelError::NoRate { .. } => return None,
        })
    }

    /// The index of the outage at fault, if one is.
    pub fn outage(&self) -> Option<usize> {
        match self {
            ModelError::Window(_)
            | ModelError::NoServicePrice { .. }
            | ModelError::NoHourWrite { .. }
            | ModelError::TableLacks { .. }
            | ModelError::NoRate { .. } => None,
            ModelError::Field { outage, .. }
            | ModelError::OutsideWindow { outage, .. }
            | ModelError::StartsAfterWindow { outage, .. }
            | ModelError::ErrorRate { outage, .. } => Some(*outage),
            ModelError::Overlap { second, .. } => Some(*second),
        }
    }
}
