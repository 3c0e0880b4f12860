//! The figures of a report, each declared once (the `figures!` macro) with its key, unit and meaning.
//!
//! A figure set (`SteadyFigures<V>`, `IncidentFigures<V>`) is filled with plain values by the
//! analytic engine (`V = f64`) and with estimates by the Monte Carlo engine (`V = MeanCi`: mean
//! and 95% interval). Everything that lists figures walks the declaration: the JSON keys
//! (`KEY`, and `KEY_ci95` for an estimate: the [`Serialize`] impl), the CSV columns and cells
//! ([`Entry`], via `visit`), the finite-number check (`Report::first_non_finite`) and the
//! blending of traffic-share rows (`combine`, generic over the value type).
//!
//! Adding a figure: one line here, its value in the analytic engine (`model`, the outcome's
//! `figures()`), its accumulation in the simulator (`sim`, the tally's `sums()`).

use serde::Serialize;
use serde::ser::SerializeMap;

/// A 95% confidence interval `[lo, hi]`, in the unit of its figure.
pub type Ci = [f64; 2];

/// One figure's declaration: how it is named and what it means.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// Its key in JSON and CSV (`cost_per_1k_usd`); an estimate adds `KEY_ci95`.
    pub key: &'static str,
    /// Its unit (`USD per 1,000 requests`).
    pub unit: &'static str,
    /// What it means (the field's doc comment).
    pub meaning: &'static str,
    /// The figure per unit of what the engines compute it from: 1,000 for a figure per 1,000
    /// requests (the engines work per request), else 1.
    pub scale: f64,
    /// Whether the Monte Carlo estimates it (a figure) or not (an exact number, the same in
    /// both engines: [`Entry::Exact`]; or a non-numeric entry: [`Entry::Text`]).
    pub estimated: bool,
    /// A list entry (`answered_by`): its CSV column comes after the set's other columns.
    pub list: bool,
}

/// A declared entry that is not a number with an interval (`attempts_max`, `answered_by`):
/// serialised as its own JSON value, one text cell in CSV, and not combined by the
/// declaration (`combine` leaves it at its default; the caller sets it).
pub trait Extra: Serialize + Default {
    /// Its CSV cell (before formula guarding).
    fn text(&self) -> String;
}

impl Extra for u32 {
    fn text(&self) -> String {
        self.to_string()
    }
}

/// A Monte Carlo estimate as reported: the mean and its 95% interval, in the figure's unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanCi {
    /// The simulated mean.
    pub mean: f64,
    /// Its 95% interval.
    pub ci95: Ci,
}

/// The value type of a figure set: `f64` (analytic) or [`MeanCi`] (Monte Carlo).
pub trait Value: Copy {
    /// The suffixes of this value's CSV columns after `KEY`: none for `f64`; `_ci95_lo` and
    /// `_ci95_hi` for an estimate.
    const CSV_SUFFIXES: &'static [&'static str];

    /// Its numbers, in CSV column order: the value; the mean, low and high end.
    fn numbers(&self) -> Vec<f64>;

    /// Write figure `key` holding `value` into a JSON map: `KEY` (and `KEY_ci95` for an
    /// estimate), `null` for `None`.
    fn serialize_entries<M: SerializeMap>(
        value: Option<&Self>,
        key: &'static str,
        map: &mut M,
    ) -> Result<(), M::Error>;
}

impl Value for f64 {
    const CSV_SUFFIXES: &'static [&'static str] = &[];

    fn numbers(&self) -> Vec<f64> {
        vec![*self]
    }

    fn serialize_entries<M: SerializeMap>(
        value: Option<&Self>,
        key: &'static str,
        map: &mut M,
    ) -> Result<(), M::Error> {
        map.serialize_entry(key, &value)
    }
}

impl Value for MeanCi {
    const CSV_SUFFIXES: &'static [&'static str] = &["_ci95_lo", "_ci95_hi"];

    fn numbers(&self) -> Vec<f64> {
        vec![self.mean, self.ci95[0], self.ci95[1]]
    }

    fn serialize_entries<M: SerializeMap>(
        value: Option<&Self>,
        key: &'static str,
        map: &mut M,
    ) -> Result<(), M::Error> {
        map.serialize_entry(key, &value.map(|v| v.mean))?;
        map.serialize_entry(&format!("{key}_ci95"), &value.map(|v| v.ci95))
    }
}

