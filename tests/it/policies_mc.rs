//! The Monte Carlo engine under the failover policies of `scenarios/policies.toml` (issue 5):
//! agreement with the analytic engine and determinism across thread counts.

use crate::common;

use std::process::Command;

use fallcost::model::{Pattern, incident, steady};
use fallcost::sim::McOptions;
use fallcost::sim::stats::{Z99, Z999, agrees};

fn scenario() -> fallcost::model::Scenario {
    fallcost::input::scenario::load(&common::root().join("scenarios/policies.toml"), &[])
        .expect("policies.toml loads")
}

/// Steady state: every pattern of every chain, MC mean within its 99% interval of the analytic
/// value for cost, 99.9% for the other figures; figures the sample saw too rarely to have an
/// interval (call-cap hits at 7e-9 per request) within their Poisson allowance.
#[test]
fn steady_state_agrees() {
    let s = scenario();
    let opts = McOptions {
        requests: 300_000,
        runs: 0,
        seed: 17,
    };
    for (index, chain) in s.chains.iter().enumerate() {
        assert!(!fallcost::sim::steady::policy::is_default(chain));
        let mc = fallcost::sim::steady::policy::simulate(
            &s.request,
            chain,
            index as u64,
            &opts,
            &mut |_| {},
        );
        assert_eq!(mc.len(), 4);
        for m in &mc {
            let p = m.base.pattern;
            let a = steady::detailed(&s.request, chain, p).unwrap();
            let o = a.summary();
            let n = m.base.figures.cost_per_1k_usd.n as f64;
            let mut checks = vec![
                (
                    "cost",
                    m.base.figures.cost_per_1k_usd,
                    o.cost_per_1k_usd,
                    Z99,
                    0.0,
                ),
                (
                    "failed",
                    m.base.figures.failed_per_1k,
                    o.failed_per_1k,
                    Z999,
                    1.0,
                ),
                (
                    "wasted_attempts",
                    m.base.figures.wasted_attempts_per_1k,
                    o.wasted_attempts_per_1k,
                    Z999,
                    4.0,
                ),
                (
                    "wasted_cost",
                    m.base.figures.wasted_per_1k_usd,
                    o.wasted_per_1k_usd,
                    Z999,
                    0.5,
                ),
                ("attempts", m.attempts, a.attempts, Z999, 4.0),
                ("dead_time", m.dead_time, a.dead_time_s, Z999, 4.0 * 38.0),
                ("call_cap", m.call_cap_hits, a.call_cap_hits, Z999, 1.0),
                ("cost_cap", m.cost_cap_hits, a.cost_cap_hits, Z999, 1.0),
            ];
            for (i, sh) in m.answered_by.iter().enumerate() {
                checks.push(("answered_by", *sh, a.answered_by[i], Z999, 1.0));
            }
            for (name, sum, want, z, unit) in checks {
                let unit: f64 = unit;
                let e = sum.estimate(z, 1.0);
                // rare figures: a Poisson allowance of unit·(z·√events + 1)/n
                let events = want.abs() * n / unit.max(1e-300);
                let rare = unit > 0.0 && events < 100.0;
                let slack = if rare {
                    unit * (z * events.sqrt() + 1.0) / n
                } else {
                    0.0
                };
                assert!(
                    agrees(&e, want) || (e.mean - want).abs() <= z * sum.std_error() + slack,
                    "{} {} {name}: analytic {want}, MC {} [{}, {}]",
                    chain.name,
                    p.as_str(),
                    e.mean,
                    e.lo,
                    e.hi
                );
            }
        }
    }
}

/// The incident window without the breaker (whose analytic figures are a closed-form
/// approximation): retries on the hanging provider, the call cap, the cost cap, warm after 3.
#[test]
fn incident_without_breaker_agrees() {
    let mut s = scenario();
    let window = s.incident.clone().unwrap();
    let opts = McOptions {
        requests: 0,
        runs: 60,
        seed: 23,
    };
    for (index, chain) in s.chains.iter_mut().enumerate() {
        chain.policy.breaker = None;
        let i = window.for_chain(chain);
        for pattern in Pattern::ALL {
            let mc = fallcost::sim::incident::events::simulate(
                &s.request,
                chain,
                &i,
                pattern,
                index as u64,
                &opts,
                &mut |_| {},
            )
            .unwrap();
            let a = incident::evaluate(&s.request, chain, &i, pattern).unwrap();
            let b = &mc.base.figures;
            let checks = vec![
                ("total", b.total_usd, a.total, Z99),
                ("window", b.window_usd, a.window, Z999),
                ("cold_start", b.cold_start_usd, a.cold_start, Z999),
                ("failed", b.failed_requests, a.failed_requests, Z999),
                (
                    "wasted_attempts",
                    b.wasted_attempts,
                    a.wasted_attempts,
                    Z999,
                ),
                ("wasted", b.wasted_usd, a.wasted, Z999),
                ("cold_starts", b.cold_starts, a.cold_starts, Z999),
                ("dead_time", mc.dead_time_mean, a.dead_time_mean_s, Z999),
            ];
            for (name, sum, want, z) in checks {
                let e = sum.estimate(z, 1.0);
                let constant = sum.std_error() == 0.0
                    && (e.mean - want).abs() <= 1e-6 * want.abs().max(e.mean.abs());
                assert!(
                    agrees(&e, want) || constant,
                    "{} {} {name}: analytic {want} outside MC [{}, {}]",
                    chain.name,
                    pattern.as_str(),
                    e.lo,
                    e.hi
                );
            }
        }
    }
}

