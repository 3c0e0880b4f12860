//! An outage window on the primary's provider (MODEL.md §6).
//!
//! N = λ·D requests arrive in the window, in S = ⌈N / L⌉ sessions of L requests (the last may be
//! shorter). Every model of the primary's provider is down; other links keep their steady-state
//! failure rates. With instant detection and healthy fallbacks this reduces to MODEL.md §6:
//!
//! ```text
//! normal   = N · warm(primary)
//! window   = N · warm(fallback)                       (+ N · W(primary) for gray failures)
//! cold     = S · (first(fallback) − warm(fallback))   first = write or cold per caching mode
//! failback = S · (first(primary) − warm(primary))     only if D > the primary's cache TTL
//! total    = window + cold + failback;   multiplier = total / normal
//! ```
//!
//! In general a session's cache on a model (one per model, however often it is listed) is
//! cold until that model first answers one of the session's requests, and expires when the
//! session's next request there comes more than its TTL after the last one it answered. A
//! request succeeds on the model with probability s (summed over its links), so with
//! U(len) the expected requests of a session made while the cache is not warm
//! (MODEL.md §6; (1 − (1 − s)^len)/s without expiry), a session pays s·U(len) cold
//! starts, and failed attempts made while cold are billed in the cold (or write) state, as a
//! success would have been, U(len) times their per-request expectation. A dead fallback never
//! warms: its gray attempts are billed in that state, their premium over warm a cold-start
//! cost.
//!
//! Hedged patterns: both legs fire on every request (a delayed hedge sends the backup when the
//! dead primary fails, or at `hedge_delay_s` if it still hangs then). The second leg has been
//! receiving every request all along, so it is warm (no cold starts). The dead primary's leg
//! fails fast (billed 0) or hangs until the fallback answers and is then cancelled (take-first:
//! the input side, X; no-cancel: it hangs to the timeout and bills as a gray attempt, W). The
//! legs' error classes and timing are [`super::hedge`]'s, as in steady state; the dead time
//! counts a delayed backup's wait.

use serde::Serialize;

use super::cost::{CacheState, Request, first_state, warm_state};
use super::hedge::{Hedge, HedgeLeg};
use super::policy::{self, CapCount, LinkPlan, PlanEntry, PolicyOutcome, WarmPolicy};
use super::{Caching, Chain, FailureMode, Incident, ModelPrice, Pattern};

mod closed_form;
mod inert;
mod piecewise;

pub use closed_form::{NoClosedForm, TimelineBound, no_closed_form, timeline_bound};
pub use inert::{InertBreaker, MAX_FLIP_PROBABILITY, inert_breaker};

/// Expected figures of one pattern over the whole incident window. Money in USD.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct IncidentOutcome {
    /// N: requests in the window.
    pub requests: u64,
    /// S: sessions in the window.
    pub sessions: u64,
    /// The primary-alone bill for the same requests, healthy and warm.
    pub normal: f64,
    /// Spend on the window's requests at warm prices, failed attempts included.
    pub window: f64,
    /// The premium of sessions' first requests on a cold fallback (cold or write over warm).
    pub cold_start: f64,
    /// The premium of rewriting the primary's cache when sessions fail back.
    pub failback: f64,
    /// window + cold_start + failback.
    pub total: f64,
    /// total / normal; `None` when the normal bill is 0 (a free primary).
    pub multiplier: Option<f64>,
    /// Expected requests that failed on every link.
    pub failed_requests: f64,
    /// Expected attempts that did not produce the answer (failed attempts, hedge losers).
    pub wasted_attempts: f64,
    /// Expected USD spent on those attempts.
    pub wasted: f64,
    /// Expected sessions that started cold on a fallback (summed over fallback links); on a
    /// timeline also the re-warms of the primary's model where it answers some requests but not
    /// all (`incident::piecewise`).
    pub cold_starts: f64,
    /// Sessions that rewrite the primary's cache on the way back.
    pub failback_writes: f64,
    /// Mean seconds per request from its start until the answering attempt starts (for a
    /// failed request, until its final error): failed attempts, backoff, and a hedge's wait
    /// for its legs (a delayed backup's delay, the slower failure of two legs).
    pub dead_time_mean_s: f64,
    /// With a circuit breaker: what it did (from [`evaluate`], the rough closed form; from
    /// `crate::sim::expected`, the simulated figures reports print).
    pub breaker: Option<BreakerFigures>,
    /// Expected attempts a link's rate limit refused (`[capacity]`, MODEL.md §11): 0 from the
    /// closed forms (they price chains without limits), counted by the incident simulator.
    pub rate_limited: f64,
    /// `rate_limited` per link of the chain, in chain order (empty where no link has a limit).
    pub rate_limited_by: Vec<f64>,
    /// Expected requests whose route passed over a fallback that cannot serve them (its
    /// context window, a capability; MODEL.md §11), each once.
    pub refused: f64,
}

impl IncidentOutcome {
    /// These figures as the report's figure set, in USD and counts per window.
    pub fn figures(&self) -> crate::figures::IncidentFigures<f64> {
        crate::figures::IncidentFigures {
            total_usd: self.total,
            normal_usd: Some(self.normal),
            multiplier: self.multiplier,
            window_usd: self.window,
            cold_start_usd: self.cold_start,
            failback_usd: self.failback,
            failed_requests: self.failed_requests,
            wasted_attempts: self.wasted_attempts,
            wasted_usd: self.wasted,
            cold_starts: self.cold_starts,
            failback_writes: self.failback_writes,
            excess_usd: self.total - self.normal,
            answered_requests: self.requests as f64 - self.failed_requests,
            rate_limited_attempts: self.rate_limited,
            refused_requests: self.refused,
        }
    }
}

/// The window's sessions: `full` sessions of `length` requests and one of `last` (0: none).
#[derive(Debug, Clone, Copy)]
struct Sessions {
    full: u64,
    length: u64,
    last: u64,
}

impl Sessions {
    fn new(requests: u64, length: u64) -> Sessions {
        Sessions {
            full: requests / length,
            length,
            last: requests % length,
        }
    }

    fn count(&self) -> u64 {
        self.full + u64::from(self.last > 0)
    }

    /// Σ over sessions of g(session length).
    fn sum(&self, g: impl Fn(f64) -> f64) -> f64 {
        let last = if self.last > 0 {
            g(self.last as f64)
        } else {
            0.0
        };
        self.full as f64 * g(self.length as f64) + last
    }
}

/// A link's role in an outage window: where it sits, whether it is down, whether it starts
/// warm. The one description of an incident link: the analytic engine's window link here and
/// the simulators' links ([`crate::sim::incident`]) both hold one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkRole {
    /// Its position in the chain.
    pub index: usize,
    /// Down: on the shorthand's dead provider (the simulators), or down in the segment or
    /// request variant being priced (the analytic engine on a timeline).
    pub dead: bool,
    /// Warm from the window's start (the primary's model; the second hedge leg's), so no
    /// cold starts.
    pub starts_warm: bool,
}

/// One link as the window sees it: its price and its [`LinkRole`] (read through `Deref`).
#[derive(Debug, Clone, Copy)]
struct WindowLink<'a> {
    price: &'a ModelPrice,
    role: LinkRole,
}

impl std::ops::Deref for WindowLink<'_> {
    type Target = LinkRole;

    fn deref(&self) -> &LinkRole {
        &self.role
    }
}

impl WindowLink<'_> {
    /// The same link, down (`dead`) or not.
    fn with_dead(self, dead: bool) -> Self {
        WindowLink {
            role: LinkRole { dead, ..self.role },
            ..self
        }
    }
}

