//! The speed benchmark behind `fallcost bench`: simulated requests per second for each loop of
//! the steady-state fast path, each against its floor: a bare loop drawing the same random
//! numbers the loop draws per request (from the same Xoshiro256++ streams) and nothing else, on
//! the same chunks, threads and merge. The floor and the loop are timed in turn in one run, so
//! their ratio holds when the machine's speed drifts; the ratio is the figure to compare.
//!
//! The fast path evaluates every pattern of a request on the same draws in one pass, so a
//! pattern has no time of its own: each [`Workload`] is one loop, named by the patterns it
//! gives.

use std::hint::black_box;
use std::time::Instant;

use crate::model::cost::Request;
use crate::model::latency::Latency;
use crate::model::policy::{Backoff, Jitter};
use crate::model::{Chain, ChainDraft, LinkDraft, Pattern, Policy, PriceTable, Steady};

use super::rng::{Stream, chunk_rng, normal, uniform};
use super::steady::fast::{ChainSim, SteadyTally, chunk, finish};
use super::steady::policy::{PolicySim, PolicyTally};
use super::{CHUNK, ordered};

/// One loop of the steady-state fast path that `fallcost bench` times against its floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// The benchmark chain ([`chain`]) with trips and the hedge winner from the latency model:
    /// all four patterns, the faster leg wins (the latency-driven loop). Draws per request:
    /// u, z, u, z.
    LatencyWinner,
    /// The same chain with its trip rates and w given (each link's P(L > T) and the latency
    /// model's w, so the same figures in expectation): all four patterns, the winner drawn
    /// (the buffered loop). Draws per request: u, z, u, z, and one u for the winner of the
    /// common outcome (both legs answered).
    DrawnWinner,
    /// The chain's primary alone: `no-fallback` and `sequential` (a one-link chain has no
    /// hedges; the buffered loop). Draws per request: u, z.
    OneLink,
}

impl Workload {
    /// Every workload, in the order `fallcost bench` prints them.
    pub const ALL: [Workload; 3] = [
        Workload::LatencyWinner,
        Workload::DrawnWinner,
        Workload::OneLink,
    ];

    /// The patterns this loop gives, as `fallcost bench` prints them.
    pub fn patterns(self) -> &'static str {
        match self {
            Workload::LatencyWinner => "all four patterns, faster leg wins",
            Workload::DrawnWinner => "all four patterns, winner drawn (w given)",
            Workload::OneLink => "no-fallback + sequential, one link",
        }
    }

    /// The chain this loop simulates, from the benchmark chain `bench` ([`chain`]).
    pub fn chain(self, bench: &Chain) -> Chain {
        let mut c = bench.clone();
        match self {
            Workload::LatencyWinner => {}
            Workload::DrawnWinner => {
                for l in &mut c.links {
                    l.trip_from_latency = false;
                }
                c.steady.win_from_latency = false;
            }
            Workload::OneLink => c.links.truncate(1),
        }
        c
    }

    /// The floor's chunk: this loop's draws per request and nothing else.
    fn floor_chunk(self, seed: u64, c: u64, count: u64) -> f64 {
        let mut rng = chunk_rng(seed, Stream::SteadyFast { chain: 0 }.id(), c);
        let r = &mut rng;
        let mut acc = 0.0;
        match self {
            Workload::LatencyWinner => {
                for _ in 0..count {
                    acc += uniform(r) + normal(r) + uniform(r) + normal(r);
                }
            }
            Workload::DrawnWinner => {
                for _ in 0..count {
                    acc += uniform(r) + normal(r) + uniform(r) + normal(r) + uniform(r);
                }
            }
            Workload::OneLink => {
                for _ in 0..count {
                    acc += uniform(r) + normal(r);
                }
            }
        }
        acc
    }
}

/// One workload's benchmark: both loops' rates, from the same run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchResult {
    /// The loop timed.
    pub workload: Workload,
    /// Requests simulated by each loop.
    pub requests: u64,
    /// rayon threads used.
    pub threads: usize,
    /// Floor: requests per second drawing the random numbers only (best run).
    pub floor_per_s: f64,
    /// The loop: requests per second (best run).
    pub model_per_s: f64,
}

