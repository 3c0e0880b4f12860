//! The incident on a timeline (issue 14): the analytic engine piecewise over the segments of
//! [`Timeline::chain_segments`] (docs/timeline-notes.md, MODEL.md §6).
//!
//! Each segment is priced as the whole window is ([`super::in_sequence`], the hedge's race),
//! over its share of the window's requests, N·len/D, with each link in the segment's state:
//!
//! - **up**: its steady failure and trip rates and error mix;
//! - **failing** with error rate e: a request finds the link down with probability e, drawn
//!   once per request and link (its retries there fail too), failing with the outage's class
//!   (`fast`: a server error, billed 0, `fast_fail_s`; `gray`: a timeout, billed W, T seconds);
//!   the other 1 − e find it up. The two causes are independent: the first attempt fails with
//!   p = 1 − (1 − q)(1 − e). The engine mixes the 2^k ways the k partially failing links of a
//!   segment can be found (their weights the products of e and 1 − e);
//! - **drilled**: no attempt (the breaker opened by hand); the request goes on to the next
//!   link. A hedge's drilled leg is a refused leg ([`HedgeLeg::dead`] tried by none): the other
//!   goes alone, once, without retries, then the links after them in turn;
//! - **slow** (a latency factor f): the link's latency model scaled by f, so its trip rate
//!   P(f·L > T) where the trip rate comes from a given latency model (a trip rate given as a
//!   number is kept; the default latency model drives no trips, MODEL.md §7), and the hedge's w
//!   where it came from the latency models.
//!
//! Every attempt of a request is priced in its arrival segment; in time its attempts after a
//! failure come its dead time later, so the figures are off by at most [`priced`]'s count of
//! the requests whose attempts reach past a cut (MODEL.md §6, "Timelines";
//! `incident::timeline_bound`).
//!
//! Cache figures (MODEL.md §6, "Timelines"): with cuts, each segment hands its models'
//! answer shares and unwarmed extra costs ([`ModelShare`]) up, and [`exact_cache`] walks each
//! way a session can lie on the segments ([`placements`](crate::model::timeline::sessions::placements), exact) request by request. Without
//! cuts, the shorthand's session law. The primary's model where it answers some of a segment's
//! requests but not all re-warms per segment ([`rewarm`]; ~0 at λ·TTL ≫ L); a hedge's second
//! leg stays warm. A cache is kept between consecutive answers (MODEL.md §6). Fail-back writes
//! ([`failback`]): per outage run of the primary longer than its TTL, the sessions with a
//! request answered in it by another model and none by the primary's.
//!
//! A circuit breaker has no closed form on a timeline (MODEL.md §8): [`evaluate`] returns
//! `None` for such a chain, and reports take its figures from the incident simulator.

use crate::model::latency;
use crate::model::timeline::{ChainSegment, LinkRef, LinkState, OutageFailure, Timeline};

use super::super::cost::first_state;
use super::super::hedge::{Hedge, HedgeLeg};
use super::super::policy::{self, CapCount, PlanEntry, PolicyOutcome};
use super::super::{Caching, Chain, FailureMode, Incident, Pattern, Request};
use super::{
    IncidentOutcome, ModelShare, Sessions, Span, Totals, WindowLink, add_head, hedge_leg,
    in_sequence, outcome, tail_cap, window_links,
};
use crate::model::cost::CacheState;
use crate::model::policy::WarmPolicy;
use crate::model::timeline::sessions::{Placed, placements_shared};

/// The incident figures of `pattern` on `chain` over `timeline` (its window `incident`'s,
/// `incident.requests()` requests, sessions of `incident.session_length`). `None`: a hedged
/// pattern the chain cannot run, or a chain with a circuit breaker (no closed form).
pub(super) fn evaluate(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    timeline: &Timeline,
    pattern: Pattern,
) -> Option<IncidentOutcome> {
    priced(request, chain, incident, timeline, pattern).map(|(o, _)| o)
}

/// [`evaluate`] and the expected requests whose attempts cross a cut after their first
/// ([`super::TimelineBound::requests`]): Σ over the segments but the last of λ × the mean
/// dead time of the requests arriving there.
pub(super) fn priced(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    timeline: &Timeline,
    pattern: Pattern,
) -> Option<(IncidentOutcome, f64)> {
    if chain.policy.breaker.is_some() {
        return None;
    }
    let base = window_links(request, chain, pattern, |_| false);
    if pattern.is_hedged() && (base.len() < 2 || chain.policy.max_attempts.is_some_and(|a| a < 2)) {
        return None;
    }
    let n = incident.requests();
    let nf = n as f64;
    let d = timeline.window_s();
    let l = incident.session_length.max(1);
    let segs = timeline.chain_segments(&link_refs(chain));
    // With cuts, sessions straddle segments: the cache figures are summed over where each
    // session's requests fall ([`exact_cache`]); without, the shorthand's session law.
    let straddle = segs.len() > 1;
    let mut totals = Totals::default();
    let mut shares: Vec<SegmentShares> = Vec::with_capacity(segs.len());
    let mut crossing = 0.0;
    for (k, seg) in segs.iter().enumerate() {
        let slowed = slowed(chain, &seg.states);
        let here = slowed.as_ref().unwrap_or(chain);
        let modes: Vec<FailureMode> = seg.states.iter().map(|&s| mode_of(s)).collect();
        let span = Span {
            requests: nf * (seg.len_s() / d),
            arrivals: nf,
            window_s: d,
            modes: &modes,
        };
        let sessions = sessions_in(seg.start_s, seg.end_s, n, l, d);
        let law = (!straddle).then_some(sessions);
        let mut t = segment(request, here, &span, seg, &base, law, pattern);
        rewarm(request, &span, &base, sessions, &mut t);
        if k + 1 < segs.len() && span.requests > 0.0 {
            // λ·E[min(Δ, len)] ≤ λ·E[Δ]: the requests whose attempts reach the next cut
            crossing += incident.requests_per_second * (t.dead_time / span.requests);
        }
        shares.push(SegmentShares::take(chain, span.requests, &mut t));
        add(&mut totals, t);
    }
    let cuts: Vec<f64> = segs[1..].iter().map(|s| s.start_s / d).collect();
    let placed = placements_shared(&cuts, n, l);
    let placed = placed.as_slice();
    if straddle {
        exact_cache(request, chain, placed, &shares, nf, d, &mut totals);
    }
    let failback = failback(request, chain, &segs, placed, &shares, pattern);
    let o = outcome(
        request,
        chain,
        incident,
        totals,
        n.div_ceil(l),
        failback,
        None,
    );
    Some((o, crossing))
}

/// What a segment hands the window-level cache figures: its models' [`ModelShare`]s and the
/// share of its requests some link answered.
struct SegmentShares {
    models: Vec<ModelShare>,
    answered: f64,
    /// The share of the segment's requests the primary's model answered (any of its links).
    primary: f64,
}

