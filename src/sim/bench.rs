//! The speed benchmark behind `fallcost bench`: simulated requests per second for the
//! steady-state model (all four patterns at once) and for the floor, a bare loop drawing the
//! same random numbers (per request two uniforms and two standard normals from the same
//! Xoshiro256++ streams) and nothing else. Both use the same chunks, threads and merge.

use std::hint::black_box;
use std::time::Instant;

use crate::model::cost::Request;
use crate::model::latency::Latency;
use crate::model::{Chain, ChainDraft, LinkDraft, Policy, PriceTable, Steady};

use super::rng::{Stream, chunk_rng, normal, uniform};
use super::steady::fast::{ChainSim, SteadyTally, chunk, finish};
use super::{CHUNK, ordered};

/// One benchmark run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchResult {
    /// Requests simulated by each loop.
    pub requests: u64,
    /// rayon threads used.
    pub threads: usize,
    /// Floor: requests per second drawing the random numbers only.
    pub floor_per_s: f64,
    /// The steady-state model, all four patterns: requests per second.
    pub model_per_s: f64,
}

/// The benchmark chain: the failover-chains post's Sol → Sonnet 5 → Haiku 4.5 at 2,000 in /
/// 500 out, 0.5% failures on every link (half gray), latencies Sol p50 2 s / p99 12 s, Sonnet
/// 1.5 s / 10 s, Haiku 0.8 s / 5 s, a 10 s timeout (trips and the hedge winner from latency).
/// `benches/steady_numpy.py` implements the same model.
pub fn chain(prices: &PriceTable) -> anyhow::Result<(Request, Chain)> {
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
                .ok_or_else(|| anyhow::anyhow!("the bundled price table lacks {id}"))?;
            Ok(LinkDraft {
                price,
                failure_rate: 0.005,
                trip_rate: None,
                latency,
                timeout_s: None,
                max_output_tokens: None,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
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

/// The floor's chunk: the model's draws per request (u, z, u, z) and nothing else.
fn floor_chunk(seed: u64, c: u64, count: u64) -> f64 {
    let mut rng = chunk_rng(seed, Stream::SteadyFast { chain: 0 }.id(), c);
    let mut acc = 0.0;
    for _ in 0..count {
        acc += uniform(&mut rng) + normal(&mut rng) + uniform(&mut rng) + normal(&mut rng);
    }
    acc
}

/// Seconds (wall clock) to draw the floor's random numbers for `requests` requests.
pub fn time_floor(requests: u64, seed: u64) -> f64 {
    let chunks = requests.div_ceil(CHUNK);
    let start = Instant::now();
    let mut total = 0.0;
    ordered(
        chunks,
        |c| floor_chunk(seed, c, CHUNK.min(requests - c * CHUNK)),
        |x| total += x,
        &mut |_| {},
    );
    black_box(total);
    start.elapsed().as_secs_f64()
}

/// Seconds (wall clock) to simulate `requests` requests of `chain`, all four patterns.
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

/// Time `requests` requests of the floor and of the model on the current rayon pool.
pub fn run(request: &Request, chain: &Chain, requests: u64, seed: u64) -> BenchResult {
    let floor_s = time_floor(requests, seed);
    let model_s = time_model(request, chain, requests, seed);
    BenchResult {
        requests,
        threads: rayon::current_num_threads(),
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
        let b = run(&r, &c, 20_000, 1);
        assert_eq!(b.requests, 20_000);
        assert!(b.floor_per_s > 0.0 && b.model_per_s > 0.0);
    }
}
