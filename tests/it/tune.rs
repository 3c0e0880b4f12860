//! `fallcost tune` against brute force: a small space (2 timeouts × 2 retry counts × breaker
//! off or on × 2 hedge delays: 16 combinations, 48 candidates with their patterns) priced point
//! by point through the analytic engine (`ops::compare::analytic`, as `compare --set` prices
//! it; the breaker's incident figures are its fixed-seed simulation) and the p99 from the
//! fixed-seed steady Monte Carlo of the settings without their breaker (which the steady
//! simulation does not see: common random numbers with and without one). Tune's frontier must
//! be exactly the non-dominated set and its recommendation the cheapest feasible point (or one
//! tied with it within the intervals and with fewer moving parts), every figure equal to the
//! brute force's.

use std::path::PathBuf;

use fallcost::input::scenario;
use fallcost::model::{Pattern, Scenario};
use fallcost::ops::compare;
use fallcost::ops::inputs::Source;
use fallcost::ops::tune::{Ask, run};
use fallcost::sim::McOptions;
use fallcost::tune::frontier::{moving_parts, weigh};
use fallcost::tune::space::Dim;
use fallcost::tune::{Goals, P99_REQUESTS, P99_SEED, Point, Raw, RawIncident, Usage};

const FIXTURE: &str = "tests/fixtures/tune/small.toml";

fn source() -> Source {
    source_at(FIXTURE)
}

