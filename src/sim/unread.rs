//! The settings the incident event simulator ([`super::incident::events`]) never reads for a
//! pattern, so that simulations which differ only in them are one simulation: `fallcost tune`
//! runs each such group's stopping rule once ([`crate::ops::tune`]).
//!
//! Read off the simulator, and checked bit for bit on random chains and timelines (the tests
//! below):
//!
//! - **a hedged pattern whose chain allows at most two links** (the two legs, no link after
//!   them): a leg is one attempt, never retried, so the retries, the retries by class and the
//!   backoff are read only by an attempt in sequence after the legs, and there is none. The
//!   warm-fallback policy is read only for a link that is not warm from the start, and both
//!   legs are (the primary, and the second leg, which receives every request);
//! - **no-fallback off a timeline**: only the primary is tried, warm from the start; the
//!   warm-fallback policy moves only its session cache's bookkeeping, which off a timeline
//!   nothing reads (on one, the primary's cold starts read it). With fast failures the
//!   policy's timeout is not read either: every attempt is on the primary's provider, down,
//!   and fails in `fast_fail_s`.

use crate::model::cost::Request;
use crate::model::policy::allowed_links;
use crate::model::{Chain, FailureMode, Incident, Pattern, Policy};

/// `chain` with the settings the event simulator does not read on `pattern` in `incident`
/// (see the module doc) set to [`Policy::default`]'s: its simulation is bit for bit the
/// chain's own.
pub fn canonical(request: &Request, chain: &Chain, incident: &Incident, pattern: Pattern) -> Chain {
    let mut c = chain.clone();
    let default = Policy::default();
    let p = &mut c.policy;
    let legs_only = pattern.is_hedged() && allowed_links(request, chain).len() <= 2;
    if legs_only {
        p.retries = default.retries;
        p.retries_by_class = default.retries_by_class;
        p.backoff = default.backoff;
    }
    let primary_only = pattern == Pattern::NoFallback && incident.timeline.is_none();
    if legs_only || primary_only {
        p.warm_fallback = default.warm_fallback;
    }
    if primary_only && incident.failure == FailureMode::Fast {
        p.timeout_s = default.timeout_s;
    }
    c
}

/// A key equal for two (request, chain, incident, pattern) exactly when their incident
/// simulations are the same one: the inputs' `Debug` text with the chain [`canonical`] and its
/// name left out (every field written; floats round-trip exactly). The same simulation, not
/// always the same stopping rule's figures: where the breaker is inert
/// ([`crate::model::incident::inert_breaker`], which reads the retries and the timeout) the
/// rule's bill is the closed forms' ([`super::expected::inert_bill`]), so a rule is shared only
/// between candidates whose breakers are not inert.
pub fn key(request: &Request, chain: &Chain, incident: &Incident, pattern: Pattern) -> String {
    let c = Chain {
        name: String::new(),
        ..canonical(request, chain, incident, pattern)
    };
    format!("{request:?}|{c:?}|{incident:?}|{pattern:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::policy::{Backoff, ErrorClass, Jitter, WarmPolicy};
    use crate::sim::McOptions;
    use crate::sim::expected::tests::{random_case, scoped_case};
    use crate::sim::incident::events::simulate;
    use crate::sim::rng::{chunk_rng, uniform};

    /// `chain` with the settings [`canonical`] may drop changed at random, one group at a
    /// time: the retries (count, by class, backoff), the warm policy, the timeout.
    fn variants(chain: &Chain, seed: u64) -> Vec<Chain> {
        let mut rng = chunk_rng(seed, 7, 0);
        let mut u = || uniform(&mut rng);
        let mut retries = chain.clone();
        retries.policy.retries = (u() * 4.0) as u32;
        retries.policy.retries_by_class = (u() < 0.3).then_some([1, 2, 0, 3, 1, 0]);
        retries.policy.backoff = Backoff {
            base_s: u() * 2.0,
            cap_s: 1.0 + u() * 8.0,
            jitter: if u() < 0.5 {
                Jitter::None
            } else {
                Jitter::Full
            },
        };
        let mut warm = chain.clone();
        warm.policy.warm_fallback =
            [WarmPolicy::Always, WarmPolicy::Never, WarmPolicy::After(1)][(u() * 3.0) as usize];
        let mut timeout = chain.clone();
        timeout.policy.timeout_s = [2.0, 10.0, 45.0][(u() * 3.0) as usize];
        vec![retries, warm, timeout]
    }

    /// Over random chains with and without breakers (shorthand outages) and random timelines,
    /// with a hedge delay, a call cap and client errors failed over at random, each as given
    /// and cut to two links: wherever a variant of a chain shares its [`key`],
    /// their simulations' every figure over 12 windows is bit for bit the same; and each group
    /// of settings is dropped somewhere (the check is not vacuous).
    #[test]
    fn chains_with_one_key_simulate_bit_for_bit_alike() {
        let opts = McOptions {
            requests: 0,
            runs: 12,
            seed: 42,
        };
        // chains sharing a key with a variant of theirs: retries, warm policy, timeout
        let mut shared = [0; 3];
        let mut cases: Vec<(Request, Chain, Incident)> = Vec::new();
        for seed in 0..24 {
            cases.push(random_case(seed, seed % 3 != 0));
            let mut rng = chunk_rng(seed, 11, 0);
            cases.push(scoped_case(&mut rng));
        }
        for (n, (r, c, i)) in cases.iter().enumerate() {
            // the policy's other settings at random too: a hedge delay, a call cap, client
            // errors failed over
            let mut rng = chunk_rng(n as u64, 13, 0);
            let mut u = || uniform(&mut rng);
            let mut c = c.clone();
            c.policy.hedge_delay_s = (u() < 0.5).then(|| 0.2 + 4.0 * u());
            c.policy.max_attempts = (u() < 0.3).then(|| 2 + (u() * 2.0) as u32);
            if u() < 0.3 {
                c.policy.failover_on.push(ErrorClass::Client);
            }
            // a two-link chain too, so that hedges have only their legs
            let mut two = c.clone();
            two.links.truncate(2);
            for chain in [c.clone(), two] {
                for (g, other) in variants(&chain, n as u64).iter().enumerate() {
                    for p in Pattern::ALL {
                        if other.policy == chain.policy
                            || key(r, &chain, i, p) != key(r, other, i, p)
                        {
                            continue;
                        }
                        shared[g] += 1;
                        let a = simulate(r, &chain, i, p, 0, &opts, &mut |_| {});
                        let b = simulate(r, other, i, p, 0, &opts, &mut |_| {});
                        assert_eq!(a, b, "case {n} {p:?} variant {g}");
                    }
                }
            }
        }
        assert!(shared.iter().all(|&n| n >= 10), "{shared:?}");
    }
}
