//! `[policy]` and a chain's `policy = { .. }`: the client policy, validated.

use super::super::document::Document;
use super::super::show;
use super::Levels;
use super::file::{BackoffSpec, PolicySpec, WarmSpec, WarmWord};
use crate::error::InputError;
use crate::model::Policy;
use crate::model::policy::{Backoff, Breaker, ErrorClass, WarmPolicy};

/// The chain's policy: its own `policy` fields, then the scenario's, then defaults.
pub(super) fn resolve_policy(
    doc: &Document,
    top: &PolicySpec,
    own: &PolicySpec,
    chain_index: usize,
) -> Result<Policy, InputError> {
    let d = Policy::default();
    let at = PolicyLevels {
        levels: Levels {
            doc,
            table: "policy",
            chain_index,
        },
        top,
        own,
    };
    let timeout_s = at
        .seconds("timeout_s", own.timeout_s, top.timeout_s, true)?
        .unwrap_or(d.timeout_s);
    let retries = own.retries.or(top.retries).unwrap_or(d.retries);
    if retries > 100 {
        return Err(at.levels.invalid(
            "retries",
            own.retries.is_some(),
            format!("{retries} retries is not a client policy; at most 100"),
        ));
    }
    let retries_by_class = at.retries_by_class(retries)?;
    let backoff = at.backoff(&d.backoff)?;
    let failover_on = match (&own.failover_on, &top.failover_on) {
        (Some(l), _) | (None, Some(l)) => l.iter().map(|c| c.0).collect(),
        (None, None) => d.failover_on.clone(),
    };
    let max_attempts = own.max_attempts.or(top.max_attempts);
    if max_attempts == Some(0) {
        return Err(at.levels.invalid(
            "max_attempts",
            own.max_attempts.is_some(),
            "must be at least 1 attempt",
        ));
    }
    let max_multiplier = own.max_multiplier.or(top.max_multiplier);
    if let Some(m) = max_multiplier
        && !(m.is_finite() && m > 0.0 && m <= 1e6)
    {
        return Err(at.levels.invalid(
            "max_multiplier",
            own.max_multiplier.is_some(),
            format!("must be a ratio > 0, e.g. 1.5; got {}", show(m)),
        ));
    }
    let warm_fallback = match own.warm_fallback.or(top.warm_fallback) {
        None => d.warm_fallback,
        Some(WarmSpec::Word(WarmWord::Always)) => WarmPolicy::Always,
        Some(WarmSpec::Word(WarmWord::Never)) => WarmPolicy::Never,
        Some(WarmSpec::After { after }) => WarmPolicy::After(after),
    };
    let breaker = at.breaker()?;
    let hedge_delay_s = at.hedge_delay_s(timeout_s)?;
    Ok(Policy {
        hedge_delay_s,
        timeout_s,
        retries,
        retries_by_class,
        backoff,
        failover_on,
        max_attempts,
        max_multiplier,
        warm_fallback,
        breaker,
    })
}

/// A chain's own `policy` fields and the scenario's `[policy]`, with where each is written.
struct PolicyLevels<'a> {
    levels: Levels<'a>,
    top: &'a PolicySpec,
    own: &'a PolicySpec,
}