/// One entry of a figure set, as `visit` hands it out.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry<'a, V> {
    /// A figure both engines compute: its value, `None` where it does not apply (a ratio to a
    /// free primary).
    Figure(Option<&'a V>),
    /// A figure that is not random (the same in both engines), e.g. the healthy-primary bill:
    /// a plain number, absent where the set does not carry it.
    Exact(Option<f64>),
    /// A non-numeric entry ([`Extra`]): its CSV cell.
    Text(String),
}

/// Declare a figure set: a struct generic over its [`Value`] type, with one field per figure,
/// and its descriptors, serialisation, visitor and combination.
///
/// Field kinds: `fig` (a figure: `V`), `opt` (a figure that may not apply: `Option<V>`, `null`
/// in JSON then), `skip` (the same, absent from JSON when `None`), `exact` (a number without an
/// interval: `Option<f64>`, absent from JSON when `None`), and `extra` / `list` (an [`Extra`]
/// value of its own type, e.g. `u32`; `list`: a list whose CSV column goes last). Each field is `KIND name: TYPE = "unit", scale;` (the type spelled out: `V`, `Option<V>`, `Option<f64>`) after its doc comment (the meaning).
macro_rules! figures {
    (@estimated exact) => { false };
    (@estimated extra) => { false };
    (@estimated list) => { false };
    (@estimated $kind:ident) => { true };
    (@list list) => { true };
    (@list $kind:ident) => { false };
    (@entry fig, $x:expr) => { Entry::Figure(Some($x)) };
    (@entry opt, $x:expr) => { Entry::Figure($x.as_ref()) };
    (@entry skip, $x:expr) => { Entry::Figure($x.as_ref()) };
    (@entry exact, $x:expr) => { Entry::Exact(*$x) };
    (@entry extra, $x:expr) => { Entry::Text(Extra::text($x)) };
    (@entry list, $x:expr) => { Entry::Text(Extra::text($x)) };
    (@ser fig, $map:expr, $key:expr, $x:expr) => { V::serialize_entries(Some($x), $key, $map)? };
    (@ser opt, $map:expr, $key:expr, $x:expr) => { V::serialize_entries($x.as_ref(), $key, $map)? };
    (@ser skip, $map:expr, $key:expr, $x:expr) => {
        if let Some(x) = $x {
            V::serialize_entries(Some(x), $key, $map)?;
        }
    };
    (@ser extra, $map:expr, $key:expr, $x:expr) => { $map.serialize_entry($key, $x)? };
    (@ser list, $map:expr, $key:expr, $x:expr) => { $map.serialize_entry($key, $x)? };
    (@ser exact, $map:expr, $key:expr, $x:expr) => {
        if let Some(x) = $x {
            $map.serialize_entry($key, x)?;
        }
    };
    (@combine fig, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        $figure($fig, &$parts.iter().map(|(w, p)| (*w, &p.$name)).collect::<Vec<_>>())
    };
    (@combine extra, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {{
        let _ = $fig;
        Default::default()
    }};
    (@combine list, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {{
        let _ = $fig;
        Default::default()
    }};
    (@combine skip, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        figures!(@combine opt, $parts, $fig, $name, $figure, $exact)
    };
    (@combine opt, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        $parts
            .iter()
            .map(|(w, p)| p.$name.as_ref().map(|x| (*w, x)))
            .collect::<Option<Vec<_>>>()
            .map(|xs| $figure($fig, &xs))
    };
    (@combine exact, $parts:expr, $fig:expr, $name:ident, $figure:expr, $exact:expr) => {
        $parts
            .iter()
            .map(|(w, p)| p.$name.map(|x| (*w, x)))
            .collect::<Option<Vec<_>>>()
            .and_then(|xs| $exact($fig, &xs))
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident, $table:ident {
            $(
                $(#[doc = $doc:literal])*
                $kind:ident $field:ident : $ty:ty = $unit:literal, $scale:literal;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name<V> {
            $(
                $(#[doc = $doc])*
                #[doc = concat!("\n\nUnit: ", $unit, ".")]
                pub $field: $ty,
            )*
        }

        #[doc = concat!("The figures of [`", stringify!($name), "`], in declaration order.")]
        pub const $table: &[Figure] = &[
            $(Figure {
                key: stringify!($field),
                unit: $unit,
                meaning: concat!($($doc),*),
                scale: $scale,
                estimated: figures!(@estimated $kind),
                list: figures!(@list $kind),
            },)*
        ];

        impl<V: Value> $name<V> {
            /// Hand every entry to `f` with its declaration, in declaration order.
            pub fn visit<'a>(&'a self, mut f: impl FnMut(&'static Figure, Entry<'a, V>)) {
                let mut figures = $table.iter();
                $(
                    f(
                        figures.next().expect("one descriptor per field"),
                        figures!(@entry $kind, &self.$field),
                    );
                )*
            }
        }

        impl<V> $name<V> {
            /// Combine the sets of several parts (one chain's own row: one part; a blended
            /// row: every chain, with its weight) figure by figure: `figure` combines a
            /// figure's weighted values, `exact` an exact number's. A figure that some part
            /// lacks is `None`.
            #[allow(unused_mut, unused_variables)] // a set without exact numbers
            pub fn combine<S>(
                parts: &[(f64, &$name<S>)],
                mut figure: impl FnMut(&'static Figure, &[(f64, &S)]) -> V,
                mut exact: impl FnMut(&'static Figure, &[(f64, f64)]) -> Option<f64>,
            ) -> $name<V> {
                let mut figures = $table.iter();
                $(
                    let fig = figures.next().expect("one descriptor per field");
                    let $field = figures!(@combine $kind, parts, fig, $field, figure, exact);
                )*
                $name { $($field,)* }
            }
        }

        impl<V: Value> Serialize for $name<V> {
            fn serialize<Se: serde::Serializer>(&self, serializer: Se) -> Result<Se::Ok, Se::Error> {
                let mut map = serializer.serialize_map(None)?;
                $(
                    figures!(@ser $kind, &mut map, stringify!($field), &self.$field);
                )*
                map.end()
            }
        }
    };
}

figures! {
    /// The steady-state figures of a row (MODEL.md §10), per 1,000 requests: the analytic
    /// engine's expectations (`V = f64`) or the Monte Carlo's means with their intervals
    /// (`V = MeanCi`).
    pub struct SteadyFigures, STEADY_FIGURES {
        /// Expected USD per 1,000 requests.
        fig cost_per_1k_usd: V = "USD per 1,000 requests", 1000.0;
        /// The healthy, warm primary alone, USD per 1,000 requests (not random: the analytic
        /// rows only).
        exact baseline_per_1k_usd: Option<f64> = "USD per 1,000 requests", 1000.0;
        /// cost / baseline − 1 (0.0003 for +0.03%); `null` for a free primary.
        opt vs_baseline: Option<V> = "ratio", 1.0;
        /// Requests per 1,000 that fail on every link tried.
        fig failed_per_1k: V = "requests per 1,000", 1000.0;
        /// Attempts per 1,000 requests that did not produce the answer (failures, hedge losers).
        fig wasted_attempts_per_1k: V = "attempts per 1,000 requests", 1000.0;
        /// USD per 1,000 requests spent on those attempts.
        fig wasted_per_1k_usd: V = "USD per 1,000 requests", 1000.0;
    }
}

figures! {
    /// The incident figures of a row (MODEL.md §6, §10), over the outage window: the analytic
    /// engine's expectations (`V = f64`) or the Monte Carlo's means over its windows with their
    /// intervals (`V = MeanCi`).
    pub struct IncidentFigures, INCIDENT_FIGURES {
        /// window + cold starts + fail-back writes.
        fig total_usd: V = "USD", 1.0;
        /// The primary-alone bill for the same requests, healthy and warm (not random).
        exact normal_usd: Option<f64> = "USD", 1.0;
        /// total / normal; `null` for a free primary.
        opt multiplier: Option<V> = "ratio", 1.0;
        /// The window's requests at warm prices, failed attempts included.
        fig window_usd: V = "USD", 1.0;
        /// Premium of sessions' first requests on a cold fallback.
        fig cold_start_usd: V = "USD", 1.0;
        /// Premium of rewriting the primary's cache on the way back.
        fig failback_usd: V = "USD", 1.0;
        /// Requests that failed on every link (expected count).
        fig failed_requests: V = "requests", 1.0;
        /// Attempts that did not produce the answer (expected count).
        fig wasted_attempts: V = "attempts", 1.0;
        /// USD spent on those attempts (included in `window_usd`).
        fig wasted_usd: V = "USD", 1.0;
        /// Sessions that started cold on a fallback (expected count).
        fig cold_starts: V = "sessions", 1.0;
        /// Sessions that rewrite the primary's cache on the way back.
        fig failback_writes: V = "sessions", 1.0;
        /// What the incident costs beyond the normal bill: total − normal (window premium,
        /// cold starts and fail-back writes; negative when the fallback is cheaper).
        fig excess_usd: V = "USD", 1.0;
    }
}

figures! {
    /// The Monte Carlo figures of a steady-state row under a policy (MODEL.md §8), each with its
    /// 95% interval as `KEY_ci95` (`V = MeanCi`). A blended row has them when every chain has a
    /// policy: means and intervals as in [`SteadyFigures`], `attempts_max` the largest of the
    /// chains', `answered_by` merged by model, no `dead_time_p99_s`.
    pub struct SteadyPolicyFigures, STEADY_POLICY_FIGURES {
        /// Mean attempts per request.
        fig attempts_per_request: V = "attempts per request", 1.0;
        /// The most attempts any simulated request made.
        extra attempts_max: u32 = "attempts", 1.0;
        /// Mean seconds per request in failed attempts and backoff before the answer (or error).
        fig dead_time_mean_s: V = "seconds per request", 1.0;
        /// 99th-percentile dead time (0 when fewer than 1% of requests wait at all). `None`
        /// (absent in JSON) on the blended traffic-share rows: the policy simulator keeps its
        /// dead-time histograms to itself, and a mixture's percentile is not the weighted mean
        /// of the chains' percentiles.
        exact dead_time_p99_s: Option<f64> = "seconds", 1.0;
        /// Share of requests answered by each model of the chain, in chain order (CSV:
        /// `model=share;…`).
        list answered_by: Vec<Answered> = "share of all requests", 1.0;
        /// Requests per 1,000 stopped by the call cap.
        fig call_cap_hits_per_1k: V = "requests per 1,000", 1000.0;
        /// Requests per 1,000 that reached a fallback after one the cost cap skipped.
        fig cost_cap_hits_per_1k: V = "requests per 1,000", 1000.0;
    }
}

figures! {
    /// The Monte Carlo figures of an incident row under a policy, each with its 95% interval as
    /// `KEY_ci95` (`V = MeanCi`): per window unless stated. A blended row weights the dead time
    /// per request by traffic share, adds up the attempts on the dead provider, and has no
    /// breaker figures.
    pub struct IncidentPolicyFigures, INCIDENT_POLICY_FIGURES {
        /// Mean seconds per request in failed attempts and backoff (hedges: the slower failed
        /// leg included).
        fig dead_time_mean_s: V = "seconds per request", 1.0;
        /// Attempts sent to the dead provider.
        fig dead_provider_attempts: V = "attempts", 1.0;
        /// With a circuit breaker: half-open probes sent. `None` (absent) on a blended row:
        /// each chain's breaker is simulated apart, so their sum would describe no breaker.
        skip breaker_probes: Option<V> = "probes", 1.0;
        /// With a circuit breaker: seconds it was open within the window (absent on a blended
        /// row, as `breaker_probes`).
        skip breaker_open_s: Option<V> = "seconds", 1.0;
        /// With a circuit breaker on an incident timeline: times the breakers opened from closed (a partial outage makes one flap); absent in the shorthand (its dead provider's opens once) and on a blended row.
        skip breaker_opens: Option<V> = "openings", 1.0;
    }
}
/// The share of requests one model answered.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Answered {
    /// The model, `provider/model`.
    pub model: String,
    /// Share of all requests, in [0, 1].
    pub share: f64,
}

impl Extra for Vec<Answered> {
    /// `model=share` per model, `;`-separated.
    fn text(&self) -> String {
        let parts: Vec<String> = self
            .iter()
            .map(|a| format!("{}={}", a.model, a.share))
            .collect();
        parts.join(";")
    }
}
