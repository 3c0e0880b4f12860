//! `[policy]` and a chain's `policy = { .. }`: the client policy, validated.

use super::super::document::{Document, Segment};
use super::super::show;
use super::file::{BackoffSpec, PolicySpec, WarmSpec, WarmWord};
use super::key;
use crate::error::{InputError, InputErrorKind};
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
    let path = |field: &str, in_chain: bool| -> Vec<Segment> {
        if in_chain {
            vec![
                key("chain"),
                Segment::Index(chain_index),
                key("policy"),
                key(field),
            ]
        } else {
            vec![key("policy"), key(field)]
        }
    };
    let bad = |field: &str, in_chain: bool, msg: String| {
        doc.error_at(InputErrorKind::Invalid, &path(field, in_chain), msg)
    };
    let seconds = |field: &str, own_v: Option<f64>, top_v: Option<f64>, lo_exclusive: bool| {
        let v = own_v.or(top_v);
        if let Some(x) = v {
            let ok = x.is_finite() && x <= 1e6 && if lo_exclusive { x > 0.0 } else { x >= 0.0 };
            if !ok {
                let lo = if lo_exclusive { "> 0" } else { ">= 0" };
                return Err(bad(
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
    };
    let timeout_s =
        seconds("timeout_s", own.timeout_s, top.timeout_s, true)?.unwrap_or(d.timeout_s);
    let retries = own.retries.or(top.retries).unwrap_or(d.retries);
    if retries > 100 {
        return Err(bad(
            "retries",
            own.retries.is_some(),
            format!("{retries} retries is not a client policy; at most 100"),
        ));
    }
    // A class the table leaves out gets `retries` (LiteLLM: a class with no count in
    // retry_policy uses num_retries). The chain's table replaces the scenario's, whole.
    let by_class_own = own.retries_by_class.is_some();
    let retries_by_class = match own.retries_by_class.or(top.retries_by_class) {
        None => None,
        Some(spec) => {
            let mut r = [retries; 6];
            for (class, v) in [
                (ErrorClass::RateLimit, spec.rate_limit),
                (ErrorClass::Overload, spec.overload),
                (ErrorClass::ServerError, spec.server_error),
                (ErrorClass::Timeout, spec.timeout),
            ] {
                if let Some(v) = v {
                    if v > 100 {
                        return Err(bad(
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
            Some(r)
        }
    };
    let b_own = own.backoff;
    let b_top = top.backoff;
    let backoff_field = |f: fn(&BackoffSpec) -> Option<f64>| {
        b_own.and_then(|b| f(&b)).or(b_top.and_then(|b| f(&b)))
    };
    let in_chain_backoff = b_own.is_some();
    let base_s = backoff_field(|b| b.base_s).unwrap_or(d.backoff.base_s);
    let cap_s = backoff_field(|b| b.cap_s).unwrap_or(d.backoff.cap_s);
    for (name, v) in [("base_s", base_s), ("cap_s", cap_s)] {
        if !(v.is_finite() && (0.0..=1e6).contains(&v)) {
            return Err(doc.error_at(
                InputErrorKind::Invalid,
                &path("backoff", in_chain_backoff),
                format!(
                    "{name} must be a number of seconds in [0, 1e6]; got {}",
                    show(v)
                ),
            ));
        }
    }
    if base_s > cap_s {
        return Err(doc.error_at(
            InputErrorKind::Invalid,
            &path("backoff", in_chain_backoff),
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
        .unwrap_or(d.backoff.jitter);
    let failover_on = match (&own.failover_on, &top.failover_on) {
        (Some(l), _) | (None, Some(l)) => l.iter().map(|c| c.0).collect(),
        (None, None) => d.failover_on.clone(),
    };
    let max_attempts = own.max_attempts.or(top.max_attempts);
    if max_attempts == Some(0) {
        return Err(bad(
            "max_attempts",
            own.max_attempts.is_some(),
            "must be at least 1 attempt".into(),
        ));
    }
    let max_multiplier = own.max_multiplier.or(top.max_multiplier);
    if let Some(m) = max_multiplier
        && !(m.is_finite() && m > 0.0 && m <= 1e6)
    {
        return Err(bad(
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
    let breaker = match own.breaker.or(top.breaker) {
        None => None,
        Some(b) => {
            let in_chain = own.breaker.is_some();
            if b.threshold == 0 {
                return Err(bad(
                    "breaker",
                    in_chain,
                    "threshold must be at least 1 failure".into(),
                ));
            }
            if !(b.cooldown_s.is_finite() && b.cooldown_s > 0.0 && b.cooldown_s <= 1e6) {
                return Err(bad(
                    "breaker",
                    in_chain,
                    format!(
                        "cooldown_s must be a number of seconds > 0; got {}",
                        show(b.cooldown_s)
                    ),
                ));
            }
            Some(Breaker {
                threshold: b.threshold,
                cooldown_s: b.cooldown_s,
            })
        }
    };
    let hedge_delay_s = seconds("hedge_delay_s", own.hedge_delay_s, top.hedge_delay_s, false)?;
    if let Some(d) = hedge_delay_s
        && d >= timeout_s
    {
        return Err(bad(
            "hedge_delay_s",
            own.hedge_delay_s.is_some(),
            format!(
                "a hedge sent after {} s never races a primary that times out at {} s; use a delay below timeout_s (e.g. the primary's p95)",
                show(d),
                show(timeout_s)
            ),
        ));
    }
    Ok(Policy {
        hedge_delay_s,
        timeout_s,
        retries,
        retries_by_class,
        backoff: Backoff {
            base_s,
            cap_s,
            jitter,
        },
        failover_on,
        max_attempts,
        max_multiplier,
        warm_fallback,
        breaker,
    })
}