/// Totals over the window (USD, requests, attempts, seconds) of the requests' attempts.
#[derive(Debug, Default)]
struct Totals {
    dead_time: f64,
    window: f64,
    cold_start: f64,
    cold_starts: f64,
    wasted_attempts: f64,
    wasted: f64,
    failed: f64,
    /// Requests whose route passed over a fallback that cannot serve them
    /// ([`PolicyOutcome::refused_hits`]).
    refused: f64,
    /// Per chain link, the requests it answered (empty when nothing was tried).
    answered: Vec<f64>,
    /// The cache inputs of the models not warm from the start, when [`in_sequence`] was asked
    /// to leave the session law to its caller (a timeline's sessions straddle segments).
    caches: Vec<ModelShare>,
}

/// The part of the window an [`in_sequence`] call prices: the whole window (the shorthand) or
/// one segment of a timeline ([`piecewise`]).
struct Span<'a> {
    /// Requests in the span (N for the whole window).
    requests: f64,
    /// N: the window's arrivals, whose spacing gives the cache's gap law (MODEL.md §6).
    arrivals: f64,
    /// D: the window's length, seconds.
    window_s: f64,
    /// Per chain link: how its attempts fail where it is down.
    modes: &'a [FailureMode],
}

fn dead_cost(
    request: &Request,
    price: &ModelPrice,
    state: CacheState,
    chain: &Chain,
    mode: FailureMode,
) -> f64 {
    match mode {
        FailureMode::Fast => 0.0,
        FailureMode::Gray => request.partial_cost(price, state, chain.steady.gray_output_fraction),
    }
}

/// P(Bin(k, s) ≤ n) for k = 0, 1, … summed over k < len: the expected number of a session's
/// requests made before its (n+1)-th success on a link that answers with probability s.
fn requests_before_success(s: f64, n: u32, len: f64) -> f64 {
    if s <= 0.0 {
        return len;
    }
    if s >= 1.0 {
        return len.min(f64::from(n) + 1.0);
    }
    // pmf[j] = P(Bin(k, s) = j) for j ≤ n, updated k by k; stop once the tail is negligible.
    let mut pmf = vec![0.0; n as usize + 1];
    pmf[0] = 1.0;
    let mut total = 0.0;
    let mut k = 0.0;
    while k < len {
        let cdf: f64 = pmf.iter().sum();
        if cdf < 1e-18 {
            break;
        }
        total += cdf;
        for j in (0..pmf.len()).rev() {
            pmf[j] = pmf[j] * (1.0 - s) + if j > 0 { pmf[j - 1] * s } else { 0.0 };
        }
        k += 1.0;
    }
    total
}

/// E[min(m, n)] and P(m > n) for m ~ Bin(len, s): the cold requests and the write of a session
/// under `warm_fallback = { after = n }`.
fn after_n_moments(s: f64, n: u32, len: f64) -> (f64, f64) {
    if s >= 1.0 {
        return (
            len.min(f64::from(n)),
            if len > f64::from(n) { 1.0 } else { 0.0 },
        );
    }
    if s <= 0.0 {
        return (0.0, 0.0);
    }
    // pmf of Bin(len, s) for j ≤ n by the recurrence pmf[j+1] = pmf[j]·(len−j)/(j+1)·s/(1−s).
    let mut pmf = (1.0 - s).powf(len);
    let mut cdf = 0.0;
    let mut e_min = 0.0;
    for j in 0..=n {
        let jf = f64::from(j);
        if jf > len {
            break;
        }
        cdf += pmf;
        e_min += jf * pmf;
        pmf *= (len - jf) / (jf + 1.0) * s / (1.0 - s);
    }
    let above = (1.0 - cdf).max(0.0);
    (e_min + f64::from(n) * above, above)
}

/// Totals over the span for links tried in sequence under the chain's policy, by the
/// requests that reach the first of them: per way of entering them (attempts already made,
/// known bad), the share of the span's requests that enter so. `variants`: the links, each
/// with the share of requests that find them so (one variant weighing 1 but in a partial
/// outage, where a request finds a link down with the outage's error rate, [`piecewise`]); every
/// variant holds the same links in the same order, only `dead` differs.
#[allow(clippy::too_many_arguments)]
fn in_sequence(
    request: &Request,
    chain: &Chain,
    span: &Span,
    variants: &[(f64, Vec<WindowLink>)],
    entries: &[(PlanEntry, f64)],
    sessions: Option<Sessions>,
    cap: CapCount,
    breaker: Option<(f64, f64)>,
) -> Totals {
    if entries.is_empty() || variants.is_empty() {
        return Totals::default();
    }
    let n = span.requests;
    let links = &variants[0].1;
    let seq = Sequence {
        request,
        chain,
        span,
        variants,
        entries,
        cap,
        breaker,
    };
    let dw = seq.over_entries(true);
    let df = seq.over_entries(false);
    let mut t = Totals {
        window: n * dw.cost,
        wasted: n * dw.wasted_cost,
        wasted_attempts: n * (dw.attempts - dw.answered_by.iter().sum::<f64>()),
        failed: n * dw.failed,
        refused: n * dw.refused_hits,
        dead_time: n * dw.dead_time_s,
        answered: dw.answered_by.iter().map(|a| n * a).collect(),
        ..Totals::default()
    };
    seq.add_breaker_retries(&mut t);
    t.caches = model_shares(links, variants, &dw, &df);
    if let Some(sessions) = sessions {
        let caches = std::mem::take(&mut t.caches);
        session_law(request, chain, span, &caches, sessions, &mut t);
    }
    t
}

/// What an [`in_sequence`] call prices: the chain's links tried in sequence over a span, by
/// variant and way in, under a call cap and, with a breaker, (share of requests that try the
/// dead provider once, retries it lets through).
struct Sequence<'a> {
    request: &'a Request,
    chain: &'a Chain,
    span: &'a Span<'a>,
    variants: &'a [(f64, Vec<WindowLink<'a>>)],
    entries: &'a [(PlanEntry, f64)],
    cap: CapCount,
    breaker: Option<(f64, f64)>,
}

