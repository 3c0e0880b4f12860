//! Whether a fallback can take the load and serve the request (docs/MODEL.md §11, "Fit"):
//! its rate limit against the traffic a failover sends it ([`refused_share`]), its context
//! window and capabilities against the request profile ([`ModelFit`]), and its retirement
//! date ([`days_from`]).
//!
//! The limiter model: a fixed one-minute window admits at most `c` requests (the deployment's
//! `rpm`, or its `tpm` over the tokens of one request, whichever is fewer); arrivals are
//! Poisson at `m` a minute, so the requests of one window are N ~ Poisson(m) and the window
//! refuses (N − c)⁺ of them. The share refused is
//!
//! ```text
//! E[(N − c)⁺] / E[N] = (m·P(N ≥ c) − c·P(N ≥ c + 1)) / m
//! ```
//!
//! since E[N·1{N > c}] = m·P(N ≥ c) (n·p(n) = m·p(n − 1)). Refusals are fast (429, billed 0).

use serde::Serialize;

/// What a model can serve beside its prices, as LiteLLM's table states it
/// (`model_prices_and_context_window.json`). Every field is `None` where the table does not
/// say: an unknown limit or capability is never taken as met or as missing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ModelFit {
    /// `max_input_tokens`: the most prompt tokens a request may carry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_input_tokens: Option<u64>,
    /// `max_output_tokens`: the most tokens one answer may have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// `supports_function_calling`: tool use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<bool>,
    /// `supports_vision`: image input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vision: Option<bool>,
    /// `supports_response_schema`: structured (JSON schema) output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<bool>,
    /// `deprecation_date`: the day the provider retires the model, `YYYY-MM-DD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecation_date: Option<String>,
    /// `successor_model`: the model the provider names to move to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
}

impl ModelFit {
    /// Whether the table says anything about the model.
    pub fn is_empty(&self) -> bool {
        *self == ModelFit::default()
    }

    /// Whether the model has `capability`: `None` when the table does not say.
    pub fn supports(&self, capability: Capability) -> Option<bool> {
        match capability {
            Capability::Tools => self.tools,
            Capability::Vision => self.vision,
            Capability::Json => self.json,
        }
    }
}

/// A capability a request may need (`check --requires`, a scenario's `[request] requires`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Capability {
    /// Tool (function) calling: LiteLLM's `supports_function_calling`.
    Tools,
    /// Image input: `supports_vision`.
    Vision,
    /// Structured output to a JSON schema: `supports_response_schema`.
    Json,
}

impl Capability {
    /// Every capability, in the order messages list them.
    pub const ALL: [Capability; 3] = [Capability::Tools, Capability::Vision, Capability::Json];

    /// `tools`, `vision` or `json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Tools => "tools",
            Capability::Vision => "vision",
            Capability::Json => "json",
        }
    }

    /// The capability named `name` (`tools`, `vision`, `json`).
    pub fn parse(name: &str) -> Option<Capability> {
        Capability::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The LiteLLM table's field for it.
    pub fn table_field(self) -> &'static str {
        match self {
            Capability::Tools => "supports_function_calling",
            Capability::Vision => "supports_vision",
            Capability::Json => "supports_response_schema",
        }
    }
}

/// A request profile above a model's context window: the provider refuses every such request
/// (a 400, billed 0, not retried; docs/MODEL.md §11, "Context window").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextOverflow {
    /// Prompt tokens per request (cached prefix and fresh input, tool definitions included),
    /// rounded up.
    pub prompt_tokens: u64,
    /// The model's `max_input_tokens`, when the prompt is above it.
    pub max_input_tokens: Option<u64>,
    /// Output tokens per request, rounded up.
    pub output_tokens: u64,
    /// The model's `max_output_tokens`, when the answer is above it.
    pub max_output_tokens: Option<u64>,
}

