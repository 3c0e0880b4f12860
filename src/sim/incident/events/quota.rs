//! The quotas of a window's rate-limited links (`[capacity]`, MODEL.md §11): one
//! [`Quota`] per model, asked by every attempt on its links before it is made.

use crate::model::Chain;
use crate::model::cost::Request;
use crate::model::policy::ErrorClass;
use crate::sim::incident::fast::IncidentLink;
use crate::sim::limiter::Quota;

use super::{Failed, Live, Window, record};

/// Per cache slot (one per model) of `links`, the model's quota for `request`'s tokens
/// (prompt + output); `None`: unlimited.
pub(super) fn quotas(
    request: &Request,
    chain: &Chain,
    links: &[IncidentLink],
) -> Vec<Option<Quota>> {
    let tokens = request.tokens().ceil() as u64;
    let mut quotas = vec![None; links.len()];
    for l in links {
        if let Some(c) = &chain.links[l.role.index].capacity {
            quotas[l.slot] = Some(Quota::new(c.admitted_per_minute(tokens), c));
        }
    }
    quotas
}

impl Window<'_> {
    /// The attempt at `t` on live link `l` refused by its quota (a 429: fast, billed 0,
    /// recorded for the breaker as a provider-side failure); `None` when admitted or unlimited.
    pub(super) fn over_quota(
        &self,
        l: &IncidentLink,
        t: f64,
        probe: bool,
        live: &mut Live,
    ) -> Option<Failed> {
        if l.role.dead {
            return None;
        }
        let quota = live.quotas.get_mut(l.slot)?.as_mut()?;
        if quota.admit(t, live.rng) {
            return None;
        }
        let by = &mut live.run.rate_limited_by;
        if by.len() <= l.role.index {
            by.resize(l.role.index + 1, 0.0);
        }
        by[l.role.index] += 1.0;
        let secs = self.sim.fast_fail_s;
        record(&live.breakers, &mut live.sched, l, t + secs, probe, false);
        Some(Failed {
            class: ErrorClass::RateLimit,
            usd: 0.0,
            secs,
            down_cold: false,
        })
    }
}