impl Sequence<'_> {
    /// The plans of `links` (warm-billed if `warm_billing`), without the dead ones if
    /// `skip_dead`, the dead ones tried once if `once`.
    fn plans(
        &self,
        links: &[WindowLink],
        warm_billing: bool,
        skip_dead: bool,
        once: bool,
    ) -> Vec<LinkPlan> {
        let warm_policy = self.chain.policy.warm_fallback;
        links
            .iter()
            .filter(|l| !(skip_dead && l.dead))
            .map(|l| LinkPlan {
                index: l.index,
                // A dead link that is not warm never answers: its gray attempts are billed in
                // the state a success there would have had (MODEL.md §3), the premium over
                // warm a cold-start cost, like a live link's first answer.
                state: if l.starts_warm || warm_billing {
                    warm_state(l.price)
                } else {
                    policy::unwarmed_state(l.price, warm_policy)
                },
                dead: l.dead.then_some(self.span.modes[l.index]),
                single: once && l.dead,
            })
            .collect()
    }

    /// The outcome of `links` (one variant) for the requests entering by `entry`.
    fn run(&self, links: &[WindowLink], warm_billing: bool, entry: PlanEntry) -> PolicyOutcome {
        let through = policy::evaluate_plan(
            self.request,
            self.chain,
            &self.plans(links, warm_billing, false, false),
            entry,
            self.cap,
        );
        match self.breaker {
            Some((tried, extra)) if links.iter().any(|l| l.dead) => {
                self.run_with_breaker(links, warm_billing, entry, tried, extra)
            }
            _ => through,
        }
    }

    /// [`Sequence::run`] with a breaker on the dead provider: a share `tried` of the requests
    /// try it once, the others skip it; `extra` retries get through before it opens.
    fn run_with_breaker(
        &self,
        links: &[WindowLink],
        warm_billing: bool,
        entry: PlanEntry,
        tried: f64,
        extra: f64,
    ) -> PolicyOutcome {
        let (request, chain, cap, n) = (self.request, self.chain, self.cap, self.span.requests);
        let skip = policy::evaluate_plan(
            request,
            chain,
            &self.plans(links, warm_billing, true, false),
            entry,
            cap,
        );
        // Requests the breaker lets through try the dead provider once; their retries
        // there find it open (the few that start before it opens are `extra`).
        let probe = policy::evaluate_plan(
            request,
            chain,
            &self.plans(links, warm_billing, false, true),
            entry,
            cap,
        );
        // The requests that also retried before it opened have spent one more attempt
        // (which counts against `max_attempts`).
        let retried = (extra / n).min(tried);
        let probe_retried = policy::evaluate_plan(
            request,
            chain,
            &self.plans(links, warm_billing, false, true),
            PlanEntry {
                attempts: entry.attempts + 1,
                ..entry
            },
            cap,
        );
        policy::mix(&[
            (tried - retried, &probe),
            (retried, &probe_retried),
            (1.0 - tried, &skip),
        ])
    }

    /// Every variant and way in, weighted by its share: the expectation over all the span's
    /// requests.
    fn over_entries(&self, warm_billing: bool) -> PolicyOutcome {
        let runs: Vec<(f64, PolicyOutcome)> = self
            .variants
            .iter()
            .flat_map(|(weight, links)| {
                self.entries.iter().map(move |&(entry, reach)| {
                    (weight * reach, self.run(links, warm_billing, entry))
                })
            })
            .collect();
        let parts: Vec<(f64, &PolicyOutcome)> = runs.iter().map(|(r, o)| (*r, o)).collect();
        policy::mix(&parts)
    }

    /// The retries the breaker let through before it opened, on the first dead link, added
    /// to `t`.
    fn add_breaker_retries(&self, t: &mut Totals) {
        let (request, chain) = (self.request, self.chain);
        let links = &self.variants[0].1;
        let (Some((_, extra)), Some(dead)) = (self.breaker, links.iter().find(|l| l.dead)) else {
            return;
        };
        let state = if dead.starts_warm {
            warm_state(dead.price)
        } else {
            CacheState::Cold
        };
        let mode = self.span.modes[dead.index];
        let w = dead_cost(request, dead.price, state, chain, mode);
        let d = match mode {
            FailureMode::Fast => chain.steady.fast_fail_s,
            FailureMode::Gray => chain.timeout_s(dead.index),
        };
        t.window += extra * w;
        t.wasted += extra * w;
        t.wasted_attempts += extra;
        t.dead_time += extra * (d + chain.policy.backoff.mean_delay_s(0));
    }
}

/// One model's cache inputs over a span, per request of the span (one cache per model: a
/// model listed twice shares it): the share of requests it answers (at any of its positions),
/// and the extra cost of the failed attempts made on it while unwarmed (the unwarmed billing
/// over warm), at positions where it answers some requests (`extra`) and where it is down for
/// every request (`extra_down`: it never answers there, so the premium of its gray attempts
/// over warm, a write for an explicit fallback warmed at once, is a cold-start cost).
#[derive(Debug, Clone, Copy, PartialEq)]
struct ModelShare {
    /// The chain index of a link of the model (its price).
    link: usize,
    s: f64,
    extra: f64,
    extra_down: f64,
}

/// The [`ModelShare`]s of the links not warm from the start, from the span's outcome billed
/// warm (`dw`) and unwarmed (`df`).
fn model_shares(
    links: &[WindowLink],
    variants: &[(f64, Vec<WindowLink>)],
    dw: &PolicyOutcome,
    df: &PolicyOutcome,
) -> Vec<ModelShare> {
    let mut models: Vec<ModelShare> = Vec::new();
    for (at, l) in links.iter().enumerate().filter(|(_, l)| !l.starts_warm) {
        let i = l.index;
        let extra_fail = df.failed_cost[i] - dw.failed_cost[i];
        let down = variants.iter().all(|(_, v)| v[at].dead);
        let of_model = |m: &ModelShare| {
            links
                .iter()
                .any(|x| x.index == m.link && x.price.id == l.price.id)
        };
        let m = match models.iter().position(of_model) {
            Some(at) => &mut models[at],
            None => {
                models.push(ModelShare {
                    link: i,
                    s: 0.0,
                    extra: 0.0,
                    extra_down: 0.0,
                });
                models.last_mut().expect("pushed")
            }
        };
        if down {
            m.extra_down += extra_fail;
        } else {
            m.s += dw.answered_by[i];
            m.extra += extra_fail;
        }
    }
    models
}

/// Adds the cache figures of `models` over the span's `sessions` to `t` (MODEL.md §5-§6): per
/// session, cold starts by the warm policy and the session law; the unwarmed failed attempts'
/// extra cost (window spend where the model answers, a cold-start cost where it never does).
fn session_law(
    request: &Request,
    chain: &Chain,
    span: &Span,
    models: &[ModelShare],
    sessions: Sessions,
    t: &mut Totals,
) {
    let n = span.requests;
    for m in models {
        let price = &chain.links[m.link].price;
        let (s, extra_fail) = (m.s, m.extra);
        // Never answers there: every attempt on it is unwarmed.
        t.cold_start += n * m.extra_down;
        t.wasted += n * m.extra_down;
        let cold = |len: f64| 1.0 - (1.0 - s).powf(len);
        match (price.caching, chain.policy.warm_fallback) {
            (Caching::Explicit, WarmPolicy::Never) => {
                t.cold_start += n * s * request.premium_over_warm(price, CacheState::Cold);
                t.cold_starts += sessions.sum(cold);
                t.window += n * extra_fail;
                t.wasted += n * extra_fail;
            }
            (Caching::Explicit, WarmPolicy::After(k)) => {
                let cold_premium = request.premium_over_warm(price, CacheState::Cold);
                let write_premium = request.premium_over_warm(price, CacheState::Write);
                t.cold_start += sessions.sum(|len| {
                    let (e_min, p_write) = after_n_moments(s, k, len);
                    e_min * cold_premium + p_write * write_premium
                });
                t.cold_starts += sessions.sum(cold);
                let unwarmed = sessions.sum(|len| requests_before_success(s, k, len));
                t.window += unwarmed * extra_fail;
                t.wasted += unwarmed * extra_fail;
            }
            _ => {
                // The cache expires when the gap to the session's last answer there exceeds
                // the TTL ([`unwarmed_requests`]).
                let share = cache_ttl_s(price) / span.window_s;
                let unwarmed = sessions.sum(|len| unwarmed_requests(s, len, span.arrivals, share));
                t.window += unwarmed * extra_fail;
                t.wasted += unwarmed * extra_fail;
                let cold_starts = s * unwarmed;
                t.cold_start += cold_starts * request.premium_over_warm(price, first_state(price));
                t.cold_starts += cold_starts;
            }
        }
    }
}

/// A model's cache TTL, seconds (infinite without caching: nothing expires).
fn cache_ttl_s(price: &ModelPrice) -> f64 {
    if price.caching == Caching::None {
        f64::INFINITY
    } else {
        price.cache_ttl_s
    }
}