/// Whether `request` overflows the context window `fit` states: its prompt above
/// `max_input_tokens` or its answer above `max_output_tokens`. `None` when it fits or the
/// table states no limit (an unknown limit is not judged).
pub fn context_overflow(
    fit: &ModelFit,
    request: &crate::model::cost::Request,
) -> Option<ContextOverflow> {
    let prompt = request.prompt_tokens().ceil() as u64;
    let output = request.output_tokens.ceil() as u64;
    let over_in = fit.max_input_tokens.filter(|&mx| prompt > mx);
    let over_out = fit.max_output_tokens.filter(|&mx| output > mx);
    (over_in.is_some() || over_out.is_some()).then_some(ContextOverflow {
        prompt_tokens: prompt,
        max_input_tokens: over_in,
        output_tokens: output,
        max_output_tokens: over_out,
    })
}

/// The links of `chain` whose context window `request` overflows ([`context_overflow`] of each
/// link's [`crate::model::Link::fit`]), in chain order.
pub fn chain_overflows<'a>(
    chain: &'a crate::model::Chain,
    request: &'a crate::model::cost::Request,
) -> impl Iterator<Item = (&'a crate::model::Link, ContextOverflow)> + 'a {
    chain
        .links
        .iter()
        .filter_map(move |l| Some((l, context_overflow(l.fit.as_ref()?, request)?)))
}

impl ContextOverflow {
    /// What overflows, as a phrase: `prompt 50,000 tokens > max_input_tokens 16,385` (and/or
    /// the answer's).
    pub fn describe(&self) -> String {
        let g = |n: u64| crate::number::group(&n.to_string());
        let mut parts = Vec::new();
        if let Some(mx) = self.max_input_tokens {
            parts.push(format!(
                "prompt {} tokens > max_input_tokens {}",
                g(self.prompt_tokens),
                g(mx)
            ));
        }
        if let Some(mx) = self.max_output_tokens {
            parts.push(format!(
                "answer {} tokens > max_output_tokens {}",
                g(self.output_tokens),
                g(mx)
            ));
        }
        parts.join(", ")
    }
}

/// Why a fallback cannot serve the request profile: its context window, or a capability the
/// request needs that the price table says it lacks. The engines pass such a link over (the
/// next link that can serve the request takes its place, in a hedge too) and count the requests
/// whose route passed it (docs/MODEL.md §11, "Refused by the context window or a capability").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The context window the request overflows, if it does.
    pub overflow: Option<ContextOverflow>,
    /// The capabilities the request needs that the table says the model lacks
    /// (`supports_*: false`; an unstated one is not judged), in [`Capability::ALL`] order.
    pub lacks: Vec<Capability>,
}

impl Refusal {
    /// For the random agreement tests: marks link 1 (`seed % 4 == 1`) or link 2 (`seed % 4 ==
    /// 2`) of `chain` as lacking tool calling the request requires, else nothing.
    #[cfg(test)]
    pub(crate) fn mark_by_seed(chain: &mut crate::model::Chain, seed: u64) {
        let k = (seed % 4) as usize;
        if (1..=2).contains(&k) && k < chain.links.len() {
            chain.links[k].refusal = Some(Refusal {
                overflow: None,
                lacks: vec![Capability::Tools],
            });
        }
    }

    /// Why, as a phrase: `prompt 50,000 tokens > max_input_tokens 16,385; no vision`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.overflow.iter().map(|o| o.describe()).collect();
        parts.extend(
            self.lacks
                .iter()
                .map(|c| format!("no {} ({} false)", c.as_str(), c.table_field())),
        );
        parts.join("; ")
    }
}

/// Whether a model whose table entry is `fit` refuses `request` needing `requires`: its
/// context window overflows ([`context_overflow`]) or it lacks a required capability. `None`
/// when it can serve the request or the table does not say.
pub fn refusal(
    fit: &ModelFit,
    request: &crate::model::cost::Request,
    requires: &[Capability],
) -> Option<Refusal> {
    let overflow = context_overflow(fit, request);
    let lacks: Vec<Capability> = Capability::ALL
        .into_iter()
        .filter(|c| requires.contains(c) && fit.supports(*c) == Some(false))
        .collect();
    (overflow.is_some() || !lacks.is_empty()).then_some(Refusal { overflow, lacks })
}