impl SegmentShares {
    /// The shares of a segment of `requests` requests on `chain` whose totals are `t` (its
    /// models' cache shares are taken out of `t`).
    fn take(chain: &Chain, requests: f64, t: &mut Totals) -> SegmentShares {
        let primary_id = &chain.links[0].price.id;
        let by_primary: f64 = (0..chain.links.len())
            .filter(|&i| chain.links[i].price.id == *primary_id)
            .filter_map(|i| t.answered.get(i))
            .sum();
        let share = |x: f64| {
            if requests > 0.0 {
                (x / requests).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let answered = share(requests - t.failed);
        SegmentShares {
            models: std::mem::take(&mut t.caches),
            answered,
            primary: share(by_primary).min(answered),
        }
    }
}

/// The chain's links as the timeline sees them: provider and model id.
fn link_refs(chain: &Chain) -> Vec<LinkRef> {
    chain
        .prices()
        .map(|p| LinkRef {
            provider: p.provider.clone(),
            model: p.id.clone(),
        })
        .collect()
}

/// How a link's attempts fail where the segment has it down: the outage's class.
fn mode_of(state: LinkState) -> FailureMode {
    match state {
        LinkState::Failing {
            failure: OutageFailure::Gray,
            ..
        } => FailureMode::Gray,
        _ => FailureMode::Fast,
    }
}

/// The sessions of a window of `n` requests in sessions of `l` that start in [start_s, end_s)
/// of a window of `d` seconds: session j's first request, jL, comes at jL·D/N.
fn sessions_in(start_s: f64, end_s: f64, n: u64, l: u64, d: f64) -> Sessions {
    let total = n.div_ceil(l);
    // The first session starting at or after t: ⌈N·t/D / L⌉ (a tolerance for N·t/D computed
    // a hair above a whole multiple of L).
    let first = |t: f64| -> u64 {
        if t >= d {
            return total;
        }
        let at = n as f64 * t / d / l as f64;
        ((at - 1e-9).ceil().max(0.0) as u64).min(total)
    };
    let (lo, hi) = (first(start_s), first(end_s));
    let count = hi.saturating_sub(lo);
    let last = n % l;
    let holds_last = last > 0 && count > 0 && hi == total;
    Sessions {
        full: count - u64::from(holds_last),
        length: l,
        last: if holds_last { last } else { 0 },
    }
}

/// `chain` with the latency of the links the segment slows scaled by their factor (their trip
/// rates and w rederived where they came from the latency models); `None`: nothing slowed.
fn slowed(chain: &Chain, states: &[LinkState]) -> Option<Chain> {
    let factors: Vec<f64> = states
        .iter()
        .map(|s| match s {
            LinkState::Failing { latency_factor, .. } => *latency_factor,
            _ => 1.0,
        })
        .collect();
    if factors.iter().all(|&f| f == 1.0) {
        return None;
    }
    let mut c = chain.clone();
    // Each link at its own timeout T_k (its `timeout_s`, else the policy's).
    let t: Vec<f64> = (0..c.links.len()).map(|i| chain.timeout_s(i)).collect();
    for ((link, &f), &t) in c.links.iter_mut().zip(&factors).zip(&t) {
        if f != 1.0 {
            link.latency.p50_s *= f;
            link.latency.p99_s *= f;
            if link.trip_from_latency {
                link.trip_rate = link.latency.trip_rate(t);
            }
        }
    }
    if c.steady.win_from_latency && factors.iter().take(2).any(|&f| f != 1.0) {
        c.steady.primary_win_rate =
            latency::primary_win_rate_each(&c.links[0].latency, &c.links[1].latency, t[0], t[1]);
    }
    Some(c)
}

/// The ways a request can find `links` in a segment, each with its share: a link failing
/// with error rate 0 < e < 1 is down for a share e of the requests (drawn per request and
/// link), up for the rest; e = 1 is down, e = 0 (or up) is up.
fn variants<'a>(links: &[WindowLink<'a>], states: &[LinkState]) -> Vec<(f64, Vec<WindowLink<'a>>)> {
    let mut out = vec![(1.0, Vec::with_capacity(links.len()))];
    for l in links {
        let p = states[l.index].failure_probability();
        if p <= 0.0 || p >= 1.0 {
            for (_, v) in &mut out {
                v.push(l.with_dead(p >= 1.0));
            }
        } else {
            out = out
                .into_iter()
                .flat_map(|(w, v)| {
                    let mut down = v.clone();
                    down.push(l.with_dead(true));
                    let mut up = v;
                    up.push(l.with_dead(false));
                    [(w * (1.0 - p), up), (w * p, down)]
                })
                .collect();
        }
    }
    out
}

/// The totals of one segment.
fn segment(
    request: &Request,
    chain: &Chain,
    span: &Span,
    seg: &ChainSegment,
    base: &[WindowLink],
    sessions: Option<Sessions>,
    pattern: Pattern,
) -> Totals {
    let states = &seg.states;
    let tried = |l: &&WindowLink| states[l.index].attempted();
    let live: Vec<WindowLink> = base.iter().filter(tried).copied().collect();
    let sequence = |links: &[WindowLink], cap: CapCount| {
        in_sequence(
            request,
            chain,
            span,
            &variants(links, states),
            &[(PlanEntry::FRESH, 1.0)],
            sessions,
            cap,
            None,
        )
    };
    match pattern {
        Pattern::NoFallback => sequence(
            &base[..1].iter().filter(tried).copied().collect::<Vec<_>>(),
            CapCount::Off,
        ),
        Pattern::Sequential => sequence(&live, CapCount::After(None)),
        // A drilled leg is a leg the breaker refuses (MODEL.md §6, "Timelines"): not sent; the
        // other leg goes alone, once, without retries, as every hedge leg; then the rest in
        // turn under the policy.
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
            let cancel = pattern == Pattern::HedgedTakeFirst;
            let mut heads: Vec<(f64, PolicyOutcome)> = Vec::new();
            let mut entries: Vec<(PlanEntry, f64)> = Vec::new();
            for (w, legs) in variants(&base[..2], states) {
                let leg = |l: &WindowLink| {
                    if states[l.index].attempted() {
                        hedge_leg(request, chain, l, span.modes[l.index], cancel, 1.0)
                    } else {
                        HedgeLeg::dead(l.index, false, 0.0, 0.0, 0.0)
                    }
                };
                let race = Hedge::new(request, chain, pattern, leg(&legs[0]), leg(&legs[1]))
                    .race(chain.links.len());
                entries.extend(race.tail.iter().map(|&(e, r)| (e, w * r)));
                heads.push((w, race.head));
            }
            let head = policy::mix(&heads.iter().map(|(w, h)| (*w, h)).collect::<Vec<_>>());
            let rest: Vec<WindowLink> = base[2..].iter().filter(tried).copied().collect();
            let mut t = in_sequence(
                request,
                chain,
                span,
                &variants(&rest, states),
                &entries,
                sessions,
                tail_cap(base[1].index),
                None,
            );
            add_head(&mut t, &head, span.requests);
            t
        }
    }
}

/// The cold starts of the primary's model where it answers some of a segment's requests but
/// not all (0 < s < 1: a partial outage, or its steady failures): its sessions start warm and
/// re-warm when an answer comes after the cache expired ([`rewarm_unwarmed`]), each such answer
/// a cold start (MODEL.md §6). A hedge's second leg, sent every request, stays warm (as in the
/// simulators).
fn rewarm(request: &Request, span: &Span, base: &[WindowLink], sessions: Sessions, t: &mut Totals) {
    if t.answered.is_empty() || span.requests <= 0.0 || base.is_empty() {
        return;
    }
    let l = &base[0];
    if !l.starts_warm || l.price.caching == Caching::None {
        return;
    }
    let id = l.price.id.as_str();
    let s: f64 = base
        .iter()
        .filter(|x| x.price.id == id)
        .filter_map(|x| t.answered.get(x.index))
        .sum::<f64>()
        / span.requests;
    if s <= 0.0 || s >= 1.0 {
        return;
    }
    let share = l.price.cache_ttl_s / span.window_s;
    let cold = sessions.sum(|len| s * rewarm_unwarmed(s, len, span.arrivals, share));
    t.cold_starts += cold;
    t.cold_start += cold * request.premium_over_warm(l.price, first_state(l.price));
}