/// The expected number of a session's `len` requests made while its cache on a model is not
/// warm (MODEL.md §6), for a model that answers a request with probability s, whose cache
/// expires TTL seconds after its last answer. The window holds `arrivals` = N requests placed
/// uniformly on [0, D] (a Poisson process conditioned on N, as the simulators place them), and
/// `share` = TTL / D (≥ 1, or infinite: no expiry). Request k is warm when the session's last
/// answer there, d requests earlier, was at most TTL ago. The session's requests are
/// consecutive arrivals, and the sum of d consecutive spacings of N uniform order statistics is
/// distributed as the d-th of them, Beta(d, N + 1 − d), so the gap is at most TTL with
/// probability G(d) = P(Binomial(N, TTL/D) ≥ d) (→ P(Poisson(λ·TTL) ≥ d) as N grows). The last
/// answer is d back with probability s(1−s)^(d−1), independently of the cache (an attempt's
/// outcome does not depend on it). A cache is kept between consecutive requests the model
/// answers, d = 1, whatever their gap (G(1) taken as 1, MODEL.md §6: the expiry of a normal
/// day's traffic is in the stated hit rate); it expires over a gap in which the model missed
/// one of the session's requests or more:
///
/// ```text
/// P(warm at k) = Σ_{d=1..k} s·(1−s)^(d−1)·G*(d)     G*(1) = 1, G*(d) = G(d) for d ≥ 2
/// unwarmed     = Σ_{k<len} (1 − P(warm at k))
/// ```
///
/// and the expected cold starts are s·unwarmed (a request answered while unwarmed). Without
/// expiry (G = 1) this is (1 − (1 − s)^len)/s, the first answer's index.
fn unwarmed_requests(s: f64, len: f64, arrivals: f64, share: f64) -> f64 {
    if s <= 0.0 {
        return len;
    }
    if share.is_nan() || share >= 1.0 {
        return (1.0 - (1.0 - s).powf(len)) / s;
    }
    // ln P(Binomial(N, p) = m), its running tail G(d) = 1 − P(Binomial ≤ d − 1).
    let (n, p) = (arrivals, share.max(0.0));
    let ln_odds = p.ln() - (-p).ln_1p();
    let mut ln_pmf = n * (-p).ln_1p();
    let mut cdf = 0.0; // P(Binomial ≤ d − 1)
    let mut warm = 0.0; // P(warm at k)
    let mut back = s; // s(1−s)^(d−1)
    let mut total = 0.0;
    let mut k = 0.0;
    while k < len {
        // request k: warm with the terms d = 1..k summed so far
        total += 1.0 - warm;
        k += 1.0;
        // add the term d = k for the next request
        if k - 1.0 < n {
            cdf += ln_pmf.exp();
            ln_pmf += (n - (k - 1.0)).ln() - k.ln() + ln_odds;
        } else {
            cdf = 1.0;
        }
        // G(1) = 1: a cache is kept between consecutive requests the model answers (MODEL.md
        // §6: a normal day's expiry between them is in the stated hit rate)
        let g = if k <= 1.0 { 1.0 } else { (1.0 - cdf).max(0.0) };
        let term = back * g;
        warm += term;
        back *= 1.0 - s;
        if term < 1e-17 && (g < 1e-17 || back < 1e-17) {
            // no more terms: the rest of the session is unwarmed with the same probability
            total += (len - k).max(0.0) * (1.0 - warm);
            break;
        }
    }
    total
}

/// The breaker's effect on the window, in a rough closed form. Reports do not print it: it
/// takes the opening and the probes' waits at their means and ignores links sharing the dead
/// provider, retries refused by an open breaker and live providers' breakers, and was off by
/// up to 25x (issue 10); with a breaker, reports take every incident figure from the
/// simulator instead (`crate::sim::expected`, labelled simulated). A failure on
/// the dead provider takes d seconds (the timeout for gray failures, `fast_fail_s` for fast
/// ones) and is recorded when it ends; requests keep arriving at λ meanwhile:
///
/// ```text
/// t_open = threshold/λ + d             the threshold-th request's failure is recorded
/// R      = λ·t_open                    requests that try the dead provider while it is closed
/// extra  = threshold  (with retries)   their retries that start before it opens
/// probes = (D − t_open) / (cooldown + d + 1/λ)   one half-open probe per cycle: the cooldown,
///                                      the wait for the next request, the probe's failure
/// attempts on the dead provider = R + extra + probes
/// ```
///
/// On the 2026-09-03 outage (λ = 1, threshold 5, cooldown 60 s): 5.5 + 181.4 = 186.9 attempts
/// with fast failures, 35 + 122.3 = 157.3 with gray ones (the Monte Carlo gives 186.5 ± 0.3 and
/// 157.4 ± 0.8).
///
/// Returns ((R + probes) / N, extra) and the figures.
pub fn breaker_bound(chain: &Chain, incident: &Incident) -> Option<((f64, f64), BreakerFigures)> {
    let b = chain.policy.breaker?;
    let n = incident.requests() as f64;
    if n <= 0.0 {
        return None;
    }
    let d = match incident.failure {
        FailureMode::Fast => chain.steady.fast_fail_s,
        FailureMode::Gray => chain.timeout_s(0),
    };
    let lambda = incident.requests_per_second;
    let k = f64::from(b.threshold);
    let t_open = k / lambda + d;
    let before = n.min(lambda * t_open);
    let dead_class = match incident.failure {
        FailureMode::Fast => super::policy::ErrorClass::ServerError,
        FailureMode::Gray => super::policy::ErrorClass::Timeout,
    };
    let extra = if chain.policy.retries_for(dead_class) > 0 {
        k.min(before)
    } else {
        0.0
    };
    let remaining = (incident.duration_s - t_open).max(0.0);
    let probes = (remaining / (b.cooldown_s + d + 1.0 / lambda)).min(n - before);
    Some((
        ((before + probes) / n, extra),
        BreakerFigures {
            dead_attempts: before + extra + probes,
            probes,
            open_s: (remaining - probes * (d + 1.0 / lambda)).max(0.0),
        },
    ))
}

/// What a circuit breaker did during the window.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct BreakerFigures {
    /// Attempts sent to the dead provider.
    pub dead_attempts: f64,
    /// Half-open probes sent.
    pub probes: f64,
    /// Seconds the breaker was in the open state: `cooldown_s` per opening, within the window
    /// (the half-open wait for a probe not counted).
    pub open_s: f64,
}

/// The primary-alone bill for the window's requests, healthy and warm, USD: N · the primary's
/// warm price (MODEL.md §6, the `normal` of the multiplier). Shared by both engines.
pub fn normal_bill(request: &Request, chain: &Chain, incident: &Incident) -> f64 {
    let primary = &chain.links[0].price;
    incident.requests() as f64 * request.success_cost(primary, warm_state(primary))
}

/// The fail-back writes of `pattern` after `incident`: (USD, sessions), as [`evaluate`] gives
/// them (MODEL.md §6, "Fail-back writes"): a session rewrites the primary's cache once per
/// silent run of the primary longer than its cache TTL in which one of its requests was
/// answered by another model. Shared by both engines (the simulators of the shorthand take it
/// from here; on a timeline the incident simulator counts them in time). `(0, 0)` where
/// [`evaluate`] has no figures.
pub fn failback(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
) -> (f64, f64) {
    evaluate(request, chain, incident, pattern)
        .map_or((0.0, 0.0), |o| (o.failback, o.failback_writes))
}