/// `compare --scenario scenarios/policies.toml --mc 50000 --mc-runs 8 --seed 5 --format json`
/// on `threads` threads (`RAYON_NUM_THREADS`).
fn policies_json(threads: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "compare",
            "--scenario",
            "scenarios/policies.toml",
            "--mc",
            "50000",
            "--mc-runs",
            "8",
            "--seed",
            "5",
            "--format",
            "json",
        ])
        .current_dir(common::root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// [`policies_json`] on two threads, run once for the tests that read it.
fn policies_json_two_threads() -> &'static str {
    static JSON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    JSON.get_or_init(|| policies_json("2"))
}

/// Same seed, same JSON, on one thread or two.
#[test]
fn same_json_on_one_or_two_threads() {
    let one = policies_json("1");
    assert_eq!(one, policies_json_two_threads());
    let json: serde_json::Value = serde_json::from_str(&one).unwrap();
    let row = &json["steady"][1]["mc"]["policy"];
    assert!(row["dead_time_p99_s"].is_number(), "{row}");
    let inc = &json["incident"][1]["mc"]["policy"];
    assert!(inc["breaker_probes"].as_f64().unwrap() > 50.0, "{inc}");
}

/// The blended traffic-share rows under policies: attempts, dead time and cap hits per request
/// are the chains' figures weighted by traffic share, attribution is merged by model, and
/// `attempts_max` is the largest; in the incident the attempts on the dead provider add up and
/// dead time per request is weighted by share. Figures that describe one chain only (the
/// dead-time p99, the breaker's probes and time open) are absent.
#[test]
fn blended_rows_carry_the_policy_figures() {
    const BLENDED: &str = "all chains (by traffic_share)";
    // the same seed gives the same JSON on any thread count (the test above)
    let r: serde_json::Value = serde_json::from_str(policies_json_two_threads()).unwrap();
    let shares = [("simple", 0.6), ("medium", 0.3), ("complex", 0.1)];
    let close = |what: &str, got: f64, want: f64| {
        assert!(
            (got - want).abs() <= 1e-9 * (1.0 + want.abs()),
            "{what}: {got} vs {want}"
        );
    };
    for pattern in ["sequential", "hedged-take-first"] {
        let b = &common::row(&r, "steady", BLENDED, pattern)["mc"]["policy"];
        let own = |chain: &str| &common::row(&r, "steady", chain, pattern)["mc"]["policy"];
        for key in [
            "attempts_per_request",
            "dead_time_mean_s",
            "call_cap_hits_per_1k",
            "cost_cap_hits_per_1k",
        ] {
            let want: f64 = shares
                .iter()
                .map(|(c, s)| s * common::num(own(c), key))
                .sum();
            close(&format!("{pattern} {key}"), common::num(b, key), want);
        }
        let max = shares
            .iter()
            .map(|(c, _)| own(c)["attempts_max"].as_u64().unwrap())
            .max();
        assert_eq!(b["attempts_max"].as_u64(), max, "{pattern}");
        assert!(b.get("dead_time_p99_s").is_none(), "{b}");
        // GPT-6 Sol answers for the medium and the complex tier: one entry, both shares
        let sol = |p: &serde_json::Value| -> f64 {
            p["answered_by"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["model"] == "openai/gpt-6-sol")
                .map(|a| a["share"].as_f64().unwrap())
                .sum()
        };
        let answered = b["answered_by"].as_array().unwrap();
        assert_eq!(
            answered
                .iter()
                .filter(|a| a["model"] == "openai/gpt-6-sol")
                .count(),
            1
        );
        close(
            &format!("{pattern} gpt-6-sol share"),
            sol(b),
            0.3 * sol(own("medium")) + 0.1 * sol(own("complex")),
        );

        let b = &common::row(&r, "incident", BLENDED, pattern)["mc"]["policy"];
        let own = |chain: &str| &common::row(&r, "incident", chain, pattern)["mc"]["policy"];
        let attempts: f64 = shares
            .iter()
            .map(|(c, _)| common::num(own(c), "dead_provider_attempts"))
            .sum();
        close(
            "dead_provider_attempts",
            common::num(b, "dead_provider_attempts"),
            attempts,
        );
        let dead: f64 = shares
            .iter()
            .map(|(c, s)| s * common::num(own(c), "dead_time_mean_s"))
            .sum();
        close("dead_time_mean_s", common::num(b, "dead_time_mean_s"), dead);
        assert!(own("simple")["breaker_probes"].is_number());
        assert!(b.get("breaker_probes").is_none() && b.get("breaker_open_s").is_none());
    }
}

