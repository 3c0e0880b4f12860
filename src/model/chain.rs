//! A fallback chain and its links (MODEL.md §4, §7), and the one place their derived values
//! are computed: [`ChainDraft::build`] turns what a scenario gives (prices, failure rates,
//! latency models, trip rates and w where given) into a [`Chain`], deriving each link's trip
//! rate P(L > T) and the hedge win share w from the latency models where they are left out.

use serde::Serialize;

use super::latency::{self, Latency};
use super::{ModelPrice, Policy, Request, Steady, policy};

/// One link of a chain: a model with its billed price and its steady-state behaviour.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    /// The model and its price, as billed (service tier and cache TTL already applied).
    pub price: ModelPrice,
    /// The probability an attempt fails (fast or gray), in [0, 1] (MODEL.md §3).
    pub failure_rate: f64,
    /// The share of healthy attempts abandoned at the client timeout, in [0, 1] (MODEL.md §3):
    /// as given, or P(L > T) from [`Link::latency`] ([`Link::trip_from_latency`]).
    pub trip_rate: f64,
    /// Whether `trip_rate` was derived from the latency model, P(L > T), rather than given.
    /// The Monte Carlo engine then trips exactly the attempts slower than T.
    pub trip_from_latency: bool,
    /// The model's latency distribution (`[latency."provider/model"]` or the defaults, p50 2 s,
    /// p99 12 s; MODEL.md §7).
    pub latency: Latency,
    /// T_k: this link's own client timeout per attempt, seconds (a chain's `link_timeouts_s`,
    /// LiteLLM's per-deployment `litellm_params.timeout`); `None`: the policy's `timeout_s`.
    /// Read it through [`Chain::timeout_s`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<f64>,
    /// The cap on the output tokens this link bills, tokens (a chain's `max_output_tokens`,
    /// LiteLLM's `litellm_params.max_tokens`, Portkey's `override_params.max_tokens`); `None`:
    /// no cap. Already applied to [`Link::price`] ([`cap_output`]); kept to be shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// The link's rate limit and background traffic (`[capacity."MODEL"]`, MODEL.md §11): in
    /// an incident, attempts over it are refused (429, billed 0); `None`: unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<super::fit::Capacity>,
    /// What the model can serve (context window, capabilities, retirement), as the price
    /// table states it ([`super::fit::ModelFit`]; LiteLLM's table only); `None`: the table
    /// says nothing. Read for the warnings and for [`Link::refusal`].
    #[serde(skip)]
    pub fit: Option<super::fit::ModelFit>,
    /// Why this link cannot serve the scenario's request (its context window, a capability the
    /// request needs; [`super::fit::refusal`]), set where the chain is read; `None`: it can,
    /// or the table does not say. A fallback that cannot is passed over by every engine
    /// ([`super::policy::allowed_links`]; docs/MODEL.md §11); the primary is not.
    #[serde(skip)]
    pub refusal: Option<super::fit::Refusal>,
}

impl Link {
    /// A link that never fails and never trips, timed with the default latency model, under
    /// the policy's timeout, with no output cap.
    pub fn new(price: ModelPrice) -> Link {
        Link {
            price,
            failure_rate: 0.0,
            trip_rate: 0.0,
            trip_from_latency: false,
            latency: Latency::default(),
            timeout_s: None,
            max_output_tokens: None,
            capacity: None,
            fit: None,
            refusal: None,
        }
    }
}

/// `price` (a request's billed price, [`Request::billed`]) on a link whose output is capped at
/// `cap` tokens: the link bills min(O, cap) output tokens per attempt, so its output price is
/// scaled by min(O, cap) / O, and every figure of every engine (success, the gray and
/// cancelled shares of the output, the cost cap's like-for-like price) bills the capped output
/// (MODEL.md §3, "Output cap"). A cap at or above O, or a request without output, changes
/// nothing.
pub fn cap_output(price: ModelPrice, request: &Request, cap: u64) -> ModelPrice {
    let o = request.output_tokens;
    let cap = cap as f64;
    if o <= 0.0 || cap >= o {
        return price;
    }
    ModelPrice {
        output: price.output * cap / o,
        ..price
    }
}