/// The shorthand's fail-back writes (USD, sessions): the primary's provider is down the whole
/// window, one silent run of D seconds; when D exceeds the primary's TTL, a session writes
/// unless every one of its requests failed (each fails with probability `failed_share`,
/// independently): Σ_sessions (1 − failed_share^len). No fallback, or a primary without
/// caching, writes nothing.
fn shorthand_failback(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
    failed_share: f64,
) -> (f64, f64) {
    let primary = &chain.links[0].price;
    let rewrites = pattern != Pattern::NoFallback
        && primary.caching != Caching::None
        && incident.duration_s > primary.cache_ttl_s;
    if !rewrites {
        return (0.0, 0.0);
    }
    let placed = crate::model::timeline::sessions::placements(
        &[],
        incident.requests(),
        incident.session_length.max(1),
    );
    let writes = piecewise::failback_writes(&placed, &[Some(0)], &[1.0 - failed_share], &[0.0]);
    (
        writes * request.premium_over_warm(primary, first_state(primary)),
        writes,
    )
}

/// The links of `chain` the cost cap allows, in order, as the window sees them: `dead` where
/// `down` says, warm from the start where the link's model is the primary's or, in a hedge,
/// the second leg's (the first fallback the cost cap allows: one cache per model, so a link of
/// a warm model shares its warm cache).
fn window_links<'a>(
    request: &Request,
    chain: &'a Chain,
    pattern: Pattern,
    down: impl Fn(&ModelPrice) -> bool,
) -> Vec<WindowLink<'a>> {
    let allowed = policy::allowed_links(request, chain);
    let warm_ids: Vec<&str> = allowed
        .iter()
        .take(if pattern.is_hedged() { 2 } else { 1 })
        .map(|&i| chain.links[i].price.id.as_str())
        .collect();
    allowed
        .iter()
        .map(|&index| {
            let price = &chain.links[index].price;
            WindowLink {
                price,
                role: LinkRole {
                    index,
                    dead: down(price),
                    starts_warm: warm_ids.contains(&price.id.as_str()),
                },
            }
        })
        .collect()
}

/// One leg of a hedge in the window, billed warm: its steady-state self, or down failing
/// `mode` (a dead take-first leg hanging until the other answers is cancelled: X; otherwise
/// W), sent to a share `tried` of the requests (a breaker refuses the rest).
fn hedge_leg(
    request: &Request,
    chain: &Chain,
    l: &WindowLink,
    mode: FailureMode,
    cancel: bool,
    tried: f64,
) -> HedgeLeg {
    let state = warm_state(l.price);
    if !l.dead {
        return HedgeLeg::steady(request, chain, l.index, state);
    }
    let w = dead_cost(request, l.price, state, chain, mode);
    let lost = match (mode, cancel) {
        (FailureMode::Gray, true) => {
            request.partial_cost(l.price, state, chain.steady.cancel_output_fraction)
        }
        _ => w,
    };
    HedgeLeg::dead(l.index, mode == FailureMode::Gray, w, lost, tried)
}

/// The hedge's head (both legs, weight 1 on every request) added to the totals of the links
/// after it, over `n` requests.
fn add_head(t: &mut Totals, head: &PolicyOutcome, n: f64) {
    t.window += n * head.cost;
    t.wasted += n * head.wasted_cost;
    t.wasted_attempts += n * (head.attempts - head.answered_by.iter().sum::<f64>());
    t.failed += n * head.failed;
    t.refused += n * head.refused_hits;
    t.dead_time += n * head.dead_time_s;
    if t.answered.is_empty() {
        t.answered = vec![0.0; head.answered_by.len()];
    }
    for (a, h) in t.answered.iter_mut().zip(&head.answered_by) {
        *a += n * h;
    }
}

/// The cost-cap counting of the links after a hedge: past a skipped first fallback (`backup`
/// not link 1) the race has counted the hits.
fn tail_cap(backup: usize) -> CapCount {
    if backup == 1 {
        CapCount::After(Some(backup))
    } else {
        CapCount::Off
    }
}

/// The outcome from the window's totals, its sessions and fail-back writes (USD, sessions).
fn outcome(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    totals: Totals,
    sessions: u64,
    (failback, failback_writes): (f64, f64),
    breaker: Option<BreakerFigures>,
) -> IncidentOutcome {
    let n = incident.requests();
    let normal = normal_bill(request, chain, incident);
    let total = totals.window + totals.cold_start + failback;
    IncidentOutcome {
        requests: n,
        sessions,
        normal,
        window: totals.window,
        cold_start: totals.cold_start,
        failback,
        total,
        multiplier: (normal > 0.0).then(|| total / normal),
        failed_requests: totals.failed,
        wasted_attempts: totals.wasted_attempts,
        wasted: totals.wasted,
        cold_starts: totals.cold_starts,
        failback_writes,
        dead_time_mean_s: if n > 0 {
            totals.dead_time / n as f64
        } else {
            0.0
        },
        breaker,
        rate_limited: 0.0,
        rate_limited_by: Vec::new(),
        refused: totals.refused,
    }
}

/// The incident figures of `pattern` on `chain`. A hedged pattern on a one-link chain is `None`.
///
/// With a timeline (`incident.timeline`), the figures are priced piecewise over its segments
/// (`incident::piecewise`); a chain with a circuit breaker then has no figures here (`None`: no closed
/// form, MODEL.md §8; the incident simulator computes them).
pub fn evaluate(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
) -> Option<IncidentOutcome> {
    if pattern.is_hedged() && chain.links.len() < 2 {
        return None;
    }
    if let Some(timeline) = &incident.timeline {
        return piecewise::evaluate(request, chain, incident, timeline, pattern);
    }
    let down = chain.links[0].price.provider.as_str();
    let n = incident.requests();
    let sessions = Sessions::new(n, incident.session_length.max(1));
    let allowed_links = window_links(request, chain, pattern, |p| p.provider == down);
    let modes = vec![incident.failure; chain.links.len()];
    let span = Span {
        requests: n as f64,
        arrivals: n as f64,
        window_s: incident.duration_s,
        modes: &modes,
    };
    let bound = breaker_bound(chain, incident);
    let shares = bound.map(|(s, _)| s);
    let totals = match pattern {
        Pattern::NoFallback => in_sequence(
            request,
            chain,
            &span,
            &[(1.0, allowed_links[..1].to_vec())],
            &[(PlanEntry::FRESH, 1.0)],
            Some(sessions),
            CapCount::Off,
            shares,
        ),
        Pattern::Sequential => in_sequence(
            request,
            chain,
            &span,
            &[(1.0, allowed_links.clone())],
            &[(PlanEntry::FRESH, 1.0)],
            Some(sessions),
            CapCount::After(None),
            shares,
        ),
        Pattern::HedgedTakeFirst | Pattern::HedgedNoCancel => hedged_totals(
            request,
            chain,
            incident,
            pattern,
            &span,
            &allowed_links,
            (sessions, shares),
        )?,
    };
    let failed_share = if n > 0 { totals.failed / n as f64 } else { 1.0 };
    let failback = shorthand_failback(request, chain, incident, pattern, failed_share);
    Some(outcome(
        request,
        chain,
        incident,
        totals,
        sessions.count(),
        failback,
        bound.map(|(_, b)| b),
    ))
}

