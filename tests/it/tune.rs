//! `fallcost tune` against brute force: a small space (2 timeouts × 2 retry counts × breaker
//! off or on × 2 hedge delays: 16 combinations, 48 candidates with their patterns) priced point
//! by point through the analytic engine (`ops::compare::analytic`, as `compare --set` prices
//! it; the breaker's incident figures are its fixed-seed simulation) and the p99 from the
//! fixed-seed steady Monte Carlo. Tune's frontier must be exactly the non-dominated set and its
//! recommendation the cheapest feasible point, every figure equal to the brute force's.

use std::path::PathBuf;

use fallcost::input::scenario;
use fallcost::model::{Pattern, Scenario};
use fallcost::ops::compare;
use fallcost::ops::inputs::Source;
use fallcost::ops::tune::{Ask, run};
use fallcost::sim::McOptions;
use fallcost::tune::frontier::weigh;
use fallcost::tune::space::Dim;
use fallcost::tune::{Goals, P99_REQUESTS, P99_SEED, Point, Raw, RawIncident, Usage};

const FIXTURE: &str = "tests/fixtures/tune/small.toml";

fn source() -> Source {
    Source {
        label: FIXTURE.into(),
        text: std::fs::read_to_string(FIXTURE).unwrap(),
        base: PathBuf::from("tests/fixtures/tune"),
        overrides: Vec::new(),
        provenance: Vec::new(),
        served: Vec::new(),
        prices: Vec::new(),
        warnings: Vec::new(),
        skipped: Vec::new(),
    }
}

fn dim(key: &str, values: &[&str]) -> Dim {
    Dim {
        key: key.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
    }
}

fn goals() -> Goals {
    Goals {
        availability: Some(0.9995),
        p99_s: Some(9.0),
        ..Goals::default()
    }
}

fn usage() -> Usage {
    Usage {
        requests_per_month: 1e6,
        incidents_per_year: 12.0,
        source: "--requests-per-month".into(),
        history: Vec::new(),
    }
}

fn ask() -> Ask {
    Ask {
        space_file: Some((
            vec![
                dim("policy.timeout_s", &["5", "20"]),
                dim("policy.retries", &["0", "1"]),
                dim("policy.breaker.threshold", &["none", "2"]),
                dim("policy.breaker.cooldown_s", &["30"]),
                dim("policy.hedge_delay_s", &["none", "3"]),
            ],
            false,
        )),
        requests_per_month: Some((1e6, "--requests-per-month".into())),
        incidents_per_year: 12.0,
        goals: goals(),
        confirm_batches: 0,
        ..Ask::default()
    }
}

/// The scenario with `overrides` then `set`, priced as `compare --set` prices it: every
/// pattern weighed.
fn brute(overrides: &[(String, String)], set: &[(String, String)]) -> Vec<Point> {
    let src = source();
    let all: Vec<(String, String)> = overrides.iter().chain(set).cloned().collect();
    let s: Scenario = scenario::parse(&src.label, &src.text, &src.base, &all).unwrap();
    let report = compare::analytic(&s);
    let mut steady = compare::analytic(&Scenario {
        incident: None,
        ..s.clone()
    });
    let opts = McOptions {
        requests: P99_REQUESTS,
        runs: 0,
        seed: P99_SEED,
    };
    compare::simulate(&mut steady, &opts, &mut |_| {});
    let chain = &s.chains[0];
    let n = s.incident.as_ref().unwrap().for_chain(chain).requests() as f64;
    let hedge_none = set
        .iter()
        .any(|(k, v)| k == "policy.hedge_delay_s" && v == "none");
    let strings: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let base = s.request.like_for_like(&chain.links[0].price);
    let ratio = s.request.like_for_like(&chain.links[1].price) / base;
    report
        .steady
        .iter()
        .filter(|r| r.pattern.is_hedged() || hedge_none)
        .map(|r| {
            let i = report
                .incident
                .iter()
                .find(|i| i.pattern == r.pattern)
                .unwrap();
            let p99 = steady
                .steady
                .iter()
                .find(|m| m.pattern == r.pattern)
                .unwrap()
                .mc
                .as_ref()
                .unwrap()
                .latency_p99_s;
            let raw = Raw {
                steady_cost_per_1k_usd: r.analytic.cost_per_1k_usd,
                steady_failed_per_1k: r.analytic.failed_per_1k,
                dead_time_mean_s: r.policy.dead_time_mean_s,
                p99_s: p99,
                max_ratio: ratio.max(1.0),
                traffic_share: 1.0,
                incident: Some(RawIncident {
                    total_usd: i.analytic.total_usd,
                    requests: n,
                    failed_requests: i.analytic.failed_requests,
                    method: i.method.as_str(),
                    precision: i.simulated_precision,
                }),
            };
            weigh(
                raw,
                &usage(),
                &goals(),
                "c",
                s.chains[0]
                    .links
                    .iter()
                    .map(|l| l.price.id.clone())
                    .collect(),
                r.pattern,
                strings.clone(),
            )
        })
        .collect()
}

