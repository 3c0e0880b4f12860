//! The cost of one attempt (MODEL.md §3).
//!
//! A request has fresh input tokens I (never cached), output tokens O, a stable cacheable prefix
//! of P tokens and a cache hit rate h. With prices (in, rd, wr, out) in $/MTok, one successful
//! attempt costs, in USD:
//!
//! ```text
//! warm:  (P·(h·rd + (1−h)·in) + I·in + O·out) / 1e6
//! cold:  (P·in + I·in + O·out) / 1e6          prefix not cached, no write
//! write: (P·wr + I·in + O·out) / 1e6          the write REPLACES the input charge
//! ```
//!
//! On an explicit-caching model whose requests carry a cache breakpoint (`cache_miss =
//! "write"`, the default: how Anthropic bills), the missed share of a warm prefix is written,
//! so warm is `(P·(h·rd + (1−h)·wr) + I·in + O·out) / 1e6`.
//!
//! The prices (in, rd, wr, out) are those of the request: [`Request::billed`] picks the
//! long-context tier its prompt falls in, the service tier and the cache TTL's write price
//! once per chain link, so every engine prices the same per-attempt figures.

use serde::Serialize;

use super::prices::{Caching, ModelPrice, Rate, ServiceTier};

/// Tokens per million: prices are $/MTok.
const MTOK: f64 = 1e6;

/// The token profile of one request (MODEL.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Request {
    /// Fresh input tokens, never cached.
    pub input_tokens: f64,
    /// Output tokens (including reasoning tokens billed as output).
    pub output_tokens: f64,
    /// Stable, cacheable prefix tokens.
    pub prefix_tokens: f64,
    /// Share of the prefix read from cache when the cache is warm, in [0, 1].
    pub cache_hit_rate: f64,
}

/// Seconds in an hour: a cache TTL this long bills writes at the 1-hour price.
pub const HOUR_S: f64 = 3600.0;

/// How a request on an explicit-caching model bills the share of its prefix it misses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheMiss {
    /// The request carries a cache breakpoint, so a miss writes the prefix at the write price
    /// (how Anthropic bills; the default).
    #[default]
    Write,
    /// A miss bills at the input price (the posts' assumption).
    Input,
}

impl CacheMiss {
    /// `write` or `input`.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheMiss::Write => "write",
            CacheMiss::Input => "input",
        }
    }
}

/// How a chain link's requests are billed beyond the price table: the service tier, the cache
/// TTL and the cache-miss rule ([`Request::billed`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Billing {
    /// The service tier (`standard` unless a scenario or chain says otherwise).
    pub service: ServiceTier,
    /// The cache TTL the requests ask for, in seconds (300 or 3,600); `None`: the model's own.
    pub cache_ttl_s: Option<f64>,
    /// How a cache miss is billed on an explicit-caching model; `None`: [`CacheMiss::Write`].
    pub cache_miss: Option<CacheMiss>,
}

/// The state of a model's prompt cache for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheState {
    /// The prefix is cached: a share h is read at `cached_input`.
    Warm,
    /// The prefix is not cached and this request does not write it: all at `input`.
    Cold,
    /// This request writes the prefix at `cache_write` (instead of `input`).
    Write,
}

/// The state the first request of a session is billed in on a model whose cache is cold:
/// a write for `explicit` caching (when the policy warms it), plain cold otherwise.
pub fn first_state(price: &ModelPrice) -> CacheState {
    match price.caching {
        Caching::Explicit => CacheState::Write,
        Caching::Automatic | Caching::None => CacheState::Cold,
    }
}

/// The state of requests after the first on a model whose cache the session has warmed:
/// warm, except for a model without caching, which is always cold.
pub fn warm_state(price: &ModelPrice) -> CacheState {
    match price.caching {
        Caching::None => CacheState::Cold,
        Caching::Automatic | Caching::Explicit => CacheState::Warm,
    }
}

/// Relative tolerance of every like-for-like price comparison (the cost cap `max_multiplier`
/// and `fallcost check --max-ratio`): a fallback must cost more than
/// `ratio × primary × (1 + 1e-12)` to be above the ratio. The rounding error of the products is
/// about 1e-16 relative, thousands of times smaller, so an exact decimal 2x is at 2, not above;
/// a ratio 1e-10 off is far larger and counts.
pub const PRICE_RATIO_REL_TOL: f64 = 1e-12;