/// The expected requests of a session of `len` made while a model's cache is not warm, for a
/// session that comes warm there (its first request counts as an answer, as on the primary)
/// and a model that answers with probability `s`, the window's `arrivals` = N requests uniform
/// on [0, D], `share` = TTL / D: MODEL.md §6's law, G*(1) = 1 ([`gap_law`]), the last answer
/// before request k ≥ 1 d = 1..k−1 requests back or, if none, the first request, k back:
///
/// ```text
/// P(warm at 0) = 1,   P(warm at k) = Σ_{d=1..k−1} s·(1−s)^(d−1)·G*(d) + (1−s)^(k−1)·G*(k)
/// ```
///
/// summed as Σ_{k<len} (1 − P(warm at k)). At λ·TTL ≫ L (λ = 1, TTL 300 s, L = 20) G ≈ 1 and
/// this is ~0: a partial outage costs the primary no cache.
fn rewarm_unwarmed(s: f64, len: f64, arrivals: f64, share: f64) -> f64 {
    if s >= 1.0 || share.is_nan() || share >= 1.0 || len <= 1.0 {
        return 0.0;
    }
    let n = len.ceil() as usize;
    let g = gap_law(arrivals, share, n);
    let (mut settled, mut miss, mut total) = (0.0, 1.0, 0.0);
    for k in 1..n {
        // request k: d = 1..k−1 settled, else k back (the first request); g[d − 1] = G*(d)
        let gk = g[k - 1];
        let warm = settled + miss * gk;
        total += (1.0 - warm).max(0.0) * (len - k as f64).min(1.0);
        settled += s * miss * gk;
        miss *= 1.0 - s;
    }
    total
}

/// Adds a segment's totals to the window's.
fn add(to: &mut Totals, t: Totals) {
    to.dead_time += t.dead_time;
    to.window += t.window;
    to.cold_start += t.cold_start;
    to.cold_starts += t.cold_starts;
    to.wasted_attempts += t.wasted_attempts;
    to.wasted += t.wasted;
    to.failed += t.failed;
    to.refused += t.refused;
    if to.answered.len() < t.answered.len() {
        to.answered.resize(t.answered.len(), 0.0);
    }
    for (a, x) in to.answered.iter_mut().zip(&t.answered) {
        *a += x;
    }
}

/// The fail-back writes over a timeline: (USD, sessions). MODEL.md §6, "Fail-back writes": per
/// *outage run* of the primary (a maximal run of segments in which every link of the
/// primary's model fails at some rate: down, partly failing, or drilled) longer than the
/// primary's cache TTL, a session rewrites the primary's cache once if one of its requests
/// arriving in the run was answered by another model and none by the primary's: exactly, Σ
/// over the sessions' placements of Π_{its requests in the run}(1 − p) − Π(1 − a), p the
/// share of a segment's requests the primary's model answered, a the share some link
/// answered (a silent run, p = 0: 1 − Π(1 − a)). Continuous in the error rates: at error
/// rate 1 − ε a session of ℓ requests writes with probability within ℓ·ε of rate 1's. No
/// fallback (or no caching) writes nothing.
fn failback(
    request: &Request,
    chain: &Chain,
    segs: &[ChainSegment],
    placed: &[Placed],
    shares: &[SegmentShares],
    pattern: Pattern,
) -> (f64, f64) {
    let primary = &chain.links[0].price;
    if pattern == Pattern::NoFallback || primary.caching == Caching::None {
        return (0.0, 0.0);
    }
    let failing: Vec<bool> = segs
        .iter()
        .map(|seg| {
            (0..chain.links.len())
                .filter(|&i| chain.links[i].price.id == primary.id)
                .all(|i| seg.states[i] != LinkState::Up)
        })
        .collect();
    // The runs, numbered; a run no longer than the TTL writes nothing (no id).
    let mut run_of: Vec<Option<usize>> = vec![None; segs.len()];
    let mut k = 0;
    let mut id = 0;
    while k < segs.len() {
        if !failing[k] {
            k += 1;
            continue;
        }
        let first = k;
        while k < segs.len() && failing[k] {
            k += 1;
        }
        if segs[k - 1].end_s - segs[first].start_s > primary.cache_ttl_s {
            run_of[first..k].iter_mut().for_each(|r| *r = Some(id));
            id += 1;
        }
    }
    let answered: Vec<f64> = shares.iter().map(|s| s.answered).collect();
    let by_primary: Vec<f64> = shares.iter().map(|s| s.primary).collect();
    let writes = failback_writes(placed, &run_of, &answered, &by_primary);
    (
        writes * request.premium_over_warm(primary, first_state(primary)),
        writes,
    )
}

/// Expected fail-back writes: Σ over `placed` of weight × Σ_runs (Π_{requests in the run}
/// (1 − primary[segment]) − Π (1 − answered[segment])), `run_of[segment]` the segment's
/// outage run (`None`: not in one that writes), `primary` the share the primary's model
/// answered (≤ `answered`).
pub(super) fn failback_writes(
    placed: &[Placed],
    run_of: &[Option<usize>],
    answered: &[f64],
    primary: &[f64],
) -> f64 {
    let mut writes = 0.0;
    // per run: (run, P(the primary answered none), P(no link answered any))
    let mut none: Vec<(usize, f64, f64)> = Vec::new();
    for p in placed {
        none.clear();
        for &(seg, count) in &p.runs {
            let Some(r) = run_of[seg] else { continue };
            let kept = (1.0 - primary[seg]).powf(count as f64);
            let miss = (1.0 - answered[seg]).powf(count as f64);
            match none.iter_mut().find(|x| x.0 == r) {
                Some(x) => {
                    x.1 *= kept;
                    x.2 *= miss;
                }
                None => none.push((r, kept, miss)),
            }
        }
        writes += p.weight * none.iter().map(|x| (x.1 - x.2).max(0.0)).sum::<f64>();
    }
    writes
}

/// The cache figures of a timeline with cuts, exactly (MODEL.md §6, "Timelines"): per model
/// not warm from the start, each session's requests see the model's share in their own
/// segments ([`placements`](crate::model::timeline::sessions::placements)); cold starts and the unwarmed failed attempts' extra cost follow
/// the warm policy's law request by request ([`ModelLaw`]).
fn exact_cache(
    request: &Request,
    chain: &Chain,
    placed: &[Placed],
    shares: &[SegmentShares],
    arrivals: f64,
    window_s: f64,
    t: &mut Totals,
) {
    let id = |link: usize| chain.links[link].price.id.as_str();
    let mut models: Vec<usize> = Vec::new();
    for m in shares.iter().flat_map(|s| &s.models) {
        if !models.iter().any(|&x| id(x) == id(m.link)) {
            models.push(m.link);
        }
    }
    let longest = placed.iter().map(Placed::len).max().unwrap_or(0) as usize;
    for link in models {
        let per_seg: Vec<ModelShare> = shares
            .iter()
            .map(|s| {
                s.models
                    .iter()
                    .find(|m| id(m.link) == id(link))
                    .copied()
                    .unwrap_or(ModelShare {
                        link,
                        s: 0.0,
                        extra: 0.0,
                        extra_down: 0.0,
                    })
            })
            .collect();
        let law = ModelLaw::new(request, chain, link, arrivals, window_s, longest);
        for p in placed {
            law.add(p, &per_seg, t);
        }
    }
}