impl BenchResult {
    /// The loop's time over the floor's, from the best run of each (1.6 means the loop takes
    /// 1.6 times as long as drawing its random numbers).
    pub fn ratio(&self) -> f64 {
        self.floor_per_s / self.model_per_s
    }
}

/// Why the benchmark cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    /// The price table the benchmark prices with lacks one of its models.
    #[error("the bundled price table lacks {model}")]
    MissingModel {
        /// The model id.
        model: String,
    },
}

/// The benchmark chain: the failover-chains post's Sol → Sonnet 5 → Haiku 4.5 at 2,000 in /
/// 500 out, 0.5% failures on every link (half gray), latencies Sol p50 2 s / p99 12 s, Sonnet
/// 1.5 s / 10 s, Haiku 0.8 s / 5 s, a 10 s timeout (trips and the hedge winner from latency).
/// `benches/steady_numpy.py` implements the same model.
///
/// Errors: [`BenchError::MissingModel`], the table lacks one of the three models.
pub fn chain(prices: &PriceTable) -> Result<(Request, Chain), BenchError> {
    let ids = [
        "openai/gpt-5.6-sol",
        "anthropic/claude-sonnet-5",
        "anthropic/claude-haiku-4-5",
    ];
    let latency = [
        Latency {
            p50_s: 2.0,
            p99_s: 12.0,
            given: true,
        },
        Latency {
            p50_s: 1.5,
            p99_s: 10.0,
            given: true,
        },
        Latency {
            p50_s: 0.8,
            p99_s: 5.0,
            given: true,
        },
    ];
    let links = ids
        .iter()
        .zip(latency)
        .map(|(id, latency)| {
            let price = prices
                .get(id)
                .cloned()
                .ok_or_else(|| BenchError::MissingModel {
                    model: id.to_string(),
                })?;
            Ok(LinkDraft {
                price,
                failure_rate: 0.005,
                trip_rate: None,
                latency,
                timeout_s: None,
                max_output_tokens: None,
                capacity: None,
            })
        })
        .collect::<Result<Vec<_>, BenchError>>()?;
    let steady = Steady {
        gray_fraction: 0.5,
        ..Steady::default()
    };
    let request = Request {
        input_tokens: 2000.0,
        output_tokens: 500.0,
        prefix_tokens: 0.0,
        cache_hit_rate: 1.0,
    };
    Ok((
        request,
        ChainDraft {
            name: "bench".into(),
            links,
            steady,
            primary_win_rate: None,
            policy: Policy {
                timeout_s: 10.0,
                ..Policy::default()
            },
            traffic_share: None,
        }
        .build(),
    ))
}

/// Seconds (wall clock) to draw `workload`'s random numbers for `requests` requests.
pub fn time_floor(workload: Workload, requests: u64, seed: u64) -> f64 {
    let chunks = requests.div_ceil(CHUNK);
    let start = Instant::now();
    let mut total = 0.0;
    ordered(
        chunks,
        |c| workload.floor_chunk(seed, c, CHUNK.min(requests - c * CHUNK)),
        |x| total += x,
        &mut |_| {},
    );
    black_box(total);
    start.elapsed().as_secs_f64()
}

/// Seconds (wall clock) to simulate `requests` requests of `chain`, every pattern it has.
pub fn time_model(request: &Request, chain: &Chain, requests: u64, seed: u64) -> f64 {
    let chunks = requests.div_ceil(CHUNK);
    let sim = ChainSim::new(request, chain);
    let start = Instant::now();
    let mut acc = SteadyTally::default();
    ordered(
        chunks,
        |c| {
            let stream = Stream::SteadyFast { chain: 0 }.id();
            chunk(&sim, seed, stream, c, CHUNK.min(requests - c * CHUNK))
        },
        |a| acc.merge(&a),
        &mut |_| {},
    );
    black_box(finish(&sim, &acc));
    start.elapsed().as_secs_f64()
}