/// Whether a fallback costing `fallback` is above `ratio` times a primary costing `primary`
/// (like-for-like prices in any one unit, e.g. USD per request). Exactly at the ratio is not
/// above; a free primary makes any paid fallback above, two free models are not. The one
/// comparison of the cost cap ([`super::policy::allowed_links`]) and `fallcost check`.
pub fn above_ratio(fallback: f64, primary: f64, ratio: f64) -> bool {
    fallback > ratio * primary * (1.0 + PRICE_RATIO_REL_TOL)
}

impl Request {
    /// USD of the input side (prefix and fresh input) in `state`.
    pub fn input_cost(&self, price: &ModelPrice, state: CacheState) -> f64 {
        let prefix_rate = match state {
            // h·rd + (1−h)·in, written so that it is exactly `in` when reads are not discounted
            CacheState::Warm if price.miss_writes => {
                self.cache_hit_rate * price.read_price()
                    + (1.0 - self.cache_hit_rate) * price.write_price()
            }
            CacheState::Warm => {
                price.input - self.cache_hit_rate * (price.input - price.read_price())
            }
            CacheState::Cold => price.input,
            CacheState::Write => price.write_price(),
        };
        (self.prefix_tokens * prefix_rate + self.input_tokens * price.input) / MTOK
    }

    /// USD by which an attempt in `state` costs more than the same attempt warm: a cold start
    /// or a cache write's premium. Computed from the price differences, so rounding never makes
    /// it negative (with `cached_input <= input <= cache_write`, which price tables enforce),
    /// except where misses are billed as writes ([`ModelPrice::miss_writes`]): there a cold
    /// attempt (no breakpoint, no write) can be cheaper than a warm one that writes its misses.
    pub fn premium_over_warm(&self, price: &ModelPrice, state: CacheState) -> f64 {
        let mut discount = self.cache_hit_rate * (price.input - price.read_price());
        if price.miss_writes {
            // warm = h·rd + (1−h)·wr: against input, the misses' write premium is added.
            discount -= (1.0 - self.cache_hit_rate) * (price.write_price() - price.input);
        }
        let rate = match state {
            CacheState::Warm => 0.0,
            CacheState::Cold => discount,
            CacheState::Write => (price.write_price() - price.input) + discount,
        };
        self.prefix_tokens * rate / MTOK
    }

    /// USD of the full output.
    pub fn output_cost(&self, price: &ModelPrice) -> f64 {
        self.output_tokens * price.output / MTOK
    }

    /// USD of one successful attempt in `state` (MODEL.md §3).
    pub fn success_cost(&self, price: &ModelPrice, state: CacheState) -> f64 {
        self.input_cost(price, state) + self.output_cost(price)
    }

    /// The like-for-like price of this request on `price`, USD: a success in the warm cache
    /// state (MODEL.md §3), the price the cost cap and `fallcost check` compare.
    pub fn like_for_like(&self, price: &ModelPrice) -> f64 {
        self.success_cost(price, warm_state(price))
    }

    /// USD of an attempt billed for its input side and `output_fraction` of its output: a gray
    /// failure (`gray_output_fraction`), a partially billed timeout trip, or a cancelled hedge
    /// loser (`cancel_output_fraction`).
    pub fn partial_cost(&self, price: &ModelPrice, state: CacheState, output_fraction: f64) -> f64 {
        self.input_cost(price, state) + output_fraction * self.output_cost(price)
    }

    /// The prompt a long-context tier is chosen by: fresh input plus prefix, in tokens.
    pub fn prompt_tokens(&self) -> f64 {
        self.input_tokens + self.prefix_tokens
    }

    /// The tokens a rate limit's `tpm` counts per request: prompt plus output (MODEL.md §11).
    pub fn tokens(&self) -> f64 {
        self.prompt_tokens() + self.output_tokens
    }