/// One model's cache law for [`exact_cache`]: its warm policy, premiums and gap law.
struct ModelLaw {
    policy: Option<WarmPolicy>,
    first_premium: f64,
    cold_premium: f64,
    write_premium: f64,
    /// G(d) = P(Bin(N, TTL/D) ≥ d), d = 1.. (MODEL.md §6).
    gap: Vec<f64>,
}

impl ModelLaw {
    fn new(
        request: &Request,
        chain: &Chain,
        link: usize,
        arrivals: f64,
        window_s: f64,
        longest: usize,
    ) -> ModelLaw {
        let price = &chain.links[link].price;
        let policy = match (price.caching, chain.policy.warm_fallback) {
            (Caching::Explicit, p @ (WarmPolicy::Never | WarmPolicy::After(_))) => Some(p),
            _ => None,
        };
        ModelLaw {
            policy,
            first_premium: request.premium_over_warm(price, first_state(price)),
            cold_premium: request.premium_over_warm(price, CacheState::Cold),
            write_premium: request.premium_over_warm(price, CacheState::Write),
            gap: gap_law(arrivals, cache_ttl(price) / window_s, longest),
        }
    }

    /// Adds the figures of the sessions placed as `p` to `t`.
    fn add(&self, p: &Placed, per_seg: &[ModelShare], t: &mut Totals) {
        let seq: Vec<&ModelShare> = p.requests().map(|seg| &per_seg[seg]).collect();
        let w = p.weight;
        let none: f64 = seq.iter().map(|m| 1.0 - m.s).product();
        // the unwarmed failed attempts' extra cost of request k
        let bill = |t: &mut Totals, m: &ModelShare, unwarmed: f64| {
            t.window += w * unwarmed * m.extra;
            t.cold_start += w * unwarmed * m.extra_down;
            t.wasted += w * unwarmed * (m.extra + m.extra_down);
        };
        match self.policy {
            Some(WarmPolicy::Never) => {
                for m in &seq {
                    bill(t, m, 1.0);
                    t.cold_start += w * m.s * self.cold_premium;
                }
                t.cold_starts += w * (1.0 - none);
            }
            Some(WarmPolicy::After(n)) => {
                // dist[c]: P(c successes so far), c = n + 1 meaning more than n.
                let n = n as usize;
                let mut dist = vec![0.0; n + 2];
                dist[0] = 1.0;
                for m in &seq {
                    let s = m.s;
                    bill(t, m, dist[..=n].iter().sum());
                    let cold: f64 = dist[..n].iter().sum();
                    t.cold_start +=
                        w * s * (cold * self.cold_premium + dist[n] * self.write_premium);
                    for c in (0..dist.len()).rev() {
                        let stay = if c == n + 1 {
                            dist[c]
                        } else {
                            dist[c] * (1.0 - s)
                        };
                        let come = if c > 0 { dist[c - 1] * s } else { 0.0 };
                        dist[c] = stay + come;
                    }
                }
                t.cold_starts += w * (1.0 - none);
            }
            _ => {
                for k in 0..seq.len() {
                    // P(warm at k) = Σ_d s_{k−d}·Π_{k−d<j<k}(1 − s_j)·G(d)
                    let (mut warm, mut miss) = (0.0, 1.0);
                    for d in 1..=k {
                        let m = seq[k - d];
                        warm += m.s * miss * self.gap[d - 1];
                        miss *= 1.0 - m.s;
                        if miss < 1e-18 {
                            break;
                        }
                    }
                    let unwarmed = (1.0 - warm).max(0.0);
                    bill(t, seq[k], unwarmed);
                    let cold = w * seq[k].s * unwarmed;
                    t.cold_starts += cold;
                    t.cold_start += cold * self.first_premium;
                }
            }
        }
    }
}

/// A model's cache TTL, seconds (infinite without caching).
fn cache_ttl(price: &crate::model::ModelPrice) -> f64 {
    if price.caching == Caching::None {
        f64::INFINITY
    } else {
        price.cache_ttl_s
    }
}

/// G*(d) for d = 1..=len: the chance that a session's cache on a model is still warm when its
/// last answer there is d requests back (MODEL.md §6): 1 for d = 1 (kept between consecutive
/// answers), else G(d) = P(Bin(N, share) ≥ d), the chance that d consecutive spacings of the
/// window's N arrivals fit in the TTL (`share` = TTL / D; ≥ 1 or infinite: 1).
pub(super) fn gap_law(arrivals: f64, share: f64, len: usize) -> Vec<f64> {
    if share.is_nan() || share >= 1.0 {
        return vec![1.0; len];
    }
    let (n, p) = (arrivals, share.max(0.0));
    if p <= 0.0 {
        return (0..len).map(|m| if m == 0 { 1.0 } else { 0.0 }).collect();
    }
    let ln_odds = p.ln() - (-p).ln_1p();
    let mut ln_pmf = n * (-p).ln_1p();
    let mut cdf = 0.0;
    let mut out = Vec::with_capacity(len);
    for m in 0..len {
        let mf = m as f64;
        if mf <= n {
            cdf += ln_pmf.exp();
            ln_pmf += (n - mf).ln() - (mf + 1.0).ln() + ln_odds;
        } else {
            cdf = 1.0;
        }
        // G*(1) = 1: kept between consecutive answers ([`super::unwarmed_requests`])
        out.push(if m == 0 { 1.0 } else { (1.0 - cdf).max(0.0) });
    }
    out
}

/// Whether expiry within a session is negligible for every cached model of `chain` over
/// `incident` (G(L) ≥ 1 − 1e-12: λ·TTL ≫ L), so that the cache figures on a timeline are exact:
/// otherwise the gap law is the window's, not the one given where a session straddles a cut,
/// and a warm model's re-warms are counted per segment (MODEL.md §6, "Timelines").
pub(super) fn expiry_negligible(chain: &Chain, incident: &Incident) -> bool {
    let l = incident.session_length.max(1) as usize;
    let n = incident.requests() as f64;
    chain.links.iter().all(|link| {
        let share = cache_ttl(&link.price) / incident.duration_s;
        gap_law(n, share, l)
            .last()
            .is_none_or(|&g| g >= 1.0 - 1e-12)
    })
}

#[cfg(test)]
mod tests {
    use super::super::evaluate as price;
    use super::*;
    use crate::model::cost::tests::{july, req, set_failure_rates};
    use crate::model::timeline::{Outage, OutageTarget};
    use crate::model::{Link, Steady};

    /// 3h06m: the September 3 window (13:10-16:16 UTC), 11,160 requests at λ = 1.
    const D: f64 = 11_160.0;
    /// GPT-6 Sol's warm answer and its cold first answer's premium over warm on the post's
    /// request (60,000-token prefix at h = 0.9, 1,200 output): warm (60,000·(0.9·0.20 +
    /// 0.1·2) + 1,200·10)/1e6 = 0.0348, cold (60,000·2 + 12,000)/1e6 = 0.132, premium 0.0972.
    /// Sonnet 5 warm is 0.0348 too; its write premium (60,000·2.5 + 12,000)/1e6 − 0.0348 =
    /// 0.1272.
    const C: f64 = 0.0348;
    const SOL_COLD: f64 = 0.0972;
    const SONNET_WRITE: f64 = 0.1272;

    fn chain(models: &[&str]) -> Chain {
        Chain {
            name: "c".into(),
            links: models.iter().map(|m| Link::new(july(m))).collect(),
            steady: Steady::default(),
            policy: Default::default(),
            traffic_share: None,
        }
    }