/// What a scenario gives for one link, before [`ChainDraft::build`] derives the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkDraft {
    /// The model and its billed price.
    pub price: ModelPrice,
    /// The probability an attempt fails, in [0, 1].
    pub failure_rate: f64,
    /// The timeout trip rate, in [0, 1], if the scenario gives one; `None`: P(L > T) when the
    /// latency model is given, else 0.
    pub trip_rate: Option<f64>,
    /// The model's latency distribution (given, or [`Latency::default`]).
    pub latency: Latency,
    /// The link's own timeout, seconds; `None`: the policy's ([`Link::timeout_s`]).
    pub timeout_s: Option<f64>,
    /// The output cap already applied to `price` ([`cap_output`]), tokens, to be shown.
    pub max_output_tokens: Option<u64>,
    /// The link's rate limit ([`Link::capacity`]); `None`: unlimited.
    pub capacity: Option<super::fit::Capacity>,
}

/// What a scenario gives for one chain, before [`ChainDraft::build`] derives the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainDraft {
    /// The chain's name, unique in its scenario.
    pub name: String,
    /// The links, primary first.
    pub links: Vec<LinkDraft>,
    /// The chain's shared steady parameters; `build` sets `primary_win_rate` and
    /// `win_from_latency` (from [`ChainDraft::primary_win_rate`] and the latency models).
    pub steady: Steady,
    /// w, if the scenario gives it; `None`: P(L₀ < L₁ | both ≤ T) when the first two links'
    /// latency models are given, else 1 (the primary answers first, MODEL.md §4).
    pub primary_win_rate: Option<f64>,
    /// Client policy (its `timeout_s` is the T of the derived trip rates and w on links
    /// without their own timeout).
    pub policy: Policy,
    /// The chain's share of the traffic, if the scenario splits traffic across chains.
    pub traffic_share: Option<f64>,
}

impl ChainDraft {
    /// The chain, with each link's trip rate and the hedge win share w derived from the latency
    /// models where the scenario leaves them out, by the closed forms the Monte Carlo engine's
    /// draws converge to ([`crate::model::latency`], MODEL.md §7): link k's trip rate is
    /// P(L_k > T_k) at its own timeout T_k (the policy's when it has none), and w is
    /// P(L₀ < L₁ | L₀ ≤ T₀, L₁ ≤ T₁). Models without a latency entry keep their trip rates and
    /// w as given (0 and 1 by default).
    pub fn build(self) -> Chain {
        let t = self.policy.timeout_s;
        let links: Vec<Link> = self
            .links
            .into_iter()
            .map(|l| {
                let derived = l.trip_rate.is_none() && l.latency.given;
                Link {
                    trip_rate: match l.trip_rate {
                        Some(r) => r,
                        None if derived => l.latency.trip_rate(l.timeout_s.unwrap_or(t)),
                        None => 0.0,
                    },
                    trip_from_latency: derived,
                    price: l.price,
                    failure_rate: l.failure_rate,
                    latency: l.latency,
                    timeout_s: l.timeout_s,
                    max_output_tokens: l.max_output_tokens,
                    capacity: l.capacity,
                    fit: None,
                    refusal: None,
                }
            })
            .collect();
        let mut steady = self.steady;
        steady.win_from_latency = self.primary_win_rate.is_none()
            && links.len() >= 2
            && links[0].latency.given
            && links[1].latency.given;
        steady.primary_win_rate = match self.primary_win_rate {
            Some(w) => w,
            None if steady.win_from_latency => latency::primary_win_rate_each(
                &links[0].latency,
                &links[1].latency,
                links[0].timeout_s.unwrap_or(t),
                links[1].timeout_s.unwrap_or(t),
            ),
            None => Steady::default().primary_win_rate,
        };
        Chain {
            name: self.name,
            links,
            steady,
            policy: self.policy,
            traffic_share: self.traffic_share,
        }
    }
}

/// A fallback chain: links in order, the primary first, with its steady-state parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    /// The chain's name, unique in its scenario.
    pub name: String,
    /// The links, primary first: each model with its price, failure and trip rates and latency.
    pub links: Vec<Link>,
    /// The billing parameters every link shares and the hedge win share (the scenario's
    /// `[steady]`, with the chain's overrides).
    pub steady: Steady,
    /// Client policy (the scenario's `[policy]`, with the chain's overrides).
    pub policy: Policy,
    /// The chain's share of the traffic, when the scenario splits traffic across chains
    /// (tier-matched chains); `None` otherwise.
    pub traffic_share: Option<f64>,
}