/// The window totals of hedged `pattern`: the race of the first two allowed links, then the
/// rest in sequence (`None` with fewer than two allowed links or attempts). With a breaker
/// (`shares`), only the requests it lets through try the dead leg.
fn hedged_totals(
    request: &Request,
    chain: &Chain,
    incident: &Incident,
    pattern: Pattern,
    span: &Span,
    allowed_links: &[WindowLink],
    (sessions, shares): (Sessions, Option<(f64, f64)>),
) -> Option<Totals> {
    if allowed_links.len() < 2 || chain.policy.max_attempts.is_some_and(|a| a < 2) {
        return None;
    }
    let cancel = pattern == Pattern::HedgedTakeFirst;
    let tried = shares.map_or(1.0, |(tried, _)| tried);
    let leg = |l: &WindowLink| hedge_leg(request, chain, l, incident.failure, cancel, tried);
    let backup = allowed_links[1].index;
    let race = Hedge::new(
        request,
        chain,
        pattern,
        leg(&allowed_links[0]),
        leg(&allowed_links[1]),
    )
    .race(chain.links.len());
    let mut t = in_sequence(
        request,
        chain,
        span,
        &[(1.0, allowed_links[2..].to_vec())],
        &race.tail,
        Some(sessions),
        tail_cap(backup),
        shares,
    );
    add_head(&mut t, &race.head, span.requests);
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Link;
    use crate::model::Steady;
    use crate::model::cost::tests::{july, req, set_failure_rates, set_trip_rates};

    fn sept3(fallback: &str) -> (Request, Chain, Incident) {
        let chain = Chain {
            name: "c".into(),
            links: vec![
                Link::new(july("anthropic/claude-sonnet-5")),
                Link::new(july(fallback)),
            ],
            steady: Steady::default(),
            policy: Default::default(),
            traffic_share: None,
        };
        let incident = Incident {
            duration_s: 3.0 * 3600.0 + 6.0 * 60.0,
            requests_per_second: 1.0,
            session_length: 20,
            failure: FailureMode::Fast,
            timeline: None,
        };
        (req(0.0, 1200.0, 60000.0, 0.9), chain, incident)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// MODEL.md §6, price-matched: 388.37 normal and window, 54.24 cold, 70.98 failback,
    /// 513.58 total, 1.32x.
    #[test]
    fn sept3_price_matched() {
        let (r, c, i) = sept3("openai/gpt-6-sol");
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert_eq!((o.requests, o.sessions), (11160, 558));
        assert!(close(o.normal, 388.368, 1e-9));
        assert!(close(o.window, 388.368, 1e-9));
        assert!(close(o.cold_start, 558.0 * 0.0972, 1e-9)); // 54.2376
        assert!(close(o.failback, 558.0 * 0.1272, 1e-9)); // 70.9776
        assert!(close(o.total, 513.5832, 1e-9));
        // total − normal: the cold starts and fail-back writes, 54.2376 + 70.9776
        assert!(close(o.figures().excess_usd, 125.2152, 1e-9));
        assert_eq!(format!("{:.2}", o.multiplier.unwrap()), "1.32");
        assert_eq!(o.failed_requests, 0.0);
        assert!(close(o.cold_starts, 558.0, 1e-9));
        assert_eq!(o.failback_writes, 558.0);
    }

    /// MODEL.md §6, best available: 1941.84 window, 271.19 cold, 2284.01 total, 5.88x.
    #[test]
    fn sept3_best_available() {
        let (r, c, i) = sept3("openai/gpt-6-astra");
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(o.window, 1941.84, 1e-9));
        assert!(close(o.cold_start, 271.188, 1e-9));
        assert!(close(o.failback, 70.9776, 1e-9));
        assert!(close(o.total, 2284.0056, 1e-9));
        assert_eq!(format!("{:.2}", o.multiplier.unwrap()), "5.88");
    }

    /// MODEL.md §6: no fallback costs 0 and fails all 11,160 requests.
    #[test]
    fn sept3_no_fallback() {
        let (r, c, i) = sept3("openai/gpt-6-sol");
        let o = evaluate(&r, &c, &i, Pattern::NoFallback).unwrap();
        assert_eq!(o.total, 0.0);
        assert_eq!(o.failed_requests, 11160.0);
        assert_eq!(o.multiplier, Some(0.0));
    }

    /// Gray failures add N · W(primary): the primary's warm input side plus half its output.
    #[test]
    fn gray_failures_add_one_wasted_attempt_per_request() {
        let (r, c, mut i) = sept3("openai/gpt-6-sol");
        i.failure = FailureMode::Gray;
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        let w0 = (60000.0 * 0.38 + 0.5 * 1200.0 * 10.0) / 1e6;
        assert!(close(o.total, 513.5832 + 11160.0 * w0, 1e-9));
        assert!(close(o.wasted, 11160.0 * w0, 1e-9));
        assert_eq!(o.wasted_attempts, 11160.0);
    }

    /// Hedged in the window: the fallback leg is warm (no cold starts). Fast: the dead leg
    /// costs 0. Gray: take-first pays its input side (X), no-cancel a gray attempt (W).
    #[test]
    fn hedged_in_the_window() {
        let (r, c, mut i) = sept3("openai/gpt-6-sol");
        let tf = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert_eq!(tf.cold_start, 0.0);
        assert!(close(tf.total, 388.368 + 70.9776, 1e-9));
        i.failure = FailureMode::Gray;
        let x0 = 60000.0 * 0.38 / 1e6;
        let w0 = x0 + 0.5 * 1200.0 * 10.0 / 1e6;
        let tf = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert!(close(tf.window, 388.368 + 11160.0 * x0, 1e-9));
        let nc = evaluate(&r, &c, &i, Pattern::HedgedNoCancel).unwrap();
        assert!(close(nc.window, 388.368 + 11160.0 * w0, 1e-9));
    }

    /// Sonnet's warm input side (X, a cancelled leg) and its gray attempt (W), and GPT-6 Sol's
    /// warm answer (C), on the sept3 request, USD.
    const X0: f64 = 60000.0 * 0.38 / 1e6;
    const W0: f64 = X0 + 0.5 * 1200.0 * 10.0 / 1e6;
    const C1: f64 = 0.0348;

    fn mixed(c: &mut Chain, f: &[f64], shares: [f64; 6]) {
        set_failure_rates(c, f);
        set_trip_rates(c, &vec![0.0; f.len()]);
        c.steady.error_mix = Some(crate::model::policy::ErrorMix { shares });
    }

    /// A delayed hedge in the window waits for its backup: with the dead primary hanging
    /// (gray), until d = 7 s on every request; failing fast (0.5 s), until the failure when it
    /// comes before d, else until d. The bill is the simultaneous hedge's: take-first cancels
    /// the hung leg (X), no-cancel pays its gray attempt (W).
    #[test]
    fn a_delayed_hedge_waits_in_the_window() {
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        i.failure = FailureMode::Gray;
        let at_once = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert_eq!(at_once.dead_time_mean_s, 0.0);
        c.policy.hedge_delay_s = Some(7.0);
        let tf = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert!(close(tf.dead_time_mean_s, 7.0, 1e-12));
        assert!(close(tf.window, 11160.0 * (C1 + X0), 1e-9)); // 642.816
        assert_eq!(tf.window, at_once.window);
        let nc = evaluate(&r, &c, &i, Pattern::HedgedNoCancel).unwrap();
        assert!(close(nc.dead_time_mean_s, 7.0, 1e-12));
        assert!(close(nc.window, 11160.0 * (C1 + W0), 1e-9)); // 709.776
        i.failure = FailureMode::Fast;
        for (d, dead) in [(7.0, 0.5), (0.2, 0.2)] {
            c.policy.hedge_delay_s = Some(d);
            let o = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
            assert!(close(o.dead_time_mean_s, dead, 1e-12), "{d}");
            assert!(close(o.window, 388.368, 1e-9));
            assert_eq!((o.failed_requests, o.wasted_attempts), (0.0, 11160.0));
        }
    }

    /// A 400 on the live backup (10% of requests) in a hedge against the hanging primary: the
    /// request is bad and fails at 0.5 s. Take-first cancels the hung leg then (X); no-cancel
    /// lets it hang and pays W. With `client` in `failover_on` the bad requests try GPT-6
    /// Astra once, fast and billed 0: no cold start, 0.05 s more dead time per request.
    #[test]
    fn a_client_error_on_the_backup_fails_the_request_in_the_window() {
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        i.failure = FailureMode::Gray;
        mixed(&mut c, &[0.0, 0.1], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        let tf = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert!(close(tf.window, 11160.0 * (X0 + 0.9 * C1), 1e-9)); // 603.9792
        assert!(close(tf.failed_requests, 1116.0, 1e-9));
        assert!(close(tf.wasted_attempts, 11160.0 * 1.1, 1e-9));
        assert!(close(tf.dead_time_mean_s, 0.05, 1e-12));
        let nc = evaluate(&r, &c, &i, Pattern::HedgedNoCancel).unwrap();
        assert!(close(nc.window, 11160.0 * (W0 + 0.9 * C1), 1e-9)); // 670.9392
        c.links.push(Link::new(july("openai/gpt-6-astra")));
        mixed(&mut c, &[0.0, 0.1, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        c.policy
            .failover_on
            .push(crate::model::policy::ErrorClass::Client);
        let o = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert!(close(o.window, tf.window, 1e-9));
        assert!(close(o.failed_requests, 1116.0, 1e-9));
        assert!(close(o.wasted_attempts, 11160.0 * 1.2, 1e-9));
        assert!(close(o.dead_time_mean_s, 0.1, 1e-12));
        assert_eq!((o.cold_start, o.cold_starts), (0.0, 0.0));
    }

    /// A quota error on the live backup (10%) stops the chain: GPT-6 Astra after it is never
    /// tried. Those requests wait for the hung primary (30 s, W) and fail; the rest are
    /// answered by GPT-6 Sol, the primary cancelled (X).
    #[test]
    fn a_quota_error_on_the_backup_stops_the_chain_in_the_window() {
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        i.failure = FailureMode::Gray;
        c.links.push(Link::new(july("openai/gpt-6-astra")));
        mixed(&mut c, &[0.0, 0.1, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        let o = evaluate(&r, &c, &i, Pattern::HedgedTakeFirst).unwrap();
        assert!(close(
            o.window,
            11160.0 * (0.9 * (C1 + X0) + 0.1 * W0),
            1e-9
        )); // 610.6752
        assert!(close(o.failed_requests, 1116.0, 1e-9));
        assert!(close(o.wasted_attempts, 11160.0 * 1.1, 1e-9));
        assert!(close(o.dead_time_mean_s, 0.1 * 30.0, 1e-12));
        assert_eq!((o.cold_start, o.cold_starts), (0.0, 0.0));
    }

    /// A chain that cannot leave the primary's provider (one link, or Sonnet 5 -> Haiku 4.5,
    /// both Anthropic) fails every window request as no-fallback does, and no session fails
    /// back: no fail-back writes (it billed 558 writes, $70.98, for requests that all failed).
    #[test]
    fn a_chain_that_never_leaves_the_provider_writes_nothing_back() {
        let (r, mut c, i) = sept3("anthropic/claude-haiku-4-5");
        for links in [2, 1] {
            c.links.truncate(links);
            let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
            assert_eq!(o.failed_requests, 11_160.0);
            assert_eq!((o.failback, o.failback_writes), (0.0, 0.0));
            assert_eq!(o.total, 0.0);
        }
        // With a live fallback, the writes are back: 558 sessions × $0.1272.
        let (r, c, i) = sept3("openai/gpt-6-sol");
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(o.failback, 70.9776, 1e-9));
    }

    /// A short outage (within the primary's 5-minute TTL) writes nothing on the way back, and a
    /// partial last session still pays its cold start.
    #[test]
    fn short_outage_has_no_failback() {
        let (r, c, mut i) = sept3("openai/gpt-6-sol");
        i.duration_s = 250.0; // 250 requests: 12 sessions of 20 and one of 10
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert_eq!(o.sessions, 13);
        assert_eq!(o.failback, 0.0);
        assert!(close(o.cold_start, 13.0 * 0.0972, 1e-12));
    }

    /// With a failing fallback, the cold-start count follows 1 − (1 − s)^L per session.
    #[test]
    fn failing_fallback_cold_starts_follow_the_closed_form() {
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        set_failure_rates(&mut c, &[0.0, 0.5]);
        c.steady.gray_fraction = 0.0;
        i.duration_s = 40.0; // two sessions of 20
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        let per_session = 1.0 - 0.5f64.powi(20);
        assert!(close(o.cold_starts, 2.0 * per_session, 1e-12));
        assert!(close(o.failed_requests, 20.0, 1e-12));
        assert!(close(o.window, 20.0 * 0.0348, 1e-12));
    }

    /// The three-down post: a client that tries the dead provider three times (the first
    /// attempt and 2 retries) at a 30 s timeout spends 90 s per request before the fallback,
    /// plus backoff, and pays three gray attempts.
    #[test]
    fn naive_retries_against_the_dead_provider() {
        use crate::model::policy::{Backoff, Jitter};
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        i.failure = FailureMode::Gray;
        c.policy.retries = 2;
        c.policy.backoff = Backoff {
            base_s: 0.0,
            cap_s: 0.0,
            jitter: Jitter::None,
        };
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(
            close(o.dead_time_mean_s, 90.0, 1e-9),
            "{}",
            o.dead_time_mean_s
        );
        let w0 = (60000.0 * 0.38 + 0.5 * 1200.0 * 10.0) / 1e6;
        assert!(close(o.wasted, 3.0 * 11160.0 * w0, 1e-9));
        assert!(close(o.total, 513.5832 + 3.0 * 11160.0 * w0, 1e-9));
        assert_eq!(o.wasted_attempts, 3.0 * 11160.0);
        c.policy.backoff = Backoff {
            base_s: 1.0,
            cap_s: 8.0,
            jitter: Jitter::None,
        };
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(o.dead_time_mean_s, 93.0, 1e-9));
    }

    /// A breaker with threshold 5 and a 60 s cooldown during the 3h06m outage (λ = 1). Fast
    /// failures (0.5 s): it opens at 5 + 0.5 = 5.5 s, after 5.5 requests on average, then one
    /// probe per 60 + 0.5 + 1 s: 11,154.5 / 61.5 = 181.4 probes. Gray failures (30 s): the
    /// requests keep coming while the first ones hang: it opens at 35 s after 35 requests, then
    /// 11,125 / 91 = 122.3 probes: 157.3 gray attempts instead of 11,160.
    #[test]
    fn breaker_bounds_the_attempts_on_the_dead_provider() {
        use crate::model::policy::Breaker;
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        c.policy.breaker = Some(Breaker {
            threshold: 5,
            cooldown_s: 60.0,
        });
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        let b = o.breaker.unwrap();
        let probes = 11154.5 / 61.5;
        assert!(close(b.probes, probes, 1e-9));
        assert!(close(b.dead_attempts, 5.5 + probes, 1e-9));
        assert!(
            close(o.wasted_attempts, 5.5 + probes, 1e-9),
            "{}",
            o.wasted_attempts
        );
        assert!(close(o.total, 513.5832, 1e-9));
        i.failure = FailureMode::Gray;
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        let b = o.breaker.unwrap();
        let probes = 11125.0 / 91.0;
        assert!(close(b.dead_attempts, 35.0 + probes, 1e-9));
        let w0 = (60000.0 * 0.38 + 0.5 * 1200.0 * 10.0) / 1e6;
        assert!(close(o.wasted, (35.0 + probes) * w0, 1e-9));
        assert!(close(
            o.dead_time_mean_s,
            (35.0 + probes) * 30.0 / 11160.0,
            1e-9
        ));
        assert!(close(b.open_s, 11125.0 - probes * 31.0, 1e-9));
        // With 2 retries, the 5 requests whose first hang ends before it opens retry once more.
        c.policy.retries = 2;
        c.policy.backoff.base_s = 0.0;
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(
            o.breaker.unwrap().dead_attempts,
            35.0 + 5.0 + probes,
            1e-9
        ));
        assert!(close(o.wasted_attempts, 35.0 + 5.0 + probes, 1e-9));
    }

    /// warm_fallback for an explicit-caching fallback: `never` pays the cold prefix on every
    /// failover request; `after = N` pays N cold requests, then one write, per session.
    #[test]
    fn warm_policies_for_an_explicit_fallback() {
        use crate::model::policy::WarmPolicy;
        let (r, mut c, i) = sept3("anthropic/claude-haiku-4-5");
        // Haiku is on the dead provider: use an OpenAI primary instead.
        c.links = vec![
            Link::new(july("openai/gpt-6-sol")),
            Link::new(july("anthropic/claude-haiku-4-5")),
        ];
        let haiku = &c.links[1].price;
        let cold = r.premium_over_warm(haiku, CacheState::Cold);
        let write = r.premium_over_warm(haiku, CacheState::Write);
        let always = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(always.cold_start, 558.0 * write, 1e-9));
        c.policy.warm_fallback = WarmPolicy::Never;
        let never = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(never.cold_start, 11160.0 * cold, 1e-9));
        c.policy.warm_fallback = WarmPolicy::After(3);
        let after = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(after.cold_start, 558.0 * (3.0 * cold + write), 1e-9));
        // a session of 3 requests never writes under after = 3
        assert_eq!(after_n_moments(1.0, 3, 3.0), (3.0, 0.0));
        // binomial moments: Bin(2, 0.5) has P(m > 1) = 0.25, E[min(m, 1)] = 0.75
        let (e, p) = after_n_moments(0.5, 1, 2.0);
        assert!(close(e, 0.75, 1e-12) && close(p, 0.25, 1e-12));
        // requests before the second success on a link answering half the time, sessions of 2:
        // P(Bin(0, .5) ≤ 1) + P(Bin(1, .5) ≤ 1) = 2
        assert!(close(requests_before_success(0.5, 1, 2.0), 2.0, 1e-12));
        assert!(close(
            requests_before_success(0.5, 0, 3.0),
            1.0 + 0.5 + 0.25,
            1e-12
        ));
    }

    /// Issue 10 item 4: a gray attempt on a dead explicit-cache fallback (Haiku 4.5, behind a
    /// 10%-gray-failing Sol, in a 1000 s gray outage of Anthropic on Opus 5) is billed as a
    /// success there would have been: a cache write, $0.078 (60,000 × $1.25 + 600 × $5, per
    /// 1e6), not cold ($0.063). Its premium over warm ($0.0144) is a cold-start cost: 100
    /// requests reach Haiku, so +$1.50 in total (133.80 → 135.30), and $6.36 more cold starts
    /// on top of Sol's 50·(1 − 0.1²⁰)·$0.0972 = $4.86. Under `never` it is billed cold.
    #[test]
    fn a_gray_attempt_on_a_dead_explicit_fallback_is_a_write() {
        use crate::model::policy::WarmPolicy;
        let (r, mut c, mut i) = sept3("openai/gpt-6-sol");
        c.links = vec![
            Link::new(july("anthropic/claude-opus-5")),
            Link::new(july("openai/gpt-6-sol")),
            Link::new(july("anthropic/claude-haiku-4-5")),
        ];
        set_failure_rates(&mut c, &[0.0, 0.1, 0.0]);
        i.failure = FailureMode::Gray;
        i.duration_s = 1000.0;
        let (write, cold, warm) = (0.078, 0.063, 0.0144);
        let sol = 50.0 * (1.0 - 0.1f64.powi(20)) * 0.0972;
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(
            close(o.total, 133.8 + 100.0 * (write - cold), 1e-9),
            "{}",
            o.total
        );
        assert!(close(o.cold_start, sol + 100.0 * (write - warm), 1e-9));
        assert!(close(o.wasted, 81.72 + 100.0 * (write - cold), 1e-9));
        c.policy.warm_fallback = WarmPolicy::Never;
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        assert!(close(o.total, 133.8, 1e-9), "{}", o.total);
        assert!(close(o.cold_start, sol + 100.0 * (cold - warm), 1e-9));
    }

    /// The unwarmed requests of a session with expiry, by hand: s = 0.5, three requests, G(d)
    /// the binomial tail P(Bin(N, TTL/D) ≥ d) for d ≥ 2 and G*(1) = 1 (a cache is kept between
    /// consecutive answers, MODEL.md §6); request 0 is cold, request 1 warm with s, request 2
    /// with s + s(1 − s)·G(2). Without expiry: (1 − 0.5³)/0.5.
    #[test]
    fn unwarmed_requests_by_hand() {
        // N = 10 arrivals, TTL/D = 0.1: G(2) = 1 − 0.9¹⁰ − 10·0.1·0.9⁹.
        let (q10, q9) = (0.9f64.powi(10), 0.9f64.powi(9));
        let g2 = 1.0 - q10 - q9;
        let want = 1.0 + (1.0 - 0.5) + (1.0 - 0.5 - 0.25 * g2);
        assert!(close(unwarmed_requests(0.5, 3.0, 10.0, 0.1), want, 1e-12));
        assert!(close(
            unwarmed_requests(0.5, 3.0, 10.0, f64::INFINITY),
            1.75,
            1e-12
        ));
        // a TTL longer than the window: no expiry
        assert!(close(unwarmed_requests(0.5, 3.0, 10.0, 1.5), 1.75, 1e-12));
        assert!(close(unwarmed_requests(0.0, 3.0, 10.0, 0.1), 3.0, 1e-12));
        // a huge N·TTL/D: no expiry in practice, and no underflow trouble
        assert!(close(unwarmed_requests(0.5, 3.0, 1e9, 1e-3), 1.75, 1e-12));
        // many arrivals: the binomial tail is the Poisson's (λ·TTL = 1 here)
        let e = (-1.0f64).exp();
        let p2 = 1.0 - 2.0 * e;
        let poisson = 1.0 + (1.0 - 0.5) + (1.0 - 0.5 - 0.25 * p2);
        assert!(close(unwarmed_requests(0.5, 3.0, 1e7, 1e-7), poisson, 1e-6));
        // a long session: the tail is summed in closed form once the terms vanish
        let long = unwarmed_requests(0.9, 1e6, 1e7, 2e-7);
        let short = unwarmed_requests(0.9, 1e3, 1e7, 2e-7);
        assert!(close(
            (long - short) / (1e6 - 1e3),
            short - unwarmed_requests(0.9, 999.0, 1e7, 2e-7),
            1e-9
        ));
    }

    /// The cost cap in an incident: the complex tier at max_multiplier 1.5 skips Astra and
    /// fails over to Sol.
    #[test]
    fn cost_cap_in_the_window() {
        let (r, mut c, i) = sept3("openai/gpt-6-sol");
        c.links = vec![
            Link::new(july("anthropic/claude-opus-5")),
            Link::new(july("openai/gpt-6-astra")),
            Link::new(july("openai/gpt-6-sol")),
        ];
        c.policy.max_multiplier = Some(1.5);
        let o = evaluate(&r, &c, &i, Pattern::Sequential).unwrap();
        // Sol answers every request: 11,160 × $0.0348 warm, 558 cold starts at $0.0972
        assert!(close(o.window, 388.368, 1e-9));
        assert!(close(o.cold_start, 54.2376, 1e-9));
    }
}
