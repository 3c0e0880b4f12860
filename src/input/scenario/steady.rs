//! `[steady]` and a chain's `steady = { .. }`: failure rates, billing shares and the error
//! mix, validated.

use super::super::document::{Document, PathSegment, path_string};
use super::super::{check_range, show};
use super::Levels;
use super::file::SteadySpec;
use super::replaced::Replaced;
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

/// Whether a `--set` stated per-link list `list` or its `scalar` at chain `r`'s level
/// (`in_chain`) or the scenario's: a list (or its scalar) a `--set` states is the user's, one
/// value per link of the chain as it is now.
fn stated_by_set(r: &Replaced, list: &str, scalar: &str, in_chain: bool) -> bool {
    [list, scalar].into_iter().any(|f| {
        if in_chain {
            r.set_exactly(&["chain", r.chain, "steady", f])
        } else {
            r.set_exactly(&["steady", f])
        }
    })
}

/// The chain's steady parameters: its own `steady` fields, then the scenario's, then defaults;
/// with `replaced`, the file's per-link lists read by model.
pub(super) fn resolve_steady(
    doc: &Document,
    (top, own): (&SteadySpec, &SteadySpec),
    links: usize,
    chain_index: usize,
    replaced: Option<&Replaced>,
) -> Result<ResolvedSteady, InputError> {
    let d = Steady::default();
    let at = SteadyLevels {
        levels: Levels {
            doc,
            table: "steady",
            chain_index,
        },
        top,
        own,
        links,
        replaced,
    };
    let error_mix = at.error_mix()?;
    let failure_rates = at.per_link(
        "failure_rates",
        "failure_rate",
        |s| (&s.failure_rates, s.failure_rate),
        true,
    )?;
    let trip_rates = at.per_link(
        "timeout_trip_rates",
        "timeout_trip_rate",
        |s| (&s.timeout_trip_rates, s.timeout_trip_rate),
        false,
    )?;
    // Trip rates given anywhere apply to every link; else the latency models derive them.
    let trips_given = own.timeout_trip_rate.is_some()
        || own.timeout_trip_rates.is_some()
        || top.timeout_trip_rate.is_some()
        || top.timeout_trip_rates.is_some();
    let primary_win_rate = at.rate(
        "primary_win_rate",
        |s| s.primary_win_rate,
        d.primary_win_rate,
    )?;
    let win_given = own.primary_win_rate.is_some() || top.primary_win_rate.is_some();
    let shared = Steady {
        error_mix,
        gray_fraction: at.rate("gray_fraction", |s| s.gray_fraction, d.gray_fraction)?,
        gray_output_fraction: at.rate(
            "gray_output_fraction",
            |s| s.gray_output_fraction,
            d.gray_output_fraction,
        )?,
        cancel_output_fraction: at.rate(
            "cancel_output_fraction",
            |s| s.cancel_output_fraction,
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
                at.levels
                    .invalid("fast_fail_s", own.fast_fail_s.is_some(), m)
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

/// A per-link rate's two spellings: its list (`failure_rates`) and its scalar
/// (`failure_rate`), which applies to every link (`scalar_all`) or to the primary.
struct PerLinkField<'f> {
    list: &'f str,
    scalar: &'f str,
    scalar_all: bool,
}

/// Reads a per-link rate's list and scalar (`failure_rates`, `failure_rate`) from one level.
type PerLinkFields = for<'s> fn(&'s SteadySpec) -> (&'s Option<Vec<f64>>, Option<f64>);

/// A chain's own `steady` fields and the scenario's `[steady]`, with where each is written,
/// for a chain of `links` links (whose models a `--set` may have `replaced`).
struct SteadyLevels<'a> {
    levels: Levels<'a>,
    top: &'a SteadySpec,
    own: &'a SteadySpec,
    links: usize,
    replaced: Option<&'a Replaced<'a>>,
}

impl SteadyLevels<'_> {
    /// A rate in [0, 1]: the chain's value, the scenario's, or `default`.
    fn rate(
        &self,
        field: &str,
        get: fn(&SteadySpec) -> Option<f64>,
        default: f64,
    ) -> Result<f64, InputError> {
        let own_v = get(self.own);
        let v = own_v.or(get(self.top)).unwrap_or(default);
        check_range(v, 0.0, 1.0)
            .map(|_| v)
            .map_err(|m| self.levels.invalid(field, own_v.is_some(), m))
    }

    /// A per-link rate (`get` reads its list and scalar from a level). A per-link list wins
    /// over a scalar at the same level; the chain's level wins over the scenario's.
    /// `scalar_all` says whether the scalar applies to every link or the primary.
    fn per_link(
        &self,
        list: &str,
        scalar: &str,
        get: PerLinkFields,
        scalar_all: bool,
    ) -> Result<Vec<f64>, InputError> {
        let (own_l, own_s) = get(self.own);
        let (top_l, top_s) = get(self.top);
        for (l, v, in_chain) in [(own_l, own_s, true), (top_l, top_s, false)] {
            if l.is_some() && v.is_some() {
                return Err(self.levels.invalid(
                    scalar,
                    in_chain,
                    format!("give either {scalar} (one value) or {list} (one per link), not both"),
                ));
            }
        }
        let fields = PerLinkField {
            list,
            scalar,
            scalar_all,
        };
        match (own_l, own_s, top_l, top_s) {
            (Some(l), _, _, _) => self.list_rates(&fields, l, true),
            (None, Some(v), _, _) => self.scalar_rates(scalar, v, true, scalar_all),
            (None, None, Some(l), _) => self.list_rates(&fields, l, false),
            (None, None, None, Some(v)) => self.scalar_rates(scalar, v, false, scalar_all),
            (None, None, None, None) => Ok(vec![0.0; self.links]),
        }
    }

    /// Scalar `v` of field `scalar` for every link (`all`) or for the primary (the others 0).
    fn scalar_rates(
        &self,
        scalar: &str,
        v: f64,
        in_chain: bool,
        all: bool,
    ) -> Result<Vec<f64>, InputError> {
        check_range(v, 0.0, 1.0).map_err(|m| self.levels.invalid(scalar, in_chain, m))?;
        Ok(if all {
            vec![v; self.links]
        } else {
            let mut out = vec![0.0; self.links];
            out[0] = v;
            out
        })
    }

    /// List `l` of field `f.list`: one rate in [0, 1] per link. On a chain whose models a
    /// `--set` replaced, a list of the file gives one per model of the chain as written, and
    /// each link takes its model's ([`SteadyLevels::by_model`]); a list a `--set` states is
    /// one per link of the chain as it is now.
    fn list_rates(
        &self,
        f: &PerLinkField,
        l: &[f64],
        in_chain: bool,
    ) -> Result<Vec<f64>, InputError> {
        let list = f.list;
        let replaced = self
            .replaced
            .filter(|r| !stated_by_set(r, list, f.scalar, in_chain));
        let links = replaced.map_or(self.links, |r| r.written.len());
        if l.len() != links {
            return Err(self.levels.invalid(
                list,
                in_chain,
                format!(
                    "has {} values for a chain of {links} models; give one per model",
                    l.len()
                ),
            ));
        }
        for (i, v) in l.iter().enumerate() {
            check_range(*v, 0.0, 1.0).map_err(|m| {
                let mut p = self.levels.path(list, in_chain);
                p.push(PathSegment::Index(i));
                self.levels.doc.error_at(InputErrorKind::Invalid, &p, m)
            })?;
        }
        match replaced {
            Some(r) => self.by_model(f, l, in_chain, r),
            None => Ok(l.to_vec()),
        }
    }

    /// The file's list `l` (one rate per model of chain `r` as written, checked) read by
    /// model: each link of the chain now takes the rate the list gives its model (by resolved
    /// id, so `gpt-4o` and `openai/gpt-4o` of a LiteLLM table are one model).
    ///
    /// Errors: a model not on the chain as written (the list states no rate for it, and none
    /// is borrowed or taken as 0); a model the chain as written lists twice with two rates.
    fn by_model(
        &self,
        f: &PerLinkField,
        l: &[f64],
        in_chain: bool,
        r: &Replaced,
    ) -> Result<Vec<f64>, InputError> {
        let scalar = path_string(&self.levels.path(f.scalar, in_chain));
        let mut out = Vec::with_capacity(r.now.len());
        for (model, id) in &r.now {
            let mut rates = r
                .written
                .iter()
                .zip(l)
                .filter(|((_, w), _)| w == id)
                .map(|(_, v)| *v);
            let Some(v) = rates.next() else {
                let instead = if f.scalar_all {
                    format!("state one `{scalar}` for every link instead of the list")
                } else {
                    format!(
                        "state `{scalar}` (the primary's) instead of the list, or [latency] models that derive every link's"
                    )
                };
                return Err(self.levels.invalid(
                    f.list,
                    in_chain,
                    format!(
                        "`{model}` is not on chain `{}` as written ({}): the list gives a rate per model of the chain as written, and none for it (a rate is never borrowed or taken as 0); {instead}, or put `{model}` on the chain with its rate",
                        r.chain,
                        r.written_list()
                    ),
                ));
            };
            if let Some(other) = rates.find(|o| *o != v) {
                return Err(self.levels.invalid(
                    f.list,
                    in_chain,
                    format!(
                        "`{model}` is on chain `{}` as written ({}) more than once, with rates {} and {}: the list gives it no one rate; give one rate per model, or state the list for the chain as it is now with --set",
                        r.chain,
                        r.written_list(),
                        show(v),
                        show(other)
                    ),
                ));
            }
            out.push(v);
        }
        Ok(out)
    }

    /// `errors`, the error mix, whole from one level: shares in [0, 1] adding up to 1, and
    /// no `gray_fraction` beside it (its `timeout` share is the gray fraction).
    fn error_mix(&self) -> Result<Option<ErrorMix>, InputError> {
        let (own, top) = (self.own, self.top);
        let Some(e) = own.errors.or(top.errors) else {
            return Ok(None);
        };
        let in_chain = own.errors.is_some();
        let given_gray = if in_chain {
            own.gray_fraction.is_some()
        } else {
            top.gray_fraction.is_some() || own.gray_fraction.is_some()
        };
        if given_gray {
            return Err(self.levels.invalid(
                "gray_fraction",
                own.gray_fraction.is_some(),
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
            return Err(self.levels.invalid(
                "errors",
                in_chain,
                format!(
                    "shares of failures must each be in [0, 1] and add up to 1; they add up to {}",
                    show(sum)
                ),
            ));
        }
        Ok(Some(ErrorMix { shares }))
    }
}