    /// The prices one request is billed at on `price` (MODEL.md §2, extended for real price
    /// lists): flat prices with no tiers left, chosen once per chain link so that both engines,
    /// `compare`, `sweep` and `check` price the same figures.
    ///
    /// - **Long context**: every price (input, cache read and write, output) at the tier the
    ///   prompt ([`Request::prompt_tokens`]) falls in: the highest `above_tokens` below it.
    /// - **Service tier**: `billing.service`'s prices, falling back field by field to the
    ///   standard tier's as LiteLLM's cost calculator does.
    /// - **Cache TTL**: for explicit caching, `billing.cache_ttl_s` (else the model's own TTL);
    ///   3,600 s bills writes at the 1-hour price, and the TTL is the expiry the incident
    ///   engines use. Automatic caching keeps the provider's TTL.
    /// - **Minimum prefix**: a prefix shorter than the model's minimum is not cached at all.
    /// - **Cache misses**: `billing.cache_miss` ([`CacheMiss::Write`] by default) on an
    ///   explicit-caching model sets [`ModelPrice::miss_writes`].
    ///
    /// Errors (the message names the model and what the table lacks): a service tier the table
    /// does not price for the model; a 1-hour TTL on a model without a 1-hour write price.
    pub fn billed(
        &self,
        price: &ModelPrice,
        billing: &Billing,
    ) -> Result<ModelPrice, super::ModelError> {
        let service = billing.service;
        if !price.has_service(service) {
            let have: Vec<&str> = std::iter::once("standard")
                .chain(price.services().into_iter().map(ServiceTier::as_str))
                .collect();
            return Err(super::ModelError::NoServicePrice {
                model: price.id.clone(),
                service: service.as_str(),
                have: have.join(", "),
            });
        }
        let prompt = self.prompt_tokens();
        let at = |rate| price.rate_for(rate, prompt, service);
        let input = at(Rate::Input).unwrap_or(price.input);
        let output = at(Rate::Output).unwrap_or(price.output);
        let mut cached_input = at(Rate::CacheRead).filter(|r| *r <= input);
        let mut caching = price.caching;
        let mut cache_ttl_s = price.cache_ttl_s;
        let mut cache_write = at(Rate::CacheWrite);
        if caching == Caching::Explicit {
            if let Some(ttl) = billing.cache_ttl_s {
                cache_ttl_s = ttl;
                if ttl >= HOUR_S {
                    match at(Rate::CacheWrite1h) {
                        Some(w) => cache_write = Some(w),
                        None => {
                            return Err(super::ModelError::NoHourWrite {
                                model: price.id.clone(),
                            });
                        }
                    }
                }
            } else if price.cache_ttl_s >= HOUR_S
                && let Some(w) = at(Rate::CacheWrite1h)
            {
                cache_write = Some(w);
            }
        }
        cache_write = cache_write.filter(|w| *w >= input);
        if price
            .min_cache_prefix
            .is_some_and(|m| self.prefix_tokens < m as f64)
        {
            caching = Caching::None;
            cached_input = None;
            cache_write = None;
        }
        if caching == Caching::None {
            cached_input = None;
            cache_write = None;
        }
        let miss_writes = caching == Caching::Explicit
            && billing.cache_miss.unwrap_or_default() == CacheMiss::Write;
        Ok(ModelPrice {
            id: price.id.clone(),
            provider: price.provider.clone(),
            input,
            output,
            cached_input,
            cache_write,
            caching,
            cache_ttl_s,
            cache_write_1h: None,
            min_cache_prefix: price.min_cache_prefix,
            miss_writes,
            tiers: Vec::new(),
        })
    }

    /// Whether the request has a cacheable prefix (the failover cache table of MODEL.md §5 is
    /// shown only then).
    pub fn has_prefix(&self) -> bool {
        self.prefix_tokens > 0.0
    }
}