/// Every fit finding kind (`fallcost check`'s `retired`, `retiring`, `context-window`,
/// `capability`, `capacity`), as `--severity` and fallcost.toml's `[check] severity` name
/// them.
pub const FIT_KINDS: [&str; 5] = [
    "retired",
    "retiring",
    "context-window",
    "capability",
    "capacity",
];

/// A deployment's rate limit (LiteLLM's `litellm_params.rpm` / `tpm`): requests and tokens per
/// minute; `None` where not stated (no limit known).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RateLimit {
    /// Requests per minute.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpm: Option<f64>,
    /// Tokens per minute (input and output, as LiteLLM counts them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpm: Option<f64>,
}

impl RateLimit {
    /// The requests one minute admits for requests of `tokens_per_request` tokens:
    /// ⌊rpm⌋ or ⌊tpm / tokens⌋, whichever is fewer, and which of the two binds (`rpm`,
    /// `tpm`); `None` without a limit.
    pub fn per_minute(&self, tokens_per_request: u64) -> Option<(u64, &'static str)> {
        let by_rpm = self.rpm.map(|r| (r.floor().max(0.0) as u64, "rpm"));
        let by_tpm = self
            .tpm
            .map(|t| ((t / tokens_per_request.max(1) as f64).floor() as u64, "tpm"));
        match (by_rpm, by_tpm) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// A link's capacity in the incident engines (`[capacity."MODEL"]`, MODEL.md §11): its rate
/// limit and the traffic it serves besides the chain's (other teams, other routes), which uses
/// the same quota. Requests over the limit are refused fast (429, billed 0).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Capacity {
    /// The quota: requests and tokens per minute (`rpm`, `tpm` beside `background_rpm` in JSON).
    #[serde(flatten)]
    pub limit: RateLimit,
    /// The link's own traffic besides the chain's, requests per minute (≥ 0), arriving as a
    /// Poisson process.
    pub background_rpm: f64,
}

impl Capacity {
    /// The requests a minute admits for requests of `tokens_per_request` tokens (at least one
    /// of `rpm`/`tpm` is set where a `Capacity` is built; 0 otherwise).
    pub fn admitted_per_minute(&self, tokens_per_request: u64) -> u64 {
        self.limit
            .per_minute(tokens_per_request)
            .map_or(0, |(c, _)| c)
    }
}

/// The share of requests a fixed one-minute window admitting `capacity` requests refuses when
/// they arrive as a Poisson process of `per_minute` a minute: E\[(N − c)⁺\] / E\[N\] (module doc).
/// 0 without traffic; 1 at capacity 0. Exact to about 1e-15 relative (the Poisson tails are
/// summed from their largest term).
pub fn refused_share(per_minute: f64, capacity: u64) -> f64 {
    let m = per_minute;
    if m.is_nan() || m <= 0.0 {
        return 0.0;
    }
    if capacity == 0 {
        return 1.0;
    }
    let c = capacity as f64;
    let at_least_c = 1.0 - poisson_cdf(capacity - 1, m);
    let above_c = 1.0 - poisson_cdf(capacity, m);
    ((m * at_least_c - c * above_c) / m).clamp(0.0, 1.0)
}

/// The formula's refusals on link `k` of `chain` under sequential over `incident` (the chain's
/// own, [`super::Incident::for_chain`]), where the link's arrivals are known: the shorthand's
/// fast outage of the primary's provider, `k` the first fallback on another provider, no
/// breaker and no retry of a 429, so that every request of the window reaches the link once
/// (MODEL.md §11). `(share refused, attempts refused over the window)`; `None` elsewhere or
/// without a limit on the link.
pub fn known_refusals(
    request: &super::cost::Request,
    chain: &super::Chain,
    incident: &super::Incident,
    k: usize,
) -> Option<(f64, f64)> {
    let capacity = chain.links.get(k)?.capacity?;
    let policy = &chain.policy;
    let known = k == 1
        && incident.timeline.is_none()
        && incident.failure == super::FailureMode::Fast
        && chain.links[1].price.provider != chain.links[0].price.provider
        && policy.breaker.is_none()
        && policy.retries_for(super::policy::ErrorClass::RateLimit) == 0
        && incident.duration_s > 0.0;
    if !known {
        return None;
    }
    let admitted = capacity.admitted_per_minute(request.tokens().ceil() as u64);
    let mine = incident.requests_per_second * 60.0;
    let share = refused_share(mine + capacity.background_rpm, admitted);
    Some((share, share * incident.requests() as f64))
}

/// ln n!: summed exactly up to 256, Stirling's series beyond (error below 1e-16 relative).
pub fn ln_factorial(n: u64) -> f64 {
    if n <= 256 {
        return (2..=n).map(|k| (k as f64).ln()).sum();
    }
    let x = n as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x.powi(3))
        + 1.0 / (1260.0 * x.powi(5))
}

