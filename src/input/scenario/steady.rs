//! `[steady]` and a chain's `steady = { .. }`: failure rates, billing shares and the error
//! mix, validated.

use super::super::document::{Document, Segment};
use super::super::{check_range, show};
use super::file::SteadySpec;
use super::key;
use crate::error::{InputError, InputErrorKind};
use crate::model::Steady;
use crate::model::policy::ErrorMix;

/// A chain's `steady` settings resolved: the parameters its links share, and the per-link
/// rates and w as given, which [`crate::model::ChainDraft::build`] completes from the latency models.
pub(super) struct ResolvedSteady {
    /// The shared parameters (their `primary_win_rate` is set by [`crate::model::ChainDraft::build`]).
    pub(super) shared: Steady,
    /// Per link, the failure rate.
    pub(super) failure_rates: Vec<f64>,
    /// Per link, the trip rate, when the scenario gives `timeout_trip_rate(s)` at any level.
    pub(super) trip_rates: Option<Vec<f64>>,
    /// w, when the scenario gives `primary_win_rate` at any level.
    pub(super) primary_win_rate: Option<f64>,
}

/// The chain's steady parameters: its own `steady` fields, then the scenario's, then defaults.
pub(super) fn resolve_steady(
    doc: &Document,
    top: &SteadySpec,
    own: &SteadySpec,
    links: usize,
    chain_index: usize,
) -> Result<ResolvedSteady, InputError> {
    let d = Steady::default();
    // The path of a field as the user wrote it: in the chain's table if set there.
    let path = |field: &str, in_chain: bool| -> Vec<Segment> {
        if in_chain {
            vec![
                key("chain"),
                Segment::Index(chain_index),
                key("steady"),
                key(field),
            ]
        } else {
            vec![key("steady"), key(field)]
        }
    };
    let rate = |field: &str, own_v: Option<f64>, top_v: Option<f64>, default: f64| {
        let v = own_v.or(top_v).unwrap_or(default);
        check_range(v, 0.0, 1.0)
            .map(|_| v)
            .map_err(|m| doc.error_at(InputErrorKind::Invalid, &path(field, own_v.is_some()), m))
    };
    // A per-link list wins over a scalar at the same level; the chain's level wins over the
    // scenario's. `scalar_all` says whether the scalar applies to every link or the primary.
    let per_link = |list: &str,
                    scalar: &str,
                    own_l: &Option<Vec<f64>>,
                    own_s: Option<f64>,
                    top_l: &Option<Vec<f64>>,
                    top_s: Option<f64>,
                    scalar_all: bool|
     -> Result<Vec<f64>, InputError> {
        let from_scalar = |v: f64, in_chain: bool| -> Result<Vec<f64>, InputError> {
            check_range(v, 0.0, 1.0)
                .map_err(|m| doc.error_at(InputErrorKind::Invalid, &path(scalar, in_chain), m))?;
            Ok(if scalar_all {
                vec![v; links]
            } else {
                let mut out = vec![0.0; links];
                out[0] = v;
                out
            })
        };
        let from_list = |l: &Vec<f64>, in_chain: bool| -> Result<Vec<f64>, InputError> {
            if l.len() != links {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path(list, in_chain),
                    format!(
                        "has {} values for a chain of {links} models; give one per model",
                        l.len()
                    ),
                ));
            }
            for (i, v) in l.iter().enumerate() {
                check_range(*v, 0.0, 1.0).map_err(|m| {
                    let mut p = path(list, in_chain);
                    p.push(Segment::Index(i));
                    doc.error_at(InputErrorKind::Invalid, &p, m)
                })?;
            }
            Ok(l.clone())
        };
        for (l, v, in_chain) in [(own_l, own_s, true), (top_l, top_s, false)] {
            if l.is_some() && v.is_some() {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path(scalar, in_chain),
                    format!("give either {scalar} (one value) or {list} (one per link), not both"),
                ));
            }
        }
        match (own_l, own_s, top_l, top_s) {
            (Some(l), _, _, _) => from_list(l, true),
            (None, Some(v), _, _) => from_scalar(v, true),
            (None, None, Some(l), _) => from_list(l, false),
            (None, None, None, Some(v)) => from_scalar(v, false),
            (None, None, None, None) => Ok(vec![0.0; links]),
        }
    };
    let error_mix = match (own.errors, top.errors) {
        (Some(e), _) | (None, Some(e)) => {
            let in_chain = own.errors.is_some();
            let given_gray = if in_chain {
                own.gray_fraction.is_some()
            } else {
                top.gray_fraction.is_some() || own.gray_fraction.is_some()
            };
            if given_gray {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path("gray_fraction", own.gray_fraction.is_some()),
                    "give either gray_fraction or errors (whose `timeout` share is the gray fraction), not both".to_string(),
                ));
            }
            let shares = [
                e.rate_limit,
                e.overload,
                e.server_error,
                e.timeout,
                e.client,
                e.quota,
            ];
            let sum: f64 = shares.iter().sum();
            if shares
                .iter()
                .any(|x| !(x.is_finite() && (0.0..=1.0).contains(x)))
                || (sum - 1.0).abs() > 1e-9
            {
                return Err(doc.error_at(
                    InputErrorKind::Invalid,
                    &path("errors", in_chain),
                    format!("shares of failures must each be in [0, 1] and add up to 1; they add up to {}", show(sum)),
                ));
            }
            Some(ErrorMix { shares })
        }
        (None, None) => None,
    };
    let failure_rates = per_link(
        "failure_rates",
        "failure_rate",
        &own.failure_rates,
        own.failure_rate,
        &top.failure_rates,
        top.failure_rate,
        true,
    )?;
    let trip_rates = per_link(
        "timeout_trip_rates",
        "timeout_trip_rate",
        &own.timeout_trip_rates,
        own.timeout_trip_rate,
        &top.timeout_trip_rates,
        top.timeout_trip_rate,
        false,
    )?;
    // Trip rates given anywhere apply to every link; else the latency models derive them.
    let trips_given = own.timeout_trip_rate.is_some()
        || own.timeout_trip_rates.is_some()
        || top.timeout_trip_rate.is_some()
        || top.timeout_trip_rates.is_some();
    let primary_win_rate = rate(
        "primary_win_rate",
        own.primary_win_rate,
        top.primary_win_rate,
        d.primary_win_rate,
    )?;
    let win_given = own.primary_win_rate.is_some() || top.primary_win_rate.is_some();
    let shared = Steady {
        error_mix,
        gray_fraction: rate(
            "gray_fraction",
            own.gray_fraction,
            top.gray_fraction,
            d.gray_fraction,
        )?,
        gray_output_fraction: rate(
            "gray_output_fraction",
            own.gray_output_fraction,
            top.gray_output_fraction,
            d.gray_output_fraction,
        )?,
        cancel_output_fraction: rate(
            "cancel_output_fraction",
            own.cancel_output_fraction,
            top.cancel_output_fraction,
            d.cancel_output_fraction,
        )?,
        abandoned_billing: own
            .abandoned_billing
            .or(top.abandoned_billing)
            .unwrap_or(d.abandoned_billing),
        primary_win_rate,
        fast_fail_s: {
            let v = own.fast_fail_s.or(top.fast_fail_s).unwrap_or(d.fast_fail_s);
            check_range(v, 0.0, 1e6).map_err(|m| {
                doc.error_at(
                    InputErrorKind::Invalid,
                    &path("fast_fail_s", own.fast_fail_s.is_some()),
                    m,
                )
            })?;
            v
        },
        win_from_latency: false,
    };
    Ok(ResolvedSteady {
        shared,
        failure_rates,
        trip_rates: trips_given.then_some(trip_rates),
        primary_win_rate: win_given.then_some(primary_win_rate),
    })
}
