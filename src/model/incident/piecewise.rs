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
//!   link. A hedge with a drilled leg sends the other alone, then the links after it in turn;
//! - **slow** (a latency factor f): the link's latency model scaled by f, so its trip rate
//!   P(f·L > T) where the trip rate comes from a given latency model (a trip rate given as a
//!   number is kept; the default latency model drives no trips, MODEL.md §7), and the hedge's w
//!   where it came from the latency models.
//!
//! Cache figures follow the segment-local session law of docs/timeline-notes.md: session j
//! (requests jL .. jL + L − 1, the last one shorter when L does not divide N) is counted in the
//! segment where its first request falls (request i at time i·D/N) and sees that segment's
//! states throughout. Cold starts on a fallback model are MODEL.md §6's per session with the
//! segment's answer share s; a warm model (the primary, a hedge's second leg) in a partial
//! outage re-warms by the same law from a warm start ([`rewarm_unwarmed`]). Fail-back writes:
//! per maximal run of segments in which the primary's model answers nothing (down with e = 1,
//! or drilled) and some other link answers, longer than the primary's cache TTL, the sessions
//! starting in the run rewrite the primary's cache once ([`failback`]). With one outage of the
//! primary's provider over the whole window this is the shorthand exactly (one segment, ⌈N/L⌉
//! sessions). A session straddling a cut is counted with the states of the segment it starts
//! in, so the cold starts and fail-back writes are off by at most one session per cut and
//! model (measured: docs/MODEL.md §6, "Timelines"); every other figure is an exact expectation.
//!
//! A circuit breaker has no closed form on a timeline (MODEL.md §8): [`evaluate`] returns
//! `None` for such a chain, and reports take its figures from the incident simulator.

use crate::model::latency;
use crate::model::timeline::{ChainSegment, LinkRef, LinkState, OutageFailure, Timeline};