    fn incident(window_s: f64, rps: f64, outages: Vec<Outage>) -> Incident {
        Incident {
            duration_s: window_s,
            requests_per_second: rps,
            session_length: 20,
            failure: FailureMode::Fast,
            timeline: Some(Timeline::new(window_s, outages).unwrap()),
        }
    }

    fn down(provider: &str, start: f64, duration: Option<f64>) -> Outage {
        Outage::new(
            OutageTarget::Provider(provider.into()),
            start,
            duration,
            OutageFailure::Fast,
        )
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    const SONNET: &str = "anthropic/claude-sonnet-5";
    const SOL: &str = "openai/gpt-6-sol";

    /// A timeline of one outage of the primary's provider over the whole window is the
    /// shorthand: the same figures for every pattern, fast and gray, with and without retries
    /// (sept3: 513.58 USD, 1.32x; 2,284.01 with GPT-6 Astra).
    #[test]
    fn one_outage_over_the_window_is_the_shorthand() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        for fallback in [SOL, "openai/gpt-6-astra"] {
            let mut c = chain(&[SONNET, fallback, "openai/gpt-6-luna"]);
            for retries in [0, 2] {
                c.policy.retries = retries;
                for failure in [FailureMode::Fast, FailureMode::Gray] {
                    let outage = Outage::new(
                        OutageTarget::Provider("anthropic".into()),
                        0.0,
                        None,
                        match failure {
                            FailureMode::Fast => OutageFailure::Fast,
                            FailureMode::Gray => OutageFailure::Gray,
                        },
                    );
                    let mut with = incident(D, 1.0, vec![outage]);
                    with.failure = failure;
                    let without = Incident {
                        timeline: None,
                        ..with.clone()
                    };
                    for p in Pattern::ALL {
                        assert_eq!(
                            price(&r, &c, &with, p),
                            price(&r, &c, &without, p),
                            "{fallback} {retries} {failure:?} {p:?}"
                        );
                    }
                }
            }
        }
        let c = chain(&[SONNET, SOL]);
        let o = price(
            &r,
            &c,
            &incident(D, 1.0, vec![down("anthropic", 0.0, None)]),
            Pattern::Sequential,
        )
        .unwrap();
        assert!(close(o.total, 513.5832, 1e-9));
        assert_eq!(format!("{:.2}", o.multiplier.unwrap()), "1.32");
        assert_eq!(
            (o.sessions, o.cold_starts, o.failback_writes),
            (558, 558.0, 558.0)
        );
    }

    /// docs/timeline-notes.md's two-provider case: Anthropic down all 11,160 s, OpenAI down
    /// 34 minutes inside it (offset 3,600 s, 2,040 s), 1 req/s, Sonnet 5 → Sol. The 2,040
    /// requests of OpenAI's minutes fail; Sol answers the other 9,120: window 9,120 × 0.0348 =
    /// 317.376. A session pays a cold start on Sol unless all its requests fall in OpenAI's
    /// minutes: with C₁ and C₂ the arrivals before 3,600 s and 5,640 s (σ ≈ 50 ≫ L, so the
    /// cuts' phases in the session grid are uniform), E[sessions inside] = (E[C₂ − C₁] −
    /// (L − 1))/L = (2,040 − 19)/20 = 101.05: 558 − 101.05 = 456.95 cold starts (× 0.0972).
    /// The primary answers nothing all window and the same 456.95 sessions had a request
    /// answered (by Sol): 456.95 fail-back writes (× 0.1272); the 101.05 sessions whose every
    /// request failed did not fail over (MODEL.md §6, "Fail-back writes"). Total 419.91558.
    /// Attempts: every request tries both links, none answers 2,040 of them: 22,320 − 9,120 =
    /// 13,200 wasted.
    #[test]
    fn sonnet_to_sol_with_openai_down_34_minutes_inside() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let outages = vec![
            down("anthropic", 0.0, None),
            down("openai", 3600.0, Some(2040.0)),
        ];
        let i = incident(D, 1.0, outages.clone());
        let o = price(&r, &chain(&[SONNET, SOL]), &i, Pattern::Sequential).unwrap();
        assert!(close(o.failed_requests, 2040.0, 1e-9), "{o:?}");
        assert!(close(o.window, 9120.0 * C, 1e-9), "{o:?}");
        assert!(close(o.cold_starts, 456.95, 1e-9), "{o:?}");
        assert!(close(o.cold_start, 456.95 * SOL_COLD, 1e-9));
        assert!(close(o.failback_writes, 456.95, 1e-9), "{o:?}");
        assert!(close(o.failback, 456.95 * SONNET_WRITE, 1e-9));
        assert!(close(o.total, 419.91558, 1e-9), "{}", o.total);
        assert!(close(o.wasted_attempts, 13_200.0, 1e-9));
        // Fast failures take 0.5 s: 11,160 on Sonnet + 2,040 on Sol = 13,200 × 0.5 s.
        assert!(close(o.dead_time_mean_s, 13_200.0 * 0.5 / D, 1e-12));