/// P(X ≤ n) for X ~ Poisson(mu), to about 1e-16 relative, summed from the largest term of the
/// shorter side so that no term that matters underflows: for mu ≥ n the terms k ≤ n, down from
/// k = n; for mu < n the tail k > n, up from k = n + 1, then 1 − it.
pub fn poisson_cdf(n: u64, mu: f64) -> f64 {
    if mu <= 0.0 {
        return 1.0;
    }
    let nf = n as f64;
    let ln_fact_n = ln_factorial(n);
    if mu >= nf {
        let mut term = (-mu + nf * mu.ln() - ln_fact_n).exp();
        let mut sum = term;
        let mut k = nf;
        while k > 0.0 && term > sum * 1e-17 {
            term *= k / mu;
            sum += term;
            k -= 1.0;
        }
        sum.min(1.0)
    } else {
        let k1 = nf + 1.0;
        let mut term = (-mu + k1 * mu.ln() - ln_fact_n - k1.ln()).exp();
        let mut tail = term;
        let mut k = k1;
        while term > tail * 1e-17 {
            k += 1.0;
            term *= mu / k;
            tail += term;
        }
        (1.0 - tail).max(0.0)
    }
}

/// The day number (days since 1970-01-01) of a `YYYY-MM-DD` date; `None` when it is not one
/// (a month outside 1–12, a day outside the month).
pub fn day_number(date: &str) -> Option<i64> {
    let mut it = date.splitn(3, '-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > days_in[(m - 1) as usize] {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The `YYYY-MM-DD` date of day number `days` (days since 1970-01-01).
pub fn date_of(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days from `today` to `date` (both `YYYY-MM-DD`): negative when `date` is past.
pub fn days_from(today: &str, date: &str) -> Option<i64> {
    Some(day_number(date)? - day_number(today)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A prompt or an answer one token above the stated limit overflows; at the limit, or
    /// with no limit stated, it does not.
    #[test]
    fn context_overflow_is_above_the_stated_limits() {
        let fit = ModelFit {
            max_input_tokens: Some(16_385),
            max_output_tokens: Some(4_096),
            ..ModelFit::default()
        };
        let mut r = crate::model::cost::tests::req(16_385.0, 4_096.0, 0.0, 0.0);
        assert_eq!(context_overflow(&fit, &r), None);
        r.input_tokens = 16_386.0;
        let o = context_overflow(&fit, &r).unwrap();
        assert_eq!(o.max_input_tokens, Some(16_385));
        assert_eq!(o.max_output_tokens, None);
        assert_eq!(
            o.describe(),
            "prompt 16,386 tokens > max_input_tokens 16,385"
        );
        r.input_tokens = 100.0;
        r.output_tokens = 5_000.0;
        assert_eq!(
            context_overflow(&fit, &r).unwrap().describe(),
            "answer 5,000 tokens > max_output_tokens 4,096"
        );
        assert_eq!(context_overflow(&ModelFit::default(), &r), None);
    }

    /// The refused share by brute force: Σ_n (n − c)⁺ p(n) / m, the Poisson terms built up
    /// from p(0) in long double-free steps (fine for m ≤ 600).
    fn brute(m: f64, c: u64) -> f64 {
        let mut p = (-m).exp();
        let mut excess = 0.0;
        for n in 0..5000u64 {
            if n > c {
                excess += (n - c) as f64 * p;
            }
            p *= m / (n + 1) as f64;
        }
        excess / m
    }

    #[test]
    fn the_refused_share_by_hand() {
        // m = 1, c = 1: E[(N − 1)⁺] = E[N] − 1 + P(N = 0) = e⁻¹ = 0.367879…; share e⁻¹.
        assert!((refused_share(1.0, 1) - (-1.0f64).exp()).abs() < 1e-15);
        // m = 2, c = 1: E[(N − 1)⁺] = 2 − 1 + e⁻² = 1.135335…; share 0.567668…
        assert!((refused_share(2.0, 1) - (1.0 + (-2.0f64).exp()) / 2.0).abs() < 1e-15);
        // m = 60 (1 req/s), c = 500 (500 rpm): nothing measurable refused.
        assert!(refused_share(60.0, 500) < 1e-100);
        // m = 600 (10 req/s) against 500 rpm: at least (600 − 500)/600 = 1/6 is refused
        // (Jensen: E[(N − c)⁺] ≥ m − c), a hair more for the minutes below c:
        // 0.16666678 (a Python sum of the Poisson terms)
        let s = refused_share(600.0, 500);
        assert!((s - 0.166_666_778_508_471_3).abs() < 1e-12, "{s}");
        // m = 60, c = 50 (1 req/s against 50 rpm): 0.171991551091283 by the same sum
        assert!((refused_share(60.0, 50) - 0.171_991_551_091_282_75).abs() < 1e-13);
        assert!(
            (s - brute(600.0, 500)).abs() < 1e-12,
            "{s} {}",
            brute(600.0, 500)
        );
        for (m, c) in [
            (0.5, 1),
            (5.0, 3),
            (60.0, 50),
            (60.0, 60),
            (120.0, 100),
            (300.0, 400),
        ] {
            let (a, b) = (refused_share(m, c), brute(m, c));
            assert!(
                (a - b).abs() <= 1e-12 * b.max(1e-300) + 1e-15,
                "m={m} c={c}: {a} vs {b}"
            );
        }
        assert_eq!(refused_share(0.0, 10), 0.0);
        assert_eq!(refused_share(5.0, 0), 1.0);
    }

    #[test]
    fn the_poisson_cdf_holds_at_large_means() {
        // P(N ≤ μ) → 1/2 + 2/(3·√(2πμ)) for large μ (Edgeworth: the continuity half-step
        // and the skewness term, 1/2 and 1/6 of φ(0)/σ).
        let mu = 1e6;
        let p = poisson_cdf(1_000_000, mu);
        let approx = 0.5 + 2.0 / (3.0 * (2.0 * std::f64::consts::PI * mu).sqrt());
        assert!((p - approx).abs() < 1e-8, "{p} vs {approx}");
        // ln n! by Stirling meets the exact sum at the switch.
        let exact: f64 = (2..=300u64).map(|k| (k as f64).ln()).sum();
        assert!((ln_factorial(300) - exact).abs() < 1e-9 * exact);
    }

    #[test]
    fn limits_per_minute_take_the_one_that_binds() {
        let l = RateLimit {
            rpm: Some(500.0),
            tpm: Some(1_000_000.0),
        };
        // 2,500 tokens a request: 400 by tpm, under 500 by rpm
        assert_eq!(l.per_minute(2500), Some((400, "tpm")));
        assert_eq!(l.per_minute(1000), Some((500, "rpm")));
        assert_eq!(RateLimit::default().per_minute(1000), None);
    }

    #[test]
    fn dates_round_trip_and_count_days() {
        assert_eq!(day_number("1970-01-01"), Some(0));
        assert_eq!(day_number("2000-03-01"), Some(11_017));
        assert_eq!(date_of(11_017), "2000-03-01");
        for d in [-1000, 0, 59, 60, 20_000, 20_793] {
            assert_eq!(day_number(&date_of(d)), Some(d));
        }
        assert_eq!(days_from("2026-12-06", "2027-03-06"), Some(90));
        assert_eq!(days_from("2026-12-06", "2026-11-30"), Some(-6));
        assert_eq!(day_number("2026-02-29"), None);
        assert!(day_number("2024-02-29").is_some());
        assert_eq!(day_number("2026-13-01"), None);
        assert_eq!(day_number("26-1-1"), None);
    }
}