use super::super::cost::first_state;
use super::super::hedge::Hedge;
use super::super::policy::{self, CapCount, Entry, PolicyOutcome};
use super::super::{Caching, Chain, FailureMode, Incident, Pattern, Request};
use super::{
    IncidentOutcome, Sessions, Span, Totals, WindowLink, add_head, hedge_leg, in_sequence, outcome,
    tail_cap, window_links,
};

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
    let mut totals = Totals::default();
    for seg in timeline.chain_segments(&link_refs(chain)) {
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
        let mut t = segment(request, here, &span, &seg, &base, sessions, pattern);
        rewarm(request, &span, &seg, &base, sessions, &mut t);
        add(&mut totals, t);
    }
    let failback = failback(request, chain, incident, timeline, pattern);
    Some(outcome(
        request,
        chain,
        incident,
        totals,
        n.div_ceil(l),
        failback,
        None,
    ))
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
    sessions: Sessions,
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
            &[(Entry::FRESH, 1.0)],
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
        // A drilled leg is not sent: the other goes alone, then the rest in turn.
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel
            if !(states[base[0].index].attempted() && states[base[1].index].attempted()) =>
        {
            sequence(&live, CapCount::After(None))
        }
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => {
            let cancel = pattern == Pattern::HedgedTakeFirst;
            let mut heads: Vec<(f64, PolicyOutcome)> = Vec::new();
            let mut entries: Vec<(Entry, f64)> = Vec::new();
            for (w, legs) in variants(&base[..2], states) {
                let leg =
                    |l: &WindowLink| hedge_leg(request, chain, l, span.modes[l.index], cancel, 1.0);
                let race = Hedge::new(chain, pattern, leg(&legs[0]), leg(&legs[1]))
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

/// The cold starts of a warm model (the primary; a hedge's second leg) in a partial outage
/// in the segment: its sessions start warm and re-warm when an answer comes after the cache
/// expired ([`rewarm_unwarmed`]), each such answer a cold start (docs/timeline-notes.md,
/// item 2).
fn rewarm(
    request: &Request,
    span: &Span,
    seg: &ChainSegment,
    base: &[WindowLink],
    sessions: Sessions,
    t: &mut Totals,
) {
    if t.answered.is_empty() || span.requests <= 0.0 {
        return;
    }
    let mut done: Vec<&str> = Vec::new();
    for l in base.iter().filter(|l| l.starts_warm) {
        let id = l.price.id.as_str();
        if done.contains(&id) {
            continue;
        }
        done.push(id);
        let of_model = || base.iter().filter(|x| x.price.id == id);
        let partial = of_model().any(|x| {
            let p = seg.states[x.index].failure_probability();
            p > 0.0 && p < 1.0
        });
        if !partial || l.price.caching == Caching::None {
            continue;
        }
        let s: f64 = of_model().map(|x| t.answered[x.index]).sum::<f64>() / span.requests;
        if s <= 0.0 || s >= 1.0 {
            continue;
        }
        let share = l.price.cache_ttl_s / span.window_s;
        let cold = sessions.sum(|len| s * rewarm_unwarmed(s, len, span.arrivals, share));
        t.cold_starts += cold;
        t.cold_start += cold * request.premium_over_warm(l.price, first_state(l.price));
    }
}

/// The expected requests of a session of `len` made while a model's cache is not warm, for a
/// session that starts warm there (an answer just before its first request, as on the
/// primary) and a model that answers with probability `s`, the window's `arrivals` = N
/// requests uniform on [0, D], `share` = TTL / D: MODEL.md §6's law with the warm start's term,
///
/// ```text
/// P(warm at k) = Σ_{d=1..k} s·(1−s)^(d−1)·G(d) + (1−s)^k·G(k+1),   G(d) = P(Bin(N, TTL/D) ≥ d)
/// ```
///
/// summed as Σ_{k<len} (1 − P(warm at k)). At λ·TTL ≫ L (λ = 1, TTL 300 s, L = 20) G ≈ 1 and
/// this is ~0: a partial outage costs the primary no cache.
fn rewarm_unwarmed(s: f64, len: f64, arrivals: f64, share: f64) -> f64 {
    if s >= 1.0 || share.is_nan() || share >= 1.0 {
        return 0.0;
    }
    let (n, p) = (arrivals, share.max(0.0));
    if p <= 0.0 {
        return len;
    }
    let ln_odds = p.ln() - (-p).ln_1p();
    let mut ln_pmf = n * (-p).ln_1p(); // ln P(Bin = m)
    let mut m = 0.0;
    let mut g = (1.0 - ln_pmf.exp()).max(0.0); // G(k + 1)
    let mut settled = 0.0; // Σ_{d ≤ k} s·(1−s)^(d−1)·G(d)
    let mut miss = 1.0; // (1−s)^k
    let mut total = 0.0;
    let mut k = 0.0;
    while k < len {
        total += (1.0 - settled - miss * g).max(0.0);
        settled += s * miss * g;
        miss *= 1.0 - s;
        k += 1.0;
        // G(k + 1) = G(k) − P(Bin = k)
        if m + 1.0 <= n {
            ln_pmf += (n - m).ln() - (m + 1.0).ln() + ln_odds;
            m += 1.0;
            g = (g - ln_pmf.exp()).max(0.0);
        } else {
            g = 0.0;
        }
        if miss < 1e-17 || g < 1e-17 {
            // no more terms: every later request is unwarmed with the same probability
            total += (len - k).max(0.0) * (1.0 - settled).max(0.0);
            break;
        }
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
    if to.answered.len() < t.answered.len() {
        to.answered.resize(t.answered.len(), 0.0);
    }
    for (a, x) in to.answered.iter_mut().zip(&t.answered) {
        *a += x;
    }
}

/// The fail-back writes of `pattern` on `chain` over `timeline`: (USD, sessions). Per maximal
/// run of segments in which the primary's model answers nothing (every link of it down with
/// error rate 1, or drilled) and some other link the cost cap allows is tried and not down
/// for good, a run longer than the primary's cache TTL makes the sessions starting in it
/// rewrite the primary's cache once on their way back (MODEL.md §6's S for one run over the
/// whole window); a shorter run writes nothing. No fallback (or no caching) writes nothing.
pub(super) fn failback(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    timeline: &Timeline,
    pattern: Pattern,
) -> (f64, f64) {
    let primary = &chain.links[0].price;
    if pattern == Pattern::NoFallback || primary.caching == Caching::None {
        return (0.0, 0.0);
    }
    let allowed = policy::allowed_links(request, chain);
    let n = incident.requests();
    let l = incident.session_length.max(1);
    let d = timeline.window_s();
    let (mut writes, mut run_s, mut run_sessions, mut left) = (0u64, 0.0, 0u64, false);
    let mut close = |run_s: f64, run_sessions: u64, left: bool| {
        if left && run_s > primary.cache_ttl_s {
            writes += run_sessions;
        }
    };
    for seg in timeline.chain_segments(&link_refs(chain)) {
        let down = |i: usize| seg.states[i].failure_probability() >= 1.0;
        let silent = (0..chain.links.len())
            .filter(|&i| chain.links[i].price.id == primary.id)
            .all(down);
        if silent {
            run_s += seg.len_s();
            run_sessions += sessions_in(seg.start_s, seg.end_s, n, l, d).count();
            left |= allowed
                .iter()
                .any(|&i| chain.links[i].price.id != primary.id && !down(i));
        } else {
            close(run_s, run_sessions, left);
            (run_s, run_sessions, left) = (0.0, 0, false);
        }
    }
    close(run_s, run_sessions, left);
    let writes = writes as f64;
    (
        writes * request.premium_over_warm(primary, first_state(primary)),
        writes,
    )
}

#[cfg(test)]
mod tests {
    use super::super::evaluate as price;
    use super::*;
    use crate::model::cost::tests::{july, req, set_failure_rates};
    use crate::model::timeline::{Outage, Target};
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
            Target::Provider(provider.into()),
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
                        Target::Provider("anthropic".into()),
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
    /// 317.376. Sessions start every 20 s: 180 in [0, 3600), 102 in OpenAI's minutes, 276
    /// after: 456 cold starts on Sol (× 0.0972 = 44.3232); the primary answers nothing all
    /// window: 558 fail-back writes (× 0.1272 = 70.9776). Total 432.6768. Attempts: every
    /// request tries both links, none answers 2,040 of them: 22,320 − 9,120 = 13,200 wasted.
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
        assert!(close(o.cold_starts, 456.0, 1e-9), "{o:?}");
        assert!(close(o.cold_start, 456.0 * SOL_COLD, 1e-9));
        assert_eq!(o.failback_writes, 558.0);
        assert!(close(o.failback, 558.0 * SONNET_WRITE, 1e-9));
        assert!(close(o.total, 432.6768, 1e-9), "{}", o.total);
        assert!(close(o.wasted_attempts, 13_200.0, 1e-9));
        // Fast failures take 0.5 s: 11,160 on Sonnet + 2,040 on Sol = 13,200 × 0.5 s.
        assert!(close(o.dead_time_mean_s, 13_200.0 * 0.5 / D, 1e-12));

        // A third provider (DeepSeek, down 4,800-8,400 s as the notes' Grok) answers OpenAI's
        // minutes but the 840 s all three are down: 1,200 answered by it, 840 failed. Its cold
        // start is free (no cached price: warm bills the prefix at input, as cold does), its
        // 60 sessions in [3600, 4800) are cold starts: 516 in all.
        let mut three = outages;
        three.push(down("deepseek", 4800.0, Some(3600.0)));
        let c = chain(&[SONNET, SOL, "deepseek/deepseek-v4-flash"]);
        let o = price(&r, &c, &incident(D, 1.0, three), Pattern::Sequential).unwrap();
        assert!(close(o.failed_requests, 840.0, 1e-9), "{o:?}");
        let ds = (60000.0 * 0.14 + 1200.0 * 0.28) / 1e6; // 0.008736
        assert!(close(o.window, 9120.0 * C + 1200.0 * ds, 1e-9), "{o:?}");
        assert!(close(o.cold_starts, 456.0 + 60.0, 1e-9), "{o:?}");
        assert!(close(o.cold_start, 456.0 * SOL_COLD, 1e-9));
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
        assert!(close(o.failback, 558.0 * SONNET_WRITE, 1e-9));
    }

    /// A partial outage: Anthropic failing half its requests (e = 0.5) all window, OpenAI down
    /// 2,040 s. Sonnet answers half of everything, 5,580; Sol half of the rest outside
    /// OpenAI's minutes, 0.5 × 9,120 = 4,560; failed 0.5 × 2,040 = 1,020. Window (5,580 +
    /// 4,560) × 0.0348 = 352.872. Attempts 11,160 + 5,580 = 16,740, wasted 16,740 − 10,140 =
    /// 6,600. Sol answers a session's request with s = 0.5 in its 456 sessions: cold starts
    /// 456 · (1 − 0.5²⁰) (its 600 s TTL never expires at λ = 1: G = 1 to 1e-200). Sonnet keeps
    /// answering: no fail-back run, no writes; its cache never expires (λ·TTL = 300 ≫ 20): no
    /// primary cold starts.
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
        let cold = 456.0 * (1.0 - 0.5f64.powi(20));
        assert!(close(o.cold_starts, cold, 1e-9), "{o:?}");
        assert!(close(o.cold_start, cold * SOL_COLD, 1e-9));
        assert_eq!((o.failback, o.failback_writes), (0.0, 0.0));
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
            Target::Provider("anthropic".into()),
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
            Target::Provider("anthropic".into()),
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
    /// writes its 30 sessions back, the second none. A failing live fallback (q = 0.1) stays
    /// exact: Sol answers 0.9 of the 800 s down, 720 requests, and 80 fail.
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
        assert_eq!(o.failback_writes, 30.0);
        assert!(close(o.failed_requests, 80.0, 1e-9));
        assert!(close(o.window, 1920.0 * C, 1e-9), "{o:?}");
        // 40 sessions start in the 800 s down: 40 · (1 − 0.1²⁰) cold starts on Sol
        assert!(close(o.cold_starts, 40.0 * (1.0 - 0.1f64.powi(20)), 1e-9));
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

    /// The re-warm law by hand: s = 0.5, three requests, N = 10 arrivals, TTL/D = 0.1:
    /// G(1) = 1 − 0.9¹⁰, G(2) = G(1) − 10·0.1·0.9⁹, G(3) = G(2) − 45·0.01·0.9⁸;
    /// P(warm at 0) = G(1), at 1: s·G(1) + (1 − s)·G(2), at 2: s·G(1) + s(1 − s)·G(2) +
    /// (1 − s)²·G(3). The same as model::timeline's `unwarmed` with a warm start on that law.
    #[test]
    fn rewarm_by_hand() {
        let g1 = 1.0 - 0.9f64.powi(10);
        let g2 = g1 - 10.0 * 0.1 * 0.9f64.powi(9);
        let g3 = g2 - 45.0 * 0.01 * 0.9f64.powi(8);
        let want =
            (1.0 - g1) + (1.0 - 0.5 * g1 - 0.5 * g2) + (1.0 - 0.5 * g1 - 0.25 * g2 - 0.25 * g3);
        assert!(close(rewarm_unwarmed(0.5, 3.0, 10.0, 0.1), want, 1e-12));
        let timeline = crate::model::timeline::unwarmed(0.5, 3, &[g1, g2, g3], true);
        assert!(close(timeline, want, 1e-12));
        // no expiry, or always answered: never unwarmed
        assert_eq!(rewarm_unwarmed(0.5, 20.0, 11_160.0, 1.5), 0.0);
        assert_eq!(rewarm_unwarmed(1.0, 20.0, 11_160.0, 0.01), 0.0);
        // λ·TTL = 300 ≫ 20: ~0
        assert!(rewarm_unwarmed(0.5, 20.0, 11_160.0, 300.0 / D) < 1e-100);
    }

    /// The segment-local session count measured against the exact placement the simulators
    /// use (MODEL.md §6: N arrivals uniform on [0, D], a session L consecutive ones; each
    /// request sees the states at its own time, a partial outage drawn per request), on four
    /// timelines at λ = 1, L = 20, fast failures, no cache expiry within a session (λ·TTL ≫
    /// L). Exact: a session pays a cold start on a fallback model when one of its requests is
    /// answered there, and rewrites the primary's cache when one of its requests falls in a
    /// run (longer than the 300 s TTL) in which the primary answers nothing. The difference
    /// per cut and model stays within the bound of one session (docs/MODEL.md §6 records the
    /// numbers: `cargo test --lib segment_local_error -- --nocapture` prints them).
    #[test]
    fn segment_local_error_is_within_a_session_per_cut_and_model() {
        use crate::sim::rng::{chunk_rng, uniform};
        let r = req(0.0, 1200.0, 60000.0, 0.9);
        const DS: &str = "deepseek/deepseek-v4-flash";
        let cases: Vec<(&str, f64, Vec<&str>, Vec<Outage>)> = vec![
            (
                "sept3 two providers",
                D,
                vec![SONNET, SOL],
                vec![
                    down("anthropic", 0.0, None),
                    down("openai", 3600.0, Some(2040.0)),
                ],
            ),
            (
                "sept3 three providers",
                D,
                vec![SONNET, SOL, DS],
                vec![
                    down("anthropic", 0.0, None),
                    down("openai", 3600.0, Some(2040.0)),
                    down("deepseek", 4800.0, Some(3600.0)),
                ],
            ),
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
        ];
        let windows: u64 = std::env::var("FALLCOST_MEASURE_WINDOWS")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(64);
        for (name, window, models, outages) in cases {
            let c = chain(&models);
            let i = incident(window, 1.0, outages);
            let o = price(&r, &c, &i, Pattern::Sequential).unwrap();
            let t = i.timeline.as_ref().unwrap();
            let segs = t.chain_segments(&link_refs(&c));
            let n = i.requests() as usize;
            // the silent runs of the primary longer than its TTL
            let mut runs: Vec<(f64, f64)> = Vec::new();
            for s in &segs {
                if s.p[0] >= 1.0 {
                    match runs.last_mut() {
                        Some(r) if r.1 == s.start_s => r.1 = s.end_s,
                        _ => runs.push((s.start_s, s.end_s)),
                    }
                }
            }
            runs.retain(|r| r.1 - r.0 > 300.0);
            let (mut cold, mut writes, mut cold_sq) = (0.0, 0.0, 0.0);
            for w in 0..windows {
                let before = cold;
                let mut rng = chunk_rng(7, 14, w);
                let mut times: Vec<f64> = (0..n).map(|_| uniform(&mut rng) * window).collect();
                times.sort_by(f64::total_cmp);
                for session in times.chunks(20) {
                    let mut answered = vec![false; models.len()];
                    let mut written = false;
                    for &x in session {
                        let seg = segs
                            .iter()
                            .find(|s| x < s.end_s)
                            .unwrap_or(&segs[segs.len() - 1]);
                        for (k, &p) in seg.p.iter().enumerate() {
                            if p <= 0.0 || (p < 1.0 && uniform(&mut rng) >= p) {
                                answered[k] = true;
                                break;
                            }
                        }
                        written |= runs.iter().any(|r| r.0 <= x && x < r.1);
                    }
                    cold += answered[1..].iter().filter(|&&a| a).count() as f64;
                    writes += f64::from(u8::from(written));
                }
                cold_sq += (cold - before) * (cold - before);
            }
            let se = ((cold_sq / windows as f64 - (cold / windows as f64).powi(2))
                / (windows - 1) as f64)
                .sqrt();
            let (cold, writes) = (cold / windows as f64, writes / windows as f64);
            let cuts = (segs.len() - 1) as f64;
            println!(
                "{name}: cold starts exact {cold:.2} ± {se:.2} (1 s.e.), segment-local {:.2}; fail-back writes exact {writes:.2}, segment-local {:.2}; {cuts} cuts",
                o.cold_starts, o.failback_writes
            );
            let bound = cuts * (models.len() - 1) as f64;
            assert!(
                (cold - o.cold_starts).abs() <= bound.max(0.5),
                "{name}: {cold}"
            );
            assert!(
                (writes - o.failback_writes).abs() <= cuts.max(0.5),
                "{name}: {writes}"
            );
        }
    }
}