        // A third provider (DeepSeek, down 4,800-8,400 s as the notes' Grok) answers OpenAI's
        // minutes but the 840 s all three are down: 1,200 answered by it, 840 failed. Its cold
        // start is free (no cached price: warm bills the prefix at input, as cold does).
        // DeepSeek answers the requests of [3600, 4800) (1,200 expected): a session pays one
        // when one of its requests falls there, E = (1,200 + (L − 1))/L = 60.95 sessions.
        let mut three = outages;
        three.push(down("deepseek", 4800.0, Some(3600.0)));
        let c = chain(&[SONNET, SOL, "deepseek/deepseek-v4-flash"]);
        let o = price(&r, &c, &incident(D, 1.0, three), Pattern::Sequential).unwrap();
        assert!(close(o.failed_requests, 840.0, 1e-9), "{o:?}");
        let ds = (60000.0 * 0.14 + 1200.0 * 0.28) / 1e6; // 0.008736
        assert!(close(o.window, 9120.0 * C + 1200.0 * ds, 1e-9), "{o:?}");
        assert!(close(o.cold_starts, 456.95 + 60.95, 1e-9), "{o:?}");
        assert!(close(o.cold_start, 456.95 * SOL_COLD, 1e-9));
        // attempts: 11,160 × 2 + 2,040 third ones; answered 10,320
        assert!(close(o.wasted_attempts, 24_360.0 - 10_320.0, 1e-9));
    }

    /// Hedged on the same timeline: both legs on every request; Sol's leg is warm (no cold
    /// starts); the dead Sonnet leg fails fast (billed 0). OpenAI's 2,040 s fail both legs.
    #[test]
    fn a_hedge_on_the_two_provider_timeline() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let i = incident(
            D,
            1.0,
            vec![
                down("anthropic", 0.0, None),
                down("openai", 3600.0, Some(2040.0)),
            ],
        );
        let o = price(&r, &chain(&[SONNET, SOL]), &i, Pattern::HedgedTakeFirst).unwrap();
        assert!(close(o.failed_requests, 2040.0, 1e-9));
        assert!(close(o.window, 9120.0 * C, 1e-9));
        assert_eq!((o.cold_starts, o.cold_start), (0.0, 0.0));
        assert!(close(o.failback, 456.95 * SONNET_WRITE, 1e-9));
    }

    /// A partial outage: Anthropic failing half its requests (e = 0.5) all window, OpenAI down
    /// 2,040 s. Sonnet answers half of everything, 5,580; Sol half of the rest outside
    /// OpenAI's minutes, 0.5 × 9,120 = 4,560; failed 0.5 × 2,040 = 1,020. Window (5,580 +
    /// 4,560) × 0.0348 = 352.872. Attempts 11,160 + 5,580 = 16,740, wasted 16,740 − 10,140 =
    /// 6,600. Sol answers a request outside OpenAI's minutes with s = 0.5 (its 600 s TTL
    /// never expires at λ = 1: G = 1 to 1e-200), so a session with m such requests pays
    /// 1 − 0.5^m cold starts. With the cuts' phases uniform in the session grid (σ ≈ 50 ≫ L),
    /// (3,600 + 5,520 − 19)/20 = 455.05 sessions lie wholly outside and each cut is straddled
    /// with m uniform on 0..19: E = (18 + 2⁻¹⁹)/20 per cut: cold starts 455.05·(1 − 2⁻²⁰) + 1.8
    /// plus 2⁻¹⁹/10 = 456.849566. Sonnet keeps answering: a session writes back only if it
    /// answered none of the session's requests (2⁻²⁰); its cache never expires (λ·TTL = 300 ≫
    /// 20): no primary cold starts.
    #[test]
    fn a_partial_outage_of_the_primary() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let i = incident(
            D,
            1.0,
            vec![
                down("anthropic", 0.0, None).with_error_rate(0.5),
                down("openai", 3600.0, Some(2040.0)),
            ],
        );
        let o = price(&r, &chain(&[SONNET, SOL]), &i, Pattern::Sequential).unwrap();
        assert!(close(o.failed_requests, 1020.0, 1e-9), "{o:?}");
        assert!(close(o.window, 10_140.0 * C, 1e-9), "{o:?}");
        assert!(close(o.wasted_attempts, 6600.0, 1e-9));
        let cold = 455.05 * (1.0 - 0.5f64.powi(20)) + 1.8 + 0.5f64.powi(19) / 10.0;
        assert!(close(o.cold_starts, cold, 1e-9), "{o:?}");
        assert!(close(o.cold_start, cold * SOL_COLD, 1e-9));
        // Anthropic's whole window is one outage run: a session writes when Sonnet answered
        // none of its 20 requests and Sol one (issue 33): 2⁻²⁰ of the 455.05 sessions away
        // from OpenAI's outage, a little more with the straddling ones
        let w = 455.05 * 0.5f64.powi(20);
        assert!(
            (w..w + 2.0 * 0.5f64.powi(20)).contains(&o.failback_writes),
            "{o:?}"
        );
        assert!(close(o.failback, o.failback_writes * SONNET_WRITE, 1e-9));
    }

    /// The share is drawn per request: with 2 retries and no backoff, a request in the failing
    /// half of a gray outage (e = 0.5) hangs three times on Sonnet (3 × 30 s, 3 × W) before
    /// Sol answers; the other half is answered by Sonnet at once. Window per request: 0.5·C +
    /// 0.5·(3·W + C) with W = (60,000·0.38 + 0.5·1,200·10)/1e6 = 0.0288 (Sonnet's warm input
    /// side plus half its output).
    #[test]
    fn a_partial_gray_outage_fails_a_request_on_every_retry() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[SONNET, SOL]);
        c.policy.retries = 2;
        c.policy.backoff.base_s = 0.0;
        c.policy.backoff.cap_s = 0.0;
        let gray = Outage::new(
            OutageTarget::Provider("anthropic".into()),
            0.0,
            None,
            OutageFailure::Gray,
        )
        .with_error_rate(0.5);
        let i = incident(1000.0, 1.0, vec![gray]);
        let o = price(&r, &c, &i, Pattern::Sequential).unwrap();
        let w = (60000.0 * 0.38 + 0.5 * 1200.0 * 10.0) / 1e6;
        assert!(
            close(o.window, 1000.0 * (0.5 * C + 0.5 * (3.0 * w + C)), 1e-9),
            "{o:?}"
        );
        assert!(close(o.wasted_attempts, 1500.0, 1e-9));
        assert!(close(o.dead_time_mean_s, 0.5 * 90.0, 1e-9));
        assert_eq!(o.failed_requests, 0.0);
    }

    /// The post's drill: 30 minutes with Anthropic's breaker opened by hand, 0.2 req/s: 360
    /// requests, no attempt on Sonnet, all answered by Sol: window 360 × 0.0348 = 12.528, no
    /// wasted attempt, no dead time. 18 sessions, each a cold start on Sol (1.7496) and, the
    /// drill (1,800 s) outlasting Sonnet's 300 s TTL, a fail-back write (2.2896). Total
    /// 16.5672.
    #[test]
    fn a_drill_makes_no_attempt_on_the_primary() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let drill = Outage::new(
            OutageTarget::Provider("anthropic".into()),
            0.0,
            None,
            OutageFailure::Drill,
        );
        let i = incident(1800.0, 0.2, vec![drill]);
        for p in [Pattern::Sequential, Pattern::HedgedTakeFirst] {
            let o = price(&r, &chain(&[SONNET, SOL]), &i, p).unwrap();
            assert_eq!((o.requests, o.sessions), (360, 18));
            assert!(close(o.window, 360.0 * C, 1e-9), "{o:?}");
            assert_eq!((o.wasted_attempts, o.dead_time_mean_s), (0.0, 0.0));
            assert_eq!(o.failed_requests, 0.0);
            assert!(close(o.failback, 18.0 * SONNET_WRITE, 1e-9));
            if p == Pattern::Sequential {
                assert!(close(o.cold_start, 18.0 * SOL_COLD, 1e-9));
                assert!(close(o.total, 16.5672, 1e-9), "{}", o.total);
            } else {
                // the hedge's second leg is warm
                assert_eq!(o.cold_start, 0.0);
            }
        }
        // no fallback: every request fails, nothing is attempted or written
        let o = price(&r, &chain(&[SONNET, SOL]), &i, Pattern::NoFallback).unwrap();
        assert_eq!(
            (o.failed_requests, o.wasted_attempts, o.total),
            (360.0, 0.0, 0.0)
        );
    }

    /// Two Anthropic outages of 600 s and 200 s (TTL 300 s) in 2,000 s at λ = 1: the first
    /// writes back the sessions Sol answered in it, the second none. A failing live fallback
    /// (q = 0.1, fast) stays exact: Sol answers 0.9 of the 800 s down, 720 requests, and 80
    /// fail. By hand, with the cuts' phases uniform in the session grid: (600 + 19)/20 = 30.95
    /// sessions touch the first run, and one straddling each of its ends with m requests in
    /// it (m uniform on 1..19, probability 1/20 each) writes unless all m failed: 30.95 −
    /// 2·Σ_m 0.1^m/20 = 30.9389 (the phases at σ ≈ 10 are not quite uniform: the exact
    /// placement, `cache_figures_are_the_exact_placements`, checks the rest). Cold starts on
    /// Sol likewise: 30.95 + 10.95 − 4·0.00556 = 41.878.
    #[test]
    fn fail_back_writes_per_run_longer_than_the_ttl() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[SONNET, SOL]);
        set_failure_rates(&mut c, &[0.0, 0.1]);
        c.steady.gray_fraction = 0.0;
        let i = incident(
            2000.0,
            1.0,
            vec![
                down("anthropic", 100.0, Some(600.0)),
                down("anthropic", 1000.0, Some(200.0)),
            ],
        );
        let o = price(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(o.failback_writes, 30.9389, 0.01), "{o:?}");
        assert!(close(o.failed_requests, 80.0, 1e-9));
        assert!(close(o.window, 1920.0 * C, 1e-9), "{o:?}");
        assert!(close(o.cold_starts, 41.878, 0.02), "{o:?}");
    }

    /// Fail-back writes are continuous in the inputs (MODEL.md §6, "Fail-back writes"): the
    /// primary down all 11,160 s, the fallback's outage stretched from 10,800 s to the whole
    /// window in steps of 60 s. Each step moves 60 requests from answered to failed, and the
    /// fail-back figure by at most the sessions those requests touch (at most 60/L + 1 = 4);
    /// the last step, from 11,100 s (60 s of Sol) to 11,160 s, goes from 3.47 writes ($0.44)
    /// to 0 (before: $73.36 to $0.00, every session charged as soon as any link answered
    /// anywhere).
    #[test]
    fn fail_back_writes_move_with_the_requests_they_move() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let c = chain(&[SONNET, SOL]);
        let mut before: Option<f64> = None;
        for k in 0..=6 {
            let len = 10_800.0 + 60.0 * f64::from(k);
            let i = incident(
                D,
                1.0,
                vec![down("anthropic", 0.0, None), down("openai", 0.0, Some(len))],
            );
            let o = price(&r, &c, &i, Pattern::Sequential).unwrap();
            if let Some(b) = before {
                let moved = b - o.failback_writes;
                assert!((0.0..=60.0 / 20.0 + 1.0).contains(&moved), "{len}: {moved}");
            }
            if k == 5 {
                // 60 s of Sol at the window's end, which is on the session grid (N = 558·20):
                // the X ~ Bin(11,160, 60/11,160) last requests touch ⌈X/20⌉ sessions, 3 to 4
                assert!((3.0..4.0).contains(&o.failback_writes), "{o:?}");
                assert!(close(o.failback, o.failback_writes * SONNET_WRITE, 1e-9));
            }
            before = Some(o.failback_writes);
        }
        assert_eq!(before, Some(0.0));
        // no link answers anything: nothing fails back, in every pattern
        let i = incident(
            3600.0,
            1.0,
            vec![down("anthropic", 0.0, None), down("openai", 0.0, None)],
        );
        for p in Pattern::ALL {
            let o = price(&r, &c, &i, p).unwrap();
            assert_eq!((o.failback, o.failback_writes), (0.0, 0.0), "{p:?}");
        }
    }

    /// Issue 33 item 3: the primary's provider failing 0.999999 of its requests for the whole
    /// Sept 3 window bills within a millionth-scale move of the outage at error rate 1
    /// ($513.58: 558 fail-back writes), in every pattern with a fallback; before, the
    /// fail-back writes switched on only at exactly 1 ($442.61 against $513.58). A session of
    /// 20 writes unless the primary answered one of its requests: 1 − (1 − 1e-6)^20 ≈ 2e-5
    /// of the sessions keep their cache. At 0.5 only 0.5^20 of them write.
    #[test]
    fn fail_back_writes_are_continuous_at_error_rate_one() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let c = chain(&[SONNET, SOL]);
        let at = |e: f64| {
            incident(
                D,
                1.0,
                vec![down("anthropic", 0.0, None).with_error_rate(e)],
            )
        };
        for p in [
            Pattern::Sequential,
            Pattern::HedgedTakeFirst,
            Pattern::HedgedNoCancel,
        ] {
            let one = price(&r, &c, &at(1.0), p).unwrap();
            let near = price(&r, &c, &at(0.999_999), p).unwrap();
            assert!(close(one.failback_writes, 558.0, 1e-9), "{p:?} {one:?}");
            if p == Pattern::Sequential {
                assert!(close(one.total, 513.58, 0.005), "{one:?}");
            }
            let kept = 558.0 * (1.0 - (1.0 - 1e-6f64).powi(20));
            assert!(
                close(near.failback_writes, 558.0 - kept, 1e-6),
                "{p:?} {near:?}"
            );
            assert!(
                (near.total - one.total).abs() <= 1e-5 * one.total,
                "{p:?}: {} against {}",
                near.total,
                one.total
            );
        }
        let half = price(&r, &c, &at(0.5), Pattern::Sequential).unwrap();
        assert!(
            close(half.failback_writes, 558.0 * 0.5f64.powi(20), 1e-9),
            "{half:?}"
        );
    }

    /// A circuit breaker on a timeline has no closed form: no analytic figures.
    #[test]
    fn a_breaker_on_a_timeline_has_no_closed_form() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[SONNET, SOL]);
        c.policy.breaker = Some(crate::model::policy::Breaker {
            threshold: 5,
            cooldown_s: 60.0,
        });
        let i = incident(D, 1.0, vec![down("anthropic", 0.0, None)]);
        assert_eq!(price(&r, &c, &i, Pattern::Sequential), None);
    }

    /// A slow primary (latency factor 3, no errors) with a given latency model (p50 2 s, p99
    /// 12 s) trips the 30 s timeout as a p50 6 s, p99 36 s model does: its trips are abandoned
    /// and billed as gray attempts, then Sol answers.
    #[test]
    fn a_latency_factor_scales_the_trip_rate() {
        use crate::model::Latency;
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        let mut c = chain(&[SONNET, SOL]);
        c.links[0].latency = Latency {
            p50_s: 2.0,
            p99_s: 12.0,
            given: true,
        };
        c.links[0].trip_from_latency = true;
        c.links[0].trip_rate = c.links[0].latency.trip_rate(30.0);
        let mut slow = down("anthropic", 0.0, None).with_error_rate(0.0);
        slow.latency_factor = Some(3.0);
        let i = incident(1000.0, 1.0, vec![slow]);
        let o = price(&r, &c, &i, Pattern::Sequential).unwrap();
        let trip = Latency {
            p50_s: 6.0,
            p99_s: 36.0,
            given: true,
        }
        .trip_rate(30.0);
        assert!(trip > 0.005 && trip < 0.05, "{trip}");
        assert!(close(o.wasted_attempts, 1000.0 * trip, 1e-9), "{o:?}");
        // the slowed chain: the trip rate rederived, the rest unchanged
        let s = slowed(
            &c,
            &i.timeline.as_ref().unwrap().chain_segments(&link_refs(&c))[0].states,
        )
        .unwrap();
        assert_eq!(s.links[0].trip_rate, trip);
        assert_eq!(s.links[1], c.links[1]);
    }

    /// Sessions are counted where their first request falls: in sept3's cuts at 3,600 s and
    /// 5,640 s, 180, 102 and 276 of the 558; with 250 requests (12 of 20 and one of 10), the
    /// short one is in the segment holding request 240.
    #[test]
    fn sessions_by_segment_by_hand() {
        let counts: Vec<u64> = [(0.0, 3600.0), (3600.0, 5640.0), (5640.0, D)]
            .iter()
            .map(|&(a, b)| sessions_in(a, b, 11_160, 20, D).count())
            .collect();
        assert_eq!(counts, vec![180, 102, 276]);
        let s = sessions_in(200.0, 250.0, 250, 20, 250.0);
        assert_eq!((s.full, s.last), (2, 10)); // sessions starting at 200, 220 and 240
        let s = sessions_in(0.0, 200.0, 250, 20, 250.0);
        assert_eq!((s.full, s.last), (10, 0));
    }

    /// The re-warm law by hand: s = 0.5, three requests, N = 10 arrivals, TTL/D = 0.1,
    /// G(2) = 1 − 0.9¹⁰ − 10·0.1·0.9⁹, G*(1) = 1: P(warm at 0) = 1 (the session comes warm),
    /// at 1: G*(1) = 1, at 2: s·G*(1) + (1 − s)·G(2).
    #[test]
    fn rewarm_by_hand() {
        let g2 = 1.0 - 0.9f64.powi(10) - 10.0 * 0.1 * 0.9f64.powi(9);
        let want = 1.0 - 0.5 - 0.5 * g2;
        assert!(close(rewarm_unwarmed(0.5, 3.0, 10.0, 0.1), want, 1e-12));
        // no expiry, always answered, or sessions of one: never unwarmed
        assert_eq!(rewarm_unwarmed(0.5, 20.0, 11_160.0, 1.5), 0.0);
        assert_eq!(rewarm_unwarmed(1.0, 20.0, 11_160.0, 0.01), 0.0);
        assert_eq!(rewarm_unwarmed(0.5, 1.0, 10.0, 0.1), 0.0);
        // λ·TTL = 300 ≫ 20: ~0
        assert!(rewarm_unwarmed(0.5, 20.0, 11_160.0, 300.0 / D) < 1e-100);
    }

    /// One window of the exact placement (MODEL.md §6: N arrivals uniform on [0, D], a session
    /// L consecutive ones, each request seeing the states at its own time, a partial outage
    /// drawn per request, fast failures, no expiry within a session): (cold starts on the
    /// fallbacks, fail-back writes). A session pays a cold start on each fallback model that
    /// answers one of its requests, and rewrites the primary's cache once per outage run of
    /// the primary longer than the TTL in which one of its requests was answered by a
    /// fallback and none by the primary.
    fn placement_window(
        segs: &[ChainSegment],
        runs: &[(f64, f64)],
        n: usize,
        window: f64,
        rng: &mut crate::sim::rng::SimRng,
    ) -> (f64, f64) {
        use crate::sim::rng::uniform;
        let mut times: Vec<f64> = (0..n).map(|_| uniform(rng) * window).collect();
        times.sort_by(f64::total_cmp);
        let (mut cold, mut writes) = (0.0, 0.0);
        for session in times.chunks(20) {
            let mut answered = vec![false; segs[0].p.len()];
            let mut wrote = vec![false; runs.len()];
            let mut kept = vec![false; runs.len()];
            for &x in session {
                let seg = segs
                    .iter()
                    .find(|s| x < s.end_s)
                    .unwrap_or(&segs[segs.len() - 1]);
                let by = seg
                    .p
                    .iter()
                    .position(|&p| p <= 0.0 || (p < 1.0 && uniform(rng) >= p));
                if let Some(k) = by {
                    answered[k] = true;
                    if let Some(r) = runs.iter().position(|r| r.0 <= x && x < r.1) {
                        if k > 0 {
                            wrote[r] = true;
                        } else {
                            kept[r] = true;
                        }
                    }
                }
            }
            cold += answered[1..].iter().filter(|&&a| a).count() as f64;
            writes += wrote.iter().zip(&kept).filter(|(w, k)| **w && !**k).count() as f64;
        }
        (cold, writes)
    }

    /// The primary's down runs (touching segments merged) longer than 300 s.
    fn primary_down_runs(segs: &[ChainSegment]) -> Vec<(f64, f64)> {
        let mut runs: Vec<(f64, f64)> = Vec::new();
        for s in segs.iter().filter(|s| s.states[0] != LinkState::Up) {
            match runs.last_mut() {
                Some(r) if r.1 == s.start_s => r.1 = s.end_s,
                _ => runs.push((s.start_s, s.end_s)),
            }
        }
        runs.retain(|r| r.1 - r.0 > 300.0);
        runs
    }

    /// The mean and standard error of the cold starts and of the fail-back writes of
    /// [`placement_window`] over `windows` windows (seeds 7, 14, window index).
    fn placement_means(
        segs: &[ChainSegment],
        runs: &[(f64, f64)],
        n: usize,
        window: f64,
        windows: u64,
    ) -> ((f64, f64), (f64, f64)) {
        use crate::sim::rng::chunk_rng;
        let mut sums = [(0.0, 0.0); 2];
        for w in 0..windows {
            let mut rng = chunk_rng(7, 14, w);
            let (cold, writes) = placement_window(segs, runs, n, window, &mut rng);
            for (s, x) in sums.iter_mut().zip([cold, writes]) {
                s.0 += x;
                s.1 += x * x;
            }
        }
        let k = windows as f64;
        let stat = |(s, sq): (f64, f64)| {
            let mean = s / k;
            (mean, ((sq / k - mean * mean) / (k - 1.0)).max(0.0).sqrt())
        };
        (stat(sums[0]), stat(sums[1]))
    }

    /// The cache figures on a timeline with cuts are exact expectations of the placement:
    /// on five timelines (λ = 1, L = 20, fast, no expiry within a session), the analytic cold
    /// starts and fail-back writes lie within 4 standard errors of `placement_window` over
    /// 64 windows (`FALLCOST_MEASURE_WINDOWS` for more; `--nocapture` prints them; MODEL.md
    /// §6 records 400 windows).
    #[test]
    fn cache_figures_are_the_exact_placements() {
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        const DS: &str = "deepseek/deepseek-v4-flash";
        let sept3 = vec![
            down("anthropic", 0.0, None),
            down("openai", 3600.0, Some(2040.0)),
        ];
        let mut three = sept3.clone();
        three.push(down("deepseek", 4800.0, Some(3600.0)));
        let cases: Vec<(&str, f64, Vec<&str>, Vec<Outage>)> = vec![
            ("sept3 two providers", D, vec![SONNET, SOL], sept3),
            ("sept3 three providers", D, vec![SONNET, SOL, DS], three),
            (
                "two anthropic runs",
                2000.0,
                vec![SONNET, SOL],
                vec![
                    down("anthropic", 110.0, Some(600.0)),
                    down("anthropic", 1010.0, Some(200.0)),
                ],
            ),
            (
                "partial primary",
                D,
                vec![SONNET, SOL],
                vec![
                    down("anthropic", 0.0, None).with_error_rate(0.5),
                    down("openai", 3600.0, Some(2040.0)),
                ],
            ),
            (
                "close cuts, partial fallback",
                2000.0,
                vec![SONNET, SOL, DS],
                vec![
                    down("anthropic", 0.0, None),
                    down("openai", 500.0, Some(7.0)).with_error_rate(0.6),
                    down("deepseek", 503.0, Some(600.0)),
                ],
            ),
        ];
        let windows: u64 = std::env::var("FALLCOST_MEASURE_WINDOWS")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(64);
        for (name, window, models, outages) in cases {
            let c = chain(&models);
            let i = incident(window, 1.0, outages);
            let o = price(&r, &c, &i, Pattern::Sequential).unwrap();
            let segs = i.timeline.as_ref().unwrap().chain_segments(&link_refs(&c));
            let runs = primary_down_runs(&segs);
            let ((cold, cold_se), (writes, writes_se)) =
                placement_means(&segs, &runs, i.requests() as usize, window, windows);
            println!(
                "{name}: cold starts exact {cold:.2} ± {cold_se:.2} (1 s.e.), analytic {:.3}; fail-back writes exact {writes:.2} ± {writes_se:.2}, analytic {:.3}",
                o.cold_starts, o.failback_writes
            );
            assert!(
                (cold - o.cold_starts).abs() <= 4.0 * cold_se + 0.02,
                "{name}: {cold}"
            );
            assert!(
                (writes - o.failback_writes).abs() <= 4.0 * writes_se + 0.02,
                "{name}: {writes}"
            );
        }
    }
}