/// Every point of the space on the scenario with `overrides`, in the order tune tries them.
fn every_point(overrides: &[(String, String)]) -> Vec<Point> {
    let mut all = Vec::new();
    for t in ["5", "20"] {
        for r in ["0", "1"] {
            for b in [None, Some(("2", "30"))] {
                for h in ["none", "3"] {
                    if h == "3" && t.parse::<f64>().unwrap() <= 3.0 {
                        continue;
                    }
                    let mut set = vec![
                        ("policy.timeout_s".to_string(), t.to_string()),
                        ("policy.retries".to_string(), r.to_string()),
                    ];
                    match b {
                        None => set.push(("policy.breaker".into(), "none".into())),
                        Some((k, c)) => {
                            set.push(("policy.breaker.threshold".into(), k.into()));
                            set.push(("policy.breaker.cooldown_s".into(), c.into()));
                        }
                    }
                    set.push(("policy.hedge_delay_s".into(), h.into()));
                    all.extend(brute(overrides, &set));
                }
            }
        }
    }
    all
}

fn key(p: &Point) -> (Pattern, Vec<String>) {
    let mut s = p.set.clone();
    s.sort();
    (p.pattern, s)
}

fn objectives(p: &Point) -> (f64, f64, f64) {
    (p.cost_per_1k_usd, p.availability, p.raw.p99_s)
}

#[test]
fn the_frontier_is_the_non_dominated_set_and_the_recommendation_the_cheapest_feasible() {
    let c = against_brute_force(&[]);
    // 8 of the 16 combinations have a breaker: their 24 candidates are screened
    assert_eq!(c.screened, 24);
    assert_eq!(c.inert_breakers, 0);
}

/// The same space on a fast outage with no steady failures: every breaker is inert (it refuses
/// only attempts that fail fast and bill nothing), so its 24 candidates are priced by the
/// analytic engine without it, never screened, and a point's figures are still exactly what
/// `compare --set` prints (compare simulates them with the breaker: the same bill); only the
/// method says `analytic` where compare says `simulated`.
#[test]
fn inert_breakers_are_priced_as_compare_prints_them_without_a_screen() {
    let overrides = [
        ("incident.failure".to_string(), "fast".to_string()),
        ("steady.failure_rate".to_string(), "0".to_string()),
    ];
    let c = against_brute_force(&overrides);
    assert_eq!(c.screened, 0);
    assert_eq!(c.recomputed, 0);
    assert_eq!(c.inert_breakers, 24);
}

/// Tune on the fixture with `overrides` against brute force (the module doc); its result.
fn against_brute_force(overrides: &[(String, String)]) -> fallcost::tune::ChainTune {
    let all = every_point(overrides);
    assert_eq!(all.len(), 48);
    // the non-dominated set, by definition (O(n²)); of equal points the first tried stands
    let dominated = |p: &Point| {
        all.iter().any(|q| {
            let ((qc, qa, qt), (pc, pa, pt)) = (objectives(q), objectives(p));
            qc <= pc && qa >= pa && qt <= pt && (qc < pc || qa > pa || qt < pt)
        })
    };
    let mut want: Vec<&Point> = Vec::new();
    for p in &all {
        if !dominated(p) && !want.iter().any(|w| objectives(w) == objectives(p)) {
            want.push(p);
        }
    }
    let mut src = source();
    src.overrides = overrides.to_vec();
    let tune = run(&src, &ask()).unwrap();
    let c = &tune.chains[0];
    assert_eq!(c.combinations, 16);
    assert_eq!(c.candidates, 48);
    let mut got: Vec<_> = c.frontier.iter().map(key).collect();
    let mut expect: Vec<_> = want.iter().map(|p| key(p)).collect();
    got.sort();
    expect.sort();
    assert_eq!(got, expect);
    assert!(want.len() >= 3, "a frontier of {} points", want.len());
    // every frontier point's figures are the brute force's, exactly (an inert breaker's
    // labelled analytic, where compare labels its simulation)
    let same = |p: &Point, b: &Point| {
        let mut b = b.clone();
        if let (Some(x), Some(y)) = (&p.raw.incident, &mut b.raw.incident)
            && x.method == "analytic"
            && y.method == "simulated"
            && c.inert_breakers > 0
        {
            y.method = "analytic";
            y.precision = None;
        }
        assert_eq!(p, &b, "{:?}", p.set);
    };
    for p in &c.frontier {
        same(p, all.iter().find(|b| key(b) == key(p)).unwrap());
    }
    // the recommendation: the cheapest feasible point
    let best = all
        .iter()
        .filter(|p| p.feasible)
        .min_by(|a, b| {
            a.cost_per_1k_usd
                .total_cmp(&b.cost_per_1k_usd)
                .then(b.availability.total_cmp(&a.availability))
                .then(a.raw.p99_s.total_cmp(&b.raw.p99_s))
        })
        .unwrap();
    let rec = c.recommended.as_ref().unwrap();
    assert_eq!(key(rec), key(best));
    same(rec, best);
    // some points are infeasible, so the constraints bite
    assert!(all.iter().any(|p| !p.feasible));
    c.clone()
}