/// The like-for-like price of `request` on `price`, in USD per 1,000 requests (warm cache):
/// 1,000 × [`Request::like_for_like`]. `price` is the request's own ([`Request::billed`]: a
/// scenario's chain links are).
pub fn per_1k(request: &Request, price: &ModelPrice) -> f64 {
    1000.0 * request.like_for_like(price)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A model priced like the bundled table's entry for `id` (MODEL.md §2).
    pub(crate) fn july(id: &str) -> ModelPrice {
        let (input, cached, write, output, caching) = match id {
            "openai/gpt-5.6-sol" => (5.00, Some(0.50), None, 30.00, Caching::Automatic),
            "anthropic/claude-sonnet-5" => (2.00, Some(0.20), Some(2.50), 10.00, Caching::Explicit),
            "anthropic/claude-haiku-4-5" => (1.00, Some(0.10), Some(1.25), 5.00, Caching::Explicit),
            "anthropic/claude-opus-5" => (5.00, Some(0.50), Some(6.25), 25.00, Caching::Explicit),
            "deepseek/deepseek-v4-flash" => (0.14, None, None, 0.28, Caching::Automatic),
            "openai/gpt-6-luna" => (0.10, Some(0.01), None, 0.50, Caching::Automatic),
            "openai/gpt-6-sol" => (2.00, Some(0.20), None, 10.00, Caching::Automatic),
            "openai/gpt-6-astra" => (10.00, Some(1.00), None, 50.00, Caching::Automatic),
            other => panic!("no July price for {other}"),
        };
        ModelPrice {
            id: id.into(),
            provider: id.split('/').next().unwrap().into(),
            input,
            output,
            cached_input: cached,
            cache_write: write,
            caching,
            cache_ttl_s: caching.default_ttl_s(),
            cache_write_1h: None,
            min_cache_prefix: None,
            miss_writes: false,
            tiers: Vec::new(),
        }
    }

    /// Set the first links' failure rates (the rest keep theirs).
    pub(crate) fn set_failure_rates(c: &mut crate::model::Chain, rates: &[f64]) {
        for (l, r) in c.links.iter_mut().zip(rates) {
            l.failure_rate = *r;
        }
    }

    /// Set the first links' trip rates (the rest keep theirs).
    pub(crate) fn set_trip_rates(c: &mut crate::model::Chain, rates: &[f64]) {
        for (l, r) in c.links.iter_mut().zip(rates) {
            l.trip_rate = *r;
        }
    }

    /// Set the first links' latency models (the rest keep theirs).
    pub(crate) fn set_latency(c: &mut crate::model::Chain, latency: &[crate::model::Latency]) {
        for (l, x) in c.links.iter_mut().zip(latency) {
            l.latency = *x;
        }
    }

    pub(crate) fn req(input: f64, output: f64, prefix: f64, h: f64) -> Request {
        Request {
            input_tokens: input,
            output_tokens: output,
            prefix_tokens: prefix,
            cache_hit_rate: h,
        }
    }

    fn per_1k(x: f64) -> f64 {
        x * 1000.0
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    /// MODEL.md §4: cost/1k of Sol, Sonnet 5, Haiku 4.5 and DeepSeek at 2,000 in / 500 out.
    #[test]
    fn failover_chains_post_per_model_costs() {
        let r = req(2000.0, 500.0, 0.0, 0.0);
        for (id, want) in [
            ("openai/gpt-5.6-sol", 25.00),
            ("anthropic/claude-sonnet-5", 9.00),
            ("anthropic/claude-haiku-4-5", 4.50),
            ("deepseek/deepseek-v4-flash", 0.42),
        ] {
            let got = per_1k(r.success_cost(&july(id), CacheState::Warm));
            assert!(close(got, want), "{id}: {got} != {want}");
        }
    }

    /// MODEL.md §5: the failover cache table, 15,000-token prefix, h = 1.
    #[test]
    fn failover_cache_table_states() {
        let r = req(2000.0, 500.0, 15000.0, 1.0);
        let sol = july("openai/gpt-5.6-sol");
        let sonnet = july("anthropic/claude-sonnet-5");
        assert!(close(per_1k(r.success_cost(&sol, CacheState::Warm)), 32.50));
        assert!(close(
            per_1k(r.success_cost(&sonnet, CacheState::Cold)),
            39.00
        ));
        // The write replaces the input charge: 46.50, not the post's 76.50.
        assert!(close(
            per_1k(r.success_cost(&sonnet, CacheState::Write)),
            46.50
        ));
        assert!(close(
            per_1k(r.success_cost(&sonnet, CacheState::Warm)),
            12.00
        ));
    }

    /// MODEL.md §3: a gray failure on Sol bills input plus half the output: $17.50 per 1k.
    #[test]
    fn gray_failure_bills_input_and_half_the_output() {
        let r = req(2000.0, 500.0, 0.0, 0.0);
        let sol = july("openai/gpt-5.6-sol");
        assert!(close(
            per_1k(r.partial_cost(&sol, CacheState::Warm, 0.5)),
            17.50
        ));
        assert!(close(
            per_1k(r.partial_cost(&sol, CacheState::Warm, 0.0)),
            10.00
        ));
    }

    #[test]
    fn cache_states_by_caching_mode() {
        assert_eq!(
            first_state(&july("anthropic/claude-sonnet-5")),
            CacheState::Write
        );
        assert_eq!(first_state(&july("openai/gpt-6-sol")), CacheState::Cold);
        let mut none = july("openai/gpt-6-sol");
        none.caching = Caching::None;
        assert_eq!(warm_state(&none), CacheState::Cold);
    }
}