impl Chain {
    /// T_i: the client timeout of an attempt on link `i`, seconds: the link's own
    /// ([`Link::timeout_s`]), else the policy's. A gray failure there takes T_i and a healthy
    /// attempt slower than T_i trips (MODEL.md §3).
    pub fn timeout_s(&self, i: usize) -> f64 {
        self.links[i].timeout_s.unwrap_or(self.policy.timeout_s)
    }

    /// Whether some link has a timeout of its own different from the policy's.
    pub fn has_link_timeouts(&self) -> bool {
        self.links
            .iter()
            .any(|l| l.timeout_s.is_some_and(|t| t != self.policy.timeout_s))
    }

    /// Whether a fallback of the chain cannot serve the request ([`Link::refusal`]): the walk
    /// passes it over ([`policy::allowed_links`]; docs/MODEL.md §11).
    pub fn passes_over_refusals(&self) -> bool {
        self.links.iter().skip(1).any(|l| l.refusal.is_some())
    }

    /// Whether the chain runs under the default policy (no retries, the provider-side classes
    /// fail over in any order, no call or cost cap, no fallback passed over as unable to serve
    /// the request, no error mix, explicit fallbacks warmed at once, no breaker, no hedge
    /// delay). The one notion of "default policy": it chooses the
    /// Monte Carlo engine (the default-policy fast paths, else the policy simulators) and
    /// whether the report has a "Retries, caps and attribution" table.
    pub fn has_default_policy(&self) -> bool {
        let p = &self.policy;
        !p.has_retries()
            && p.fails_over_by_default()
            && p.max_attempts.is_none()
            && p.max_multiplier.is_none()
            && !self.passes_over_refusals()
            && p.warm_fallback == policy::WarmPolicy::Always
            && p.breaker.is_none()
            && p.hedge_delay_s.is_none()
            && self.steady.error_mix.is_none()
    }

    /// The ids of the chain's models timed with the default latency model (no
    /// `[latency."provider/model"]` entry: p50 2 s, p99 12 s), in chain order, each once.
    ///
    /// The one assumption both engines make about them: the defaults time whatever needs a
    /// time (the Monte Carlo's latency percentiles, a delayed hedge's wait and race, MODEL.md
    /// §7), while a simultaneous hedge's winner, unless both legs have entries, is the primary
    /// with probability w as given (1 by default: the primary answers first, MODEL.md §4), the
    /// answer then arriving at the winner's own latency: the default timing never decides who
    /// wins a race w decides.
    pub fn latency_defaults(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for l in &self.links {
            if !l.latency.given && !out.contains(&l.price.id.as_str()) {
                out.push(&l.price.id);
            }
        }
        out
    }