/// Time `workload` on the benchmark chain `bench` ([`chain`]) and its floor, `requests`
/// requests each, `repeat` times in turn (floor, loop, floor, loop, …) on the current rayon
/// pool, seed r on run r; the best run of each.
pub fn run(
    request: &Request,
    bench: &Chain,
    workload: Workload,
    requests: u64,
    repeat: u32,
) -> BenchResult {
    let chain = workload.chain(bench);
    let (mut floor_s, mut model_s) = (f64::INFINITY, f64::INFINITY);
    for r in 0..repeat.max(1) {
        floor_s = floor_s.min(time_floor(workload, requests, u64::from(r)));
        model_s = model_s.min(time_model(request, &chain, requests, u64::from(r)));
    }
    BenchResult {
        workload,
        requests,
        threads: rayon::current_num_threads(),
        floor_per_s: requests as f64 / floor_s,
        model_per_s: requests as f64 / model_s,
    }
}

/// The benchmark chain ([`chain`]) under a retry policy, so that it runs in the policy
/// simulator (`sim::steady::policy`) rather than the fast path: two retries per link with a
/// full-jitter exponential backoff (0.5 s base, 8 s cap), everything else as the benchmark's.
pub fn policy_chain(bench: &Chain) -> Chain {
    let mut c = bench.clone();
    c.policy.retries = 2;
    c.policy.backoff = Backoff {
        base_s: 0.5,
        cap_s: 8.0,
        jitter: Jitter::Full,
    };
    c
}

/// One pattern of the policy simulator against its floor, from the same run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyBench {
    /// The pattern timed (the policy simulator draws each pattern's requests on its own).
    pub pattern: Pattern,
    /// Requests simulated by the loop.
    pub requests: u64,
    /// Attempts per request the loop made (each draws a uniform and, when not failed, a
    /// normal): the floor draws one uniform and one normal per attempt.
    pub attempts_per_request: f64,
    /// Floor: requests per second drawing one uniform and one normal per attempt (best run).
    pub floor_per_s: f64,
    /// The loop, tallying every policy figure: requests per second (best run).
    pub model_per_s: f64,
}

impl PolicyBench {
    /// The loop's time over the floor's (best runs).
    pub fn ratio(&self) -> f64 {
        self.floor_per_s / self.model_per_s
    }
}

/// Seconds to simulate `requests` requests of `pattern` on `sim` and tally them as
/// `compare --mc` does ([`PolicyTally::add`]), and the attempts they made.
fn time_policy(
    sim: &PolicySim,
    links: usize,
    pattern: Pattern,
    requests: u64,
    seed: u64,
) -> (f64, u64) {
    let chunks = requests.div_ceil(CHUNK);
    let stream = Stream::SteadyPolicy { chain: 0 }.id();
    let start = Instant::now();
    let mut total = PolicyTally::new(links);
    ordered(
        chunks,
        |c| {
            let mut rng = chunk_rng(seed, stream, c);
            let mut acc = PolicyTally::for_pattern(sim, pattern);
            for _ in 0..CHUNK.min(requests - c * CHUNK) {
                acc.simulate(sim, pattern, &mut rng);
            }
            acc.settle();
            acc
        },
        |a| total.merge(&a),
        &mut |_| {},
    );
    let attempts = black_box(&total).attempts.mean() * requests as f64;
    (start.elapsed().as_secs_f64(), attempts.round() as u64)
}