impl PolicyLevels<'_> {
    /// A number of seconds, the chain's value first: in (0, 1e6] if `lo_exclusive`, else
    /// [0, 1e6]; `None` when neither level gives it.
    fn seconds(
        &self,
        field: &str,
        own_v: Option<f64>,
        top_v: Option<f64>,
        lo_exclusive: bool,
    ) -> Result<Option<f64>, InputError> {
        let v = own_v.or(top_v);
        if let Some(x) = v {
            let ok = x.is_finite() && x <= 1e6 && if lo_exclusive { x > 0.0 } else { x >= 0.0 };
            if !ok {
                let lo = if lo_exclusive { "> 0" } else { ">= 0" };
                return Err(self.levels.invalid(
                    field,
                    own_v.is_some(),
                    format!(
                        "must be a number of seconds {lo} and at most 1e6; got {}",
                        show(x)
                    ),
                ));
            }
        }
        Ok(v)
    }

    /// `retries_by_class`: retries per error class. A class the table leaves out gets `retries`
    /// (LiteLLM: a class with no count in retry_policy uses num_retries). The chain's table
    /// replaces the scenario's, whole.
    fn retries_by_class(&self, retries: u32) -> Result<Option<[u32; 6]>, InputError> {
        let by_class_own = self.own.retries_by_class.is_some();
        let Some(spec) = self.own.retries_by_class.or(self.top.retries_by_class) else {
            return Ok(None);
        };
        let mut r = [retries; 6];
        for (class, v) in [
            (ErrorClass::RateLimit, spec.rate_limit),
            (ErrorClass::Overload, spec.overload),
            (ErrorClass::ServerError, spec.server_error),
            (ErrorClass::Timeout, spec.timeout),
        ] {
            if let Some(v) = v {
                if v > 100 {
                    return Err(self.levels.invalid(
                        "retries_by_class",
                        by_class_own,
                        format!(
                            "{} = {v} retries is not a client policy; at most 100",
                            class.as_str()
                        ),
                    ));
                }
                r[class as usize] = v;
            }
        }
        Ok(Some(r))
    }

    /// `backoff`, field by field (the chain's value first, then the scenario's, then `d`'s).
    fn backoff(&self, d: &Backoff) -> Result<Backoff, InputError> {
        let b_own = self.own.backoff;
        let b_top = self.top.backoff;
        let backoff_field = |f: fn(&BackoffSpec) -> Option<f64>| {
            b_own.and_then(|b| f(&b)).or(b_top.and_then(|b| f(&b)))
        };
        let in_chain_backoff = b_own.is_some();
        let base_s = backoff_field(|b| b.base_s).unwrap_or(d.base_s);
        let cap_s = backoff_field(|b| b.cap_s).unwrap_or(d.cap_s);
        for (name, v) in [("base_s", base_s), ("cap_s", cap_s)] {
            if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
                return Err(self.levels.invalid(
                    "backoff",
                    in_chain_backoff,
                    format!(
                        "{name} must be a number of seconds in [0, 1e6]; got {}",
                        show(v)
                    ),
                ));
            }
        }
        if base_s > cap_s {
            return Err(self.levels.invalid(
                "backoff",
                in_chain_backoff,
                format!(
                    "base_s ({}) is above cap_s ({}): every delay would be the cap; use base_s <= cap_s",
                    show(base_s),
                    show(cap_s)
                ),
            ));
        }
        let jitter = b_own
            .and_then(|b| b.jitter)
            .or(b_top.and_then(|b| b.jitter))
            .unwrap_or(d.jitter);
        Ok(Backoff {
            base_s,
            cap_s,
            jitter,
        })
    }

    /// `breaker`, whole from one level: at least one failure, a cooldown in (0, 1e6] seconds.
    fn breaker(&self) -> Result<Option<Breaker>, InputError> {
        let Some(b) = self.own.breaker.or(self.top.breaker) else {
            return Ok(None);
        };
        let in_chain = self.own.breaker.is_some();
        if b.threshold == 0 {
            return Err(self.levels.invalid(
                "breaker",
                in_chain,
                "threshold must be at least 1 failure",
            ));
        }
        if !(b.cooldown_s.is_finite() && b.cooldown_s > 0.0 && b.cooldown_s <= 1e6) {
            return Err(self.levels.invalid(
                "breaker",
                in_chain,
                format!(
                    "cooldown_s must be a number of seconds > 0; got {}",
                    show(b.cooldown_s)
                ),
            ));
        }
        Ok(Some(Breaker {
            threshold: b.threshold,
            cooldown_s: b.cooldown_s,
        }))
    }

    /// `hedge_delay_s`, which must be below the primary's `timeout_s` (seconds).
    fn hedge_delay_s(&self, timeout_s: f64) -> Result<Option<f64>, InputError> {
        let (own, top) = (self.own.hedge_delay_s, self.top.hedge_delay_s);
        let hedge_delay_s = self.seconds("hedge_delay_s", own, top, false)?;
        if let Some(d) = hedge_delay_s
            && d >= timeout_s
        {
            return Err(self.levels.invalid(
                "hedge_delay_s",
                own.is_some(),
                format!(
                    "a hedge sent after {} s never races a primary that times out at {} s; use a delay below timeout_s (e.g. the primary's p95)",
                    show(d),
                    show(timeout_s)
                ),
            ));
        }
        Ok(hedge_delay_s)
    }
}