    /// The links' prices, primary first.
    pub fn prices(&self) -> impl Iterator<Item = &ModelPrice> {
        self.links.iter().map(|l| &l.price)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::cost::tests::july;

    /// Issue 13's two-timeout chain, built: GPT-5.6 Sol (p50 2 s, p99 12 s, f = 10%) with its
    /// own timeout T₀ = 12 s, then Claude Sonnet 5 (p50 4 s, p99 24 s, f = 20%) with its own
    /// T₁ = 24 s, every failure gray, under a policy whose `timeout_s` is the default 30 s.
    /// Each link's timeout is its p99, so each trips P(L > p99) = 1% of its healthy attempts.
    pub(crate) fn two_timeouts() -> Chain {
        let link = |id: &str, f: f64, p50_s: f64, p99_s: f64, t: f64| LinkDraft {
            price: july(id),
            failure_rate: f,
            trip_rate: None,
            latency: lat(p50_s, p99_s),
            timeout_s: Some(t),
            max_output_tokens: None,
            capacity: None,
        };
        ChainDraft {
            name: "two-timeouts".into(),
            links: vec![
                link("openai/gpt-5.6-sol", 0.1, 2.0, 12.0, 12.0),
                link("anthropic/claude-sonnet-5", 0.2, 4.0, 24.0, 24.0),
            ],
            steady: Steady::default(),
            primary_win_rate: None,
            policy: Policy::default(),
            traffic_share: None,
        }
        .build()
    }

    /// Each link's trip rate is P(L_k > T_k) at its own timeout (1% for both, where the
    /// policy's 30 s would give Sol Φ(−ln 15/σ₀) ≈ 0.05% and Sonnet Φ(−ln 7.5/σ₁) ≈ 0.45%),
    /// and w conditions each leg on its own timeout.
    #[test]
    fn each_link_trips_at_its_own_timeout() {
        let c = two_timeouts();
        assert_eq!((c.timeout_s(0), c.timeout_s(1)), (12.0, 24.0));
        assert!(c.has_link_timeouts());
        for l in &c.links {
            assert!((l.trip_rate - 0.01).abs() < 1e-12, "{}", l.trip_rate);
            assert!(l.trip_from_latency);
        }
        let (l0, l1) = (c.links[0].latency, c.links[1].latency);
        assert!(l0.trip_rate(30.0) < 0.001 && l1.trip_rate(30.0) > 0.004);
        assert!(c.steady.win_from_latency);
        let w = c.steady.primary_win_rate;
        assert_eq!(w, latency::primary_win_rate_each(&l0, &l1, 12.0, 24.0));
        // Against the one-timeout closed form: capping Sonnet at 24 s instead of 12 s keeps
        // its slow answers (which Sol beats), so w rises.
        assert!(w > latency::primary_win_rate(&l0, &l1, 12.0), "{w}");
    }

    /// A cap of 300 output tokens on a 500-token request bills 3/5 of the output: Sol's
    /// $30/MTok output becomes $18/MTok on this request (2,000 in + 500 out: $25 → $19 per
    /// 1k). A cap at or above the request's output, or no output, changes nothing.
    #[test]
    fn an_output_cap_bills_the_capped_tokens() {
        use crate::model::cost::tests::req;
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let sol = july("openai/gpt-5.6-sol");
        let capped = cap_output(sol.clone(), &r, 300);
        assert!((capped.output - 18.0).abs() < 1e-12);
        assert!((crate::model::cost::per_1k(&r, &capped) - 19.0).abs() < 1e-9);
        assert_eq!(cap_output(sol.clone(), &r, 500), sol);
        assert_eq!(cap_output(sol.clone(), &req(2000.0, 0.0, 0.0, 0.0), 1), sol);
    }

    fn lat(p50_s: f64, p99_s: f64) -> Latency {
        Latency {
            p50_s,
            p99_s,
            given: true,
        }
    }

    fn spec(links: Vec<LinkDraft>, w: Option<f64>, timeout_s: f64) -> ChainDraft {
        ChainDraft {
            name: "c".into(),
            links,
            steady: Steady::default(),
            primary_win_rate: w,
            policy: Policy {
                timeout_s,
                ..Policy::default()
            },
            traffic_share: None,
        }
    }

    fn link(trip_rate: Option<f64>, latency: Latency) -> LinkDraft {
        LinkDraft {
            price: july("openai/gpt-6-sol"),
            failure_rate: 0.1,
            trip_rate,
            latency,
            timeout_s: None,
            max_output_tokens: None,
            capacity: None,
        }
    }

    /// p50 2 s, p99 12 s and T = 12 s: P(L > T) = 1% exactly; two equal legs: w = 1/2.
    #[test]
    fn given_latency_derives_trips_and_w() {
        let c = spec(
            vec![link(None, lat(2.0, 12.0)), link(None, lat(2.0, 12.0))],
            None,
            12.0,
        )
        .build();
        for l in &c.links {
            assert!((l.trip_rate - 0.01).abs() < 1e-12, "{}", l.trip_rate);
            assert!(l.trip_from_latency);
            assert_eq!(l.failure_rate, 0.1);
        }
        assert!(c.steady.win_from_latency);
        assert!((c.steady.primary_win_rate - 0.5).abs() < 1e-9);
    }

    /// Given values win over the latency model; default latencies derive nothing.
    #[test]
    fn given_values_and_default_latency_derive_nothing() {
        let c = spec(
            vec![link(Some(0.05), lat(2.0, 12.0)), link(None, lat(2.0, 12.0))],
            Some(0.9),
            12.0,
        )
        .build();
        assert_eq!(c.links[0].trip_rate, 0.05);
        assert!(!c.links[0].trip_from_latency);
        assert!(c.links[1].trip_from_latency);
        assert_eq!(c.steady.primary_win_rate, 0.9);
        assert!(!c.steady.win_from_latency);

        let c = spec(
            vec![
                link(None, Latency::default()),
                link(None, Latency::default()),
            ],
            None,
            12.0,
        )
        .build();
        assert_eq!(c.links[1].trip_rate, 0.0);
        assert!(!c.links[1].trip_from_latency);
        assert_eq!(c.steady.primary_win_rate, 1.0);
        assert!(!c.steady.win_from_latency);
        assert_eq!(c.latency_defaults(), vec!["openai/gpt-6-sol"]);
    }
}