/// The compare CSV carries the Monte Carlo policy figures (the JSON's `mc.policy`) as `mc_KEY`
/// columns with their `_ci95_lo` / `_ci95_hi`, after every earlier column, with the JSON's
/// values on every row that has them and empty cells elsewhere.
#[test]
fn csv_carries_the_monte_carlo_policy_figures() {
    let args = [
        "compare",
        "--scenario",
        "scenarios/policies.toml",
        "--mc",
        "20000",
        "--mc-runs",
        "4",
        "--seed",
        "1",
    ];
    let json = common::json(&args);
    let mut csv_args = args.to_vec();
    csv_args.extend(["--format", "csv"]);
    let out = common::ok(&csv_args);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let policy_columns = [
        "mc_attempts_per_request",
        "mc_attempts_per_request_ci95_lo",
        "mc_attempts_per_request_ci95_hi",
        "mc_attempts_max",
        "mc_dead_time_mean_s",
        "mc_dead_time_mean_s_ci95_lo",
        "mc_dead_time_mean_s_ci95_hi",
        "mc_dead_time_p99_s",
        "mc_call_cap_hits_per_1k",
        "mc_call_cap_hits_per_1k_ci95_lo",
        "mc_call_cap_hits_per_1k_ci95_hi",
        "mc_cost_cap_hits_per_1k",
        "mc_cost_cap_hits_per_1k_ci95_lo",
        "mc_cost_cap_hits_per_1k_ci95_hi",
        "mc_answered_by",
        "mc_dead_provider_attempts",
        "mc_dead_provider_attempts_ci95_lo",
        "mc_dead_provider_attempts_ci95_hi",
        "mc_breaker_probes",
        "mc_breaker_probes_ci95_lo",
        "mc_breaker_probes_ci95_hi",
        "mc_breaker_open_s",
        "mc_breaker_open_s_ci95_lo",
        "mc_breaker_open_s_ci95_hi",
        "mc_breaker_opens",
        "mc_breaker_opens_ci95_lo",
        "mc_breaker_opens_ci95_hi",
    ];
    // appended: the earlier columns keep their places, the latency percentiles come just
    // before, and after them only `method` (issue 10), the columns that are not Monte
    // Carlo's (blended and the cache table's) and later CSV generations (`csv(N)`)
    let tail = fallcost::output::csv::EXTRA_COLUMNS.len()
        + fallcost::output::csv::late_columns(true).len();
    let last = header.len() - tail - 1;
    let first = last - policy_columns.len();
    assert_eq!(&header[first..last], policy_columns);
    assert_eq!(header[first - 1], "mc_latency_p99_s");
    assert_eq!(header[last], "method");
    let mut filled = 0;
    for rec in reader.records() {
        let rec = rec.unwrap();
        assert_eq!(rec.len(), header.len(), "{rec:?}");
        let at = |c: &str| &rec[header.iter().position(|h| h == c).unwrap()];
        if at("section") == "failover_cache" {
            // the cache table has no Monte Carlo figures
            assert!(policy_columns.iter().all(|k| at(k).is_empty()), "{rec:?}");
            continue;
        }
        // every chain has a breaker: its incident rows are simulated, steady rows analytic
        let method = if at("section") == "incident" {
            "simulated"
        } else {
            "analytic"
        };
        assert_eq!(at("method"), method, "{rec:?}");
        let row = common::row(&json, at("section"), at("chain"), at("pattern"));
        let policy = &row["mc"]["policy"];
        for key in policy_columns
            .iter()
            .filter(|k| !k.ends_with("_lo") && !k.ends_with("_hi"))
        {
            let name = key.trim_start_matches("mc_");
            let cell = at(key);
            match &policy[name] {
                serde_json::Value::Null => assert_eq!(cell, "", "{key} on {rec:?}"),
                serde_json::Value::Array(list) => {
                    // answered_by: model=share;…
                    let want: Vec<String> = list
                        .iter()
                        .map(|a| {
                            format!(
                                "{}={}",
                                a["model"].as_str().unwrap(),
                                a["share"].as_f64().unwrap()
                            )
                        })
                        .collect();
                    assert_eq!(cell, want.join(";"), "{key}");
                }
                v => {
                    filled += 1;
                    assert_eq!(cell.parse::<f64>().unwrap(), v.as_f64().unwrap(), "{key}");
                    if let Some(ci) = policy[format!("{name}_ci95")].as_array() {
                        for (end, i) in [("lo", 0), ("hi", 1)] {
                            let c = at(&format!("{key}_ci95_{end}"));
                            assert_eq!(
                                c.parse::<f64>().unwrap(),
                                ci[i].as_f64().unwrap(),
                                "{key}_{end}"
                            );
                        }
                    }
                }
            }
        }
    }
    // every chain has a policy: steady rows fill 7 figures, incident rows 2 (+2 with a breaker)
    assert!(filled > 100, "{filled}");
    let seq = common::row(&json, "incident", "simple", "sequential");
    assert!(seq["mc"]["policy"]["breaker_probes"].as_f64().unwrap() > 0.0);
}