#[test]
fn an_unreachable_slo_names_the_binding_constraint() {
    let mut a = ask();
    a.goals.availability = Some(0.999_999_9);
    let tune = run(&source(), &a).unwrap();
    let c = &tune.chains[0];
    assert!(c.recommended.is_none());
    let why = c.infeasible.as_ref().unwrap();
    let avail = why
        .constraints
        .iter()
        .find(|b| b.name == "availability")
        .unwrap();
    assert!(avail.binds);
    assert!(
        avail.best < 0.999_999_9 && avail.best > 0.99,
        "{}",
        avail.best
    );
    // the best availability any point reaches: the frontier holds the most available point
    let best = c
        .frontier
        .iter()
        .map(|p| p.availability)
        .fold(0.0, f64::max);
    assert_eq!(avail.best, best);
    assert!(why.closest.as_ref().is_some_and(|p| !p.feasible));
}

/// The `--set` keys tune writes: a chain's models by the chain's name, `none` removing a
/// breaker or hedge delay, and a warm policy given as a word or as `after`, either over the other.
#[test]
fn set_reaches_what_tune_varies() {
    let text = std::fs::read_to_string("scenarios/policies.toml").unwrap();
    let parse = |set: &[(&str, &str)]| {
        let set: Vec<(String, String)> = set
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        scenario::parse(
            "policies.toml",
            &text,
            std::path::Path::new("scenarios"),
            &set,
        )
    };
    let s = parse(&[
        (
            "chain.medium.models",
            r#"["openai/gpt-6-sol", "anthropic/claude-sonnet-5"]"#,
        ),
        ("policy.breaker", "none"),
        ("policy.hedge_delay_s", "none"),
        ("policy.warm_fallback", "never"),
    ])
    .unwrap();
    let medium = s.chains.iter().find(|c| c.name == "medium").unwrap();
    assert_eq!(medium.links[0].price.id, "openai/gpt-6-sol");
    assert_eq!(medium.links[1].price.id, "anthropic/claude-sonnet-5");
    // the other chains keep their models
    assert_eq!(s.chains[0].links[0].price.id, "anthropic/claude-haiku-4-5");
    assert!(medium.policy.breaker.is_none() && medium.policy.hedge_delay_s.is_none());
    assert_eq!(
        medium.policy.warm_fallback,
        fallcost::model::policy::WarmPolicy::Never
    );
    // a word over a table, then a table's field over the word
    let s = parse(&[
        ("policy.warm_fallback", "always"),
        ("policy.warm_fallback.after", "2"),
    ])
    .unwrap();
    assert_eq!(
        s.chains[0].policy.warm_fallback,
        fallcost::model::policy::WarmPolicy::After(2)
    );
    // a chain the scenario does not have is still an error naming `chain`
    let e = parse(&[("chain.nosuch.models", r#"["openai/gpt-6-sol"]"#)])
        .unwrap_err()
        .to_string();
    assert!(e.contains("chain.NAME.FIELD"), "{e}");
}

const HISTORY: &str = "tests/fixtures/tune/history.csv";

/// `--history`: the objective's incident cost is the history's premium per year. The fixture's
/// year (2026, 365 days) holds two gray outages of the primary's provider, 10 and 20 minutes,
/// at the scenario's 0.5 requests per second: 300 + 600 = 900 requests, 900 × 365.25 / 365 =
/// 900.6164 a Julian year. Each point's objective is its steady cost plus 1,000 × (the
/// history's bill per year − those requests × the steady cost per request) / the year's
/// 12 × 10⁶ requests, the bill being what `compare --incidents` prints per year.
#[test]
fn with_a_history_the_objective_is_steady_plus_its_annual_premium_per_1k() {
    let paths = vec![PathBuf::from(HISTORY)];
    let history = fallcost::input::history::load(&paths, &Default::default()).unwrap();
    let mut a = ask();
    a.space_file = Some((
        vec![
            dim("policy.timeout_s", &["20"]),
            dim("policy.retries", &["1"]),
            dim("policy.breaker.threshold", &["none", "2"]),
            dim("policy.breaker.cooldown_s", &["30"]),
            dim("policy.hedge_delay_s", &["none"]),
        ],
        false,
    ));
    a.history = Some((history.clone(), vec![HISTORY.to_string()]));
    a.goals = Goals::default();
    let tune = run(&source(), &a).unwrap();
    assert_eq!(tune.usage.incidents_per_year, 1.0);
    assert_eq!(tune.usage.history, vec![HISTORY.to_string()]);
    let c = &tune.chains[0];
    // with a history nothing is screened, the breaker's either: every candidate is the replay's
    assert_eq!((c.combinations, c.candidates, c.screened), (2, 8, 0));
    let rec = c.recommended.as_ref().unwrap();
    let year_requests = 12.0 * 1e6;
    for p in c.frontier.iter().chain([rec]) {
        let set: Vec<(String, String)> = p
            .set
            .iter()
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        let src = source();
        let s = scenario::parse(&src.label, &src.text, &src.base, &set).unwrap();
        let steady = compare::analytic(&s)
            .steady
            .into_iter()
            .find(|r| r.pattern == p.pattern)
            .unwrap()
            .analytic;
        let inputs = fallcost::ops::history::ReplayInputs {
            files: vec![HISTORY.into()],
            minor_error_rate: 0.5,
        };
        let replay = fallcost::ops::history::replay(&s, &history, &inputs).unwrap();
        let year = replay
            .per_year
            .iter()
            .find(|t| t.chain == "c" && t.pattern == p.pattern)
            .unwrap();
        let inc = p.raw.incident.as_ref().unwrap();
        assert_eq!(inc.total_usd, year.figures.total_usd, "{:?}", p.set);
        assert!(
            (inc.requests - 900.0 * 365.25 / 365.0).abs() < 1e-6,
            "{}",
            inc.requests
        );
        let c1 = steady.cost_per_1k_usd / 1000.0;
        let premium = year.figures.total_usd - inc.requests * c1;
        let want = steady.cost_per_1k_usd + 1000.0 * premium / year_requests;
        assert!(
            (p.cost_per_1k_usd - want).abs() < 1e-9 * want,
            "{:?}: {} vs {want}",
            p.set,
            p.cost_per_1k_usd
        );
        // the history moves the objective: its windows bill otherwise than the steady state
        assert!(premium.abs() > 1e-3, "{premium}");
        let f = steady.failed_per_1k / 1000.0;
        let failed = (year_requests - inc.requests) * f + year.figures.failed_requests;
        assert!((p.availability - (1.0 - failed / year_requests)).abs() < 1e-12);
    }
}

/// fallcost.toml's `[usage]`: the traffic, budget and history `tune` reads when no flag gives
/// them, and a flag over it.
#[test]
fn tune_reads_usage_from_fallcost_toml() {
    let run_cli = |extra: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
            .args([
                "tune",
                "--scenario",
                FIXTURE,
                "--config-file",
                "tests/fixtures/tune/fallcost.toml",
                "--vary",
                "policy.timeout_s=20",
                "--vary",
                "policy.retries=1",
                "--vary",
                "policy.breaker.threshold=none",
                "--vary",
                "policy.hedge_delay_s=none",
                "--confirm",
                "0",
                "--format",
                "json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = run_cli(&[]);
    let u = &v["usage"];
    assert_eq!(u["requests_per_month"], 2e6);
    assert!(
        u["source"]
            .as_str()
            .unwrap()
            .ends_with("[usage] requests_per_month"),
        "{u}"
    );
    assert_eq!(u["history"][0], "tests/fixtures/tune/history.csv");
    assert_eq!(u["incidents_per_year"], 1.0);
    assert_eq!(v["goals"]["budget_usd_month"], 50_000.0);
    // the shipped point's monthly bill: cost per 1k × 2e6 / 1,000
    let shipped = &v["chains"][0]["shipped"];
    let per_1k = shipped["cost_per_1k_usd"].as_f64().unwrap();
    let monthly = shipped["monthly_usd"].as_f64().unwrap();
    assert!(
        (monthly - per_1k * 2000.0).abs() < 1e-6 * monthly,
        "{shipped}"
    );
    // flags win
    let v = run_cli(&["--requests-per-month", "1e6", "--budget", "10"]);
    assert_eq!(v["usage"]["requests_per_month"], 1e6);
    assert_eq!(v["usage"]["source"], "--requests-per-month");
    assert_eq!(v["goals"]["budget_usd_month"], 10.0);
}