/// The scenario file at `path` (relative to the crate), its own folder the base for its
/// relative paths, nothing overridden.
fn source_at(path: &str) -> Source {
    Source {
        label: path.into(),
        text: std::fs::read_to_string(path).unwrap(),
        base: std::path::Path::new(path).parent().unwrap().to_path_buf(),
        ..Source::default()
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

/// The breaker settings of the space: none, or (threshold, cooldown) with the one cooldown.
type Breakers<'a> = &'a [Option<(&'a str, &'a str)>];

/// The usual space's breakers: none, or opening after 2 failures for 30 s.
const ONE_BREAKER: Breakers<'static> = &[None, Some(("2", "30"))];

fn ask() -> Ask {
    ask_with(ONE_BREAKER)
}

fn ask_with(breakers: Breakers) -> Ask {
    let thresholds: Vec<&str> = breakers
        .iter()
        .map(|b| b.map_or("none", |(k, _)| k))
        .collect();
    let cooldown = breakers
        .iter()
        .flatten()
        .map(|b| b.1)
        .next()
        .unwrap_or("30");
    Ask {
        space_file: Some((
            vec![
                dim("policy.timeout_s", &["5", "20"]),
                dim("policy.retries", &["0", "1"]),
                dim("policy.breaker.threshold", &thresholds),
                dim("policy.breaker.cooldown_s", &[cooldown]),
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

/// A search of `chains` (empty: every chain) over `dims` alone, `incidents_per_year` reference
/// incidents a year, with no confirmation batches.
fn ask_space(chains: &[&str], dims: Vec<Dim>, incidents_per_year: f64) -> Ask {
    Ask {
        chains: chains.iter().map(|c| c.to_string()).collect(),
        space_file: Some((dims, false)),
        incidents_per_year,
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
    // the p99: the same settings without the breaker, on the same seed
    let mut free = Scenario {
        incident: None,
        ..s.clone()
    };
    for c in &mut free.chains {
        c.policy.breaker = None;
    }
    let mut steady = compare::analytic(&free);
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
                    total_precision: None,
                    // the failed requests' own precision, from the same (memoized) simulation
                    failed_precision: (i.method == fallcost::report::Method::Simulated)
                        .then(|| {
                            let inc = s.incident.as_ref().unwrap().for_chain(chain);
                            fallcost::sim::expected::expected(&s.request, chain, &inc, r.pattern)
                                .map(|x| x.failed_precision)
                        })
                        .flatten(),
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
fn every_point(
    overrides: &[(String, String)],
    timeouts: &[&str],
    breakers: Breakers,
) -> Vec<Point> {
    let mut all = Vec::new();
    for &t in timeouts {
        for r in ["0", "1"] {
            for &b in breakers {
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
    let c = against_brute_force(&[], &["5", "20"]);
    // 8 of the 16 combinations have a breaker: their 24 candidates are screened
    assert_eq!(c.screened, 24);
    assert_eq!(c.inert_breakers, 0);
}

/// Three breaker settings (none, 2 or 5 failures for 30 s): the screen pairs the breaker
/// candidates' windows (the same seed for every candidate) and two with the same latency
/// settings have the same p99, and the frontier and the recommendation are still the brute
/// force's, every figure equal.
#[test]
fn pairing_breaker_settings_on_the_same_windows_keeps_the_brute_forces_frontier() {
    let c = against_brute_force_with(
        &[],
        &["5", "20"],
        &[None, Some(("2", "30")), Some(("5", "30"))],
    );
    // 16 of the 24 combinations have a breaker: their 48 candidates are screened
    assert_eq!(c.screened, 48);
}

/// The same space on a fast outage with no steady failures or trips: every breaker is inert
/// (it refuses only attempts that fail fast and bill nothing), so its 12 candidates are priced by the
/// analytic engine without it, never screened, and a point's figures are still exactly what
/// `compare --set` prints (compare simulates them with the breaker: the same bill); only the
/// method says `analytic` where compare says `simulated`.
#[test]
fn inert_breakers_are_priced_as_compare_prints_them_without_a_screen() {
    let overrides = [
        ("incident.failure".to_string(), "fast".to_string()),
        ("steady.failure_rate".to_string(), "0".to_string()),
        // no trips either (else the fallback's trips fail in the window): the timeout is
        // then held at the chain's own 30 s, its trips not priced at another
        ("steady.timeout_trip_rate".to_string(), "0".to_string()),
    ];
    let c = against_brute_force(&overrides, &["30"]);
    assert_eq!(c.screened, 0);
    assert_eq!(c.recomputed, 0);
    assert_eq!(c.inert_breakers, 12);
    assert_eq!(c.held.len(), 1);
}

/// Tune on the fixture with `overrides` against brute force (the module doc); its result.
/// `timeouts`: the ones tune tries (5 and 20 s, or the chain's own 30 s where it holds it).
fn against_brute_force(
    overrides: &[(String, String)],
    timeouts: &[&str],
) -> fallcost::tune::ChainTune {
    against_brute_force_with(overrides, timeouts, ONE_BREAKER)
}

/// [`against_brute_force`] over the breaker settings `breakers`.
fn against_brute_force_with(
    overrides: &[(String, String)],
    timeouts: &[&str],
    breakers: Breakers,
) -> fallcost::tune::ChainTune {
    let all = every_point(overrides, timeouts, breakers);
    let b = breakers.len();
    assert_eq!(all.len(), 12 * b * timeouts.len());
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
    let tune = run(&src, &ask_with(breakers)).unwrap();
    let c = &tune.chains[0];
    assert_eq!(c.combinations, 4 * b * timeouts.len());
    assert_eq!(c.candidates, 12 * b * timeouts.len());
    let mut got: Vec<_> = c.frontier.iter().map(key).collect();
    let mut expect: Vec<_> = want.iter().map(|p| key(p)).collect();
    got.sort();
    expect.sort();
    assert_eq!(got, expect);
    // one timeout with every breaker inert leaves one point standing (the rest equal or worse)
    let least = if timeouts.len() > 1 { 3 } else { 1 };
    assert!(want.len() >= least, "a frontier of {} points", want.len());
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
    let b = all.iter().find(|b| key(b) == key(rec)).unwrap();
    same(rec, b);
    if key(rec) != key(best) {
        // a tie within the intervals, won by fewer moving parts: the cost within the
        // simulated incidents' precision, and not more parts than the cheapest
        let tol = |p: &Point| {
            let prec = p
                .raw
                .incident
                .as_ref()
                .and_then(|i| i.precision)
                .unwrap_or(0.0);
            1e-9 * p.cost_per_1k_usd + prec * p.incident_premium_per_1k_usd.abs()
        };
        assert!(
            (rec.cost_per_1k_usd - best.cost_per_1k_usd).abs() <= tol(rec) + tol(best),
            "{:?} vs {:?}",
            rec.set,
            best.set
        );
        assert!(moving_parts(rec) <= moving_parts(best));
        assert!(
            c.reason
                .as_ref()
                .unwrap()
                .starts_with("tied within the intervals")
        );
    }
    // some points are infeasible, so the constraints bite
    if timeouts.len() > 1 {
        assert!(all.iter().any(|p| !p.feasible));
    }
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

/// A scenario with no `[latency]` model: a timeout's trips of healthy requests would not be
/// billed (the analytic engine keeps the trip rate as given, 0), so tune holds the chain's own
/// timeout, says why, and tries none of the others it was asked.
#[test]
fn a_timeout_without_a_latency_model_is_held_and_said() {
    let mut src = source();
    src.text = src.text.replace(
        "[latency.\"anthropic/claude-sonnet-5\"]\np50_s = 2.5\np99_s = 12\n",
        "",
    );
    let tune = run(&src, &ask()).unwrap();
    let c = &tune.chains[0];
    // 5 and 20 s asked, the chain's own 30 s held: 8 combinations, not 16
    assert_eq!(c.combinations, 8);
    assert_eq!(c.held.len(), 1, "{:?}", c.held);
    let h = &c.held[0];
    assert!(
        h.starts_with("policy.timeout_s held at the chain's own 30 s (not tried: 5 s, 20 s)"),
        "{h}"
    );
    assert!(
        h.contains("anthropic/claude-sonnet-5 has no [latency] model"),
        "{h}"
    );
    for p in c.frontier.iter().chain(c.recommended.as_ref()) {
        assert!(
            p.set.contains(&"policy.timeout_s=30".to_string()),
            "{:?}",
            p.set
        );
    }
    // with both models' latency, the timeout is tried
    let tune = run(&source(), &ask()).unwrap();
    assert!(tune.chains[0].held.is_empty());
    assert_eq!(tune.chains[0].combinations, 16);
}

/// The tie rule on sept3's price-matched chain: a fast outage with no steady failures makes
/// every breaker inert (the same bill, the same failures), and the p99 of the same settings
/// with and without a breaker is drawn on the same requests (common random numbers): the
/// two are one tie, and the recommendation is the one without the breaker (fewer moving
/// parts), with the reason printed.
#[test]
fn a_breaker_that_changes_nothing_ties_and_loses_to_none() {
    let src = source_at("scenarios/sept3.toml");
    let a = ask_space(
        &["price-matched"],
        vec![
            dim("policy.retries", &["0", "1"]),
            dim("policy.breaker.threshold", &["none", "2"]),
            dim("policy.breaker.cooldown_s", &["30"]),
            dim("policy.hedge_delay_s", &["none"]),
        ],
        1.0,
    );
    let tune = run(&src, &a).unwrap();
    let c = &tune.chains[0];
    let rec = c.recommended.as_ref().unwrap();
    assert!(
        rec.set.contains(&"policy.breaker=none".to_string()),
        "{:?}",
        rec.set
    );
    assert!(
        rec.set.contains(&"policy.retries=0".to_string()),
        "{:?}",
        rec.set
    );
    let why = c.reason.as_ref().unwrap();
    assert!(why.starts_with("tied within the intervals with "), "{why}");
    assert!(why.contains("policy.breaker.threshold=2"), "{why}");
    assert!(c.breaker_buys.is_none());
    assert!(c.reproduce_p99.is_none());
}

/// What a recommended breaker buys is printed: the one-deployment example, where a breaker
/// opening at the first failure for 60 s is the cheapest, against the same settings without it.
#[test]
fn a_recommended_breaker_says_what_it_buys() {
    let src = source_at("examples/tune/one-deployment.toml");
    let a = ask_space(
        &[],
        vec![
            dim("policy.retries", &["0"]),
            dim("policy.breaker.threshold", &["none", "1"]),
            dim("policy.breaker.cooldown_s", &["60"]),
            dim("policy.hedge_delay_s", &["none"]),
        ],
        52.0,
    );
    let tune = run(&src, &a).unwrap();
    let c = &tune.chains[0];
    let rec = c.recommended.as_ref().unwrap();
    assert!(
        rec.set.contains(&"policy.breaker.threshold=1".to_string()),
        "{:?}",
        rec.set
    );
    let b = c.breaker_buys.as_ref().expect("a breaker recommended");
    assert_eq!(b.with.method, "simulated");
    assert_eq!(b.without.method, "analytic");
    // 11 requests, each trying the dead deployment once without a breaker
    assert_eq!(b.without.failed_attempts, 11.0);
    assert!(b.with.failed_attempts < b.without.failed_attempts, "{b:?}");
    assert!(
        b.with.dead_time_mean_s < b.without.dead_time_mean_s,
        "{b:?}"
    );
    assert!(b.with.dead_provider_attempts.unwrap() < 11.0);
    assert_eq!(
        Some(b.with.total_usd),
        rec.raw.incident.as_ref().map(|i| i.total_usd)
    );
}

/// Run the built binary with `args` from the repository root (or `dir`); its output.
fn fallcost_at(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args(args)
        .current_dir(dir)
        .env_remove("RAYON_NUM_THREADS")
        .output()
        .unwrap()
}

/// A folder of its own under the system's temporary folder, with a space in its name.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fallcost tune {name} {}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The printed reproduce line runs when pasted into a shell: a scenario path and a chain name
/// with spaces and a quote, the point's `--set`s and the p99's seed. `compare --format json`
/// from that line prints the recommendation's steady cost, incident bill and p99 exactly.
#[test]
fn the_reproduce_line_runs_in_a_shell_and_prints_the_row() {
    let dir = scratch("reproduce");
    let text = std::fs::read_to_string(FIXTURE)
        .unwrap()
        .replace("name = \"c\"", "name = \"team's chain\"");
    let path = dir.join("small scenario.toml");
    std::fs::write(&path, text).unwrap();
    let path_s = path.display().to_string();
    let out = fallcost_at(
        &dir,
        &[
            "tune",
            "--scenario",
            &path_s,
            "--vary",
            "policy.timeout_s=20",
            "--vary",
            "policy.retries=0,1",
            "--vary",
            "policy.breaker.threshold=none",
            "--vary",
            "policy.hedge_delay_s=none",
            "--confirm",
            "0",
            "--availability",
            "99%",
            "--format",
            "json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["chains"][0];
    let line = c["reproduce"].as_str().unwrap();
    assert!(line.starts_with("fallcost compare --scenario '"), "{line}");
    assert!(line.contains("--chain 'team'\\''s chain'"), "{line}");
    assert!(
        line.ends_with(&format!("--mc 20000 --seed {P99_SEED}")),
        "{line}"
    );
    let doc = crate::common::reproduce_in(&dir, line);
    let rec = &c["recommended"];
    let pattern = rec["pattern"].as_str().unwrap();
    let steady = doc["steady"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pattern"] == pattern && r["chain"] == "team's chain")
        .unwrap();
    assert_eq!(
        steady["cost_per_1k_usd"],
        rec["raw"]["steady_cost_per_1k_usd"]
    );
    assert_eq!(
        steady["mc"]["latency_p99_s"], rec["raw"]["p99_s"],
        "{steady}"
    );
    let incident = doc["incident"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["pattern"] == pattern && r["chain"] == "team's chain")
        .unwrap();
    assert_eq!(incident["total_usd"], rec["raw"]["incident"]["total_usd"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every example of `fallcost tune --help` runs: it exits with a result (0, or 1 when nothing
/// meets the constraints), never 2. Each is run as printed, in a folder that sees the
/// repository's scenarios and examples (so `-o tune.json` writes there), with `--budget-s 2`
/// added so that the slow ones stop early (the frontier so far, labelled partial).
#[test]
fn every_tune_help_example_runs() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let help = fallcost_at(&root, &["tune", "--help"]);
    let help = String::from_utf8(help.stdout).unwrap();
    // the examples, one line each whatever width clap wrapped them to
    let examples = help
        .split("Examples:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .replace('\\', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .split("fallcost tune ")
        .filter(|e| !e.trim().is_empty())
        .map(|e| format!("fallcost tune {}", e.trim()))
        .collect::<Vec<_>>()
        .join("\n");
    let dir = scratch("help");
    for d in ["scenarios", "examples"] {
        std::os::unix::fs::symlink(root.join(d), dir.join(d)).unwrap();
    }
    let mut ran = 0;
    for line in examples.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[..2], ["fallcost", "tune"], "{line}");
        let mut args = words[1..].to_vec();
        args.extend(["--budget-s", "2"]);
        let out = fallcost_at(&dir, &args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{line}: exit {:?}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert_eq!(ran, 5);
    assert!(dir.join("tune.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The LiteLLM fragments of `tests/fixtures/tune/litellm/`: tune on the team's config
/// (`team.yaml`, groups named `primary-chat` and `backup chat`) prints each case's fragment
/// byte for byte, and LiteLLM's own Router, given the fragment merged into the team's config
/// (`scripts/litellm-tune-walks.py`, recorded in `walks.json`), walks a failing request
/// exactly as recommended: each group of the chain in order, 1 + the recommended retries
/// calls each at the recommended timeout, the team's global `num_retries: 2` overridden; and
/// with a breaker, the cooled-down primary is skipped by the next request.
#[test]
fn litellm_fragments_make_the_router_walk_the_recommendation() {
    const DIR: &str = "tests/fixtures/tune/litellm";
    let walks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/walks.json")).unwrap())
            .unwrap();
    assert_eq!(walks["litellm_version"], "1.110.2");
    let cases: [(&str, &[&str], &str); 2] = [
        (
            "breaker",
            &[
                "policy.retries=1",
                "policy.breaker.threshold=2",
                "policy.breaker.cooldown_s=60",
            ],
            "99.9999%",
        ),
        (
            "no-fallback",
            &["policy.retries=0", "policy.breaker.threshold=none"],
            "90%",
        ),
    ];
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (case, vary, availability) in cases {
        let mut args = vec![
            "tune",
            "--config",
            "tests/fixtures/tune/litellm/team.yaml",
            "--scenario",
            "tests/fixtures/tune/litellm/scenario.toml",
            "--vary",
            "policy.timeout_s=15",
            "--vary",
            "policy.hedge_delay_s=none",
            "--availability",
            availability,
            "--confirm",
            "0",
            "--format",
            "json",
        ];
        for v in vary {
            args.extend(["--vary", v]);
        }
        let out = fallcost_at(&root, &args);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let c = &v["chains"][0];
        let rec = &c["recommended"];
        let fragment = c["gateway"]["litellm_yaml"].as_str().unwrap();
        let recorded = std::fs::read_to_string(format!("{DIR}/{case}.fragment.yaml")).unwrap();
        assert_eq!(
            fragment, recorded,
            "{case}: tune prints another fragment than the one recorded"
        );
        let pattern = rec["pattern"].as_str().unwrap();
        let set: Vec<&str> = rec["set"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let retries: usize = set
            .iter()
            .find_map(|s| s.strip_prefix("policy.retries="))
            .unwrap()
            .parse()
            .unwrap();
        let groups: Vec<&str> = if pattern == "no-fallback" {
            vec!["primary-chat"]
        } else {
            vec!["primary-chat", "backup chat"]
        };
        assert_eq!(
            pattern,
            if case == "breaker" {
                "sequential"
            } else {
                "no-fallback"
            },
            "{case}"
        );
        let w = &walks["cases"][case];
        // the first request: every group in order, 1 + retries calls each, at 15 s
        let calls = w["walks"][0]["calls"].as_array().unwrap();
        let want: Vec<(&str, f64)> = groups
            .iter()
            .flat_map(|g| std::iter::repeat_n((*g, 15.0), 1 + retries))
            .collect();
        let got: Vec<(&str, f64)> = calls
            .iter()
            .map(|k| (k["group"].as_str().unwrap(), k["timeout"].as_f64().unwrap()))
            .collect();
        assert_eq!(got, want, "{case}: {w}");
        let settings = &w["settings"];
        if groups.len() > 1 {
            assert_eq!(
                settings["fallbacks"],
                serde_json::json!([{"primary-chat": ["backup chat"]}])
            );
        } else {
            // the team's entry for the group replaced by an empty one: no fallback call
            assert_eq!(
                settings["fallbacks"],
                serde_json::json!([{"primary-chat": []}])
            );
        }
        let primary = settings["deployments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["model_name"] == "primary-chat")
            .unwrap();
        // the team's deployment kept, the fragment's keys merged in
        assert_eq!(primary["model"], "openai/gpt-6-sol");
        assert_eq!(primary["timeout"].as_f64(), Some(15.0));
        if case == "breaker" {
            assert_eq!(primary["cooldown_time"].as_f64(), Some(60.0));
            assert_eq!(
                primary["allowed_fails_policy"]["InternalServerErrorAllowedFails"],
                1
            );
            // cooled down after its 2nd failure: the next requests do not call it
            for later in &w["walks"].as_array().unwrap()[1..] {
                assert!(
                    later["calls"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|k| k["group"] != "primary-chat"),
                    "{later}"
                );
            }
        } else {
            assert_eq!(
                primary["allowed_fails_policy"]["InternalServerErrorAllowedFails"],
                1_000_000
            );
            // no breaker: every request calls the primary again
            for later in w["walks"].as_array().unwrap() {
                assert_eq!(
                    later["calls"].as_array().unwrap().len(),
                    groups.len() * (1 + retries),
                    "{later}"
                );
            }
        }
    }
}

/// One month in every command: tune's traffic from an incident at 2 req/s around the clock is
/// 2 × 730 hours × 3,600 s = 5,256,000 requests, the month diff prices with (not 365.25 / 12
/// days).
#[test]
fn tune_counts_the_month_diff_counts() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fallcost"))
        .args([
            "tune",
            "--scenario",
            "scenarios/failover-cache.toml",
            "--confirm",
            "0",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["usage"]["requests_per_month"], 5_256_000.0, "{v}");
}

/// A chain with a traffic share and a breaker (`scenarios/policies.toml`'s medium chain): its
/// one-chain scenario's analytic report also holds the blended rows, and the screen once took
/// them for a second row and a second stopping rule per pattern; advancing one rule and
/// storing it over the other sent the screen round in circles (the whole scenario never
/// finished). Now the search ends (a worker thread, failed after 10 minutes rather than hung)
/// and every point it prints with a breaker carries `compare --set`'s own figures.
#[test]
fn a_traffic_share_chain_with_a_breaker_is_screened_to_the_end() {
    let src = source_at("scenarios/policies.toml");
    let a = ask_space(
        &["medium"],
        vec![
            dim("policy.retries", &["0", "2"]),
            dim("policy.breaker.threshold", &["none", "2", "5"]),
            dim("policy.breaker.cooldown_s", &["60"]),
            dim("policy.hedge_delay_s", &["none"]),
            dim("policy.warm_fallback", &["always"]),
        ],
        1.0,
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = src.clone();
    std::thread::spawn(move || {
        let _ = tx.send(run(&worker, &a).map_err(|e| e.to_string()));
    });
    let tune = rx
        .recv_timeout(std::time::Duration::from_secs(600))
        .expect("the search ends")
        .unwrap();
    let c = &tune.chains[0];
    assert!(c.recommended.is_some());
    let simulated: Vec<&Point> = c
        .frontier
        .iter()
        .filter(|p| {
            p.raw
                .incident
                .as_ref()
                .is_some_and(|i| i.method == "simulated")
        })
        .collect();
    assert!(!simulated.is_empty());
    for p in simulated {
        let set: Vec<(String, String)> = p
            .set
            .iter()
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        let mut s = scenario::parse(&src.label, &src.text, &src.base, &set).unwrap();
        scenario::select_chains(&mut s, &["medium".to_string()]).unwrap();
        let report = compare::analytic(&s);
        let row = report
            .incident
            .iter()
            .find(|r| r.chain == "medium" && r.pattern == p.pattern)
            .unwrap();
        let i = p.raw.incident.as_ref().unwrap();
        assert_eq!(i.total_usd, row.analytic.total_usd, "{:?}", p.set);
        assert_eq!(
            i.failed_requests, row.analytic.failed_requests,
            "{:?}",
            p.set
        );
    }
}