/// Time the policy simulator on [`policy_chain`], one pattern at a time, against its floor:
/// `requests` requests, `repeat` times in turn (loop, floor, …), the best run of each.
pub fn run_policy(
    request: &Request,
    bench: &Chain,
    pattern: Pattern,
    requests: u64,
    repeat: u32,
) -> PolicyBench {
    let chain = policy_chain(bench);
    let sim = PolicySim::new(request, &chain);
    let links = chain.links.len();
    let (mut floor_s, mut model_s, mut attempts) = (f64::INFINITY, f64::INFINITY, 0);
    for r in 0..repeat.max(1) {
        let (s, a) = time_policy(&sim, links, pattern, requests, u64::from(r));
        model_s = model_s.min(s);
        attempts = a;
        // a uniform and a normal per attempt: the one-link loop's floor, once per attempt
        floor_s = floor_s.min(time_floor(Workload::OneLink, a, u64::from(r)));
    }
    PolicyBench {
        pattern,
        requests,
        attempts_per_request: attempts as f64 / requests as f64,
        floor_per_s: requests as f64 / floor_s,
        model_per_s: requests as f64 / model_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::pricing::bundled;
    use crate::model::steady::evaluate;

    /// The benchmark chain derives its trips and w from the latency model, and both loops run.
    #[test]
    fn benchmark_chain_and_loops() {
        let (r, c) = chain(&bundled("2026-07").unwrap()).unwrap();
        let sol = &c.links[0];
        assert!((sol.trip_rate - sol.latency.trip_rate(10.0)).abs() < 1e-15);
        assert!(
            c.links
                .iter()
                .all(|l| l.trip_from_latency && l.failure_rate == 0.005)
        );
        assert!(c.steady.win_from_latency);
        assert!(c.steady.primary_win_rate > 0.0 && c.steady.primary_win_rate < 0.5);
        // Sol's 2,000 in / 500 out is $25 per 1,000; failures and trips move it a little.
        let seq = evaluate(&r, &c, crate::model::Pattern::Sequential).unwrap();
        assert!(
            (seq.cost_per_1k_usd * 1000.0 - 25.0).abs() < 0.1,
            "{}",
            seq.cost_per_1k_usd * 1000.0
        );
        for w in Workload::ALL {
            let b = run(&r, &c, w, 20_000, 1);
            assert_eq!((b.workload, b.requests), (w, 20_000));
            assert!(b.floor_per_s > 0.0 && b.model_per_s > 0.0 && b.ratio() > 0.0);
        }
    }

    /// Each workload runs the loop it names: the latency-driven loop, the buffered loop with a
    /// drawn winner (the same figures in expectation), a one-link chain without hedges.
    #[test]
    fn workloads_pick_their_loops() {
        let (r, c) = chain(&bundled("2026-07").unwrap()).unwrap();
        let latency = ChainSim::new(&r, &Workload::LatencyWinner.chain(&c));
        assert!(latency.win_by_latency && latency.links.iter().all(|l| l.trip_by_latency));
        let drawn_chain = Workload::DrawnWinner.chain(&c);
        let drawn = ChainSim::new(&r, &drawn_chain);
        assert!(!drawn.win_by_latency && drawn.links.iter().all(|l| !l.trip_by_latency));
        assert_eq!(drawn.win_rate, latency.win_rate);
        for p in crate::model::Pattern::ALL {
            let (a, b) = (
                evaluate(&r, &c, p).unwrap().cost_per_1k_usd,
                evaluate(&r, &drawn_chain, p).unwrap().cost_per_1k_usd,
            );
            assert!((a - b).abs() <= 1e-12 * a.abs(), "{p:?}: {a} against {b}");
        }
        let one = Workload::OneLink.chain(&c);
        assert_eq!(one.links.len(), 1);
        assert!(time_model(&r, &one, 1000, 0).is_finite());
    }

    /// The policy loop runs in the policy simulator (the chain is not on the default policy)
    /// and counts the attempts its floor draws: a hedge always sends both legs (2 attempts
    /// when neither fails), a lone primary with two retries makes between 1 and 3.
    #[test]
    fn the_policy_loop_runs_the_policy_simulator_and_counts_its_attempts() {
        let (r, c) = chain(&bundled("2026-07").unwrap()).unwrap();
        let p = policy_chain(&c);
        assert!(!super::super::steady::policy::is_default(&p));
        assert_eq!(p.policy.retries, 2);
        let lone = run_policy(&r, &c, Pattern::NoFallback, 20_000, 1);
        assert!(
            lone.attempts_per_request > 1.0 && lone.attempts_per_request < 1.1,
            "{}",
            lone.attempts_per_request
        );
        let hedge = run_policy(&r, &c, Pattern::HedgedNoCancel, 20_000, 1);
        assert!(
            hedge.attempts_per_request >= 2.0,
            "{}",
            hedge.attempts_per_request
        );
        assert!(hedge.ratio() > 0.0 && lone.floor_per_s > 0.0);
    }
}
